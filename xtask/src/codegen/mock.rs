//! `crates/vidplat-test/src/generated/<service>.rs`: one marker per operation
//! for the test kit's mocks (`vidplat_test::encoder::GetTask`), with its
//! documented error statuses, the documented rules of its success body beyond
//! its Rust type, its typed members (`GetTaskParams`) and how a received
//! request is read back into them.

use crate::codegen::driver::in_crate;
use crate::codegen::model::{Body, Location, Operation};
use crate::codegen::patterns::Compiled;
use crate::codegen::spec::{returned_bounds_problems, success_checks_of};
use crate::services::Service;
use anyhow::{bail, Context, Result};
use quote::{format_ident, quote};
use serde_json::Value;

pub fn render(service: &Service, spec: &Value, operations: &[Operation]) -> Result<String> {
    let problems = returned_bounds_problems(spec);
    if !problems.is_empty() {
        bail!("{}: {}", service.name, problems.join("\n"));
    }
    let krate = format_ident!("service");
    let module = format_ident!("{}", service.name);
    let mut items = Vec::new();
    let mut status_sets = std::collections::BTreeMap::new();
    let mut patterns = Compiled::default();
    for op in operations {
        let yaml = &spec["paths"][&op.path][op.method.to_ascii_lowercase()];
        let marker = &op.builder;
        let params_name = format_ident!("{}Params", op.builder);
        let index = op.index;
        let success = in_crate(&op.success, &krate);
        // Most operations document the same error statuses: one constant per set.
        let statuses = error_statuses(&op.id, yaml)?;
        let statuses_name = format_ident!(
            "ERRORS_{}",
            statuses
                .iter()
                .map(|&(from, to)| if from == to {
                    from.to_string()
                } else {
                    format!("{}XX", from / 100)
                })
                .collect::<Vec<_>>()
                .join("_")
        );
        status_sets.insert(statuses_name.to_string(), statuses);
        let doc = format!(
            " `{}`: `{} {}`, {}.",
            op.id,
            op.method,
            op.path,
            yaml["summary"].as_str().unwrap_or_default()
        );

        let mut fields = Vec::new();
        let mut reads = Vec::new();
        for param in &op.params {
            let field = &param.field;
            let wire = &param.name;
            let (ty, read) = match (param.location, param.element()) {
                (Location::Path, _) => (in_crate(&param.ty, &krate), quote!(incoming.path(#wire)?)),
                (Location::Query { joined }, Some(element)) => {
                    let element = in_crate(&element, &krate);
                    let list = quote!(incoming.list::<#element>(#wire, #joined)?);
                    if param.optional {
                        (syn::parse_quote!(Option<Vec<#element>>), list)
                    } else {
                        (syn::parse_quote!(Vec<#element>), quote!(#list.unwrap_or_default()))
                    }
                }
                (location, _) => {
                    let header = location == Location::Header;
                    let ty = in_crate(&param.ty, &krate);
                    if param.optional {
                        (
                            syn::parse_quote!(Option<#ty>),
                            quote!(incoming.optional(#wire, #header)?),
                        )
                    } else {
                        (ty, quote!(incoming.one(#wire, #header)?))
                    }
                }
            };
            let place = match param.location {
                Location::Path => "path",
                Location::Query { .. } => "query",
                Location::Header => "header",
            };
            let field_doc = format!(" `{wire}` ({place}).");
            fields.push(quote! { #[doc = #field_doc] pub #field: #ty });
            reads.push(quote! { #field: #read });
        }
        let (params_ty, params_read, params_item) = if fields.is_empty() {
            (quote!(()), quote!(()), quote!())
        } else {
            let params_doc = format!(" The path, query and header members of a `{}` request.", op.id);
            (
                quote!(#params_name),
                quote!(#params_name { #(#reads),* }),
                quote! {
                    #[doc = #params_doc]
                    #[derive(Clone, Debug)]
                    #[non_exhaustive]
                    pub struct #params_name { #(#fields),* }
                },
            )
        };
        let (body_ty, body_read) = match &op.body {
            None => (quote!(()), quote!(())),
            Some(Body::Json { ty, .. }) => {
                let ty = in_crate(ty, &krate);
                (quote!(#ty), quote!(incoming.json()?))
            }
            Some(Body::Raw { .. }) => (quote!(Option<Vec<u8>>), quote!(incoming.raw())),
        };
        let index = proc_macro2::Literal::usize_unsuffixed(index);
        // Most success bodies document nothing beyond their type: the trait's empty default.
        let success_checks = success_checks_of(spec, yaml, &mut patterns).with_context(|| op.id.clone())?;
        let success_checks = (!success_checks.is_empty()).then(|| {
            quote! { const SUCCESS_CHECKS: &'static [crate::SuccessCheck] = &[#(#success_checks),*]; }
        });
        let incoming = if fields.is_empty() && op.body.is_none() {
            format_ident!("_incoming")
        } else {
            format_ident!("incoming")
        };
        items.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug)]
            pub struct #marker;

            impl MockOperation for #marker {
                const META: &'static OperationMeta = &service::operations::ALL[#index];
                const TABLE: &'static ServiceTable = &service::operations::TABLE;
                const ERROR_STATUSES: &'static [RangeInclusive<u16>] = #statuses_name;
                const CODE_STATUSES: &'static [(&'static str, u16)] = CODE_STATUSES;
                #success_checks
                type Success = #success;
                type Params = #params_ty;
                type Body = #body_ty;
                type ErrorCode = service::types::ErrorCode;

                fn read(#incoming: &Incoming) -> Result<Sent<Self>, Unreadable> {
                    Ok(Sent { params: #params_read, body: #body_read })
                }
            }

            #params_item
        });
    }

    let code_statuses = spec["components"]["schemas"]["ErrorCode"]["x-statuses"]
        .as_object()
        .context("the YAML's ErrorCode has no x-statuses")?
        .iter()
        .map(|(code, status)| {
            let status = status
                .as_u64()
                .and_then(|s| u16::try_from(s).ok())
                .with_context(|| format!("x-statuses: {code} is no status"))?;
            let status = proc_macro2::Literal::u16_unsuffixed(status);
            Ok(quote!((#code, #status)))
        })
        .collect::<Result<Vec<_>>>()?;
    let patterns_module = patterns.module();
    let status_consts = status_sets.iter().map(|(name, ranges)| {
        let name = format_ident!("{name}");
        let ranges = ranges.iter().map(|&(from, to)| {
            let (from, to) = (
                proc_macro2::Literal::u16_unsuffixed(from),
                proc_macro2::Literal::u16_unsuffixed(to),
            );
            quote!(#from..=#to)
        });
        quote! { const #name: &[RangeInclusive<u16>] = &[#(#ranges),*]; }
    });
    let file = quote! {
        use crate::{Incoming, MockOperation, Sent, Unreadable};
        use std::ops::RangeInclusive;
        use vidplat::#module as service;
        use vidplat_core::{OperationMeta, ServiceTable};

        /// The codes whose status the document states (the YAML's `ErrorCode.x-statuses`).
        const CODE_STATUSES: &[(&str, u16)] = &[#(#code_statuses),*];

        #(#status_consts)*

        #(#items)*

        #patterns_module
    };
    let file: syn::File = syn::parse2(file)?;
    Ok(format!(
        "// @generated by `cargo xtask codegen` from openapi/{}.yaml and the client generated from it.\n\
         // Do not edit: change the YAML or xtask/src/codegen/mock.rs and run `cargo xtask codegen`.\n\n{}",
        service.name,
        prettyplease::unparse(&file)
    ))
}

/// The error statuses the operation's YAML documents, as inclusive ranges.
fn error_statuses(id: &str, op: &Value) -> Result<Vec<(u16, u16)>> {
    let mut out = Vec::new();
    for status in op["responses"].as_object().into_iter().flatten().map(|(s, _)| s) {
        let range = match status.as_bytes() {
            [digit @ b'4'..=b'5', b'X' | b'x', b'X' | b'x'] => {
                let hundreds = u16::from(digit - b'0') * 100;
                (hundreds, hundreds + 99)
            }
            [_, b'X' | b'x', b'X' | b'x'] => continue,
            _ => match status.parse::<u16>() {
                Ok(exact) if exact >= 400 => (exact, exact),
                Ok(_) => continue,
                Err(_) => bail!("{id}: a response under `{status}`, which the mock generator does not read"),
            },
        };
        out.push(range);
    }
    Ok(out)
}
