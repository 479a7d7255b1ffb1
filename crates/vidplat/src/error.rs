//! One error type for every call of every service.

use std::fmt;
use std::time::Duration;

/// Everything that can go wrong in a call. `#[non_exhaustive]`: match the
/// kinds you handle and keep a catch-all arm.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error body (or an error status).
    Api(ApiError),
    /// The request was refused before it left: a value breaks a documented bound.
    InvalidInput { field: String, rule: String },
    /// A usage limit: the server's 429, or the client-side limiter in fail-fast mode.
    RateLimited {
        quota: Quota,
        retry_after: Option<Duration>,
    },
    /// Analytics answered 408: the query took too long on the server.
    QueryTooSlow { message: Option<String> },
    /// The attempt or the whole call ran out of time.
    Timeout,
    /// The connection failed or broke.
    Transport(reqwest::Error),
    /// The response could not be decoded: which operation (when called through
    /// [`Call::call`](crate::Call::call)), where in the body and why, and the body's first bytes.
    Decode {
        operation: Option<&'static str>,
        detail: String,
        excerpt: String,
    },
    /// The client is not configured for this (missing base URL, bad route override, …).
    Config(String),
    /// A waited-for task ended `failed` or `canceled`.
    TaskEnded {
        task_id: u64,
        status: String,
        error_code: Option<i64>,
    },
    /// A waiter gave up after its maximum wait; `last_status` is what it saw last.
    WaitTimedOut {
        waited: Duration,
        last_status: Option<String>,
    },
}

/// An error answered by a service.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: u16,
    /// The error code (`MODEL_NOT_FOUND`, …), when the body carried one.
    pub code: Option<String>,
    pub message: Option<String>,
    /// `Retry-After`, when sent.
    pub retry_after: Option<Duration>,
}

/// Which usage limit was hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Quota {
    /// Calls per minute (analytics: 3).
    PerMinute,
    /// Calls at a time (analytics: 1).
    Concurrency,
    /// Calls per month (analytics: 50,000).
    Month,
    /// The server's 429 does not say which limit.
    Unspecified,
}

impl Error {
    /// The service's error code, when it sent one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Api(api) => api.code.as_deref(),
            Error::RateLimited { .. } => Some("TOO_MANY_REQUESTS"),
            Error::QueryTooSlow { .. } => Some("REQUEST_TIMEOUT"),
            _ => None,
        }
    }

    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::QueryTooSlow { .. } => Some(408),
            Error::Transport(e) => e.status().map(|s| s.as_u16()),
            _ => None,
        }
    }

    /// Whether trying again later may succeed (for a request that is safe to repeat).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Api(api) => matches!(api.status, 429 | 502 | 503 | 504),
            Error::RateLimited { .. } | Error::Timeout | Error::Transport(_) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(api) => {
                write!(f, "the service answered {}", api.status)?;
                if let Some(code) = &api.code {
                    write!(f, " {code}")?;
                }
                if let Some(message) = &api.message {
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
            Error::InvalidInput { field, rule } => write!(f, "invalid input, not sent: `{field}` {rule}"),
            Error::RateLimited { quota, retry_after } => {
                write!(f, "rate limited ({quota:?})")?;
                if let Some(after) = retry_after {
                    write!(f, "; retry after {after:?}")?;
                }
                Ok(())
            }
            Error::QueryTooSlow { .. } => f.write_str(
                "the analytics query took too long (408): shorten the period or request fewer rows, or retry later",
            ),
            Error::Timeout => f.write_str("the call timed out"),
            Error::Transport(e) => write!(f, "transport error: {e}"),
            Error::Decode {
                operation,
                detail,
                excerpt,
            } => {
                write!(f, "undecodable response")?;
                if let Some(operation) = operation {
                    write!(f, " of {operation}")?;
                }
                write!(f, " ({detail}); body starts: {excerpt}")
            }
            Error::Config(why) => write!(f, "client configuration: {why}"),
            Error::TaskEnded {
                task_id,
                status,
                error_code,
            } => {
                write!(f, "task {task_id} ended {status}")?;
                match error_code {
                    Some(code) => write!(f, " (error_code {code})"),
                    None => Ok(()),
                }
            }
            Error::WaitTimedOut { waited, last_status } => {
                write!(f, "gave up waiting after {waited:?}")?;
                match last_status {
                    Some(status) => write!(f, " (last status {status})"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport(e) => Some(e),
            _ => None,
        }
    }
}

/// The first bytes of a body, for error messages.
pub(crate) fn excerpt(body: &[u8]) -> String {
    const LIMIT: usize = 200;
    let text = String::from_utf8_lossy(&body[..body.len().min(LIMIT)]).into_owned();
    if body.len() > LIMIT {
        format!("{text}…")
    } else {
        text
    }
}

/// The JSON path at which a decode failed, reconstructed from serde_json's
/// line and column (progenitor keeps only the body and serde_json's error).
pub(crate) fn json_path_at(body: &[u8], line: usize, column: usize) -> String {
    // Offset of the failure.
    let mut offset = 0;
    let mut current_line = 1;
    for (i, byte) in body.iter().enumerate() {
        if current_line == line {
            offset = (i + column).saturating_sub(1).min(body.len());
            break;
        }
        if *byte == b'\n' {
            current_line += 1;
        }
    }
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let mut pending_key: Option<String> = None;
    while i < offset && i < body.len() {
        match body[i] {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Array(n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            b':' => {
                if let Some(Frame::Object(key)) = stack.last_mut() {
                    *key = pending_key.take();
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < body.len() && body[i] != b'"' {
                    if body[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                pending_key = Some(String::from_utf8_lossy(&body[start..i.min(body.len())]).into_owned());
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    if path.is_empty() {
        "(top level)".into()
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_path_of_a_decode_failure() {
        let body = br#"{"data": [{"id": 1}, {"id": "x", "status": 3}], "total": 2}"#;
        let error = serde_json::from_slice::<serde_json::Value>(b"{").unwrap_err();
        assert!(error.line() == 1);
        // Column of `"x"` (1-based): serde_json reports the position after the bad token.
        let column = body.iter().position(|&b| b == b'x').unwrap() + 2;
        assert_eq!(json_path_at(body, 1, column), "data[1].id");
        assert_eq!(json_path_at(body, 1, 1), "(top level)");
    }
}

/// Converts progenitor's error, whatever the service, into [`Error`].
/// `analytics` turns 408 into [`Error::QueryTooSlow`] (only analytics documents it).
pub(crate) fn from_progenitor<E>(
    error: progenitor_client::Error<E>,
    analytics: bool,
    body: impl FnOnce(E) -> (Option<String>, Option<String>),
) -> Error {
    use progenitor_client::Error as P;
    match error {
        P::InvalidRequest(message) => {
            // progenitor: "conversion to `X` for <field> failed: <why>"
            let field = message
                .split(" for ")
                .nth(1)
                .and_then(|r| r.split(" failed").next())
                .unwrap_or("request");
            let rule = message.split("failed: ").nth(1).unwrap_or(&message);
            // typify's body builders add "error converting supplied value for <member>: <why>".
            let (field, rule) = match rule
                .strip_prefix("error converting supplied value for ")
                .and_then(|r| r.split_once(": "))
            {
                // Named like the runtime's own checks: the member's path within the body.
                Some((member, why)) if field == "body" => (member.to_owned(), why),
                Some((member, why)) => (format!("{field}.{member}"), why),
                None => (field.to_owned(), rule),
            };
            Error::InvalidInput {
                field,
                rule: rule.to_owned(),
            }
        }
        P::Custom(message) => match vidplat_core::RuntimeError::from_custom(&message) {
            Some(runtime) => from_runtime(runtime),
            None => Error::Config(message),
        },
        P::CommunicationError(e) | P::ResponseBodyError(e) | P::InvalidUpgrade(e) => from_reqwest(e),
        P::InvalidResponsePayload(bytes, e) => Error::Decode {
            operation: None,
            detail: format!("{e} at {}", json_path_at(&bytes, e.line(), e.column())),
            excerpt: excerpt(&bytes),
        },
        P::ErrorResponse(response) => {
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| vidplat_core::parse_retry_after(v, std::time::SystemTime::now()));
            let local_quota = response
                .headers()
                .get(vidplat_core::LOCAL_QUOTA_HEADER)
                .and_then(|v| serde_json::from_value(serde_json::Value::String(v.to_str().ok()?.to_owned())).ok());
            if let Some(quota) = local_quota {
                return from_runtime(vidplat_core::RuntimeError::QuotaExhausted {
                    quota,
                    retry_after_ms: retry_after.map(|d| d.as_millis() as u64),
                });
            }
            let (code, message) = body(response.into_inner());
            classify(status, code, message, retry_after, analytics)
        }
        P::UnexpectedResponse(response) => {
            let status = response.status().as_u16();
            classify(
                status,
                None,
                Some(format!("unexpected status {status}")),
                None,
                analytics,
            )
        }
    }
}

fn classify(
    status: u16,
    code: Option<String>,
    message: Option<String>,
    retry_after: Option<Duration>,
    analytics: bool,
) -> Error {
    match status {
        429 => Error::RateLimited {
            quota: Quota::Unspecified,
            retry_after,
        },
        408 if analytics => Error::QueryTooSlow { message },
        _ => Error::Api(ApiError {
            status,
            code,
            message,
            retry_after,
        }),
    }
}

pub(crate) fn from_reqwest(error: reqwest::Error) -> Error {
    if error.is_timeout() {
        Error::Timeout
    } else {
        Error::Transport(error)
    }
}

pub(crate) fn from_runtime(error: vidplat_core::RuntimeError) -> Error {
    use vidplat_core::RuntimeError as R;
    match error {
        R::InvalidInput { field, rule } => Error::InvalidInput { field, rule },
        R::QuotaExhausted { quota, retry_after_ms } => Error::RateLimited {
            quota: match quota {
                vidplat_core::QuotaKind::PerMinute => Quota::PerMinute,
                vidplat_core::QuotaKind::Concurrency => Quota::Concurrency,
                vidplat_core::QuotaKind::Month => Quota::Month,
            },
            retry_after: retry_after_ms.map(Duration::from_millis),
        },
        other => Error::Config(other.to_string()),
    }
}

macro_rules! from_service_error {
    ($feature:literal, $krate:ident, $analytics:expr) => {
        #[cfg(feature = $feature)]
        impl From<progenitor_client::Error<$krate::types::Error>> for Error {
            fn from(error: progenitor_client::Error<$krate::types::Error>) -> Self {
                from_progenitor(error, $analytics, |body| {
                    (body.code.map(|c| c.to_string()), body.message)
                })
            }
        }
    };
}

from_service_error!("encoder", vidplat_encoder, false);
from_service_error!("vms", vidplat_vms, false);
from_service_error!("analytics", vidplat_analytics, true);
