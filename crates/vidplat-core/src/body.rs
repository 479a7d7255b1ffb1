//! Reading an answer whole, with a cap on its size enforced while it
//! streams, and a limit on how long the body may stop arriving.

use crate::timeout::idle_bounded;
use bytes::Bytes;
use std::future::Future;
use std::time::Duration;

/// An answer whose body has been read whole: the response keeps its head
/// (status, headers, extensions) and the body is held apart, so nothing is
/// rebuilt on the way to the generated code.
#[derive(Debug)]
pub(crate) struct ReadAnswer {
    pub(crate) response: reqwest::Response,
    pub(crate) body: Bytes,
    /// The body is larger than the streaming threshold (`remainder::STREAM_ABOVE`): `body` is its
    /// start, the rest is still to be read from `response`.
    pub(crate) more: bool,
}

/// Why an answer could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The body is (or announces it is) larger than the cap.
    TooLarge,
    /// The connection broke while the body was read.
    Transport(reqwest::Error),
    /// The body stopped arriving: no byte for the idle timeout after its first one.
    Idle,
}

/// Reads `response`'s body whole, refusing a body larger than `cap` bytes as
/// soon as it announces it (`Content-Length`) or grows past it: never more
/// than `cap` bytes (plus one network chunk) are held. With `stream_above`, a
/// success body that grows past that many bytes is left on the wire after
/// them (`more`), to be decoded while it arrives. Once the first byte has
/// come, a read that waits `idle` for the next one ends with
/// [`ReadError::Idle`]; the wait for the first byte is the attempt
/// timeout's alone (the server may be computing the answer).
#[allow(clippy::manual_async_fn)] // an `async fn` would hold its arguments twice
pub(crate) fn read_capped(
    mut response: reqwest::Response,
    cap: u64,
    stream_above: Option<u64>,
    idle: Duration,
) -> impl Future<Output = Result<ReadAnswer, ReadError>> + Send {
    async move {
        let stream_above = stream_above.filter(|_| response.status().is_success());
        let announced = response
            .headers()
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if announced.is_some_and(|length| length > cap) {
            return Err(ReadError::TooLarge);
        }
        // Most bodies arrive in one chunk: keep it as it is, copy only when there are more.
        let mut first: Option<Bytes> = None;
        let mut joined: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        let more = loop {
            let next = if total == 0 {
                response.chunk().await
            } else {
                idle_bounded(idle, response.chunk()).await.ok_or(ReadError::Idle)?
            };
            let Some(chunk) = next.map_err(ReadError::Transport)? else {
                break false;
            };
            total = total.saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
            if total > cap {
                return Err(ReadError::TooLarge);
            }
            let more = stream_above.is_some_and(|above| total > above);
            match first.take() {
                None if joined.is_empty() => first = Some(chunk),
                earlier => {
                    if let Some(earlier) = earlier {
                        // A body left on the wire is held up to here only, a whole one as announced.
                        let expected = if more { 0 } else { announced.unwrap_or(0).min(cap) };
                        joined.reserve(usize::try_from(expected).unwrap_or(0).max(earlier.len() + chunk.len()));
                        joined.extend_from_slice(&earlier);
                    }
                    joined.extend_from_slice(&chunk);
                }
            }
            if more {
                break true;
            }
        };
        let body = first.unwrap_or_else(|| Bytes::from(joined));
        Ok(ReadAnswer { response, body, more })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(20);

    fn streamed(chunks: usize, size: usize, length: Option<u64>) -> reqwest::Response {
        let stream =
            futures::stream::iter((0..chunks).map(move |_| Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; size]))));
        let mut response = http::Response::builder().status(200);
        if let Some(length) = length {
            response = response.header("content-length", length);
        }
        reqwest::Response::from(response.body(reqwest::Body::wrap_stream(stream)).unwrap())
    }

    #[tokio::test]
    async fn the_cap_holds_while_streaming_and_on_announced_length() {
        let read = read_capped(streamed(4, 10, None), 40, None, IDLE).await.unwrap();
        assert_eq!(read.body.len(), 40);
        assert_eq!(read.response.status(), 200);
        assert!(matches!(
            read_capped(streamed(5, 10, None), 40, None, IDLE).await,
            Err(ReadError::TooLarge)
        ));
        // An announced length past the cap is refused before a byte is read.
        assert!(matches!(
            read_capped(streamed(1, 1, Some(41)), 40, Some(1), IDLE).await,
            Err(ReadError::TooLarge)
        ));
        // A huge stream is cut at the cap, not read to its end.
        assert!(matches!(
            read_capped(streamed(usize::MAX, 1024, None), 1 << 20, None, IDLE).await,
            Err(ReadError::TooLarge)
        ));
        let one = read_capped(streamed(1, 7, Some(7)), 40, None, IDLE).await.unwrap();
        assert_eq!(one.body.len(), 7);
        assert!(!one.more);
    }

    #[tokio::test]
    async fn a_large_success_body_is_left_on_the_wire_past_the_threshold() {
        let mut start = read_capped(streamed(10, 10, None), 1000, Some(25), IDLE).await.unwrap();
        assert!(start.more);
        assert_eq!(start.body.len(), 30);
        let mut rest = 0;
        while let Some(chunk) = start.response.chunk().await.unwrap() {
            rest += chunk.len();
        }
        assert_eq!(rest, 70);
        // Under the threshold, or an error status: read whole.
        let small = read_capped(streamed(2, 10, None), 1000, Some(25), IDLE).await.unwrap();
        assert!(!small.more && small.body.len() == 20);
        let stream = futures::stream::iter((0..10).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; 10]))));
        let error = reqwest::Response::from(
            http::Response::builder()
                .status(500)
                .body(reqwest::Body::wrap_stream(stream))
                .unwrap(),
        );
        let whole = read_capped(error, 1000, Some(25), IDLE).await.unwrap();
        assert!(!whole.more && whole.body.len() == 100);
        // The cap still holds before the threshold is reached.
        assert!(matches!(
            read_capped(streamed(10, 10, None), 20, Some(25), IDLE).await,
            Err(ReadError::TooLarge)
        ));
    }

    /// A body whose chunks come after the given pauses, then ends (or, with
    /// `stall`, never ends).
    fn paced(pauses: &'static [u64], stall: bool) -> reqwest::Response {
        let chunks = futures::stream::unfold(0usize, move |i| async move {
            match pauses.get(i) {
                Some(&pause) => {
                    tokio::time::sleep(Duration::from_secs(pause)).await;
                    Some((Ok::<_, std::io::Error>(Bytes::from_static(b"x")), i + 1))
                }
                None if stall => std::future::pending().await,
                None => None,
            }
        });
        reqwest::Response::from(
            http::Response::builder()
                .status(200)
                .body(reqwest::Body::wrap_stream(chunks))
                .unwrap(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_arriving_ends_after_the_idle_timeout() {
        let started = tokio::time::Instant::now();
        let error = read_capped(paced(&[0, 1, 1], true), 1000, None, IDLE).await;
        assert!(matches!(error, Err(ReadError::Idle)), "{error:?}");
        assert_eq!(
            started.elapsed(),
            Duration::from_secs(22),
            "two pauses of 1 s, then 20 s of silence"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_first_byte_and_pauses_under_the_limit_never_trip_it() {
        let started = tokio::time::Instant::now();
        // 100 s before the first byte (the server computes), then pauses of 19 s.
        let read = read_capped(paced(&[100, 19, 19], false), 1000, None, IDLE)
            .await
            .unwrap();
        assert_eq!(read.body.as_ref(), b"xxx");
        assert_eq!(started.elapsed(), Duration::from_secs(138));
        // An empty body that takes its time is not a stalled one either.
        let read = read_capped(paced(&[], false), 1000, None, Duration::from_secs(1))
            .await
            .unwrap();
        assert!(read.body.is_empty());
    }
}
