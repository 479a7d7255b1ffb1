//! Pass `where_sent`, run last over everything written: every function of
//! the generated crate that is not generic gets
//! `#[cfg_attr(not(feature = "by-name"), inline)]`. Without `by-name`,
//! rustc then makes its machine code in the crate that calls it, as it does
//! for generic functions, so a program compiles the conversions, setters and
//! readers of the operations it sends and no others; the client crate itself
//! compiles none. With `by-name` (the command line, which sends every
//! operation) the attribute is absent and the code is compiled once, in the
//! client crate. Record docs/decisions/0012 gives its paired figure.

use crate::codegen::passes::expect::Expect;
use crate::codegen::syntax::{cfg_feature, says_inline};
use anyhow::Result;
use serde_json::Value;
use syn::visit_mut::VisitMut;

/// Marks every non-generic function of `file` (methods, trait impls, nested
/// items inside generic functions) that is not `#[inline]` already and not
/// compiled only with `by-name`: how many it marked.
pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let mut mark = Mark { marked: 0 };
    mark.visit_file_mut(file);
    Ok(mark.marked)
}

/// Every generated crate has functions that are not generic.
pub fn expect(_spec: &Value) -> Expect {
    Expect::Some
}

struct Mark {
    marked: usize,
}

impl Mark {
    fn mark(&mut self, attrs: &mut Vec<syn::Attribute>, sig: &syn::Signature, impl_generic: bool) {
        let generic = impl_generic || sig.generics.type_params().next().is_some() || has_impl_trait(sig);
        if generic || attrs.iter().any(says_inline_or_by_name) {
            return;
        }
        attrs.push(syn::parse_quote!(#[cfg_attr(not(feature = "by-name"), inline)]));
        self.marked += 1;
    }
}

impl VisitMut for Mark {
    fn visit_item_impl_mut(&mut self, block: &mut syn::ItemImpl) {
        let impl_generic = block.generics.type_params().next().is_some();
        for item in &mut block.items {
            if let syn::ImplItem::Fn(f) = item {
                self.mark(&mut f.attrs, &f.sig, impl_generic);
            }
        }
        syn::visit_mut::visit_item_impl_mut(self, block);
    }

    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        self.mark(&mut f.attrs, &f.sig, false);
        syn::visit_mut::visit_item_fn_mut(self, f);
    }
}

/// `#[inline]` in any form already, or compiled only with `by-name` (where
/// the attribute would be absent).
fn says_inline_or_by_name(attr: &syn::Attribute) -> bool {
    says_inline(attr) || cfg_feature(attr).is_some_and(|feature| feature == "by-name")
}

/// `impl Trait` in argument position makes a function generic.
fn has_impl_trait(sig: &syn::Signature) -> bool {
    sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(arg) => matches!(*arg.ty, syn::Type::ImplTrait(_)),
        syn::FnArg::Receiver(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn marks_what_is_not_generic_and_leaves_the_rest() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                impl Task {
                    pub fn new() -> Self { todo!() }
                    pub fn name<T: Into<String>>(self, value: T) -> Self { todo!() }
                    pub fn labels(self, value: impl IntoIterator<Item = String>) -> Self { todo!() }
                    #[inline]
                    pub fn id(&self) -> i64 { 7 }
                    #[cfg_attr(not(feature = "by-name"), inline)]
                    pub fn prepare(self) {}
                    #[cfg(feature = "by-name")]
                    pub fn from_args() {}
                }
                impl<'de> Deserialize<'de> for Task {
                    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        struct Read;
                        impl<'de> Visitor<'de> for Read {
                            fn expecting(&self, f: &mut Formatter<'_>) -> fmt::Result { todo!() }
                        }
                        todo!()
                    }
                }
                impl<T: Clone> From<T> for Wrapper { fn from(value: T) -> Self { todo!() } }
                fn helper() {}
            }
        };
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 3);
        let text = file.to_token_stream().to_string();
        let marked = "# [cfg_attr (not (feature = \"by-name\") , inline)]";
        assert!(text.contains(&format!("{marked} pub fn new")), "{text}");
        assert!(text.contains(&format!("{marked} fn expecting")), "{text}");
        assert!(text.contains(&format!("{marked} fn helper")), "{text}");
        assert!(!text.contains(&format!("{marked} pub fn name")), "{text}");
        assert!(!text.contains(&format!("{marked} pub fn labels")), "{text}");
        assert!(!text.contains(&format!("{marked} fn from")), "{text}");
        assert!(!text.contains(&format!("{marked} # [cfg (feature")), "{text}");
        assert_eq!(text.matches("inline").count(), 5, "{text}");
    }
}
