//! `crates/vidplat-test/src/generated/<service>.rs`: one marker per operation
//! for the test kit's mocks (`vidplat_test::encoder::GetTask`): its row of
//! the table (where its error statuses and the rules of its success body
//! are), its typed members (`GetTaskParams`) and how a received request is
//! read back into them.

use crate::codegen::emit::test_driver::in_crate;
use crate::codegen::model::{Body, Location, Operation};
use crate::services::Service;
use anyhow::Result;
use quote::{format_ident, quote};
use serde_json::Value;

pub fn render(service: &Service, spec: &Value, operations: &[Operation]) -> Result<String> {
    let krate = format_ident!("service");
    let module = format_ident!("{}", service.name);
    let mut items = Vec::new();
    for op in operations {
        let yaml = &spec["paths"][&op.path][op.method.to_ascii_lowercase()];
        let marker = &op.builder;
        let params_name = format_ident!("{}Params", op.builder);
        let index = op.index;
        let success = in_crate(&op.success, &krate);
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

    let file = quote! {
        use crate::{Incoming, MockOperation, Sent, Unreadable};
        use vidplat::#module as service;
        use vidplat_core::{OperationMeta, ServiceTable};

        #(#items)*
    };
    let file: syn::File = syn::parse2(file)?;
    Ok(format!(
        "// @generated by `cargo xtask codegen` from openapi/{}.yaml and the client generated from it.\n\
         // Do not edit: change the YAML or xtask/src/codegen/emit/kit_markers.rs and run `cargo xtask codegen`.\n\n{}",
        service.name,
        prettyplease::unparse(&file)
    ))
}
