//! A compact listing of a generated crate's API surface, read from its
//! generated.rs: every operation (method, path, parameters, response) and
//! every type (fields, variants, known enum values).

use quote::ToTokens;
use std::fmt::Write as _;

pub fn listing(source: &str) -> String {
    let file = syn::parse_file(source).expect("generated.rs parses");
    let mut out = String::new();
    let routes = operation_routes(&file);
    let builder = module(&file.items, "builder").expect("a builder module");

    writeln!(out, "# Operations ({})", routes.len()).ok();
    for (id, method, path) in &routes {
        let name = pascal(id);
        writeln!(out, "\n{id}: {method} {path}").ok();
        for item in builder {
            match item {
                syn::Item::Struct(s) if s.ident == name => {
                    for field in &s.fields {
                        let Some(ident) = &field.ident else { continue };
                        if ident == "client" {
                            continue;
                        }
                        writeln!(out, "  {ident}: {}", strip_result(&ty(&field.ty))).ok();
                    }
                }
                syn::Item::Impl(i) if ty(&i.self_ty).starts_with(&format!("{name}<")) || ty(&i.self_ty) == name => {
                    for inner in &i.items {
                        if let syn::ImplItem::Fn(f) = inner {
                            if f.sig.ident == "send" {
                                if let syn::ReturnType::Type(_, t) = &f.sig.output {
                                    writeln!(out, "  -> {}", ty(t)).ok();
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    let types = module(&file.items, "types").expect("a types module");
    writeln!(out, "\n# Types").ok();
    for item in types {
        match item {
            syn::Item::Struct(s) => {
                writeln!(out, "\nstruct {}", s.ident).ok();
                for (index, field) in s.fields.iter().enumerate() {
                    let name = field
                        .ident
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_else(|| index.to_string());
                    writeln!(out, "  {name}: {}", ty(&field.ty)).ok();
                }
            }
            syn::Item::Enum(e) => {
                writeln!(out, "\nenum {}", e.ident).ok();
                for v in &e.variants {
                    writeln!(
                        out,
                        "  {}{}",
                        v.ident,
                        if v.fields.is_empty() {
                            String::new()
                        } else {
                            v.fields.to_token_stream().to_string()
                        }
                    )
                    .ok();
                }
            }
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "open_enum") => {
                let text = m.mac.tokens.to_string();
                let name = text
                    .split("pub enum")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .unwrap_or("?");
                let values: Vec<&str> = text
                    .split("=>")
                    .skip(1)
                    .filter_map(|part| part.split('"').nth(1))
                    .collect();
                writeln!(out, "\nopen enum {name}: {}", values.join(" | ")).ok();
            }
            _ => {}
        }
    }
    out
}

fn module<'f>(items: &'f [syn::Item], name: &str) -> Option<&'f [syn::Item]> {
    items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, items)| items.as_slice()),
        _ => None,
    })
}

/// (operation id, method, path) from the generated `operations::ALL` table.
fn operation_routes(file: &syn::File) -> Vec<(String, String, String)> {
    let table = module(&file.items, "operations").expect("an operations module");
    let text = table
        .iter()
        .map(|i| i.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    text.split("OperationMeta {")
        .skip(1)
        .map(|row| {
            let field = |name: &str| {
                let after = row.split(&format!("{name} :")).nth(1).unwrap_or_default();
                after
                    .split(',')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"')
                    .to_string()
            };
            let method = field("method")
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .trim()
                .to_uppercase();
            (field("id"), method, field("path"))
        })
        .collect()
}

fn ty(t: &impl ToTokens) -> String {
    let text = t.to_token_stream().to_string();
    text.replace(":: std :: option :: ", "")
        .replace(":: std :: vec :: ", "")
        .replace(":: std :: string :: ", "")
        .replace(":: std :: num :: ", "")
        .replace(":: std :: result :: ", "")
        .replace(":: serde_json :: ", "serde_json::")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& 'a ", "&")
}

fn strip_result(t: &str) -> String {
    t.strip_prefix("Result<")
        .and_then(|r| r.strip_suffix(", String>"))
        .unwrap_or(t)
        .to_string()
}

fn pascal(id: &str) -> String {
    id.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}
