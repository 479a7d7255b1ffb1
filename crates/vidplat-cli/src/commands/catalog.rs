//! `vidplat catalog export|plan|apply|schema`: [`vidplat::catalog`] with a
//! file around it (its JSON Schema generated from the YAML's bodies).

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgAction, ArgMatches, Command};
use vidplat::catalog::Catalog;

pub fn define(command: Command) -> Command {
    let file = || {
        Arg::new("file")
            .short('f')
            .long("file")
            .value_name("FILE")
            .required(true)
            .help("The set-up, YAML (- reads stdin)")
    };
    let prune = || {
        Arg::new("prune")
            .long("prune")
            .action(ArgAction::SetTrue)
            .help("Also delete what the account has and the file does not name")
    };
    command
        .long_about(
            "The account's set-up as a YAML file: notification settings, presets, profiles (holding presets by \
             name), categories (by path, `Sports/Football`) and labels, each matched by its name; ids never \
             appear. `export` writes the account's, `plan` shows what `apply` would change, `apply` makes the \
             account so with the fewest writes, in order (presets before the profiles that hold them, parents \
             before children). A member the file leaves out is left as the account has it; an update sends \
             every member read with the file's laid over them.",
        )
        .after_help(
            "Examples:\n  \
             vidplat catalog export > staging.yaml\n  \
             vidplat --profile prod catalog plan -f staging.yaml\n  \
             vidplat --profile prod catalog apply -f staging.yaml",
        )
        .subcommand_required(true)
        .subcommand(
            Command::new("export")
                .about("Write the account's set-up as YAML on stdout")
                .after_help("Examples:\n  vidplat catalog export > setup.yaml"),
        )
        .subcommand(
            Command::new("schema")
                .about(
                    "Write the file's JSON Schema on stdout, for editors \
                     (`# yaml-language-server: $schema=catalog.schema.json`)",
                )
                .after_help("Examples:\n  vidplat catalog schema > catalog.schema.json"),
        )
        .subcommand(
            Command::new("plan")
                .about("Show what apply would change; exit 0 when nothing, 6 when changes are planned")
                .arg(file())
                .arg(prune())
                .after_help("Examples:\n  vidplat catalog plan -f setup.yaml\n  vidplat catalog plan -f setup.yaml --prune   # deletions too"),
        )
        .subcommand(
            Command::new("apply")
                .about("Make the account as the file says, in order; stop at the first failure")
                .arg(file())
                .arg(prune())
                .arg(crate::confirm::yes_flag())
                .after_help("Examples:\n  vidplat catalog apply -f setup.yaml"),
        )
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Some((name, matches)) = invocation.matches.subcommand() else {
        return Err(Failure::invalid("catalog", "needs a subcommand"));
    };
    if name == "schema" {
        // Generated from the YAML's bodies (`cargo xtask codegen`).
        invocation
            .io
            .stdout
            .write_all(include_bytes!("../../catalog.schema.json"))?;
        return Ok(());
    }
    let client = invocation.client()?;
    let io = invocation.io;
    if name == "export" {
        let account = Catalog::read(&client).await?;
        notes(account.notes(), io.stderr)?;
        io.stdout.write_all(
            b"# The account's set-up, written by `vidplat catalog export` (ids left out: each is matched by its name).\n\
              # Its JSON Schema, for editors: `vidplat catalog schema`.\n",
        )?;
        io.stdout.write_all(account.to_yaml().as_bytes())?;
        return Ok(());
    }
    let wanted = read_file(matches, io.stdin)?.prune(matches.get_flag("prune"));
    let plan = wanted.plan(&client).await?;
    notes(plan.notes(), io.stderr)?;
    if name == "plan" {
        for change in plan.changes() {
            write!(io.stdout, "{change}")?;
        }
        writeln!(io.stderr, "{}", plan.summary())?;
        return match plan.changes().len() {
            0 => Ok(()),
            changes => Err(Failure::ChangesPlanned(changes)),
        };
    }
    let deletes = plan.changes().iter().filter(|change| change.deletes()).count();
    if deletes > 0 {
        crate::confirm::destroying(
            &format!("delete {deletes} resource(s) the file does not name"),
            matches.get_flag("yes"),
            io,
        )?;
    }
    let mut printed = Ok(());
    let applied = plan
        .apply(&client, |change| {
            if printed.is_ok() {
                printed = write!(io.stdout, "{change}").and_then(|()| io.stdout.flush());
            }
        })
        .await;
    printed?;
    match applied {
        Ok(made) => {
            writeln!(io.stderr, "apply: {made} change(s) made")?;
            Ok(())
        }
        Err(stopped) => {
            let change = stopped.change.to_string();
            writeln!(
                io.stderr,
                "apply: {} of {} change(s) done (printed above); stopped at `{}`; the other {} not made \
                 (`vidplat catalog plan` shows what is left)",
                stopped.done,
                stopped.done + 1 + stopped.not_made,
                change.lines().next().unwrap_or_default(),
                stopped.not_made
            )?;
            Err(stopped.error.into())
        }
    }
}

/// What was left alone or not read, on stderr.
fn notes(notes: &[String], stderr: &mut dyn std::io::Write) -> Result<(), Failure> {
    for note in notes {
        writeln!(stderr, "catalog: {note}")?;
    }
    Ok(())
}

/// The file: YAML (JSON is YAML too), from a path or stdin.
fn read_file(matches: &ArgMatches, stdin: &mut dyn std::io::Read) -> Result<Catalog, Failure> {
    let path = matches.get_one::<String>("file").cloned().unwrap_or_default();
    let bytes = crate::run::read_input(&path, "--file", 16 << 20, stdin)?;
    let text = String::from_utf8(bytes).map_err(|_| Failure::invalid("--file", "is not UTF-8 text"))?;
    Ok(Catalog::from_yaml(&text)?)
}
