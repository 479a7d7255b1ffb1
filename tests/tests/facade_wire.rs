//! The facade against a local HTTP server (wiremock on 127.0.0.1): retries,
//! the never-resend rule, error mapping, and what tracing may print.

use std::time::Duration;
use vidplat::{Call, Client, Error, RetryPolicy};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-live-0123456789-secret";

fn client(server: &MockServer) -> Client {
    Client::builder()
        .encoder_url(server.uri())
        .vms_url(server.uri())
        .analytics_url(server.uri())
        .api_key(KEY)
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            total_timeout: Duration::from_secs(10),
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_503_then_200_on_a_get_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/tasks/7"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/tasks/7"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 7, "status": "encoding"})))
        .mount(&server)
        .await;
    let task = client(&server)
        .encoder()
        .unwrap()
        .get_task()
        .task_id(7u64)
        .send()
        .await
        .unwrap();
    assert_eq!(task.status, Some(vidplat::encoder::types::TaskStatus::Encoding));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_503_on_a_post_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/tasks"))
        .respond_with(
            ResponseTemplate::new(503).set_body_json(serde_json::json!({"code": "UNKNOWN_ERROR", "message": "busy"})),
        )
        .mount(&server)
        .await;
    let body = vidplat_tests::task_body();
    let error: Error = client(&server)
        .encoder()
        .unwrap()
        .register_task()
        .body(body)
        .send()
        .await
        .unwrap_err()
        .into();
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "a registration is never sent twice"
    );
    assert_eq!((error.status(), error.code()), (Some(503), Some("UNKNOWN_ERROR")));
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_post_whose_connection_never_opened_is_retried() {
    // Nothing listens on this port: every attempt fails to connect, so every attempt is safe.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let client = Client::builder()
        .encoder_url(url)
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(5),
            ..RetryPolicy::default()
        })
        .build()
        .unwrap();
    let (writer, output) = capture();
    let _guard = tracing::subscriber::set_default(writer);
    let body = vidplat_tests::task_body();
    let error: Error = client
        .encoder()
        .unwrap()
        .register_task()
        .body(body)
        .send()
        .await
        .unwrap_err()
        .into();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    let log = output();
    assert_eq!(log.matches("retrying register_task").count(), 2, "{log}");
}

#[tokio::test]
async fn error_bodies_map_to_the_error_type() {
    let server = MockServer::start().await;
    Mock::given(path("/v1/tasks/1"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_json(serde_json::json!({"code": "REQUEST_UNAUTHORIZED", "message": null})),
        )
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/2"))
        .respond_with(ResponseTemplate::new(500).set_body_string("<html><body>Internal Server Error</body></html>"))
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/3"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(r#"{"id": 3, "status": "rea"#, "application/json"))
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/4"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 4, "profile_id": "one"})))
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/5"))
        .respond_with(
            ResponseTemplate::new(403).set_body_json(serde_json::json!({"code": "BRAND_NEW_CODE", "message": "new"})),
        )
        .mount(&server)
        .await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    let get = |id: u64| async move { Error::from(encoder.get_task().task_id(id).send().await.unwrap_err()) };

    let unauthorized = get(1).await;
    assert_eq!(
        (unauthorized.status(), unauthorized.code()),
        (Some(401), Some("REQUEST_UNAUTHORIZED"))
    );
    let html = get(2).await;
    assert_eq!(html.status(), Some(500));
    assert!(html.to_string().contains("Internal Server Error"), "{html}");
    match get(3).await {
        Error::Decode { detail, excerpt, .. } => {
            assert!(detail.contains("EOF"), "{detail}");
            assert!(excerpt.starts_with(r#"{"id": 3"#), "{excerpt}");
        }
        other => panic!("truncated JSON: {other:?}"),
    }
    // Through `.call()`, a decode failure names the operation and the exact path.
    let error = encoder.get_task().task_id(4u64).call().await.unwrap_err();
    match &error {
        Error::Decode { operation, detail, .. } => {
            assert_eq!(*operation, Some("get_task"));
            assert!(detail.ends_with("at profile_id"), "{detail}");
        }
        other => panic!("wrong type: {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("undecodable response of get_task (invalid type: string \"one\""),
        "{error}"
    );
    let unknown = get(5).await;
    assert_eq!((unknown.status(), unknown.code()), (Some(403), Some("BRAND_NEW_CODE")));
}

#[tokio::test]
async fn tracing_records_the_call_and_never_the_key() {
    let server = MockServer::start().await;
    Mock::given(path("/v1/counts"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({"ready": 2})))
        .mount(&server)
        .await;
    let (writer, output) = capture();
    let _guard = tracing::subscriber::set_default(writer);
    let counts = client(&server)
        .encoder()
        .unwrap()
        .get_task_counts()
        .send()
        .await
        .unwrap();
    assert_eq!(counts.ready, Some(2));
    let log = output();
    assert!(log.contains("vidplat.call"), "{log}");
    for field in [
        "service=encoder",
        "operation=\"get_task_counts\"",
        "status=200",
        "attempts=1",
        "latency_ms=",
    ] {
        assert!(log.contains(field), "missing {field}: {log}");
    }
    assert!(
        !log.contains(KEY) && !log.to_lowercase().contains("authorization") && !log.contains("Bearer"),
        "{log}"
    );
}

/// A subscriber writing every span close and event to a buffer.
fn capture() -> (impl tracing::Subscriber + Send + Sync, impl Fn() -> String) {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let reader = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || buffer.clone())
        .finish();
    (subscriber, move || {
        String::from_utf8_lossy(&reader.0.lock().unwrap()).into_owned()
    })
}

#[tokio::test]
async fn a_server_slower_than_the_total_timeout_times_out() {
    let server = MockServer::start().await;
    Mock::given(path("/v1/counts"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(Duration::from_secs(5))
                .set_body_json(serde_json::json!({})),
        )
        .mount(&server)
        .await;
    let client = Client::builder()
        .encoder_url(server.uri())
        .retry(RetryPolicy {
            total_timeout: Duration::from_millis(300),
            ..RetryPolicy::default()
        })
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let error: Error = client
        .encoder()
        .unwrap()
        .get_task_counts()
        .send()
        .await
        .unwrap_err()
        .into();
    assert!(matches!(error, Error::Timeout), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}
