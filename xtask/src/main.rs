//! `cargo xtask <command>`: the project's automation, in Rust so it runs wherever cargo does.

mod codegen;
mod conformance;
mod crosscheck;
mod gaps;
mod lint;
mod services;

use anyhow::{bail, Result};
use std::process::Command;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  codegen [--check] generate crates/vidplat-*/src/generated.rs (and GAPS.md) from openapi/*.yaml
  gaps [--check]   render GAPS.md from every x-gap and x-route-assumed in openapi/*.yaml
  crosscheck       fail if the YAML misses an operation or error code of ../shared/specs/*.md
  lint             install the pinned spec tools into .tools/ and lint openapi/*.yaml with them
  conformance      run schemathesis against the simulator (vidplat-sim) for every operation
  ci               everything CI runs: fmt, clippy, lint, crosscheck, checks, tests";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(check).and_then(|()| gaps::run(check)),
        Some("gaps") => gaps::run(check),
        Some("crosscheck") => crosscheck::run(),
        Some("lint") => lint::run_all(),
        Some("conformance") => conformance::run_all(),
        Some("ci") => ci(),
        Some("help" | "--help" | "-h") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}

/// The one test command: `.ci/run` and the README call exactly this.
fn ci() -> Result<()> {
    let started = std::time::Instant::now();
    cargo(&["fmt", "--all", "--check"])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    lint::run_all()?;
    crosscheck::run()?;
    codegen::run(true)?;
    gaps::run(true)?;
    // The wire suite's Prism test may skip when Prism is missing; here `lint` installed it.
    std::env::set_var("VIDPLAT_REQUIRE_PRISM", "1");
    cargo(&["test", "--workspace"])?;
    cargo(&["bench", "--workspace", "--no-run"])?;
    conformance::run_all()?;
    println!("xtask ci: all checks passed in {:.0?}", started.elapsed());
    Ok(())
}

fn cargo(args: &[&str]) -> Result<()> {
    println!("$ cargo {}", args.join(" "));
    let started = std::time::Instant::now();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(services::repo_root())
        .status()?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    println!("(cargo {} took {:.1?})", args.join(" "), started.elapsed());
    Ok(())
}
