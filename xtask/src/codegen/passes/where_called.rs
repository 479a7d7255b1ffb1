//! Pass `where_called`, run last over everything written: every function
//! the generated crate writes that is not generic is marked `#[inline]`, so,
//! like its generic ones, it is compiled to machine code in the crate that
//! calls it, not in the generated crate. A program compiles the operations
//! and conversions it uses, not the 119 the documents describe: the effect
//! of Cargo's `hints.mostly-unused`, which stable Cargo ignores. (The
//! derives' functions are `#[inline]` already: `cargo llvm-lines -p
//! vidplat-vms --lib` finds 89 lines left.)

use crate::codegen::passes::expect::Expect;
use crate::codegen::spec::operations_with_ids;
use anyhow::Result;
use serde_json::Value;
use syn::visit_mut::VisitMut;

/// Marks every non-generic function of `file` (methods, trait impls, nested
/// items inside generic functions) `#[inline]`: how many it marked.
pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let mut mark = Mark { marked: 0 };
    mark.visit_file_mut(file);
    Ok(mark.marked)
}

/// At least each operation's `prepare`.
pub fn expect(spec: &Value) -> Expect {
    Expect::AtLeast(operations_with_ids(spec).map_or(0, |ops| ops.len()))
}

struct Mark {
    marked: usize,
}

impl Mark {
    fn mark(&mut self, attrs: &mut Vec<syn::Attribute>, sig: &syn::Signature, impl_generic: bool) {
        let generic = impl_generic || sig.generics.type_params().next().is_some() || has_impl_trait(sig);
        let inline = attrs.iter().any(|a| a.path().is_ident("inline"));
        if !generic && !inline {
            attrs.push(syn::parse_quote!(#[inline]));
            self.marked += 1;
        }
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
        assert!(text.contains("# [inline] pub fn new"), "{text}");
        assert!(text.contains("# [inline] fn expecting"), "{text}");
        assert!(text.contains("# [inline] fn helper"), "{text}");
        assert!(!text.contains("# [inline] pub fn name"), "{text}");
        assert!(!text.contains("# [inline] pub fn labels"), "{text}");
        assert!(!text.contains("# [inline] fn from"), "{text}");
        assert_eq!(text.matches("# [inline]").count(), 4, "{text}");
    }
}
