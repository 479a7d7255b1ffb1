//! An operation's request as the generated code describes it: its row of the
//! operation table, typed path, query and header values, and the body
//! serialised once. Documented bounds are checked on those typed values here,
//! before anything is sent; [`Request::prepare`] turns the description into
//! the request on the wire (route override, base URL, key). Nothing is
//! parsed back from text.

use crate::failure::{CallFailure, FailureKind};
use crate::prepared::{Outgoing, Prepared};
use crate::retry::Delivery;
use crate::route::fill;
use crate::runtime::Runtime;
use crate::setter::Refusal;
use crate::table::OperationMeta;
use crate::validate::{body_violation, has_body_checks, query_violation};
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde::Serialize;
use serde_json::Value;

/// One operation's request, being described. Built by the generated code
/// (`client.runtime().request(Self::META).path(…).query(…).json(…)`); the
/// first value refused is reported by [`Request::prepare`].
#[derive(Debug)]
pub struct Request {
    runtime: Runtime,
    operation: &'static OperationMeta,
    /// Each path value as the JSON scalar it serialises to (encoded when the URL is written).
    path: Vec<(&'static str, Value)>,
    query: Vec<(&'static str, String)>,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Option<(HeaderValue, reqwest::Body)>,
    /// The first thing refused: `(member path, rule)`, or why it cannot be sent at all.
    refused: Option<FailureKind>,
}

impl Runtime {
    /// A request of `operation`, one of this runtime's operations (the
    /// generated builders call it with their own row).
    #[doc(hidden)]
    pub fn request(&self, operation: &'static OperationMeta) -> Request {
        let refused = (!self.inner.table.holds(operation)).then(|| {
            FailureKind::Refused(format!(
                "`{}` is not an operation of the {} service this client serves",
                operation.id, self.inner.table.service
            ))
        });
        Request {
            runtime: self.clone(),
            operation,
            path: Vec::new(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            refused,
        }
    }
}

impl Request {
    fn refuse(&mut self, kind: FailureKind) {
        self.refused.get_or_insert(kind);
    }

    fn refuse_value(&mut self, refusal: Refusal) {
        let (field, rule) = refusal.into_parts();
        self.refuse(FailureKind::InvalidInput { field, rule });
    }

    /// The path parameter `name` (`task-id`), one whole segment whatever it holds.
    pub fn path<T: Serialize>(self, name: &'static str, value: Result<T, Refusal>) -> Self {
        // Only the serialising is per type; the rest is compiled once, here.
        self.path_value(name, value.map(|value| serde_json::to_value(&value)))
    }

    fn path_value(mut self, name: &'static str, value: Result<Serialised, Refusal>) -> Self {
        match value {
            Ok(value) => {
                let value = match value {
                    Ok(scalar @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => scalar,
                    _ => {
                        self.refuse(FailureKind::Refused(format!(
                            "parameter `{name}` is not a single value"
                        )));
                        return self;
                    }
                };
                // `.` and `..` would move up the path, an empty segment elsewhere.
                if let Some(text @ ("" | "." | "..")) = value.as_str() {
                    let rule = if text.is_empty() {
                        "must not be empty (it fills a path segment)"
                    } else {
                        "must not be `.` or `..` (it fills a path segment, and would change which path is asked for)"
                    };
                    self.refuse(FailureKind::InvalidInput {
                        field: name.replace('-', "_"),
                        rule: rule.to_owned(),
                    });
                } else {
                    self.path.push((name, value));
                }
            }
            Err(refusal) => self.refuse_value(refusal),
        }
        self
    }

    /// The query parameter `name`, when set, checked against its documented
    /// bounds as the typed value it is; a list goes as repeated `name=item`.
    pub fn query<T: Serialize>(self, name: &'static str, value: Result<Option<T>, Refusal>) -> Self {
        self.query_value(name, serialise_set(value))
    }

    fn query_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        match value {
            Ok(Some(value)) => match self.checked_query(name, value) {
                Ok(Value::Array(items)) => {
                    for item in items {
                        self.push_query(name, item);
                    }
                }
                Ok(single) => self.push_query(name, single),
                Err(kind) => self.refuse(kind),
            },
            Ok(None) => {}
            Err(refusal) => self.refuse_value(refusal),
        }
        self
    }

    /// A list query parameter the YAML declares `explode: false`: one
    /// comma-separated value (`type=VOD,LIVE`); an empty list is left out (an
    /// empty value would be a filter on ""). An item holding a comma would
    /// travel as two items, so it is refused.
    pub fn query_joined<T: Serialize>(self, name: &'static str, value: Result<Option<Vec<T>>, Refusal>) -> Self {
        let value = match value {
            Ok(Some(items)) if !items.is_empty() => Ok(Some(serde_json::to_value(&items))),
            Ok(_) => Ok(None),
            Err(refusal) => Err(refusal),
        };
        self.query_joined_value(name, value)
    }

    fn query_joined_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        let items = match value {
            Ok(Some(items)) => items,
            Ok(None) => return self,
            Err(refusal) => {
                self.refuse_value(refusal);
                return self;
            }
        };
        let items = match self.checked_query(name, items) {
            Ok(Value::Array(items)) => items,
            Ok(_) => Vec::new(),
            Err(kind) => {
                self.refuse(kind);
                return self;
            }
        };
        let mut joined = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            match scalar_text(item) {
                Some(text) if text.contains(',') => {
                    self.refuse(FailureKind::InvalidInput {
                        field: format!("{name}[{index}]"),
                        rule: "must not contain a comma (the items travel comma-separated)".into(),
                    });
                    return self;
                }
                Some(text) => joined.push(text),
                None => {}
            }
        }
        self.query.push((name, joined.join(",")));
        self
    }

    /// A header value as it travels (one scalar), or `None` once refused.
    fn text_of(&mut self, name: &'static str, value: Serialised) -> Option<String> {
        let text = value.ok().and_then(scalar_text);
        if text.is_none() {
            self.refuse(FailureKind::Refused(format!(
                "parameter `{name}` is not a single value"
            )));
        }
        text
    }

    fn checked_query(&self, name: &'static str, value: Serialised) -> Result<Value, FailureKind> {
        let value =
            value.map_err(|e| FailureKind::Refused(format!("query parameter `{name}` does not serialise: {e}")))?;
        match query_violation(self.operation.checks, name, &value) {
            Some((field, rule)) => Err(FailureKind::InvalidInput { field, rule }),
            None => Ok(value),
        }
    }

    fn push_query(&mut self, name: &'static str, value: Value) {
        match scalar_text(value) {
            Some(text) => self.query.push((name, text)),
            None => self.refuse(FailureKind::Refused(format!(
                "query parameter `{name}` is not a value or a list of values"
            ))),
        }
    }

    /// The header parameter `name`, when set.
    pub fn header<T: Serialize>(self, name: &'static str, value: Result<Option<T>, Refusal>) -> Self {
        self.header_value(name, serialise_set(value))
    }

    fn header_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        match value {
            Ok(Some(value)) => {
                let Some(text) = self.text_of(name, value) else {
                    return self;
                };
                match HeaderValue::try_from(text) {
                    Ok(header) => self.headers.push((HeaderName::from_static(name), header)),
                    Err(_) => self.refuse(FailureKind::InvalidInput {
                        field: name.replace('-', "_"),
                        rule: "is not a valid HTTP header value (control characters, or not visible ASCII)".into(),
                    }),
                }
            }
            Ok(None) => {}
            Err(refusal) => self.refuse_value(refusal),
        }
        self
    }

    /// A JSON body, serialised once; its documented bounds are checked,
    /// before it is sent, on what it serialised to (the bytes read back as
    /// the server reads them), so each body type is compiled for one
    /// serialiser only.
    pub fn json<T: Serialize>(mut self, body: Result<T, Refusal>) -> Self {
        match body {
            Ok(body) => self.json_bytes(serde_json::to_vec(&body)),
            Err(refusal) => {
                self.refuse_value(refusal);
                self
            }
        }
    }

    fn json_bytes(mut self, bytes: Result<Vec<u8>, serde_json::Error>) -> Self {
        match bytes {
            Ok(bytes) => {
                if has_body_checks(self.operation.checks) && !self.body_within_bounds(&bytes) {
                    return self;
                }
                self.body = Some((HeaderValue::from_static("application/json"), bytes.into()));
            }
            Err(e) => self.refuse(FailureKind::Refused(format!("the body does not serialise: {e}"))),
        }
        self
    }

    /// Whether the body keeps its documented bounds; the first one broken is refused.
    fn body_within_bounds(&mut self, body: &[u8]) -> bool {
        let violation = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|value| body_violation(self.operation.checks, &value));
        match violation {
            Some((field, rule)) => {
                self.refuse(FailureKind::InvalidInput { field, rule });
                false
            }
            None => true,
        }
    }

    /// A body sent as it is, with the operation's documented media type.
    pub fn raw(mut self, content_type: &'static str, body: Result<reqwest::Body, Refusal>) -> Self {
        match body {
            Ok(body) => self.body = Some((HeaderValue::from_static(content_type), body)),
            Err(refusal) => self.refuse_value(refusal),
        }
        self
    }

    /// The request on the wire: the route (an override, else the YAML's),
    /// the base URL, the encoded path and query, the key where the operation
    /// takes it. The first refused value, if any, is the error; nothing was sent.
    pub fn prepare<T>(self) -> Result<Prepared<T>, CallFailure> {
        self.outgoing().map(Prepared::new)
    }

    /// [`Request::prepare`], compiled once rather than for each answer's type.
    fn outgoing(self) -> Result<Outgoing, CallFailure> {
        let Request {
            runtime,
            operation,
            path,
            query,
            headers,
            body,
            refused,
        } = self;
        let inner = &*runtime.inner;
        let (method, template) = runtime.route(operation);
        let failure = |kind| CallFailure {
            service: inner.table.service,
            operation: operation.id,
            method,
            delivery: Delivery::NotSent,
            attempts: 0,
            kind,
        };
        if let Some(kind) = refused {
            return Err(failure(kind));
        }
        let mut url = String::with_capacity(inner.base.as_str().len() + template.len() + 16);
        url.push_str(inner.base.as_str());
        fill(template, &path, &mut url)
            .map_err(|name| failure(FailureKind::Refused(format!("path parameter `{name}` has no value"))))?;
        let mut url = reqwest::Url::parse(&url)
            .map_err(|e| failure(FailureKind::Refused(format!("the request's URL does not parse: {e}"))))?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut request = reqwest::Request::new(method.to_reqwest(), url);
        // The map is empty: appending is inserting, without the search for an existing entry.
        let request_headers = request.headers_mut();
        request_headers.append(ACCEPT, HeaderValue::from_static("application/json"));
        if let (Some(authorization), true) = (&inner.authorization, operation.authenticated) {
            request_headers.append(AUTHORIZATION, authorization.clone());
        }
        for (name, value) in headers {
            request_headers.append(name, value);
        }
        if let Some((content_type, body)) = body {
            request_headers.insert(CONTENT_TYPE, content_type);
            *request.body_mut() = Some(body);
        }
        Ok(Outgoing {
            runtime,
            operation,
            method,
            request,
        })
    }
}

/// A value as the JSON it serialises to. Serialising is the only step of a
/// request that is compiled once per value type; the rest takes this.
type Serialised = Result<Value, serde_json::Error>;

/// An optional value that was set (or refused by its setter), serialised.
fn serialise_set<T: Serialize>(value: Result<Option<T>, Refusal>) -> Result<Option<Serialised>, Refusal> {
    value.map(|value| value.map(|value| serde_json::to_value(&value)))
}

/// A query value as it travels: text as it is, numbers and booleans as
/// JSON writes them (what a form encoder writes too); `None` for a value
/// that is not a scalar.
fn scalar_text(value: Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}
