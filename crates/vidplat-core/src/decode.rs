//! Decoding a whole success body into the operation's type: the one place
//! where a decode failure is described (which operation, where in the body,
//! the status when it is one the YAML does not document, and a redacted
//! excerpt).

use crate::exchange::{Call, Exchange};
use crate::failure::{CallFailure, DecodeError, FailureKind};
use crate::response::Response;
use crate::retry::Delivery;
use serde::de::{DeserializeOwned, DeserializeSeed};
use serde_json::de::SliceRead;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::LazyLock;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bodies at least this large are decoded on tokio's blocking pool, not on
/// the caller's task: pages fetched concurrently (a paginator's prefetch)
/// then decode in parallel instead of one after the other, and the caller's
/// task keeps driving the other transfers meanwhile. Below it, handing the
/// work over would cost more than the decode.
const OFF_TASK_DECODE: usize = 32 * 1024;

/// How many large bodies decode at once, process-wide: one core fewer than
/// the machine has (at least one). Decoding is CPU work; on the blocking pool
/// without a bound, a prefetch of 16 pages would run 16 decodes at once and
/// time-slice the cores, taking them from the runtime thread that reads the
/// next answers and sends the next requests. Bounded, a paginator's decodes
/// queue and run during the latency of the requests in flight: on the 2-core
/// bench machine, 10,000 tasks listed at prefetch 8 took 91–94 ms instead of
/// 101 ms (BENCHMARKS.md (c), run 11).
static DECODE_LANES: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(decode_lane_count()));

fn decode_lane_count() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    cores.saturating_sub(1).max(1)
}

/// A success body that did not decode: serde_json's error, and the path of
/// the failing value when it is known.
#[derive(Debug)]
pub(crate) struct Undecodable {
    source: serde_json::Error,
    path: Option<String>,
}

/// Decodes `body` as `T`: on the blocking pool, in one of the
/// [`DECODE_LANES`], when it is large.
async fn decode<T: DeserializeOwned + Send + 'static>(body: &bytes::Bytes) -> Result<T, Undecodable> {
    if body.len() >= OFF_TASK_DECODE {
        // Never closed; were it, decoding without a lane is still right.
        let lane = DECODE_LANES.acquire().await.ok();
        let shared = body.clone();
        let decoding = tokio::task::spawn_blocking(move || {
            let _lane = lane;
            from_json::<T>(&shared)
        });
        if let Ok(decoded) = decoding.await {
            return decoded;
        }
        // The blocking pool is gone (the runtime is shutting down): decode here.
    }
    from_json::<T>(body)
}

/// `serde_json::from_slice`, faster, in two readers (each compiled once per
/// type decoded): checking the whole body's UTF-8 at once costs less than
/// serde_json's slice reader checking it string by string (a page of 100
/// tasks decodes in 0.22 ms instead of 0.28 ms). A body that does not
/// decode is decoded again by the slice reader, tracking the path of the
/// failing value, so success costs nothing extra.
fn from_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, Undecodable> {
    if let Ok(text) = std::str::from_utf8(body) {
        return serde_json::from_str(text).map_err(|source| Undecodable {
            path: tracked(SliceRead::new(body), PhantomData::<T>)
                .err()
                .and_then(|failed| failed.path),
            source,
        });
    }
    tracked(SliceRead::new(body), PhantomData)
}

/// One whole value read by serde_json from `read` through `seed` (a type's
/// `PhantomData`, or a seed that hands rows on), tracking where in the
/// body it is, then nothing after it. Over serde_json's slice reader, it
/// decides a body that is not UTF-8 throughout (perhaps only inside a
/// member that is skipped) exactly as `serde_json::from_slice` does.
pub(crate) fn tracked<'de, R: serde_json::de::Read<'de>, S: DeserializeSeed<'de>>(
    read: R,
    seed: S,
) -> Result<S::Value, Undecodable> {
    let mut deserializer = serde_json::Deserializer::new(read);
    let mut track = serde_path_to_error::Track::new();
    let value = seed
        .deserialize(serde_path_to_error::Deserializer::new(&mut deserializer, &mut track))
        .map_err(|source| Undecodable {
            source,
            path: Some(track.path().to_string()),
        })?;
    deserializer
        .end()
        .map_err(|source| Undecodable { source, path: None })?;
    Ok(value)
}

/// Decodes a success answer read whole. A paginator's `wire_slot` is given
/// back first: the body has arrived, and another page may go on the wire
/// while this one decodes. A body that does not decode ends in
/// [`FailureKind::Decode`], with the path of the failing value.
///
/// The answer is taken apart before the future is made, which then holds
/// only what decoding needs (an `async fn` would hold the whole answer
/// twice).
pub(crate) fn decode_whole<T: DeserializeOwned + Send + 'static>(
    exchange: Exchange,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> impl Future<Output = Result<Response<T>, CallFailure>> + Send {
    let Exchange {
        mut response,
        body,
        call,
        ..
    } = exchange;
    drop(wire_slot);
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    async move {
        match decode::<T>(&body).await {
            Ok(value) => {
                let mut digest = crate::response::BodyDigest::for_operation(call.operation);
                digest.write(&body);
                Ok(Response::new(status, headers, value).with_digest(digest.finish()))
            }
            Err(failed) => Err(decode_failure(&call, status.as_u16(), &body, failed)),
        }
    }
}

/// The failure of a success body that does not decode.
pub(crate) fn decode_failure(call: &Call, status: u16, head: &[u8], failed: Undecodable) -> CallFailure {
    let Undecodable { source, path } = failed;
    let undocumented = !call.operation.documents_success(status);
    let path = path.filter(|p| p != ".");
    call.failure(
        Delivery::Answered,
        FailureKind::Decode(DecodeError {
            operation: Some(call.operation.id),
            status: undocumented.then_some(status),
            reason: DecodeError::reason(&call.redactor, path.as_deref(), &source),
            path,
            excerpt: call.redactor.excerpt(head),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::ThreadId;

    /// Records the thread its decoding ran on.
    struct Probe(ThreadId);

    impl<'de> serde::Deserialize<'de> for Probe {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            serde::de::IgnoredAny::deserialize(deserializer)?;
            Ok(Probe(std::thread::current().id()))
        }
    }

    async fn decoded_on(body_len: usize) -> ThreadId {
        let body = bytes::Bytes::from(format!("\"{}\"", "x".repeat(body_len)));
        decode::<Probe>(&body).await.unwrap().0
    }

    #[test]
    fn a_body_not_utf8_throughout_decodes_as_the_slice_reader_says() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Row {
            id: u32,
        }
        // Invalid UTF-8 inside a member that is skipped: accepted, as before.
        let skipped = b"{\"id\": 3, \"note\": \"\xff\"}";
        assert_eq!(from_json::<Row>(skipped).unwrap(), Row { id: 3 });
        // Inside a member that is read: refused, with serde_json's own error.
        let read = b"{\"id\": \"\xff\"}";
        let refused = from_json::<Row>(read).unwrap_err();
        assert_eq!(
            refused.source.to_string(),
            serde_json::from_slice::<Row>(read).unwrap_err().to_string()
        );
        assert_eq!(refused.path.as_deref(), Some("id"));
        // Trailing characters after the value: refused, as the slice reader does.
        let trailing = b"{\"id\": 5, \"note\": \"\xff\"} x";
        assert_eq!(
            from_json::<Row>(trailing).unwrap_err().source.to_string(),
            serde_json::from_slice::<Row>(trailing).unwrap_err().to_string()
        );
        assert_eq!(
            from_json::<Row>(r#"{"id": 4, "note": "caf\u00e9 é"}"#.as_bytes()).unwrap(),
            Row { id: 4 }
        );
    }

    /// Counts the decodes running at once, and the most seen.
    static DECODING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static MOST_AT_ONCE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    struct Slow;

    impl<'de> serde::Deserialize<'de> for Slow {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            use std::sync::atomic::Ordering::SeqCst;
            let now = DECODING.fetch_add(1, SeqCst) + 1;
            MOST_AT_ONCE.fetch_max(now, SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(30));
            DECODING.fetch_sub(1, SeqCst);
            serde::de::IgnoredAny::deserialize(deserializer)?;
            Ok(Slow)
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn large_bodies_decode_at_most_one_per_spare_core_at_once() {
        // Not `available_permits`: another test may be holding a lane.
        let lanes = decode_lane_count();
        let body = bytes::Bytes::from(format!("\"{}\"", "x".repeat(OFF_TASK_DECODE)));
        // More decodes than lanes, all started at once.
        let calls = lanes + 4;
        let decodes = (0..calls).map(|_| {
            let body = body.clone();
            tokio::spawn(async move { decode::<Slow>(&body).await.is_ok() })
        });
        for decoded in futures::future::join_all(decodes).await {
            assert!(decoded.unwrap());
        }
        assert_eq!(MOST_AT_ONCE.load(std::sync::atomic::Ordering::SeqCst), lanes);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn large_bodies_decode_off_the_callers_task_small_ones_on_it() {
        let caller = std::thread::current().id();
        assert_eq!(decoded_on(1024).await, caller);
        assert_ne!(decoded_on(OFF_TASK_DECODE).await, caller);
    }
}
