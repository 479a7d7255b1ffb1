//! How long a call may take: connecting, each attempt, and the whole call.
//!
//! The three are one configuration, apart from the retry policy. The total
//! timeout is the call's deadline: the wait for the analytics quota, every
//! attempt (sending and reading the body), and every backoff sleep end by it.
//! Every instant is computed with checked arithmetic: a timeout too large to
//! add to the clock (`Duration::MAX`) means "no limit", never a panic.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Instant;

/// The timeouts of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Time allowed to open a connection (TCP and TLS).
    pub connect: Duration,
    /// Time allowed for one attempt: sending the request and reading the whole answer.
    pub attempt: Duration,
    /// Time allowed for the whole call, quota waits, retries and backoff included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            attempt: Duration::from_secs(30),
            total: Duration::from_secs(300),
        }
    }
}

/// Which limit a call ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutKind {
    /// The connection did not open in time (nothing was sent).
    Connect,
    /// One attempt took longer than the attempt timeout.
    Attempt,
    /// The call reached its total timeout.
    Total,
}

impl std::fmt::Display for TimeoutKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutKind::Connect => "connect timeout",
            TimeoutKind::Attempt => "attempt timeout",
            TimeoutKind::Total => "total timeout",
        })
    }
}

/// An instant that may be "never" (a timeout too large to add to the clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
    /// `timeout` after `start`, or never when that instant cannot be represented.
    pub(crate) fn after(start: Instant, timeout: Duration) -> Self {
        Self(start.checked_add(timeout))
    }

    pub(crate) fn instant(self) -> Option<Instant> {
        self.0
    }

    /// The earlier of the two.
    pub(crate) fn min(self, other: Deadline) -> Deadline {
        match (self.0, other.0) {
            (Some(a), Some(b)) => Deadline(Some(a.min(b))),
            (Some(a), None) | (None, Some(a)) => Deadline(Some(a)),
            (None, None) => Deadline(None),
        }
    }

    /// Whether the deadline has passed at `now`.
    pub(crate) fn passed(self, now: Instant) -> bool {
        self.0.is_some_and(|at| now >= at)
    }

    /// Whether waiting `wait` from `now` would end at or past the deadline.
    pub(crate) fn cut_short(self, now: Instant, wait: Duration) -> bool {
        match (self.0, now.checked_add(wait)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(at), Some(end)) => end >= at,
        }
    }

    /// Runs `future` until the deadline; `None` when the deadline came first.
    pub(crate) fn run<F: Future>(self, future: F) -> Bounded<F> {
        match self.0 {
            Some(at) => Bounded::Until {
                timeout: tokio::time::timeout_at(at, future),
            },
            None => Bounded::Never { future },
        }
    }
}

pin_project_lite::pin_project! {
    /// [`Deadline::run`]'s future, a combinator rather than an `async fn`:
    /// an `async fn` would hold the future twice (as its argument and inside
    /// the timeout, rust-lang/rust#62958), and every call's future holds this one.
    #[project = BoundedProjection]
    pub(crate) enum Bounded<F> {
        Until { #[pin] timeout: tokio::time::Timeout<F> },
        Never { #[pin] future: F },
    }
}

impl<F: Future> Future for Bounded<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            BoundedProjection::Until { timeout } => timeout.poll(cx).map(Result::ok),
            BoundedProjection::Never { future } => future.poll(cx).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn huge_timeouts_mean_never_without_overflow() {
        let now = Instant::now();
        let never = Deadline::after(now, Duration::MAX);
        assert_eq!(never.instant(), None);
        assert!(!never.passed(now));
        assert!(!never.cut_short(now, Duration::MAX));
        let soon = Deadline::after(now, Duration::from_secs(3));
        assert_eq!(never.min(soon), soon);
        assert!(soon.cut_short(now, Duration::MAX));
        assert!(soon.cut_short(now, Duration::from_secs(3)));
        assert!(!soon.cut_short(now, Duration::from_secs(2)));
        assert_eq!(soon.run(std::future::pending::<()>()).await, None);
        assert!(Instant::now() >= now + Duration::from_secs(3));
    }
}
