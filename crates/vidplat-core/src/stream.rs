//! Large success bodies, decoded while they arrive.
//!
//! An analytics list answer can be 50,000 rows (about 19 MiB of JSON). Past
//! [`STREAM_ABOVE`] bytes, the runtime stops reading such a body and hands the
//! response over with the rest of its body still on the wire, together with
//! what reading it must respect (the size cap, the attempt's deadline, the
//! analytics concurrency slot). The generated code then either decodes it
//! while it arrives ([`decode_streaming_response`]: a blocking thread parses
//! the chunks as the call's task reads them, so the decode overlaps the
//! transfer and the whole body is never held), or hands it to a row stream
//! ([`with_row_handover`], [`RowReceiver`]). Every other body is read whole
//! first, as before.
//!
//! What changes for a body past the threshold: a break of the connection
//! after the first [`STREAM_ABOVE`] bytes is not retried (the call ends with
//! the transport error, as "may have arrived"), and a body that large is
//! not checked for the error shape under a 2xx (the documented error body is a
//! few hundred bytes).

use crate::decode::DecodeContext;
use crate::failure::{CallFailure, DecodeError, FailureKind};
use crate::quota::QuotaPermit;
use crate::retry::Delivery;
use crate::timeout::{Deadline, TimeoutKind};
use bytes::{Buf, Bytes};
use progenitor_client::ResponseValue;
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// A success body of a large list larger than this is decoded while it arrives.
pub(crate) const STREAM_ABOVE: u64 = 1 << 20;

/// Network chunks queued between the reading task and the decoding thread.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Batches of rows queued between the decoding thread and a row stream's reader.
const BATCHES_IN_FLIGHT: usize = 4;

/// Rows per batch: one wakeup of the reader per batch, not per row.
const BATCH: usize = 256;

/// The bytes kept for a decode error's excerpt (the redactor scans 8 KiB).
const EXCERPT_BYTES: usize = 8 * 1024 + 1;

/// What reading the rest of a body must respect. Held by the response's
/// [`DecodeContext`] until the body has been read.
#[derive(Debug)]
pub(crate) struct Remainder {
    /// The body cap, in bytes.
    pub(crate) cap: u64,
    /// Bytes read so far (the prefix).
    pub(crate) read: u64,
    /// The attempt's deadline (never later than the call's).
    pub(crate) attempt: Deadline,
    /// The call's deadline.
    pub(crate) total: Deadline,
    /// The analytics concurrency slot, released once the body is read.
    pub(crate) permit: Option<QuotaPermit>,
}

/// The rest of a body, shared by the clones of a [`DecodeContext`] (only one takes it).
pub(crate) type SharedRemainder = Arc<Mutex<Option<Remainder>>>;

/// Where the chunks of a body go.
enum Sink<'a> {
    /// To a decoding thread; a closed channel means the decoder stopped.
    Channel(mpsc::Sender<Bytes>),
    /// Into one buffer (a decode that needs the whole body).
    Collect(&'a mut Vec<u8>),
}

/// Reads the rest of `response`'s body into `sink` under the cap and the
/// deadline, then gives the concurrency slot back.
async fn pump(response: &mut reqwest::Response, mut rest: Remainder, mut sink: Sink<'_>) -> Result<(), FailureKind> {
    let cap = rest.cap;
    let mut read = rest.read;
    let reading = async {
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Ok(()),
                Err(error) => return Err(FailureKind::Transport(error)),
            };
            read = read.saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
            if read > cap {
                return Err(FailureKind::BodyTooLarge { limit: cap });
            }
            match &mut sink {
                Sink::Channel(tx) => {
                    if tx.send(chunk).await.is_err() {
                        // The decoder stopped (a decode error); it reports why.
                        return Ok(());
                    }
                }
                Sink::Collect(buffer) => buffer.extend_from_slice(&chunk),
            }
        }
    };
    let outcome = rest.attempt.run(reading).await.unwrap_or_else(|| {
        Err(FailureKind::Timeout(if rest.total.passed(Instant::now()) {
            TimeoutKind::Total
        } else {
            TimeoutKind::Attempt
        }))
    });
    if let Some(permit) = rest.permit.take() {
        permit.release().await;
    }
    outcome
}

/// The failure of a body that broke, was too large or came too late after its head.
fn read_failure(context: &DecodeContext, kind: FailureKind) -> CallFailure {
    let delivery = match kind {
        FailureKind::BodyTooLarge { .. } => Delivery::Answered,
        _ => Delivery::MayHaveArrived,
    };
    CallFailure {
        service: context.service,
        operation: context.operation,
        method: context.method,
        delivery,
        attempts: context.attempts,
        kind,
    }
}

fn decode_failure(
    context: &DecodeContext,
    head: &[u8],
    path: Option<String>,
    source: serde_json::Error,
) -> CallFailure {
    CallFailure {
        service: context.service,
        operation: context.operation,
        method: context.method,
        delivery: Delivery::Answered,
        attempts: context.attempts,
        kind: FailureKind::Decode(DecodeError {
            operation: Some(context.operation),
            path: path.filter(|p| p != "."),
            excerpt: context.redactor.excerpt(head),
            source,
        }),
    }
}

/// The rest of the body, when the runtime left some on the wire.
fn take_remainder(context: &DecodeContext) -> Option<Remainder> {
    let shared = context.rest.as_ref()?;
    let mut guard = shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    guard.take()
}

/// Reads the rest of a body the runtime left on the wire, so that it can be
/// decoded whole: `None` when there was none.
pub(crate) async fn finish_reading(
    response: &mut reqwest::Response,
    context: &DecodeContext,
) -> Option<Result<Bytes, CallFailure>> {
    let rest = take_remainder(context)?;
    let mut body = Vec::with_capacity(context.body.len().saturating_mul(2));
    body.extend_from_slice(&context.body);
    Some(
        pump(response, rest, Sink::Collect(&mut body))
            .await
            .map(|()| Bytes::from(body))
            .map_err(|kind| read_failure(context, kind)),
    )
}

/// What a decoder on a blocking thread reads the body from.
type BodyReader = BufReader<ChunkReader>;

/// Reads chunks as they come, for a decoder on a blocking thread.
struct ChunkReader {
    chunks: mpsc::Receiver<Bytes>,
    current: Bytes,
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.current.is_empty() {
            match self.chunks.blocking_recv() {
                Some(chunk) => self.current = chunk,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current.advance(n);
        Ok(n)
    }
}

/// The first bytes of a body, kept apart for an excerpt (a copy: a slice of
/// a large chunk would keep the whole chunk alive).
fn excerpt_head(prefix: &Bytes) -> Vec<u8> {
    prefix[..prefix.len().min(EXCERPT_BYTES)].to_vec()
}

/// Runs `decode` on a blocking thread over the body's chunks while the
/// call's task reads them; the read's failure comes first, then the decode's.
async fn decode_while_reading<V: Send + 'static>(
    mut response: reqwest::Response,
    prefix: Bytes,
    context: &DecodeContext,
    rest: Remainder,
    decode: impl FnOnce(BodyReader) -> Result<V, (Option<String>, serde_json::Error)> + Send + 'static,
) -> Result<V, CallFailure> {
    let (tx, rx) = mpsc::channel::<Bytes>(CHUNKS_IN_FLIGHT);
    let head = excerpt_head(&prefix);
    let decoder = tokio::task::spawn_blocking(move || {
        decode(BufReader::with_capacity(
            16 * 1024,
            ChunkReader {
                chunks: rx,
                current: prefix,
            },
        ))
    });
    let pumped = pump(&mut response, rest, Sink::Channel(tx)).await;
    let decoded = match decoder.await {
        Ok(decoded) => decoded,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    };
    match (pumped, decoded) {
        (Err(kind), _) => Err(read_failure(context, kind)),
        (Ok(()), Ok(value)) => Ok(value),
        (Ok(()), Err((path, source))) => Err(decode_failure(context, &head, path, source)),
    }
}

/// Decodes one whole value with the path of a failure, then checks that nothing follows it.
fn decode_tracked<T: DeserializeOwned>(reader: BodyReader) -> Result<T, (Option<String>, serde_json::Error)> {
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let value = serde_path_to_error::deserialize::<_, T>(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        (Some(path), error.into_inner())
    })?;
    deserializer.end().map_err(|error| (None, error))?;
    Ok(value)
}

/// [`crate::decode_response`] for the large lists: a body the runtime left on
/// the wire is decoded while it arrives, on a blocking thread, and never held
/// whole. Inside [`with_row_handover`], the success response is handed to a
/// row stream instead of being decoded.
pub async fn decode_streaming_response<T: DeserializeOwned + Send + 'static, E>(
    mut response: reqwest::Response,
) -> Result<ResponseValue<T>, progenitor_client::Error<E>> {
    if response.status().is_success() {
        if let Ok(Some(slot)) = HANDOVER.try_with(|slot| slot.clone()) {
            let mut guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(context) = response.extensions_mut().remove::<DecodeContext>() {
                *guard = Some(Handed { response, context });
                return Err(progenitor_client::Error::Custom("handed over to a row stream".into()));
            }
        }
    }
    let Some(rest) = response.extensions().get::<DecodeContext>().and_then(take_remainder) else {
        return crate::decode_response(response).await;
    };
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let Some(mut context) = response.extensions_mut().remove::<DecodeContext>() else {
        return crate::decode_response(response).await;
    };
    // The start of the body goes to the decoder and is not kept beside the rows.
    let prefix = std::mem::take(&mut context.body);
    match decode_while_reading(response, prefix, &context, rest, decode_tracked::<T>).await {
        Ok(value) => Ok(ResponseValue::new(value, status, headers)),
        Err(failure) => Err(failure.into_progenitor()),
    }
}

/// A success response handed to a row stream, with what decoding it needs.
#[derive(Debug)]
pub struct Handed {
    response: reqwest::Response,
    context: DecodeContext,
}

type Slot = Arc<Mutex<Option<Handed>>>;

tokio::task_local! {
    static HANDOVER: Option<Slot>;
}

/// Runs `send` (a list operation's `send`) so that its success response is
/// handed over instead of decoded, where the generated code decodes with
/// [`decode_streaming_response`]: `(send's outcome, the response)`. Where it
/// does not, the outcome is the decoded page and the second member is `None`.
pub async fn with_row_handover<F: std::future::Future>(send: F) -> (F::Output, Option<Handed>) {
    let slot: Slot = Arc::default();
    let outcome = HANDOVER.scope(Some(slot.clone()), send).await;
    let handed = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    (outcome, handed)
}

/// The rows of a handed-over list answer, one by one as they are decoded.
#[derive(Debug)]
pub struct RowReceiver<R> {
    rows: mpsc::Receiver<Result<Vec<R>, CallFailure>>,
    batch: std::vec::IntoIter<R>,
}

impl<R: DeserializeOwned + Send + 'static> RowReceiver<R> {
    /// Starts reading and decoding the rows (the `data` member) of `handed`.
    /// The call keeps its analytics concurrency slot until the body is read;
    /// dropping the receiver stops the reading.
    pub fn start(handed: Handed) -> Self {
        let (tx, rows) = mpsc::channel(BATCHES_IN_FLIGHT);
        tokio::spawn(async move {
            let Handed { response, mut context } = handed;
            let rest = take_remainder(&context).unwrap_or(Remainder {
                cap: u64::MAX,
                read: 0,
                attempt: Deadline::after(Instant::now(), std::time::Duration::MAX),
                total: Deadline::after(Instant::now(), std::time::Duration::MAX),
                permit: None,
            });
            let sender = tx.clone();
            let prefix = std::mem::take(&mut context.body);
            let outcome = decode_while_reading(response, prefix, &context, rest, move |reader| {
                let mut deserializer = serde_json::Deserializer::from_reader(reader);
                let mut track = serde_path_to_error::Track::new();
                let seed = Envelope::<R> {
                    rows: &sender,
                    row: PhantomData,
                };
                match seed.deserialize(serde_path_to_error::Deserializer::new(&mut deserializer, &mut track)) {
                    Ok(()) => deserializer.end().map_err(|error| (None, error)),
                    Err(error) => Err((Some(track.path().to_string()), error)),
                }
            })
            .await;
            if let Err(failure) = outcome {
                // A reader that went away is not told why the rest was not read.
                let stopped =
                    matches!(&failure.kind, FailureKind::Decode(e) if e.source.to_string().starts_with(STOPPED));
                if !stopped {
                    let _ = tx.send(Err(failure)).await;
                }
            }
        });
        Self {
            rows,
            batch: Vec::new().into_iter(),
        }
    }

    /// The next row, a failure (then nothing more), or `None` at the end.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<R, CallFailure>>> {
        loop {
            if let Some(row) = self.batch.next() {
                return Poll::Ready(Some(Ok(row)));
            }
            match self.rows.poll_recv(cx) {
                Poll::Ready(Some(Ok(batch))) => self.batch = batch.into_iter(),
                Poll::Ready(Some(Err(failure))) => return Poll::Ready(Some(Err(failure))),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// [`Self::poll_next`] as an `async` call.
    pub async fn next(&mut self) -> Option<Result<R, CallFailure>> {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }
}

const STOPPED: &str = "the row stream was dropped";

/// The list envelope `{"data": [rows], ...}`: each row goes to the channel as
/// soon as it is decoded; the other members are skipped.
struct Envelope<'a, R> {
    rows: &'a mpsc::Sender<Result<Vec<R>, CallFailure>>,
    row: PhantomData<R>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Envelope<'_, R> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Envelope<'_, R> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list object with a `data` array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "data" && !seen {
                seen = true;
                map.next_value_seed(Rows { rows: self.rows })?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        if seen {
            Ok(())
        } else {
            Err(serde::de::Error::missing_field("data"))
        }
    }
}

/// The `data` array: one channel send per row.
struct Rows<'a, R> {
    rows: &'a mpsc::Sender<Result<Vec<R>, CallFailure>>,
}

impl<'de, R: DeserializeOwned> DeserializeSeed<'de> for Rows<'_, R> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, R: DeserializeOwned> Visitor<'de> for Rows<'_, R> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut batch = Vec::with_capacity(BATCH);
        let send = |batch: Vec<R>| {
            self.rows
                .blocking_send(Ok(batch))
                .map_err(|_| serde::de::Error::custom(STOPPED))
        };
        loop {
            match seq.next_element::<R>() {
                Ok(Some(row)) => {
                    batch.push(row);
                    if batch.len() == BATCH {
                        send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))?;
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    // The rows decoded before the failure are delivered first.
                    if !batch.is_empty() {
                        send(batch)?;
                    }
                    return Err(error);
                }
            }
        }
        if !batch.is_empty() {
            send(batch)?;
        }
        Ok(())
    }
}
