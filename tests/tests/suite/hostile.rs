//! What no server may achieve, whatever it answers, point by point,
//! each played by a hostile or broken server on 127.0.0.1 (or a scripted
//! transport under paused time where waits are involved).

use crate::harness::{local_client, Wire, API_KEY};
use futures::StreamExt as _;
use proptest::prelude::*;
use serde_json::json;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use vidplat::{Call, Delivery, Error, Method, RetryPolicy};
use wiremock::matchers::{any as any_request, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TASK: NonZeroU64 = NonZeroU64::MIN;

/// A server that answers everything with 200 and counts what reaches it.
async fn bystander() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(any_request())
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 1})))
        .mount(&server)
        .await;
    server
}

/// 1. Credentials stay home: no redirect is followed, whatever its status,
/// target or method, so the key, the method and the body go nowhere else; the
/// 3xx is an `Api` error carrying the `Location`.
#[tokio::test]
async fn no_redirect_is_followed_and_the_key_goes_nowhere_else() {
    let third = bystander().await;
    let second = MockServer::start().await;
    Mock::given(any_request())
        .respond_with(ResponseTemplate::new(302).insert_header("location", format!("{}/v1/tasks/1", third.uri())))
        .mount(&second)
        .await;
    for status in [301, 302, 303, 307, 308] {
        for target in [format!("{}/v1/tasks/1", second.uri()), "/v1/tasks/2".to_owned()] {
            let wire = Wire::configured(
                ResponseTemplate::new(status).insert_header("location", target.as_str()),
                |builder| builder.retry(RetryPolicy::never()),
            )
            .await;
            let (get, post) = wire.failed_get_and_post().await;
            for error in [&get, &post] {
                let Error::Api(api) = error else {
                    panic!("{status}: {error:?}")
                };
                assert_eq!(api.status, status);
                assert_eq!(api.location.as_deref(), Some(target.as_str()), "{status}");
                assert!(!error.to_string().contains(API_KEY));
            }
            let requests = wire.requests().await;
            let methods: Vec<&str> = requests.iter().map(|r| r.method.as_str()).collect();
            assert_eq!(
                methods,
                ["GET", "POST"],
                "{status} to {target}: one request each, never re-sent"
            );
        }
    }
    let elsewhere = second.received_requests().await.unwrap().len() + third.received_requests().await.unwrap().len();
    assert_eq!(elsewhere, 0, "no request, hence no key, reached another origin");
}

/// 3. No panic, whatever the size or form of `Retry-After`, and `Duration::MAX` timeouts.
#[tokio::test]
async fn huge_timeouts_and_retry_afters_of_any_form_end_in_an_error_or_a_clamped_wait() {
    let in_the_far_future = "Fri, 31 Dec 9999 23:59:59 GMT";
    for retry_after in [
        "18446744073709551615",
        "-1",
        "99999999999999999999999",
        in_the_far_future,
        "Thu, 01 Jan 1970 00:00:00 GMT",
        "soon",
    ] {
        let wire = Wire::configured(
            ResponseTemplate::new(503).insert_header("retry-after", retry_after),
            |builder| {
                builder
                    .retry(RetryPolicy {
                        max_attempts: 2,
                        initial_backoff: Duration::from_millis(1),
                        max_backoff: Duration::from_millis(1),
                    })
                    .total_timeout(Duration::from_secs(2))
            },
        )
        .await;
        let started = std::time::Instant::now();
        let error = wire.encoder().get_task().task_id(TASK).call().await.unwrap_err();
        assert_eq!(error.status(), Some(503), "{retry_after}");
        assert!(started.elapsed() < Duration::from_secs(3), "{retry_after}");
    }
    let wire = Wire::configured(ResponseTemplate::new(200).set_body_json(json!({"id": 1})), |builder| {
        builder
            .total_timeout(Duration::MAX)
            .attempt_timeout(Duration::MAX)
            .connect_timeout(Duration::MAX)
    })
    .await;
    assert!(wire.encoder().get_task().task_id(TASK).call().await.is_ok());
}

/// A transport answering every attempt with one scripted response.
struct Hostile {
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
    sent: AtomicUsize,
}

impl vidplat::Transport for Hostile {
    fn send<'a>(&'a self, _: &'a reqwest::Client, _: reqwest::Request) -> vidplat_core::ResponseFuture<'a> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        let mut response = http::Response::builder().status(self.status);
        for (name, value) in &self.headers {
            response = response.header(name.as_str(), value.as_slice());
        }
        let response = response
            .body(self.body.clone())
            .expect("the strategy makes valid heads");
        Box::pin(async move { Ok(reqwest::Response::from(response)) })
    }
}

fn header_value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"18446744073709551615".to_vec()),
        Just(b"-1".to_vec()),
        Just(b"0".to_vec()),
        Just(b"Fri, 31 Dec 9999 23:59:59 GMT".to_vec()),
        Just(b"Thu, 01 Jan 1970 00:00:00 GMT".to_vec()),
        any::<u64>().prop_map(|n| n.to_string().into_bytes()),
        // Any byte a header value may hold: visible ASCII, tab, obs-text.
        proptest::collection::vec(prop_oneof![Just(b'\t'), 0x20u8..0x7f, 0x80u8..=0xff], 0..40),
    ]
}

fn headers() -> impl Strategy<Value = Vec<(String, Vec<u8>)>> {
    let name = prop_oneof![
        Just("retry-after"),
        Just("location"),
        Just("content-type"),
        Just("content-length"),
        Just("x-anything"),
    ]
    .prop_map(str::to_owned);
    proptest::collection::vec((name, header_value()), 0..4)
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    let code = prop_oneof![
        Just("MODEL_NOT_FOUND".to_owned()),
        Just("UNKNOWN_ERROR".to_owned()),
        "[A-Z_]{0,12}"
    ];
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..600),
        (code, proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(code, message)| {
            let mut body = format!(r#"{{"code":"{code}","message":""#).into_bytes();
            body.extend(message.iter().filter(|b| **b != b'"' && **b != b'\\'));
            body.extend_from_slice(b"\"}");
            body
        }),
        Just(br#"{"id": 1, "status": "ready"}"#.to_vec()),
        Just(br#"{"id": 1, "status": "rea"#.to_vec()),
        Just(vec![b' '; 5000]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// 3. Any status × headers × body: no panic, and the call ends within its deadline.
    #[test]
    fn no_answer_panics_and_every_call_ends_within_its_deadline(
        status in prop_oneof![Just(200u16), Just(302), Just(404), Just(429), Just(503), 100u16..=999],
        headers in headers(),
        body in body(),
        post in any::<bool>(),
        total_ms in prop_oneof![Just(0u64), 1u64..120_000],
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap();
        // Everything the call traces, at every level, is kept: none of it may hold the key.
        let traces = crate::observability::Collector::default();
        let _traced = tracing::subscriber::set_default(traces.subscriber());
        runtime.block_on(async move {
            let hostile = Arc::new(Hostile { status, headers, body, sent: AtomicUsize::new(0) });
            let total = Duration::from_millis(total_ms);
            let client = local_client("http://127.0.0.1:9")
                .transport(hostile.clone())
                .max_response_body(4096)
                .total_timeout(total)
                .build()
                .unwrap();
            let started = tokio::time::Instant::now();
            let outcome: Result<(), Error> = if post {
                client.encoder().unwrap().register_task().body(vidplat_tests::task_body()).call().await.map(|_| ())
            } else {
                client.encoder().unwrap().get_task().task_id(TASK).call().await.map(|_| ())
            };
            assert!(started.elapsed() <= total, "ended after {:?}, deadline {total:?}", started.elapsed());
            if let Err(error) = outcome {
                // Every error can be shown, and says nothing of the key.
                let shown = format!("{error} {error:?}");
                assert!(!shown.contains(API_KEY), "{shown}");
                if post && hostile.sent.load(Ordering::SeqCst) > 0 {
                    assert!(!error.is_retryable() || matches!(error, Error::RateLimited { response: None, .. }), "{error:?}");
                }
            }
        });
        let traced = traces.everything();
        prop_assert!(traced.contains("vidplat.call"), "the call was traced");
        prop_assert!(!traced.contains(API_KEY), "{}", traced);
    }
}

/// A raw server that answers one request with `head` and then streams
/// `chunk` up to `limit` bytes; reports how many body bytes it managed to write.
async fn streaming_server(head: &'static str, chunk: usize, limit: usize) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let written = Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    tokio::spawn(async move {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let mut buffer = [0u8; 4096];
        let mut head_read = Vec::new();
        while !head_read.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => head_read.extend_from_slice(&buffer[..n]),
            }
        }
        if stream.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let piece = format!("{chunk:x}\r\n{}\r\n", " ".repeat(chunk));
        while counter.load(Ordering::SeqCst) < limit {
            if stream.write_all(piece.as_bytes()).await.is_err() {
                return;
            }
            counter.fetch_add(chunk, Ordering::SeqCst);
        }
    });
    (format!("http://{address}"), written)
}

/// One `get task` from `uri`, with one attempt and a body cap, expected to fail.
async fn get_task_capped(uri: &str, cap: u64) -> Error {
    let client = local_client(uri)
        .retry(RetryPolicy::never())
        .max_response_body(cap)
        .build()
        .unwrap();
    let encoder = client.encoder().unwrap();
    encoder.get_task().task_id(TASK).call().await.unwrap_err()
}

/// 4. Bounded memory: a body past the cap is refused while it streams (the
/// server is cut off long before its end); an announced length past the cap
/// is refused before reading; the default cap holds a 20 MiB page.
#[tokio::test]
async fn a_body_past_the_cap_is_refused_while_streaming() {
    const MIB: usize = 1024 * 1024;
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
    let (uri, written) = streaming_server(head, 64 * 1024, 256 * MIB).await;
    let error = get_task_capped(&uri, MIB as u64).await;
    assert!(
        matches!(error, Error::BodyTooLarge { limit } if limit == MIB as u64),
        "{error:?}"
    );
    assert!(error.to_string().contains("larger than"), "{error}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        written.load(Ordering::SeqCst) < 64 * MIB,
        "the client stopped reading at the cap"
    );

    let announced = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1073741824\r\n\r\n";
    let (uri, _) = streaming_server(announced, 1024, 0).await;
    let error = get_task_capped(&uri, MIB as u64).await;
    assert!(matches!(error, Error::BodyTooLarge { .. }), "{error:?}");

    // The default cap (64 MiB) fits the largest documented answer (~19 MiB).
    assert!(vidplat_core::DEFAULT_MAX_RESPONSE_BODY >= 3 * 19 * MIB as u64);
    let page = format!(
        r#"{{"data": [], "truncated": false, "pad": "{}"}}"#,
        "x".repeat(20 * MIB)
    );
    let wire = Wire::with(ResponseTemplate::new(200).set_body_raw(page, "application/json")).await;
    assert!(wire.analytics().cloud_by_os().call().await.is_ok());
}

/// 5. One deadline also bounds the reading of the body: a server that sends
/// its head and then dribbles the body meets the total timeout.
#[tokio::test]
async fn the_total_timeout_bounds_reading_the_body() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let mut buffer = [0u8; 4096];
        let _ = stream.read(&mut buffer).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{")
            .await;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if stream.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let client = local_client(&uri)
        .retry(RetryPolicy::never())
        .attempt_timeout(Duration::from_secs(60))
        .total_timeout(Duration::from_millis(700))
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
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

/// 7. Secrets never printed: generated types redact `x-secret` members in
/// `Debug`; decode and error excerpts hide the key and secret members and
/// escape control characters.
#[tokio::test]
async fn secrets_are_never_printed() {
    use vidplat::vms::types;
    let page = types::ViewingPage::builder().signing_key(Some("0123456789abcdef0123456789abcdef".to_owned()));
    let registration = types::ViewingPageRegistration {
        id: Some("p".into()),
        signing_key: Some("0123456789abcdef0123456789abcdef".into()),
    };
    let authentication = types::PageAuthentication::builder().password(Some("hunter2-password".to_owned()));
    let shown = format!(
        "{page:?} {registration:?} {authentication:?} {:?}",
        types::PageAuthentication::try_from(authentication.clone())
    );
    assert!(
        !shown.contains("0123456789abcdef") && !shown.contains("hunter2"),
        "{shown}"
    );
    assert!(shown.contains("[redacted]"), "{shown}");

    // A body that does not decode, echoing the key and holding a secret member.
    let echo = json!({"id": ["not", "a", "string"], "signing_key": "0123456789abcdef0123456789abcdef", "echo": format!("Bearer {API_KEY}")});
    let wire = Wire::ok(echo).await;
    let id = uuid::uuid!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");
    let error = wire.vms().get_viewing_page().page_id(id).call().await.unwrap_err();
    let Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(decode.path.as_deref(), Some("id"));
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains(API_KEY) && !shown.contains("0123456789abcdef"),
        "{shown}"
    );

    // A non-JSON error page quoting the key, with a forged log line.
    let page = format!("<h1>oops</h1>\n2025-01-01 INFO forged line; key={API_KEY}\u{1b}[2J");
    let wire = Wire::configured(ResponseTemplate::new(500).set_body_raw(page, "text/html"), |builder| {
        builder.retry(RetryPolicy::never())
    })
    .await;
    let error = wire.vms().list_labels().call().await.unwrap_err();
    let shown = error.to_string();
    assert!(
        !shown.contains(API_KEY) && !shown.contains('\n') && !shown.contains('\u{1b}'),
        "{shown}"
    );
    // And a JSON error whose message does the same.
    let message = format!("bad\nFORGED {API_KEY}");
    let wire = Wire::configured(
        ResponseTemplate::new(400).set_body_json(json!({"code": "INVALID_REQUEST", "message": message})),
        |builder| builder.retry(RetryPolicy::never()),
    )
    .await;
    let error = wire.vms().list_labels().call().await.unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains(API_KEY) && !error.to_string().contains('\n'), "{shown}");
}

/// 8. A DELETE retried after an attempt that may have reached the server, whose
/// retry finds nothing, is `AlreadyDeleted`, not a plain not-found.
#[tokio::test]
async fn a_deletion_that_happened_is_not_a_plain_not_found() {
    let server = MockServer::start().await;
    Mock::given(method("DELETE"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"code": "MODEL_NOT_FOUND", "message": null})))
        .mount(&server)
        .await;
    let client = local_client(&server.uri())
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
        })
        .build()
        .unwrap();
    let id = uuid::uuid!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");
    let error = client
        .vms()
        .unwrap()
        .delete_label()
        .label_id(id)
        .call()
        .await
        .unwrap_err();
    match &error {
        Error::AlreadyDeleted(api) => assert_eq!((api.status, api.code.as_deref()), (404, Some("MODEL_NOT_FOUND"))),
        other => panic!("{other:?}"),
    }
    assert!(!error.is_retryable());
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

/// 9. `is_retryable` knows the method and whether the request may have arrived.
#[tokio::test]
async fn is_retryable_never_advises_duplicating_work() {
    let slow = ResponseTemplate::new(200)
        .set_delay(Duration::from_secs(5))
        .set_body_json(json!({"id": 1}));
    let wire = Wire::configured(slow, |builder| {
        builder
            .retry(RetryPolicy::never())
            .attempt_timeout(Duration::from_millis(200))
    })
    .await;
    let (get, post) = wire.failed_get_and_post().await;
    for (error, method, retryable) in [(&get, Method::Get, true), (&post, Method::Post, false)] {
        let Error::Timeout(timeout) = error else {
            panic!("{error:?}")
        };
        assert_eq!(
            (timeout.method, timeout.delivery),
            (Some(method), Delivery::MayHaveArrived)
        );
        assert_eq!(
            error.is_retryable(),
            retryable,
            "{method}: the POST may have registered the task"
        );
    }
    let wire = Wire::configured(ResponseTemplate::new(502), |builder| {
        builder.retry(RetryPolicy::never())
    })
    .await;
    let post = wire
        .vms()
        .register_label()
        .body(vidplat::vms::types::LabelCreate::builder().name("x"))
        .call()
        .await;
    assert!(
        !post.unwrap_err().is_retryable(),
        "a gateway error after a POST arrived"
    );
    assert!(
        wire.vms().list_labels().call().await.unwrap_err().is_retryable(),
        "the same for a GET"
    );
}

/// 10. Invalid UTF-8 inside a JSON error body does not lose the code.
#[tokio::test]
async fn invalid_utf8_in_an_error_body_keeps_the_code() {
    let body = b"{\"code\":\"MODEL_NOT_FOUND\",\"message\":\"caf\xe9 \xff not found\"}".to_vec();
    let wire = Wire::with(ResponseTemplate::new(404).set_body_raw(body, "application/json")).await;
    let error = wire.encoder().get_task().task_id(TASK).call().await.unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(404), Some("MODEL_NOT_FOUND")),
        "{error:?}"
    );
    assert!(error.message().is_some_and(|m| m.contains("not found")));
}

/// 11. An error dressed as success is an `Api` error, not an empty success.
#[tokio::test]
async fn an_error_body_under_a_200_is_an_error() {
    let wire = Wire::ok(json!({"code": "UNKNOWN_ERROR", "message": "database unavailable"})).await;
    let error = wire.vms().list_labels().call().await.unwrap_err();
    let Error::Api(api) = &error else { panic!("{error:?}") };
    assert_eq!((api.status, api.code.as_deref()), (200, Some("UNKNOWN_ERROR")));
    assert_eq!(error.message(), Some("database unavailable"));
    // A real list with the same members is still a list.
    let wire = Wire::ok(json!({"data": [], "code": "UNKNOWN_ERROR", "message": "x"})).await;
    assert!(wire.vms().list_labels().call().await.is_ok());
}

/// 12. An answer the client cannot read came from a call that arrived: a
/// batch's row answered so is unknown, not failed, and a rerun with its
/// journal does not send it again (a registration would be made twice).
#[tokio::test]
async fn a_row_whose_answer_cannot_be_read_is_not_sent_again() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!(["not", "a", "label"])))
        .mount(&server)
        .await;
    let client = local_client(&server.uri()).build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("labels.journal");
    let row = vidplat::batch::BatchRow {
        number: 1,
        args: vidplat_core::Args::from_value(json!({"body": {"name": "news"}})).unwrap(),
    };
    for expected in ["unknown", "unknown_before"] {
        let batch = client
            .batch(vidplat_core::Service::Vms, "register_label")
            .unwrap()
            .journal(&journal);
        let outcomes: Vec<_> = batch
            .run(futures::stream::iter([row.clone()]))
            .await
            .unwrap()
            .collect()
            .await;
        let [Ok(outcome)] = &outcomes[..] else {
            panic!("{outcomes:?}")
        };
        assert_eq!(outcome.outcome.name(), expected, "{outcome:?}");
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "sent once");
}

/// 13. A batch's wait for a full task queue ends within its maximum wait,
/// its calls counted, whatever the pause and the counts a server gives
/// (here no pause at all, and counts whose sum overflows).
#[tokio::test]
async fn a_batch_waiting_for_the_task_queue_gives_up_in_time() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"code": "OVER_SERVICE_LIMIT", "message": "registrable task count exceeded"})),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"waiting": i64::MAX, "encoding": 1})))
        .mount(&server)
        .await;
    let client = local_client(&server.uri()).build().unwrap();
    let polling = vidplat::waiters::Polling {
        initial_interval: Duration::ZERO,
        max_wait: Duration::from_millis(300),
        ..vidplat::waiters::Polling::default()
    };
    let batch = client
        .batch(vidplat_core::Service::Encoder, "register_task")
        .unwrap()
        .queue_polling(polling);
    let row = vidplat::batch::BatchRow {
        number: 1,
        args: vidplat_core::Args::from_value(json!({"body": {"input_filepath": "movie.mp4", "profile_id": 1}}))
            .unwrap(),
    };
    let outcomes = batch
        .run(futures::stream::iter([row]))
        .await
        .unwrap()
        .collect::<Vec<_>>();
    let outcomes = tokio::time::timeout(Duration::from_secs(10), outcomes)
        .await
        .expect("the wait ended");
    let [Ok(outcome)] = &outcomes[..] else {
        panic!("{outcomes:?}")
    };
    assert_eq!(outcome.outcome.name(), "failed", "{outcome:?}");
}

/// Every case of this file but the proptest (which checks its own traces),
/// one after the other: a test that watches what they trace runs them
/// (`observability`).
pub(crate) fn every_case() {
    no_redirect_is_followed_and_the_key_goes_nowhere_else();
    huge_timeouts_and_retry_afters_of_any_form_end_in_an_error_or_a_clamped_wait();
    a_body_past_the_cap_is_refused_while_streaming();
    the_total_timeout_bounds_reading_the_body();
    secrets_are_never_printed();
    a_deletion_that_happened_is_not_a_plain_not_found();
    is_retryable_never_advises_duplicating_work();
    invalid_utf8_in_an_error_body_keeps_the_code();
    an_error_body_under_a_200_is_an_error();
    a_row_whose_answer_cannot_be_read_is_not_sent_again();
    a_batch_waiting_for_the_task_queue_gives_up_in_time();
}
