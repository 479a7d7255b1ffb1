//! Transport faults: a server slower than the timeout, a connection reset in
//! the middle of a body, a server that closes before answering, and what is
//! retried (an idempotent GET) and what is never re-sent (a POST).

use crate::harness::{local_client, Wire};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use vidplat::{Call, Error, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn quick_retries(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
    }
}

/// What the raw server does once it has read a request's head.
#[derive(Clone, Copy)]
enum Misbehaviour {
    /// Closes the connection without a byte of answer.
    CloseBeforeAnswering,
    /// Sends the head and part of the body it announced, then resets the connection.
    ResetMidBody,
}

/// A bare TCP server on 127.0.0.1 that misbehaves on every connection; counts the requests it read.
async fn raw_server(misbehaviour: Misbehaviour) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
    let address = listener.local_addr().expect("local address");
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    tokio::spawn(async move {
        // Bounded: no test here makes more than a handful of connections.
        for _ in 0..16 {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let counter = counter.clone();
            tokio::spawn(async move { misbehave(stream, misbehaviour, &counter).await });
        }
    });
    (format!("http://{address}"), requests)
}

async fn misbehave(mut stream: TcpStream, misbehaviour: Misbehaviour, requests: &AtomicUsize) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    requests.fetch_add(1, Ordering::SeqCst);
    match misbehaviour {
        Misbehaviour::CloseBeforeAnswering => drop(stream),
        Misbehaviour::ResetMidBody => {
            let partial =
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{\"id\": 1, \"sta";
            let _ = stream.write_all(partial).await;
            let _ = stream.flush().await;
            // Linger 0 turns the close into a TCP reset: the body is cut, not ended.
            #[allow(deprecated)]
            let _ = stream.set_linger(Some(Duration::ZERO));
            drop(stream);
        }
    }
}

#[tokio::test]
async fn a_server_slower_than_the_attempt_timeout_times_out() {
    let slow = ResponseTemplate::new(200)
        .set_delay(Duration::from_secs(5))
        .set_body_json(json!({"waiting": 1}));
    let wire = Wire::configured(slow, |builder| {
        builder
            .attempt_timeout(Duration::from_millis(200))
            .retry(RetryPolicy::never())
    })
    .await;
    let started = Instant::now();
    let error = wire.encoder().get_task_counts().call().await.unwrap_err();
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_server_slower_than_the_total_timeout_times_out_whatever_the_retries() {
    let slow = ResponseTemplate::new(200)
        .set_delay(Duration::from_secs(5))
        .set_body_json(json!({}));
    let wire = Wire::configured(slow, |builder| {
        builder
            .retry(quick_retries(5))
            .total_timeout(Duration::from_millis(300))
    })
    .await;
    let started = Instant::now();
    let error = wire.vms().list_sites().call().await.unwrap_err();
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

/// The body is read inside the attempt, so a body cut after the head arrived is
/// a failure after sending: a GET is sent again (every attempt is used), a
/// POST never (its first attempt may have done the work).
#[tokio::test]
async fn a_connection_reset_mid_body_is_a_transport_error() {
    let (uri, requests) = raw_server(Misbehaviour::ResetMidBody).await;
    let client = local_client(&uri).retry(quick_retries(3)).build().unwrap();
    let error = client
        .encoder()
        .unwrap()
        .get_task()
        .task_id(std::num::NonZeroU64::MIN)
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert!(
        error.to_string().contains("body") || error.to_string().contains("connection"),
        "{error}"
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "a GET whose body broke is fetched again"
    );
    assert!(error.is_retryable(), "a GET may be repeated");

    let (error, requests) = register_task_against(Misbehaviour::ResetMidBody).await;
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert_eq!(requests, 1, "a POST whose answer broke is not sent again");
    assert!(!error.is_retryable(), "the registration may have happened");
}

/// A task registration (with up to 3 attempts) against a misbehaving server:
/// the error, and how many requests the server read.
async fn register_task_against(misbehaviour: Misbehaviour) -> (Error, usize) {
    let (uri, requests) = raw_server(misbehaviour).await;
    let client = local_client(&uri).retry(quick_retries(3)).build().unwrap();
    let encoder = client.encoder().unwrap();
    let body = vidplat_tests::task_body();
    let error = encoder.register_task().body(body).call().await.unwrap_err();
    (error, requests.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_get_whose_server_closes_before_answering_is_retried_then_fails() {
    let (uri, requests) = raw_server(Misbehaviour::CloseBeforeAnswering).await;
    let client = local_client(&uri).retry(quick_retries(3)).build().unwrap();
    let error = client.vms().unwrap().list_labels().call().await.unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "a GET may be sent again: every attempt is used"
    );
}

#[tokio::test]
async fn a_post_whose_server_closes_before_answering_is_not_sent_again() {
    let (error, requests) = register_task_against(Misbehaviour::CloseBeforeAnswering).await;
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    // The server may have registered the task before closing: a second POST could duplicate it.
    assert_eq!(requests, 1);
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
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 7, "status": "encoding"})))
        .mount(&server)
        .await;
    let client = local_client(&server.uri()).retry(quick_retries(3)).build().unwrap();
    let task = client
        .encoder()
        .unwrap()
        .get_task()
        .task_id(std::num::NonZeroU64::new(7).unwrap())
        .call()
        .await
        .unwrap();
    assert_eq!(task.status, Some(vidplat::encoder::types::TaskStatus::Encoding));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_503_on_a_post_is_sent_exactly_once() {
    let busy = ResponseTemplate::new(503).set_body_json(json!({"code": "UNDER_MAINTENANCE", "message": "busy"}));
    let wire = Wire::configured(busy, |builder| builder.retry(quick_retries(3))).await;
    let body = vidplat::vms::types::LabelCreate::builder().name("drama");
    let error = wire.vms().register_label().body(body).call().await.unwrap_err();
    assert_eq!(wire.requests().await.len(), 1, "a registration is never sent twice");
    assert_eq!((error.status(), error.code()), (Some(503), Some("UNDER_MAINTENANCE")));
    // The POST reached the server: sending it again could register the label twice.
    assert!(!error.is_retryable(), "never advise a retry that could duplicate work");
}
