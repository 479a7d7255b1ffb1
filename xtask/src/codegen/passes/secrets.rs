//! Pass `secrets`: the derived `Debug` of every type holding a member the
//! YAML marks `x-secret` (a viewing page's `signing_key`, passwords, client
//! secrets), and of its builder, is replaced by one that prints
//! `[redacted]` for those members.

use crate::codegen::passes::expect::Expect;
use crate::codegen::spec::secret_members;
use crate::codegen::syntax::types_module;
use anyhow::{bail, Context, Result};
use quote::quote;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub fn run(file: &mut syn::File, spec: &Value) -> Result<usize> {
    redact_secrets(types_module(file)?, &secret_members(spec))
}

/// One type per schema with secret members.
pub fn expect(spec: &Value) -> Expect {
    Expect::Exactly(secret_members(spec).len())
}

/// Replaces the derived `Debug` of every struct holding a secret member (the
/// type and its typify builder) by one that prints `[redacted]` for those
/// members. Fails when a schema with secrets has no generated struct, so a
/// secret can never be printed through a type the generator missed.
fn redact_secrets(types: &mut Vec<syn::Item>, secrets: &BTreeMap<String, Vec<String>>) -> Result<usize> {
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
    Ok(found.len())
}

fn redact_structs(
    items: &mut [syn::Item],
    secrets: &BTreeMap<String, Vec<String>>,
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
