//! `cargo xtask codegen [--check]`: openapi/<service>.yaml → crates/vidplat-<service>/src/generated.rs.
//!
//! progenitor writes the client and its types. This module adds, from the same
//! YAML: an open Rust enum for every `x-extensible-enum` schema (swapped in for
//! progenitor's `String` by a type replacement), the shared timestamp types,
//! a table of operations for the runtime (routes, auth, quotas, error codes,
//! secret members), a redacting `Debug` for types holding `x-secret` members,
//! and success bodies decoded by `vidplat_core::decode_response`.

use crate::services::{operations, repo_root, Service, SERVICES};
use anyhow::{anyhow, bail, Context, Result};
use proc_macro2::TokenStream;
use progenitor::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle, TypeImpl};
use quote::{format_ident, quote};
use serde_json::Value;
use std::collections::BTreeSet;

pub fn run(check: bool) -> Result<()> {
    let started = std::time::Instant::now();
    let mut stale = Vec::new();
    let mut index = Vec::new();
    for service in &SERVICES {
        let (client, driver, rows) = generate(service)?;
        index.extend(rows);
        let outputs = [
            (
                repo_root()
                    .join("crates")
                    .join(service.crate_dir)
                    .join("src/generated.rs"),
                client,
            ),
            (
                repo_root()
                    .join("tests/src/generated")
                    .join(format!("{}.rs", service.name)),
                driver,
            ),
        ];
        stale.extend(write_or_check(outputs, check)?);
    }
    let index = [(
        repo_root().join("crates/vidplat/src/operations.md"),
        crate::index::render(&index),
    )];
    stale.extend(write_or_check(index, check)?);
    if !stale.is_empty() {
        bail!(
            "generated files are stale (run `cargo xtask codegen`):\n{}",
            stale.join("\n")
        );
    }
    println!(
        "codegen: {} ({:.1?})",
        if check {
            "generated files are up to date"
        } else {
            "done"
        },
        started.elapsed()
    );
    Ok(())
}

/// Writes each generated file, or (with `check`) says which differ from the committed ones.
fn write_or_check(outputs: impl IntoIterator<Item = (std::path::PathBuf, String)>, check: bool) -> Result<Vec<String>> {
    let mut stale = Vec::new();
    {
        for (path, generated) in outputs {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            if committed == generated {
                continue;
            }
            if check {
                stale.push(format!("{}\n{}", path.display(), short_diff(&committed, &generated)));
            } else {
                std::fs::write(&path, &generated).with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {}", path.display());
            }
        }
    }
    Ok(stale)
}

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

/// The client crate's `generated.rs`, the test driver for it, and its rows of the operation index.
pub fn generate(service: &Service) -> Result<(String, String, Vec<crate::index::Row>)> {
    let value = service.load()?;
    let spec: openapiv3::OpenAPI = serde_json::from_value(keeping_undocumented_members(with_route_notes(&value)))
        .with_context(|| format!("{} is not OpenAPI 3.0", service.name))?;
    let enums = open_enums(&value);

    let mut settings = GenerationSettings::default();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_hooks(HooksMode::Expected)
        .with_inner_type(quote!(vidplat_core::Runtime))
        .with_derive("schemars::JsonSchema");
    let schemas = value["components"]["schemas"].as_object();
    for (schema, replacement) in [("Timestamp", "vidplat_core::Timestamp"), ("Date", "vidplat_core::Date")] {
        if schemas.is_some_and(|s| s.contains_key(schema)) {
            settings.with_replacement(schema, replacement, [TypeImpl::Display, TypeImpl::FromStr].into_iter());
        }
    }
    for e in &enums {
        settings.with_replacement(
            &e.name,
            format!("crate::types::{}", e.name),
            [TypeImpl::Display, TypeImpl::FromStr].into_iter(),
        );
    }

    let tokens = Generator::new(&settings)
        .generate_tokens(&spec)
        .map_err(|e| anyhow!("progenitor failed on {}: {e}", service.name))?;
    let mut file: syn::File = syn::parse2(tokens).context("parsing progenitor's output")?;

    // Open enums go into the `types` module beside progenitor's types.
    let mut enum_items: Vec<syn::Item> = enums
        .iter()
        .map(enum_tokens)
        .map(syn::parse2)
        .collect::<Result<_, _>>()?;
    let types = file
        .items
        .iter_mut()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "types" => m.content.as_mut(),
            _ => None,
        })
        .context("progenitor's output has no `types` module")?;
    writing_nulls_in_responses(&mut types.1, &value)?;
    let paged = paged_impls(&types.1)?;
    enum_items.extend(paged);
    types.1.extend(enum_items);
    redact_secrets(&mut types.1, &secret_members(&value))?;

    file.items.push(syn::parse2(operation_table(service, &value)?)?);
    let operation_impls = operation_impls(&value, &file)?;
    file.items.extend(operation_impls);
    crate::setters::rewrite(&mut file)?;
    let paginated = paginated_impls(&value)?;
    crate::setters::module_items(&mut file.items, "builder")
        .context("no `builder` module")?
        .extend(paginated);
    file.items.extend(alias_methods(&value)?);
    let driver = test_driver(service, &value, &file)?;
    crate::schemars_feature::behind_feature(&mut file.items)?;
    crate::patterns::to_regex_lite(&mut file)?;
    crate::streaming_lists::decode_while_arriving(&mut file, service.name)?;
    crate::api_version::drop_header(&mut file)?;
    let rows = crate::index::rows(service, &value, &file)?;

    let header = format!(
        "// @generated by `cargo xtask codegen` from openapi/{}.yaml (progenitor {}).\n\
         // Do not edit: change the YAML or xtask/src/codegen.rs and run `cargo xtask codegen`.\n\n\
         // progenitor matches a `4XX` range before the explicit 401/403/404 arms; all of them\n\
         // decode the same `Error`, so the later arms are unreachable and harmless.\n\
         // typify emits generic `defaults::default_*` helpers whether or not a default uses them.\n\
         #![allow(unreachable_patterns, dead_code)]\n\n",
        service.name, PROGENITOR_VERSION
    );
    // typify's builders demand a value for the flattened `extra` map; none is the natural default.
    let code = prettyplease::unparse(&file).replace(
        r#"extra: Err("no value supplied for extra".to_string())"#,
        "extra: Ok(Default::default())",
    );
    // Success bodies decode through the runtime, which says where a body failed and redacts its excerpt.
    let code = code.replace(
        "ResponseValue::from_response(response)",
        "vidplat_core::decode_response(response)",
    );
    let code = with_comma_separated_lists(code, &value)?;
    Ok((header + &code, driver, rows))
}

const PROGENITOR_VERSION: &str = "0.15.1";

/// `impl vidplat_core::Operation` for every operation builder: its id, and the
/// success and error types of its `send`.
fn operation_impls(spec: &Value, client: &syn::File) -> Result<Vec<syn::Item>> {
    let builder = builder_items(client)?;
    let mut impls = Vec::new();
    for (_, _, op) in operations(spec) {
        let id = op["operationId"].as_str().context("operationId")?;
        let name = format_ident!("{}", builder_name(id));
        // `send(self) -> Result<ResponseValue<Success>, Error<ErrorBody>>`
        let output = send_output(builder, &name.to_string()).with_context(|| format!("no send() for {id}"))?;
        let [ok, err] = generic_args(&output)[..] else {
            bail!("{id}: send() does not return Result<_, _>")
        };
        let success = generic_args(ok)
            .into_iter()
            .next()
            .with_context(|| format!("{id}: ResponseValue<T>"))?;
        let error_body = generic_args(err)
            .into_iter()
            .next()
            .with_context(|| format!("{id}: Error<E>"))?;
        impls.push(syn::parse2(quote! {
            impl<'a> vidplat_core::Operation for builder::#name<'a> {
                const ID: &'static str = #id;
                type Success = #success;
                type ErrorBody = #error_body;
                fn send_operation(self) -> impl ::std::future::Future<Output = #output> + Send {
                    self.send()
                }
            }
        })?);
    }
    Ok(impls)
}

/// progenitor sends every list query parameter in the `explode: true` form
/// (`type=A&type=B`). For those the YAML declares `explode: false`, the
/// operation's `send` uses `vidplat_core::CommaSeparated` instead (`type=A,B`).
fn with_comma_separated_lists(mut code: String, spec: &Value) -> Result<String> {
    for (path, _, op) in operations(spec) {
        let id = op["operationId"].as_str().context("operationId")?;
        let params = spec["paths"][&path]["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(op["parameters"].as_array().into_iter().flatten())
            .map(|p| crate::bounds::resolve(spec, p));
        for param in params {
            let joined = param["in"] == "query"
                && param["explode"] == Value::Bool(false)
                && crate::bounds::resolve(spec, &param["schema"])["type"] == "array";
            let Some(name) = param["name"].as_str().filter(|_| joined) else {
                continue;
            };
            let start = code
                .find(&format!("impl<'a> {}<'a> {{", builder_name(id)))
                .with_context(|| format!("no builder impl for {id}"))?;
            let end = code[start + 1..].find("\nimpl").map_or(code.len(), |e| start + 1 + e);
            let from = format!("progenitor_client::QueryParam::new(\"{name}\",");
            let at = code[start..end]
                .find(&from)
                .map(|offset| start + offset)
                .with_context(|| format!("{id}: no query parameter `{name}` in its send()"))?;
            code.replace_range(
                at..at + from.len(),
                &format!("vidplat_core::CommaSeparated::new(\"{name}\","),
            );
        }
    }
    Ok(code)
}

/// A method per `x-aliases` entry: a documented operation that, as far as the
/// documents show, is the very request of another one (List shared profiles is
/// List profiles' request). It returns that operation's builder.
fn alias_methods(spec: &Value) -> Result<Vec<syn::Item>> {
    let mut items = Vec::new();
    for (path, method, op) in operations(spec) {
        let target = op["operationId"].as_str().context("operationId")?;
        for alias in op["x-aliases"].as_array().into_iter().flatten() {
            let id = alias["operationId"].as_str().context("x-aliases[].operationId")?;
            let summary = alias["summary"].as_str().unwrap_or(id);
            let doc = format!(
                "{summary}\n\n{}\n\nSends `{method} {path}`: this is [`Client::{target}`]'s request, and it \
                 returns that operation's builder.",
                alias["description"].as_str().unwrap_or_default().trim()
            );
            let (name, target_ident) = (format_ident!("{}", id), format_ident!("{}", target));
            let builder = format_ident!("{}", builder_name(target));
            items.push(syn::parse2(quote! {
                impl Client {
                    #[doc = #doc]
                    pub fn #name(&self) -> builder::#builder<'_> {
                        self.#target_ident()
                    }
                }
            })?);
        }
    }
    Ok(items)
}

/// The query parameters that move through a list.
const PAGING_PARAMETERS: [&str; 6] = ["page", "per_page", "offset", "limit", "start_with", "end_with"];

/// `impl vidplat_core::Paginated` for every operation whose YAML declares its
/// paging style in `x-paging` (inside progenitor's `builder` module, so it can
/// read where the caller's builder starts). An operation that takes paging
/// parameters without declaring a style is an error: it would get no paginator.
fn paginated_impls(spec: &Value) -> Result<Vec<syn::Item>> {
    let mut impls = Vec::new();
    for (path, _, op) in operations(spec) {
        let id = op["operationId"].as_str().context("operationId")?;
        let params: Vec<String> = spec["paths"][&path]["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(op["parameters"].as_array().into_iter().flatten())
            .filter_map(|p| crate::bounds::resolve(spec, p)["name"].as_str().map(str::to_owned))
            .collect();
        let paging = &op["x-paging"];
        if paging.is_null() {
            if let Some(p) = params.iter().find(|p| PAGING_PARAMETERS.contains(&p.as_str())) {
                bail!("{id} takes the paging parameter `{p}` but declares no `x-paging`");
            }
            continue;
        }
        let param = |key: &str| -> Result<syn::Ident> {
            let name = paging[key]
                .as_str()
                .with_context(|| format!("{id}: x-paging.{key} names no parameter"))?;
            if !params.iter().any(|p| p == name) {
                bail!("{id}: x-paging.{key} is `{name}`, which is not one of its parameters");
            }
            Ok(format_ident!("{}", name))
        };
        let style = paging["style"]
            .as_str()
            .with_context(|| format!("{id}: x-paging.style"))?;
        let (variant, first, at) = match style {
            "last_page" | "truncated" => {
                let page = param("page")?;
                param("size")?;
                (
                    if style == "last_page" {
                        quote!(LastPage)
                    } else {
                        quote!(Truncated)
                    },
                    quote!(::vidplat_core::first_number(::vidplat_core::paging_field(&self.#page))),
                    quote!(::vidplat_core::PagePosition::Number(page) => self.#page(page),),
                )
            }
            "rank_windows" => {
                let (start, end) = (param("start")?, param("end")?);
                (
                    quote!(RankWindows),
                    quote!(::vidplat_core::first_ranks(
                        ::vidplat_core::paging_field(&self.#start),
                        ::vidplat_core::paging_field(&self.#end),
                    )),
                    quote!(::vidplat_core::PagePosition::Ranks { start, end } => self.#start(start).#end(end),),
                )
            }
            "offset_limit" => {
                let offset = param("offset")?;
                param("size")?;
                (
                    quote!(OffsetLimit),
                    quote!(::vidplat_core::PagePosition::Offset(
                        ::vidplat_core::paging_field(&self.#offset).unwrap_or(0)
                    )),
                    quote!(::vidplat_core::PagePosition::Offset(offset) => self.#offset(offset),),
                )
            }
            other => bail!("{id}: unknown x-paging.style `{other}`"),
        };
        let name = format_ident!("{}", builder_name(id));
        impls.push(syn::parse2(quote! {
            impl<'a> ::vidplat_core::Paginated for #name<'a> {
                const STYLE: ::vidplat_core::PagingStyle = ::vidplat_core::PagingStyle::#variant;
                fn first(&self) -> ::vidplat_core::PagePosition {
                    #first
                }
                fn at(self, position: ::vidplat_core::PagePosition) -> Self {
                    match position {
                        #at
                        _ => self,
                    }
                }
            }
        })?);
    }
    Ok(impls)
}

/// `impl vidplat_core::Paged` for every struct with a `data: Vec<T>` field,
/// reading `truncated` and `last_page` where the struct has them.
fn paged_impls(types: &[syn::Item]) -> Result<Vec<syn::Item>> {
    use quote::ToTokens;
    let mut impls = Vec::new();
    for item in types {
        let syn::Item::Struct(s) = item else { continue };
        let field = |name: &str| s.fields.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == name));
        let Some(data) = field("data") else { continue };
        let Some(item_ty) = generic_args(&data.ty).into_iter().next().filter(
            |_| matches!(&data.ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec")),
        ) else {
            continue;
        };
        let name = &s.ident;
        let truncated = field("truncated")
            .filter(|f| f.ty.to_token_stream().to_string().contains("bool"))
            .map(|_| {
                quote! { fn truncated(&self) -> ::std::option::Option<bool> { self.truncated } }
            });
        let last_page = field("last_page")
            .filter(|f| f.ty.to_token_stream().to_string().contains("i64"))
            .map(|_| {
                quote! { fn last_page(&self) -> ::std::option::Option<i64> { self.last_page } }
            });
        impls.push(syn::parse2(quote! {
            impl vidplat_core::Paged for #name {
                type Item = #item_ty;
                fn into_items(self) -> ::std::vec::Vec<Self::Item> { self.data }
                fn len(&self) -> usize { self.data.len() }
                #truncated
                #last_page
            }
        })?);
    }
    Ok(impls)
}

/// The YAML as progenitor should read it: the description of every operation
/// whose route the document does not show says so, and how to override it,
/// so the note reaches the generated method's rustdoc.
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

fn enum_tokens(e: &OpenEnum) -> TokenStream {
    let name = format_ident!("{}", e.name);
    let doc = e
        .description
        .clone()
        .unwrap_or_else(|| format!("The `{}` enumeration.", e.name));
    let doc = format!(
        "{}\n\nKnown values: {}. Any other value is kept in `Other`.",
        doc.trim(),
        e.values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
    );
    let variants = variant_names(&e.values);
    let rows = e.values.iter().zip(&variants).map(|(value, variant)| {
        let variant = format_ident!("{}", variant);
        let vdoc = format!("`{value}`");
        quote! { #[doc = #vdoc] #variant => #value, }
    });
    quote! {
        vidplat_core::open_enum! {
            #[doc = #doc]
            pub enum #name { #(#rows)* }
        }
    }
}

/// PascalCase variant names, unique, never `Other` (the catch-all).
pub fn variant_names(values: &[String]) -> Vec<String> {
    let mut used = BTreeSet::new();
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let mut name: String = value
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|word| {
                    let lower = word.to_ascii_lowercase();
                    let mut chars = lower.chars();
                    chars
                        .next()
                        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                        .unwrap_or_default()
                })
                .collect();
            if name.is_empty() {
                // An operator such as `!=`: its symbols spelled out.
                name = value
                    .chars()
                    .map(|c| match c {
                        '!' => "Not",
                        '=' => "Equal",
                        '<' => "Less",
                        '>' => "Greater",
                        _ => "",
                    })
                    .collect();
            }
            if name.is_empty() {
                name = format!("Value{index}");
            }
            if name.starts_with(|c: char| c.is_ascii_digit()) {
                name.insert(0, 'V');
            }
            if name == "Other" {
                name.push_str("Value");
            }
            while !used.insert(name.clone()) {
                name.push('_');
            }
            name
        })
        .collect()
}

fn operation_table(service: &Service, spec: &Value) -> Result<TokenStream> {
    let global_auth = spec["security"].as_array().is_some_and(|s| !s.is_empty());
    let mut rows = Vec::new();
    for (path, method, op) in operations(spec) {
        let id = op["operationId"]
            .as_str()
            .with_context(|| format!("{method} {path} has no operationId"))?;
        let summary = op["summary"].as_str().unwrap_or_default();
        let method_ident = format_ident!("{}", {
            let lower = method.to_ascii_lowercase();
            lower[..1].to_uppercase() + &lower[1..]
        });
        let assumed = op["x-route-assumed"].as_bool() == Some(true);
        let authenticated = match op.get("security") {
            Some(Value::Array(schemes)) => {
                !schemes.is_empty() && !schemes.iter().all(|s| s.as_object().is_some_and(|o| o.is_empty()))
            }
            _ => global_auth,
        };
        let rate_limited = op["x-quota"]["per_minute"].as_bool() == Some(true);
        let permission = match op["x-permission"].as_str() {
            Some(name) => quote! { Some(#name) },
            None => quote! { None },
        };
        let checks = checks_of(spec, &path, op)
            .into_iter()
            .map(|(at, rule)| quote! { vidplat_core::Check { at: #at, rule: vidplat_core::Rule::#rule } });
        let success_members = success_members(spec, op);
        rows.push(quote! {
            vidplat_core::OperationMeta {
                id: #id,
                summary: #summary,
                method: vidplat_core::Method::#method_ident,
                path: #path,
                route_assumed: #assumed,
                authenticated: #authenticated,
                permission: #permission,
                rate_limited: #rate_limited,
                checks: &[#(#checks),*],
                success_members: &[#(#success_members),*],
            }
        });
    }
    let service_ident = format_ident!(
        "{}",
        match service.name {
            "encoder" => "Encoder",
            "vms" => "Vms",
            "analytics" => "Analytics",
            other => bail!("unknown service {other}"),
        }
    );
    let error_codes: Vec<String> = spec["components"]["schemas"]["ErrorCode"]["x-extensible-enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let secret_members: BTreeSet<String> = secret_members(spec).into_values().flatten().collect();
    let secret_members = secret_members.iter();
    Ok(quote! {
        /// Every operation of this service as the YAML describes it: the runtime's
        /// source for routes (and their overrides), authentication, quotas,
        /// the error codes and the secret members.
        pub mod operations {
            /// The service these operations belong to.
            pub const SERVICE: vidplat_core::Service = vidplat_core::Service::#service_ident;
            /// One row per operation, in the YAML's order.
            pub const ALL: &[vidplat_core::OperationMeta] = &[#(#rows),*];
            /// Every error code the document lists (the YAML's `ErrorCode`).
            pub const ERROR_CODES: &[&str] = &[#(#error_codes),*];
            /// Members marked `x-secret: true` in the YAML: never printed.
            pub const SECRET_MEMBERS: &[&str] = &[#(#secret_members),*];
            /// All of the above, for `vidplat_core::Runtime::builder`.
            pub static TABLE: vidplat_core::ServiceTable = vidplat_core::ServiceTable {
                service: SERVICE,
                operations: ALL,
                error_codes: ERROR_CODES,
                secret_members: SECRET_MEMBERS,
            };
        }
    })
}

/// The top-level members of an operation's success body (its first 2xx
/// response with a JSON schema), `allOf` parts included.
fn success_members(spec: &Value, op: &Value) -> Vec<String> {
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
pub fn secret_members(spec: &Value) -> std::collections::BTreeMap<String, Vec<String>> {
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

/// Replaces the derived `Debug` of every struct holding a secret member (the
/// type and its typify builder) by one that prints `[redacted]` for those
/// members. Fails when a schema with secrets has no generated struct, so a
/// secret can never be printed through a type the generator missed.
fn redact_secrets(types: &mut Vec<syn::Item>, secrets: &std::collections::BTreeMap<String, Vec<String>>) -> Result<()> {
    let mut found = BTreeSet::new();
    let mut impls = Vec::new();
    redact_structs(types, secrets, &mut found, &mut impls)?;
    let builder = types
        .iter_mut()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "builder" => m.content.as_mut(),
            _ => None,
        })
        .context("typify's output has no `types::builder` module")?;
    let mut builder_impls = Vec::new();
    let mut builders_found = BTreeSet::new();
    redact_structs(&mut builder.1, secrets, &mut builders_found, &mut builder_impls)?;
    builder.1.extend(builder_impls);
    types.extend(impls);
    for name in secrets.keys() {
        if !found.contains(name) {
            bail!("schema `{name}` has x-secret members but no generated struct to redact");
        }
    }
    Ok(())
}

fn redact_structs(
    items: &mut [syn::Item],
    secrets: &std::collections::BTreeMap<String, Vec<String>>,
    found: &mut BTreeSet<String>,
    impls: &mut Vec<syn::Item>,
) -> Result<()> {
    for item in items.iter_mut() {
        let syn::Item::Struct(s) = item else { continue };
        let name = s.ident.to_string();
        let Some(secret) = secrets.get(&name) else { continue };
        for attr in &mut s.attrs {
            if !attr.path().is_ident("derive") {
                continue;
            }
            let derives =
                attr.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)?;
            let kept = derives.iter().filter(|path| !path.is_ident("Debug"));
            *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
        }
        let ident = &s.ident;
        let fields = s.fields.iter().filter_map(|field| {
            let member = field.ident.as_ref()?;
            let shown = member.to_string();
            let shown = shown.trim_end_matches('_');
            Some(if secret.iter().any(|m| m == shown) {
                quote! { .field(#shown, &::std::format_args!("{}", vidplat_core::REDACTED)) }
            } else {
                quote! { .field(#shown, &self.#member) }
            })
        });
        let shown_name = name.clone();
        impls.push(syn::parse2(quote! {
            /// Secret members (`x-secret` in the YAML) print as `[redacted]`.
            impl ::std::fmt::Debug for #ident {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.debug_struct(#shown_name) #(#fields)* .finish()
                }
            }
        })?);
        found.insert(name);
    }
    Ok(())
}

/// The documented bounds the runtime checks before sending: those on query
/// parameters and the JSON body (typify's newtypes already enforce patterns).
fn checks_of(spec: &Value, path: &str, op: &Value) -> Vec<(String, TokenStream)> {
    use crate::bounds::Bound;
    crate::bounds::of_operation(spec, path, op)
        .into_iter()
        .filter(|(at, _)| at.starts_with("query.") || at.starts_with("body"))
        .filter_map(|(at, bound)| {
            let rule = match bound {
                Bound::Minimum(x) => quote!(Minimum(#x)),
                Bound::Maximum(x) => quote!(Maximum(#x)),
                Bound::MinLength(x) => quote!(MinLength(#x)),
                Bound::MaxLength(x) => quote!(MaxLength(#x)),
                Bound::MinItems(x) => quote!(MinItems(#x)),
                Bound::MaxItems(x) => quote!(MaxItems(#x)),
                Bound::UniqueItems => quote!(UniqueItems),
                Bound::Pattern(_) => return None,
            };
            Some((at, rule))
        })
        .collect()
}

fn short_diff(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("committed", "generated")
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.iter().take(40).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > 40 {
        format!("{shown}\n... ({} more diff lines)", lines.len() - 40)
    } else {
        shown
    }
}

/// `tests/src/generated/<service>.rs`: typed plumbing that lets YAML-driven
/// tests call every operation with JSON arguments (`send`) and decode any
/// response schema by name (`roundtrip`). Derived from progenitor's own output
/// so it cannot drift from the client.
fn test_driver(service: &Service, spec: &Value, client: &syn::File) -> Result<String> {
    use quote::ToTokens;
    let krate = format_ident!("{}", service.crate_dir.replace('-', "_"));
    let rust_type = |ty: &syn::Type| -> Result<syn::Type> {
        let text = ty
            .to_token_stream()
            .to_string()
            .replace("crate :: types ::", "types ::")
            .replace("types :: builder ::", "types ::")
            .replace("types ::", &format!("{krate} :: types ::"));
        Ok(syn::parse_str(&text)?)
    };
    let builder = builder_items(client)?;

    let mut arms = Vec::new();
    for (_, _, op) in operations(spec) {
        let id = op["operationId"].as_str().context("operationId")?;
        let struct_name = builder_name(id);
        let fields = builder
            .iter()
            .find_map(|item| match item {
                syn::Item::Struct(s) if s.ident == struct_name => Some(&s.fields),
                _ => None,
            })
            .with_context(|| format!("no builder for {id}"))?;
        let method = format_ident!("{}", id);
        let mut setters = Vec::new();
        for field in fields {
            let name = field.ident.as_ref().context("named field")?;
            if name == "client" {
                continue;
            }
            // Arguments are keyed by the YAML's parameter name: progenitor writes `type` as `type_`.
            let key = name.to_string().trim_end_matches('_').to_owned();
            // Every builder field is `Result<T, String>` or `Result<Option<T>, String>`.
            let inner = generic_args(&field.ty)
                .into_iter()
                .next()
                .context("Result<T, String>")?;
            let inner = match generic_args(inner).as_slice() {
                [only] if is_option(inner) => *only,
                _ => inner,
            };
            if inner.to_token_stream().to_string() == "reqwest :: Body" {
                setters.push(quote! { let call = match args.bytes(#key) { Some(v) => call.#name(v), None => call }; });
            } else {
                let ty = rust_type(inner)?;
                setters.push(
                    quote! { let call = match args.get::<#ty>(#key)? { Some(v) => call.#name(v), None => call }; },
                );
            }
        }
        arms.push(quote! {
            #id => {
                let call = client.#method();
                #(#setters)*
                let response = call.send().await.map_err(|e| Failure::Call(vidplat::Error::from(e)))?;
                serde_json::to_value(response.into_inner()).map_err(|e| Failure::Reencode(e.to_string()))
            }
        });
    }

    let mut decoders = Vec::new();
    let schema_names = response_object_schemas(spec);
    for name in &schema_names {
        let ty = format_ident!("{}", name);
        decoders.push(quote! { #name => Some(roundtrip::<#krate::types::#ty>(value)), });
    }

    let file = quote! {
        use crate::driver::{roundtrip, Args, Failure};
        use #krate::Client;

        /// Sends `operation` with `args` (keyed by builder parameter name); returns the decoded success body as JSON.
        pub async fn send(client: &Client, operation: &str, args: &Args) -> Result<serde_json::Value, Failure> {
            match operation {
                #(#arms)*
                other => Err(Failure::UnknownOperation(other.to_owned())),
            }
        }

        /// Every object schema a response can contain, by name.
        pub const RESPONSE_SCHEMAS: &[&str] = &[#(#schema_names),*];

        /// Decodes `value` as the response schema named `schema`, and serialises it back.
        pub fn roundtrip_schema(schema: &str, value: serde_json::Value) -> Option<Result<serde_json::Value, serde_json::Error>> {
            match schema {
                #(#decoders)*
                _ => None,
            }
        }
    };
    let file: syn::File = syn::parse2(file)?;
    Ok(format!(
        "// @generated by `cargo xtask codegen` from openapi/{}.yaml and the client generated from it.\n\
         // Do not edit: change xtask/src/codegen.rs and run `cargo xtask codegen`.\n\n{}",
        service.name,
        prettyplease::unparse(&file)
    ))
}

/// What the `send` of the builder named `builder` returns:
/// `Result<ResponseValue<Success>, Error<ErrorBody>>`.
pub fn send_output(builders: &[syn::Item], builder: &str) -> Option<syn::Type> {
    builders.iter().find_map(|item| match item {
        syn::Item::Impl(i) if matches!(&*i.self_ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == builder)) => {
            i.items.iter().find_map(|f| match f {
                syn::ImplItem::Fn(f) if f.sig.ident == "send" => match &f.sig.output {
                    syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
                    syn::ReturnType::Default => None,
                },
                _ => None,
            })
        }
        _ => None,
    })
}

/// The `send` of every operation builder, to rewrite.
pub fn sends_mut(file: &mut syn::File) -> impl Iterator<Item = &mut syn::ImplItemFn> {
    crate::setters::module_items(&mut file.items, "builder")
        .into_iter()
        .flatten()
        .filter_map(|item| match item {
            syn::Item::Impl(block) => Some(block),
            _ => None,
        })
        .flat_map(|block| block.items.iter_mut())
        .filter_map(|member| match member {
            syn::ImplItem::Fn(f) if f.sig.ident == "send" => Some(f),
            _ => None,
        })
}

/// The items of progenitor's top-level `builder` module (one builder per operation).
pub fn builder_items(client: &syn::File) -> Result<&Vec<syn::Item>> {
    client
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Mod(m) if m.ident == "builder" => m.content.as_ref().map(|c| &c.1),
            _ => None,
        })
        .context("progenitor's output has no `builder` module")
}

/// progenitor's name for an operation's builder: the operationId in PascalCase.
pub fn builder_name(operation_id: &str) -> String {
    operation_id
        .split('_')
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect()
}

pub fn generic_args(ty: &syn::Type) -> Vec<&syn::Type> {
    let syn::Type::Path(path) = ty else { return Vec::new() };
    let Some(last) = path.path.segments.last() else {
        return Vec::new();
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

fn is_option(ty: &syn::Type) -> bool {
    is_named(ty, "Option")
}

/// Whether `ty` is a path ending in `name` (`Option`, `Vec`, …).
pub fn is_named(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == name))
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
fn reachable_schemas(spec: &Value, roots: impl Fn(&Value) -> Vec<&Value>) -> BTreeSet<String> {
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
    for (_, _, op) in operations(spec) {
        for root in roots(op) {
            walk(spec, root, &mut seen);
        }
    }
    seen
}

/// Whether a property may be `null`: `nullable: true`, or a nullable reference
/// (an `anyOf`/`oneOf` with a null-only member).
fn is_nullable(property: &Value) -> bool {
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
fn is_list_that_may_be_empty(property: &Value, spec: &Value) -> bool {
    let schema = match property["$ref"].as_str() {
        Some(reference) => spec.pointer(reference.trim_start_matches('#')).unwrap_or(&Value::Null),
        None => property,
    };
    schema["type"] == "array" && schema["minItems"].as_u64().unwrap_or(0) == 0
}

/// typify leaves every absent `Option` and every empty `Vec` out when
/// serialising. For the schemas only responses use, a nullable member that is
/// `None` is written as `null` instead, and a list member that is empty as
/// `[]` (a list with a `minItems` of at least 1 is still left out when empty),
/// so whatever serialises them (the simulator, a user's cache) sends the
/// documented envelope (`"data": []`) and `null` rather than dropping the
/// member. Request schemas keep leaving absent members out: an update must not
/// send `null` or `[]` for what the caller never set.
fn writing_nulls_in_responses(types: &mut [syn::Item], spec: &Value) -> Result<()> {
    use quote::ToTokens;
    let sent = reachable_schemas(spec, |op| {
        let mut roots = vec![&op["requestBody"]];
        roots.extend(op["parameters"].as_array().into_iter().flatten());
        roots
    });
    let returned = reachable_schemas(spec, |op| vec![&op["responses"]]);
    for item in types.iter_mut() {
        let syn::Item::Struct(strukt) = item else { continue };
        let name = strukt.ident.to_string();
        if !returned.contains(&name) || sent.contains(&name) {
            continue;
        }
        let properties = &spec["components"]["schemas"][&name]["properties"];
        for field in strukt.fields.iter_mut() {
            let Some(ident) = field.ident.as_ref() else { continue };
            let renamed = field.attrs.iter().find_map(|attr| {
                let text = attr.to_token_stream().to_string();
                let start = text.find("rename = \"")? + "rename = \"".len();
                text[start..].split('"').next().map(str::to_owned)
            });
            let wire_name = renamed.unwrap_or_else(|| ident.to_string());
            let property = &properties[&wire_name];
            let is_vec = matches!(&field.ty, syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Vec"));
            let written_when_empty = is_nullable(property) || (is_vec && is_list_that_may_be_empty(property, spec));
            if !written_when_empty {
                continue;
            }
            for attr in field.attrs.iter_mut() {
                let text = attr.to_token_stream().to_string();
                if !text.contains("skip_serializing_if") {
                    continue;
                }
                let kept: Vec<&str> = text
                    .trim_start_matches("# [serde (")
                    .trim_end_matches(")]")
                    .split(',')
                    .map(str::trim)
                    .filter(|part| !part.starts_with("skip_serializing_if"))
                    .collect();
                *attr = if kept.is_empty() {
                    syn::parse_quote!(#[serde(default)])
                } else {
                    let tokens: TokenStream = format!("#[serde({})]", kept.join(", "))
                        .parse()
                        .map_err(|e| anyhow!("{e}"))?;
                    syn::parse2::<syn::DeriveInput>(quote!(#tokens struct S;))?
                        .attrs
                        .remove(0)
                };
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_are_pascal_unique_and_never_other() {
        let values: Vec<String> = [
            "HLS_ENCRYPTED",
            "not_shared",
            "MP4",
            "!=",
            "2x",
            "OTHER",
            "mp4",
            "waiting",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            variant_names(&values),
            [
                "HlsEncrypted",
                "NotShared",
                "Mp4",
                "NotEqual",
                "V2x",
                "OtherValue",
                "Mp4_",
                "Waiting"
            ]
        );
    }
}
