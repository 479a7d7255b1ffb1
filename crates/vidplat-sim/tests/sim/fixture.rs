//! The simulator as a test fixture: faults per operation (late, run late,
//! or a connection broken after the head), one clock for the three services,
//! the journal of requests received, and the named scenarios.

use serde_json::json;
use std::time::{Duration, Instant};
use vidplat::encoder::types::{PresetCreate, ProfileCreate, TaskCreate, TaskStatus};
use vidplat::{Call, Client, Error, RetryPolicy};
use vidplat_sim::{Fault, FaultOutcome, Received, Scenario, SimConfig, Simulator};

async fn start(config: SimConfig) -> (Simulator, Client) {
    let sim = Simulator::start_with(config).await.expect("the simulator starts");
    sim.add_input_file("in.mp4", 1_048_576);
    let client = sim
        .client()
        .analytics_quota(None)
        .build()
        .expect("a client for the simulator");
    (sim, client)
}

/// A profile of one preset, for registering tasks.
async fn profile(client: &Client) -> i64 {
    let encoder = client.encoder().expect("encoder");
    let preset: PresetCreate = serde_json::from_value(json!({
        "name": "p", "destination": "https://upload.example.com/out", "format": "MP4",
        "output_filename": "%INPUT_FILENAME%",
    }))
    .expect("a preset");
    let preset = encoder.register_preset().body(preset).call().await.expect("a preset");
    let profile: ProfileCreate =
        serde_json::from_value(json!({"name": "q", "presets": [preset.id]})).expect("a profile");
    let profile = encoder
        .register_profile()
        .body(profile)
        .call()
        .await
        .expect("a profile");
    profile.id.expect("an id")
}

async fn register(client: &Client, profile_id: i64) -> Result<u64, Error> {
    let task: TaskCreate =
        serde_json::from_value(json!({"input_filepath": "in.mp4", "profile_id": profile_id})).expect("a task");
    let registration = client.encoder()?.register_task().body(task).call().await?;
    Ok(registration.tasks[0].id.expect("an id") as u64)
}

async fn task(client: &Client, task_id: u64) -> vidplat::encoder::types::Task {
    let task = client
        .encoder()
        .expect("encoder")
        .get_task()
        .task_id(task_id)
        .call()
        .await;
    task.expect("the task")
}

/// (operation, status) of each journal entry of the encoding service.
fn encoder_calls(journal: &[Received]) -> Vec<(&str, u16)> {
    journal
        .iter()
        .filter(|r| r.service == Some("encoder"))
        .map(|r| (r.operation.unwrap_or("?"), r.status))
        .collect()
}

#[tokio::test]
async fn a_fault_on_an_operation_breaks_the_connection_after_the_head_and_is_not_retried() {
    let (sim, client) = start(SimConfig::fast()).await;
    let profile_id = profile(&client).await;
    sim.inject_fault(Fault {
        outcome: FaultOutcome::Reset,
        ..Fault::operation("register_task")
    })
    .expect("a usable fault");
    sim.clear_journal();

    let error = register(&client, profile_id).await.expect_err("the connection breaks");
    // The head arrived, the body did not: a registration must not be sent again.
    assert!(matches!(&error, Error::Transport(_) | Error::Api(_)), "{error:?}");
    assert!(!error.is_retryable(), "{error:?}");
    assert_eq!(encoder_calls(&sim.journal()), [("register_task", 500)]);
    // It never ran: the next one gets the first task id.
    assert_eq!(register(&client, profile_id).await.expect("registers"), 1);

    // Over plain HTTP: the status and headers, then the body breaks.
    sim.inject_fault(Fault {
        outcome: FaultOutcome::Reset,
        status: 503,
        ..Fault::operation("get_task_counts")
    })
    .expect("a usable fault");
    let url = format!("{}/v1/counts", sim.encoder_url);
    let response = crate::raw_http()
        .get(url)
        .bearer_auth(&sim.api_key)
        .send()
        .await
        .expect("the head");
    assert_eq!(response.status(), 503);
    assert!(response.bytes().await.is_err(), "the body breaks");
}

#[tokio::test]
async fn a_delayed_fault_answers_late_or_runs_late_and_then_is_gone() {
    let (sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().expect("encoder");
    // A delay long enough that one call on the loopback, however loaded the
    // machine, stays far under it once the fault is used up.
    let delay_ms = 1_000;
    let delay = Duration::from_millis(delay_ms);
    sim.inject_fault(Fault {
        delay_ms,
        outcome: FaultOutcome::Run,
        ..Fault::operation("get_task_counts")
    })
    .expect("a usable fault");
    let started = Instant::now();
    encoder.get_task_counts().call().await.expect("counts, late");
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    let started = Instant::now();
    encoder.get_task_counts().call().await.expect("counts");
    assert!(started.elapsed() < delay, "used up: {:?}", started.elapsed());

    // Late and refused: 404 is not retried, so exactly one answer, after the delay.
    sim.inject_fault(Fault {
        delay_ms: 200,
        status: 404,
        code: "MODEL_NOT_FOUND".into(),
        ..Fault::operation("list_presets")
    })
    .expect("a usable fault");
    let started = Instant::now();
    let error = encoder.list_presets().call().await.expect_err("the fault");
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!((error.status(), error.code()), (Some(404), Some("MODEL_NOT_FOUND")));
}

#[tokio::test]
async fn one_clock_moves_tasks_the_analytics_month_and_timestamps() {
    let (sim, client) = start(SimConfig::default().with_scenario(Scenario::MonthQuotaSpent)).await;
    // The month is checked before the clock moves: an hour ahead can already
    // be the next month in Japan time (from 15:00 UTC on a month's last day).
    let analytics = client.analytics().expect("analytics");
    let no_retry = sim
        .client()
        .analytics_quota(None)
        .retry(RetryPolicy::never())
        .build()
        .expect("a client");
    let spent = no_retry
        .analytics()
        .expect("analytics")
        .cloud_by_region()
        .call()
        .await
        .expect_err("the month is spent");
    assert_eq!(spent.status(), Some(429), "{spent:?}");

    // At the default pace (0.8 s a state) a task takes seconds; the clock moves it at once.
    let profile_id = profile(&client).await;
    let first = task(&client, register(&client, profile_id).await.expect("registers")).await;
    assert_eq!(first.status, Some(TaskStatus::Waiting));
    sim.advance_clock(Duration::from_secs(3_600));
    let first = task(&client, first.id.expect("an id") as u64).await;
    assert_eq!(first.status, Some(TaskStatus::Ready));
    let second = task(&client, register(&client, profile_id).await.expect("registers")).await;
    let created =
        |task: &vidplat::encoder::types::Task| task.created_at.as_ref().and_then(|t| t.value()).expect("a time");
    assert!(
        created(&second) - created(&first) >= chrono::TimeDelta::seconds(3_600),
        "{:?} then {:?}",
        first.created_at,
        second.created_at
    );

    sim.advance_clock(Duration::from_secs(32 * 86_400));
    analytics.cloud_by_region().call().await.expect("a new month");
}

#[tokio::test]
async fn the_journal_names_each_operation_with_its_status_and_never_the_key() {
    let (sim, client) = start(SimConfig::fast()).await;
    let profile_id = profile(&client).await;
    sim.clear_journal();
    sim.inject_fault(Fault::operation("get_task")).expect("a usable fault");
    let encoder = client.encoder().expect("encoder");
    let task_id = register(&client, profile_id).await.expect("registers");
    let _ = encoder.get_task().task_id(task_id).call().await;
    encoder.list_tasks().per_page(5).call().await.expect("a list");
    let _ = client
        .vms()
        .expect("vms")
        .get_content()
        .content_name("nothing-here")
        .call()
        .await;

    let journal = sim.journal();
    fn line(r: &Received) -> (Option<&str>, Option<&str>, &str, &str, Option<&str>, u16) {
        (
            r.service,
            r.operation,
            r.method.as_str(),
            r.path.as_str(),
            r.query.as_deref(),
            r.status,
        )
    }
    assert_eq!(
        journal.iter().map(line).collect::<Vec<_>>(),
        [
            (Some("encoder"), Some("register_task"), "POST", "/v1/tasks", None, 200),
            // The injected 500 (UNKNOWN_ERROR is not retried: the operation ran, or not).
            (Some("encoder"), Some("get_task"), "GET", "/v1/tasks/1", None, 500),
            (
                Some("encoder"),
                Some("list_tasks"),
                "GET",
                "/v1/tasks",
                Some("per_page=5"),
                200
            ),
            (
                Some("vms"),
                Some("get_content"),
                "GET",
                "/v1/contents/nothing-here",
                None,
                404
            ),
        ]
    );
    assert_eq!(
        journal[0].json(),
        // The typed body as sent, with the defaults the YAML gives.
        Some(json!({"input_filepath": "in.mp4", "priority": 50, "profile_id": profile_id, "upload_type": "internal"}))
    );
    let printed = format!("{journal:?}");
    assert!(!printed.contains(&sim.api_key), "{printed}");

    // Over HTTP, the same entries; DELETE empties it.
    let url = format!("http://{}/sim/journal", sim.address);
    let listed: serde_json::Value = crate::raw_http()
        .get(&url)
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(listed["data"][2]["query"], "per_page=5");
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(4));
    let status = crate::raw_http().delete(&url).send().await.expect("an answer").status();
    assert_eq!(status, 204);
    assert_eq!(sim.journal(), []);

    // A key sent anywhere else, and the values of `x-secret` members, are not kept either.
    let key = sim.api_key.clone();
    let page = json!({"content_name": "c", "configurations": {"title": "T"}, "password": "hunter2-hunter2"});
    crate::raw_http()
        .post(format!("{}/v1/instant-pages?api_key={key}", sim.vms_url))
        .header("x-api-key", &key)
        .json(&page)
        .send()
        .await
        .expect("an answer");
    let printed = serde_json::to_string(&sim.journal()).expect("JSON");
    assert!(!printed.contains(&key) && !printed.contains("hunter2"), "{printed}");
    let kept = &sim.journal()[0];
    assert_eq!(kept.query.as_deref(), Some("api_key=[redacted]"));
    assert_eq!(kept.headers, [("x-api-key".to_owned(), "[redacted]".to_owned())]);
    assert_eq!(kept.json().expect("JSON")["password"], "[redacted]");
}

#[tokio::test]
async fn named_scenarios_set_up_the_hard_cases() {
    // A task that fails, seen through the waiter.
    let (sim, client) = start(SimConfig::fast().with_scenario(Scenario::FailingTasks)).await;
    let task_id = register(&client, profile(&client).await).await.expect("registers");
    let ended = client
        .wait_for_task(task_id)
        .polling(vidplat::waiters::Polling {
            initial_interval: Duration::from_millis(5),
            max_interval: Duration::from_millis(20),
            max_wait: Duration::from_secs(5),
            jitter: 0.2,
        })
        .await;
    assert!(
        matches!(&ended, Err(Error::TaskEnded(task)) if task.status == Some(TaskStatus::Failed)),
        "{ended:?}"
    );
    drop(sim);

    // A full queue: 403 OVER_SERVICE_LIMIT.
    let (_sim, client) = start(SimConfig::fast().with_scenario(Scenario::FullTaskQueue)).await;
    let full = register(&client, profile(&client).await)
        .await
        .expect_err("the queue is full");
    assert_eq!((full.status(), full.code()), (Some(403), Some("OVER_SERVICE_LIMIT")));

    // Every query too slow, however short.
    let (_sim, client) = start(SimConfig::fast().with_scenario(Scenario::SlowQueries)).await;
    let slow = client
        .analytics()
        .expect("analytics")
        .cloud_by_region()
        .call()
        .await
        .expect_err("too slow");
    assert!(matches!(slow, Error::QueryTooSlow { .. }), "{slow:?}");

    // The names the binary takes.
    assert_eq!("month-quota-spent".parse(), Ok(Scenario::MonthQuotaSpent));
    let unknown = "month".parse::<Scenario>().expect_err("no such scenario");
    assert!(
        unknown.starts_with("no scenario `month` (known: month-quota-spent, "),
        "{unknown}"
    );
}
