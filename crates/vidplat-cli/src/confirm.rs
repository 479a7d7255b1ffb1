//! Confirmation before destroying: a DELETE asks on a terminal, and needs
//! `--yes` where there is none to ask on (a script, a pipe), as gh does.

use crate::failure::Failure;
use std::io::BufRead as _;

/// The flag that confirms in advance.
pub fn yes_flag() -> clap::Arg {
    clap::Arg::new("yes")
        .long("yes")
        .action(clap::ArgAction::SetTrue)
        .help("Destroy without asking (required when stdin or stderr is not a terminal: nothing is asked there)")
}

/// Goes on when `--yes` was given, or when asked on the terminal and
/// answered `y`; otherwise refuses, nothing sent. `what` names what would
/// be destroyed, as the user gave it.
pub fn destroying(what: &str, yes: bool, io: &mut crate::Io<'_>) -> Result<(), Failure> {
    if yes {
        return Ok(());
    }
    let what = vidplat_core::escape_controls(what);
    if !(io.stdin_terminal && io.stderr_terminal) {
        return Err(Failure::invalid(
            "--yes",
            format!("is required to {what} without a terminal to ask on (nothing was sent)"),
        ));
    }
    write!(io.stderr, "{what}? This cannot be undone. [y/N] ")?;
    io.stderr.flush()?;
    let mut answer = String::new();
    // One line at most, of a bounded length: the answer is a word.
    std::io::BufReader::new(std::io::Read::take(&mut *io.stdin, 64)).read_line(&mut answer)?;
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err(Failure::Setup(format!(
            "not confirmed: did not {what} (nothing was sent)"
        ))),
    }
}
