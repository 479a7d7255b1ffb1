//! Pass `builders`: typify writes a builder for every object type. The
//! builders of the types only answers use (every analytics type, most of
//! video management's) serve tests, fixtures and simulators, not calls: they
//! are compiled only with the generated crate's `builders` feature, so a
//! user's build does not pay for them (about a quarter of the generated code).

use crate::codegen::passes::expect::Expect;
use crate::codegen::spec::response_only_schemas;
use crate::codegen::syntax::{module_items, trait_name, types_module};
use anyhow::{bail, Result};
use serde_json::Value;
use std::collections::BTreeSet;

pub fn run(file: &mut syn::File, spec: &Value) -> Result<usize> {
    let answers_only = with_builders(spec);
    let types = types_module(file)?;
    // `impl X { pub fn builder() -> builder::X }` beside each type.
    for item in types.iter_mut() {
        if let syn::Item::Impl(block) = item {
            if block.trait_.is_none() && names_one_of(&block.self_ty, &answers_only) && only_builder_fn(block) {
                block.attrs.push(behind_feature());
            }
        }
    }
    let Some(builders) = module_items(types, "builder") else {
        return Ok(0);
    };
    let mut found = BTreeSet::new();
    for item in builders.iter_mut() {
        match item {
            syn::Item::Struct(strukt) if answers_only.contains(&strukt.ident.to_string()) => {
                strukt.attrs.push(behind_feature());
                found.insert(strukt.ident.to_string());
            }
            syn::Item::Impl(block) => {
                // The builder's own impls (setters, Default, Debug, From) name it as
                // `Self`; `TryFrom<X> for super::X` names it as its parameter.
                let builds = match trait_name(block).map(ToString::to_string).as_deref() {
                    Some("TryFrom") => block
                        .trait_
                        .as_ref()
                        .and_then(|(_, path, _)| path.segments.last())
                        .and_then(|segment| match &segment.arguments {
                            syn::PathArguments::AngleBracketed(args) => args.args.first(),
                            _ => None,
                        })
                        .is_some_and(
                            |arg| matches!(arg, syn::GenericArgument::Type(ty) if names_one_of(ty, &answers_only)),
                        ),
                    _ => names_one_of(&block.self_ty, &answers_only),
                };
                if builds {
                    block.attrs.push(behind_feature());
                }
            }
            _ => {}
        }
    }
    if let Some(missing) = answers_only.iter().find(|name| !found.contains(*name)) {
        bail!("`{missing}` is only in answers, but typify wrote no builder for it");
    }
    Ok(found.len())
}

/// One per object schema that only answers use.
pub fn expect(spec: &Value) -> Expect {
    Expect::Exactly(with_builders(spec).len())
}

/// The schemas only answers use that typify writes a builder for (objects with members).
fn with_builders(spec: &Value) -> BTreeSet<String> {
    response_only_schemas(spec)
        .into_iter()
        .filter(|name| spec["components"]["schemas"][name].get("properties").is_some())
        .collect()
}

fn behind_feature() -> syn::Attribute {
    syn::parse_quote!(#[cfg(feature = "builders")])
}

fn names_one_of(ty: &syn::Type, names: &BTreeSet<String>) -> bool {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|s| names.contains(&s.ident.to_string())),
        _ => false,
    }
}

/// Whether an inherent impl holds only `fn builder() -> builder::X`.
fn only_builder_fn(block: &syn::ItemImpl) -> bool {
    let [syn::ImplItem::Fn(f)] = block.items.as_slice() else {
        return false;
    };
    let returns_builder = match &f.sig.output {
        syn::ReturnType::Type(_, ty) => match &**ty {
            syn::Type::Path(path) => path.path.segments.first().is_some_and(|s| s.ident == "builder"),
            _ => false,
        },
        syn::ReturnType::Default => false,
    };
    f.sig.ident == "builder" && returns_builder
}
