//! One description of each operation, from the YAML and the types progenitor
//! chose for its parameters and answer: what the builders, their requests,
//! the operation table's reading column, the test driver and the operation
//! index are all generated from.

use crate::codegen::spec::{is_list_envelope, operations_with_ids, parameters, success_schema, success_statuses};
use crate::codegen::syntax::{
    builder_name, field_name, first_generic, generic_args, is_named, is_unit, module_items_ref,
};
use anyhow::{bail, Context, Result};
use serde_json::Value;

/// An operation, as the generator emits it.
pub struct Operation {
    /// The YAML's `operationId`.
    pub id: String,
    /// The builder's name (`GetTask`).
    pub builder: syn::Ident,
    /// `GET`, `POST`, …
    pub method: String,
    /// The YAML's path template.
    pub path: String,
    /// Its row in `operations::ALL`.
    pub index: usize,
    /// Parameters, in progenitor's order (the order the query is written in).
    pub params: Vec<Param>,
    pub body: Option<Body>,
    /// The decoded success body (`()` where none is documented).
    pub success: syn::Type,
    pub reading: Reading,
    /// The 2xx statuses the YAML documents, as inclusive ranges.
    pub success_statuses: Vec<(u16, u16)>,
    /// The YAML's `x-paging`, when the operation declares one.
    pub paging: Value,
    /// The YAML's `x-period` (`none`: its period pair takes no day period).
    pub period: Value,
}

/// A path, query or header parameter.
pub struct Param {
    /// The name on the wire (`task-id`).
    pub name: String,
    /// The builder's field and setter (`task_id`).
    pub field: syn::Ident,
    /// The value's type (`NonZeroU64`; `Vec<E>` for a list).
    pub ty: syn::Type,
    pub optional: bool,
    pub location: Location,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Path,
    /// `joined`: a list sent as one comma-separated value (`explode: false`).
    Query {
        joined: bool,
    },
    Header,
}

/// A request body.
pub enum Body {
    /// A JSON body of type `ty`; `builder` is its typify builder, when it has one.
    Json {
        ty: Box<syn::Type>,
        builder: Option<Box<syn::Type>>,
    },
    /// A body sent as it is, with its documented media type.
    Raw { content_type: String },
}

/// How the success body is read (the table's `reading` column).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Empty,
    Whole,
    WhileArriving,
}

impl Reading {
    pub fn variant(self) -> &'static str {
        match self {
            Reading::Empty => "Empty",
            Reading::Whole => "Whole",
            Reading::WhileArriving => "WhileArriving",
        }
    }
}

impl Param {
    /// The element type when the parameter is a list.
    pub fn element(&self) -> Option<syn::Type> {
        is_named(&self.ty, "Vec").then(|| first_generic(&self.ty)).flatten()
    }
}

/// Every operation of `service`, in the YAML's order, from the YAML and
/// progenitor's (unmodified) output.
pub fn operations(service: &str, spec: &Value, progenitor: &syn::File) -> Result<Vec<Operation>> {
    let builders =
        module_items_ref(&progenitor.items, "builder").context("progenitor's output has no `builder` module")?;
    let mut out = Vec::new();
    for (index, (path, method, id, op)) in operations_with_ids(spec)?.into_iter().enumerate() {
        let name = builder_name(id);
        let fields = builder_fields(builders, &name).with_context(|| format!("{id}: no builder `{name}`"))?;
        let success = send_success(builders, &name).with_context(|| format!("{id}: no send() with a success type"))?;
        let mut params = Vec::new();
        let yaml_params = parameters(spec, &path, op);
        for (field, value_type) in &fields {
            if field == "body" {
                continue;
            }
            let param = yaml_params
                .iter()
                .find(|p| p["name"].as_str().is_some_and(|n| *field == field_name(n)))
                .with_context(|| format!("{id}: builder field `{field}` is no parameter of the YAML"))?;
            let name = param["name"].as_str().unwrap_or_default().to_owned();
            let location = match param["in"].as_str() {
                Some("path") => Location::Path,
                Some("query") => Location::Query {
                    joined: param["explode"] == Value::Bool(false)
                        && crate::bounds::resolve(spec, &param["schema"])["type"] == "array",
                },
                Some("header") => Location::Header,
                other => bail!("{id}: parameter `{name}` is in {other:?}, which the generator does not send"),
            };
            let required = location == Location::Path || param["required"] == Value::Bool(true);
            let (ty, optional) = match (required, is_named(value_type, "Option")) {
                (false, true) => (first_generic(value_type).context("Option<T>")?, true),
                (true, false) => (value_type.clone(), false),
                (required, _) => {
                    bail!("{id}: parameter `{name}` is required: {required}, but progenitor's type disagrees")
                }
            };
            params.push(Param {
                name,
                field: field.clone(),
                ty,
                optional,
                location,
            });
        }
        if params.len() != yaml_params.len() {
            bail!(
                "{id}: the YAML has {} parameters, progenitor's builder {}",
                yaml_params.len(),
                params.len()
            );
        }
        let body = match fields.iter().find(|(field, _)| field == "body") {
            None => None,
            Some((_, ty)) => Some(body_of(id, op, ty)?),
        };
        if body.is_some() != op.get("requestBody").is_some() {
            bail!("{id}: the YAML and progenitor disagree on whether it has a body");
        }
        let schema = success_schema(spec, op);
        let reading = match (schema, is_unit(&success)) {
            (None, true) => Reading::Empty,
            // The analytics reports answer up to 50,000 rows (about 19 MiB): read while they arrive.
            (Some(schema), false) if service == "analytics" && is_list_envelope(spec, schema) => Reading::WhileArriving,
            (Some(_), false) => Reading::Whole,
            (schema, _) => bail!(
                "{id}: the YAML {} a success body, progenitor's answer type is {}",
                if schema.is_some() { "documents" } else { "documents no" },
                quote::quote!(#success)
            ),
        };
        out.push(Operation {
            id: id.to_owned(),
            builder: syn::Ident::new(&name, proc_macro2::Span::call_site()),
            method,
            path,
            index,
            params,
            body,
            success,
            reading,
            success_statuses: success_statuses(op),
            paging: op["x-paging"].clone(),
            period: op["x-period"].clone(),
        });
    }
    Ok(out)
}

/// The fields of progenitor's builder `name` (the client field aside): name
/// and the type inside its `Result<_, String>`.
fn builder_fields(builders: &[syn::Item], name: &str) -> Option<Vec<(syn::Ident, syn::Type)>> {
    let strukt = builders.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == name => Some(s),
        _ => None,
    })?;
    strukt
        .fields
        .iter()
        .filter(|f| f.ident.as_ref().is_some_and(|i| i != "client"))
        .map(|f| {
            let inner = is_named(&f.ty, "Result").then(|| first_generic(&f.ty)).flatten()?;
            Some((f.ident.clone()?, inner))
        })
        .collect()
}

/// `S` of progenitor's `send(self) -> Result<ResponseValue<S>, Error<E>>` for builder `name`.
fn send_success(builders: &[syn::Item], name: &str) -> Option<syn::Type> {
    builders.iter().find_map(|item| {
        let syn::Item::Impl(block) = item else { return None };
        let syn::Type::Path(path) = &*block.self_ty else {
            return None;
        };
        if block.trait_.is_some() || path.path.segments.last().is_none_or(|s| s.ident != name) {
            return None;
        }
        block.items.iter().find_map(|member| match member {
            syn::ImplItem::Fn(f) if f.sig.ident == "send" => match &f.sig.output {
                syn::ReturnType::Type(_, ty) => {
                    let ok = generic_args(ty).into_iter().next()?;
                    first_generic(ok)
                }
                syn::ReturnType::Default => None,
            },
            _ => None,
        })
    })
}

fn body_of(id: &str, op: &Value, ty: &syn::Type) -> Result<Body> {
    let content = op["requestBody"]["content"]
        .as_object()
        .with_context(|| format!("{id}: requestBody has no content"))?;
    if content.contains_key("application/json") {
        let names = crate::codegen::syntax::path_names(ty);
        // progenitor holds an object body as its typify builder (`types::builder::X`).
        return Ok(match names.as_slice() {
            [types, builder, name] if types == "types" && builder == "builder" => Body::Json {
                ty: Box::new(syn::parse_str(&format!("types::{name}"))?),
                builder: Some(Box::new(ty.clone())),
            },
            _ => Body::Json {
                ty: Box::new(ty.clone()),
                builder: None,
            },
        });
    }
    let [(media, _)] = content.iter().collect::<Vec<_>>()[..] else {
        bail!("{id}: a raw body with several media types")
    };
    if !is_named(ty, "Body") {
        bail!("{id}: a `{media}` body that progenitor does not hold as `reqwest::Body`");
    }
    Ok(Body::Raw {
        content_type: media.clone(),
    })
}
