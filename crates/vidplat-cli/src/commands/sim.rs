//! `sim`: the simulator of the three services on 127.0.0.1, in the
//! foreground or (`--print-env`) in a process of its own.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgAction, Command};

pub fn define(command: Command) -> Command {
    command
        .about(
            "Run the simulator of the three services on 127.0.0.1 and print the VIDPLAT_* variables that point at it",
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
            Arg::new("analytics-per-month")
                .long("analytics-per-month")
                .value_name("N")
                .value_parser(clap::value_parser!(u32))
                .help("Analytics calls allowed a month [default: 50000, as documented]"),
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

/// The flags passed on as they came when the simulator runs in a process of its own.
#[cfg(feature = "sim")]
const PASSED_ON: [&str; 4] = ["analytics-per-minute", "analytics-per-month", "seed", "updates"];

/// The simulator's named scenarios (`month-quota-spent`, …).
#[cfg(feature = "sim")]
fn scenario_names() -> Vec<&'static str> {
    vidplat_sim::Scenario::ALL.iter().map(|(_, name)| *name).collect()
}

#[cfg(not(feature = "sim"))]
fn scenario_names() -> Vec<&'static str> {
    Vec::new()
}

#[cfg(feature = "sim")]
pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
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
        analytics_monthly: matches
            .get_one::<u32>("analytics-per-month")
            .copied()
            .unwrap_or(defaults.analytics_monthly),
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
    tokio::signal::ctrl_c().await?;
    Ok(())
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
pub async fn run(_: Invocation<'_, '_>) -> Result<(), Failure> {
    Err(Failure::invalid(
        "sim",
        "is not in this build (the command line's `sim` feature)",
    ))
}
