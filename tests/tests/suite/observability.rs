//! What an operator sees: the spans of a call in OpenTelemetry's
//! terms and that none of them holds a secret, the `traceparent` header,
//! every measurement's name, unit and labels, and the idle-body timeout
//! against a local server that stalls.

use crate::harness::{local_client, API_KEY};
use std::collections::{BTreeMap, VecDeque};
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::time::Instant;
use tracing_subscriber::layer::SubscriberExt as _;
use vidplat::{Call, Delivery, Error, QuotaConfig, RetryPolicy, TimeoutKind};

const TASK: NonZeroU64 = NonZeroU64::MIN;

// ---------------------------------------------------------------------------
// A tracing layer that keeps every span, every field recorded on it and
// every event, with its fields and the span it happened in.

#[derive(Clone, Debug, Default)]
struct SpanRecord {
    name: &'static str,
    parent: Option<&'static str>,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Debug)]
struct EventRecord {
    span: Option<&'static str>,
    target: String,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
pub(crate) struct Collector {
    spans: Arc<Mutex<Vec<SpanRecord>>>,
    /// Index in `spans` of each live span id.
    ids: Arc<Mutex<BTreeMap<u64, usize>>>,
    events: Arc<Mutex<Vec<EventRecord>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> tracing_subscriber::Layer<S> for Collector
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let mut record = SpanRecord {
            name: attrs.metadata().name(),
            parent: ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.name()),
            fields: BTreeMap::new(),
        };
        attrs.record(&mut Fields(&mut record.fields));
        let mut spans = self.spans.lock().unwrap();
        self.ids.lock().unwrap().insert(id.into_u64(), spans.len());
        spans.push(record);
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let Some(&index) = self.ids.lock().unwrap().get(&id.into_u64()) else {
            return;
        };
        values.record(&mut Fields(&mut self.spans.lock().unwrap()[index].fields));
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: tracing_subscriber::layer::Context<'_, S>) {
        let mut record = EventRecord {
            span: ctx.event_span(event).map(|span| span.name()),
            target: event.metadata().target().to_owned(),
            fields: BTreeMap::new(),
        };
        event.record(&mut Fields(&mut record.fields));
        self.events.lock().unwrap().push(record);
    }

    fn on_close(&self, id: tracing::span::Id, _: tracing_subscriber::layer::Context<'_, S>) {
        self.ids.lock().unwrap().remove(&id.into_u64());
    }
}

impl Collector {
    pub(crate) fn subscriber(&self) -> impl tracing::Subscriber + Send + Sync {
        tracing_subscriber::registry().with(self.clone())
    }

    fn spans(&self, name: &str) -> Vec<SpanRecord> {
        self.spans
            .lock()
            .unwrap()
            .iter()
            .filter(|span| span.name == name)
            .cloned()
            .collect()
    }

    /// Every span and event as text, fields and values included.
    pub(crate) fn everything(&self) -> String {
        let mut text = String::new();
        for span in self.spans.lock().unwrap().iter() {
            text.push_str(&format!("span {} {:?}\n", span.name, span.fields));
        }
        for event in self.events.lock().unwrap().iter() {
            text.push_str(&format!("event {} {:?}\n", event.target, event.fields));
        }
        text
    }
}

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

// ---------------------------------------------------------------------------
// Spans

/// Every span field and event of a run of the hostile cases (and of calls
/// whose requests and answers carry a signing key, a password and a signed
/// URL), collected by a layer that sees everything at every level: none
/// holds the API key, a secret member, a signature, a body or a filled path.
/// (The proptest of arbitrary answers checks its own traces for the key, in
/// `hostile`, rather than run its 96 cases twice.)
#[test]
fn with_hostile_servers_no_span_or_event_holds_a_secret() {
    let collector = Collector::default();
    tracing::subscriber::with_default(collector.subscriber(), || {
        crate::hostile::every_case();
        secrets_in_requests_and_answers();
    });
    let everything = collector.everything();
    for secret in [
        API_KEY,
        "Bearer",
        "authorization",
        "0123456789abcdef",     // a signing key, in answers
        "hunter2",              // a password, in a request body
        "signature=",           // a signed URL, in an answer
        "sig-6f1e2d",           // its signature
        "movie.mp4",            // a request body
        "forged line",          // an answer's body
        "database unavailable", // an answer's error message
        "0b6c8e0e-5d3a-4c7e",   // an id: paths are templates, never filled
    ] {
        assert!(
            !everything.to_lowercase().contains(&secret.to_lowercase()),
            "{secret:?} in:\n{everything}"
        );
    }
    // The run was seen: calls, attempts, statuses and failures were recorded.
    let calls = collector.spans("vidplat.call");
    assert!(calls.len() >= 40, "{} calls", calls.len());
    assert!(collector.spans("vidplat.attempt").len() >= calls.len() / 2);
    for field in ["url.template", "http.response.status_code", "error.type", "server.port"] {
        assert!(calls.iter().any(|call| call.fields.contains_key(field)), "{field}");
    }
    assert!(calls
        .iter()
        .any(|call| call.fields.get("url.template").map(String::as_str) == Some("/v1/instant-pages/{page-id}")));
}

/// Calls whose request body holds a password and whose answers hold a
/// signing key and a signed URL (through the real pipeline, a local server).
fn secrets_in_requests_and_answers() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let page = serde_json::json!({
            "id": "0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001",
            "signing_key": "0123456789abcdef0123456789abcdef",
            "url": "https://portal.example.jp/pages/p-1?expires=1&signature=sig-6f1e2d"
        });
        let wire = crate::harness::Wire::ok(page).await;
        let id = uuid::uuid!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");
        wire.vms().get_viewing_page().page_id(id).call().await.unwrap();
        use vidplat::vms::types::{PageAuthentication, PageConfigurations, ViewingPageUpdate};
        let authentication = PageAuthentication::builder().password(Some("hunter2-password".to_owned()));
        let update =
            ViewingPageUpdate::builder().configurations(PageConfigurations::builder().authentication(authentication));
        let _ = wire.vms().update_viewing_page().page_id(id).body(update).call().await;
    });
}

// ---------------------------------------------------------------------------
// A scripted analytics run under paused time: a retry after a 503, a wait for
// the per-minute quota, a server 429 and its wait, a call refused locally.

/// Answers each attempt with the next scripted answer; keeps each request's headers.
struct Script {
    answers: Mutex<VecDeque<(u16, Option<&'static str>, &'static str)>>,
    sent: Mutex<Vec<reqwest::header::HeaderMap>>,
}

impl vidplat::Transport for Script {
    fn send<'a>(&'a self, _: &'a reqwest::Client, request: reqwest::Request) -> vidplat_core::ResponseFuture<'a> {
        self.sent.lock().unwrap().push(request.headers().clone());
        let (status, retry_after, body) = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .expect("an answer for every attempt");
        let mut response = http::Response::builder().status(status);
        if let Some(after) = retry_after {
            response = response.header("retry-after", after);
        }
        let response = reqwest::Response::from(response.body(body).unwrap());
        Box::pin(async move { Ok(response) })
    }
}

const PAGE: &str = r#"{"data": [], "truncated": false}"#;
const SLOW_DOWN: &str = r#"{"code": "TOO_MANY_REQUESTS", "message": "slow down"}"#;

/// Five `cloud_by_os` calls with the documented limits and a month of 6:
/// 503 then 200 (t = 0), 200 (t = 0), 200 after waiting for the window
/// (t = 60.25 s), 429 then 200 after its `Retry-After` of 1 s (t = 61.25 s),
/// then refused by the month's count, not sent.
async fn scripted_run() -> (Vec<Result<(), Error>>, Arc<Script>) {
    let script = Arc::new(Script {
        answers: Mutex::new(VecDeque::from([
            (503, None, ""),
            (200, None, PAGE),
            (200, None, PAGE),
            (200, None, PAGE),
            (429, Some("1"), SLOW_DOWN),
            (200, None, PAGE),
        ])),
        sent: Mutex::new(Vec::new()),
    });
    let client = local_client("http://127.0.0.1:9")
        .transport(script.clone())
        .retry(RetryPolicy {
            max_attempts: 2,
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        })
        .analytics_quota(QuotaConfig {
            per_month: 6,
            ..QuotaConfig::default()
        })
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for _ in 0..5 {
        outcomes.push(analytics.cloud_by_os().call().await.map(|_| ()));
    }
    assert_eq!(started.elapsed(), Duration::from_millis(61_250));
    assert!(
        script.answers.lock().unwrap().is_empty(),
        "every scripted answer was used"
    );
    (outcomes, script)
}

fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap()
}

/// The call span in OpenTelemetry's HTTP-client terms, a span per attempt
/// inside it and a span per analytics turn, whose wait says its reason.
#[test]
fn with_a_retry_and_a_quota_wait_the_spans_show_where_the_time_went() {
    let collector = Collector::default();
    let (outcomes, script) =
        tracing::subscriber::with_default(collector.subscriber(), || paused_runtime().block_on(scripted_run()));
    assert!(outcomes[..4].iter().all(Result::is_ok), "{outcomes:?}");
    assert!(
        matches!(
            outcomes[4],
            Err(Error::RateLimited {
                quota: vidplat::Quota::Month,
                response: None,
                ..
            })
        ),
        "{outcomes:?}"
    );
    let calls = collector.spans("vidplat.call");
    assert_eq!(calls.len(), 5);
    let common = [
        ("vidplat.service", "analytics"),
        ("vidplat.operation", "cloud_by_os"),
        ("http.request.method", "GET"),
        ("url.template", "/v2/os/data"),
        ("server.address", "127.0.0.1"),
        ("server.port", "9"),
    ];
    let call = |extra: &[(&str, &str)]| fields(&[&common[..], extra].concat());
    assert_eq!(
        calls[0].fields,
        call(&[
            ("http.response.status_code", "200"),
            ("vidplat.attempts", "2"),
            ("vidplat.quota.wait_ms", "0")
        ])
    );
    assert_eq!(
        calls[2].fields,
        call(&[
            ("http.response.status_code", "200"),
            ("vidplat.attempts", "1"),
            ("vidplat.quota.wait_ms", "60250")
        ])
    );
    assert_eq!(
        calls[4].fields,
        call(&[("error.type", "quota.month"), ("vidplat.attempts", "1")])
    );
    let attempts = collector.spans("vidplat.attempt");
    let attempt = |resend: &str, status: &str, error: Option<&str>| {
        let mut expected = fields(&[
            ("http.request.resend_count", resend),
            ("http.response.status_code", status),
        ]);
        match error {
            Some(error) => expected.insert("error.type".into(), error.into()),
            None => expected.insert("http.response.body.size".into(), PAGE.len().to_string()),
        };
        expected
    };
    let mut failed_503 = attempt("0", "503", Some("503"));
    failed_503.insert("http.response.body.size".into(), "0".into());
    let mut failed_429 = attempt("0", "429", Some("429"));
    failed_429.insert("http.response.body.size".into(), SLOW_DOWN.len().to_string());
    let seen: Vec<_> = attempts.iter().map(|a| a.fields.clone()).collect();
    assert_eq!(
        seen,
        [
            failed_503,
            attempt("1", "200", None),
            attempt("0", "200", None),
            attempt("0", "200", None),
            failed_429,
            attempt("1", "200", None),
        ]
    );
    assert!(attempts.iter().all(|a| a.parent == Some("vidplat.call")));
    // One turn per attempt, plus the refused one, each inside its call.
    let turns = collector.spans("vidplat.quota");
    assert_eq!(turns.len(), 7);
    assert!(turns.iter().all(|t| t.parent == Some("vidplat.call")));
    let waits: Vec<_> = collector
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.fields.get("message").map(String::as_str) == Some("waiting for the analytics quota"))
        .map(|e| (e.span, e.fields.get("vidplat.quota.reason").cloned()))
        .collect();
    // The window's wait inside the turn; the 429's wait between two attempts of the call.
    assert_eq!(
        waits,
        [
            (Some("vidplat.quota"), Some("per_minute".to_owned())),
            (Some("vidplat.call"), Some("server_429".to_owned())),
        ]
    );
    // `traceparent` is off by default.
    assert!(script
        .sent
        .lock()
        .unwrap()
        .iter()
        .all(|h| !h.contains_key("traceparent")));
}

// ---------------------------------------------------------------------------
// Metrics: an in-memory recorder (the `metrics` crate's own trait).

#[derive(Clone, Debug, PartialEq)]
struct Sample {
    kind: &'static str,
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

#[derive(Default)]
struct Memory {
    units: Mutex<BTreeMap<String, (&'static str, Option<metrics::Unit>)>>,
    samples: Arc<Mutex<Vec<Sample>>>,
}

struct Instrument {
    kind: &'static str,
    key: metrics::Key,
    samples: Arc<Mutex<Vec<Sample>>>,
}

impl Instrument {
    fn push(&self, value: f64) {
        self.samples.lock().unwrap().push(Sample {
            kind: self.kind,
            name: self.key.name().to_owned(),
            labels: self
                .key
                .labels()
                .map(|l| (l.key().to_owned(), l.value().to_owned()))
                .collect(),
            value,
        });
    }
}

impl metrics::CounterFn for Instrument {
    fn increment(&self, value: u64) {
        self.push(value as f64);
    }
    fn absolute(&self, value: u64) {
        self.push(value as f64);
    }
}

impl metrics::GaugeFn for Instrument {
    fn increment(&self, value: f64) {
        self.push(value);
    }
    fn decrement(&self, value: f64) {
        self.push(-value);
    }
    fn set(&self, value: f64) {
        self.push(value);
    }
}

impl metrics::HistogramFn for Instrument {
    fn record(&self, value: f64) {
        self.push(value);
    }
}

impl Memory {
    fn instrument(&self, kind: &'static str, key: &metrics::Key) -> Arc<Instrument> {
        Arc::new(Instrument {
            kind,
            key: key.clone(),
            samples: self.samples.clone(),
        })
    }

    fn describe(&self, kind: &'static str, key: metrics::KeyName, unit: Option<metrics::Unit>) {
        self.units.lock().unwrap().insert(key.as_str().to_owned(), (kind, unit));
    }

    /// The samples of `name`: each one's labels and value.
    fn of(&self, name: &str) -> Vec<(BTreeMap<String, String>, f64)> {
        self.samples
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.name == name)
            .map(|s| (s.labels.clone(), s.value))
            .collect()
    }
}

impl metrics::Recorder for Memory {
    fn describe_counter(&self, key: metrics::KeyName, unit: Option<metrics::Unit>, _: metrics::SharedString) {
        self.describe("counter", key, unit);
    }
    fn describe_gauge(&self, key: metrics::KeyName, unit: Option<metrics::Unit>, _: metrics::SharedString) {
        self.describe("gauge", key, unit);
    }
    fn describe_histogram(&self, key: metrics::KeyName, unit: Option<metrics::Unit>, _: metrics::SharedString) {
        self.describe("histogram", key, unit);
    }
    fn register_counter(&self, key: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Counter {
        metrics::Counter::from_arc(self.instrument("counter", key))
    }
    fn register_gauge(&self, key: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Gauge {
        metrics::Gauge::from_arc(self.instrument("gauge", key))
    }
    fn register_histogram(&self, key: &metrics::Key, _: &metrics::Metadata<'_>) -> metrics::Histogram {
        metrics::Histogram::from_arc(self.instrument("histogram", key))
    }
}

const NOT_FOUND: &str = r#"{"code": "MODEL_NOT_FOUND", "message": "no"}"#;

/// Every instrument's name, kind, unit and labels, and its values, after the
/// scripted run (a retry, a quota wait, a 429, a local refusal) and an
/// encoder call answered 404.
#[test]
fn with_a_retry_and_a_quota_wait_every_instrument_has_its_name_unit_and_labels() {
    use metrics::Unit;
    let memory = Memory::default();
    let outcomes = metrics::with_local_recorder(&memory, || {
        paused_runtime().block_on(async {
            let (outcomes, _) = scripted_run().await;
            let script = Arc::new(Script {
                answers: Mutex::new(VecDeque::from([(404, None, NOT_FOUND)])),
                sent: Mutex::new(Vec::new()),
            });
            let client = local_client("http://127.0.0.1:9").transport(script).build().unwrap();
            let missing = client.encoder().unwrap().get_task().task_id(TASK).call().await;
            assert_eq!(missing.unwrap_err().status(), Some(404));
            outcomes
        })
    });
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 4);
    let units = memory.units.lock().unwrap().clone();
    let expected_units = [
        ("vidplat.client.call.duration", "histogram", Unit::Seconds),
        ("vidplat.client.attempt.duration", "histogram", Unit::Seconds),
        ("vidplat.client.call.attempts", "histogram", Unit::Count),
        ("vidplat.client.call.errors", "counter", Unit::Count),
        ("vidplat.client.response.body.size", "histogram", Unit::Bytes),
        ("vidplat.analytics.quota.wait.duration", "histogram", Unit::Seconds),
        ("vidplat.analytics.quota.refused", "counter", Unit::Count),
        ("vidplat.analytics.quota.server_refused", "counter", Unit::Count),
        ("vidplat.analytics.quota.remaining", "gauge", Unit::Count),
        ("vidplat.analytics.quota.slot.hold.duration", "histogram", Unit::Seconds),
    ];
    assert_eq!(
        units,
        expected_units
            .iter()
            .map(|(name, kind, unit)| ((*name).to_owned(), (*kind, Some(*unit))))
            .collect::<BTreeMap<_, _>>()
    );
    // Every sample is of a described instrument, of the kind described.
    for sample in memory.samples.lock().unwrap().iter() {
        assert_eq!(
            units.get(&sample.name).map(|(kind, _)| *kind),
            Some(sample.kind),
            "{sample:?}"
        );
    }
    let op = [("vidplat.service", "analytics"), ("vidplat.operation", "cloud_by_os")];
    let get = [&op[..], &[("http.request.method", "GET")]].concat();
    let task = [("vidplat.service", "encoder"), ("vidplat.operation", "get_task")];
    let task_get = [&task[..], &[("http.request.method", "GET")]].concat();
    let failed = |base: &[(&str, &str)], error: &str| fields(&[base, &[("error.type", error)]].concat());
    let ok = |base: &[(&str, &str)]| fields(base);
    assert_eq!(
        memory.of("vidplat.client.call.duration"),
        [
            (ok(&get), 0.0),
            (ok(&get), 0.0),
            (ok(&get), 60.25),
            (ok(&get), 1.0),
            (failed(&get, "quota.month"), 0.0),
            (failed(&task_get, "404"), 0.0),
        ]
    );
    assert_eq!(
        memory.of("vidplat.client.attempt.duration"),
        [
            (failed(&get, "503"), 0.0),
            (ok(&get), 0.0),
            (ok(&get), 0.0),
            (ok(&get), 0.0),
            (failed(&get, "429"), 0.0),
            (ok(&get), 0.0),
            (failed(&task_get, "404"), 0.0),
        ]
    );
    assert_eq!(
        memory.of("vidplat.client.call.attempts"),
        [
            (ok(&op), 2.0),
            (ok(&op), 1.0),
            (ok(&op), 1.0),
            (ok(&op), 2.0),
            (ok(&op), 0.0),
            (ok(&task), 1.0)
        ]
    );
    assert_eq!(
        memory.of("vidplat.client.call.errors"),
        [(failed(&get, "quota.month"), 1.0), (failed(&task_get, "404"), 1.0)]
    );
    let page = PAGE.len() as f64;
    assert_eq!(
        memory.of("vidplat.client.response.body.size"),
        [
            (ok(&op), 0.0),
            (ok(&op), page),
            (ok(&op), page),
            (ok(&op), page),
            (ok(&op), SLOW_DOWN.len() as f64),
            (ok(&op), page),
            (ok(&task), NOT_FOUND.len() as f64),
        ]
    );
    assert_eq!(
        memory.of("vidplat.analytics.quota.wait.duration"),
        [
            (fields(&[("vidplat.quota.reason", "per_minute")]), 60.25),
            (fields(&[("vidplat.quota.reason", "server_429")]), 1.0),
        ]
    );
    assert_eq!(
        memory.of("vidplat.analytics.quota.refused"),
        [(fields(&[("vidplat.quota.limit", "month")]), 1.0)]
    );
    assert_eq!(
        memory.of("vidplat.analytics.quota.server_refused"),
        [(fields(&[]), 1.0)]
    );
    let memory_store = fields(&[("vidplat.quota.store", "memory")]);
    let remaining: Vec<_> = [5.0, 4.0, 3.0, 2.0, 1.0, 0.0, 0.0]
        .into_iter()
        .map(|left| (memory_store.clone(), left))
        .collect();
    assert_eq!(memory.of("vidplat.analytics.quota.remaining"), remaining);
    assert_eq!(
        memory.of("vidplat.analytics.quota.slot.hold.duration"),
        vec![(fields(&[]), 0.0); 6],
        "one slot per attempt sent, given back at once (the transport answers at once)"
    );
}

// ---------------------------------------------------------------------------
// traceparent

/// Off by default; when asked for, `00-<32 hex>-<16 hex>-01`, one trace id for
/// the call and a parent id per attempt, recorded on the attempt's span.
#[tokio::test]
async fn traceparent_is_absent_by_default_and_one_trace_per_call_when_asked_for() {
    use wiremock::matchers::any;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 1})))
        .mount(&server)
        .await;
    let retry = RetryPolicy {
        max_attempts: 2,
        initial_backoff: Duration::ZERO,
        max_backoff: Duration::ZERO,
    };
    let plain = local_client(&server.uri()).retry(retry.clone()).build().unwrap();
    plain.encoder().unwrap().get_task().task_id(TASK).call().await.unwrap();
    let sent = server.received_requests().await.unwrap();
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|r| !r.headers.contains_key("traceparent")));

    server.reset().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 1})))
        .mount(&server)
        .await;
    let traced = local_client(&server.uri())
        .retry(retry)
        .traceparent(true)
        .build()
        .unwrap();
    let collector = Collector::default();
    {
        let _guard = tracing::subscriber::set_default(collector.subscriber());
        traced.encoder().unwrap().get_task().task_id(TASK).call().await.unwrap();
    }
    let headers: Vec<String> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.headers.get("traceparent").expect("sent").to_str().unwrap().to_owned())
        .collect();
    let form = regress::Regex::new("^00-[0-9a-f]{32}-[0-9a-f]{16}-01$").unwrap();
    let parts: Vec<Vec<&str>> = headers
        .iter()
        .inspect(|h| assert!(form.find(h).is_some(), "{h}"))
        .map(|h| h.split('-').collect())
        .collect();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0][1], parts[1][1], "one trace for the call");
    assert_ne!(parts[0][2], parts[1][2], "a parent id per attempt");
    assert_ne!(parts[0][1], "0".repeat(32), "an all-zero trace id is invalid");
    let recorded: Vec<String> = collector
        .spans("vidplat.attempt")
        .iter()
        .map(|a| a.fields["vidplat.traceparent"].clone())
        .collect();
    assert_eq!(recorded, headers);
}

// ---------------------------------------------------------------------------
// The idle-body timeout, against a local server

/// A server on 127.0.0.1 that answers each request (counted) after `first`
/// with `head`, then after `first` again the first body bytes, then more
/// bytes every `pace` until `pieces` are sent; then it holds the connection
/// open, silent, when `stall`, else ends the body. Real time: the client
/// reads real sockets, which tokio's paused clock would race.
async fn pacing_server(
    head: &'static str,
    first: Duration,
    pieces: &'static [&'static str],
    pace: Duration,
    stall: bool,
) -> (String, Arc<Mutex<u32>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(0));
    let counter = requests.clone();
    tokio::spawn(async move {
        // Bounded: no test sends more than 8 requests.
        for _ in 0..8 {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            *counter.lock().unwrap() += 1;
            tokio::spawn(async move {
                let mut buffer = [0u8; 8192];
                let mut read = Vec::new();
                while !read.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => read.extend_from_slice(&buffer[..n]),
                    }
                }
                tokio::time::sleep(first).await;
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                tokio::time::sleep(first).await;
                for (i, piece) in pieces.iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(pace).await;
                    }
                    if stream.write_all(piece.as_bytes()).await.is_err() {
                        return;
                    }
                }
                if stall {
                    // Silent, the connection open, far longer than any test waits.
                    tokio::time::sleep(Duration::from_secs(60)).await;
                }
            });
        }
    });
    (uri, requests)
}

const TASK_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 28\r\n\r\n";
const TASK_PIECES: &[&str] = &["{\"id\": 1, ", "\"status\": ", "\"ready\"}"];

/// A body that stops after its first bytes ends the attempt after the idle
/// timeout, with a timeout of its own kind; a GET is sent again (each
/// attempt stalls), a POST never (it may have registered the task).
#[tokio::test]
async fn with_a_stalled_body_the_attempt_ends_after_the_idle_timeout() {
    let idle = Duration::from_millis(300);
    let (uri, requests) = pacing_server(
        TASK_HEAD,
        Duration::ZERO,
        &TASK_PIECES[..2],
        Duration::from_millis(50),
        true,
    )
    .await;
    let client = local_client(&uri)
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::ZERO,
            max_backoff: Duration::ZERO,
        })
        .idle_body_timeout(idle)
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let error = client
        .encoder()
        .unwrap()
        .get_task()
        .task_id(TASK)
        .call()
        .await
        .unwrap_err();
    let Error::Timeout(timeout) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (timeout.kind, timeout.method, timeout.delivery),
        (
            TimeoutKind::IdleBody,
            Some(vidplat::Method::Get),
            Delivery::MayHaveArrived
        )
    );
    assert!(error.is_retryable());
    assert_eq!(*requests.lock().unwrap(), 3, "sent again: a GET");
    // Each attempt: the two pieces, then the idle timeout's silence; far below the attempt timeout (30 s).
    let took = started.elapsed();
    assert!(took >= 3 * idle && took < Duration::from_secs(10), "{took:?}");

    let started = std::time::Instant::now();
    let error = client
        .encoder()
        .unwrap()
        .register_task()
        .body(vidplat_tests::task_body())
        .call()
        .await
        .unwrap_err();
    let Error::Timeout(timeout) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (timeout.kind, timeout.delivery),
        (TimeoutKind::IdleBody, Delivery::MayHaveArrived)
    );
    assert!(!error.is_retryable());
    assert_eq!(*requests.lock().unwrap(), 4, "a POST is never sent again");
    let took = started.elapsed();
    assert!(took >= idle && took < Duration::from_secs(10), "{took:?}");
    assert!(error.to_string().contains("idle body timeout"), "{error}");
}

/// A server slow to send its head and then its first body byte (it computes
/// the answer), each for longer than the idle timeout, then sending the body
/// in pieces closer together than it: the call succeeds. And an empty body
/// is never a stalled one.
#[tokio::test]
async fn with_a_slow_first_byte_and_a_steady_body_the_idle_timeout_never_trips() {
    // Pieces 50 ms apart against a 1 s idle timeout: a loaded machine may
    // stall the server or the client for most of a second without tripping it.
    let idle = Duration::from_millis(1_000);
    let (uri, requests) = pacing_server(
        TASK_HEAD,
        Duration::from_millis(1_200),
        TASK_PIECES,
        Duration::from_millis(50),
        false,
    )
    .await;
    let client = local_client(&uri)
        .retry(RetryPolicy::never())
        .idle_body_timeout(idle)
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let task = client.encoder().unwrap().get_task().task_id(TASK).call().await.unwrap();
    assert_eq!(task.id, Some(1));
    assert!(
        started.elapsed() >= Duration::from_millis(2_400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(*requests.lock().unwrap(), 1);

    let empty = "HTTP/1.1 204 No Content\r\n\r\n";
    let (uri, _) = pacing_server(empty, Duration::ZERO, &[], Duration::ZERO, true).await;
    let client = local_client(&uri)
        .idle_body_timeout(Duration::from_millis(1))
        .build()
        .unwrap();
    let id = uuid::uuid!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");
    client.vms().unwrap().delete_label().label_id(id).call().await.unwrap();
}
