//! What the generator reads from a service's YAML, beside progenitor: the
//! open enumerations, the facts of each operation the runtime needs (success
//! members and statuses, secret members, bounds), the schemas reachable from
//! requests or responses, and the YAML as progenitor should see it.

use crate::codegen::passes::patterns::Compiled;
use crate::services::operations;
use anyhow::Result;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// An open enumeration found in the YAML.
pub struct OpenEnum {
    pub name: String,
    pub description: Option<String>,
    pub values: Vec<String>,
}

pub fn open_enums(spec: &Value) -> Vec<OpenEnum> {
    let Some(schemas) = spec["components"]["schemas"].as_object() else {
        return Vec::new();
    };
    schemas
        .iter()
        .filter_map(|(name, schema)| {
            let values = schema["x-extensible-enum"].as_array()?;
            Some(OpenEnum {
                name: name.clone(),
                description: schema["description"].as_str().map(str::to_owned),
                values: values.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            })
        })
        .collect()
}

/// The YAML as progenitor should read it: every operation whose route the
/// document does not show says so in its description (so the note reaches the
/// generated method's rustdoc), and members not shown are kept (see
/// `keeping_undocumented_members`).
pub fn for_progenitor(spec: &Value) -> Value {
    with_forms_as_any_of(keeping_undocumented_members(with_route_notes(spec)))
}

/// `x-forms` on a schema without a type lists the forms its value takes
/// (an id object or the id string): the YAML leaves the type out so that every
/// other generator keeps the value as it came, and typify reads the forms as
/// an `anyOf`, giving Rust one enum of them.
fn with_forms_as_any_of(mut spec: Value) -> Value {
    if let Some(schemas) = spec["components"]["schemas"].as_object_mut() {
        for schema in schemas.values_mut() {
            if let Some(forms) = schema.get("x-forms").cloned() {
                schema["anyOf"] = forms;
            }
        }
    }
    spec
}

/// `additionalProperties: true` beside documented `properties` means "other
/// members exist but are not shown". typify drops such members for `true`, but
/// keeps them in a flattened `extra` map for the equivalent `{}`: so they survive
/// a read and can be sent back (read a preset, change one field, update it).
fn keeping_undocumented_members(mut spec: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if map.contains_key("properties") && map.get("additionalProperties") == Some(&Value::Bool(true)) {
                    map.insert("additionalProperties".into(), Value::Object(Default::default()));
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut spec);
    spec
}

fn with_route_notes(spec: &Value) -> Value {
    let mut spec = spec.clone();
    if let Some(paths) = spec["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            for (method, op) in item.as_object_mut().into_iter().flatten() {
                if op["x-route-assumed"].as_bool() != Some(true) {
                    continue;
                }
                let id = op["operationId"].as_str().unwrap_or_default().to_owned();
                let (verb, variant) = (method.to_uppercase(), method[..1].to_uppercase() + &method[1..]);
                let override_it = format!(
                    "If your account's route differs, override it: \
                     `vidplat::Client::builder().route(\"{id}\", Method::{variant}, \"/your/path\")`."
                );
                let description = op["description"].as_str().unwrap_or_default().to_owned();
                op["description"] = Value::String(if op["x-operation-assumed"].as_bool() == Some(true) {
                    let media: Vec<&str> = op["requestBody"]["content"]
                        .as_object()
                        .map(|c| c.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    format!(
                        "**Assumed operation.** The documents mention this operation but show none of it: \
                         the method and path (`{verb} {path}`), the request's media type ({}), the success \
                         status and the response are all the YAML's guesses (see GAPS.md). Expect to adapt \
                         it to your account. {override_it}\n\n{description}",
                        if media.is_empty() {
                            "no body".to_owned()
                        } else {
                            media.join(", ")
                        }
                    )
                } else {
                    format!(
                        "{description}\n\n**Route assumed.** The document does not show this operation's \
                         method and path; `{verb} {path}` is the YAML's choice (see GAPS.md). {override_it}"
                    )
                });
            }
        }
    }
    spec
}

/// The top-level members of an operation's success body (its first 2xx
/// response with a JSON schema), `allOf` parts included.
pub fn success_members(spec: &Value, op: &Value) -> Vec<String> {
    fn members(spec: &Value, schema: &Value, out: &mut BTreeSet<String>, depth: usize) {
        if depth > 16 {
            return;
        }
        let schema = crate::bounds::resolve(spec, schema);
        for part in schema["allOf"].as_array().into_iter().flatten() {
            members(spec, part, out, depth + 1);
        }
        out.extend(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(name, _)| name.clone()),
        );
    }
    let mut out = BTreeSet::new();
    let responses = op["responses"].as_object().into_iter().flatten();
    let success = responses
        .filter(|(status, _)| status.starts_with('2'))
        .find_map(|(_, response)| crate::bounds::resolve(spec, response)["content"]["application/json"].get("schema"));
    if let Some(schema) = success {
        members(spec, schema, &mut out, 0);
    }
    out.into_iter().collect()
}

/// Schema name → its members marked `x-secret: true`.
pub fn secret_members(spec: &Value) -> BTreeMap<String, Vec<String>> {
    spec["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, schema)| {
            let secrets: Vec<String> = schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, property)| property["x-secret"] == Value::Bool(true))
                .map(|(member, _)| member.clone())
                .collect();
            (!secrets.is_empty()).then(|| (name.clone(), secrets))
        })
        .collect()
}

/// The documented bounds the runtime checks before sending: those on query
/// parameters and the JSON body (typify's newtypes already enforce patterns).
pub fn checks_of(spec: &Value, path: &str, op: &Value) -> Vec<(String, TokenStream)> {
    crate::bounds::of_operation(spec, path, op)
        .into_iter()
        .filter(|(at, _)| at.starts_with("query.") || at.starts_with("body"))
        .filter_map(|(at, bound)| Some((at, core_rule(&bound)?)))
        .collect()
}

/// The documented rules of an operation's success body that the test kit
/// checks a mock's answer against, as `vidplat_core::SuccessCheck` values:
/// the bounds of its returned schemas (`x-returned-bounds`), patterns
/// compiled as the generated crates' are.
pub fn success_checks_of(spec: &Value, op: &Value, patterns: &mut Compiled) -> Result<Vec<TokenStream>> {
    let Some(schema) = success_schema(spec, op) else {
        return Ok(Vec::new());
    };
    crate::bounds::of_returned(spec, schema)
        .into_iter()
        .map(|(at, bound)| {
            let rule = match (&bound, core_rule(&bound)) {
                (_, Some(rule)) => quote!(Bound(vidplat_core::Rule::#rule)),
                (crate::bounds::Bound::Pattern(pattern), None) => {
                    let compiled = patterns.name_of(pattern)?;
                    quote!(Pattern { pattern: #pattern, compiled: &self::returned_patterns::#compiled })
                }
                (other, None) => anyhow::bail!("{at}: the test kit has no check for {other}"),
            };
            Ok(quote!(vidplat_core::SuccessCheck { at: #at, rule: vidplat_core::SuccessRule::#rule }))
        })
        .collect()
}

/// The `x-returned-bounds` maps of a spec that hold something other than the
/// bound keywords the readers know, or in the wrong type, as `schema: problem`
/// (a misspelt keyword would otherwise check nothing).
pub fn returned_bounds_problems(spec: &Value) -> Vec<String> {
    fn walk(node: &Value, at: &str, out: &mut Vec<String>) {
        match node {
            Value::Object(map) => {
                if let Some(bounds) = map.get("x-returned-bounds") {
                    let Some(bounds) = bounds.as_object() else {
                        out.push(format!("{at}: x-returned-bounds is not a map"));
                        return;
                    };
                    for (keyword, value) in bounds {
                        let fits = match keyword.as_str() {
                            "minimum" | "maximum" => value.is_number(),
                            "minLength" | "maxLength" | "minItems" | "maxItems" => value.is_u64(),
                            "uniqueItems" => value == &Value::Bool(true),
                            "pattern" => value
                                .as_str()
                                .is_some_and(|p| crate::codegen::passes::patterns::translate(p).is_ok()),
                            _ => false,
                        };
                        if !fits {
                            out.push(format!(
                                "{at}: x-returned-bounds.{keyword}: {value} is not a bound the readers know"
                            ));
                        }
                    }
                }
                for (key, child) in map {
                    walk(child, &format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&spec["components"], "#/components", &mut out);
    walk(&spec["paths"], "#/paths", &mut out);
    out
}

/// A bound as the runtime's `vidplat_core::Rule` variant, if it has one
/// (patterns have none: typify's newtypes check what is sent).
fn core_rule(bound: &crate::bounds::Bound) -> Option<TokenStream> {
    use crate::bounds::Bound;
    Some(match bound {
        Bound::Minimum(x) => quote!(Minimum(#x)),
        Bound::Maximum(x) => quote!(Maximum(#x)),
        Bound::MinLength(x) => quote!(MinLength(#x)),
        Bound::MaxLength(x) => quote!(MaxLength(#x)),
        Bound::MinItems(x) => quote!(MinItems(#x)),
        Bound::MaxItems(x) => quote!(MaxItems(#x)),
        Bound::UniqueItems => quote!(UniqueItems),
        Bound::Pattern(_) => return None,
    })
}

/// Names of the object schemas a response can contain (directly or nested).
pub fn response_object_schemas(spec: &Value) -> Vec<String> {
    reachable_schemas(spec, |op| vec![&op["responses"]])
        .into_iter()
        .filter(|name| {
            let schema = &spec["components"]["schemas"][name];
            schema.get("x-extensible-enum").is_none()
                && (schema["type"] == "object" || schema.get("properties").is_some())
        })
        .collect()
}

/// The component schemas reachable from the parts of each operation `roots` picks.
pub fn reachable_schemas(spec: &Value, roots: impl Fn(&Value) -> Vec<&Value>) -> BTreeSet<String> {
    reachable_by_method(spec, |_, op| roots(op))
}

/// The schemas only updates send: reachable from the request body of a PUT or
/// a PATCH, and from no answer (a type both read and sent keeps its `Option`s).
pub fn update_schemas(spec: &Value) -> BTreeSet<String> {
    let answered = reachable_schemas(spec, |op| vec![&op["responses"]]);
    reachable_by_method(spec, |method, op| match method {
        "PUT" | "PATCH" => vec![&op["requestBody"]],
        _ => Vec::new(),
    })
    .into_iter()
    .filter(|name| !answered.contains(name))
    .collect()
}

/// The component schemas reachable from the parts `roots` picks of each (method, operation).
fn reachable_by_method<'s>(spec: &'s Value, roots: impl Fn(&str, &'s Value) -> Vec<&'s Value>) -> BTreeSet<String> {
    fn walk(spec: &Value, node: &Value, seen: &mut BTreeSet<String>) {
        match node {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    if let Some(name) = reference.strip_prefix("#/components/schemas/") {
                        if seen.insert(name.to_owned()) {
                            walk(spec, &spec["components"]["schemas"][name], seen);
                        }
                    } else if let Some(target) = spec.pointer(reference.trim_start_matches('#')) {
                        walk(spec, target, seen);
                    }
                }
                map.values().for_each(|v| walk(spec, v, seen));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(spec, v, seen)),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    for (_, method, op) in operations(spec) {
        for root in roots(&method, op) {
            walk(spec, root, &mut seen);
        }
    }
    seen
}

/// Whether a property may be `null`: `nullable: true`, or a nullable reference
/// (an `anyOf`/`oneOf` with a null-only member).
pub fn is_nullable(property: &Value) -> bool {
    property["nullable"] == Value::Bool(true)
        || ["anyOf", "oneOf"].iter().any(|key| {
            property[key].as_array().is_some_and(|members| {
                members
                    .iter()
                    .any(|m| m["enum"].as_array().is_some_and(|e| e == &[Value::Null]))
            })
        })
}

/// Whether a property is a list that may be empty: an array (directly or by
/// reference) without a `minItems` of at least 1.
pub fn is_list_that_may_be_empty(property: &Value, spec: &Value) -> bool {
    let schema = match property["$ref"].as_str() {
        Some(reference) => spec.pointer(reference.trim_start_matches('#')).unwrap_or(&Value::Null),
        None => property,
    };
    schema["type"] == "array" && schema["minItems"].as_u64().unwrap_or(0) == 0
}

/// The 2xx statuses an operation documents, as inclusive ranges (`2XX` is 200 to 299).
pub fn success_statuses(op: &Value) -> Vec<(u16, u16)> {
    op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(status, _)| match status.as_str() {
            "2XX" | "2xx" => Some((200, 299)),
            exact => exact
                .parse::<u16>()
                .ok()
                .filter(|s| (200..300).contains(s))
                .map(|s| (s, s)),
        })
        .collect()
}

/// The schema of an operation's JSON success body, when it documents one.
pub fn success_schema<'s>(spec: &'s Value, op: &'s Value) -> Option<&'s Value> {
    op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(status, _)| status.starts_with('2'))
        .find_map(|(_, response)| crate::bounds::resolve(spec, response)["content"]["application/json"].get("schema"))
        .map(|schema| crate::bounds::resolve(spec, schema))
}

/// Whether a success schema is a list envelope: an object whose `data` member is an array.
pub fn is_list_envelope(spec: &Value, schema: &Value) -> bool {
    let data = &schema["properties"]["data"];
    !data.is_null() && crate::bounds::resolve(spec, data)["type"] == "array"
}

/// An operation's parameters, the path's first, each `$ref` resolved.
pub fn parameters<'s>(spec: &'s Value, path: &str, op: &'s Value) -> Vec<&'s Value> {
    spec["paths"][path]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(op["parameters"].as_array().into_iter().flatten())
        .map(|p| crate::bounds::resolve(spec, p))
        .collect()
}

/// Every operation of a spec with its id: (path, method, id, operation).
pub fn operations_with_ids(spec: &Value) -> Result<Vec<(String, String, &str, &Value)>> {
    operations(spec)
        .into_iter()
        .map(|(path, method, op)| {
            let id = op["operationId"]
                .as_str()
                .ok_or_else(|| anyhow::anyhow!("{method} {path} has no operationId"))?;
            Ok((path, method, id, op))
        })
        .collect()
}

/// The schemas responses reach and requests do not.
pub fn response_only_schemas(spec: &Value) -> BTreeSet<String> {
    let sent = reachable_schemas(spec, |op| {
        let mut roots = vec![&op["requestBody"]];
        roots.extend(op["parameters"].as_array().into_iter().flatten());
        roots
    });
    reachable_schemas(spec, |op| vec![&op["responses"]])
        .into_iter()
        .filter(|name| !sent.contains(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_checks_are_the_kit_s_rules_and_unknown_returned_bounds_are_refused() {
        let spec = json!({"components": {"schemas": {
            "Task": {"type": "object", "properties": {
                "id": {"type": "integer", "x-returned-bounds": {"minimum": 1}},
                "name": {"type": "string", "x-returned-bounds": {"pattern": "^\\S*$"}},
            }},
        }}});
        let op = json!({"responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Task"}
        }}}}});
        let mut patterns = Compiled::default();
        let checks: Vec<String> = success_checks_of(&spec, &op, &mut patterns)
            .unwrap()
            .iter()
            .map(|tokens| tokens.to_string().split_whitespace().collect())
            .collect();
        assert_eq!(checks.len(), 2, "{checks:?}");
        assert!(
            checks[0].contains(r#"at:"body.id""#) && checks[0].contains("Rule::Minimum(1f64)"),
            "{}",
            checks[0]
        );
        // The pattern is kept as written for the message, and compiled.
        assert!(
            checks[1].contains(r#"pattern:"^\\S*$""#)
                && checks[1].contains("compiled:&self::returned_patterns::PATTERN_0"),
            "{}",
            checks[1]
        );
        assert_eq!(returned_bounds_problems(&spec), Vec::<String>::new());
        let misspelt = json!({"components": {"schemas": {"Task": {"properties": {
            "id": {"x-returned-bounds": {"minimun": 1, "maxLength": -1}},
        }}}}});
        assert_eq!(
            returned_bounds_problems(&misspelt),
            [
                "#/components/schemas/Task/properties/id: x-returned-bounds.maxLength: -1 is not a bound the readers know",
                "#/components/schemas/Task/properties/id: x-returned-bounds.minimun: 1 is not a bound the readers know",
            ]
        );
    }
}
