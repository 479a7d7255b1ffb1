//! `vidplat-sim` (`cargo run -p vidplat-sim`): runs the simulator on
//! 127.0.0.1 until Ctrl-C and prints, as shell lines to evaluate, where to
//! point a client. `vidplat-sim --help` says the rest.

use clap::Parser;
use std::collections::BTreeSet;
use std::io::Write as _;
use vidplat_sim::{Permission, Scenario, SimConfig, Simulator, Updates, DEMO_API_KEY, DEMO_LOGIN_ID};

/// An in-memory simulator of the video platform's three services (encoding,
/// video management, viewing analytics), for trying vidplat without an account.
///
/// It listens on 127.0.0.1 until Ctrl-C; what it holds is lost when it stops.
#[derive(Debug, Parser)]
#[command(name = "vidplat-sim", version, after_help = after_help())]
struct Args {
    /// Port on 127.0.0.1; 0 picks a free one
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,
    /// Tasks move every 20 ms instead of 800 ms; nothing else changes (analytics latency and limits included)
    #[arg(long)]
    fast: bool,
    /// Analytics calls allowed a minute (the documented limit is 3)
    #[arg(long, value_name = "N", default_value_t = SimConfig::default().analytics_per_minute)]
    analytics_per_minute: u32,
    /// The analytics per-minute window (documented: 60s), e.g. 2s: shorter for tests, with the client's --analytics-window the same
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    analytics_window: Option<std::time::Duration>,
    /// Days a day's analytics figures keep changing after it ends: basic answers reaching into them say golden: false (when figures become final is not shown)
    #[arg(long, value_name = "DAYS", default_value_t = SimConfig::default().analytics_settle_days)]
    analytics_settle_days: u32,
    /// The widest basic rank window answered (end_with - start_with + 1; a wider one is 400), or "none" for any width (the maximum is not shown)
    #[arg(long, value_name = "N|none", default_value = "10000", value_parser = SimConfig::basic_max_window_from)]
    // Written in full so that clap takes `none` for a value, not for an absent flag.
    analytics_basic_max_window: ::std::option::Option<u64>,
    /// Analytics calls allowed a month (the documented limit is 50,000)
    #[arg(long, value_name = "N", default_value_t = SimConfig::default().analytics_monthly)]
    analytics_per_month: u32,
    /// Also issue a key holding only these permissions, comma-separated (e.g. "task read,preset read"; "" for none), printed as VIDPLAT_SIM_LIMITED_KEY
    #[arg(long, value_name = "PERMISSIONS", value_parser = permissions)]
    key_with_permissions: Option<Permissions>,
    /// Time zone of every timestamp, +HH:MM or -HH:MM (the default is Japan time)
    // Hyphen values allowed, so `--time-zone -05:00` is not taken for an option.
    #[arg(long, value_name = "OFFSET", allow_hyphen_values = true, default_value_t = SimConfig::default().time_zone)]
    time_zone: chrono::FixedOffset,
    /// Set up a hard case (repeat to combine): month-quota-spent, slow-queries, failing-tasks, full-task-queue
    #[arg(long, value_name = "NAME")]
    scenario: Vec<Scenario>,
    /// Seed of the synthetic analytics data: the same seed, the same figures
    #[arg(long, value_name = "N", default_value_t = SimConfig::default().seed)]
    seed: u64,
    /// What an update does with the members it leaves out, which the documents leave open: reset (to what registration stores without them; members registration requires are required) or keep
    #[arg(long, value_name = "READING", default_value = "reset")]
    updates: Updates,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let defaults = SimConfig::default();
    let config = SimConfig {
        port: args.port,
        task_step: if args.fast {
            SimConfig::fast().task_step
        } else {
            defaults.task_step
        },
        analytics_per_minute: args.analytics_per_minute,
        analytics_monthly: args.analytics_per_month,
        analytics_window: args.analytics_window.unwrap_or(defaults.analytics_window),
        analytics_settle_days: args.analytics_settle_days,
        analytics_basic_max_window: args.analytics_basic_max_window,
        time_zone: args.time_zone,
        updates: args.updates,
        seed: args.seed,
        ..defaults
    };
    let config = args
        .scenario
        .iter()
        .fold(config, |config, scenario| config.with_scenario(*scenario));
    let sim = Simulator::start_with(config).await?;
    let root = format!("http://{}", sim.address);
    let limited_key = args
        .key_with_permissions
        .map(|Permissions(names)| sim.key_with(names.iter().map(|name| Permission::new(name))));
    let mut variables = vec![
        ("VIDPLAT_SIM_URL", root.as_str()),
        ("VIDPLAT_ENCODER_URL", &sim.encoder_url),
        ("VIDPLAT_VMS_URL", &sim.vms_url),
        ("VIDPLAT_ANALYTICS_URL", &sim.analytics_url),
        ("VIDPLAT_API_KEY", &sim.api_key),
        ("VIDPLAT_LOGIN_ID", &sim.login_id),
    ];
    if let Some(key) = &limited_key {
        variables.push(("VIDPLAT_SIM_LIMITED_KEY", key));
    }
    let mut lines = format!("# vidplat simulator listening on {}; Ctrl-C stops it\n", sim.address);
    lines.push_str(&shell_lines(&variables));
    // One write, flushed now: a parent process or a shell waiting on a file
    // reads these lines while the simulator keeps running.
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(lines.as_bytes())?;
    stdout.flush()?;
    drop(stdout);
    tokio::signal::ctrl_c().await?;
    Ok(())
}

/// The permissions of `--key-with-permissions`.
#[derive(Clone, Debug)]
struct Permissions(BTreeSet<String>);

/// Comma-separated permission names, each one the YAML of the encoding or
/// video management service requires of some operation: a misspelt name
/// would give a key silently lacking the permission meant.
fn permissions(list: &str) -> Result<Permissions, String> {
    let known: BTreeSet<&str> = vidplat_encoder::operations::ALL
        .iter()
        .chain(&vidplat_vms::operations::ALL)
        .filter_map(|operation| operation.permission)
        .collect();
    let mut names = BTreeSet::new();
    for name in list.split(',').map(str::trim).filter(|name| !name.is_empty()) {
        if !known.contains(name) {
            let known: Vec<&str> = known.into_iter().collect();
            return Err(format!(
                "unknown permission `{name}`; the permissions are: {}",
                known.join(", ")
            ));
        }
        names.insert(name.to_owned());
    }
    Ok(Permissions(names))
}

/// `NAME=value` lines, then one `export` line naming them all: a POSIX shell
/// evaluates the whole, and a program looking for the line starting
/// `VIDPLAT_API_KEY=` (as `cargo xtask conformance` does) still finds it.
fn shell_lines(variables: &[(&str, &str)]) -> String {
    let mut lines = String::new();
    for (name, value) in variables {
        // Unquoted: URLs of 127.0.0.1 and the demo key and login ID need no quotes.
        debug_assert!(
            value.chars().all(|c| c.is_ascii_alphanumeric() || ":/.@-_".contains(c)),
            "{name} needs shell quoting"
        );
        lines.push_str(&format!("{name}={value}\n"));
    }
    let names: Vec<&str> = variables.iter().map(|(name, _)| *name).collect();
    lines.push_str(&format!("export {}\n", names.join(" ")));
    lines
}

/// The help after the options: what is printed, the environment, input files.
fn after_help() -> String {
    let root = "http://127.0.0.1:PORT";
    let example = shell_lines(&[
        ("VIDPLAT_SIM_URL", root),
        ("VIDPLAT_ENCODER_URL", &format!("{root}/encoder")),
        ("VIDPLAT_VMS_URL", &format!("{root}/vms")),
        ("VIDPLAT_ANALYTICS_URL", &format!("{root}/analytics")),
        ("VIDPLAT_API_KEY", DEMO_API_KEY),
        ("VIDPLAT_LOGIN_ID", DEMO_LOGIN_ID),
    ]);
    let example: String = example.lines().map(|line| format!("  {line}\n")).collect();
    format!(
        "\
Output (stdout), once it listens: shell lines to evaluate
  # vidplat simulator listening on 127.0.0.1:PORT; Ctrl-C stops it
{example}
VIDPLAT_SIM_URL is the simulator's root (its own routes, below); the services
are under it. The API key holds every permission. With --key-with-permissions,
one more line before the export line names a second key holding only those:
  VIDPLAT_SIM_LIMITED_KEY=sim-key-0001

Environment: nothing is read. The variables printed, VIDPLAT_SIM_URL aside, are
exactly those vidplat::Client::from_env reads, so a program started where they
are exported talks to the simulator:
  rm -f sim.env; vidplat-sim --fast > sim.env &
  until grep -qs '^export' sim.env; do sleep 0.1; done; . ./sim.env

Input files: a task's input_filepath must name an uploaded file (movie.mp4,
sample/intro.mp4, sample/outro.mov and fail.mp4 are there from the start):
  PUT /sim/input-files/{{path}}          the body is the file; its length is the size
  PUT /sim/input-files/{{path}}?size=N   a file of N bytes; the body may be empty
  curl -T clip.mp4 \"$VIDPLAT_SIM_URL/sim/input-files/uploads/clip.mp4\"
  curl -X PUT \"$VIDPLAT_SIM_URL/sim/input-files/uploads/big.mp4?size=5000000000\"
The body is counted, not kept: any size is accepted.

Faults: the next requests of an operation or under a path prefix answer an
error instead of running (UNKNOWN_ERROR, a 503, ...), to test how a program copes:
  POST /sim/faults    {{\"operation_path_prefix\": \"/encoder/v1/tasks\", \"status\": 503,
                       \"code\": \"UNKNOWN_ERROR\", \"times\": 2}}
                      or {{\"operation\": \"get_task\", ...}} (an operation id of the YAML)
                      optional: \"method\", \"message\", \"retry_after\" (seconds),
                      \"delay_ms\" (answer late), \"outcome\": \"answer\" | \"run\" (run it,
                      late) | \"reset\" (break the connection after the head),
                      \"undocumented\": true (allow a status or code the document
                      does not give the operation; refused otherwise)
  GET /sim/faults     those pending;  DELETE /sim/faults  removes them all

Clock: one clock for the three services, moved forward to see a month turn, a
signed URL expire or a task finish without waiting:
  GET /sim/clock      {{\"now\": \"yyyy-mm-dd hh:mm:ss\", \"ahead_seconds\": N}}
  POST /sim/clock     {{\"seconds\": 3600}}   moves it forward (never back)

Journal: every request to the services, newest last (keys and secrets redacted):
  GET /sim/journal    the requests received;  DELETE /sim/journal  forgets them

The /sim/ routes answer only a Host of 127.0.0.1:PORT, localhost:PORT or [::1]:PORT."
    )
}
