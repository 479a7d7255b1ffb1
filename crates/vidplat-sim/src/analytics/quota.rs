//! The documented usage limits, per product account (the simulator has one):
//! executions per minute, at a time and per month. Past any of them the
//! answer is 429 TOO_MANY_REQUESTS with `Retry-After` (seconds).

use super::clock::{Civil, Local};
use crate::SimError;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

// The per-minute limit (documented: three a minute; `SimConfig::analytics_window`
// shortens the minute for tests). How the service counts an execution in its
// minute is not shown: here each counts from its admission until a window after
// its end, in a sliding window, the strictest of the readings. A client that
// counts a call from when it took its turn meets 429 here once calls take
// longer than its safety margin; one that counts until a window after the
// call's end keeps to any of the readings.

/// What the analytics service saw, across every connection: for tests that
/// check several clients (or processes) together keep to the account's limits.
#[derive(Debug, Default)]
pub struct AnalyticsStats {
    in_flight: AtomicU32,
    max_in_flight: AtomicU32,
    refused: AtomicU64,
    admitted: AtomicU64,
}

impl AnalyticsStats {
    /// The largest number of rate-limited analytics requests in flight at
    /// once (from admission check to answer, refused ones included).
    pub fn max_in_flight(&self) -> u32 {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Rate-limited analytics requests answered 429.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::SeqCst)
    }

    /// Rate-limited analytics requests admitted (run).
    pub fn admitted(&self) -> u64 {
        self.admitted.load(Ordering::SeqCst)
    }

    /// Counts one request in flight until the guard is dropped.
    pub(super) fn enter(self: &Arc<Self>) -> InFlight {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst).saturating_add(1);
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight(self.clone())
    }

    pub(super) fn record(&self, admitted: bool) {
        let counter = if admitted { &self.admitted } else { &self.refused };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

/// One request in flight (see [`AnalyticsStats::enter`]).
pub(super) struct InFlight(Arc<AnalyticsStats>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Which limits an operation is subject to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    /// Per minute, concurrent and monthly: every operation but one.
    AllLimits,
    /// The basic edition's real-time operation: the monthly limit only.
    MonthlyOnly,
}

pub(super) struct Limits {
    pub per_minute: u32,
    pub concurrent: u32,
    pub monthly: u32,
    /// The per-minute window (documented: a minute).
    pub window: Duration,
    /// How long an execution holds its slot: what a refused caller should wait.
    pub latency: Duration,
}

pub(super) struct Quota {
    limits: Limits,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// End times of the executions that ended in the window, oldest first.
    ended: VecDeque<Instant>,
    /// Executions admitted and not ended: each counts in the window.
    running: u32,
    /// (year, month) the monthly count belongs to, Japan time.
    month: (i64, u32),
    month_used: u32,
}

/// An admitted execution; it frees its concurrency slot when dropped (even
/// when the client hangs up mid-query and the handler is dropped).
pub(super) struct Execution {
    quota: Option<Arc<Quota>>,
}

impl Drop for Execution {
    fn drop(&mut self) {
        if let Some(quota) = &self.quota {
            let mut state = quota.lock();
            state.running = state.running.saturating_sub(1);
            state.ended.push_back(crate::calendar::instant_now());
        }
    }
}

/// A refusal: which limit, and in how many seconds to try again.
#[derive(Debug)]
pub(super) struct Refusal {
    limit: &'static str,
    retry_after_secs: u64,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let error = SimError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "TOO_MANY_REQUESTS",
            format!("the {} limit is exceeded", self.limit),
        );
        ([(header::RETRY_AFTER, self.retry_after_secs.to_string())], error).into_response()
    }
}

fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

impl Quota {
    /// A quota whose month (that of `now`) has `month_used` calls counted already.
    pub(super) fn new(limits: Limits, now: Local, month_used: u32) -> Arc<Self> {
        let today = Civil::of(now);
        Arc::new(Self {
            limits,
            state: Mutex::new(State {
                month: (today.year, today.month),
                month_used,
                ..State::default()
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits one execution at `now` (Japan time) or says which limit refuses it.
    /// A refused call counts against nothing.
    pub(super) fn admit(self: &Arc<Self>, scope: Scope, now: Local) -> Result<Execution, Refusal> {
        let mut state = self.lock();
        let today = Civil::of(now);
        if state.month != (today.year, today.month) {
            state.month = (today.year, today.month);
            state.month_used = 0;
        }
        if state.month_used >= self.limits.monthly {
            let next_month = today.next_month_start().at();
            return Err(Refusal {
                limit: "monthly",
                retry_after_secs: (next_month - now).max(1) as u64,
            });
        }
        if scope == Scope::MonthlyOnly {
            state.month_used += 1;
            return Ok(Execution { quota: None });
        }
        let instant = crate::calendar::instant_now();
        while state
            .ended
            .front()
            .is_some_and(|end| instant.saturating_duration_since(*end) >= self.limits.window)
        {
            state.ended.pop_front();
        }
        let in_window = state.ended.len() + state.running as usize;
        let per_minute = self.limits.per_minute as usize;
        if in_window >= per_minute {
            // The first place to free: an ended execution leaving the window,
            // else (running ones fill it) one ending, an execution's latency on.
            let wait = state
                .ended
                .get(in_window - per_minute)
                .map_or(self.limits.latency, |end| {
                    self.limits
                        .window
                        .saturating_sub(instant.saturating_duration_since(*end))
                });
            return Err(Refusal {
                limit: "per-minute",
                retry_after_secs: whole_seconds(wait).max(1),
            });
        }
        if state.running >= self.limits.concurrent {
            return Err(Refusal {
                limit: "concurrent",
                retry_after_secs: whole_seconds(self.limits.latency).max(1),
            });
        }
        state.running += 1;
        state.month_used += 1;
        Ok(Execution {
            quota: Some(self.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(concurrent: u32) -> Limits {
        Limits {
            per_minute: 3,
            concurrent,
            monthly: 50_000,
            window: Duration::from_secs(60),
            latency: Duration::from_secs(2),
        }
    }

    #[test]
    fn an_execution_counts_from_its_admission_until_a_window_after_its_end() {
        let quota = Quota::new(limits(4), super::super::clock::now(), 0);
        let now = super::super::clock::now();
        let running: Vec<Execution> = (0..3).map(|_| quota.admit(Scope::AllLimits, now).unwrap()).collect();
        // Running ones fill the window: a place frees when one ends, a latency on.
        let refusal = quota.admit(Scope::AllLimits, now).err().unwrap();
        assert_eq!((refusal.limit, refusal.retry_after_secs), ("per-minute", 2));
        drop(running);
        // Ended just now: a window on.
        let refusal = quota.admit(Scope::AllLimits, now).err().unwrap();
        assert_eq!((refusal.limit, refusal.retry_after_secs), ("per-minute", 60));
        // The real-time operation counts only against the month.
        assert!(quota.admit(Scope::MonthlyOnly, now).is_ok());
    }
}
