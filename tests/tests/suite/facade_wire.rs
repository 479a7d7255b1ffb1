//! The facade against a local HTTP server (wiremock on 127.0.0.1): retrying a
//! connection that never opened, and what tracing may print. Error mapping and
//! the other faults are in the wire suite (`errors`, `faults`, `hostile`).

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
        "vidplat.service=\"encoder\"",
        "vidplat.operation=\"get_task_counts\"",
        "url.template=\"/v1/counts\"",
        "http.response.status_code=200",
        "vidplat.attempts=1",
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

/// What `.send()` users see: the runtime's typed failure, whose `Display`
/// says the real cause (the service's answer, which timeout, which quota),
/// never a carrier response's status.
#[tokio::test]
async fn send_shows_the_real_cause_of_a_404_a_timeout_and_a_quota_refusal() {
    let server = MockServer::start().await;
    Mock::given(path("/v1/tasks/7"))
        .respond_with(ResponseTemplate::new(404).set_body_json(serde_json::json!({
            "code": "MODEL_NOT_FOUND",
            "message": "task 7 does not exist"
        })))
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/8"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let encoder = client(&server);
    let not_found = encoder
        .encoder()
        .unwrap()
        .get_task()
        .task_id(7)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        not_found.to_string(),
        "encoder get_task: the service answered 404 MODEL_NOT_FOUND: task 7 does not exist"
    );
    // One attempt, and a total deadline far past it: a late wake-up of the
    // attempt's timer must not be read as the total's.
    let impatient = Client::builder()
        .encoder_url(server.uri())
        .retry(RetryPolicy::never())
        .attempt_timeout(Duration::from_millis(50))
        .total_timeout(Duration::from_secs(3))
        .build()
        .unwrap();
    let timed_out = impatient
        .encoder()
        .unwrap()
        .get_task()
        .task_id(8)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        timed_out.to_string(),
        "encoder get_task: attempt timeout",
        "{timed_out:?}"
    );
    // The month's quota spent on the client side: refused before anything is sent.
    let spent = Client::builder()
        .analytics_url(server.uri())
        .analytics_quota(vidplat::QuotaConfig {
            per_month: 0,
            ..vidplat::QuotaConfig::default()
        })
        .build()
        .unwrap();
    let refused = spent.analytics().unwrap().cloud_by_os().send().await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "analytics cloud_by_os: client-side Month quota reached"
    );
    let requests = server.received_requests().await.unwrap();
    assert!(
        requests.iter().all(|r| r.url.path() != "/v2/os/data"),
        "nothing was sent"
    );
    // And each converts into the facade's error with `?`.
    assert!(matches!(Error::from(not_found), Error::Api(api) if api.status == 404));
    assert!(matches!(Error::from(timed_out), Error::Timeout(_)));
    assert!(matches!(
        Error::from(refused),
        Error::RateLimited {
            quota: vidplat::Quota::Month,
            response: None,
            ..
        }
    ));
}

/// Success is decided once, by the runtime: any 2xx. A 2xx the YAML does not
/// document (get_task documents 200) decodes when it can, its status kept;
/// when it cannot, the error says the status and shows the body's start.
#[tokio::test]
async fn an_undocumented_2xx_decodes_or_is_reported_with_its_status_and_body() {
    let server = MockServer::start().await;
    Mock::given(path("/v1/tasks/1"))
        .respond_with(ResponseTemplate::new(201).set_body_json(serde_json::json!({"id": 1, "status": "ready"})))
        .mount(&server)
        .await;
    Mock::given(path("/v1/tasks/2"))
        .respond_with(ResponseTemplate::new(203).set_body_json(serde_json::json!({"id": "two"})))
        .mount(&server)
        .await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    let task = encoder.get_task().task_id(1).send().await.unwrap();
    assert_eq!((task.status().as_u16(), task.id), (201, Some(1)));
    let error = Error::from(encoder.get_task().task_id(2).send().await.unwrap_err());
    let Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert_eq!((decode.status, decode.path.as_deref()), (Some(203), Some("id")));
    assert!(decode.excerpt.contains(r#""id":"two""#), "{}", decode.excerpt);
    assert!(error.to_string().contains("status 203"), "{error}");
}
