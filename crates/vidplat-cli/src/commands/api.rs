//! `vidplat api SERVICE METHOD PATH`: the escape hatch. A request to any path
//! of a service, for the routes the operations do not hold (an account's own
//! route where the YAML assumed one, or what the documents add later), sent
//! as every call is: the profile's base URL and key, retries by the method's
//! rules, the deadline and, for analytics, the quota. PATH is a path, never a
//! URL, so the key goes to the configured origin only.

use super::Invocation;
use crate::failure::Failure;
use crate::run::{self, Outcome, Runner};
use clap::{Arg, ArgAction, Command};
use serde_json::{Map, Value};
use std::cell::RefCell;
use vidplat_core::{Method, Runtime, Service};

pub fn define(command: Command) -> Command {
    command
        .long_about(
            "Send a request to a path of a service with the profile's base URL and key, the SDK's retries \
             (a POST, PUT or PATCH that may have arrived is never sent again), the deadline and, for \
             analytics, the quota. PATH is a path under the service's base URL, never a URL: the key goes \
             to the configured origin only. The answer's JSON is printed in the chosen format (--jq applies).",
        )
        .arg(
            Arg::new("service")
                .value_name("SERVICE")
                .required(true)
                .value_parser(["encoder", "vms", "analytics"])
                .help("The service whose base URL the path is under"),
        )
        .arg(
            Arg::new("method")
                .value_name("METHOD")
                .required(true)
                .value_parser(["GET", "POST", "PUT", "PATCH", "DELETE"])
                .ignore_case(true)
                .help("The HTTP method"),
        )
        .arg(
            Arg::new("path")
                .value_name("PATH")
                .required(true)
                .help("A path under the service's base URL, with its query if any: /v1/tasks/7?page=2"),
        )
        .arg(
            Arg::new("field")
                .long("field")
                .short('f')
                .value_name("KEY=VALUE")
                .action(ArgAction::Append)
                .help(
                    "A query parameter of a GET or DELETE; else a body member, by --set's paths \
                     (a.b[0].c=text, or a.b:=<json> for a number, a list or an object)",
                ),
        )
        .arg(
            Arg::new("input")
                .long("input")
                .value_name("FILE")
                .help("The body: a JSON file, or - for stdin (--field members are set into it)"),
        )
        .arg(Arg::new("paginate").long("paginate").action(ArgAction::SetTrue).help(
            "Every row of every page, following the documented paging of the operation the \
                     method and path match (refused when none with paging does)",
        ))
        .args(run::seeing_the_call())
        .arg(crate::confirm::yes_flag())
        .after_help(
            "Examples:\n  vidplat api encoder GET /v1/tasks/counts\n  \
             vidplat api encoder GET /v1/tasks --field per_page=5 --paginate -o ndjson\n  \
             vidplat api encoder POST /v1/presets --input preset.json",
        )
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let matches = invocation.matches;
    let text = |name: &str| matches.get_one::<String>(name).map(String::as_str).unwrap_or_default();
    let service = match text("service") {
        "encoder" => Service::Encoder,
        "vms" => Service::Vms,
        _ => Service::Analytics,
    };
    let method = match text("method").to_ascii_uppercase().as_str() {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        _ => Method::Delete,
    };
    let path = text("path");
    let fields: Vec<&String> = matches
        .get_many::<String>("field")
        .map(|v| v.collect())
        .unwrap_or_default();
    let in_query = matches!(method, Method::Get | Method::Delete);
    let client = invocation.client()?;
    let runtime = client.runtime(service)?;
    if matches.get_flag("paginate") {
        return paginate(invocation, &client, runtime.clone(), method, path, &fields).await;
    }
    let (path, body) = if in_query {
        if matches.contains_id("input") {
            return Err(Failure::invalid(
                "--input",
                format!("a {} request has no body", method.as_str()),
            ));
        }
        (with_query(path, &fields)?, None)
    } else {
        let mut body = match matches.get_one::<String>("input") {
            Some(source) => {
                // A file, as the help says, or `-`: not the @FILE of an operation's --body.
                let bytes = run::read_input(source, "--input", run::MAX_BODY, invocation.io.stdin)?;
                serde_json::from_slice(&bytes).map_err(|e| Failure::invalid("--input", format!("is not JSON: {e}")))?
            }
            None => Value::Object(Map::new()),
        };
        for field in &fields {
            run::apply_field(&mut body, field)?;
        }
        let bytes = serde_json::to_vec(&body).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
        (path.to_owned(), Some(bytes))
    };
    let request = runtime.raw(method, &path, body)?;
    if let Some(show) = run::Show::asked(matches) {
        let (text, note) = run::shown_request(request.request(), show, crate::spec::secret_members(service));
        invocation.io.stdout.write_all(text.as_bytes())?;
        if let Some(note) = note {
            writeln!(invocation.io.stderr, "{note}")?;
        }
        return Ok(());
    }
    if method == Method::Delete {
        crate::confirm::destroying(&format!("DELETE {path}"), matches.get_flag("yes"), invocation.io)?;
    }
    let waits = client
        .analytics_quota()
        .filter(|_| service == Service::Analytics)
        .map(|q| q.watch_waits());
    let io = &mut *invocation.io;
    let answer = crate::with_quota_waits(
        async { Ok(request.send().await?) },
        waits,
        &mut *io.stderr,
        io.stderr_terminal,
    )
    .await?;
    let body = answer.into_inner();
    if body.is_empty() {
        return Ok(());
    }
    match serde_json::from_slice::<Value>(&body) {
        Ok(value) => invocation.print(&value),
        Err(_) => {
            let text = String::from_utf8_lossy(&body);
            let shown = if invocation.io.terminal {
                vidplat_core::escape_controls(&text).into_owned()
            } else {
                text.into_owned()
            };
            invocation.io.stdout.write_all(shown.as_bytes())?;
            Ok(())
        }
    }
}

/// `path` with each `KEY=VALUE` field appended to its query, percent-encoded.
fn with_query(path: &str, fields: &[&String]) -> Result<String, Failure> {
    let mut encoder =
        reqwest::Url::parse("http://query.invalid/").map_err(|e| Failure::invalid("--field", e.to_string()))?;
    for field in fields {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| Failure::invalid("--field", format!("`{field}` is not KEY=VALUE")))?;
        encoder.query_pairs_mut().append_pair(key, value);
    }
    let query = encoder.query().unwrap_or_default().to_owned();
    Ok(match (query.is_empty(), path.contains('?')) {
        (true, _) => path.to_owned(),
        (false, true) => format!("{path}&{query}"),
        (false, false) => format!("{path}?{query}"),
    })
}

/// `--paginate`: the operation the method and path match, called with its
/// path members and the query as its parameters, every page's rows printed.
async fn paginate(
    invocation: Invocation<'_, '_>,
    client: &vidplat::Client,
    runtime: Runtime,
    method: Method,
    path: &str,
    fields: &[&String],
) -> Result<(), Failure> {
    let (path_only, query) = path.split_once('?').unwrap_or((path, ""));
    let (operation, members) = runtime
        .table()
        .route(method.as_str(), path_only)
        .filter(|(operation, _)| operation.paging.is_some())
        .ok_or_else(|| {
            Failure::invalid(
                "--paginate",
                format!(
                    "`{} {path_only}` matches no operation that pages: its paging is not known",
                    method.as_str()
                ),
            )
        })?;
    let mut params = Map::new();
    for (name, value) in members {
        params.insert(name.to_owned(), Value::String(value.to_owned()));
    }
    let decoder = reqwest::Url::parse(&format!("http://query.invalid/?{query}"))
        .map_err(|e| Failure::invalid("PATH", format!("its query does not parse: {e}")))?;
    let query_pairs = decoder.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned()));
    let field_pairs = fields.iter().map(|field| match field.split_once('=') {
        Some((key, value)) => Ok((key.to_owned(), value.to_owned())),
        None => Err(Failure::invalid("--field", format!("`{field}` is not KEY=VALUE"))),
    });
    for pair in query_pairs.map(Ok).chain(field_pairs) {
        let (key, value) = pair?;
        // A number or a boolean is given as one, as a flag would give it.
        let value = serde_json::from_str::<Value>(&value)
            .ok()
            .filter(|v| v.is_number() || v.is_boolean())
            .unwrap_or(Value::String(value));
        params.insert(key, value);
    }
    let args = run::Args::from_params(params);
    let runner = Runner {
        format: invocation.format,
        shape: invocation.shape.clone(),
        show: None,
        all: true,
        prefetch: 1,
        max_items: None,
        max_pages: None,
        count_rows: invocation.io.stderr_terminal && !invocation.io.terminal,
        out: RefCell::new(&mut *invocation.io.stdout),
        notes: RefCell::new(Vec::new()),
        secret_members: crate::spec::secret_members(runtime.service()),
    };
    let data = args.for_builder();
    let made = client.any_call(runtime.service(), operation.id, &data)?;
    let outcome = run::ran(&runner, "api", operation.id, &args, made).await;
    for note in runner.notes.take() {
        writeln!(invocation.io.stderr, "{note}")?;
    }
    drop(runner);
    match outcome? {
        Outcome::Printed => Ok(()),
        Outcome::Value(value) => invocation.print(&value),
    }
}
