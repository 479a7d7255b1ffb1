//! Waiters against the test kit's mock (the client's real pipeline, paused
//! time), one status a poll; and against a local server, several tasks at once.

use futures::TryStreamExt;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use vidplat::encoder::types::{Task, TaskImport, TaskStatus};
use vidplat::waiters::Polling;
use vidplat::{Client, Error};
use vidplat_test::{encoder, Fixture, Mock, Rule};
use wiremock::{MockServer, Request, Respond, ResponseTemplate};

/// Task 9's polls answered with `life`, one status a poll (the last one repeats).
fn play(life: &[Task]) -> (Client, Rule<encoder::GetTask>, Mock) {
    let mock = Mock::new();
    let (last, before) = life.split_last().expect("a life has a last status");
    let mut rule = mock.on(encoder::GetTask).when(|sent| sent.params.task_id.get() == 9);
    for task in before {
        rule = rule.respond(task.clone()).then();
    }
    let rule = rule.respond(last.clone()).always();
    (mock.client(), rule, mock)
}

fn task(status: &str, error_code: i64) -> Task {
    Task {
        id: Some(9),
        status: Some(status.into()),
        error_code: Some(error_code),
        ..Task::fixture()
    }
}

fn quick(max_wait: Duration) -> Polling {
    Polling {
        initial_interval: Duration::from_millis(5),
        max_interval: Duration::from_millis(20),
        max_wait,
        jitter: 0.2,
    }
}

/// The id as a response carries it.
const NINE: Option<i64> = Some(9);

#[tokio::test(start_paused = true)]
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
    let (client, polls, _mock) = play(&life.map(|s| task(s, 0)));
    let task = client
        .wait_for_task(NINE)
        .polling(quick(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(task.status, Some(TaskStatus::Ready));
    assert_eq!(polls.calls() as usize, life.len());
}

#[tokio::test(start_paused = true)]
async fn the_status_stream_yields_each_change_once() {
    let life = ["waiting", "waiting", "encoding", "encoding", "uploading", "ready"];
    let (client, _, _mock) = play(&life.map(|s| task(s, 0)));
    let changes: Vec<String> = client
        .wait_for_task(NINE)
        .polling(quick(Duration::from_secs(10)))
        .status_changes()
        .map_ok(|t| t.status.unwrap().to_string())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(changes, ["waiting", "encoding", "uploading", "ready"]);
}

#[tokio::test(start_paused = true)]
async fn failed_and_canceled_carry_the_error_code() {
    for (status, code) in [("failed", 4021), ("canceled", 0)] {
        let (client, _, _mock) = play(&[task("encoding", 0), task(status, code)]);
        match client.wait_for_task(NINE).polling(quick(Duration::from_secs(10))).await {
            Err(Error::TaskEnded(task)) => {
                assert_eq!(
                    (task.id, task.status.unwrap().to_string(), task.error_code),
                    (Some(9), status.to_owned(), Some(code))
                )
            }
            other => panic!("{status}: {other:?}"),
        }
        // The final task, whatever the end: no error.
        let (client, _, _mock) = play(&[task("encoding", 0), task(status, code)]);
        let last = client
            .wait_for_task(NINE)
            .polling(quick(Duration::from_secs(10)))
            .final_task()
            .await
            .unwrap();
        assert_eq!(
            (last.status.unwrap().to_string(), last.error_code),
            (status.to_owned(), Some(code))
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_id_a_response_lacks_is_refused_before_any_poll() {
    let (client, polls, _mock) = play(&[task("ready", 0)]);
    match client.wait_for_task(None::<i64>).await {
        Err(error @ Error::InvalidInput(_)) => {
            assert_eq!(
                vidplat_tests::only_refusal(&error).map(|(field, _)| field),
                Some("task_id")
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(polls.calls(), 0);
}

/// Tasks 1..=6 each end after their id's number of polls; odd ones fail.
/// Each answer takes 20 ms; every poll's arrival is recorded.
struct Tasks {
    polls: Arc<Vec<AtomicUsize>>,
    arrivals: Arc<std::sync::Mutex<Vec<std::time::Instant>>>,
}

const ANSWER_TIME: Duration = Duration::from_millis(20);

impl Respond for Tasks {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        self.arrivals.lock().unwrap().push(std::time::Instant::now());
        let id: usize = request.url.path().rsplit('/').next().unwrap().parse().unwrap();
        let n = self.polls[id].fetch_add(1, Ordering::SeqCst) + 1;
        let status = match (n >= id, id % 2) {
            (false, _) => "encoding",
            (true, 0) => "ready",
            (true, _) => "failed",
        };
        ResponseTemplate::new(200)
            .set_delay(ANSWER_TIME)
            .set_body_json(json!({"id": id, "status": status}))
    }
}

#[tokio::test]
async fn many_tasks_are_awaited_with_bounded_concurrency_in_the_order_given() {
    let server = MockServer::start().await;
    let arrivals = Arc::new(std::sync::Mutex::new(Vec::new()));
    wiremock::Mock::given(wiremock::matchers::path_regex("^/v1/tasks/[0-9]+$"))
        .respond_with(Tasks {
            polls: Arc::new((0..=6).map(|_| AtomicUsize::new(0)).collect()),
            arrivals: arrivals.clone(),
        })
        .mount(&server)
        .await;
    let client = vidplat_tests::local_client(&server.uri()).build().unwrap();
    let ids: Vec<Option<i64>> = (1..=6).map(Some).collect();
    let finals = client
        .wait_for_tasks(ids)
        .concurrency(2)
        .polling(quick(Duration::from_secs(10)))
        .await;
    let ends: Vec<(i64, String)> = finals
        .into_iter()
        .map(|t| t.map(|t| (t.id.unwrap(), t.status.unwrap().to_string())).unwrap())
        .collect();
    assert_eq!(
        ends,
        [
            (1, "failed"),
            (2, "ready"),
            (3, "failed"),
            (4, "ready"),
            (5, "failed"),
            (6, "ready")
        ]
        .map(|(id, s)| (id, s.to_owned()))
    );
    let arrivals = arrivals.lock().unwrap();
    let most_in_flight = arrivals
        .iter()
        .map(|t| {
            arrivals
                .iter()
                .filter(|u| *u <= t && t.duration_since(**u) < ANSWER_TIME)
                .count()
        })
        .max()
        .unwrap();
    assert_eq!(most_in_flight, 2, "2 tasks polled at once, never more");
}

#[tokio::test(start_paused = true)]
async fn the_maximum_wait_is_honoured() {
    let (client, polls, _mock) = play(&[task("encoding", 0)]);
    let started = tokio::time::Instant::now();
    let error = client
        .wait_for_task(NINE)
        .polling(quick(Duration::from_millis(200)))
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::WaitTimedOut { last_status: Some(ref s), .. } if s == "encoding"),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(polls.calls() >= 5, "kept polling until the limit");
}

#[tokio::test(start_paused = true)]
async fn a_csv_import_job_is_waited_for_until_its_tasks_finish() {
    let job = |waiting: u64, encoding: u64, ready: u64| -> TaskImport {
        serde_json::from_value(json!({"id": 3, "name": "batch", "import_status": {}, "task_status": {"waiting": waiting, "encoding": encoding, "uploading": 0, "canceling": 0, "ready": ready}})).unwrap()
    };
    let mock = Mock::new();
    let polls = mock
        .on(encoder::GetTaskImport)
        .when(|sent| sent.params.task_import_id.get() == 3)
        .respond(job(2, 1, 0))
        .then()
        .respond(job(0, 2, 1))
        .then()
        .respond(job(0, 0, 3))
        .always();
    let done = mock
        .client()
        .wait_for_task_import(3)
        .polling(quick(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(done.id, Some(3));
    assert_eq!(polls.calls(), 3);
    mock.verify();
}

/// A client without the encoding service's URL: each waiter ends with that
/// configuration error, having sent nothing.
#[tokio::test(start_paused = true)]
async fn a_waiter_without_the_encoding_service_ends_with_its_configuration_error() {
    let mock = Mock::new();
    let client = vidplat::Client::builder()
        .vms_url(vidplat_test::VMS_URL)
        .api_key("key")
        .transport(mock.transport())
        .build()
        .unwrap();
    let missing = |error: Error| matches!(error, Error::Config(vidplat::ConfigError::MissingBaseUrl { .. }));
    assert!(missing(client.wait_for_task(9).await.unwrap_err()));
    assert!(missing(client.wait_for_task_import(3).await.unwrap_err()));
    assert!(mock.received().is_empty());
}
