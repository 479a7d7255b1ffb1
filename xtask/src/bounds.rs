//! The request-side bounds an operation's YAML carries, read one way for every
//! reader: the generator's pre-send table and the cross-check against the
//! documents' facts.

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
            collect(spec, &param["schema"], &format!("{location}.{name}"), &mut out, 0);
        }
    }
    if let Some(schema) = op["requestBody"]["content"]["application/json"].get("schema") {
        collect(spec, schema, "body", &mut out, 0);
    }
    out
}

/// The bounds of one value's own schema (not those of its members or items).
pub fn of_value(spec: &Value, schema: &Value) -> Vec<Bound> {
    let mut out = Vec::new();
    collect(spec, schema, "", &mut out, 0);
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

fn collect(spec: &Value, schema: &Value, at: &str, out: &mut Vec<(String, Bound)>, depth: usize) {
    if depth > 16 {
        return;
    }
    let schema = resolve(spec, schema);
    for part in ["allOf", "anyOf", "oneOf"]
        .iter()
        .flat_map(|key| schema[key].as_array().into_iter().flatten())
    {
        collect(spec, part, at, out, depth + 1);
    }
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    let count = |key: &str| schema.get(key).and_then(Value::as_u64);
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
    if schema["uniqueItems"] == Value::Bool(true) {
        push(Bound::UniqueItems);
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        push(Bound::Pattern(pattern.to_owned()));
    }
    if let Some(items) = schema.get("items") {
        collect(spec, items, &format!("{at}[]"), out, depth + 1);
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        collect(spec, property, &format!("{at}.{name}"), out, depth + 1);
    }
}
