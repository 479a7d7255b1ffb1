//! `vidplat`, the command line of the video platform: every operation of the
//! three services (generated from the same YAML and operation table as the
//! clients), with vidplat's runtime behind it.
//!
//! The binary is a thin `main` over [`run`], which tests call in-process.

#[doc(hidden)] // for the repository's tests: the generated command specs
pub mod command;
mod commands;
mod config;
mod confirm;
mod failure;
mod flags;
mod jq;
mod output;
mod progress;
mod run;
mod spec;

pub use command::{root, root_to_run, EXIT_CODES};
pub use failure::Exit;
pub use output::TerminalSafe;

use crate::command::{find, service_named};
use crate::commands::{Extra, Invocation};
use crate::failure::Failure;
use crate::output::Format;
use crate::run::{Args, Outcome, Runner, Show};
use clap::ArgMatches;
use futures::future::LocalBoxFuture;
use futures::StreamExt as _;
use std::cell::RefCell;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::time::Duration;
use vidplat_core::Service;

/// Where a command reads and writes: stdout for data, stderr for the rest.
pub struct Io<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Whether stdout is a terminal (a table then, else JSON, unless `--output` says).
    pub terminal: bool,
    /// Whether stderr is a terminal (progress drawn with a spinner then, else plain lines).
    pub stderr_terminal: bool,
    /// Whether stdin is a terminal (a key being added is then asked for, hidden).
    pub stdin_terminal: bool,
}

/// Runs one command line; the exit code.
pub fn run<'a>(
    argv: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    io: &'a mut Io<'_>,
) -> LocalBoxFuture<'a, i32> {
    run_args(argv.into_iter().map(Into::into).collect(), io)
}

/// The future is boxed here, in the library, so that in release builds the
/// command line's code is compiled once, here, and not again in the binary
/// that awaits it: an `async fn`'s body is compiled where its future is
/// polled (docs/decisions/0007).
fn run_args<'a>(argv: Vec<OsString>, io: &'a mut Io<'_>) -> LocalBoxFuture<'a, i32> {
    Box::pin(run_argv(argv, io))
}

async fn run_argv(argv: Vec<OsString>, io: &mut Io<'_>) -> i32 {
    let matches = match command::root_to_run().try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(e) => {
            let mut text = if io.terminal {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            if e.kind() == clap::error::ErrorKind::UnknownArgument && takes_set(&argv) {
                text.push_str(
                    "\ntip: a body member without a flag of its own is set with --set PATH=VALUE \
                     (e.g. --set 'streams[0].video.height=720'); --body-template lists every member\n",
                );
            }
            let (out, code) = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => (&mut *io.stdout, 0),
                clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    (&mut *io.stderr, Exit::Invalid as i32)
                }
                _ => (&mut *io.stderr, Exit::Invalid as i32),
            };
            let _ = out.write_all(text.as_bytes());
            return code;
        }
    };
    // What goes wrong without ending the command (a quota store that cannot
    // be used, so the quota is counted in this process only) is said on
    // stderr; `--debug` shows everything instead.
    let _warnings = (!matches.get_flag("debug")).then(warnings_subscriber);
    let format = config::named_output_format(&matches);
    // Errors are JSON when JSON was asked for, not when it is only the default off a terminal.
    let json_errors = matches!(format, Ok(Some(Format::Json)));
    let interrupted = interruption_note(&matches);
    // Ctrl-C ends the command here, so that it can say what it leaves behind.
    // Polled first (`biased`): the handler is installed on that first poll,
    // before the command's own first step, which may already say on stderr
    // that it is waiting; a Ctrl-C after that line then never kills it unheard.
    let result = tokio::select! {
        biased;
        _ = tokio::signal::ctrl_c() => Err(Failure::Interrupted(interrupted)),
        result = dispatch(&matches, format, io) => result,
    };
    let _ = io.stdout.flush();
    match result {
        Ok(()) => Exit::Ok as i32,
        // A closed pipe (`vidplat … | head`) is how a reader says it has enough.
        Err(Failure::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok as i32,
        // An answer, said on stdout and stderr already: not an error.
        Err(failure @ Failure::ChangesPlanned(_)) => failure.exit() as i32,
        Err(failure) => {
            // A message may quote a server, a file or Redis, whoever built it:
            // its control characters are escaped here, once for every error.
            let _ = if json_errors {
                writeln!(io.stderr, "{}", failure::json_line(&failure.to_json()))
            } else {
                writeln!(
                    io.stderr,
                    "error: {}",
                    vidplat_core::escape_controls(&failure.to_string())
                )
            };
            if !json_errors && unauthorized_without_key(&failure, &matches) {
                let _ = writeln!(io.stderr, "{NO_KEY_TIP}");
            }
            failure.exit() as i32
        }
    }
}

/// Said under a 401 when the set-up holds no API key: the request went without one.
const NO_KEY_TIP: &str =
    "tip: no API key was given: --api-key-file FILE, VIDPLAT_API_KEY, or a profile (`vidplat profile add`)";

fn unauthorized_without_key(failure: &Failure, matches: &ArgMatches) -> bool {
    matches!(failure, Failure::Sdk(error) if error.status() == Some(401))
        && !sent_without_key_by_design(matches)
        && config::Setup::resolve(matches).is_ok_and(|setup| setup.api_key().is_none())
}

/// An operation that authenticates otherwise (the basic real-time counts, by login ID).
fn sent_without_key_by_design(matches: &ArgMatches) -> bool {
    let Some((name, sub)) = matches.subcommand() else {
        return false;
    };
    service_named(name)
        .zip(sub.subcommand_name())
        .and_then(|(service, command)| find(service, command))
        .is_some_and(|spec| !spec.operation.authenticated)
}

async fn dispatch(
    matches: &ArgMatches,
    format: Result<Option<Format>, Failure>,
    io: &mut Io<'_>,
) -> Result<(), Failure> {
    let format = format?.unwrap_or(if io.terminal { Format::Table } else { Format::Json });
    let columns: Option<Vec<String>> = matches.get_many::<String>("columns").map(|c| c.cloned().collect());
    // A filter that does not compile is refused before anything is read or sent.
    let jq = match matches.get_one::<String>("jq") {
        Some(code) => Some(std::sync::Arc::new(jq::Jq::compile(code)?)),
        None => None,
    };
    let shape = output::Shape { columns, jq };
    let (name, sub) = matches
        .subcommand()
        .ok_or_else(|| Failure::invalid("vidplat", "needs a command"))?;
    let timeout = matches.get_one::<Duration>("timeout").copied();
    if let Some(extra) = Extra::find(None, name) {
        let invocation = invocation(matches, sub, io, format, shape, timeout);
        return extra.run(invocation).await;
    }
    let service = service_named(name).ok_or_else(|| Failure::invalid("vidplat", format!("has no command `{name}`")))?;
    let (command, op_matches) = sub
        .subcommand()
        .ok_or_else(|| Failure::invalid(name, "needs a command"))?;
    if let Some(spec) = find(service, command) {
        if flag(op_matches, "body-template") {
            io.stdout.write_all(spec.help.body_template.as_bytes())?;
            return Ok(());
        }
        if let (Some(rows_of), true) = (spec.operation.csv_rows_of, flag(op_matches, "check")) {
            let source = op_matches
                .get_one::<String>("body")
                .ok_or_else(|| Failure::invalid("--check", "needs the file: --body @FILE (or - for stdin)"))?;
            let bytes = run::read_source(source, io.stdin)?;
            return commands::check_csv_rows(service, rows_of, &bytes, io.stderr);
        }
        // Every value is read before a client exists: a bad one is exit 2 whatever the set-up.
        let args = Args::from_matches(spec, op_matches, io.stdin)?;
        let client = config::client_builder(matches)?.build()?;
        let _debug = matches.get_flag("debug").then(debug_subscriber);
        let show = Show::asked(op_matches);
        if spec.operation.method == vidplat_core::Method::Delete && show.is_none() {
            confirm::destroying(&destroyed(spec, &args), flag(op_matches, "yes"), io)?;
        }
        let wait = commands::waits_after(spec.operation) && flag(op_matches, "wait") && show.is_none();
        let row_shape = shape.clone().or_columns(|| spec.default_columns(format));
        let runner = Runner {
            format,
            shape: row_shape.clone(),
            show,
            all: spec.list() && flag(op_matches, "all"),
            prefetch: one::<u16>(op_matches, "prefetch").map_or(1, usize::from),
            max_items: one::<u64>(op_matches, "max-items").map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            max_pages: one::<u64>(op_matches, "max-pages").map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            count_rows: io.stderr_terminal && !io.terminal,
            out: RefCell::new(&mut *io.stdout),
            notes: RefCell::new(Vec::new()),
            secret_members: spec::secret_members(service),
        };
        let quota_waits = (service == Service::Analytics && show.is_none())
            .then(|| client.analytics_quota().map(|q| q.watch_waits()))
            .flatten();
        let call = async {
            let (id, data) = (spec.operation.id, args.for_builder());
            let made = client.any_call(service, id, &data)?;
            run::ran(&runner, name, command, &args, made).await
        };
        let outcome = with_quota_waits(call, quota_waits, &mut *io.stderr, io.stderr_terminal).await;
        for note in runner.notes.take() {
            writeln!(io.stderr, "{note}")?;
        }
        drop(runner);
        let outcome = outcome?;
        let Outcome::Value(value) = outcome else { return Ok(()) };
        if wait {
            let ids: Vec<u64> = value["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["id"].as_u64())
                .collect();
            writeln!(io.stderr, "registered {} task(s): {ids:?}", ids.len())?;
            let invocation = invocation(matches, op_matches, io, format, shape, timeout);
            return commands::wait_tasks(&client, &ids, invocation).await;
        }
        return shown(output::value(io.stdout, format, row_shape, &value)?, io.stderr);
    }
    let extra = Extra::find(Some(service), command).ok_or_else(|| Failure::unknown_command(name, command))?;
    let invocation = invocation(matches, op_matches, io, format, shape, timeout);
    extra.run(invocation).await
}

/// What a DELETE destroys, in the words of its summary and the path's values
/// (`delete preset 7`).
fn destroyed(spec: crate::spec::CommandSpec, args: &Args) -> String {
    let data = args.for_builder();
    let values: Vec<String> = spec
        .operation
        .arguments
        .iter()
        .filter(|argument| argument.place == vidplat_core::Place::Path)
        .filter_map(|argument| data.members().get(argument.name))
        .map(|value| value.as_str().map_or_else(|| value.to_string(), str::to_owned))
        .collect();
    let mut what = spec.operation.summary.to_lowercase();
    for value in values {
        what.push(' ');
        what.push_str(&value);
    }
    what
}

/// What a command that is not an operation runs with: the whole command
/// line's matches, its own, and the global output settings.
fn invocation<'a, 'io>(
    global: &'a ArgMatches,
    matches: &'a ArgMatches,
    io: &'a mut Io<'io>,
    format: Format,
    shape: output::Shape,
    timeout: Option<Duration>,
) -> Invocation<'a, 'io> {
    Invocation {
        global,
        matches,
        io,
        format,
        shape,
        timeout,
        root,
    }
}

/// What printing left to say: a note on stderr (an empty table's).
fn shown(note: Option<&str>, stderr: &mut dyn Write) -> Result<(), Failure> {
    if let Some(note) = note {
        writeln!(stderr, "{note}")?;
    }
    Ok(())
}

/// Whether `argv` names an operation command whose JSON body takes `--set`.
fn takes_set(argv: &[OsString]) -> bool {
    argv.windows(2).any(|pair| {
        let (Some(service), Some(command)) = (pair[0].to_str(), pair[1].to_str()) else {
            return false;
        };
        service_named(service)
            .and_then(|service| find(service, command))
            .and_then(|spec| spec.operation.body)
            .is_some_and(|body| body.json)
    })
}

/// What Ctrl-C leaves behind: for an export, where its state is and how to
/// resume; for any other command, nothing to say but that it stopped.
fn interruption_note(matches: &ArgMatches) -> String {
    let export = matches
        .subcommand()
        .and_then(|(service, sub)| Some((service_named(service)?, sub)))
        .and_then(|(service, sub)| Some((service, sub.subcommand()?)))
        .filter(|(service, (name, _))| Extra::find(Some(*service), name) == Some(Extra::Export));
    export
        .and_then(|(_, (_, export))| commands::export_interruption_note(export))
        .unwrap_or_else(|| "interrupted".to_owned())
}

/// A flag that only some commands define: unset where it is not defined.
fn flag(matches: &ArgMatches, id: &str) -> bool {
    one::<bool>(matches, id).unwrap_or(false)
}

/// An option that only some commands define: `None` where it is not defined.
fn one<T: Clone + Send + Sync + 'static>(matches: &ArgMatches, id: &str) -> Option<T> {
    matches.try_get_one::<T>(id).ok().flatten().cloned()
}

/// Runs `call`, showing each analytics quota wait on stderr (counted down on a terminal).
pub(crate) async fn with_quota_waits<T>(
    call: impl std::future::Future<Output = Result<T, Failure>>,
    waits: Option<tokio::sync::watch::Receiver<Option<vidplat::QuotaWait>>>,
    stderr: &mut dyn Write,
    terminal: bool,
) -> Result<T, Failure> {
    let Some(waits) = waits else { return call.await };
    let mut waits = tokio_stream_of(waits);
    let mut call = std::pin::pin!(call);
    let mut line = progress::QuotaWaitLine::new(terminal);
    let mut ticks = tokio::time::interval(progress::QuotaWaitLine::TICK);
    loop {
        tokio::select! {
            result = &mut call => return result,
            Some(wait) = waits.next() => {
                // Progress is best effort: a closed stderr does not stop the call.
                let _ = line.show(stderr, wait);
            }
            _ = ticks.tick() => line.tick(),
        }
    }
}

/// The values a watch channel takes, as a stream (ends when the sender is gone).
fn tokio_stream_of<T: Clone + Send + Sync + 'static>(
    receiver: tokio::sync::watch::Receiver<T>,
) -> futures::stream::BoxStream<'static, T> {
    futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.changed().await.ok()?;
        let value = receiver.borrow_and_update().clone();
        Some((value, receiver))
    })
    .boxed()
}

/// vidplat's warnings on stderr, a line each (`warning: …`), escaped.
fn warnings_subscriber() -> tracing::subscriber::DefaultGuard {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(LevelFilter::WARN)
        .event_format(WarningLine::default())
        .finish()
        .with(Targets::new().with_target("vidplat", LevelFilter::WARN));
    tracing::subscriber::set_default(subscriber)
}

/// An event as `warning: ` and its message and fields, on one line, each
/// warning once (a store that cannot be used says so at every call).
#[derive(Default)]
struct WarningLine {
    said: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for WarningLine
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        context: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut writer: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        use tracing_subscriber::fmt::FormatFields as _;
        let mut message = String::new();
        context.format_fields(tracing_subscriber::fmt::format::Writer::new(&mut message), event)?;
        // A long watch says only so many different things; past that, each is said.
        let first = self
            .said
            .lock()
            .map_or(true, |mut said| said.len() >= 1_000 || said.insert(message.clone()));
        match first {
            true => writeln!(writer, "warning: {}", vidplat_core::escape_controls(&message)),
            false => Ok(()),
        }
    }
}

/// `--debug`: the call's spans and events as JSON lines on stderr, for this command.
fn debug_subscriber() -> tracing::subscriber::DefaultGuard {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    // vidplat's own spans and events (which redact secrets); other crates' warnings only.
    let only_vidplat = Targets::new()
        .with_target("vidplat", LevelFilter::TRACE)
        .with_target("vidplat_core", LevelFilter::TRACE)
        .with_default(LevelFilter::WARN);
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_max_level(LevelFilter::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .finish()
        .with(only_vidplat);
    tracing::subscriber::set_default(subscriber)
}

#[cfg(test)]
mod tests {
    /// The missing-URL message names each service's URL flag, `vidplat profile
    /// add` and `vidplat sim --print-env`: the command line has each.
    #[test]
    fn the_command_line_has_what_the_missing_url_message_names() {
        let root = crate::command::root();
        let has_flag =
            |command: &clap::Command, flag: &str| command.get_arguments().any(|arg| arg.get_long() == Some(flag));
        for service in crate::command::SERVICES {
            let flag = crate::failure::url_flag(service);
            assert!(has_flag(&root, &flag), "--{flag}");
        }
        let profile = root.find_subcommand("profile").expect("vidplat profile");
        assert!(profile.find_subcommand("add").is_some(), "vidplat profile add");
        let sim = root.find_subcommand("sim").expect("vidplat sim");
        assert!(has_flag(sim, "print-env"), "vidplat sim --print-env");
    }
}
