//! Pass `schemars`: the generated types derive `schemars::JsonSchema` only
//! with the generated crate's `schemars` feature: no user pays for the derive
//! (and the schemars crate) unless they ask for it.

use crate::codegen::passes::expect::Expect;
use serde_json::Value;

pub fn run(file: &mut syn::File, _spec: &Value) -> anyhow::Result<usize> {
    behind_feature(&mut file.items)
}

/// progenitor derives it on every type, and every YAML has types.
pub fn expect(spec: &Value) -> Expect {
    Expect::some_if(spec["components"]["schemas"].as_object().is_some_and(|s| !s.is_empty()))
}

/// Moves `schemars::JsonSchema` out of every `#[derive(...)]` in `items` (and
/// nested modules) into `#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]`.
fn behind_feature(items: &mut [syn::Item]) -> anyhow::Result<usize> {
    let mut moved_derives = 0;
    for item in items {
        let attrs = match item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &mut m.content {
                    moved_derives += behind_feature(inner)?;
                }
                continue;
            }
            _ => continue,
        };
        let mut moved = false;
        for attr in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
            let paths =
                attr.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)?;
            let (schema, kept): (Vec<syn::Path>, Vec<syn::Path>) = paths
                .into_iter()
                .partition(|p| p.segments.last().is_some_and(|s| s.ident == "JsonSchema"));
            if !schema.is_empty() {
                moved = true;
                *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
            }
        }
        if moved {
            attrs.push(syn::parse_quote!(#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]));
            moved_derives += 1;
        }
    }
    Ok(moved_derives)
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn the_derive_moves_behind_the_feature_and_the_others_stay() {
        let mut file: syn::File = syn::parse2(quote! {
            pub mod types {
                #[derive(::serde::Deserialize, Clone, schemars::JsonSchema)]
                #[serde(deny_unknown_fields)]
                pub struct Task { id: u64 }
                #[derive(Debug)]
                pub enum Plain { A }
            }
        })
        .unwrap();
        assert_eq!(super::behind_feature(&mut file.items).unwrap(), 1);
        let code = prettyplease::unparse(&file);
        assert!(code.contains("#[derive(::serde::Deserialize, Clone)]"), "{code}");
        assert!(code.contains("#[serde(deny_unknown_fields)]"), "{code}");
        assert_eq!(
            code.matches(r#"#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]"#)
                .count(),
            1,
            "{code}"
        );
        assert!(code.contains("#[derive(Debug)]\n    pub enum Plain"), "{code}");
    }
}
