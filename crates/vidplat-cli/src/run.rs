//! An operation command's run: its parsed arguments made the builder's
//! (`vidplat_core::Args`, read by the client crate's `builder::visit`), and
//! the runner that shows, sends and prints any operation's builder.

use crate::failure::Failure;
use crate::output::{Format, RowWriter};
use crate::spec::CommandSpec;
use clap::ArgMatches;
use futures::StreamExt as _;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::{Read, Write};
use vidplat::any_call::{AnyCall, AnyList};
use vidplat_core::{PagePosition, Place};

/// An operation command's arguments: parameters by wire name, and the body.
#[derive(Debug, Default)]
pub struct Args {
    params: Map<String, Value>,
    /// Each parameter's name and flag, to name it in errors.
    flags: Vec<(&'static str, String)>,
    body: Option<Value>,
    raw_body: Option<Vec<u8>>,
}

impl Args {
    /// The arguments of `spec`'s command: flags, then `--body`, body member flags and `--set`.
    pub fn from_matches(spec: CommandSpec, matches: &ArgMatches, stdin: &mut dyn Read) -> Result<Self, Failure> {
        let mut args = Args::default();
        let mut members = Map::new();
        for arg in spec.args() {
            // A command may offer some of the operation's arguments only
            // (an export sets the period and the page window itself).
            let values: Vec<Value> = matches
                .try_get_many::<Value>(&arg.id())
                .ok()
                .flatten()
                .map(|v| v.cloned().collect())
                .unwrap_or_default();
            if values.is_empty() {
                continue;
            }
            let argument = arg.argument;
            let value = if argument.repeated {
                Value::Array(values)
            } else {
                values.into_iter().next().unwrap_or(Value::Null)
            };
            match argument.place {
                Place::Body => {
                    members.insert(argument.name.to_owned(), value);
                }
                Place::Path | Place::Query | Place::Header => {
                    args.flags.push((argument.name, arg.flag()));
                    args.params.insert(argument.name.to_owned(), value);
                }
            }
        }
        let Some(body) = spec.operation.body else {
            return Ok(args);
        };
        let source = matches
            .get_one::<String>("body")
            .map(|s| read_source(s, stdin))
            .transpose()?;
        if !body.json {
            args.raw_body = source;
            return Ok(args);
        }
        let sets: Vec<&String> = matches
            .get_many::<String>("set")
            .map(|v| v.collect())
            .unwrap_or_default();
        if source.is_none() && members.is_empty() && sets.is_empty() {
            return Ok(args);
        }
        let mut value = match source {
            Some(bytes) => parse_document(&bytes)?,
            None => Value::Object(Map::new()),
        };
        let Value::Object(object) = &mut value else {
            return Err(Failure::invalid("body", "is not a JSON object"));
        };
        object.extend(members);
        for set in sets {
            apply_set(&mut value, "--set", set, Some(body))?;
        }
        args.body = Some(value);
        Ok(args)
    }

    /// Parameters by wire name alone (`vidplat api --paginate`: a route's
    /// path members and query), each refusal named by its wire name.
    pub fn from_params(params: Map<String, Value>) -> Self {
        Args {
            params,
            ..Args::default()
        }
    }

    /// The arguments as the builders' `from_args` reads them.
    pub fn for_builder(&self) -> vidplat_core::Args {
        let mut members = self.params.clone();
        if let Some(body) = &self.body {
            members.insert("body".to_owned(), body.clone());
        }
        let args = vidplat_core::Args::new(members);
        match &self.raw_body {
            Some(bytes) => args.with_raw_body(bytes.clone()),
            None => args,
        }
    }

    /// `refusals` as the command line reports them: a parameter by its flag
    /// (`--task-id`), a body member by its path (`body.streams[0].height`).
    pub fn refused(&self, refusals: vidplat_core::Refusals) -> Failure {
        let problems = refusals.into_iter().map(|refusal| {
            let (path, rule) = refusal.into_parts();
            let key = path.split(['.', '[']).next().unwrap_or_default();
            match self.flags.iter().find(|(k, _)| *k == key) {
                Some((_, flag)) => (format!("--{flag}{}", &path[key.len()..]), rule),
                None => (path, rule),
            }
        });
        Failure::refused(problems.collect())
    }
}

/// Runs what `Client::any_call` gave for the command `command` of `service`.
pub async fn ran(
    runner: &Runner<'_>,
    service: &str,
    command: &str,
    args: &Args,
    made: Option<Result<AnyCall<'_>, vidplat_core::Refusals>>,
) -> Result<Outcome, Failure> {
    match made {
        None => Err(Failure::unknown_command(service, command)),
        Some(Err(refusals)) => Err(args.refused(refusals)),
        Some(Ok(AnyCall::List(list))) => runner.list(list).await,
        Some(Ok(call)) => runner.one(call).await,
    }
}

/// The most bytes `--body` reads (the services' bodies are small; a CSV import is the largest).
pub(crate) const MAX_BODY: u64 = 64 << 20;

/// `@file` or `-` (stdin).
pub(crate) fn read_source(source: &str, stdin: &mut dyn Read) -> Result<Vec<u8>, Failure> {
    match source {
        "-" => read_input("-", "--body", MAX_BODY, stdin),
        _ => match source.strip_prefix('@') {
            Some(path) => read_input(path, "--body", MAX_BODY, stdin),
            None => Err(Failure::invalid("--body", "is @FILE or - (stdin)")),
        },
    }
}

/// A file a command was given (`-`: stdin), whole, up to `max` bytes;
/// `what` is the flag or argument that named it. (A file named on the
/// command line is read as it is, a FIFO included: `<(jq …)` works.)
pub(crate) fn read_input(path: &str, what: &str, max: u64, stdin: &mut dyn Read) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let read = match path {
        "-" => stdin.take(max + 1).read_to_end(&mut bytes),
        _ => std::fs::File::open(path).and_then(|f| f.take(max + 1).read_to_end(&mut bytes)),
    };
    read.map_err(|e| Failure::Setup(format!("{what} {path}: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(Failure::invalid(what, format!("is larger than {max} bytes")));
    }
    Ok(bytes)
}

/// The deepest nesting a body may have: the services' deepest body is a few
/// levels; YAML's parser takes time that grows fast with depth.
const MAX_BODY_DEPTH: usize = 64;

/// JSON, else YAML; a document nested deeper than [`MAX_BODY_DEPTH`] is
/// refused before either parser reads it.
fn parse_document(bytes: &[u8]) -> Result<Value, Failure> {
    if bracket_depth(bytes) > MAX_BODY_DEPTH {
        return Err(Failure::invalid(
            "--body",
            format!("is nested deeper than {MAX_BODY_DEPTH} levels"),
        ));
    }
    serde_json::from_slice(bytes).or_else(|json| {
        serde_yaml::from_slice(bytes)
            .map_err(|yaml| Failure::invalid("--body", format!("is neither JSON ({json}) nor YAML ({yaml})")))
    })
}

/// The deepest nesting of `[` and `{` in `bytes`, outside quoted strings.
fn bracket_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &byte in bytes {
        match quote {
            Some(b'"') if escaped => escaped = false,
            Some(b'"') if byte == b'\\' => escaped = true,
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None => match byte {
                b'"' | b'\'' => quote = Some(byte),
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    deepest
}

/// One step of a `--set` path.
#[derive(Debug, PartialEq)]
enum Step {
    Member(String),
    Index(usize),
}

/// `a.b[0].c` → steps; `None` when malformed.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if name.is_empty() {
            return None;
        }
        steps.push(Step::Member(name.to_owned()));
        while let Some(after) = rest.strip_prefix('[') {
            let (index, tail) = after.split_once(']')?;
            steps.push(Step::Index(index.parse().ok()?));
            rest = tail;
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(steps)
}

/// Applies `--set path=value` (or `path:=json`) to the body: with the
/// operation's `schema`, a member it does not name is refused and a value is
/// read as its member's kind; without one (`vidplat api --field`), a value is text.
fn apply_set(
    body: &mut Value,
    flag: &str,
    set: &str,
    schema: Option<vidplat_core::RequestBody>,
) -> Result<(), Failure> {
    let (path, text, raw) = match set.split_once('=') {
        Some((path, text)) => match path.strip_suffix(':') {
            Some(path) => (path, text, true),
            None => (path, text, false),
        },
        None => return Err(Failure::invalid(flag, format!("`{set}` is not PATH=VALUE"))),
    };
    let field = format!("body.{path}");
    let steps = parse_path(path).ok_or_else(|| Failure::invalid(&field, "is not a member path like a.b[0].c"))?;
    let kind =
        match schema {
            Some(schema) => {
                let pattern: String = steps
                    .iter()
                    .enumerate()
                    .map(|(i, step)| match step {
                        Step::Member(name) if i == 0 => name.clone(),
                        Step::Member(name) => format!(".{name}"),
                        Step::Index(_) => "[]".to_owned(),
                    })
                    .collect();
                Some(schema.kind_of(&pattern).ok_or_else(|| {
                    Failure::invalid(&field, "is no member of the body (`--body-template` lists them)")
                })?)
            }
            None => None,
        };
    let value = match (raw, kind) {
        (true, _) => serde_json::from_str(text).map_err(|e| Failure::invalid(&field, format!("is not JSON: {e}")))?,
        (false, Some(kind)) => crate::flags::scalar(kind, text).map_err(|rule| Failure::invalid(&field, rule))?,
        (false, None) => Value::String(text.to_owned()),
    };
    place(body, &steps, value, &field)
}

/// `--field PATH=VALUE` (text) or `PATH:=JSON` into a raw request's body (`vidplat api`).
pub(crate) fn apply_field(body: &mut Value, field: &str) -> Result<(), Failure> {
    apply_set(body, "--field", field, None)
}

/// `value` put at `steps` into `body`, making the objects and lists on the way.
fn place(body: &mut Value, steps: &[Step], value: Value, field: &str) -> Result<(), Failure> {
    let mut at = body;
    for step in steps {
        at = match step {
            Step::Member(name) => {
                if !at.is_object() {
                    *at = Value::Object(Map::new());
                }
                let Value::Object(map) = at else {
                    unreachable!("made an object above")
                };
                map.entry(name.clone()).or_insert(Value::Null)
            }
            Step::Index(index) => {
                if !at.is_array() {
                    *at = Value::Array(Vec::new());
                }
                let Value::Array(items) = at else {
                    unreachable!("made an array above")
                };
                if *index > items.len() {
                    return Err(Failure::invalid(
                        field,
                        format!("index {index} skips elements (the list has {})", items.len()),
                    ));
                }
                if *index == items.len() {
                    items.push(Value::Null);
                }
                &mut items[*index]
            }
        };
    }
    *at = value;
    Ok(())
}

/// What an operation command did.
#[derive(Debug)]
pub enum Outcome {
    /// The decoded answer, to print (or wait on).
    Value(Value),
    /// Rows already printed.
    Printed,
}

/// `--dry-run` and `--print curl`: the request shown, nothing sent.
pub fn seeing_the_call() -> [clap::Arg; 2] {
    [
        clap::Arg::new("dry-run")
            .long("dry-run")
            .action(clap::ArgAction::SetTrue)
            .help("Print the request that would be sent (the key redacted) and send nothing")
            .help_heading("Seeing the call"),
        clap::Arg::new("print")
            .long("print")
            .value_name("FORM")
            .value_parser(["curl"])
            .help("Print the request as a curl command (the key as $VIDPLAT_API_KEY) and send nothing")
            .help_heading("Seeing the call"),
    ]
}

/// Show the request instead of sending it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    DryRun,
    Curl,
}

impl Show {
    /// What `--dry-run` or `--print curl` ([`seeing_the_call`]) asks for.
    pub fn asked(matches: &ArgMatches) -> Option<Show> {
        if matches.try_get_one::<bool>("dry-run").ok().flatten() == Some(&true) {
            Some(Show::DryRun)
        } else if matches.try_get_one::<String>("print").ok().flatten().is_some() {
            Some(Show::Curl)
        } else {
            None
        }
    }
}

/// How the operation commands of one invocation run and print.
pub struct Runner<'a> {
    pub format: Format,
    /// `--jq`, then `--columns` (or the operation's default columns).
    pub shape: crate::output::Shape,
    pub show: Option<Show>,
    pub all: bool,
    pub prefetch: usize,
    pub max_items: Option<usize>,
    /// `--max-pages`: a bound of the caller's instead of the paginator's default.
    pub max_pages: Option<usize>,
    /// Count the rows of `--all` on stderr (a terminal, with stdout elsewhere).
    pub count_rows: bool,
    pub out: RefCell<&'a mut dyn Write>,
    /// Lines for stderr, written when the call is over.
    pub notes: RefCell<Vec<String>>,
    /// The service's members the YAML marks `x-secret`: never shown.
    pub secret_members: &'static [&'static str],
}

impl Runner<'_> {
    /// Any operation: shown, or sent and its answer returned.
    pub async fn one(&self, call: AnyCall<'_>) -> Result<Outcome, Failure> {
        if let Some(show) = self.show {
            return self.show_request(call, show);
        }
        Ok(Outcome::Value(call.call().await?))
    }

    /// A list: its rows printed as they arrive (every page with `--all`).
    pub async fn list(&self, call: AnyList<'_>) -> Result<Outcome, Failure> {
        if let Some(show) = self.show {
            return self.show_request(AnyCall::List(call), show);
        }
        let mut rows = RowWriter::new(self.format, self.shape.clone());
        let limit = self.max_items.unwrap_or(usize::MAX);
        // Borrowed per write, never across an await.
        let out = || self.out.borrow_mut();
        let result = if self.all {
            let mut items = call.rows(self.prefetch, limit, self.max_pages);
            let counter = crate::progress::RowCount::new(self.count_rows);
            let mut result = Ok(());
            while let Some(item) = items.next().await {
                match item {
                    Ok(item) => {
                        rows.json_row(&mut **out(), &item)?;
                        counter.row();
                    }
                    Err(e) => {
                        result = Err(Failure::from(e));
                        break;
                    }
                }
            }
            result
        } else {
            let position = call.first();
            match call.page().await {
                Ok(page) => {
                    // A list that stops at its first page says so (gh's "Showing 30 of 120").
                    let more = match (page.truncated, page.last_page, position) {
                        (Some(true), _, _) => Some("more exist".to_owned()),
                        (_, Some(last), PagePosition::Number(n)) if u64::try_from(last).is_ok_and(|l| l > n.get()) => {
                            Some(format!("page {n} of {last}"))
                        }
                        _ => None,
                    };
                    let shown = page.rows.len().min(limit);
                    for item in page.rows.iter().take(limit) {
                        rows.json_row(&mut **out(), item)?;
                    }
                    if let Some(more) = more {
                        let plural = if shown == 1 { "" } else { "s" };
                        self.note(format!("showing {shown} row{plural}, {more}; --all for every page"));
                    }
                    Ok(())
                }
                Err(e) => Err(Failure::from(e)),
            }
        };
        // The rows printed before a failure stay well-formed (a JSON array is
        // closed); a failure before any row prints nothing (not an empty list).
        if result.is_ok() || rows.rows() > 0 {
            if let Some(note) = rows.finish(&mut **out())?.note() {
                self.note(note.to_owned());
            }
        }
        result.map(|()| Outcome::Printed)
    }

    /// A line for stderr once the call is over (the runner holds no stderr: the quota waits write there meanwhile).
    fn note(&self, note: String) {
        self.notes.borrow_mut().push(note);
    }

    fn show_request(&self, call: AnyCall<'_>, show: Show) -> Result<Outcome, Failure> {
        let request = call.prepare()?;
        let (text, note) = shown_request(&request, show, self.secret_members);
        if let Some(note) = note {
            self.note(note);
        }
        self.out.borrow_mut().write_all(text.as_bytes())?;
        Ok(Outcome::Printed)
    }
}

/// `request` as `show` prints it, the key and the `secret_members` redacted
/// (a password in the body is shown no more than the key); with a note for
/// stderr when a curl command lost a secret that must be put back.
pub fn shown_request(
    request: &reqwest::Request,
    show: Show,
    secret_members: &'static [&'static str],
) -> (String, Option<String>) {
    let text = match show {
        Show::DryRun => request_text(request),
        Show::Curl => curl(request),
    };
    let redactor = vidplat_core::Redactor::new(None, secret_members);
    let shown = redactor.text(&text);
    let note = (matches!(shown, std::borrow::Cow::Owned(_)) && show == Show::Curl).then(|| {
        format!(
            "note: the body's secret members are shown as {}: put their values back before running it",
            vidplat_core::REDACTED
        )
    });
    (shown.into_owned(), note)
}

/// The request as text: the method and URL, the headers (sorted, the key
/// redacted), then the body (JSON pretty-printed).
pub fn request_text(request: &reqwest::Request) -> String {
    let mut text = format!("{} {}\n", request.method(), request.url());
    let mut headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|(name, value)| {
            let shown = if name == reqwest::header::AUTHORIZATION {
                "Bearer <redacted>".to_owned()
            } else {
                // A value of bytes beyond ASCII (UTF-8 text, say) is shown as text, its controls escaped.
                vidplat_core::escape_controls(&String::from_utf8_lossy(value.as_bytes())).into_owned()
            };
            (name.to_string(), shown)
        })
        .collect();
    headers.sort();
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\n"));
    }
    if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
        let shown = match serde_json::from_slice::<Value>(body) {
            Ok(json) => serde_json::to_string_pretty(&json).unwrap_or_default(),
            Err(_) => String::from_utf8_lossy(body).into_owned(),
        };
        text.push('\n');
        text.push_str(&shown);
        text.push('\n');
    }
    text
}

/// The request as a curl command; the key is read from `$VIDPLAT_API_KEY` when it runs.
pub fn curl(request: &reqwest::Request) -> String {
    let mut parts = vec![
        "curl".to_owned(),
        "-X".to_owned(),
        request.method().to_string(),
        quote(request.url().as_str()),
    ];
    let mut headers: Vec<_> = request.headers().iter().collect();
    headers.sort_by_key(|(name, _)| name.as_str());
    for (name, value) in headers {
        parts.push("-H".to_owned());
        if name == reqwest::header::AUTHORIZATION {
            parts.push("\"authorization: Bearer $VIDPLAT_API_KEY\"".to_owned());
        } else {
            parts.push(shell_word(
                &[name.as_str().as_bytes(), b": ", value.as_bytes()].concat(),
            ));
        }
    }
    if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
        match std::str::from_utf8(body) {
            Ok(text) => {
                parts.push("--data-binary".to_owned());
                parts.push(quote(text));
            }
            Err(_) => parts.push(format!(
                "--data-binary @FILE  # a body of {} bytes, not text",
                body.len()
            )),
        }
    }
    parts.join(" ") + "\n"
}

/// `text` in single quotes for a POSIX shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `bytes` as one shell word that passes them exactly: in single quotes when
/// they are UTF-8 text without control characters, else in `$'…'` with
/// `\xNN` escapes (bash, zsh and ksh read it; a header value may hold any
/// byte but a line break).
fn shell_word(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.chars().any(char::is_control) => quote(text),
        _ => {
            let mut word = String::from("$'");
            for &byte in bytes {
                match byte {
                    b'\\' => word.push_str("\\\\"),
                    b'\'' => word.push_str("\\'"),
                    0x20..=0x7e => word.push(char::from(byte)),
                    _ => word.push_str(&format!("\\x{byte:02x}")),
                }
            }
            word.push('\'');
            word
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vidplat_core::Kind;

    #[test]
    fn set_paths_create_what_they_name_and_refuse_what_the_body_lacks() {
        let members = vidplat_core::RequestBody {
            json: true,
            members: &[
                ("streams", Kind::Array),
                ("streams[]", Kind::Object),
                ("streams[].video", Kind::Object),
                ("streams[].video.height", Kind::Integer),
                ("name", Kind::Text),
                ("settings", Kind::Object),
                ("settings.*", Kind::Integer),
            ],
            required: &[],
            nullable: &[],
        };
        let mut body = serde_json::json!({});
        apply_set(&mut body, "--set", "streams[0].video.height=720", Some(members)).unwrap();
        apply_set(&mut body, "--set", "name=123", Some(members)).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"streams": [{"video": {"height": 720}}], "name": "123"})
        );
        let refused = apply_set(&mut body, "--set", "streams[2].video.height=1", Some(members)).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "invalid input, not sent: `body.streams[2].video.height` index 2 skips elements (the list has 1)"
        );
        let unknown = apply_set(&mut body, "--set", "nmae=x", Some(members)).unwrap_err();
        assert!(unknown.to_string().contains("`body.nmae` is no member"), "{unknown}");
        let typed = apply_set(&mut body, "--set", "streams[0].video.height=tall", Some(members)).unwrap_err();
        assert!(typed.to_string().contains("`tall` is not an integer"), "{typed}");
        apply_set(&mut body, "--set", "streams:=[]", Some(members)).unwrap();
        assert_eq!(body["streams"], serde_json::json!([]));
        // An object that takes members the YAML does not name takes them, of its kind.
        apply_set(&mut body, "--set", "settings.anything=3", Some(members)).unwrap();
        assert_eq!(body["settings"], serde_json::json!({"anything": 3}));
    }

    #[test]
    fn the_depth_counts_brackets_outside_quoted_text() {
        assert_eq!(bracket_depth(br#"{"a": "[[[[\"{{", "b": [1, {"c": 'x[]'}]}"#), 3);
        assert_eq!(bracket_depth(b"a:\n  b: 1\n"), 0);
    }

    /// The printed word, run by a shell, gives back the header's bytes exactly
    /// (UTF-8 text, or bytes that are not), not an empty value.
    #[cfg(unix)]
    #[test]
    fn a_header_beyond_ascii_passes_through_the_shell_byte_for_byte() {
        let cases: [&[u8]; 3] = [
            "x-vms-client-referer: https://例え.jp/ページ".as_bytes(),
            b"x-a: \xff\xfe it's a \\ end",
            b"x-b: plain",
        ];
        for bytes in cases {
            let word = shell_word(bytes);
            let printed = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf %s {word}"))
                .output()
                .expect("bash runs");
            assert_eq!(printed.stdout, bytes, "{word}");
        }
    }

    #[test]
    fn curl_quotes_what_a_shell_would_split() {
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
