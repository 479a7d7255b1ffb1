//! Small structural helpers over `syn` trees, shared by the codegen steps.
//! Everything here reads or builds syntax nodes; nothing matches rendered text.

use anyhow::{Context, Result};

/// The type arguments of the last segment of a path type (`T` of `Option<T>`).
pub fn generic_args(ty: &syn::Type) -> Vec<&syn::Type> {
    let syn::Type::Path(path) = ty else { return Vec::new() };
    let Some(last) = path.path.segments.last() else {
        return Vec::new();
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The first type argument of `ty`, owned.
pub fn first_generic(ty: &syn::Type) -> Option<syn::Type> {
    generic_args(ty).first().map(|t| (*t).clone())
}

/// Whether `ty` is a path ending in `name` (`Option`, `Vec`, …).
pub fn is_named(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == name))
}

/// Whether `ty` is `()`.
pub fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
}

/// The segment names of a path type (`["types", "builder", "TaskCreate"]`).
pub fn path_names(ty: &syn::Type) -> Vec<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.iter().map(|s| s.ident.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// The items of the inline module `name` among `items`.
pub fn module_items<'a>(items: &'a mut [syn::Item], name: &str) -> Option<&'a mut Vec<syn::Item>> {
    items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_mut().map(|c| &mut c.1),
        _ => None,
    })
}

/// The items of the inline module `name` among `items`, to read.
pub fn module_items_ref<'a>(items: &'a [syn::Item], name: &str) -> Option<&'a Vec<syn::Item>> {
    items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == name => m.content.as_ref().map(|c| &c.1),
        _ => None,
    })
}

/// The `types` module of a generated file.
pub fn types_module(file: &mut syn::File) -> Result<&mut Vec<syn::Item>> {
    module_items(&mut file.items, "types").context("progenitor's output has no `types` module")
}

/// The trait an impl block implements, by its last path segment (`TryFrom`, `Default`).
pub fn trait_name(block: &syn::ItemImpl) -> Option<&syn::Ident> {
    block
        .trait_
        .as_ref()
        .and_then(|(_, path, _)| path.segments.last())
        .map(|s| &s.ident)
}

/// The named fields of a struct with named fields, else none.
pub fn named_fields(fields: &syn::Fields) -> impl Iterator<Item = &syn::Field> {
    fields.iter().filter(|f| f.ident.is_some())
}

/// The name a struct field travels under: its `#[serde(rename = "…")]`, else its identifier.
pub fn wire_name(field: &syn::Field) -> Option<String> {
    let mut renamed = None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                renamed = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                // Another `key = value`: skip its value.
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    renamed.or_else(|| {
        field
            .ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_owned())
    })
}

/// progenitor's name for an operation's builder: the operationId in PascalCase.
pub fn builder_name(operation_id: &str) -> String {
    operation_id
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect()
}

/// The Rust field name progenitor and typify give a parameter or member:
/// snake case, with a trailing `_` on a keyword (`type` is `type_`).
pub fn field_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if syn::parse_str::<syn::Ident>(&out).is_err() {
        format!("{out}_")
    } else {
        out
    }
}

/// The `T` of a typify setter's `where X: TryInto<T>` bound, to read or retype.
pub fn try_into_target(sig: &mut syn::Signature) -> Option<&mut syn::Type> {
    let clause = sig.generics.where_clause.as_mut()?;
    clause.predicates.iter_mut().find_map(|predicate| {
        let syn::WherePredicate::Type(p) = predicate else {
            return None;
        };
        p.bounds.iter_mut().find_map(|bound| {
            let syn::TypeParamBound::Trait(t) = bound else {
                return None;
            };
            let last = t.path.segments.last_mut()?;
            if last.ident != "TryInto" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
                return None;
            };
            args.args.iter_mut().find_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
        })
    })
}

/// Replaces `skip_serializing_if = …` in the field's `#[serde(…)]` attributes
/// with `skip_serializing_if = "with"`, or removes it for `None`; a member
/// that may be skipped when written is read as its default when absent, so
/// `default` is kept (or added). Whether a skip was found.
pub fn replace_skip_serializing_if(attrs: &mut [syn::Attribute], with: Option<&str>) -> Result<bool> {
    use syn::punctuated::Punctuated;
    let mut found = false;
    for attr in attrs.iter_mut().filter(|a| a.path().is_ident("serde")) {
        let metas = attr.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)?;
        if !metas.iter().any(|meta| meta.path().is_ident("skip_serializing_if")) {
            continue;
        }
        found = true;
        let mut kept: Vec<syn::Meta> = metas
            .into_iter()
            .filter(|meta| !meta.path().is_ident("skip_serializing_if") && !meta.path().is_ident("default"))
            .collect();
        kept.push(syn::parse_quote!(default));
        if let Some(with) = with {
            kept.push(syn::parse_quote!(skip_serializing_if = #with));
        }
        *attr = syn::parse_quote!(#[serde(#(#kept),*)]);
    }
    Ok(found)
}

/// The feature of `#[cfg(feature = "x")]`; `None` for any other attribute
/// (a `cfg` of another form included).
pub fn cfg_feature(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    match attr.parse_args::<syn::Meta>().ok()? {
        syn::Meta::NameValue(gate) if gate.path.is_ident("feature") => match gate.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) => Some(name.value()),
            _ => None,
        },
        _ => None,
    }
}

/// `#[inline]`, whether written as is or behind a `cfg_attr`.
pub fn says_inline(attr: &syn::Attribute) -> bool {
    if attr.path().is_ident("inline") {
        return true;
    }
    if !attr.path().is_ident("cfg_attr") {
        return false;
    }
    let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    attr.parse_args_with(parser)
        .is_ok_and(|metas| metas.iter().skip(1).any(|meta| meta.path().is_ident("inline")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn names_follow_progenitor() {
        assert_eq!(builder_name("get_task"), "GetTask");
        assert_eq!(field_name("task-id"), "task_id");
        assert_eq!(field_name("x-vms-date"), "x_vms_date");
        assert_eq!(field_name("per_page"), "per_page");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("loginId"), "login_id");
    }

    #[test]
    fn wire_names_come_from_serde_renames() {
        let strukt: syn::ItemStruct = syn::parse_quote! {
            struct S {
                #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
                type_: Option<String>,
                plain: u8,
            }
        };
        let names: Vec<_> = strukt.fields.iter().filter_map(wire_name).collect();
        assert_eq!(names, ["type", "plain"]);
    }

    #[test]
    fn a_skip_is_replaced_or_removed_and_the_rest_of_the_attribute_stays() {
        let mut field: syn::Field = syn::parse_quote! {
            #[serde(rename = "type", default, skip_serializing_if = "::std::option::Option::is_none")]
            pub type_: Option<String>
        };
        assert!(replace_skip_serializing_if(&mut field.attrs, Some("Patch::is_keep")).unwrap());
        let attr = field.attrs[0].to_token_stream().to_string();
        assert_eq!(
            attr,
            "# [serde (rename = \"type\" , default , skip_serializing_if = \"Patch::is_keep\")]"
        );
        assert!(replace_skip_serializing_if(&mut field.attrs, None).unwrap());
        let attr = field.attrs[0].to_token_stream().to_string();
        assert_eq!(attr, "# [serde (rename = \"type\" , default)]");
        assert!(!replace_skip_serializing_if(&mut field.attrs, None).unwrap());
    }
}
