//! Every documented bound on what a client sends, read from the YAML: where it
//! is (a parameter, or a member inside the JSON body), the rule, a value right
//! at the bound and a value just past it.

use crate::samples::{distinguish, non_null_member, operation_parameters, snake, Samples};
use serde_json::{json, Value};
use std::fmt;

/// A step from a body's root to a member: an object key, or an array's first item.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    First,
}

#[derive(Clone, Debug)]
pub struct Bound {
    /// The builder argument holding the value: a parameter's snake name, or `body`.
    pub argument: String,
    /// Steps inside the body (empty for a parameter).
    pub steps: Vec<Step>,
    /// `maxLength 200`, `minimum 1`, `pattern ^…$`, …
    pub rule: String,
    /// What an error about this bound must mention (a number, or `pattern`, …).
    pub mentions: Vec<String>,
    pub at: Value,
    pub past: Value,
    /// The member may be left out (an optional member, or an optional parameter).
    pub optional: bool,
}

impl Bound {
    /// Whether the value past the bound is an empty array of an optional
    /// member: the generated types leave such a member out, so no bound is broken.
    pub fn past_is_left_out(&self) -> bool {
        self.optional && self.past.as_array().is_some_and(Vec::is_empty)
    }
}

impl Bound {
    /// The member's path as the SDK names it: `tags[0].key`, `per_page`.
    pub fn place(&self) -> String {
        let mut place = String::new();
        for step in &self.steps {
            match step {
                Step::Key(key) if place.is_empty() => place.push_str(key),
                Step::Key(key) => {
                    place.push('.');
                    place.push_str(key);
                }
                Step::First => place.push_str("[0]"),
            }
        }
        if place.is_empty() {
            self.argument.clone()
        } else {
            place
        }
    }

    /// `value` with the bound's member replaced by `replacement`.
    pub fn apply(&self, value: &mut Value, replacement: &Value) {
        let mut target = value;
        for step in &self.steps {
            target = match step {
                Step::Key(key) => &mut target[key.as_str()],
                Step::First => &mut target[0],
            };
        }
        *target = replacement.clone();
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.place(), self.rule)
    }
}

const MAX_DEPTH: usize = 10;

/// Every bound of one operation's parameters and JSON body.
pub fn operation_bounds(spec: &Value, path: &str, op: &Value) -> Vec<Bound> {
    let samples = Samples::new(spec);
    let mut bounds = Vec::new();
    for param in operation_parameters(&samples, spec, path, op) {
        let name = snake(param["name"].as_str().expect("a parameter has a name"));
        let optional = param.get("required").and_then(Value::as_bool) != Some(true);
        walk(&samples, &param["schema"], &name, Vec::new(), optional, 0, &mut bounds);
    }
    if let Some(schema) = op["requestBody"]["content"]["application/json"].get("schema") {
        walk(&samples, schema, "body", Vec::new(), false, 0, &mut bounds);
    }
    bounds
}

fn walk(
    samples: &Samples,
    schema: &Value,
    argument: &str,
    steps: Vec<Step>,
    optional: bool,
    depth: usize,
    out: &mut Vec<Bound>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let (schema, _) = samples.resolve(schema);
    for part in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        walk(samples, part, argument, steps.clone(), optional, depth + 1, out);
    }
    if let Some(member) = non_null_member(schema) {
        walk(samples, member, argument, steps.clone(), optional, depth + 1, out);
    }
    let bound = |rule: String, mentions: Vec<String>, at: Value, past: Value| Bound {
        argument: argument.to_owned(),
        steps: steps.clone(),
        rule,
        mentions,
        at,
        past,
        optional,
    };
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    let integer = schema.get("type").and_then(Value::as_str) == Some("integer");
    let as_json = |x: f64| if integer { json!(x as i64) } else { json!(x) };
    let step = if integer { 1.0 } else { 0.5 };
    if let Some(max) = number("maximum") {
        out.push(bound(
            format!("maximum {max}"),
            vec![format!("{max}")],
            as_json(max),
            as_json(max + step),
        ));
    }
    if let Some(min) = number("minimum") {
        // Unsigned and non-zero types cannot even hold the value past a minimum of 0 or 1.
        let mentions = vec![format!("{min}"), "nonzero".into(), "invalid value: integer `-".into()];
        out.push(bound(
            format!("minimum {min}"),
            mentions,
            as_json(min),
            as_json(min - step),
        ));
    }
    if schema.get("type").and_then(Value::as_str) == Some("string") && schema.get("format").is_none() {
        let pattern = schema
            .get("pattern")
            .and_then(Value::as_str)
            .map(|p| regress::Regex::new(p).unwrap_or_else(|e| panic!("pattern {p}: {e}")));
        let fits = |s: &str| pattern.as_ref().is_none_or(|re| re.find(s).is_some());
        let sample = samples.valid(schema).as_str().unwrap_or("sample").to_owned();
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            // Base64 members allow 10 MiB: the bound is the same rule, checked at full size once.
            let max = max as usize;
            let at = of_length(&sample, max, &fits);
            let past = of_length(&sample, max + 1, &fits);
            out.push(bound(
                format!("maxLength {max}"),
                vec![format!("{max}")],
                json!(at),
                json!(past),
            ));
        }
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64).filter(|m| *m > 0) {
            let min = min as usize;
            let at = of_length(&sample, min, &fits);
            let past: String = at.chars().take(min - 1).collect();
            out.push(bound(
                format!("minLength {min}"),
                vec![format!("{min}")],
                json!(at),
                json!(past),
            ));
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            let past = ["has space", "a|b|c", "x@y@z", "!"]
                .into_iter()
                .find(|c| !fits(c))
                .unwrap_or_else(|| panic!("no value breaks {pattern}"));
            out.push(bound(
                format!("pattern {pattern}"),
                vec!["pattern".into(), "match".into()],
                json!(sample),
                json!(past),
            ));
        }
    }
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        let sample = samples.valid(schema);
        let item = sample.get(0).cloned().unwrap_or(Value::Null);
        let unique = schema.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        let items = |n: usize| {
            let nth = |i| {
                let mut value = item.clone();
                if unique {
                    distinguish(&mut value, i);
                }
                value
            };
            Value::Array((0..n).map(nth).collect())
        };
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            let max = max as usize;
            out.push(bound(
                format!("maxItems {max}"),
                vec![format!("{max}")],
                items(max),
                items(max + 1),
            ));
        }
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64).filter(|m| *m > 0) {
            let min = min as usize;
            out.push(bound(
                format!("minItems {min}"),
                vec![format!("{min}")],
                items(min),
                items(min - 1),
            ));
        }
        if unique {
            out.push(bound(
                "uniqueItems".into(),
                vec!["repeat".into(), "unique".into()],
                items(2),
                json!([item.clone(), item.clone()]),
            ));
        }
        let mut inner = steps.clone();
        inner.push(Step::First);
        walk(samples, &schema["items"], argument, inner, false, depth + 1, out);
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (key, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if property.get("readOnly").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let mut inner = steps.clone();
        inner.push(Step::Key(key.clone()));
        walk(
            samples,
            property,
            argument,
            inner,
            !required.contains(&key.as_str()),
            depth + 1,
            out,
        );
    }
}

/// `sample` grown or cut to `length` characters, keeping to the pattern.
fn of_length(sample: &str, length: usize, fits: &dyn Fn(&str) -> bool) -> String {
    let count = sample.chars().count();
    if count >= length {
        let cut: String = sample.chars().take(length).collect();
        if fits(&cut) {
            return cut;
        }
    }
    let pad = length.saturating_sub(count);
    let candidates = [
        format!("{}{sample}", "x".repeat(pad)),
        format!("{sample}{}", "x".repeat(pad)),
        format!("{sample}{}", "1".repeat(pad)),
    ];
    candidates
        .into_iter()
        .find(|c| c.chars().count() == length && fits(c))
        .unwrap_or_else(|| panic!("no value of {length} characters like {sample:?} fits the pattern"))
}
