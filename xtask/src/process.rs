//! Running the tools the xtask drives: a command that fails is an error
//! naming it, its program and arguments as they were given.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

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

/// Whether a tool a step can do without is required: `VIDPLAT_REQUIRE_<TOOL>=1`,
/// as `.ci/run` sets. Any other value, `0` included, lets the step say "skipped".
pub fn required(variable: &str) -> bool {
    requires(std::env::var_os(variable).as_deref())
}

fn requires(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|value| value == "1")
}

#[cfg(test)]
mod tests {
    use super::requires;

    /// `=1` requires a tool; unset, empty or `0` does not (`0` once required Chromium).
    #[test]
    fn only_one_requires_a_tool() {
        assert!(requires(Some("1".as_ref())));
        for value in [None, Some(""), Some("0"), Some("true")] {
            assert!(!requires(value.map(AsRef::as_ref)), "{value:?}");
        }
    }
}
