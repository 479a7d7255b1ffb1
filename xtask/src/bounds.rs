//! The bounds an operation's YAML carries, read one way for every reader: the
//! request's (the generator's pre-send table, the cross-check against the
//! documents' facts) and its success body's (the test kit's checks of a mock's
//! answers). Sent schemas state bounds in JSON Schema's keywords; returned
//! schemas state them in `x-returned-bounds`, the same keywords where no
//! decoder reads them (answers are read tolerantly: openapi/CONVENTIONS.md).

use serde_json::Value;
use std::fmt;

/// One documented rule on a value the client sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Minimum(f64),
    Maximum(f64),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    Pattern(String),
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Minimum(x) => write!(f, "minimum {x}"),
            Bound::Maximum(x) => write!(f, "maximum {x}"),
            Bound::MinLength(x) => write!(f, "minLength {x}"),
            Bound::MaxLength(x) => write!(f, "maxLength {x}"),
            Bound::MinItems(x) => write!(f, "minItems {x}"),
            Bound::MaxItems(x) => write!(f, "maxItems {x}"),
            Bound::UniqueItems => write!(f, "uniqueItems"),
            Bound::Pattern(p) => write!(f, "pattern {p}"),
        }
    }
}

/// Every bound of an operation's query parameters and JSON body, as
/// (place, bound): `query.per_page`, `body.input_filepath`, `body.streams[].path`.
pub fn of_operation(spec: &Value, path: &str, op: &Value) -> Vec<(String, Bound)> {
    let mut out = Vec::new();
    let params = spec["paths"][path]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(op["parameters"].as_array().into_iter().flatten());
    for param in params {
        let param = resolve(spec, param);
        let (Some(location), Some(name)) = (param["in"].as_str(), param["name"].as_str()) else {
            continue;
        };
        if matches!(location, "query" | "path" | "header") {
            collect(
                spec,
                &param["schema"],
                &format!("{location}.{name}"),
                Side::Sent,
                &mut out,
                0,
            );
        }
    }
    if let Some(schema) = op["requestBody"]["content"]["application/json"].get("schema") {
        collect(spec, schema, "body", Side::Sent, &mut out, 0);
    }
    out
}

/// Every bound the YAML gives a returned body of schema `schema`, as (place,
/// bound): `body.data[].name`. Both the schema's own keywords and its
/// `x-returned-bounds` count.
pub fn of_returned(spec: &Value, schema: &Value) -> Vec<(String, Bound)> {
    let mut out = Vec::new();
    collect(spec, schema, "body", Side::Returned, &mut out, 0);
    out
}

/// The bounds of one value's own schema (not those of its members or items).
pub fn of_value(spec: &Value, schema: &Value) -> Vec<Bound> {
    let mut out = Vec::new();
    collect(spec, schema, "", Side::Sent, &mut out, 0);
    out.into_iter()
        .filter(|(at, _)| at.is_empty())
        .map(|(_, bound)| bound)
        .collect()
}

pub fn resolve<'v>(spec: &'v Value, node: &'v Value) -> &'v Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => spec
            .pointer(reference.trim_start_matches('#'))
            .map(|n| resolve(spec, n))
            .unwrap_or(node),
        None => node,
    }
}

/// Which way a schema travels: where its bounds are written.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// In the schema's keywords.
    Sent,
    /// In the keywords and in `x-returned-bounds`.
    Returned,
}

fn collect(spec: &Value, schema: &Value, at: &str, side: Side, out: &mut Vec<(String, Bound)>, depth: usize) {
    if depth > 16 {
        return;
    }
    let schema = resolve(spec, schema);
    for part in ["allOf", "anyOf", "oneOf"]
        .iter()
        .flat_map(|key| schema[key].as_array().into_iter().flatten())
    {
        collect(spec, part, at, side, out, depth + 1);
    }
    keywords(schema, at, out);
    if side == Side::Returned {
        if let Some(returned) = schema.get("x-returned-bounds") {
            keywords(returned, at, out);
        }
    }
    if let Some(items) = schema.get("items") {
        collect(spec, items, &format!("{at}[]"), side, out, depth + 1);
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        collect(spec, property, &format!("{at}.{name}"), side, out, depth + 1);
    }
}

/// The bounds `keywords` (a schema, or an `x-returned-bounds` map) states of the value at `at`.
fn keywords(keywords: &Value, at: &str, out: &mut Vec<(String, Bound)>) {
    let number = |key: &str| keywords.get(key).and_then(Value::as_f64);
    let count = |key: &str| keywords.get(key).and_then(Value::as_u64);
    let mut push = |bound| out.push((at.to_owned(), bound));
    if let Some(x) = number("minimum") {
        push(Bound::Minimum(x));
    }
    if let Some(x) = number("maximum") {
        push(Bound::Maximum(x));
    }
    if let Some(x) = count("minLength") {
        push(Bound::MinLength(x));
    }
    if let Some(x) = count("maxLength") {
        push(Bound::MaxLength(x));
    }
    if let Some(x) = count("minItems") {
        push(Bound::MinItems(x));
    }
    if let Some(x) = count("maxItems") {
        push(Bound::MaxItems(x));
    }
    if keywords["uniqueItems"] == Value::Bool(true) {
        push(Bound::UniqueItems);
    }
    if let Some(pattern) = keywords["pattern"].as_str() {
        push(Bound::Pattern(pattern.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A returned schema's bounds are in `x-returned-bounds` (on a member and on
    /// each item); a request reads only the keywords.
    #[test]
    fn returned_bounds_are_read_for_answers_only() {
        let spec = json!({"components": {"schemas": {
            "Page": {"type": "object", "properties": {
                "data": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
                "per_page": {"type": "integer", "x-returned-bounds": {"minimum": 1, "maximum": 100}},
            }},
            "Row": {"type": "object", "properties": {
                "name": {"type": "string", "x-returned-bounds": {"maxLength": 30, "pattern": "^[a-z]+$"}},
                "ids": {"type": "array", "items": {"type": "integer", "x-returned-bounds": {"minimum": 1}}},
            }},
        }}});
        let page = json!({"$ref": "#/components/schemas/Page"});
        let found: Vec<String> = of_returned(&spec, &page)
            .iter()
            .map(|(at, bound)| format!("{at}: {bound}"))
            .collect();
        assert_eq!(
            found,
            [
                "body.data[].ids[]: minimum 1",
                "body.data[].name: maxLength 30",
                "body.data[].name: pattern ^[a-z]+$",
                "body.per_page: minimum 1",
                "body.per_page: maximum 100",
            ]
        );
        let op = json!({"requestBody": {"content": {"application/json": {"schema": page}}}});
        assert_eq!(of_operation(&spec, "/", &op), []);
    }
}
