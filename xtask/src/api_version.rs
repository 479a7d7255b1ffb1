//! progenitor sends the spec's `info.version` as an `api-version` header on
//! every request. The services document no such header, so the generated
//! `send`s no longer build it (it used to be built, then removed by the
//! runtime before every request: work on every call for nothing).

use quote::ToTokens;

/// Drops the `api-version` header from every `send` in `file`.
pub fn drop_header(file: &mut syn::File) -> anyhow::Result<()> {
    for f in crate::codegen::sends_mut(file) {
        let before = f.block.stmts.len();
        f.block
            .stmts
            .retain(|stmt| !stmt.to_token_stream().to_string().contains("\"api-version\""));
        if f.block.stmts.len() == before {
            continue;
        }
        let mut none_left = false;
        for stmt in &mut f.block.stmts {
            let text = stmt.to_token_stream().to_string();
            let Some(at) = text.find("HeaderMap :: with_capacity (") else {
                continue;
            };
            let start = at + "HeaderMap :: with_capacity (".len();
            let Some(len) = text[start..].find("usize") else {
                continue;
            };
            let capacity: usize = text[start..start + len].trim().parse()?;
            none_left = capacity <= 1;
            let fixed = format!(
                "{}{}usize{}",
                &text[..start],
                capacity.saturating_sub(1),
                &text[start + len + "usize".len()..]
            );
            *stmt = syn::parse_str(&fixed)?;
        }
        if none_left {
            // No header left: no map to build, none to merge into the request.
            f.block.stmts.retain(|stmt| {
                !stmt
                    .to_token_stream()
                    .to_string()
                    .contains("HeaderMap :: with_capacity (")
            });
            for stmt in &mut f.block.stmts {
                let text = stmt.to_token_stream().to_string();
                if text.contains(". headers (header_map)") {
                    *stmt = syn::parse_str(&text.replace(". headers (header_map)", ""))?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn the_header_and_its_room_are_gone_and_other_headers_stay() {
        let mut file: syn::File = syn::parse2(quote! {
            pub mod builder {
                impl<'a> GetTask<'a> {
                    pub async fn send(self) -> Result<(), ()> {
                        let mut header_map = ::reqwest::header::HeaderMap::with_capacity(2usize);
                        header_map.append(
                            ::reqwest::header::HeaderName::from_static("api-version"),
                            ::reqwest::header::HeaderValue::from_static(super::Client::api_version()),
                        );
                        header_map.append("x-vms-date", value.to_string().try_into()?);
                        Ok(())
                    }
                }
            }
        })
        .unwrap();
        super::drop_header(&mut file).unwrap();
        let code = prettyplease::unparse(&file);
        assert!(!code.contains("api-version"), "{code}");
        assert!(code.contains("HeaderMap::with_capacity(1usize)"), "{code}");
        assert!(code.contains("\"x-vms-date\""), "{code}");
    }

    #[test]
    fn with_no_header_left_no_map_is_built() {
        let mut file: syn::File = syn::parse2(quote! {
            pub mod builder {
                impl<'a> GetTask<'a> {
                    pub async fn send(self) -> Result<(), ()> {
                        let mut header_map = ::reqwest::header::HeaderMap::with_capacity(1usize);
                        header_map.append(
                            ::reqwest::header::HeaderName::from_static("api-version"),
                            ::reqwest::header::HeaderValue::from_static(super::Client::api_version()),
                        );
                        let request = client.client.get(url).header(ACCEPT, JSON).headers(header_map).build()?;
                        Ok(())
                    }
                }
            }
        })
        .unwrap();
        super::drop_header(&mut file).unwrap();
        let code = prettyplease::unparse(&file);
        assert!(!code.contains("header_map"), "{code}");
        assert!(code.contains(".header(ACCEPT, JSON)"), "{code}");
        assert!(code.contains(".build()?"), "{code}");
    }
}
