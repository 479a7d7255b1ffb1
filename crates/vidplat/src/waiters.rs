//! Waiting for work the encoding service does in the background.
//!
//! A task moves waiting → encoding → uploading → ready (or failed, or
//! canceling → canceled). A waiter polls with a growing, jittered interval,
//! keeps polling on statuses it does not know (the documents allow new ones),
//! and gives up after a maximum wait. Task and CSV import waiters share one
//! polling core ([`Polling`]).
//!
//! ```no_run
//! # async fn run(client: vidplat::Client, task_id: Option<i64>) -> Result<(), vidplat::Error> {
//! use std::time::Duration;
//! // Ready, or an error saying how it ended (`Error::TaskEnded` carries the final task).
//! let task = client.wait_for_task(task_id).max_wait(Duration::from_secs(600)).await?;
//! // Whatever the end: the final task (`ready`, `failed` or `canceled`).
//! let task = client.wait_for_task(task_id).final_task().await?;
//! # Ok(()) }
//! ```

// The entry points that poll (`status_changes`, `final_task`, `as_they_end`,
// the `IntoFuture`s) are `#[inline]`: the polling and the decoding of tasks
// they reach are compiled in the program that waits, not in every build of
// vidplat (about 45,000 of the facade's 60,000 LLVM lines).

use crate::{Call, Client, Error};
use futures_util::stream::{self, BoxStream, StreamExt, TryStreamExt};
use std::future::{Future, IntoFuture};
use std::num::NonZeroU64;
use std::pin::Pin;
use std::time::Duration;
use vidplat_core::IntoValue;
use vidplat_encoder::types::{Task, TaskImport, TaskStatus};

/// How a waiter polls: the first pause, how it grows, its jitter and the
/// maximum wait. The defaults (1 s growing by half to 30 s, ±20 % jitter, one
/// hour) suit real encodes; against the simulator, poll every few milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polling {
    /// The first pause between polls.
    pub initial_interval: Duration,
    /// The pause grows by half each poll, up to this.
    pub max_interval: Duration,
    /// Give up after this long.
    pub max_wait: Duration,
    /// Each pause is shortened or lengthened by up to this fraction (0.0 to
    /// 1.0), so that many waiters started together do not poll together.
    pub jitter: f64,
}

impl Default for Polling {
    fn default() -> Self {
        Self {
            initial_interval: Duration::from_secs(1),
            max_interval: Duration::from_secs(30),
            max_wait: Duration::from_secs(3600),
            jitter: 0.2,
        }
    }
}

impl Polling {
    pub(crate) fn grown(&self, interval: Duration) -> Duration {
        interval.saturating_add(interval / 2).min(self.max_interval)
    }

    /// `interval` ± the jitter; any setting (NaN, ∞, `Duration::MAX`) gives a pause, never a panic.
    pub(crate) fn jittered(&self, interval: Duration) -> Duration {
        let jitter = if self.jitter.is_finite() {
            self.jitter.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let factor = 1.0 + jitter * (2.0 * fastrand::f64() - 1.0);
        Duration::try_from_secs_f64(interval.as_secs_f64() * factor).unwrap_or(Duration::MAX)
    }

    /// Polls `poll` until `done` says the value is final, yielding the first
    /// value and every one whose `describe`d state differs from the previous
    /// one; ends after the final one, with [`Error::WaitTimedOut`] (naming the
    /// last state), or with the first error of a poll.
    fn stream<'a, T, P, F, D, S>(self, poll: P, done: D, describe: S) -> BoxStream<'a, Result<T, Error>>
    where
        T: Send + 'a,
        P: Fn() -> F + Send + 'a,
        F: Future<Output = Result<T, Error>> + Send + 'a,
        D: Fn(&T) -> bool + Send + 'a,
        S: Fn(&T) -> Option<String> + Send + 'a,
    {
        struct State<P, D, S> {
            poll: P,
            done: D,
            describe: S,
            started: tokio::time::Instant,
            interval: Duration,
            pause: Option<Duration>,
            last: Option<Option<String>>,
        }
        let state = State {
            poll,
            done,
            describe,
            started: tokio::time::Instant::now(),
            interval: self.initial_interval,
            pause: None,
            last: None,
        };
        // `None` once the stream has yielded its last item.
        stream::unfold(Some(state), move |state| async move {
            let mut state = state?;
            loop {
                if let Some(pause) = state.pause.take() {
                    tokio::time::sleep(pause).await;
                    state.interval = self.grown(state.interval);
                }
                let value = match (state.poll)().await {
                    Ok(value) => value,
                    Err(error) => return Some((Err(error), None)),
                };
                if (state.done)(&value) {
                    return Some((Ok(value), None));
                }
                let described = (state.describe)(&value);
                let waited = state.started.elapsed();
                let pause = self.jittered(state.interval);
                if waited.saturating_add(pause) > self.max_wait {
                    let timed_out = Error::WaitTimedOut {
                        waited,
                        last_status: described,
                    };
                    return Some((Err(timed_out), None));
                }
                state.pause = Some(pause);
                if state.last.as_ref() != Some(&described) {
                    state.last = Some(described);
                    return Some((Ok(value), Some(state)));
                }
            }
        })
        .boxed()
    }
}

/// Waits for one task: `.await` it (ready, else [`Error::TaskEnded`]), or
/// call [`final_task`](Self::final_task) or [`status_changes`](Self::status_changes).
#[must_use = "a waiter does nothing until awaited"]
pub struct TaskWaiter<'a> {
    client: &'a Client,
    task_id: Result<NonZeroU64, vidplat_core::Refusal>,
    polling: Polling,
}

impl std::fmt::Debug for TaskWaiter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskWaiter")
            .field("task_id", &self.task_id)
            .field("polling", &self.polling)
            .finish()
    }
}

impl<'a> TaskWaiter<'a> {
    /// The first pause between polls (default 1 s).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.polling.initial_interval = interval;
        self.polling.max_interval = self.polling.max_interval.max(interval);
        self
    }

    /// The longest pause between polls (default 30 s).
    pub fn max_interval(mut self, interval: Duration) -> Self {
        self.polling.max_interval = interval;
        self
    }

    /// Gives up after this long with [`Error::WaitTimedOut`] (default 1 h).
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.polling.max_wait = max_wait;
        self
    }

    /// The fraction (0.0 to 1.0) by which each pause varies (default 0.2).
    pub fn jitter(mut self, jitter: f64) -> Self {
        self.polling.jitter = jitter;
        self
    }

    /// All polling options at once.
    pub fn polling(mut self, polling: Polling) -> Self {
        self.polling = polling;
        self
    }

    /// The task each time its status changes (the first poll included),
    /// ending after `ready`, `failed` or `canceled`, or with
    /// [`Error::WaitTimedOut`].
    #[inline]
    pub fn status_changes(self) -> BoxStream<'a, Result<Task, Error>> {
        let task_id = match self.task_id {
            Ok(task_id) => task_id,
            Err(why) => return stream::once(async move { Err(refused_id("task_id", why)) }).boxed(),
        };
        let client = self.client;
        self.polling.stream(
            move || async move { client.encoder()?.get_task().task_id(task_id).call().await },
            |task: &Task| {
                matches!(
                    task.status,
                    Some(TaskStatus::Ready | TaskStatus::Failed | TaskStatus::Canceled)
                )
            },
            |task: &Task| task.status.as_ref().map(ToString::to_string),
        )
    }

    /// The final task, however it ended (`ready`, `failed` or `canceled`):
    /// an error only when polling failed or the wait timed out.
    #[inline]
    pub async fn final_task(self) -> Result<Task, Error> {
        last(self.status_changes()).await
    }

    async fn ready(self) -> Result<Task, Error> {
        let task = self.final_task().await?;
        match task.status {
            Some(TaskStatus::Ready) => Ok(task),
            _ => Err(Error::TaskEnded(Box::new(task))),
        }
    }
}

impl<'a> IntoFuture for TaskWaiter<'a> {
    type Output = Result<Task, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    #[inline]
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.ready())
    }
}

/// The last of a waiter's states, once the polling ends; a stream that ends
/// with none is a wait given up before the first poll.
async fn last<T>(states: BoxStream<'_, Result<T, Error>>) -> Result<T, Error> {
    let last = states.try_fold(None, |_, state| async { Ok(Some(state)) }).await?;
    last.ok_or(Error::WaitTimedOut {
        waited: Duration::ZERO,
        last_status: None,
    })
}

/// A waiter's id (a response's `None`, 0) refused before anything was sent:
/// the member it stands for, and why.
fn refused_id(field: &str, refusal: vidplat_core::Refusal) -> Error {
    Error::InvalidInput(vidplat_core::Refusal::new(refusal.rule().to_owned()).at(field).into())
}

/// Waits for many tasks, a bounded number polled at once: `.await` gives each
/// task's final state (whatever it is) in the order the ids were given.
#[must_use = "a waiter does nothing until awaited"]
pub struct TasksWaiter<'a> {
    client: &'a Client,
    task_ids: Vec<Result<NonZeroU64, vidplat_core::Refusal>>,
    polling: Polling,
    concurrency: usize,
}

impl std::fmt::Debug for TasksWaiter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TasksWaiter")
            .field("tasks", &self.task_ids.len())
            .field("polling", &self.polling)
            .field("concurrency", &self.concurrency)
            .finish()
    }
}

impl<'a> TasksWaiter<'a> {
    /// How many tasks are polled at once (default 8).
    pub fn concurrency(mut self, tasks: usize) -> Self {
        self.concurrency = tasks.max(1);
        self
    }

    /// How each task is polled ([`Polling::default`] unless set).
    pub fn polling(mut self, polling: Polling) -> Self {
        self.polling = polling;
        self
    }

    /// Each task's final state as it ends (in the order they end), with its
    /// index in the ids given.
    #[inline]
    pub fn as_they_end(self) -> BoxStream<'a, (usize, Result<Task, Error>)> {
        let (client, polling) = (self.client, self.polling);
        stream::iter(self.task_ids.into_iter().enumerate())
            .map(move |(index, task_id)| async move {
                let waiter = TaskWaiter {
                    client,
                    task_id,
                    polling,
                };
                (index, waiter.final_task().await)
            })
            .buffer_unordered(self.concurrency)
            .boxed()
    }
}

impl<'a> IntoFuture for TasksWaiter<'a> {
    type Output = Vec<Result<Task, Error>>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    #[inline]
    fn into_future(self) -> Self::IntoFuture {
        let ended = self.as_they_end();
        Box::pin(async move {
            // Each task ends once; its outcome goes back to its place among the ids given.
            let mut finals: Vec<_> = ended.collect().await;
            finals.sort_unstable_by_key(|(index, _)| *index);
            finals.into_iter().map(|(_, outcome)| outcome).collect()
        })
    }
}

/// Waits for a CSV import job: `.await` gives the job once
/// [`until`](Self::until)'s predicate holds (by default
/// [`import_tasks_finished`], a guess: see there).
#[must_use = "a waiter does nothing until awaited"]
pub struct TaskImportWaiter<'a> {
    client: &'a Client,
    import_id: Result<NonZeroU64, vidplat_core::Refusal>,
    polling: Polling,
    finished: Box<dyn Fn(&TaskImport) -> bool + Send + Sync + 'a>,
}

impl std::fmt::Debug for TaskImportWaiter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskImportWaiter")
            .field("import_id", &self.import_id)
            .field("polling", &self.polling)
            .finish_non_exhaustive()
    }
}

impl<'a> TaskImportWaiter<'a> {
    /// How the job is polled ([`Polling::default`] unless set).
    pub fn polling(mut self, polling: Polling) -> Self {
        self.polling = polling;
        self
    }

    /// Decides from the job as read whether it has finished.
    pub fn until(mut self, finished: impl Fn(&TaskImport) -> bool + Send + Sync + 'a) -> Self {
        self.finished = Box::new(finished);
        self
    }
}

impl<'a> IntoFuture for TaskImportWaiter<'a> {
    type Output = Result<TaskImport, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    #[inline]
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let import_id = self.import_id.map_err(|rule| refused_id("task_import_id", rule))?;
            let encoder = self.client.encoder()?;
            let changes = self.polling.stream(
                move || encoder.get_task_import().task_import_id(import_id).call(),
                self.finished,
                |job: &TaskImport| serde_json::to_string(&job.task_status).ok(),
            );
            last(changes).await
        })
    }
}

impl Client {
    /// Waits for a task; takes the id as any response carries it
    /// (`Option<i64>`, `i64`, `NonZeroU64`). See [`TaskWaiter`].
    pub fn wait_for_task(&self, task_id: impl IntoValue<NonZeroU64>) -> TaskWaiter<'_> {
        TaskWaiter {
            client: self,
            task_id: task_id.into_value(),
            polling: Polling::default(),
        }
    }

    /// Waits for many tasks, at most 8 polled at once unless
    /// [`TasksWaiter::concurrency`] says otherwise.
    pub fn wait_for_tasks<I>(&self, task_ids: I) -> TasksWaiter<'_>
    where
        I: IntoIterator,
        I::Item: IntoValue<NonZeroU64>,
    {
        TasksWaiter {
            client: self,
            task_ids: task_ids.into_iter().map(IntoValue::into_value).collect(),
            polling: Polling::default(),
            concurrency: 8,
        }
    }

    /// Waits for a CSV import job's tasks to finish. See [`TaskImportWaiter`].
    pub fn wait_for_task_import(&self, import_id: impl IntoValue<NonZeroU64>) -> TaskImportWaiter<'_> {
        TaskImportWaiter {
            client: self,
            import_id: import_id.into_value(),
            polling: Polling::default(),
            finished: Box::new(import_tasks_finished),
        }
    }
}

/// A guess at "all tasks finished" for [`Client::wait_for_task_import`]: the
/// job's `task_status` counts no task as waiting, encoding, uploading or
/// canceling. Assumes `task_status` holds counts per task status, which the
/// document does not show; pass your own predicate to
/// [`TaskImportWaiter::until`] if it does not.
pub fn import_tasks_finished(job: &TaskImport) -> bool {
    // Not an object (or no JSON at all): no count is known.
    let status = serde_json::to_value(&job.task_status).unwrap_or_default();
    let unfinished = ["waiting", "encoding", "uploading", "canceling"];
    let counts: Vec<&serde_json::Value> = unfinished.iter().filter_map(|s| status.get(s)).collect();
    !counts.is_empty() && counts.iter().all(|count| count.as_u64().unwrap_or(0) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_has_finished_once_its_counts_are_known_and_none_is_unfinished() {
        let finished = |task_status: serde_json::Value| {
            let job = serde_json::json!({ "task_status": task_status });
            import_tasks_finished(&serde_json::from_value(job).expect("a job"))
        };
        assert!(finished(serde_json::json!({"waiting": 0, "canceling": 0, "ready": 3})));
        assert!(!finished(serde_json::json!({"waiting": 0, "encoding": 1})));
        assert!(
            !finished(serde_json::json!({"ready": 3})),
            "no unfinished status counted"
        );
        assert!(!finished(serde_json::json!(null)));
        assert!(
            finished(serde_json::json!({"uploading": "none"})),
            "a count that is no number is none"
        );
    }

    #[test]
    fn any_polling_setting_gives_a_pause_never_a_panic() {
        for jitter in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -3.0, 7.0, 0.2] {
            for interval in [Duration::ZERO, Duration::from_secs(1), Duration::MAX] {
                let polling = Polling {
                    initial_interval: interval,
                    max_interval: Duration::MAX,
                    max_wait: Duration::MAX,
                    jitter,
                };
                let pause = polling.jittered(interval);
                let grown = polling.grown(interval);
                assert!(grown >= interval, "{jitter} {interval:?}");
                if interval == Duration::from_secs(1) && jitter.is_finite() {
                    let spread = jitter.clamp(0.0, 1.0);
                    assert!(pause.as_secs_f64() >= 1.0 - spread - 1e-9 && pause.as_secs_f64() <= 1.0 + spread + 1e-9);
                }
            }
        }
        let nan = Polling {
            jitter: f64::NAN,
            ..Polling::default()
        };
        assert_eq!(
            nan.jittered(Duration::from_secs(2)),
            Duration::from_secs(2),
            "NaN is no jitter"
        );
    }
}
