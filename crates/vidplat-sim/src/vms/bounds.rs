//! The documented bounds of an operation's query and JSON body (number ranges,
//! lengths, item counts, uniqueness), checked with the client's own
//! `vidplat_core::first_violation` over the generated operation table: the
//! simulator refuses exactly what a vidplat client refuses before sending.
//! (The generated request types already refuse strings breaking a length or pattern.)

use crate::SimError;
use axum::extract::{FromRequestParts, Request};
use serde_json::Value;
use vidplat_core::Check;

/// The request unchanged, or 400 naming the first broken bound. A body that is
/// not JSON is left to the handler's extractor, which refuses it.
pub(super) async fn check(checks: &'static [Check], request: Request) -> Result<Request, SimError> {
    if checks.is_empty() {
        return Ok(request);
    }
    let (mut parts, body) = request.into_parts();
    let query = match axum::extract::Query::<Vec<(String, String)>>::from_request_parts(&mut parts, &()).await {
        Ok(axum::extract::Query(pairs)) => pairs,
        Err(rejection) => return Err(SimError::invalid(rejection.body_text())),
    };
    let bytes = axum::body::to_bytes(body, super::BODY_LIMIT)
        .await
        .map_err(|error| SimError::invalid(format!("unreadable body: {error}")))?;
    let json = serde_json::from_slice::<Value>(&bytes).ok();
    if let Some((field, rule)) = vidplat_core::first_violation(checks, &query, json.as_ref()) {
        return Err(SimError::invalid(format!("`{field}` {rule}")));
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}
