//! The generated types derive `schemars::JsonSchema` only with the generated
//! crate's `schemars` feature: no user pays for the derive (and the schemars
//! crate) unless they ask for it.

/// Moves `schemars::JsonSchema` out of every `#[derive(...)]` in `items` (and
/// nested modules) into `#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]`.
pub fn behind_feature(items: &mut [syn::Item]) -> anyhow::Result<()> {
    for item in items {
        let attrs = match item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &mut m.content {
                    behind_feature(inner)?;
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
        }
    }
    Ok(())
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
        super::behind_feature(&mut file.items).unwrap();
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
