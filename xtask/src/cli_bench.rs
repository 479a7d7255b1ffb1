//! `cargo xtask cli-bench`: `vidplat encoder list-tasks --all --output ndjson`
//! against the equivalent SDK program (`crates/vidplat-cli/examples/list_tasks_ndjson.rs`),
//! both whole processes, over the same local server
//! (`crates/vidplat-cli/examples/bench_server.rs`) at several list lengths.
//!
//! For each length: both programs' outputs are checked byte for byte against
//! each other (and counted), then the two run in turn, the order swapped every
//! round; the wall time of each run is read around the process, its peak
//! resident memory from GNU `/usr/bin/time`. Printed: the medians, and the
//! median of the rounds' time ratios (command line / SDK program).
//!
//! With `--instructions`, each program then runs once more under valgrind's
//! callgrind, and the instructions it executed (every thread) are printed
//! beside their ratio: a figure the machine's drift does not move.

use anyhow::{bail, Context, Result};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[derive(Debug, clap::Args)]
pub struct Options {
    /// The list lengths measured.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,50000")]
    tasks: Vec<u64>,
    /// Rounds (one run of each program) per length.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u64).range(1..=100))]
    rounds: u64,
    /// Also count each program's instructions once under valgrind's callgrind.
    #[arg(long)]
    instructions: bool,
}

pub fn run(options: &Options) -> Result<()> {
    if !Path::new("/usr/bin/time").exists() {
        bail!("cli-bench reads peak memory with GNU /usr/bin/time, which is not installed");
    }
    if options.instructions && Command::new("valgrind").arg("--version").output().is_err() {
        bail!("--instructions counts with valgrind, which is not installed");
    }
    crate::publish::run_cargo(
        &[
            "build",
            "--release",
            "-p",
            "vidplat-cli",
            "--bin",
            "vidplat",
            "--example",
            "bench_server",
            "--example",
            "list_tasks_ndjson",
        ],
        &crate::services::repo_root(),
        &[],
    )?;
    let release = target_dir().join("release");
    let cli = release.join("vidplat");
    let sdk = release.join("examples").join("list_tasks_ndjson");
    let scratch = std::env::temp_dir().join(format!("vidplat-cli-bench-{}", std::process::id()));
    std::fs::create_dir_all(scratch.join("config"))?;
    println!("| tasks | command line: time, peak RSS | SDK program: time, peak RSS | time ratio (median of {} rounds; range) |", options.rounds);
    println!("| --- | --- | --- | --- |");
    let result = options
        .tasks
        .iter()
        .try_for_each(|&count| measure(count, options, &cli, &sdk, &scratch));
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::services::repo_root().join("target"))
}

/// One run: wall seconds and peak resident KiB.
struct Run {
    secs: f64,
    peak_kib: u64,
}

fn measure(count: u64, options: &Options, cli: &Path, sdk: &Path, scratch: &Path) -> Result<()> {
    let server_exe = cli.with_file_name("examples").join("bench_server");
    let mut server = Command::new(server_exe)
        .args(["--tasks", &count.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the bench server")?;
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().context("the server's stdout")?).read_line(&mut line)?;
    let url = line
        .trim()
        .strip_prefix("VIDPLAT_ENCODER_URL=")
        .with_context(|| format!("the server's first line: {line:?}"))?
        .to_owned();
    let programs: [(&Path, &[&str]); 2] = [
        (cli, &["encoder", "list-tasks", "--all", "--output", "ndjson"]),
        (sdk, &[]),
    ];
    // `wrapper` runs the program: GNU time, or valgrind.
    let command = |wrapper: &[&str], (exe, args): (&Path, &[&str])| {
        let mut command = Command::new(wrapper[0]);
        command
            .args(&wrapper[1..])
            .arg(exe)
            .args(args)
            .env_clear()
            .env("VIDPLAT_ENCODER_URL", &url)
            .env("VIDPLAT_API_KEY", "bench-api-key")
            .env("VIDPLAT_CONFIG_DIR", scratch.join("config"))
            .stdin(Stdio::null());
        command
    };
    let report = scratch.join("time");
    let report_arg = report.to_string_lossy().into_owned();
    let run = |program: (&Path, &[&str]), stdout: &Path| -> Result<Run> {
        let started = Instant::now();
        let status = command(&["/usr/bin/time", "-f", "%M", "-o", &report_arg], program)
            .stdout(std::fs::File::create(stdout)?)
            .status()?;
        let secs = started.elapsed().as_secs_f64();
        if !status.success() {
            bail!("{} exited with {status}", program.0.display());
        }
        let peak_kib = std::fs::read_to_string(&report)?
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .context("/usr/bin/time's report")?;
        Ok(Run { secs, peak_kib })
    };
    // The same bytes from both, every task once.
    let outputs = [scratch.join("cli.ndjson"), scratch.join("sdk.ndjson")];
    for (program, output) in programs.into_iter().zip(&outputs) {
        run(program, output)?;
    }
    let (a, b) = (std::fs::read(&outputs[0])?, std::fs::read(&outputs[1])?);
    if a != b {
        bail!(
            "the command line's NDJSON differs from the SDK program's ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
    let lines = a.iter().filter(|&&byte| byte == b'\n').count() as u64;
    if lines != count {
        bail!("{lines} lines for {count} tasks");
    }
    let null = Path::new("/dev/null");
    let (mut cli_runs, mut sdk_runs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..options.rounds {
        let (c, s) = if round % 2 == 0 {
            let c = run(programs[0], null)?;
            (c, run(programs[1], null)?)
        } else {
            let s = run(programs[1], null)?;
            (run(programs[0], null)?, s)
        };
        ratios.push(c.secs / s.secs);
        cli_runs.push(c);
        sdk_runs.push(s);
    }
    let instructions = if options.instructions {
        let instructions_of = |program| -> Result<u64> {
            let (exe, _) = program;
            let output = command(
                &["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"],
                program,
            )
            .stdout(Stdio::null())
            .output()?;
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !output.status.success() {
                bail!(
                    "{} under valgrind exited with {}: {stderr}",
                    exe.display(),
                    output.status
                );
            }
            stderr
                .lines()
                .find_map(|line| line.split_once("Collected :").and_then(|(_, n)| n.trim().parse().ok()))
                .with_context(|| format!("callgrind's count in {stderr:?}"))
        };
        Some((instructions_of(programs[0])?, instructions_of(programs[1])?))
    } else {
        None
    };
    drop(server.stdin.take());
    let _ = server.wait();
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let shown = |runs: &[Run]| {
        format!(
            "{:.0} ms, {:.1} MiB",
            median(runs.iter().map(|r| r.secs * 1000.0).collect()),
            median(runs.iter().map(|r| r.peak_kib as f64 / 1024.0).collect())
        )
    };
    let (low, high) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    println!(
        "| {count} | {} | {} | **{:.3}** ({low:.3}–{high:.3}) |",
        shown(&cli_runs),
        shown(&sdk_runs),
        median(ratios.clone())
    );
    if let Some((cli, sdk)) = instructions {
        println!(
            "| {count}, instructions | {:.1} M | {:.1} M | **{:.3}** |",
            cli as f64 / 1e6,
            sdk as f64 / 1e6,
            cli as f64 / sdk as f64
        );
    }
    Ok(())
}
