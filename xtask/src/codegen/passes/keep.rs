//! Pass `keep`: of progenitor's output, the `types` module (typify's types)
//! and the client's operation methods (`client.get_task()`, with the YAML's
//! documentation) are kept. Its client, its hooks, its builders and their
//! `send`s, and its imports of `progenitor_client` are dropped: the
//! generator writes its own client and builders (`builders.rs`).

use crate::codegen::passes::expect::Expect;
use crate::codegen::syntax::is_named;
use anyhow::{bail, Result};
use serde_json::Value;

pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let before = file.items.len();
    let mut types = 0;
    let mut methods = 0;
    file.items.retain(|item| match item {
        syn::Item::Mod(m) if m.ident == "types" => {
            types += 1;
            true
        }
        syn::Item::Impl(block)
            if block.trait_.is_none() && is_client(&block.self_ty) && only_operation_methods(block) =>
        {
            methods += 1;
            true
        }
        _ => false,
    });
    if (types, methods) != (1, 1) {
        bail!("expected progenitor's `types` module and one impl of operation methods, found {types} and {methods}");
    }
    Ok(before - file.items.len())
}

pub fn expect(_spec: &Value) -> Expect {
    // progenitor always writes its client, hooks, builders and imports beside the types.
    Expect::Some
}

fn is_client(ty: &syn::Type) -> bool {
    is_named(ty, "Client")
}

/// Whether every item of an `impl Client` is a method returning an operation
/// builder (`builder::GetTask<'_>`): the operation methods, not `new`.
fn only_operation_methods(block: &syn::ItemImpl) -> bool {
    !block.items.is_empty()
        && block.items.iter().all(|item| match item {
            syn::ImplItem::Fn(f) => match &f.sig.output {
                syn::ReturnType::Type(_, ty) => match &**ty {
                    syn::Type::Path(path) => path.path.segments.first().is_some_and(|s| s.ident == "builder"),
                    _ => false,
                },
                syn::ReturnType::Default => false,
            },
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_types_and_the_operation_methods_only() {
        let mut file: syn::File = syn::parse_quote! {
            pub use progenitor_client::{ByteStream, Error};
            pub mod types { pub struct Task; }
            pub struct Client { baseurl: String }
            impl Client { pub fn new(baseurl: &str) -> Self { todo!() } }
            impl ClientInfo<()> for Client {}
            impl Client {
                /// Get task
                pub fn get_task(&self) -> builder::GetTask<'_> { builder::GetTask::new(self) }
            }
            pub mod builder { pub struct GetTask<'a>(&'a ()); }
            pub mod prelude {}
        };
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 6);
        assert_eq!(file.items.len(), 2);
        let mut without_types: syn::File = syn::parse_quote! { pub struct Client; };
        assert!(run(&mut without_types, &Value::Null).is_err());
    }
}
