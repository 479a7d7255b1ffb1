//! `cargo test --workspace --exclude xtask`, its test programs run two at a
//! time: built once by cargo, then each program (and the doc tests and
//! `cargo test -p xtask`, two more jobs) started in one of two lanes. Most
//! programs wait on sockets, timers and child processes about as much as they
//! compute, so two cores run two of them in about the time of the longest lane
//! (measured in `cargo xtask ci`: see the step's time against the sum of the
//! programs' own).

use crate::services::{cargo, repo_root};
use anyhow::{bail, Context, Result};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many jobs run at once: one a core of the CI machine.
const LANES: usize = 2;

/// The packages whose tests are built together: all but `xtask`, whose tests
/// are a job of their own (`cargo test -p xtask`). Built with the others, its
/// code generator's dependencies (typify, progenitor, syn's full parser, …)
/// were compiled again with the workspace's features, 40 units, and its
/// features reached the libraries' own dependencies (toml's `std`, indexmap's
/// `serde`), which a user's build does not give them. Alone, it reuses what
/// `cargo xtask` was built with. Every command that runs the built tests
/// selects the same packages, so that nothing is built twice.
pub const PACKAGES: [&str; 3] = ["--workspace", "--exclude", "xtask"];

/// One job: a test program of a package, or the doc tests.
struct Job {
    name: String,
    command: Command,
}

/// Builds every test program of the workspace, then runs them and the doc
/// tests in [`LANES`] lanes; each job's output is printed whole when it ends.
pub fn run() -> Result<()> {
    run_built(build()?)
}

/// The test programs, built: what [`run_built`] runs.
pub struct Built(Vec<Job>);

/// `cargo test --workspace --exclude xtask --no-run`: every test program, built and not yet run.
pub fn build() -> Result<Built> {
    programs().map(Built)
}

/// Runs the programs [`build`] built, and the doc tests, in [`LANES`] lanes.
pub fn run_built(Built(mut jobs): Built) -> Result<()> {
    let mut doc = cargo();
    doc.arg("test").args(PACKAGES).arg("--doc").current_dir(repo_root());
    jobs.push(Job {
        name: "doc tests".to_owned(),
        command: doc,
    });
    let mut xtask = cargo();
    xtask.args(["test", "-p", "xtask"]).current_dir(repo_root());
    jobs.push(Job {
        name: "xtask (built and run)".to_owned(),
        command: xtask,
    });
    let started = Instant::now();
    let queue = Mutex::new(VecDeque::from(jobs));
    let failed = Mutex::new(Vec::new());
    let total = Mutex::new(Duration::ZERO);
    std::thread::scope(|scope| {
        for _ in 0..LANES {
            scope.spawn(|| loop {
                let Some(mut job) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else {
                    break;
                };
                let at = Instant::now();
                let output = job.command.stdin(Stdio::null()).output();
                let took = at.elapsed();
                *total.lock().unwrap_or_else(|e| e.into_inner()) += took;
                report(&job.name, took, &output);
                if !output.as_ref().is_ok_and(|output| output.status.success()) {
                    failed.lock().unwrap_or_else(|e| e.into_inner()).push(job.name);
                }
            });
        }
    });
    let total = total.into_inner().unwrap_or_else(|e| e.into_inner());
    println!(
        "test programs: {:.1?} in {LANES} lanes ({total:.1?} one after the other)",
        started.elapsed()
    );
    let failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if !failed.is_empty() {
        bail!("failed: {}", failed.join(", "));
    }
    Ok(())
}

/// The job's output and how it ended.
fn report(name: &str, took: Duration, output: &std::io::Result<Output>) {
    let mut text = format!("\n=== {name} ({took:.1?})\n");
    match output {
        Ok(output) => {
            text.push_str(&String::from_utf8_lossy(&output.stdout));
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            if !output.status.success() {
                text.push_str(&format!("=== {name} FAILED ({})\n", output.status));
            }
        }
        Err(error) => text.push_str(&format!("=== {name} did not start: {error}\n")),
    }
    print!("{text}");
}

/// `cargo test --workspace --exclude xtask --no-run`, and a job for each test program it
/// built, run where cargo runs it (its package's directory), the largest
/// first so that the other lane takes the rest.
fn programs() -> Result<Vec<Job>> {
    let output = cargo()
        .arg("test")
        .args(PACKAGES)
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .current_dir(repo_root())
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo test --no-run")?;
    if !output.status.success() {
        bail!("building the tests failed ({})", output.status);
    }
    let mut programs: Vec<(u64, Job)> = Vec::new();
    for line in output.stdout.split(|&byte| byte == b'\n') {
        let Ok(message) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let is_test = message["reason"] == "compiler-artifact" && message["profile"]["test"] == true;
        let (Some(executable), Some(manifest)) = (message["executable"].as_str(), message["manifest_path"].as_str())
        else {
            continue;
        };
        if !is_test {
            continue;
        }
        let package_dir = PathBuf::from(manifest)
            .parent()
            .map(PathBuf::from)
            .context("a manifest's directory")?;
        let target = message["target"]["name"].as_str().unwrap_or("?");
        let package = message["package_id"].as_str().unwrap_or("?");
        let package = package.rsplit(['/', '#']).nth(1).unwrap_or(package);
        let size = std::fs::metadata(executable).map_or(0, |meta| meta.len());
        let mut command = Command::new(executable);
        command
            .current_dir(&package_dir)
            .env("CARGO_MANIFEST_DIR", &package_dir);
        programs.push((
            size,
            Job {
                name: format!("{package} {target}"),
                command,
            },
        ));
    }
    // The largest program (the suite, which links every client) is the longest to run.
    programs.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    Ok(programs.into_iter().map(|(_, job)| job).collect())
}
