//! The rules the document gives an operation's success body beyond its Rust
//! type, checked when a rule is told to answer a value: a typed value can
//! still hold a name longer than the service ever returns, or a count below
//! its documented minimum. The YAML states these bounds of returned values in
//! `x-returned-bounds` (its decoders read answers tolerantly, so the keywords
//! stay out of their way); the generator writes them in each operation's row
//! of the table (`OperationMeta::success_checks`), which
//! [`MockOperation::SUCCESS_CHECKS`](crate::MockOperation::SUCCESS_CHECKS) reads.
//!
//! The value is checked as it serialises, without building a JSON tree, and
//! only the members that have a rule below them are visited: 10,000 contents
//! cost a fifth of writing them out; a JSON tree, nearly as much (docs/decisions/0015).

use serde::ser::{self, Serialize};
use serde_json::{Error, Value};
use std::borrow::Cow;
use std::cell::RefCell;

pub use vidplat_core::{SuccessCheck, SuccessRule};

/// The first value of `value`, as it serialises, that breaks one of
/// `checks`: its place (`data[3].name`) and what it must be. `None` also when
/// `value` does not serialise (writing it out says why).
pub(crate) fn first_break<T: Serialize + ?Sized>(checks: &[SuccessCheck], value: &T) -> Option<(String, String)> {
    if checks.is_empty() {
        return None;
    }
    let root = Node::of(checks);
    let mut state = State::default();
    // An error here is the value's own: the caller's serialisation reports it.
    let _ = value.serialize(At {
        node: &root,
        state: &mut state,
    });
    state.found
}

/// A rule ready to judge a value.
struct Judge {
    rule: SuccessRule,
    /// The last text that matched a pattern: the rows of a test's page are
    /// mostly one fixture repeated, and a match costs more than a comparison.
    matched: RefCell<Option<String>>,
}

/// The rules of one place and the places below it, by the step that reaches them.
#[derive(Default)]
struct Node {
    rules: Vec<Judge>,
    members: Vec<(&'static str, Node)>,
    items: Option<Box<Node>>,
}

impl Node {
    fn of(checks: &[SuccessCheck]) -> Node {
        let mut root = Node::default();
        for check in checks {
            let Some(mut path) = check.at.strip_prefix("body") else {
                continue;
            };
            let mut node = &mut root;
            while !path.is_empty() {
                if let Some(rest) = path.strip_prefix("[]") {
                    node = node.items.get_or_insert_with(Box::default);
                    path = rest;
                    continue;
                }
                let step = path.strip_prefix('.').unwrap_or(path);
                let (member, rest) = step.split_at(step.find(['.', '[']).unwrap_or(step.len()));
                let index = node.members.iter().position(|(name, _)| *name == member);
                let index = index.unwrap_or_else(|| {
                    node.members.push((member, Node::default()));
                    node.members.len() - 1
                });
                node = &mut node.members[index].1;
                path = rest;
            }
            node.rules.push(Judge {
                rule: check.rule,
                matched: RefCell::default(),
            });
        }
        root
    }

    fn member(&self, name: &str) -> Option<&Node> {
        self.members
            .iter()
            .find(|(member, _)| *member == name)
            .map(|(_, node)| node)
    }
}

/// One step from the body to a value: a member (a field's name or a map's key), or an item.
enum Step {
    Member(Cow<'static, str>),
    Item(usize),
}

#[derive(Default)]
struct State {
    path: Vec<Step>,
    found: Option<(String, String)>,
}

impl State {
    /// Records the first rule of `node` that `value` breaks, at the current place.
    fn judge(&mut self, node: &Node, value: &Value) {
        if self.found.is_some() {
            return;
        }
        let broken = node.rules.iter().find_map(|Judge { rule, matched }| match rule {
            SuccessRule::Bound(rule) => (!rule.holds(value)).then(|| rule.to_string()),
            SuccessRule::Pattern { pattern, compiled } => {
                let text = value.as_str()?;
                if matched.borrow().as_deref() == Some(text) {
                    return None;
                }
                if compiled.is_match(text) {
                    *matched.borrow_mut() = Some(text.to_owned());
                    return None;
                }
                Some(format!("must match {pattern} (pattern)"))
            }
        });
        self.found = broken.map(|rule| (self.place(), rule));
    }

    /// `tasks[0].status`; `body` for the body itself.
    fn place(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            match step {
                Step::Member(name) if out.is_empty() => out.push_str(name),
                Step::Member(name) => out.push_str(&format!(".{name}")),
                Step::Item(i) => out.push_str(&format!("[{i}]")),
            }
        }
        if out.is_empty() {
            "body".into()
        } else {
            out
        }
    }

    /// Serialises `value` at `node`, one `step` below the current place.
    fn descend<T: Serialize + ?Sized>(&mut self, node: &Node, step: Step, value: &T) -> Result<(), Error> {
        self.path.push(step);
        let outcome = value.serialize(At { node, state: self });
        self.path.pop();
        outcome
    }
}

/// The serialiser of the value at one place: judges scalars against the
/// place's rules, and goes down only where a rule waits below.
struct At<'n, 's> {
    node: &'n Node,
    state: &'s mut State,
}

impl<'n, 's> At<'n, 's> {
    fn scalar(self, value: impl FnOnce() -> Value) -> Result<(), Error> {
        if !self.node.rules.is_empty() {
            self.state.judge(self.node, &value());
        }
        Ok(())
    }

    fn compound(self, step: Option<&'static str>) -> Compound<'n, 's> {
        // A variant with data is written as `{variant: data}`: its rules sit one member down.
        let node = step.map_or(Some(self.node), |variant| self.node.member(variant));
        let unique = node.is_some_and(|n| {
            n.rules
                .iter()
                .any(|j| matches!(j.rule, SuccessRule::Bound(vidplat_core::Rule::UniqueItems)))
        });
        Compound {
            node,
            state: self.state,
            count: 0,
            items: unique.then(Vec::new),
            key: None,
        }
    }
}

/// Scalars serialised by `method`, each judged as the JSON value it becomes.
macro_rules! judged_as_json {
    ($($method:ident($type:ty)),* $(,)?) => {$(
        fn $method(self, v: $type) -> Result<(), Error> {
            // Fails only for a 128-bit number past 64 bits (serde_json holds none): judged as null.
            self.scalar(|| serde_json::to_value(v).unwrap_or(Value::Null))
        }
    )*};
}

/// Arrays, objects and variants with data serialised by `method`, each a
/// `Compound` at this place or, for a variant, at its member.
macro_rules! written_at {
    ($($method:ident($($arg:tt: $type:ty),*) => $variant:expr),* $(,)?) => {$(
        fn $method(self, $($arg: $type),*) -> Result<Compound<'n, 's>, Error> {
            Ok(self.compound($variant))
        }
    )*};
}

impl<'n, 's> ser::Serializer for At<'n, 's> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'n, 's>;
    type SerializeTuple = Compound<'n, 's>;
    type SerializeTupleStruct = Compound<'n, 's>;
    type SerializeTupleVariant = Compound<'n, 's>;
    type SerializeMap = Compound<'n, 's>;
    type SerializeStruct = Compound<'n, 's>;
    type SerializeStructVariant = Compound<'n, 's>;

    judged_as_json! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32), serialize_i64(i64),
        serialize_i128(i128), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32), serialize_u64(u64),
        serialize_u128(u128), serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_str(&str),
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        match self.node.member(variant) {
            Some(node) => self.state.descend(node, Step::Member(variant.into()), value),
            None => Ok(()),
        }
    }
    written_at! {
        serialize_seq(_: Option<usize>) => None,
        serialize_tuple(_: usize) => None,
        serialize_tuple_struct(_: &'static str, _: usize) => None,
        serialize_tuple_variant(_: &'static str, _: u32, variant: &'static str, _: usize) => Some(variant),
        serialize_map(_: Option<usize>) => None,
        serialize_struct(_: &'static str, _: usize) => None,
        serialize_struct_variant(_: &'static str, _: u32, variant: &'static str, _: usize) => Some(variant),
    }
}

/// An array, an object or a variant's data being serialised at one place
/// (`node`: `None` when no rule waits at or below it).
struct Compound<'n, 's> {
    node: Option<&'n Node>,
    state: &'s mut State,
    /// Items seen, for the item counts.
    count: usize,
    /// The items as JSON, kept only for `uniqueItems` (else `None`).
    items: Option<Vec<Value>>,
    /// The key of the map entry whose value comes next.
    key: Option<String>,
}

impl Compound<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let index = self.count;
        self.count += 1;
        let Some(node) = self.node else { return Ok(()) };
        if self.state.found.is_some() {
            return Ok(());
        }
        if let Some(items) = &mut self.items {
            items.push(serde_json::to_value(value)?);
        }
        match &node.items {
            Some(items) => self.state.descend(items, Step::Item(index), value),
            None => Ok(()),
        }
    }

    fn member<T: Serialize + ?Sized>(&mut self, name: Cow<'static, str>, value: &T) -> Result<(), Error> {
        match self.node.and_then(|node| node.member(&name)) {
            Some(node) if self.state.found.is_none() => self.state.descend(node, Step::Member(name), value),
            _ => Ok(()),
        }
    }

    /// Judges the array just written against its place's rules (item counts, unique items).
    fn end_array(self) -> Result<(), Error> {
        if let Some(node) = self.node.filter(|node| !node.rules.is_empty()) {
            // Only the count matters to every rule but uniqueItems, which has the items.
            let items = self.items.unwrap_or_else(|| vec![Value::Null; self.count]);
            self.state.judge(node, &Value::Array(items));
        }
        Ok(())
    }
}

/// The parts of a value written as an array: each item judged at the place's items.
macro_rules! written_as_array {
    ($($part:ident::$method:ident),*) => {$(
        impl ser::$part for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.end_array()
            }
        }
    )*};
}

written_as_array!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // Map keys (a flattened `extra`, say) are looked up only where rules wait.
        self.key = match self.node {
            Some(node) if !node.members.is_empty() => match serde_json::to_value(key)? {
                Value::String(key) => Some(key),
                other => Some(other.to_string()),
            },
            _ => None,
        };
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.key.take().map_or(Ok(()), |key| self.member(key.into(), value))
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// The parts of a value written as an object with named members.
macro_rules! written_as_struct {
    ($($part:ident),*) => {$(
        impl ser::$part for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<(), Error> {
                self.member(name.into(), value)
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        }
    )*};
}

written_as_struct!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use vidplat_core::__private::Step::{Continue, Failed};
    use vidplat_core::__private::TextPattern;
    use vidplat_core::Rule;

    /// `^[a-z]+$`, as the generator compiles it: 0 the start, 1 in the word, 2 failed.
    static LOWERCASE: TextPattern = TextPattern::new(
        &[(b'a', b'z', 1)],
        2,
        &[2, 1, 2, 1, 2, 2],
        &[Continue, Continue, Failed],
        &[false, true, false],
        0,
    );

    const CHECKS: &[SuccessCheck] = &[
        SuccessCheck {
            at: "body.per_page",
            rule: SuccessRule::Bound(Rule::Maximum(100.0)),
        },
        SuccessCheck {
            at: "body.data",
            rule: SuccessRule::Bound(Rule::MaxItems(3)),
        },
        SuccessCheck {
            at: "body.data[].labels",
            rule: SuccessRule::Bound(Rule::UniqueItems),
        },
        SuccessCheck {
            at: "body.data[].name",
            rule: SuccessRule::Pattern {
                pattern: "^[a-z]+$",
                compiled: &LOWERCASE,
            },
        },
    ];

    /// The same as JSON and as a typed value: the check sees what is written.
    #[test]
    fn the_first_break_is_named_by_its_whole_path() {
        let ok = json!({"per_page": 100, "data": [{"name": "a", "labels": ["x", "y"]}], "other": [1, 1]});
        assert_eq!(first_break(CHECKS, &ok), None);
        let cases = [
            (json!({"per_page": 101}), "per_page", "must be at most 100 (maximum)"),
            (
                json!({"data": [{}, {}, {}, {}]}),
                "data",
                "must have at most 3 items (maxItems)",
            ),
            (
                json!({"data": [{"labels": ["x"]}, {"labels": ["x", "x"]}]}),
                "data[1].labels",
                "must not repeat an item (uniqueItems)",
            ),
            (
                json!({"data": [{"name": "Ab"}]}),
                "data[0].name",
                "must match ^[a-z]+$ (pattern)",
            ),
            (
                json!({"data": [{"name": "a"}, {"name": ""}]}),
                "data[1].name",
                "must match ^[a-z]+$ (pattern)",
            ),
        ];
        for (body, place, rule) in cases {
            assert_eq!(first_break(CHECKS, &body), Some((place.into(), rule.into())), "{body}");
        }
        // A typed value's members are the same steps.
        #[derive(serde::Serialize)]
        struct Row {
            name: &'static str,
        }
        #[derive(serde::Serialize)]
        struct Page {
            data: Vec<Row>,
        }
        let typed = Page {
            data: vec![Row { name: "a" }, Row { name: "B" }],
        };
        assert_eq!(
            first_break(CHECKS, &typed),
            Some(("data[1].name".into(), "must match ^[a-z]+$ (pattern)".into()))
        );
    }
}
