//! What an answer means: a success to decode, or an error the server sent
//! (an error status, a redirect, or an error body under a 2xx). This is the
//! one place that decides success. `Retry-After` and `Location` are read
//! here, once.

use crate::body::ReadAnswer;
use crate::failure::ApiError;
use crate::redact::{escape_controls, Redactor};
use crate::retry::parse_retry_after;
use crate::table::{Method, OperationMeta, ServiceTable};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// An answer, judged.
#[derive(Debug)]
pub(crate) enum Judged {
    /// A success: any 2xx that is not the services' error body.
    Success(ReadAnswer),
    /// An error the server sent.
    Error(Box<ApiError>),
}

/// What judging an answer needs to know of the call.
pub(crate) struct Judge<'a> {
    pub(crate) table: &'a ServiceTable,
    pub(crate) operation: &'static OperationMeta,
    pub(crate) method: Method,
    pub(crate) redactor: &'a Redactor,
}

impl Judge<'_> {
    pub(crate) fn judge(&self, answer: ReadAnswer) -> Judged {
        let status = answer.response.status();
        if status.is_success() {
            // A body left on the wire is larger than any error body; only its start is here.
            let dressed = (!answer.more).then(|| self.dressed_as_success(&answer.body)).flatten();
            return match dressed {
                Some(body) => Judged::Error(Box::new(self.api_error(&answer, Some(body)))),
                None => Judged::Success(answer),
            };
        }
        let body = error_object(&answer.body);
        let mut error = self.api_error(&answer, body);
        if status.is_redirection() {
            error.location = answer
                .response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| escape_controls(&self.redactor.text(&String::from_utf8_lossy(v.as_bytes()))).into_owned());
        }
        Judged::Error(Box::new(error))
    }

    /// An error the server answered: its code and message when the body is the
    /// services' JSON error, else an excerpt of the body.
    fn api_error(&self, answer: &ReadAnswer, body: Option<Map<String, Value>>) -> ApiError {
        let text = |value: Option<&Value>| match value {
            Some(Value::String(s)) => Some(self.redactor.text(s).into_owned()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let (code, message, excerpt) = match &body {
            Some(object) => (text(object.get("code")), text(object.get("message")), None),
            None if answer.body.is_empty() => (None, None, None),
            None => (None, None, Some(self.redactor.excerpt(&answer.body))),
        };
        ApiError {
            status: answer.response.status().as_u16(),
            code,
            message,
            retry_after: answer
                .response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, std::time::SystemTime::now())),
            location: None,
            excerpt,
            method: Some(self.method),
        }
    }

    /// A 2xx body that is the documented error shape, a known error `code`
    /// and a `message`, with none of the operation's own members: the
    /// server's error under a success status.
    fn dressed_as_success(&self, body: &[u8]) -> Option<Map<String, Value>> {
        // Cheap test first: most success bodies never mention a `"code"` member.
        static CODE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"code\""));
        CODE.find(body)?;
        let object = error_object(body)?;
        let known = object
            .get("code")
            .and_then(Value::as_str)
            .is_some_and(|code| self.table.error_codes.contains(&code));
        let own_members = self.operation.success_members.iter().any(|m| object.contains_key(*m));
        (known && object.contains_key("message") && !own_members).then_some(object)
    }
}

/// The body as a JSON object, when it is one. Invalid UTF-8 inside (a
/// mis-encoded message, say) is replaced rather than losing the whole body.
fn error_object(body: &[u8]) -> Option<Map<String, Value>> {
    serde_json::from_slice(body)
        .ok()
        .or_else(|| match String::from_utf8_lossy(body) {
            Cow::Owned(repaired) => serde_json::from_str(&repaired).ok(),
            Cow::Borrowed(_) => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_keep_their_code_whatever_the_encoding() {
        let object = error_object(b"{\"code\":\"MODEL_NOT_FOUND\",\"message\":\"caf\xe9 \xff\"}").unwrap();
        assert_eq!(object["code"], "MODEL_NOT_FOUND");
        assert!(error_object(b"<html>").is_none());
        assert!(error_object(b"[1]").is_none());
        assert!(error_object(b"").is_none());
    }
}
