//! Running the tools the xtask drives: a command that fails is an error
//! naming it, its program and arguments as they were given.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

#[path = "../../tests/src/required.rs"]
mod required;
pub use required::required;

/// Runs `command` to its end; a failure to start it or a failed exit is the error.
pub fn run(command: &mut Command) -> Result<()> {
    let status = command.status().with_context(|| format!("starting {command:?}"))?;
    if !status.success() {
        bail!("{} failed ({status})", describe(command));
    }
    Ok(())
}

/// Runs `command` to its end and returns what it printed on stdout, as text.
pub fn output(command: &mut Command) -> Result<String> {
    let output = command.output().with_context(|| format!("starting {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}): {}",
            describe(command),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    String::from_utf8(output.stdout).with_context(|| format!("{} printed text that is not UTF-8", describe(command)))
}

fn describe(command: &Command) -> String {
    let program = Path::new(command.get_program())
        .file_name()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args: Vec<_> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    format!("`{program} {}`", args.join(" "))
}

/// Whether the step `step` runs: `Ok(true)` when each of `tools` is found
/// (`on_path`). Otherwise it says it skipped and why (`Ok(false)`), or fails
/// when `variable` (`VIDPLAT_REQUIRE_<TOOL>`) requires the tools.
pub fn tools_found(step: &str, tools: &[&str], on_path: impl Fn(&str) -> bool, variable: &str) -> Result<bool> {
    match skipped_without(step, tools, on_path, variable, required(variable))? {
        None => Ok(true),
        Some(why) => {
            println!("{step}: skipped: {why} ({variable}=1 makes this an error)");
            Ok(false)
        }
    }
}

/// Why the step `step` is skipped without `tools` (`None`: it runs), or the
/// error when `require` (the value of `variable`) requires them.
pub fn skipped_without(
    step: &str,
    tools: &[&str],
    on_path: impl Fn(&str) -> bool,
    variable: &str,
    require: bool,
) -> Result<Option<String>> {
    let missing: Vec<&str> = tools.iter().copied().filter(|tool| !on_path(tool)).collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let why = format!("{} not on PATH", missing.join(" and "));
    if require {
        bail!("{step}: {why}, and {variable}=1 requires it");
    }
    Ok(Some(why))
}
