//! Routes: the path template an operation is sent to, filled with its
//! encoded path values, and the overrides that send an operation elsewhere
//! (for operations whose route the documents do not show).

use crate::config::ConfigError;
use crate::table::{Method, ServiceTable};
use std::collections::HashMap;
use std::fmt;

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
/// `values` (already encoded as one segment). `Err` names a parameter that
/// has no value.
pub(crate) fn fill<'t>(template: &'t str, values: &[(&str, String)], out: &mut String) -> Result<(), &'t str> {
    for (index, part) in template.split('/').enumerate() {
        if index > 0 {
            out.push('/');
        }
        match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
            Some(name) => out.push_str(&values.iter().find(|(n, _)| *n == name).ok_or(name)?.1),
            None => out.push_str(part),
        }
    }
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
/// operation's path parameters, and no operation is overridden twice.
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

    /// The override of operation `id`, if any (no lookup when there are none, the usual case).
    pub(crate) fn get(&self, id: &str) -> Option<&Route> {
        if self.by_operation.is_empty() {
            return None;
        }
        self.by_operation.get(id)
    }

    /// The method and template operation `id` is sent with instead of its own, if overridden.
    pub fn of(&self, id: &str) -> Option<(Method, &str)> {
        self.get(id).map(|route| (route.method, route.template.as_str()))
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
            ("poster-id", "p-1".to_owned()),
            ("content-name", "my%20film".to_owned()),
        ];
        let mut out = String::from("/base");
        fill("/v1/posters/{poster-id}/of/{content-name}", &values, &mut out).unwrap();
        assert_eq!(out, "/base/v1/posters/p-1/of/my%20film");
        let to = RouteTemplate::parse("/v1/posters/{poster-id}/of/{content-name}").unwrap();
        let from = RouteTemplate::parse("/v1/contents/{content-name}/posters/{poster-id}").unwrap();
        assert!(from.same_params(&to));
        assert_eq!(to.to_string(), "/v1/posters/{poster-id}/of/{content-name}");
        assert_eq!(fill("/v1/tasks/{task-id}", &[], &mut String::new()), Err("task-id"));
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
