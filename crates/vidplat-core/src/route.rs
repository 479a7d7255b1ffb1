//! Route overrides: an operation sent with another method and path template
//! than the YAML's (for operations whose route the documents do not show).

use crate::table::Method;
use std::fmt;

/// A path template such as `/v1/tasks/{task-id}`, split into literal and parameter segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteTemplate {
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param(String),
}

impl RouteTemplate {
    /// Parses a template; `{name}` segments are parameters.
    pub fn parse(template: &str) -> Result<Self, String> {
        let rest = template
            .strip_prefix('/')
            .ok_or_else(|| format!("route template `{template}` must start with `/`"))?;
        let mut segments = Vec::new();
        for part in rest.split('/') {
            if let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                if name.is_empty() || name.contains(['{', '}']) {
                    return Err(format!(
                        "route template `{template}` has a malformed parameter `{part}`"
                    ));
                }
                segments.push(Segment::Param(name.to_owned()));
            } else if part.contains(['{', '}']) {
                return Err(format!(
                    "route template `{template}`: a parameter must fill a whole segment (`{part}`)"
                ));
            } else {
                segments.push(Segment::Literal(part.to_owned()));
            }
        }
        Ok(Self { segments })
    }

    /// Parameter names, in order.
    pub fn params(&self) -> Vec<&str> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Param(name) => Some(name.as_str()),
                Segment::Literal(_) => None,
            })
            .collect()
    }

    /// Same parameter names, in any order.
    pub fn same_params(&self, other: &RouteTemplate) -> bool {
        let mut mine = self.params();
        let mut theirs = other.params();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs
    }

    /// Reads the (still percent-encoded) parameter values out of a concrete path.
    pub fn capture<'p>(&self, path: &'p str) -> Option<Vec<(&str, &'p str)>> {
        let parts: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut values = Vec::new();
        for (segment, part) in self.segments.iter().zip(parts) {
            match segment {
                Segment::Literal(literal) if literal == part => {}
                Segment::Literal(_) => return None,
                Segment::Param(name) => values.push((name.as_str(), part)),
            }
        }
        Some(values)
    }

    /// Writes a concrete path from captured values (already percent-encoded).
    pub fn render(&self, values: &[(&str, &str)]) -> Option<String> {
        let mut path = String::new();
        for segment in &self.segments {
            path.push('/');
            match segment {
                Segment::Literal(literal) => path.push_str(literal),
                Segment::Param(name) => path.push_str(values.iter().find(|(n, _)| n == name)?.1),
            }
        }
        Some(path)
    }
}

impl fmt::Display for RouteTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.segments {
            match segment {
                Segment::Literal(literal) => write!(f, "/{literal}")?,
                Segment::Param(name) => write!(f, "/{{{name}}}")?,
            }
        }
        Ok(())
    }
}

/// Where an overridden operation is sent instead of the YAML's route.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    pub(crate) method: Method,
    pub(crate) template: RouteTemplate,
    /// The YAML's template, whose parameters are read from the request's path.
    pub(crate) default: RouteTemplate,
}

impl Route {
    /// The override's path for a concrete `relative` path of the YAML's route,
    /// or `None` when the path does not match that route.
    pub(crate) fn rewrite(&self, relative: &str) -> Option<String> {
        let values = self.default.capture(relative)?;
        self.template.render(&values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_and_renders_into_another_template() {
        let from = RouteTemplate::parse("/v1/contents/{content-name}/posters/{poster-id}").unwrap();
        let to = RouteTemplate::parse("/v1/posters/{poster-id}/of/{content-name}").unwrap();
        assert!(from.same_params(&to));
        let values = from.capture("/v1/contents/my%20film/posters/p-1").unwrap();
        assert_eq!(values, [("content-name", "my%20film"), ("poster-id", "p-1")]);
        assert_eq!(to.render(&values).unwrap(), "/v1/posters/p-1/of/my%20film");
        assert_eq!(to.to_string(), "/v1/posters/{poster-id}/of/{content-name}");
    }

    #[test]
    fn rejects_mismatches_and_malformed_templates() {
        let t = RouteTemplate::parse("/v1/tasks/{task-id}").unwrap();
        assert_eq!(t.capture("/v1/tasks"), None);
        assert_eq!(t.capture("/v1/presets/3"), None);
        assert!(!t.same_params(&RouteTemplate::parse("/v1/tasks/{id}").unwrap()));
        assert!(RouteTemplate::parse("v1/tasks").is_err());
        assert!(RouteTemplate::parse("/v1/tasks/{}").is_err());
        assert!(RouteTemplate::parse("/v1/tasks/x{id}").is_err());
    }
}
