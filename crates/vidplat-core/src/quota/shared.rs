//! A store the account's analytics counts live in, shared by processes: the
//! trait the limiter asks, whatever keeps the counts (Redis for several
//! machines; a file under a lock for the processes of one machine).

use crate::quota::limits::{QuotaConfig, QuotaRefusal, Waiting};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::Instant;

/// A boxed future a store answers with.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a turn asked of a store comes to: the lease, a refusal (which limit,
/// and when to retry), or why the store could not answer.
pub type TurnTaken = Result<Result<Box<dyn Lease>, QuotaRefusal>, StoreUnavailable>;

/// Why a shared store could not answer (it is not reachable, or answered
/// what it should not): the limiter then does what
/// [`SharedQuota::when_unavailable`] says.
#[derive(Clone, Debug)]
pub struct StoreUnavailable {
    reason: String,
    error: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl StoreUnavailable {
    /// The store could not answer, for `reason` (no secret in it).
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            error: None,
        }
    }

    /// The store could not answer because of `error` (its text is the
    /// reason: no secret in it), kept typed for [`StoreUnavailable::error`].
    pub fn because(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self {
            reason: error.to_string(),
            error: Some(std::sync::Arc::new(error)),
        }
    }

    /// Why.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The store's own error, when it gave one: `downcast_ref` reads it as
    /// its type (`vidplat_redis::RedisError`, say). Not [`std::error::Error::source`]:
    /// the reason already says what it says.
    pub fn error(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.error.as_deref()
    }
}

/// Two are the same when they give the same reason.
impl PartialEq for StoreUnavailable {
    fn eq(&self, other: &Self) -> bool {
        self.reason == other.reason
    }
}

impl Eq for StoreUnavailable {}

impl fmt::Display for StoreUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for StoreUnavailable {}

/// What a call does when its shared store cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WhenUnavailable {
    /// Refuse the call (not sent) with `Quota::StoreUnavailable`. The default:
    /// a local count would not see the other processes and could earn 429s.
    #[default]
    Fail,
    /// Log a warning and count with this process's own in-memory limiter, as
    /// if it were the only process of the account.
    LocalFallback,
}

/// One turn asked of a store: for one attempt of a call.
pub struct Turn<'a> {
    /// The limits.
    pub config: &'a QuotaConfig,
    /// Whether the call counts against the per-minute and one-at-a-time
    /// limits (else only the month's).
    pub rate_limited: bool,
    /// Whether to wait for a turn (else refuse at once).
    pub wait: bool,
    /// No turn past this.
    pub deadline: Option<Instant>,
    /// Where a wait is shown while it lasts.
    pub waiting: &'a Waiting<'a>,
    /// Told the account's month count whenever the store reads it.
    pub saw_month: &'a (dyn Fn(u64) + Sync),
}

impl fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Turn")
            .field("config", self.config)
            .field("rate_limited", &self.rate_limited)
            .field("wait", &self.wait)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

/// The turn a store gave: held while the attempt is in flight; the slot is
/// given back when it is released or dropped (a store that outlives a
/// killed process frees it itself: a lease that expires, a lock the kernel drops).
pub trait Lease: Send + fmt::Debug {
    /// Gives the slot back and waits for the store to confirm.
    fn release(self: Box<Self>) -> StoreFuture<'static, ()>;
}

/// A store of one account's analytics counts that several processes share.
pub trait SharedQuota: Send + Sync + fmt::Debug + 'static {
    /// What it is, for people and measurements (`redis`, `machine`).
    fn kind(&self) -> &'static str;

    /// A turn for one attempt: the lease, a refusal (which limit, and when to
    /// retry), or why the store could not answer.
    fn acquire<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, TurnTaken>;

    /// The account's calls this month, as the store holds them now.
    fn month_used(&self) -> StoreFuture<'_, Result<u64, StoreUnavailable>>;

    /// The account's calls in flight and calls in the last `window`, as the store holds them now.
    fn activity(&self, window: Duration) -> StoreFuture<'_, Result<(u64, u64), StoreUnavailable>>;

    /// What a call does when the store cannot answer.
    fn when_unavailable(&self) -> WhenUnavailable;

    /// The store as its own type, for what else it offers (a Redis store
    /// also keeps an export's shared state); `None` by default.
    fn as_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        None
    }
}
