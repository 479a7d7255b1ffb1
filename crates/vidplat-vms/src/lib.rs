//! Client for the video management service, generated from `openapi/vms.yaml`.
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

impl types::BulkRegisteredId {
    /// The registered item's id, whichever form the server wrote it in
    /// (`{"id": …}` or the bare string; the document does not show which).
    pub fn id(&self) -> Option<&str> {
        match self {
            types::BulkRegisteredId::RegisteredId(registered) => registered.id.as_deref(),
            types::BulkRegisteredId::String(id) => Some(id),
        }
    }
}
