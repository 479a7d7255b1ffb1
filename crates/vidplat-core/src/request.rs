//! An operation's request as the generated code describes it: its row of the
//! operation table, typed path, query and header values, and the body
//! serialised once. Documented bounds are checked on those typed values here,
//! before anything is sent; [`Request::prepare`] turns the description into
//! the request on the wire (route override, base URL, key). Nothing is
//! parsed back from text.

use crate::failure::{CallFailure, FailureKind, NotSendable};
use crate::observe::Site;
use crate::prepared::{Outgoing, Prepared};
use crate::retry::Delivery;
use crate::route::fill;
use crate::runtime::Runtime;
use crate::setter::{Refusal, Refusals};
use crate::table::OperationMeta;
use crate::validate::{body_violations, has_body_checks, query_violations};
use reqwest::header::{HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::Value;

/// One operation's request, being described. Built by the generated code
/// (`client.runtime().request(Self::META).path(…).query(…).json(…)`); every
/// value refused is reported at once by [`Request::prepare`].
#[derive(Debug)]
pub struct Request {
    runtime: Runtime,
    operation: &'static OperationMeta,
    /// Each path value as the JSON scalar it serialises to (encoded when the URL is written).
    path: Vec<(&'static str, Value)>,
    query: Vec<(&'static str, String)>,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Option<(HeaderValue, reqwest::Body)>,
    /// Every value that breaks a rule, each by its member's whole path.
    refusals: Refusals,
    /// Why the request cannot be written at all, when it cannot (the first reason found).
    unsendable: Option<NotSendable>,
}

impl Runtime {
    /// A request of `operation`, one of this runtime's operations (the
    /// generated builders call it with their own row).
    #[doc(hidden)]
    pub fn request(&self, operation: &'static OperationMeta) -> Request {
        let unsendable = (!self.inner.table.holds(operation)).then_some(NotSendable::NotThisService {
            operation: operation.id,
            service: self.inner.table.service,
        });
        Request {
            runtime: self.clone(),
            operation,
            path: Vec::new(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
            refusals: Refusals::default(),
            unsendable,
        }
    }
}

impl Request {
    /// `rule`, broken by the value at `path` (a parameter's name, or a body member's whole path).
    fn refuse_at(&mut self, path: &str, rule: impl Into<std::borrow::Cow<'static, str>>) {
        self.refusals.push(Refusal::new(rule).at(path));
    }

    fn cannot_send(&mut self, member: &'static str, reason: String) {
        self.unsendable
            .get_or_insert(NotSendable::NotSerialisable { member, reason });
    }

    /// The value its setter accepted; a refused one is kept among the refusals.
    fn accepted<T>(&mut self, value: Result<T, Refusal>) -> Option<T> {
        value.map_err(|refusal| self.refusals.push(refusal)).ok()
    }

    /// The value `name` serialised to; one that did not serialise makes the request unsendable.
    fn serialised<T>(&mut self, name: &'static str, value: Result<T, serde_json::Error>) -> Option<T> {
        value.map_err(|e| self.cannot_send(name, e.to_string())).ok()
    }

    /// The value of `name`, when it was set, its setter accepted it and it serialised.
    fn set_value(&mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Option<Value> {
        let value = self.accepted(value).flatten()?;
        self.serialised(name, value)
    }

    /// The path parameter `name` (`task-id`), one whole segment whatever it holds.
    pub fn path<T: Serialize>(self, name: &'static str, value: Result<T, Refusal>) -> Self {
        // Only the serialising is per type; the rest is compiled once, here.
        self.path_value(name, value.map(|value| serde_json::to_value(&value)))
    }

    fn path_value(mut self, name: &'static str, value: Result<Serialised, Refusal>) -> Self {
        let value = match self.set_value(name, value.map(Some)) {
            Some(scalar @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => scalar,
            Some(other) => {
                self.cannot_send(name, format!("is not a single value but {}", json_kind(&other)));
                return self;
            }
            None => return self,
        };
        // `.` and `..` would move up the path, an empty segment elsewhere.
        if let Some(text @ ("" | "." | "..")) = value.as_str() {
            let rule = if text.is_empty() {
                "must not be empty (it fills a path segment)"
            } else {
                "must not be `.` or `..` (it fills a path segment, and would change which path is asked for)"
            };
            self.refuse_at(&name.replace('-', "_"), rule);
        } else {
            self.path.push((name, value));
        }
        self
    }

    /// The query parameter `name`, when set, checked against its documented
    /// bounds as the typed value it is; a list goes as repeated `name=item`.
    pub fn query<T: Serialize>(self, name: &'static str, value: Result<Option<T>, Refusal>) -> Self {
        self.query_value(name, serialise_set(value))
    }

    fn query_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        match self.checked_query(name, value) {
            Some(Value::Array(items)) => {
                for item in items {
                    self.push_query(name, item);
                }
            }
            Some(single) => self.push_query(name, single),
            None => {}
        }
        self
    }

    /// A list query parameter the YAML declares `explode: false`: one
    /// comma-separated value (`type=VOD,LIVE`); an empty list is left out (an
    /// empty value would be a filter on ""). An item holding a comma would
    /// travel as two items, so it is refused.
    pub fn query_joined<T: Serialize>(self, name: &'static str, value: Result<Option<Vec<T>>, Refusal>) -> Self {
        let set = value.map(|items| items.filter(|items| !items.is_empty()));
        self.query_joined_value(name, serialise_set(set))
    }

    fn query_joined_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        let items = match self.checked_query(name, value) {
            Some(Value::Array(items)) => items,
            Some(_) => Vec::new(),
            None => return self,
        };
        let mut joined = Vec::with_capacity(items.len());
        let mut comma = false;
        for (index, item) in items.into_iter().enumerate() {
            match scalar_text(item) {
                Some(text) if text.contains(',') => {
                    self.refuse_at(
                        &format!("{name}[{index}]"),
                        "must not contain a comma (the items travel comma-separated)",
                    );
                    comma = true;
                }
                Some(text) => joined.push(text),
                None => {}
            }
        }
        if !comma {
            self.query.push((name, joined.join(",")));
        }
        self
    }

    /// The query value, when it is set and keeps every bound; each broken one is refused.
    fn checked_query(&mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Option<Value> {
        let value = self.set_value(name, value)?;
        let before = self.refusals.len();
        for (field, rule) in query_violations(self.operation.checks, name, &value) {
            self.refuse_at(&field, rule);
        }
        (self.refusals.len() == before).then_some(value)
    }

    fn push_query(&mut self, name: &'static str, value: Value) {
        let kind = json_kind(&value);
        match scalar_text(value) {
            Some(text) => self.query.push((name, text)),
            None => self.cannot_send(name, format!("is not a value or a list of values but {kind}")),
        }
    }

    /// The header parameter `name`, when set.
    pub fn header<T: Serialize>(self, name: &'static str, value: Result<Option<T>, Refusal>) -> Self {
        self.header_value(name, serialise_set(value))
    }

    fn header_value(mut self, name: &'static str, value: Result<Option<Serialised>, Refusal>) -> Self {
        let Some(value) = self.set_value(name, value) else {
            return self;
        };
        // A header value travels as one scalar's text.
        let kind = json_kind(&value);
        match scalar_text(value).map(HeaderValue::try_from) {
            Some(Ok(header)) => self.headers.push((HeaderName::from_static(name), header)),
            Some(Err(_)) => self.refuse_at(
                &name.replace('-', "_"),
                "is not a valid HTTP header value (control characters, or not visible ASCII)",
            ),
            None => self.cannot_send(name, format!("is not a single value but {kind}")),
        }
        self
    }

    /// A JSON body; its documented bounds are checked, before it is sent,
    /// on the value it serialises to, every one broken refused.
    pub fn json<T: Serialize>(mut self, body: Result<T, Refusal>) -> Self {
        let Some(body) = self.accepted(body) else {
            return self;
        };
        if has_body_checks(self.operation.checks) && !self.body_within_bounds(serde_json::to_value(&body)) {
            return self;
        }
        self.json_bytes(serde_json::to_vec(&body))
    }

    fn json_bytes(mut self, bytes: Result<Vec<u8>, serde_json::Error>) -> Self {
        if let Some(bytes) = self.serialised("body", bytes) {
            self.body = Some((HeaderValue::from_static("application/json"), bytes.into()));
        }
        self
    }

    /// Whether the body keeps its documented bounds; every one broken is
    /// refused. A body that does not serialise is refused by `json_bytes`.
    fn body_within_bounds(&mut self, body: Result<Value, serde_json::Error>) -> bool {
        let Ok(value) = body else {
            return true;
        };
        let before = self.refusals.len();
        for (field, rule) in body_violations(self.operation.checks, &value) {
            self.refuse_at(&field, rule);
        }
        self.refusals.len() == before
    }

    /// A body sent as it is, with the operation's documented media type.
    pub fn raw(mut self, content_type: &'static str, body: Result<reqwest::Body, Refusal>) -> Self {
        if let Some(body) = self.accepted(body) {
            self.body = Some((HeaderValue::from_static(content_type), body));
        }
        self
    }

    /// The request on the wire: the route (an override, else the YAML's),
    /// the base URL, the encoded path and query, the key where the operation
    /// takes it. Every refused value, if any, is the error; nothing was sent.
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
            refusals,
            unsendable,
        } = self;
        let inner = &*runtime.inner;
        let (method, template) = runtime.route(operation);
        let site = Site {
            service: inner.table.service,
            operation: operation.id,
            method,
        };
        let failure = |kind| site.failure(Delivery::NotSent, 0, kind);
        if let Some(reason) = unsendable {
            return Err(failure(FailureKind::Refused(reason)));
        }
        if !refusals.is_empty() {
            return Err(failure(FailureKind::InvalidInput(refusals)));
        }
        let mut url = String::with_capacity(inner.base.as_str().len() + template.len() + 16);
        url.push_str(inner.base.as_str());
        fill(template, &path, &mut url).map_err(|name| {
            failure(FailureKind::Refused(NotSendable::PathParameterMissing {
                parameter: name.to_string(),
            }))
        })?;
        let mut url = reqwest::Url::parse(&url).map_err(|e| {
            failure(FailureKind::Refused(NotSendable::UrlDoesNotParse {
                reason: e.to_string(),
            }))
        })?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(Outgoing::new(runtime, operation, method, url, headers, body))
    }
}

/// A value as the JSON it serialises to. Serialising is the only step of a
/// request that is compiled once per value type; the rest takes this.
type Serialised = Result<Value, serde_json::Error>;

/// An optional value that was set (or refused by its setter), serialised.
fn serialise_set<T: Serialize>(value: Result<Option<T>, Refusal>) -> Result<Option<Serialised>, Refusal> {
    value.map(|value| value.map(|value| serde_json::to_value(&value)))
}

/// What kind of JSON value `value` is, for a reason that names it without quoting it.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
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
