//! Reading an answer whole, with a cap on its size enforced while it streams.

use bytes::Bytes;

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
}

/// Reads `response`'s body whole, refusing a body larger than `cap` bytes as
/// soon as it announces it (`Content-Length`) or grows past it: never more
/// than `cap` bytes (plus one network chunk) are held. With `stream_above`, a
/// success body that grows past that many bytes is left on the wire after
/// them (`more`), to be decoded while it arrives.
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    cap: u64,
    stream_above: Option<u64>,
) -> Result<ReadAnswer, ReadError> {
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
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Transport)? {
        total = total.saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
        if total > cap {
            return Err(ReadError::TooLarge);
        }
        if stream_above.is_some_and(|above| total > above) {
            let body = match first.take() {
                Some(earlier) => {
                    let mut joined = Vec::with_capacity(earlier.len() + chunk.len());
                    joined.extend_from_slice(&earlier);
                    joined.extend_from_slice(&chunk);
                    Bytes::from(joined)
                }
                None if joined.is_empty() => chunk,
                None => {
                    joined.extend_from_slice(&chunk);
                    Bytes::from(joined)
                }
            };
            return Ok(ReadAnswer {
                response,
                body,
                more: true,
            });
        }
        match first.take() {
            None if joined.is_empty() => first = Some(chunk),
            earlier => {
                if let Some(earlier) = earlier {
                    let expected = announced.unwrap_or(0).min(cap);
                    joined.reserve(usize::try_from(expected).unwrap_or(0).max(earlier.len() + chunk.len()));
                    joined.extend_from_slice(&earlier);
                }
                joined.extend_from_slice(&chunk);
            }
        }
    }
    let body = first.unwrap_or_else(|| Bytes::from(joined));
    Ok(ReadAnswer {
        response,
        body,
        more: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let read = read_capped(streamed(4, 10, None), 40, None).await.unwrap();
        assert_eq!(read.body.len(), 40);
        assert_eq!(read.response.status(), 200);
        assert!(matches!(
            read_capped(streamed(5, 10, None), 40, None).await,
            Err(ReadError::TooLarge)
        ));
        // An announced length past the cap is refused before a byte is read.
        assert!(matches!(
            read_capped(streamed(1, 1, Some(41)), 40, Some(1)).await,
            Err(ReadError::TooLarge)
        ));
        // A huge stream is cut at the cap, not read to its end.
        assert!(matches!(
            read_capped(streamed(usize::MAX, 1024, None), 1 << 20, None).await,
            Err(ReadError::TooLarge)
        ));
        let one = read_capped(streamed(1, 7, Some(7)), 40, None).await.unwrap();
        assert_eq!(one.body.len(), 7);
        assert!(!one.more);
    }

    #[tokio::test]
    async fn a_large_success_body_is_left_on_the_wire_past_the_threshold() {
        let mut start = read_capped(streamed(10, 10, None), 1000, Some(25)).await.unwrap();
        assert!(start.more);
        assert_eq!(start.body.len(), 30);
        let mut rest = 0;
        while let Some(chunk) = start.response.chunk().await.unwrap() {
            rest += chunk.len();
        }
        assert_eq!(rest, 70);
        // Under the threshold, or an error status: read whole.
        let small = read_capped(streamed(2, 10, None), 1000, Some(25)).await.unwrap();
        assert!(!small.more && small.body.len() == 20);
        let stream = futures::stream::iter((0..10).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; 10]))));
        let error = reqwest::Response::from(
            http::Response::builder()
                .status(500)
                .body(reqwest::Body::wrap_stream(stream))
                .unwrap(),
        );
        let whole = read_capped(error, 1000, Some(25)).await.unwrap();
        assert!(!whole.more && whole.body.len() == 100);
        // The cap still holds before the threshold is reached.
        assert!(matches!(
            read_capped(streamed(10, 10, None), 20, Some(25)).await,
            Err(ReadError::TooLarge)
        ));
    }
}
