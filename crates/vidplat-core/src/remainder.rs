//! The rest of a large success body, still on the wire when the exchange
//! ends, and the rules reading it must keep: the size cap, the attempt's
//! deadline, the idle-body timeout, and the analytics concurrency slot,
//! given back once it is read.

use crate::failure::FailureKind;
use crate::observe::Site;
use crate::quota::limiter::QuotaPermit;
use crate::timeout::{idle_bounded, Deadline, TimeoutKind};
use bytes::Bytes;
use std::time::Duration;
use tokio::sync::mpsc;

/// A success body of a large list larger than this is decoded while it arrives.
pub(crate) const STREAM_ABOVE: u64 = 1 << 20;

/// What reading the rest of a body must respect.
#[derive(Debug)]
pub(crate) struct Remainder {
    /// The body cap, in bytes.
    pub(crate) cap: u64,
    /// Bytes read so far (the prefix).
    pub(crate) read: u64,
    /// The attempt's deadline (never later than the call's).
    pub(crate) attempt: Deadline,
    /// The call's deadline.
    pub(crate) total: Deadline,
    /// The longest silence allowed between two chunks (the body has begun).
    pub(crate) idle: Duration,
    /// What the body's size is measured under.
    pub(crate) site: Site,
    /// The analytics concurrency slot, released once the body is read.
    pub(crate) permit: Option<QuotaPermit>,
}

impl Remainder {
    /// Sends the rest of `response`'s body to a decoding thread under the cap
    /// and the deadline, then gives the concurrency slot back. A closed
    /// channel means the decoder stopped (it reports why).
    pub(crate) async fn pump(
        mut self,
        response: &mut reqwest::Response,
        chunks: mpsc::Sender<Bytes>,
        digest: &mut crate::response::BodyDigest,
    ) -> Result<(), FailureKind> {
        let mut read = self.read;
        let reading = async {
            loop {
                let chunk = match idle_bounded(self.idle, response.chunk()).await {
                    Some(Ok(Some(chunk))) => chunk,
                    Some(Ok(None)) => return Ok(()),
                    Some(Err(error)) => return Err(FailureKind::Transport(error)),
                    None => return Err(FailureKind::Timeout(TimeoutKind::IdleBody)),
                };
                read = read.saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
                if read > self.cap {
                    return Err(FailureKind::BodyTooLarge { limit: self.cap });
                }
                digest.write(&chunk);
                if chunks.send(chunk).await.is_err() {
                    return Ok(());
                }
            }
        };
        let ran = self.attempt.run(reading).await;
        let outcome = ran.unwrap_or_else(|| Err(FailureKind::Timeout(self.total.ran_out())));
        if let Some(permit) = self.permit.take() {
            permit.release().await;
        }
        if outcome.is_ok() {
            crate::observe::body_read(self.site, read);
        }
        outcome
    }
}
