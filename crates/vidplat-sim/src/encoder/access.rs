//! Extractors shared by every operation: the key check (first, so a request
//! without a valid key gets 401 whatever else is wrong with it), path ids and
//! body decoding, each refusing with the documented error body.

use super::Service;
use crate::error::SimError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;
use std::sync::Arc;

/// The permission an operation needs: its YAML `x-permission`.
pub(super) trait Permission {
    /// `None`: the operation names no permission; any valid key will do.
    const NAME: Option<&'static str>;
}

macro_rules! permissions {
    ($($marker:ident => $name:expr;)*) => {$(
        pub(super) struct $marker;
        impl Permission for $marker {
            const NAME: Option<&'static str> = $name;
        }
    )*};
}

permissions! {
    AnyKey => None;
    TaskRead => Some("task read");
    TaskRegister => Some("task register");
    TaskDelete => Some("task delete");
    UploadedFileRead => Some("uploaded-file read");
    PresetRead => Some("preset read");
    PresetRegister => Some("preset register");
    PresetUpdate => Some("preset update");
    PresetDelete => Some("preset delete");
    ProfileRead => Some("profile read");
    ProfileRegister => Some("profile register");
    ProfileUpdate => Some("profile update");
    ProfileDelete => Some("profile delete");
}

/// Proof that the request carries a key holding permission `P` (401/403 otherwise).
pub(super) struct Authorized<P>(PhantomData<P>);

impl<P: Permission> FromRequestParts<Arc<Service>> for Authorized<P> {
    type Rejection = SimError;

    async fn from_request_parts(parts: &mut Parts, service: &Arc<Service>) -> Result<Self, SimError> {
        service.shared.keys.check(&parts.headers, P::NAME)?;
        Ok(Self(PhantomData))
    }
}

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
