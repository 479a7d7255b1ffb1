//! `.call()`: send any operation and get its decoded body or a [`vidplat::Error`](crate::Error).

use crate::Error;
use std::future::Future;
use vidplat_core::Operation;

/// Sends any generated operation builder: `client.encoder()?.get_task().task_id(7).call().await?`
/// returns the `Task` itself. (`.send().await?` works too: it keeps the
/// answer's status and headers beside the body, and its error converts into
/// [`Error`] with `?`.) A body that does not decode is reported as
/// [`Error::Decode`], naming the operation and the path of the failing value
/// (e.g. `data[3].status`).
pub trait Call: Operation {
    /// Sends the request; the decoded success body, or the error.
    fn call(self) -> impl Future<Output = Result<Self::Success, Error>> + Send;
}

impl<O: Operation> Call for O {
    async fn call(self) -> Result<Self::Success, Error> {
        Ok(vidplat_core::send_operation(self, None).await?.into_inner())
    }
}
