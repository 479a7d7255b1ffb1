//! Cross-check of the YAML against the documents: every operation name of an
//! Endpoints table must be some operation's `summary`, and every code of the
//! Errors table must be listed in `ErrorCode`.

use crate::services::{operations, SERVICES};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::collections::BTreeMap;

pub fn run() -> Result<()> {
    let mut problems = Vec::new();
    for service in &SERVICES {
        let document = std::fs::read_to_string(service.document_path())
            .with_context(|| format!("reading {}", service.document_path().display()))?;
        let spec = service.load()?;
        let found = compare(&document, &spec);
        println!(
            "crosscheck {}: {} operation names and {} error codes in {}",
            service.name, found.operation_names, found.error_codes, service.document
        );
        problems.extend(found.problems.into_iter().map(|p| format!("{}: {p}", service.name)));
    }
    if !problems.is_empty() {
        bail!("the YAML misses what the documents list:\n  {}", problems.join("\n  "));
    }
    Ok(())
}

pub struct Comparison {
    pub operation_names: usize,
    pub error_codes: usize,
    pub problems: Vec<String>,
}

pub fn compare(document: &str, spec: &Value) -> Comparison {
    let wanted_names = table_column(document, "Endpoints", "Operation");
    let wanted_codes = table_column(document, "Errors", "Code");

    let mut summaries: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, _, op) in operations(spec) {
        if let Some(summary) = op["summary"].as_str() {
            *summaries.entry(summary).or_default() += 1;
        }
    }
    let mut wanted_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in &wanted_names {
        *wanted_counts.entry(name.as_str()).or_default() += 1;
    }

    let mut problems = Vec::new();
    for (name, wanted) in &wanted_counts {
        let have = summaries.get(name).copied().unwrap_or(0);
        if have < *wanted {
            problems.push(format!(
                "operation \"{name}\" appears {wanted} time(s) in the document, {have} time(s) as a summary"
            ));
        }
    }
    let known_codes: Vec<&str> = spec["components"]["schemas"]["ErrorCode"]["x-extensible-enum"]
        .as_array()
        .map(|values| values.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut distinct_codes: Vec<&str> = wanted_codes.iter().map(String::as_str).collect();
    distinct_codes.sort_unstable();
    distinct_codes.dedup();
    for code in &distinct_codes {
        if !known_codes.contains(code) {
            problems.push(format!("error code {code} is not in ErrorCode"));
        }
    }
    Comparison {
        operation_names: wanted_names.len(),
        error_codes: distinct_codes.len(),
        problems,
    }
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

    const DOC: &str = "# Title\n\n## Endpoints\n\n| Operation | Path |\n|---|---|\n| List things | GET /v1/things |\n| by OS | GET /v1/os |\n\nText.\n\n| Operation | Path |\n|---|---|\n| by OS | GET /v2/os |\n\n| Parameter | Rule |\n|---|---|\n| page | >= 1 |\n\n## Errors\n\n| Code | Cause |\n|---|---|\n| A_CODE | x |\n| B_CODE | y |\n| A_CODE | z |\n\n## Limits\n\n| Code | Value |\n|---|---|\n| NOT_AN_ERROR | 3 |\n";

    #[test]
    fn reads_only_the_named_section_and_first_header() {
        assert_eq!(
            table_column(DOC, "Endpoints", "Operation"),
            ["List things", "by OS", "by OS"]
        );
        assert_eq!(table_column(DOC, "Errors", "Code"), ["A_CODE", "B_CODE", "A_CODE"]);
    }

    #[test]
    fn reports_missing_names_counts_and_codes() {
        let spec = json!({
            "paths": {"/v1/things": {"get": {"summary": "List things"}}, "/v1/os": {"get": {"summary": "by OS"}}},
            "components": {"schemas": {"ErrorCode": {"x-extensible-enum": ["A_CODE"]}}}
        });
        let found = compare(DOC, &spec);
        assert_eq!(found.operation_names, 3);
        assert_eq!(found.error_codes, 2);
        assert_eq!(
            found.problems,
            [
                "operation \"by OS\" appears 2 time(s) in the document, 1 time(s) as a summary",
                "error code B_CODE is not in ErrorCode"
            ]
        );
    }

    #[test]
    fn complete_spec_has_no_problems() {
        let spec = json!({
            "paths": {"/a": {"get": {"summary": "List things"}, "post": {"summary": "by OS"}}, "/b": {"get": {"summary": "by OS"}}},
            "components": {"schemas": {"ErrorCode": {"x-extensible-enum": ["A_CODE", "B_CODE", "EXTRA"]}}}
        });
        assert!(compare(DOC, &spec).problems.is_empty());
    }
}
