//! `encoder wait-task ID…`: each status change on stderr, the final tasks on
//! stdout; also what `register-task --wait` runs after registering.

use super::Invocation;
use crate::failure::Failure;
use crate::output::RowWriter;
use crate::progress::Statuses;
use clap::{Arg, Command};
use futures::StreamExt as _;
use vidplat::encoder::types::{Task, TaskStatus};
use vidplat::Client;

pub fn define(command: Command) -> Command {
    command
        .after_help("Examples:\n  vidplat encoder wait-task 7 8 9 --timeout 30m")
        .long_about(
            "Wait for tasks to end: each status change on stderr, the final tasks on stdout.\n\n\
             Exits 0 when every task ended ready, 4 when one ended failed or canceled, 124 when \
             --timeout passed first.",
        )
        .arg(
            Arg::new("task-id")
                .value_name("TASK_ID")
                .required(true)
                .num_args(1..)
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("The tasks to wait for"),
        )
        .arg(super::poll_interval())
}

/// Whether `operation` takes `--wait`: it registers tasks, and the command
/// then waits for them as `wait-task` does.
pub fn waits_after(operation: &vidplat_core::OperationMeta) -> bool {
    operation.registers_tasks
}

/// `--wait` and `--poll-interval`, for the operation [`waits_after`] names.
pub fn wait_after_flags() -> [Arg; 2] {
    [
        Arg::new("wait")
            .long("wait")
            .action(clap::ArgAction::SetTrue)
            .help("Wait for the registered tasks to end: each status on stderr, the final tasks on stdout (exit 4 when one fails)"),
        super::poll_interval(),
    ]
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let client = invocation.client()?;
    let ids: Vec<u64> = invocation
        .matches
        .get_many::<u64>("task-id")
        .into_iter()
        .flatten()
        .copied()
        .collect();
    wait_tasks(&client, &ids, invocation).await
}

/// Waits for `ids`: status changes on stderr, the final tasks as rows on stdout.
/// Every status change of each of `ids`, as they come, each with its task's id.
pub(super) fn task_changes<'a>(
    client: &'a Client,
    ids: &[u64],
    polling: vidplat::waiters::Polling,
) -> futures::stream::SelectAll<futures::stream::BoxStream<'a, (u64, Result<Task, vidplat::Error>)>> {
    futures::stream::select_all(ids.iter().map(|&id| {
        client
            .wait_for_task(id)
            .polling(polling)
            .status_changes()
            .map(move |change| (id, change))
            .boxed()
    }))
}

pub async fn wait_tasks(client: &Client, ids: &[u64], invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Invocation {
        matches,
        io,
        format,
        shape,
        timeout,
        ..
    } = invocation;
    // Tasks are printed as `list-tasks` prints them.
    let shape = shape.or_columns(|| {
        crate::spec::of_operation(vidplat_core::Service::Encoder, "list_tasks")
            .and_then(|list| list.default_columns(format))
    });
    let polling = super::polling(matches, timeout);
    let mut changes = task_changes(client, ids, polling);
    let mut finals: Vec<(u64, Task)> = Vec::new();
    let mut failure = None;
    let statuses = Statuses::new(io.stderr_terminal);
    while let Some((id, change)) = changes.next().await {
        match change {
            Ok(task) => {
                let status = task.status.as_ref().map_or("unknown".to_owned(), ToString::to_string);
                statuses.line(io.stderr, &format!("task {id}: {status}"))?;
                if matches!(
                    task.status,
                    Some(TaskStatus::Ready | TaskStatus::Failed | TaskStatus::Canceled)
                ) {
                    finals.push((id, task));
                }
            }
            Err(e) => {
                failure.get_or_insert(Failure::from(e));
            }
        }
    }
    drop(statuses);
    finals.sort_by_key(|(id, _)| ids.iter().position(|i| i == id));
    let mut rows = RowWriter::new(format, shape);
    for (_, task) in &finals {
        rows.row(io.stdout, task)?;
    }
    // A wait that failed before any task ended prints nothing (not an empty list).
    if failure.is_none() || rows.rows() > 0 {
        if let Some(note) = rows.finish(io.stdout)?.note() {
            writeln!(io.stderr, "{note}")?;
        }
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    // Every task that did not end ready is named, not only the first.
    let ended: Vec<(u64, String)> = finals
        .iter()
        .filter(|(_, t)| !matches!(t.status, Some(TaskStatus::Ready)))
        .map(|(id, task)| {
            let status = task.status.as_ref().map_or("unknown".to_owned(), ToString::to_string);
            (*id, vidplat_core::escape_controls(&status).into_owned())
        })
        .collect();
    if ended.is_empty() {
        Ok(())
    } else {
        Err(Failure::TaskEnded { tasks: ended })
    }
}
