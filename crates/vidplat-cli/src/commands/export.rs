//! `vidplat analytics export REPORT`: a report's rows into files, through
//! `vidplat-export` (chunked by day, under the quota, resumable).

use crate::failure::Failure;
use crate::output;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::watch;
use vidplat::Period;
use vidplat_core::Service;
use vidplat_export::{AnyReport, Export, ExportError, Files, FinalBy, Format, Plan, ReportInfo, Summary};

/// The state file's name in the output directory when `--state` is not given.
const STATE_FILE: &str = ".vidplat-export-state.json";

pub fn define(command: Command) -> Command {
    command
        .long_about(
            "Every row of a report over a period into files: out/date=YYYY-MM-DD/part-000.EXT for the reports \
             whose rows each belong to a day (asked for --chunk-days at a time; a chunk answered 408 is halved, \
             down to one day), out/period=FIRST_LAST/part-000.EXT for the others (their rows total the period, \
             so it is asked for in one call), and out/_manifest.json describing them (report, parameters, \
             period, each partition's rows and finality, the columns, the zone of their times: --time-zone, \
             Japan time unless set, as the documents do not show it). Each report \
             takes its own parameters by the flags of its own command (--granularity, --filters, …), kept in \
             the state: a rerun with other parameters is refused. Files are renamed into place when complete \
             and the state file records them, so a rerun after a crash or a pause fetches only what is \
             missing or not final yet (and the lookback window). A day is final when the service says so \
             (the basic edition's `golden`), else once --settle-days have passed since it ended (the cloud \
             edition: an assumption, the documents do not say when figures settle). The summary goes to \
             stdout, progress and quota waits to stderr. Exit 0 done, 3 paused by the quota or the reserve \
             (state saved; the message says when to resume), 2 invalid input, 1 other errors (a one-day \
             chunk that still gets 408 among them).",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommands(vidplat_export::REPORTS.iter().filter_map(|info| report_command(info)))
}

/// `export REPORT`: the report's own parameters (its command's flags, but
/// the period and the page window the export sets), then the export's.
fn report_command(info: &ReportInfo) -> Option<Command> {
    let spec = crate::spec::of_operation(Service::Analytics, info.name)?;
    let kept: Vec<_> = spec
        .args()
        .filter(|arg| !info.set_by_export.contains(&arg.argument.name))
        .collect();
    let parameters: Vec<Arg> = kept
        .iter()
        .map(|arg| crate::flags::flag(*arg, arg.flag()).help_heading("Report parameters"))
        .collect();
    let formats = ["csv", "ndjson"]
        .into_iter()
        .chain(cfg!(feature = "arrow").then_some("arrow"))
        .chain(cfg!(feature = "parquet").then_some("parquet"));
    let name = spec.name();
    let required = crate::spec::required_flags(kept.iter().copied().zip(&parameters), spec.operation.body).parameters;
    let call = format!("vidplat analytics export {name}{required} --from 2026-10-01 --to 2026-10-31 --out out/{name}");
    let example = format!("Examples:\n  {call}\n  {call} --dry-run   # the calls it would make");
    let command = Command::new(name)
        .about(spec.operation.summary)
        .after_help(example)
        .args(parameters)
        .arg(date_arg("from", "The first day, Japan time (YYYY-MM-DD)"))
        .arg(date_arg("to", "The last day, Japan time (YYYY-MM-DD)"))
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(formats.collect::<Vec<_>>())
                .default_value("csv")
                .help("The files' format"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .required(true)
                .help("The output directory (one report's export per directory)"),
        )
        .arg(
            Arg::new("state")
                .long("state")
                .value_name("FILE")
                .help("The state file [default: DIR/.vidplat-export-state.json]"),
        )
        .arg(
            Arg::new("lookback")
                .long("lookback")
                .value_name("DAYS")
                .value_parser(whole_days)
                .help("Fetch the last days of the period again on every run, final or not (e.g. 3d) [default: 0d]"),
        )
        .arg(
            Arg::new("settle-days")
                .long("settle-days")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(0..=366))
                .help(match info.final_by {
                    FinalBy::Golden => "Days a day's figures may change after it ends, where an answer does not say whether they are final (assumed) [default: 2]",
                    FinalBy::Age => "Days a day's figures may change after it ends: younger days are kept as provisional and fetched again by the next run (assumed: the documents do not say) [default: 2]",
                }),
        )
        .arg(
            Arg::new("time-zone")
                .long("time-zone")
                .value_name("OFFSET")
                .allow_hyphen_values(true)
                .value_parser(|s: &str| s.parse::<chrono::FixedOffset>().map_err(|e| e.to_string()))
                .help(
                    "The zone of the times the service returns, +HH:MM or -HH:MM: times are read and written \
                     in it and rows filed under its days (not shown by the documents; Japan time assumed) \
                     [default: +09:00]",
                ),
        )
        .arg(
            Arg::new("reserve-month")
                .long("reserve-month")
                .value_name("CALLS")
                .value_parser(clap::value_parser!(u64))
                .help("Pause before the month's remaining analytics calls fall to this many [default: 0]"),
        )
        .arg(
            Arg::new("chunk-days")
                .long("chunk-days")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(1..=366))
                .help("Days asked for in one query [default: 7]"),
        )
        .arg(
            Arg::new("page-rows")
                .long("page-rows")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("Rows per page, never narrowed [default: 50000 in the cloud edition (its documented maximum); in the basic, the window an earlier run learnt, else 50000 halved on each 400 down to the documented 100 (the basic maximum is not shown)]"),
        )
        .arg(
            Arg::new("fetched-at")
                .long("fetched-at")
                .value_name("RFC3339")
                .value_parser(|s: &str| chrono::DateTime::parse_from_rfc3339(s).map_err(|e| e.to_string()))
                .help("The time written in the export_fetched_at column [default: when each chunk is fetched]; for reproducible files"),
        )
        .arg(
            Arg::new("shared-state")
                .long("shared-state")
                .action(ArgAction::SetTrue)
                .help(
                    "Keep the state in the Redis of the profile's quota store instead of a file, so that several \
                     processes or machines running the same command split the chunks, each asked for once \
                     (the output directory must be one they share) [needs the redis feature]",
                ),
        )
        .arg(
            Arg::new("dry-run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Print the plan (chunks, calls, the shortest duration, the month's count after) and call nothing"),
        );
    Some(command)
}

fn date_arg(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .value_name("DATE")
        .required(true)
        .value_parser(|s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|e| e.to_string()))
        .help(help)
}

/// `3d`, `0d`, `72h`: a whole number of days.
fn whole_days(text: &str) -> Result<u32, String> {
    let duration = humantime::parse_duration(text).map_err(|e| e.to_string())?;
    let day = Duration::from_secs(86_400);
    if duration.as_secs() % day.as_secs() != 0 || duration.subsec_nanos() != 0 {
        return Err("must be whole days (e.g. 3d)".to_owned());
    }
    u32::try_from(duration.as_secs() / day.as_secs()).map_err(|_| "too many days".to_owned())
}

/// What the command was asked to do, read before any call.
struct Options {
    period: Period,
    format: Format,
    out: PathBuf,
    state: PathBuf,
    lookback: u32,
    settle_days: Option<u32>,
    time_zone: Option<chrono::FixedOffset>,
    reserve: u64,
    chunk_days: Option<u32>,
    page_rows: Option<u64>,
    fetched_at: Option<chrono::DateTime<chrono::FixedOffset>>,
    shared_state: bool,
    dry_run: bool,
}

impl Options {
    fn read(matches: &ArgMatches) -> Result<Self, Failure> {
        let day = |id: &str| matches.get_one::<chrono::NaiveDate>(id).copied();
        let (Some(from), Some(to)) = (day("from"), day("to")) else {
            return Err(Failure::invalid("--from/--to", "are required"));
        };
        let period = Period::days(from, to).map_err(|e| Failure::invalid("--to", e.to_string()))?;
        let format = match matches.get_one::<String>("format").map(String::as_str) {
            Some("ndjson") => Format::Ndjson,
            #[cfg(feature = "arrow")]
            Some("arrow") => Format::Arrow,
            #[cfg(feature = "parquet")]
            Some("parquet") => Format::Parquet,
            _ => Format::Csv,
        };
        let out = PathBuf::from(matches.get_one::<String>("out").cloned().unwrap_or_default());
        let state = state_file(matches);
        Ok(Self {
            period,
            format,
            out,
            state,
            lookback: matches.get_one::<u32>("lookback").copied().unwrap_or(0),
            settle_days: matches.get_one::<u32>("settle-days").copied(),
            time_zone: matches.get_one::<chrono::FixedOffset>("time-zone").copied(),
            reserve: matches.get_one::<u64>("reserve-month").copied().unwrap_or(0),
            chunk_days: matches.get_one::<u32>("chunk-days").copied(),
            page_rows: matches.get_one::<u64>("page-rows").copied(),
            fetched_at: matches.get_one("fetched-at").copied(),
            shared_state: matches.get_flag("shared-state"),
            dry_run: matches.get_flag("dry-run"),
        })
    }

    fn apply<'a>(&self, report: AnyReport<'a>) -> Result<Export<'a>, ExportError> {
        let mut export = report
            .export(self.period)
            .lookback_days(self.lookback)
            .reserve_month(self.reserve)
            .state_file(&self.state);
        if let Some(days) = self.settle_days {
            export = export.settle_days(days);
        }
        if let Some(zone) = self.time_zone {
            export = export.time_zone(zone);
        }
        if let Some(days) = self.chunk_days {
            export = export.chunk_days(days);
        }
        if let Some(rows) = self.page_rows {
            export = export.page_rows(rows);
        }
        if let Some(at) = self.fetched_at {
            export = export.fetched_at(at);
        }
        if self.shared_state {
            export = export.shared_state_in_quota_store()?;
        }
        Ok(export)
    }
}

/// The export's state file: `--state`, else the one in `--out`.
fn state_file(matches: &ArgMatches) -> PathBuf {
    let out = PathBuf::from(matches.get_one::<String>("out").cloned().unwrap_or_default());
    matches
        .get_one::<String>("state")
        .map_or_else(|| out.join(STATE_FILE), PathBuf::from)
}

/// What Ctrl-C during an export (`matches`: the `export` command's) leaves:
/// the chunks committed so far are in the state file; running the same
/// command reads only the rest (the chunk under way again, from its start).
/// `None` for a dry run, which leaves nothing.
pub fn interruption_note(matches: &ArgMatches) -> Option<String> {
    let (_, report) = matches.subcommand()?;
    if report.get_flag("dry-run") {
        return None;
    }
    Some(format!(
        "interrupted: the chunks finished so far are saved in {}; run the same command again to resume \
         (the chunk under way is read again from its start)",
        state_file(report).display()
    ))
}

/// How a run ended.
enum Ran {
    Planned(Plan),
    Finished(Summary),
}

struct Run<'a> {
    options: &'a Options,
    stderr: &'a mut dyn Write,
    quota_waits: Option<watch::Receiver<Option<vidplat::QuotaWait>>>,
    /// Whether stderr is a terminal: quota waits are counted down there.
    terminal: bool,
}

impl Run<'_> {
    async fn run(self, report: AnyReport<'_>) -> Result<Ran, ExportError> {
        let export = self.options.apply(report)?;
        if self.options.dry_run {
            return export.plan().await.map(Ran::Planned);
        }
        let mut progress = export.progress();
        let mut waits = self.quota_waits;
        let files = Files::new(&self.options.out, self.options.format);
        let mut run = std::pin::pin!(export.run(files));
        let stderr = self.stderr;
        let mut shown = None;
        let mut wait_line = crate::progress::QuotaWaitLine::new(self.terminal);
        let mut ticks = tokio::time::interval(crate::progress::QuotaWaitLine::TICK);
        // Progress is best effort: a closed stderr does not stop the export.
        loop {
            tokio::select! {
                summary = &mut run => return summary.map(Ran::Finished),
                Ok(()) = progress.changed() => {
                    let now = progress.borrow_and_update().clone();
                    // One line a chunk, when it starts and when it ends.
                    let line = (now.chunk, now.chunks_done);
                    if let (Some(chunk), true) = (now.chunk, shown != Some(line)) {
                        shown = Some(line);
                        let line = format!(
                            "export: chunk {chunk}; {} of {} chunks done, {} rows, {} calls",
                            now.chunks_done, now.chunks_total, now.rows, now.calls
                        );
                        let _ = wait_line.println(stderr, &line);
                    }
                }
                Some(wait) = next_wait(&mut waits) => {
                    let _ = wait_line.show(stderr, wait);
                }
                _ = ticks.tick() => wait_line.tick(),
            }
        }
    }
}

/// The next quota wait the limiter shows; pending forever once there is none to watch.
async fn next_wait(
    waits: &mut Option<watch::Receiver<Option<vidplat::QuotaWait>>>,
) -> Option<Option<vidplat::QuotaWait>> {
    match waits {
        Some(receiver) => match receiver.changed().await {
            Ok(()) => Some(*receiver.borrow_and_update()),
            Err(_) => {
                *waits = None;
                std::future::pending().await
            }
        },
        None => std::future::pending().await,
    }
}

pub async fn run(invocation: super::Invocation<'_, '_>) -> Result<(), Failure> {
    let Some((report, matches)) = invocation.matches.subcommand() else {
        return Err(Failure::invalid("REPORT", "is required"));
    };
    let spec = crate::spec::find(Service::Analytics, report)
        .ok_or_else(|| Failure::invalid("REPORT", format!("`{report}` is not a report the exporter knows")))?;
    let args = crate::run::Args::from_matches(spec, matches, &mut std::io::empty())?;
    let client = invocation.client()?;
    let quota_waits = client.analytics_quota().map(|q| q.watch_waits());
    let io = invocation.io;
    let (stdout, stderr, terminal) = (&mut *io.stdout, &mut *io.stderr, io.stderr_terminal);
    let (name, format) = (spec.operation.id, invocation.format);
    let options = Options::read(matches)?;
    let run = Run {
        options: &options,
        stderr: &mut *stderr,
        quota_waits,
        terminal,
    };
    let report = vidplat_export::report_named(client.analytics()?, name, &args.for_builder())
        .ok_or_else(|| Failure::invalid("REPORT", format!("`{name}` is not a report the exporter knows")))?
        .map_err(|refusals| args.refused(refusals))?;
    let ran = run.run(report).await.map_err(|error| match error {
        ExportError::Invalid(reason) => Failure::invalid("export", reason),
        ExportError::State(vidplat_export::StateError::OtherParameters { .. }) => {
            Failure::invalid("export", error.to_string())
        }
        ExportError::Call { source, .. } | ExportError::NotSent(source) => source.into(),
        other => Failure::Export(other.to_string()),
    })?;
    match ran {
        Ran::Planned(plan) => {
            output::value(stdout, format, None, &plan_json(&plan))?;
            Ok(())
        }
        Ran::Finished(summary) => {
            output::value(stdout, format, None, &summary_json(&summary))?;
            if let Some(pause) = &summary.paused {
                return Err(Failure::Paused(format!(
                    "export paused: {pause}; the state is saved in {}, run the same command again to resume",
                    options.state.display()
                )));
            }
            if !summary.failed.is_empty() {
                let days: Vec<String> = summary.failed.iter().map(|f| f.chunk.to_string()).collect();
                return Err(Failure::Export(format!(
                    "{} chunk(s) still answered 408 at their smallest ({}): {}",
                    summary.failed.len(),
                    days.join(", "),
                    summary.failed[0].reason
                )));
            }
            Ok(())
        }
    }
}

fn plan_json(plan: &Plan) -> Value {
    json!({
        "report": plan.report,
        "period": {"first": plan.period.first().to_string(), "last": plan.period.last().to_string()},
        "chunks": plan.chunks.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "done_before": plan.done,
        "again": plan.again,
        "calls_at_least": plan.calls_at_least,
        "calls_at_most": plan.calls_at_most,
        "minimum_duration_seconds": plan.minimum_duration.as_secs(),
        "month_used": plan.month_used,
        "month_used_after": plan.month_used_after(),
        "month_allowance": plan.month_allowance,
    })
}

fn summary_json(summary: &Summary) -> Value {
    json!({
        "calls": summary.calls,
        "rows": summary.rows,
        "partitions": summary.partitions,
        "chunks_done": summary.chunks_done,
        "chunks_split": summary.chunks_split,
        "windows_narrowed": summary.windows_narrowed,
        "page_rows": summary.page_rows,
        "skipped": summary.skipped,
        "chunks_by_others": summary.chunks_by_others,
        "provisional": summary.provisional,
        "sampled": summary.sampled,
        "failed": summary.failed.iter().map(|f| json!({"chunk": f.chunk.to_string(), "reason": f.reason})).collect::<Vec<_>>(),
        "paused": summary.paused.as_ref().map(|p| p.to_string()),
    })
}
