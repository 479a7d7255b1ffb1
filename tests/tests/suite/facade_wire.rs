//! The facade against a local HTTP server (wiremock on 127.0.0.1): retrying a
//! connection that never opened, and what tracing may print. Error mapping and
//! the other faults are in the wire suite (`tests/wire/`).

use std::time::Duration;
use vidplat::{Client, Error, RetryPolicy};
use wiremock::matchers::path;
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
        })
        .total_timeout(Duration::from_secs(10))
        .build()
        .unwrap()
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
