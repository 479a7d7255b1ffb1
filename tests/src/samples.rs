//! Sample JSON values generated from the YAML's schemas.
//!
//! `valid` builds what a careful client sends: every documented field, each
//! value inside its documented bounds. `hostile` builds what a server is free
//! to answer: every documented field, an unknown extra field in every object,
//! unknown values in every open enumeration, strings longer than any bound the
//! documents give, numbers outside their bounds, duplicates in unique arrays.

use crate::driver::Args;
use serde_json::{json, Map, Value};

/// The key of the unknown member `hostile` adds to every object.
pub const UNKNOWN_FIELD: &str = "x_field_this_sdk_does_not_know";
/// The value `hostile` puts in every open enumeration.
pub const UNKNOWN_ENUM_VALUE: &str = "VALUE_FROM_A_NEWER_SERVER";

const MAX_DEPTH: usize = 12;

pub struct Samples<'a> {
    spec: &'a Value,
}

impl<'a> Samples<'a> {
    pub fn new(spec: &'a Value) -> Self {
        Self { spec }
    }

    /// Follows a local `$ref`; returns the schema and, for component schemas, its name.
    pub fn resolve<'s>(&'s self, schema: &'s Value) -> (&'s Value, Option<&'s str>) {
        let mut schema = schema;
        let mut name = None;
        for _ in 0..MAX_DEPTH {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let pointer = reference.trim_start_matches('#');
            name = reference.rsplit('/').next();
            schema = self
                .spec
                .pointer(pointer)
                .unwrap_or_else(|| panic!("dangling $ref {reference}"));
        }
        (schema, name)
    }

    pub fn valid(&self, schema: &Value) -> Value {
        self.valid_at(schema, 0, 0)
    }

    pub fn hostile(&self, schema: &Value) -> Value {
        self.hostile_at(schema, 0)
    }

    fn valid_at(&self, schema: &Value, depth: usize, index: usize) -> Value {
        let (schema, name) = self.resolve(schema);
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        match name {
            Some("Timestamp") => return json!("2025-06-01 12:34:56"),
            Some("Date") => return json!("2025-06-01"),
            _ => {}
        }
        if let Some(example) = schema.get("example") {
            return example.clone();
        }
        if let Some(values) = schema.get("x-extensible-enum").and_then(Value::as_array) {
            if let Some(first) = values.get(index % values.len().max(1)) {
                return first.clone();
            }
        }
        if let Some(default) = schema.get("default") {
            if !default.is_null() {
                return default.clone();
            }
        }
        // What a schema says of itself (above) wins over what it is composed of:
        // a member's own default beside a shared schema's `allOf` is its value.
        if let Some(member) = non_null_member(schema).or_else(|| first_alternative(schema)) {
            return self.valid_at(member, depth + 1, index);
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in all {
                match self.valid_at(part, depth + 1, index) {
                    Value::Object(fields) => merged.extend(fields),
                    other => return other,
                }
            }
            return Value::Object(merged);
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") | None if schema.get("properties").is_some() => {
                let mut object = Map::new();
                for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                    if property.get("readOnly").and_then(Value::as_bool) == Some(true) {
                        continue;
                    }
                    object.insert(key.clone(), self.valid_at(property, depth + 1, 0));
                }
                Value::Object(object)
            }
            Some("object") => json!({}),
            Some("array") => {
                let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1).max(1) as usize;
                let items = (0..min).map(|i| self.valid_at(&schema["items"], depth + 1, i));
                let mut values: Vec<Value> = items.collect();
                if schema.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
                    for (i, value) in values.iter_mut().enumerate() {
                        distinguish(value, i);
                    }
                }
                Value::Array(values)
            }
            Some("string") => json!(valid_string(schema, index)),
            Some("integer") => {
                let min = schema.get("minimum").and_then(Value::as_i64);
                let max = schema.get("maximum").and_then(Value::as_i64);
                let value = min.unwrap_or(1).max(1.min(max.unwrap_or(1)));
                json!(max.map_or(value, |max| value.min(max)))
            }
            Some("number") => {
                let max = schema.get("maximum").and_then(Value::as_f64).unwrap_or(f64::MAX);
                json!(1.5f64.min(max))
            }
            Some("boolean") => json!(true),
            _ => json!("sample"),
        }
    }

    fn hostile_at(&self, schema: &Value, depth: usize) -> Value {
        let (schema, name) = self.resolve(schema);
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        match name {
            // Not the documented form: the SDK must keep it, not fail.
            Some("Timestamp") => return json!("2025-06-01T12:34:56.789+09:00"),
            Some("Date") => return json!("2025/06/01"),
            _ => {}
        }
        if schema.get("x-extensible-enum").is_some() {
            return json!(UNKNOWN_ENUM_VALUE);
        }
        if let Some(member) = non_null_member(schema).or_else(|| first_alternative(schema)) {
            return self.hostile_at(member, depth + 1);
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in all {
                match self.hostile_at(part, depth + 1) {
                    Value::Object(fields) => merged.extend(fields),
                    other => return other,
                }
            }
            return Value::Object(merged);
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") | None if schema.get("properties").is_some() => {
                let mut object = Map::new();
                for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                    object.insert(key.clone(), self.hostile_at(property, depth + 1));
                }
                object.insert(UNKNOWN_FIELD.into(), json!({"nested": [1, "two", null]}));
                Value::Object(object)
            }
            Some("object") => json!({"free_form": [1, "two"], UNKNOWN_FIELD: true}),
            Some("array") => {
                let item = self.hostile_at(&schema["items"], depth + 1);
                json!([item.clone(), item])
            }
            Some("string") => json!("x".repeat(self.longest_documented_string() + 1)),
            Some("integer") => json!(-1),
            Some("number") => json!(-1.5),
            Some("boolean") => json!(false),
            _ => json!({"free_form": [1, "two"]}),
        }
    }

    /// The largest `maxLength` anywhere in the file, capped: the base64 fields'
    /// 10,485,760 is checked by its own test, not in every string of every sample.
    fn longest_documented_string(&self) -> usize {
        fn walk(value: &Value, longest: &mut u64) {
            match value {
                Value::Object(map) => {
                    if let Some(n) = map.get("maxLength").and_then(Value::as_u64) {
                        *longest = (*longest).max(n);
                    }
                    map.values().for_each(|v| walk(v, longest));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, longest)),
                _ => {}
            }
        }
        let mut longest = 0;
        walk(self.spec, &mut longest);
        longest.min(5_000) as usize
    }
}

/// A nullable reference (`anyOf: [{$ref}, {enum: [null]}]`, see CONVENTIONS.md):
/// the member that is not the null-only schema.
pub fn non_null_member(schema: &Value) -> Option<&Value> {
    let members = schema.get("anyOf")?.as_array()?;
    let null_only = |m: &Value| {
        m.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e == &[Value::Null])
    };
    match members.as_slice() {
        [a, b] if null_only(b) => Some(a),
        [a, b] if null_only(a) => Some(b),
        _ => None,
    }
}

/// The first member of an `anyOf` that is no nullable reference, or of a `oneOf` (a
/// value read in either of several forms, such as a bulk registration's id; see
/// CONVENTIONS.md): samples use the richest form, which the YAML lists first.
fn first_alternative(schema: &Value) -> Option<&Value> {
    schema.get("anyOf").or_else(|| schema.get("oneOf"))?.as_array()?.first()
}

fn valid_string(schema: &Value, index: usize) -> String {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema.get("maxLength").and_then(Value::as_u64).map(|m| m as usize);
    let candidates: Vec<String> = match schema.get("format").and_then(Value::as_str) {
        Some("uuid") => vec![format!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f{index:04x}")],
        Some("ipv4") => vec!["203.0.113.7".into()],
        Some("binary") => vec!["input_filepath,profile_id\nmovie.mp4,1\n".into()],
        Some("byte") => vec!["aGVsbG8=".into()],
        _ => [
            "sample",
            "created_at|desc",
            "daily:7",
            "user@account",
            "vms5://",
            "aGVsbG8=",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    };
    let pattern = schema
        .get("pattern")
        .and_then(Value::as_str)
        .map(|p| regress::Regex::new(p).unwrap_or_else(|e| panic!("pattern {p} does not compile: {e}")));
    for candidate in candidates {
        let mut value = candidate;
        while value.chars().count() < min {
            value.push('x');
        }
        if let Some(max) = max {
            value = value.chars().take(max).collect();
        }
        if pattern.as_ref().is_none_or(|re| re.find(&value).is_some()) {
            return value;
        }
    }
    panic!("no sample fits {schema}: give the schema an `example`")
}

/// Makes the i-th item of a unique array differ from the others.
pub fn distinguish(value: &mut Value, index: usize) {
    match value {
        // The same length, so bounds and formats (a UUID's hex digits) still hold.
        Value::String(s) if index > 0 => {
            let suffix = index.to_string();
            let keep = s.chars().count().saturating_sub(suffix.len());
            *s = s.chars().take(keep).chain(suffix.chars()).collect();
        }
        Value::Number(n) => *value = json!(n.as_i64().unwrap_or(0) + index as i64),
        // An object differs by its first string or number member.
        Value::Object(members) => {
            if let Some(first) = members.values_mut().find(|v| v.is_string() || v.is_number()) {
                distinguish(first, index);
            }
        }
        _ => {}
    }
}

/// The generated builders' name for a parameter (`task-id` → `task_id`).
pub fn snake(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// An operation's parameters, its path item's first, each resolved.
pub fn operation_parameters<'s>(samples: &'s Samples, spec: &'s Value, path: &str, op: &'s Value) -> Vec<&'s Value> {
    let shared = spec["paths"][path]["parameters"].as_array().into_iter().flatten();
    let own = op["parameters"].as_array().into_iter().flatten();
    shared.chain(own).map(|param| samples.resolve(param).0).collect()
}

/// Valid sample arguments for one operation (every parameter, every body
/// field), and the valid body of its success response, if it has one.
pub fn operation_arguments(spec: &Value, path: &str, op: &Value) -> (Args, Option<Value>) {
    let samples = Samples::new(spec);
    let mut args = Args::default();
    for param in operation_parameters(&samples, spec, path, op) {
        let name = param["name"].as_str().expect("a parameter has a name");
        // A documented default that is not declared (`x-default`, CONVENTIONS.md) is still the natural value.
        let value = param
            .get("x-default")
            .cloned()
            .unwrap_or_else(|| samples.valid(&param["schema"]));
        args.0.insert(snake(name), value);
    }
    let content = &op["requestBody"]["content"];
    for media_type in ["application/json", "application/octet-stream"] {
        if let Some(schema) = content[media_type].get("schema") {
            args.0.insert("body".into(), samples.valid(schema));
        }
    }
    let success = op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .find(|(code, _)| code.starts_with('2'))
        .map(|(_, r)| r);
    let answer = success
        .map(|r| samples.resolve(r).0)
        .and_then(|r| r["content"]["application/json"].get("schema"))
        .map(|schema| samples.valid(schema));
    (args, answer)
}
