//! `crates/vidplat-cli/catalog.schema.json`: the JSON Schema (draft-07) of
//! the account's set-up file (`vidplat catalog`), for editors. Each kind
//! the YAML marks with `x-catalog` is a list of its registration's body,
//! `name` required; a member that `refers` to another kind holds names;
//! the notification settings are their update's body. The schemas are the
//! YAML's own (descriptions included), OpenAPI's `nullable` made a type,
//! its `x-` extensions left out.

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The settings the file holds in place, by their update's operation (the
/// command line's `catalog.rs` names the same two).
const SETTINGS: (&str, &str) = ("notification_settings", "update_notification_settings");

/// The schema, from the services' YAML documents in the order kinds are made.
pub fn render(specs: &[&Value]) -> Result<String> {
    let mut properties = Map::new();
    let mut definitions = Map::new();
    for spec in specs {
        for (_, _, op) in crate::services::operations(spec) {
            let id = op["operationId"].as_str().unwrap_or_default();
            let body = &op["requestBody"]["content"]["application/json"]["schema"];
            if id == SETTINGS.1 {
                properties.insert(SETTINGS.0.to_owned(), converted(spec, body, &mut definitions)?);
            }
            let Some(catalog) = op.get("x-catalog") else { continue };
            let key = catalog["kind"].as_str().context("x-catalog without a kind")?;
            let mut item = resolved(spec, body)?;
            item["required"] = json!(["name"]);
            for (member, _) in catalog["refers"].as_object().into_iter().flatten() {
                let Some(held) = item["properties"].get_mut(member.as_str()) else {
                    bail!("{id}: x-catalog refers to `{member}`, no member of its body");
                };
                let description = held["description"].clone();
                *held = json!({"type": "array", "items": {"type": "string"}, "description": description});
                if let Some(text) = held["description"].as_str() {
                    held["description"] = json!(format!("{text} In this file: their names."));
                }
            }
            let item = converted(spec, &item, &mut definitions)?;
            properties.insert(key.to_owned(), json!({"type": "array", "items": item}));
        }
    }
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "vidplat catalog",
        "description": "The account's set-up, as `vidplat catalog export` writes it and `plan` and `apply` read it: each resource matched by its name, ids never written.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "definitions": definitions,
    });
    Ok(serde_json::to_string_pretty(&schema)? + "\n")
}

/// `schema` with its top-level `$ref` followed and `allOf`s of one merged.
fn resolved(spec: &Value, schema: &Value) -> Result<Value> {
    match schema["$ref"].as_str() {
        Some(reference) => resolved(spec, target(spec, reference)?),
        None => Ok(schema.clone()),
    }
}

fn target<'s>(spec: &'s Value, reference: &str) -> Result<&'s Value> {
    let name = reference
        .strip_prefix("#/components/schemas/")
        .with_context(|| format!("a reference outside the schemas: {reference}"))?;
    spec["components"]["schemas"]
        .get(name)
        .with_context(|| format!("no schema {name}"))
}

/// An OpenAPI 3.0 schema made JSON Schema draft-07: each `$ref` to a
/// component made one to a definition (copied once), `nullable` into the
/// type, `x-` extensions and OpenAPI-only keywords left out.
fn converted(spec: &Value, schema: &Value, definitions: &mut Map<String, Value>) -> Result<Value> {
    match schema {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                let name = reference.trim_start_matches("#/components/schemas/").to_owned();
                if !definitions.contains_key(&name) {
                    // Placed first, so that a schema referring to itself ends.
                    definitions.insert(name.clone(), Value::Null);
                    let copied = converted(spec, target(spec, reference)?, definitions)?;
                    definitions.insert(name.clone(), copied);
                }
                return Ok(json!({"$ref": format!("#/definitions/{name}")}));
            }
            let skipped: BTreeSet<&str> =
                ["nullable", "example", "readOnly", "writeOnly", "discriminator", "xml"].into();
            let mut out = Map::new();
            for (key, value) in object {
                if key.starts_with("x-") || skipped.contains(key.as_str()) {
                    continue;
                }
                let value = match key.as_str() {
                    "properties" | "definitions" => Value::Object(
                        value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(name, member)| Ok((name.clone(), converted(spec, member, definitions)?)))
                            .collect::<Result<_>>()?,
                    ),
                    "enum" | "required" | "default" => value.clone(),
                    _ => converted(spec, value, definitions)?,
                };
                out.insert(key.clone(), value);
            }
            if object.get("nullable") == Some(&Value::Bool(true)) {
                match out.get("type").cloned() {
                    Some(Value::String(kind)) => {
                        out.insert("type".to_owned(), json!([kind, "null"]));
                    }
                    _ => {
                        let inner = Value::Object(std::mem::take(&mut out));
                        out.insert("anyOf".to_owned(), json!([inner, {"type": "null"}]));
                    }
                }
                if let Some(Value::Array(values)) = out.get_mut("enum") {
                    values.push(Value::Null);
                }
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => Ok(Value::Array(
            items
                .iter()
                .map(|item| converted(spec, item, definitions))
                .collect::<Result<_>>()?,
        )),
        other => Ok(other.clone()),
    }
}
