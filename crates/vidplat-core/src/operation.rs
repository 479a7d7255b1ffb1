//! What every generated operation builder is, for code that handles any operation.

use crate::failure::CallFailure;
use crate::paged::{PagePosition, Paged, PagingStyle};
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

/// A list operation's builder that can ask for any page. The generator
/// implements it from each operation's `x-paging`; paginators use it.
pub trait Paginated: Operation<Success: Paged> + Clone {
    /// How the operation pages.
    const STYLE: PagingStyle;

    /// The first page to ask for: where the caller's builder starts (its
    /// `page`, `offset` or `start_with..=end_with`), else the first row.
    fn first(&self) -> PagePosition;

    /// The same request, for the page at `position`.
    fn at(self, position: PagePosition) -> Self;
}
