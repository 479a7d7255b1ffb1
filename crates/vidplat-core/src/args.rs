//! An operation's arguments as data, the one way every reader (the command
//! line, the tests' driver, bulk rows) makes a builder without naming it:
//! each client crate generates `Builder::from_args` for every operation and
//! one `builder::visit`, which finds the operation by id and hands its
//! builder to an [`OperationVisitor`]. Both come with the client crates'
//! `by-name` feature: a program that names its operations in code compiles
//! none of them.

use crate::operation::{Operation, Paginated};
use crate::paged::Paged;
use crate::setter::{Refusal, Refusals};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The arguments of one call: each parameter under its builder setter's name
/// (`task_id`, `type` for the setter `type_`), the JSON body under `body`, or
/// a body sent as it is ([`Args::with_raw_body`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args {
    members: Map<String, Value>,
    raw_body: Option<Vec<u8>>,
}

impl Args {
    /// The arguments `members` names.
    pub fn new(members: Map<String, Value>) -> Self {
        Self {
            members,
            raw_body: None,
        }
    }

    /// The arguments of a JSON object (anything else is refused).
    pub fn from_value(value: Value) -> Result<Self, Refusals> {
        match value {
            Value::Object(members) => Ok(Self::new(members)),
            _ => Err(Refusal::new("the arguments are not a JSON object").into()),
        }
    }

    /// The same arguments with a body sent as it is (an operation whose body is not JSON).
    #[must_use]
    pub fn with_raw_body(mut self, body: Vec<u8>) -> Self {
        self.raw_body = Some(body);
        self
    }

    /// The arguments by name (the body under `body`).
    pub fn members(&self) -> &Map<String, Value> {
        &self.members
    }

    /// The body sent as it is, when one is given.
    pub fn raw_body(&self) -> Option<&[u8]> {
        self.raw_body.as_deref()
    }

    /// Whether no argument is given.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.raw_body.is_none()
    }

    /// The argument `name` as its setter's type; a value of another type is
    /// refused by its whole path (`body.streams[0].video.height`), from the
    /// builder's `member`.
    #[doc(hidden)]
    pub fn __take<T: DeserializeOwned>(&self, name: &str, member: &str, refusals: &mut Refusals) -> Option<T> {
        let value = self.members.get(name)?;
        match serde_path_to_error::deserialize(value) {
            Ok(value) => Some(value),
            Err(error) => {
                let path = error.path().to_string();
                let mut refusal = Refusal::new(error.into_inner().to_string());
                if path != "." {
                    refusal = refusal.at(&path);
                }
                refusals.push(refusal.at(member));
                None
            }
        }
    }

    /// The JSON body as `T`: every required member missing and every `null`
    /// the YAML does not allow is refused at once, each by its whole path
    /// (`body.streams[1].path`), before the body is read as its type (which
    /// would name only the first, and read most `null`s as left out).
    #[doc(hidden)]
    pub fn __take_body<T: DeserializeOwned>(
        &self,
        body: Option<crate::table::RequestBody>,
        refusals: &mut Refusals,
    ) -> Option<T> {
        if let (Some(value), Some(body)) = (self.members.get("body"), body) {
            let missing = body.missing(value);
            let nulls = body.null_not_allowed(value);
            if !missing.is_empty() || !nulls.is_empty() {
                for path in missing {
                    refusals.push(Refusal::new("is required").at(&path).at("body"));
                }
                for path in nulls {
                    refusals.push(Refusal::new("must not be null").at(&path).at("body"));
                }
                return None;
            }
        }
        self.__take("body", "body", refusals)
    }

    /// A body sent as it is: the bytes given, else `body` as text.
    #[doc(hidden)]
    pub fn __raw_body(&self, refusals: &mut Refusals) -> Option<Vec<u8>> {
        if let Some(bytes) = &self.raw_body {
            return Some(bytes.clone());
        }
        match self.members.get("body")? {
            Value::String(text) => Some(text.as_bytes().to_vec()),
            _ => {
                refusals.push(Refusal::new("is text, sent as it is").at("body"));
                None
            }
        }
    }

    /// Refuses every argument that is none of `known`.
    #[doc(hidden)]
    pub fn __only(&self, known: &[&str], refusals: &mut Refusals) {
        for name in self.members.keys().filter(|name| !known.contains(&name.as_str())) {
            refusals.push(Refusal::new("is not an argument of this operation").at(name));
        }
    }
}

/// What a reader does with an operation's builder once `operations::visit`
/// made it from data: one method for any operation, one for a list that
/// pages. The success types serialise, so a reader can show any answer.
pub trait OperationVisitor<'a> {
    /// What visiting gives back (a future, for a reader that sends).
    type Output;

    /// Any operation.
    fn operation<Op>(self, builder: Op) -> Self::Output
    where
        Op: Operation + 'a,
        Op::Success: serde::Serialize;

    /// A list with a paging style. Also an operation: by default it is read
    /// as one (its first page), for a reader that does not page.
    fn list<Op>(self, builder: Op) -> Self::Output
    where
        Op: Paginated + Unpin + 'a,
        Op::Success: serde::Serialize,
        <Op::Success as Paged>::Item: serde::Serialize + DeserializeOwned + Unpin + Send + 'static,
        Self: Sized,
    {
        self.operation(builder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_of_the_wrong_type_is_named_by_its_whole_path() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Video {
            height: u32,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Body {
            streams: Vec<Video>,
        }
        let args = Args::from_value(json!({
            "task_id": "seven",
            "body": {"streams": [{"height": 720}, {"height": -1}]},
            "colour": "blue"
        }))
        .expect("an object");
        let mut refusals = Refusals::default();
        assert!(args.__take::<u64>("task_id", "task_id", &mut refusals).is_none());
        assert!(args.__take::<Body>("body", "body", &mut refusals).is_none());
        args.__only(&["task_id", "body"], &mut refusals);
        let paths: Vec<&str> = refusals.iter().map(Refusal::path).collect();
        assert_eq!(paths, ["task_id", "body.streams[1].height", "colour"]);
        // The builder's own refusal of a member already refused is not added twice.
        refusals.__held::<u64>("task_id", &Err(Refusal::missing("task_id")));
        refusals.__held::<u64>("profile_id", &Err(Refusal::missing("profile_id")));
        assert_eq!(refusals.len(), 4);
        assert!(
            refusals
                .to_string()
                .starts_with("`task_id` invalid type: string \"seven\""),
            "{refusals}"
        );
        assert_eq!(Args::from_value(json!([1])).map(|_| ()).unwrap_err().len(), 1);
    }
}
