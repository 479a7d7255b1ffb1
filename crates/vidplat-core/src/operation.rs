//! What every generated operation builder is, for code that handles any operation.

use crate::failure::CallFailure;
use crate::paged::{PagePosition, Paged, PagingStyle};
use crate::prepared::{decoder, rows_reader, Decoder, Prepared, Rows, RowsReader};
use crate::response::Response;
use crate::table::OperationMeta;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;
use tokio::sync::OwnedSemaphorePermit;

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
    /// How the operation pages: its row's `paging` column.
    const STYLE: PagingStyle = match Self::META.paging {
        Some(style) => style,
        None => panic!("a paginated operation's row names its paging style"),
    };

    /// The first page to ask for: where the caller's builder starts (its
    /// `page`, `offset` or `start_with..=end_with`), else the first row.
    fn first(&self) -> PagePosition;

    /// The same request, for the page at `position`; a position of another
    /// style than [`Self::STYLE`] is handed back.
    fn at(self, position: PagePosition) -> Result<Self, PagePosition>;
}

/// How operation `O`'s answer is read: its row's way of reading mapped to
/// a decoder ([`decoder`], [`rows_reader`]) in constants of its type. A
/// constant's value is known when compiling, so rustc compiles only the
/// decoder it names; a choice made in the function's body would compile
/// every decoder for the type.
struct ReadingOf<O>(PhantomData<O>);

impl<O: Operation> ReadingOf<O> {
    const DECODER: Decoder<O::Success> = decoder::<O::Success>(O::META.reading);
}

impl<O> ReadingOf<O>
where
    O: Operation<Success: Paged>,
    <O::Success as Paged>::Item: DeserializeOwned + Send + 'static,
{
    const ROWS: RowsReader<<O::Success as Paged>::Item> = rows_reader::<O::Success>(O::META.reading);
}

/// Sends `operation`: the decoded success answer, or why there is none. Its
/// body is read by the one decoder its row of the table names (whole, while
/// arriving, or none), chosen when this is compiled: a program compiles,
/// for each operation it sends, that decoder alone. The generated `send()`
/// and the facade's `.call()` and paginators send through it. A
/// paginator's `wire_slot` is given back once the body has arrived.
pub async fn send_operation<O: Operation>(
    operation: O,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Result<Response<O::Success>, CallFailure> {
    // Two statements: the prepared request, a temporary of the first, is not kept in the future.
    let exchanging = operation.prepare()?.outgoing.exchange();
    let exchange = exchanging.await?;
    (ReadingOf::<O>::DECODER)(exchange, wire_slot).await
}

/// Sends `operation`; the rows of its list answer, one by one as they are
/// decoded (see [`Prepared::rows`]), the way of reading chosen when this is
/// compiled, as in [`send_operation`].
pub async fn operation_rows<O>(operation: O) -> Result<Rows<<O::Success as Paged>::Item>, CallFailure>
where
    O: Operation<Success: Paged>,
    <O::Success as Paged>::Item: DeserializeOwned + Send + 'static,
{
    let exchanging = operation.prepare()?.outgoing.exchange();
    let exchange = exchanging.await?;
    (ReadingOf::<O>::ROWS)(exchange).await
}
