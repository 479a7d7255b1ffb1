//! `.call()`: send any operation and get its decoded body or a [`vidplat::Error`](crate::Error).

use crate::error::excerpt;
use crate::Error;
use std::future::Future;
use vidplat_core::Operation;

/// Sends any generated operation builder: `client.encoder()?.get_task().task_id(7u64).call().await?`
/// returns the `Task` itself. A body that does not decode is reported with the
/// operation and the exact path of the failing value (e.g. `data[3].status`).
pub trait Call: Operation {
    fn call(self) -> impl Future<Output = Result<Self::Success, Error>> + Send;
}

impl<O> Call for O
where
    O: Operation,
    Error: From<progenitor_client::Error<O::ErrorBody>>,
{
    async fn call(self) -> Result<Self::Success, Error> {
        match self.send_operation().await {
            Ok(response) => Ok(response.into_inner()),
            Err(progenitor_client::Error::InvalidResponsePayload(bytes, error)) => {
                // Decode again, tracking the path, to say where it failed.
                let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
                let detail = match serde_path_to_error::deserialize::<_, O::Success>(&mut deserializer) {
                    Err(tracked) => format!("{} at {}", tracked.inner(), tracked.path()),
                    Ok(_) => error.to_string(),
                };
                Err(Error::Decode {
                    operation: Some(O::ID),
                    detail,
                    excerpt: excerpt(&bytes),
                })
            }
            Err(other) => Err(Error::from(other)),
        }
    }
}
