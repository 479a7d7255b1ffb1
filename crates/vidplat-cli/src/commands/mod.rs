//! The commands that are not one operation each, one file per command (its
//! arguments and its run function together). [`Extra`] names each one and
//! says where it sits: the one place a name is defined and dispatched.

mod api;
mod batch;
mod catalog;
mod completion;
mod export;
mod man;
mod profile;
mod quota;
mod sign_page;
mod sim;
mod verify_url;
mod wait_task;
mod wait_task_import;
mod watch;
mod webhook;

use crate::failure::Failure;
use crate::output::{self, Format};
use crate::Io;
use clap::{Arg, ArgMatches, Command};
use serde_json::Value;
use std::time::Duration;
use vidplat::waiters::Polling;
use vidplat::Client;
use vidplat_core::Service;

pub use batch::check_csv_rows;
pub use export::interruption_note as export_interruption_note;
pub use wait_task::{wait_after_flags, wait_tasks, waits_after};

/// A command that is not an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    WaitTask,
    WaitTaskImport,
    SignPage,
    VerifyUrl,
    Quota,
    Export,
    Batch,
    Api,
    Catalog,
    Watch,
    Webhook,
    Profile,
    Sim,
    Completion,
    Man,
}

/// How a command's flags and subcommands are made.
#[derive(Clone, Copy)]
pub enum Making {
    /// At once. clap's `help` subcommands (`vidplat analytics help export
    /// <TAB>`) list only the commands made when their parent is built.
    Whole,
    /// When the command is the one run.
    Lazily,
}

impl Making {
    /// `listed` (a name and a summary) with what `made` gives it, now or when it runs.
    pub fn apply(self, listed: Command, made: fn(Command) -> Command) -> Command {
        match self {
            Making::Whole => made(listed),
            Making::Lazily => listed.defer(made),
        }
    }
}

impl Extra {
    /// Every one, in the order help lists them.
    pub const ALL: [Extra; 15] = [
        Extra::WaitTask,
        Extra::WaitTaskImport,
        Extra::SignPage,
        Extra::VerifyUrl,
        Extra::Quota,
        Extra::Export,
        Extra::Batch,
        Extra::Api,
        Extra::Catalog,
        Extra::Watch,
        Extra::Webhook,
        Extra::Profile,
        Extra::Sim,
        Extra::Completion,
        Extra::Man,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Extra::WaitTask => "wait-task",
            Extra::WaitTaskImport => "wait-task-import",
            Extra::SignPage => "sign-page",
            Extra::VerifyUrl => "verify-url",
            Extra::Quota => "quota",
            Extra::Export => "export",
            Extra::Batch => "batch",
            Extra::Api => "api",
            Extra::Catalog => "catalog",
            Extra::Watch => "watch",
            Extra::Webhook => "webhook",
            Extra::Profile => "profile",
            Extra::Sim => "sim",
            Extra::Completion => "completion",
            Extra::Man => "man",
        }
    }

    /// The service it sits under, or `None` at the top (`vidplat profile`).
    pub fn service(self) -> Option<Service> {
        match self {
            Extra::WaitTask | Extra::WaitTaskImport => Some(Service::Encoder),
            Extra::SignPage | Extra::VerifyUrl => Some(Service::Vms),
            Extra::Quota | Extra::Export => Some(Service::Analytics),
            Extra::Batch
            | Extra::Api
            | Extra::Catalog
            | Extra::Watch
            | Extra::Webhook
            | Extra::Profile
            | Extra::Sim
            | Extra::Completion
            | Extra::Man => None,
        }
    }

    /// The ones under `service` (`None`: at the top).
    pub fn under(service: Option<Service>) -> impl Iterator<Item = Extra> {
        Extra::ALL.into_iter().filter(move |extra| extra.service() == service)
    }

    /// The one named `name` under `service`.
    pub fn find(service: Option<Service>, name: &str) -> Option<Extra> {
        Extra::under(service).find(|extra| extra.name() == name)
    }

    /// What it does, as its parent's help lists it.
    pub fn about(self) -> &'static str {
        match self {
            Extra::WaitTask => "Wait for tasks to end: each status change on stderr, the final tasks on stdout",
            Extra::WaitTaskImport => "Wait for a CSV import job's tasks to finish; the job on stdout",
            Extra::SignPage => "Print a viewing page's signed URL",
            Extra::VerifyUrl => "Check a signed page URL: its grant on stdout, exit 5 when expired or invalid",
            Extra::Quota => {
                "The analytics quota: the per-minute window and its calls, whether the slot is held, the month's \
                 count (the account's, from Redis, when the profile has a quota store)"
            }
            Extra::Export => "Every row of a report over a period into files, one per day (or per period), under the quota; rerun to resume",
            Extra::Batch => "Run one operation over every row of a CSV or NDJSON file, resumably",
            Extra::Api => "Send a request to a path of a service (the escape hatch for routes no operation holds)",
            Extra::Catalog => "The account's set-up as a file: presets, profiles, categories, labels, notification settings",
            Extra::Watch => "Changes as events, out of polling: one JSON line per change seen",
            Extra::Webhook => "Webhook signatures (Standard Webhooks)",
            Extra::Profile => "Named set-ups in the configuration directory (the API key in a file only its owner reads)",
            Extra::Sim => "Run the simulator of the three services on 127.0.0.1 and print the VIDPLAT_* variables that point at it",
            Extra::Completion => "Print the shell completion script",
            Extra::Man => "Write the man pages into DIR: vidplat.1 and one per command",
        }
    }

    /// Its clap command, its flags and subcommands made as `making` says.
    pub fn command(self, making: Making) -> Command {
        let define: fn(Command) -> Command = match self {
            Extra::WaitTask => wait_task::define,
            Extra::WaitTaskImport => wait_task_import::define,
            Extra::SignPage => sign_page::define,
            Extra::VerifyUrl => verify_url::define,
            Extra::Quota => quota::define,
            Extra::Export => export::define,
            Extra::Batch => batch::define,
            Extra::Api => api::define,
            Extra::Catalog => catalog::define,
            Extra::Watch => watch::define,
            Extra::Webhook => webhook::define,
            Extra::Profile => profile::define,
            Extra::Sim => sim::define,
            Extra::Completion => completion::define,
            Extra::Man => man::define,
        };
        let listed = Command::new(self.name()).about(self.about());
        match self.made_at_once() {
            true => define(listed),
            false => making.apply(listed, define),
        }
    }

    /// Whether it is made at once even in the tree to run. clap gives a
    /// command made late the global flags before its own: one whose own
    /// flag has a global flag's name (`sim --analytics-window`, the
    /// simulator's window, not the client's) would be refused, and one whose
    /// flags sit under a heading of their own (`api`'s "Seeing the call")
    /// would list it after the global options.
    pub(crate) fn made_at_once(self) -> bool {
        matches!(self, Extra::Sim | Extra::Api)
    }

    /// Runs it.
    pub async fn run(self, invocation: Invocation<'_, '_>) -> Result<(), Failure> {
        match self {
            Extra::WaitTask => wait_task::run(invocation).await,
            Extra::WaitTaskImport => wait_task_import::run(invocation).await,
            Extra::SignPage => sign_page::run(invocation).await,
            Extra::VerifyUrl => verify_url::run(invocation).await,
            Extra::Quota => quota::run(invocation).await,
            Extra::Export => export::run(invocation).await,
            Extra::Batch => batch::run(invocation).await,
            Extra::Api => api::run(invocation).await,
            Extra::Catalog => catalog::run(invocation).await,
            Extra::Watch => watch::run(invocation).await,
            Extra::Webhook => webhook::run(invocation).await,
            Extra::Profile => profile::run(invocation).await,
            Extra::Sim => sim::run(invocation).await,
            Extra::Completion => completion::run(invocation).await,
            Extra::Man => man::run(invocation).await,
        }
    }
}

/// What a command runs with: the whole command line's values, its own, where
/// it writes, and the global output settings.
pub struct Invocation<'a, 'io> {
    /// The whole command line's matches (the global flags).
    pub global: &'a ArgMatches,
    /// The command's own.
    pub matches: &'a ArgMatches,
    pub io: &'a mut Io<'io>,
    pub format: Format,
    /// `--jq` and `--columns`.
    pub shape: crate::output::Shape,
    /// `--timeout`.
    pub timeout: Option<Duration>,
    /// The whole command tree (for the completion scripts).
    pub root: fn() -> Command,
}

impl Invocation<'_, '_> {
    /// A client from the flags, the variables and the profile.
    pub fn client(&self) -> Result<Client, Failure> {
        Ok(crate::config::client_builder(self.global)?.build()?)
    }

    /// `value` on stdout in the chosen format; an empty table's note on stderr.
    pub fn print(self, value: &Value) -> Result<(), Failure> {
        if let Some(note) = output::value(self.io.stdout, self.format, self.shape, value)? {
            writeln!(self.io.stderr, "{note}")?;
        }
        Ok(())
    }
}

/// `--poll-interval`, for the commands that wait.
pub fn poll_interval() -> Arg {
    Arg::new("poll-interval")
        .long("poll-interval")
        .value_name("DURATION")
        .value_parser(humantime::parse_duration)
        .help("First pause between polls; it grows to 30 s [default: 1s]")
}

/// The polling of a waiting command.
pub(crate) fn polling(matches: &ArgMatches, timeout: Option<Duration>) -> Polling {
    let mut polling = Polling::default();
    if let Some(interval) = matches.get_one::<Duration>("poll-interval") {
        polling.initial_interval = *interval;
        polling.max_interval = polling.max_interval.max(*interval);
    }
    if let Some(timeout) = timeout {
        polling.max_wait = timeout;
    }
    polling
}
