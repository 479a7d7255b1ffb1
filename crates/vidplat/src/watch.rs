//! Task changes as a stream of events, out of polling: each poll lists the
//! tasks (every page) and yields one [`Event`] per task whose status is not
//! the one the [`Cursor`] holds. A status a task passed through between two
//! polls is not invented: the event says the transition seen, `before` →
//! `after`. Delivery is at least once: record each event in the cursor once
//! it is handled ([`Cursor::record`]) and save it ([`Cursor::save`]); a
//! restart with it repeats nothing handled, and a crash before saving
//! repeats the events since, which a receiver knows by their [`Event::id`].
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
//!     println!("{} task {}: {:?} -> {}", event.kind, event.task_id, event.before, event.after);
//!     cursor.record(&event);
//!     cursor.save(path)?;
//! }
//! # Ok(()) }
//! ```

use crate::Error;
use futures_util::stream::{self, Stream, TryStreamExt as _};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What a watch has seen: each task's last status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    tasks: BTreeMap<i64, String>,
}

/// The most bytes of a cursor file read (a task a line of JSON).
const MAX_CURSOR: u64 = 64 << 20;

impl Cursor {
    /// The cursor saved at `path`, or an empty one when there is none. A
    /// FIFO, a device or a directory there is refused, not read (a FIFO would
    /// hold the watch before its first poll).
    pub fn load(path: &Path) -> std::io::Result<Self> {
        use std::io::Read as _;
        let Some(file) = vidplat_core::__private::open_regular(path)? else {
            return Ok(Self::default());
        };
        let mut bytes = Vec::new();
        file.take(MAX_CURSOR).read_to_end(&mut bytes)?;
        serde_json::from_slice(&bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Writes it to `path` whole, owner only: a new file renamed over the
    /// old, so that a crash leaves the old cursor or the new one.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        vidplat_core::__private::replace_file(path, &bytes, true)
    }

    /// Takes `event` as handled: a later watch from this cursor does not yield it again.
    pub fn record(&mut self, event: &Event) {
        self.tasks.insert(event.task_id, event.after.clone());
    }
}

/// One change seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The same for the same change seen again (`task.7.ready`): a receiver
    /// that has it already has handled it.
    pub id: String,
    /// `task.ready`, `task.failed` or `task.canceled` when the task ended so,
    /// else `task.status_changed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The task.
    pub task_id: i64,
    /// The status the cursor held (`None`: the task is new to it).
    pub before: Option<String>,
    /// The status seen.
    pub after: String,
    /// The task's error code, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
}

/// Watching the account's changes ([`crate::Client::watch`]).
#[derive(Debug)]
pub struct Watch<'c> {
    client: &'c crate::Client,
    interval: Duration,
    calls: Arc<AtomicU64>,
}

impl crate::Client {
    /// The account's changes as streams of events, polled every 2 s (the
    /// documents give no rate: [`Watch::interval`] sets it).
    pub fn watch(&self) -> Watch<'_> {
        Watch {
            client: self,
            interval: Duration::from_secs(2),
            calls: Arc::default(),
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

    /// Every change of a task's status from what `cursor` holds, poll after
    /// poll (the first poll at once), without end; an error ends it.
    pub fn tasks(self, cursor: Cursor) -> impl Stream<Item = Result<Event, Error>> + 'c {
        let state = (self, cursor, VecDeque::<Event>::new(), true);
        stream::try_unfold(state, |(watch, mut seen, mut pending, mut first)| async move {
            loop {
                if let Some(event) = pending.pop_front() {
                    return Ok(Some((event, (watch, seen, pending, first))));
                }
                if !first {
                    tokio::time::sleep(watch.interval).await;
                }
                first = false;
                for event in watch.poll(&seen).await? {
                    seen.record(&event);
                    pending.push_back(event);
                }
            }
        })
    }

    /// One poll: the events of every task whose status differs from `seen`'s.
    async fn poll(&self, seen: &Cursor) -> Result<Vec<Event>, Error> {
        use crate::Paginate as _;
        let pages: Vec<_> = self
            .client
            .encoder()?
            .list_tasks()
            .pages()
            .inspect_ok(|_| {
                self.calls.fetch_add(1, Ordering::Relaxed);
            })
            .try_collect()
            .await?;
        Ok(pages
            .into_iter()
            .flat_map(|page| page.data)
            .filter_map(|task| {
                let (task_id, after) = (task.id?, task.status.as_ref()?.to_string());
                let before = seen.tasks.get(&task_id).cloned();
                if before.as_deref() == Some(after.as_str()) {
                    return None;
                }
                let kind = match after.as_str() {
                    "ready" | "failed" | "canceled" => format!("task.{after}"),
                    _ => "task.status_changed".to_owned(),
                };
                Some(Event {
                    id: format!("task.{task_id}.{after}"),
                    kind,
                    task_id,
                    before,
                    error_code: task.error_code.filter(|_| after == "failed"),
                    after,
                })
            })
            .collect())
    }
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
        cursor.record(&Event {
            id: "task.7.ready".to_owned(),
            kind: "task.ready".to_owned(),
            task_id: 7,
            before: Some("uploading".to_owned()),
            after: "ready".to_owned(),
            error_code: None,
        });
        cursor.save(&path).expect("saved");
        assert_eq!(Cursor::load(&path).expect("read back"), cursor);
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
