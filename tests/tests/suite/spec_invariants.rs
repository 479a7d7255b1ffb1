//! The conventions of openapi/CONVENTIONS.md that a machine can check.

use serde_json::Value;
use std::collections::BTreeSet;
use vidplat_tests::{load_spec, SERVICES};

/// Keywords that would make a decode fail on a value the server is free to send.
const DECODE_BOUNDS: [&str; 11] = [
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
    "enum",
    "exclusiveMinimum",
    "exclusiveMaximum",
];

/// Called with each object's path and members.
type Visit<'a, 'v> = &'a mut dyn FnMut(&[String], &'v serde_json::Map<String, Value>);

/// Calls `visit` with the path (`a/b/c`) and members of each object of `spec`
/// that is a schema or an operation: not the maps that hold member names
/// (`properties`, `x-limits`) or example values.
fn walk_schemas<'v>(spec: &'v Value, mut visit: impl FnMut(&str, &'v serde_json::Map<String, Value>)) {
    walk(spec, &mut Vec::new(), &mut |path, map| {
        let names_or_examples = path
            .last()
            .is_some_and(|k| k == "properties" || k == "x-limits" || k == "examples" || k == "example");
        if !names_or_examples {
            visit(&path.join("/"), map);
        }
    });
}

fn walk<'v>(value: &'v Value, path: &mut Vec<String>, visit: Visit<'_, 'v>) {
    match value {
        Value::Object(map) => {
            visit(path, map);
            for (key, child) in map {
                path.push(key.clone());
                walk(child, path, visit);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(child, path, visit);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `{enum: [null]}`: the null member of a nullable reference (CONVENTIONS.md).
fn is_null_only(map: &serde_json::Map<String, Value>) -> bool {
    map.len() == 1
        && map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e == &[Value::Null])
}

/// The one nullable form every generator reads (CONVENTIONS.md): `type` + `nullable`
/// on a scalar, array or inline object; `anyOf: [{$ref}, {enum: [null]}]` on a reference.
/// And defaults where generators read them: none on a named component, none
/// beside a `$ref` (ignored there).
#[test]
fn nullable_references_and_defaults_use_the_forms_generators_read() {
    for service in SERVICES {
        let spec = load_spec(service);
        let mut problems = Vec::new();
        walk_schemas(&spec, |at, map| {
            if map.contains_key("nullable") {
                if !map.contains_key("type") {
                    problems.push(format!("{at}: `nullable` without `type`"));
                }
                for keyword in ["allOf", "anyOf", "oneOf", "$ref"] {
                    if map.contains_key(keyword) {
                        problems.push(format!(
                            "{at}: `nullable` beside `{keyword}` (use anyOf: [{{$ref}}, {{enum: [null]}}])"
                        ));
                    }
                }
            }
            if let Some(members) = map.get("anyOf").and_then(Value::as_array) {
                let null_last = members.len() == 2
                    && members[0].get("$ref").is_some()
                    && members[1].as_object().is_some_and(is_null_only);
                if !null_last && two_forms(&spec, members).is_none() {
                    problems.push(format!(
                        "{at}: anyOf other than [{{$ref}}, {{enum: [null]}}] or two forms of different JSON types"
                    ));
                }
            }
            if map.contains_key("$ref") && map.contains_key("default") {
                problems.push(format!("{at}: `default` beside `$ref` is ignored"));
            }
            if map.contains_key("allOf") && map.contains_key("default") && !map.contains_key("type") {
                problems.push(format!(
                    "{at}: `default` beside `allOf` needs its `type` (CONVENTIONS.md)"
                ));
            }
        });
        for (name, schema) in spec["components"]["schemas"].as_object().unwrap() {
            if schema.get("default").is_some() {
                problems.push(format!(
                    "components/schemas/{name}: a component's `default` is read by no generator"
                ));
            }
        }
        assert!(problems.is_empty(), "{service}:\n{}", problems.join("\n"));
    }
}

/// The resolved schemas of two forms of different JSON types (a value read in
/// either of two exclusive forms, CONVENTIONS.md), else None.
fn two_forms<'v>(spec: &'v Value, members: &'v [Value]) -> Option<[&'v Value; 2]> {
    let resolve = |member: &'v Value| match member.get("$ref").and_then(Value::as_str) {
        Some(reference) => spec.pointer(reference.trim_start_matches('#')),
        None => Some(member),
    };
    let [a, b] = members else { return None };
    let (a, b) = (resolve(a)?, resolve(b)?);
    let kind = |schema: &Value| schema.get("type").and_then(Value::as_str).map(str::to_owned);
    (kind(a).is_some() && kind(b).is_some() && kind(a) != kind(b)).then_some([a, b])
}

/// A value read in either of two exclusive forms names no type and lists its
/// forms in `x-forms` (read by the Rust generator as an `anyOf`): never a
/// `oneOf` (openapi-generator's Go client builds it with a module outside Go's
/// standard library and rejects an unknown member in its object form) nor a
/// two-form `anyOf` (its typescript-fetch client reads the string form as `{}`
/// and drops unknown members). The object form keeps unknown members:
/// `additionalProperties: true` (CONVENTIONS.md).
#[test]
fn two_forms_are_x_forms_of_an_untyped_value_and_their_object_form_keeps_unknown_members() {
    let mut forms = 0;
    for service in SERVICES {
        let spec = load_spec(service);
        let mut problems = Vec::new();
        walk_schemas(&spec, |at, map| {
            if map.contains_key("oneOf") {
                problems.push(format!("{at}: `oneOf` (two exclusive forms are written `x-forms`)"));
            }
            if let Some(members) = map.get("anyOf").and_then(Value::as_array) {
                if two_forms(&spec, members).is_some() {
                    problems.push(format!(
                        "{at}: an `anyOf` of two forms (written `x-forms` on a value with no type)"
                    ));
                }
            }
            let Some(members) = map.get("x-forms").and_then(Value::as_array) else {
                return;
            };
            if map.contains_key("type") || map.contains_key("anyOf") {
                problems.push(format!("{at}: `x-forms` beside a `type` or an `anyOf`"));
            }
            let Some(resolved) = two_forms(&spec, members) else {
                problems.push(format!("{at}: `x-forms` lists no two forms of different JSON types"));
                return;
            };
            forms += 1;
            for schema in resolved.into_iter().filter(|s| s["type"] == "object") {
                if schema.get("additionalProperties") != Some(&Value::Bool(true)) {
                    problems.push(format!("{at}: the object form has no `additionalProperties: true`"));
                }
            }
        });
        assert!(problems.is_empty(), "{service}:\n{}", problems.join("\n"));
    }
    // vms's BulkRegisteredId (an id object or the id string) at least.
    assert!(forms >= 1, "no x-forms found: is the check still reading them?");
}

#[test]
fn no_closed_enums_rfc3339_or_closed_objects() {
    for service in SERVICES {
        let spec = load_spec(service);
        let mut problems = Vec::new();
        walk_schemas(&spec, |at, map| {
            if map.contains_key("enum") && !is_null_only(map) {
                problems.push(format!("{at}: closed `enum` (use x-extensible-enum)"));
            }
            if matches!(map.get("format").and_then(Value::as_str), Some("date-time" | "date")) {
                problems.push(format!("{at}: RFC 3339 format (use Timestamp/Date)"));
            }
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                problems.push(format!("{at}: additionalProperties: false"));
            }
            if map.get("responses").and_then(|r| r.get("default")).is_some() {
                problems.push(format!("{at}: `default` response"));
            }
        });
        assert!(problems.is_empty(), "{service}:\n{}", problems.join("\n"));
    }
}

#[test]
fn returned_schemas_carry_no_bound_that_could_fail_a_decode() {
    for service in SERVICES {
        let spec = load_spec(service);
        let schemas = &spec["components"]["schemas"];
        // Every schema reachable from a response, following $refs.
        let mut reachable = BTreeSet::new();
        let mut queue: Vec<&Value> = Vec::new();
        for item in spec["paths"].as_object().unwrap().values() {
            for op in item.as_object().unwrap().values() {
                if let Some(responses) = op.get("responses") {
                    queue.push(responses);
                }
            }
        }
        queue.extend(
            spec["components"]["responses"]
                .as_object()
                .into_iter()
                .flat_map(|m| m.values()),
        );
        while let Some(node) = queue.pop() {
            let mut found = Vec::new();
            walk(node, &mut Vec::new(), &mut |_, map| {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    found.push(name.to_owned());
                }
            });
            for name in found {
                if reachable.insert(name.clone()) {
                    queue.push(&schemas[name.as_str()]);
                }
            }
        }
        let mut problems = Vec::new();
        for name in &reachable {
            walk(&schemas[name.as_str()], &mut vec![name.clone()], &mut |path, map| {
                // Member names, and the bounds of returned values, which no decoder reads.
                if path
                    .last()
                    .is_some_and(|k| k == "properties" || k == "x-returned-bounds")
                {
                    return;
                }
                for keyword in DECODE_BOUNDS {
                    if map.contains_key(keyword) && !(keyword == "enum" && is_null_only(map)) {
                        problems.push(format!("{}: {keyword}", path.join("/")));
                    }
                }
                if matches!(map.get("format").and_then(Value::as_str), Some("uuid" | "ipv4" | "uri")) {
                    problems.push(format!("{}: strict format", path.join("/")));
                }
            });
        }
        assert!(!reachable.is_empty());
        assert!(
            problems.is_empty(),
            "{service}: returned schemas with decode-failing bounds:\n{}",
            problems.join("\n")
        );
    }
}

/// `x-returned-bounds` states the bounds of values only answers carry: a schema
/// a request also reaches states its bounds in the keywords (CONVENTIONS.md).
#[test]
fn returned_bounds_sit_only_in_schemas_no_request_reaches() {
    for service in SERVICES {
        let spec = load_spec(service);
        let schemas = &spec["components"]["schemas"];
        let mut sent = BTreeSet::new();
        let mut queue: Vec<&Value> = Vec::new();
        for item in spec["paths"].as_object().unwrap().values() {
            queue.extend(item.get("parameters"));
            for op in item.as_object().unwrap().values() {
                queue.extend(op.get("requestBody"));
                queue.extend(op.get("parameters"));
            }
        }
        while let Some(node) = queue.pop() {
            walk(node, &mut Vec::new(), &mut |_, map| {
                let reference = map.get("$ref").and_then(Value::as_str).unwrap_or_default();
                if let Some(name) = reference.strip_prefix("#/components/schemas/") {
                    if sent.insert(name.to_owned()) {
                        queue.push(&schemas[name]);
                    }
                } else if let Some(target) = spec
                    .pointer(reference.trim_start_matches('#'))
                    .filter(|_| !reference.is_empty())
                {
                    queue.push(target);
                }
            });
        }
        let mut problems = Vec::new();
        for name in &sent {
            walk(&schemas[name.as_str()], &mut vec![name.clone()], &mut |path, map| {
                if map.contains_key("x-returned-bounds") {
                    problems.push(path.join("/"));
                }
            });
        }
        assert!(!sent.is_empty());
        assert!(
            problems.is_empty(),
            "{service}: x-returned-bounds in sent schemas:\n{}",
            problems.join("\n")
        );
    }
}

#[test]
fn operations_have_unique_ids_summaries_and_tags() {
    // Encoder: 23 documented operations, List shared profiles as an alias of List profiles, the assumed CSV import.
    let expected = [("encoder", 24), ("vms", 60), ("analytics", 34)];
    for (service, count) in expected {
        let spec = load_spec(service);
        let mut ids = BTreeSet::new();
        for (path, item) in spec["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                    continue;
                };
                assert!(ids.insert(id.to_owned()), "{service}: duplicate operationId {id}");
                assert!(
                    id.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{id} is not snake_case"
                );
                assert!(
                    op["summary"].is_string() && op["description"].is_string(),
                    "{service} {method} {path}: summary and description"
                );
                assert_eq!(op["tags"].as_array().map(Vec::len), Some(1), "{service} {id}: one tag");
                if service == "analytics" {
                    assert!(
                        id.starts_with("basic_") || id.starts_with("cloud_"),
                        "{id}: edition prefix"
                    );
                    for code in ["408", "429"] {
                        assert!(op["responses"].get(code).is_some(), "{id}: {code} response");
                    }
                }
                if op.get("x-route-assumed").is_some() {
                    assert!(
                        op.get("x-gap").is_some(),
                        "{service} {id}: an assumed route says what is unknown"
                    );
                }
            }
        }
        assert_eq!(ids.len(), count, "{service}: operation count");
    }
}

/// A permission the documents do not name is marked as the YAML's assumption
/// in the operation table, so the simulator and the docs can tell it apart.
#[test]
fn assumed_permissions_are_marked_in_the_operation_table() {
    let tables = [
        &vidplat::encoder::operations::TABLE,
        &vidplat::vms::operations::TABLE,
        &vidplat::analytics::operations::TABLE,
    ];
    let assumed: Vec<(&str, Option<&str>)> = tables
        .iter()
        .flat_map(|table| table.operations)
        .filter(|op| op.permission_assumed)
        .map(|op| (op.id, op.permission))
        .collect();
    assert_eq!(
        assumed,
        [
            ("import_tasks_csv", Some("task register")),
            ("get_content_statistics", Some("content read")),
            ("add_revoked_audience", Some("viewing page update"))
        ]
    );
}

/// A parameter whose location the documents do not show declares no
/// `default` (other languages' generators would send it on every call, where
/// the service may not take it): its default is in `x-default`.
#[test]
fn a_parameter_of_an_assumed_location_declares_no_default() {
    let mut assumed = Vec::new();
    for service in SERVICES {
        let spec = load_spec(service);
        let mut parameters: Vec<&Value> = spec["components"]["parameters"]
            .as_object()
            .into_iter()
            .flat_map(|all| all.values())
            .collect();
        for item in spec["paths"].as_object().unwrap().values() {
            for op in item.as_object().unwrap().values() {
                parameters.extend(op["parameters"].as_array().into_iter().flatten());
            }
        }
        for parameter in parameters {
            let gap = parameter["x-gap"].as_str().unwrap_or_default();
            let location_unknown = gap.contains("location of") || gap.contains("query parameter or a header");
            if !location_unknown {
                continue;
            }
            let name = parameter["name"].as_str().unwrap_or_default();
            assumed.push(name.to_owned());
            assert!(
                parameter["schema"].get("default").is_none(),
                "{service} {name}: a default on an assumed location"
            );
        }
    }
    for name in ["create_parents", "rename_children", "disable_cfp"] {
        assert!(assumed.iter().any(|found| found == name), "{name} among {assumed:?}");
    }
}

/// Every extension the YAMLs use is defined in CONVENTIONS.md, and the two
/// that carry an assumption (the zone of returned times, a row's span) have
/// their `x-gap` saying so, which GAPS.md lists.
#[test]
fn every_extension_is_defined_and_the_assumed_ones_say_so() {
    let root = vidplat_tests::repo_root();
    let conventions = std::fs::read_to_string(root.join("openapi/CONVENTIONS.md")).unwrap();
    let mut undefined = BTreeSet::new();
    for service in SERVICES {
        let text = std::fs::read_to_string(root.join(format!("openapi/{service}.yaml"))).unwrap();
        for line in text.lines() {
            let key = line.trim_start().split(':').next().unwrap_or_default();
            let is_extension =
                key.len() > 2 && key.starts_with("x-") && key[2..].chars().all(|c| c.is_ascii_lowercase() || c == '-');
            if is_extension && !conventions.contains(&format!("`{key}")) {
                undefined.insert(key.to_owned());
            }
        }
    }
    assert!(undefined.is_empty(), "not in CONVENTIONS.md: {undefined:?}");
    let gaps = std::fs::read_to_string(root.join("GAPS.md")).unwrap();
    for assumption in [
        "marked x-japan-time, an assumption",
        "assumes a row covers at most one day",
    ] {
        assert!(gaps.contains(assumption), "GAPS.md lacks: {assumption}");
    }
}

/// The three rules that fail a generated client's first call unless it
/// knows them (a profile's vms_config, a page's configurations or site,
/// a task's category) have a request example, and each example, sent as it
/// is to the simulator once what it names exists, is taken.
#[tokio::test]
async fn the_request_examples_of_the_conditional_rules_are_taken() {
    let sim = vidplat_sim::Simulator::start_with(vidplat_sim::SimConfig::fast())
        .await
        .expect("a simulator");
    let example = |service: &str, path: &str| {
        let spec = load_spec(service);
        let example = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["example"].clone();
        assert!(example.is_object(), "{service} POST {path}: a request example");
        example
    };
    vidplat_core::install_default_tls_provider();
    let http = reqwest::Client::new();
    let post = |url: String, body: Value| {
        let request = http.post(url).bearer_auth(&sim.api_key).json(&body);
        async move {
            let answer = request.send().await.expect("an answer");
            (answer.status().as_u16(), answer.text().await.unwrap_or_default())
        }
    };
    // What the examples name: preset 1 (registering to video management) and a content.
    let preset = serde_json::json!({"name": "vms", "destination": "vms5://", "format": "MP4", "output_filename": "x"});
    assert_eq!(post(format!("{}/v1/presets", sim.encoder_url), preset).await.0, 200);
    let (status, body) = post(
        format!("{}/v1/profiles", sim.encoder_url),
        example("encoder", "/v1/profiles"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(format!("{}/v1/tasks", sim.encoder_url), example("encoder", "/v1/tasks")).await;
    assert_eq!(status, 200, "{body}");
    let category = post(
        format!("{}/v1/categories", sim.vms_url),
        serde_json::json!({"name": "c"}),
    )
    .await;
    let category: Value = serde_json::from_str(&category.1).expect("JSON");
    let content = serde_json::json!({
        "name": "spring-campaign", "title": "Spring", "category_id": category["id"],
        "streams": [{"name": "s", "path": "/a.mp4", "format": "MP4"}],
        "stream_sets": [{"name": "mp4", "stream_names": ["s"]}]
    });
    assert_eq!(post(format!("{}/v1/contents", sim.vms_url), content).await.0, 200);
    let (status, body) = post(
        format!("{}/v1/instant-pages", sim.vms_url),
        example("vms", "/v1/instant-pages"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// Each update's row names its registration: the POST on the collection its
/// item path is under (what the simulator's updates stand for when an update
/// resets what it leaves out); no other row names one.
#[test]
fn every_update_names_the_registration_of_its_resource() {
    let tables: [&[vidplat_core::OperationMeta]; 3] = [
        &vidplat_encoder::operations::ALL,
        &vidplat_vms::operations::ALL,
        &vidplat_analytics::operations::ALL,
    ];
    let mut named = Vec::new();
    for table in tables {
        for row in table {
            let Some(registration) = row.registered_by else {
                continue;
            };
            let registration = table
                .iter()
                .find(|other| other.id == registration)
                .unwrap_or_else(|| panic!("{}: `{registration}` is not in its table", row.id));
            assert!(
                matches!(row.method, vidplat_core::Method::Put | vidplat_core::Method::Patch),
                "{}",
                row.id
            );
            assert_eq!(registration.method, vidplat_core::Method::Post, "{}", row.id);
            let (collection, _) = row.path.rsplit_once("/{").expect("an item path");
            assert_eq!(registration.path, collection, "{}", row.id);
            named.push((row.id, registration.id));
        }
    }
    for pair in [
        ("update_preset", "register_preset"),
        ("update_profile", "register_profile"),
        ("update_content", "register_content"),
        ("update_stream_set", "register_stream_set"),
        ("update_stream", "register_stream"),
        ("update_subtitle", "register_subtitle"),
    ] {
        assert!(named.contains(&pair), "{pair:?} in {named:?}");
    }
}
