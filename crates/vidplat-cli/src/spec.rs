//! What an operation command is made of: its flags and body (the generated
//! `COMMANDS` of each service are written in these types; `command.rs` makes
//! clap commands of them, `run.rs` reads the parsed values back).

use vidplat_core::OperationMeta;

/// Where a flag's value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A path parameter.
    Path,
    /// A query parameter.
    Query,
    /// A header.
    Header,
    /// A top-level member of the JSON body.
    Body,
}

/// A value's JSON kind, as the YAML gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

/// One flag of an operation command.
#[derive(Debug)]
pub struct ArgSpec {
    /// The long flag, without `--` (a body member's gets `body-` before it where another flag has its name).
    pub flag: &'static str,
    /// The parameter's argument name (its builder setter's, as
    /// `vidplat_core::Args` keys it), or the body member's name.
    pub key: &'static str,
    pub place: Place,
    /// The kind of the value (of each element, for a list).
    pub kind: Kind,
    /// A list: the flag repeats.
    pub repeated: bool,
    pub required: bool,
    pub help: &'static str,
    /// The values the YAML enumerates (none: any value of the kind).
    pub values: &'static [&'static str],
}

impl ArgSpec {
    /// The argument's id in clap's matches: a body member's never meets a flag of the same name.
    pub fn id(&self) -> String {
        match self.place {
            Place::Body => format!("body.{}", self.key),
            Place::Path | Place::Query | Place::Header => self.flag.to_owned(),
        }
    }
}

/// An operation's request body.
#[derive(Debug)]
pub struct BodySpec {
    /// JSON (else sent as it is, from `--body @file`).
    pub json: bool,
    /// Every member as `a.b[].c`, with its kind: what `--set` may set.
    pub members: &'static [(&'static str, Kind)],
    /// `--body-template`'s output.
    pub template: &'static str,
}

/// One operation command.
#[derive(Debug)]
pub struct CommandSpec {
    /// The operation's row of its service's table.
    pub operation: &'static OperationMeta,
    /// The command's name: the operation ID in kebab-case.
    pub name: &'static str,
    /// Other documented names of the same request (`x-aliases`).
    pub aliases: &'static [&'static str],
    pub about: &'static str,
    pub long_about: &'static str,
    pub args: &'static [ArgSpec],
    pub body: Option<&'static BodySpec>,
    /// A list with a paging style: `--all`, `--prefetch`, `--max-items`.
    pub list: bool,
}
