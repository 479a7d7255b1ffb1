//! Waiters against a local server that plays a task's life, one status a poll.

use futures::TryStreamExt;
use serde_json::json;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use vidplat::encoder::types::TaskStatus;
use vidplat::waiters::{import_tasks_finished, WaitOptions};
use vidplat::{Client, Error};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Answers the n-th poll with the n-th body (the last one repeats).
struct Script {
    bodies: Vec<serde_json::Value>,
    polls: Arc<AtomicUsize>,
}

impl Respond for Script {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.polls.fetch_add(1, Ordering::SeqCst);
        ResponseTemplate::new(200).set_body_json(self.bodies[n.min(self.bodies.len() - 1)].clone())
    }
}

async fn play(route: &str, bodies: Vec<serde_json::Value>) -> (Client, Arc<AtomicUsize>, MockServer) {
    let server = MockServer::start().await;
    let polls = Arc::new(AtomicUsize::new(0));
    Mock::given(wiremock::matchers::path(route))
        .respond_with(Script {
            bodies,
            polls: polls.clone(),
        })
        .mount(&server)
        .await;
    let client = Client::builder()
        .encoder_url(server.uri())
        .api_key("k")
        .build()
        .unwrap();
    (client, polls, server)
}

fn task(status: &str, error_code: i64) -> serde_json::Value {
    json!({"id": 9, "status": status, "error_code": error_code})
}

fn quick(max_wait: Duration) -> WaitOptions {
    WaitOptions {
        initial_interval: Duration::from_millis(5),
        max_interval: Duration::from_millis(20),
        max_wait,
    }
}

const NINE: NonZeroU64 = NonZeroU64::new(9).unwrap();

#[tokio::test]
async fn ready_gives_the_task_and_unknown_statuses_keep_polling() {
    let life = [
        "waiting",
        "waiting",
        "encoding",
        "paused_by_a_newer_server",
        "uploading",
        "uploading",
        "ready",
    ];
    let (client, polls, _server) = play("/v1/tasks/9", life.iter().map(|s| task(s, 0)).collect()).await;
    let task = client
        .wait_for_task(NINE, quick(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(task.status, Some(TaskStatus::Ready));
    assert_eq!(polls.load(Ordering::SeqCst), life.len());
}

#[tokio::test]
async fn the_status_stream_yields_each_change_once() {
    let life = ["waiting", "waiting", "encoding", "encoding", "uploading", "ready"];
    let (client, _, _server) = play("/v1/tasks/9", life.iter().map(|s| task(s, 0)).collect()).await;
    let changes: Vec<String> = client
        .task_status_changes(NINE, quick(Duration::from_secs(10)))
        .map_ok(|t| t.status.unwrap().to_string())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(changes, ["waiting", "encoding", "uploading", "ready"]);
}

#[tokio::test]
async fn failed_and_canceled_carry_the_error_code() {
    for (status, code) in [("failed", 4021), ("canceled", 0)] {
        let (client, _, _server) = play("/v1/tasks/9", vec![task("encoding", 0), task(status, code)]).await;
        match client.wait_for_task(NINE, quick(Duration::from_secs(10))).await {
            Err(Error::TaskEnded {
                task_id: 9,
                status: s,
                error_code: Some(c),
            }) => assert_eq!((s.as_str(), c), (status, code)),
            other => panic!("{status}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn the_maximum_wait_is_honoured() {
    let (client, polls, _server) = play("/v1/tasks/9", vec![task("encoding", 0)]).await;
    let started = std::time::Instant::now();
    let error = client
        .wait_for_task(NINE, quick(Duration::from_millis(200)))
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::WaitTimedOut { last_status: Some(ref s), .. } if s == "encoding"),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(polls.load(Ordering::SeqCst) >= 5, "kept polling until the limit");
}

#[tokio::test]
async fn a_csv_import_job_is_waited_for_until_its_tasks_finish() {
    let job = |waiting: u64, encoding: u64, ready: u64| json!({"id": 3, "name": "batch", "import_status": {}, "task_status": {"waiting": waiting, "encoding": encoding, "uploading": 0, "canceling": 0, "ready": ready}});
    let (client, polls, _server) = play("/v1/task-imports/3", vec![job(2, 1, 0), job(0, 2, 1), job(0, 0, 3)]).await;
    let id = NonZeroU64::new(3).unwrap();
    let done = client
        .wait_for_task_import(id, quick(Duration::from_secs(10)), import_tasks_finished)
        .await
        .unwrap();
    assert_eq!(done.id, Some(3));
    assert_eq!(polls.load(Ordering::SeqCst), 3);
}
