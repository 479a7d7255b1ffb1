//! What the generated drivers (`tests/src/generated/*.rs`) need: named
//! arguments as JSON, and one error type for every way a call can fail.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::fmt;

/// Arguments of one call, keyed by the generated builder's parameter names (`task_id`, `body`, …).
#[derive(Clone, Debug, Default)]
pub struct Args(pub Map<String, Value>);

impl Args {
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, Failure> {
        match self.0.get(name) {
            None => Ok(None),
            // The path names the member a typed value refused (`body.tags[0].key`).
            Some(value) => serde_path_to_error::deserialize(value.clone()).map(Some).map_err(|e| {
                let path = e.path().to_string();
                let at = if path == "." {
                    name.to_owned()
                } else {
                    format!("{name}.{path}")
                };
                Failure::BadArgument {
                    at,
                    why: e.into_inner().to_string(),
                }
            }),
        }
    }

    /// A raw body (octet-stream operations), from a JSON string.
    pub fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.0.get(name).and_then(Value::as_str).map(|s| s.as_bytes().to_vec())
    }

    /// The same arguments as the builders' `from_args` reads them (a raw body is `body` as text).
    pub fn for_builder(&self) -> vidplat_core::Args {
        vidplat_core::Args::new(self.0.clone())
    }
}

/// What the generated `send` hands every builder to: it is sent, and its
/// answer decoded and serialised back (a list: its first page).
pub struct Sending;

type Sent<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, Failure>> + 'a>>;

impl<'a> vidplat_core::OperationVisitor<'a> for Sending {
    type Output = Sent<'a>;

    fn operation<Op>(self, builder: Op) -> Self::Output
    where
        Op: vidplat_core::Operation + 'a,
        Op::Success: serde::Serialize,
    {
        Box::pin(async move {
            let response = vidplat_core::send_operation(builder, None)
                .await
                .map_err(|e| Failure::Call(vidplat::Error::from(e)))?;
            serde_json::to_value(response.into_inner()).map_err(|e| Failure::Reencode(e.to_string()))
        })
    }
}

/// The outcome of what `builder::visit` gave: no such operation, its
/// arguments refused (the first refusal), or the call's answer.
pub async fn sent(
    operation: &str,
    visited: Option<Result<Sent<'_>, vidplat_core::Refusals>>,
) -> Result<Value, Failure> {
    match visited {
        None => Err(Failure::UnknownOperation(operation.to_owned())),
        Some(Err(refusals)) => {
            let first = refusals.into_iter().next();
            let (at, why) = first.map(vidplat_core::Refusal::into_parts).unwrap_or_default();
            Err(Failure::BadArgument { at, why })
        }
        Some(Ok(call)) => call.await,
    }
}

#[derive(Debug)]
pub enum Failure {
    UnknownOperation(String),
    /// A typed argument could not be built from the given value: where, and why.
    BadArgument {
        at: String,
        why: String,
    },
    /// The call failed, as the facade reports it.
    Call(vidplat::Error),
    /// The decoded body could not be serialised back to JSON.
    Reencode(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::UnknownOperation(op) => write!(f, "no operation {op}"),
            Failure::BadArgument { at, why } => write!(f, "bad argument at {at}: {why}"),
            Failure::Call(e) => write!(f, "call failed: {e}"),
            Failure::Reencode(e) => write!(f, "could not re-encode the decoded body: {e}"),
        }
    }
}

/// Decodes `value` as `T`, then serialises it back.
pub fn roundtrip<T: DeserializeOwned + serde::Serialize>(value: Value) -> Result<Value, serde_json::Error> {
    let decoded: T = serde_json::from_value(value)?;
    serde_json::to_value(decoded)
}
