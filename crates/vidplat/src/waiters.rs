//! Waiting for work the encoding service does in the background.
//!
//! A task moves waiting → encoding → uploading → ready (or failed, or
//! canceling → canceled). The waiters poll with a growing interval, keep
//! polling on statuses they do not know (the documents allow new ones), and
//! give up after a maximum wait.

use crate::{Client, Error};
use futures::stream::{self, BoxStream, StreamExt};
use std::num::NonZeroU64;
use std::time::Duration;
use vidplat_encoder::types::{Task, TaskImport, TaskStatus};

/// How to poll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitOptions {
    /// The first pause between polls.
    pub initial_interval: Duration,
    /// The pause grows by half each poll, up to this.
    pub max_interval: Duration,
    /// Give up after this long.
    pub max_wait: Duration,
}

impl Default for WaitOptions {
    fn default() -> Self {
        Self {
            initial_interval: Duration::from_secs(2),
            max_interval: Duration::from_secs(30),
            max_wait: Duration::from_secs(3600),
        }
    }
}

impl WaitOptions {
    fn next(&self, interval: Duration) -> Duration {
        (interval + interval / 2).min(self.max_interval)
    }
}

/// Whether a status is final, and how it ended.
fn ending(status: &TaskStatus) -> Option<Result<(), ()>> {
    match status {
        TaskStatus::Ready => Some(Ok(())),
        TaskStatus::Failed | TaskStatus::Canceled => Some(Err(())),
        _ => None,
    }
}

fn ended(task_id: u64, task: &Task, status: &TaskStatus) -> Error {
    Error::TaskEnded {
        task_id,
        status: status.to_string(),
        error_code: task.error_code,
    }
}

impl Client {
    /// Waits until a task is `ready` and returns it; `failed` and `canceled`
    /// end in [`Error::TaskEnded`] carrying the task's `error_code`.
    pub async fn wait_for_task(&self, task_id: NonZeroU64, options: WaitOptions) -> Result<Task, Error> {
        let mut changes = self.task_status_changes(task_id, options);
        let mut last = None;
        while let Some(change) = changes.next().await {
            last = Some(change?);
        }
        let task = last.ok_or_else(|| Error::WaitTimedOut {
            waited: Duration::ZERO,
            last_status: None,
        })?;
        match task.status.as_ref().and_then(ending) {
            Some(Ok(())) => Ok(task),
            _ => Err(ended(
                task_id.get(),
                &task,
                task.status.as_ref().unwrap_or(&TaskStatus::Other(String::new())),
            )),
        }
    }

    /// The task each time its status changes (the first poll included), ending
    /// after `ready`, `failed` or `canceled`, or with [`Error::WaitTimedOut`].
    pub fn task_status_changes(&self, task_id: NonZeroU64, options: WaitOptions) -> BoxStream<'_, Result<Task, Error>> {
        struct State {
            started: tokio::time::Instant,
            interval: Duration,
            last: Option<TaskStatus>,
            done: bool,
        }
        let state = State {
            started: tokio::time::Instant::now(),
            interval: options.initial_interval,
            last: None,
            done: false,
        };
        stream::unfold(state, move |mut state| async move {
            if state.done {
                return None;
            }
            loop {
                let polled = match self.encoder() {
                    Ok(encoder) => encoder.get_task().task_id(task_id).send().await.map_err(Error::from),
                    Err(e) => Err(e),
                };
                let task = match polled {
                    Ok(task) => task.into_inner(),
                    Err(error) => {
                        state.done = true;
                        return Some((Err(error), state));
                    }
                };
                let status = task.status.clone();
                let changed = status != state.last;
                state.last = status.clone();
                if status.as_ref().and_then(ending).is_some() {
                    state.done = true;
                    return Some((Ok(task), state));
                }
                let waited = state.started.elapsed();
                if waited + state.interval > options.max_wait {
                    state.done = true;
                    let last_status = status.map(|s| s.to_string());
                    return Some((Err(Error::WaitTimedOut { waited, last_status }), state));
                }
                tokio::time::sleep(state.interval).await;
                state.interval = options.next(state.interval);
                if changed {
                    return Some((Ok(task), state));
                }
            }
        })
        .boxed()
    }

    /// Waits until a CSV import job's tasks have all finished, and returns the job.
    ///
    /// The document does not show the members of `import_status` and
    /// `task_status`, so "finished" is a predicate: `is_finished` decides from
    /// the job as read. [`import_tasks_finished`] is a plausible default.
    pub async fn wait_for_task_import(
        &self,
        import_id: NonZeroU64,
        options: WaitOptions,
        is_finished: impl Fn(&TaskImport) -> bool,
    ) -> Result<TaskImport, Error> {
        let started = tokio::time::Instant::now();
        let mut interval = options.initial_interval;
        loop {
            let job = self
                .encoder()?
                .get_task_import()
                .task_import_id(import_id)
                .send()
                .await?
                .into_inner();
            if is_finished(&job) {
                return Ok(job);
            }
            let waited = started.elapsed();
            if waited + interval > options.max_wait {
                return Err(Error::WaitTimedOut {
                    waited,
                    last_status: serde_json::to_string(&job.task_status).ok(),
                });
            }
            tokio::time::sleep(interval).await;
            interval = options.next(interval);
        }
    }
}

/// A guess at "all tasks finished" for [`Client::wait_for_task_import`]: the
/// job's `task_status` counts no task as waiting, encoding, uploading or
/// canceling. Assumes `task_status` holds counts per task status, which the
/// document does not show; pass your own predicate if it does not.
pub fn import_tasks_finished(job: &TaskImport) -> bool {
    let Some(status) = serde_json::to_value(&job.task_status).ok().filter(|v| v.is_object()) else {
        return false;
    };
    let unfinished = ["waiting", "encoding", "uploading", "canceling"];
    let counts_known = unfinished.iter().any(|s| status.get(s).is_some());
    counts_known
        && unfinished
            .iter()
            .all(|s| status.get(s).and_then(|v| v.as_u64()).unwrap_or(0) == 0)
}
