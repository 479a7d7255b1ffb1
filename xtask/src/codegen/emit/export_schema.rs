//! `crates/vidplat-export/src/generated.rs`: what the exporter knows of each
//! analytics report, from the YAML. For every operation with `x-export`
//! whose `split` is `by_day` or `whole_period`: its `ReportInfo` (the split,
//! its reason, the row's columns with their kinds, nullability and
//! descriptions) and the `Report` impl on its builder (the page size, the
//! paging, and each row's values in column order). A member the generator
//! cannot give a column kind fails the generation.

use crate::bounds::resolve;
use crate::codegen::model::Operation;
use crate::codegen::spec::success_schema;
use crate::codegen::syntax::{first_generic, is_named, module_items_ref};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use std::collections::BTreeSet;

/// The documented largest cloud page (`limit` 1..=50000).
const CLOUD_MAX_LIMIT: u64 = 50_000;

pub fn render(spec: &Value, operations: &[Operation], file: &syn::File) -> Result<String> {
    let types = module_items_ref(&file.items, "types").context("the generated `types` module")?;
    let mut infos = Vec::new();
    let mut impls = Vec::new();
    let mut names = Vec::new();
    let mut arms = Vec::new();
    let mut cells = BTreeSet::new();
    for op in operations {
        let yaml = &spec["paths"][&op.path][op.method.to_lowercase()];
        let export = &yaml["x-export"];
        let reason = export["reason"].as_str().unwrap_or_default().trim().to_owned();
        let split = match export["split"].as_str() {
            None => continue,
            Some("none") => continue,
            Some("by_day") => {
                let day = export["day"]
                    .as_str()
                    .with_context(|| format!("{}: x-export by_day names no `day`", op.id))?;
                quote!(crate::Split::ByDay { day: #day })
            }
            Some("whole_period") => quote!(crate::Split::WholePeriod),
            Some(other) => bail!("{}: x-export split `{other}` (by_day, whole_period or none)", op.id),
        };
        if op.period.as_str() == Some("none") {
            bail!("{}: x-export on an operation with `x-period: none`", op.id);
        }
        let page = success_schema(spec, yaml).with_context(|| format!("{}: no success schema", op.id))?;
        let row_ref = page["properties"]["data"]["items"]["$ref"]
            .as_str()
            .with_context(|| format!("{}: the page's `data` is not an array of a named row", op.id))?;
        let row_name = row_ref.rsplit('/').next().unwrap_or_default();
        let row_schema = &spec["components"]["schemas"][row_name];
        let row_struct = types
            .iter()
            .find_map(|item| match item {
                syn::Item::Struct(s) if s.ident == row_name => Some(s),
                _ => None,
            })
            .with_context(|| format!("{}: no generated type `{row_name}`", op.id))?;

        let mut columns = Vec::new();
        let mut values = Vec::new();
        for field in &row_struct.fields {
            let ident = field.ident.as_ref().context("a tuple row")?;
            let member = serde_rename(field).unwrap_or_else(|| ident.to_string().trim_end_matches('_').to_owned());
            let property = resolve(spec, &row_schema["properties"][&member]);
            if property.is_null() {
                bail!("{}: `{row_name}.{member}` is not in the YAML", op.id);
            }
            let optional = is_named(&field.ty, "Option");
            let inner = if optional {
                first_generic(&field.ty).context("Option<T>")?
            } else {
                field.ty.clone()
            };
            let description = property["description"]
                .as_str()
                .or(row_schema["properties"][&member]["description"].as_str())
                .unwrap_or_default()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let (kind, value) = column(spec, op, &member, ident, property, &inner, optional, &mut cells)?;
            columns.push(quote! {
                crate::Column { name: #member, kind: crate::ColumnKind::#kind, nullable: #optional, description: #description }
            });
            values.push(value);
        }
        if let Some(day) = export["day"].as_str() {
            if row_schema["properties"][day]["x-japan-time"].is_null() {
                bail!(
                    "{}: x-export day `{day}` is not a time member (x-japan-time) of {row_name}",
                    op.id
                );
            }
        }

        let constant = format_ident!("{}", op.id.to_uppercase());
        let builder = &op.builder;
        let has = |name: &str| op.params.iter().any(|p| p.name == name);
        let (page_rows, default_rows) = if has("limit") {
            (quote!(self.limit(rows)), quote!(Some(#CLOUD_MAX_LIMIT)))
        } else if has("end_with") && has("start_with") {
            (quote!(self.start_with(1u64).end_with(rows)), quote!(None))
        } else {
            (
                quote!({
                    let _ = rows;
                    self
                }),
                quote!(None),
            )
        };
        let paging = if op.paging.is_null() {
            quote! {
                fn first_page(&self) -> Option<vidplat_core::PagePosition> { None }
                fn at_page(self, position: vidplat_core::PagePosition) -> Result<Self, vidplat_core::PagePosition> { Err(position) }
            }
        } else {
            quote! {
                fn first_page(&self) -> Option<vidplat_core::PagePosition> { Some(vidplat_core::Paginated::first(self)) }
                fn at_page(self, position: vidplat_core::PagePosition) -> Result<Self, vidplat_core::PagePosition> { vidplat_core::Paginated::at(self, position) }
            }
        };
        let id = &op.id;
        // The arguments the exporter sets itself: the period pair and the page window (`x-paging`).
        let set_by_export: Vec<&str> = crate::codegen::items::period::PERIOD_PAIRS
            .iter()
            .flatten()
            .copied()
            .filter(|name| has(name))
            .chain(
                ["start", "end", "offset", "size"]
                    .iter()
                    .filter_map(|key| op.paging[key].as_str()),
            )
            .collect();
        let edition = match yaml["x-edition"].as_str() {
            Some(edition @ ("basic" | "cloud")) => edition,
            other => bail!("{}: x-edition is {other:?}, not basic or cloud", op.id),
        };
        let day_granularities: Vec<&str> = export["day_granularities"]
            .as_array()
            .map(|values| values.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !day_granularities.is_empty() && !has("granularity") {
            bail!("{}: x-export day_granularities without a granularity parameter", op.id);
        }
        let final_by = if page["properties"]["golden"].is_null() {
            quote!(crate::FinalBy::Age)
        } else {
            quote!(crate::FinalBy::Golden)
        };
        infos.push(quote! {
            const #constant: crate::ReportInfo = crate::ReportInfo {
                name: #id,
                edition: #edition,
                split: #split,
                reason: #reason,
                columns: &[#(#columns),*],
                default_page_rows: #default_rows,
                set_by_export: &[#(#set_by_export),*],
                final_by: #final_by,
                day_granularities: &[#(#day_granularities),*],
            };
        });
        impls.push(quote! {
            impl<'a> crate::Report for builder::#builder<'a> {
                const INFO: &'static crate::ReportInfo = &#constant;
                fn page_rows(self, rows: u64) -> Self { #page_rows }
                #paging
                fn values<'r>(row: &'r crate::Row<Self>, out: &mut Vec<crate::Value<'r>>, zone: chrono::FixedOffset) -> Result<(), crate::schema::TimeValueError> {
                    let _ = zone;
                    #(#values)*
                    Ok(())
                }
            }
        });
        names.push(quote!(&#constant));
        arms.push(quote!(#id => builder::#builder::from_args(client, args).map(crate::AnyReport::new),));
    }
    let cell_impls = cells.iter().map(|name| {
        let ty = format_ident!("{}", name.trim_start_matches("json:"));
        if name.starts_with("json:") {
            quote! {
                impl crate::schema::Cell for types::#ty {
                    fn cell(&self) -> crate::Value<'_> { crate::schema::json(self) }
                }
            }
        } else {
            quote! {
                impl crate::schema::Cell for types::#ty {
                    fn cell(&self) -> crate::Value<'_> { crate::Value::Text(self.as_str()) }
                }
            }
        }
    });
    let tokens = quote! {
        use crate::schema::Cell as _;
        use vidplat_analytics::{builder, types};

        /// Every report the exporter knows, in the YAML's order.
        pub static REPORTS: &[&crate::ReportInfo] = &[#(#names),*];

        #(#infos)*
        #(#impls)*
        #(#cell_impls)*

        /// The builder of the report `name` (an operation id of [`REPORTS`])
        /// made from `args` by its `from_args` (every refusal at once);
        /// `None` when no report has that name.
        #[cfg(feature = "by-name")]
        pub fn report_named<'a>(
            client: &'a vidplat_analytics::Client,
            name: &str,
            args: &vidplat_core::Args,
        ) -> Option<Result<crate::AnyReport<'a>, vidplat_core::Refusals>> {
            Some(match name {
                #(#arms)*
                _ => return None,
            })
        }
    };
    let file: syn::File = syn::parse2(tokens).context("parsing the exporter's generated code")?;
    Ok(format!(
        "// @generated by `cargo xtask codegen` from openapi/analytics.yaml (x-export and the row schemas).\n\
         // Do not edit: change the YAML or xtask/src/codegen/emit/export_schema.rs and run `cargo xtask codegen`.\n\n{}",
        prettyplease::unparse(&file)
    ))
}

/// The column kind of one member and the statement that pushes its value.
#[allow(clippy::too_many_arguments)]
fn column(
    spec: &Value,
    op: &Operation,
    member: &str,
    ident: &syn::Ident,
    property: &Value,
    inner: &syn::Type,
    optional: bool,
    cells: &mut BTreeSet<String>,
) -> Result<(syn::Ident, TokenStream)> {
    let borrowed = if optional {
        quote!(row.#ident.as_deref())
    } else {
        quote!(Some(row.#ident.as_str()))
    };
    let pushed = quote!(out.push(row.#ident.cell()););
    let resolved = match property.get("allOf").and_then(Value::as_array) {
        Some(parts) if parts.len() == 1 => resolve(spec, &parts[0]),
        _ => property,
    };
    let type_name = syn_last(inner);
    if let Some(time) = property["x-japan-time"].as_str() {
        if !is_named(inner, "String") {
            bail!("{}: `{member}` has x-japan-time but is not a string", op.id);
        }
        return Ok(match time {
            "timestamp" => (
                format_ident!("Timestamp"),
                quote!(out.push(crate::schema::timestamp(#member, #borrowed, zone)?);),
            ),
            "date" => (
                format_ident!("Date"),
                quote!(out.push(crate::schema::date(#member, #borrowed)?);),
            ),
            other => bail!("{}: `{member}` x-japan-time `{other}` (timestamp or date)", op.id),
        });
    }
    let kind = if resolved.get("x-extensible-enum").is_some() || resolved.get("enum").is_some() {
        cells.insert(type_name.clone());
        "OpenEnum"
    } else {
        match resolved["type"].as_str() {
            Some("string") if type_name == "String" => "Text",
            Some("integer") if type_name == "i64" => "Integer",
            Some("number") if type_name == "f64" => "Float",
            Some("boolean") if type_name == "bool" => "Boolean",
            Some("array") if type_name == "Vec" => "Json",
            Some("object") | None if resolved.get("properties").is_some() => {
                cells.insert(format!("json:{type_name}"));
                "Json"
            }
            other => bail!(
                "{}: `{member}` (YAML type {other:?}, Rust type {type_name}) has no column kind",
                op.id
            ),
        }
    };
    // Arrays of named objects serialise themselves; their items need no impl.
    Ok((format_ident!("{kind}"), pushed))
}

fn syn_last(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// A field's `#[serde(rename = "…")]`, when typify wrote one.
fn serde_rename(field: &syn::Field) -> Option<String> {
    field.attrs.iter().find_map(|attr| {
        if !attr.path().is_ident("serde") {
            return None;
        }
        let mut renamed = None;
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                renamed = Some(meta.value()?.parse::<syn::LitStr>()?.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
        renamed
    })
}
