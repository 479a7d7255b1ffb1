//! Tolerance, proved for every response schema of the three YAML files: a
//! sample holding every documented field, an unknown extra field in every
//! object, an unknown value in every open enumeration, strings longer than any
//! documented bound, out-of-bound numbers and timestamps of another form must
//! decode, and re-serialise to the same documented values.

use serde_json::Value;
use vidplat_tests::samples::{Samples, UNKNOWN_ENUM_VALUE, UNKNOWN_FIELD};
use vidplat_tests::{generated, load_spec};

/// Every (path, value) leaf of `value`, skipping the members `hostile` invented.
fn leaves(value: &Value, path: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key != UNKNOWN_FIELD {
                    leaves(child, format!("{path}.{key}"), out);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                leaves(child, format!("{path}[{i}]"), out);
            }
        }
        leaf => out.push((path, leaf.clone())),
    }
}

fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut node = value;
    for part in path.split('.').skip(1) {
        let (key, indexes) = part.split_once('[').map_or((part, ""), |(k, rest)| (k, rest));
        node = node.get(key)?;
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            node = node.get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(node)
}

fn check_service(
    service: &str,
    names: &[&str],
    roundtrip: fn(&str, Value) -> Option<Result<Value, serde_json::Error>>,
) {
    let spec = load_spec(service);
    let samples = Samples::new(&spec);
    let mut unknown_enum_values = 0;
    for name in names {
        let schema = serde_json::json!({"$ref": format!("#/components/schemas/{name}")});
        let sample = samples.hostile(&schema);
        let back = roundtrip(name, sample.clone())
            .unwrap_or_else(|| panic!("{service}: no decoder for {name}"))
            .unwrap_or_else(|e| panic!("{service}: {name} did not decode a tolerant sample: {e}\n{sample:#}"));
        let mut expected = Vec::new();
        leaves(&sample, String::new(), &mut expected);
        for (path, value) in expected {
            unknown_enum_values += usize::from(value == UNKNOWN_ENUM_VALUE);
            assert_eq!(
                lookup(&back, &path),
                Some(&value),
                "{service}: {name}{path} did not survive the round trip"
            );
        }
    }
    assert!(!names.is_empty());
    println!(
        "{service}: {} response schemas, {unknown_enum_values} unknown enum values kept",
        names.len()
    );
}

#[test]
fn encoder_responses_are_read_tolerantly() {
    check_service(
        "encoder",
        generated::encoder::RESPONSE_SCHEMAS,
        generated::encoder::roundtrip_schema,
    );
}

#[test]
fn vms_responses_are_read_tolerantly() {
    check_service(
        "vms",
        generated::vms::RESPONSE_SCHEMAS,
        generated::vms::roundtrip_schema,
    );
}

#[test]
fn analytics_responses_are_read_tolerantly() {
    check_service(
        "analytics",
        generated::analytics::RESPONSE_SCHEMAS,
        generated::analytics::roundtrip_schema,
    );
}
