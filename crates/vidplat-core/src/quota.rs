//! Client-side limiter for the analytics usage limits: by default 3 calls a
//! minute, 1 at a time and 50,000 a month per account (both editions). The
//! basic edition's real-time operation counts only against the month.
//!
//! The limiter is shared by every clone of a client. In `Wait` mode a call
//! waits for its turn; in `FailFast` mode it is refused at once (the facade
//! reports `RateLimited` with the quota and when to retry). The month counter
//! cannot be waited out and always refuses once spent.

use crate::operation::OperationMeta;
use crate::runtime::QuotaKind;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// What to do when a limit is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaMode {
    Wait,
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

/// Refusal of a call in fail-fast mode (or when the month is spent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaRefusal {
    pub quota: QuotaKind,
    pub retry_after: Option<Duration>,
}

/// Held while a call is in flight; releases its concurrency slot when dropped.
pub struct QuotaPermit {
    _slot: Option<OwnedSemaphorePermit>,
    /// Time spent waiting for the permit.
    pub waited: Duration,
}

#[derive(Clone)]
pub struct QuotaLimiter {
    config: QuotaConfig,
    slots: Arc<Semaphore>,
    state: Arc<Mutex<State>>,
}

struct State {
    /// Start times of the calls in the current window, oldest first.
    recent: VecDeque<Instant>,
    month_used: u64,
}

impl std::fmt::Debug for QuotaLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotaLimiter")
            .field("config", &self.config)
            .field("month_remaining", &self.remaining())
            .finish()
    }
}

impl QuotaLimiter {
    pub fn new(config: QuotaConfig) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(config.concurrency.max(1) as usize)),
            state: Arc::new(Mutex::new(State {
                recent: VecDeque::new(),
                month_used: 0,
            })),
            config,
        }
    }

    pub fn config(&self) -> &QuotaConfig {
        &self.config
    }

    /// Calls left this month, as this client counts them (calls made by other
    /// clients of the account are not seen).
    pub fn remaining(&self) -> u64 {
        let used = self.state.lock().map(|s| s.month_used).unwrap_or(0);
        self.config.per_month.saturating_sub(used)
    }

    /// Starts a new month's count (the document does not say when the month turns; call this when yours does).
    pub fn reset_month(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.month_used = 0;
        }
    }

    /// Waits for (or refuses) a call of `operation`.
    pub async fn acquire(&self, operation: &OperationMeta) -> Result<QuotaPermit, QuotaRefusal> {
        let started = Instant::now();
        let month_refusal = QuotaRefusal {
            quota: QuotaKind::Month,
            retry_after: None,
        };
        if self.remaining() == 0 {
            return Err(month_refusal);
        }
        if !operation.rate_limited {
            self.count_month()?;
            return Ok(QuotaPermit {
                _slot: None,
                waited: Duration::ZERO,
            });
        }
        let slot = match self.config.mode {
            QuotaMode::Wait => self.slots.clone().acquire_owned().await.ok(),
            QuotaMode::FailFast => Some(self.slots.clone().try_acquire_owned().map_err(|_| QuotaRefusal {
                quota: QuotaKind::Concurrency,
                retry_after: None,
            })?),
        };
        loop {
            let wait = {
                let mut state = self.state.lock().map_err(|_| month_refusal)?;
                let now = Instant::now();
                let window = self.config.window + self.config.safety_margin;
                while state.recent.front().is_some_and(|t| now.duration_since(*t) >= window) {
                    state.recent.pop_front();
                }
                if state.recent.len() < self.config.calls_per_window.max(1) as usize {
                    if state.month_used >= self.config.per_month {
                        return Err(month_refusal);
                    }
                    state.month_used += 1;
                    state.recent.push_back(now);
                    None
                } else {
                    let oldest = *state.recent.front().expect("the window is full");
                    Some(window - now.duration_since(oldest))
                }
            };
            match (wait, self.config.mode) {
                (None, _) => {
                    return Ok(QuotaPermit {
                        _slot: slot,
                        waited: started.elapsed(),
                    })
                }
                (Some(wait), QuotaMode::FailFast) => {
                    return Err(QuotaRefusal {
                        quota: QuotaKind::PerMinute,
                        retry_after: Some(wait),
                    })
                }
                (Some(wait), QuotaMode::Wait) => tokio::time::sleep(wait).await,
            }
        }
    }

    fn count_month(&self) -> Result<(), QuotaRefusal> {
        let mut state = self.state.lock().map_err(|_| QuotaRefusal {
            quota: QuotaKind::Month,
            retry_after: None,
        })?;
        if state.month_used >= self.config.per_month {
            return Err(QuotaRefusal {
                quota: QuotaKind::Month,
                retry_after: None,
            });
        }
        state.month_used += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operation::Method;

    const LIMITED: OperationMeta = OperationMeta {
        id: "cloud_by_os",
        summary: "by OS",
        method: Method::Get,
        path: "/v2/os/data",
        route_assumed: false,
        authenticated: true,
        permission: None,
        rate_limited: true,
        checks: &[],
    };
    const REALTIME: OperationMeta = OperationMeta {
        id: "basic_realtime_user_counts",
        rate_limited: false,
        authenticated: false,
        ..LIMITED
    };

    #[tokio::test(start_paused = true)]
    async fn waits_for_the_window_and_runs_one_at_a_time() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        let started = Instant::now();
        let mut starts = Vec::new();
        for _ in 0..7 {
            let permit = limiter.acquire(&LIMITED).await.unwrap();
            starts.push(started.elapsed().as_secs());
            drop(permit);
        }
        assert_eq!(starts, [0, 0, 0, 60, 60, 60, 120]);
        assert_eq!(limiter.remaining(), 50_000 - 7);

        // A held permit blocks the next call (concurrency 1).
        let held = limiter.acquire(&LIMITED).await.unwrap();
        let clone = limiter.clone();
        let waiter = tokio::spawn(async move { clone.acquire(&LIMITED).await.map(|p| p.waited) });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiter.is_finished());
        drop(held);
        assert!(waiter.await.unwrap().is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn fail_fast_says_which_quota_and_when() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            mode: QuotaMode::FailFast,
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        let held = limiter.acquire(&LIMITED).await.unwrap();
        assert_eq!(
            limiter.acquire(&LIMITED).await.err(),
            Some(QuotaRefusal {
                quota: QuotaKind::Concurrency,
                retry_after: None
            })
        );
        drop(held);
        for _ in 0..2 {
            drop(limiter.acquire(&LIMITED).await.unwrap());
        }
        tokio::time::sleep(Duration::from_secs(20)).await;
        let refusal = limiter.acquire(&LIMITED).await.err().unwrap();
        assert_eq!(
            refusal,
            QuotaRefusal {
                quota: QuotaKind::PerMinute,
                retry_after: Some(Duration::from_secs(40))
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn realtime_counts_only_against_the_month() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            per_month: 5,
            ..QuotaConfig::default()
        });
        let held = limiter.acquire(&LIMITED).await.unwrap();
        for _ in 0..4 {
            // Neither the held slot nor the per-minute window applies to it.
            assert!(limiter.acquire(&REALTIME).await.is_ok());
        }
        drop(held);
        assert_eq!(limiter.remaining(), 0);
        assert_eq!(
            limiter.acquire(&REALTIME).await.err().map(|r| r.quota),
            Some(QuotaKind::Month)
        );
        assert_eq!(
            limiter.acquire(&LIMITED).await.err().map(|r| r.quota),
            Some(QuotaKind::Month)
        );
    }
}
