//! Pagination streams against a local server: every style sends the right
//! position parameters, stops where the documents say, keeps order, honours caps.

use futures::TryStreamExt;
use serde_json::{json, Value};
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vidplat::pagination::{items, numbered, offset_limit, rank_windows, truncated, Limits};
use vidplat::Client;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn query(request: &Request, name: &str) -> Option<u64> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
}

/// Serves `total` numbered rows, `size` a page, in the shape `shape` gives, recording the position of every request.
#[derive(Clone)]
struct Pages {
    shape: fn(&Request, u64) -> Value,
    delay: Duration,
    seen: Arc<Mutex<Vec<(Instant, String)>>>,
}

impl Respond for Pages {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        self.seen
            .lock()
            .unwrap()
            .push((Instant::now(), request.url.query().unwrap_or_default().to_owned()));
        ResponseTemplate::new(200)
            .set_delay(self.delay)
            .set_body_json((self.shape)(request, 0))
    }
}

async fn serve(
    route: &str,
    shape: fn(&Request, u64) -> Value,
    delay: Duration,
) -> (MockServer, Arc<Mutex<Vec<(Instant, String)>>>) {
    let server = MockServer::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    Mock::given(wiremock::matchers::path(route))
        .respond_with(Pages {
            shape,
            delay,
            seen: seen.clone(),
        })
        .mount(&server)
        .await;
    (server, seen)
}

fn client(server: &MockServer) -> Client {
    vidplat_tests::local_client(&server.uri()).build().unwrap()
}

/// 7 pages of 3 tasks, ids 1..=21.
fn task_page(request: &Request, _: u64) -> Value {
    let page = query(request, "page").unwrap_or(1);
    let data: Vec<Value> = (0..3)
        .map(|i| json!({"id": (page - 1) * 3 + i + 1, "status": "ready"}))
        .collect();
    json!({"data": data, "total": 21, "per_page": 3, "current_page": page, "last_page": 7})
}

#[tokio::test]
async fn numbered_pages_prefetch_concurrently_and_keep_order() {
    let (server, seen) = serve("/v1/tasks", task_page, Duration::from_millis(80)).await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    let pages = numbered(
        |page| encoder.list_tasks().page(page).per_page(3).send(),
        4,
        Limits::default(),
    );
    let tasks: Vec<_> = items(pages, Limits::default()).try_collect().await.unwrap();
    assert_eq!(
        tasks.iter().map(|t| t.id.unwrap()).collect::<Vec<_>>(),
        (1..=21).collect::<Vec<_>>()
    );

    let seen = seen.lock().unwrap().clone();
    let mut pages_asked: Vec<String> = seen.iter().map(|(_, q)| q.clone()).collect();
    pages_asked.sort();
    assert_eq!(
        pages_asked,
        (1..=7).map(|p| format!("page={p}&per_page=3")).collect::<Vec<_>>()
    );
    // After page 1, pages 2..=5 are asked at once: at most 4 in flight, more than 1.
    let after_first: Vec<Instant> = seen.iter().skip(1).map(|(t, _)| *t).collect();
    let most_in_flight = after_first
        .iter()
        .map(|t| {
            after_first
                .iter()
                .filter(|u| **u <= *t && t.duration_since(**u) < Duration::from_millis(80))
                .count()
        })
        .max()
        .unwrap();
    assert!((2..=4).contains(&most_in_flight), "{most_in_flight} requests in flight");
}

#[tokio::test]
async fn caps_stop_the_stream() {
    let (server, seen) = serve("/v1/tasks", task_page, Duration::ZERO).await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    let five: Vec<_> = items(
        numbered(
            |p| encoder.list_tasks().page(p).per_page(3).send(),
            1,
            Limits::default(),
        ),
        Limits::default().max_items(5),
    )
    .try_collect()
    .await
    .unwrap();
    assert_eq!(five.len(), 5);
    let two_pages: Vec<_> = numbered(
        |p| encoder.list_tasks().page(p).per_page(3).send(),
        1,
        Limits::default().max_pages(2),
    )
    .try_collect()
    .await
    .unwrap();
    assert_eq!(two_pages.len(), 2);
    assert!(
        seen.lock().unwrap().len() <= 2 + 3,
        "sequential prefetch of 1 asks little beyond the cap"
    );
}

#[tokio::test]
async fn truncated_pages_stop_at_the_first_complete_page() {
    fn contents(request: &Request, _: u64) -> Value {
        let page = query(request, "page").unwrap_or(1);
        json!({"data": [{"name": format!("c{page}")}], "truncated": page < 3, "current_page": page, "per_page": 1})
    }
    let (server, seen) = serve("/v1/contents", contents, Duration::ZERO).await;
    let client = client(&server);
    let vms = client.vms().unwrap();
    let names: Vec<_> = items(
        truncated(|p| vms.list_contents().page(p).per_page(1).send(), Limits::default()),
        Limits::default(),
    )
    .map_ok(|c| c.name.unwrap())
    .try_collect()
    .await
    .unwrap();
    assert_eq!(names, ["c1", "c2", "c3"]);
    let asked: Vec<String> = seen.lock().unwrap().iter().map(|(_, q)| q.clone()).collect();
    assert_eq!(asked, ["page=1&per_page=1", "page=2&per_page=1", "page=3&per_page=1"]);
}

#[tokio::test]
async fn analytics_rank_windows_and_offset_limit() {
    fn basic(request: &Request, _: u64) -> Value {
        let start = query(request, "start_with").unwrap();
        json!({"data": [{"os": format!("rank{start}")}], "truncated": start < 201, "golden": true, "unsampled": true})
    }
    let (server, seen) = serve("/v1/os/data", basic, Duration::ZERO).await;
    let client = client(&server);
    let analytics = client.analytics().unwrap();
    let pages: Vec<_> = rank_windows(
        NonZeroU64::new(100).unwrap(),
        |start, end| analytics.basic_by_os().start_with(start).end_with(end).send(),
        Limits::default(),
    )
    .try_collect()
    .await
    .unwrap();
    assert_eq!(pages.len(), 3);
    let asked: Vec<String> = seen.lock().unwrap().iter().map(|(_, q)| q.clone()).collect();
    assert_eq!(
        asked,
        [
            "end_with=100&start_with=1",
            "end_with=200&start_with=101",
            "end_with=300&start_with=201"
        ]
    );

    fn cloud(request: &Request, _: u64) -> Value {
        let offset = query(request, "offset").unwrap();
        json!({"data": [{"os_name": format!("row{offset}")}], "truncated": offset < 100})
    }
    let (server, seen) = serve("/v2/os/data", cloud, Duration::ZERO).await;
    let client = self::client(&server);
    let analytics = client.analytics().unwrap();
    let rows: Vec<_> = items(
        offset_limit(
            NonZeroU64::new(50).unwrap(),
            |offset, limit| analytics.cloud_by_os().offset(offset).limit(limit).send(),
            Limits::default(),
        ),
        Limits::default(),
    )
    .map_ok(|row| row.os_name.unwrap())
    .try_collect()
    .await
    .unwrap();
    assert_eq!(rows, ["row0", "row50", "row100"]);
    let asked: Vec<String> = seen.lock().unwrap().iter().map(|(_, q)| q.clone()).collect();
    assert_eq!(
        asked,
        ["limit=50&offset=0", "limit=50&offset=50", "limit=50&offset=100"]
    );
}
