//! Client for the viewing analytics service (basic and cloud editions), generated from `openapi/analytics.yaml`.
//!
//! Most users reach it through the `vidplat` facade. The operations and types
//! are on [`Client`] and in [`types`]; every call goes through the shared
//! [`vidplat_core::Runtime`].

// Formatted by prettyplease when generated; rustfmt must leave it as written.
#[rustfmt::skip]
mod generated;
pub use generated::*;

// The codes of this service's error answers, for `vidplat::Error::code_as`.
impl vidplat_core::ServiceErrorCode for types::ErrorCode {}
