//! The analytics usage limits: which limit, what the client does at one,
//! and what a call waiting for its turn shows.

use crate::observe::WaitReason;
use std::fmt;
use std::sync::{Mutex, PoisonError};
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

impl Quota {
    /// A refusal by the limit as an error type in spans and metric labels
    /// (the quota's own metrics name the limit by what follows `quota.`).
    pub(crate) fn error_type(self) -> &'static str {
        match self {
            Quota::PerMinute => "quota.per_minute",
            Quota::Concurrency => "quota.concurrency",
            Quota::Month => "quota.month",
            Quota::Unspecified => "quota.unspecified",
            Quota::StoreUnavailable => "quota.store_unavailable",
        }
    }
}

impl std::fmt::Display for Quota {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Quota::PerMinute => "per-minute",
            Quota::Concurrency => "one-at-a-time",
            Quota::Month => "monthly",
            Quota::Unspecified => "unspecified",
            Quota::StoreUnavailable => "shared store's",
        })
    }
}

/// What to do when a limit is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaMode {
    /// Wait for a turn (within the call's deadline).
    Wait,
    /// Refuse the call at once.
    FailFast,
}

/// Until when a call counts in the per-minute window. How the service
/// counts a call in its minute is not shown (GAPS.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CountedUntil {
    /// A window (and the margin) after the call ends; it counts while it
    /// runs too. Keeps to the limit whether the service counts a call from
    /// its arrival or from its end, however late a call arrives.
    #[default]
    WindowAfterEnd,
    /// A window (and the margin) after the call took its turn. Right only
    /// if the service counts a call from its arrival; then faster when calls
    /// take seconds (a window of three calls is shorter by one call's
    /// duration, up to half a window). A call that arrives later than the
    /// next one by more than the margin draws a 429.
    WindowAfterTurn,
}

impl CountedUntil {
    /// Whether a call counts while it runs and until a window after its end
    /// (every reading but [`WindowAfterTurn`](Self::WindowAfterTurn)).
    pub fn until_end(self) -> bool {
        self != CountedUntil::WindowAfterTurn
    }
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
    /// Added to every window, so the service's own timing (its clock, when
    /// it stamps a call) cannot make the next call a hair early.
    pub safety_margin: Duration,
    /// Until when a call counts in the window: by default a window after it ends.
    pub counted_until: CountedUntil,
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
            counted_until: CountedUntil::WindowAfterEnd,
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

impl std::fmt::Display for QuotaRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the client-side {} analytics quota refused the call; not sent",
            self.quota
        )?;
        if let Some(after) = self.retry_after {
            write!(f, "; retry after {}", crate::time::humanized(after))?;
        }
        Ok(())
    }
}

impl std::error::Error for QuotaRefusal {}

/// The month's analytics count as a client knows it.
///
/// `Display`: "12 of 50000 analytics calls used this month (2 refused by the server with 429)".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaUsage {
    /// The monthly limit configured.
    pub per_month: u64,
    /// Attempts counted this month, those the server refused included.
    pub used: u64,
    /// Of `used`, the attempts this client saw refused by the server with 429.
    pub refused_by_server: u64,
}

impl QuotaUsage {
    /// Calls left this month.
    pub fn remaining(&self) -> u64 {
        self.per_month.saturating_sub(self.used)
    }
}

impl fmt::Display for QuotaUsage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {} analytics calls used this month", self.used, self.per_month)?;
        match self.refused_by_server {
            0 => Ok(()),
            n => write!(f, " ({n} refused by the server with 429)"),
        }
    }
}

/// What holds the analytics quota right now: calls in flight (each holds one
/// of the calls-at-a-time slots) and calls started in the current window.
/// With the Redis store, the whole account's (every process); in memory, this
/// client's. Read with [`QuotaLimiter::fetch_activity`](crate::QuotaLimiter::fetch_activity).
///
/// `Display`: "1 of 1 analytics slots held, 2 of 3 calls in the window".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaActivity {
    /// Calls in flight now, each holding a slot.
    pub in_flight: u64,
    /// Calls at a time the limits allow.
    pub concurrency: u64,
    /// Calls started within the current window.
    pub in_window: u64,
    /// Calls a window allows.
    pub calls_per_window: u64,
}

impl QuotaActivity {
    /// Whether every slot is held: a call now would wait for (or, failing fast, be refused) its turn.
    pub fn slots_full(&self) -> bool {
        self.in_flight >= self.concurrency
    }
}

impl fmt::Display for QuotaActivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} analytics slots held, {} of {} calls in the window",
            self.in_flight, self.concurrency, self.in_window, self.calls_per_window
        )
    }
}

/// Why a call waits for its analytics turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitCause {
    /// The client's own count: the limit lets the next call through at the end shown.
    Limit,
    /// The server refused the previous attempt with 429 Too Many Requests; the
    /// next one waits for its `Retry-After` (or the backoff when it gave none).
    ServerRefused,
    /// Another call holds the one-at-a-time slot. `ahead`: how many other
    /// calls queue before this one, when known (the Redis store knows, across
    /// every process of the account; the in-memory store does not count them).
    Queued {
        /// Calls queued before this one.
        ahead: Option<u64>,
    },
}

/// A call waiting for its analytics turn: which limit holds it, why, and,
/// when known, until when (a wait behind a call in flight ends when that
/// call does, which no one knows in advance).
///
/// `Display` writes a one-line progress message, counted from now:
/// "waiting 41 s for the per-minute analytics quota".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaWait {
    /// The limit the call waits on ([`Quota::Unspecified`] after a server 429).
    pub quota: Quota,
    /// Why it waits.
    pub cause: WaitCause,
    /// When the turn comes, if known.
    pub until: Option<Instant>,
    /// Tells apart the waits of concurrent calls.
    id: u64,
}

impl QuotaWait {
    /// The time left until [`until`](Self::until), from now.
    pub fn left(&self) -> Option<Duration> {
        self.until.map(|until| until.saturating_duration_since(Instant::now()))
    }
}

impl fmt::Display for QuotaWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("waiting")?;
        if let Some(left) = self.left() {
            write!(f, " {}", crate::time::humanized(left))?;
        }
        match self.cause {
            WaitCause::Limit => match self.quota {
                Quota::PerMinute => f.write_str(" for the per-minute analytics quota"),
                Quota::Concurrency => f.write_str(" for the analytics call in flight to end (1 at a time)"),
                Quota::Month => f.write_str(" for the monthly analytics quota"),
                Quota::Unspecified | Quota::StoreUnavailable => f.write_str(" for the analytics quota"),
            },
            WaitCause::ServerRefused => f.write_str(": the server refused the last attempt (429 Too Many Requests)"),
            WaitCause::Queued { ahead } => {
                f.write_str(" for the analytics call in flight to end")?;
                match ahead {
                    Some(0) | None => Ok(()),
                    Some(1) => f.write_str(", queued behind 1 other call"),
                    Some(n) => write!(f, ", queued behind {n} other calls"),
                }
            }
        }
    }
}

/// Publishes one call's wait while it lasts, and clears it (if it is still
/// the one shown) when the wait ends, however it ends. Each stretch of the
/// wait with one reason is a tracing event when it starts and a measurement
/// when it ends.
pub struct Waiting<'a> {
    waits: &'a watch::Sender<Option<QuotaWait>>,
    id: u64,
    /// The reason of the stretch under way, and when it began.
    stretch: Mutex<Option<(WaitReason, Instant)>>,
}

impl std::fmt::Debug for Waiting<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiting").field("id", &self.id).finish_non_exhaustive()
    }
}

impl<'a> Waiting<'a> {
    /// One call's waits, published on `waits` (a limiter's; a store's tests make their own).
    pub fn new(waits: &'a watch::Sender<Option<QuotaWait>>) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self {
            waits,
            id,
            stretch: Mutex::new(None),
        }
    }

    /// Ends the stretch under way, if any, and starts one for `reason` (`None`: no more waiting).
    fn stretch(&self, reason: Option<WaitReason>) {
        let mut stretch = self.stretch.lock().unwrap_or_else(PoisonError::into_inner);
        if stretch.map(|(under_way, _)| under_way) == reason {
            return;
        }
        if let Some((ended, since)) = stretch.take() {
            crate::observe::quota_waited(ended, since);
        }
        if let Some(reason) = reason {
            tracing::debug!(
                vidplat.quota.reason = reason.as_str(),
                "waiting for the analytics quota"
            );
            *stretch = Some((reason, Instant::now()));
        }
    }

    /// Shows that the call waits for `quota`, for `cause`, until `until` (when known).
    pub fn show(&self, quota: Quota, cause: WaitCause, until: Option<Instant>) {
        self.stretch(Some(match (cause, quota) {
            (WaitCause::ServerRefused, _) => WaitReason::Server429,
            (WaitCause::Queued { .. }, _) | (WaitCause::Limit, Quota::Concurrency) => WaitReason::Concurrency,
            (WaitCause::Limit, _) => WaitReason::PerMinute,
        }));
        let wait = QuotaWait {
            quota,
            cause,
            until,
            id: self.id,
        };
        // Receivers are woken only by a change (a Redis waiter republishes on every wake-up).
        self.waits.send_if_modified(|shown| shown.replace(wait) != Some(wait));
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.stretch(None);
        self.waits
            .send_if_modified(|shown| shown.take_if(|wait| wait.id == self.id).is_some());
    }
}
