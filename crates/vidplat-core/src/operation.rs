//! What every generated operation builder is, for code that handles any operation.

use crate::decode::decode_whole;
use crate::exchange::Exchange;
use crate::failure::CallFailure;
use crate::paged::{PagePosition, Paged, PagingStyle};
use crate::prepared::{read_no_body, read_while_arriving, Prepared, Rows};
use crate::response::Response;
use crate::stream::RowReceiver;
use crate::table::{OperationMeta, Reading};
use serde::de::DeserializeOwned;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
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

/// How operation `O`'s answer is read, as constants of its type. A branch on
/// one of them, in a function that is not `async`, is decided when `O` is
/// known: rustc then compiles only the decoder taken. (In an `async` body
/// the code after each `.await` is also reached from the resume point, so
/// there nothing would be left out.)
struct ReadingOf<O>(PhantomData<O>);

impl<O: Operation> ReadingOf<O> {
    const NO_BODY: bool = matches!(O::META.reading, Reading::Empty);
    const WHILE_ARRIVING: bool = matches!(O::META.reading, Reading::WhileArriving);
}

/// A decoder at work on an answer, its type erased: the one chosen for the
/// operation when compiling.
type Decoding<'a, T> = Pin<Box<dyn Future<Output = Result<T, CallFailure>> + Send + 'a>>;

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
    let exchanging = operation.prepare()?.exchange();
    let exchange = exchanging.await?;
    read_answer::<O>(exchange, wire_slot).await
}

fn read_answer<O: Operation>(
    exchange: Exchange,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Decoding<'static, Response<O::Success>> {
    if ReadingOf::<O>::NO_BODY {
        Box::pin(std::future::ready(read_no_body(exchange, wire_slot)))
    } else if ReadingOf::<O>::WHILE_ARRIVING {
        Box::pin(read_while_arriving(exchange, wire_slot))
    } else {
        Box::pin(decode_whole(exchange, wire_slot))
    }
}

/// Sends `operation`; the rows of its list answer, one by one as they are
/// decoded (see [`Prepared::rows`]), the way of reading chosen when this is
/// compiled, as in [`send_operation`].
pub async fn operation_rows<O>(operation: O) -> Result<Rows<<O::Success as Paged>::Item>, CallFailure>
where
    O: Operation<Success: Paged>,
    <O::Success as Paged>::Item: DeserializeOwned + Send + 'static,
{
    let exchanging = operation.prepare()?.exchange();
    let exchange = exchanging.await?;
    rows_of::<O>(exchange).await
}

fn rows_of<O>(exchange: Exchange) -> Decoding<'static, Rows<<O::Success as Paged>::Item>>
where
    O: Operation<Success: Paged>,
    <O::Success as Paged>::Item: DeserializeOwned + Send + 'static,
{
    if ReadingOf::<O>::WHILE_ARRIVING {
        Box::pin(std::future::ready(Ok(Rows::Arriving(RowReceiver::start(exchange)))))
    } else {
        let page = read_answer::<O>(exchange, None);
        Box::pin(async move { Ok(Rows::decoded(page.await?.into_inner())) })
    }
}
