//! Bounds checked on what the client sends, before the request leaves.
//!
//! The generator writes, for every operation, the documented bounds of its
//! query parameters and JSON body as [`Check`]s (typify already refuses strings
//! that break a length or pattern when a body is built; these cover the rest:
//! number ranges, item counts, uniqueness, and lengths inside free-form values).
//! The test kit checks a mock's answers with the same rules ([`Rule::holds`],
//! and their words), against the bounds the YAML gives returned values.

use serde_json::Value;
use std::fmt;

/// One documented bound at a place of the request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// `query.<name>`, or `body` followed by `.member` and `[]` steps, e.g. `body.tags[].key`.
    pub at: &'static str,
    /// The bound.
    pub rule: Rule,
}

/// One documented rule of an operation's success body, at one place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SuccessCheck {
    /// `body`, then `.member` and `[]` steps (`body.data[].name`), as in
    /// [`Check::at`].
    pub at: &'static str,
    /// The rule.
    pub rule: SuccessRule,
}

/// A documented rule of a returned value.
///
/// An enumeration has no rule here: every enumeration the documents give is
/// open (its values may grow, so an unknown one is an answer the service may
/// give), and a closed one would be a closed Rust enum. Nor has `required`:
/// typify gives a required member a type without `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SuccessRule {
    /// A bound the client also checks on what it sends (a range, a length,
    /// an item count, unique items): the same rule and the same words.
    Bound(Rule),
    /// `pattern`: a string matching `pattern` (ECMA-262, as the YAML writes
    /// it), checked by the automaton the generator compiled it into, as the
    /// generated crates check theirs.
    Pattern {
        /// As the YAML writes it.
        pattern: &'static str,
        /// The generator's automaton for it.
        compiled: &'static crate::text_pattern::TextPattern,
    },
}

/// A documented bound (the JSON Schema keyword of the same name).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// `minimum`: a number at least this.
    Minimum(f64),
    /// `maximum`: a number at most this.
    Maximum(f64),
    /// `minLength`: a string of at least this many characters.
    MinLength(u64),
    /// `maxLength`: a string of at most this many characters.
    MaxLength(u64),
    /// `minItems`: an array of at least this many items.
    MinItems(u64),
    /// `maxItems`: an array of at most this many items.
    MaxItems(u64),
    /// `uniqueItems`: an array without repeated items.
    UniqueItems,
}

impl Rule {
    /// Whether `value` keeps the rule; values of another type are not this rule's business.
    pub fn holds(&self, value: &Value) -> bool {
        match (self, value) {
            (Rule::Minimum(min), Value::Number(n)) => n.as_f64().is_none_or(|v| v >= *min),
            (Rule::Maximum(max), Value::Number(n)) => n.as_f64().is_none_or(|v| v <= *max),
            (Rule::MinLength(min), Value::String(s)) => s.chars().count() as u64 >= *min,
            (Rule::MaxLength(max), Value::String(s)) => s.chars().count() as u64 <= *max,
            (Rule::MinItems(min), Value::Array(items)) => items.len() as u64 >= *min,
            (Rule::MaxItems(max), Value::Array(items)) => items.len() as u64 <= *max,
            (Rule::UniqueItems, Value::Array(items)) => items.iter().enumerate().all(|(i, a)| !items[..i].contains(a)),
            _ => true,
        }
    }
}

/// What a value breaking the rule must be: `must be at most 100 (maximum)`.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A bound reads as the shortest digits that read back as it, without an exponent
        // (f64's Display); adding 0.0 turns -0.0 into 0.
        match self {
            Rule::Minimum(x) => write!(f, "must be at least {} (minimum)", x + 0.0),
            Rule::Maximum(x) => write!(f, "must be at most {} (maximum)", x + 0.0),
            Rule::MinLength(x) => write!(f, "must have at least {x} character{} (minLength)", plural(*x)),
            Rule::MaxLength(x) => write!(f, "must have at most {x} character{} (maxLength)", plural(*x)),
            Rule::MinItems(x) => write!(f, "must have at least {x} item{} (minItems)", plural(*x)),
            Rule::MaxItems(x) => write!(f, "must have at most {x} item{} (maxItems)", plural(*x)),
            Rule::UniqueItems => f.write_str("must not repeat an item (uniqueItems)"),
        }
    }
}

fn plural(count: u64) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// Every broken bound of the query parameter `name`, whose value the client
/// holds typed (`value` is it as JSON: a number stays a number; a list sent
/// as repeated or comma-joined values is checked item by item), each once.
pub fn query_violations(checks: &[Check], name: &str, value: &Value) -> Vec<(String, String)> {
    let items = match value {
        Value::Array(items) => items.as_slice(),
        single => std::slice::from_ref(single),
    };
    checks
        .iter()
        .filter(|check| check.at.strip_prefix("query.") == Some(name))
        .filter(|check| items.iter().any(|item| !check.rule.holds(item)))
        .map(|check| (name.to_owned(), check.rule.to_string()))
        .collect()
}

/// Every broken bound of a JSON body, each with the path of the value that breaks it.
pub fn body_violations(checks: &[Check], body: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for check in checks {
        let Some(rest) = check.at.strip_prefix("body") else {
            continue;
        };
        visit(body, rest, String::new(), &mut |place, value| {
            if !check.rule.holds(value) {
                let place = if place.is_empty() { "body".into() } else { place };
                found.push((place, check.rule.to_string()));
            }
        });
    }
    found
}

/// Whether an operation has a bound on its body (so that the body is worth
/// checking before it is sent).
pub(crate) fn has_body_checks(checks: &[Check]) -> bool {
    checks.iter().any(|check| check.at.starts_with("body"))
}

/// The first broken bound of a request as a server receives it: query values
/// as text (a number compared as a number), the body parsed. The simulator
/// uses it, so it refuses exactly what a vidplat client refuses before sending.
pub fn first_violation(checks: &[Check], query: &[(String, String)], body: Option<&Value>) -> Option<(String, String)> {
    checks.iter().find_map(|check| {
        let Some(name) = check.at.strip_prefix("query.") else {
            return body_violations(std::slice::from_ref(check), body?).into_iter().next();
        };
        query.iter().filter(|(k, _)| k == name).find_map(|(_, raw)| {
            // Query values travel as text; numbers are compared as numbers.
            let value = match check.rule {
                Rule::Minimum(_) | Rule::Maximum(_) => raw
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number),
                _ => Value::String(raw.clone()),
            };
            query_violations(std::slice::from_ref(check), name, &value).pop()
        })
    })
}

/// The member `name` of the one at `parent`: `parent.name`, or `name` at the top.
pub(crate) fn child(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// Calls `f` with every value at `path` (`.member` and `[]` steps) below
/// `value`, and its place (`tags[1].key`; empty for `value` itself).
pub(crate) fn visit(value: &Value, path: &str, place: String, f: &mut dyn FnMut(String, &Value)) {
    if path.is_empty() {
        f(place, value);
        return;
    }
    if let Some(rest) = path.strip_prefix("[]") {
        if let Value::Array(items) = value {
            for (i, item) in items.iter().enumerate() {
                visit(item, rest, format!("{place}[{i}]"), f);
            }
        }
        return;
    }
    let path = path.strip_prefix('.').unwrap_or(path);
    let end = path.find(['.', '[']).unwrap_or(path.len());
    let (member, rest) = path.split_at(end);
    if let Some(child) = value.get(member) {
        visit(child, rest, self::child(&place, member), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CHECKS: &[Check] = &[
        Check {
            at: "query.per_page",
            rule: Rule::Maximum(100.0),
        },
        Check {
            at: "query.per_page",
            rule: Rule::Minimum(1.0),
        },
        Check {
            at: "body.priority",
            rule: Rule::Maximum(99.0),
        },
        Check {
            at: "body.multi_angles",
            rule: Rule::MaxItems(7),
        },
        Check {
            at: "body.labels",
            rule: Rule::UniqueItems,
        },
        Check {
            at: "body.tags[].key",
            rule: Rule::MaxLength(3),
        },
    ];

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn typed_query_values_are_checked_as_they_are_sent() {
        assert_eq!(query_violations(CHECKS, "per_page", &json!(100)), []);
        assert_eq!(
            query_violations(CHECKS, "per_page", &json!(101)),
            [("per_page".to_owned(), "must be at most 100 (maximum)".to_owned())]
        );
        assert_eq!(
            query_violations(CHECKS, "per_page", &json!([5, 0, 101])),
            [
                ("per_page".to_owned(), "must be at most 100 (maximum)".to_owned()),
                ("per_page".to_owned(), "must be at least 1 (minimum)".to_owned())
            ],
            "each rule a list breaks, once"
        );
        assert_eq!(query_violations(CHECKS, "page", &json!(0)), []);
        assert!(has_body_checks(CHECKS));
        assert!(!has_body_checks(&CHECKS[..2]));
    }

    #[test]
    fn at_the_bound_passes_past_it_names_field_and_rule() {
        assert_eq!(first_violation(CHECKS, &q(&[("per_page", "100")]), None), None);
        assert_eq!(
            first_violation(CHECKS, &q(&[("per_page", "101")]), None),
            Some(("per_page".into(), "must be at most 100 (maximum)".into()))
        );
        assert_eq!(
            first_violation(CHECKS, &q(&[("per_page", "0")]), None).unwrap().1,
            "must be at least 1 (minimum)"
        );
        let ok = json!({"priority": 99, "multi_angles": vec!["a"; 7], "labels": ["x", "y"], "tags": [{"key": "abc"}]});
        assert_eq!(first_violation(CHECKS, &[], Some(&ok)), None);
        let cases = [
            (json!({"priority": 100}), "priority", "must be at most 99 (maximum)"),
            (
                json!({"multi_angles": vec!["a"; 8]}),
                "multi_angles",
                "must have at most 7 items (maxItems)",
            ),
            (
                json!({"labels": ["x", "x"]}),
                "labels",
                "must not repeat an item (uniqueItems)",
            ),
            (
                json!({"tags": [{"key": "abc"}, {"key": "abcd"}]}),
                "tags[1].key",
                "must have at most 3 characters (maxLength)",
            ),
        ];
        for (body, field, rule) in cases {
            assert_eq!(
                first_violation(CHECKS, &[], Some(&body)),
                Some((field.into(), rule.into())),
                "{body}"
            );
        }
    }

    #[test]
    fn every_broken_bound_of_a_body_is_found_in_the_order_of_the_checks() {
        let body =
            json!({"priority": 100, "labels": ["x", "x"], "tags": [{"key": "abcd"}, {"key": "a"}, {"key": "wxyz"}]});
        let found: Vec<_> = body_violations(CHECKS, &body)
            .into_iter()
            .map(|(field, _)| field)
            .collect();
        assert_eq!(found, ["priority", "labels", "tags[0].key", "tags[2].key"]);
    }

    #[test]
    fn a_rule_reads_as_what_the_value_must_be() {
        assert_eq!(
            Rule::MinLength(1).to_string(),
            "must have at least 1 character (minLength)"
        );
        assert_eq!(Rule::MaxItems(7).to_string(), "must have at most 7 items (maxItems)");
        assert_eq!(Rule::Minimum(-0.5).to_string(), "must be at least -0.5 (minimum)");
        assert_eq!(Rule::Minimum(-0.0).to_string(), "must be at least 0 (minimum)");
        assert_eq!(Rule::Minimum(-731.0).to_string(), "must be at least -731 (minimum)");
        assert_eq!(
            Rule::Maximum(1e20).to_string(),
            "must be at most 100000000000000000000 (maximum)"
        );
        // 2^63 read back from its text: an integer cast would have stopped at i64::MAX.
        let text = Rule::Maximum(2f64.powi(63)).to_string();
        assert_eq!(text, "must be at most 9223372036854776000 (maximum)");
        assert_eq!(text[16..35].parse::<f64>(), Ok(2f64.powi(63)));
        assert!(Rule::Minimum(1.0).holds(&json!(1)) && !Rule::Minimum(1.0).holds(&json!(0)));
        assert!(
            Rule::Minimum(1.0).holds(&json!("0")),
            "a string is not a number's business"
        );
    }
}
