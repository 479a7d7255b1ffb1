//! `sim`: the simulator of the three services on 127.0.0.1, in the
//! foreground or (`--print-env`) in a process of its own.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgAction, Command};

pub fn define(command: Command) -> Command {
    let sim_url = || {
        Arg::new("sim-url")
            .long("sim-url")
            .value_name("URL")
            .env("VIDPLAT_SIM_URL")
            .required(true)
            .help("The running simulator's root, as `vidplat sim` printed it")
    };
    command
        .args_conflicts_with_subcommands(true)
        .subcommand(
            Command::new("put-input")
                .about(
                    "Put input files into a running simulator: a task's input_filepath must name an uploaded file \
                     (only the size is sent; the simulator keeps no bytes)",
                )
                .arg(
                    Arg::new("files")
                        .value_name("FILE")
                        .num_args(1..)
                        .required(true)
                        .value_parser(clap::value_parser!(std::path::PathBuf)),
                )
                .arg(
                    Arg::new("as")
                        .long("as")
                        .value_name("PATH")
                        .help("The input file path to put one FILE at [default: the file's name]"),
                )
                .arg(sim_url())
                .after_help("Examples:\n  vidplat sim put-input clip.mp4 --as uploads/clip.mp4"),
        )
        .subcommand(
            Command::new("advance")
                .about(
                    "Move a running simulator's clock forward, for the three services at once: tasks move on, \
                     quota minutes and months pass, signed URLs expire; prints the simulator's new time",
                )
                .arg(
                    Arg::new("seconds")
                        .value_name("SECONDS")
                        .required(true)
                        .value_parser(clap::value_parser!(u64)),
                )
                .arg(sim_url())
                .after_help("Examples:\n  vidplat sim advance 86400   # a day on"),
        )
        .arg(
            Arg::new("fast")
                .long("fast")
                .action(ArgAction::SetTrue)
                .help("Tasks move every 20 ms instead of 800 ms"),
        )
        .arg(
            Arg::new("port")
                .long("port")
                .value_name("PORT")
                .value_parser(clap::value_parser!(u16))
                .help("Port on 127.0.0.1 [default: a free one]"),
        )
        .arg(
            Arg::new("print-env").long("print-env").action(ArgAction::SetTrue).help(
                "Start it in the background, print the export lines and return: eval \"$(vidplat sim --print-env)\"",
            ),
        )
        .arg(
            Arg::new("scenario")
                .long("scenario")
                .value_name("NAME")
                .action(ArgAction::Append)
                .value_parser(clap::builder::PossibleValuesParser::new(scenario_names()))
                .help("Set up a hard case; repeat to combine"),
        )
        .arg(
            Arg::new("analytics-per-minute")
                .long("analytics-per-minute")
                .value_name("N")
                .value_parser(clap::value_parser!(u32))
                .help("Analytics calls allowed a minute [default: 3, as documented]"),
        )
        .arg(
            Arg::new("analytics-window")
                .long("analytics-window")
                .value_name("DURATION")
                .value_parser(humantime::parse_duration)
                .help(
                    "The analytics per-minute window, e.g. 2s, for tests: give the client the same \
                     (--analytics-window) [default: 60s, as documented]",
                ),
        )
        .arg(
            Arg::new("analytics-per-month")
                .long("analytics-per-month")
                .value_name("N")
                .value_parser(clap::value_parser!(u32))
                .help("Analytics calls allowed a month [default: 50000, as documented]"),
        )
        .arg(
            Arg::new("analytics-settle-days")
                .long("analytics-settle-days")
                .value_name("DAYS")
                .value_parser(clap::value_parser!(u32))
                .help(
                    "Days a day's analytics figures keep changing after it ends: basic answers reaching into \
                     them say golden: false (not shown when figures become final) [default: 2]",
                ),
        )
        .arg(
            max_window_parser(Arg::new("analytics-basic-max-window"))
                .long("analytics-basic-max-window")
                .value_name("N|none")
                .help(
                    "The widest basic rank window answered (a wider one is 400), or none for any width \
                     (the maximum is not shown) [default: 10000]",
                ),
        )
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("N")
                .value_parser(clap::value_parser!(u64))
                .help("Seed of the synthetic analytics data (the same seed, the same figures) [default: 7]"),
        )
        .arg(
            Arg::new("updates")
                .long("updates")
                .value_name("READING")
                .value_parser(["reset", "keep"])
                .help(
                    "What an update does with the members it leaves out, which the documents leave open: \
                     reset them to what registration stores, or keep them [default: reset]",
                ),
        )
}

/// The simulator's own reading of `--analytics-basic-max-window` (a binary
/// without the simulator takes the text as it is, and then says it has none).
fn max_window_parser(arg: Arg) -> Arg {
    #[cfg(feature = "sim")]
    let arg = arg.value_parser(vidplat_sim::SimConfig::basic_max_window_from);
    arg
}

/// The flags passed on as they came when the simulator runs in a process of its own.
#[cfg(feature = "sim")]
const PASSED_ON: [&str; 7] = [
    "analytics-per-minute",
    "analytics-window",
    "analytics-per-month",
    "analytics-settle-days",
    "analytics-basic-max-window",
    "seed",
    "updates",
];

/// The simulator's named scenarios (`month-quota-spent`, …).
#[cfg(feature = "sim")]
fn scenario_names() -> Vec<&'static str> {
    vidplat_sim::Scenario::ALL.iter().map(|(_, name)| *name).collect()
}

#[cfg(not(feature = "sim"))]
fn scenario_names() -> Vec<&'static str> {
    Vec::new()
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    match invocation.matches.subcommand() {
        Some((name, matches)) => control(name, matches, invocation.io).await,
        None => serve(invocation).await,
    }
}

/// `put-input` and `advance`: the running simulator's own routes (`/sim/…`),
/// which need no simulator in this build.
async fn control(name: &str, matches: &clap::ArgMatches, io: &mut crate::Io<'_>) -> Result<(), Failure> {
    // clap required it.
    let root = matches
        .get_one::<String>("sim-url")
        .map_or("", String::as_str)
        .trim_end_matches('/');
    if !root.starts_with("http://") {
        return Err(Failure::invalid(
            "--sim-url",
            "is the simulator's root, http://127.0.0.1:PORT as `vidplat sim` printed it",
        ));
    }
    vidplat_core::install_default_tls_provider();
    let http = reqwest::Client::new();
    let unreachable = |e: reqwest::Error| Failure::Setup(format!("the simulator at {root} did not answer: {e}"));
    let refused = |status: reqwest::StatusCode, body: String| {
        Failure::Setup(format!(
            "the simulator at {root} answered {status}: {}",
            vidplat_core::escape_controls(&body)
        ))
    };
    match name {
        "put-input" => {
            let files: Vec<&std::path::PathBuf> = matches.get_many("files").into_iter().flatten().collect();
            let put_as = matches.get_one::<String>("as");
            if put_as.is_some() && files.len() > 1 {
                return Err(Failure::invalid("--as", "names the path of one FILE, not several"));
            }
            for file in files {
                let size = std::fs::metadata(file)
                    .map_err(|e| Failure::invalid("FILE", format!("{}: {e}", file.display())))?
                    .len();
                let path = match put_as {
                    Some(path) => path.trim_start_matches('/').to_owned(),
                    None => file
                        .file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                let segments: Vec<String> = path
                    .split('/')
                    .map(|segment| {
                        percent_encoding::utf8_percent_encode(segment, percent_encoding::NON_ALPHANUMERIC).to_string()
                    })
                    .collect();
                let url = format!("{root}/sim/input-files/{}?size={size}", segments.join("/"));
                let answer = http.put(url).send().await.map_err(unreachable)?;
                let status = answer.status();
                if !status.is_success() {
                    return Err(refused(status, answer.text().await.unwrap_or_default()));
                }
                writeln!(io.stderr, "put {path} ({size} bytes)")?;
            }
            Ok(())
        }
        _ => {
            let seconds = matches.get_one::<u64>("seconds").copied().unwrap_or_default();
            let clock = format!("{root}/sim/clock");
            let answer = http
                .post(&clock)
                .json(&serde_json::json!({ "seconds": seconds }))
                .send()
                .await
                .map_err(unreachable)?;
            let status = answer.status();
            if !status.is_success() {
                return Err(refused(status, answer.text().await.unwrap_or_default()));
            }
            let now: serde_json::Value = http
                .get(&clock)
                .send()
                .await
                .map_err(unreachable)?
                .json()
                .await
                .map_err(unreachable)?;
            let now = now["now"].as_str().unwrap_or_default();
            writeln!(io.stdout, "{}", vidplat_core::escape_controls(now))?;
            Ok(())
        }
    }
}

#[cfg(feature = "sim")]
async fn serve(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    use vidplat_sim::{SimConfig, Simulator};
    let Invocation { matches, io, .. } = invocation;
    let port = matches.get_one::<u16>("port").copied().unwrap_or(0);
    let fast = matches.get_flag("fast");
    let scenarios: Vec<&str> = matches
        .get_many::<String>("scenario")
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    if matches.get_flag("print-env") {
        let passed: Vec<(&str, String)> = PASSED_ON
            .iter()
            .filter_map(|name| Some((*name, matches.get_raw(name)?.next()?.to_string_lossy().into_owned())))
            .collect();
        return sim_in_background(port, fast, &scenarios, &passed, io);
    }
    let defaults = SimConfig::default();
    let config = SimConfig {
        port,
        task_step: if fast {
            SimConfig::fast().task_step
        } else {
            defaults.task_step
        },
        analytics_per_minute: matches
            .get_one::<u32>("analytics-per-minute")
            .copied()
            .unwrap_or(defaults.analytics_per_minute),
        analytics_window: matches
            .get_one::<std::time::Duration>("analytics-window")
            .copied()
            .unwrap_or(defaults.analytics_window),
        analytics_monthly: matches
            .get_one::<u32>("analytics-per-month")
            .copied()
            .unwrap_or(defaults.analytics_monthly),
        analytics_settle_days: matches
            .get_one::<u32>("analytics-settle-days")
            .copied()
            .unwrap_or(defaults.analytics_settle_days),
        analytics_basic_max_window: matches
            .get_one::<Option<u64>>("analytics-basic-max-window")
            .copied()
            .unwrap_or(defaults.analytics_basic_max_window),
        seed: matches.get_one::<u64>("seed").copied().unwrap_or(defaults.seed),
        // clap admitted only the readings' own names.
        updates: matches
            .get_one::<String>("updates")
            .and_then(|name| name.parse().ok())
            .unwrap_or(defaults.updates),
        ..defaults
    };
    // clap admitted only the scenarios' own names.
    let config = scenarios
        .iter()
        .filter_map(|name| name.parse::<vidplat_sim::Scenario>().ok())
        .fold(config, SimConfig::with_scenario);
    let sim = Simulator::start_with(config)
        .await
        .map_err(|e| Failure::Setup(format!("starting the simulator: {e}")))?;
    writeln!(
        io.stderr,
        "# vidplat simulator listening on {}; Ctrl-C stops it",
        sim.address
    )?;
    let variables = [
        ("VIDPLAT_SIM_URL", format!("http://{}", sim.address)),
        ("VIDPLAT_ENCODER_URL", sim.encoder_url.clone()),
        ("VIDPLAT_VMS_URL", sim.vms_url.clone()),
        ("VIDPLAT_ANALYTICS_URL", sim.analytics_url.clone()),
        ("VIDPLAT_API_KEY", sim.api_key.clone()),
        ("VIDPLAT_LOGIN_ID", sim.login_id.clone()),
    ];
    for (name, value) in &variables {
        writeln!(io.stdout, "export {name}={value}")?;
    }
    io.stdout.flush()?;
    // Serves until Ctrl-C, which ends it as it ends every command (`run`'s handler: exit 130).
    std::future::pending().await
}

/// Starts `vidplat sim` as a process of its own, passes its export lines on and returns.
#[cfg(feature = "sim")]
fn sim_in_background(
    port: u16,
    fast: bool,
    scenarios: &[&str],
    passed: &[(&str, String)],
    io: &mut crate::Io<'_>,
) -> Result<(), Failure> {
    use std::io::BufRead as _;
    use std::process::{Command as Process, Stdio};
    let exe = std::env::current_exe()?;
    let mut command = Process::new(exe);
    command.args(["sim", "--port", &port.to_string()]);
    if fast {
        command.arg("--fast");
    }
    for scenario in scenarios {
        command.args(["--scenario", scenario]);
    }
    for (name, value) in passed {
        command.arg(format!("--{name}")).arg(value);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Failure::Setup("the simulator's output".to_owned()))?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    for _ in 0..6 {
        match lines.next() {
            Some(line) => writeln!(io.stdout, "{}", line?)?,
            None => {
                return Err(Failure::Setup(
                    "the simulator stopped before it printed where it listens".to_owned(),
                ))
            }
        }
    }
    writeln!(io.stdout, "export VIDPLAT_SIM_PID={}", child.id())?;
    writeln!(io.stdout, "# stop it with: kill $VIDPLAT_SIM_PID")?;
    Ok(())
}

#[cfg(not(feature = "sim"))]
async fn serve(_: Invocation<'_, '_>) -> Result<(), Failure> {
    Err(Failure::invalid(
        "sim",
        "is not in this build (the command line's `sim` feature)",
    ))
}
