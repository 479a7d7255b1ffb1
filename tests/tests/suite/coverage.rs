//! The meta-test: every operation in the YAML has its own wire test, a
//! `#[tokio::test]` named after the `operationId` that calls that operation.

use std::collections::BTreeSet;
use vidplat_tests::{load_spec, repo_root, SERVICES};

/// Operation ids of the three YAML files, aliases included.
fn operation_ids() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for service in SERVICES {
        let spec = load_spec(service);
        for item in spec["paths"].as_object().expect("paths").values() {
            for operation in item.as_object().expect("path item").values() {
                if let Some(id) = operation.get("operationId").and_then(|v| v.as_str()) {
                    ids.insert(id.to_owned());
                }
                // An alias (`x-aliases`) is a documented operation of its own: it gets its own test.
                let aliases = operation.get("x-aliases").and_then(|v| v.as_array());
                for alias in aliases.into_iter().flatten() {
                    ids.insert(
                        alias["operationId"]
                            .as_str()
                            .expect("an alias's operationId")
                            .to_owned(),
                    );
                }
            }
        }
    }
    ids
}

/// `(test name, whether its body calls the builder method of the same name)` for every
/// test function in `tests/tests/suite/ops_*.rs`.
fn operation_tests() -> Vec<(String, bool)> {
    let dir = repo_root().join("tests/tests/suite");
    let mut tests = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/tests/suite") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if !(name.starts_with("ops_") && name.ends_with(".rs")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable test file");
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for item in file.items {
            let syn::Item::Fn(function) = item else { continue };
            let is_test = function
                .attrs
                .iter()
                .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"));
            if !is_test {
                continue;
            }
            let test = function.sig.ident.to_string();
            let body = quote::quote!(#function).to_string();
            let calls_itself = body.contains(&format!(". {test} ("));
            tests.push((test, calls_itself));
        }
    }
    tests
}

#[test]
fn every_operation_has_a_wire_test_that_calls_it() {
    let ids = operation_ids();
    // The 118 operations of the documents' tables (one of them an alias), plus the assumed CSV import.
    assert_eq!(ids.len(), 119, "the three YAML files hold 119 operations and aliases");
    let tests = operation_tests();
    let tested: BTreeSet<String> = tests
        .iter()
        .filter(|(_, calls)| *calls)
        .map(|(name, _)| name.clone())
        .collect();
    let missing: Vec<&String> = ids.difference(&tested).collect();
    assert!(
        missing.is_empty(),
        "operations with no wire test calling them: {missing:?}"
    );
    let strays: Vec<&String> = tests
        .iter()
        .map(|(name, _)| name)
        .filter(|name| !ids.contains(*name) && !name.starts_with("with_"))
        .collect();
    assert!(
        strays.is_empty(),
        "tests in ops_*.rs are named after an operationId (or start with `with_`): {strays:?}"
    );
}
