//! An operation ready to send: its request built and checked, nothing sent
//! yet. How its answer is read is the operation's [`Reading`], from the
//! table: one decoder per way of reading a body.

use crate::decode::decode_whole;
use crate::exchange::Exchange;
use crate::failure::{CallFailure, DecodeError, FailureKind};
use crate::paged::Paged;
use crate::response::Response;
use crate::retry::Delivery;
use crate::runtime::Runtime;
use crate::stream::{decode_while_arriving, RowReceiver};
use crate::table::{Method, OperationMeta, Reading};
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde::de::DeserializeOwned;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::OwnedSemaphorePermit;

/// An operation's request, built and checked: every value within its
/// documented bounds, the route and base URL applied. Sending it
/// ([`Prepared::send`]) is the call; [`Prepared::request`] shows what would
/// be sent (for a dry run).
pub struct Prepared<T> {
    pub(crate) outgoing: Outgoing,
    success: PhantomData<fn() -> T>,
}

/// What a [`Prepared`] holds, whatever its answer's type: everything up to
/// the answer's body is compiled once, in this crate, not once per type.
pub(crate) struct Outgoing {
    pub(crate) runtime: Runtime,
    pub(crate) operation: &'static OperationMeta,
    pub(crate) method: Method,
    pub(crate) request: reqwest::Request,
}

/// The exchange of one call, boxed and erased: a few KiB of state that
/// every layer above (the generated `send`, the caller's own future) would
/// otherwise move a copy of, polled through one vtable built here.
type Exchanging = Pin<Box<dyn Future<Output = Result<Exchange, CallFailure>> + Send>>;

impl Outgoing {
    /// The request to `url` as every call sends it, an operation's or a raw
    /// one: JSON accepted, the key where `operation` takes it, `headers`,
    /// then `body` with its media type.
    pub(crate) fn new(
        runtime: Runtime,
        operation: &'static OperationMeta,
        method: Method,
        url: reqwest::Url,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Option<(HeaderValue, reqwest::Body)>,
    ) -> Self {
        let mut request = reqwest::Request::new(method.to_reqwest(), url);
        // The map is empty: appending is inserting, without the search for an existing entry.
        let request_headers = request.headers_mut();
        request_headers.append(ACCEPT, HeaderValue::from_static("application/json"));
        if let (Some(authorization), true) = (&runtime.inner.authorization, operation.authenticated) {
            request_headers.append(AUTHORIZATION, authorization.clone());
        }
        for (name, value) in headers {
            request_headers.append(name, value);
        }
        if let Some((content_type, body)) = body {
            request_headers.insert(CONTENT_TYPE, content_type);
            *request.body_mut() = Some(body);
        }
        Outgoing {
            runtime,
            operation,
            method,
            request,
        }
    }

    pub(crate) fn exchange(self) -> Exchanging {
        Box::pin(self.runtime.exchange(self.operation, self.method, self.request))
    }
}

impl<T> fmt::Debug for Prepared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The request's authorization header is marked sensitive: reqwest prints it as such.
        f.debug_struct("Prepared")
            .field("operation", &self.outgoing.operation.id)
            .field("method", &self.outgoing.method)
            .field("url", &self.outgoing.request.url().as_str())
            .finish_non_exhaustive()
    }
}

impl<T> Prepared<T> {
    pub(crate) fn new(outgoing: Outgoing) -> Self {
        Self {
            outgoing,
            success: PhantomData,
        }
    }

    /// The operation's row of its service's table.
    pub fn operation(&self) -> &'static OperationMeta {
        self.outgoing.operation
    }

    /// The request as it would go on the wire (its `authorization` header,
    /// when the operation takes the key, is marked sensitive).
    pub fn request(&self) -> &reqwest::Request {
        &self.outgoing.request
    }

    /// The request as it would go on the wire, kept (for a reader that no
    /// longer knows the answer's type: `vidplat::any_call`).
    pub fn into_request(self) -> reqwest::Request {
        self.outgoing.request
    }
}

impl<T: DeserializeOwned + Send + 'static> Prepared<T> {
    /// Sends the request: the decoded success answer, or why there is none.
    ///
    /// The body is read the way the operation's row says, looked up when the
    /// call runs, so every way of reading is compiled for `T`. With the
    /// operation's builder at hand, [`send_operation`](crate::send_operation) chooses when compiling.
    pub async fn send(self) -> Result<Response<T>, CallFailure> {
        let read = decoder::<T>(self.outgoing.operation.reading);
        let exchange = self.outgoing.exchange().await?;
        read(exchange, None).await
    }
}

/// A decoder at work on an answer, its type erased.
pub(crate) type Decoding<T> = Pin<Box<dyn Future<Output = Result<T, CallFailure>> + Send>>;

/// How an answer read one way becomes its decoded value; a paginator's
/// `wire_slot` is given back once the body has arrived.
pub(crate) type Decoder<T> = fn(Exchange, Option<OwnedSemaphorePermit>) -> Decoding<Response<T>>;

/// The decoder of each way of reading an answer: the one place that maps a
/// [`Reading`] to it. A `const fn`, so that `send_operation` can choose in a
/// constant, when compiling, and a program then compiles that decoder alone
/// for the operation; [`Prepared::send`] chooses when the call runs.
pub(crate) const fn decoder<T: DeserializeOwned + Send + 'static>(reading: Reading) -> Decoder<T> {
    match reading {
        Reading::Empty => no_body::<T>,
        Reading::WhileArriving => while_arriving::<T>,
        Reading::Whole => whole::<T>,
    }
}

/// An answer the documents show no body for: `()` (the generator sees to
/// it), whatever came.
fn no_body<T: DeserializeOwned + Send + 'static>(
    exchange: Exchange,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Decoding<Response<T>> {
    drop(wire_slot);
    let Exchange { response, call, .. } = exchange;
    let unit = serde::de::value::UnitDeserializer::<serde::de::value::Error>::new();
    let decoded = match T::deserialize(unit) {
        Ok(value) => Ok(Response::new(response.status(), response.headers().clone(), value)),
        Err(e) => Err(call.failure(
            Delivery::Answered,
            FailureKind::Decode(DecodeError {
                operation: Some(call.operation.id),
                status: None,
                path: None,
                excerpt: String::new(),
                reason: format!("the documents show no body, which its type cannot be made from: {e}"),
            }),
        )),
    };
    Box::pin(std::future::ready(decoded))
}

/// A large list decoded while it arrives; `wire_slot` is given back once it has.
fn while_arriving<T: DeserializeOwned + Send + 'static>(
    exchange: Exchange,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Decoding<Response<T>> {
    let decoding = decode_while_arriving(exchange);
    Box::pin(async move {
        let _wire_slot = wire_slot;
        decoding.await
    })
}

fn whole<T: DeserializeOwned + Send + 'static>(
    exchange: Exchange,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Decoding<Response<T>> {
    Box::pin(decode_whole(exchange, wire_slot))
}

impl<P> Prepared<P>
where
    P: Paged + DeserializeOwned + Send + 'static,
    P::Item: DeserializeOwned + Send + 'static,
{
    /// Sends the request; the rows of the list answer, one by one as they are
    /// decoded. A list the table reads while it arrives is never held whole;
    /// any other is decoded whole first.
    pub async fn rows(self) -> Result<Rows<P::Item>, CallFailure> {
        let read = rows_reader::<P>(self.outgoing.operation.reading);
        let exchange = self.outgoing.exchange().await?;
        read(exchange).await
    }
}

/// How a list answer read one way becomes its rows.
pub(crate) type RowsReader<R> = fn(Exchange) -> Decoding<Rows<R>>;

/// The rows reader of each way of reading a list answer, as [`decoder`]:
/// chosen in a constant by `operation_rows`, when the call runs by
/// [`Prepared::rows`].
pub(crate) const fn rows_reader<P>(reading: Reading) -> RowsReader<P::Item>
where
    P: Paged + DeserializeOwned + Send + 'static,
    P::Item: DeserializeOwned + Send + 'static,
{
    match reading {
        Reading::WhileArriving => rows_while_arriving::<P::Item>,
        Reading::Whole | Reading::Empty => rows_of_page::<P>,
    }
}

fn rows_while_arriving<R: DeserializeOwned + Send + 'static>(exchange: Exchange) -> Decoding<Rows<R>> {
    Box::pin(std::future::ready(Ok(Rows::Arriving(RowReceiver::start(exchange)))))
}

/// The rows of a page decoded whole.
fn rows_of_page<P>(exchange: Exchange) -> Decoding<Rows<P::Item>>
where
    P: Paged + DeserializeOwned + Send + 'static,
    P::Item: DeserializeOwned + Send + 'static,
{
    Box::pin(async move {
        let page = decode_whole::<P>(exchange, None).await?.into_inner();
        Ok(Rows::Decoded {
            truncated: page.truncated(),
            golden: page.golden(),
            unsampled: page.unsampled(),
            rows: page.into_items().into_iter(),
        })
    })
}

/// The rows of one list answer (see [`Prepared::rows`]).
#[derive(Debug)]
pub enum Rows<R> {
    /// Decoded while the answer arrives.
    Arriving(RowReceiver<R>),
    /// From a page decoded whole.
    Decoded {
        /// The rows not yet read.
        rows: std::vec::IntoIter<R>,
        /// The page's `truncated`, where it has one.
        truncated: Option<bool>,
        /// The page's `golden`, where it has one.
        golden: Option<bool>,
        /// The page's `unsampled`, where it has one.
        unsampled: Option<bool>,
    },
}

impl<R: DeserializeOwned + Send + 'static> Rows<R> {
    /// The next row, a failure (then nothing more), or `None` at the end.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<R, CallFailure>>> {
        match self {
            Rows::Arriving(rows) => rows.poll_next(cx),
            Rows::Decoded { rows, .. } => Poll::Ready(rows.next().map(Ok)),
        }
    }

    /// The answer's `truncated` (further rows exist), once every row has been
    /// read; `None` before that, or when the answer has none. A paginator needs
    /// it to know whether to ask for the next page.
    pub fn truncated(&self) -> Option<bool> {
        match self {
            Rows::Arriving(rows) => rows.truncated(),
            Rows::Decoded { rows, truncated, .. } => truncated.filter(|_| rows.len() == 0),
        }
    }

    /// The answer's `golden` (analytics basic edition: all returned data is
    /// final), once every row has been read; `None` before that, or when the
    /// answer has none.
    pub fn golden(&self) -> Option<bool> {
        match self {
            Rows::Arriving(rows) => rows.golden(),
            Rows::Decoded { rows, golden, .. } => golden.filter(|_| rows.len() == 0),
        }
    }

    /// The answer's `unsampled` (all returned data is unsampled), as [`Self::golden`].
    pub fn unsampled(&self) -> Option<bool> {
        match self {
            Rows::Arriving(rows) => rows.unsampled(),
            Rows::Decoded { rows, unsampled, .. } => unsampled.filter(|_| rows.len() == 0),
        }
    }
}
