//! Reading an answer whole, with a cap on its size enforced while it streams.

use bytes::Bytes;

/// An answer whose body has been read whole: the response keeps its head
/// (status, headers, extensions) and the body is held apart, so nothing is
/// rebuilt on the way to the generated code.
#[derive(Debug)]
pub(crate) struct ReadAnswer {
    pub(crate) response: reqwest::Response,
    pub(crate) body: Bytes,
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
/// than `cap` bytes (plus one network chunk) are held.
pub(crate) async fn read_capped(mut response: reqwest::Response, cap: u64) -> Result<ReadAnswer, ReadError> {
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
    Ok(ReadAnswer { response, body })
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
        let read = read_capped(streamed(4, 10, None), 40).await.unwrap();
        assert_eq!(read.body.len(), 40);
        assert_eq!(read.response.status(), 200);
        assert!(matches!(
            read_capped(streamed(5, 10, None), 40).await,
            Err(ReadError::TooLarge)
        ));
        // An announced length past the cap is refused before a byte is read.
        assert!(matches!(
            read_capped(streamed(1, 1, Some(41)), 40).await,
            Err(ReadError::TooLarge)
        ));
        // A huge stream is cut at the cap, not read to its end.
        assert!(matches!(
            read_capped(streamed(usize::MAX, 1024, None), 1 << 20).await,
            Err(ReadError::TooLarge)
        ));
        let one = read_capped(streamed(1, 7, Some(7)), 40).await.unwrap();
        assert_eq!(one.body.len(), 7);
    }
}
