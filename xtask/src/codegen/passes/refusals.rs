//! Pass `refusals`: typify's body builders hold each member as
//! `Result<T, String>` and report a missing member as a string in typify's
//! wording. Here they refuse typed instead: every member is
//! `Result<T, vidplat_core::Refusal>`, a member never given is
//! `Refusal::missing(member)`, and building the body (`TryFrom`) fails with
//! that `Refusal`, so its path reaches the caller without being parsed from
//! text. The flattened `extra` map of members the documents do not show
//! starts empty instead of missing. The `TryFrom` checks every member in one
//! `match` rather than one `?` each: each `?` is an early return that drops
//! the members left, code quadratic in the members for the compiler (a
//! quarter of vidplat-vms's LLVM lines went to 27-member bodies).

use crate::codegen::passes::expect::Expect;
use crate::codegen::syntax::{generic_args, is_named, module_items, named_fields, trait_name, types_module};
use anyhow::{bail, Result};
use serde_json::Value;
use syn::visit_mut::VisitMut;

pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let Some(builders) = module_items(types_module(file)?, "builder") else {
        return Ok(0);
    };
    let (mut structs, mut defaults, mut conversions) = (0, 0, 0);
    for item in builders.iter_mut() {
        match item {
            syn::Item::Struct(strukt) => {
                for field in strukt.fields.iter_mut() {
                    refuse_typed(&mut field.ty);
                }
                structs += 1;
            }
            syn::Item::Impl(block) if trait_name(block).is_some_and(|t| t == "Default") => {
                let mut fill = MissingMembers { changed: 0 };
                fill.visit_item_impl_mut(block);
                defaults += 1;
            }
            syn::Item::Impl(block) if trait_name(block).is_some_and(|t| t == "TryFrom") => {
                for member in block.items.iter_mut() {
                    match member {
                        syn::ImplItem::Type(error) if error.ident == "Error" => {
                            error.ty = syn::parse_quote!(::vidplat_core::Refusal);
                        }
                        syn::ImplItem::Fn(f) => {
                            if let syn::ReturnType::Type(_, ty) = &mut f.sig.output {
                                **ty = syn::parse_quote!(::std::result::Result<Self, ::vidplat_core::Refusal>);
                            }
                            build_in_one_match(f)?;
                        }
                        _ => {}
                    }
                }
                conversions += 1;
            }
            _ => {}
        }
    }
    if structs != defaults || structs != conversions {
        bail!("{structs} builders, {defaults} Default impls and {conversions} TryFrom impls: expected one of each per builder");
    }
    Ok(structs)
}

/// typify writes a builder for every object schema.
pub fn expect(spec: &Value) -> Expect {
    let objects = spec["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .any(|(_, schema)| schema["type"] == "object" || schema.get("properties").is_some());
    Expect::some_if(objects)
}

/// `Result<T, String>` becomes `Result<T, vidplat_core::Refusal>`.
fn refuse_typed(ty: &mut syn::Type) {
    if !is_named(ty, "Result") || !generic_args(ty).get(1).is_some_and(|e| is_named(e, "String")) {
        return;
    }
    let syn::Type::Path(path) = ty else { return };
    let Some(last) = path.path.segments.last_mut() else {
        return;
    };
    let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
        return;
    };
    if let Some(syn::GenericArgument::Type(error)) = args.args.iter_mut().nth(1) {
        *error = syn::parse_quote!(::vidplat_core::Refusal);
    }
}

/// typify's `Ok(Self { a: value.a?, … })` becomes one `match` over every
/// member: all `Ok`, the body; else the first refusal, in member order as the
/// `?`s had it, read by reference (so that no member is moved before the
/// last may fail, and every failure drops the same members). Any other shape
/// stops the generation.
fn build_in_one_match(f: &mut syn::ImplItemFn) -> Result<()> {
    let shape = || anyhow::anyhow!("a builder's `TryFrom` is not `Ok(Self {{ member: value.member?, … }})`");
    let [syn::Stmt::Expr(syn::Expr::Call(ok), None)] = f.block.stmts.as_slice() else {
        return Err(shape());
    };
    let is_ok = matches!(&*ok.func, syn::Expr::Path(p) if p.path.is_ident("Ok"));
    let (true, Some(syn::Expr::Struct(body)), 1) = (is_ok, ok.args.first(), ok.args.len()) else {
        return Err(shape());
    };
    if !body.path.is_ident("Self") || body.rest.is_some() {
        return Err(shape());
    }
    let mut members = Vec::new();
    for field in &body.fields {
        let syn::Member::Named(name) = &field.member else {
            return Err(shape());
        };
        let syn::Expr::Try(tried) = &field.expr else {
            return Err(shape());
        };
        let syn::Expr::Field(read) = &*tried.expr else {
            return Err(shape());
        };
        let from_value = matches!(&*read.base, syn::Expr::Path(p) if p.path.is_ident("value"));
        if !from_value || read.member != field.member {
            return Err(shape());
        }
        members.push(name.clone());
    }
    if members.is_empty() {
        return Ok(());
    }
    f.block = syn::parse_quote!({
        match (#(value.#members,)*) {
            (#(Ok(#members),)*) => Ok(Self { #(#members),* }),
            (#(#members,)*) => Err(
                ::vidplat_core::__private::refused_members(&[#(#members.as_ref().err()),*]),
            ),
        }
    });
    Ok(())
}

/// In a builder's `Default`, each member that starts as `Err(..)` (not given
/// yet) becomes `Err(Refusal::missing(member))`; `extra` starts empty.
struct MissingMembers {
    changed: usize,
}

impl VisitMut for MissingMembers {
    fn visit_expr_struct_mut(&mut self, strukt: &mut syn::ExprStruct) {
        for field in strukt.fields.iter_mut() {
            let syn::Member::Named(name) = &field.member else {
                continue;
            };
            let syn::Expr::Call(call) = &field.expr else { continue };
            let is_err =
                matches!(&*call.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Err"));
            if !is_err {
                continue;
            }
            let member = name.to_string();
            let member = member.trim_start_matches("r#");
            field.expr = if member == "extra" {
                syn::parse_quote!(::std::result::Result::Ok(::std::default::Default::default()))
            } else {
                syn::parse_quote!(::std::result::Result::Err(::vidplat_core::Refusal::missing(#member)))
            };
            self.changed += 1;
        }
        syn::visit_mut::visit_expr_struct_mut(self, strukt);
    }
}

/// The named fields of every builder, for the setters pass's count.
pub fn builder_field_count(file: &mut syn::File) -> Result<usize> {
    let Some(builders) = module_items(types_module(file)?, "builder") else {
        return Ok(0);
    };
    Ok(builders
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(named_fields(&s.fields).count()),
            _ => None,
        })
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn builders_refuse_typed_and_name_the_missing_member() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub mod builder {
                    pub struct Video {
                        height: ::std::result::Result<i64, ::std::string::String>,
                        extra: ::std::result::Result<::serde_json::Map<String, Value>, ::std::string::String>,
                    }
                    impl ::std::default::Default for Video {
                        fn default() -> Self {
                            Self {
                                height: Err("no value supplied for height".to_string()),
                                extra: Err("no value supplied for extra".to_string()),
                            }
                        }
                    }
                    impl ::std::convert::TryFrom<Video> for super::Video {
                        type Error = super::error::ConversionError;
                        fn try_from(value: Video) -> ::std::result::Result<Self, super::error::ConversionError> {
                            Ok(Self { height: value.height?, extra: value.extra? })
                        }
                    }
                }
            }
        };
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 1);
        let code = file.to_token_stream().to_string();
        assert!(!code.contains("ConversionError"), "{code}");
        assert!(!code.contains("std :: string :: String >"), "{code}");
        assert!(code.contains("Refusal :: missing (\"height\")"), "{code}");
        assert!(code.contains("extra : :: std :: result :: Result :: Ok"), "{code}");
        // One match over every member, no `?` each.
        assert!(code.contains("match (value . height , value . extra ,)"), "{code}");
        assert!(
            code.contains("refused_members (& [height . as_ref () . err () , extra . as_ref () . err ()])"),
            "{code}"
        );
        assert!(!code.contains("value . height ?"), "{code}");
    }

    #[test]
    fn a_builder_conversion_of_another_shape_stops_the_generation() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub mod builder {
                    pub struct Video {
                        height: ::std::result::Result<i64, ::std::string::String>,
                    }
                    impl ::std::default::Default for Video {
                        fn default() -> Self {
                            Self { height: Err("no value supplied for height".to_string()) }
                        }
                    }
                    impl ::std::convert::TryFrom<Video> for super::Video {
                        type Error = super::error::ConversionError;
                        fn try_from(value: Video) -> ::std::result::Result<Self, super::error::ConversionError> {
                            let height = value.height?;
                            Ok(Self { height })
                        }
                    }
                }
            }
        };
        let error = run(&mut file, &Value::Null).unwrap_err().to_string();
        assert!(error.contains("is not `Ok(Self { member: value.member?"), "{error}");
    }
}
