//! `vidplat webhook verify`: checks a received webhook's signature as the
//! Standard Webhooks specification gives it ([`vidplat::webhooks`]); exit 0
//! when it verifies, 5 when it does not or is too old (as `verify-url`).

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, Command};
use serde_json::json;
use vidplat::webhooks::{self, WebhookSecret};

pub fn define(command: Command) -> Command {
    let required = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value).required(true).help(help)
    };
    command
        .subcommand_required(true)
        .subcommand(
            Command::new("verify")
                .about("Check a received webhook: the body on stdin; exit 0 when it verifies, 5 when not or too old")
                .arg(required(
                    "secret-file",
                    "FILE",
                    "The `whsec_…` secret, from a file (never on the command line, where other users can read it)",
                ))
                .arg(required("id", "ID", "The `webhook-id` header"))
                .arg(required("timestamp", "SECONDS", "The `webhook-timestamp` header"))
                .arg(required(
                    "signature",
                    "SIGNATURES",
                    "The `webhook-signature` header (`v1,<base64>`, several separated by spaces)",
                ))
                .arg(
                    Arg::new("tolerance")
                        .long("tolerance")
                        .value_name("DURATION")
                        .value_parser(humantime::parse_duration)
                        .help("How far the timestamp may be from now, either way [default: 5m]"),
                )
                .after_help(
                    "Examples:\n  \
                     vidplat webhook verify --secret-file hook.secret --id \"$ID\" --timestamp \"$TS\" --signature \"$SIG\" < body.json",
                ),
        )
}

/// The most bytes of a body read: a webhook's body is an event.
const MAX_BODY: u64 = 16 << 20;

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Some(("verify", matches)) = invocation.matches.subcommand() else {
        return Err(Failure::invalid("webhook", "needs a subcommand"));
    };
    let text = |name: &str| matches.get_one::<String>(name).map(String::as_str).unwrap_or_default();
    let path = text("secret-file");
    let secret = WebhookSecret::parse(&crate::config::read_key_file(path, "--secret-file")?)
        .map_err(|e| Failure::invalid("--secret-file", e.to_string()))?;
    let body = crate::run::read_input("-", "the body", MAX_BODY, invocation.io.stdin)?;
    let now = vidplat::webhooks::now();
    let tolerance = matches
        .get_one::<std::time::Duration>("tolerance")
        .copied()
        .unwrap_or(webhooks::DEFAULT_TOLERANCE);
    webhooks::verify(
        &secret,
        text("id"),
        text("timestamp"),
        text("signature"),
        &body,
        now,
        tolerance,
    )
    .map_err(|e| Failure::Signature(format!("the webhook does not verify: {e}")))?;
    invocation.print(&json!({"valid": true, "id": text("id"), "timestamp": text("timestamp")}))
}
