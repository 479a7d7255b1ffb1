//! Large analytics lists (past 1 MiB) decode while they arrive, and `.rows()`
//! yields their rows as they come, against a local server that sends the body
//! in chunks, paced. The size cap, the deadline, the decode error's path and
//! the "1 at a time" slot hold as for any other call.

use axum::body::{Body, Bytes};
use axum::routing::get;
use futures::StreamExt as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vidplat::{Call as _, Client, Error, QuotaConfig, Rows as _};

/// What the server sends and what it saw.
#[derive(Clone, Default)]
struct Script {
    chunks: Arc<Vec<Bytes>>,
    pause: Duration,
    arrivals: Arc<Mutex<Vec<Instant>>>,
    /// When the last chunk of each answer left.
    ends: Arc<Mutex<Vec<Instant>>>,
}

fn row(i: usize, play_time: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "user_id": format!("user-{i:06}"),
        "content_title": "ドラマ 第1話",
        "content_type": "VOD",
        "date_time": "2025-06-30 12:00:00",
        "engagement_bitmap": [0, 1, 2, 3, 0, 1, 2, 3],
        "play_time": play_time,
    })
}

/// `rows` viewing records (about 190 bytes each) cut into 64 KiB chunks;
/// row `bad`, if any, has a string where a number belongs.
fn body(rows: usize, bad: Option<usize>) -> Vec<Bytes> {
    let data: Vec<_> = (0..rows)
        .map(|i| row(i, if Some(i) == bad { "x".into() } else { (i % 3600).into() }))
        .collect();
    let bytes = serde_json::to_vec(&serde_json::json!({"data": data, "truncated": false})).unwrap();
    bytes.chunks(64 * 1024).map(Bytes::copy_from_slice).collect()
}

async fn serve(chunks: Vec<Bytes>, pause: Duration) -> (String, Script) {
    let script = Script {
        chunks: Arc::new(chunks),
        pause,
        ..Script::default()
    };
    let state = script.clone();
    let app = axum::Router::new().route(
        "/v2/history",
        get(move || {
            let script = state.clone();
            async move {
                script.arrivals.lock().unwrap().push(Instant::now());
                let count = script.chunks.len();
                let stream = futures::stream::unfold(0usize, move |at| {
                    let script = script.clone();
                    async move {
                        if at == count {
                            script.ends.lock().unwrap().push(Instant::now());
                            return None;
                        }
                        tokio::time::sleep(script.pause).await;
                        Some((Ok::<_, std::io::Error>(script.chunks[at].clone()), at + 1))
                    }
                });
                ([("content-type", "application/json")], Body::from_stream(stream))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), script)
}

fn client(base: &str) -> Client {
    vidplat_tests::local_client(base).build().unwrap()
}

#[tokio::test]
async fn a_large_page_decodes_while_it_arrives_and_rows_come_one_by_one() {
    let chunks = body(20_000, None);
    assert!(chunks.len() > 40, "the body must be well past the 1 MiB threshold");
    let (base, _) = serve(chunks, Duration::ZERO).await;
    let client = client(&base);
    let page = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .call()
        .await
        .unwrap();
    assert_eq!(page.data.len(), 20_000);
    assert_eq!(page.data[19_999].user_id.as_deref(), Some("user-019999"));
    assert_eq!(page.truncated, Some(false));

    let mut rows = client.analytics().unwrap().cloud_viewing_history().rows();
    let mut seen = 0usize;
    while let Some(row) = rows.next().await {
        let row = row.unwrap();
        assert_eq!(row.user_id, Some(format!("user-{seen:06}")));
        seen += 1;
    }
    assert_eq!(seen, 20_000);
}

#[tokio::test]
async fn a_small_page_gives_its_rows_too() {
    let (base, _) = serve(body(3, None), Duration::ZERO).await;
    let rows: Vec<_> = client(&base)
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .rows()
        .collect()
        .await;
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(Result::is_ok));
}

#[tokio::test]
async fn a_bad_row_deep_in_a_large_page_is_reported_with_its_path() {
    let (base, _) = serve(body(20_000, Some(15_000)), Duration::ZERO).await;
    let client = client(&base);
    let error = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .call()
        .await
        .unwrap_err();
    let Error::Decode(decode) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(decode.path.as_deref(), Some("data[15000].play_time"), "{error}");
    assert_eq!(decode.operation, Some("cloud_viewing_history"));
    assert!(decode.excerpt.starts_with("{\"data\":[{"), "{}", decode.excerpt);

    let rows: Vec<_> = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .rows()
        .collect()
        .await;
    assert_eq!(rows.len(), 15_001, "the good rows, then the failure");
    assert!(rows[..15_000].iter().all(Result::is_ok));
    let Some(Err(Error::Decode(decode))) = rows.last() else {
        panic!("{:?}", rows.last())
    };
    assert_eq!(decode.path.as_deref(), Some("data[15000].play_time"));
}

#[tokio::test]
async fn the_cap_holds_past_the_threshold() {
    let (base, _) = serve(body(20_000, None), Duration::ZERO).await;
    let client = vidplat_tests::local_client(&base)
        .max_response_body(2 << 20)
        .build()
        .unwrap();
    let error = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .call()
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::BodyTooLarge { limit } if limit == 2 << 20),
        "{error:?}"
    );
    let rows: Vec<_> = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .rows()
        .collect()
        .await;
    assert!(
        matches!(rows.last(), Some(Err(Error::BodyTooLarge { .. }))),
        "{:?}",
        rows.last().map(|r| r.as_ref().err())
    );
}

#[tokio::test]
async fn the_attempt_deadline_covers_the_rest_of_the_body() {
    // 60 chunks, 100 ms apart: 6 s of body against a 400 ms attempt timeout
    // (the bound below leaves a loaded machine 2.6 s, and still proves the cut).
    let (base, _) = serve(body(20_000, None), Duration::from_millis(100)).await;
    let client = vidplat_tests::local_client(&base)
        .analytics_attempt_timeout(Duration::from_millis(400))
        .retry(vidplat::RetryPolicy::never())
        .build()
        .unwrap();
    let started = Instant::now();
    let error = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
    assert!(
        started.elapsed() < Duration::from_millis(3_000),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_one_at_a_time_slot_is_held_until_the_body_is_read() {
    // About 4 MiB in 64 chunks, 5 ms apart: the body takes over 300 ms.
    let (base, script) = serve(body(20_000, None), Duration::from_millis(5)).await;
    let client = vidplat_tests::local_client(&base)
        .analytics_quota(QuotaConfig::default())
        .build()
        .unwrap();
    let streaming = {
        let client = client.clone();
        tokio::spawn(async move {
            let mut rows = client.analytics().unwrap().cloud_viewing_history().rows();
            let mut count = 0;
            while let Some(row) = rows.next().await {
                row.unwrap();
                count += 1;
            }
            count
        })
    };
    // Let the first call start, then ask for a second one.
    while script.arrivals.lock().unwrap().is_empty() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let page = client
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .call()
        .await
        .unwrap();
    assert_eq!(page.data.len(), 20_000);
    assert_eq!(streaming.await.unwrap(), 20_000);
    let arrivals = script.arrivals.lock().unwrap().clone();
    let ends = script.ends.lock().unwrap().clone();
    assert_eq!(arrivals.len(), 2);
    assert!(
        arrivals[1] >= ends[0],
        "the second call arrived {:?} before the first body ended",
        ends[0] - arrivals[1]
    );
}

#[tokio::test]
async fn dropping_the_row_stream_frees_the_slot() {
    let (base, script) = serve(body(20_000, None), Duration::from_millis(5)).await;
    let client = vidplat_tests::local_client(&base)
        .analytics_quota(QuotaConfig::default())
        .build()
        .unwrap();
    let mut rows = client.analytics().unwrap().cloud_viewing_history().rows();
    assert!(rows.next().await.unwrap().is_ok());
    drop(rows);
    let page = tokio::time::timeout(
        Duration::from_secs(5),
        client.analytics().unwrap().cloud_viewing_history().call(),
    )
    .await
    .expect("the slot came back")
    .unwrap();
    assert_eq!(page.data.len(), 20_000);
    assert_eq!(script.arrivals.lock().unwrap().len(), 2);
}
