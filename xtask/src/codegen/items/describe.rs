//! What the table says of an operation's request beyond its route: its
//! arguments (parameters and the body's top-level scalar members), its body's
//! members and its aliases, and, for the `help` feature of the client crates,
//! the words a reader showing help needs (descriptions, rules, the body
//! template). Every reader of arguments (the command line, the test driver,
//! bulk rows) reads these rows; none has its own emitter.

use crate::bounds::resolve;
use crate::codegen::items::operation_builders::argument_name;
use crate::codegen::model::{Body, Location, Operation};
use crate::codegen::spec::{is_nullable, parameters};
use anyhow::{Context, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// How deep the body template and member list follow nested objects.
const MAX_DEPTH: usize = 8;

/// One operation's request, as the table's columns and its help.
pub struct Described {
    /// `vidplat_core::Argument` rows.
    pub arguments: Vec<TokenStream>,
    /// `Option<vidplat_core::RequestBody>`.
    pub body: TokenStream,
    /// The YAML's `x-aliases`, as operation IDs.
    pub aliases: Vec<String>,
    /// `vidplat_core::OperationHelp`.
    pub help: TokenStream,
}

/// Each component schema's properties in the YAML's order (the JSON value
/// the generator reads keeps them sorted by name).
pub struct MemberOrder(std::collections::HashMap<String, Vec<String>>);

impl MemberOrder {
    pub fn read(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let yaml: serde_yaml::Value =
            serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let names = |value: &serde_yaml::Value| -> Vec<String> {
            value
                .as_mapping()
                .into_iter()
                .flat_map(|m| m.keys())
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect()
        };
        let order = yaml["components"]["schemas"]
            .as_mapping()
            .into_iter()
            .flatten()
            .filter_map(|(name, schema)| Some((name.as_str()?.to_owned(), names(&schema["properties"]))))
            .collect();
        Ok(Self(order))
    }

    /// `members` as the schema `reference` (`#/components/schemas/Task`) lists them.
    fn sort(&self, reference: Option<&str>, members: &mut [String]) {
        let Some(order) = reference
            .and_then(|r| r.rsplit('/').next())
            .and_then(|name| self.0.get(name))
        else {
            return;
        };
        members.sort_by_key(|member| order.iter().position(|m| m == member).unwrap_or(usize::MAX));
    }
}

pub fn describe(spec: &Value, op: &Operation, order: &MemberOrder) -> Result<Described> {
    let yaml = &spec["paths"][&op.path][op.method.to_lowercase()];
    let name = kebab(&op.id);
    let description = yaml["description"].as_str().unwrap_or_default().trim().to_owned();
    let aliases: Vec<String> = yaml["x-aliases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["operationId"].as_str().map(str::to_owned))
        .collect();
    let yaml_params = parameters(spec, &op.path, yaml);
    let mut arguments = Vec::new();
    let mut helps = Vec::new();
    for param in &op.params {
        let yaml_param = yaml_params
            .iter()
            .find(|p| p["name"].as_str() == Some(param.name.as_str()))
            .with_context(|| format!("{}: parameter {}", op.id, param.name))?;
        let schema = merged(spec, &yaml_param["schema"]);
        let place = match param.location {
            Location::Path => quote!(Path),
            Location::Query { .. } => quote!(Query),
            Location::Header => quote!(Header),
        };
        helps.push(help_text(
            yaml_param["description"]
                .as_str()
                .or(schema.get("description").and_then(Value::as_str)),
            spec,
            &schema,
        ));
        arguments.push(argument(
            spec,
            &argument_name(&param.field),
            &param.name,
            place,
            &schema,
            !param.optional,
        ));
    }
    let (body, template) = match &op.body {
        Some(Body::Json { .. }) => {
            let schema = &yaml["requestBody"]["content"]["application/json"]["schema"];
            let object = merged(spec, schema);
            for (member, property) in properties(&object) {
                let property = merged(spec, property);
                // Scalars, and lists of scalars (a repeated flag: `--presets 3 --presets 7`).
                let items = property
                    .get("items")
                    .filter(|_| property.get("type").and_then(Value::as_str) == Some("array"))
                    .map(|items| merged(spec, items));
                if !is_scalar(&property) && !items.as_ref().is_some_and(is_scalar) {
                    continue;
                }
                helps.push(help_text(
                    property.get("description").and_then(Value::as_str),
                    spec,
                    &property,
                ));
                // Never required alone: the body may come whole.
                arguments.push(argument(spec, member, member, quote!(Body), &property, false));
            }
            let mut members = Members {
                all: Vec::new(),
                required: Vec::new(),
                nullable: Vec::new(),
            };
            collect_members(spec, schema, "", &mut members, 0, &mut BTreeSet::new());
            let required = members.required.clone();
            let nullable = members.nullable.clone();
            let members = members.all.iter().map(|(path, kind)| {
                let kind = kind_ident(kind);
                quote!((#path, vidplat_core::Kind::#kind))
            });
            let title = schema["$ref"]
                .as_str()
                .and_then(|r| r.rsplit('/').next())
                .unwrap_or("body");
            let template = format!(
                "# {name}: the request body ({title}). Every member, with its type, its rule and what the\n\
                 # documents do not show; delete what you do not send, then `--body @file.yaml`.\n{}",
                template(spec, schema)
            );
            (
                quote!(Some(vidplat_core::RequestBody {
                    json: true,
                    members: &[#(#members),*],
                    required: &[#(#required),*],
                    nullable: &[#(#nullable),*],
                })),
                template,
            )
        }
        Some(Body::Raw { content_type }) => (
            quote!(Some(vidplat_core::RequestBody {
                json: false,
                members: &[],
                required: &[],
                nullable: &[]
            })),
            format!("# {name}: the request body is sent as it is ({content_type}).\n"),
        ),
        None => (quote!(None), String::new()),
    };
    let (row_members, table_columns) = row_columns(spec, yaml, order).with_context(|| op.id.clone())?;
    let help = quote! {
        vidplat_core::OperationHelp {
            description: #description,
            arguments: &[#(#helps),*],
            body_template: #template,
            row_members: &[#(#row_members),*],
            table_columns: &[#(#table_columns),*],
        }
    };
    Ok(Described {
        arguments,
        body,
        aliases,
        help,
    })
}

/// The members of a row of the list an operation answers (its success
/// body's `data` items), and the row schema's `x-table-columns`.
fn row_columns(spec: &Value, op: &Value, order: &MemberOrder) -> Result<(Vec<String>, Vec<String>)> {
    let success = &op["responses"]["200"]["content"]["application/json"]["schema"];
    let envelope = merged(spec, success);
    let Some(items) = envelope
        .get("properties")
        .and_then(|p| p.get("data"))
        .map(|data| merged(spec, data))
        .and_then(|data| data.get("items").cloned())
    else {
        return Ok((Vec::new(), Vec::new()));
    };
    let row = merged(spec, &items);
    let mut members: Vec<String> = row
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    order.sort(items["$ref"].as_str(), &mut members);
    let columns: Vec<String> = row
        .get("x-table-columns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            c.as_str()
                .map(str::to_owned)
                .context("x-table-columns: a name is not text")
        })
        .collect::<Result<_>>()?;
    if let Some(unknown) = columns.iter().find(|c| !members.contains(c)) {
        anyhow::bail!("x-table-columns names `{unknown}`, which is not a member of the row");
    }
    Ok((members, columns))
}

/// `list_tasks` → `list-tasks`.
fn kebab(id: &str) -> String {
    id.trim_end_matches('_').replace('_', "-")
}

/// A schema with its `$ref` and single-part `allOf` folded in (the YAML wraps
/// a `$ref` in `allOf` to describe it): the part's keys, then the schema's own.
fn merged(spec: &Value, schema: &Value) -> Map<String, Value> {
    let schema = resolve(spec, schema);
    let mut out = Map::new();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        out.extend(merged(spec, part));
    }
    for (key, value) in schema.as_object().into_iter().flatten() {
        if key != "allOf" {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

/// A merged schema's `properties`, in name order.
fn properties(schema: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// The names a merged schema's `required` lists.
fn required(schema: &Map<String, Value>) -> impl Iterator<Item = &str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

fn kind_of(schema: &Map<String, Value>) -> &'static str {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => "Integer",
        Some("number") => "Number",
        Some("boolean") => "Boolean",
        Some("array") => "Array",
        Some("object") => "Object",
        Some(_) => "String",
        None if schema.contains_key("properties") => "Object",
        None if schema.contains_key("items") => "Array",
        None => "String",
    }
}

/// The `vidplat_core::Kind` variant of a kind `kind_of` names.
fn kind_ident(kind: &str) -> proc_macro2::Ident {
    format_ident!("{}", if kind == "String" { "Text" } else { kind })
}

fn is_scalar(schema: &Map<String, Value>) -> bool {
    matches!(kind_of(schema), "Integer" | "Number" | "Boolean" | "String")
}

/// One `vidplat_core::Argument`: its kind, whether it is a list, its enum values.
fn argument(
    spec: &Value,
    name: &str,
    wire: &str,
    place: TokenStream,
    schema: &Map<String, Value>,
    required: bool,
) -> TokenStream {
    let (element, repeated) = match schema.get("type").and_then(Value::as_str) {
        Some("array") => (merged(spec, schema.get("items").unwrap_or(&Value::Null)), true),
        _ => (schema.clone(), false),
    };
    let kind = kind_ident(kind_of(&element));
    let values: Vec<&str> = element
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    quote! {
        vidplat_core::Argument {
            name: #name,
            wire: #wire,
            place: vidplat_core::Place::#place,
            kind: vidplat_core::Kind::#kind,
            repeated: #repeated,
            required: #required,
            values: &[#(#values),*],
        }
    }
}

/// A flag's help: the description's first paragraph, then its rules and default.
fn help_text(description: Option<&str>, spec: &Value, schema: &Map<String, Value>) -> String {
    let first = description
        .unwrap_or_default()
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = first.trim_end_matches('.').to_owned();
    let rules = rules(spec, schema);
    if !rules.is_empty() {
        out.push_str(&format!(" [{}]", rules.join(", ")));
    }
    out
}

/// The rules of a value as the YAML states them: bounds, format and the server's default.
fn rules(spec: &Value, schema: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let own = crate::bounds::of_value(spec, &Value::Object(schema.clone()));
    out.extend(own.iter().map(ToString::to_string));
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        out.push(format!("format {format}"));
    }
    if let Some(default) = schema.get("default") {
        out.push(format!("server default {}", scalar_text(default)));
    }
    out
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every member of the body, as `a.b[].c` with its kind: what `--set` may set.
/// Every member of the body, as `a.b[].c` with its kind, (in `required`)
/// those its object's `required` list names, and (in `nullable`) those the
/// YAML marks `nullable`.
struct Members {
    all: Vec<(String, &'static str)>,
    required: Vec<String>,
    nullable: Vec<String>,
}

fn collect_members(
    spec: &Value,
    schema: &Value,
    at: &str,
    out: &mut Members,
    depth: usize,
    seen: &mut BTreeSet<String>,
) {
    let reference = schema["$ref"].as_str().map(str::to_owned);
    if depth > MAX_DEPTH || reference.as_ref().is_some_and(|r| seen.contains(r)) {
        return;
    }
    if let Some(r) = &reference {
        seen.insert(r.clone());
    }
    let merged_schema = merged(spec, schema);
    let kind = kind_of(&merged_schema);
    if !at.is_empty() {
        out.all.push((at.to_owned(), kind));
        if is_nullable(schema) || is_nullable(&Value::Object(merged_schema.clone())) {
            out.nullable.push(at.to_owned());
        }
    }
    match kind {
        "Object" => {
            // An object that takes members the YAML does not name: `a.*`, with their kind.
            let open = match merged_schema.get("additionalProperties") {
                Some(Value::Bool(true)) => Some("String"),
                Some(schema @ Value::Object(_)) => Some(kind_of(&merged(spec, schema))),
                _ => None,
            };
            if let Some(kind) = open {
                let path = if at.is_empty() {
                    "*".to_owned()
                } else {
                    format!("{at}.*")
                };
                out.all.push((path, kind));
            }
            let required: Vec<&str> = required(&merged_schema).collect();
            for (name, property) in properties(&merged_schema) {
                let path = if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}.{name}")
                };
                if required.contains(&name.as_str()) {
                    out.required.push(path.clone());
                }
                collect_members(spec, property, &path, out, depth + 1, seen);
            }
        }
        "Array" => {
            if let Some(items) = merged_schema.get("items") {
                collect_members(spec, items, &format!("{at}[]"), out, depth + 1, seen);
            }
        }
        _ => {}
    }
    if let Some(r) = &reference {
        seen.remove(r);
    }
}

/// The body template: YAML, every member with a placeholder, its description,
/// rules and `x-gap` note as comments above it.
fn template(spec: &Value, schema: &Value) -> String {
    let mut out = String::new();
    template_members(spec, schema, 0, &mut out, &mut BTreeSet::new());
    out
}

fn template_members(spec: &Value, schema: &Value, indent: usize, out: &mut String, seen: &mut BTreeSet<String>) {
    let reference = schema["$ref"].as_str().map(str::to_owned);
    if indent / 2 > MAX_DEPTH || reference.as_ref().is_some_and(|r| seen.contains(r)) {
        return;
    }
    if let Some(r) = &reference {
        seen.insert(r.clone());
    }
    let object = merged(spec, schema);
    let required: BTreeSet<&str> = required(&object).collect();
    let pad = " ".repeat(indent);
    for (name, property) in properties(&object) {
        let member = merged(spec, property);
        let kind = kind_of(&member);
        let mut facts = vec![kind.to_lowercase()];
        if required.contains(name.as_str()) {
            facts.push("required".to_owned());
        }
        if let Some(values) = member.get("enum").and_then(Value::as_array) {
            facts.push(format!(
                "one of {}",
                values.iter().map(scalar_text).collect::<Vec<_>>().join(", ")
            ));
        }
        facts.extend(rules(spec, &member));
        let description = member
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("{pad}# {name} ({})", facts.join("; ")));
        if !description.is_empty() {
            out.push_str(&format!(": {description}"));
        }
        out.push('\n');
        if let Some(gap) = member.get("x-gap").and_then(Value::as_str) {
            out.push_str(&format!(
                "{pad}#   not shown in the documents: {}\n",
                gap.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        match kind {
            "Object" => {
                out.push_str(&format!("{pad}{name}:\n"));
                let before = out.len();
                template_members(spec, property, indent + 2, out, seen);
                if out.len() == before {
                    out.truncate(before - 1);
                    out.push_str(" {}\n");
                }
            }
            "Array" => {
                let items = member.get("items").cloned().unwrap_or(Value::Null);
                let element = merged(spec, &items);
                if kind_of(&element) == "Object" {
                    let mut members = String::new();
                    template_members(spec, &items, indent + 4, &mut members, seen);
                    if members.is_empty() {
                        out.push_str(&format!("{pad}{name}: [{{}}]\n"));
                    } else {
                        out.push_str(&format!("{pad}{name}:\n{pad}  -\n{members}"));
                    }
                } else {
                    out.push_str(&format!("{pad}{name}: [{}]\n", placeholder(&element)));
                }
            }
            _ => out.push_str(&format!("{pad}{name}: {}\n", placeholder(&member))),
        }
    }
    if let Some(r) = &reference {
        seen.remove(r);
    }
}

/// A value of the member's kind: its default, its first enum value, or an empty one.
fn placeholder(schema: &Map<String, Value>) -> String {
    if let Some(default) = schema.get("default") {
        return serde_json::to_string(default).unwrap_or_default();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|v| v.first()) {
        return serde_json::to_string(first).unwrap_or_default();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") | Some("number") => "0".to_owned(),
        Some("boolean") => "false".to_owned(),
        _ => "\"\"".to_owned(),
    }
}
