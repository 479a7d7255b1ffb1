//! What every generated operation builder is, for code that handles any operation.

use crate::failure::CallFailure;
use crate::prepared::Prepared;
use crate::table::OperationMeta;

/// An operation of a generated client, ready to be prepared and sent. The
/// generator implements it for every operation builder; paginators, `.call()`
/// and `.rows()` work on any of them through it.
pub trait Operation: Sized + Send {
    /// The operation's row of its service's table (`operations::ALL`).
    const META: &'static OperationMeta;
    /// The decoded success body (`()` where the documents show none).
    type Success: serde::de::DeserializeOwned + Send + 'static;

    /// Builds and checks the request; nothing is sent. A value a setter
    /// refused, or one that breaks a documented bound, is the error.
    fn prepare(self) -> Result<Prepared<Self::Success>, CallFailure>;
}
