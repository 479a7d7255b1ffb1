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
    for (id, method, path, paging) in &routes {
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
                    let paginated = i
                        .trait_
                        .as_ref()
                        .is_some_and(|(_, path, _)| path.segments.last().is_some_and(|s| s.ident == "Paginated"));
                    if paginated {
                        // The style is the row's `paging` column, which `Paginated::STYLE` reads.
                        writeln!(
                            out,
                            "  pages()/items(): {}",
                            paging.as_deref().unwrap_or("no style in the row")
                        )
                        .ok();
                    }
                    for inner in &i.items {
                        match inner {
                            syn::ImplItem::Fn(f) if f.sig.ident == "send" => {
                                if let syn::ReturnType::Type(_, t) = &f.sig.output {
                                    writeln!(out, "  -> {}", ty(t)).ok();
                                }
                            }
                            syn::ImplItem::Fn(f) if i.trait_.is_none() && f.sig.ident != "new" => {
                                writeln!(out, "  .{}({})", f.sig.ident, accepts(&f.sig)).ok();
                            }
                            _ => {}
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

/// What a setter takes: its generic parameter's bound (`IntoValue<NonZeroU64>`), else its argument's type.
fn accepts(sig: &syn::Signature) -> String {
    let bounds: Vec<String> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(ty(&t.bounds)),
            _ => None,
        })
        .collect();
    if !bounds.is_empty() {
        return bounds.join(" of ");
    }
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => Some(ty(&t.ty)),
            syn::FnArg::Receiver(_) => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The public items of a hand-written crate (`crates/vidplat/src`): types,
/// traits, and every public function or method with its signature.
pub fn facade_listing(files: &[(String, String)]) -> String {
    let mut out = String::new();
    for (name, source) in files {
        let file = syn::parse_file(source).expect("the facade parses");
        writeln!(
            out,
            "
# {name}"
        )
        .ok();
        list_items(&file.items, &mut out);
    }
    out
}

fn is_public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn signature(sig: &syn::Signature) -> String {
    let mut sig = sig.clone();
    sig.asyncness = sig.asyncness.take();
    ty(&sig)
}

fn list_items(items: &[syn::Item], out: &mut String) {
    for item in items {
        match item {
            syn::Item::Struct(s) if is_public(&s.vis) => {
                writeln!(out, "struct {}{}", s.ident, ty(&s.generics)).ok();
            }
            syn::Item::Enum(e) if is_public(&e.vis) => {
                let variants: Vec<String> = e.variants.iter().map(|v| v.ident.to_string()).collect();
                writeln!(out, "enum {}: {}", e.ident, variants.join(" | ")).ok();
            }
            syn::Item::Trait(t) if is_public(&t.vis) => {
                writeln!(out, "trait {}", t.ident).ok();
                for inner in &t.items {
                    if let syn::TraitItem::Fn(f) = inner {
                        writeln!(out, "  {}", signature(&f.sig)).ok();
                    }
                }
            }
            syn::Item::Fn(f) if is_public(&f.vis) => {
                writeln!(out, "{}", signature(&f.sig)).ok();
            }
            syn::Item::Impl(i) => {
                let methods: Vec<String> = i
                    .items
                    .iter()
                    .filter_map(|inner| match inner {
                        syn::ImplItem::Fn(f) if is_public(&f.vis) => Some(signature(&f.sig)),
                        _ => None,
                    })
                    .collect();
                if !methods.is_empty() {
                    writeln!(out, "impl {}", ty(&i.self_ty)).ok();
                    for method in methods {
                        writeln!(out, "  {method}").ok();
                    }
                }
            }
            syn::Item::Mod(m) if is_public(&m.vis) => {
                if let Some((_, items)) = &m.content {
                    writeln!(out, "mod {}", m.ident).ok();
                    list_items(items, out);
                }
            }
            _ => {}
        }
    }
}

fn module<'f>(items: &'f [syn::Item], name: &str) -> Option<&'f [syn::Item]> {
    items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|(_, items)| items.as_slice()),
        _ => None,
    })
}

/// (operation id, method, path) from the generated `operations::ALL` table.
/// Each row's id, method, path and paging style.
fn operation_routes(file: &syn::File) -> Vec<(String, String, String, Option<String>)> {
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
            let paging = field("paging");
            let style = paging.strip_prefix("Some (").map(|style| {
                style
                    .trim_end_matches(')')
                    .rsplit("::")
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            });
            (field("id"), method, field("path"), style)
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
        .replace(":: std :: ops :: ", "std::ops::")
        .replace(":: std :: iter :: ", "std::iter::")
        .replace(":: std :: convert :: ", "std::convert::")
        .replace(":: vidplat_core :: ", "::vidplat_core::")
        .replace(":: reqwest :: ", "reqwest::")
        .replace(":: serde_json :: ", "serde_json::")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(",>", ">")
        .replace("Result <", "Result<")
        .replace("& 'a ", "&")
}

/// A builder field's value type, without the `Result<_, Refusal>` that holds a refused value.
fn strip_result(t: &str) -> String {
    t.strip_prefix("Result<")
        .and_then(|r| r.strip_suffix(", ::vidplat_core::Refusal>"))
        .unwrap_or(t)
        .to_string()
}

fn pascal(id: &str) -> String {
    id.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}
