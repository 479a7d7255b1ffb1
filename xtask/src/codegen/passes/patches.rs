//! Pass `patches`: an update body says, for each member, "leave out", "set to
//! this" or "clear". typify's `Option` has two states and its lists are left
//! out when empty, so an update could neither clear `publish_end` nor remove
//! the last chapter. In the schemas only updates send (the request bodies of
//! PUT and PATCH operations, and what they reach that no answer does):
//! - a nullable member becomes `vidplat_core::Patch<T>` (left out, a value,
//!   or `null`), in the type and in its builder, whose setter the `setters`
//!   pass completes with a `clear_` twin;
//! - an optional list becomes `Option<Vec<T>>`, so `Some(vec![])` sends `[]`.

use crate::codegen::passes::expect::Expect;
use crate::codegen::spec::{is_nullable, update_schemas};
use crate::codegen::syntax::{
    first_generic, is_named, module_items, replace_skip_serializing_if, try_into_target, types_module, wire_name,
};
use anyhow::{bail, Result};
use serde_json::Value;

/// How one member of an update body changes.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Change {
    /// `Option<T>` to `Patch<T>`.
    Nullable,
    /// `Vec<T>` (left out when empty) to `Option<Vec<T>>`.
    List,
}

pub fn run(file: &mut syn::File, spec: &Value) -> Result<usize> {
    let updates = update_schemas(spec);
    let types = types_module(file)?;
    let mut changes: Vec<(String, String, Change)> = Vec::new();
    // Lists typify already writes as `Option<Vec<T>>` (a `uniqueItems` list, say) need nothing.
    let mut lists_already_optional = 0;
    for item in types.iter_mut() {
        let syn::Item::Struct(strukt) = item else { continue };
        let name = strukt.ident.to_string();
        if !updates.contains(&name) {
            continue;
        }
        let properties = &spec["components"]["schemas"][&name]["properties"];
        for field in strukt.fields.iter_mut() {
            let (Some(wire), Some(ident)) = (wire_name(field), field.ident.clone()) else {
                continue;
            };
            let optional_list =
                is_named(&field.ty, "Option") && first_generic(&field.ty).is_some_and(|t| is_named(&t, "Vec"));
            let change = if is_nullable(&properties[&wire]) && is_named(&field.ty, "Option") {
                Change::Nullable
            } else if is_named(&field.ty, "Vec") {
                Change::List
            } else {
                lists_already_optional += usize::from(optional_list);
                continue;
            };
            // A required list has no skip and is always written; it keeps its `Vec`.
            let skip = match change {
                Change::Nullable => "::vidplat_core::Patch::is_keep",
                Change::List => "::std::option::Option::is_none",
            };
            if !replace_skip_serializing_if(&mut field.attrs, Some(skip))? {
                continue;
            }
            field.ty = retyped(&field.ty, change)?;
            changes.push((name.clone(), ident.to_string(), change));
        }
    }
    retype_builders(types, &changes)?;
    Ok(changes.len() + lists_already_optional)
}

/// One site per nullable optional member and per optional list of an update
/// schema (a list typify already made optional counts as found).
pub fn expect(spec: &Value) -> Expect {
    let sites = update_schemas(spec)
        .iter()
        .map(|name| {
            let schema = &spec["components"]["schemas"][name];
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(member, _)| !required.contains(&member.as_str()))
                .filter(|(_, property)| {
                    is_nullable(property) || crate::bounds::resolve(spec, property)["type"] == "array"
                })
                .count()
        })
        .sum();
    Expect::Exactly(sites)
}

fn retyped(ty: &syn::Type, change: Change) -> Result<syn::Type> {
    Ok(match change {
        Change::Nullable => {
            let Some(inner) = first_generic(ty) else {
                bail!("an Option without its type argument")
            };
            syn::parse_quote!(::vidplat_core::Patch<#inner>)
        }
        Change::List => syn::parse_quote!(::std::option::Option<#ty>),
    })
}

/// The builders' members `Result<X, Refusal>` and their setters' `TryInto<X>`
/// take the new type; Default and the conversions move the values as they are.
fn retype_builders(types: &mut [syn::Item], changes: &[(String, String, Change)]) -> Result<()> {
    let Some(builders) = module_items(types, "builder") else {
        if changes.is_empty() {
            return Ok(());
        }
        bail!("update schemas changed, but typify wrote no builders for them");
    };
    let mut retyped_members = 0;
    let mut retyped_setters = 0;
    for item in builders.iter_mut() {
        match item {
            syn::Item::Struct(strukt) => {
                let name = strukt.ident.to_string();
                for field in strukt.fields.iter_mut() {
                    let Some(ident) = &field.ident else { continue };
                    let Some(change) = change_of(changes, &name, &ident.to_string()) else {
                        continue;
                    };
                    // `Result<X, Refusal>`: X is the first type argument.
                    let syn::Type::Path(path) = &mut field.ty else { continue };
                    let Some(last) = path.path.segments.last_mut() else {
                        continue;
                    };
                    let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
                        continue;
                    };
                    let Some(syn::GenericArgument::Type(stored)) = args.args.first_mut() else {
                        continue;
                    };
                    *stored = retyped(stored, change)?;
                    retyped_members += 1;
                }
            }
            syn::Item::Impl(block) if block.trait_.is_none() => {
                let syn::Type::Path(self_ty) = &*block.self_ty else {
                    continue;
                };
                let Some(name) = self_ty.path.segments.last().map(|s| s.ident.to_string()) else {
                    continue;
                };
                for member in block.items.iter_mut() {
                    let syn::ImplItem::Fn(setter) = member else { continue };
                    let Some(change) = change_of(changes, &name, &setter.sig.ident.to_string()) else {
                        continue;
                    };
                    if let Some(target) = try_into_target(&mut setter.sig) {
                        *target = retyped(target, change)?;
                        retyped_setters += 1;
                    }
                }
            }
            _ => {}
        }
    }
    if retyped_members != changes.len() || retyped_setters != changes.len() {
        bail!(
            "{} update members changed, but {retyped_members} builder members and {retyped_setters} setters followed",
            changes.len()
        );
    }
    Ok(())
}

fn change_of(changes: &[(String, String, Change)], strukt: &str, member: &str) -> Option<Change> {
    changes
        .iter()
        .find(|(s, m, _)| s == strukt && m == member)
        .map(|(_, _, change)| *change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn nullable_members_become_patches_and_optional_lists_options_in_type_and_builder() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub struct PageUpdate {
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                    pub site_id: ::std::option::Option<::uuid::Uuid>,
                    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                    pub audiences: ::std::vec::Vec<String>,
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                    pub title: ::std::option::Option<String>,
                }
                pub mod builder {
                    pub struct PageUpdate {
                        site_id: ::std::result::Result<::std::option::Option<::uuid::Uuid>, ::vidplat_core::Refusal>,
                        audiences: ::std::result::Result<::std::vec::Vec<String>, ::vidplat_core::Refusal>,
                        title: ::std::result::Result<::std::option::Option<String>, ::vidplat_core::Refusal>,
                    }
                    impl PageUpdate {
                        pub fn site_id<T>(mut self, value: T) -> Self
                        where T: ::std::convert::TryInto<::std::option::Option<::uuid::Uuid>> { self }
                        pub fn audiences<T>(mut self, value: T) -> Self
                        where T: ::std::convert::TryInto<::std::vec::Vec<String>> { self }
                        pub fn title<T>(mut self, value: T) -> Self
                        where T: ::std::convert::TryInto<::std::option::Option<String>> { self }
                    }
                }
            }
        };
        let spec = serde_json::json!({
            "components": {"schemas": {"PageUpdate": {"type": "object", "properties": {
                "site_id": {"type": "string", "nullable": true},
                "audiences": {"type": "array", "items": {"type": "string"}},
                "title": {"type": "string"}
            }}}},
            "paths": {"/pages/{id}": {"patch": {
                "operationId": "updatePage",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/PageUpdate"}}}},
                "responses": {"204": {"description": "updated"}}
            }}}
        });
        assert_eq!(run(&mut file, &spec).unwrap(), 2);
        assert_eq!(expect(&spec), Expect::Exactly(2));
        let text = file.to_token_stream().to_string();
        for wanted in [
            "pub site_id : :: vidplat_core :: Patch < :: uuid :: Uuid >",
            "skip_serializing_if = \"::vidplat_core::Patch::is_keep\"",
            "pub audiences : :: std :: option :: Option < :: std :: vec :: Vec < String > >",
            "site_id : :: std :: result :: Result < :: vidplat_core :: Patch < :: uuid :: Uuid > , :: vidplat_core :: Refusal >",
            "TryInto < :: vidplat_core :: Patch < :: uuid :: Uuid > >",
            "TryInto < :: std :: option :: Option < :: std :: vec :: Vec < String > > >",
            // A member that is not nullable keeps its Option.
            "pub title : :: std :: option :: Option < String >",
        ] {
            assert!(text.contains(wanted), "missing `{wanted}` in {text}");
        }
    }
}
