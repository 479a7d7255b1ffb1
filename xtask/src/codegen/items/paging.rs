//! Paging: `vidplat_core::Paged` for every list envelope (a struct with a
//! `data: Vec<_>` member), and `vidplat_core::Paginated` for every operation
//! whose YAML declares its paging style (`x-paging`).

use crate::codegen::model::Operation;
use crate::codegen::syntax::{first_generic, is_named};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::quote;

/// The query parameters that move through a list.
const PAGING_PARAMETERS: [&str; 6] = ["page", "per_page", "offset", "limit", "start_with", "end_with"];

/// `impl vidplat_core::Paginated` for every operation whose YAML declares its
/// paging style in `x-paging` (for the `builder` module, so it can read where
/// the caller's builder starts). An operation that takes paging parameters
/// without declaring a style is an error: it would get no paginator.
pub fn paginated_impls(operations: &[Operation]) -> Result<Vec<syn::Item>> {
    let mut impls = Vec::new();
    for op in operations {
        let id = &op.id;
        let paging = &op.paging;
        if paging.is_null() {
            if let Some(p) = op.params.iter().find(|p| PAGING_PARAMETERS.contains(&p.name.as_str())) {
                bail!(
                    "{id} takes the paging parameter `{}` but declares no `x-paging`",
                    p.name
                );
            }
            continue;
        }
        let param = |key: &str| -> Result<&syn::Ident> {
            let name = paging[key]
                .as_str()
                .with_context(|| format!("{id}: x-paging.{key} names no parameter"))?;
            op.params
                .iter()
                .find(|p| p.name == name)
                .map(|p| &p.field)
                .with_context(|| format!("{id}: x-paging.{key} is `{name}`, which is not one of its parameters"))
        };
        let style = paging["style"]
            .as_str()
            .with_context(|| format!("{id}: x-paging.style"))?;
        let (first, at) = match style {
            "last_page" | "truncated" => {
                let page = param("page")?;
                param("size")?;
                (
                    quote!(::vidplat_core::__private::first_number(
                        ::vidplat_core::__private::paging_field(&self.#page)
                    )),
                    quote!(::vidplat_core::PagePosition::Number(page) => Ok(self.#page(page)),),
                )
            }
            "rank_windows" => {
                let (start, end) = (param("start")?, param("end")?);
                (
                    quote!(::vidplat_core::__private::first_ranks(
                        ::vidplat_core::__private::paging_field(&self.#start),
                        ::vidplat_core::__private::paging_field(&self.#end),
                    )),
                    quote!(::vidplat_core::PagePosition::Ranks { start, end } => Ok(self.#start(start).#end(end)),),
                )
            }
            "offset_limit" => {
                let offset = param("offset")?;
                param("size")?;
                (
                    quote!(::vidplat_core::PagePosition::Offset(
                        ::vidplat_core::__private::paging_field(&self.#offset).unwrap_or(0)
                    )),
                    quote!(::vidplat_core::PagePosition::Offset(offset) => Ok(self.#offset(offset)),),
                )
            }
            other => bail!("{id}: unknown x-paging.style `{other}`"),
        };
        let name = &op.builder;
        impls.push(syn::parse2(quote! {
            impl<'a> ::vidplat_core::Paginated for #name<'a> {
                fn first(&self) -> ::vidplat_core::PagePosition {
                    #first
                }
                fn at(self, position: ::vidplat_core::PagePosition) -> Result<Self, ::vidplat_core::PagePosition> {
                    match position {
                        #at
                        other => Err(other),
                    }
                }
            }
        })?);
    }
    Ok(impls)
}

/// `impl vidplat_core::Paged` for every struct with a `data: Vec<T>` field,
/// reading `truncated`, `golden` and `unsampled` (`Option<bool>`) and
/// `last_page: Option<i64>` where the struct has them.
pub fn paged_impls(types: &[syn::Item]) -> Result<Vec<syn::Item>> {
    let mut impls = Vec::new();
    for item in types {
        let syn::Item::Struct(s) = item else { continue };
        let field = |name: &str| s.fields.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == name));
        let Some(data) = field("data") else { continue };
        let Some(item_ty) = is_named(&data.ty, "Vec").then(|| first_generic(&data.ty)).flatten() else {
            continue;
        };
        let optional_of = |f: &syn::Field, inner: &str| {
            is_named(&f.ty, "Option") && first_generic(&f.ty).is_some_and(|t| is_named(&t, inner))
        };
        let name = &s.ident;
        let truncated = field("truncated").filter(|f| optional_of(f, "bool")).map(|_| {
            quote! { fn truncated(&self) -> ::std::option::Option<bool> { self.truncated } }
        });
        let golden = field("golden").filter(|f| optional_of(f, "bool")).map(|_| {
            quote! { fn golden(&self) -> ::std::option::Option<bool> { self.golden } }
        });
        let unsampled = field("unsampled").filter(|f| optional_of(f, "bool")).map(|_| {
            quote! { fn unsampled(&self) -> ::std::option::Option<bool> { self.unsampled } }
        });
        let last_page = field("last_page").filter(|f| optional_of(f, "i64")).map(|_| {
            quote! { fn last_page(&self) -> ::std::option::Option<i64> { self.last_page } }
        });
        impls.push(syn::parse2(quote! {
            impl vidplat_core::Paged for #name {
                type Item = #item_ty;
                fn into_items(self) -> ::std::vec::Vec<Self::Item> { self.data }
                fn items(&self) -> &[Self::Item] { &self.data }
                fn len(&self) -> usize { self.data.len() }
                #truncated
                #golden
                #unsampled
                #last_page
            }
        })?);
    }
    Ok(impls)
}

/// The `vidplat_core::PagingStyle` of an operation's `x-paging` (the table's
/// `paging` column; `Paginated::STYLE` reads it there), `None` without one.
pub fn style(op: &Operation) -> Result<TokenStream> {
    if op.paging.is_null() {
        return Ok(quote!(None));
    }
    let variant = match op.paging["style"].as_str() {
        Some("last_page") => quote!(LastPage),
        Some("truncated") => quote!(Truncated),
        Some("rank_windows") => quote!(RankWindows),
        Some("offset_limit") => quote!(OffsetLimit),
        other => bail!("{}: unknown x-paging.style {other:?}", op.id),
    };
    Ok(quote!(Some(vidplat_core::PagingStyle::#variant)))
}
