//! `.export(period)`: the run, chunk by chunk, under the quota.

use crate::encoder::SinkError;
use crate::plan::{self, Chunk, Plan, Refetch};
use crate::report::{AnyReport, FinalBy, Report, Split};
use crate::schema::{self, Column, Value, LINEAGE};
use crate::sink::{Partition, PartitionSink, RowSink};
use crate::state::{Committed, ExportState, StateError};
use chrono::{DateTime, Datelike as _, FixedOffset, NaiveDate, NaiveTime, SubsecRound as _, TimeZone as _};
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

/// Days a day's figures may still change after it ends, where the service
/// does not say when they are final (the cloud edition; a basic answer
/// without `golden`): an assumption, the documents do not say. With 2, on
/// the 28th the 25th is final and the 26th, 27th and 28th are provisional.
pub const DEFAULT_SETTLE_DAYS: u32 = 2;

/// The first rank window an export asks a basic report for when neither the
/// caller nor an earlier run set one: the basic edition's maximum is not
/// shown, and the cloud edition's documented largest page is 50,000 rows.
/// A window refused with 400 is halved, down to [`DOCUMENTED_WINDOW`].
pub const FIRST_WINDOW: u64 = 50_000;

/// The basic edition's documented default window (`start_with` 1 to
/// `end_with` 100): the narrowest an export halves to.
pub const DOCUMENTED_WINDOW: u64 = 100;

/// `.export(period)` on every analytics report builder the exporter knows
/// (see [`crate::REPORTS`]).
pub trait ExportReport: Report + Sized {
    /// An export of this request's rows over `period` (Japan time); the
    /// builder's own settings (filters, sort, granularity) are kept.
    fn export<'a>(self, period: Period) -> Export<'a>
    where
        Self: 'a,
    {
        AnyReport::new(self).export(period)
    }
}

impl<R: Report> ExportReport for R {}

/// An export of one report over a period; see the crate documentation.
pub struct Export<'a> {
    report: AnyReport<'a>,
    period: Period,
    chunk_days: u32,
    lookback_days: u32,
    settle_days: u32,
    time_zone: FixedOffset,
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

impl std::fmt::Debug for Export<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Export")
            .field("report", &self.report.info().name)
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
    /// Rank windows refused with 400 and halved (basic reports, when the
    /// export chose the window).
    pub windows_narrowed: usize,
    /// The rows a page asked for at the end of the run (the window an
    /// earlier run learnt, halved on refusals), where the export pages.
    pub page_rows: Option<u64>,
    /// Partitions an earlier run finished with final figures, not asked for again.
    pub skipped: usize,
    /// Partitions committed this run whose figures are not final yet: the
    /// next run asks for them again.
    pub provisional: usize,
    /// Partitions committed this run that the service said hold sampled
    /// figures (`unsampled: false`).
    pub sampled: usize,
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
    /// The report's request was refused before anything was sent (a
    /// parameter outside its documented bounds, say): the error the
    /// report's own call gives.
    NotSent(Error),
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
    /// The sink did not take the export's description (its manifest).
    Manifest(SinkError),
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
            ExportError::NotSent(error) => error.fmt(f),
            ExportError::State(error) => error.fmt(f),
            ExportError::Call { chunk, source } => write!(f, "chunk {chunk}: {source}"),
            ExportError::Row { chunk, reason } => write!(f, "chunk {chunk}: {reason}"),
            ExportError::Manifest(source) => write!(f, "writing the manifest: {source}"),
            ExportError::Sink { partition, source } => write!(f, "writing {}: {source}", partition.dir_name()),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::State(error) => Some(error),
            ExportError::Call { source, .. } | ExportError::NotSent(source) => Some(source),
            ExportError::Sink { source, .. } | ExportError::Manifest(source) => Some(source.as_ref()),
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
        finished: &[(String, String)],
    ) -> Result<(), ExportError> {
        claim.renewal.abort();
        if paused {
            return Ok(self.work.release(&claim.token).await.map_err(StateError::Shared)?);
        }
        if !self
            .work
            .finish(&claim.token, items, finished)
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
    Done(Vec<(Partition, Committed)>),
    /// The first page was refused (400) at a window the export chose.
    WindowRefused(String),
    TooSlow(String),
    /// The claim on a shared chunk was lost: nothing of it was committed.
    ClaimLost,
    /// A quota refused a page, or the month's reserve was reached between
    /// two pages: nothing of the chunk was committed.
    Paused(Pause),
}

impl<'a> Export<'a> {
    pub(crate) fn new(report: AnyReport<'a>, period: Period) -> Self {
        Self {
            report,
            period,
            chunk_days: DEFAULT_CHUNK_DAYS,
            lookback_days: 0,
            settle_days: DEFAULT_SETTLE_DAYS,
            time_zone: vidplat_core::japan_offset(),
            reserve_month: 0,
            state: None,
            #[cfg(feature = "redis")]
            shared: None,
            #[cfg(feature = "redis")]
            shared_chunk_lease: SHARED_CHUNK_LEASE,
            max_pages_per_chunk: DEFAULT_MAX_PAGES_PER_CHUNK,
            page_rows: None,
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

    /// Days a day's figures may still change after it ends, for reports
    /// whose answers do not say whether they are final (default
    /// [`DEFAULT_SETTLE_DAYS`], an assumption): such a day is committed as
    /// provisional and asked for again by the next run until this many days
    /// have passed since it ended. Chunks never span the first unsettled day
    /// and the day before it.
    pub fn settle_days(mut self, days: u32) -> Self {
        self.settle_days = days;
        self
    }

    /// The zone of the times the service returns (default Japan time: the
    /// documents give a zone only for the cloud edition's `start` and `end`,
    /// and `x-japan-time` marks the assumption). Time members are read as
    /// times of it, written with its offset (the Arrow and Parquet columns
    /// carry it), and each row is filed under its day in it: the zone the
    /// service reads the period's days in. The manifest records it.
    pub fn time_zone(mut self, zone: FixedOffset) -> Self {
        self.time_zone = zone;
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

    /// [`shared_state`](Export::shared_state) in the Redis of the client's
    /// quota store (a profile's `quota_store`), which counts the account's
    /// quota for every worker already. Refused when the client's store is
    /// not Redis, or when this crate was built without its `redis` feature.
    pub fn shared_state_in_quota_store(self) -> Result<Self, ExportError> {
        let store = self.quota().map(|quota| quota.store().clone());
        #[cfg(feature = "redis")]
        if let Some(vidplat_core::QuotaStore::Shared(shared)) = &store {
            if let Some(redis) = shared
                .as_any()
                .and_then(|any| any.downcast_ref::<vidplat_redis::RedisQuota>())
            {
                return Ok(self.shared_state(redis.clone()));
            }
        }
        let kind = store.as_ref().map_or("none", vidplat_core::QuotaStore::kind);
        Err(ExportError::Invalid(format!(
            "a shared export keeps its state in the Redis of the client's quota store (a profile's quota_store), \
             and this client's is {kind}{}",
            if cfg!(feature = "redis") {
                ""
            } else {
                " (and vidplat-export was built without its `redis` feature)"
            }
        )))
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
    /// maximum; basic: `start_with = 1, end_with = rows`, default the window
    /// an earlier run of the same export learnt, else [`FIRST_WINDOW`],
    /// halved on each 400 down to [`DOCUMENTED_WINDOW`]: the basic edition's
    /// maximum is not shown). Set here, it is never halved.
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
    pub fn columns(&self) -> Vec<Column> {
        self.report
            .info()
            .columns
            .iter()
            .chain(LINEAGE.iter())
            .copied()
            .collect()
    }

    fn quota(&self) -> Option<&QuotaLimiter> {
        self.report.source().runtime().quota()
    }

    /// The state earlier runs left, its parameters checked against this
    /// run's (a state recording others is refused).
    async fn load_state(&self, parameters: &Parameters) -> Result<ExportState, ExportError> {
        #[cfg(feature = "redis")]
        if let Some(work) = self.shared_work(parameters) {
            let records = work.records().await.map_err(StateError::Shared)?;
            // The shared job is named by the parameters: they are its own.
            return Ok(ExportState::from_records(self.report.info().name, parameters, records));
        }
        let (mut state, path) = match &self.state {
            Some(path) => (ExportState::load(path, self.report.info().name)?, path.clone()),
            None => (ExportState::new(self.report.info().name), PathBuf::new()),
        };
        state.check_parameters(&path, parameters)?;
        Ok(state)
    }

    /// The report's own parameters (filters, granularity, sort, …): every
    /// query parameter of the request but the period and the page window,
    /// which the export sets itself.
    pub fn parameters(&self) -> Result<Parameters, ExportError> {
        let source = self.report.source();
        let query = source
            .query()
            .map_err(|failure| ExportError::NotSent(Error::from(failure)))?;
        let arguments = source.meta().arguments;
        let mut parameters = serde_json::Map::new();
        for (name, value) in query {
            let is_argument = arguments
                .iter()
                .any(|a| a.name == name && a.place == vidplat_core::Place::Query);
            if is_argument && !source.info().set_by_export.contains(&&*name) {
                parameters.insert(name, serde_json::Value::String(value));
            }
        }
        Ok(parameters)
    }

    /// The rows the first page asks for, and whether a refusal may halve
    /// them: the caller's, else what an earlier run learnt, else the
    /// report's documented maximum, else (rank windows) [`FIRST_WINDOW`].
    fn first_page_rows(&self, state: &ExportState) -> (Option<u64>, bool) {
        let windowed = self.report.source().meta().paging == Some(vidplat_core::PagingStyle::RankWindows);
        match self.page_rows.or(self.report.info().default_page_rows) {
            Some(rows) => (Some(rows), false),
            None if windowed => (Some(state.window_rows().unwrap_or(FIRST_WINDOW)), true),
            None => (None, false),
        }
    }

    /// What the exporter knows of the report, its split as the report's
    /// `granularity` makes it (a granularity coarser than a day: the whole
    /// period in one partition).
    fn info(&self, parameters: &Parameters) -> crate::ReportInfo {
        let granularity = parameters.get("granularity").and_then(serde_json::Value::as_str);
        let info = self.report.info();
        crate::ReportInfo {
            split: info.split_with(granularity),
            ..*info
        }
    }

    /// The first day whose figures may still change by age, as of today in Japan.
    fn unsettled_from(&self) -> NaiveDate {
        unsettled_from(Period::today_in_japan(), self.settle_days)
    }

    fn refetch(&self) -> Refetch {
        Refetch {
            lookback_days: self.lookback_days,
            unsettled_from: self.unsettled_from(),
        }
    }

    /// The job in the shared store: one per report, period and parameters.
    #[cfg(feature = "redis")]
    fn shared_work(&self, parameters: &Parameters) -> Option<vidplat_redis::SharedWork> {
        let job = shared_job_name(self.report.info().name, self.period, parameters);
        self.shared
            .as_ref()
            .map(|store| vidplat_redis::SharedWork::new(store.clone(), &job))
    }

    /// The plan every worker follows: this one's, or the one a worker stored first.
    #[cfg(feature = "redis")]
    async fn agree_on(&self, work: &vidplat_redis::SharedWork, mine: &[Chunk]) -> Result<Shared, ExportError> {
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
        let parameters = self.parameters()?;
        let state = self.load_state(&parameters).await?;
        let info = self.info(&parameters);
        let (chunks, done) = plan::chunks(&info, self.period, self.chunk_days, self.refetch(), &state);
        let again = chunks
            .iter()
            .flat_map(|chunk| chunk.partitions(info.split))
            .filter(|partition| state.is_done(*partition))
            .count();
        let calls_at_least = chunks.len() as u64;
        let (quota_config, month_used) = match self.quota() {
            Some(quota) => (quota.config().clone(), quota.fetch_usage().await.used),
            None => (vidplat_core::QuotaConfig::default(), 0),
        };
        // Each halving of a window not yet learnt may cost a refused call.
        let narrowings = match self.first_page_rows(&state) {
            (Some(rows), true) if state.window_rows().is_none() && !chunks.is_empty() => {
                u64::from((rows / DOCUMENTED_WINDOW).max(1).ilog2())
            }
            _ => 0,
        };
        Ok(Plan {
            report: self.report.info().name,
            period: self.period,
            calls_at_most: plan::calls_at_most(&chunks, self.max_pages_per_chunk).saturating_add(narrowings),
            calls_at_least,
            chunks,
            done,
            again,
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
        let parameters = self.parameters()?;
        let info = self.info(&parameters);
        let mut state = self.load_state(&parameters).await?;
        let (chunks, skipped) = plan::chunks(&info, self.period, self.chunk_days, self.refetch(), &state);
        #[cfg(feature = "redis")]
        let shared = match self.shared_work(&parameters) {
            Some(work) => Some(self.agree_on(&work, &chunks).await?),
            None => None,
        };
        #[cfg(feature = "redis")]
        let chunks = shared.as_ref().map_or(chunks, |shared| shared.chunks.clone());
        let items = chunks.len();
        // A shared state is saved where it is shared, not in a file.
        let state_file = self.state.as_ref();
        #[cfg(feature = "redis")]
        let state_file = state_file.filter(|_| shared.is_none());
        let (mut page_rows, narrowable) = self.first_page_rows(&state);
        let mut summary = Summary {
            skipped,
            ..Summary::default()
        };
        self.progress.send_modify(|p| p.chunks_total = items);
        sink.time_zone(self.time_zone);
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
            // What the shared store records of each committed partition: its directory name and record.
            let mut finished: Vec<(String, String)> = Vec::new();
            let mut lost = false;
            while let Some(chunk) = queue.pop_front() {
                if let Some(pause) = self.reserve_reached().await {
                    summary.paused = Some(pause);
                    break;
                }
                self.progress.send_modify(|p| p.chunk = Some(chunk));
                let narrow = narrowable && page_rows.is_some_and(|rows| rows > DOCUMENTED_WINDOW);
                let fetching = Fetching {
                    info: &info,
                    chunk,
                    page_rows,
                    narrow,
                    held: &held,
                };
                match self.fetch(fetching, &mut sink, &mut summary).await? {
                    ChunkEnd::WindowRefused(reason) => {
                        let halved = page_rows.map(|rows| (rows / 2).max(DOCUMENTED_WINDOW));
                        tracing::info!(target: "vidplat::export", %chunk, ?halved, "400 on a rank window: the window is halved ({reason})");
                        page_rows = halved;
                        summary.windows_narrowed += 1;
                        queue.push_front(chunk);
                    }
                    ChunkEnd::Done(partitions) => {
                        for (partition, committed) in &partitions {
                            summary.provisional += usize::from(!committed.is_final);
                            summary.sampled += usize::from(committed.unsampled == Some(false));
                            finished.push((partition.dir_name(), committed.to_text()));
                            state.mark_done(*partition, committed.clone());
                        }
                        if narrowable {
                            state.learn_window_rows(page_rows);
                        }
                        if let Some(path) = state_file {
                            state.save(path)?;
                        }
                        summary.partitions += partitions.len() as u64;
                        summary.chunks_done += 1;
                        self.progress.send_modify(|p| p.chunks_done += 1);
                    }
                    ChunkEnd::TooSlow(reason) => match chunk.halves().filter(|_| info.split != Split::WholePeriod) {
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
                    },
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
                    ChunkEnd::Paused(pause) => {
                        summary.paused = Some(pause);
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
        summary.page_rows = page_rows;
        // A shared export's manifest lists what every worker committed: a
        // worker that cannot read it from Redis writes none, rather than
        // replace another worker's with its own part.
        #[cfg(feature = "redis")]
        if shared.is_some() {
            match self.load_state(&parameters).await {
                Ok(everyone) => state = everyone,
                Err(error) => {
                    tracing::warn!(target: "vidplat::export", %error, "no manifest written: the shared state cannot be read");
                    return Ok(summary);
                }
            }
        }
        let partitions = state
            .partitions()
            .map(|(path, committed)| crate::ManifestPartition {
                path: path.to_owned(),
                rows: committed.rows,
                is_final: committed.is_final,
                unsampled: committed.unsampled,
                fetched_at: committed.fetched_at.clone(),
            })
            .collect();
        let manifest = crate::Manifest::new(crate::manifest::Described {
            info: &info,
            period: self.period,
            parameters: state.parameters().cloned().unwrap_or_default(),
            settle_days: self.settle_days,
            time_zone: self.time_zone,
            columns: &self.columns(),
            partitions,
        });
        sink.describe(&manifest).map_err(ExportError::Manifest)?;
        Ok(summary)
    }

    /// A pause when the month's remaining calls are at the reserve (or spent).
    async fn reserve_reached(&self) -> Option<Pause> {
        let quota = self.quota()?;
        let usage = quota.fetch_usage().await;
        let remaining = usage.remaining();
        (remaining <= self.reserve_month).then(|| Pause::Reserve {
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
        fetching: Fetching<'_>,
        sink: &mut S,
        summary: &mut Summary,
    ) -> Result<ChunkEnd, ExportError> {
        let Fetching {
            info,
            chunk,
            page_rows,
            narrow,
            held,
        } = fetching;
        let fetched_at = self.fetched_at.unwrap_or_else(now_in_japan);
        let columns = self.columns();
        let partitions = chunk.partitions(info.split);
        let in_sink = |partition| move |source| ExportError::Sink { partition, source };
        let mut open: BTreeMap<Partition, S::Partition> = BTreeMap::new();
        for &partition in &partitions {
            let writer = sink.open(info.name, partition, &columns).map_err(in_sink(partition))?;
            open.insert(partition, writer);
        }
        let day_column = match info.split {
            Split::ByDay { day } => info.columns.iter().position(|c| c.name == day),
            Split::WholePeriod => None,
        };
        let lineage = [
            Value::Text(info.name),
            Value::Date(chunk.period.first()),
            Value::Date(chunk.period.last()),
            Value::Timestamp(fetched_at.with_timezone(&self.time_zone)),
        ];
        let source = self.report.source();
        let first_position = source.first_page(chunk.period, page_rows);
        let mut position = first_position;
        let call_error = |source: Error| ExportError::Call { chunk, source };
        let row_error = |reason: String| ExportError::Row { chunk, reason };
        let mut rows_of: BTreeMap<Partition, u64> = BTreeMap::new();
        // What every page said so far: `Some(true)` while all said true.
        let (mut golden, mut unsampled) = (Some(true), Some(true));
        for _ in 0..self.max_pages_per_chunk {
            if !held.load(Ordering::SeqCst) {
                return Ok(ChunkEnd::ClaimLost);
            }
            // Each page is a call of the month: the reserve holds before every
            // one (the chunk's first was checked before the chunk).
            if position != first_position {
                if let Some(pause) = self.reserve_reached().await {
                    return Ok(ChunkEnd::Paused(pause));
                }
            }
            summary.calls += 1;
            self.progress.send_modify(|p| p.calls += 1);
            let page = source.page(chunk.period, page_rows, position).map_err(|position| {
                ExportError::Invalid(format!("{}: {position:?} is not a page of this report", info.name))
            })?;
            let mut rows = match page.await.map_err(Error::from) {
                Ok(rows) => rows,
                Err(Error::Api(api)) if api.status == 400 && narrow && position == first_position => {
                    return Ok(ChunkEnd::WindowRefused(Error::Api(api).to_string()))
                }
                Err(error) => return ended(error).map_err(call_error),
            };
            let mut received = 0usize;
            while let Some(row) = std::future::poll_fn(|cx| rows.poll_next(cx)).await {
                row.map_err(|e| call_error(e.into()))?;
                received += 1;
                let mut values = Vec::with_capacity(columns.len());
                rows.values(&mut values, self.time_zone)
                    .map_err(|e| row_error(e.to_string()))?;
                values.extend(lineage.iter().cloned());
                let partition = match day_column {
                    Some(index) => match values.get(index).and_then(schema::day_of).map(Partition::Day) {
                        Some(partition) if open.contains_key(&partition) => partition,
                        _ => {
                            return Err(row_error(format!(
                                "a row's `{}` ({}) is not a day of the chunk",
                                info.columns[index].name,
                                values[index].to_text().as_deref().unwrap_or("null")
                            )))
                        }
                    },
                    None => partitions[0],
                };
                if let Some(writer) = open.get_mut(&partition) {
                    writer.write(&values).map_err(in_sink(partition))?;
                    *rows_of.entry(partition).or_default() += 1;
                }
            }
            golden = both(golden, rows.golden());
            unsampled = both(unsampled, rows.unsampled());
            summary.rows += received as u64;
            self.progress.send_modify(|p| p.rows += received as u64);
            let next = position.filter(|_| received > 0 && rows.truncated() == Some(true));
            let Some(at) = next else {
                // Renewed within a third of the lease, the claim still holds while this commits.
                if !held.load(Ordering::SeqCst) {
                    return Ok(ChunkEnd::ClaimLost);
                }
                for (partition, writer) in open {
                    writer.commit().map_err(in_sink(partition))?;
                }
                let unsettled_from = self.unsettled_from();
                let committed = partitions
                    .into_iter()
                    .map(|partition| {
                        let last_day = match partition {
                            Partition::Day(day) => day,
                            Partition::Period(period) => period.last(),
                        };
                        let is_final = match (info.final_by, golden) {
                            (FinalBy::Golden, Some(golden)) => golden,
                            _ => last_day < unsettled_from,
                        };
                        let committed = Committed {
                            fetched_at: fetched_at.to_rfc3339(),
                            rows: Some(rows_of.get(&partition).copied().unwrap_or(0)),
                            is_final,
                            unsampled,
                        };
                        (partition, committed)
                    })
                    .collect();
                return Ok(ChunkEnd::Done(committed));
            };
            let past = || row_error("the next page is past the largest position".to_owned());
            position = Some(at.after(received).ok_or_else(past)?);
        }
        Err(row_error(format!(
            "more than {} pages (`max_pages_per_chunk`): the chunk was not finished",
            self.max_pages_per_chunk
        )))
    }
}

/// A report's parameters by name, as sent (see [`Export::parameters`]).
type Parameters = serde_json::Map<String, serde_json::Value>;

/// The shared job of an export of `report` over `period` with `parameters`.
/// The parameters go in hexadecimal: a job's name keeps only letters, digits
/// and a few marks (others become `_`), and two sets of parameters must never
/// meet in one job.
#[cfg(any(feature = "redis", test))]
fn shared_job_name(report: &str, period: Period, parameters: &Parameters) -> String {
    let parameters: String = serde_json::Value::Object(parameters.clone())
        .to_string()
        .bytes()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("export:{report}:{}:{}:{parameters}", period.first(), period.last())
}

/// One chunk to read, as [`Export::fetch`] takes it.
struct Fetching<'a> {
    info: &'a crate::ReportInfo,
    chunk: Chunk,
    /// The rows a page asks for (`None`: the builder's own).
    page_rows: Option<u64>,
    /// Whether a 400 on the first page is answered by halving `page_rows`.
    narrow: bool,
    /// Turns false when the chunk's shared claim is lost.
    held: &'a AtomicBool,
}

/// What all pages say together: true while each said true, false once one
/// said false, unknown once one said nothing.
fn both(so_far: Option<bool>, page: Option<bool>) -> Option<bool> {
    match (so_far, page) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// A call's error: 408 and quota refusals end the chunk without ending the run.
fn ended(error: Error) -> Result<ChunkEnd, Error> {
    match &error {
        Error::QueryTooSlow(_) => Ok(ChunkEnd::TooSlow(error.to_string())),
        Error::RateLimited { quota, retry_after, .. } => Ok(ChunkEnd::Paused(Pause::Quota {
            quota: *quota,
            resume_at: resume_at(*quota, *retry_after, now_in_japan()),
            reason: error.to_string(),
        })),
        _ => Err(error),
    }
}

fn now_in_japan() -> DateTime<FixedOffset> {
    // Whole seconds: the state and the lineage column say no more.
    let now = DateTime::<chrono::Utc>::from(std::time::SystemTime::now()).max(DateTime::UNIX_EPOCH);
    now.trunc_subsecs(0).with_timezone(&vidplat_core::japan_offset())
}

/// The first day not yet settled, `settle_days` before `today`; a number of
/// days past the calendar's start leaves every day unsettled (it made every
/// day settled).
fn unsettled_from(today: NaiveDate, settle_days: u32) -> NaiveDate {
    today
        .checked_sub_days(chrono::Days::new(u64::from(settle_days)))
        .unwrap_or(NaiveDate::MIN)
}

/// When a quota's refusal says the export may go on: after the server's
/// hint (none when it is past what a date holds), or at the next month.
fn resume_at(quota: Quota, retry_after: Option<Duration>, now: DateTime<FixedOffset>) -> Option<DateTime<FixedOffset>> {
    match (quota, retry_after) {
        (_, Some(after)) => chrono::Duration::from_std(after)
            .ok()
            .and_then(|after| now.checked_add_signed(after)),
        (Quota::Month, None) => Some(next_month_in_japan(now)),
        _ => None,
    }
}

/// 00:00 of the first day of the month after `now`, Japan time.
fn next_month_in_japan(now: DateTime<FixedOffset>) -> DateTime<FixedOffset> {
    now.date_naive()
        .with_day(1)
        .and_then(|first| first.checked_add_months(chrono::Months::new(1)))
        .map(|next| next.and_time(NaiveTime::MIN))
        .and_then(|start| vidplat_core::japan_offset().from_local_datetime(&start).single())
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settling_time_past_the_calendar_leaves_every_day_unsettled() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
        assert_eq!(unsettled_from(today, 2), NaiveDate::from_ymd_opt(2026, 11, 28).unwrap());
        assert_eq!(unsettled_from(today, u32::MAX), NaiveDate::MIN);
    }

    /// A 429's `Retry-After` of 10¹³ s (a server may say anything) is no date
    /// to resume at; adding it to now overflowed the date and panicked.
    #[test]
    fn a_retry_after_past_any_date_leaves_the_resume_time_unsaid() {
        let now = now_in_japan();
        let far = Some(Duration::from_secs(10_000_000_000_000));
        assert_eq!(resume_at(Quota::PerMinute, far, now), None);
        let soon = resume_at(Quota::PerMinute, Some(Duration::from_secs(60)), now);
        assert_eq!(soon, Some(now + chrono::Duration::seconds(60)));
        assert_eq!(resume_at(Quota::Month, None, now), Some(next_month_in_japan(now)));
    }

    #[test]
    fn the_next_month_starts_at_midnight_in_japan() {
        let at = |text: &str| DateTime::parse_from_rfc3339(text).unwrap();
        let next = |text: &str| next_month_in_japan(at(text)).to_rfc3339();
        assert_eq!(next("2026-10-31T23:59:59+09:00"), "2026-11-01T00:00:00+09:00");
        assert_eq!(next("2026-12-01T00:00:00+09:00"), "2027-01-01T00:00:00+09:00");
        assert_eq!(next("2027-01-31T12:00:00+09:00"), "2027-02-01T00:00:00+09:00");
    }

    #[test]
    fn parameters_that_differ_name_different_shared_jobs() {
        let day = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
        let period = Period::days(day, day).unwrap();
        let with = |filters: &str| {
            let parameters = serde_json::json!({ "filters": filters });
            shared_job_name("r", period, parameters.as_object().unwrap())
        };
        let (spaced, underscored) = (with("a b"), with("a_b"));
        assert_ne!(spaced, underscored);
        for name in [spaced, underscored] {
            let parameters = name.rsplit(':').next().unwrap();
            assert!(parameters.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
        }
    }
}
