//! Record and replay: a [`Transport`] that records each exchange with the
//! services into a JSON file, secrets scrubbed, and later answers the same
//! requests from that file, with no network and no account.

use crate::mock::{at_mock_urls, http_answer, route};
use crate::rule::lock;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use url::form_urlencoded;
use vidplat_core::{Redactor, ResponseFuture, SecretString, Transport, REDACTED};

/// The `format` member of the cassettes this version writes, and the only one it reads.
pub const CASSETTE_FORMAT: &str = "vidplat-test cassette 1";

/// The environment variable with which [`Cassette::from_env`] records (`VIDPLAT_RECORD=1`).
pub const RECORD_VARIABLE: &str = "VIDPLAT_RECORD";

/// Response headers a cassette does not keep: the body is stored whole (its
/// length and framing are the rebuilt answer's own), and cookies are credentials.
const DROPPED_RESPONSE_HEADERS: [&str; 4] = ["content-length", "transfer-encoding", "connection", "set-cookie"];

/// Recorded exchanges with the services, kept in a JSON file: run a test once
/// against a real account while recording, then replay it offline, as often
/// as you like, with no account and no server.
///
/// ```no_run
/// use vidplat::Call;
/// use vidplat_test::Cassette;
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // VIDPLAT_RECORD=1 records with the account of the VIDPLAT_* variables;
/// // without it, the file answers.
/// let cassette = Cassette::from_env("tests/cassettes/task_counts.json")?;
/// let client = cassette.client_builder(vidplat::ClientBuilder::from_env()).build()?;
/// let counts = client.encoder()?.get_task_counts().call().await?;
/// cassette.finish(); // records: writes the file; replays: checks every exchange was used
/// # let _ = counts; Ok(()) }
/// ```
///
/// - **Recording** ([`Cassette::record`]): each request goes to the network
///   with the client's own HTTP client; its whole answer is read, recorded,
///   and handed back unchanged except for the headers a cassette drops
///   (`content-length`, `transfer-encoding`, `connection`, `set-cookie`). A
///   transport error (refused connection, broken answer) is handed back as it
///   came and not recorded; the runtime's retry that follows is.
///   [`finish`](Cassette::finish) writes the file.
/// - **Replaying** ([`Cassette::replay`]): each request is answered from the
///   first exchange not yet used whose request has the same key, in the
///   order recorded, so a polled `get_task` gets its recorded answers in
///   sequence. A request with none gets `501` (never retried: the code under
///   test sees `vidplat::Error::Api`) whose body says it was not recorded;
///   [`finish`](Cassette::finish) panics naming it, and every exchange left unused.
///
/// **The key of an exchange**: the service and operation (routed like
/// [`Mock`](crate::Mock): by the path's last segments against the YAML's
/// templates), the method, the path relative to the service's base URL (as
/// sent, percent-encoded), the query pairs, the request's `x-` headers (header
/// members such as `x-vms-client-ip`), and the body: a JSON body compared as
/// parsed JSON, another text body as text, a body that is not UTF-8 by its
/// length only, and a streamed body (an upload from a file) only as being
/// streamed. The base URLs are not part of it: an exchange recorded against
/// `http://127.0.0.1:PORT/encoder` replays at [`ENCODER_URL`](crate::ENCODER_URL).
///
/// **Scrubbed** from everything written to the file (and from each request
/// before it is compared, so the same scrub applies to both sides):
/// - the `Authorization` header: no request header is kept but the `x-` ones;
/// - the API key (the one the request sends as `Bearer`), wherever it appears;
/// - the values of the members the YAML marks `x-secret` (a viewing page's
///   `signing_key`, passwords, client secrets), in request and response
///   bodies, become `[redacted]` (through [`vidplat_core::Redactor`], the
///   runtime's own redaction);
/// - `signature=…` query parameters (signed viewing-page URLs), in the
///   request's query, its headers or inside bodies, become `signature=[redacted]`;
/// - response headers `content-length`, `transfer-encoding`, `connection`
///   and `set-cookie` are not kept.
///
/// A response body is kept as text when it is UTF-8 (byte for byte when there
/// was nothing to scrub), else in base64 (`body_base64`), unless it held
/// something to scrub: then as scrubbed text, its invalid bytes as U+FFFD. A replay answers
/// with the scrubbed body: a recorded `signing_key` reads `[redacted]`.
///
/// **Requests that depend on the day** (analytics periods computed from
/// today, a signed URL's expiry) do not match on a later day: give the
/// recorded test fixed dates.
#[derive(Clone)]
pub struct Cassette {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    mode: Mode,
    /// Requests that could not be recorded, or were not recorded (replaying).
    unrecorded: Mutex<Vec<String>>,
}

enum Mode {
    /// The exchanges recorded so far.
    Record(Mutex<Vec<Exchange>>),
    Replay {
        /// Each exchange with its response body, decoded when the file was read.
        exchanges: Vec<(Exchange, Vec<u8>)>,
        used: Mutex<Vec<bool>>,
    },
}

impl fmt::Debug for Cassette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mode, exchanges) = match &self.inner.mode {
            Mode::Record(exchanges) => ("record", lock(exchanges).len()),
            Mode::Replay { exchanges, .. } => ("replay", exchanges.len()),
        };
        f.debug_struct("Cassette")
            .field("path", &self.inner.path)
            .field("mode", &mode)
            .field("exchanges", &exchanges)
            .field("unrecorded", &lock(&self.inner.unrecorded).len())
            .finish()
    }
}

impl Cassette {
    /// A cassette that records into `path` (written by [`save`](Cassette::save)
    /// or [`finish`](Cassette::finish), replacing any file there).
    pub fn record(path: impl AsRef<Path>) -> Self {
        Self::with(path.as_ref(), Mode::Record(Mutex::default()))
    }

    /// A cassette that answers from the exchanges recorded in `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not JSON, is not a cassette of
    /// [`CASSETTE_FORMAT`], or an exchange in it is unusable (a status out of
    /// range, a header that is not one, a `body_base64` that is not base64):
    /// the error names the file and the reason.
    pub fn replay(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref();
        let named = |e: io::Error| io::Error::new(e.kind(), format!("the cassette {}: {e}", path.display()));
        // A FIFO or a device is refused, not read, and so is a file larger
        // than any recording (each body is at most MAX_RECORDED_BODY).
        let text = vidplat_core::__private::read_text(path, MAX_CASSETTE, vidplat_core::__private::Links::Follow)
            .and_then(|text| text.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound)))
            .map_err(named)?;
        let exchanges = read_cassette(&text).map_err(|why| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the cassette {} {why}", path.display()),
            )
        })?;
        let used = Mutex::new(vec![false; exchanges.len()]);
        Ok(Self::with(path, Mode::Replay { exchanges, used }))
    }

    /// Records into `path` when the environment variable `VIDPLAT_RECORD` is
    /// `1` ([`RECORD_VARIABLE`]), else replays it ([`Cassette::replay`]).
    ///
    /// # Errors
    /// When replaying, as [`Cassette::replay`].
    pub fn from_env(path: impl AsRef<Path>) -> io::Result<Self> {
        if std::env::var(RECORD_VARIABLE).is_ok_and(|v| v == "1") {
            Ok(Self::record(path))
        } else {
            Self::replay(path)
        }
    }

    fn with(path: &Path, mode: Mode) -> Self {
        Self {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                mode,
                unrecorded: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Whether this cassette records (else it replays).
    pub fn is_recording(&self) -> bool {
        matches!(self.inner.mode, Mode::Record(_))
    }

    /// The cassette's file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// This cassette as a client's transport (`Client::builder().transport(…)`).
    /// Replaying, the client's base URLs must be the mock's ([`ENCODER_URL`](crate::ENCODER_URL),
    /// …) or have no path of their own; [`client_builder`](Cassette::client_builder)
    /// sets them.
    pub fn transport(&self) -> Arc<dyn Transport> {
        Arc::new(self.clone())
    }

    /// The builder of the client under test. Recording: `live` with this
    /// cassette as its transport, so it reaches the account `live` is set up
    /// for. Replaying: `live` with the mock's base URLs ([`ENCODER_URL`](crate::ENCODER_URL), …),
    /// a dummy key and this cassette as its transport, so neither an account
    /// nor a server is needed; its other settings (timeouts, retries, the
    /// analytics quota, the login id) are kept. Replaying more than three
    /// analytics calls waits for the quota's minute as a live run does: use
    /// `#[tokio::test(start_paused = true)]` or `.analytics_quota(None)`.
    pub fn client_builder(&self, live: vidplat::ClientBuilder) -> vidplat::ClientBuilder {
        let builder = if self.is_recording() { live } else { at_mock_urls(live) };
        builder.transport(self.transport())
    }

    /// Recording: writes the file (pretty JSON, a trailing newline, its
    /// parent directories created; written beside it and renamed, so an
    /// interrupted save leaves the previous file whole). Replaying: nothing,
    /// a replayed cassette is never rewritten.
    ///
    /// # Errors
    /// The file cannot be written; the error names it.
    pub fn save(&self) -> io::Result<()> {
        let Mode::Record(exchanges) = &self.inner.mode else {
            return Ok(());
        };
        let path = &self.inner.path;
        let named = |e: io::Error| io::Error::new(e.kind(), format!("the cassette {}: {e}", path.display()));
        let file = CassetteFile {
            format: CASSETTE_FORMAT.to_owned(),
            exchanges: lock(exchanges).clone(),
        };
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| named(io::Error::other(e)))?;
        text.push('\n');
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(named)?;
        }
        // A new file of this process's, renamed over the old: a link planted
        // at a temporary name (a repository can hold one) is never written through.
        vidplat_core::__private::replace_file(path, text.as_bytes(), false).map_err(named)
    }

    /// What is wrong, if anything. Replaying: each request that was not
    /// recorded (`not recorded: …`, with the nearest exchange of the same
    /// operation and what differs) and each recorded exchange left unused
    /// (`unused: exchange #n …`, numbered from 1 in the file's order).
    /// Recording: each request that could not be recorded (one to no
    /// operation of the services).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = lock(&self.inner.unrecorded).clone();
        if let Mode::Replay { exchanges, used, .. } = &self.inner.mode {
            let used = lock(used);
            for (i, (exchange, _)) in exchanges.iter().enumerate().filter(|(i, _)| !used[*i]) {
                problems.push(format!("unused: exchange #{} {}", i + 1, exchange.request.summary()));
            }
        }
        problems
    }

    /// Ends the test's use of the cassette. Recording: [`save`](Cassette::save)s
    /// it. Then checks that there are no [`problems`](Cassette::problems).
    ///
    /// # Panics
    /// When the file cannot be written, or listing the problems.
    #[track_caller]
    pub fn finish(&self) {
        if let Err(e) = self.save() {
            panic!("{e}");
        }
        let problems = self.problems();
        if !problems.is_empty() {
            let what = if self.is_recording() {
                "was saved, but these requests could not be recorded"
            } else {
                "does not match the requests of this run"
            };
            panic!(
                "the cassette {} {what}:\n  {}",
                self.inner.path.display(),
                problems.join("\n  ")
            );
        }
    }

    /// The recorded answer to `request`, or `501` saying it was not recorded.
    fn answer(
        &self,
        request: &reqwest::Request,
        exchanges: &[(Exchange, Vec<u8>)],
        used: &Mutex<Vec<bool>>,
    ) -> reqwest::Response {
        let live = match describe(request) {
            Ok((live, _)) => live,
            Err(why) => return self.not_recorded(format!("{} {}: {why}", request.method(), request.url().path())),
        };
        let mut used = lock(used);
        let found = exchanges
            .iter()
            .zip(used.iter())
            .position(|((exchange, _), used)| !used && exchange.request.differences(&live).is_empty());
        if let Some(i) = found {
            used[i] = true;
            let (Exchange { response, .. }, body) = &exchanges[i];
            let headers: Vec<(String, String)> = response.headers.clone().into_iter().collect();
            return http_answer(response.status, &headers, body.clone());
        }
        // The exchange of the same operation most like it, preferring one not yet used.
        let nearest = exchanges
            .iter()
            .enumerate()
            .filter(|(_, (e, _))| (&e.request.service, &e.request.operation) == (&live.service, &live.operation))
            .min_by_key(|(i, (e, _))| (used[*i], e.request.differences(&live).len()))
            .map(|(i, (e, _))| {
                let differences = e.request.differences(&live);
                if differences.is_empty() {
                    return format!("; exchange #{} matched it, and was used", i + 1);
                }
                let used = if used[i] { "used " } else { "" };
                format!(
                    "; the nearest, {used}exchange #{}, differs in {}",
                    i + 1,
                    differences.join(", ")
                )
            })
            .unwrap_or_default();
        drop(used);
        self.not_recorded(format!("{}{nearest}", live.summary()))
    }

    fn not_recorded(&self, what: String) -> reqwest::Response {
        let body = format!(
            "vidplat-test: {what}: not recorded in the cassette {} (see Cassette::finish)",
            self.inner.path.display()
        );
        lock(&self.inner.unrecorded).push(format!("not recorded: {what}"));
        // 501 is never retried, and shows its body in the error the code under test gets.
        http_answer(501, &[], body)
    }
}

/// The largest answer recorded (a 50,000-row analytics page is about 19 MiB):
/// a larger one is passed on unrecorded, never held whole.
const MAX_RECORDED_BODY: usize = 64 * 1024 * 1024;

/// The most bytes of a cassette file read: far more than any test records.
const MAX_CASSETTE: u64 = 1 << 30;

impl Transport for Cassette {
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        match &self.inner.mode {
            Mode::Replay { exchanges, used } => {
                let answer = self.answer(&request, exchanges, used);
                Box::pin(async move { Ok(answer) })
            }
            Mode::Record(exchanges) => {
                // Described before it is sent: sending consumes the request.
                let described = describe(&request);
                let line = format!("{} {}", request.method(), request.url().path());
                Box::pin(async move {
                    let mut response = client.execute(request).await?;
                    // The answer's head, handed back with whatever body is passed on.
                    let mut head = http::Response::new(());
                    *head.status_mut() = response.status();
                    *head.version_mut() = response.version();
                    *head.headers_mut() = response.headers().clone();
                    let mut bytes = Vec::new();
                    while let Some(chunk) = response.chunk().await? {
                        bytes.extend_from_slice(&chunk);
                        if bytes.len() > MAX_RECORDED_BODY {
                            // Not recorded, and not held: the live run reads the rest as it arrives.
                            lock(&self.inner.unrecorded)
                                .push(format!("not recorded: {line}: an answer larger than 64 MiB"));
                            let rest = response.bytes_stream();
                            let read = futures::stream::once(async move { Ok(bytes::Bytes::from(bytes)) });
                            let body = reqwest::Body::wrap_stream(futures::StreamExt::chain(read, rest));
                            return Ok(reqwest::Response::from(head.map(|()| body)));
                        }
                    }
                    for name in DROPPED_RESPONSE_HEADERS {
                        head.headers_mut().remove(name);
                    }
                    match described {
                        Ok((request, scrubber)) => {
                            let response = scrubber.response(head.status().as_u16(), head.headers(), &bytes);
                            lock(exchanges).push(Exchange { request, response });
                        }
                        Err(why) => lock(&self.inner.unrecorded).push(format!("not recorded: {line}: {why}")),
                    }
                    // The live run gets what the service sent: the scrub is for the file.
                    Ok(reqwest::Response::from(head.map(|()| reqwest::Body::from(bytes))))
                })
            }
        }
    }
}

/// The file.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CassetteFile<E = Exchange> {
    format: String,
    exchanges: Vec<E>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Exchange {
    request: RecordedRequest,
    response: RecordedResponse,
}

/// A request as its key: what a replayed request must match.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordedRequest {
    service: String,
    operation: String,
    method: String,
    /// Relative to the service's base URL, as sent (percent-encoded).
    path: String,
    /// As sent (percent-encoded), scrubbed; compared as decoded pairs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    query: String,
    /// The `x-` headers (repeated ones joined with `, `).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<RequestBody>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum RequestBody {
    /// Compared as parsed JSON.
    Json(Value),
    /// Text that is not JSON.
    Text(String),
    /// Not UTF-8: compared by its length only.
    Length(usize),
    /// Streamed (an upload from a file): not read, any streamed body matches.
    Streamed,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordedResponse {
    status: u16,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<String, String>,
    /// A UTF-8 body (none when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    /// A body that is not UTF-8, in base64 (standard alphabet, padded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body_base64: Option<String>,
}

impl RecordedRequest {
    /// The members in which `live` differs from this one (empty: it matches).
    fn differences(&self, live: &RecordedRequest) -> Vec<&'static str> {
        let mut differ = Vec::new();
        let mut check = |same: bool, what: &'static str| {
            if !same {
                differ.push(what);
            }
        };
        check(self.service == live.service, "service");
        check(self.operation == live.operation, "operation");
        check(self.method.eq_ignore_ascii_case(&live.method), "method");
        check(self.path == live.path, "path");
        let [recorded, sent] = [self, live].map(|request| form_urlencoded::parse(request.query.as_bytes()));
        check(recorded.eq(sent), "query");
        check(self.headers == live.headers, "headers");
        check(self.body == live.body, "body");
        differ
    }

    /// `GET /v1/tasks/7?a=b (encoder get_task)`.
    fn summary(&self) -> String {
        let mark = if self.query.is_empty() { "" } else { "?" };
        format!(
            "{} {}{mark}{} ({} {})",
            self.method, self.path, self.query, self.service, self.operation
        )
    }
}

/// A request's key, scrubbed, and the scrubber for its answer; or why it has none.
fn describe(request: &reqwest::Request) -> Result<(RecordedRequest, Scrubber), String> {
    let (incoming, table) = route(request).ok_or("no operation of the services")?;
    let scrubber = Scrubber {
        redactor: Redactor::new(api_key(request), table.secret_members),
        secret_members: table.secret_members,
    };
    let url = request.url();
    // The segments the operation's template matched: the base URL's own path is no part of the key.
    let matched = incoming.operation.path.split('/').filter(|s| !s.is_empty()).count();
    let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
    let relative = segments[segments.len().saturating_sub(matched)..].join("/");
    let body = request.body().and_then(|body| match body.as_bytes() {
        None => Some(RequestBody::Streamed),
        Some([]) => None,
        Some(bytes) => Some(match std::str::from_utf8(bytes) {
            Ok(text) => {
                let text = scrubber.redactor.text(text);
                serde_json::from_str(&text).map_or_else(|_| RequestBody::Text(text.into_owned()), RequestBody::Json)
            }
            Err(_) => RequestBody::Length(bytes.len()),
        }),
    });
    let recorded = RecordedRequest {
        service: incoming.service.as_str().to_owned(),
        operation: incoming.operation.id.to_owned(),
        method: incoming.method,
        path: scrubber.redactor.text(&format!("/{relative}")).into_owned(),
        query: url.query().map(|q| scrubber.query(q)).unwrap_or_default(),
        headers: scrubber.headers(request.headers(), |name| name.starts_with("x-")),
        body,
    };
    Ok((recorded, scrubber))
}

/// The key of `Authorization: Bearer <key>`.
fn api_key(request: &reqwest::Request) -> Option<SecretString> {
    let value = request.headers().get(reqwest::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, key) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| SecretString::from(key.trim().to_owned()))
}

/// What a cassette removes from one exchange: through its redactor, the
/// API key, secret members' values and signatures.
struct Scrubber {
    redactor: Redactor,
    secret_members: &'static [&'static str],
}

impl Scrubber {
    /// A query as sent, with the value of a `signature` or secret member
    /// parameter replaced, and the redactor applied to each pair.
    fn query(&self, query: &str) -> String {
        query
            .split('&')
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                let name_read = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
                if !value.is_empty() && (name_read == "signature" || self.secret_members.contains(&name_read.as_ref()))
                {
                    format!("{}={REDACTED}", self.redactor.text(name))
                } else {
                    self.redactor.text(pair).into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The text headers that `keep` names, scrubbed; a repeated one's values
    /// joined with `, `, as HTTP joins them.
    fn headers(&self, headers: &http::HeaderMap, keep: impl Fn(&str) -> bool) -> BTreeMap<String, String> {
        let kept = headers.keys().filter(|name| keep(name.as_str()));
        kept.filter_map(|name| {
            let values = headers.get_all(name).iter().filter_map(|value| value.to_str().ok());
            let values: Vec<_> = values.map(|value| self.redactor.text(value)).collect();
            (!values.is_empty()).then(|| (name.as_str().to_owned(), values.join(", ")))
        })
        .collect()
    }

    fn response(&self, status: u16, headers: &http::HeaderMap, body: &[u8]) -> RecordedResponse {
        let (body, body_base64) = match std::str::from_utf8(body) {
            Ok("") => (None, None),
            Ok(text) => (Some(self.redactor.text(text).into_owned()), None),
            Err(_) => {
                // Bytes that are not UTF-8 can still hold a key or a secret
                // member: then the body is kept as scrubbed text (its invalid
                // bytes become U+FFFD), else byte for byte.
                let lossy = String::from_utf8_lossy(body);
                match self.redactor.text(&lossy) {
                    Cow::Owned(scrubbed) => (Some(scrubbed), None),
                    Cow::Borrowed(_) => (None, Some(BASE64.encode(body))),
                }
            }
        };
        RecordedResponse {
            status,
            headers: self.headers(headers, |_| true),
            body,
            body_base64,
        }
    }
}

/// The exchanges of a cassette's text, each with its response body; or why not,
/// as the end of a sentence starting with the file's name.
fn read_cassette(text: &str) -> Result<Vec<(Exchange, Vec<u8>)>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("is not valid JSON: {e}"))?;
    match value.get("format") {
        Some(Value::String(format)) if format == CASSETTE_FORMAT => {}
        Some(other) => {
            return Err(format!(
                "is of an unknown format {other} (this vidplat-test reads \"{CASSETTE_FORMAT}\")"
            ))
        }
        None => return Err(format!("has no \"format\" member: it is no {CASSETTE_FORMAT}")),
    }
    let file: CassetteFile<Value> =
        serde_json::from_value(value).map_err(|e| format!("does not read as a cassette: {e}"))?;
    let read = file.exchanges.into_iter().enumerate().map(|(i, exchange)| {
        let unusable = |why: String| format!("has an unusable exchange #{}: {why}", i + 1);
        let exchange: Exchange = serde_json::from_value(exchange).map_err(|e| unusable(e.to_string()))?;
        let response = &exchange.response;
        http::StatusCode::from_u16(response.status).map_err(|_| unusable(format!("status {}", response.status)))?;
        for (name, value) in &response.headers {
            http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| unusable(format!("header name {name:?}")))?;
            http::HeaderValue::from_str(value).map_err(|_| unusable(format!("the value of header {name}")))?;
        }
        let body = match (&response.body, &response.body_base64) {
            (Some(_), Some(_)) => return Err(unusable("both `body` and `body_base64`".to_owned())),
            (Some(text), None) => text.clone().into_bytes(),
            (None, Some(encoded)) => BASE64
                .decode(encoded)
                .map_err(|_| unusable("`body_base64` is not base64".to_owned()))?,
            (None, None) => Vec::new(),
        };
        Ok((exchange, body))
    });
    read.collect()
}

/// The standard alphabet, padded; a last digit's spare bits need not be zero.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for bytes in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            b"fooba",
            b"foobar",
            &[0xff, 0x00, 0xfe, 0x80],
        ] {
            let encoded = BASE64.encode(bytes);
            assert_eq!(BASE64.decode(&encoded).ok().as_deref(), Some(bytes), "{encoded}");
        }
        assert_eq!(BASE64.encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(BASE64.encode(b"fo"), "Zm8=");
        assert!(BASE64.decode("Zm8").is_err(), "padding is required");
        assert!(BASE64.decode("Zm8*").is_err());
        assert_eq!(
            BASE64.decode("Zm9=").ok(),
            Some(b"fo".to_vec()),
            "spare bits are let be"
        );
    }

    /// Queries are compared as decoded pairs: `+` and `%20` are one space,
    /// empty pairs are nothing, a name without `=` has an empty value.
    #[test]
    fn queries_are_compared_as_decoded_pairs() {
        let request = |query: &str| RecordedRequest {
            service: "encoder".to_owned(),
            operation: "list_tasks".to_owned(),
            method: "GET".to_owned(),
            path: "/v1/tasks".to_owned(),
            query: query.to_owned(),
            headers: BTreeMap::new(),
            body: None,
        };
        let same = [
            ("q=a+b", "q=a%20b"),
            ("a=1&&b=2&", "a=1&b=2"),
            ("flag", "flag="),
            ("name=%E3%81%82", "name=\u{3042}"),
            ("bad=%FF", "bad=\u{FFFD}"),
            ("x=1=2", "x=1%3D2"),
        ];
        for (recorded, sent) in same {
            assert!(
                request(recorded).differences(&request(sent)).is_empty(),
                "{recorded} {sent}"
            );
        }
        for (recorded, sent) in [("a=1&b=2", "b=2&a=1"), ("a=1", "a=1&a=1"), ("a+b=1", "a%2Bb=1")] {
            assert_eq!(
                request(recorded).differences(&request(sent)),
                ["query"],
                "{recorded} {sent}"
            );
        }
    }

    /// A request keeps only its `x-` headers, scrubbed, a repeated one's
    /// values joined; an answer keeps every text header, scrubbed.
    #[cfg(feature = "encoder")]
    #[test]
    fn headers_are_kept_scrubbed_and_joined() {
        let mut request = reqwest::Request::new(
            reqwest::Method::GET,
            reqwest::Url::parse("https://encoder.mock.invalid/v1/tasks/7").expect("a URL"),
        );
        let headers = request.headers_mut();
        for (name, value) in [
            ("authorization", "Bearer sk-123"),
            ("accept", "application/json"),
            ("x-trace", "a"),
            ("x-trace", "b"),
            ("x-echo", "key sk-123"),
        ] {
            headers.append(name, http::HeaderValue::from_static(value));
        }
        let (recorded, scrubber) = describe(&request).expect("an operation");
        let shown = |headers: &BTreeMap<String, String>| format!("{headers:?}");
        assert_eq!(
            shown(&recorded.headers),
            r#"{"x-echo": "key [redacted]", "x-trace": "a, b"}"#
        );
        let mut answered = http::HeaderMap::new();
        answered.append("set-by", http::HeaderValue::from_static("sk-123"));
        answered.append("vary", http::HeaderValue::from_static("a"));
        answered.append("vary", http::HeaderValue::from_static("b"));
        answered.append(
            "binary",
            http::HeaderValue::from_bytes(b"\xff").expect("a header value"),
        );
        let response = scrubber.response(200, &answered, b"");
        assert_eq!(shown(&response.headers), r#"{"set-by": "[redacted]", "vary": "a, b"}"#);
    }
}
