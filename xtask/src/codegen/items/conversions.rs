//! What each generated type accepts in a setter: a constrained string (one
//! with `TryFrom<&str>`) is `FromText`, so text and a response's
//! `Option<String>` pass to it; a body type takes its builder. Read from
//! typify's output, structurally.

use crate::codegen::syntax::{module_items_ref, trait_name};
use anyhow::Result;
use quote::quote;

/// The conversions' items, for the `types` module.
pub fn items(types: &[syn::Item]) -> Result<Vec<syn::Item>> {
    let mut out = Vec::new();
    for item in types {
        let syn::Item::Impl(block) = item else { continue };
        if trait_name(block).is_none_or(|t| t != "TryFrom") {
            continue;
        }
        let Some((_, path, _)) = &block.trait_ else { continue };
        let Some(syn::PathArguments::AngleBracketed(args)) = path.segments.last().map(|s| &s.arguments) else {
            continue;
        };
        let Some(syn::GenericArgument::Type(syn::Type::Reference(source))) = args.args.first() else {
            continue;
        };
        let is_str = matches!(&*source.elem, syn::Type::Path(p) if p.path.is_ident("str"));
        if !is_str {
            continue;
        }
        let ty = &block.self_ty;
        out.push(syn::parse2(quote! {
            impl ::vidplat_core::FromText for #ty {
                fn from_text(text: &str) -> ::std::result::Result<Self, ::vidplat_core::Refusal> {
                    <#ty>::try_from(text).map_err(|e| ::vidplat_core::Refusal::new(e.to_string()))
                }
            }
        })?);
    }
    // Body builders: `impl TryFrom<builder::X> for X` lives in the `builder` module.
    for item in module_items_ref(types, "builder").into_iter().flatten() {
        let syn::Item::Impl(block) = item else { continue };
        if trait_name(block).is_none_or(|t| t != "TryFrom") {
            continue;
        }
        let syn::Type::Path(target) = &*block.self_ty else {
            continue;
        };
        let Some(name) = target.path.segments.last().map(|s| s.ident.clone()) else {
            continue;
        };
        // A builder compiled only with a feature (`builders_feature.rs`): its conversions too.
        let cfg = block.attrs.iter().filter(|a| a.path().is_ident("cfg"));
        out.push(syn::parse2(quote! {
            #(#cfg)*
            ::vidplat_core::into_value!(@builder #name: builder::#name);
        })?);
    }
    Ok(out)
}
