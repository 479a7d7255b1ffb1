//! `.rows()`: the rows of one list answer, one by one as they arrive.
//!
//! An analytics list answer can hold 50,000 rows (about 19 MiB of JSON). For
//! an export, `.rows()` yields each row as soon as it is decoded, without
//! holding the body or the whole page. The call is the same call as
//! `.call()`: the same quota rules (the analytics call keeps its "1 at a
//! time" slot until its body has been read to the end), the same size cap and
//! deadline (the attempt timeout covers the body, so a reader slower than the
//! timeout ends with [`Error::Timeout`]), the same errors. A failure after
//! some rows (a decode error at `data[812].user_id`, a broken connection) is
//! the stream's last item. Dropping the stream stops reading the answer.
//!
//! ```no_run
//! # async fn export(client: &vidplat::Client) -> Result<(), vidplat::Error> {
//! use futures::StreamExt as _;
//! use vidplat::Rows as _;
//! let mut rows = client.analytics()?.cloud_viewing_history().limit(50_000u64).rows();
//! while let Some(row) = rows.next().await {
//!     let row = row?;
//!     println!("{:?}", row.user_id);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! The analytics lists decode while they arrive; any other list operation
//! works too, its page decoded whole first.

use crate::Error;
use futures_util::Stream;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use vidplat_core::{Operation, Paged};

/// `.rows()` on every list operation builder.
pub trait Rows: Operation {
    /// One row of the list.
    type Row;

    /// Sends the request; the rows of the answer as they are decoded.
    fn rows<'a>(self) -> RowStream<'a, Self::Row>
    where
        Self: 'a;
}

impl<O> Rows for O
where
    O: Operation,
    O::Success: Paged,
    <O::Success as Paged>::Item: DeserializeOwned + Send + 'static,
{
    type Row = <O::Success as Paged>::Item;

    fn rows<'a>(self) -> RowStream<'a, Self::Row>
    where
        Self: 'a,
    {
        let start = async move { Ok(vidplat_core::operation_rows(self).await?) };
        RowStream {
            state: State::Starting(Box::pin(start)),
        }
    }
}

/// The rows of one list answer; see the [module documentation](self).
pub struct RowStream<'a, R> {
    state: State<'a, R>,
}

enum State<'a, R> {
    Starting(Pin<Box<dyn Future<Output = Result<vidplat_core::Rows<R>, Error>> + Send + 'a>>),
    Reading(vidplat_core::Rows<R>),
    Done,
}

impl<R> std::fmt::Debug for RowStream<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Starting(_) => "sending",
            State::Reading(vidplat_core::Rows::Arriving(_)) => "reading rows as they arrive",
            State::Reading(vidplat_core::Rows::Decoded { .. }) => "reading a decoded page",
            State::Done => "done",
        };
        f.debug_struct("RowStream").field("state", &state).finish()
    }
}

impl<R: DeserializeOwned + Send + 'static + Unpin> Stream for RowStream<'_, R> {
    type Item = Result<R, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Starting(start) => match std::task::ready!(start.as_mut().poll(cx)) {
                    Ok(source) => this.state = State::Reading(source),
                    Err(error) => {
                        this.state = State::Done;
                        return Poll::Ready(Some(Err(error)));
                    }
                },
                State::Reading(rows) => {
                    let next = std::task::ready!(rows.poll_next(cx));
                    // A failure is the last item, as the end is.
                    if !matches!(next, Some(Ok(_))) {
                        this.state = State::Done;
                    }
                    return Poll::Ready(next.map(|row| row.map_err(Error::from)));
                }
                State::Done => return Poll::Ready(None),
            }
        }
    }
}
