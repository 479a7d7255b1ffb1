//! The large lists decode while they arrive: in the analytics client, every
//! operation whose success type is a list envelope (a `Paged` type) decodes
//! with `vidplat_core::decode_streaming_response` instead of progenitor's
//! `ResponseValue::from_response` (which the runtime's `decode_response`
//! replaces everywhere else).

use quote::ToTokens;
use std::collections::BTreeSet;

/// Rewrites the `send` of every analytics list operation in `file`.
pub fn decode_while_arriving(file: &mut syn::File, service: &str) -> anyhow::Result<()> {
    if service != "analytics" {
        return Ok(());
    }
    let paged = paged_types(&file.items);
    for f in crate::codegen::sends_mut(file) {
        let output = f.sig.output.to_token_stream().to_string();
        if !paged
            .iter()
            .any(|t| output.contains(&format!("ResponseValue < types :: {t} >")))
        {
            continue;
        }
        let body = f.block.to_token_stream().to_string().replace(
            "ResponseValue :: from_response",
            "vidplat_core :: decode_streaming_response",
        );
        f.block = syn::parse_str(&body)?;
    }
    Ok(())
}

/// The types with an `impl vidplat_core::Paged`.
fn paged_types(items: &[syn::Item]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for item in items {
        match item {
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    found.extend(paged_types(inner));
                }
            }
            syn::Item::Impl(i) => {
                let is_paged = i
                    .trait_
                    .as_ref()
                    .is_some_and(|(_, path, _)| path.segments.last().is_some_and(|s| s.ident == "Paged"));
                if is_paged {
                    found.insert(i.self_ty.to_token_stream().to_string());
                }
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn only_the_analytics_lists_decode_while_arriving() {
        let source = quote! {
            pub mod types {
                pub struct Page {}
                pub struct One {}
                impl vidplat_core::Paged for Page {}
            }
            pub mod builder {
                impl<'a> ListRows<'a> {
                    pub async fn send(self) -> Result<ResponseValue<types::Page>, Error<types::Error>> {
                        ResponseValue::from_response(response).await
                    }
                }
                impl<'a> GetOne<'a> {
                    pub async fn send(self) -> Result<ResponseValue<types::One>, Error<types::Error>> {
                        ResponseValue::from_response(response).await
                    }
                }
            }
        };
        let mut file: syn::File = syn::parse2(source.clone()).unwrap();
        super::decode_while_arriving(&mut file, "analytics").unwrap();
        let code = prettyplease::unparse(&file);
        assert_eq!(
            code.matches("vidplat_core::decode_streaming_response(response)")
                .count(),
            1,
            "{code}"
        );
        assert_eq!(
            code.matches("ResponseValue::from_response(response)").count(),
            1,
            "{code}"
        );
        let mut other: syn::File = syn::parse2(source).unwrap();
        super::decode_while_arriving(&mut other, "vms").unwrap();
        assert!(!prettyplease::unparse(&other).contains("decode_streaming_response"));
    }
}
