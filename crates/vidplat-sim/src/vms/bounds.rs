//! The documented bounds of an operation's query and JSON body, from the
//! generated operation table (`vidplat_vms::operations::ALL[..].checks`): number
//! ranges, lengths, item counts and uniqueness. The generated request types
//! already refuse strings breaking a length or pattern; these cover the rest.
//!
//! This crate does not depend on `vidplat-core`, so it cannot name
//! `vidplat_core::Rule` nor call `vidplat_core::first_violation`; it reads each
//! rule from its derived `Debug` form (`Maximum(100.0)`, `MaxItems(5)`,
//! `UniqueItems`) and walks the same `body.member[].member` places.

use crate::SimError;
use axum::extract::{FromRequestParts, Request};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    Minimum(f64),
    Maximum(f64),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
}

impl Rule {
    /// The rule from its `Debug` form; `None` for a form this module does not know.
    fn parse(debug: &str) -> Option<Self> {
        if debug == "UniqueItems" {
            return Some(Rule::UniqueItems);
        }
        let (name, argument) = debug.strip_suffix(')')?.split_once('(')?;
        let number = || argument.parse::<f64>().ok();
        let count = || argument.parse::<u64>().ok();
        Some(match name {
            "Minimum" => Rule::Minimum(number()?),
            "Maximum" => Rule::Maximum(number()?),
            "MinLength" => Rule::MinLength(count()?),
            "MaxLength" => Rule::MaxLength(count()?),
            "MinItems" => Rule::MinItems(count()?),
            "MaxItems" => Rule::MaxItems(count()?),
            _ => return None,
        })
    }

    /// Whether `value` keeps the rule; values of another type are not this rule's business.
    fn holds(self, value: &Value) -> bool {
        let length = |s: &str| s.chars().count() as u64;
        match (self, value) {
            (Rule::Minimum(min), Value::Number(n)) => n.as_f64().is_none_or(|v| v >= min),
            (Rule::Maximum(max), Value::Number(n)) => n.as_f64().is_none_or(|v| v <= max),
            (Rule::MinLength(min), Value::String(s)) => length(s) >= min,
            (Rule::MaxLength(max), Value::String(s)) => length(s) <= max,
            (Rule::MinItems(min), Value::Array(items)) => items.len() as u64 >= min,
            (Rule::MaxItems(max), Value::Array(items)) => items.len() as u64 <= max,
            (Rule::UniqueItems, Value::Array(items)) => items.iter().enumerate().all(|(i, a)| !items[..i].contains(a)),
            _ => true,
        }
    }
}

/// Where a bound applies.
enum Place {
    Query(&'static str),
    /// A path below the body: `.member` and `[]` steps.
    Body(&'static str),
}

pub(super) struct Bounds(Vec<(Place, Rule)>);

impl Bounds {
    /// From the table's `(at, format!("{rule:?}"))` pairs.
    pub(super) fn of(checks: impl Iterator<Item = (&'static str, String)>) -> Self {
        Self(
            checks
                .filter_map(|(at, form)| {
                    let rule = Rule::parse(&form);
                    if rule.is_none() {
                        tracing::warn!(at, rule = %form, "a documented bound this simulator cannot read");
                    }
                    let place = match at.strip_prefix("query.") {
                        Some(name) => Place::Query(name),
                        None => Place::Body(at.strip_prefix("body")?),
                    };
                    Some((place, rule?))
                })
                .collect(),
        )
    }

    /// The request unchanged, or 400 naming the first broken bound. A body that is
    /// not JSON is left to the handler's extractor, which refuses it.
    pub(super) async fn check(&self, request: Request) -> Result<Request, SimError> {
        if self.0.is_empty() {
            return Ok(request);
        }
        let (mut parts, body) = request.into_parts();
        let query = match axum::extract::Query::<Vec<(String, String)>>::from_request_parts(&mut parts, &()).await {
            Ok(axum::extract::Query(pairs)) => pairs,
            Err(rejection) => return Err(SimError::invalid(rejection.body_text())),
        };
        let bytes = axum::body::to_bytes(body, super::BODY_LIMIT)
            .await
            .map_err(|error| SimError::invalid(format!("unreadable body: {error}")))?;
        let json = serde_json::from_slice::<Value>(&bytes).ok();
        for (place, rule) in &self.0 {
            let broken = match place {
                Place::Query(name) => query
                    .iter()
                    .filter(|(key, _)| key == name)
                    .find(|(_, raw)| !rule.holds(&query_value(*rule, raw)))
                    .map(|_| (*name).to_owned()),
                Place::Body(path) => json.as_ref().and_then(|json| first_broken(json, path, *rule)),
            };
            if let Some(field) = broken {
                return Err(SimError::invalid(format!(
                    "`{field}` breaks the documented bound {rule:?}"
                )));
            }
        }
        Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
    }
}

/// A query value as the rule reads it: numbers compare as numbers, the rest as text.
fn query_value(rule: Rule, raw: &str) -> Value {
    match rule {
        Rule::Minimum(_) | Rule::Maximum(_) => raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        _ => Value::String(raw.to_owned()),
    }
}

/// The place of the first value at `path` below `value` that breaks `rule`.
fn first_broken(value: &Value, path: &str, rule: Rule) -> Option<String> {
    let mut found = None;
    visit(value, path, String::from("body"), &mut |place, value| {
        if found.is_none() && !rule.holds(value) {
            found = Some(place);
        }
    });
    found
}

/// Calls `f` with every value at `path` below `value` (the path is at most a few steps deep).
fn visit(value: &Value, path: &str, place: String, f: &mut dyn FnMut(String, &Value)) {
    if path.is_empty() {
        f(place, value);
    } else if let Some(rest) = path.strip_prefix("[]") {
        if let Value::Array(items) = value {
            for (i, item) in items.iter().enumerate() {
                visit(item, rest, format!("{place}[{i}]"), f);
            }
        }
    } else {
        let path = path.strip_prefix('.').unwrap_or(path);
        let end = path.find(['.', '[']).unwrap_or(path.len());
        let (member, rest) = path.split_at(end);
        if let Some(child) = value.get(member) {
            visit(child, rest, format!("{place}.{member}"), f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_rule_the_table_writes() {
        assert_eq!(Rule::parse("Minimum(1.0)"), Some(Rule::Minimum(1.0)));
        assert_eq!(Rule::parse("Maximum(100000000.0)"), Some(Rule::Maximum(1e8)));
        assert_eq!(Rule::parse("MaxLength(302)"), Some(Rule::MaxLength(302)));
        assert_eq!(Rule::parse("MinItems(1)"), Some(Rule::MinItems(1)));
        assert_eq!(Rule::parse("UniqueItems"), Some(Rule::UniqueItems));
        assert_eq!(Rule::parse("Pattern(x)"), None);
        // Every check of the generated table is understood.
        for meta in vidplat_vms::operations::ALL {
            for check in meta.checks {
                assert!(
                    Rule::parse(&format!("{:?}", check.rule)).is_some(),
                    "{}: {:?}",
                    meta.id,
                    check.rule
                );
            }
        }
    }

    #[test]
    fn walks_body_places() {
        let body = json!({"requests": [{"width": 10}, {"width": 9000}]});
        assert_eq!(
            first_broken(&body, ".requests[].width", Rule::Maximum(8192.0)),
            Some("body.requests[1].width".into())
        );
        assert_eq!(first_broken(&body, ".requests", Rule::MaxItems(2)), None);
    }
}
