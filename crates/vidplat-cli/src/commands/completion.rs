//! `completion SHELL`: the shell's completion script for every command.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, Command};

pub fn define(command: Command) -> Command {
    command
        .after_help("Examples:\n  vidplat completion bash > ~/.local/share/bash-completion/completions/vidplat")
        .arg(
            Arg::new("shell")
                .value_name("SHELL")
                .required(true)
                .value_parser(clap::value_parser!(clap_complete::Shell)),
        )
}

/// `completion SHELL`. The script is made whole before it is written:
/// clap_complete panics when its writer fails (`vidplat completion bash | head`).
pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Invocation { matches, io, root, .. } = invocation;
    if let Some(shell) = matches.get_one::<clap_complete::Shell>("shell") {
        let mut script = Vec::new();
        clap_complete::generate(*shell, &mut root(), "vidplat", &mut script);
        io.stdout.write_all(&script)?;
    }
    Ok(())
}
