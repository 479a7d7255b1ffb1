//! The open enumerations: every `x-extensible-enum` schema becomes a Rust enum
//! that keeps an unknown value in `Other` (progenitor is told to use it in
//! place of the `String` it would write).

use crate::codegen::spec::OpenEnum;
use anyhow::Result;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// The enums' items, for the `types` module.
pub fn items(enums: &[OpenEnum]) -> Result<Vec<syn::Item>> {
    enums.iter().map(|e| Ok(syn::parse2(enum_tokens(e))?)).collect()
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
