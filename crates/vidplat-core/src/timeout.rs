//! How long a call may take: connecting, each attempt, the whole call, and
//! the longest silence of a body being read.
//!
//! The four are one configuration, apart from the retry policy. The total
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
    /// Longest silence allowed while a body arrives: once its first byte has
    /// come, no further byte for this long ends the attempt
    /// ([`TimeoutKind::IdleBody`]). Never applied while waiting for the head
    /// or the first byte of the body (the server may be computing the answer),
    /// nor to an empty body. `Duration::MAX` turns it off.
    pub idle_body: Duration,
}

/// The default [`Timeouts::idle_body`]: 20 s.
///
/// A healthy server streaming a body pauses for milliseconds; what stalls a
/// live connection for seconds is TCP retransmission, whose timeout doubles
/// from about 1 s (1 + 2 + 4 + 8 = 15 s for the same segment lost four times
/// in a row). 20 s rides that out and still ends a body that has stopped 9
/// times sooner than the 180 s analytics attempt timeout would.
pub const DEFAULT_IDLE_BODY_TIMEOUT: Duration = Duration::from_secs(20);

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            attempt: Duration::from_secs(30),
            total: Duration::from_secs(300),
            idle_body: DEFAULT_IDLE_BODY_TIMEOUT,
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
    /// A body stopped arriving: no byte for [`Timeouts::idle_body`] after its first one.
    IdleBody,
}

impl std::fmt::Display for TimeoutKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutKind::Connect => "connect timeout",
            TimeoutKind::Attempt => "attempt timeout",
            TimeoutKind::Total => "total timeout",
            TimeoutKind::IdleBody => "idle body timeout (the body stopped arriving)",
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
        Deadline(self.0.into_iter().chain(other.0).min())
    }

    /// Whether the deadline has passed at `now`.
    pub(crate) fn passed(self, now: Instant) -> bool {
        self.0.is_some_and(|at| now >= at)
    }

    /// The limit a run that was cut short ran into: the call's, once this
    /// (the call's deadline) has passed, else the attempt's.
    pub(crate) fn ran_out(self) -> TimeoutKind {
        if self.passed(Instant::now()) {
            TimeoutKind::Total
        } else {
            TimeoutKind::Attempt
        }
    }

    /// Whether waiting `wait` from `now` would end at or past the deadline.
    pub(crate) fn cut_short(self, now: Instant, wait: Duration) -> bool {
        self.0
            .is_some_and(|at| now.checked_add(wait).is_none_or(|end| end >= at))
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

/// Runs `future` (one read of a body) until it ends or has waited `idle`
/// without ending; `None` in the second case. The timer starts only once the
/// read has to wait: a read that is ready at once costs no timer.
pub(crate) fn idle_bounded<F: Future>(idle: Duration, future: F) -> IdleBounded<F> {
    IdleBounded {
        future,
        idle,
        timer: None,
    }
}

pin_project_lite::pin_project! {
    /// [`idle_bounded`]'s future.
    pub(crate) struct IdleBounded<F> {
        #[pin]
        future: F,
        idle: Duration,
        #[pin]
        timer: Option<tokio::time::Sleep>,
    }
}

impl<F: Future> Future for IdleBounded<F> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Some(output));
        }
        if this.timer.is_none() {
            // A silence too long for the clock is no limit.
            let Some(at) = Instant::now().checked_add(*this.idle) else {
                return Poll::Pending;
            };
            this.timer.set(Some(tokio::time::sleep_until(at)));
        }
        match this.timer.as_pin_mut() {
            Some(timer) => timer.poll(cx).map(|()| None),
            None => Poll::Pending,
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

    #[tokio::test(start_paused = true)]
    async fn the_idle_timer_counts_only_while_the_read_waits() {
        let started = Instant::now();
        assert_eq!(idle_bounded(Duration::from_secs(2), async { 7 }).await, Some(7));
        assert_eq!(started.elapsed(), Duration::ZERO);
        let slow = tokio::time::sleep(Duration::from_secs(1));
        assert_eq!(idle_bounded(Duration::from_secs(2), slow).await, Some(()));
        assert_eq!(started.elapsed(), Duration::from_secs(1));
        let stalled = std::future::pending::<()>();
        assert_eq!(idle_bounded(Duration::from_secs(2), stalled).await, None);
        assert_eq!(started.elapsed(), Duration::from_secs(3));
        // `Duration::MAX`: no limit, and no overflow (the read ends first here).
        let late = tokio::time::sleep(Duration::from_secs(3600));
        assert_eq!(idle_bounded(Duration::MAX, late).await, Some(()));
    }
}
