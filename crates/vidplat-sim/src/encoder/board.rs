//! The task board: every task and the encoding queue, advanced lazily.
//!
//! A task spends `task_step` in each of waiting, encoding and uploading (and,
//! when cancelled, in canceling). Only one task encodes at a time: when the
//! encoder is free, the waiting tasks that have waited their step compete and
//! the highest priority wins, then the earliest registered. Nothing runs in
//! the background: every request first replays the events due by its arrival
//! ([`TaskBoard::advance`]), so the states follow from time alone.
//!
//! When a task's upload ends, the caller of `advance` hands its output over
//! (to the video management service for a `vms5://` destination): the task is
//! `ready` when that succeeds, `failed` (`error_code` 1002) when it does not.

use super::clock::Clock;
use crate::error::SimError;
use axum::http::StatusCode;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use vidplat_encoder::types::{Task, TaskCounts, TaskStatus, TaskVmsConfigDetail};

/// The `error_code` of a task whose input is designed to fail.
pub(super) const FAILED_INPUT_ERROR_CODE: i64 = 1001;
/// The `error_code` of a task whose output could not be handed over (the
/// video management service refused the content).
pub(super) const HANDOFF_ERROR_CODE: i64 = 1002;

/// What happens to a task whose upload ended: `Ok` (ready) with members to
/// add to its `vms_config`, or `Err` (failed) with the reason, kept in its
/// `vms_config` too. Called with the task and when its upload ended.
pub(super) type Handoff<'a> =
    dyn FnMut(&Task, Instant) -> Result<serde_json::Map<String, serde_json::Value>, String> + 'a;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Waiting,
    Encoding,
    Uploading,
    Ready,
    Canceling,
    Canceled,
    Failed,
}

impl Status {
    pub(crate) const ALL: [Status; 7] = [
        Status::Waiting,
        Status::Encoding,
        Status::Uploading,
        Status::Ready,
        Status::Canceling,
        Status::Canceled,
        Status::Failed,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Encoding => "encoding",
            Status::Uploading => "uploading",
            Status::Ready => "ready",
            Status::Canceling => "canceling",
            Status::Canceled => "canceled",
            Status::Failed => "failed",
        }
    }

    /// Ready, canceled and failed: the task no longer counts against the registration limit.
    pub(crate) fn is_finished(self) -> bool {
        matches!(self, Status::Ready | Status::Canceled | Status::Failed)
    }
}

/// A task to register: its detail as planned from the profile, and how it runs.
pub(super) struct NewTask {
    pub detail: Task,
    pub priority: i64,
    /// The input is designed to fail: the task ends `failed` after encoding.
    pub fails: bool,
}

struct Entry {
    /// The detail as answered; status, times and error code kept current.
    detail: Task,
    status: Status,
    /// When the task entered `status`.
    since: Instant,
    /// When this task has waited its step: from then the free encoder takes a task (the highest priority waiting).
    eligible_at: Instant,
    priority: i64,
    fails: bool,
}

enum Event {
    /// The task's current state (encoding, uploading or canceling) is over.
    StepDone(i64),
    /// The free encoder takes this waiting task.
    StartEncoding(i64),
}

pub(super) struct TaskBoard {
    step: Duration,
    clock: Clock,
    tasks: BTreeMap<i64, Entry>,
    next_id: i64,
    next_transaction: i64,
    encoder_free_since: Instant,
}

impl TaskBoard {
    pub(super) fn new(step: Duration, clock: Clock) -> Self {
        Self {
            step,
            clock,
            tasks: BTreeMap::new(),
            next_id: 1,
            next_transaction: 1,
            encoder_free_since: clock.started(),
        }
    }

    /// Applies, in order, every event due by `now`; `handoff` decides on each upload that ends.
    pub(super) fn advance(&mut self, now: Instant, handoff: &mut Handoff<'_>) {
        // Each task moves at most four times (waiting, encoding, uploading, ready).
        let bound = self.tasks.len() * 4 + 1;
        for _ in 0..bound {
            match self.next_event() {
                Some((at, event)) if at <= now => self.apply(event, at, handoff),
                _ => break,
            }
        }
    }

    fn next_event(&self) -> Option<(Instant, Event)> {
        let mut next: Option<(Instant, Event)> = None;
        let mut encoder_busy = false;
        for (&id, entry) in &self.tasks {
            if matches!(entry.status, Status::Encoding | Status::Uploading | Status::Canceling) {
                encoder_busy |= entry.status == Status::Encoding;
                let at = entry.since + self.step;
                if next.as_ref().is_none_or(|(earliest, _)| at < *earliest) {
                    next = Some((at, Event::StepDone(id)));
                }
            }
        }
        if !encoder_busy {
            if let Some((at, id)) = self.next_start() {
                if next.as_ref().is_none_or(|(earliest, _)| at < *earliest) {
                    next = Some((at, Event::StartEncoding(id)));
                }
            }
        }
        next
    }

    /// When the free encoder next takes a task, and which. It takes one once
    /// it is free and some task has waited its step; it takes the highest
    /// priority of every waiting task (each was registered by then), then the
    /// earliest registered, so a higher priority always starts first, however
    /// late it was registered ("higher priority starts encoding first, equal
    /// priority starts in registration order").
    fn next_start(&self) -> Option<(Instant, i64)> {
        let waiting = || self.tasks.iter().filter(|(_, entry)| entry.status == Status::Waiting);
        let first_eligible = waiting().map(|(_, entry)| entry.eligible_at).min()?;
        let at = first_eligible.max(self.encoder_free_since);
        waiting()
            .min_by_key(|(&id, entry)| (std::cmp::Reverse(entry.priority), id))
            .map(|(&id, _)| (at, id))
    }

    fn apply(&mut self, event: Event, at: Instant, handoff: &mut Handoff<'_>) {
        match event {
            Event::StartEncoding(id) => self.enter(id, Status::Encoding, at),
            Event::StepDone(id) => {
                let Some(entry) = self.tasks.get_mut(&id) else { return };
                let next = match (entry.status, entry.fails) {
                    (Status::Encoding, true) => Status::Failed,
                    (Status::Encoding, false) => Status::Uploading,
                    (Status::Uploading, _) => {
                        let handed = handoff(&entry.detail, at);
                        let members = match &handed {
                            Ok(members) => members.clone(),
                            Err(reason) => serde_json::Map::from_iter([(
                                "registration_error".to_owned(),
                                serde_json::Value::from(reason.as_str()),
                            )]),
                        };
                        if !members.is_empty() {
                            let config = entry
                                .detail
                                .vms_config
                                .get_or_insert_with(|| TaskVmsConfigDetail(serde_json::Map::new()));
                            config.0.extend(members);
                        }
                        match handed {
                            Ok(_) => Status::Ready,
                            Err(_) => {
                                entry.detail.error_code = Some(HANDOFF_ERROR_CODE);
                                Status::Failed
                            }
                        }
                    }
                    (Status::Canceling, _) => Status::Canceled,
                    _ => return,
                };
                if entry.status == Status::Encoding {
                    self.encoder_free_since = at;
                }
                self.enter(id, next, at);
            }
        }
    }

    /// Moves a task into `status` at `at`, keeping its detail current.
    fn enter(&mut self, id: i64, status: Status, at: Instant) {
        let Some(entry) = self.tasks.get_mut(&id) else { return };
        let stamp = self.clock.timestamp(at);
        match (entry.status, status) {
            (_, Status::Encoding) => entry.detail.encode_start = stamp.clone(),
            (Status::Encoding, Status::Uploading | Status::Failed) => entry.detail.encode_end = stamp.clone(),
            _ => {}
        }
        if status == Status::Failed && entry.detail.error_code == Some(0) {
            entry.detail.error_code = Some(FAILED_INPUT_ERROR_CODE);
        }
        entry.status = status;
        entry.since = at;
        entry.detail.status = Some(TaskStatus::from(status.name()));
        entry.detail.updated_at = stamp;
    }

    /// Tasks counting against the registration limit (not ready, canceled or failed).
    pub(super) fn registrable_count(&self) -> usize {
        self.tasks.values().filter(|entry| !entry.status.is_finished()).count()
    }

    /// Registers tasks created together (one transaction), all `waiting`.
    pub(super) fn register(&mut self, new_tasks: Vec<NewTask>, now: Instant) -> (i64, Vec<Task>) {
        let transaction = self.next_transaction;
        self.next_transaction += 1;
        let stamp = self.clock.timestamp(now);
        let mut registered = Vec::with_capacity(new_tasks.len());
        for NewTask {
            mut detail,
            priority,
            fails,
        } in new_tasks
        {
            let id = self.next_id;
            self.next_id += 1;
            detail.id = Some(id);
            detail.transaction = Some(transaction);
            detail.status = Some(TaskStatus::Waiting);
            detail.error_code = Some(0);
            detail.created_at = stamp.clone();
            detail.updated_at = stamp.clone();
            registered.push(detail.clone());
            self.tasks.insert(
                id,
                Entry {
                    detail,
                    status: Status::Waiting,
                    since: now,
                    eligible_at: now + self.step,
                    priority,
                    fails,
                },
            );
        }
        (transaction, registered)
    }

    pub(super) fn get(&self, id: i64) -> Option<&Task> {
        self.tasks.get(&id).map(|entry| &entry.detail)
    }

    fn status(&self, id: i64) -> Option<Status> {
        self.tasks.get(&id).map(|entry| entry.status)
    }

    pub(super) fn all(&self) -> impl Iterator<Item = &Task> {
        self.tasks.values().map(|entry| &entry.detail)
    }

    /// The document's cancel/delete table: waiting or encoding → canceling;
    /// ready, canceled or failed → removed; uploading or canceling → 403, unchanged.
    pub(super) fn cancel_or_delete(&mut self, id: i64, now: Instant) -> Result<(), SimError> {
        let status = self
            .status(id)
            .ok_or_else(|| SimError::not_found(format!("task {id}")))?;
        match status {
            Status::Waiting | Status::Encoding => {
                if status == Status::Encoding {
                    self.encoder_free_since = now;
                }
                self.enter(id, Status::Canceling, now);
            }
            Status::Ready | Status::Canceled | Status::Failed => {
                self.tasks.remove(&id);
            }
            Status::Uploading | Status::Canceling => {
                // The document gives the status (403) but names no code. Not
                // METHOD_NOT_ALLOWED, which it uses for a method that does not
                // exist; the general INVALID_REQUEST, and the message says so.
                return Err(SimError::new(
                    StatusCode::FORBIDDEN,
                    "INVALID_REQUEST",
                    format!(
                        "task {id} is {}: it can be neither cancelled nor deleted (403 as documented; the document \
                         names no code for this refusal, the simulator answers INVALID_REQUEST)",
                        status.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Delete all tasks: removes only the ready, canceled and failed ones.
    pub(super) fn delete_finished(&mut self) {
        self.tasks.retain(|_, entry| !entry.status.is_finished());
    }

    /// Tasks per status, over `ids` (or every task).
    pub(super) fn counts(&self, ids: Option<&[i64]>) -> TaskCounts {
        let mut counts = [0_i64; 7];
        let statuses: Vec<Status> = match ids {
            Some(ids) => ids.iter().filter_map(|id| self.status(*id)).collect(),
            None => self.tasks.values().map(|entry| entry.status).collect(),
        };
        for status in statuses {
            if let Some(slot) = Status::ALL.iter().position(|known| *known == status) {
                counts[slot] += 1;
            }
        }
        let [waiting, encoding, uploading, ready, canceling, canceled, failed] = counts.map(Some);
        TaskCounts {
            waiting,
            encoding,
            uploading,
            ready,
            canceling,
            canceled,
            failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEP: Duration = Duration::from_millis(100);

    /// Advances with every upload handed over.
    fn advance(board: &mut TaskBoard, now: Instant) {
        board.advance(now, &mut |_, _| Ok(serde_json::Map::new()));
    }

    fn new_task(priority: i64, fails: bool) -> NewTask {
        NewTask {
            detail: Task::default(),
            priority,
            fails,
        }
    }

    fn statuses(board: &TaskBoard) -> Vec<&'static str> {
        board.tasks.values().map(|entry| entry.status.name()).collect()
    }

    #[test]
    fn one_task_runs_through_every_state() {
        let clock = Clock::start();
        let t0 = clock.started();
        let mut board = TaskBoard::new(STEP, clock);
        board.register(vec![new_task(50, false)], t0);
        for (elapsed, expected) in [(50, "waiting"), (150, "encoding"), (250, "uploading"), (350, "ready")] {
            advance(&mut board, t0 + Duration::from_millis(elapsed));
            assert_eq!(statuses(&board), [expected], "at {elapsed} ms");
        }
    }

    #[test]
    fn the_encoder_takes_the_highest_priority_then_the_earliest() {
        let clock = Clock::start();
        let t0 = clock.started();
        let mut board = TaskBoard::new(STEP, clock);
        board.register(vec![new_task(50, false)], t0); // 1: the encoder takes a task from 100 ms
        let later = t0 + Duration::from_millis(10);
        board.register(vec![new_task(10, false)], later); // 2
        board.register(vec![new_task(90, false)], later); // 3: registered later, higher: first
        board.register(vec![new_task(90, false)], later); // 4
        advance(&mut board, t0 + Duration::from_millis(150));
        assert_eq!(statuses(&board), ["waiting", "waiting", "encoding", "waiting"]);
        advance(&mut board, t0 + Duration::from_millis(250));
        assert_eq!(statuses(&board), ["waiting", "waiting", "uploading", "encoding"]);
        advance(&mut board, t0 + Duration::from_millis(350));
        assert_eq!(statuses(&board), ["encoding", "waiting", "ready", "uploading"]);
        advance(&mut board, t0 + Duration::from_millis(450));
        assert_eq!(statuses(&board), ["uploading", "encoding", "ready", "ready"]);
    }

    #[test]
    fn a_failing_input_fails_after_encoding_and_frees_the_encoder() {
        let clock = Clock::start();
        let t0 = clock.started();
        let mut board = TaskBoard::new(STEP, clock);
        board.register(vec![new_task(50, true), new_task(50, false)], t0);
        advance(&mut board, t0 + Duration::from_millis(250));
        assert_eq!(statuses(&board), ["failed", "encoding"]);
        assert_eq!(
            board.get(1).and_then(|task| task.error_code),
            Some(FAILED_INPUT_ERROR_CODE)
        );
        assert_eq!(board.registrable_count(), 1);
    }

    #[test]
    fn cancelling_an_encoding_task_frees_the_encoder_at_once() {
        let clock = Clock::start();
        let t0 = clock.started();
        let mut board = TaskBoard::new(STEP, clock);
        board.register(vec![new_task(50, false), new_task(50, false)], t0);
        let cancel_at = t0 + Duration::from_millis(150);
        advance(&mut board, cancel_at);
        assert!(board.cancel_or_delete(1, cancel_at).is_ok());
        advance(&mut board, t0 + Duration::from_millis(160));
        assert_eq!(statuses(&board), ["canceling", "encoding"]);
        advance(&mut board, t0 + Duration::from_millis(260));
        assert_eq!(statuses(&board), ["canceled", "uploading"]);
    }
}
