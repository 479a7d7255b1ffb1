//! Aliases: a method per `x-aliases` entry of the YAML.

use crate::codegen::syntax::builder_name;
use crate::services::operations;
use anyhow::{Context, Result};
use quote::{format_ident, quote};
use serde_json::Value;

/// A method per `x-aliases` entry: a documented operation that, as far as the
/// documents show, is the very request of another one (List shared profiles is
/// List profiles' request). It returns that operation's builder.
pub fn alias_methods(spec: &Value) -> Result<Vec<syn::Item>> {
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
