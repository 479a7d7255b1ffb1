//! Client-side limiter for the analytics usage limits: by default 3 calls a
//! minute, 1 at a time and 50,000 a month per account (both editions). The
//! basic edition's real-time operation counts only against the month.
//!
//! The limiter is shared by every clone of a client. In `Wait` mode a call
//! waits for its turn, but never past its deadline: a turn that would come
//! later is refused at once, saying when to retry. In `FailFast` mode a call
//! is refused at once. The month counter cannot be waited out and always
//! refuses once spent. Each attempt of a call takes a turn (the server counts
//! every request), and holds its concurrency slot only while it is in flight.
//!
//! A call counts in the per-minute window from its turn until one window
//! after it ends. Whether the service counts a call from its arrival or from
//! its end is not shown: a call ends after it arrives, however late it
//! arrives, so this keeps to the limit under either reading
//! ([`CountedUntil`](crate::CountedUntil) chooses the other).
//!
//! Where the counts live is the [`QuotaStore`]: in this process's memory (the
//! default), or in a [`SharedQuota`] store the account's processes share
//! (Redis for several machines: `vidplat-redis`).

use crate::quota::limits::{
    Quota, QuotaActivity, QuotaConfig, QuotaMode, QuotaRefusal, QuotaUsage, QuotaWait, WaitCause, Waiting,
};
use crate::quota::shared::{Lease, SharedQuota, Turn, WhenUnavailable};
use crate::table::OperationMeta;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Where the limiter keeps its counts.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum QuotaStore {
    /// In this process's memory: the default. Other processes of the account are not seen.
    #[default]
    Memory,
    /// In a store every process of the account shares (Redis, a file of this machine).
    Shared(Arc<dyn SharedQuota>),
}

impl QuotaStore {
    /// What it is, for people and measurements (`memory`, `redis`, `machine`).
    pub fn kind(&self) -> &'static str {
        match self {
            QuotaStore::Memory => "memory",
            QuotaStore::Shared(store) => store.kind(),
        }
    }
}

/// Held while one attempt is in flight; releases its concurrency slot when dropped.
#[derive(Debug)]
pub struct QuotaPermit {
    _slot: Slot,
    /// Measures how long the slot is held; declared after it, so it ends once the slot is given back.
    _held: HoldTimer,
    /// Time spent waiting for the permit.
    pub waited: Duration,
}

/// With the `metrics` feature, measures how long a concurrency slot is held
/// (until it is dropped); without it, nothing.
#[derive(Debug)]
struct HoldTimer(#[cfg(feature = "metrics")] Option<Instant>);

impl HoldTimer {
    fn start(holds_slot: bool) -> Self {
        #[cfg(feature = "metrics")]
        return HoldTimer(holds_slot.then(Instant::now));
        #[cfg(not(feature = "metrics"))]
        {
            let _ = holds_slot;
            HoldTimer()
        }
    }
}

#[cfg(feature = "metrics")]
impl Drop for HoldTimer {
    fn drop(&mut self) {
        if let Some(taken) = self.0 {
            crate::observe::slot_held(taken);
        }
    }
}

/// The concurrency slot a permit holds, if any.
#[derive(Debug)]
enum Slot {
    None,
    /// Held for what its drop does.
    Local(#[allow(dead_code)] LocalTurn),
    Shared(Box<dyn Lease>),
}

/// A call's slot in this process; when dropped, the call ends there (its end
/// is stamped, if the window counts until then) and then gives its slot back.
struct LocalTurn {
    /// The window's state, when the call's end is stamped in it.
    counted_until_end: Option<Arc<Mutex<State>>>,
    _slot: OwnedSemaphorePermit,
}

impl std::fmt::Debug for LocalTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalTurn")
    }
}

impl Drop for LocalTurn {
    fn drop(&mut self) {
        if let Some(state) = &self.counted_until_end {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.running = state.running.saturating_sub(1);
            // Taken under the lock, so the ends stay in order.
            state.ended.push_back(Instant::now());
        }
    }
}

impl QuotaPermit {
    /// Gives the concurrency slot back. With a shared store this waits for
    /// the store to confirm, so the slot is free when it returns (even if the
    /// process ends next); dropping the permit releases it in the background.
    pub async fn release(self) {
        match self._slot {
            Slot::Shared(lease) => lease.release().await,
            other => drop(other),
        }
    }
}

/// The limiter; clones share their counters.
#[derive(Clone)]
pub struct QuotaLimiter {
    config: QuotaConfig,
    store: QuotaStore,
    slots: Arc<Semaphore>,
    state: Arc<Mutex<State>>,
    waits: Arc<watch::Sender<Option<QuotaWait>>>,
}

#[derive(Default)]
struct State {
    /// End times of the calls that ended in the current window, oldest first
    /// (with [`CountedUntil::WindowAfterTurn`](crate::CountedUntil::WindowAfterTurn), their turns).
    ended: VecDeque<Instant>,
    /// Calls that took a turn and have not ended: each counts in the window.
    running: usize,
    /// Attempts counted in this process (with a shared store: only those that fell back to it).
    month_used: u64,
    /// The account's month count in the shared store, as of this client's latest turn.
    shared_month_used: Option<u64>,
    /// Attempts the server refused with 429 (already counted in the month: the server counts them).
    refused_by_server: u64,
}

impl std::fmt::Debug for QuotaLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotaLimiter")
            .field("config", &self.config)
            .field("store", &self.store)
            .field("usage", &self.usage())
            .finish()
    }
}

/// How often a turn looks again while calls still running fill the window.
const RUNNING_NAP: Duration = Duration::from_millis(50);

const MONTH_SPENT: QuotaRefusal = QuotaRefusal {
    quota: Quota::Month,
    retry_after: None,
};

impl QuotaLimiter {
    /// A limiter with fresh counters in this process's memory.
    pub fn new(config: QuotaConfig) -> Self {
        Self::with_store(config, QuotaStore::Memory)
    }

    /// A limiter keeping its counts in `store` (see [`QuotaStore`]).
    pub fn with_store(config: QuotaConfig, store: impl Into<QuotaStore>) -> Self {
        let slots = usize::try_from(config.concurrency.max(1))
            .unwrap_or(1)
            .min(Semaphore::MAX_PERMITS);
        Self {
            slots: Arc::new(Semaphore::new(slots)),
            state: Arc::default(),
            waits: Arc::new(watch::channel(None).0),
            config,
            store: store.into(),
        }
    }

    /// The wait of a call held back by the limiter right now, if any (the
    /// latest one, when several wait): a progress display can say "waiting
    /// for the analytics quota until …". With a shared store, the waits of
    /// this limiter's own calls (those of other processes are theirs to show).
    pub fn current_wait(&self) -> Option<QuotaWait> {
        *self.waits.borrow()
    }

    /// Every change of [`current_wait`](Self::current_wait), to await.
    pub fn watch_waits(&self) -> watch::Receiver<Option<QuotaWait>> {
        self.waits.subscribe()
    }

    /// Where the counts live.
    pub fn store(&self) -> &QuotaStore {
        &self.store
    }

    /// The limits it enforces.
    pub fn config(&self) -> &QuotaConfig {
        &self.config
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // The state stays consistent under any panic (plain counters): keep using it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Calls left this month. In memory, as this client counts them (other
    /// clients of the account are not seen). With the Redis store, the
    /// account's shared count as of this client's latest turn (plus any call
    /// that fell back to the local count); [`fetch_usage`](Self::fetch_usage)
    /// asks Redis for the current one.
    ///
    /// Every attempt counts, including those the server refuses with 429
    /// (whether the service counts refused calls is not shown; the client
    /// assumes it does, so it never overspends).
    pub fn remaining(&self) -> u64 {
        self.usage().remaining()
    }

    /// The month's count as this client knows it (see [`remaining`](Self::remaining)),
    /// with the attempts the server refused.
    pub fn usage(&self) -> QuotaUsage {
        let state = self.state();
        QuotaUsage {
            per_month: self.config.per_month,
            used: state.shared_month_used.unwrap_or(0).saturating_add(state.month_used),
            refused_by_server: state.refused_by_server,
        }
    }

    /// [`usage`](Self::usage), with a shared store's count read from it now
    /// (one round trip, within the store's command timeout; if Redis does not
    /// answer, the last count seen). In memory, the same as `usage`.
    pub async fn fetch_usage(&self) -> QuotaUsage {
        if let QuotaStore::Shared(store) = &self.store {
            match store.month_used().await {
                Ok(used) => self.saw_shared_month(used),
                Err(message) => tracing::warn!("analytics quota: {message}; showing the last count seen"),
            }
        }
        #[cfg(feature = "metrics")]
        self.show_remaining();
        self.usage()
    }

    /// What holds the quota now: calls in flight and calls in the current
    /// window. With a shared store, the account's, read from it now (one
    /// round trip, within the store's command timeout; `None` if Redis does not
    /// answer); in memory, this client's. Reading changes nothing.
    pub async fn fetch_activity(&self) -> Option<QuotaActivity> {
        let window = self.config.window.saturating_add(self.config.safety_margin);
        let concurrency = u64::from(self.config.concurrency.max(1));
        let (in_flight, in_window) = match &self.store {
            QuotaStore::Shared(store) => match store.activity(window).await {
                Ok(counts) => counts,
                Err(message) => {
                    tracing::warn!("analytics quota: {message}; what holds it now is not known");
                    return None;
                }
            },
            QuotaStore::Memory => {
                let slots = usize::try_from(concurrency).unwrap_or(1).min(Semaphore::MAX_PERMITS);
                let in_flight = slots.saturating_sub(self.slots.available_permits());
                let now = Instant::now();
                let state = self.state();
                let ended = state
                    .ended
                    .iter()
                    .filter(|t| now.saturating_duration_since(**t) < window)
                    .count();
                (in_flight as u64, (state.running + ended) as u64)
            }
        };
        Some(QuotaActivity {
            in_flight,
            concurrency,
            in_window,
            calls_per_window: u64::from(self.config.calls_per_window.max(1)),
        })
    }

    /// Starts a new month's count (the document does not say when the month turns; call this when yours does).
    pub fn reset_month(&self) {
        let mut state = self.state();
        state.month_used = 0;
        state.shared_month_used = None;
        state.refused_by_server = 0;
    }

    /// The shared store's month count, read with a turn.
    pub(crate) fn saw_shared_month(&self, used: u64) {
        self.state().shared_month_used = Some(used);
    }

    /// Counts an attempt the server refused with 429 (already counted in the month).
    pub(crate) fn count_refused_by_server(&self) {
        crate::observe::server_refused();
        let mut state = self.state();
        state.refused_by_server = state.refused_by_server.saturating_add(1);
    }

    /// Shows the wait before the attempt after a server 429, until `until`
    /// (when known), while the returned guard lives.
    pub(crate) fn show_server_wait(&self, until: Option<Instant>) -> Waiting<'_> {
        let waiting = Waiting::new(&self.waits);
        waiting.show(Quota::Unspecified, WaitCause::ServerRefused, until);
        waiting
    }

    /// Waits for (or refuses) one attempt of `operation`, never past `deadline`
    /// (`None`: no deadline).
    pub async fn acquire(
        &self,
        operation: &OperationMeta,
        deadline: Option<Instant>,
    ) -> Result<QuotaPermit, QuotaRefusal> {
        let turn = self.turn(operation, deadline).await;
        #[cfg(feature = "metrics")]
        {
            if let Err(refusal) = &turn {
                crate::observe::quota_refused(refusal.quota.error_type().trim_start_matches("quota."));
            }
            self.show_remaining();
        }
        turn
    }

    /// The month's remaining count, as a measurement.
    #[cfg(feature = "metrics")]
    fn show_remaining(&self) {
        crate::observe::quota_remaining(self.store.kind(), self.remaining());
    }

    async fn turn(&self, operation: &OperationMeta, deadline: Option<Instant>) -> Result<QuotaPermit, QuotaRefusal> {
        if let QuotaStore::Shared(store) = &self.store {
            let started = Instant::now();
            let waiting = Waiting::new(&self.waits);
            let turn = Turn {
                config: &self.config,
                rate_limited: operation.rate_limited,
                wait: self.config.mode == QuotaMode::Wait,
                deadline,
                waiting: &waiting,
                saw_month: &|used| self.saw_shared_month(used),
            };
            match store.acquire(turn).await {
                Ok(decision) => {
                    return decision.map(|lease| QuotaPermit {
                        _held: HoldTimer::start(operation.rate_limited),
                        _slot: Slot::Shared(lease),
                        waited: started.elapsed(),
                    })
                }
                Err(unavailable) => match store.when_unavailable() {
                    WhenUnavailable::Fail => {
                        tracing::warn!(
                            "analytics quota ({}): {unavailable}; the call is refused (not sent)",
                            store.kind()
                        );
                        return Err(QuotaRefusal {
                            quota: Quota::StoreUnavailable,
                            retry_after: None,
                        });
                    }
                    WhenUnavailable::LocalFallback => {
                        tracing::warn!(
                            "analytics quota ({}): {unavailable}; counting in this process only",
                            store.kind()
                        );
                    }
                },
            }
        }
        self.acquire_local(operation, deadline).await
    }

    async fn acquire_local(
        &self,
        operation: &OperationMeta,
        deadline: Option<Instant>,
    ) -> Result<QuotaPermit, QuotaRefusal> {
        let started = Instant::now();
        if !operation.rate_limited {
            self.count_month(&mut self.state())?;
            return Ok(QuotaPermit {
                _slot: Slot::None,
                _held: HoldTimer::start(false),
                waited: Duration::ZERO,
            });
        }
        if self.remaining() == 0 {
            return Err(MONTH_SPENT);
        }
        let concurrency = QuotaRefusal {
            quota: Quota::Concurrency,
            retry_after: None,
        };
        let waiting = Waiting::new(&self.waits);
        let slot = match self.config.mode {
            QuotaMode::Wait => {
                if self.slots.available_permits() == 0 {
                    waiting.show(Quota::Concurrency, WaitCause::Queued { ahead: None }, None);
                }
                let acquire = self.slots.clone().acquire_owned();
                let acquired = match deadline {
                    Some(at) => tokio::time::timeout_at(at, acquire).await.map_err(|_| concurrency)?,
                    None => acquire.await,
                };
                // The semaphore is never closed.
                acquired.map_err(|_| concurrency)?
            }
            QuotaMode::FailFast => self.slots.clone().try_acquire_owned().map_err(|_| concurrency)?,
        };
        let window = self.config.window.saturating_add(self.config.safety_margin);
        loop {
            let wait = {
                let mut state = self.state();
                let now = Instant::now();
                state.ended.retain(|t| now.saturating_duration_since(*t) < window);
                let capacity = usize::try_from(self.config.calls_per_window.max(1)).unwrap_or(usize::MAX);
                let in_window = state.running + state.ended.len();
                if in_window < capacity {
                    self.count_month(&mut state)?;
                    let counted_until_end = if self.config.counted_until.until_end() {
                        state.running += 1;
                        Some(self.state.clone())
                    } else {
                        state.ended.push_back(now);
                        None
                    };
                    return Ok(QuotaPermit {
                        _slot: Slot::Local(LocalTurn {
                            counted_until_end,
                            _slot: slot,
                        }),
                        _held: HoldTimer::start(true),
                        waited: started.elapsed(),
                    });
                }
                // A place frees when enough ended calls leave the window; if
                // calls still running fill it (more slots than calls a
                // window), when one of them ends, which no clock says.
                state
                    .ended
                    .get(in_window - capacity)
                    .map(|end| window.saturating_sub(now.saturating_duration_since(*end)))
            };
            let per_minute = QuotaRefusal {
                quota: Quota::PerMinute,
                retry_after: wait,
            };
            let now = Instant::now();
            let until = wait.and_then(|wait| now.checked_add(wait));
            let nap = wait.unwrap_or(RUNNING_NAP);
            let past_deadline = deadline.is_some_and(|at| now.checked_add(nap).is_none_or(|end| end > at));
            if self.config.mode == QuotaMode::FailFast || past_deadline {
                return Err(per_minute);
            }
            waiting.show(Quota::PerMinute, WaitCause::Limit, until);
            tokio::time::sleep(nap).await;
        }
    }

    /// Counts one call in this process's month, unless the month is spent.
    fn count_month(&self, state: &mut State) -> Result<(), QuotaRefusal> {
        if state.month_used >= self.config.per_month {
            return Err(MONTH_SPENT);
        }
        state.month_used += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Method;
    use crate::CountedUntil;

    const LIMITED: OperationMeta = OperationMeta {
        summary: "by OS",
        rate_limited: true,
        success_statuses: &[200..=200],
        reading: crate::table::Reading::WhileArriving,
        ..OperationMeta::bare("cloud_by_os", Method::Get, "/v2/os/data")
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
            let permit = limiter.acquire(&LIMITED, None).await.unwrap();
            starts.push(started.elapsed().as_secs());
            drop(permit);
        }
        assert_eq!(starts, [0, 0, 0, 60, 60, 60, 120]);
        assert_eq!(limiter.remaining(), 50_000 - 7);

        // A held permit blocks the next call (concurrency 1).
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        let clone = limiter.clone();
        let waiter = tokio::spawn(async move { clone.acquire(&LIMITED, None).await.map(|p| p.waited) });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiter.is_finished());
        drop(held);
        assert!(waiter.await.unwrap().is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_counts_until_a_window_after_its_end_or_if_told_its_turn() {
        // A 10 s call, then two quick ones: the fourth call's place frees a
        // minute after the slow call's end, or after its turn.
        for (counted_until, frees_after) in [(CountedUntil::WindowAfterEnd, 70), (CountedUntil::WindowAfterTurn, 60)] {
            let limiter = QuotaLimiter::new(QuotaConfig {
                mode: QuotaMode::FailFast,
                safety_margin: Duration::ZERO,
                counted_until,
                ..QuotaConfig::default()
            });
            let turn = Instant::now();
            let slow = limiter.acquire(&LIMITED, None).await.unwrap();
            tokio::time::advance(Duration::from_secs(10)).await;
            drop(slow);
            for _ in 0..2 {
                drop(limiter.acquire(&LIMITED, None).await.unwrap());
            }
            tokio::time::sleep_until(turn + Duration::from_secs(frees_after - 5)).await;
            assert_eq!(
                limiter.acquire(&LIMITED, None).await.err(),
                Some(QuotaRefusal {
                    quota: Quota::PerMinute,
                    retry_after: Some(Duration::from_secs(5))
                }),
                "{counted_until:?}"
            );
            tokio::time::advance(Duration::from_secs(5)).await;
            assert!(limiter.acquire(&LIMITED, None).await.is_ok(), "{counted_until:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn calls_still_running_fill_the_window_with_no_end_to_say() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            mode: QuotaMode::FailFast,
            concurrency: 4,
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        let running: Vec<_> = futures::future::join_all((0..3).map(|_| limiter.acquire(&LIMITED, None))).await;
        tokio::time::advance(Duration::from_secs(120)).await;
        assert_eq!(
            limiter.acquire(&LIMITED, None).await.err(),
            Some(QuotaRefusal {
                quota: Quota::PerMinute,
                retry_after: None
            }),
            "three calls running two windows on"
        );
        assert_eq!(limiter.fetch_activity().await.map(|a| a.in_window), Some(3));
        drop(running);
        assert!(limiter.acquire(&LIMITED, None).await.is_err(), "ended just now");
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_call_is_visible_with_its_limit_and_end() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        for _ in 0..3 {
            limiter.acquire(&LIMITED, None).await.unwrap();
        }
        assert_eq!(limiter.current_wait(), None);
        let mut waits = limiter.watch_waits();
        let started = Instant::now();
        let clone = limiter.clone();
        let fourth = tokio::spawn(async move { clone.acquire(&LIMITED, None).await.map(|p| p.waited) });
        waits.wait_for(Option::is_some).await.unwrap();
        let wait = limiter.current_wait().expect("the fourth call waits");
        assert_eq!((wait.quota, wait.cause), (Quota::PerMinute, WaitCause::Limit));
        assert_eq!(wait.until, Some(started + Duration::from_secs(60)));
        assert_eq!(wait.to_string(), "waiting 60 s for the per-minute analytics quota");
        tokio::time::advance(Duration::from_millis(19_500)).await;
        assert_eq!(
            wait.to_string(),
            "waiting 41 s for the per-minute analytics quota",
            "rounded up"
        );
        assert_eq!(fourth.await.unwrap(), Ok(Duration::from_secs(60)));
        assert_eq!(limiter.current_wait(), None, "cleared once the turn came");

        // Waiting behind a call in flight: the end is not known.
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        let clone = limiter.clone();
        let behind = tokio::spawn(async move { clone.acquire(&LIMITED, None).await.is_ok() });
        waits.wait_for(Option::is_some).await.unwrap();
        let wait = limiter.current_wait().expect("waits behind the call in flight");
        assert_eq!(
            (wait.quota, wait.cause, wait.until),
            (Quota::Concurrency, WaitCause::Queued { ahead: None }, None)
        );
        assert_eq!(wait.to_string(), "waiting for the analytics call in flight to end");
        drop(held);
        assert!(behind.await.unwrap());
    }

    #[tokio::test(start_paused = true)]
    async fn activity_shows_the_held_slot_and_the_window_and_changes_nothing() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        // The reading can move between threads (a spawned task can show it).
        fn sendable<F: Send>(future: F) -> F {
            future
        }
        let idle = sendable(limiter.fetch_activity()).await.unwrap();
        assert_eq!(
            idle.to_string(),
            "0 of 1 analytics slots held, 0 of 3 calls in the window"
        );
        assert!(!idle.slots_full());
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        let busy = limiter.fetch_activity().await.unwrap();
        assert_eq!((busy.in_flight, busy.in_window), (1, 1));
        assert!(busy.slots_full());
        assert_eq!(limiter.fetch_activity().await, Some(busy), "reading takes no turn");
        drop(held);
        drop(limiter.acquire(&LIMITED, None).await.unwrap());
        let after = limiter.fetch_activity().await.unwrap();
        assert_eq!((after.in_flight, after.in_window), (0, 2));
        tokio::time::advance(Duration::from_secs(60)).await;
        let later = limiter.fetch_activity().await.unwrap();
        assert_eq!((later.in_flight, later.in_window), (0, 0), "the window moved on");
        assert_eq!(limiter.remaining(), 50_000 - 2);
    }

    #[tokio::test(start_paused = true)]
    async fn fail_fast_says_which_quota_and_when() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            mode: QuotaMode::FailFast,
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        assert_eq!(
            limiter.acquire(&LIMITED, None).await.err(),
            Some(QuotaRefusal {
                quota: Quota::Concurrency,
                retry_after: None
            })
        );
        drop(held);
        for _ in 0..2 {
            drop(limiter.acquire(&LIMITED, None).await.unwrap());
        }
        tokio::time::sleep(Duration::from_secs(20)).await;
        let refusal = limiter.acquire(&LIMITED, None).await.err().unwrap();
        assert_eq!(
            refusal,
            QuotaRefusal {
                quota: Quota::PerMinute,
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
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        for _ in 0..4 {
            // Neither the held slot nor the per-minute window applies to it.
            assert!(limiter.acquire(&REALTIME, None).await.is_ok());
        }
        drop(held);
        assert_eq!(limiter.remaining(), 0);
        assert_eq!(
            limiter.acquire(&REALTIME, None).await.err().map(|r| r.quota),
            Some(Quota::Month)
        );
        assert_eq!(
            limiter.acquire(&LIMITED, None).await.err().map(|r| r.quota),
            Some(Quota::Month)
        );

        // The caller's month turns: the count starts again.
        limiter.reset_month();
        assert_eq!(limiter.remaining(), 5);
        assert!(limiter.acquire(&REALTIME, None).await.is_ok());
        assert_eq!(limiter.usage().used, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_past_the_deadline_is_refused_at_once_with_when_to_retry() {
        let limiter = QuotaLimiter::new(QuotaConfig {
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        });
        for _ in 0..3 {
            drop(limiter.acquire(&LIMITED, None).await.unwrap());
        }
        let started = Instant::now();
        let deadline = started + Duration::from_secs(3);
        let refusal = limiter.acquire(&LIMITED, Some(deadline)).await.unwrap_err();
        assert_eq!(
            refusal,
            QuotaRefusal {
                quota: Quota::PerMinute,
                retry_after: Some(Duration::from_secs(60))
            }
        );
        assert_eq!(started.elapsed(), Duration::ZERO);

        // A slot held by another call: the wait ends at the deadline.
        let limiter = QuotaLimiter::new(QuotaConfig::default());
        let held = limiter.acquire(&LIMITED, None).await.unwrap();
        let refusal = limiter
            .acquire(&LIMITED, Some(Instant::now() + Duration::from_secs(3)))
            .await;
        assert_eq!(refusal.unwrap_err().quota, Quota::Concurrency);
        assert_eq!(started.elapsed(), Duration::from_secs(3));
        drop(held);

        // Any config, however large, never overflows.
        let huge = QuotaLimiter::new(QuotaConfig {
            window: Duration::MAX,
            safety_margin: Duration::MAX,
            concurrency: u32::MAX,
            calls_per_window: 1,
            ..QuotaConfig::default()
        });
        drop(huge.acquire(&LIMITED, None).await.unwrap());
        let refusal = huge
            .acquire(&LIMITED, Some(Instant::now() + Duration::from_secs(1)))
            .await;
        assert_eq!(refusal.unwrap_err().quota, Quota::PerMinute);
    }
}
