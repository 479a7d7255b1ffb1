//! What every generated operation builder is, for code that handles any operation.

use std::future::Future;

/// A ready-to-send operation of a generated client. The generator implements
/// it for every operation builder.
pub trait Operation: Sized + Send {
    /// The YAML's `operationId`.
    const ID: &'static str;
    /// The decoded success body (`()` where the documents show none).
    type Success: serde::de::DeserializeOwned + Send;
    /// The service's error body.
    type ErrorBody: Send;

    /// Sends the request (the builder's own `send`).
    fn send_operation(
        self,
    ) -> impl Future<
        Output = Result<progenitor_client::ResponseValue<Self::Success>, progenitor_client::Error<Self::ErrorBody>>,
    > + Send;
}
