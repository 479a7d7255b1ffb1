//! `man DIR`: the man pages, written from the command tree: `vidplat.1` and
//! one page per command (`vidplat-encoder-list-tasks.1`), as `git` and
//! `cargo` name theirs.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, Command};
use serde_json::json;
use std::path::Path;

pub fn define(command: Command) -> Command {
    command
        .arg(Arg::new("dir").value_name("DIR").required(true))
        .after_help("Examples:\n  vidplat man ~/.local/share/man/man1 && man vidplat-encoder-list-tasks")
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let dir = invocation.matches.get_one::<String>("dir").cloned().unwrap_or_default();
    let dir = Path::new(&dir);
    let setup = |e: std::io::Error| Failure::Setup(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(setup)?;
    let mut root = (invocation.root)();
    root.build();
    let mut pages = 0;
    write_pages(&root, "vidplat", dir, &mut pages).map_err(setup)?;
    invocation.print(&json!({"dir": dir.display().to_string(), "pages": pages}))
}

/// `command`'s page as `name.1`, then each of its subcommands' as `name-sub.1`.
fn write_pages(command: &Command, name: &str, dir: &Path, pages: &mut usize) -> std::io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone().name(name.to_owned())).render(&mut page)?;
    vidplat_core::__private::replace_file(&dir.join(format!("{name}.1")), &page, false)?;
    *pages += 1;
    // clap's own `help` subcommands are not pages of their own.
    for sub in command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
    {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, pages)?;
    }
    Ok(())
}
