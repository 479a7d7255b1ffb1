//! `cargo test --workspace --exclude xtask`, its test programs run two at a
//! time: built once by cargo (xtask's own tests built alone after them), then
//! each program and the doc tests started in one of two lanes. Most
//! programs wait on sockets, timers and child processes about as much as they
//! compute, so two cores run two of them in about the time of the longest lane
//! (measured in `cargo xtask ci`: see the step's time against the sum of the
//! programs' own).
//!
//! Under `cargo xtask ci` the build is also clippy's check: the workspace's
//! crates are compiled by `clippy-driver` (`RUSTC_WORKSPACE_WRAPPER`) and any
//! warning fails it, so the dependencies are not checked once more for a
//! separate `cargo clippy` (docs/decisions/0014).

use crate::services::{cargo, repo_root};
use anyhow::{bail, Context, Result};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many jobs run at once: one a core of the CI machine.
const LANES: usize = 2;

/// The packages whose tests are built together: all but `xtask`, whose tests
/// are built by a cargo command of their own. Built with the others, its
/// code generator's dependencies (typify, progenitor, syn's full parser, …)
/// were compiled again with the workspace's features, 40 units, and its
/// features reached the libraries' own dependencies (toml's `std`, indexmap's
/// `serde`), which a user's build does not give them. Alone, it reuses what
/// `cargo xtask` was built with. Every command that runs the built tests
/// selects the same packages, so that nothing is built twice.
pub const PACKAGES: [&str; 3] = ["--workspace", "--exclude", "xtask"];

/// The cargo commands that build every test program, in order, as packages
/// and targets: what `cargo test` builds by default (the examples too, as
/// programs), the benchmarks (so that they compile, without running them),
/// and xtask alone. No two of them build the same test program. The
/// benchmarks by name: `--benches` also selects every library and binary
/// whose `bench` is not off (the default), and built a bench harness of each,
/// the generated crates' included (about 25 s of rustc for programs nobody
/// runs).
const BUILDS: [(&[&str], &[&str]); 3] = [
    (&PACKAGES, &[]),
    (&PACKAGES, &["--bench", "*"]),
    (&["-p", "xtask"], &[]),
];

/// What a warning of the workspace's own crates does to the build.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Warnings {
    /// Shown, as `cargo test` shows it.
    Shown,
    /// Shown, and the build fails (`-D warnings`).
    Denied,
}

/// clippy's compiler driver, from the sysroot of the `rustc` that builds
/// (rustup's `clippy` component puts it there). Set as
/// `RUSTC_WORKSPACE_WRAPPER`, it compiles the workspace's crates as `rustc`
/// does and adds clippy's lints; the dependencies are compiled by `rustc`.
pub fn clippy_driver() -> Result<PathBuf> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .context("running rustc --print sysroot")?;
    let sysroot = String::from_utf8(output.stdout).context("the sysroot's path")?;
    let driver = Path::new(sysroot.trim())
        .join("bin")
        .join(format!("clippy-driver{}", std::env::consts::EXE_SUFFIX));
    if !driver.is_file() {
        bail!(
            "no clippy-driver at {}: `rustup component add clippy` installs it",
            driver.display()
        );
    }
    Ok(driver)
}

/// One job: a test program of a package, or the doc tests.
struct Job {
    name: String,
    command: Command,
}

/// Builds every test program of the workspace, then runs them and the doc
/// tests in [`LANES`] lanes; each job's output is printed whole when it ends.
pub fn run() -> Result<()> {
    run_built(build(Warnings::Shown)?)
}

/// The test programs, built: what [`run_built`] runs.
pub struct Built(Vec<Job>);

impl Built {
    /// A command that runs the test program `name` (`"vidplat-tests suite"`)
    /// as [`run_built`] does, for a run of its own: no cargo, so no wait for
    /// the target directory another cargo command holds.
    pub fn program(&self, name: &str) -> Option<Command> {
        let job = self.0.iter().find(|job| job.name == name)?;
        let mut command = Command::new(job.command.get_program());
        if let Some(dir) = job.command.get_current_dir() {
            command.current_dir(dir);
        }
        for (key, value) in job.command.get_envs() {
            if let Some(value) = value {
                command.env(key, value);
            }
        }
        Some(command)
    }
}

/// Every test program, built ([`BUILDS`]) and not yet run, the largest first
/// so that the other lane takes the rest.
pub fn build(warnings: Warnings) -> Result<Built> {
    let mut programs = Vec::new();
    let mut warned = 0;
    for (packages, targets) in BUILDS {
        let mut cargo = cargo();
        cargo
            .current_dir(repo_root())
            .args(["test"])
            .args(packages)
            .args(targets);
        warned += built_programs(cargo, &mut programs)?;
    }
    if warned > 0 && warnings == Warnings::Denied {
        bail!("{warned} warnings in the workspace's crates (above): CI denies warnings");
    }
    // The largest program (the suite, which links every client) is the longest to run.
    programs.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    Ok(Built(programs.into_iter().map(|(_, job)| job).collect()))
}

/// Runs the programs [`build`] built, and the doc tests, in [`LANES`] lanes.
pub fn run_built(Built(mut jobs): Built) -> Result<()> {
    let mut doc = cargo();
    doc.arg("test").args(PACKAGES).arg("--doc").current_dir(repo_root());
    jobs.push(Job {
        name: "doc tests".to_owned(),
        command: doc,
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

/// `cargo test …` (`test`, given with what it selects) run with `--no-run`,
/// and a job for each test program it built (with its size), run where
/// cargo runs it (its package's directory). The compiler's messages go to
/// stderr; returns how many were warnings.
fn built_programs(mut cargo_test: Command, programs: &mut Vec<(u64, Job)>) -> Result<usize> {
    let output = cargo_test
        .args(["--no-run", "--message-format=json"])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo test --no-run")?;
    let mut warned = 0;
    for line in output.stdout.split(|&byte| byte == b'\n') {
        let Ok(message) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] == "compiler-message" {
            eprint!("{}", message["message"]["rendered"].as_str().unwrap_or_default());
            // Not rustc's closing count ("1 warning emitted"), which points at no code.
            let diagnostic = &message["message"];
            let points_at_code = diagnostic["spans"].as_array().is_some_and(|spans| !spans.is_empty());
            warned += usize::from(diagnostic["level"] == "warning" && points_at_code);
            continue;
        }
        // The benchmarks are built to show they compile, not run.
        let is_bench = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bench"));
        let is_test = message["reason"] == "compiler-artifact" && message["profile"]["test"] == true && !is_bench;
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
        let package = package_name(message["package_id"].as_str().unwrap_or("?"));
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
    if !output.status.success() {
        bail!("building the tests failed ({})", output.status);
    }
    Ok(warned)
}

/// The package's name in a package id: `path+file:///…/dir#name@0.1.0`, or
/// `path+file:///…/name#0.1.0` where the directory has the package's name.
fn package_name(id: &str) -> &str {
    let (path, fragment) = id.rsplit_once('#').unwrap_or((id, ""));
    match fragment.split_once('@') {
        Some((name, _)) => name,
        None => path.rsplit('/').next().unwrap_or(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate of its own whose function clippy warns about (`clone` on a
    /// `Copy` type) and rustc does not, with one test.
    fn crate_clippy_warns_about(dir: &Path) {
        std::fs::create_dir_all(dir.join("src")).expect("a source directory");
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"linted\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .expect("a manifest");
        std::fs::write(
            dir.join("src/lib.rs"),
            "pub fn doubled(x: &u32) -> u32 {\n    x.clone() * 2\n}\n\n#[test]\nfn doubles() {\n    assert_eq!(doubled(&2), 4);\n}\n",
        )
        .expect("a library");
    }

    #[test]
    fn a_package_s_name_is_read_from_either_form_of_its_id() {
        assert_eq!(
            package_name("path+file:///work/tests#vidplat-tests@0.0.0"),
            "vidplat-tests"
        );
        assert_eq!(
            package_name("path+file:///work/crates/vidplat-cli#0.1.0"),
            "vidplat-cli"
        );
    }

    #[test]
    fn clippy_s_warnings_are_counted_when_its_driver_builds_and_the_test_program_is_found_and_runs() {
        // Two builds: seconds of CPU in children, which another test counts.
        let _alone = crate::CHILDREN_CPU_READ.lock().unwrap_or_else(|e| e.into_inner());
        let dir = std::env::temp_dir().join(format!("xtask-linted-build-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        crate_clippy_warns_about(&dir);
        let build = |wrapper: Option<&Path>| {
            let mut cargo = cargo();
            cargo
                .arg("test")
                .current_dir(&dir)
                .env("CARGO_TARGET_DIR", dir.join("target"))
                .env_remove("RUSTC_WORKSPACE_WRAPPER");
            if let Some(wrapper) = wrapper {
                cargo.env("RUSTC_WORKSPACE_WRAPPER", wrapper);
            }
            let mut programs = Vec::new();
            let warned = built_programs(cargo, &mut programs).expect("the crate builds");
            let built = Built(programs.into_iter().map(|(_, job)| job).collect());
            // The program run on its own, as `cargo xtask ci` runs the suite's ignored tests.
            let listed = built
                .program("linted linted")
                .expect("the program, by its job's name")
                .arg("--list")
                .output()
                .expect("the program runs");
            assert_eq!(
                String::from_utf8_lossy(&listed.stdout).lines().next(),
                Some("doubles: test")
            );
            assert!(built.program("linted other").is_none());
            let names: Vec<String> = built.0.into_iter().map(|job| job.name).collect();
            (warned, names)
        };
        let driver = clippy_driver().expect("clippy's driver in the toolchain");
        let plain = build(None);
        let linted = build(Some(&driver));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            plain,
            (0, vec!["linted linted".to_owned()]),
            "rustc alone does not warn"
        );
        // Once as the library (which its doc tests use), once as its tests.
        assert_eq!(
            linted,
            (2, vec!["linted linted".to_owned()]),
            "clippy's warning, counted"
        );
    }
}
