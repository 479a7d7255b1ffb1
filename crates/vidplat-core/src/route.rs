//! Routes: the path template an operation is sent to, filled with its
//! encoded path values, and the overrides that send an operation elsewhere
//! (for operations whose route the documents do not show).

use crate::config::ConfigError;
use crate::table::{Method, ServiceTable};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;

/// What a path value is encoded against: everything that could end or split
/// a segment (`/`, and `\`, which URL parsers treat as `/`), start a query or
/// a fragment, or read as an escape (`%`), so that a value is always one
/// segment of data.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'\\')
    .add(b'%');

/// A path template such as `/v1/tasks/{task-id}`, checked: it starts with
/// `/`, and every `{name}` fills a whole segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteTemplate {
    template: String,
}

impl RouteTemplate {
    /// Parses a template; `{name}` segments are parameters.
    pub fn parse(template: &str) -> Result<Self, String> {
        let rest = template
            .strip_prefix('/')
            .ok_or_else(|| format!("route template `{template}` must start with `/`"))?;
        for part in rest.split('/') {
            if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                if name.is_empty() || name.contains(['{', '}']) {
                    return Err(format!(
                        "route template `{template}` has a malformed parameter `{part}`"
                    ));
                }
            } else if part.contains(['{', '}']) {
                return Err(format!(
                    "route template `{template}`: a parameter must fill a whole segment (`{part}`)"
                ));
            }
        }
        Ok(Self {
            template: template.to_owned(),
        })
    }

    /// Parameter names, in order.
    pub fn params(&self) -> Vec<&str> {
        params(&self.template).collect()
    }

    /// Same parameter names, in any order.
    pub fn same_params(&self, other: &RouteTemplate) -> bool {
        let mut mine = self.params();
        let mut theirs = other.params();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.template
    }
}

impl fmt::Display for RouteTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.template)
    }
}

fn params(template: &str) -> impl Iterator<Item = &str> {
    template
        .split('/')
        .filter_map(|part| part.strip_prefix('{').and_then(|p| p.strip_suffix('}')))
}

/// Appends `template` to `out`, each `{name}` replaced by its value from
/// `values` (a JSON scalar: text is percent-encoded as one segment, numbers
/// and booleans written as JSON writes them). `Err` names a parameter that
/// has no value.
pub(crate) fn fill<'t>(template: &'t str, values: &[(&str, Value)], out: &mut String) -> Result<(), &'t str> {
    let mut rest = template;
    while let Some(open) = memchr::memchr(b'{', rest.as_bytes()) {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = memchr::memchr(b'}', after.as_bytes()).unwrap_or(after.len());
        let name = &after[..close];
        match values.iter().find(|(n, _)| *n == name).map(|(_, v)| v) {
            Some(Value::String(text)) => out.extend(utf8_percent_encode(text, SEGMENT)),
            Some(scalar @ (Value::Number(_) | Value::Bool(_))) => {
                let _ = write!(out, "{scalar}");
            }
            _ => return Err(name),
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    out.push_str(rest);
    Ok(())
}

/// Where an overridden operation is sent instead of the YAML's route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Route {
    pub(crate) method: Method,
    pub(crate) template: RouteTemplate,
}

/// The route overrides of one service, checked once: each names an operation
/// of the service, its template is well formed and has exactly the
/// operation's path parameters, it keeps the method of a route the documents
/// show, and no operation is overridden twice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    by_operation: HashMap<&'static str, Route>,
}

impl Routes {
    /// Checks `overrides` (operation, method, template) against `table`.
    pub fn check(table: &'static ServiceTable, overrides: &[(String, Method, String)]) -> Result<Self, ConfigError> {
        let mut by_operation = HashMap::new();
        for (id, method, template) in overrides {
            let op = table.operation(id).ok_or_else(|| ConfigError::UnknownOperation {
                service: Some(table.service),
                operation: id.clone(),
            })?;
            let invalid = |reason: String| ConfigError::InvalidRoute {
                operation: op.id.to_owned(),
                reason,
            };
            let template = RouteTemplate::parse(template).map_err(invalid)?;
            let default = RouteTemplate::parse(op.path).map_err(invalid)?;
            if !template.same_params(&default) {
                return Err(invalid(format!(
                    "template `{template}` has parameters {:?}, the operation has {:?}",
                    template.params(),
                    default.params()
                )));
            }
            // The documents state the method of a route they show: only a route
            // the YAML assumes may be sent with another (a DELETE in place of
            // a GET would be another operation, under the first's name).
            if *method != op.method && !op.route_assumed {
                return Err(invalid(format!(
                    "the documents give it the method {}, not {method}; only a route the YAML assumes may change its method",
                    op.method
                )));
            }
            let route = Route {
                method: *method,
                template,
            };
            if by_operation.insert(op.id, route).is_some() {
                return Err(ConfigError::DuplicateRoute {
                    operation: op.id.to_owned(),
                });
            }
        }
        Ok(Self { by_operation })
    }

    /// The method and template operation `id` is sent with instead of its own, if overridden
    /// (no lookup when there are none, the usual case: `HashMap::get` hashes nothing in an empty map).
    pub fn of(&self, id: &str) -> Option<(Method, &str)> {
        let route = self.by_operation.get(id)?;
        Some((route.method, route.template.as_str()))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_operation.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled_with_encoded_values_in_any_order() {
        let values = [
            ("poster-id", Value::from("p-1")),
            ("content-name", Value::from("my film")),
            ("n", Value::from(7)),
        ];
        let mut out = String::from("/base");
        fill("/v1/posters/{poster-id}/of/{content-name}/{n}", &values, &mut out).unwrap();
        assert_eq!(out, "/base/v1/posters/p-1/of/my%20film/7");
        let to = RouteTemplate::parse("/v1/posters/{poster-id}/of/{content-name}").unwrap();
        let from = RouteTemplate::parse("/v1/contents/{content-name}/posters/{poster-id}").unwrap();
        assert!(from.same_params(&to));
        assert_eq!(to.to_string(), "/v1/posters/{poster-id}/of/{content-name}");
        assert_eq!(fill("/v1/tasks/{task-id}", &[], &mut String::new()), Err("task-id"));
    }

    #[test]
    fn a_path_value_is_one_segment_of_data_whatever_it_holds() {
        for (value, encoded) in [
            ("movie.mp4", "movie.mp4"),
            ("a b/c", "a%20b%2Fc"),
            (r"..\..\echo", "..%5C..%5Cecho"),
            ("%2e%2e", "%252e%252e"),
            ("a?b#c", "a%3Fb%23c"),
            ("日本", "%E6%97%A5%E6%9C%AC"),
        ] {
            let mut out = String::new();
            fill("{v}", &[("v", Value::from(value))], &mut out).unwrap();
            assert_eq!(out, encoded, "{value}");
        }
    }

    #[test]
    fn rejects_mismatches_and_malformed_templates() {
        let t = RouteTemplate::parse("/v1/tasks/{task-id}").unwrap();
        assert!(!t.same_params(&RouteTemplate::parse("/v1/tasks/{id}").unwrap()));
        assert!(RouteTemplate::parse("v1/tasks").is_err());
        assert!(RouteTemplate::parse("/v1/tasks/{}").is_err());
        assert!(RouteTemplate::parse("/v1/tasks/x{id}").is_err());
    }
}
