//! Path ids and body decoding, each refusing with the documented error body
//! (the key, permission and bound checks run before, in `crate::operations`).

use crate::error::SimError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

/// A resource id from the path: an integer >= 1, else 400 `INVALID_REQUEST`.
pub(super) struct ResourceId(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for ResourceId {
    type Rejection = SimError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, SimError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| SimError::invalid(rejection.body_text()))?;
        raw.parse::<i64>()
            .ok()
            .filter(|id| *id >= 1)
            .map(ResourceId)
            .ok_or_else(|| SimError::invalid(format!("`{raw}` is not an id (an integer >= 1)")))
    }
}

/// Decodes a JSON value into a generated request type (whose own checks apply).
pub(super) fn decode<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, SimError> {
    serde_json::from_value(value).map_err(|error| SimError::invalid(error.to_string()))
}

/// What a generated request type cannot see, as it reads `null` and an empty
/// array like an absent member: the YAML's non-nullable members and its
/// arrays of at least one item.
pub(super) struct Strict {
    pub not_null: &'static [&'static str],
    pub not_empty: &'static [&'static str],
}

/// [`decode`], refusing first what `strict` names.
pub(super) fn decode_strict<T: DeserializeOwned>(body: serde_json::Value, strict: &Strict) -> Result<T, SimError> {
    for member in strict.not_null {
        if body.get(member).is_some_and(serde_json::Value::is_null) {
            return Err(SimError::invalid(format!("`{member}` must not be null")));
        }
    }
    for member in strict.not_empty {
        if body
            .get(member)
            .and_then(serde_json::Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            return Err(SimError::invalid(format!("`{member}` must not be empty")));
        }
    }
    decode(body)
}
