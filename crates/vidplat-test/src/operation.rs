//! What the kit knows of each operation (the client crates' markers), and
//! a request as the mock received it, read back into the operation's typed
//! members.

use crate::SuccessCheck;
use serde_json::Value;
use std::fmt;
use std::ops::RangeInclusive;
use vidplat_core::{OperationMarker, OperationMeta, Place};

/// An operation of one of the services, as a mock answers it: every marker
/// the client crates write (`vidplat_test::encoder::GetTask`, re-exported
/// from `vidplat::encoder::markers`), read back from a request by its row
/// of the table.
pub trait MockOperation: OperationMarker {
    /// The error statuses the YAML documents for it (`4XX` as `400..=499`): its row's.
    const ERROR_STATUSES: &'static [RangeInclusive<u16>] = Self::META.error_statuses;
    /// The codes whose status the document states (the YAML's `ErrorCode.x-statuses`): its table's.
    const CODE_STATUSES: &'static [(&'static str, u16)] = Self::TABLE.code_statuses;
    /// The documented rules of the success body beyond its Rust type (the
    /// YAML's `x-returned-bounds`), checked when a rule answers a value: its row's.
    const SUCCESS_CHECKS: &'static [SuccessCheck] = Self::META.success_checks;

    /// Reads a received request back into its typed members: each path,
    /// query and header argument of its row by its kind, then its body.
    fn read(incoming: &Incoming) -> Result<Sent<Self>, Unreadable> {
        Ok(Sent {
            params: incoming.params::<Self>()?,
            body: incoming.body::<Self>()?,
        })
    }
}

impl<Op: OperationMarker> MockOperation for Op {}

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

    /// The path, query and header members of `Op`'s row, by argument name,
    /// read as `Op::Params`.
    fn params<Op: OperationMarker>(&self) -> Result<Op::Params, Unreadable> {
        let mut members = serde_json::Map::new();
        for argument in Op::META.arguments.iter().filter(|a| a.place != Place::Body) {
            let wire = argument.wire;
            let (pairs, header) = match argument.place {
                Place::Path => (&self.path_params, false),
                Place::Header => (&self.headers, true),
                _ => (&self.query, false),
            };
            let texts: Vec<&str> = pairs
                .iter()
                .filter(|(name, _)| name == wire || (header && name.eq_ignore_ascii_case(wire)))
                .map(|(_, value)| value.as_str())
                .collect();
            let value = match (texts.as_slice(), argument.repeated) {
                ([], _) if argument.place == Place::Path => return Err(unreadable(wire, "is missing from the path")),
                ([], _) if argument.required => return Err(unreadable(wire, "is required, and the request has none")),
                ([], _) => continue,
                // A list is sent as one comma-separated value (the YAML's `explode: false`).
                (texts, true) => Value::Array(
                    texts
                        .iter()
                        .flat_map(|text| text.split(','))
                        .map(|text| typed(argument, text))
                        .collect::<Result<_, _>>()?,
                ),
                ([text], false) => typed(argument, text)?,
                (_, false) => return Err(unreadable(wire, "is sent more than once")),
            };
            members.insert(argument.name.to_owned(), value);
        }
        let has_params = Op::META.arguments.iter().any(|a| a.place != Place::Body);
        // An operation without parameters reads them as `()`.
        let members = if has_params {
            Value::Object(members)
        } else {
            Value::Null
        };
        serde_path_to_error::deserialize(members).map_err(|e| {
            let name = e.path().to_string();
            let wire = Op::META
                .arguments
                .iter()
                .find(|argument| argument.name == name)
                .map_or(name.as_str(), |argument| argument.wire);
            unreadable(wire, &format!("does not read as the member's type: {}", e.inner()))
        })
    }

    /// The body as `Op::Body`: JSON decoded, raw bytes as they came, none as `()`.
    fn body<Op: OperationMarker>(&self) -> Result<Op::Body, Unreadable> {
        let decoded = match Op::META.body {
            Some(body) if body.json => {
                let bytes = self
                    .body
                    .as_deref()
                    .ok_or_else(|| unreadable("body", "was streamed, not a JSON body"))?;
                serde_json::from_slice(bytes)
            }
            // `Option<Vec<u8>>`: the bytes as sent, `None` for a stream.
            Some(_) => serde_json::to_value(&self.body).and_then(serde_json::from_value),
            None => serde_json::from_value(Value::Null),
        };
        decoded.map_err(|e| unreadable("body", &format!("does not decode: {e}")))
    }
}

/// A member's text as the JSON value of its kind: text as it is, any other
/// kind (a number, a boolean) read from the text.
fn typed(argument: &vidplat_core::Argument, text: &str) -> Result<Value, Unreadable> {
    match argument.kind {
        vidplat_core::Kind::Text => Ok(Value::String(text.to_owned())),
        _ => serde_json::from_str(text)
            .map_err(|_| unreadable(argument.wire, &format!("`{text}` is not of the member's type"))),
    }
}

fn unreadable(member: &str, reason: &str) -> Unreadable {
    Unreadable {
        member: member.to_owned(),
        reason: reason.to_owned(),
    }
}

#[cfg(all(test, feature = "encoder", feature = "vms"))]
mod tests {
    use super::*;

    fn incoming<Op: OperationMarker>(path: &[(&str, &str)], query: &[(&str, &str)]) -> Incoming {
        let pairs = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
        };
        Incoming {
            service: Op::TABLE.service,
            operation: Op::META,
            method: "GET".to_owned(),
            path: Op::META.path.to_owned(),
            path_params: pairs(path),
            query: pairs(query),
            headers: Vec::new(),
            body: None,
        }
    }

    /// A member that does not read is named as it is on the wire, with why.
    #[test]
    fn a_request_reads_back_by_its_row_and_names_the_member_that_does_not() {
        use crate::encoder::GetTask;
        let read = GetTask::read(&incoming::<GetTask>(&[("task-id", "7")], &[])).expect("read");
        assert_eq!(read.params.task_id.get(), 7);
        let refused = |path: &[(&str, &str)]| GetTask::read(&incoming::<GetTask>(path, &[])).map(|_| ()).unwrap_err();
        assert_eq!(
            refused(&[("task-id", "abc")]),
            unreadable("task-id", "`abc` is not of the member's type")
        );
        assert_eq!(refused(&[]), unreadable("task-id", "is missing from the path"));
        let zero = refused(&[("task-id", "0")]);
        assert_eq!(zero.member, "task-id");
        assert!(
            zero.reason.starts_with("does not read as the member's type: "),
            "{zero}"
        );

        use crate::vms::ListContents;
        let listed =
            ListContents::read(&incoming::<ListContents>(&[], &[("type", "VOD,LIVE"), ("page", "2")])).expect("read");
        let types: Vec<String> = listed.params.type_.iter().flatten().map(ToString::to_string).collect();
        assert_eq!(types, ["VOD", "LIVE"]);
        assert_eq!(listed.params.page.map(|p| p.get()), Some(2));
        let twice = ListContents::read(&incoming::<ListContents>(&[], &[("page", "2"), ("page", "3")]));
        assert_eq!(
            twice.map(|_| ()).unwrap_err(),
            unreadable("page", "is sent more than once")
        );
    }
}
