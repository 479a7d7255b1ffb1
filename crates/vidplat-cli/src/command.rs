//! The command tree: each row of the services' tables (`CommandSpec`) made
//! into a clap command, beside the hand-written extras.

use crate::commands::{Extra, Making};
pub use crate::spec::{commands, find, ArgSpec, CommandSpec};
use clap::{Arg, ArgAction, Command};
use vidplat_core::{Kind, Place, Service};

pub const SERVICES: [Service; 3] = [Service::Encoder, Service::Vms, Service::Analytics];

/// The service whose command is `name` (`encoder`, `vms`, `analytics`).
pub fn service_named(name: &str) -> Option<Service> {
    SERVICES.into_iter().find(|service| service.as_str() == name)
}

/// The whole `vidplat` command, every command made: to read the tree
/// (help, completion, man pages).
pub fn root() -> Command {
    tree(Making::Whole)
}

/// The `vidplat` command to run one command line: each command's flags,
/// help and subcommands are made only when it is on the line (clap's
/// `Command::defer`). A command line runs one of about 130 commands, and
/// making them all was most of its start-up (BENCHMARKS.md (m)).
pub fn root_to_run() -> Command {
    tree(Making::Lazily)
}

fn tree(making: Making) -> Command {
    Command::new("vidplat")
        .version(env!("CARGO_PKG_VERSION"))
        .about("The video platform's three services from a shell: encoding, video management, viewing analytics")
        .after_help(EXIT_CODES)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .args(global_args())
        .subcommand(service(
            Service::Encoder,
            "The encoding service: tasks, presets, profiles, imports",
            making,
        ))
        .subcommand(service(
            Service::Vms,
            "The video management service: contents, pages, sites, policies",
            making,
        ))
        .subcommand(service(
            Service::Analytics,
            "Viewing analytics, basic (/v1) and cloud (/v2): 3 calls a minute, 1 at a time",
            making,
        ))
        .subcommands(Extra::under(None).map(|extra| extra.command(making)))
}

/// The exit codes, the same for every command.
pub const EXIT_CODES: &str = "\
Exit codes:
  0    ok
  1    the API answered an error, or the call failed (connection, timeout, undecodable answer)
  2    invalid input or configuration: nothing was sent
  3    a quota refused the call (with --quota fail-fast), or the month's quota is spent
  4    a waited task ended failed or canceled
  5    a signed URL or a webhook is expired, too old or invalid (verify-url, webhook verify)
  6    catalog plan: changes are planned (0: none)
  124  a wait timed out
  130  interrupted";

pub(crate) fn global_args() -> Vec<Arg> {
    let global = |arg: Arg| arg.global(true).help_heading("Global options");
    vec![
        global(
            Arg::new("profile")
                .long("profile")
                .env("VIDPLAT_PROFILE")
                .value_name("NAME")
                .help(
                    "The profile of the configuration directory to use; named with this flag it is the whole set-up \
                     (the VIDPLAT_* URL, login and key variables are not read) [default: default, when it exists]",
                ),
        ),
        global(
            Arg::new("output")
                .long("output")
                .short('o')
                .value_name("FORMAT")
                .value_parser(["json", "ndjson", "table", "csv", "yaml"])
                .help(
                    "How data is printed on stdout [default: the `output` of a profile named with --profile, \
                     else VIDPLAT_OUTPUT, else the profile's `output`, else table on a terminal and json elsewhere]",
                ),
        ),
        global(
            Arg::new("columns")
                .long("columns")
                .value_name("A,B.C")
                .value_delimiter(',')
                .help("The columns of the output, in every format (dotted paths into each row) [default: a table shows a list's chosen columns, csv every member, json each row whole]"),
        ),
        global(
            Arg::new("jq")
                .long("jq")
                .value_name("EXPR")
                .help("Filter what is printed with a jq expression, each row of a list (or the value) as JSON, before --columns and the format: `--jq 'select(.status == \"failed\") | {id, error_code}'`"),
        ),
        global(
            Arg::new("debug")
                .long("debug")
                .action(ArgAction::SetTrue)
                .help("Write the call's spans and events as JSON lines to stderr (secrets redacted)"),
        ),
        global(
            Arg::new("quota")
                .long("quota")
                .value_name("MODE")
                .value_parser(["wait", "fail-fast"])
                .help("When the analytics quota has no turn: wait for it (shown on stderr), or exit 3 [default: wait]"),
        ),
        global(
            Arg::new("analytics-window")
                .long("analytics-window")
                .env("VIDPLAT_ANALYTICS_WINDOW")
                .value_name("DURATION")
                .value_parser(humantime::parse_duration)
                // For a simulator started with a shorter window; kept out of every command's help (the README names it).
                .hide(true)
                .help("The analytics per-minute quota window the client keeps (documented: 60s); shorter only against a simulator started with a shorter one"),
        ),
        global(
            Arg::new("analytics-counted-until")
                .long("analytics-counted-until")
                .env("VIDPLAT_ANALYTICS_COUNTED_UNTIL")
                .value_name("WHEN")
                .value_parser(["end", "turn"])
                // One reading of the documents against another; docs/cli.md names it.
                .hide(true)
                .help("Until when an analytics call counts in the per-minute quota: a minute after it ends (keeps to the limit however the service counts), or a minute after its turn (faster when queries take seconds; right only if the service counts a call from its arrival) [default: end]"),
        ),
        global(
            Arg::new("timeout")
                .long("timeout")
                .value_name("DURATION")
                .value_parser(humantime::parse_duration)
                .help("Longest time for a call with its retries and quota waits, or for a wait (e.g. 90s, 10m); a command of many calls (export, batch, catalog, watch) gives it to each call [default: the profile's, else 1h for waits]"),
        ),
        global(
            Arg::new("api-key-file")
                .long("api-key-file")
                .value_name("FILE")
                .help("Read the API key from this file (else VIDPLAT_API_KEY, else the profile's)"),
        ),
        global(url_arg("encoder-url", "VIDPLAT_ENCODER_URL", "The encoding service's base URL")),
        global(url_arg("vms-url", "VIDPLAT_VMS_URL", "The video management service's base URL")),
        global(url_arg("analytics-url", "VIDPLAT_ANALYTICS_URL", "The analytics service's base URL")),
        global(
            Arg::new("login-id")
                .long("login-id")
                .value_name("ID")
                // As the analytics operations' `login_id` parameter of the same id is parsed: one type for both.
                .value_parser(crate::flags::parser_of(Kind::Text))
                .help("The account's login ID (else VIDPLAT_LOGIN_ID, else the profile's)"),
        ),
    ]
}

fn url_arg(name: &'static str, variable: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .value_name("URL")
        .help(format!("{help} (else {variable}, else the profile's)"))
}

fn service(service: Service, about: &'static str, making: Making) -> Command {
    let listed = Command::new(service.as_str())
        .about(about)
        .subcommand_required(true)
        .arg_required_else_help(true);
    match (service, making) {
        (Service::Encoder, Making::Lazily) => {
            listed.defer(|listed| service_made(Service::Encoder, listed, Making::Lazily))
        }
        (Service::Vms, Making::Lazily) => listed.defer(|listed| service_made(Service::Vms, listed, Making::Lazily)),
        (Service::Analytics, Making::Lazily) => {
            listed.defer(|listed| service_made(Service::Analytics, listed, Making::Lazily))
        }
        (service, Making::Whole) => service_made(service, listed, Making::Whole),
    }
}

/// A service's commands. (Its operations are made together: an operation's
/// own flag shadows a global one of the same name only when it is there
/// before the service gives it its global flags.)
fn service_made(service: Service, listed: Command, making: Making) -> Command {
    listed
        .subcommands(commands(service).map(|spec| operation(service, spec)))
        .subcommands(Extra::under(Some(service)).map(|extra| extra.command(making)))
}

/// One operation's command.
fn operation(service: Service, spec: CommandSpec) -> Command {
    let meta = spec.operation;
    let mut long = format!("{}\n\n{} {}", meta.summary, meta.method, meta.path);
    if meta.route_assumed {
        long.push_str(" (the route is the YAML's assumption: the documents do not show it)");
    }
    if let Some(permission) = meta.permission {
        long.push_str(&format!(
            "; needs the {permission} permission{}",
            if meta.permission_assumed { " (assumed)" } else { "" }
        ));
    }
    if !spec.help.description.is_empty() {
        long.push_str("\n\n");
        long.push_str(spec.help.description);
    }
    // The flags every operation of its kind has, beside those of its own values.
    let mut fixed = Vec::new();
    if let Some(body) = meta.body {
        fixed.push(
            Arg::new("body")
                .long("body")
                .value_name("@FILE|-")
                .help(if body.json {
                    "The whole body: @file.json, @file.yaml, or - for JSON or YAML on stdin (flags and --set apply over it)"
                } else {
                    "The body, sent as it is: @file, or - for stdin"
                })
                .help_heading("Body"),
        );
        fixed.push(
            Arg::new("body-template")
                .long("body-template")
                .action(ArgAction::SetTrue)
                .help("Print a body with every member, its rule and what the documents do not show; send nothing")
                .help_heading("Body"),
        );
        if let Some(rows_of) = meta.csv_rows_of {
            fixed.push(
                Arg::new("check")
                    .long("check")
                    .action(ArgAction::SetTrue)
                    .help(format!(
                        "Check the CSV file of --body offline, each row as a `{}` body (a column per member: \
                         an assumption, the columns are not shown), and send nothing; every problem by row",
                        crate::spec::kebab(rows_of)
                    ))
                    .help_heading("Body"),
            );
        }
        if body.json {
            fixed.push(
                Arg::new("set")
                    .long("set")
                    .value_name("PATH=VALUE")
                    .action(ArgAction::Append)
                    .help("Set a body member, e.g. streams[0].video.height=720 (PATH:=JSON for a JSON value)")
                    .help_heading("Body"),
            );
        }
    }
    if spec.list() {
        fixed.push(
            Arg::new("all")
                .long("all")
                .action(ArgAction::SetTrue)
                .help("Every page, streamed row by row")
                .help_heading("Paging"),
        );
        // Only a list whose first page says how many pages there are can ask for pages ahead.
        if meta.paging == Some(vidplat_core::PagingStyle::LastPage) {
            fixed.push(
                Arg::new("prefetch")
                    .long("prefetch")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u16).range(1..=64))
                    .help("Pages on the wire at once with --all: the list says how many pages it has [default: 1]")
                    .help_heading("Paging"),
            );
        }
        fixed.push(
            Arg::new("max-pages")
                .long("max-pages")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help(if meta.rate_limited {
                    "Stop --all after N pages, quietly [default: stop with an error past 100: each page is a call of the month's 50,000]"
                } else {
                    "Stop --all after N pages, quietly [default: stop with an error past 10,000]"
                })
                .help_heading("Paging"),
        );
        fixed.push(
            Arg::new("max-items")
                .long("max-items")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("Stop after this many rows")
                .help_heading("Paging"),
        );
    }
    if crate::commands::waits_after(meta) {
        fixed.extend(crate::commands::wait_after_flags());
    }
    if meta.method == vidplat_core::Method::Delete {
        fixed.push(crate::confirm::yes_flag());
    }
    fixed.extend(crate::run::seeing_the_call());
    // A body member named like another flag of the command is `--body-<name>`.
    let globals = global_args();
    let taken: Vec<String> = globals
        .iter()
        .chain(&fixed)
        .filter_map(Arg::get_long)
        .map(str::to_owned)
        .chain(
            spec.args()
                .filter(|a| a.argument.place != Place::Body)
                .map(|a| a.flag()),
        )
        .collect();
    let values: Vec<Arg> = spec
        .args()
        .map(|arg| match arg.argument.place {
            Place::Body if taken.contains(&arg.flag()) => crate::flags::flag(arg, format!("body-{}", arg.flag())),
            _ => crate::flags::flag(arg, arg.flag()),
        })
        .collect();
    let example = example(service, spec, &values);
    Command::new(spec.name())
        .about(meta.summary)
        .long_about(long)
        .visible_aliases(spec.aliases())
        .args(values)
        .args(fixed)
        .after_help(example)
}

/// The command's examples, from its row: its required flags with a value of
/// their kind; a list read whole; a body given as a file.
fn example(service: Service, spec: CommandSpec, flags: &[Arg]) -> String {
    let required = crate::spec::required_flags(spec.args().zip(flags), spec.operation.body);
    let base = format!("vidplat {} {}{}", service.as_str(), spec.name(), required.parameters);
    let mut call = format!("{base}{}", required.members);
    let body = spec.operation.body;
    match body {
        Some(body) if !body.json => call.push_str(" --body @FILE"),
        Some(_) if required.body_file => call.push_str(" --body @body.json"),
        _ => {}
    }
    let mut text = format!("Examples:\n  {call}\n");
    if spec.list() {
        text.push_str(&format!("  {base} --all -o ndjson   # every page, a JSON line a row\n"));
    }
    if body.is_some_and(|b| b.json) {
        text.push_str(&format!(
            "  {base} --body-template > body.yaml   # every member, its type and rule\n"
        ));
    }
    if crate::commands::waits_after(spec.operation) {
        text.push_str(&format!("  {call} --wait   # until its tasks end\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_to_run_makes_a_command_only_when_it_is_run() {
        let root = root_to_run();
        for service in ["encoder", "vms", "analytics"] {
            let listed = root.find_subcommand(service).expect("listed");
            assert_eq!(
                listed.get_subcommands().count(),
                0,
                "{service}'s commands made before it is run"
            );
        }
        let extra = root.find_subcommand("batch").expect("listed");
        assert_eq!(extra.get_arguments().count(), 0, "batch's flags made before it is run");
        // What is run is made as it is parsed.
        let matches = root
            .try_get_matches_from(["vidplat", "encoder", "get-task", "--task-id", "7"])
            .expect("parsed");
        let (_, encoder) = matches.subcommand().expect("a service");
        let (_, get_task) = encoder.subcommand().expect("an operation");
        assert_eq!(
            get_task.get_one::<serde_json::Value>("task-id"),
            Some(&serde_json::json!(7))
        );
    }

    #[test]
    fn every_command_that_shadows_a_global_flag_is_made_at_once() {
        let globals: Vec<String> = global_args().iter().map(|arg| arg.get_id().to_string()).collect();
        for extra in Extra::ALL {
            let mut made = extra.command(Making::Lazily);
            made.build();
            let shadowed: Vec<String> = made
                .get_arguments()
                .map(|arg| arg.get_id().to_string())
                .filter(|id| globals.contains(id))
                .collect();
            assert!(
                shadowed.is_empty() || extra.made_at_once(),
                "{}: its flags named as global ones: {shadowed:?}",
                extra.name()
            );
        }
    }
}
