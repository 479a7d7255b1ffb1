//! `vidplat batch SERVICE OPERATION FILE`: one operation over every row of a
//! CSV or NDJSON file, each row's columns named as the operation command's
//! flags (any other column a `--set` path of the body). Every row is checked
//! before any is sent; the runner is the SDK's (`vidplat::batch`).

use super::Invocation;
use crate::failure::Failure;
use crate::run::Args;
use crate::spec::CommandSpec;
use clap::{Arg, ArgAction, Command};
use futures::StreamExt as _;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use vidplat::batch::{BatchRow, Outcome};
use vidplat_core::Service;

pub fn define(command: Command) -> Command {
    command
        .long_about(
            "Run one operation over every row of a CSV (with a header) or NDJSON file. Each column is named \
             as the operation command's flag (`task-id`, `input-filepath`); any other column is a `--set` \
             path into the body (`streams[0].video.height`). Every row is checked before any is sent: rows \
             refused are all listed by number and member, and nothing is sent (exit 2) unless --skip-invalid. \
             A row of an update gives only the members it changes: the resource is read and sent whole with \
             them (--partial sends only the row's).\n\n\
             One JSON line per row goes to stdout (the row's number, its outcome, the answer or the error), a \
             summary to stderr. A journal (FILE.journal beside the input, or --journal) records each row: a \
             rerun skips the rows done, and does not send again a row whose call may have arrived (a \
             registration whose answer was lost) unless --retry-unknown.",
        )
        .after_help(
            "Examples:\n  \
             vidplat batch encoder register-task tasks.csv\n  \
             { echo input-filepath; printf '%s\\n' a.mp4 b.mp4; } | vidplat batch encoder register-task - --journal run.journal\n  \
             vidplat batch vms update-content titles.ndjson --parallel 2",
        )
        .arg(
            Arg::new("batch-service")
                .value_name("SERVICE")
                .required(true)
                .value_parser(["encoder", "vms", "analytics"])
                .help("The service"),
        )
        .arg(
            Arg::new("batch-operation")
                .value_name("OPERATION")
                .required(true)
                .help("The operation's command (`register-task`)"),
        )
        .arg(
            Arg::new("batch-file")
                .value_name("FILE")
                .required(true)
                .help("The rows: CSV with a header, or NDJSON (by the extension .ndjson or .jsonl, or a first `{`); - reads stdin"),
        )
        .arg(
            Arg::new("parallel")
                .long("parallel")
                .value_name("N")
                .value_parser(clap::value_parser!(u16).range(1..=64))
                .help("Rows in flight at once [default: 4; analytics 1, its quota's one at a time]. The documents give the encoder and video management no rate"),
        )
        .arg(
            Arg::new("journal")
                .long("journal")
                .value_name("FILE")
                .help("Where each row's outcome is recorded [default: FILE.journal beside the input; none for stdin]"),
        )
        .arg(
            Arg::new("partial")
                .long("partial")
                .action(ArgAction::SetTrue)
                .help("For an update: send only each row's members. By default each row's resource is read first and every member read is sent with the row's laid over them, so that a member the row leaves out is sent as it was, under either reading of an update (the documents do not say whether what it leaves out is kept or reset): two calls a row, and a change made elsewhere between them is overwritten"),
        )
        .arg(
            Arg::new("skip-invalid")
                .long("skip-invalid")
                .action(ArgAction::SetTrue)
                .help("Send the valid rows when some are refused (the refused rows are listed on stderr)"),
        )
        .arg(
            Arg::new("wait")
                .long("wait")
                .action(ArgAction::SetTrue)
                .help("For an operation that registers tasks: wait for each row's tasks to end (each status on stderr); a row's line is printed once its tasks ended, with them (`tasks`); exit 4 when one ended failed or canceled"),
        )
        .arg(super::poll_interval().help(
            "First pause between polls (of the task counts while the task queue is full, of the tasks with --wait); it grows to 30 s [default: 1s]",
        ))
        .arg(crate::confirm::yes_flag())
        .arg(
            Arg::new("retry-unknown")
                .long("retry-unknown")
                .action(ArgAction::SetTrue)
                .help("Send again the rows an earlier run left unknown (the service may do their work twice)"),
        )
}

/// How often the rows' lines are flushed to stdout.
const FLUSH_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// The most bytes of rows read (a file of a million short rows fits).
const MAX_ROWS_BYTES: u64 = 256 << 20;

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let matches = invocation.matches;
    let service = match matches.get_one::<String>("batch-service").map(String::as_str) {
        Some("encoder") => Service::Encoder,
        Some("vms") => Service::Vms,
        _ => Service::Analytics,
    };
    let name = matches
        .get_one::<String>("batch-operation")
        .cloned()
        .unwrap_or_default();
    let spec = crate::spec::find(service, &name).ok_or_else(|| {
        Failure::invalid(
            "OPERATION",
            format!("is no command of {service} (`vidplat {service} --help` lists them)"),
        )
    })?;
    if spec.operation.reads_with.is_none() && matches.get_flag("partial") {
        return Err(Failure::invalid(
            "--partial",
            format!("is for an update: {name} reads nothing first"),
        ));
    }
    let wait = matches.get_flag("wait");
    if wait && !spec.operation.registers_tasks {
        return Err(Failure::invalid(
            "--wait",
            format!("has nothing to wait for: {name} registers no tasks"),
        ));
    }
    let file = matches.get_one::<String>("batch-file").cloned().unwrap_or_default();
    let bytes = crate::run::read_input(&file, "FILE", MAX_ROWS_BYTES, invocation.io.stdin)?;
    let cells = if ndjson(&file, &bytes) {
        ndjson_rows(&bytes)?
    } else {
        csv_rows(&bytes)?
    };
    let total = cells.len();

    let client = invocation.client()?;
    let journal = match matches.get_one::<String>("journal") {
        Some(path) => Some(PathBuf::from(path)),
        None if file == "-" => None,
        None => Some(PathBuf::from(format!("{file}.journal"))),
    };
    let mut batch = client.batch(service, spec.operation.id).map_err(batch_failure)?;
    if let Some(n) = matches.get_one::<u16>("parallel") {
        batch = batch.parallel(usize::from(*n));
    }
    if let Some(journal) = &journal {
        batch = batch.journal(journal);
    }
    batch = batch
        .retry_unknown(matches.get_flag("retry-unknown"))
        .partial(matches.get_flag("partial"));
    let (notices, mut waits) = tokio::sync::mpsc::unbounded_channel();
    batch = batch
        .queue_polling(super::polling(matches, invocation.timeout))
        .on_queue_full(move |row, active| {
            let _ = notices.send((row, active));
        });
    // Every row made into the operation's arguments and checked, before anything is sent.
    let (rows, refused) = checked_rows(spec, &batch, cells);
    let stderr = &mut *invocation.io.stderr;
    if !refused.is_empty() {
        for (number, problems) in &refused {
            writeln!(stderr, "{}", row_problems(*number, problems.clone()))?;
        }
        if !matches.get_flag("skip-invalid") {
            return Err(Failure::Setup(format!(
                "{} of {} row(s) refused, nothing sent (--skip-invalid sends the others)",
                refused.len(),
                total
            )));
        }
        // `checked_rows` left them out already.
        let skipped: Vec<u64> = refused.iter().map(|(number, _)| *number).collect();
        writeln!(stderr, "skipping {} refused row(s): {skipped:?}", skipped.len())?;
    }

    if spec.operation.method == vidplat_core::Method::Delete {
        let what = format!(
            "{} for each of {} row(s)",
            spec.operation.summary.to_lowercase(),
            rows.len()
        );
        crate::confirm::destroying(&what, matches.get_flag("yes"), invocation.io)?;
    }
    let stderr = &mut *invocation.io.stderr;
    let mut params: std::collections::HashMap<u64, Map<String, Value>> = rows
        .iter()
        .map(|row| (row.number, key_params(spec, &row.args)))
        .filter(|(_, params)| !params.is_empty())
        .collect();
    let mut outcomes = batch.run(futures::stream::iter(rows)).await.map_err(batch_failure)?;
    let mut counts = [0usize; 5];
    let stdout = &mut *invocation.io.stdout;
    let mut last_flush = std::time::Instant::now();
    let mut unflushed = false;
    // With --wait: each registered row's line, and the tasks it waits for.
    let mut held: Vec<(Value, Vec<u64>)> = Vec::new();
    loop {
        let outcome = tokio::select! {
            outcome = outcomes.next() => match outcome {
                Some(outcome) => outcome.map_err(batch_failure)?,
                None => break,
            },
            Some((row, active)) = waits.recv() => {
                let active = active.map_or_else(|| "unknown".to_owned(), |n| n.to_string());
                writeln!(
                    stderr,
                    "row {row}: the task queue is full (403 OVER_SERVICE_LIMIT: nothing was registered); \
                     waiting for tasks to end ({active} active), then sending it again"
                )?;
                continue;
            }
            // No row ended for a while: what was written goes out now.
            () = tokio::time::sleep(FLUSH_EVERY), if unflushed => {
                stdout.flush()?;
                (unflushed, last_flush) = (false, std::time::Instant::now());
                continue;
            }
        };
        let mut line = json!({"row": outcome.number, "status": outcome.outcome.name()});
        if let Some(params) = params.remove(&outcome.number) {
            line["params"] = Value::Object(params);
        }
        let slot = match outcome.outcome {
            Outcome::Done(answer) if wait => {
                // Printed once its tasks ended.
                let ids: Vec<u64> = answer["tasks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|task| task["id"].as_u64())
                    .collect();
                line["answer"] = answer;
                counts[0] += 1;
                held.push((line, ids));
                continue;
            }
            Outcome::Done(answer) => {
                line["answer"] = answer;
                0
            }
            Outcome::Failed(error) => {
                line["error"] = row_error(error);
                1
            }
            Outcome::Unknown(error) => {
                line["error"] = row_error(error);
                2
            }
            Outcome::DoneBefore => 3,
            _ => 4,
        };
        counts[slot] += 1;
        let mut text = serde_json::to_vec(&line).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
        text.push(b'\n');
        stdout.write_all(&text)?;
        unflushed = true;
        // A reader follows the batch a tenth of a second behind at most (the journal, not
        // stdout, is what a rerun reads).
        if last_flush.elapsed() >= FLUSH_EVERY {
            stdout.flush()?;
            (unflushed, last_flush) = (false, std::time::Instant::now());
        }
    }
    stdout.flush()?;
    let [ok, failed, unknown, done_before, unknown_before] = counts;
    let mut summary = format!("batch: {ok} ok, {failed} failed, {unknown} unknown");
    if done_before + unknown_before > 0 {
        summary.push_str(&format!(
            "; not sent: {done_before} done by an earlier run, {unknown_before} left unknown by one"
        ));
    }
    if unknown + unknown_before > 0 {
        summary.push_str(" (an unknown row's call may have arrived: check before --retry-unknown sends it again)");
    }
    if let Some(journal) = &journal {
        summary.push_str(&format!("; journal {}", journal.display()));
    }
    writeln!(stderr, "{summary}")?;
    let not_ready = match held.is_empty() {
        true => Vec::new(),
        false => {
            let polling = super::polling(matches, invocation.timeout);
            let terminal = invocation.io.stderr_terminal;
            wait_for_rows(&client, held, polling, terminal, &mut *invocation.io.stdout, stderr).await?
        }
    };
    if failed + unknown + unknown_before > 0 {
        return Err(Failure::RowsNotDone(failed + unknown + unknown_before));
    }
    if !not_ready.is_empty() {
        return Err(Failure::TaskEnded { tasks: not_ready });
    }
    Ok(())
}

/// Waits for every task of the `held` rows, each status change on stderr,
/// and prints each row's line, with its final tasks, once they all ended;
/// the tasks that did not end ready.
async fn wait_for_rows(
    client: &vidplat::Client,
    mut held: Vec<(Value, Vec<u64>)>,
    polling: vidplat::waiters::Polling,
    terminal: bool,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> Result<Vec<(u64, String)>, Failure> {
    use vidplat::encoder::types::TaskStatus;
    let ids: Vec<u64> = held.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
    let mut changes = super::wait_task::task_changes(client, &ids, polling);
    let statuses = crate::progress::Statuses::new(terminal);
    let mut finals: std::collections::HashMap<u64, Value> = std::collections::HashMap::new();
    let mut not_ready = Vec::new();
    let mut failure = None;
    let print = |stdout: &mut dyn std::io::Write,
                 mut line: Value,
                 ids: &[u64],
                 finals: &std::collections::HashMap<u64, Value>| {
        line["tasks"] = ids.iter().filter_map(|id| finals.get(id).cloned()).collect();
        let mut text = serde_json::to_vec(&line).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
        text.push(b'\n');
        stdout.write_all(&text)?;
        stdout.flush().map_err(Failure::from)
    };
    while let Some((id, change)) = changes.next().await {
        let task = match change {
            Ok(task) => task,
            Err(e) => {
                failure.get_or_insert(Failure::from(e));
                continue;
            }
        };
        let status = task.status.as_ref().map_or("unknown".to_owned(), ToString::to_string);
        statuses.line(stderr, &format!("task {id}: {status}"))?;
        if !matches!(
            task.status,
            Some(TaskStatus::Ready | TaskStatus::Failed | TaskStatus::Canceled)
        ) {
            continue;
        }
        if !matches!(task.status, Some(TaskStatus::Ready)) {
            not_ready.push((id, vidplat_core::escape_controls(&status).into_owned()));
        }
        finals.insert(id, serde_json::to_value(&task).unwrap_or(Value::Null));
        let (ended, waiting): (Vec<_>, Vec<_>) = held
            .into_iter()
            .partition(|(_, ids)| ids.iter().all(|id| finals.contains_key(id)));
        held = waiting;
        for (line, ids) in ended {
            print(stdout, line, &ids, &finals)?;
        }
    }
    drop(statuses);
    // A wait that stopped early: the rows are printed with the tasks that did end.
    for (line, ids) in held {
        print(stdout, line, &ids, &finals)?;
    }
    match failure {
        Some(failure) => Err(failure),
        None => Ok(not_ready),
    }
}

/// `--check` of an operation whose body is a CSV of `rows_of`'s bodies (the
/// YAML's `x-csv-rows`): every row checked offline as that operation's body,
/// each problem by row on `stderr`, and the import's own codes where the
/// documents name them; nothing is sent, and no set-up is needed.
pub fn check_csv_rows(
    service: Service,
    rows_of: &str,
    bytes: &[u8],
    stderr: &mut dyn std::io::Write,
) -> Result<(), Failure> {
    let spec = crate::spec::of_operation(service, rows_of)
        .ok_or_else(|| Failure::Setup(format!("the table names `{rows_of}`, no operation of {service}")))?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map(|header| header.iter().map(|h| h.trim().to_owned()).collect())
        .unwrap_or_default();
    // The body's required top-level members, each a column.
    let required = spec.operation.body.map_or(&[][..], |body| body.required);
    let mut problems: Vec<String> = required
        .iter()
        .filter(|member| !member.contains(['.', '[']))
        .filter(|member| !header.iter().any(|h| h == *member || *h == crate::spec::kebab(member)))
        .map(|member| {
            format!(
                "header: no `{member}` column (the import answers CSV_INVALID_COLUMNS: a required column is missing)"
            )
        })
        .collect();
    let cells = csv_rows(bytes)?;
    if cells.is_empty() {
        problems.push("the file describes no task (the import answers CSV_EMPTY_TASKS)".to_owned());
    }
    // Only the requests' checks run: nothing is sent, so any origin does.
    let client = vidplat::Client::builder()
        .encoder_url("https://checking.invalid")
        .vms_url("https://checking.invalid")
        .analytics_url("https://checking.invalid")
        .api_key("checking")
        .build()?;
    let batch = client.batch(service, rows_of).map_err(batch_failure)?;
    let count = cells.len();
    let (_, refused) = checked_rows(spec, &batch, cells);
    problems.extend(
        refused
            .into_iter()
            .map(|(number, refused)| row_problems(number, refused)),
    );
    if problems.is_empty() {
        writeln!(
            stderr,
            "{count} row(s), each a valid `{}` body; nothing sent",
            crate::spec::kebab(rows_of)
        )?;
        return Ok(());
    }
    for problem in &problems {
        writeln!(stderr, "{problem}")?;
    }
    Err(Failure::Setup(format!(
        "{} problem(s) in the CSV file; nothing sent",
        problems.len()
    )))
}

/// The rows that may go, and every refused row with all its problems, in
/// row order: each row parsed by the operation's flags (a column that does
/// not parse is named alone), then made into its request (every bound and
/// required member), nothing sent.
fn checked_rows(
    spec: CommandSpec,
    batch: &vidplat::batch::Batch<'_>,
    cells: Vec<(u64, Cells)>,
) -> (Vec<BatchRow>, Vec<RefusedRow>) {
    let mut command = row_command(spec);
    let mut rows = Vec::with_capacity(cells.len());
    let mut partly: Vec<(BatchRow, Vec<(String, String)>)> = Vec::new();
    let mut refused: Vec<RefusedRow> = Vec::new();
    for (number, row) in cells {
        let parsed = row_args(spec, &mut command, row);
        match (parsed.args, parsed.problems.is_empty()) {
            (Some(args), true) => rows.push(BatchRow {
                number,
                args: args.for_builder(),
            }),
            (Some(args), false) => partly.push((
                BatchRow {
                    number,
                    args: args.for_builder(),
                },
                parsed.problems,
            )),
            (None, _) => refused.push((number, parsed.problems)),
        }
    }
    let parts = |refusals: vidplat::Refusals| -> Vec<(String, String)> {
        refusals.into_iter().map(vidplat::Refusal::into_parts).collect()
    };
    refused.extend(
        batch
            .check(&rows)
            .into_iter()
            .map(|(number, refusals)| (number, parts(refusals))),
    );
    // A row some of whose columns did not parse: what the others break too,
    // but not again the members of the columns already named.
    for (row, mut problems) in partly {
        let named: Vec<String> = problems.iter().map(|(column, _)| column.replace('-', "_")).collect();
        if let Some((_, refusals)) = batch.check(std::slice::from_ref(&row)).pop() {
            problems.extend(parts(refusals).into_iter().filter(|(field, _)| {
                let member = field.trim_start_matches("body.");
                !named.iter().any(|column| {
                    member == column
                        || member.starts_with(&format!("{column}."))
                        || member.starts_with(&format!("{column}["))
                })
            }));
        }
        refused.push((row.number, problems));
    }
    refused.sort_by_key(|(number, _)| *number);
    let refused_numbers: std::collections::HashSet<u64> = refused.iter().map(|(number, _)| *number).collect();
    rows.retain(|row| !refused_numbers.contains(&row.number));
    (rows, refused)
}

/// A refused row's number, and each of its problems as `(member, rule)`.
type RefusedRow = (u64, Vec<(String, String)>);

/// A row's arguments as far as its columns parse, and the columns that do not.
struct ParsedRow {
    /// `None` when the row cannot be made into arguments at all.
    args: Option<Args>,
    problems: Vec<(String, String)>,
}

/// `row N: `member` rule; …`, the command line's words for a refused row.
fn row_problems(number: u64, problems: Vec<(String, String)>) -> String {
    let problems: Vec<String> = problems
        .iter()
        .map(|(field, rule)| format!("`{field}` {rule}"))
        .collect();
    // The field and the rule may quote the file's cell (`invalid value '…'`).
    vidplat_core::escape_controls(&format!("row {number}: {}", problems.join("; "))).into_owned()
}

/// A row's error as `--output json` prints a command's (without the exit code, which is the batch's).
fn row_error(error: vidplat::Error) -> Value {
    let mut error = Failure::from(error).to_json()["error"].take();
    if let Some(members) = error.as_object_mut() {
        members.remove("exit_code");
    }
    error
}

fn batch_failure(error: vidplat::batch::BatchError) -> Failure {
    match error {
        vidplat::batch::BatchError::Client(error) => error.into(),
        error => Failure::Setup(error.to_string()),
    }
}

/// The row's path, query and header parameters, to name it in the output.
fn key_params(spec: CommandSpec, args: &vidplat_core::Args) -> Map<String, Value> {
    spec.args()
        .filter(|arg| arg.argument.place != vidplat_core::Place::Body)
        .filter_map(|arg| {
            let value = args.members().get(arg.argument.name)?;
            Some((arg.argument.name.to_owned(), value.clone()))
        })
        .collect()
}

fn ndjson(file: &str, bytes: &[u8]) -> bool {
    file.ends_with(".ndjson")
        || file.ends_with(".jsonl")
        || bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

type Cells = Vec<(String, Value)>;

/// Each data row's cells (empty ones left out), numbered from 1.
fn csv_rows(bytes: &[u8]) -> Result<Vec<(u64, Cells)>, Failure> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| Failure::invalid("FILE", format!("has no CSV header: {e}")))?
        .iter()
        .map(|h| h.trim().to_owned())
        .collect();
    let mut rows = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure::invalid("FILE", format!("row {}: {e}", index + 1)))?;
        let cells = header
            .iter()
            .zip(record.iter())
            .filter(|(_, cell)| !cell.is_empty())
            .map(|(column, cell)| (column.clone(), Value::String(cell.to_owned())))
            .collect();
        rows.push((index as u64 + 1, cells));
    }
    Ok(rows)
}

/// Each line's object (blank lines skipped), numbered by line.
fn ndjson_rows(bytes: &[u8]) -> Result<Vec<(u64, Cells)>, Failure> {
    let mut rows = Vec::new();
    for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let number = index as u64 + 1;
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(members)) => {
                rows.push((number, members.into_iter().filter(|(_, v)| !v.is_null()).collect()))
            }
            Ok(_) => return Err(Failure::invalid("FILE", format!("line {number} is not a JSON object"))),
            Err(e) => return Err(Failure::invalid("FILE", format!("line {number} is not JSON: {e}"))),
        }
    }
    Ok(rows)
}

/// The operation's value flags, `--body` (never given: a row names each
/// member) and `--set`: what a row's cells are parsed with, by the same
/// flag names and parsers as the operation's command. (A body member named
/// like a parameter is `--body-<name>` there and here.)
fn row_command(spec: CommandSpec) -> Command {
    let parameters: Vec<String> = spec
        .args()
        .filter(|arg| arg.argument.place != vidplat_core::Place::Body)
        .map(|arg| arg.flag())
        .collect();
    let values = spec.args().map(|arg| match arg.argument.place {
        vidplat_core::Place::Body if parameters.contains(&arg.flag()) => {
            crate::flags::flag(arg, format!("body-{}", arg.flag()))
        }
        _ => crate::flags::flag(arg, arg.flag()),
    });
    Command::new("row")
        .no_binary_name(true)
        .disable_help_flag(true)
        // A missing member is the builder's refusal ("is required"), named like every other.
        .args(values.map(|arg| arg.required(false)))
        .arg(Arg::new("body").long("body").hide(true))
        .arg(Arg::new("set").long("set").action(ArgAction::Append))
}

/// A row's cells as the operation command's flags (`--set` for the rest),
/// parsed by the command itself: the same names, types and rules as typing them.
fn row_args(spec: CommandSpec, command: &mut Command, cells: Cells) -> ParsedRow {
    let mut argv: Vec<String> = Vec::new();
    // Each column's own arguments, to name every bad column when the row does not parse.
    let mut by_column: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    for (column, value) in cells {
        let start = argv.len();
        let flag = spec
            .args()
            .find(|arg| arg.flag() == column || arg.argument.name == column)
            .and_then(|arg| {
                let id = arg.id();
                command
                    .get_arguments()
                    .find(|a| a.get_id().as_str() == id)
                    .and_then(|a| a.get_long().map(str::to_owned))
                    .map(|long| (long, arg.argument.repeated))
            });
        match flag {
            Some((long, repeated)) => {
                let items = match value {
                    Value::Array(items) if repeated => items,
                    single => vec![single],
                };
                for item in items {
                    argv.push(format!("--{long}"));
                    argv.push(text(item));
                }
            }
            None if column == "body" => {
                return ParsedRow {
                    args: None,
                    problems: vec![(column, "is not a column of a row: name each body member".to_owned())],
                };
            }
            None => match &value {
                Value::String(text) => argv.push(format!("--set={column}={text}")),
                other => argv.push(format!("--set={column}:={other}")),
            },
        }
        by_column.push((column, start..argv.len()));
    }
    let (matches, problems) = match command.try_get_matches_from_mut(&argv) {
        Ok(matches) => (Ok(matches), Vec::new()),
        // Every column that does not parse alone is named; the others go on.
        Err(_) => {
            let mut problems: Vec<(String, String)> = Vec::new();
            let mut parsed: Vec<String> = Vec::new();
            for (column, range) in &by_column {
                match command.try_get_matches_from_mut(&argv[range.clone()]) {
                    Ok(_) => parsed.extend_from_slice(&argv[range.clone()]),
                    Err(e) => problems.push((column.clone(), first_line(&e.render().to_string()))),
                }
            }
            (command.try_get_matches_from_mut(&parsed), problems)
        }
    };
    let args = matches
        .map_err(|e| vec![("row".to_owned(), first_line(&e.render().to_string()))])
        .and_then(|matches| refusals_of(Args::from_matches(spec, &matches, &mut std::io::empty())));
    match args {
        Ok(args) => ParsedRow {
            args: Some(args),
            problems,
        },
        Err(more) => ParsedRow {
            args: None,
            problems: problems.into_iter().chain(more).collect(),
        },
    }
}

/// The command line's refusal of a row's arguments as `(member, rule)` pairs.
fn refusals_of(args: Result<Args, Failure>) -> Result<Args, Vec<(String, String)>> {
    args.map_err(|failure| match failure {
        Failure::Invalid { field, rule } => vec![(field, rule)],
        Failure::Refused(problems) => problems,
        other => vec![("row".to_owned(), other.to_string())],
    })
}

fn text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_owned()
}
