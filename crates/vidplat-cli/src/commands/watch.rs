//! `vidplat watch tasks`: each change of a task's status as a JSON line on
//! stdout ([`vidplat::watch`]), a cursor file so that a restart repeats
//! nothing handled, and the calls the polling makes on stderr.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, Command};
use futures::StreamExt as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vidplat::watch::Cursor;

pub fn define(command: Command) -> Command {
    command
        .about("Changes as events, out of polling: one JSON line per change seen")
        .subcommand_required(true)
        .subcommand(
            Command::new("tasks")
                .about(
                    "Each change of a task's status: one JSON line per change seen (id, type, task_id, before, after)",
                )
                .long_about(
                    "Each change of a task's status, as one JSON line per change seen: `id` (the same for the \
                     same change: `task.7.ready`), `type` (`task.ready`, `task.failed` with `error_code`, \
                     `task.canceled`, else `task.status_changed`), `task_id`, `before` and `after`. A status a \
                     task passed through between two polls is not invented. Each poll lists the tasks (a call \
                     a page); the calls made are said on stderr each minute. With --cursor, each event is \
                     recorded once printed: a restart repeats nothing printed (a crash may repeat the last).",
                )
                .arg(
                    Arg::new("interval")
                        .long("interval")
                        .value_name("DURATION")
                        .value_parser(humantime::parse_duration)
                        .help("The pause between polls [default: 2s; the documents give no rate]"),
                )
                .arg(
                    Arg::new("cursor")
                        .long("cursor")
                        .value_name("FILE")
                        .help("Where what was seen is kept (owner only): a restart goes on from it"),
                )
                .arg(
                    Arg::new("exec")
                        .long("exec")
                        .value_name("COMMAND")
                        .help("Run COMMAND for each event, the event's JSON line on its stdin (split as a shell splits words, never run by a shell, nothing put into it), one at a time; the event is recorded once it ended, a failure said on stderr"),
                )
                .arg(
                    Arg::new("count")
                        .long("count")
                        .value_name("N")
                        .value_parser(clap::value_parser!(u64).range(1..))
                        .help("Stop after N events"),
                )
                .arg(
                    Arg::new("for")
                        .long("for")
                        .value_name("DURATION")
                        .value_parser(humantime::parse_duration)
                        .help("Stop after this long"),
                )
                .after_help(
                    "Examples:\n  \
                     vidplat watch tasks --cursor tasks.cursor\n  \
                     vidplat watch tasks --exec './notify.sh --channel ops'\n  \
                     vidplat watch tasks --interval 10s | jq -c 'select(.type == \"task.failed\")'",
                ),
        )
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Some(("tasks", matches)) = invocation.matches.subcommand() else {
        return Err(Failure::invalid("watch", "needs a subcommand"));
    };
    let client = invocation.client()?;
    let cursor_path = matches.get_one::<String>("cursor").map(std::path::PathBuf::from);
    let mut cursor = match &cursor_path {
        Some(path) => Cursor::load(path).map_err(|e| Failure::Setup(format!("--cursor {}: {e}", path.display())))?,
        None => Cursor::default(),
    };
    let calls = Arc::new(AtomicU64::new(0));
    let mut watch = client.watch().count_calls(Arc::clone(&calls));
    if let Some(interval) = matches.get_one::<Duration>("interval") {
        watch = watch.interval(*interval);
    }
    let exec = match matches.get_one::<String>("exec") {
        Some(command) => match shlex::split(command) {
            Some(words) if !words.is_empty() => Some(words),
            _ => {
                return Err(Failure::invalid(
                    "--exec",
                    "is no command (empty, or a quote left open)",
                ))
            }
        },
        None => None,
    };
    let limit = matches.get_one::<u64>("count").copied().unwrap_or(u64::MAX);
    let until = matches.get_one::<Duration>("for").map(|d| Instant::now() + *d);
    let io = invocation.io;
    let mut events = Box::pin(watch.tasks(cursor.clone()));
    let (mut printed, mut minute, mut calls_before) = (0u64, Instant::now(), 0u64);
    while printed < limit {
        let next = match until {
            Some(until) => match tokio::time::timeout_at(until.into(), events.next()).await {
                Ok(next) => next,
                Err(_) => break,
            },
            None => events.next().await,
        };
        let Some(event) = next else { break };
        let event = event?;
        let mut line = serde_json::to_vec(&event).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
        line.push(b'\n');
        io.stdout.write_all(&line)?;
        io.stdout.flush()?;
        printed += 1;
        if let Some(words) = &exec {
            if let Err(why) = run_for(words, &line).await {
                writeln!(
                    io.stderr,
                    "watch: --exec for {}: {}",
                    vidplat_core::escape_controls(&event.id),
                    vidplat_core::escape_controls(&why)
                )?;
            }
        }
        if let Some(path) = &cursor_path {
            cursor.record(&event);
            cursor
                .save(path)
                .map_err(|e| Failure::Setup(format!("--cursor {}: {e}", path.display())))?;
        }
        if minute.elapsed() >= Duration::from_secs(60) {
            let total = calls.load(Ordering::Relaxed);
            writeln!(io.stderr, "watch: {} call(s) in the last minute", total - calls_before)?;
            (minute, calls_before) = (Instant::now(), total);
        }
    }
    writeln!(
        io.stderr,
        "watch: {printed} event(s), {} call(s)",
        calls.load(Ordering::Relaxed)
    )?;
    Ok(())
}

/// Runs `words` (a program and its arguments) with `event` on its stdin; why it failed.
async fn run_for(words: &[String], event: &[u8]) -> Result<(), String> {
    use tokio::io::AsyncWriteExt as _;
    let (program, args) = words.split_first().ok_or("no command")?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("`{program}` did not start: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin is not a failure.
        let _ = stdin.write_all(event).await;
    }
    let status = child.wait().await.map_err(|e| e.to_string())?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("`{program}` ended with {status}")),
    }
}
