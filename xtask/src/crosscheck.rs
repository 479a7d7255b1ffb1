//! `cargo xtask crosscheck [--docs DIR]`: the YAML against what the documents
//! state. The facts live in `openapi/documented.yaml` (reviewed data, in the
//! repository), so the check runs on any machine; with `--docs`, the facts file
//! is checked against the documents themselves too.

use crate::bounds::{self, Bound};
use crate::services::{operations, repo_root, Service, SERVICES};
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// `openapi/documented.yaml`: one entry per service.
pub type Facts = BTreeMap<String, ServiceFacts>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceFacts {
    /// The file name of the document, under the documents' directory.
    pub document: String,
    pub versions: Vec<Sourced<String>>,
    /// The first column of the document's Endpoints tables, in order.
    pub operations: Vec<String>,
    /// Every code of the Errors table; a status only where the document pairs them.
    pub errors: BTreeMap<String, ErrorFacts>,
    #[serde(default)]
    pub bounds: Vec<BoundFact>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorFacts {
    pub status: Option<u16>,
    pub source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundFact {
    pub operations: Vec<String>,
    pub at: String,
    pub rule: String,
    pub source: String,
    /// How the source's words become the rule, where the rule is not them verbatim.
    #[serde(default)]
    pub reading: Option<String>,
}

pub fn facts_path() -> std::path::PathBuf {
    repo_root().join("openapi").join("documented.yaml")
}

pub fn load_facts() -> Result<Facts> {
    let path = facts_path();
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// `docs`: the documents' directory, when the facts are to be checked against them too.
pub fn run(docs: Option<&Path>) -> Result<()> {
    let facts = load_facts()?;
    let mut problems = Vec::new();
    for service in &SERVICES {
        let facts = facts
            .get(service.name)
            .with_context(|| format!("openapi/documented.yaml has no `{}`", service.name))?;
        let spec = service.load()?;
        let found = yaml_against_facts(facts, &spec);
        println!(
            "crosscheck {}: YAML against openapi/documented.yaml: {} operation names, {} error codes, {} bounds",
            service.name,
            facts.operations.len(),
            facts.errors.len(),
            facts.bounds.len()
        );
        problems.extend(found.into_iter().map(|p| format!("{}: {p}", service.name)));
        if let Some(dir) = docs {
            let path = dir.join(&facts.document);
            let document = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let found = facts_against_document(service, facts, &document);
            println!(
                "crosscheck {}: openapi/documented.yaml against {}",
                service.name,
                path.display()
            );
            problems.extend(found.into_iter().map(|p| format!("{}: {p}", service.name)));
        }
    }
    if !problems.is_empty() {
        bail!(
            "the cross-check found {} problem(s):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    if docs.is_none() {
        println!("crosscheck: the facts file itself was not compared with the documents (pass --docs DIR)");
    }
    Ok(())
}

/// What the YAML misses or contradicts of the facts.
pub fn yaml_against_facts(facts: &ServiceFacts, spec: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let ops = operations(spec);

    let mut summaries: BTreeMap<&str, usize> = BTreeMap::new();
    // An alias (`x-aliases`) is a documented operation served by another one's request.
    for (_, _, op) in &ops {
        let aliases = op["x-aliases"].as_array().into_iter().flatten();
        for summary in std::iter::once(&op["summary"]).chain(aliases.map(|a| &a["summary"])) {
            if let Some(summary) = summary.as_str() {
                *summaries.entry(summary).or_default() += 1;
            }
        }
    }
    let mut wanted: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &facts.operations {
        *wanted.entry(name.as_str()).or_default() += 1;
    }
    for (name, count) in &wanted {
        let have = summaries.get(name).copied().unwrap_or(0);
        if have < *count {
            problems.push(format!(
                "operation \"{name}\" is documented {count} time(s), a summary {have} time(s)"
            ));
        }
    }

    let error_code = &spec["components"]["schemas"]["ErrorCode"];
    let known: Vec<&str> = error_code["x-extensible-enum"]
        .as_array()
        .map(|values| values.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for code in facts.errors.keys() {
        if !known.contains(&code.as_str()) {
            problems.push(format!("error code {code} is not in ErrorCode"));
        }
    }
    let documented: BTreeMap<&str, u64> = facts
        .errors
        .iter()
        .filter_map(|(code, e)| e.status.map(|s| (code.as_str(), u64::from(s))))
        .collect();
    let declared: BTreeMap<&str, u64> = error_code["x-statuses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(code, status)| (code.as_str(), status.as_u64().unwrap_or(0)))
        .collect();
    if documented != declared {
        problems.push(format!(
            "ErrorCode.x-statuses is {declared:?}; the document pairs exactly {documented:?}"
        ));
    }

    let document_versions: Vec<&str> = std::iter::once(&spec["info"]["version"])
        .chain(
            spec["info"]["x-document-versions"]
                .as_object()
                .into_iter()
                .flat_map(|m| m.values()),
        )
        .filter_map(Value::as_str)
        .collect();
    for version in &facts.versions {
        if !document_versions.contains(&version.value.as_str()) {
            problems.push(format!(
                "document version {} is neither info.version nor in info.x-document-versions",
                version.value
            ));
        }
    }

    for fact in &facts.bounds {
        if fact.reading.as_deref().is_some_and(|r| r.trim().is_empty()) {
            problems.push(format!("documented.yaml: {} {}: an empty reading", fact.at, fact.rule));
        }
        let rule = match parse_rule(&fact.rule) {
            Ok(rule) => rule,
            Err(e) => {
                problems.push(format!("documented.yaml: {e}"));
                continue;
            }
        };
        for selector in &fact.operations {
            let selected = select(spec, &ops, selector, &fact.at);
            if selected.is_empty() {
                problems.push(format!(
                    "no operation matches \"{selector}\" (for {} {})",
                    fact.at, fact.rule
                ));
            }
            for (path, method, op) in selected {
                let carried = bounds::of_operation(spec, path, op);
                if !carried.iter().any(|(at, bound)| *at == fact.at && *bound == rule) {
                    let name = op["operationId"].as_str().unwrap_or("?");
                    problems.push(format!(
                        "{name} ({method} {path}): `{}` lacks the documented {} (\"{}\")",
                        fact.at, fact.rule, fact.source
                    ));
                }
            }
        }
    }
    problems
}

/// The operations a bound fact names: `Name`, `Name @ /prefix`, or `* @ /prefix`
/// (every operation under the prefix that has the query parameter `at` names).
fn select<'s>(
    spec: &Value,
    ops: &'s [(String, String, &'s Value)],
    selector: &str,
    at: &str,
) -> Vec<(&'s str, &'s str, &'s Value)> {
    let (name, prefix) = match selector.split_once(" @ ") {
        Some((name, prefix)) => (name.trim(), prefix.trim()),
        None => (selector.trim(), "/"),
    };
    ops.iter()
        .filter(|(path, _, op)| path.starts_with(prefix) && (name == "*" || op["summary"] == name))
        .filter(|(path, _, op)| name != "*" || has_query_parameter(spec, path, op, at))
        .map(|(path, method, op)| (path.as_str(), method.as_str(), *op))
        .collect()
}

fn has_query_parameter(spec: &Value, path: &str, op: &Value, at: &str) -> bool {
    let Some(wanted) = at.strip_prefix("query.") else {
        return false;
    };
    spec["paths"][path]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(op["parameters"].as_array().into_iter().flatten())
        .map(|p| bounds::resolve(spec, p))
        .any(|p| p["in"] == "query" && p["name"] == wanted)
}

pub fn parse_rule(text: &str) -> Result<Bound> {
    let (keyword, argument) = match text.split_once(' ') {
        Some((k, a)) => (k, Some(a.trim())),
        None => (text, None),
    };
    let number = || -> Result<f64> {
        argument
            .with_context(|| format!("`{text}` needs a number"))?
            .parse()
            .with_context(|| format!("`{text}`: not a number"))
    };
    let count = || -> Result<u64> {
        argument
            .with_context(|| format!("`{text}` needs a count"))?
            .parse()
            .with_context(|| format!("`{text}`: not a count"))
    };
    Ok(match keyword {
        "minimum" => Bound::Minimum(number()?),
        "maximum" => Bound::Maximum(number()?),
        "minLength" => Bound::MinLength(count()?),
        "maxLength" => Bound::MaxLength(count()?),
        "minItems" => Bound::MinItems(count()?),
        "maxItems" => Bound::MaxItems(count()?),
        "uniqueItems" if argument.is_none() => Bound::UniqueItems,
        "pattern" => Bound::Pattern(
            argument
                .with_context(|| format!("`{text}` needs a pattern"))?
                .to_owned(),
        ),
        _ => bail!("unknown rule `{text}`"),
    })
}

/// What the facts file says that the document does not.
pub fn facts_against_document(service: &Service, facts: &ServiceFacts, document: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let names = table_column(document, "Endpoints", "Operation");
    if names != facts.operations {
        problems.push(format!(
            "documented.yaml operations differ from the Endpoints tables of {}:\n    documented.yaml: {:?}\n    document:        {names:?}",
            service.document, facts.operations
        ));
    }
    let mut codes = table_column(document, "Errors", "Code");
    codes.sort_unstable();
    codes.dedup();
    let listed: Vec<&String> = facts.errors.keys().collect();
    if codes.iter().collect::<Vec<_>>() != listed {
        problems.push(format!(
            "documented.yaml errors differ from the Errors table: {listed:?} against {codes:?}"
        ));
    }
    let folded_document = fold_space(document);
    let mut sources: Vec<(String, &str)> = facts
        .versions
        .iter()
        .map(|v| (format!("version {}", v.value), v.source.as_str()))
        .collect();
    for (code, error) in &facts.errors {
        match (error.status, &error.source) {
            (Some(_), Some(source)) => sources.push((format!("error {code}"), source)),
            (None, None) => {}
            _ => problems.push(format!(
                "documented.yaml: error {code} needs both a status and its source"
            )),
        }
    }
    for bound in &facts.bounds {
        sources.push((format!("{} {}", bound.at, bound.rule), &bound.source));
    }
    for (what, source) in sources {
        if !folded_document.contains(&fold_space(source)) {
            problems.push(format!(
                "documented.yaml: the source of {what} is not text of {}: \"{source}\"",
                service.document
            ));
        }
    }
    problems
}

fn fold_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first column of every table, within the `## <section>` of a Markdown
/// document, whose first header cell is `first_header`.
pub fn table_column(document: &str, section: &str, first_header: &str) -> Vec<String> {
    let mut in_section = false;
    let mut in_table = false;
    let mut column = Vec::new();
    for line in document.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = heading.trim() == section;
            in_table = false;
            continue;
        }
        if !in_section {
            continue;
        }
        let cells = table_cells(line);
        match cells.first() {
            None => in_table = false,
            Some(first) if !in_table => in_table = *first == first_header,
            Some(first) if first.chars().all(|c| c == '-' || c == ':') => {}
            Some(first) => column.push(first.to_string()),
        }
    }
    column
}

fn table_cells(line: &str) -> Vec<&str> {
    let line = line.trim();
    if !line.starts_with('|') {
        return Vec::new();
    }
    line.trim_matches('|').split('|').map(str::trim).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOC: &str = "# Title\n\nThe document version is 1.0.0.\n\n## Endpoints\n\n| Operation | Path |\n|---|---|\n| List things | GET /v1/things |\n| by OS | GET /v1/os |\n\nText.\n\n| Operation | Path |\n|---|---|\n| by OS | GET /v2/os |\n\n| Parameter | Rule |\n|---|---|\n| page | >= 1 |\n\n## Errors\n\nA bad key returns 401 (A_CODE).\n\n| Code | Cause |\n|---|---|\n| A_CODE | x |\n| B_CODE | y |\n| A_CODE | z |\n\n## Limits\n\n| Code | Value |\n|---|---|\n| NOT_AN_ERROR | 3 |\n";

    fn facts(text: &str) -> ServiceFacts {
        serde_yaml::from_str(text).unwrap()
    }

    const FACTS: &str = "
document: doc.md
versions: [{value: 1.0.0, source: The document version is 1.0.0.}]
operations: [List things, by OS, by OS]
errors:
  A_CODE: {status: 401, source: A bad key returns 401 (A_CODE).}
  B_CODE: {}
bounds:
  - {operations: [List things], at: query.page, rule: minimum 1, source: '| page | >= 1 |'}
  - {operations: ['* @ /v2'], at: query.limit, rule: maximum 5, source: '| page | >= 1 |'}
";

    fn spec() -> Value {
        json!({
            "info": {"version": "1.0.0"},
            "paths": {
                "/v1/things": {"get": {"summary": "List things", "operationId": "list_things",
                    "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}}]}},
                "/v1/os": {"get": {"summary": "by OS"}},
                "/v2/os": {"get": {"summary": "by OS", "operationId": "cloud_os",
                    "parameters": [{"$ref": "#/components/parameters/Limit"}]}},
                "/v2/none": {"get": {"summary": "no limit here"}}
            },
            "components": {
                "parameters": {"Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 5}}},
                "schemas": {"ErrorCode": {"x-extensible-enum": ["A_CODE", "B_CODE", "EXTRA"], "x-statuses": {"A_CODE": 401}}}
            }
        })
    }

    #[test]
    fn reads_only_the_named_section_and_first_header() {
        assert_eq!(
            table_column(DOC, "Endpoints", "Operation"),
            ["List things", "by OS", "by OS"]
        );
        assert_eq!(table_column(DOC, "Errors", "Code"), ["A_CODE", "B_CODE", "A_CODE"]);
    }

    #[test]
    fn a_complete_yaml_and_true_facts_have_no_problems() {
        let facts = facts(FACTS);
        assert_eq!(yaml_against_facts(&facts, &spec()), Vec::<String>::new());
        assert_eq!(facts_against_document(&SERVICES[0], &facts, DOC), Vec::<String>::new());
    }

    #[test]
    fn reports_what_the_yaml_misses() {
        let mut spec = spec();
        spec["paths"]["/v1/os"] = json!({});
        spec["paths"]["/v1/things"]["get"]["parameters"][0]["schema"]["minimum"] = json!(0);
        spec["components"]["parameters"]["Limit"]["schema"] = json!({"type": "integer"});
        spec["components"]["schemas"]["ErrorCode"] = json!({"x-extensible-enum": ["A_CODE"]});
        spec["info"]["version"] = json!("2.0.0");
        assert_eq!(
            yaml_against_facts(&facts(FACTS), &spec),
            [
                "operation \"by OS\" is documented 2 time(s), a summary 1 time(s)",
                "error code B_CODE is not in ErrorCode",
                "ErrorCode.x-statuses is {}; the document pairs exactly {\"A_CODE\": 401}",
                "document version 1.0.0 is neither info.version nor in info.x-document-versions",
                "list_things (GET /v1/things): `query.page` lacks the documented minimum 1 (\"| page | >= 1 |\")",
                "cloud_os (GET /v2/os): `query.limit` lacks the documented maximum 5 (\"| page | >= 1 |\")",
            ]
        );
    }

    #[test]
    fn reports_facts_the_document_does_not_state() {
        let wrong = FACTS
            .replace("[List things, by OS, by OS]", "[List things, by OS]")
            .replace("B_CODE: {}", "C_CODE: {}")
            .replace("source: '| page | >= 1 |'}\n  - ", "source: '| page | >= 2 |'}\n  - ");
        let problems = facts_against_document(&SERVICES[0], &facts(&wrong), DOC);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].starts_with("documented.yaml operations differ"));
        assert!(problems[1].starts_with("documented.yaml errors differ"));
        assert_eq!(
            problems[2],
            "documented.yaml: the source of query.page minimum 1 is not text of 1-encoding-service.md: \"| page | >= 2 |\""
        );
    }

    #[test]
    fn rules_parse_and_unknown_ones_are_refused() {
        assert_eq!(parse_rule("maxLength 70").unwrap(), Bound::MaxLength(70));
        assert_eq!(parse_rule("minimum -731").unwrap(), Bound::Minimum(-731.0));
        assert_eq!(parse_rule("uniqueItems").unwrap(), Bound::UniqueItems);
        assert_eq!(
            parse_rule("pattern ^[a-z]+$").unwrap(),
            Bound::Pattern("^[a-z]+$".into())
        );
        assert!(parse_rule("maxFoo 3").is_err());
        assert!(parse_rule("maxLength many").is_err());
    }
}
