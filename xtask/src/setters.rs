//! Setters that take plain values: every builder setter (progenitor's operation
//! builders, typify's body builders) is rewritten to accept
//! `vidplat_core::IntoValue<T>` (or `IntoOptional<T>` for an optional member,
//! or an iterator of them for an array), and to name the member's whole path
//! when a value is refused. The conversions each type accepts are generated
//! beside it: a constrained string from `&str`/`String`, a body from its
//! builder; `vidplat-core` holds those of the shared types (ids from the
//! `Option<i64>` or `Option<String>` a response carries).

use crate::codegen::{generic_args, is_named};
use anyhow::{Context, Result};
use quote::{quote, ToTokens};

/// Rewrites the setters of both builder modules of one generated file.
pub fn rewrite(file: &mut syn::File) -> Result<()> {
    let operations = module_items(&mut file.items, "builder").context("no `builder` module")?;
    for item in operations.iter_mut() {
        rewrite_impl(item, Kind::Operation)?;
    }
    let types = module_items(&mut file.items, "types").context("no `types` module")?;
    if let Some(bodies) = module_items(types, "builder") {
        for item in bodies.iter_mut() {
            rewrite_impl(item, Kind::Body)?;
        }
    }
    let conversions = conversions(types)?;
    types.extend(conversions);
    Ok(())
}

pub fn module_items<'a>(items: &'a mut [syn::Item], name: &str) -> Option<&'a mut Vec<syn::Item>> {
    items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_mut().map(|c| &mut c.1),
        _ => None,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// progenitor: `field: Result<T, String>` (path) or `Result<Option<T>, String>` (query).
    Operation,
    /// typify: `field: Result<T, String>`, `T` itself optional or not.
    Body,
}

fn rewrite_impl(item: &mut syn::Item, kind: Kind) -> Result<()> {
    let syn::Item::Impl(block) = item else { return Ok(()) };
    if block.trait_.is_some() {
        return Ok(());
    }
    for member in block.items.iter_mut() {
        let syn::ImplItem::Fn(setter) = member else { continue };
        let name = setter.sig.ident.to_string();
        // The body setter already takes the body or its builder; body_map takes a closure.
        if kind == Kind::Operation && (name == "body" || name == "body_map") {
            continue;
        }
        let Some(target) = try_into_target(&setter.sig) else {
            continue;
        };
        let wrapped = kind == Kind::Operation && setter_wraps_in_some(setter);
        // progenitor and typify name each setter after the field it sets.
        let field = setter.sig.ident.clone();
        let member_name = name.trim_start_matches("r#").to_owned();
        let fn_name = &setter.sig.ident;
        let (optional, inner) = match (kind, wrapped) {
            (Kind::Operation, true) => (true, target.clone()),
            (Kind::Body, _) if is_named(&target, "Option") => (true, first_generic(&target).context("Option<T>")?),
            _ => (false, target.clone()),
        };
        let rewritten: syn::ImplItemFn =
            if let Some(element) = is_named(&inner, "Vec").then(|| first_generic(&inner)).flatten() {
                let stored = if optional {
                    quote!(.map(::std::option::Option::Some))
                } else {
                    quote!()
                };
                syn::parse2(quote! {
                    pub fn #fn_name<I, T>(mut self, value: I) -> Self
                    where
                        I: ::std::iter::IntoIterator<Item = T>,
                        T: ::vidplat_core::IntoValue<#element>,
                    {
                        self.#field = ::vidplat_core::array_of(#member_name, value) #stored;
                        self
                    }
                })?
            } else {
                // An optional member takes `None` too; a required one refuses it.
                let (conversion, convert) = if optional {
                    (quote!(IntoOptional), quote!(into_optional))
                } else {
                    (quote!(IntoValue), quote!(into_value))
                };
                syn::parse2(quote! {
                    pub fn #fn_name<T>(mut self, value: T) -> Self
                    where
                        T: ::vidplat_core::#conversion<#inner>,
                    {
                        self.#field = ::vidplat_core::#conversion::#convert(value)
                            .map_err(|why| ::vidplat_core::member_error(#member_name, why));
                        self
                    }
                })?
            };
        let attrs = std::mem::take(&mut setter.attrs);
        *setter = rewritten;
        setter.attrs = attrs;
    }
    Ok(())
}

/// `T` of the setter's `where X: TryInto<T>` bound.
fn try_into_target(sig: &syn::Signature) -> Option<syn::Type> {
    let clause = sig.generics.where_clause.as_ref()?;
    clause.predicates.iter().find_map(|predicate| {
        let syn::WherePredicate::Type(p) = predicate else {
            return None;
        };
        p.bounds.iter().find_map(|bound| {
            let syn::TypeParamBound::Trait(t) = bound else {
                return None;
            };
            let last = t.path.segments.last()?;
            if last.ident != "TryInto" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            args.args.iter().find_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
        })
    })
}

/// Whether progenitor's setter stores `Some(value)` (an optional parameter).
fn setter_wraps_in_some(setter: &syn::ImplItemFn) -> bool {
    setter.block.to_token_stream().to_string().contains(". map (Some)")
}

/// The first type argument of `ty` (`T` of `Option<T>`).
fn first_generic(ty: &syn::Type) -> Option<syn::Type> {
    generic_args(ty).first().map(|t| (*t).clone())
}

/// What each generated type accepts: a constrained string (one with
/// `TryFrom<&str>`) is `FromText`, so text and a response's `Option<String>`
/// pass to it; a body takes its builder.
fn conversions(types: &[syn::Item]) -> Result<Vec<syn::Item>> {
    let mut out = Vec::new();
    for item in types {
        let syn::Item::Impl(block) = item else { continue };
        let Some((_, path, _)) = &block.trait_ else { continue };
        let Some(last) = path.segments.last() else { continue };
        if last.ident != "TryFrom" {
            continue;
        }
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            continue;
        };
        let Some(syn::GenericArgument::Type(source)) = args.args.first() else {
            continue;
        };
        if !matches!(&source, syn::Type::Reference(r) if r.elem.to_token_stream().to_string() == "str") {
            continue;
        }
        let ty = &block.self_ty;
        out.push(syn::parse2(quote! {
            impl ::vidplat_core::FromText for #ty {
                fn from_text(text: &str) -> ::std::result::Result<Self, ::std::string::String> {
                    <#ty>::try_from(text).map_err(|e| e.to_string())
                }
            }
        })?);
    }
    // Body builders: `impl TryFrom<builder::X> for X` lives in the `builder` module.
    let bodies = types.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == "builder" => m.content.as_ref().map(|c| &c.1),
        _ => None,
    });
    for item in bodies.into_iter().flatten() {
        let syn::Item::Impl(block) = item else { continue };
        let Some((_, path, _)) = &block.trait_ else { continue };
        if path.segments.last().is_none_or(|s| s.ident != "TryFrom") {
            continue;
        }
        let syn::Type::Path(target) = &*block.self_ty else {
            continue;
        };
        let Some(name) = target.path.segments.last().map(|s| s.ident.clone()) else {
            continue;
        };
        out.push(syn::parse2(quote! {
            ::vidplat_core::into_value!(@builder #name: builder::#name);
        })?);
    }
    Ok(out)
}
