//! The analytics usage limits: which limit, what the client does at one,
//! and what a call waiting for its turn shows.

use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// Which usage limit was hit: the one type for the client's limiter and the server's 429.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Quota {
    /// Calls per minute (analytics: 3).
    PerMinute,
    /// Calls at a time (analytics: 1).
    Concurrency,
    /// Calls per month (analytics: 50,000).
    Month,
    /// The server's 429 does not say which limit.
    Unspecified,
    /// The shared quota store (Redis) could not be reached, so the client could
    /// not take a turn; the call was not sent.
    StoreUnavailable,
}

/// What to do when a limit is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaMode {
    /// Wait for a turn (within the call's deadline).
    Wait,
    /// Refuse the call at once.
    FailFast,
}

/// The limits enforced on the client side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaConfig {
    /// Calls per window (documented: 3 a minute).
    pub calls_per_window: u32,
    /// The window (documented: one minute).
    pub window: Duration,
    /// Calls at a time (documented: 1).
    pub concurrency: u32,
    /// Calls per month (documented: 50,000).
    pub per_month: u64,
    /// Added to every window, so a call never reaches the server a hair early
    /// because the previous one took longer to arrive.
    pub safety_margin: Duration,
    /// Wait for a turn or refuse at once.
    pub mode: QuotaMode,
}

impl Default for QuotaConfig {
    fn default() -> Self {
        Self {
            calls_per_window: 3,
            window: Duration::from_secs(60),
            concurrency: 1,
            per_month: 50_000,
            safety_margin: Duration::from_millis(250),
            mode: QuotaMode::Wait,
        }
    }
}

/// A call the limiter refused: which limit, and when a call may succeed (when known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaRefusal {
    /// The limit reached.
    pub quota: Quota,
    /// How long until that limit lets a call through, when the limiter knows.
    pub retry_after: Option<Duration>,
}

/// A call waiting for its analytics turn: which limit holds it and, when
/// the limiter knows, until when (a concurrency wait ends when the call in
/// flight does, which no one knows in advance).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaWait {
    /// The limit the call waits on.
    pub quota: Quota,
    /// When the turn comes, if known.
    pub until: Option<Instant>,
    /// Tells apart the waits of concurrent calls.
    id: u64,
}

/// Publishes one call's wait while it lasts, and clears it (if it is still
/// the one shown) when the wait ends, however it ends.
pub(crate) struct Waiting<'a> {
    waits: &'a watch::Sender<Option<QuotaWait>>,
    id: u64,
}

impl<'a> Waiting<'a> {
    pub(crate) fn new(waits: &'a watch::Sender<Option<QuotaWait>>) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self { waits, id }
    }

    pub(crate) fn show(&self, quota: Quota, until: Option<Instant>) {
        self.waits.send_replace(Some(QuotaWait {
            quota,
            until,
            id: self.id,
        }));
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.waits.send_if_modified(|shown| {
            let ours = shown.is_some_and(|wait| wait.id == self.id);
            if ours {
                *shown = None;
            }
            ours
        });
    }
}
