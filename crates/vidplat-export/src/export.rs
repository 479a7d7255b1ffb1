//! `.export(period)`: the run, chunk by chunk, under the quota.

use crate::encoder::SinkError;
use crate::plan::{self, Chunk, Plan};
use crate::report::{Report, Split};
use crate::schema::{self, Column, Value, LINEAGE};
use crate::sink::{Partition, PartitionSink, RowSink};
use crate::state::{ExportState, StateError};
use chrono::{DateTime, Datelike as _, FixedOffset, NaiveDate, TimeZone as _};
use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use vidplat::Error;
use vidplat_core::{Period, Quota, QuotaLimiter};

/// Days a chunk covers when the caller sets none: a week of a busy account's
/// viewing history stays well under the 408 threshold in the simulator's model,
/// and a 408 halves it anyway.
pub const DEFAULT_CHUNK_DAYS: u32 = 7;

/// Pages one chunk may take when the caller sets no other bound: 20 pages
/// of 50,000 rows (a million rows) before the chunk is reported instead of
/// read on, so a server that never says "last page" cannot spend the month.
pub const DEFAULT_MAX_PAGES_PER_CHUNK: u64 = 20;

/// `.export(period)` on every analytics report builder the exporter knows
/// (see [`crate::REPORTS`]).
pub trait ExportReport: Report + Sized {
    /// An export of this request's rows over `period` (Japan time); the
    /// builder's own settings (filters, sort, granularity) are kept.
    fn export(self, period: Period) -> Export<Self> {
        Export::new(self, period)
    }
}

impl<R: Report> ExportReport for R {}

/// An export of one report over a period; see the crate documentation.
pub struct Export<R: Report> {
    report: R,
    period: Period,
    chunk_days: u32,
    lookback_days: u32,
    reserve_month: u64,
    state: Option<PathBuf>,
    #[cfg(feature = "redis")]
    shared: Option<vidplat_redis::RedisQuota>,
    #[cfg(feature = "redis")]
    shared_chunk_lease: Duration,
    max_pages_per_chunk: u64,
    page_rows: Option<u64>,
    fetched_at: Option<DateTime<FixedOffset>>,
    progress: watch::Sender<Progress>,
}

impl<R: Report> std::fmt::Debug for Export<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Export")
            .field("report", &R::INFO.name)
            .field("period", &self.period)
            .field("chunk_days", &self.chunk_days)
            .field("lookback_days", &self.lookback_days)
            .field("reserve_month", &self.reserve_month)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// How far a run has come (see [`Export::progress`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Calls sent (pages asked for).
    pub calls: u64,
    /// Rows written.
    pub rows: u64,
    /// Chunks finished.
    pub chunks_done: usize,
    /// Chunks to fetch (grows when a chunk is halved).
    pub chunks_total: usize,
    /// The chunk being read.
    pub chunk: Option<Chunk>,
}

/// Why a run stopped before the end with its state saved; run it again later.
#[derive(Clone, Debug, PartialEq)]
pub enum Pause {
    /// The month's remaining calls reached the reserve the caller keeps.
    Reserve {
        /// The month's calls left.
        remaining: u64,
        /// The reserve.
        reserve: u64,
        /// When the month turns (Japan time), when the client counts it.
        resume_at: DateTime<FixedOffset>,
    },
    /// A quota refused a call: the month is spent, or the per-minute quota
    /// refused in fail-fast mode, or the server answered 429 after the
    /// client's retries.
    Quota {
        /// Which limit, when known.
        quota: Quota,
        /// When a call may succeed, when known.
        resume_at: Option<DateTime<FixedOffset>>,
        /// What the refusal said.
        reason: String,
    },
}

impl std::fmt::Display for Pause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pause::Reserve {
                remaining,
                reserve,
                resume_at,
            } => write!(
                f,
                "the month has {remaining} analytics calls left, at the reserve of {reserve}; resume after {}",
                resume_at.to_rfc3339()
            ),
            Pause::Quota { reason, resume_at, .. } => match resume_at {
                Some(at) => write!(f, "{reason}; resume after {}", at.to_rfc3339()),
                None => write!(f, "{reason}; resume later"),
            },
        }
    }
}

/// A chunk the exporter gave up on without stopping the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedChunk {
    /// The chunk.
    pub chunk: Chunk,
    /// Why.
    pub reason: String,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Calls sent (pages asked for, refused ones included).
    pub calls: u64,
    /// Rows written.
    pub rows: u64,
    /// Partitions committed (files, for [`crate::Files`]).
    pub partitions: u64,
    /// Chunks read to their end.
    pub chunks_done: usize,
    /// Chunks halved after a 408.
    pub chunks_split: usize,
    /// Partitions an earlier run finished, not asked for again.
    pub skipped: usize,
    /// Chunks another worker sharing the state ([`Export::shared_state`])
    /// held or had finished: left to it.
    pub chunks_by_others: usize,
    /// One-day (or whole-period) chunks that still got 408: reported, not retried.
    pub failed: Vec<FailedChunk>,
    /// Why the run stopped early, if it did (its state is saved).
    pub paused: Option<Pause>,
}

/// What ends a run with an error (its state is saved up to the last finished chunk).
#[derive(Debug)]
#[non_exhaustive]
pub enum ExportError {
    /// The export's settings cannot run.
    Invalid(String),
    /// The state file.
    State(StateError),
    /// The service or the client failed on a chunk.
    Call {
        /// The chunk.
        chunk: Chunk,
        /// The error.
        source: Error,
    },
    /// A row the exporter cannot file: a time member it cannot read, a day outside its chunk.
    Row {
        /// The chunk.
        chunk: Chunk,
        /// Why.
        reason: String,
    },
    /// The sink failed.
    Sink {
        /// The partition.
        partition: Partition,
        /// Why.
        source: SinkError,
    },
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Invalid(reason) => f.write_str(reason),
            ExportError::State(error) => error.fmt(f),
            ExportError::Call { chunk, source } => write!(f, "chunk {chunk}: {source}"),
            ExportError::Row { chunk, reason } => write!(f, "chunk {chunk}: {reason}"),
            ExportError::Sink { partition, source } => write!(f, "writing {}: {source}", partition.dir_name()),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::State(error) => Some(error),
            ExportError::Call { source, .. } => Some(source),
            ExportError::Sink { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl From<StateError> for ExportError {
    fn from(error: StateError) -> Self {
        ExportError::State(error)
    }
}

/// How long a worker holds a chunk of a shared export without renewing its
/// claim (renewed every third of it while the chunk runs): a worker that dies
/// delays its chunk by this much at most.
#[cfg(feature = "redis")]
pub const SHARED_CHUNK_LEASE: Duration = Duration::from_secs(120);

/// A shared export's plan and store, as one worker follows it.
#[cfg(feature = "redis")]
struct Shared {
    work: vidplat_redis::SharedWork,
    plan: vidplat_redis::AgreedPlan,
    chunks: Vec<Chunk>,
    lease: Duration,
}

/// A chunk claimed by this worker; its lease is renewed until it is dropped,
/// and `held` turns false when a renewal fails.
#[cfg(feature = "redis")]
struct Claim {
    token: vidplat_redis::WorkToken,
    renewal: tokio::task::JoinHandle<()>,
    held: Arc<AtomicBool>,
}

#[cfg(feature = "redis")]
impl Drop for Claim {
    fn drop(&mut self) {
        self.renewal.abort();
    }
}

#[cfg(feature = "redis")]
impl Shared {
    /// Item `item` of the plan, claimed; `None` when another worker holds or finished it.
    async fn claim(&self, item: usize) -> Result<Option<Claim>, ExportError> {
        let claimed = self
            .work
            .claim(&self.plan, item, self.lease)
            .await
            .map_err(StateError::Shared)?;
        let vidplat_redis::WorkClaim::Claimed(token) = claimed else {
            return Ok(None);
        };
        let (work, renewed, lease) = (self.work.clone(), token.clone(), self.lease);
        let held = Arc::new(AtomicBool::new(true));
        let lost = held.clone();
        let renewal = tokio::spawn(async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                if !matches!(work.renew(&renewed, lease).await, Ok(true)) {
                    tracing::warn!(target: "vidplat::export", "the claim on a chunk could not be renewed: the chunk stops");
                    lost.store(false, Ordering::SeqCst);
                    break;
                }
            }
        });
        Ok(Some(Claim { token, renewal, held }))
    }

    /// Records a claimed chunk's partitions and ends the claim, or gives the
    /// chunk back when the run paused before its end.
    async fn settle(
        &self,
        claim: Claim,
        items: usize,
        paused: bool,
        finished: &[(Partition, String)],
    ) -> Result<(), ExportError> {
        claim.renewal.abort();
        if paused {
            return Ok(self.work.release(&claim.token).await.map_err(StateError::Shared)?);
        }
        let records: Vec<(String, String)> = finished
            .iter()
            .map(|(partition, stamp)| (partition.dir_name(), stamp.clone()))
            .collect();
        if !self
            .work
            .finish(&claim.token, items, &records)
            .await
            .map_err(StateError::Shared)?
        {
            tracing::warn!(target: "vidplat::export", "a chunk's claim ended before the chunk did: another worker may read it again");
        }
        Ok(())
    }
}

/// How one chunk ended, short of an error that ends the run.
enum ChunkEnd {
    Done(Vec<Partition>),
    TooSlow(String),
    Quota(Quota, Option<Duration>, String),
    /// The claim on a shared chunk was lost: nothing of it was committed.
    ClaimLost,
}

impl<R: Report> Export<R> {
    fn new(report: R, period: Period) -> Self {
        Self {
            report,
            period,
            chunk_days: DEFAULT_CHUNK_DAYS,
            lookback_days: 0,
            reserve_month: 0,
            state: None,
            #[cfg(feature = "redis")]
            shared: None,
            #[cfg(feature = "redis")]
            shared_chunk_lease: SHARED_CHUNK_LEASE,
            max_pages_per_chunk: DEFAULT_MAX_PAGES_PER_CHUNK,
            page_rows: R::INFO.default_page_rows,
            fetched_at: None,
            progress: watch::Sender::new(Progress::default()),
        }
    }

    /// Days per chunk (default [`DEFAULT_CHUNK_DAYS`]; at least 1). Ignored by
    /// a report whose period is asked for whole.
    pub fn chunk_days(mut self, days: u32) -> Self {
        self.chunk_days = days.max(1);
        self
    }

    /// The last `days` days of the period are fetched again on every run,
    /// finished or not: recent figures are restated (default 0).
    pub fn lookback_days(mut self, days: u32) -> Self {
        self.lookback_days = days;
        self
    }

    /// Stops (with [`Pause::Reserve`]) before a call would leave the month
    /// fewer than `calls` analytics calls, for other uses of the account.
    pub fn reserve_month(mut self, calls: u64) -> Self {
        self.reserve_month = calls;
        self
    }

    /// Keeps what is finished in this file, so a run after a crash or a pause
    /// goes on where the last one stopped. Without one, every run fetches the
    /// whole period.
    pub fn state_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.state = Some(path.into());
        self
    }

    /// Keeps the state in `store`'s Redis (the account's quota store) instead
    /// of a file, so several workers, processes or machines, run the same
    /// export and split its chunks: the first to start stores its plan, the
    /// others take the same one; each chunk is claimed by one worker (a lease
    /// of [`SHARED_CHUNK_LEASE`], renewed while it runs) and the others pass
    /// it by ([`Summary::chunks_by_others`]). A worker that dies holds its
    /// chunk until the lease ends; the next run takes it. The workers must
    /// export the same report, period and settings, into the same output
    /// (one directory on shared storage, or sinks that meet). Replaces
    /// [`state_file`](Export::state_file).
    #[cfg(feature = "redis")]
    pub fn shared_state(mut self, store: vidplat_redis::RedisQuota) -> Self {
        self.shared = Some(store);
        self
    }

    /// How long a worker of a shared export holds a chunk without renewing
    /// its claim (default [`SHARED_CHUNK_LEASE`]; at least a second). The claim
    /// is renewed every third of it; when a renewal fails, the chunk stops
    /// and nothing of it is committed ([`Summary::failed`] says so), since
    /// another worker may take it once the lease has run out.
    #[cfg(feature = "redis")]
    pub fn shared_chunk_lease(mut self, lease: Duration) -> Self {
        self.shared_chunk_lease = lease.max(Duration::from_secs(1));
        self
    }

    /// The most pages one chunk may take (default [`DEFAULT_MAX_PAGES_PER_CHUNK`]).
    pub fn max_pages_per_chunk(mut self, pages: u64) -> Self {
        self.max_pages_per_chunk = pages.max(1);
        self
    }

    /// Rows per page (cloud: `limit`, default 50,000, the documented
    /// maximum; basic: `start_with = 1, end_with = rows`, default the
    /// builder's own window, since the basic edition's maximum is not shown).
    pub fn page_rows(mut self, rows: u64) -> Self {
        self.page_rows = Some(rows);
        self
    }

    /// The time written in the `export_fetched_at` column instead of the
    /// moment each chunk is fetched: for output that is byte-for-byte the same
    /// from one run to the next.
    pub fn fetched_at(mut self, at: DateTime<FixedOffset>) -> Self {
        self.fetched_at = Some(at);
        self
    }

    /// The run's progress as it goes (calls, rows, chunks). Quota waits are
    /// on the client's limiter (`QuotaLimiter::watch_waits`).
    pub fn progress(&self) -> watch::Receiver<Progress> {
        self.progress.subscribe()
    }

    /// The columns every partition gets: the report's, then the lineage columns.
    pub fn columns() -> Vec<Column> {
        R::INFO.columns.iter().chain(LINEAGE.iter()).copied().collect()
    }

    fn quota(&self) -> Option<&QuotaLimiter> {
        vidplat_core::ReportPeriod::runtime(&self.report).quota()
    }

    async fn load_state(&self) -> Result<ExportState, ExportError> {
        #[cfg(feature = "redis")]
        if let Some(work) = self.shared_work() {
            let records = work.records().await.map_err(StateError::Shared)?;
            return Ok(ExportState::from_records(R::INFO.name, records));
        }
        match &self.state {
            Some(path) => Ok(ExportState::load(path, R::INFO.name)?),
            None => Ok(ExportState::new(R::INFO.name)),
        }
    }

    /// The job in the shared store: one per report and period.
    #[cfg(feature = "redis")]
    fn shared_work(&self) -> Option<vidplat_redis::SharedWork> {
        let job = format!("export:{}:{}:{}", R::INFO.name, self.period.first(), self.period.last());
        self.shared
            .as_ref()
            .map(|store| vidplat_redis::SharedWork::new(store.clone(), &job))
    }

    /// The plan every worker follows: this one's, or the one a worker stored first.
    #[cfg(feature = "redis")]
    async fn agree_on(&self, work: &vidplat_redis::SharedWork, mine: Vec<Chunk>) -> Result<Shared, ExportError> {
        let text: String = mine
            .iter()
            .map(|c| format!("{} {}\n", c.period.first(), c.period.last()))
            .collect();
        let plan = work.agree_plan(&text).await.map_err(StateError::Shared)?;
        let unusable = |line: &str| {
            ExportError::Invalid(format!(
                "the shared plan in Redis has a chunk `{line}` outside {}..={} (another export of the same \
                 report and period with other settings?)",
                self.period.first(),
                self.period.last()
            ))
        };
        let chunks = plan
            .text
            .lines()
            .map(|line| {
                let (first, last) = line.split_once(' ').ok_or_else(|| unusable(line))?;
                let day = |text: &str| text.parse::<NaiveDate>().map_err(|_| unusable(line));
                let period = Period::days(day(first)?, day(last)?).map_err(|_| unusable(line))?;
                if period.first() < self.period.first() || period.last() > self.period.last() {
                    return Err(unusable(line));
                }
                Ok(Chunk { period })
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Each day at most once: a plan repeating a chunk would cost a call a repeat.
        let mut by_day: Vec<&Chunk> = chunks.iter().collect();
        by_day.sort_by_key(|chunk| chunk.period.first());
        if let Some(pair) = by_day
            .windows(2)
            .find(|pair| pair[1].period.first() <= pair[0].period.last())
        {
            return Err(ExportError::Invalid(format!(
                "the shared plan in Redis has chunks that overlap ({} and {}): a plan names each day once",
                pair[0].period.first(),
                pair[1].period.first()
            )));
        }
        Ok(Shared {
            work: work.clone(),
            plan,
            chunks,
            lease: self.shared_chunk_lease,
        })
    }

    /// What [`Export::run`] would do, without a call (the month's count is
    /// read from the quota store when it is shared).
    pub async fn plan(&self) -> Result<Plan, ExportError> {
        let state = self.load_state().await?;
        let (chunks, done) = plan::chunks(R::INFO, self.period, self.chunk_days, self.lookback_days, &state);
        let calls_at_least = chunks.len() as u64;
        let (quota_config, month_used) = match self.quota() {
            Some(quota) => (quota.config().clone(), quota.fetch_usage().await.used),
            None => (vidplat_core::QuotaConfig::default(), 0),
        };
        Ok(Plan {
            report: R::INFO.name,
            period: self.period,
            calls_at_most: plan::calls_at_most(&chunks, self.max_pages_per_chunk),
            calls_at_least,
            chunks,
            done,
            minimum_duration: plan::minimum_duration(calls_at_least, &quota_config),
            month_used,
            month_allowance: quota_config.per_month,
        })
    }

    /// Fetches every chunk still to do into `sink`, committing each chunk's
    /// partitions and then the state. A quota that refuses, or the month's
    /// reserve, pauses the run ([`Summary::paused`]); a 408 halves the chunk,
    /// down to one day.
    pub async fn run<S: RowSink>(self, mut sink: S) -> Result<Summary, ExportError> {
        let info = R::INFO;
        let mut state = self.load_state().await?;
        let (chunks, skipped) = plan::chunks(info, self.period, self.chunk_days, self.lookback_days, &state);
        #[cfg(feature = "redis")]
        let (shared, chunks) = match self.shared_work() {
            Some(work) => {
                let shared = self.agree_on(&work, chunks).await?;
                let chunks = shared.chunks.clone();
                (Some(shared), chunks)
            }
            None => (None, chunks),
        };
        let items = chunks.len();
        // A shared state is saved where it is shared, not in a file.
        let state_file = self.state.as_ref();
        #[cfg(feature = "redis")]
        let state_file = state_file.filter(|_| shared.is_none());
        let mut summary = Summary {
            skipped,
            ..Summary::default()
        };
        self.progress.send_modify(|p| p.chunks_total = items);
        for (item, chunk) in chunks.into_iter().enumerate() {
            #[cfg(feature = "redis")]
            let claim = match &shared {
                Some(shared) => match shared.claim(item).await? {
                    Some(claim) => Some(claim),
                    None => {
                        summary.chunks_by_others += 1;
                        self.progress.send_modify(|p| p.chunks_total -= 1);
                        continue;
                    }
                },
                None => None,
            };
            #[cfg(feature = "redis")]
            let held = claim
                .as_ref()
                .map_or_else(|| Arc::new(AtomicBool::new(true)), |c| c.held.clone());
            #[cfg(not(feature = "redis"))]
            let (held, _) = (Arc::new(AtomicBool::new(true)), item);
            // A 408 halves a chunk in place: its halves are read before the next chunk.
            let mut queue = VecDeque::from([chunk]);
            let mut finished: Vec<(Partition, String)> = Vec::new();
            let mut lost = false;
            while let Some(chunk) = queue.pop_front() {
                if let Some(pause) = self.reserve_reached().await {
                    summary.paused = Some(pause);
                    break;
                }
                self.progress.send_modify(|p| p.chunk = Some(chunk));
                let fetched_at = self.fetched_at.unwrap_or_else(now_in_japan);
                match self.fetch(chunk, fetched_at, &held, &mut sink, &mut summary).await? {
                    ChunkEnd::Done(partitions) => {
                        let stamp = fetched_at.to_rfc3339();
                        for partition in &partitions {
                            state.mark_done(*partition, &stamp);
                            finished.push((*partition, stamp.clone()));
                        }
                        if let Some(path) = state_file {
                            state.save(path)?;
                        }
                        summary.partitions += partitions.len() as u64;
                        summary.chunks_done += 1;
                        self.progress.send_modify(|p| p.chunks_done += 1);
                    }
                    ChunkEnd::TooSlow(reason) => {
                        match chunk.halves().filter(|_| matches!(info.split, Split::ByDay { .. })) {
                            Some((first, second)) => {
                                tracing::info!(target: "vidplat::export", %chunk, "408: the chunk is halved");
                                queue.push_front(second);
                                queue.push_front(first);
                                summary.chunks_split += 1;
                                self.progress.send_modify(|p| p.chunks_total += 1);
                            }
                            None => {
                                tracing::warn!(target: "vidplat::export", %chunk, "408 on a chunk that cannot be split");
                                summary.failed.push(FailedChunk { chunk, reason });
                            }
                        }
                    }
                    ChunkEnd::ClaimLost => {
                        summary.failed.push(FailedChunk {
                            chunk,
                            reason: "the claim on the chunk could not be renewed: it stopped uncommitted, and \
                                     another worker may take it (or the next run)"
                                .to_owned(),
                        });
                        lost = true;
                        break;
                    }
                    ChunkEnd::Quota(quota, retry_after, reason) => {
                        let resume_at = match (quota, retry_after) {
                            (_, Some(after)) => chrono::Duration::from_std(after)
                                .ok()
                                .map(|after| now_in_japan() + after),
                            (Quota::Month, None) => Some(next_month_in_japan(now_in_japan())),
                            _ => None,
                        };
                        summary.paused = Some(Pause::Quota {
                            quota,
                            resume_at,
                            reason,
                        });
                        break;
                    }
                }
            }
            // A lost claim is not settled: its end is another worker's.
            #[cfg(feature = "redis")]
            if let (Some(shared), Some(claim), false) = (&shared, claim, lost) {
                shared.settle(claim, items, summary.paused.is_some(), &finished).await?;
            }
            #[cfg(not(feature = "redis"))]
            let _ = (finished, lost);
            if summary.paused.is_some() {
                break;
            }
        }
        Ok(summary)
    }

    /// A pause when the month's remaining calls are at the reserve (or spent).
    async fn reserve_reached(&self) -> Option<Pause> {
        let quota = self.quota()?;
        let usage = quota.fetch_usage().await;
        let remaining = usage.remaining();
        (remaining == 0 || remaining <= self.reserve_month).then(|| Pause::Reserve {
            remaining,
            reserve: self.reserve_month,
            resume_at: next_month_in_japan(now_in_japan()),
        })
    }

    /// Reads one chunk, page after page, into its partitions; commits them at its end.
    /// `held` turns false when the chunk's shared claim is lost: the chunk
    /// stops before its next page, and before its commit.
    async fn fetch<S: RowSink>(
        &self,
        chunk: Chunk,
        fetched_at: DateTime<FixedOffset>,
        held: &AtomicBool,
        sink: &mut S,
        summary: &mut Summary,
    ) -> Result<ChunkEnd, ExportError> {
        let info = R::INFO;
        let columns = Self::columns();
        let partitions = chunk.partitions(info.split);
        let mut open: BTreeMap<Partition, S::Partition> = BTreeMap::new();
        for partition in &partitions {
            let writer = sink
                .open(info.name, *partition, &columns)
                .map_err(|source| ExportError::Sink {
                    partition: *partition,
                    source,
                })?;
            open.insert(*partition, writer);
        }
        let day_column = match info.split {
            Split::ByDay { day } => info.columns.iter().position(|c| c.name == day),
            Split::WholePeriod => None,
        };
        let lineage = [
            Value::Text(info.name),
            Value::Date(chunk.period.first()),
            Value::Date(chunk.period.last()),
            Value::Timestamp(fetched_at),
        ];
        let mut request = self.report.clone().with_period(chunk.period);
        if let Some(rows) = self.page_rows {
            request = request.page_rows(rows);
        }
        let mut position = request.first_page();
        let call_error = |source: Error| ExportError::Call { chunk, source };
        for _ in 0..self.max_pages_per_chunk {
            if !held.load(Ordering::SeqCst) {
                return Ok(ChunkEnd::ClaimLost);
            }
            summary.calls += 1;
            self.progress.send_modify(|p| p.calls += 1);
            let page = match position {
                Some(position) => request.clone().at_page(position).map_err(|position| {
                    ExportError::Invalid(format!("{}: {position:?} is not a page of this report", info.name))
                })?,
                None => request.clone(),
            };
            let mut rows = match vidplat_core::operation_rows(page).await.map_err(Error::from) {
                Ok(rows) => rows,
                Err(error) => return ended(error).map_err(call_error),
            };
            let mut received = 0usize;
            while let Some(row) = std::future::poll_fn(|cx| rows.poll_next(cx)).await {
                let row = row.map_err(|e| call_error(e.into()))?;
                received += 1;
                let mut values = Vec::with_capacity(columns.len());
                R::values(&row, &mut values).map_err(|e| ExportError::Row {
                    chunk,
                    reason: e.to_string(),
                })?;
                values.extend(lineage.iter().cloned());
                let partition = match day_column {
                    Some(index) => {
                        let day = values.get(index).and_then(schema::day_of);
                        match day.map(Partition::Day) {
                            Some(partition) if open.contains_key(&partition) => partition,
                            _ => {
                                return Err(ExportError::Row {
                                    chunk,
                                    reason: format!(
                                        "a row's `{}` ({}) is not a day of the chunk",
                                        info.columns[index].name,
                                        values[index].to_text().as_deref().unwrap_or("null")
                                    ),
                                })
                            }
                        }
                    }
                    None => partitions[0],
                };
                if let Some(writer) = open.get_mut(&partition) {
                    writer
                        .write(&values)
                        .map_err(|source| ExportError::Sink { partition, source })?;
                }
            }
            summary.rows += received as u64;
            self.progress.send_modify(|p| p.rows += received as u64);
            let next = position.filter(|_| received > 0 && rows.truncated() == Some(true));
            let Some(at) = next else {
                // Renewed within a third of the lease, the claim still holds while this commits.
                if !held.load(Ordering::SeqCst) {
                    return Ok(ChunkEnd::ClaimLost);
                }
                for (partition, writer) in open {
                    writer
                        .commit()
                        .map_err(|source| ExportError::Sink { partition, source })?;
                }
                return Ok(ChunkEnd::Done(partitions));
            };
            position = Some(at.after(received).ok_or_else(|| ExportError::Row {
                chunk,
                reason: "the next page is past the largest position".to_owned(),
            })?);
        }
        Err(ExportError::Row {
            chunk,
            reason: format!(
                "more than {} pages (`max_pages_per_chunk`): the chunk was not finished",
                self.max_pages_per_chunk
            ),
        })
    }
}

/// A call's error: 408 and quota refusals end the chunk without ending the run.
fn ended(error: Error) -> Result<ChunkEnd, Error> {
    match &error {
        Error::QueryTooSlow(_) => Ok(ChunkEnd::TooSlow(error.to_string())),
        Error::RateLimited { quota, retry_after, .. } => Ok(ChunkEnd::Quota(*quota, *retry_after, error.to_string())),
        _ => Err(error),
    }
}

fn now_in_japan() -> DateTime<FixedOffset> {
    // Whole seconds: the state and the lineage column say no more.
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    DateTime::from_timestamp(i64::try_from(seconds).unwrap_or(i64::MAX), 0)
        .unwrap_or_default()
        .with_timezone(&vidplat_core::japan_offset())
}

/// 00:00 of the first day of the month after `now`, Japan time.
fn next_month_in_japan(now: DateTime<FixedOffset>) -> DateTime<FixedOffset> {
    let (year, month) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    NaiveDate::from_ymd_opt(year, month, 1)
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .and_then(|start| vidplat_core::japan_offset().from_local_datetime(&start).single())
        .unwrap_or(now)
}
