//! The documented error body: `{"code": "...", "message": "..." | null}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// An error answer of any of the three services.
#[derive(Clone, Debug, PartialEq)]
pub struct SimError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The body's `code`.
    pub code: String,
    /// The body's `message`.
    pub message: Option<String>,
}

impl SimError {
    /// An error answer with a status, a code and a message.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_owned(),
            message: Some(message.into()),
        }
    }

    /// 401: no key, or a key the simulator did not issue.
    pub fn unauthorized() -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            code: "REQUEST_UNAUTHORIZED".into(),
            message: None,
        }
    }

    /// 403: the key lacks the operation's permission. The documents name no code
    /// for this; REQUEST_UNAUTHORIZED ("unauthorized request") is the closest.
    pub fn forbidden(permission: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "REQUEST_UNAUTHORIZED",
            format!("the API key lacks the `{permission}` permission"),
        )
    }

    /// 404 `MODEL_NOT_FOUND`.
    pub fn not_found(what: impl std::fmt::Display) -> Self {
        Self::new(StatusCode::NOT_FOUND, "MODEL_NOT_FOUND", format!("{what} not found"))
    }

    /// 400 `INVALID_REQUEST`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "INVALID_REQUEST", message)
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.code)?;
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SimError {}

impl IntoResponse for SimError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"code": self.code, "message": self.message});
        (self.status, axum::Json(body)).into_response()
    }
}

/// `axum::Json`, whose refusals (bad JSON, a value breaking the YAML's bounds,
/// which the generated types check) answer the documented 400 body.
pub(crate) struct JsonBody<T>(pub T);

impl<T, S> axum::extract::FromRequest<S> for JsonBody<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = SimError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        axum::Json::<T>::from_request(request, state)
            .await
            .map(|axum::Json(value)| JsonBody(value))
            .map_err(|rejection| SimError::invalid(rejection.body_text()))
    }
}

/// "`a` is required", or "`a`, `b` and `c` are required".
pub(crate) fn missing_members(members: &[&str]) -> String {
    members_breaking(members, "is required", "are required")
}

/// The members named, then the rule they break: "`a` `one`", or "`a`, `b`
/// and `c` `many`".
pub(crate) fn members_breaking(members: &[&str], one: &str, many: &str) -> String {
    let quoted: Vec<String> = members.iter().map(|m| format!("`{m}`")).collect();
    match quoted.as_slice() {
        [single] => format!("{single} {one}"),
        [rest @ .., last] => format!("{} and {last} {many}", rest.join(", ")),
        [] => String::new(),
    }
}

/// `value` as `T`, refusing with the documented 400 body.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, SimError> {
    serde_json::from_value(value).map_err(|error| SimError::invalid(error.to_string()))
}

/// `axum::extract::Query`, refusing with the documented 400 body.
pub(crate) struct QueryParams<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for QueryParams<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = SimError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| QueryParams(value))
            .map_err(|rejection| SimError::invalid(rejection.body_text()))
    }
}
