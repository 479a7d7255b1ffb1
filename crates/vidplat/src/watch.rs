//! Changes of tasks, CSV import jobs and contents as events, out of polling
//! (feature `watch`).
//!
//! Each poll yields one [`Event`] per thing whose state is not the one the
//! [`Cursor`] holds. A state passed through between two polls is not
//! invented: the event says the transition seen, `before` → `after`.
//! Delivery is at least once: record each event in the cursor once it is
//! handled ([`Cursor::record`]) and save it ([`Cursor::save`]); a restart
//! with it repeats nothing handled, and a crash before saving repeats the
//! events since, which a receiver knows by their [`Event::id`].
//!
//! **The calls a poll makes.** The first poll of a watch reads every page.
//! After it, tasks cost the task counts and the first page of the list
//! sorted by `updated_at|desc` (read on only while a page holds nothing
//! older than the newest `updated_at` the last poll saw: timestamps are whole
//! seconds, so a change in that second is still read); contents the same
//! without the counts; CSV import jobs one unpaged list. Two readings here are assumptions, not documented:
//! that the lists sort by `updated_at` and that a status change moves it.
//! Both are checked: a list that refuses the sort is read whole at every
//! poll in its default order ([`Poller::by_update_time`] says which), and
//! when the task counts disagree with the statuses seen, the poll reads
//! every page (which is also how a deleted task is noticed, each one
//! confirmed by a get).
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::StreamExt as _;
//! use vidplat::watch::Cursor;
//!
//! let path = std::path::Path::new("tasks.cursor");
//! let mut cursor = Cursor::load(path)?;
//! let mut events = Box::pin(client.watch().tasks(cursor.clone()));
//! while let Some(event) = events.next().await {
//!     let event = event?;
//!     println!("{}: {:?} -> {}", event.id, event.before, event.after);
//!     cursor.record(&event);
//!     cursor.save(path)?;
//! }
//! # Ok(()) }
//! ```

use crate::Error;
use futures_util::stream::{self, Stream, TryStreamExt as _};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What a watch has seen: each thing's last state, by key (`task.7`,
/// `import.3`, `content.intro`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    seen: BTreeMap<String, String>,
}

/// The most bytes of a cursor file read.
const MAX_CURSOR: u64 = 64 << 20;

/// The most things a cursor holds: as many as each list read whole holds.
const MAX_CURSOR_THINGS: usize = 3 * (MAX_PAGES * PER_PAGE) as usize;

/// Whether `key` is a thing's (`task.7`, `import.3`, `content.intro`).
fn names_a_thing(key: &str) -> bool {
    match key.split_once('.') {
        Some(("task" | "import", id)) => id.parse::<i64>().is_ok(),
        Some(("content", _)) => true,
        _ => false,
    }
}

/// The state an event for a deleted thing carries: the cursor forgets it.
const DELETED: &str = "deleted";

impl Cursor {
    /// The cursor saved at `path`, or an empty one when there is none. A
    /// FIFO, a device or a directory there is refused, not read (a FIFO would
    /// hold the watch before its first poll), and so is a cursor no watch
    /// saves: a key that names no thing (it would never be seen deleted, and
    /// every poll would read every page), or more things than a list holds
    /// (each missing from the list is asked for, one call each).
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let Some(text) = vidplat_core::__private::read_text(path, MAX_CURSOR, vidplat_core::__private::Links::Follow)?
        else {
            return Ok(Self::default());
        };
        let invalid = |reason: String| std::io::Error::new(std::io::ErrorKind::InvalidData, reason);
        let cursor: Self = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if let Some(key) = cursor.seen.keys().find(|key| !names_a_thing(key)) {
            return Err(invalid(format!(
                "`{}` names no task, import or content",
                vidplat_core::escape_controls(key)
            )));
        }
        if cursor.seen.len() > MAX_CURSOR_THINGS {
            return Err(invalid(format!(
                "holds {} things, more than the lists a watch reads hold ({MAX_CURSOR_THINGS})",
                cursor.seen.len()
            )));
        }
        Ok(cursor)
    }

    /// Writes it to `path` whole, owner only: a new file renamed over the
    /// old, so that a crash leaves the old cursor or the new one.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        vidplat_core::__private::replace_file(path, &bytes, true)
    }

    /// Takes `event` as handled: a later watch from this cursor does not yield it again.
    pub fn record(&mut self, event: &Event) {
        let key = event.subject.key();
        match event.id.strip_prefix(&key).and_then(|rest| rest.strip_prefix('.')) {
            Some(DELETED) => {
                self.seen.remove(&key);
            }
            Some(state) => {
                self.seen.insert(key, state.to_owned());
            }
            None => {}
        }
    }

    /// The keys of one kind of thing (`task.`) this cursor holds.
    fn keys_of<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        self.seen.keys().filter(move |key| key.starts_with(prefix))
    }
}

/// What an event is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    /// A transcoding task.
    TaskId(i64),
    /// A CSV import job.
    ImportId(i64),
    /// A content of the video management service, by its name (unique, fixed).
    ContentName(String),
}

impl Subject {
    /// `task.7`, `import.3`, `content.intro`: the start of the event ids about it.
    pub fn key(&self) -> String {
        match self {
            Subject::TaskId(id) => format!("task.{id}"),
            Subject::ImportId(id) => format!("import.{id}"),
            Subject::ContentName(name) => format!("content.{name}"),
        }
    }
}

/// One change seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The same for the same change seen again (`task.7.ready`): a receiver
    /// that has it already has handled it.
    pub id: String,
    /// `task.ready`, `task.failed`, `task.canceled`, `task.status_changed`,
    /// `task.deleted`; `import.created`, `import.progressed`,
    /// `import.finished`, `import.deleted`; `content.created`,
    /// `content.status_changed`, `content.updated`, `content.deleted`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What changed (`task_id`, `import_id` or `content_name` in JSON).
    #[serde(flatten)]
    pub subject: Subject,
    /// The state the cursor held (`None`: new to it).
    pub before: Option<String>,
    /// The state seen: a task's status, an import job's `in_progress` or
    /// `finished`, a content's status; `deleted` when it is gone.
    pub after: String,
    /// The task's error code, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
    /// More of what was seen: an import job's `import_status` and
    /// `task_status`, a content's `encode_status` and `updated_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
}

/// What a watch polls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The encoder's tasks.
    Tasks,
    /// The encoder's CSV import jobs.
    Imports,
    /// Video management's contents.
    #[cfg(feature = "vms")]
    Contents,
}

impl Source {
    fn prefix(self) -> &'static str {
        match self {
            Source::Tasks => "task.",
            Source::Imports => "import.",
            #[cfg(feature = "vms")]
            Source::Contents => "content.",
        }
    }
}

/// Watching the account's changes ([`crate::Client::watch`]).
#[derive(Debug)]
pub struct Watch<'c> {
    client: &'c crate::Client,
    interval: Duration,
    calls: Arc<AtomicU64>,
    by_update_time: bool,
}

impl crate::Client {
    /// The account's changes as streams of events, polled every 2 s (the
    /// documents give no rate: [`Watch::interval`] sets it).
    pub fn watch(&self) -> Watch<'_> {
        Watch {
            client: self,
            interval: Duration::from_secs(2),
            calls: Arc::default(),
            by_update_time: true,
        }
    }
}

impl<'c> Watch<'c> {
    /// The pause between the end of one poll and the next.
    #[must_use]
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// Counts each call the watch makes into `calls` (a page of a list is one),
    /// for a reader showing what the polling costs.
    #[must_use]
    pub fn count_calls(mut self, calls: Arc<AtomicU64>) -> Self {
        self.calls = calls;
        self
    }

    /// `false`: never ask the lists to sort by `updated_at` (an assumption,
    /// see the module's docs), read every page at every poll instead.
    #[must_use]
    pub fn sort_by_update_time(mut self, yes: bool) -> Self {
        self.by_update_time = yes;
        self
    }

    /// A poller of `source` from `cursor`, for a caller that paces the polls itself.
    pub fn poller(&self, source: Source, cursor: Cursor) -> Poller<'c> {
        Poller {
            client: self.client,
            source,
            seen: cursor,
            calls: Arc::clone(&self.calls),
            by_update_time: self.by_update_time,
            watermark: None,
        }
    }

    /// Every change of a task's status from what `cursor` holds, poll after
    /// poll (the first poll at once), without end; an error ends it.
    pub fn tasks(self, cursor: Cursor) -> impl Stream<Item = Result<Event, Error>> + 'c {
        self.stream(Source::Tasks, cursor)
    }

    /// Every change of a CSV import job, as [`Watch::tasks`].
    pub fn imports(self, cursor: Cursor) -> impl Stream<Item = Result<Event, Error>> + 'c {
        self.stream(Source::Imports, cursor)
    }

    /// Every change of a content, as [`Watch::tasks`].
    #[cfg(feature = "vms")]
    pub fn contents(self, cursor: Cursor) -> impl Stream<Item = Result<Event, Error>> + 'c {
        self.stream(Source::Contents, cursor)
    }

    fn stream(self, source: Source, cursor: Cursor) -> impl Stream<Item = Result<Event, Error>> + 'c {
        let (poller, interval) = (self.poller(source, cursor), self.interval);
        // Each poll's events, one by one; the next poll only once they are taken.
        stream::try_unfold((poller, true), move |(mut poller, first)| async move {
            if !first {
                tokio::time::sleep(interval).await;
            }
            let events = poller.poll().await?;
            Ok::<_, Error>(Some((stream::iter(events.into_iter().map(Ok)), (poller, false))))
        })
        .try_flatten()
    }
}

/// One source polled on demand ([`Watch::poller`]): each [`Poller::poll`]
/// returns the changes since the last, already taken as seen by the poller
/// itself (the caller's cursor is its own to record and save).
#[derive(Debug)]
pub struct Poller<'c> {
    client: &'c crate::Client,
    source: Source,
    seen: Cursor,
    calls: Arc<AtomicU64>,
    by_update_time: bool,
    /// The latest `updated_at` seen (`yyyy-mm-dd hh:mm:ss`, which sorts as
    /// text); `None` until the first poll read every page.
    watermark: Option<String>,
}

/// Page size of every list read: the documented maximum.
const PER_PAGE: i64 = 100;
/// The most pages one read of a list takes (100,000 things at 100 a page):
/// a server that never says "last page" cannot hold a poll forever.
const MAX_PAGES: i64 = 1_000;
/// The most bytes one read of a list keeps of its things (100,000 things
/// take about 30 MB): pages of more or larger things than were asked for
/// cannot fill the memory.
const MAX_LISTED_BYTES: usize = 64 << 20;

/// A thing as one poll saw it.
#[derive(Debug)]
struct Seen {
    subject: Subject,
    /// Its state as the event id ends (`ready`, `finished`, `p3f2a…`).
    state: String,
    /// Its state as shown (`after`).
    shown: String,
    updated_at: Option<String>,
    error_code: Option<i64>,
    detail: Option<serde_json::Value>,
}

impl Seen {
    /// About what it takes in memory.
    fn footprint(&self) -> usize {
        let subject = match &self.subject {
            Subject::ContentName(name) => name.len(),
            _ => 0,
        };
        // The detail holds a content's encode status and update time again.
        std::mem::size_of::<Self>()
            + subject
            + 2 * self.state.len()
            + self.shown.len()
            + 2 * self.updated_at.as_ref().map_or(0, String::len)
    }
}

impl Poller<'_> {
    /// Whether lists are still asked to sort by `updated_at`: `false` once a
    /// list refused it (every page is then read at every poll) or when
    /// [`Watch::sort_by_update_time`] said so.
    pub fn by_update_time(&self) -> bool {
        self.by_update_time
    }

    /// One poll: the changes from what this poller has seen, in the order
    /// of their `updated_at`, then of their subjects.
    pub async fn poll(&mut self) -> Result<Vec<Event>, Error> {
        match self.source {
            Source::Tasks => self.poll_tasks().await,
            Source::Imports => {
                let listed = self.imports().await?;
                self.changes(listed, true).await
            }
            #[cfg(feature = "vms")]
            Source::Contents => {
                let listed = self.contents().await?;
                // Read whole when it was the first poll or the sort was refused.
                let whole = self.watermark.is_none() || !self.by_update_time;
                self.changes(listed, whole).await
            }
        }
    }

    async fn poll_tasks(&mut self) -> Result<Vec<Event>, Error> {
        let counts = self.count(self.client.encoder()?.get_task_counts().send().await)?;
        let whole = self.watermark.is_none() || !self.by_update_time;
        let listed = self.tasks(whole).await?;
        // A refused sort made that read whole.
        let whole = whole || !self.by_update_time;
        let mut events = self.changes(listed, whole).await?;
        if !whole && !self.tallies_with(&counts) {
            // A change the order by update time did not show (a deleted
            // task, or a status change that kept `updated_at`).
            let listed = self.tasks(true).await?;
            events.extend(self.changes(listed, true).await?);
        }
        Ok(events)
    }

    /// Counts a call that was made, answered or not.
    fn count<T>(&self, answer: Result<vidplat_core::Response<T>, vidplat_core::CallFailure>) -> Result<T, Error> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        Ok(answer?.into_inner())
    }

    /// Whether the statuses seen add up to `counts`, status by status.
    fn tallies_with(&self, counts: &vidplat_encoder::types::TaskCounts) -> bool {
        let mut tally = BTreeMap::<&str, i64>::new();
        for key in self.seen.keys_of("task.") {
            *tally.entry(self.seen.seen[key].as_str()).or_default() += 1;
        }
        let expected = [
            ("waiting", counts.waiting),
            ("encoding", counts.encoding),
            ("uploading", counts.uploading),
            ("ready", counts.ready),
            ("canceling", counts.canceling),
            ("canceled", counts.canceled),
            ("failed", counts.failed),
        ];
        expected
            .iter()
            .all(|(status, count)| tally.get(status).copied().unwrap_or(0) == count.unwrap_or(0))
    }

    /// The sort asked for, while the service takes it.
    fn sort(&self) -> Option<String> {
        self.by_update_time.then(|| "updated_at|desc".to_owned())
    }

    /// Whether `error` refuses the sort asked for (a 400 or 422 to a sorted
    /// list): the watch then lists in the default order.
    fn refuses_sort(&mut self, error: &Error) -> bool {
        let refused = self.by_update_time && matches!(error.status(), Some(400 | 422));
        if refused {
            self.by_update_time = false;
        }
        refused
    }

    /// The tasks listed: every page when `whole`, else the pages down to the
    /// first task older than the watermark.
    async fn tasks(&mut self, whole: bool) -> Result<Vec<Seen>, Error> {
        let encoder = self.client.encoder()?;
        self.pages("list_tasks", whole, |page, sort| {
            let request = encoder.list_tasks().page(page).per_page(PER_PAGE).sort(sort);
            async move {
                let answer = request.send().await?.into_inner();
                let last = answer.last_page.is_none_or(|last| page >= last);
                Ok((answer.data.into_iter().filter_map(task_seen).collect(), last))
            }
        })
        .await
    }

    /// The contents listed, as [`Poller::tasks`] (a page is the last when not `truncated`).
    #[cfg(feature = "vms")]
    async fn contents(&mut self) -> Result<Vec<Seen>, Error> {
        let whole = self.watermark.is_none() || !self.by_update_time;
        let vms = self.client.vms()?;
        self.pages("list_contents", whole, |page, sort| {
            let request = vms.list_contents().page(page).per_page(PER_PAGE).sort(sort);
            async move {
                let answer = request.send().await?.into_inner();
                let last = answer.truncated != Some(true);
                Ok((answer.data.into_iter().filter_map(content_seen).collect(), last))
            }
        })
        .await
    }

    /// The things of a paged list, page after page from the first (`read`
    /// gives a page's things and whether it is the last): every page when
    /// `whole`, else down to the first page reaching back before the
    /// watermark. A refused sort makes it read every page again, unsorted.
    async fn pages<F, Page>(&mut self, operation: &'static str, whole: bool, mut read: F) -> Result<Vec<Seen>, Error>
    where
        F: FnMut(i64, Option<String>) -> Page,
        Page: std::future::Future<Output = Result<(Vec<Seen>, bool), Error>>,
    {
        let (mut whole, mut listed, mut page, mut kept) = (whole, Vec::new(), 1, 0);
        while page <= MAX_PAGES {
            let answer = read(page, self.sort()).await;
            self.calls.fetch_add(1, Ordering::Relaxed);
            let (things, last) = match answer {
                Err(error) if self.refuses_sort(&error) => {
                    (whole, page, kept) = (true, 1, 0);
                    listed.clear();
                    continue;
                }
                answer => answer?,
            };
            kept += things.iter().map(Seen::footprint).sum::<usize>();
            if kept > MAX_LISTED_BYTES {
                return Err(Error::Paging {
                    operation,
                    pages: page.unsigned_abs(),
                    problem: crate::PagingProblem::TooLarge {
                        bound: MAX_LISTED_BYTES,
                    },
                });
            }
            let reached_older = self.watermark.as_ref().is_some_and(|watermark| {
                things
                    .iter()
                    .any(|seen| seen.updated_at.as_ref().is_some_and(|at| at < watermark))
            });
            let last = last || things.is_empty();
            listed.extend(things);
            if last || (!whole && reached_older) {
                break;
            }
            page += 1;
        }
        Ok(listed)
    }

    /// The CSV import jobs: one unpaged list.
    async fn imports(&mut self) -> Result<Vec<Seen>, Error> {
        let answer = self.count(self.client.encoder()?.list_task_imports().send().await)?;
        Ok(answer
            .data
            .into_iter()
            .filter_map(|job| {
                let id = job.id?;
                let finished = crate::waiters::import_tasks_finished(&job);
                let detail = serde_json::json!({"import_status": job.import_status, "task_status": job.task_status});
                let shown = if finished { "finished" } else { "in_progress" };
                Some(Seen {
                    subject: Subject::ImportId(id),
                    state: match finished {
                        true => shown.to_owned(),
                        false => format!("p{:016x}", fingerprint(&detail.to_string())),
                    },
                    shown: shown.to_owned(),
                    updated_at: job.updated_at.map(|t| t.to_string()),
                    error_code: None,
                    detail: Some(detail),
                })
            })
            .collect())
    }

    /// The events of `listed` against what was seen, taken as seen. When the
    /// list was read `whole`, a thing seen before and missing from it is
    /// gone (a task confirmed by a get first: a deletion during the read may
    /// have moved it past a page).
    async fn changes(&mut self, mut listed: Vec<Seen>, whole: bool) -> Result<Vec<Event>, Error> {
        if whole {
            let present: BTreeSet<String> = listed.iter().map(|seen| seen.subject.key()).collect();
            let missing: Vec<String> = self
                .seen
                .keys_of(self.source.prefix())
                .filter(|key| !present.contains(*key))
                .cloned()
                .collect();
            for key in missing {
                listed.push(self.gone(&key).await?);
            }
        }
        if let Some(newest) = listed.iter().filter_map(|seen| seen.updated_at.clone()).max() {
            if self.watermark.as_ref().is_none_or(|mark| newest > *mark) {
                self.watermark = Some(newest);
            }
        }
        if self.watermark.is_none() {
            // Read whole once: later polls may read only what changed.
            self.watermark = Some(String::new());
        }
        listed.sort_by(|a, b| (&a.updated_at, &a.subject).cmp(&(&b.updated_at, &b.subject)));
        // A thing listed twice (on two pages, as the list moved) is an event
        // once, in the state listed last: one poll's events are of distinct subjects.
        let mut last = BTreeSet::new();
        listed.reverse();
        listed.retain(|seen| last.insert(seen.subject.key()));
        listed.reverse();
        let mut events = Vec::new();
        for seen in listed {
            let key = seen.subject.key();
            let before = self.seen.seen.get(&key).cloned();
            if before.as_deref() == Some(seen.state.as_str()) || (before.is_none() && seen.state == DELETED) {
                continue;
            }
            let event = Event {
                id: format!("{key}.{}", seen.state),
                kind: self.kind(&seen, before.as_deref()),
                before: before.map(|state| shown(self.source, &state)),
                subject: seen.subject,
                after: seen.shown,
                error_code: seen.error_code,
                detail: seen.detail,
            };
            self.seen.record(&event);
            events.push(event);
        }
        Ok(events)
    }

    /// What a thing missing from a whole list is: deleted, or (a task a get
    /// still finds) as the get reads it.
    async fn gone(&mut self, key: &str) -> Result<Seen, Error> {
        let deleted = |subject| Seen {
            subject,
            state: DELETED.to_owned(),
            shown: DELETED.to_owned(),
            updated_at: None,
            error_code: None,
            detail: None,
        };
        let id = key.rsplit_once('.').map_or("", |(_, id)| id);
        match self.source {
            Source::Tasks => {
                let Ok(id) = id.parse::<i64>() else {
                    return Ok(deleted(Subject::TaskId(0)));
                };
                match self.count(self.client.encoder()?.get_task().task_id(id).send().await) {
                    Ok(task) => Ok(task_seen(task).unwrap_or_else(|| deleted(Subject::TaskId(id)))),
                    Err(error) if error.status() == Some(404) => Ok(deleted(Subject::TaskId(id))),
                    Err(error) => Err(error),
                }
            }
            Source::Imports => Ok(deleted(Subject::ImportId(id.parse().unwrap_or(0)))),
            #[cfg(feature = "vms")]
            Source::Contents => Ok(deleted(Subject::ContentName(
                key.strip_prefix("content.").unwrap_or(key).to_owned(),
            ))),
        }
    }

    fn kind(&self, seen: &Seen, before: Option<&str>) -> String {
        let after = seen.state.as_str();
        let name = match (self.source, after) {
            (_, DELETED) => DELETED,
            (Source::Tasks, "ready" | "failed" | "canceled") => after,
            (Source::Tasks, _) => "status_changed",
            (Source::Imports, "finished") => "finished",
            (Source::Imports, _) if before.is_none() => "created",
            (Source::Imports, _) => "progressed",
            #[cfg(feature = "vms")]
            (Source::Contents, _) if before.is_none() => "created",
            #[cfg(feature = "vms")]
            (Source::Contents, _) => {
                let status_of = |state: &str| state.rsplit_once('.').map(|(status, _)| status.to_owned());
                match status_of(after) == before.and_then(status_of) {
                    true => "updated",
                    false => "status_changed",
                }
            }
        };
        format!("{}{name}", self.source.prefix())
    }
}

/// A task as a poll sees it (none without an id and a status).
fn task_seen(task: vidplat_encoder::types::Task) -> Option<Seen> {
    let (id, status) = (task.id?, task.status.as_ref()?.to_string());
    Some(Seen {
        subject: Subject::TaskId(id),
        error_code: task.error_code.filter(|_| status == "failed"),
        shown: status.clone(),
        state: status,
        updated_at: task.updated_at.map(|t| t.to_string()),
        detail: None,
    })
}

/// A content as a poll sees it (none without a name): its state names its
/// status, encode status and update time, so any update is a change.
#[cfg(feature = "vms")]
fn content_seen(content: vidplat_vms::types::ContentSummary) -> Option<Seen> {
    let name = content.name?;
    let status = content.status.as_ref().map_or_else(String::new, ToString::to_string);
    let encode_status = content.encode_status.as_ref().map(ToString::to_string);
    let updated_at = content.updated_at.map(|t| t.to_string());
    let stamp: String = updated_at
        .iter()
        .flat_map(|t| t.chars())
        .filter(char::is_ascii_digit)
        .collect();
    Some(Seen {
        subject: Subject::ContentName(name),
        state: format!("{status}.{}.{stamp}", encode_status.as_deref().unwrap_or_default()),
        shown: status,
        detail: Some(serde_json::json!({"encode_status": encode_status, "updated_at": updated_at})),
        updated_at,
        error_code: None,
    })
}

/// A state as an event shows it (`before`): a task's status as it is, an
/// import job's progress as `in_progress`, a content's status alone.
fn shown(source: Source, state: &str) -> String {
    match source {
        Source::Tasks => state.to_owned(),
        Source::Imports if state == "finished" => state.to_owned(),
        Source::Imports => "in_progress".to_owned(),
        #[cfg(feature = "vms")]
        Source::Contents => state.split('.').next().unwrap_or_default().to_owned(),
    }
}

/// FNV-1a: a short, stable name for an import job's progress (not a secret).
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_cursor_at_a_fifo_is_refused_at_once_and_one_saved_reads_back() {
        let dir = std::env::temp_dir().join(format!("vidplat-watch-cursor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let fifo = dir.join("fifo.cursor");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        // Opening a FIFO to read waits for a writer: bounded here, so a hang fails.
        let (done, finished) = std::sync::mpsc::channel();
        let at = fifo.clone();
        std::thread::spawn(move || {
            let _ = done.send(Cursor::load(&at).map(|_| ()).map_err(|e| e.to_string()));
        });
        let loaded = finished
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("load returned at once");
        assert!(loaded.is_err_and(|e| e.contains("is not a regular file")));

        let path = dir.join("tasks.cursor");
        let mut cursor = Cursor::default();
        cursor.record(&event("task.7.ready", Subject::TaskId(7)));
        cursor.record(&event(
            "content.intro.PUBLIC.COMPLETED.20261128120000",
            Subject::ContentName("intro".into()),
        ));
        cursor.save(&path).expect("saved");
        assert_eq!(Cursor::load(&path).expect("read back"), cursor);
        assert_eq!(cursor.seen["task.7"], "ready");
        assert_eq!(cursor.seen["content.intro"], "PUBLIC.COMPLETED.20261128120000");
        cursor.record(&event("task.7.deleted", Subject::TaskId(7)));
        assert!(!cursor.seen.contains_key("task.7"), "a deleted task is forgotten");
        std::fs::remove_dir_all(&dir).expect("removed");
    }

    fn event(id: &str, subject: Subject) -> Event {
        Event {
            id: id.to_owned(),
            kind: String::new(),
            subject,
            before: None,
            after: String::new(),
            error_code: None,
            detail: None,
        }
    }

    /// A cursor no watch saves is refused: a key naming no thing would
    /// never be seen deleted (every poll would read every page), and more
    /// things than the lists hold would each be asked for, one call each.
    #[test]
    fn a_cursor_no_watch_saves_is_refused() {
        let dir = std::env::temp_dir().join(format!("vidplat-watch-planted-{}", fastrand::u64(..)));
        std::fs::create_dir_all(&dir).expect("a directory");
        let path = dir.join("tasks.cursor");
        std::fs::write(&path, r#"{"seen":{"task.7":"ready","task.x\u001b[2J":"ready"}}"#).expect("written");
        let refused = Cursor::load(&path).expect_err("refused").to_string();
        assert_eq!(refused, "`task.x\\u{1b}[2J` names no task, import or content");
        let many: BTreeMap<String, String> = (0..=MAX_CURSOR_THINGS)
            .map(|id| (format!("task.{id}"), "ready".to_owned()))
            .collect();
        std::fs::write(&path, serde_json::to_vec(&Cursor { seen: many }).expect("json")).expect("written");
        let refused = Cursor::load(&path).expect_err("refused").to_string();
        assert!(refused.starts_with("holds 300001 things"), "{refused}");
        std::fs::remove_dir_all(&dir).expect("removed");
    }

    fn seen(id: i64, state: &str, updated_at: &str) -> Seen {
        Seen {
            subject: Subject::TaskId(id),
            state: state.to_owned(),
            shown: state.to_owned(),
            updated_at: Some(updated_at.to_owned()),
            error_code: None,
            detail: None,
        }
    }

    fn nowhere() -> crate::Client {
        crate::Client::builder()
            .encoder_url("http://127.0.0.1:9")
            .api_key("key")
            .build()
            .expect("a client")
    }

    /// A thing listed twice in one poll (on two pages, as the list moved
    /// under the reader) is one event, in its newer state.
    #[tokio::test]
    async fn one_poll_has_one_event_a_subject() {
        let client = nowhere();
        let mut poller = client.watch().poller(Source::Tasks, Cursor::default());
        let listed = vec![
            seen(7, "ready", "2026-11-30 10:00:01"),
            seen(7, "encoding", "2026-11-30 10:00:00"),
            seen(8, "waiting", "2026-11-30 10:00:00"),
        ];
        let events = poller.changes(listed, false).await.expect("no call made");
        let ids: Vec<&str> = events.iter().map(|event| event.id.as_str()).collect();
        assert_eq!(ids, ["task.8.waiting", "task.7.ready"]);
    }

    /// Pages of more or larger things than were asked for stop the read
    /// once it keeps more than its bound, whatever the server answers.
    #[tokio::test]
    async fn a_read_of_a_list_keeps_no_more_than_its_bound() {
        let client = nowhere();
        let mut poller = client.watch().poller(Source::Tasks, Cursor::default());
        let status = "x".repeat(32 << 10);
        let read = poller
            .pages("list_tasks", true, |page, _| {
                let things = (0..100)
                    .map(|i| seen(page * 100 + i, &status, "2026-11-30 10:00:00"))
                    .collect();
                // Twenty pages of these, if nothing stops the read first.
                std::future::ready(Ok((things, page == 20)))
            })
            .await;
        let error = read.expect_err("stopped");
        assert!(
            matches!(
                error,
                Error::Paging {
                    operation: "list_tasks",
                    pages: 7,
                    problem: crate::PagingProblem::TooLarge { .. }
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn an_event_names_its_subject_by_a_member_of_its_own() {
        let json = serde_json::to_value(event("content.intro.x", Subject::ContentName("intro".into()))).expect("json");
        assert_eq!(json["content_name"], "intro");
        let back: Event = serde_json::from_value(serde_json::json!({
            "id": "task.7.ready", "type": "task.ready", "task_id": 7, "before": "uploading", "after": "ready"
        }))
        .expect("read back");
        assert_eq!(back.subject, Subject::TaskId(7));
    }
}
