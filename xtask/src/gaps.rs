//! GAPS.md: every `x-gap` and `x-route-assumed` of the YAML, grouped by
//! service and by the operation or schema it applies to.

use crate::services::{operations, repo_root, HTTP_METHODS, SERVICES};
use anyhow::{bail, Result};
use serde_json::Value;
use std::fmt::Write as _;

pub fn run(check: bool) -> Result<()> {
    let rendered = render()?;
    let path = repo_root().join("GAPS.md");
    if check {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != rendered {
            bail!("GAPS.md is stale: run `cargo xtask gaps`");
        }
        println!("GAPS.md is up to date");
    } else {
        std::fs::write(&path, rendered)?;
        println!("wrote GAPS.md");
    }
    Ok(())
}

/// One recorded gap: where it applies (a path of keys from the document root) and what it says.
#[derive(Debug, PartialEq)]
pub struct Gap {
    pub at: Vec<String>,
    pub texts: Vec<String>,
}

pub fn collect(spec: &Value) -> Vec<Gap> {
    let mut gaps = Vec::new();
    walk(spec, &mut Vec::new(), &mut gaps);
    gaps
}

fn walk(value: &Value, at: &mut Vec<String>, gaps: &mut Vec<Gap>) {
    match value {
        Value::Object(map) => {
            let texts: Vec<String> = match map.get("x-gap") {
                Some(Value::String(text)) => vec![text.clone()],
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                _ => Vec::new(),
            };
            if !texts.is_empty() {
                gaps.push(Gap { at: at.clone(), texts });
            }
            for (key, child) in map {
                at.push(key.clone());
                walk(child, at, gaps);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                at.push(index.to_string());
                walk(child, at, gaps);
                at.pop();
            }
        }
        _ => {}
    }
}

/// A readable name for the place a gap applies, inside its operation or component.
fn describe(spec: &Value, at: &[String]) -> String {
    let mut node = spec;
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < at.len() {
        let key = &at[i];
        node = match node {
            Value::Array(items) => key
                .parse::<usize>()
                .ok()
                .and_then(|n| items.get(n))
                .unwrap_or(&Value::Null),
            _ => &node[key.as_str()],
        };
        match key.as_str() {
            "properties" | "parameters" | "schemas" | "responses" | "content" | "headers" => {
                if let Some(name) = at.get(i + 1) {
                    node = match node {
                        Value::Array(items) => name
                            .parse::<usize>()
                            .ok()
                            .and_then(|n| items.get(n))
                            .unwrap_or(&Value::Null),
                        _ => &node[name.as_str()],
                    };
                    let label = match key.as_str() {
                        "parameters" => match node["name"].as_str() {
                            Some(param) if name.parse::<usize>().is_err() => format!("parameter `{param}` ({name})"),
                            Some(param) => format!("parameter `{param}`"),
                            None => format!("parameter {}", node["$ref"].as_str().unwrap_or(name)),
                        },
                        "responses" => format!("response {name}"),
                        "headers" => format!("header `{name}`"),
                        "content" => format!("body {name}"),
                        _ => format!("`{name}`"),
                    };
                    parts.push(label);
                    i += 2;
                    continue;
                }
            }
            "tags" | "servers" => {
                if let Some(index) = at.get(i + 1) {
                    let element = index
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| node.get(n))
                        .unwrap_or(&Value::Null);
                    let label = element["name"].as_str().or(element["url"].as_str()).unwrap_or(index);
                    parts.push(format!("{} `{label}`", if key == "tags" { "tag" } else { "server" }));
                    node = element;
                    i += 2;
                    continue;
                }
            }
            "items" => parts.push("items".into()),
            "requestBody" => parts.push("request body".into()),
            "additionalProperties" => parts.push("other members".into()),
            "allOf" | "oneOf" | "anyOf" | "schema" => {
                if key != "schema" {
                    i += 1; // skip the index: the member is described by what follows
                }
            }
            _ => parts.push(key.clone()),
        }
        i += 1;
    }
    parts.join(" → ")
}

pub fn render() -> Result<String> {
    let mut out = String::new();
    let mut sections = String::new();
    let (mut total, mut total_routes) = (0, 0);
    for service in &SERVICES {
        let spec = service.load()?;
        let gaps = collect(&spec);
        let mut section = String::new();
        writeln!(section, "## {}\n", service.title)?;
        writeln!(
            section,
            "Source: `openapi/{}.yaml` (document `{}`, version {}).\n",
            service.name,
            service.document,
            spec["info"]["version"].as_str().unwrap_or("?")
        )?;

        let wide: Vec<&Gap> = gaps
            .iter()
            .filter(|g| g.at.first().is_none_or(|k| k != "paths" && k != "components"))
            .collect();
        if !wide.is_empty() {
            writeln!(section, "### Service-wide\n")?;
            for gap in wide {
                write_gap(&mut section, &describe(&spec, &gap.at), gap)?;
            }
            writeln!(section)?;
        }

        let mut routes = 0;
        writeln!(section, "### Operations\n")?;
        for (path, method, op) in operations(&spec) {
            let prefix = ["paths".to_string(), path.clone(), method.to_lowercase()];
            let op_gaps: Vec<&Gap> = gaps.iter().filter(|g| g.at.starts_with(&prefix)).collect();
            let assumed = op["x-route-assumed"].as_bool() == Some(true);
            if op_gaps.is_empty() && !assumed {
                continue;
            }
            routes += usize::from(assumed);
            writeln!(
                section,
                "#### `{}`: {}, `{method} {path}`{}\n",
                op["operationId"].as_str().unwrap_or("?"),
                op["summary"].as_str().unwrap_or("?"),
                if assumed {
                    " (route assumed: override it with `Client::builder().route(..)`)"
                } else {
                    ""
                }
            )?;
            for gap in op_gaps {
                write_gap(
                    &mut section,
                    &describe(&spec["paths"][&path][method.to_lowercase()], &gap.at[3..]),
                    gap,
                )?;
            }
            writeln!(section)?;
        }
        let component_gaps: Vec<&Gap> = gaps
            .iter()
            .filter(|g| g.at.first().is_some_and(|k| k == "components"))
            .collect();
        if !component_gaps.is_empty() {
            writeln!(section, "### Schemas, parameters and responses\n")?;
            for gap in component_gaps {
                write_gap(&mut section, &describe(&spec["components"], &gap.at[1..]), gap)?;
            }
            writeln!(section)?;
        }
        // Gaps on path-level members shared by every method of a path.
        for gap in gaps
            .iter()
            .filter(|g| g.at.len() > 2 && g.at[0] == "paths" && !HTTP_METHODS.contains(&g.at[2].as_str()))
        {
            write_gap(
                &mut section,
                &format!(
                    "path `{}` → {}",
                    gap.at[1],
                    describe(&spec["paths"][&gap.at[1]], &gap.at[2..])
                ),
                gap,
            )?;
        }
        let count: usize = gaps.iter().map(|g| g.texts.len()).sum();
        writeln!(out, "| {} | {} | {} |", service.title, count, routes)?;
        total += count;
        total_routes += routes;
        sections.push_str(&section);
    }
    let mut doc = String::new();
    writeln!(doc, "# What the documents leave open\n")?;
    writeln!(
        doc,
        "<!-- Generated by `cargo xtask gaps` from openapi/*.yaml: edit the YAML's `x-gap` and `x-route-assumed`, never this file. -->\n"
    )?;
    writeln!(
        doc,
        "The three documents say \"not shown\" (or leave a choice open) in many places. Each such place is recorded in the YAML \
         as an `x-gap` beside the thing it applies to, with the choice made; operations whose route was chosen carry \
         `x-route-assumed: true`, and every such route can be overridden at run time. This file lists them all.\n"
    )?;
    writeln!(doc, "| Service | Gaps | Assumed routes |\n|---|---|---|")?;
    doc.push_str(&out);
    writeln!(doc, "| **Total** | **{total}** | **{total_routes}** |\n")?;
    doc.push_str(&sections);
    Ok(doc.trim_end().to_string() + "\n")
}

fn write_gap(out: &mut String, place: &str, gap: &Gap) -> std::fmt::Result {
    for text in &gap.texts {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if place.is_empty() {
            writeln!(out, "- {text}")?;
        } else {
            writeln!(out, "- {place}: {text}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_strings_and_lists_with_their_place() {
        let spec = json!({
            "info": {"x-gap": "host not shown"},
            "paths": {"/v1/tasks": {"post": {"operationId": "register_task", "x-route-assumed": true,
                "x-gap": ["route not shown", "status not shown"],
                "parameters": [{"name": "page", "x-gap": "bound not shown"}]}}},
            "components": {"schemas": {"Task": {"properties": {"trim": {"x-gap": "members not shown"}}}}}
        });
        let gaps = collect(&spec);
        assert_eq!(gaps.len(), 4);
        assert_eq!(
            gaps[0],
            Gap {
                at: vec![
                    "components".into(),
                    "schemas".into(),
                    "Task".into(),
                    "properties".into(),
                    "trim".into()
                ],
                texts: vec!["members not shown".into()]
            }
        );
        assert_eq!(describe(&spec["components"], &gaps[0].at[1..]), "`Task` → `trim`");
        let op = &spec["paths"]["/v1/tasks"]["post"];
        let param = gaps
            .iter()
            .find(|g| g.texts == ["bound not shown"])
            .expect("parameter gap");
        assert_eq!(describe(op, &param.at[3..]), "parameter `page`");
    }
}
