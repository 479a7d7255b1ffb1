//! An operation command as the table describes it: its row
//! (`operations::ALL`) and the words of its help (`operations::HELP`, the
//! client crates' `help` feature). `command.rs` makes clap commands of
//! them, `run.rs` reads the parsed values back. Nothing here is generated.

use vidplat_core::{Argument, OperationHelp, OperationMeta, Place, Service};

/// One operation command: a row of its service's table and its help.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    /// The operation's row of its service's table.
    pub operation: &'static OperationMeta,
    /// Its help, written beside the row.
    pub help: &'static OperationHelp,
}

/// The operation commands of `service`, in the YAML's order.
pub fn commands(service: Service) -> impl Iterator<Item = CommandSpec> {
    let (rows, help): (&'static [OperationMeta], &'static [OperationHelp]) = match service {
        Service::Encoder => (&vidplat::encoder::operations::ALL, &vidplat::encoder::operations::HELP),
        Service::Vms => (&vidplat::vms::operations::ALL, &vidplat::vms::operations::HELP),
        Service::Analytics => (
            &vidplat::analytics::operations::ALL,
            &vidplat::analytics::operations::HELP,
        ),
    };
    rows.iter()
        .zip(help)
        .map(|(operation, help)| CommandSpec { operation, help })
}

/// The command of the operation `id` (`list_tasks`) of `service`.
pub fn of_operation(service: Service, id: &str) -> Option<CommandSpec> {
    commands(service).find(|c| c.operation.id == id)
}

/// The operation command `name` (or one of its aliases) of `service`.
pub fn find(service: Service, name: &str) -> Option<CommandSpec> {
    commands(service).find(|c| c.name() == name || c.aliases().any(|alias| alias == name))
}

/// `list_tasks` → `list-tasks`: a command's name, and a flag's.
pub fn kebab(id: &str) -> String {
    id.trim_end_matches('_').replace('_', "-")
}

impl CommandSpec {
    /// The command's name: the operation ID in kebab-case.
    pub fn name(&self) -> String {
        kebab(self.operation.id)
    }

    /// Other documented names of the same request (`x-aliases`), in kebab-case.
    pub fn aliases(&self) -> impl Iterator<Item = String> {
        self.operation.aliases.iter().map(|alias| kebab(alias))
    }

    /// Each argument with its help line.
    pub fn args(&self) -> impl Iterator<Item = ArgSpec> {
        self.operation
            .arguments
            .iter()
            .zip(self.help.arguments)
            .map(|(argument, help)| ArgSpec { argument, help })
    }

    /// The columns of its rows when `--columns` names none: a table's chosen
    /// few (`x-table-columns`), else every member of the row, in the
    /// schema's order (so an empty CSV list has its header, and every list
    /// the same header whatever its first row leaves out). Other formats
    /// keep each row whole.
    pub fn default_columns(&self, format: crate::output::Format) -> Option<Vec<String>> {
        use crate::output::Format;
        let help = self.help;
        let chosen = match format {
            Format::Table if !help.table_columns.is_empty() => help.table_columns,
            Format::Table | Format::Csv => help.row_members,
            Format::Json | Format::Ndjson | Format::Yaml => &[],
        };
        (!chosen.is_empty()).then(|| chosen.iter().map(|c| (*c).to_owned()).collect())
    }

    /// A list with a paging style: `--all`, `--prefetch`, `--max-items`.
    pub fn list(&self) -> bool {
        self.operation.paging.is_some()
    }
}

/// One flag of an operation command: an argument and its help line.
#[derive(Clone, Copy, Debug)]
pub struct ArgSpec {
    pub argument: &'static Argument,
    pub help: &'static str,
}

impl ArgSpec {
    /// The long flag, without `--` (a body member's gets `body-` before it
    /// where another flag of the command has its name: `command.rs`).
    pub fn flag(&self) -> String {
        kebab(self.argument.name)
    }

    /// The argument's id in clap's matches: a body member's never meets a flag of the same name.
    pub fn id(&self) -> String {
        match self.argument.place {
            Place::Body => format!("body.{}", self.argument.name),
            Place::Path | Place::Query | Place::Header => self.flag(),
        }
    }
}

/// The required flags of a command, each with a value of its kind: those
/// of its parameters, then those of its body's members (which a
/// `--body-template` line leaves out); and whether a required member is a
/// list or an object, or has no flag: written in a body file instead.
pub struct RequiredFlags {
    pub parameters: String,
    pub members: String,
    pub body_file: bool,
}

/// [`RequiredFlags`] of the arguments with their flags, `body` the row's body.
pub fn required_flags<'f>(
    args: impl Iterator<Item = (ArgSpec, &'f clap::Arg)>,
    body: Option<vidplat_core::RequestBody>,
) -> RequiredFlags {
    let mut flags = RequiredFlags {
        parameters: String::new(),
        members: String::new(),
        body_file: false,
    };
    let mut flagged = Vec::new();
    for (arg, flag) in args {
        let argument = arg.argument;
        if argument.place == Place::Body {
            flagged.push(argument.name);
        }
        // A body member's flag is required as its body says (`required` of the row's body).
        let (required, into) = match argument.place {
            Place::Body => (
                body.is_some_and(|body| body.required.contains(&argument.name)),
                &mut flags.members,
            ),
            Place::Path | Place::Query | Place::Header => (argument.required, &mut flags.parameters),
        };
        if !required {
            continue;
        }
        let Some(long) = flag.get_long() else { continue };
        let value = match (argument.values.first(), argument.kind) {
            (Some(value), _) => (*value).to_owned(),
            (None, vidplat_core::Kind::Integer | vidplat_core::Kind::Number) => "7".to_owned(),
            (None, vidplat_core::Kind::Boolean) => "true".to_owned(),
            (None, vidplat_core::Kind::Text) => long.replace('-', "_").to_uppercase(),
            (None, vidplat_core::Kind::Array | vidplat_core::Kind::Object) => {
                flags.body_file = true;
                continue;
            }
        };
        into.push_str(&format!(" --{long} {value}"));
    }
    // A required member no flag gives is written in the body file too.
    if body.is_some_and(|body| body.required.iter().any(|member| !flagged.contains(member))) {
        flags.body_file = true;
    }
    flags
}

/// The members `service`'s YAML marks `x-secret`: never shown by a dry run.
pub fn secret_members(service: Service) -> &'static [&'static str] {
    match service {
        Service::Encoder => vidplat::encoder::operations::SECRET_MEMBERS,
        Service::Vms => vidplat::vms::operations::SECRET_MEMBERS,
        Service::Analytics => vidplat::analytics::operations::SECRET_MEMBERS,
    }
}
