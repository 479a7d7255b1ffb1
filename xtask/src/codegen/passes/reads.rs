//! Pass `reads`: every generated struct with named members reads itself
//! through a `Deserialize` impl written here instead of serde's derive.
//!
//! serde's derive writes about 17 KB of code per struct (a member-name type
//! with three visitors, a sequence form no JSON body uses, and for a struct
//! with `extra` a buffer of every unknown member): the largest part of the
//! generated crates' build. The impl written here reads an object the way the
//! derive does (see `vidplat_core::__private::MemberName` and its neighbours,
//! which hold the shared part): a member given twice is refused, a missing one
//! is `None` for an option, its default where the YAML gives one, and
//! refused by name otherwise; unknown members are skipped, or kept in the
//! `#[serde(flatten)]` map. Newtypes (`transparent`) and enums keep the derive.

use crate::codegen::passes::expect::Expect;
use crate::codegen::syntax::{types_module, wire_name};
use anyhow::{bail, Result};
use quote::{format_ident, quote};
use serde_json::Value;

pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let types = types_module(file)?;
    let mut impls = Vec::new();
    for item in types.iter_mut() {
        let syn::Item::Struct(strukt) = item else { continue };
        if !matches!(strukt.fields, syn::Fields::Named(_)) || is_transparent(strukt)? || !drop_derive(strukt)? {
            continue;
        }
        impls.push(read_impl(strukt)?);
    }
    let changed = impls.len();
    types.extend(impls);
    Ok(changed)
}

/// Every YAML has object schemas with members, and typify gives each a struct.
pub fn expect(spec: &Value) -> Expect {
    let has_objects = spec["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(_, schema)| schema["properties"].as_object().is_some_and(|p| !p.is_empty()));
    Expect::some_if(has_objects)
}

fn is_transparent(strukt: &syn::ItemStruct) -> Result<bool> {
    let mut transparent = false;
    for attr in strukt.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("transparent") {
                transparent = true;
                Ok(())
            } else {
                Err(meta.error("a container attribute the `reads` pass does not know"))
            }
        })?;
    }
    Ok(transparent)
}

/// Removes `::serde::Deserialize` from the struct's derives: whether it was there.
fn drop_derive(strukt: &mut syn::ItemStruct) -> Result<bool> {
    let mut dropped = false;
    for attr in strukt.attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
        let paths = attr.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)?;
        let (serde, kept): (Vec<syn::Path>, Vec<syn::Path>) = paths.into_iter().partition(|path| {
            path.segments.len() == 2 && path.segments[0].ident == "serde" && path.segments[1].ident == "Deserialize"
        });
        if !serde.is_empty() {
            dropped = true;
            *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
        }
    }
    Ok(dropped)
}

/// How a member the object left out is filled.
enum WhenMissing {
    /// `None` for an option, else refused by name (serde's rule).
    Refused,
    /// `#[serde(default)]`.
    Default,
    /// `#[serde(default = "path")]`.
    DefaultFrom(syn::ExprPath),
}

/// A field's reading, from its `#[serde(...)]` attributes.
struct FieldReading {
    flatten: bool,
    when_missing: WhenMissing,
}

fn field_reading(field: &syn::Field) -> Result<FieldReading> {
    let mut reading = FieldReading {
        flatten: false,
        when_missing: WhenMissing::Refused,
    };
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("flatten") {
                reading.flatten = true;
            } else if meta.path.is_ident("default") {
                reading.when_missing = if meta.input.peek(syn::Token![=]) {
                    let path: syn::LitStr = meta.value()?.parse()?;
                    WhenMissing::DefaultFrom(path.parse()?)
                } else {
                    WhenMissing::Default
                };
            } else if meta.path.is_ident("rename") || meta.path.is_ident("skip_serializing_if") {
                let _: syn::LitStr = meta.value()?.parse()?;
            } else {
                return Err(meta.error("a member attribute the `reads` pass does not know"));
            }
            Ok(())
        })?;
    }
    Ok(reading)
}

/// The `Deserialize` impl of one struct.
fn read_impl(strukt: &syn::ItemStruct) -> Result<syn::Item> {
    let ident = &strukt.ident;
    let expecting = format!("struct {ident}");
    let mut names = Vec::new();
    let mut slots = Vec::new();
    let mut slot_types = Vec::new();
    let mut arms = Vec::new();
    let mut members = Vec::new();
    let mut extra = None;
    for field in &strukt.fields {
        let (Some(member), Some(wire)) = (&field.ident, wire_name(field)) else {
            bail!("struct `{ident}` has a member without a name");
        };
        let reading = field_reading(field)?;
        if reading.flatten {
            if extra.is_some() {
                bail!("struct `{ident}` keeps unknown members in two places");
            }
            extra = Some(member.clone());
            members.push(quote! { #member: extra });
            continue;
        }
        let index = names.len();
        let slot = format_ident!("member_{index}");
        arms.push(quote! {
            ::vidplat_core::__private::Member::Known(#index) =>
                ::vidplat_core::__private::read_once(&mut map, &mut #slot, #wire)?,
        });
        let value = match reading.when_missing {
            WhenMissing::Refused => quote! {
                match #slot {
                    ::std::option::Option::Some(value) => value,
                    ::std::option::Option::None => ::vidplat_core::__private::missing(#wire)?,
                }
            },
            WhenMissing::Default => quote! { #slot.unwrap_or_default() },
            WhenMissing::DefaultFrom(path) => quote! { #slot.unwrap_or_else(#path) },
        };
        members.push(quote! { #member: #value });
        slots.push(slot);
        slot_types.push(&field.ty);
        names.push(wire);
    }
    let keep_unknown = extra.is_some();
    let indices = 0..names.len();
    let struct_name = ident.to_string();
    let (extra_slot, unknown_arm, read) = if keep_unknown {
        (
            quote! { let mut extra = ::serde_json::Map::new(); },
            quote! {
                ::vidplat_core::__private::Member::Unknown(name) =>
                    ::vidplat_core::__private::read_unknown(&mut map, &mut extra, name)?,
            },
            // serde's derive reads a struct with a flattened member as a map.
            quote! { deserializer.deserialize_map(Read) },
        )
    } else {
        (
            quote! {},
            quote! {},
            quote! {
                const MEMBERS: &[&str] = &[#(#names),*];
                deserializer.deserialize_struct(#struct_name, MEMBERS, Read)
            },
        )
    };
    Ok(syn::parse2(quote! {
        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                struct Read;
                impl<'de> ::serde::de::Visitor<'de> for Read {
                    type Value = #ident;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        formatter.write_str(#expecting)
                    }
                    fn visit_map<A>(self, mut map: A) -> ::std::result::Result<#ident, A::Error>
                    where
                        A: ::serde::de::MapAccess<'de>,
                    {
                        #(let mut #slots: ::std::option::Option<#slot_types> = ::std::option::Option::None;)*
                        #extra_slot
                        let names = ::vidplat_core::__private::MemberName {
                            index_of: |name: &str| match name {
                                #(#names => ::std::option::Option::Some(#indices),)*
                                _ => ::std::option::Option::None,
                            },
                            keep_unknown: #keep_unknown,
                        };
                        while let ::std::option::Option::Some(member) = map.next_key_seed(names)? {
                            match member {
                                #(#arms)*
                                #unknown_arm
                                _ => ::vidplat_core::__private::skip(&mut map)?,
                            }
                        }
                        ::std::result::Result::Ok(#ident { #(#members),* })
                    }
                }
                #read
            }
        }
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn types(body: proc_macro2::TokenStream) -> syn::File {
        syn::parse2(quote! { pub mod types { #body } }).unwrap()
    }

    #[test]
    fn a_struct_loses_the_derive_and_gains_a_read_that_names_its_members_and_defaults() {
        let mut file = types(quote! {
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Task {
                pub id: i64,
                #[serde(rename = "type", default, skip_serializing_if = "::std::option::Option::is_none")]
                pub type_: ::std::option::Option<::std::string::String>,
                #[serde(default = "super::defaults::task_priority")]
                pub priority: i64,
                #[serde(flatten)]
                pub extra: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            }
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            #[serde(transparent)]
            pub struct TaskName(::std::string::String);
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug)]
            pub struct Label {
                pub name: ::std::string::String,
            }
        });
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 2);
        let text = file.to_token_stream().to_string();
        // The derive is gone from the struct, kept on the newtype.
        assert_eq!(text.matches("derive (:: serde :: Deserialize").count(), 1, "{text}");
        for wanted in [
            "\"type\" => :: std :: option :: Option :: Some (1usize) ,",
            "\"priority\" => :: std :: option :: Option :: Some (2usize) ,",
            "Known (0usize) => :: vidplat_core :: __private :: read_once (& mut map , & mut member_0 , \"id\")",
            ":: vidplat_core :: __private :: missing (\"id\")",
            // Each slot is typed where it is declared, so nothing waits on inference.
            "let mut member_0 : :: std :: option :: Option < i64 > = :: std :: option :: Option :: None ;",
            "type_ : member_1 . unwrap_or_default ()",
            "priority : member_2 . unwrap_or_else (super :: defaults :: task_priority)",
            "keep_unknown : true",
            "read_unknown (& mut map , & mut extra , name)",
            "extra : extra",
            "deserializer . deserialize_map (Read)",
            "formatter . write_str (\"struct Task\")",
            // A struct without `extra` reads as a struct, with its list of names.
            "const MEMBERS : & [& str] = & [\"name\"] ; deserializer . deserialize_struct (\"Label\" , MEMBERS , Read)",
            "keep_unknown : false",
        ] {
            assert!(text.contains(wanted), "missing `{wanted}` in {text}");
        }
    }

    #[test]
    fn an_attribute_the_pass_does_not_know_fails_generation() {
        let mut file = types(quote! {
            #[derive(::serde::Deserialize)]
            pub struct Task {
                #[serde(alias = "ident")]
                pub id: i64,
            }
        });
        let error = run(&mut file, &Value::Null).unwrap_err().to_string();
        assert!(error.contains("does not know"), "{error}");
        let mut file = types(quote! {
            #[derive(::serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct Task { pub id: i64 }
        });
        assert!(run(&mut file, &Value::Null).is_err());
    }
}
