//! An operation's argument as a flag: its clap `Arg` (`--granularity`), and
//! the JSON value of the text given to it, which the builder's `from_args`
//! then checks against its type and documented bounds.

use crate::spec::ArgSpec;
use clap::builder::{PossibleValuesParser, TypedValueParser as _, ValueParser};
use clap::{Arg, ArgAction};
use serde_json::Value;
use vidplat_core::{Kind, Place};

/// The flag of one argument of an operation (`--granularity`).
pub fn flag(spec: ArgSpec, long: String) -> Arg {
    let argument = spec.argument;
    let mut arg = Arg::new(spec.id())
        .long(long)
        .help(spec.help)
        .required(argument.required)
        .value_name(value_name(spec));
    if argument.repeated {
        arg = arg.action(ArgAction::Append);
    }
    if argument.name == "login_id" {
        // The account's login ID: the same value the global flag and the profile give.
        arg = arg.env("VIDPLAT_LOGIN_ID");
    }
    if argument.place == Place::Body {
        arg = arg.help_heading("Body members");
    }
    if matches!(argument.kind, Kind::Integer | Kind::Number) {
        // `--minutes -5` is a value, not a flag.
        arg = arg.allow_negative_numbers(true);
    }
    arg.value_parser(parser(argument))
}

fn value_name(spec: ArgSpec) -> &'static str {
    match spec.argument.kind {
        Kind::Integer => "INTEGER",
        Kind::Number => "NUMBER",
        Kind::Boolean => "BOOL",
        _ if spec.flag().ends_with("-id") || spec.flag() == "id" => "ID",
        _ => "TEXT",
    }
}

/// Each flag's text becomes the JSON value of its kind; the typed builder
/// then checks it against its type and documented bounds.
fn parser(argument: &'static vidplat_core::Argument) -> ValueParser {
    if !argument.values.is_empty() {
        return ValueParser::new(PossibleValuesParser::new(argument.values).map(Value::String));
    }
    parser_of(argument.kind)
}

/// Text to the JSON value of `kind`.
pub fn parser_of(kind: Kind) -> ValueParser {
    ValueParser::new(move |text: &str| -> Result<Value, String> { scalar(kind, text) })
}

/// The JSON value of `text` as a value of `kind`.
pub fn scalar(kind: Kind, text: &str) -> Result<Value, String> {
    match kind {
        Kind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<u64>().map(Value::from))
            .map_err(|_| format!("`{text}` is not an integer")),
        Kind::Number => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("`{text}` is not a number")),
        Kind::Boolean => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("`{text}` is not true or false")),
        },
        Kind::Text => Ok(Value::String(text.to_owned())),
        Kind::Array | Kind::Object => serde_json::from_str(text).map_err(|e| format!("not JSON: {e}")),
    }
}
