//! The runtime's request pipeline against scripted transports (no network,
//! paused time): credentials, routes, retries, deadlines, the quota slot, how
//! answers are judged and how bodies are read.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use vidplat_core::{
    CallFailure, Check, ConfigError, Delivery, FailureKind, Method, NotSendable, OperationMeta, Quota, QuotaConfig,
    QuotaLimiter, Reading, Refusal, Response, ResponseFuture, RetryPolicy, Rule, Runtime, Service, ServiceTable,
    TimeoutKind, Timeouts, Transport,
};

const fn op(id: &'static str, method: Method, path: &'static str) -> OperationMeta {
    OperationMeta {
        summary: id,
        rate_limited: true,
        success_members: &["id", "status"],
        success_statuses: &[200..=200],
        ..OperationMeta::bare(id, method, path)
    }
}

const OPS: &[OperationMeta] = &[
    op("get_task", Method::Get, "/v1/tasks/{task-id}"),
    op("register_task", Method::Post, "/v1/tasks"),
    op("update_task", Method::Put, "/v1/tasks/{task-id}"),
    op("patch_task", Method::Patch, "/v1/tasks/{task-id}"),
    op("delete_task", Method::Delete, "/v1/tasks/{task-id}"),
    OperationMeta {
        authenticated: false,
        ..op("realtime", Method::Get, "/v1/realtime")
    },
    OperationMeta {
        reading: Reading::Empty,
        success_members: &[],
        success_statuses: &[200..=299],
        ..op("touch_task", Method::Put, "/v1/tasks/{task-id}/touch")
    },
    OperationMeta {
        checks: &[
            Check {
                at: "query.per_page",
                rule: Rule::Maximum(100.0),
            },
            Check {
                at: "body.priority",
                rule: Rule::Maximum(99.0),
            },
            Check {
                at: "body.tags[].key",
                rule: Rule::MaxLength(3),
            },
        ],
        ..op("bounded_task", Method::Post, "/v1/tasks/{task-id}/bounded")
    },
];

static TABLE: ServiceTable = ServiceTable {
    service: Service::Encoder,
    operations: OPS,
    error_codes: &["MODEL_NOT_FOUND", "UNKNOWN_ERROR"],
    code_statuses: &[],
    secret_members: &["signing_key"],
};

const BASE: &str = "http://127.0.0.1:9/base";
const KEY: &str = "k-0123456789-secret";

/// One scripted answer: status, headers, body.
#[derive(Clone)]
struct Answer(u16, Vec<(&'static str, String)>, Vec<u8>);

fn answer(status: u16) -> Answer {
    Answer(status, Vec::new(), br#"{"code":"X","message":null}"#.to_vec())
}

impl Answer {
    fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.1.push((name, value.into()));
        self
    }
    fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.2 = body.into();
        self
    }
}

/// Answers from a script (the last answer repeats), recording what it was sent.
struct Scripted {
    answers: Mutex<Vec<Answer>>,
    sent: Mutex<Vec<(reqwest::Method, String, Option<String>)>>,
    /// How long each answer's body takes to arrive (in paused time).
    body_delay: Duration,
}

impl Scripted {
    fn new(answers: &[Answer]) -> Arc<Self> {
        Self::slow(answers, Duration::ZERO)
    }
    fn slow(answers: &[Answer], body_delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.iter().rev().cloned().collect()),
            sent: Mutex::default(),
            body_delay,
        })
    }
    fn sent(&self) -> usize {
        self.sent.lock().unwrap().len()
    }
}

impl Transport for Scripted {
    fn send<'a>(&'a self, _: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        let authorization = request
            .headers()
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_owned());
        self.sent
            .lock()
            .unwrap()
            .push((request.method().clone(), request.url().to_string(), authorization));
        let Answer(status, headers, body) = {
            let mut answers = self.answers.lock().unwrap();
            if answers.len() > 1 {
                answers.pop().unwrap()
            } else {
                answers[0].clone()
            }
        };
        let delay = self.body_delay;
        let stream = futures::stream::once(async move {
            tokio::time::sleep(delay).await;
            Ok::<_, std::io::Error>(body)
        });
        let mut response = http::Response::builder().status(status);
        for (name, value) in headers {
            response = response.header(name, value);
        }
        let response = response.body(reqwest::Body::wrap_stream(stream)).unwrap();
        Box::pin(async move { Ok(reqwest::Response::from(response)) })
    }
}

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(1),
    }
}

fn runtime(script: &Arc<Scripted>) -> vidplat_core::RuntimeBuilder {
    Runtime::builder(&TABLE)
        .base_url(BASE)
        .api_key(KEY.into())
        .transport(script.clone())
        .retry(quick())
}

fn row(id: &str) -> &'static OperationMeta {
    TABLE.operation(id).unwrap()
}

/// Runs one call of operation `id` (task 1 where it names a task), its body
/// decoded as `T`; `Err` is the failure the runtime reported.
async fn call_as<T: serde::de::DeserializeOwned + Send + 'static>(
    rt: &Runtime,
    id: &str,
) -> Result<Response<T>, CallFailure> {
    let op = row(id);
    let mut request = rt.request(op);
    if op.path.contains("{task-id}") {
        request = request.path("task-id", Ok(1));
    }
    request.prepare()?.send().await
}

async fn call(rt: &Runtime, id: &str) -> Result<Response<serde_json::Value>, CallFailure> {
    call_as(rt, id).await
}

async fn get(rt: &Runtime) -> Result<Response<serde_json::Value>, CallFailure> {
    call(rt, "get_task").await
}

#[tokio::test(start_paused = true)]
async fn adds_the_key_only_where_documented() {
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script).build().unwrap();
    get(&rt).await.unwrap();
    call(&rt, "realtime").await.unwrap();
    let sent = script.sent.lock().unwrap();
    assert_eq!(sent[0].2.as_deref(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(sent[1].2, None, "an unauthenticated operation carries no key");
    assert!(!format!("{rt:?}").contains(KEY));
}

#[tokio::test(start_paused = true)]
async fn no_value_can_move_the_request_off_the_base_url_or_its_path() {
    // Every URL is the base URL followed by the operation's path, each path
    // value one encoded segment: no value reaches another origin, and none
    // climbs out of the operation's path.
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script).build().unwrap();
    for hostile in [
        "//evil.example/x",
        "https://evil.example/",
        r"..\..\..\echo\escaped",
        "../../echo",
        "a/../../b",
        "%2e%2e",
        "x?y=1#z",
    ] {
        rt.request(row("get_task"))
            .path("task-id", Ok(hostile))
            .prepare::<serde_json::Value>()
            .unwrap()
            .send()
            .await
            .unwrap();
        let sent = script.sent.lock().unwrap().last().unwrap().1.clone();
        let rest = sent
            .strip_prefix("http://127.0.0.1:9/base/v1/tasks/")
            .unwrap_or_else(|| panic!("{sent}"));
        assert!(!rest.contains(['/', '?', '#', '\\']), "{hostile} went to {sent}");
    }
    // `.` and `..` cannot be sent as data (URL parsers resolve them): refused, not sent.
    let before = script.sent();
    for climbing in [".", "..", ""] {
        let failure = rt
            .request(row("get_task"))
            .path("task-id", Ok(climbing))
            .prepare::<serde_json::Value>()
            .unwrap_err();
        assert!(
            matches!(&failure.kind, FailureKind::InvalidInput(refusals) if refusals.iter().map(Refusal::path).eq(["task_id"])),
            "{climbing:?}: {failure}"
        );
        assert_eq!(failure.delivery, Delivery::NotSent);
    }
    assert_eq!(script.sent(), before);
    // Plain http to a host that is not loopback: refused when the runtime is built, unless allowed.
    let insecure = Runtime::builder(&TABLE).base_url("http://api.example.jp").build();
    assert!(
        matches!(insecure, Err(ConfigError::InsecureBaseUrl { .. })),
        "{insecure:?}"
    );
    assert!(Runtime::builder(&TABLE)
        .base_url("http://api.example.jp")
        .allow_insecure_http(true)
        .build()
        .is_ok());
    assert!(matches!(
        Runtime::builder(&TABLE).build(),
        Err(ConfigError::MissingBaseUrl {
            service: Service::Encoder,
            ..
        })
    ));
    // An operation of another table is not sent with this runtime.
    static OTHER: [OperationMeta; 1] = [op("get_task", Method::Get, "/v1/tasks/{task-id}")];
    let failure = rt
        .request(&OTHER[0])
        .path("task-id", Ok(1))
        .prepare::<()>()
        .unwrap_err();
    assert!(
        matches!(
            failure.kind,
            FailureKind::Refused(NotSendable::NotThisService {
                operation: "get_task",
                service: Service::Encoder
            })
        ),
        "{failure}"
    );
}

#[test]
fn every_value_a_request_breaks_is_refused_at_once() {
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script).build().unwrap();
    let failure = rt
        .request(row("bounded_task"))
        .path("task-id", Ok(".."))
        .query("per_page", Ok(Some(101)))
        .query::<u32>("page", Err(Refusal::new("must be at least 1").at("page")))
        .json(Ok(
            serde_json::json!({"priority": 100, "tags": [{"key": "abcd"}, {"key": "ok"}, {"key": "wxyz"}]}),
        ))
        .prepare::<serde_json::Value>()
        .unwrap_err();
    let FailureKind::InvalidInput(refusals) = &failure.kind else {
        panic!("{failure}");
    };
    let found: Vec<_> = refusals.iter().map(|r| (r.path(), r.rule())).collect();
    assert_eq!(
        found,
        [
            (
                "task_id",
                "must not be `.` or `..` (it fills a path segment, and would change which path is asked for)"
            ),
            ("per_page", "must be at most 100 (maximum)"),
            ("page", "must be at least 1"),
            ("priority", "must be at most 99 (maximum)"),
            ("tags[0].key", "must have at most 3 characters (maxLength)"),
            ("tags[2].key", "must have at most 3 characters (maxLength)"),
        ]
    );
    assert_eq!(
        failure.to_string(),
        "encoder bounded_task: invalid input, not sent: `task_id` must not be `.` or `..` (it fills a path segment, \
         and would change which path is asked for); `per_page` must be at most 100 (maximum); `page` must be at least 1; \
         `priority` must be at most 99 (maximum); `tags[0].key` must have at most 3 characters (maxLength); \
         `tags[2].key` must have at most 3 characters (maxLength)"
    );
    assert_eq!(script.sent(), 0);
}

#[test]
fn a_value_that_is_not_one_scalar_cannot_fill_a_path_segment() {
    let script = Scripted::new(&[]);
    let rt = runtime(&script).build().unwrap();
    let failure = rt
        .request(row("get_task"))
        .path("task-id", Ok(vec![1, 2]))
        .prepare::<serde_json::Value>()
        .unwrap_err();
    assert!(
        matches!(
            &failure.kind,
            FailureKind::Refused(NotSendable::NotSerialisable { member: "task-id", reason }) if reason == "is not a single value but a list"
        ),
        "{failure}"
    );
}

#[tokio::test(start_paused = true)]
async fn reroutes_with_its_parameters() {
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script)
        .route("get_task", Method::Get, "/v2/task/{task-id}/show")
        .build()
        .unwrap();
    rt.request(row("get_task"))
        .path("task-id", Ok(7))
        .query("x", Ok(Some(1)))
        .prepare::<serde_json::Value>()
        .unwrap()
        .send()
        .await
        .unwrap();
    let sent = script.sent.lock().unwrap();
    assert_eq!(sent[0].0, reqwest::Method::GET);
    assert_eq!(sent[0].1, "http://127.0.0.1:9/base/v2/task/7/show?x=1");
    assert_eq!(
        rt.route_of("get_task"),
        Some((Method::Get, "/v2/task/{task-id}/show".into()))
    );
}

#[test]
fn configuration_mistakes_fail_at_build_time_without_showing_the_key() {
    let error = Runtime::builder(&TABLE)
        .base_url(BASE)
        .api_key("k-123\nsecret".into())
        .build()
        .unwrap_err();
    assert!(matches!(error, ConfigError::InvalidApiKey));
    assert!(!error.to_string().contains("secret"));
    let unknown = Runtime::builder(&TABLE)
        .base_url(BASE)
        .route("nope", Method::Get, "/x")
        .build()
        .unwrap_err();
    assert_eq!(unknown.to_string(), "the encoder service has no operation `nope`");
    let params = Runtime::builder(&TABLE)
        .base_url(BASE)
        .route("get_task", Method::Get, "/v1/tasks/{id}")
        .build()
        .unwrap_err();
    assert!(matches!(params, ConfigError::InvalidRoute { .. }), "{params}");
    // Two overrides of one operation would make the result depend on their order.
    let twice = Runtime::builder(&TABLE)
        .base_url(BASE)
        .route("get_task", Method::Get, "/a/{task-id}")
        .route("get_task", Method::Get, "/b/{task-id}")
        .build()
        .unwrap_err();
    assert!(matches!(twice, ConfigError::DuplicateRoute { .. }), "{twice}");
}

#[tokio::test(start_paused = true)]
async fn get_is_retried_and_retry_after_is_honoured() {
    let script = Scripted::new(&[
        answer(503).header("retry-after", "7"),
        answer(429).header("retry-after", "3"),
        answer(200).body("{}"),
    ]);
    let rt = runtime(&script).build().unwrap();
    let started = Instant::now();
    let response = get(&rt).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(script.sent(), 3);
    let waited = started.elapsed();
    // Retry-After is a floor; the jittered backoff (at most 100 ms, then 200 ms) may add to it.
    assert!(
        waited >= Duration::from_secs(10) && waited <= Duration::from_millis(10_300),
        "{waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn post_put_patch_are_never_sent_twice_after_an_answer() {
    for (method, id) in [
        (reqwest::Method::POST, "register_task"),
        (reqwest::Method::PUT, "update_task"),
        (reqwest::Method::PATCH, "patch_task"),
    ] {
        let script = Scripted::new(&[answer(503), answer(200).body("{}")]);
        let rt = runtime(&script).build().unwrap();
        let failure = call(&rt, id).await.unwrap_err();
        assert_eq!(script.sent.lock().unwrap()[0].0, method);
        assert!(
            matches!(failure.kind, FailureKind::Answer(ref api) if api.status == 503),
            "{method}"
        );
        assert_eq!(script.sent(), 1, "{method}");
    }
}

#[tokio::test(start_paused = true)]
async fn attempts_and_total_time_are_capped() {
    let script = Scripted::new(&[answer(503)]);
    let rt = runtime(&script).build().unwrap();
    let failure = get(&rt).await.unwrap_err();
    assert_eq!((failure.attempts, script.sent()), (4, 4));

    // A Retry-After beyond the total budget ends the call at once with the answer.
    let script = Scripted::new(&[answer(503).header("retry-after", "120"), answer(200)]);
    let rt = runtime(&script)
        .timeouts(Timeouts {
            total: Duration::from_secs(60),
            ..Timeouts::default()
        })
        .build()
        .unwrap();
    let started = Instant::now();
    let failure = get(&rt).await.unwrap_err();
    let FailureKind::Answer(api) = failure.kind else {
        panic!("{failure}")
    };
    assert_eq!(
        (api.status, api.retry_after, script.sent()),
        (503, Some(Duration::from_secs(120)), 1)
    );
    assert!(started.elapsed() < Duration::from_millis(1));
}

#[tokio::test(start_paused = true)]
async fn no_retry_after_and_no_timeout_is_too_large() {
    for retry_after in [
        "18446744073709551615",
        "-1",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Thu, 01 Jan 1970 00:00:00 GMT",
    ] {
        let script = Scripted::new(&[answer(503).header("retry-after", retry_after), answer(200).body("{}")]);
        let rt = runtime(&script)
            .timeouts(Timeouts {
                connect: Duration::MAX,
                attempt: Duration::MAX,
                total: Duration::MAX,
                idle_body: Duration::MAX,
            })
            .build()
            .unwrap();
        let started = Instant::now();
        let outcome = tokio::time::timeout(Duration::from_secs(3600 * 24 * 365), get(&rt)).await;
        // Either retried soon (an unreadable or past value), or waited as told: never a panic.
        assert!(
            outcome.is_ok() || started.elapsed() >= Duration::from_secs(3600),
            "{retry_after}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_attempt_that_outlives_its_timeout_is_cut_and_a_get_retried() {
    let script = Scripted::slow(&[answer(200).body("{}")], Duration::from_secs(40));
    let rt = runtime(&script)
        .timeouts(Timeouts {
            attempt: Duration::from_secs(30),
            total: Duration::from_secs(50),
            ..Timeouts::default()
        })
        .build()
        .unwrap();
    let started = Instant::now();
    let failure = get(&rt).await.unwrap_err();
    // The first attempt ends at 30 s; the second is cut by the total deadline at 50 s.
    assert!(
        matches!(failure.kind, FailureKind::Timeout(TimeoutKind::Total)),
        "{failure}"
    );
    assert_eq!(failure.delivery, Delivery::MayHaveArrived);
    assert_eq!(script.sent(), 2);
    assert_eq!(started.elapsed(), Duration::from_secs(50));
}

#[tokio::test(start_paused = true)]
async fn the_concurrency_slot_is_held_while_the_body_arrives_and_released_during_backoff() {
    let limiter = QuotaLimiter::new(QuotaConfig {
        calls_per_window: 100,
        ..QuotaConfig::default()
    });
    // Body: a 200 whose body takes 5 s; a second call must wait for all of it.
    let script = Scripted::slow(&[answer(200).body("{}")], Duration::from_secs(5));
    let rt = runtime(&script).quota(limiter.clone()).build().unwrap();
    let first = tokio::spawn({
        let rt = rt.clone();
        async move { get(&rt).await.map(|_| Instant::now()) }
    });
    tokio::time::sleep(Duration::from_secs(1)).await;
    let second_started = Instant::now();
    get(&rt).await.unwrap();
    let first_done = first.await.unwrap().unwrap();
    assert!(
        Instant::now() >= first_done + Duration::from_secs(5),
        "the second call waited for the first body"
    );
    assert_eq!(second_started.elapsed(), Duration::from_secs(9));

    // Backoff: a 503 with Retry-After 10 s; meanwhile another call gets the slot.
    let script = Scripted::new(&[answer(503).header("retry-after", "10"), answer(200).body("{}")]);
    let other = Scripted::new(&[answer(200).body("{}")]);
    let limiter = QuotaLimiter::new(QuotaConfig {
        calls_per_window: 100,
        ..QuotaConfig::default()
    });
    let retrying = runtime(&script).quota(limiter.clone()).build().unwrap();
    let neighbour = runtime(&other).quota(limiter).build().unwrap();
    let started = Instant::now();
    let first = tokio::spawn(async move { get(&retrying).await.map(|_| Instant::now()) });
    tokio::time::sleep(Duration::from_secs(1)).await;
    get(&neighbour).await.unwrap();
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(1),
        "the slot was free during the backoff"
    );
    assert!(first.await.unwrap().unwrap() >= started + Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn the_quota_wait_ends_with_the_call_deadline() {
    let limiter = QuotaLimiter::new(QuotaConfig::default());
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script)
        .quota(limiter)
        .timeouts(Timeouts {
            total: Duration::from_secs(3),
            ..Timeouts::default()
        })
        .build()
        .unwrap();
    for _ in 0..3 {
        get(&rt).await.unwrap();
    }
    let started = Instant::now();
    let failure = get(&rt).await.unwrap_err();
    assert!(started.elapsed() <= Duration::from_secs(3));
    match failure.kind {
        FailureKind::Quota(refusal) => {
            assert_eq!(refusal.quota, Quota::PerMinute);
            assert!(refusal.retry_after.is_some_and(|after| after > Duration::from_secs(55)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((failure.delivery, script.sent()), (Delivery::NotSent, 3));
}

#[tokio::test(start_paused = true)]
async fn a_delete_retried_after_it_may_have_arrived_reports_already_deleted() {
    let script = Scripted::new(&[
        answer(503),
        answer(404).body(r#"{"code":"MODEL_NOT_FOUND","message":"no task"}"#),
    ]);
    let rt = runtime(&script).build().unwrap();
    let failure = call(&rt, "delete_task").await.unwrap_err();
    match failure.kind {
        FailureKind::AlreadyDeleted(api) => {
            assert_eq!((api.status, api.code.as_deref()), (404, Some("MODEL_NOT_FOUND")))
        }
        other => panic!("{other:?}"),
    }
    // A first-attempt 404 is a plain not-found.
    let script = Scripted::new(&[answer(404)]);
    let rt = runtime(&script).build().unwrap();
    let failure = call(&rt, "delete_task").await.unwrap_err();
    assert!(
        matches!(failure.kind, FailureKind::Answer(ref api) if api.status == 404),
        "{failure}"
    );
}

#[tokio::test(start_paused = true)]
async fn answers_are_judged_once_with_their_code_location_and_excerpt() {
    // A redirect is not followed: an error carrying where it pointed.
    let script = Scripted::new(&[answer(302).header("location", format!("https://evil.example/?k={KEY}\t"))]);
    let rt = runtime(&script).build().unwrap();
    let FailureKind::Answer(api) = get(&rt).await.unwrap_err().kind else {
        panic!()
    };
    assert_eq!(api.location.as_deref(), Some("https://evil.example/?k=[redacted]\\t"));
    assert_eq!(script.sent(), 1);

    // A non-JSON error body: quoted (redacted, escaped), no invented code.
    let html = format!("<html><h1>Bad gateway</h1>\n{KEY}</html>");
    let script = Scripted::new(&[answer(500).body(html)]);
    let rt = runtime(&script).retry(RetryPolicy::never()).build().unwrap();
    let FailureKind::Answer(api) = get(&rt).await.unwrap_err().kind else {
        panic!()
    };
    assert_eq!((api.code, api.message), (None, None));
    assert_eq!(
        api.excerpt.as_deref(),
        Some("<html><h1>Bad gateway</h1>\\n[redacted]</html>")
    );

    // Invalid UTF-8 inside a JSON error body keeps the code.
    let script = Scripted::new(&[answer(404).body(b"{\"code\":\"MODEL_NOT_FOUND\",\"message\":\"caf\xe9\"}".to_vec())]);
    let rt = runtime(&script).build().unwrap();
    let FailureKind::Answer(api) = get(&rt).await.unwrap_err().kind else {
        panic!()
    };
    assert_eq!(api.code.as_deref(), Some("MODEL_NOT_FOUND"));

    // An error dressed as a success; a success that merely mentions a code is not one.
    let script = Scripted::new(&[answer(200).body(r#"{"code":"UNKNOWN_ERROR","message":"boom"}"#)]);
    let rt = runtime(&script).build().unwrap();
    let FailureKind::Answer(api) = get(&rt).await.unwrap_err().kind else {
        panic!()
    };
    assert_eq!((api.status, api.code.as_deref()), (200, Some("UNKNOWN_ERROR")));
    for body in [
        r#"{"id":1,"code":"UNKNOWN_ERROR","message":"x"}"#,
        r#"{"code":"NOT_A_DOCUMENTED_CODE","message":"x"}"#,
        r#"{"code":"UNKNOWN_ERROR"}"#,
    ] {
        let script = Scripted::new(&[answer(200).body(body)]);
        let rt = runtime(&script).build().unwrap();
        assert!(get(&rt).await.is_ok(), "{body}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_oversized_body_is_refused_and_not_retried() {
    let script = Scripted::new(&[answer(200).body(vec![b' '; 2048])]);
    let rt = runtime(&script).max_response_body(1024).build().unwrap();
    let failure = get(&rt).await.unwrap_err();
    assert!(
        matches!(failure.kind, FailureKind::BodyTooLarge { limit: 1024 }),
        "{failure}"
    );
    assert_eq!(script.sent(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_never_opened_is_retried_for_every_method() {
    struct Refusing(AtomicUsize);
    impl Transport for Refusing {
        fn send<'a>(&'a self, client: &'a reqwest::Client, mut request: reqwest::Request) -> ResponseFuture<'a> {
            self.0.fetch_add(1, Ordering::SeqCst);
            // Port 9 on loopback: nothing listens, the connection is refused.
            *request.url_mut() = "http://127.0.0.1:9/".parse().unwrap();
            Box::pin(client.execute(request))
        }
    }
    let refusing = Arc::new(Refusing(AtomicUsize::new(0)));
    let rt = Runtime::builder(&TABLE)
        .base_url(BASE)
        .transport(refusing.clone())
        .retry(quick())
        .build()
        .unwrap();
    let failure = call(&rt, "register_task").await.unwrap_err();
    assert_eq!(failure.delivery, Delivery::NotSent, "{failure}");
    assert_eq!(refusing.0.load(Ordering::SeqCst), 4);
}

#[tokio::test(start_paused = true)]
async fn success_is_decided_once_an_undocumented_2xx_decodes_or_says_its_status() {
    // A 2xx the YAML does not give (201 for a documented 200) that decodes: a success, its status shown.
    let script = Scripted::new(&[answer(201).body(r#"{"id":7}"#)]);
    let rt = runtime(&script).build().unwrap();
    let response = get(&rt).await.unwrap();
    assert_eq!(
        (response.status(), response["id"].as_i64()),
        (reqwest::StatusCode::CREATED, Some(7))
    );
    // One that does not decode: the status, the path and the body's start.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Task {
        id: u64,
    }
    let script = Scripted::new(&[answer(201).body(r#"{"id":"seven"}"#)]);
    let rt = runtime(&script).build().unwrap();
    let failure = call_as::<Task>(&rt, "get_task").await.unwrap_err();
    let FailureKind::Decode(decode) = &failure.kind else {
        panic!("{failure}")
    };
    assert_eq!((decode.status, decode.path.as_deref()), (Some(201), Some("id")));
    assert!(decode.excerpt.contains("seven"), "{}", decode.excerpt);
    assert!(failure.to_string().contains("status 201"), "{failure}");
    // Under the documented status the same body is a plain decode error.
    let script = Scripted::new(&[answer(200).body(r#"{"id":"seven"}"#)]);
    let rt = runtime(&script).build().unwrap();
    let failure = call_as::<Task>(&rt, "get_task").await.unwrap_err();
    assert!(
        matches!(&failure.kind, FailureKind::Decode(d) if d.status.is_none()),
        "{failure}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_operation_without_a_documented_body_succeeds_whatever_body_comes() {
    for (status, body) in [(204, ""), (200, "{}"), (200, "not json at all")] {
        let script = Scripted::new(&[answer(status).body(body)]);
        let rt = runtime(&script).build().unwrap();
        let response = call_as::<()>(&rt, "touch_task")
            .await
            .unwrap_or_else(|e| panic!("{status} {body:?}: {e}"));
        assert_eq!(response.status().as_u16(), status);
    }
}

static PAGINATOR_SLOTS: std::sync::LazyLock<Arc<tokio::sync::Semaphore>> =
    std::sync::LazyLock::new(|| Arc::new(tokio::sync::Semaphore::new(1)));

/// Records how many of the paginator's slots were free while it decoded.
struct FreeSlots(usize);

impl<'de> serde::Deserialize<'de> for FreeSlots {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(FreeSlots(PAGINATOR_SLOTS.available_permits()))
    }
}

/// `get_task` as the generator writes a builder (a paginator holds one), its
/// answer read as [`FreeSlots`].
struct GetTaskFreeSlots(Runtime);

impl vidplat_core::Operation for GetTaskFreeSlots {
    const META: &'static OperationMeta = &OPS[0];
    type Success = FreeSlots;

    fn prepare(self) -> Result<vidplat_core::Prepared<FreeSlots>, CallFailure> {
        self.0.request(Self::META).path("task-id", Ok(1)).prepare()
    }
}

#[tokio::test(start_paused = true)]
async fn the_wire_slot_is_given_back_before_the_body_decodes() {
    let script = Scripted::new(&[answer(200).body("{}")]);
    let rt = runtime(&script).build().unwrap();
    let slot = PAGINATOR_SLOTS.clone().acquire_owned().await.unwrap();
    assert_eq!(PAGINATOR_SLOTS.available_permits(), 0);
    let decoded = vidplat_core::send_operation(GetTaskFreeSlots(rt), Some(slot))
        .await
        .unwrap();
    assert_eq!(decoded.into_inner().0, 1, "the slot was still held while decoding");
}

// What rustc says when a setter is given what it cannot take (the programs
// under tests/ui/ and their .expected errors) is checked by `cargo xtask
// package`, against the packaged crate (xtask/src/diagnostics.rs).
