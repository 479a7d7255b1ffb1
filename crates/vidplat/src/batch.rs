//! One operation over many rows of arguments: every row checked before any
//! is sent, a bounded number in flight, and a journal with which a rerun
//! skips the rows already done and never sends again a row whose call may
//! have arrived.
//!
//! It lives in the facade, beside [`Call`](crate::Call), because it needs
//! what only the facade has: every service's `builder::visit` (the entry
//! point from data, one per client crate) and [`Error`]. The command line's
//! `vidplat batch` is this runner with a CSV or NDJSON reader in front.
//! Feature `by-name`: it compiles every operation of the enabled services
//! into the facade, which a program that calls operations by their
//! builders does not need.
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt as _;
//! use vidplat::batch::{BatchRow, Outcome};
//! use vidplat_core::{Args, Service};
//!
//! let rows: Vec<BatchRow> = ["a.mp4", "b.mp4"]
//!     .iter()
//!     .zip(1..)
//!     .map(|(file, number)| BatchRow {
//!         number,
//!         args: Args::from_value(serde_json::json!({"body": {"input_filepath": file}})).unwrap(),
//!     })
//!     .collect();
//! let batch = client.batch(Service::Encoder, "register_task")?.journal("tasks.journal");
//! let refused = batch.check(&rows);
//! assert!(refused.is_empty(), "{refused:?}");
//! let mut outcomes = batch.run(futures_util::stream::iter(rows)).await?;
//! while let Some(row) = outcomes.next().await {
//!     let row = row?;
//!     if let Outcome::Done(answer) = &row.outcome {
//!         println!("row {}: {answer}", row.number);
//!     }
//! }
//! # Ok(()) }
//! ```

use crate::Error;
use futures_util::stream::{BoxStream, StreamExt as _};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use vidplat_core::{Args, OperationMeta, Refusal, Refusals, Service};

/// One row: its number in the input (reported with its outcome) and its
/// arguments, as an operation's builder reads them (`vidplat_core::Args`).
#[derive(Clone, Debug)]
pub struct BatchRow {
    /// The row's number in the input (1 for the first row of data).
    pub number: u64,
    /// The operation's arguments.
    pub args: Args,
}

/// What became of one row.
#[derive(Debug)]
pub enum Outcome {
    /// The service did it: its answer, as JSON.
    Done(Value),
    /// It was not done: the service refused it, or it never left.
    Failed(Error),
    /// The call may have reached the service and done its work, and its
    /// answer was lost (a timeout or a broken connection after sending, a
    /// gateway's 502, 503 or 504) or could not be read. Not sent again by a
    /// rerun unless asked.
    Unknown(Error),
    /// An earlier run did it (the journal says so); not sent.
    DoneBefore,
    /// An earlier run's call may have arrived (the journal says so); not sent again.
    UnknownBefore,
}

impl Outcome {
    /// The outcome's name in the command line's output and the journal.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Done(_) => "ok",
            Outcome::Failed(_) => "failed",
            Outcome::Unknown(_) => "unknown",
            Outcome::DoneBefore => "done_before",
            Outcome::UnknownBefore => "unknown_before",
        }
    }
}

/// One row's outcome.
#[derive(Debug)]
pub struct RowOutcome {
    /// The row's number.
    pub number: u64,
    /// What became of it.
    pub outcome: Outcome,
}

/// Why a batch could not run.
#[derive(Debug)]
#[non_exhaustive]
pub enum BatchError {
    /// The service has no such operation.
    UnknownOperation {
        /// The service.
        service: Service,
        /// The operation asked for.
        operation: String,
    },
    /// The journal could not be read or written.
    Journal {
        /// Its path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A row is not the row of the same number the journal recorded: the
    /// input changed since the run that wrote it.
    RowChanged {
        /// The row.
        number: u64,
    },
    /// The client has no such service configured.
    Client(Error),
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::UnknownOperation { service, operation } => write!(
                f,
                "the {service} service has no operation `{}`",
                vidplat_core::escape_controls(operation)
            ),
            BatchError::Journal { path, reason } => write!(f, "journal {}: {reason}", path.display()),
            BatchError::RowChanged { number } => write!(
                f,
                "row {number} is not the row the journal recorded: the input changed since the run that wrote it \
                 (name another journal, or remove it to start over)"
            ),
            BatchError::Client(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for BatchError {}

impl From<Error> for BatchError {
    fn from(error: Error) -> Self {
        BatchError::Client(error)
    }
}

/// The rows a batch refused before sending, each with every refusal.
pub type Refused = Vec<(u64, Refusals)>;

/// One operation, ready to run over rows ([`crate::Client::batch`]).
pub struct Batch<'c> {
    client: &'c crate::Client,
    service: Service,
    operation: &'static OperationMeta,
    /// For an update: the GET that reads what it changes.
    reads: Option<&'static OperationMeta>,
    partial: bool,
    parallel: usize,
    journal: Option<PathBuf>,
    retry_unknown: bool,
    #[cfg(feature = "encoder")]
    queue_polling: crate::waiters::Polling,
    #[cfg(feature = "encoder")]
    on_queue_full: Option<QueueFullNotice>,
}

/// Told each time a row waits for the task queue: the row's number and the active tasks counted.
#[cfg(feature = "encoder")]
pub type QueueFullNotice = Arc<dyn Fn(u64, Option<i64>) + Send + Sync>;

impl crate::Client {
    /// The operation `operation` (its `operationId`, `register_task`) of
    /// `service`, to run over rows of arguments. At most 4 rows are in
    /// flight at once (1 for analytics, whose quota allows one call at a
    /// time): the documents give the encoder and video management no rate.
    /// A client without `service` (no base URL for it) is refused here,
    /// once, as [`BatchError::Client`].
    pub fn batch(&self, service: Service, operation: &str) -> Result<Batch<'_>, BatchError> {
        // A service this client cannot call is said once, not for every row.
        self.runtime(service)?;
        let table = crate::client::table(service);
        let row = table
            .and_then(|table| table.operation(operation))
            .ok_or_else(|| BatchError::UnknownOperation {
                service,
                operation: operation.to_owned(),
            })?;
        Ok(Batch {
            client: self,
            service,
            operation: row,
            reads: row
                .reads_with
                .and_then(|read| table.and_then(|table| table.operation(read))),
            partial: false,
            parallel: if service == Service::Analytics { 1 } else { 4 },
            journal: None,
            retry_unknown: false,
            #[cfg(feature = "encoder")]
            queue_polling: crate::waiters::Polling::default(),
            #[cfg(feature = "encoder")]
            on_queue_full: None,
        })
    }
}

impl fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("service", &self.service)
            .field("operation", &self.operation.id)
            .field("reads", &self.reads.map(|read| read.id))
            .field("partial", &self.partial)
            .field("parallel", &self.parallel)
            .field("journal", &self.journal)
            .field("retry_unknown", &self.retry_unknown)
            .finish_non_exhaustive()
    }
}

impl Batch<'_> {
    /// At most `n` rows in flight at once (at least 1).
    #[must_use]
    pub fn parallel(mut self, n: usize) -> Self {
        self.parallel = n.max(1);
        self
    }

    /// Records each row's outcome in `path` (appended line by line, owner
    /// only), and skips what an earlier run with the same journal recorded:
    /// rows done, and rows whose call may have arrived.
    #[must_use]
    pub fn journal(mut self, path: impl Into<PathBuf>) -> Self {
        self.journal = Some(path.into());
        self
    }

    /// For an update (an operation with [`OperationMeta::reads_with`]):
    /// send only each row's members. By default each row's resource is read
    /// first and the update sends every member read that its body names,
    /// with the row's laid over them (as `modify_*` does), so that a member
    /// the row leaves out is sent as it was, under either reading of an
    /// update (the documents do not say whether what it leaves out is kept
    /// or reset). Two
    /// calls a row; a change made by another client between them is
    /// overwritten with what was read.
    #[must_use]
    pub fn partial(mut self, partial: bool) -> Self {
        self.partial = partial;
        self
    }

    /// Sends again the rows an earlier run left unknown (their call may have
    /// arrived: the service may then do their work twice).
    #[must_use]
    pub fn retry_unknown(mut self, retry: bool) -> Self {
        self.retry_unknown = retry;
        self
    }

    /// How a registration refused with `403 OVER_SERVICE_LIMIT` (the task
    /// queue full: the refusal proves nothing was registered) waits: the
    /// task counts are polled until fewer tasks are active than at the
    /// refusal, then the row is sent again; after `max_wait` the row fails
    /// with that refusal.
    #[cfg(feature = "encoder")]
    #[must_use]
    pub fn queue_polling(mut self, polling: crate::waiters::Polling) -> Self {
        self.queue_polling = polling;
        self
    }

    /// `notice` is told each time a row waits for the task queue.
    #[cfg(feature = "encoder")]
    #[must_use]
    pub fn on_queue_full(mut self, notice: impl Fn(u64, Option<i64>) + Send + Sync + 'static) -> Self {
        self.on_queue_full = Some(Arc::new(notice));
        self
    }

    /// The operation's row of its service's table.
    pub fn operation(&self) -> &'static OperationMeta {
        self.operation
    }

    /// Every row's refusals, found without sending anything: each row made
    /// into the operation's request as it would be sent (every bound the
    /// documents give, every member's type). Empty when every row may go.
    pub fn check(&self, rows: &[BatchRow]) -> Refused {
        rows.iter()
            .filter_map(|row| self.refusals(&row.args).map(|refusals| (row.number, refusals)))
            .collect()
    }

    /// Why `args` cannot be made into the operation's request, if they cannot.
    pub(crate) fn refusals(&self, args: &Args) -> Option<Refusals> {
        let id = self.operation.id;
        match self.client.any_call(self.service, id, args) {
            Ok(Some(Ok(call))) => match call.prepare() {
                Ok(_) => None,
                Err(Error::InvalidInput(refusals)) => Some(refusals),
                Err(error) => Some(Refusal::new(error.to_string()).into()),
            },
            Ok(Some(Err(refusals))) => Some(refusals),
            Ok(None) => Some(Refusal::new("is not an operation of this client").at(id).into()),
            Err(error) => Some(Refusal::new(error.to_string()).at(self.service.as_str()).into()),
        }
    }

    /// Runs every row of `rows`, any stream (`futures::stream::iter(vec)`
    /// for rows in hand), in any order and at most [`Batch::parallel`] at
    /// once, and yields each row's outcome as it ends. Check the rows first
    /// ([`Batch::check`]): a row refused here is a [`Outcome::Failed`].
    pub async fn run<'a>(
        &'a self,
        rows: impl futures_util::Stream<Item = BatchRow> + Send + 'a,
    ) -> Result<BoxStream<'a, Result<RowOutcome, BatchError>>, BatchError> {
        let journal = match &self.journal {
            Some(path) => Some(Arc::new(Journal::open(path, self.service, self.operation.id)?)),
            None => None,
        };
        Ok(rows
            .map(move |row| {
                let journal = journal.clone();
                async move { self.run_row(row, journal.as_deref()).await }
            })
            .buffer_unordered(self.parallel)
            .boxed())
    }

    async fn run_row(&self, row: BatchRow, journal: Option<&Journal>) -> Result<RowOutcome, BatchError> {
        let key = journal.map(|_| row_key(&row.args));
        if let (Some(journal), Some(key)) = (journal, &key) {
            match journal.earlier(row.number, key)? {
                Some(State::Done) => return Ok(self.ended(row.number, Outcome::DoneBefore)),
                // A GET or DELETE may go again: sending it twice does no work twice.
                Some(State::Sent | State::Unknown) if !self.retry_unknown && !self.operation.method.is_idempotent() => {
                    return Ok(self.ended(row.number, Outcome::UnknownBefore))
                }
                _ => {}
            }
            journal.record(row.number, key, State::Sent)?;
        }
        let outcome = self.send_row(&row).await;
        if let (Some(journal), Some(key)) = (journal, &key) {
            let state = match &outcome {
                Outcome::Done(_) => State::Done,
                Outcome::Unknown(_) => State::Unknown,
                _ => State::Failed,
            };
            journal.record(row.number, key, state)?;
        }
        Ok(self.ended(row.number, outcome))
    }

    /// The row sent (again, each time the task queue was full and drained).
    // Only the encoder's task queue sends a row again: without it the loop runs once.
    #[cfg_attr(not(feature = "encoder"), allow(clippy::never_loop))]
    async fn send_row(&self, row: &BatchRow) -> Outcome {
        let args = match self.reads {
            Some(read) if !self.partial => match self.laid_over_read(read, &row.args).await {
                Ok(args) => std::borrow::Cow::Owned(args),
                // Nothing was changed: the read failed, or what it gave is refused.
                Err(error) => return Outcome::Failed(error),
            },
            _ => std::borrow::Cow::Borrowed(&row.args),
        };
        // The wait for the queue counts every moment from the first refusal,
        // its calls included, as a waiter's does.
        #[cfg(feature = "encoder")]
        let (mut refused_at, mut interval) = (None, self.queue_polling.initial_interval);
        loop {
            let outcome = match self.client.call_json(self.service, self.operation.id, &args).await {
                Ok(answer) => Outcome::Done(answer),
                Err(error) if !self.operation.method.is_idempotent() && error.may_have_acted() => {
                    Outcome::Unknown(error)
                }
                Err(error) => Outcome::Failed(error),
            };
            #[cfg(feature = "encoder")]
            if let Outcome::Failed(Error::Api(api)) = &outcome {
                let full = api.status == 403 && api.code.as_deref() == Some("OVER_SERVICE_LIMIT");
                // Only a registration of tasks frees by itself, as tasks end (a
                // preset's or a profile's limit frees when one is deleted).
                let refused_at = *refused_at.get_or_insert_with(tokio::time::Instant::now);
                let waiting = || refused_at.elapsed() < self.queue_polling.max_wait;
                if full && self.operation.registers_tasks && waiting() {
                    let before = self.active_tasks().await;
                    if let Some(notice) = &self.on_queue_full {
                        notice(row.number, before);
                    }
                    // Until fewer tasks are active than at the refusal (or the counts cannot be read).
                    while waiting() {
                        tokio::time::sleep(self.queue_polling.jittered(interval)).await;
                        interval = self.queue_polling.grown(interval);
                        match (before, self.active_tasks().await) {
                            (Some(before), Some(now)) if now >= before => {}
                            _ => break,
                        }
                    }
                    continue;
                }
            }
            return outcome;
        }
    }

    /// The row's arguments for an update sent whole: its resource read with
    /// `read` (given the row's arguments that are `read`'s), kept to what the
    /// update's body names, with the row's body laid over it.
    async fn laid_over_read(&self, read: &'static OperationMeta, args: &Args) -> Result<Args, Error> {
        let read_args = args
            .members()
            .iter()
            .filter(|(name, _)| read.arguments.iter().any(|argument| argument.name == name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let resource = self
            .client
            .call_json(self.service, read.id, &Args::new(read_args))
            .await?;
        let kept = self
            .operation
            .body
            .map_or(Value::Null, |body| body.kept_from(&resource));
        let mut members = args.members().clone();
        let change = members.remove("body").unwrap_or_else(|| json!({}));
        members.insert("body".to_owned(), vidplat_core::laid_over(kept, &change));
        Ok(Args::new(members))
    }

    /// Tasks not yet ended (waiting, encoding, uploading, canceling), when the counts can be read.
    #[cfg(feature = "encoder")]
    async fn active_tasks(&self) -> Option<i64> {
        let counts = crate::Call::call(self.client.encoder().ok()?.get_task_counts())
            .await
            .ok()?;
        Some(
            [counts.waiting, counts.encoding, counts.uploading, counts.canceling]
                .into_iter()
                .flatten()
                .fold(0, i64::saturating_add),
        )
    }

    fn ended(&self, number: u64, outcome: Outcome) -> RowOutcome {
        RowOutcome { number, outcome }
    }
}

/// What the journal says of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// About to be sent (written before the call: a run killed during the
    /// call leaves the row here, which a rerun takes as unknown).
    Sent,
    Done,
    Failed,
    Unknown,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            State::Sent => "sent",
            State::Done => "ok",
            State::Failed => "failed",
            State::Unknown => "unknown",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [State::Sent, State::Done, State::Failed, State::Unknown]
            .into_iter()
            .find(|state| state.name() == name)
    }
}

/// The most bytes of a journal read back (two lines a row, about 75 bytes
/// each): a longer one is refused, since rows past what is read would be
/// sent again.
const MAX_JOURNAL: u64 = 256 << 20;

/// A batch's journal: one JSON line per event, appended with one write
/// each (whole lines, never interleaved), so that a run killed at any point
/// leaves every line it finished. The first line names the batch's
/// operation; each other line a row, the digest of its arguments (so that
/// a changed input is noticed) and its state.
struct Journal {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    earlier: HashMap<u64, (String, State)>,
}

impl Journal {
    fn open(path: &Path, service: Service, operation: &str) -> Result<Self, BatchError> {
        Self::open_within(path, service, operation, MAX_JOURNAL)
    }

    fn open_within(path: &Path, service: Service, operation: &str, max: u64) -> Result<Self, BatchError> {
        let failed = |reason: String| BatchError::Journal {
            path: path.to_owned(),
            reason,
        };
        let header = json!({"vidplat_batch_journal": 1, "service": service.as_str(), "operation": operation});
        // A link, a FIFO or anything but a file of its own at the journal's
        // path is refused, never followed: appending through a planted link
        // would write into whatever it names.
        let existing = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_file() => Some(meta),
            Ok(_) => {
                return Err(failed(
                    "is not a regular file (a link or a FIFO there is never followed)".to_owned(),
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(failed(e.to_string())),
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true).append(true);
        if existing.is_none() {
            // Only if nothing is there: a link planted since is not followed.
            options.create_new(true);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(|e| failed(e.to_string()))?;
        #[cfg(unix)]
        if let Some(before) = &existing {
            use std::os::unix::fs::MetadataExt as _;
            let opened = file.metadata().map_err(|e| failed(e.to_string()))?;
            if (opened.dev(), opened.ino()) != (before.dev(), before.ino()) {
                return Err(failed("changed while it was opened; not read".to_owned()));
            }
            // A journal others may write could tell a rerun to skip rows never
            // done (another user's file that this one cannot write fails to open).
            let mode = opened.mode() & 0o777;
            if mode & 0o022 != 0 {
                return Err(failed(format!(
                    "others can write it (mode {mode:04o}), so what it says of the rows is not trusted: \
                     remove it, or `chmod 600` it if it is yours"
                )));
            }
        }
        let mut earlier = HashMap::new();
        if existing.is_some() {
            let size = file.metadata().map_err(|e| failed(e.to_string()))?.len();
            if size > max {
                return Err(failed(format!(
                    "holds {size} bytes, more than the {max} read back (rows past them would be sent \
                     again): name another journal"
                )));
            }
            let mut lines = std::io::BufReader::new(std::io::Read::take(&file, max)).lines();
            let first = lines.next().transpose().map_err(|e| failed(e.to_string()))?;
            let first: Option<Value> = first.and_then(|line| serde_json::from_str(&line).ok());
            if first.as_ref() != Some(&header) {
                return Err(failed(format!(
                    "is not the journal of a batch of {service} {operation} (name another journal)"
                )));
            }
            for line in lines {
                let line = line.map_err(|e| failed(e.to_string()))?;
                // A line a killed run left unfinished says nothing.
                let Ok(record) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let (Some(row), Some(key), Some(state)) = (
                    record["row"].as_u64(),
                    record["key"].as_str(),
                    record["state"].as_str().and_then(State::from_name),
                ) else {
                    continue;
                };
                earlier.insert(row, (key.to_owned(), state));
            }
        } else {
            writeln!(file, "{header}").map_err(|e| failed(e.to_string()))?;
        }
        Ok(Self {
            path: path.to_owned(),
            file: Mutex::new(file),
            earlier,
        })
    }

    /// What an earlier run recorded of row `number`, whose arguments' digest is `key`.
    fn earlier(&self, number: u64, key: &str) -> Result<Option<State>, BatchError> {
        match self.earlier.get(&number) {
            Some((recorded, _)) if recorded != key => Err(BatchError::RowChanged { number }),
            Some((_, state)) => Ok(Some(*state)),
            None => Ok(None),
        }
    }

    fn record(&self, number: u64, key: &str, state: State) -> Result<(), BatchError> {
        // The key is hex and the state a fixed word: nothing to escape.
        let line = format!(
            "{{\"row\":{number},\"key\":\"{key}\",\"state\":\"{}\"}}\n",
            state.name()
        );
        let mut file = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // One write of the whole line: a killed run leaves whole lines only.
        file.write_all(line.as_bytes()).map_err(|e| BatchError::Journal {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }
}

/// The digest of a row's arguments: SHA-256 of their JSON, hex (no value is
/// written to the journal, only this).
fn row_key(args: &Args) -> String {
    let mut bytes = serde_json::to_vec(args.members()).unwrap_or_default();
    if let Some(raw) = args.raw_body() {
        bytes.push(0);
        bytes.extend_from_slice(raw);
    }
    hex::encode(&ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref()[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal_at(dir: &Path, lines: &str) -> PathBuf {
        let path = dir.join("rows.journal");
        std::fs::write(&path, lines).expect("a journal written");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("made private");
        }
        path
    }

    #[test]
    fn a_journal_keeps_whole_lines_and_refuses_another_batchs() {
        let dir = std::env::temp_dir().join(format!("vidplat-batch-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let header = r#"{"operation":"register_task","service":"encoder","vidplat_batch_journal":1}"#;
        // The last line was cut by a killed run: it says nothing.
        let path = journal_at(
            &dir,
            &format!("{header}\n{{\"row\":1,\"key\":\"k1\",\"state\":\"ok\"}}\n{{\"row\":2,\"key\":\"k2\",\"state\":\"sent\"}}\n{{\"row\":3,\"key\":\"k3\",\"sta"),
        );
        let journal = Journal::open(&path, Service::Encoder, "register_task").expect("the journal opens");
        assert_eq!(journal.earlier(1, "k1").expect("row 1"), Some(State::Done));
        assert_eq!(journal.earlier(2, "k2").expect("row 2"), Some(State::Sent));
        assert_eq!(journal.earlier(3, "k3").expect("row 3"), None);
        assert!(matches!(
            journal.earlier(1, "other"),
            Err(BatchError::RowChanged { number: 1 })
        ));

        let Err(other) = Journal::open(&path, Service::Encoder, "register_preset") else {
            panic!("another batch's journal opened");
        };
        assert!(
            other
                .to_string()
                .contains("is not the journal of a batch of encoder register_preset"),
            "{other}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let fresh = dir.join("fresh.journal");
            drop(Journal::open(&fresh, Service::Vms, "register_label").expect("a new journal"));
            let mode = std::fs::metadata(&fresh).expect("written").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "only its owner reads it");
        }
        #[cfg(unix)]
        {
            // A journal others may write is not read.
            use std::os::unix::fs::PermissionsExt as _;
            let shared = journal_at(
                &dir,
                &format!("{header}\n{{\"row\":1,\"key\":\"k1\",\"state\":\"ok\"}}\n"),
            );
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o666)).expect("made writable by all");
            let Err(refused) = Journal::open(&shared, Service::Encoder, "register_task") else {
                panic!("a journal others may write was read");
            };
            assert!(
                refused.to_string().contains("others can write it (mode 0666)"),
                "{refused}"
            );
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o600)).expect("made private");
            assert!(Journal::open(&shared, Service::Encoder, "register_task").is_ok());
        }
        // A journal longer than is read back is refused: its last rows would be sent again.
        let long = journal_at(
            &dir,
            &format!("{header}\n{{\"row\":1,\"key\":\"k1\",\"state\":\"ok\"}}\n"),
        );
        let Err(refused) = Journal::open_within(&long, Service::Encoder, "register_task", header.len() as u64 + 10)
        else {
            panic!("a journal longer than is read back was read");
        };
        assert!(refused.to_string().contains("name another journal"), "{refused}");
        #[cfg(unix)]
        {
            // A link planted at the journal's path is refused, and what it names is left alone.
            let target = dir.join("someone-elses-file");
            std::fs::write(&target, "theirs\n").expect("a file written");
            let planted = dir.join("planted.journal");
            std::os::unix::fs::symlink(&target, &planted).expect("a link planted");
            let Err(refused) = Journal::open(&planted, Service::Encoder, "register_task") else {
                panic!("a journal through a link opened");
            };
            assert!(refused.to_string().contains("is not a regular file"), "{refused}");
            assert_eq!(std::fs::read_to_string(&target).expect("still there"), "theirs\n");
        }
        std::fs::remove_dir_all(&dir).expect("the directory removed");
    }
}
