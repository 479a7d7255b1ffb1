//! What an update starts from: the resource as read. For each update body `U`
//! sent by a PUT or a PATCH whose path also answers a GET with `R`:
//! `impl From<&R> for builder::U`, and `U::builder_from(&R)`, copy every
//! member the two share through `U`'s setters, so a value the server returned
//! that breaks one of `U`'s rules is refused, named, when the body is built
//! (nothing is sent). A nested body that differs from what is read
//! (`Chapter` into `ChapterUpdate`) gets the same conversion, and the setter
//! conversions from a reference to it.

use crate::codegen::syntax::{first_generic, is_named, module_items_ref, wire_name};
use crate::services::operations;
use anyhow::Result;
use quote::{format_ident, quote};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// An update whose path also answers a GET: the one place that pairs them,
/// for the conversions and for `modify_*`.
#[derive(Debug, PartialEq)]
pub struct UpdatePair {
    /// The PUT or PATCH's operationId and its body schema.
    pub update_op: String,
    pub update: String,
    /// The GET's operationId and the schema it answers.
    pub read_op: String,
    pub read: String,
}

/// Every update with a GET on its path, in the YAML's order.
pub fn update_pairs(spec: &Value) -> Vec<UpdatePair> {
    let schema_name = |schema: &Value| {
        schema["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .map(str::to_owned)
    };
    let id = |op: &Value| op["operationId"].as_str().map(str::to_owned);
    let ops = operations(spec);
    let mut pairs = Vec::new();
    for (path, method, op) in &ops {
        if method != "PUT" && method != "PATCH" {
            continue;
        }
        let (Some(update), Some(update_op)) = (
            schema_name(&op["requestBody"]["content"]["application/json"]["schema"]),
            id(op),
        ) else {
            continue;
        };
        let read = ops
            .iter()
            .filter(|(p, m, _)| p == path && m == "GET")
            .find_map(|(_, _, get)| {
                let read = get["responses"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(status, _)| status.starts_with('2'))
                    .find_map(|(_, response)| schema_name(&response["content"]["application/json"]["schema"]))?;
                Some((id(get)?, read))
            });
        if let Some((read_op, read)) = read {
            pairs.push(UpdatePair {
                update_op,
                update,
                read_op,
                read,
            });
        }
    }
    pairs
}

/// The conversions, for the `types` module.
pub fn items(spec: &Value, types: &[syn::Item]) -> Result<Vec<syn::Item>> {
    let structs: BTreeMap<String, &syn::ItemStruct> = types
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some((s.ident.to_string(), s)),
            _ => None,
        })
        .collect();
    let builders: BTreeSet<String> = module_items_ref(types, "builder")
        .into_iter()
        .flatten()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut queue: Vec<(String, String, bool)> = update_pairs(spec)
        .into_iter()
        .map(|pair| (pair.update, pair.read, false))
        .collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    while let Some((update, read, nested)) = queue.pop() {
        if !done.insert((update.clone(), read.clone())) {
            continue;
        }
        let (Some(u), Some(r)) = (structs.get(&update), structs.get(&read)) else {
            continue;
        };
        if !builders.contains(&update) {
            continue;
        }
        let mut setters = Vec::new();
        for field in u.fields.iter() {
            let (Some(wire), Some(ident)) = (wire_name(field), field.ident.as_ref()) else {
                continue;
            };
            let Some(source) = r.fields.iter().find(|f| wire_name(f).as_deref() == Some(&wire)) else {
                continue;
            };
            let Some(member) = &source.ident else { continue };
            let want = unwrapped(&field.ty);
            let have = unwrapped(&source.ty);
            let have_optional = is_named(&source.ty, "Option");
            let argument = match (element(&want), element(&have)) {
                (Some(want_item), Some(have_item)) => {
                    let items = if have_optional {
                        quote!(value.#member.iter().flatten())
                    } else {
                        quote!(value.#member.iter())
                    };
                    if key(&want_item) == key(&have_item) {
                        quote!(#items.cloned())
                    } else {
                        if let Some(pair) = struct_pair(&want_item, &have_item, &structs) {
                            queue.push((pair.0, pair.1, true));
                        }
                        items
                    }
                }
                (Some(_), None) | (None, Some(_)) => continue,
                (None, None) => {
                    if key(&want) == key(&have) {
                        quote!(::std::clone::Clone::clone(&value.#member))
                    } else {
                        if let Some(pair) = struct_pair(&want, &have, &structs) {
                            queue.push((pair.0, pair.1, true));
                        }
                        quote!(&value.#member)
                    }
                }
            };
            setters.push(quote!(.#ident(#argument)));
        }
        let u_ident = format_ident!("{}", update);
        let r_ident = format_ident!("{}", read);
        let doc = format!(
            "The `{update}` that keeps everything a `{read}` as read holds: change what you need, then send it. \
             A value the server returned that breaks one of `{update}`'s rules is refused when the body is built."
        );
        out.push(syn::parse2(quote! {
            impl ::std::convert::From<&#r_ident> for builder::#u_ident {
                #[doc = #doc]
                fn from(value: &#r_ident) -> Self {
                    Self::default() #(#setters)*
                }
            }
        })?);
        if nested {
            out.push(syn::parse2(quote! {
                impl ::vidplat_core::IntoValue<#u_ident> for &#r_ident {
                    fn into_value(self) -> ::std::result::Result<#u_ident, ::vidplat_core::Refusal> {
                        #u_ident::try_from(builder::#u_ident::from(self))
                    }
                }
            })?);
            out.push(syn::parse2(quote! {
                impl ::vidplat_core::IntoOptional<#u_ident> for &::std::option::Option<#r_ident> {
                    fn into_optional(self) -> ::std::result::Result<::std::option::Option<#u_ident>, ::vidplat_core::Refusal> {
                        self.as_ref().map(|read| #u_ident::try_from(builder::#u_ident::from(read))).transpose()
                    }
                }
            })?);
        } else {
            out.push(syn::parse2(quote! {
                impl #u_ident {
                    #[doc = #doc]
                    pub fn builder_from(read: &#r_ident) -> builder::#u_ident {
                        builder::#u_ident::from(read)
                    }
                }
            })?);
        }
    }
    out.reverse();
    Ok(out)
}

/// `T` of `Option<T>` or `Patch<T>`, else the type itself.
fn unwrapped(ty: &syn::Type) -> syn::Type {
    if is_named(ty, "Option") || is_named(ty, "Patch") {
        if let Some(inner) = first_generic(ty) {
            return inner;
        }
    }
    ty.clone()
}

/// `T` of `Vec<T>`.
fn element(ty: &syn::Type) -> Option<syn::Type> {
    is_named(ty, "Vec").then(|| first_generic(ty)).flatten()
}

/// A type's identity without its path: `crate::types::Tag` and `Tag` are one.
fn key(ty: &syn::Type) -> String {
    let syn::Type::Path(path) = ty else {
        return quote!(#ty).to_string();
    };
    let Some(last) = path.path.segments.last() else {
        return String::new();
    };
    let args: Vec<String> = crate::codegen::syntax::generic_args(ty).into_iter().map(key).collect();
    if args.is_empty() {
        last.ident.to_string()
    } else {
        format!("{}<{}>", last.ident, args.join(","))
    }
}

/// Two different generated structs: a nested (update, read) pair.
fn struct_pair(
    want: &syn::Type,
    have: &syn::Type,
    structs: &BTreeMap<String, &syn::ItemStruct>,
) -> Option<(String, String)> {
    let (want, have) = (key(want), key(have));
    (structs.contains_key(&want) && structs.contains_key(&have)).then_some((want, have))
}

/// `Client::modify_<resource>`: read, change, write, for every update whose
/// path also answers a GET and whose parameters are all in the path.
pub fn modify_methods(spec: &Value, operations: &[crate::codegen::model::Operation]) -> Result<Option<syn::Item>> {
    use crate::codegen::model::{Body, Location};
    let by_id = |id: &str| operations.iter().find(|op| op.id == id);
    let mut methods = Vec::new();
    for pair in update_pairs(spec) {
        let (Some(update), Some(read)) = (by_id(&pair.update_op), by_id(&pair.read_op)) else {
            continue;
        };
        let Some(Body::Json { ty, builder: Some(_) }) = &update.body else {
            continue;
        };
        let in_path = |op: &crate::codegen::model::Operation| op.params.iter().all(|p| p.location == Location::Path);
        if !in_path(update) || !in_path(read) || read.params.len() != update.params.len() {
            continue;
        }
        let Some(resource) = update.id.strip_prefix("update_") else {
            continue;
        };
        let name = format_ident!("modify_{}", resource);
        let (get, put) = (format_ident!("{}", read.id), format_ident!("{}", update.id));
        let generics: Vec<syn::Ident> = (0..update.params.len()).map(|i| format_ident!("P{}", i)).collect();
        let fields: Vec<&syn::Ident> = update.params.iter().map(|p| &p.field).collect();
        let types: Vec<&syn::Type> = update.params.iter().map(|p| &p.ty).collect();
        // The read's parameter of the same name may have a type of its own (`GetContentContentName`).
        let Some(read_types) = update
            .params
            .iter()
            .map(|p| read.params.iter().find(|r| r.field == p.field).map(|r| &r.ty))
            .collect::<Option<Vec<&syn::Type>>>()
        else {
            continue;
        };
        // One bound where the read's parameter has the update's type.
        let bounds = types.iter().zip(&read_types).map(|(update_ty, read_ty)| {
            if quote!(#update_ty).to_string() == quote!(#read_ty).to_string() {
                quote!(::vidplat_core::IntoValue<#update_ty>)
            } else {
                quote!(::vidplat_core::IntoValue<#update_ty> + ::vidplat_core::IntoValue<#read_ty>)
            }
        });
        let success = &read.success;
        let written = &update.success;
        let ty = key(ty);
        let doc = format!(
            "Reads with `{get}`, applies `change` to an update that keeps everything read \
             (`{}::builder_from`), and sends it with `{put}`.\n\n\
             Two requests. The API has no version check: a change another client makes \
             between the two is overwritten with what was read.",
            ty
        );
        let body_builder = format_ident!("{}", ty);
        methods.push(quote! {
            #[doc = #doc]
            pub async fn #name<#(#generics,)* F>(
                &self,
                #(#fields: #generics,)*
                change: F,
            ) -> ::std::result::Result<::vidplat_core::Response<#written>, ::vidplat_core::CallFailure>
            where
                #(#generics: #bounds + ::std::clone::Clone,)*
                F: ::std::ops::FnOnce(types::builder::#body_builder) -> types::builder::#body_builder,
            {
                let read: ::vidplat_core::Response<#success> = self.#get()#(.#fields(::std::clone::Clone::clone(&#fields)))*.send().await?;
                let update = change(types::#body_builder::builder_from(&read));
                self.#put()#(.#fields(#fields))*.body(update).send().await
            }
        });
    }
    if methods.is_empty() {
        return Ok(None);
    }
    Ok(Some(syn::parse2(quote! {
        impl Client {
            #(#methods)*
        }
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_pairs_with_what_a_get_on_its_path_answers() {
        let body = |name: &str| serde_json::json!({"content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{name}")}}}});
        let spec = serde_json::json!({"paths": {
            "/pages/{id}": {
                "get": {"operationId": "get_page", "responses": {"200": body("Page")}},
                "patch": {"operationId": "update_page", "requestBody": body("PageUpdate"), "responses": {"204": {}}}
            },
            "/orders": {
                "put": {"operationId": "update_order", "requestBody": body("Order"), "responses": {"204": {}}}
            }
        }});
        assert_eq!(
            update_pairs(&spec),
            [UpdatePair {
                update_op: "update_page".into(),
                update: "PageUpdate".into(),
                read_op: "get_page".into(),
                read: "Page".into(),
            }]
        );
    }
}
