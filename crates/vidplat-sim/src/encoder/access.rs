//! Path ids and body decoding, each refusing with the documented error body
//! (the key, permission and bound checks run before, in `crate::operations`).

use crate::error::SimError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;

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
pub(super) use crate::error::decode;
