//! Large success bodies, decoded while they arrive.
//!
//! An analytics list answer can be 50,000 rows (about 19 MiB of JSON). Past
//! [`STREAM_ABOVE`](crate::remainder) bytes, the exchange stops reading such a
//! body and ends with the rest of it still on the wire, together with what
//! reading it must respect (the size cap, the attempt's deadline, the
//! analytics concurrency slot). It is then either decoded while it arrives
//! ([`decode_while_arriving`]: a blocking thread parses the chunks as the
//! call's task reads them, so the decode overlaps the transfer and the whole
//! body is never held), or its rows are handed to the caller as they are
//! decoded ([`RowReceiver`]). Every other body is read whole first.
//!
//! What changes for a body past the threshold: a break of the connection
//! after the first `STREAM_ABOVE` bytes is not retried (the call ends with
//! the transport error, as "may have arrived"), and a body that large is
//! not checked for the error shape under a 2xx (the documented error body is a
//! few hundred bytes).

use crate::decode::{decode_failure, tracked, Undecodable};
use crate::exchange::Exchange;
use crate::failure::{CallFailure, FailureKind};
use crate::response::{BodyDigest, Response};
use crate::retry::Delivery;
use bytes::{Buf, Bytes};
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::de::IoRead;
use std::io::{BufReader, Read};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// Network chunks queued between the reading task and the decoding thread.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Batches of rows queued between the decoding thread and a row stream's reader.
const BATCHES_IN_FLIGHT: usize = 4;

/// Rows per batch: one wakeup of the reader per batch, not per row.
const BATCH: usize = 256;

/// The bytes kept for a decode error's excerpt (the redactor scans 8 KiB).
const EXCERPT_BYTES: usize = 8 * 1024 + 1;

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
/// With the value, `digest` of the body's bytes.
async fn decode_while_reading<V: Send + 'static>(
    exchange: Exchange,
    mut digest: BodyDigest,
    decode: impl FnOnce(BodyReader) -> Result<V, Undecodable> + Send + 'static,
) -> Result<(V, Option<u64>), CallFailure> {
    let Exchange {
        mut response,
        body: prefix,
        rest,
        call,
    } = exchange;
    let (tx, rx) = mpsc::channel::<Bytes>(CHUNKS_IN_FLIGHT);
    let status = response.status().as_u16();
    let head = excerpt_head(&prefix);
    digest.write(&prefix);
    let decoder = tokio::task::spawn_blocking(move || {
        decode(BufReader::with_capacity(
            16 * 1024,
            ChunkReader {
                chunks: rx,
                current: prefix,
            },
        ))
    });
    // A body read whole already (smaller than the threshold) has no rest: the decoder reads the prefix alone.
    let pumped = match rest {
        Some(rest) => rest.pump(&mut response, tx, &mut digest).await,
        None => {
            drop(tx);
            Ok(())
        }
    };
    let decoded = decoder
        .await
        .unwrap_or_else(|join| std::panic::resume_unwind(join.into_panic()));
    match (pumped, decoded) {
        // The failure of a body that was too large (answered), or broke or came too late after its head.
        (Err(kind @ FailureKind::BodyTooLarge { .. }), _) => Err(call.failure(Delivery::Answered, kind)),
        (Err(kind), _) => Err(call.failure(Delivery::MayHaveArrived, kind)),
        (Ok(()), Ok(value)) => Ok((value, digest.finish())),
        (Ok(()), Err(failed)) => Err(decode_failure(&call, status, &head, failed)),
    }
}

/// Decodes a large list answer while it arrives, on a blocking thread,
/// never holding the body whole.
pub(crate) async fn decode_while_arriving<T: DeserializeOwned + Send + 'static>(
    mut exchange: Exchange,
) -> Result<Response<T>, CallFailure> {
    let status = exchange.response.status();
    let headers = std::mem::take(exchange.response.headers_mut());
    let digest = BodyDigest::for_operation(exchange.call.operation);
    let (value, digest) = decode_while_reading(exchange, digest, |reader| {
        tracked(IoRead::new(reader), PhantomData::<T>)
    })
    .await?;
    Ok(Response::new(status, headers, value).with_digest(digest))
}

/// The rows of a handed-over list answer, one by one as they are decoded.
#[derive(Debug)]
pub struct RowReceiver<R> {
    rows: mpsc::Receiver<Result<Vec<R>, CallFailure>>,
    batch: std::vec::IntoIter<R>,
    /// The envelope's flags, set by the decoder before it closes the channel.
    flags: Arc<EnvelopeFlags>,
}

/// The boolean members of a list envelope beside `data`, as the answer gave
/// them (read tolerantly: a member that is not a boolean says nothing).
#[derive(Debug, Default)]
pub(crate) struct EnvelopeFlags {
    /// `truncated`: further rows exist.
    pub(crate) truncated: OnceLock<bool>,
    /// `golden` (analytics basic edition): all returned data is final.
    pub(crate) golden: OnceLock<bool>,
    /// `unsampled` (analytics basic edition): all returned data is unsampled.
    pub(crate) unsampled: OnceLock<bool>,
}

impl EnvelopeFlags {
    fn set(&self, key: &str, value: bool) {
        let flag = match key {
            "truncated" => &self.truncated,
            "golden" => &self.golden,
            "unsampled" => &self.unsampled,
            _ => return,
        };
        let _ = flag.set(value);
    }
}

impl<R: DeserializeOwned + Send + 'static> RowReceiver<R> {
    /// Starts reading and decoding the rows (the `data` member) of a list
    /// answer. The call keeps its analytics concurrency slot until the body
    /// is read; dropping the receiver stops the reading.
    pub(crate) fn start(exchange: Exchange) -> Self {
        let (tx, rows) = mpsc::channel(BATCHES_IN_FLIGHT);
        let flags = Arc::new(EnvelopeFlags::default());
        let seen_flags = flags.clone();
        tokio::spawn(async move {
            let sender = tx.clone();
            let outcome = decode_while_reading(exchange, BodyDigest::default(), move |reader| {
                let seed = Envelope::<R> {
                    rows: &sender,
                    flags: &seen_flags,
                    row: PhantomData,
                };
                tracked(IoRead::new(reader), seed)
            })
            .await;
            if let Err(failure) = outcome {
                // A reader that went away (the channel closed: the decoder
                // stopped for that) is not told why the rest was not read.
                if !tx.is_closed() {
                    let _ = tx.send(Err(failure)).await;
                }
            }
        });
        Self {
            rows,
            batch: Vec::new().into_iter(),
            flags,
        }
    }

    /// The answer's `truncated` (further rows exist), once every row has been
    /// read; `None` before that, or when the answer has no boolean `truncated`.
    pub fn truncated(&self) -> Option<bool> {
        self.flags.truncated.get().copied()
    }

    /// The answer's `golden` (all returned data is final), once every row has
    /// been read; `None` before that, or when the answer has no boolean `golden`.
    pub fn golden(&self) -> Option<bool> {
        self.flags.golden.get().copied()
    }

    /// The answer's `unsampled`, as [`Self::golden`].
    pub fn unsampled(&self) -> Option<bool> {
        self.flags.unsampled.get().copied()
    }

    /// The next row, a failure (then nothing more), or `None` at the end.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<R, CallFailure>>> {
        loop {
            if let Some(row) = self.batch.next() {
                return Poll::Ready(Some(Ok(row)));
            }
            match std::task::ready!(self.rows.poll_recv(cx)) {
                Some(Ok(batch)) => self.batch = batch.into_iter(),
                Some(Err(failure)) => return Poll::Ready(Some(Err(failure))),
                None => return Poll::Ready(None),
            }
        }
    }

    /// [`Self::poll_next`] as an `async` call.
    pub async fn next(&mut self) -> Option<Result<R, CallFailure>> {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }
}

/// Why the decoder stops when the reader has gone (said to serde, never to anyone).
const STOPPED: &str = "the row stream was dropped";

/// The list envelope `{"data": [rows], ...}`: each row goes to the channel as
/// soon as it is decoded; the other members are skipped.
struct Envelope<'a, R> {
    rows: &'a mpsc::Sender<Result<Vec<R>, CallFailure>>,
    flags: &'a EnvelopeFlags,
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
            } else if matches!(&*key, "truncated" | "golden" | "unsampled") {
                // Read tolerantly: anything but a boolean says nothing.
                if let serde_json::Value::Bool(value) = map.next_value::<serde_json::Value>()? {
                    self.flags.set(&key, value);
                }
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        seen.then_some(())
            .ok_or_else(|| serde::de::Error::missing_field("data"))
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
        let ended = loop {
            match seq.next_element::<R>() {
                Ok(Some(row)) => {
                    batch.push(row);
                    if batch.len() == BATCH {
                        send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))?;
                    }
                }
                Ok(None) => break Ok(()),
                Err(error) => break Err(error),
            }
        };
        // The rows decoded before a failure are delivered first.
        if !batch.is_empty() {
            send(batch)?;
        }
        ended
    }
}
