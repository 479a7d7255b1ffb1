//! Pass `setters`: every setter of typify's body builders takes plain values:
//! `vidplat_core::IntoValue<T>` (or `IntoOptional<T>` for an optional member,
//! or an iterator of them for an array), and a refused value names its
//! member (`Refusal::at`), so the whole path (`streams[0].video.height`)
//! builds up as the value moves outwards. The conversions each type accepts
//! are generated beside it (`conversions.rs`).

use crate::codegen::passes::expect::Expect;
use crate::codegen::passes::refusals::builder_field_count;
use crate::codegen::syntax::{first_generic, is_named, module_items, try_into_target, types_module};
use anyhow::{bail, Result};
use quote::quote;
use serde_json::Value;

pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let fields = builder_field_count(file)?;
    let Some(builders) = module_items(types_module(file)?, "builder") else {
        return Ok(0);
    };
    let mut rewritten = 0;
    for item in builders.iter_mut() {
        let syn::Item::Impl(block) = item else { continue };
        if block.trait_.is_some() {
            continue;
        }
        let mut clearers = Vec::new();
        for member in block.items.iter_mut() {
            let syn::ImplItem::Fn(setter) = member else { continue };
            let Some(target) = try_into_target(&mut setter.sig).map(|target| target.clone()) else {
                continue;
            };
            let attrs = std::mem::take(&mut setter.attrs);
            if let Some(inner) = is_named(&target, "Patch").then(|| first_generic(&target)).flatten() {
                *setter = rewrite_patch(&setter.sig.ident, &inner)?;
                clearers.push(syn::ImplItem::Fn(clearer(&setter.sig.ident)?));
            } else {
                *setter = rewrite(&setter.sig.ident, &target)?;
            }
            setter.attrs = attrs;
            rewritten += 1;
        }
        block.items.extend(clearers);
    }
    if rewritten != fields {
        bail!("{rewritten} setters rewritten for {fields} builder members: one per member expected");
    }
    Ok(rewritten)
}

pub fn expect(spec: &Value) -> Expect {
    crate::codegen::passes::refusals::expect(spec)
}

fn rewrite(name: &syn::Ident, target: &syn::Type) -> Result<syn::ImplItemFn> {
    // typify names each setter after the member it sets.
    let field = name;
    let member = name.to_string();
    let member = member.trim_start_matches("r#");
    let (optional, inner) = match is_named(target, "Option").then(|| first_generic(target)).flatten() {
        Some(inner) => (true, inner),
        None => (false, target.clone()),
    };
    if let Some(element) = is_named(&inner, "Vec").then(|| first_generic(&inner)).flatten() {
        let stored = if optional {
            quote!(.map(::std::option::Option::Some))
        } else {
            quote!()
        };
        return Ok(syn::parse2(quote! {
            pub fn #name<I, T>(mut self, value: I) -> Self
            where
                I: ::std::iter::IntoIterator<Item = T>,
                T: ::vidplat_core::IntoValue<#element>,
            {
                self.#field = ::vidplat_core::__private::array_of(#member, value) #stored;
                self
            }
        })?);
    }
    // An optional member takes `None` too; a required one refuses it.
    let (conversion, convert) = if optional {
        (quote!(IntoOptional), quote!(into_optional))
    } else {
        (quote!(IntoValue), quote!(into_value))
    };
    Ok(syn::parse2(quote! {
        pub fn #name<T>(mut self, value: T) -> Self
        where
            T: ::vidplat_core::#conversion<#inner>,
        {
            self.#field = ::vidplat_core::#conversion::#convert(value).map_err(|refusal| refusal.at(#member));
            self
        }
    })?)
}

/// A nullable member of an update (`patches.rs`): a value (or the response's
/// `Option`) sets it, `None` leaves it as it is, as every optional setter does.
fn rewrite_patch(name: &syn::Ident, inner: &syn::Type) -> Result<syn::ImplItemFn> {
    let member = name.to_string();
    let member = member.trim_start_matches("r#");
    Ok(syn::parse2(quote! {
        pub fn #name<T>(mut self, value: T) -> Self
        where
            T: ::vidplat_core::IntoOptional<#inner>,
        {
            self.#name = ::vidplat_core::IntoOptional::into_optional(value)
                .map(::vidplat_core::Patch::from)
                .map_err(|refusal| refusal.at(#member));
            self
        }
    })?)
}

/// `clear_x()`: the member is sent as `null`, and the server clears it.
fn clearer(name: &syn::Ident) -> Result<syn::ImplItemFn> {
    let member = name.to_string();
    let member = member.trim_start_matches("r#");
    let clear = quote::format_ident!("clear_{}", member);
    let doc = format!("Sends `{member}` as `null`: the server clears it.");
    Ok(syn::parse2(quote! {
        #[doc = #doc]
        pub fn #clear(mut self) -> Self {
            self.#name = ::std::result::Result::Ok(::vidplat_core::Patch::Clear);
            self
        }
    })?)
}
