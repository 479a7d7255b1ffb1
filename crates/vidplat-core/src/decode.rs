//! Decoding a success body into the operation's type: the one place where a
//! decode failure is described (which operation, where in the body, and a
//! redacted excerpt). The generated clients call [`decode_response`] where
//! progenitor would call `ResponseValue::from_response`.

use crate::failure::{CallFailure, DecodeError, FailureKind};
use crate::redact::Redactor;
use crate::retry::Delivery;
use crate::table::{Method, Service};
use progenitor_client::ResponseValue;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// What the runtime attaches to a success response: its body, read already
/// (under the cap, within the deadline), and what a decode failure must say.
#[derive(Clone, Debug)]
pub(crate) struct DecodeContext {
    pub(crate) body: bytes::Bytes,
    pub(crate) service: Service,
    pub(crate) operation: &'static str,
    pub(crate) method: Method,
    pub(crate) attempts: u32,
    pub(crate) redactor: Arc<Redactor>,
    /// The rest of a large body, still on the wire (see [`crate::stream`]).
    pub(crate) rest: Option<crate::stream::SharedRemainder>,
}

/// Bodies at least this large are decoded on tokio's blocking pool, not on
/// the caller's task: pages fetched concurrently (a paginator's prefetch)
/// then decode in parallel instead of one after the other, and the caller's
/// task keeps driving the other transfers meanwhile. Below it, handing the
/// work over would cost more than the decode.
const OFF_TASK_DECODE: usize = 32 * 1024;

/// Decodes `body` as `T`, on the blocking pool when it is large.
async fn decode<T: DeserializeOwned + Send + 'static>(body: &bytes::Bytes) -> Result<T, serde_json::Error> {
    if body.len() >= OFF_TASK_DECODE {
        let shared = body.clone();
        if let Ok(decoded) = tokio::task::spawn_blocking(move || serde_json::from_slice::<T>(&shared)).await {
            return decoded;
        }
        // The blocking pool is gone (the runtime is shutting down): decode here.
    }
    serde_json::from_slice::<T>(body)
}

/// Decodes a success response the runtime handed over. A body that does not
/// decode ends in [`FailureKind::Decode`], with the path of the failing value
/// (found by decoding again, only on failure, so success costs nothing extra).
pub async fn decode_response<T: DeserializeOwned + Send + 'static, E>(
    mut response: reqwest::Response,
) -> Result<ResponseValue<T>, progenitor_client::Error<E>> {
    let context = response.extensions_mut().remove::<DecodeContext>();
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let body = match &context {
        Some(context) => match crate::stream::finish_reading(&mut response, context).await {
            None => context.body.clone(),
            Some(Ok(body)) => body,
            Some(Err(failure)) => return Err(failure.into_progenitor()),
        },
        // Not a response of the runtime (cannot happen with generated clients).
        None => response
            .bytes()
            .await
            .map_err(progenitor_client::Error::ResponseBodyError)?,
    };
    match decode::<T>(&body).await {
        Ok(value) => Ok(ResponseValue::new(value, status, headers)),
        Err(source) => {
            let mut deserializer = serde_json::Deserializer::from_slice(&body);
            let path = serde_path_to_error::deserialize::<_, T>(&mut deserializer)
                .err()
                .map(|tracked| tracked.path().to_string())
                .filter(|path| path != ".");
            let Some(context) = context else {
                // Not a response of the runtime (cannot happen with generated
                // clients): without the key at hand, show no excerpt at all.
                return Err(progenitor_client::Error::InvalidResponsePayload(
                    bytes::Bytes::new(),
                    source,
                ));
            };
            let error = DecodeError {
                operation: Some(context.operation),
                path,
                excerpt: context.redactor.excerpt(&body),
                source,
            };
            Err(CallFailure {
                service: context.service,
                operation: context.operation,
                method: context.method,
                delivery: Delivery::Answered,
                attempts: context.attempts,
                kind: FailureKind::Decode(error),
            }
            .into_progenitor())
        }
    }
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
        let body = format!("\"{}\"", "x".repeat(body_len));
        let response = reqwest::Response::from(http::Response::new(body));
        let decoded = decode_response::<Probe, ()>(response).await.unwrap();
        decoded.into_inner().0
    }

    #[tokio::test(flavor = "current_thread")]
    async fn large_bodies_decode_off_the_callers_task_small_ones_on_it() {
        let caller = std::thread::current().id();
        assert_eq!(decoded_on(1024).await, caller);
        assert_ne!(decoded_on(OFF_TASK_DECODE).await, caller);
    }
}
