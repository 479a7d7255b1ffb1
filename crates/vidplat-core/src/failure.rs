//! How a call that did not succeed reports why, from the runtime to
//! `vidplat::Error`: a typed [`CallFailure`], never a header, a status or a
//! string to be parsed back.
//!
//! progenitor's generated `send` can only fail with its own `Error<E>`, and a
//! hook can only hand it a `reqwest::Response`. So the runtime's `exec` hook
//! returns a response that carries the failure in its extensions, the `post`
//! hook turns that into `Error::UnexpectedResponse`, and
//! [`CallFailure::from_progenitor`] takes the failure out again. The carrier's
//! status and body are never read by anyone.

use crate::quota::QuotaRefusal;
use crate::redact::escape_controls;
use crate::retry::Delivery;
use crate::table::{Method, Service};
use crate::timeout::TimeoutKind;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Why a call ended without a success, with what the runtime knows of it.
#[derive(Debug)]
#[non_exhaustive]
pub struct CallFailure {
    /// The service called.
    pub service: Service,
    /// The operation's `operationId`.
    pub operation: &'static str,
    /// The method it was sent with (after any route override).
    pub method: Method,
    /// Whether the last attempt may have reached the server.
    pub delivery: Delivery,
    /// Attempts made (0 when the call was refused before any).
    pub attempts: u32,
    /// What went wrong.
    pub kind: FailureKind,
}

/// What went wrong in a call.
#[derive(Debug)]
#[non_exhaustive]
pub enum FailureKind {
    /// A value breaks a documented bound; nothing was sent.
    InvalidInput {
        /// Where: a query parameter or a body member path (`tags[1].key`).
        field: String,
        /// The rule broken.
        rule: String,
    },
    /// The runtime refused to send the request (it would not go to the configured origin, say).
    Refused(String),
    /// The client-side usage limiter refused the call; nothing was sent.
    Quota(QuotaRefusal),
    /// A timeout ended the call.
    Timeout(TimeoutKind),
    /// The connection failed or broke.
    Transport(reqwest::Error),
    /// The answer's body is larger than the configured cap; it was not read further.
    BodyTooLarge {
        /// The cap, in bytes.
        limit: u64,
    },
    /// The server answered with an error: an error status, a redirect, or an
    /// error body under a 2xx status.
    Answer(ApiError),
    /// A DELETE was sent again after an attempt that may have reached the
    /// server, and the retry found nothing to delete (404): the resource is
    /// gone, most likely deleted by that earlier attempt.
    AlreadyDeleted(ApiError),
    /// A success body did not decode into the operation's type.
    Decode(DecodeError),
}

/// An error the server answered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The error code (`MODEL_NOT_FOUND`, …), exactly as the body carried it.
    pub code: Option<String>,
    /// The body's `message`, as sent (the API key and secret members redacted).
    pub message: Option<String>,
    /// `Retry-After`, when sent (read once, by the runtime).
    pub retry_after: Option<Duration>,
    /// `Location` of a redirect, which is never followed (redacted, controls escaped).
    pub location: Option<String>,
    /// The start of a body that is not the services' JSON error (an HTML page
    /// from a proxy, say): redacted, controls escaped.
    pub excerpt: Option<String>,
    /// The method the request was sent with.
    pub method: Option<Method>,
}

impl ApiError {
    /// An answer with only a status (what a response the runtime did not see can tell).
    pub fn status_only(status: u16) -> Self {
        Self {
            status,
            code: None,
            message: None,
            retry_after: None,
            location: None,
            excerpt: None,
            method: None,
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the service answered {}", self.status)?;
        if let Some(code) = &self.code {
            write!(f, " {}", escape_controls(code))?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {}", escape_controls(message))?;
        }
        if let Some(location) = &self.location {
            write!(f, " (redirect to {location}, not followed)")?;
        }
        if let Some(excerpt) = &self.excerpt {
            write!(f, "; body is not a JSON error: {excerpt}")?;
        }
        Ok(())
    }
}

/// A success body that did not decode.
#[derive(Debug)]
#[non_exhaustive]
pub struct DecodeError {
    /// The operation whose answer it was, when known.
    pub operation: Option<&'static str>,
    /// Where in the body decoding failed (`data[3].status`), when known.
    pub path: Option<String>,
    /// The body's start: secrets redacted, control characters escaped.
    pub excerpt: String,
    /// serde's reason.
    pub source: serde_json::Error,
}

impl DecodeError {
    /// A decode failure of a body the runtime did not hand over: no operation,
    /// path or excerpt (without the runtime's redaction, no body is shown).
    pub fn without_excerpt(source: serde_json::Error) -> Self {
        Self {
            operation: None,
            path: None,
            excerpt: String::new(),
            source,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("undecodable response")?;
        if let Some(operation) = self.operation {
            write!(f, " of {operation}")?;
        }
        write!(f, " ({}", self.source)?;
        if let Some(path) = &self.path {
            write!(f, " at {}", escape_controls(path))?;
        }
        write!(f, "); body starts: {}", self.excerpt)
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.service, self.operation)?;
        match &self.kind {
            FailureKind::InvalidInput { field, rule } => write!(f, "invalid input, not sent: `{field}` {rule}"),
            FailureKind::Refused(why) => write!(f, "not sent: {why}"),
            FailureKind::Quota(refusal) if refusal.quota == crate::quota::Quota::StoreUnavailable => {
                f.write_str("the shared quota store (Redis) is unavailable: the call was not sent")
            }
            FailureKind::Quota(refusal) => write!(f, "client-side {:?} quota reached", refusal.quota),
            FailureKind::Timeout(kind) => write!(f, "{kind}"),
            FailureKind::Transport(error) => write!(f, "transport error: {error}"),
            FailureKind::BodyTooLarge { limit } => write!(f, "answer larger than {limit} bytes"),
            FailureKind::Answer(api) | FailureKind::AlreadyDeleted(api) => api.fmt(f),
            FailureKind::Decode(error) => error.fmt(f),
        }
    }
}

impl FailureKind {
    /// A short name for logs.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            FailureKind::InvalidInput { .. } => "invalid_input",
            FailureKind::Refused(_) => "refused",
            FailureKind::Quota(_) => "quota",
            FailureKind::Timeout(_) => "timeout",
            FailureKind::Transport(_) => "transport",
            FailureKind::BodyTooLarge { .. } => "body_too_large",
            FailureKind::Answer(_) => "answer",
            FailureKind::AlreadyDeleted(_) => "already_deleted",
            FailureKind::Decode(_) => "decode",
        }
    }
}

/// The extension a carrier response holds. The failure is taken out once, by
/// whoever converts progenitor's error.
#[derive(Clone)]
struct Carried(Arc<Mutex<Option<CallFailure>>>);

impl CallFailure {
    /// A response that carries this failure to the `post` hook.
    pub(crate) fn into_carrier(self) -> reqwest::Response {
        carrier(Carried(Arc::new(Mutex::new(Some(self)))))
    }

    /// progenitor's error carrying this failure (for code that runs after the hooks).
    pub(crate) fn into_progenitor<E>(self) -> progenitor_client::Error<E> {
        progenitor_client::Error::UnexpectedResponse(self.into_carrier())
    }

    /// The failure a runtime `exec` result carries, as progenitor's error (the
    /// `post` hook's work). `Ok` for every other result.
    #[allow(clippy::result_large_err)] // the hook's signature is progenitor's
    pub fn surface<E>(result: &reqwest::Result<reqwest::Response>) -> Result<(), progenitor_client::Error<E>> {
        match result {
            Ok(response) => match response.extensions().get::<Carried>() {
                Some(carried) => Err(progenitor_client::Error::UnexpectedResponse(carrier(carried.clone()))),
                None => Ok(()),
            },
            Err(_) => Ok(()),
        }
    }

    /// Takes the runtime's failure out of progenitor's error, or gives the error back.
    #[allow(clippy::result_large_err)] // progenitor's error is what it is
    pub fn from_progenitor<E>(error: progenitor_client::Error<E>) -> Result<Self, progenitor_client::Error<E>> {
        if let progenitor_client::Error::UnexpectedResponse(response) = &error {
            if let Some(carried) = response.extensions().get::<Carried>() {
                let taken = carried.0.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(failure) = taken {
                    return Ok(failure);
                }
            }
        }
        Err(error)
    }
}

fn carrier(carried: Carried) -> reqwest::Response {
    let mut response = http::Response::new(Vec::<u8>::new());
    response.extensions_mut().insert(carried);
    reqwest::Response::from(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_travels_through_progenitor_typed() {
        let failure = CallFailure {
            service: Service::Encoder,
            operation: "get_task",
            method: Method::Get,
            delivery: Delivery::NotSent,
            attempts: 0,
            kind: FailureKind::InvalidInput {
                field: "priority".into(),
                rule: "must be at most 99".into(),
            },
        };
        let from_exec = Ok(failure.into_carrier());
        let error = CallFailure::surface::<()>(&from_exec).unwrap_err();
        drop(from_exec);
        let back = CallFailure::from_progenitor(error).unwrap();
        assert_eq!(back.operation, "get_task");
        assert!(matches!(back.kind, FailureKind::InvalidInput { ref field, .. } if field == "priority"));
        // Anything else passes through.
        let plain = progenitor_client::Error::<()>::InvalidRequest("x".into());
        assert!(CallFailure::from_progenitor(plain).is_err());
        assert!(CallFailure::surface::<()>(&Ok(reqwest::Response::from(http::Response::new("")))).is_ok());
    }
}
