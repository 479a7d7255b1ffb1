//! The client and its operation builders, generated whole from the model:
//! for each operation a builder (setters that take plain values and refuse
//! typed), its `send`, and its `vidplat_core::Operation` impl, which
//! describes the typed request the runtime sends. progenitor's own client,
//! builders and `send`s are not used.

use crate::codegen::model::{Body, Location, Operation};
use anyhow::{bail, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

/// The `Client` struct and the `builder` module.
pub fn items(service_title: &str, spec: &Value, operations: &[Operation]) -> Result<Vec<syn::Item>> {
    let info = &spec["info"];
    let doc = format!(
        "Client for {service_title}.\n\n{}\n\nVersion: {}\n\nBuilt on a [`vidplat_core::Runtime`] (base URL, key, \
         retries, timeouts, quotas); most programs reach it through the `vidplat` facade.",
        info["description"].as_str().unwrap_or_default().trim(),
        info["version"].as_str().unwrap_or_default()
    );
    let client = quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        pub struct Client {
            pub(crate) runtime: ::vidplat_core::Runtime,
        }

        impl Client {
            /// A client sending every call through `runtime`, which is built from
            /// this crate's [`operations::TABLE`] (a call with a runtime of another
            /// service is refused, not sent).
            pub fn new(runtime: ::vidplat_core::Runtime) -> Self {
                Self { runtime }
            }

            /// The runtime every call of this client goes through.
            pub fn runtime(&self) -> &::vidplat_core::Runtime {
                &self.runtime
            }

            /// The base URL, without a trailing `/`.
            pub fn baseurl(&self) -> &str {
                self.runtime.base_url()
            }
        }
    };
    let builders = operations.iter().map(builder).collect::<Result<Vec<_>>>()?;
    let visit = visit(operations);
    let module = quote! {
        /// The operations' builders: set the parameters and the body, then
        /// `send()` (or `vidplat::Call::call`).
        pub mod builder {
            use super::types;
            #(#builders)*
            #visit
        }
    };
    let mut items: Vec<syn::Item> = syn::parse2::<syn::File>(client)?.items;
    items.push(syn::parse2(module)?);
    Ok(items)
}

/// `builder::visit`: every operation by id, its builder made from data.
fn visit(operations: &[Operation]) -> TokenStream {
    let arms = operations.iter().map(|op| {
        let (id, name) = (&op.id, &op.builder);
        let reader = if op.paging.is_null() {
            quote!(operation)
        } else {
            quote!(list)
        };
        quote! { #id => #name::from_args(client, args).map(|builder| visitor.#reader(builder)), }
    });
    quote! {
        /// The builder of the operation `id` (its YAML `operationId`) made
        /// from `args` (its builder's `from_args`: every refusal at
        /// once) and handed to `visitor`; `None` when this service has no
        /// operation `id`. The one place a reader of data (the command line,
        /// a test driver, a file of rows) turns an id into a typed call
        /// (feature `by-name`).
        #[cfg(feature = "by-name")]
        pub fn visit<'a, V: ::vidplat_core::OperationVisitor<'a>>(
            client: &'a super::Client,
            id: &str,
            args: &::vidplat_core::Args,
            visitor: V,
        ) -> ::std::option::Option<::std::result::Result<V::Output, ::vidplat_core::Refusals>> {
            ::std::option::Option::Some(match id {
                #(#arms)*
                _ => return ::std::option::Option::None,
            })
        }
    }
}

/// An argument's name in `vidplat_core::Args`: the setter's, without the
/// `_` progenitor adds to a keyword (`type_` is `type`).
pub fn argument_name(field: &syn::Ident) -> String {
    field.to_string().trim_end_matches('_').to_owned()
}

fn builder(op: &Operation) -> Result<TokenStream> {
    let name = &op.builder;
    let id = &op.id;
    let index = op.index;
    let success = &op.success;
    let struct_doc = format!("Builder for [`Client::{id}`](super::Client::{id}).");
    let send_doc = format!(
        "Sends `{} {}`: the decoded answer, or why there is none (a value refused \
         before sending, the service's error, a timeout, …).",
        op.method, op.path
    );
    let mut fields = Vec::new();
    let mut initial = Vec::new();
    let mut setters = Vec::new();
    let mut names = Vec::new();
    let mut request = Vec::new();
    let mut from_args = Vec::new();
    let mut held = Vec::new();
    let mut arguments = Vec::new();
    for param in &op.params {
        let field = &param.field;
        let member = field.to_string();
        let argument = argument_name(field);
        let ty = &param.ty;
        from_args.push(quote! {
            if let ::std::option::Option::Some(value) = args.__take::<#ty>(#argument, #member, &mut refusals) {
                builder = builder.#field(value);
            }
        });
        held.push(quote! { refusals.__held(#member, &builder.#field); });
        arguments.push(argument);
        let wire = &param.name;
        let ty = &param.ty;
        names.push(quote!(#field));
        let stored = if param.optional {
            quote!(::std::option::Option<#ty>)
        } else {
            quote!(#ty)
        };
        fields.push(quote! { #field: ::std::result::Result<#stored, ::vidplat_core::Refusal>, });
        initial.push(if param.optional {
            quote! { #field: ::std::result::Result::Ok(::std::option::Option::None), }
        } else {
            quote! { #field: ::std::result::Result::Err(::vidplat_core::Refusal::missing(#member)), }
        });
        setters.push(setter(field, ty, param.optional, param.element().as_ref()));
        let value = if param.optional {
            quote!(#field)
        } else {
            quote!(#field.map(::std::option::Option::Some))
        };
        request.push(match param.location {
            Location::Path if param.optional => bail!("{id}: an optional path parameter `{wire}`"),
            Location::Path => quote! { .path(#wire, #field) },
            Location::Query { joined: true } => quote! { .query_joined(#wire, #value) },
            Location::Query { joined: false } => quote! { .query(#wire, #value) },
            Location::Header => quote! { .header(#wire, #value) },
        });
    }
    let mut clone = quote!(Clone,);
    match &op.body {
        None => {}
        Some(Body::Json { ty, builder }) => {
            names.push(quote!(body));
            from_args.push(quote! {
                if let ::std::option::Option::Some(value) = args.__take_body::<#ty>(
                    <Self as ::vidplat_core::Operation>::META.body,
                    &mut refusals,
                ) {
                    builder = builder.body(value);
                }
            });
            held.push(quote! { refusals.__held("body", &builder.body); });
            arguments.push("body".to_owned());
            match builder {
                Some(builder) => {
                    fields.push(quote! { body: ::std::result::Result<#builder, ::vidplat_core::Refusal>, });
                    initial.push(quote! { body: ::std::result::Result::Ok(::std::default::Default::default()), });
                    setters.push(quote! {
                        /// The request body: the body itself or its builder.
                        pub fn body<V>(mut self, value: V) -> Self
                        where
                            V: ::vidplat_core::IntoValue<#ty>,
                        {
                            self.body = ::vidplat_core::IntoValue::into_value(value).map(::std::convert::From::from);
                            self
                        }
                        /// Changes the body's builder in place.
                        pub fn body_map<F>(mut self, f: F) -> Self
                        where
                            F: ::std::ops::FnOnce(#builder) -> #builder,
                        {
                            self.body = self.body.map(f);
                            self
                        }
                    });
                    request.push(quote! { .json(body.and_then(<#ty>::try_from)) });
                }
                None => {
                    fields.push(quote! { body: ::std::result::Result<#ty, ::vidplat_core::Refusal>, });
                    initial
                        .push(quote! { body: ::std::result::Result::Err(::vidplat_core::Refusal::missing("body")), });
                    setters.push(quote! {
                        /// The request body.
                        pub fn body<V>(mut self, value: V) -> Self
                        where
                            V: ::vidplat_core::IntoValue<#ty>,
                        {
                            self.body = ::vidplat_core::IntoValue::into_value(value);
                            self
                        }
                    });
                    request.push(quote! { .json(body) });
                }
            }
        }
        Some(Body::Raw { content_type }) => {
            // A body stream cannot be cloned, so neither can its builder.
            clone = quote!();
            names.push(quote!(body));
            from_args.push(quote! {
                if let ::std::option::Option::Some(value) = args.__raw_body(&mut refusals) {
                    builder = builder.body(value);
                }
            });
            held.push(quote! { refusals.__held("body", &builder.body); });
            arguments.push("body".to_owned());
            fields.push(quote! { body: ::std::result::Result<::reqwest::Body, ::vidplat_core::Refusal>, });
            initial.push(quote! { body: ::std::result::Result::Err(::vidplat_core::Refusal::missing("body")), });
            setters.push(quote! {
                /// The request body, sent as it is.
                pub fn body<B>(mut self, value: B) -> Self
                where
                    B: ::std::convert::Into<::reqwest::Body>,
                {
                    self.body = ::std::result::Result::Ok(value.into());
                    self
                }
            });
            request.push(quote! { .raw(#content_type, body) });
        }
    }
    let binding = if from_args.is_empty() {
        quote!(builder)
    } else {
        quote!(mut builder)
    };
    Ok(quote! {
        #[doc = #struct_doc]
        #[derive(Debug, #clone)]
        pub struct #name<'a> {
            client: &'a super::Client,
            #(#fields)*
        }

        impl<'a> #name<'a> {
            /// A builder with nothing set.
            pub fn new(client: &'a super::Client) -> Self {
                Self {
                    client,
                    #(#initial)*
                }
            }
            #(#setters)*
            /// The builder from its arguments as data (feature `by-name`): each parameter under its
            /// setter's name, the body under `body` (see `vidplat_core::Args`).
            /// Every refusal comes at once, each by its member's whole path: a
            /// value of the wrong type, one a setter refuses, a required member
            /// missing, an argument the operation does not have.
            #[cfg(feature = "by-name")]
            pub fn from_args(client: &'a super::Client, args: &::vidplat_core::Args) -> ::std::result::Result<Self, ::vidplat_core::Refusals> {
                let mut refusals = ::vidplat_core::Refusals::default();
                let #binding = Self::new(client);
                #(#from_args)*
                #(#held)*
                args.__only(&[#(#arguments),*], &mut refusals);
                refusals.or(builder)
            }
            #[doc = #send_doc]
            pub async fn send(self) -> ::std::result::Result<::vidplat_core::Response<#success>, ::vidplat_core::CallFailure> {
                ::vidplat_core::send_operation(self, ::std::option::Option::None).await
            }
        }

        impl<'a> ::vidplat_core::Operation for #name<'a> {
            const META: &'static ::vidplat_core::OperationMeta = &super::operations::ALL[#index];
            type Success = #success;
            fn prepare(self) -> ::std::result::Result<::vidplat_core::Prepared<#success>, ::vidplat_core::CallFailure> {
                let Self { client, #(#names),* } = self;
                client
                    .runtime
                    .request(Self::META)
                    #(#request)*
                    .prepare()
            }
        }
    })
}

/// A setter for `field` of type `ty`: a value (or, optional, a value or
/// `None`) it can be made from, or for a list any iterator of those; a
/// refused value names the member.
fn setter(field: &syn::Ident, ty: &syn::Type, optional: bool, element: Option<&syn::Type>) -> TokenStream {
    let member = field.to_string();
    if let Some(element) = element {
        let stored = if optional {
            quote!(.map(::std::option::Option::Some))
        } else {
            quote!()
        };
        return quote! {
            pub fn #field<I, T>(mut self, value: I) -> Self
            where
                I: ::std::iter::IntoIterator<Item = T>,
                T: ::vidplat_core::IntoValue<#element>,
            {
                self.#field = ::vidplat_core::__private::array_of(#member, value) #stored;
                self
            }
        };
    }
    let (conversion, convert) = if optional {
        (format_ident!("IntoOptional"), format_ident!("into_optional"))
    } else {
        (format_ident!("IntoValue"), format_ident!("into_value"))
    };
    quote! {
        pub fn #field<T>(mut self, value: T) -> Self
        where
            T: ::vidplat_core::#conversion<#ty>,
        {
            self.#field = ::vidplat_core::#conversion::#convert(value).map_err(|refusal| refusal.at(#member));
            self
        }
    }
}
