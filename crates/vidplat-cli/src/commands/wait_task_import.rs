//! `encoder wait-task-import ID`: the job's task counts on stderr as they
//! change, the job on stdout once its tasks have finished.

use super::Invocation;
use crate::failure::Failure;
use crate::output;
use crate::progress::Statuses;
use clap::{Arg, Command};

pub fn define(command: Command) -> Command {
    command
        .after_help("Examples:\n  vidplat encoder wait-task-import 3")
        .arg(
            Arg::new("import-id")
                .value_name("IMPORT_ID")
                .required(true)
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("The import job"),
        )
        .arg(super::poll_interval())
}

/// `wait-task-import`: each change of the job's task counts on stderr, the
/// job on stdout once its tasks have finished; exit 4 when one of them ended
/// failed or canceled.
pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let client = invocation.client()?;
    let Invocation {
        matches,
        io,
        format,
        shape,
        timeout,
        ..
    } = invocation;
    let id = *matches.get_one::<u64>("import-id").unwrap_or(&0);
    let (seen, mut counts) = tokio::sync::mpsc::unbounded_channel();
    let last = std::sync::Mutex::new(String::new());
    let waiter = client
        .wait_for_task_import(id)
        .polling(super::polling(matches, timeout))
        .until(move |job| {
            let now = task_counts(job);
            let mut last = last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if *last != now {
                let _ = seen.send(now.clone());
                *last = now;
            }
            vidplat::waiters::import_tasks_finished(job)
        });
    let statuses = Statuses::new(io.stderr_terminal);
    let mut waiter = std::pin::pin!(std::future::IntoFuture::into_future(waiter));
    let job = loop {
        tokio::select! {
            job = &mut waiter => break job,
            Some(now) = counts.recv() => statuses.line(io.stderr, &format!("import {id}: {now}"))?,
        }
    };
    // The last change, if the job ended on the poll that made it.
    while let Ok(now) = counts.try_recv() {
        statuses.line(io.stderr, &format!("import {id}: {now}"))?;
    }
    drop(statuses);
    let job = job?;
    let shown = serde_json::to_value(&job).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
    if let Some(note) = output::value(io.stdout, format, shape, &shown)? {
        writeln!(io.stderr, "{note}")?;
    }
    let status = serde_json::to_value(&job.task_status).unwrap_or_default();
    for ended in ["failed", "canceled"] {
        if status[ended].as_u64().is_some_and(|n| n > 0) {
            return Err(Failure::ImportEnded {
                import_id: id,
                count: status[ended].as_u64().unwrap_or(0),
                status: ended,
            });
        }
    }
    Ok(())
}

/// The job's task counts that are not zero, e.g. `1 encoding, 2 waiting`.
fn task_counts(job: &vidplat::encoder::types::TaskImport) -> String {
    let status = serde_json::to_value(&job.task_status).unwrap_or_default();
    let counts: Vec<String> = status
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, n)| n.as_u64().filter(|n| *n > 0).map(|n| format!("{n} {name}")))
        .collect();
    if counts.is_empty() {
        "no tasks counted yet".to_owned()
    } else {
        counts.join(", ")
    }
}
