//! Reading an answer whole, with a cap on its size enforced while it streams.

use bytes::Bytes;

/// An answer read whole: its head and its body.
#[derive(Debug)]
pub(crate) struct ReadAnswer {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) version: reqwest::Version,
    pub(crate) headers: reqwest::header::HeaderMap,
    pub(crate) extensions: http::Extensions,
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

/// Reads `response` whole, refusing a body larger than `cap` bytes as soon as
/// it announces it (`Content-Length`) or grows past it: never more than `cap`
/// bytes (plus one network chunk) are held.
pub(crate) async fn read_capped(mut response: reqwest::Response, cap: u64) -> Result<ReadAnswer, ReadError> {
    let announced = response
        .headers()
        .get(reqwest::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > cap) {
        return Err(ReadError::TooLarge);
    }
    let status = response.status();
    let version = response.version();
    let headers = std::mem::take(response.headers_mut());
    let extensions = std::mem::take(response.extensions_mut());
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
    Ok(ReadAnswer {
        status,
        version,
        headers,
        extensions,
        body,
    })
}

impl ReadAnswer {
    /// Back into a response, for progenitor to decode (the body is in memory now).
    pub(crate) fn into_response(self) -> reqwest::Response {
        let mut response = http::Response::new(self.body);
        *response.status_mut() = self.status;
        *response.version_mut() = self.version;
        *response.headers_mut() = self.headers;
        *response.extensions_mut() = self.extensions;
        reqwest::Response::from(response)
    }
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
        let one = read_capped(streamed(1, 7, Some(7)), 40).await.unwrap().into_response();
        assert_eq!(one.bytes().await.unwrap().len(), 7);
    }
}
