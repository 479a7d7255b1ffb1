//! The `markers` module of a service's crate (feature `markers`): one type
//! per operation (`markers::GetTask`) implementing
//! `vidplat_core::OperationMarker` (its row of the table, its success and
//! body types) and its typed path, query and header members
//! (`GetTaskParams`), read by serde from a map keyed by the row's argument
//! names. The
//! test kit's mocks name operations by these types (re-exported as
//! `vidplat_test::encoder::GetTask`).

use crate::codegen::emit::test_driver::in_crate;
use crate::codegen::items::operation_builders::argument_name;
use crate::codegen::model::{Body, Location, Operation};
use anyhow::Result;
use quote::{format_ident, quote};
use serde_json::Value;

pub fn module(spec: &Value, operations: &[Operation]) -> Result<syn::Item> {
    let outer = format_ident!("super");
    let mut items = Vec::new();
    for op in operations {
        let yaml = &spec["paths"][&op.path][op.method.to_ascii_lowercase()];
        let marker = &op.builder;
        let params_name = format_ident!("{}Params", op.builder);
        let index = proc_macro2::Literal::usize_unsuffixed(op.index);
        let success = in_crate(&op.success, &outer);
        let doc = format!(
            " `{}`: `{} {}`, {}.",
            op.id,
            op.method,
            op.path,
            yaml["summary"].as_str().unwrap_or_default()
        );
        let mut fields = Vec::new();
        for param in &op.params {
            let field = &param.field;
            let wire = &param.name;
            let ty = match param.element() {
                Some(element) => {
                    let element = in_crate(&element, &outer);
                    match param.optional {
                        true => quote!(Option<Vec<#element>>),
                        false => quote!(Vec<#element>),
                    }
                }
                None => {
                    let ty = in_crate(&param.ty, &outer);
                    match param.optional {
                        true => quote!(Option<#ty>),
                        false => quote!(#ty),
                    }
                }
            };
            let place = match param.location {
                Location::Path => "path",
                Location::Query { .. } => "query",
                Location::Header => "header",
            };
            let field_doc = format!(" `{wire}` ({place}).");
            // Keyed as the row's arguments are (`type_` is `type`).
            let name = argument_name(field);
            let default = (param.element().is_some() && !param.optional).then(|| quote!(#[serde(default)]));
            fields.push(quote! { #[doc = #field_doc] #[serde(rename = #name)] #default pub #field: #ty });
        }
        let (params_ty, params_item) = if fields.is_empty() {
            (quote!(()), quote!())
        } else {
            let params_doc = format!(" The path, query and header members of a `{}` request.", op.id);
            (
                quote!(#params_name),
                quote! {
                    #[doc = #params_doc]
                    #[derive(Clone, Debug, ::serde::Deserialize)]
                    #[serde(deny_unknown_fields)]
                    #[non_exhaustive]
                    pub struct #params_name { #(#fields),* }
                },
            )
        };
        let body_ty = match &op.body {
            None => quote!(()),
            Some(Body::Json { ty, .. }) => {
                let ty = in_crate(ty, &outer);
                quote!(#ty)
            }
            Some(Body::Raw { .. }) => quote!(Option<Vec<u8>>),
        };
        items.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug)]
            pub struct #marker;

            impl vidplat_core::OperationMarker for #marker {
                const META: &'static vidplat_core::OperationMeta = &super::operations::ALL[#index];
                const TABLE: &'static vidplat_core::ServiceTable = &super::operations::TABLE;
                type Success = #success;
                type Params = #params_ty;
                type Body = #body_ty;
                type ErrorCode = super::types::ErrorCode;
            }

            #params_item
        });
    }
    Ok(syn::parse2(quote! {
        /// One type per operation, naming it where a type is wanted (the test
        /// kit's mocks), with its typed path, query and header members.
        #[cfg(feature = "markers")]
        pub mod markers {
            #(#items)*
        }
    })?)
}
