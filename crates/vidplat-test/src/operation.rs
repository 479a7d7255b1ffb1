//! What the kit knows of each operation (implemented by the generated
//! markers), and a request as the mock received it, read back into the
//! operation's typed members.

use crate::SuccessCheck;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::ops::RangeInclusive;
use vidplat_core::{OperationMeta, ServiceTable};

/// An operation of one of the services, as a mock answers it. The generator
/// writes one marker per operation (`vidplat_test::encoder::GetTask`, …) from
/// the YAML; nothing else implements it.
pub trait MockOperation: Copy + Send + Sync + 'static {
    /// The operation's row of its service's table.
    const META: &'static OperationMeta;
    /// Its service's table (the error codes the document lists).
    const TABLE: &'static ServiceTable;
    /// The error statuses the YAML documents for it (`4XX` as `400..=499`): its row's.
    const ERROR_STATUSES: &'static [RangeInclusive<u16>] = Self::META.error_statuses;
    /// The codes whose status the document states (the YAML's `ErrorCode.x-statuses`): its table's.
    const CODE_STATUSES: &'static [(&'static str, u16)] = Self::TABLE.code_statuses;
    /// The documented rules of the success body beyond its Rust type (the
    /// YAML's `x-returned-bounds`), checked when a rule answers a value: its row's.
    const SUCCESS_CHECKS: &'static [SuccessCheck] = Self::META.success_checks;
    /// The decoded success body, as a call returns it.
    type Success: serde::Serialize;
    /// The path, query and header members of a request, typed as the builder's setters take them.
    type Params: fmt::Debug + Send + 'static;
    /// The request body: the typed JSON body, `Option<Vec<u8>>` for a raw one
    /// (`None` when it was a stream), `()` for none.
    type Body: fmt::Debug + Send + 'static;
    /// The service's `ErrorCode`.
    type ErrorCode: fmt::Display;

    /// Reads a received request back into its typed members.
    fn read(incoming: &Incoming) -> Result<Sent<Self>, Unreadable>;
}

/// A request a mock received, read into the operation's types: what a rule's
/// `when` sees and what [`Mock::sent`](crate::Mock::sent) returns.
pub struct Sent<Op: MockOperation> {
    /// Path, query and header members.
    pub params: Op::Params,
    /// The body.
    pub body: Op::Body,
}

impl<Op: MockOperation> fmt::Debug for Sent<Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(Op::META.id)
            .field("params", &self.params)
            .field("body", &self.body)
            .finish()
    }
}

/// A received request whose members do not read as the operation's types
/// (which the SDK's own requests never are: it says which member and why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// The member (its name on the wire, or `body`).
    pub member: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.member, self.reason)
    }
}

impl std::error::Error for Unreadable {}

/// One request as the mock received it: the operation it was routed to and
/// its members as text (percent-decoded), its body as bytes.
#[derive(Clone, Debug)]
pub struct Incoming {
    pub(crate) service: vidplat_core::Service,
    pub(crate) operation: &'static OperationMeta,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) path_params: Vec<(String, String)>,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) headers: Vec<(String, String)>,
    /// `None`: a streamed body, which a mock does not read.
    pub(crate) body: Option<Vec<u8>>,
}

impl Incoming {
    /// The operation's id (`get_task`).
    pub fn operation(&self) -> &'static str {
        self.operation.id
    }

    /// The method and the path as sent (`GET /v1/tasks/7`).
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The query pairs as sent, in order.
    pub fn query_pairs(&self) -> &[(String, String)] {
        &self.query
    }

    /// The body's bytes (`None` for a streamed body).
    pub fn body_bytes(&self) -> Option<&[u8]> {
        self.body.as_deref()
    }

    /// A path member.
    #[doc(hidden)]
    pub fn path<T: DeserializeOwned>(&self, name: &str) -> Result<T, Unreadable> {
        let text = self
            .path_params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| unreadable(name, "is missing from the path"))?;
        typed(name, text)
    }

    /// A required query or header member.
    #[doc(hidden)]
    pub fn one<T: DeserializeOwned>(&self, name: &str, header: bool) -> Result<T, Unreadable> {
        self.optional(name, header)?
            .ok_or_else(|| unreadable(name, "is required, and the request has none"))
    }

    /// An optional query or header member.
    #[doc(hidden)]
    pub fn optional<T: DeserializeOwned>(&self, name: &str, header: bool) -> Result<Option<T>, Unreadable> {
        let mut values = self.values(name, header);
        match (values.next(), values.next()) {
            (None, _) => Ok(None),
            (Some(text), None) => typed(name, text).map(Some),
            (Some(_), Some(_)) => Err(unreadable(name, "is sent more than once")),
        }
    }

    /// A list query member: repeated, or one comma-separated value (`joined`).
    #[doc(hidden)]
    pub fn list<T: DeserializeOwned>(&self, name: &str, joined: bool) -> Result<Option<Vec<T>>, Unreadable> {
        let texts: Vec<&str> = if joined {
            self.values(name, false).flat_map(|v| v.split(',')).collect()
        } else {
            self.values(name, false).collect()
        };
        if texts.is_empty() {
            return Ok(None);
        }
        texts
            .into_iter()
            .map(|t| typed(name, t))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// The JSON body, as its type.
    #[doc(hidden)]
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Unreadable> {
        let bytes = self
            .body
            .as_deref()
            .ok_or_else(|| unreadable("body", "was streamed, not a JSON body"))?;
        serde_json::from_slice(bytes).map_err(|e| unreadable("body", &format!("does not decode: {e}")))
    }

    /// A raw body, as sent.
    #[doc(hidden)]
    pub fn raw(&self) -> Option<Vec<u8>> {
        self.body.clone()
    }

    fn values<'a>(&'a self, name: &'a str, header: bool) -> impl Iterator<Item = &'a str> + 'a {
        let pairs = if header { &self.headers } else { &self.query };
        pairs
            .iter()
            .filter(move |(n, _)| {
                if header {
                    n.eq_ignore_ascii_case(name)
                } else {
                    n == name
                }
            })
            .map(|(_, v)| v.as_str())
    }
}

/// A member's text as `T`: a string type takes it as it is; a number, a
/// boolean or a list element is read from the text.
fn typed<T: DeserializeOwned>(name: &str, text: &str) -> Result<T, Unreadable> {
    if let Ok(value) = serde_json::from_value(Value::String(text.to_owned())) {
        return Ok(value);
    }
    let parsed: Value =
        serde_json::from_str(text).map_err(|_| unreadable(name, &format!("`{text}` is not of the member's type")))?;
    serde_json::from_value(parsed).map_err(|e| unreadable(name, &format!("`{text}`: {e}")))
}

fn unreadable(member: &str, reason: &str) -> Unreadable {
    Unreadable {
        member: member.to_owned(),
        reason: reason.to_owned(),
    }
}
