//! `.call()`: send any operation and get its decoded body or a [`vidplat::Error`](crate::Error).

use crate::Error;
use progenitor_client::ResponseValue;
use std::future::Future;
use vidplat_core::Operation;

/// Sends any generated operation builder: `client.encoder()?.get_task().task_id(7).call().await?`
/// returns the `Task` itself. A body that does not decode is reported as
/// [`Error::Decode`], naming the operation and the path of the failing value
/// (e.g. `data[3].status`) — the runtime describes it, for `.send()` alike.
pub trait Call: Operation {
    /// Sends the request; the decoded success body, or the error.
    fn call(self) -> impl Future<Output = Result<Self::Success, Error>> + Send;
}

impl<O: Operation> Call for O {
    async fn call(self) -> Result<Self::Success, Error> {
        self.send_operation()
            .await
            .map(ResponseValue::into_inner)
            .map_err(Error::from)
    }
}
