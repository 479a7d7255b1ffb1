//! How a call that did not succeed reports why: a typed [`CallFailure`], from
//! the setter or the runtime to the caller (`vidplat::Error` converts from it
//! with `?`), never a header, a status or a string to be parsed back.

use crate::quota::limits::QuotaRefusal;
use crate::redact::{bounded, escape_controls};
use crate::retry::Delivery;
use crate::setter::Refusals;
use crate::table::{Method, Service};
use crate::timeout::TimeoutKind;
use std::borrow::Cow;
use std::fmt;
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

/// What went wrong in a call. Exhaustive on purpose: `vidplat::Error`
/// converts every kind by name, so a new kind cannot fall into a catch-all.
#[derive(Debug)]
pub enum FailureKind {
    /// Values break documented bounds; nothing was sent. Every value found,
    /// each by its member's whole path (`tags[1].key`) and the rule.
    InvalidInput(Refusals),
    /// The request cannot be written at all; nothing was sent.
    Refused(NotSendable),
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
    /// error body under a 2xx status. (Boxed: it is large, and a failure
    /// travels through every layer of the call.)
    Answer(Box<ApiError>),
    /// A DELETE was sent again after an attempt that may have reached the
    /// server, and the retry found nothing to delete (404): the resource is
    /// gone, most likely deleted by that earlier attempt.
    AlreadyDeleted(Box<ApiError>),
    /// A success body did not decode into the operation's type.
    Decode(DecodeError),
}

/// Why a request cannot be written, whatever its values' bounds: not about
/// one member's rule, so not an [`FailureKind::InvalidInput`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotSendable {
    /// The builder's operation is not in the table of the runtime it was
    /// given (a row of another service, or of another version of the client).
    NotThisService {
        /// The operation's `operationId`.
        operation: &'static str,
        /// The service the runtime serves.
        service: Service,
    },
    /// A value serialised to something its place cannot carry: a path or
    /// header parameter that is not one scalar, a query parameter that is
    /// not a scalar or a list of them, or a value serde refused.
    NotSerialisable {
        /// The parameter's name, or `body`.
        member: &'static str,
        /// What it serialised to, or serde's reason.
        reason: String,
    },
    /// The route names a path parameter the builder gave no value (a route
    /// override naming a parameter the operation does not have, say).
    PathParameterMissing {
        /// The parameter named by the route.
        parameter: String,
    },
    /// The URL written from the base URL and the route does not parse.
    UrlDoesNotParse {
        /// The parser's reason.
        reason: String,
    },
    /// A raw request's path is not a path of the service ([`Runtime::raw`](crate::Runtime::raw)).
    NotAPath {
        /// The rule it breaks.
        rule: &'static str,
    },
}

impl fmt::Display for NotSendable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotSendable::NotThisService { operation, service } => {
                write!(
                    f,
                    "`{operation}` is not an operation of the {service} service this client serves"
                )
            }
            NotSendable::NotSerialisable { member, reason } => {
                write!(f, "`{member}` cannot be sent: {}", escape_controls(reason))
            }
            NotSendable::PathParameterMissing { parameter } => {
                write!(f, "path parameter `{}` has no value", escape_controls(parameter))
            }
            NotSendable::UrlDoesNotParse { reason } => write!(f, "the request's URL does not parse: {reason}"),
            NotSendable::NotAPath { rule } => write!(f, "the path {rule}"),
        }
    }
}

impl std::error::Error for NotSendable {}

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
        // Bounded: a 20 MiB message stays readable in one log line (`message` keeps it whole).
        if let Some(code) = &self.code {
            write!(f, " {}", bounded(code, 100))?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {}", bounded(message, 1_000))?;
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

impl std::error::Error for ApiError {}

/// A success body that did not decode.
#[derive(Debug)]
#[non_exhaustive]
pub struct DecodeError {
    /// The operation whose answer it was, when known.
    pub operation: Option<&'static str>,
    /// The answer's status, when it is a 2xx the YAML does not document for
    /// the operation (a body under a documented status leaves it `None`).
    pub status: Option<u16>,
    /// Where in the body decoding failed (`data[3].status`), when known.
    pub path: Option<String>,
    /// The body's start: secrets redacted, control characters escaped.
    pub excerpt: String,
    /// serde's reason, redacted like the excerpt: serde quotes the value it
    /// refused, so the key is removed from it, and the value of a secret
    /// member is not quoted at all. (Not kept as a `serde_json::Error`, whose
    /// own message would print the value.)
    pub reason: String,
}

impl DecodeError {
    /// The reason of `source` at `path`, as shown: redacted and bounded.
    pub(crate) fn reason(redactor: &crate::redact::Redactor, path: Option<&str>, source: &serde_json::Error) -> String {
        if path.is_some_and(|path| redactor.is_secret_path(path)) {
            let what = match source.classify() {
                serde_json::error::Category::Data => "a value of the wrong type or form",
                serde_json::error::Category::Syntax => "malformed JSON",
                serde_json::error::Category::Eof => "the body ended early",
                serde_json::error::Category::Io => "the body could not be read",
            };
            return format!("{what} (not shown: a secret member)");
        }
        crate::redact::bounded(&redactor.text(&source.to_string()), 300).to_string()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("undecodable response")?;
        if let Some(operation) = self.operation {
            write!(f, " of {operation}")?;
        }
        if let Some(status) = self.status {
            write!(f, " (status {status}, which the documents do not give for it)")?;
        }
        write!(f, " ({}", self.reason)?;
        if let Some(path) = &self.path {
            write!(f, " at {}", escape_controls(path))?;
        }
        write!(f, "); body starts: {}", self.excerpt)
    }
}

impl std::error::Error for DecodeError {}

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.service, self.operation)?;
        match &self.kind {
            FailureKind::InvalidInput(refusals) => write!(f, "invalid input, not sent: {refusals}"),
            FailureKind::Refused(why) => write!(f, "not sent: {why}"),
            FailureKind::Quota(refusal) if refusal.quota == crate::quota::limits::Quota::StoreUnavailable => {
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

/// The status as text for an error the server answered (`"404"`), else a
/// fixed name (`"timeout.idle_body"`, `"quota.per_minute"`, `"transport"`,
/// …). Never a value from a request or a body: spans and metric labels carry it.
impl crate::observe::ErrorType for FailureKind {
    fn error_type(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            FailureKind::Answer(api) => return Cow::Owned(api.status.to_string()),
            FailureKind::AlreadyDeleted(_) => "already_deleted",
            FailureKind::InvalidInput(_) => "invalid_input",
            FailureKind::Refused(_) => "refused",
            FailureKind::Quota(refusal) => refusal.quota.error_type(),
            FailureKind::Timeout(kind) => match kind {
                TimeoutKind::Connect => "timeout.connect",
                TimeoutKind::Attempt => "timeout.attempt",
                TimeoutKind::Total => "timeout.total",
                TimeoutKind::IdleBody => "timeout.idle_body",
            },
            FailureKind::Transport(_) => "transport",
            FailureKind::BodyTooLarge { .. } => "body_too_large",
            FailureKind::Decode(_) => "decode",
        })
    }
}

impl std::error::Error for CallFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            FailureKind::Transport(error) => Some(error),
            FailureKind::Decode(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_message_is_shown_within_bounds_and_kept_whole() {
        let message = "e\u{301}\n".repeat(10 * 1024 * 1024 / 3);
        let api = ApiError {
            code: Some("X".repeat(5_000)),
            message: Some(message.clone()),
            ..ApiError::status_only(500)
        };
        let shown = api.to_string();
        assert!(shown.len() < 4_000, "{} bytes", shown.len());
        assert!(!shown.contains('\n'));
        assert!(shown.contains(&format!("({} characters in all)", message.chars().count())));
        assert_eq!(api.message.as_deref(), Some(message.as_str()));
    }

    #[test]
    fn a_failure_says_its_cause_and_keeps_its_source() {
        let failure = CallFailure {
            service: Service::Encoder,
            operation: "get_task",
            method: Method::Get,
            delivery: Delivery::Answered,
            attempts: 1,
            kind: FailureKind::Answer(Box::new(ApiError {
                code: Some("MODEL_NOT_FOUND".into()),
                message: Some("no such task".into()),
                ..ApiError::status_only(404)
            })),
        };
        assert_eq!(
            failure.to_string(),
            "encoder get_task: the service answered 404 MODEL_NOT_FOUND: no such task"
        );
        let source = serde_json::from_str::<u8>("x").unwrap_err();
        let decode = CallFailure {
            kind: FailureKind::Decode(DecodeError {
                operation: Some("get_task"),
                status: Some(201),
                path: Some("id".into()),
                excerpt: "{}".into(),
                reason: source.to_string(),
            }),
            ..failure
        };
        assert!(
            decode
                .to_string()
                .contains("status 201, which the documents do not give"),
            "{decode}"
        );
        assert!(std::error::Error::source(&decode).is_some());
    }
}
