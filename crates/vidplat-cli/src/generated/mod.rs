//! The operation commands of each service, written by `cargo xtask codegen`.
// Formatted by prettyplease when generated; rustfmt must leave them as written.

#[rustfmt::skip]
pub mod analytics;
#[rustfmt::skip]
pub mod encoder;
#[rustfmt::skip]
pub mod vms;
