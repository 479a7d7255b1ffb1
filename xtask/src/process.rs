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

fn describe(command: &Command) -> String {
    let program = Path::new(command.get_program())
        .file_name()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args: Vec<_> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    format!("`{program} {}`", args.join(" "))
}
