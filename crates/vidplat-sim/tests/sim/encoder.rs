//! The simulated encoding service, driven through the `vidplat` facade over
//! real HTTP: every documented behaviour with exact statuses, codes, counts
//! and orders.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::num::NonZeroU64;
use std::time::{Duration, Instant};
use vidplat::encoder::types::{
    NotificationSettingsUpdate, PresetCreate, PresetUpdate, ProfileCreate, ProfileUpdate, Task, TaskCreate,
    TaskRegistration,
};
use vidplat::waiters::Polling;
use vidplat::{Call, Client, Error};
use vidplat_sim::{Permission, SimConfig, Simulator, Updates};

// Helpers.

/// The input files the tests register tasks with (besides the seeded ones).
const TEST_INPUTS: [&str; 15] = [
    "first.mp4",
    "low.mp4",
    "high.mp4",
    "high-later.mp4",
    "a.mp4",
    "b.mp4",
    "c.mp4",
    "ok.mp4",
    "stop.mp4",
    "one.mp4",
    "two.mp4",
    "three.mp4",
    "w1.mp4",
    "w2.mp4",
    "sample/intro, take 2.mp4",
];

async fn start(config: SimConfig) -> (Simulator, Client) {
    let sim = Simulator::start_with(config).await.expect("the simulator starts");
    for input in TEST_INPUTS {
        sim.add_input_file(input, 1_048_576);
    }
    let client = sim.client().build().expect("a client for the simulator");
    (sim, client)
}

/// `SimConfig::fast()` with a slower step, for tests that look at intermediate states.
fn stepping(millis: u64) -> SimConfig {
    SimConfig {
        task_step: Duration::from_millis(millis),
        ..SimConfig::fast()
    }
}

fn body<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid request body")
}

/// `base` with the members of `extra` added or replaced.
fn with(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}

fn id(value: u64) -> NonZeroU64 {
    NonZeroU64::new(value).expect("ids start at 1")
}

/// The status and code of a refused call.
fn refusal<T: std::fmt::Debug>(result: Result<T, Error>) -> (u16, String) {
    let error = result.expect_err("the call is refused");
    (
        error.status().unwrap_or_default(),
        error.code().unwrap_or_default().to_owned(),
    )
}

/// Registers an MP4 preset uploading to a URL, with `extra` members; returns its id.
async fn preset(client: &Client, name: &str, extra: Value) -> u64 {
    let request = with(
        json!({
            "name": name,
            "destination": "https://upload.example.com/out",
            "format": "MP4",
            "output_filename": "%INPUT_FILENAME%",
        }),
        extra,
    );
    let created = client
        .encoder()
        .expect("encoder")
        .register_preset()
        .body(body::<PresetCreate>(request))
        .call()
        .await
        .expect("the preset registers");
    created.id.expect("an id") as u64
}

async fn profile(client: &Client, name: &str, presets: &[u64], extra: Value) -> u64 {
    let request = with(json!({"name": name, "presets": presets}), extra);
    let created = client
        .encoder()
        .expect("encoder")
        .register_profile()
        .body(body::<ProfileCreate>(request))
        .call()
        .await
        .expect("the profile registers");
    created.id.expect("an id") as u64
}

async fn try_register(client: &Client, input: &str, profile_id: u64, extra: Value) -> Result<TaskRegistration, Error> {
    let request = with(json!({"input_filepath": input, "profile_id": profile_id}), extra);
    client
        .encoder()?
        .register_task()
        .body(body::<TaskCreate>(request))
        .call()
        .await
}

async fn register(client: &Client, input: &str, profile_id: u64, extra: Value) -> TaskRegistration {
    try_register(client, input, profile_id, extra)
        .await
        .expect("the task registers")
}

/// The one task of a registration, by id.
async fn register_one(client: &Client, input: &str, profile_id: u64, extra: Value) -> u64 {
    let registration = register(client, input, profile_id, extra).await;
    assert_eq!(registration.tasks.len(), 1);
    registration.tasks[0].id.expect("an id") as u64
}

/// The operation `id` of the encoder's YAML sent raw, its path parameters
/// filled in order, with `query` and `body`: the status and the JSON body
/// (`null` when there is none).
async fn answer_raw(sim: &Simulator, id: &str, parameters: &[&str], query: &str, body: Option<Value>) -> (u16, Value) {
    let meta = vidplat::encoder::operations::ALL
        .iter()
        .find(|meta| meta.id == id)
        .expect("an operation");
    let mut path = meta.path.to_owned();
    for parameter in parameters {
        let open = path.find('{').expect("a path parameter");
        let close = open + path[open..].find('}').expect("its end");
        path.replace_range(open..=close, parameter);
    }
    let mut request = crate::raw_http()
        .request(meta.method.to_reqwest(), format!("{}{path}?{query}", sim.encoder_url))
        .bearer_auth(&sim.api_key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.expect("an answer");
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

/// The documented error body.
fn error_body(code: &str, message: &str) -> Value {
    json!({"code": code, "message": message})
}

async fn get_task(client: &Client, task_id: u64) -> Result<Task, Error> {
    client.encoder()?.get_task().task_id(id(task_id)).call().await
}

async fn status_of(client: &Client, task_id: u64) -> String {
    let task = get_task(client, task_id).await.expect("the task exists");
    task.status.expect("a status").to_string()
}

async fn cancel_or_delete(client: &Client, task_id: u64) -> Result<(), Error> {
    client
        .encoder()?
        .cancel_or_delete_task()
        .task_id(id(task_id))
        .call()
        .await
}

/// Every task's status in one response, in id order.
async fn snapshot(client: &Client) -> Vec<(u64, String)> {
    let page = client
        .encoder()
        .expect("encoder")
        .list_tasks()
        .per_page(id(100))
        .sort("id|asc")
        .call()
        .await
        .expect("the list");
    page.data
        .iter()
        .map(|task| {
            let status = task.status.as_ref().map(ToString::to_string).unwrap_or_default();
            (task.id.unwrap_or_default() as u64, status)
        })
        .collect()
}

fn status_in(snapshot: &[(u64, String)], task_id: u64) -> &str {
    snapshot
        .iter()
        .find(|(id, _)| *id == task_id)
        .map(|(_, status)| status.as_str())
        .unwrap_or("absent")
}

/// Polls the task list until `done` holds (at most 5 s) and returns that snapshot.
async fn wait_for(client: &Client, what: &str, done: impl Fn(&[(u64, String)]) -> bool) -> Vec<(u64, String)> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let tasks = snapshot(client).await;
        if done(&tasks) {
            return tasks;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; last {tasks:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn wait_for_status(client: &Client, task_id: u64, status: &str) {
    wait_for(client, &format!("task {task_id} {status}"), |tasks| {
        status_in(tasks, task_id) == status
    })
    .await;
}

fn quick_polls() -> Polling {
    Polling {
        initial_interval: Duration::from_millis(5),
        max_interval: Duration::from_millis(20),
        max_wait: Duration::from_secs(5),
        jitter: 0.2,
    }
}

async fn counts(client: &Client) -> [i64; 7] {
    let counts = client
        .encoder()
        .expect("encoder")
        .get_task_counts()
        .call()
        .await
        .expect("the counts");
    [
        counts.waiting,
        counts.encoding,
        counts.uploading,
        counts.ready,
        counts.canceling,
        counts.canceled,
        counts.failed,
    ]
    .map(|count| count.expect("every status is counted"))
}

async fn import_csv(client: &Client, csv: &str) -> Result<vidplat::encoder::types::TaskImport, Error> {
    client.encoder()?.import_tasks_csv().body(csv.to_owned()).call().await
}

// Task lifecycle and the encoding queue.

#[tokio::test]
async fn a_task_moves_from_waiting_through_encoding_and_uploading_to_ready() {
    let (_sim, client) = start(stepping(150)).await;
    let mp4 = preset(&client, "mp4", json!({})).await;
    let hls = preset(&client, "hls", json!({"format": "HLS", "hls_config": {}})).await;
    let both = profile(&client, "both", &[mp4, hls], json!({})).await;

    let registration = register(&client, "movie.mp4", both, json!({})).await;
    assert_eq!(
        (registration.success_count, registration.failure_count),
        (Some(2), Some(0))
    );
    assert_eq!(registration.tasks.len(), 2);
    let transaction = registration.transaction.expect("a transaction");
    for (task, (preset_name, format)) in registration.tasks.iter().zip([("mp4", "MP4"), ("hls", "HLS")]) {
        assert_eq!(task.transaction, Some(transaction));
        assert_eq!(
            task.status.as_ref().map(ToString::to_string).as_deref(),
            Some("waiting")
        );
        assert_eq!(task.error_code, Some(0));
        assert_eq!(task.input_filename.as_deref(), Some("movie.mp4"));
        assert_eq!(task.output_filename.as_deref(), Some("movie"));
        assert_eq!(task.profile_name.as_deref(), Some("both"));
        assert_eq!(task.preset_name.as_deref(), Some(preset_name));
        assert_eq!(task.format.as_ref().map(ToString::to_string).as_deref(), Some(format));
        assert!(task.created_at.is_some() && task.encode_start.is_none());
    }

    let first = registration.tasks[0].id.expect("an id") as u64;
    let mut seen: Vec<String> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while seen.last().map(String::as_str) != Some("ready") {
        assert!(Instant::now() < deadline, "still not ready; saw {seen:?}");
        let status = status_of(&client, first).await;
        if seen.last() != Some(&status) {
            seen.push(status);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen, ["waiting", "encoding", "uploading", "ready"]);
    let ready = get_task(&client, first).await.expect("the task");
    assert!(ready.encode_start.is_some() && ready.encode_end.is_some());
    assert!(ready.encode_start <= ready.encode_end);
}

#[tokio::test]
async fn an_input_designed_to_fail_ends_failed_with_an_error_code() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let task_id = register_one(&client, "fail.mp4", profile_id, json!({})).await;

    match client.wait_for_task(task_id).polling(quick_polls()).await {
        Err(Error::TaskEnded(task)) => {
            assert_eq!(task.status, Some(vidplat::encoder::types::TaskStatus::Failed));
            assert_eq!(task.error_code, Some(1001));
        }
        other => panic!("expected the task to end failed, got {other:?}"),
    }
    assert_eq!(counts(&client).await, [0, 0, 0, 0, 0, 0, 1]);
}

/// "Higher priority starts encoding first, equal priority starts in
/// registration order": whenever the encoder takes a task, it takes the
/// highest-priority waiting one, however late it was registered.
#[tokio::test]
async fn one_task_encodes_at_a_time_and_higher_priority_always_starts_first() {
    let (_sim, client) = start(stepping(250)).await;
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let first = register_one(&client, "first.mp4", profile_id, json!({})).await; // default priority 50
    let low = register_one(&client, "low.mp4", profile_id, json!({"priority": 10})).await;
    let high = register_one(&client, "high.mp4", profile_id, json!({"priority": 90})).await;
    let high_later = register_one(&client, "high-later.mp4", profile_id, json!({"priority": 90})).await;

    let one_at_a_time = |tasks: &[(u64, String)]| {
        assert!(
            tasks.iter().filter(|(_, status)| status == "encoding").count() <= 1,
            "{tasks:?}"
        );
    };
    // Registered last but one, the high-priority task is the first to encode.
    let tasks = wait_for(&client, "a task encoding", |tasks| {
        one_at_a_time(tasks);
        tasks.iter().any(|(_, status)| status == "encoding")
    })
    .await;
    assert_eq!(
        [first, low, high, high_later].map(|task| status_in(&tasks, task).to_owned()),
        ["waiting", "waiting", "encoding", "waiting"]
    );
    // The encoder takes the next task the moment the previous one moves to uploading.
    let tasks = wait_for(&client, "the high-priority task uploading", |tasks| {
        one_at_a_time(tasks);
        status_in(tasks, high) == "uploading"
    })
    .await;
    assert_eq!(
        [first, low, high_later].map(|task| status_in(&tasks, task).to_owned()),
        ["waiting", "waiting", "encoding"]
    );
    let tasks = wait_for(&client, "the second high-priority task uploading", |tasks| {
        one_at_a_time(tasks);
        status_in(tasks, high_later) == "uploading"
    })
    .await;
    assert_eq!(
        [first, low].map(|task| status_in(&tasks, task).to_owned()),
        ["encoding", "waiting"]
    );
}

// Cancel and delete.

#[tokio::test]
async fn cancel_or_delete_follows_the_documents_table() {
    let (_sim, client) = start(stepping(250)).await;
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let encoded = register_one(&client, "a.mp4", profile_id, json!({})).await;
    let waiting = register_one(&client, "b.mp4", profile_id, json!({})).await;

    // waiting → canceling → canceled after a step
    cancel_or_delete(&client, waiting)
        .await
        .expect("a waiting task is cancelled");
    assert_eq!(status_of(&client, waiting).await, "canceling");

    // encoding → canceling; canceling → 403, unchanged
    wait_for_status(&client, encoded, "encoding").await;
    cancel_or_delete(&client, encoded)
        .await
        .expect("an encoding task is cancelled");
    assert_eq!(status_of(&client, encoded).await, "canceling");
    // The document gives the 403 but no code: not METHOD_NOT_ALLOWED (a method
    // that does not exist), but INVALID_REQUEST, and the message says so.
    let refused = cancel_or_delete(&client, encoded).await.expect_err("refused");
    assert_eq!((refused.status(), refused.code()), (Some(403), Some("INVALID_REQUEST")));
    assert!(refused.to_string().contains("names no code"), "{refused}");
    assert_eq!(status_of(&client, encoded).await, "canceling");

    // canceled → removed from the list
    wait_for_status(&client, encoded, "canceled").await;
    cancel_or_delete(&client, encoded)
        .await
        .expect("a canceled task is deleted");
    assert_eq!(
        refusal(get_task(&client, encoded).await),
        (404, "MODEL_NOT_FOUND".into())
    );

    // uploading → 403, unchanged; ready → removed
    let uploaded = register_one(&client, "c.mp4", profile_id, json!({})).await;
    let failing = register_one(&client, "fail.mp4", profile_id, json!({})).await;
    wait_for_status(&client, uploaded, "uploading").await;
    assert_eq!(
        refusal(cancel_or_delete(&client, uploaded).await),
        (403, "INVALID_REQUEST".into())
    );
    assert_eq!(status_of(&client, uploaded).await, "uploading");
    wait_for_status(&client, uploaded, "ready").await;
    cancel_or_delete(&client, uploaded)
        .await
        .expect("a ready task is deleted");
    assert_eq!(refusal(get_task(&client, uploaded).await).0, 404);

    // failed → removed
    wait_for_status(&client, failing, "failed").await;
    cancel_or_delete(&client, failing)
        .await
        .expect("a failed task is deleted");
    let left = snapshot(&client).await;
    assert_eq!(left, [(waiting, "canceled".to_owned())]);
}

#[tokio::test]
async fn delete_all_tasks_removes_only_ready_canceled_and_failed_ones() {
    let (_sim, client) = start(stepping(100)).await;
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let ready = register_one(&client, "ok.mp4", profile_id, json!({})).await;
    let failed = register_one(&client, "fail.mp4", profile_id, json!({})).await;
    let canceled = register_one(&client, "stop.mp4", profile_id, json!({})).await;
    cancel_or_delete(&client, canceled).await.expect("cancelled");
    wait_for(&client, "ready, failed and canceled", |tasks| {
        [(ready, "ready"), (failed, "failed"), (canceled, "canceled")]
            .iter()
            .all(|(task, status)| status_in(tasks, *task) == *status)
    })
    .await;
    let unfinished = [
        register_one(&client, "w1.mp4", profile_id, json!({})).await,
        register_one(&client, "w2.mp4", profile_id, json!({})).await,
    ];

    client
        .encoder()
        .unwrap()
        .delete_all_tasks()
        .call()
        .await
        .expect("delete all tasks");
    let left: Vec<u64> = snapshot(&client).await.iter().map(|(task, _)| *task).collect();
    assert_eq!(left, unfinished);
    let [_, _, _, ready_count, _, canceled_count, failed_count] = counts(&client).await;
    assert_eq!((ready_count, canceled_count, failed_count), (0, 0, 0));
}

// Limits and uniqueness.

#[tokio::test]
async fn registration_limits_answer_over_service_limit() {
    // Slow enough that the first tasks are still running while the limit is tested.
    let config = SimConfig {
        max_tasks: 2,
        max_presets: 2,
        max_profiles: 2,
        ..stepping(300)
    };
    let (_sim, client) = start(config).await;
    let encoder = client.encoder().unwrap();
    let a = preset(&client, "a", json!({})).await;
    let b = preset(&client, "b", json!({})).await;
    let third = json!({"name": "c", "destination": "vms5://", "format": "MP4", "output_filename": "x"});
    let refused = encoder
        .register_preset()
        .body(body::<PresetCreate>(third.clone()))
        .call()
        .await;
    assert_eq!(refusal(refused), (403, "OVER_SERVICE_LIMIT".into()));
    encoder.delete_preset().preset_id(id(b)).call().await.expect("deleted");
    let c = preset(&client, "c", json!({})).await;

    let single = profile(&client, "single", &[a], json!({})).await;
    let double = profile(&client, "double", &[a, c], json!({})).await;
    let refused = encoder
        .register_profile()
        .body(body::<ProfileCreate>(json!({"name": "more", "presets": [a]})))
        .call()
        .await;
    assert_eq!(refusal(refused), (403, "OVER_SERVICE_LIMIT".into()));

    // Two tasks at most until they are ready, canceled or failed.
    let first = register_one(&client, "one.mp4", single, json!({})).await;
    let refused = try_register(&client, "two.mp4", double, json!({})).await; // would make three
    assert_eq!(refusal(refused), (403, "OVER_SERVICE_LIMIT".into()));
    assert_eq!(snapshot(&client).await.len(), 1, "nothing was registered");
    let second = register_one(&client, "two.mp4", single, json!({})).await;
    assert_eq!(
        refusal(try_register(&client, "three.mp4", single, json!({})).await),
        (403, "OVER_SERVICE_LIMIT".into())
    );
    for task in [first, second] {
        client.wait_for_task(task).polling(quick_polls()).await.expect("ready");
    }
    assert_eq!(
        register(&client, "three.mp4", double, json!({})).await.success_count,
        Some(2)
    );

    // Deleting a profile frees one.
    encoder
        .delete_profile()
        .profile_id(id(double))
        .call()
        .await
        .expect("deleted");
    profile(&client, "more", &[a], json!({})).await;
}

#[tokio::test]
async fn duplicate_names_are_refused_on_registration_and_update() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let hd = preset(&client, "hd", json!({})).await;
    let sd = preset(&client, "sd", json!({})).await;
    let again = json!({"name": "hd", "destination": "vms5://", "format": "MP4", "output_filename": "x"});
    let refused = encoder.register_preset().body(body::<PresetCreate>(again)).call().await;
    assert_eq!(refusal(refused), (409, "PRESET_ALREADY_EXISTS".into()));
    let refused = encoder
        .update_preset()
        .preset_id(id(sd))
        .body(body::<PresetUpdate>(
            json!({"name": "hd", "destination": "vms5://", "format": "MP4", "output_filename": "x"}),
        ))
        .call()
        .await;
    assert_eq!(refusal(refused), (409, "PRESET_ALREADY_EXISTS".into()));

    let main = profile(&client, "main", &[hd], json!({})).await;
    let other = profile(&client, "other", &[sd], json!({})).await;
    let refused = encoder
        .register_profile()
        .body(body::<ProfileCreate>(json!({"name": "main", "presets": [sd]})))
        .call()
        .await;
    assert_eq!(refusal(refused), (409, "PROFILE_ALREADY_EXISTS".into()));
    let refused = encoder
        .update_profile()
        .profile_id(id(other))
        .body(body::<ProfileUpdate>(json!({"name": "main", "presets": [sd]})))
        .call()
        .await;
    assert_eq!(refusal(refused), (409, "PROFILE_ALREADY_EXISTS".into()));
    // Keeping its own name is no conflict.
    encoder
        .update_profile()
        .profile_id(id(main))
        .body(body::<ProfileUpdate>(
            json!({"name": "main", "presets": [hd], "description": "renamed"}),
        ))
        .call()
        .await
        .expect("updated");
    let main = encoder.get_profile().profile_id(id(main)).call().await.unwrap();
    assert_eq!(main.description.as_deref(), Some("renamed"));
    assert_eq!(main.presets, [hd as i64], "omitted fields are kept");
}

#[tokio::test]
async fn deleting_a_preset_deletes_the_profiles_holding_only_it() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let p1 = preset(&client, "p1", json!({})).await;
    let p2 = preset(&client, "p2", json!({})).await;
    let only_p1 = profile(&client, "only-p1", &[p1], json!({})).await;
    let both = profile(&client, "both", &[p1, p2], json!({})).await;
    let only_p2 = profile(&client, "only-p2", &[p2], json!({})).await;

    encoder.delete_preset().preset_id(id(p1)).call().await.expect("deleted");
    let refused = encoder.get_profile().profile_id(id(only_p1)).call().await;
    assert_eq!(refusal(refused), (404, "MODEL_NOT_FOUND".into()));
    let both = encoder.get_profile().profile_id(id(both)).call().await.unwrap();
    assert_eq!(both.presets, [p2 as i64]);
    let profiles = encoder.list_profiles().call().await.unwrap();
    let names: Vec<_> = profiles.data.iter().filter_map(|p| p.name.clone()).collect();
    // The one profile list also holds the profile shared with the account (see list_profiles in the simulator).
    assert_eq!(names, ["both", "only-p2", "parent-shared-vms"]);

    // Deleting a profile does not delete its presets.
    encoder
        .delete_profile()
        .profile_id(id(only_p2))
        .call()
        .await
        .expect("deleted");
    let presets = encoder.list_presets().call().await.unwrap();
    assert_eq!(presets.data.iter().map(|p| p.id).collect::<Vec<_>>(), [Some(p2 as i64)]);
}

// Conditional fields of task registration.

#[tokio::test]
async fn fields_specified_at_each_run_are_required_then_and_only_then() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let cases = [
        (
            json!({"output_filename": "%OUTPUT_BASENAME%"}),
            "output_filename",
            "OUTPUT_FILE_NAME_NOT_FOUND",
        ),
        (
            json!({"destination": "vms4://1001:77", "vms_config": {"episode_name": "%EPISODE_NAME%"}}),
            "episode_name",
            "EPISODE_NAME_NOT_FOUND",
        ),
        (
            json!({"poster": {"filename_prefix": "%POSTER_FILENAME_PREFIX%"}}),
            "poster_filename_prefix",
            "POSTER_FILENAME_PREFIX_NOT_FOUND",
        ),
        (
            json!({"seek_preview": {"filename": "%SEEK_PREVIEW_FILENAME%"}}),
            "seek_preview_filename",
            "SEEK_PREVIEW_FILENAME_NOT_FOUND",
        ),
        (
            json!({"format": "HLS", "hls_config": {"segment_filename_prefix": "%SEGMENT_FILENAME_PREFIX%"}}),
            "segment_filename_prefix",
            "SEGMENT_FILENAME_PREFIX_NOT_FOUND",
        ),
    ];
    let plain = profile(
        &client,
        "plain",
        &[preset(&client, "plain", json!({})).await],
        json!({}),
    )
    .await;
    for (index, (setting, field, code)) in cases.into_iter().enumerate() {
        let name = format!("each-run-{index}");
        // Alongside a preset that asks for nothing: one asking preset is enough.
        let asking = preset(&client, &name, setting).await;
        let other = preset(&client, &format!("{name}-other"), json!({})).await;
        let profile_id = profile(&client, &name, &[other, asking], json!({})).await;

        let missing = try_register(&client, "movie.mp4", profile_id, json!({})).await;
        assert_eq!(refusal(missing), (400, code.to_owned()), "{field} missing");
        let given = json!({ field: "given_value" });
        let registration = register(&client, "movie.mp4", profile_id, given.clone()).await;
        assert_eq!(registration.success_count, Some(2), "{field} given");
        let task = &registration.tasks[1];
        match field {
            "output_filename" => assert_eq!(task.output_filename.as_deref(), Some("given_value")),
            "episode_name" => assert_eq!(task.episode_name.as_deref(), Some("given_value")),
            "poster_filename_prefix" => {
                let poster = task.poster.as_ref().expect("a poster");
                assert_eq!(poster.get("filename_prefix"), Some(&json!("given_value")));
            }
            "seek_preview_filename" => {
                let seek_preview = task.seek_preview.as_ref().expect("a seek preview");
                assert_eq!(seek_preview.get("filename"), Some(&json!("given_value")));
            }
            _ => {}
        }
        // Not accepted when no preset of the profile asks for it.
        let unasked = try_register(&client, "movie.mp4", plain, given).await;
        assert_eq!(refusal(unasked), (400, "INVALID_REQUEST".into()), "{field} unasked");
    }
}

// Counts and the list.

#[tokio::test]
async fn task_counts_and_list_pages_match_the_tasks() {
    let (sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    for n in 1..=25 {
        sim.add_input_file(&format!("clip-{n:02}.mp4"), 1_000);
        register_one(&client, &format!("clip-{n:02}.mp4"), profile_id, json!({})).await;
    }
    assert_eq!(counts(&client).await.iter().sum::<i64>(), 25);

    let page = encoder.list_tasks().page(id(3)).per_page(id(10)).call().await.unwrap();
    assert_eq!(
        (
            page.total,
            page.per_page,
            page.current_page,
            page.last_page,
            page.from,
            page.to
        ),
        (Some(25), Some(10), Some(3), Some(3), Some(21), Some(25))
    );
    // Default sort created_at|desc: the newest first.
    let ids: Vec<_> = page.data.iter().filter_map(|task| task.id).collect();
    assert_eq!(ids, [5, 4, 3, 2, 1]);
    let first = encoder.list_tasks().call().await.unwrap();
    assert_eq!(
        (first.data.len(), first.data[0].id, first.per_page),
        (10, Some(25), Some(10))
    );
    let ascending = encoder
        .list_tasks()
        .sort("id|asc")
        .per_page(id(3))
        .call()
        .await
        .unwrap();
    let ids: Vec<_> = ascending.data.iter().filter_map(|task| task.id).collect();
    assert_eq!((ids, ascending.last_page), (vec![1, 2, 3], Some(9)));
    let beyond = encoder.list_tasks().page(id(4)).call().await.unwrap();
    assert_eq!(
        (beyond.data.len(), beyond.from, beyond.to, beyond.total),
        (0, Some(0), Some(0), Some(25))
    );
    let refused = encoder.list_tasks().sort("colour|asc").call().await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));

    let last = first.data[0].id.unwrap() as u64;
    client.wait_for_task(last).polling(quick_polls()).await.expect("ready");
    assert_eq!(counts(&client).await, [0, 0, 0, 25, 0, 0, 0]);
}

// Input files, external ID, notification settings.

#[tokio::test]
async fn input_files_are_those_uploaded_and_tasks_need_theirs() {
    let (sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let movie = encoder.get_input_file().filename("movie.mp4").call().await.unwrap();
    assert_eq!(
        (movie.filename.as_deref(), movie.filesize.as_deref()),
        (Some("movie.mp4"), Some("104857600"))
    );
    assert!(movie.filetime.is_some());
    let readable = encoder
        .get_input_file()
        .filename("movie.mp4")
        .readable(1)
        .call()
        .await
        .unwrap();
    assert_eq!(readable.filesize.as_deref(), Some("100.0 MB"));
    let intro = encoder
        .get_input_file()
        .filename("sample/intro.mp4")
        .readable(0)
        .call()
        .await
        .unwrap();
    assert_eq!(intro.filesize.as_deref(), Some("5242880"));

    // A file never uploaded: not found, and no task or CSV row can use it.
    let unknown = encoder.get_input_file().filename("uploads/new.mp4").call().await;
    assert_eq!(refusal(unknown), (404, "MODEL_NOT_FOUND".into()));
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let refused = try_register(&client, "uploads/new.mp4", profile_id, json!({})).await;
    assert_eq!(refusal(refused), (400, "INPUT_FILE_NOT_FOUND".into()));
    let refused = try_register(
        &client,
        "movie.mp4",
        profile_id,
        json!({"multi_angles": ["uploads/angle-2.mp4"], "multi_angle_labels": ["front", "side"]}),
    )
    .await;
    assert_eq!(refusal(refused), (400, "INPUT_FILE_NOT_FOUND".into()));
    let csv = format!("input_filepath,profile_id\nuploads/new.mp4,{profile_id}\n");
    assert_eq!(
        refusal(import_csv(&client, &csv).await),
        (400, "INPUT_FILE_NOT_FOUND".into())
    );
    assert_eq!(counts(&client).await, [0; 7], "nothing was registered");
    let still_unknown = encoder.get_input_file().filename("uploads/new.mp4").call().await;
    assert_eq!(
        refusal(still_unknown).0,
        404,
        "a refused task does not make its file exist"
    );

    // Uploaded through the simulator's API (Rust, or PUT /sim/input-files/{path} with the file as the body;
    // `?size=N` instead of the body: an_input_file_given_by_its_size_needs_no_body).
    sim.add_input_file("uploads/new.mp4", 2048);
    let uploaded = crate::raw_http()
        .put(format!("http://{}/sim/input-files/uploads/angle-2.mp4", sim.address))
        .body(vec![0_u8; 100])
        .send()
        .await
        .expect("an answer");
    assert_eq!(uploaded.status().as_u16(), 204);
    let known = encoder
        .get_input_file()
        .filename("uploads/new.mp4")
        .call()
        .await
        .unwrap();
    assert_eq!(
        (known.filename.as_deref(), known.filesize.as_deref()),
        (Some("uploads/new.mp4"), Some("2048"))
    );
    let angle = encoder
        .get_input_file()
        .filename("uploads/angle-2.mp4")
        .call()
        .await
        .unwrap();
    assert_eq!(angle.filesize.as_deref(), Some("100"));
    register_one(
        &client,
        "uploads/new.mp4",
        profile_id,
        json!({"multi_angles": ["uploads/angle-2.mp4"], "multi_angle_labels": ["front", "side"]}),
    )
    .await;
    import_csv(&client, &csv).await.expect("the row's file exists now");
}

/// `PUT /sim/input-files/{path}` with `query` and `body`: the status and the body.
async fn put_input_file(sim: &Simulator, path_and_query: &str, body: Vec<u8>) -> (u16, String) {
    let answer = crate::raw_http()
        .put(format!("http://{}/sim/input-files/{path_and_query}", sim.address))
        .body(body)
        .send()
        .await
        .expect("an answer, not a broken pipe");
    let status = answer.status().as_u16();
    (status, answer.text().await.expect("a body"))
}

/// The listed size of an input file: in bytes, and readable.
async fn listed_size(client: &Client, filename: &str) -> (String, String) {
    let encoder = client.encoder().unwrap();
    let bytes = encoder.get_input_file().filename(filename).call().await.unwrap();
    let readable = encoder
        .get_input_file()
        .filename(filename)
        .readable(1)
        .call()
        .await
        .unwrap();
    (
        bytes.filesize.unwrap_or_default(),
        readable.filesize.unwrap_or_default(),
    )
}

#[tokio::test]
async fn an_input_file_given_by_its_size_needs_no_body() {
    let (sim, client) = start(SimConfig::fast()).await;
    assert_eq!(
        put_input_file(&sim, "a/b.mp4?size=5000000000", Vec::new()).await,
        (204, String::new())
    );
    assert_eq!(
        listed_size(&client, "a/b.mp4").await,
        ("5000000000".to_owned(), "4.7 GB".to_owned())
    );
    // With the whole file as the body too, the two agree.
    assert_eq!(put_input_file(&sim, "a/c.mp4?size=5", b"12345".to_vec()).await.0, 204);
    assert_eq!(listed_size(&client, "a/c.mp4").await.0, "5");
    let profile_id = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    register_one(&client, "a/b.mp4", profile_id, json!({})).await;
}

#[tokio::test]
async fn an_input_file_body_past_the_2_mb_default_limit_is_counted() {
    let (sim, client) = start(SimConfig::fast()).await;
    let three_mb = 3 * 1024 * 1024;
    assert_eq!(
        put_input_file(&sim, "uploads/three.mp4", vec![7_u8; three_mb]).await,
        (204, String::new())
    );
    assert_eq!(
        listed_size(&client, "uploads/three.mp4").await,
        ("3145728".to_owned(), "3.0 MB".to_owned())
    );
}

#[tokio::test]
async fn an_input_file_upload_with_a_size_and_a_body_of_another_length_is_refused() {
    let (sim, client) = start(SimConfig::fast()).await;
    let refusals = [
        (
            "mismatch.mp4?size=10",
            vec![0_u8; 3 * 1024 * 1024],
            "`size` is 10 but the body has 3145728 bytes: send the whole file or an empty body",
        ),
        (
            "mismatch.mp4?size=ten",
            Vec::new(),
            "Failed to deserialize query string: size: invalid digit found in string",
        ),
        (
            "mismatch.mp4?sise=10",
            Vec::new(),
            "Failed to deserialize query string: sise: unknown field `sise`, expected `size`",
        ),
    ];
    for (path_and_query, body, message) in refusals {
        let (status, answer) = put_input_file(&sim, path_and_query, body).await;
        let answer: Value = serde_json::from_str(&answer).expect("a JSON error body");
        assert_eq!(
            (status, answer),
            (400, json!({"code": "INVALID_REQUEST", "message": message})),
            "{path_and_query}"
        );
    }
    let never = client
        .encoder()
        .unwrap()
        .get_input_file()
        .filename("mismatch.mp4")
        .call()
        .await;
    assert_eq!(refusal(never), (404, "MODEL_NOT_FOUND".into()));
}

#[tokio::test]
async fn external_id_and_notification_settings() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let external = encoder.get_external_id().call().await.unwrap().external_id.unwrap();
    assert!((2..=96).contains(&external.len()), "{external}");
    assert_eq!(
        encoder.get_external_id().call().await.unwrap().external_id,
        Some(external)
    );

    let settings = encoder.get_notification_settings().call().await.unwrap();
    assert_eq!(
        (
            settings.notify_error,
            settings.notify_ready,
            settings.notify_imported_tasks
        ),
        (Some(false), Some(false), Some(false))
    );
    encoder
        .update_notification_settings()
        .body(body::<NotificationSettingsUpdate>(
            json!({"notify_ready": true, "notify_imported_tasks": true}),
        ))
        .call()
        .await
        .expect("updated");
    let settings = encoder.get_notification_settings().call().await.unwrap();
    assert_eq!(
        (
            settings.notify_error,
            settings.notify_ready,
            settings.notify_imported_tasks
        ),
        (Some(false), Some(true), Some(true))
    );
    assert!(settings.updated_at.is_some());
}

// CSV import jobs.

#[tokio::test]
async fn a_csv_import_registers_its_tasks_and_reports_them() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let named = preset(&client, "named", json!({"output_filename": "%OUTPUT_BASENAME%"})).await;
    let profile_id = profile(&client, "p", &[named], json!({})).await;
    let csv = format!(
        "input_filepath,profile_id,output_filename,priority\r\n\
         movie.mp4,{profile_id},first,\r\n\
         \"sample/intro, take 2.mp4\",{profile_id},second,99\r\n"
    );
    let job = import_csv(&client, &csv).await.expect("imported");
    let job_id = job.id.expect("an id") as u64;
    assert_eq!(job.name.as_deref(), Some("import-1"));
    let import_status = job.import_status.expect("import_status");
    assert_eq!(import_status.get("success_count"), Some(&json!(2)));
    let tasks = snapshot(&client).await;
    assert_eq!(tasks.len(), 2);
    let second = get_task(&client, tasks[1].0).await.unwrap();
    assert_eq!(second.input_filename.as_deref(), Some("sample/intro, take 2.mp4"));
    assert_eq!(second.output_filename.as_deref(), Some("second"));
    assert_ne!(
        second.transaction,
        get_task(&client, tasks[0].0).await.unwrap().transaction
    );

    let finished = client
        .wait_for_task_import(job_id)
        .polling(quick_polls())
        .await
        .expect("the imported tasks finish");
    assert_eq!(finished.task_status.expect("task_status").get("ready"), Some(&json!(2)));
    let jobs = encoder.list_task_imports().call().await.unwrap();
    assert_eq!(jobs.data.len(), 1);
    encoder
        .delete_task_import()
        .task_import_id(id(job_id))
        .call()
        .await
        .expect("deleted");
    let gone = encoder.get_task_import().task_import_id(id(job_id)).call().await;
    assert_eq!(refusal(gone), (404, "MODEL_NOT_FOUND".into()));
    assert_eq!(snapshot(&client).await.len(), 2, "the job's tasks stay");
}

#[tokio::test]
async fn csv_import_errors_carry_the_documented_codes() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let named = preset(&client, "named", json!({"output_filename": "%OUTPUT_BASENAME%"})).await;
    let p = profile(&client, "p", &[named], json!({})).await;
    let many: String = std::iter::once("input_filepath,profile_id,output_filename\n".to_owned())
        .chain((0..501).map(|n| format!("clip{n}.mp4,{p},out{n}\n")))
        .collect();
    let cases = [
        (String::new(), "CSV_EMPTY_TASKS"),
        ("input_filepath,profile_id\n".to_owned(), "CSV_EMPTY_TASKS"),
        (
            format!("input_filepath,output_filename\nmovie.mp4,{p}\n"),
            "CSV_INVALID_COLUMNS",
        ),
        (many, "CSV_TOO_MANY_TASKS"),
        (
            format!("input_filepath,profile_id,output_filename\n,{p},x\n"),
            "INPUT_FILE_NOT_FOUND",
        ),
        (
            format!("input_filepath,profile_id,output_filename\nnotes.txt,{p},x\n"),
            "INPUT_FILE_NOT_SUPPORTED",
        ),
        (
            "input_filepath,profile_id,output_filename\nmovie.mp4,999,x\n".to_owned(),
            "PROFILE_NOT_FOUND",
        ),
        (
            format!("input_filepath,profile_id,output_filename,priority\nmovie.mp4,{p},x,high\n"),
            "INVALID_PRIORITY",
        ),
        (
            format!("input_filepath,profile_id,output_filename,priority\nmovie.mp4,{p},x,100\n"),
            "INVALID_PRIORITY",
        ),
        (
            format!("input_filepath,profile_id\nmovie.mp4,{p}\n"),
            "OUTPUT_FILE_NAME_NOT_FOUND",
        ),
    ];
    for (csv, code) in cases {
        let refused = import_csv(&client, &csv).await;
        assert_eq!(refusal(refused), (400, code.to_owned()), "{csv:.80}");
    }
    assert!(snapshot(&client).await.is_empty(), "a refused import registers nothing");
    let jobs = client.encoder().unwrap().list_task_imports().call().await.unwrap();
    assert!(jobs.data.is_empty());
}

// Keys, permissions, unknown ids.

#[tokio::test]
async fn keys_and_permissions_follow_the_yaml() {
    let (sim, _client) = start(SimConfig::fast()).await;
    let keyless = Client::builder().encoder_url(&sim.encoder_url).build().unwrap();
    let refused = keyless.encoder().unwrap().get_task_counts().call().await;
    assert_eq!(refusal(refused), (401, "REQUEST_UNAUTHORIZED".into()));

    let reader = sim
        .client()
        .api_key(sim.key_with([Permission::new("task read")]))
        .build()
        .unwrap();
    let encoder = reader.encoder().unwrap();
    encoder.get_task_counts().call().await.expect("task read suffices");
    encoder
        .get_notification_settings()
        .call()
        .await
        .expect("task read suffices");
    encoder
        .update_notification_settings()
        .body(body::<NotificationSettingsUpdate>(json!({"notify_error": true})))
        .call()
        .await
        .expect("the table names task read for the update too");
    let refused = encoder.list_presets().call().await;
    assert_eq!(refusal(refused).0, 403);
    let refused = try_register(&reader, "movie.mp4", 1, json!({})).await;
    assert_eq!(refusal(refused).0, 403);
    assert_eq!(
        refusal(encoder.get_input_file().filename("movie.mp4").call().await).0,
        403
    );

    // No permission is named for the external ID: any valid key. Nor for the
    // CSV import, which registers tasks: task register (assumed, in the YAML).
    let nothing = sim.client().api_key(sim.key_with([])).build().unwrap();
    nothing
        .encoder()
        .unwrap()
        .get_external_id()
        .call()
        .await
        .expect("any key");
    assert_eq!(
        refusal(import_csv(&reader, "").await).0,
        403,
        "task read does not import"
    );
    let registrar = sim
        .client()
        .api_key(sim.key_with([Permission::new("task register")]))
        .build()
        .unwrap();
    assert_eq!(
        refusal(import_csv(&registrar, "").await),
        (400, "CSV_EMPTY_TASKS".into())
    );
    assert_eq!(
        refusal(nothing.encoder().unwrap().get_task_counts().call().await).0,
        403
    );
}

/// Authentication schemes are case-insensitive: `bearer` and `BEARER` are
/// `Bearer`, in all three services; another scheme or no token is 401.
#[tokio::test]
async fn the_authorization_scheme_is_case_insensitive() {
    let (sim, _client) = start(SimConfig {
        analytics_per_minute: 100,
        ..SimConfig::fast()
    })
    .await;
    let http = crate::raw_http();
    let get = |url: String, authorization: String| {
        let request = http.get(url).header("authorization", authorization);
        async move {
            let answer = request.send().await.expect("an answer");
            let status = answer.status().as_u16();
            (status, answer.json::<Value>().await.expect("a JSON body"))
        }
    };
    let urls = [
        format!("{}/v1/counts", sim.encoder_url),
        format!("{}/v1/labels", sim.vms_url),
        format!("{}/v2/os/data", sim.analytics_url),
    ];
    for scheme in ["Bearer", "bearer", "BEARER"] {
        for url in &urls {
            let (status, body) = get(url.clone(), format!("{scheme} {}", sim.api_key)).await;
            assert_eq!(status, 200, "{scheme} at {url}: {body}");
        }
    }
    let unauthorized = (401, json!({"code": "REQUEST_UNAUTHORIZED", "message": null}));
    for authorization in [
        format!("Basic {}", sim.api_key),
        "bearer ".to_owned(),
        sim.api_key.clone(),
    ] {
        for url in &urls {
            assert_eq!(
                get(url.clone(), authorization.clone()).await,
                unauthorized,
                "{authorization} at {url}"
            );
        }
    }
}

/// `readable` is typed boolean by the document and written 0 or 1 by it and
/// the YAML: `true` and `false` are the same values.
#[tokio::test]
async fn readable_takes_true_and_false_as_well_as_1_and_0() {
    let (sim, _client) = start(SimConfig::fast()).await;
    for (readable, size) in [
        ("1", "100.0 MB"),
        ("true", "100.0 MB"),
        ("0", "104857600"),
        ("false", "104857600"),
    ] {
        let (status, file) = answer_raw(
            &sim,
            "get_input_file",
            &["movie.mp4"],
            &format!("readable={readable}"),
            None,
        )
        .await;
        assert_eq!(
            (status, file),
            (
                200,
                json!({"filename": "movie.mp4", "filesize": size, "filetime": "2024-04-01 12:34:56"})
            ),
            "readable={readable}"
        );
    }
    assert_eq!(
        answer_raw(&sim, "get_input_file", &["movie.mp4"], "readable=yes", None).await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`readable` is a boolean: 0 or 1 (or false or true), not `yes`"
            )
        )
    );
    assert_eq!(
        answer_raw(&sim, "get_input_file", &["movie.mp4"], "readable=2", None).await,
        (
            400,
            error_body("INVALID_REQUEST", "`readable` must be at most 1 (maximum)")
        )
    );
}

/// The shared profile (1000001) and its preset read like the account's own;
/// they stay the parent account's: changing them, or putting the preset in a
/// profile of this account, is 404 as before, and changes nothing.
#[tokio::test]
async fn the_shared_profile_and_its_preset_can_be_read_but_not_changed() {
    let (sim, _client) = start(SimConfig::fast()).await;
    let (status, listed) = answer_raw(&sim, "list_profiles", &[], "", None).await;
    assert_eq!(status, 200);
    let shared = listed["data"][0].clone();
    assert_eq!(shared["id"], json!(1000001), "{listed}");
    assert_eq!(
        answer_raw(&sim, "get_profile", &["1000001"], "", None).await,
        (200, shared.clone())
    );
    let (status, preset) = answer_raw(&sim, "get_preset", &["1000001"], "", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        [
            &preset["id"],
            &preset["name"],
            &preset["destination"],
            &preset["format"]
        ],
        [
            &json!(1000001),
            &json!("parent-vms-hls"),
            &json!("vms5://"),
            &json!("HLS")
        ],
        "{preset}"
    );

    let not_own = |what: &str| {
        (
            404,
            error_body(
                "MODEL_NOT_FOUND",
                &format!("{what} 1000001 belongs to the parent account (shared with this one, read only)"),
            ),
        )
    };
    let description = Some(json!({"description": "mine now"}));
    let refusals = [
        ("update_profile", vec!["1000001"], description.clone(), "profile"),
        ("delete_profile", vec!["1000001"], None, "profile"),
        ("update_preset", vec!["1000001"], description, "preset"),
        ("delete_preset", vec!["1000001"], None, "preset"),
        (
            "register_profile",
            vec![],
            Some(json!({"name": "mine", "presets": [1000001]})),
            "preset",
        ),
    ];
    for (operation, parameters, body, what) in refusals {
        assert_eq!(
            answer_raw(&sim, operation, &parameters, "", body).await,
            not_own(what),
            "{operation}"
        );
    }
    assert_eq!(
        answer_raw(&sim, "get_profile", &["1000001"], "", None).await,
        (200, shared)
    );
    assert_eq!(
        answer_raw(&sim, "get_preset", &["1000001"], "", None).await,
        (200, preset)
    );
    assert_eq!(
        answer_raw(&sim, "get_profile", &["1000002"], "", None).await,
        (404, error_body("MODEL_NOT_FOUND", "profile 1000002 not found"))
    );
    assert_eq!(
        answer_raw(&sim, "get_preset", &["1000002"], "", None).await,
        (404, error_body("MODEL_NOT_FOUND", "preset 1000002 not found"))
    );
}

/// The YAML's Task has `multi_angles` of 1 to 7 items, neither nullable nor
/// required: a task without angles leaves the member out, one with angles lists them.
#[tokio::test]
async fn a_task_without_angles_leaves_multi_angles_out() {
    let (sim, client) = start(stepping(60_000)).await;
    let p = preset(&client, "p", json!({})).await;
    let profile_id = profile(&client, "only-p", &[p], json!({})).await;
    let register = |extra: Value| {
        let body = with(json!({"input_filepath": "movie.mp4", "profile_id": profile_id}), extra);
        answer_raw(&sim, "register_task", &[], "", Some(body))
    };
    let (status, plain) = register(json!({})).await;
    assert_eq!(status, 200, "{plain}");
    let (status, angled) =
        register(json!({"multi_angles": ["a.mp4", "b.mp4"], "multi_angle_labels": ["front", "left", "right"]})).await;
    assert_eq!(status, 200, "{angled}");
    let (plain, angled) = (&plain["tasks"][0], &angled["tasks"][0]);
    assert_eq!(plain.get("multi_angles"), None, "{plain}");
    assert_eq!(angled.get("multi_angles"), Some(&json!(["a.mp4", "b.mp4"])), "{angled}");

    let (plain_id, angled_id) = (plain["id"].to_string(), angled["id"].to_string());
    let (status, got) = answer_raw(&sim, "get_task", &[&plain_id], "", None).await;
    assert_eq!((status, got.get("multi_angles")), (200, None), "{got}");
    let (status, got) = answer_raw(&sim, "get_task", &[&angled_id], "", None).await;
    assert_eq!(
        (status, got.get("multi_angles")),
        (200, Some(&json!(["a.mp4", "b.mp4"]))),
        "{got}"
    );
    let (status, listed) = answer_raw(&sim, "list_tasks", &[], "sort=id|asc", None).await;
    assert_eq!(status, 200);
    let angles: Vec<Option<&Value>> = listed["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|task| task.get("multi_angles"))
        .collect();
    assert_eq!(angles, [None, Some(&json!(["a.mp4", "b.mp4"]))], "{listed}");
    // A client reads an absent member as no angles.
    let decoded = get_task(&client, plain["id"].as_u64().expect("an id")).await.unwrap();
    assert!(decoded.multi_angles.is_empty());
}

#[tokio::test]
async fn unknown_ids_are_model_not_found() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let not_found = (404, "MODEL_NOT_FOUND".to_owned());
    assert_eq!(refusal(get_task(&client, 42).await), not_found);
    assert_eq!(refusal(cancel_or_delete(&client, 42).await), not_found);
    assert_eq!(refusal(encoder.get_preset().preset_id(id(42)).call().await), not_found);
    assert_eq!(
        refusal(encoder.delete_preset().preset_id(id(42)).call().await),
        not_found
    );
    let update = body::<PresetUpdate>(json!({"description": "x"}));
    assert_eq!(
        refusal(encoder.update_preset().preset_id(id(42)).body(update).call().await),
        not_found
    );
    assert_eq!(
        refusal(encoder.get_profile().profile_id(id(42)).call().await),
        not_found
    );
    assert_eq!(
        refusal(encoder.delete_profile().profile_id(id(42)).call().await),
        not_found
    );
    assert_eq!(
        refusal(encoder.get_task_import().task_import_id(id(42)).call().await),
        not_found
    );
    assert_eq!(
        refusal(encoder.delete_task_import().task_import_id(id(42)).call().await),
        not_found
    );
    assert_eq!(
        refusal(try_register(&client, "movie.mp4", 42, json!({})).await),
        not_found
    );
    let unknown_preset = body::<ProfileCreate>(json!({"name": "p", "presets": [42]}));
    assert_eq!(
        refusal(encoder.register_profile().body(unknown_preset).call().await),
        not_found
    );
}

// Shared profiles, preset and profile rules.

#[tokio::test]
async fn a_shared_profile_registering_to_the_vms_needs_a_category_override() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let shared = client.encoder().unwrap().list_shared_profiles().call().await.unwrap();
    assert_eq!(shared.data.len(), 1);
    let shared_id = shared.data[0].id.unwrap() as u64;
    assert_eq!(
        shared.data[0].share.as_ref().map(ToString::to_string).as_deref(),
        Some("shared_subs")
    );
    // List shared profiles is List profiles' request (encoding note 1): the same list.
    let listed = client.encoder().unwrap().list_profiles().call().await.unwrap();
    let ids = |list: &vidplat::encoder::types::ProfileList| list.data.iter().map(|p| p.id).collect::<Vec<_>>();
    assert_eq!(ids(&listed), ids(&shared));

    let refused = try_register(&client, "movie.mp4", shared_id, json!({})).await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
    let category = json!({"vms_config": {"config_overrides": {"category_id": "cat-1"}}});
    let registration = register(&client, "movie.mp4", shared_id, category).await;
    let vms_config = registration.tasks[0].vms_config.as_ref().expect("vms_config");
    assert_eq!(
        vms_config.get("config_overrides"),
        Some(&json!({"category_id": "cat-1"}))
    );
}

#[tokio::test]
async fn preset_field_rules_are_checked() {
    let (_sim, client) = start(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let encoder = client.encoder().unwrap();
    let base =
        json!({"name": "x", "destination": "https://upload.example.com/", "format": "MP4", "output_filename": "out"});
    let cases = [
        (json!({"format": "HLS"}), "INVALID_REQUEST"),
        (json!({"format": "DASH_ENCRYPTED"}), "INVALID_REQUEST"),
        (json!({"destination": "smb://server/share"}), "INVALID_REQUEST"),
        (json!({"destination": "objstore://bucket/prefix"}), "INVALID_REQUEST"),
        (json!({"destination": "vms4://9999:1"}), "DISTRIBUTOR_NOT_FOUND"),
        (
            json!({"destination": "vms4://1002:1", "format": "HLS", "hls_config": {}}),
            "HLS_NETWORK_ID_NOT_SPECIFIED",
        ),
        (json!({"destination": "vms4://1003:1"}), "MP4_NETWORK_ID_NOT_SPECIFIED"),
        (json!({"output_filename": "pre-%OUTPUT_BASENAME%"}), "INVALID_REQUEST"),
        (
            json!({"output_filename": "pre-%INPUT_FILENAME%-post"}),
            "INVALID_REQUEST",
        ),
    ];
    for (change, code) in cases {
        let request = with(base.clone(), change.clone());
        let refused = encoder
            .register_preset()
            .body(body::<PresetCreate>(request))
            .call()
            .await;
        assert_eq!(refusal(refused), (400, code.to_owned()), "{change}");
    }
    let accepted = [
        json!({"destination": "objstore://bucket/prefix", "destination_settings": {"objstore": {"authentication_method": "role"}}}),
        json!({"destination": "vms4://1002:1"}),
        json!({"format": "DASH", "dash_config": {}, "output_filename": "%INPUT_FILENAME%-dash"}),
        json!({"format": "PASSTHROUGH", "destination": "ftps://files.example.com/in"}),
    ];
    for (n, change) in accepted.into_iter().enumerate() {
        preset(&client, &format!("ok-{n}"), change).await;
    }
    let stored = encoder.get_preset().preset_id(id(1)).call().await.unwrap();
    assert_eq!(stored.destination.as_deref(), Some("objstore://bucket/prefix"));
    assert!(stored.created_at.is_some());

    // Updates follow the same rules and keep what they omit.
    let update = |change: Value| {
        encoder
            .update_preset()
            .preset_id(id(2))
            .body(body::<PresetUpdate>(change))
    };
    let refused = update(json!({"format": "HLS"})).call().await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
    // The network codes are documented for preset registration only: on update
    // the same rule (note 7) answers INVALID_REQUEST.
    let refused = update(json!({"destination": "vms4://1003:1"})).call().await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
    let refused = update(json!({"destination": "vms4://1002:1", "format": "HLS", "hls_config": {}}))
        .call()
        .await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
    let refused = update(json!({"destination": "vms4://9999:1"})).call().await;
    assert_eq!(
        refusal(refused),
        (400, "DISTRIBUTOR_NOT_FOUND".into()),
        "register/update"
    );
    update(json!({"description": "legacy MP4"}))
        .call()
        .await
        .expect("updated");
    let updated = encoder.get_preset().preset_id(id(2)).call().await.unwrap();
    assert_eq!(
        (
            updated.description.as_deref(),
            updated.destination.as_deref(),
            updated.name.as_deref()
        ),
        (Some("legacy MP4"), Some("vms4://1002:1"), Some("ok-1"))
    );
}

#[tokio::test]
async fn profile_rules_are_checked() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().unwrap();
    let url = preset(&client, "url", json!({})).await;
    let vms = preset(&client, "vms", json!({"destination": "vms5://"})).await;

    // vms_config: required with a preset registering to the video management service, refused otherwise.
    let without = body::<ProfileCreate>(json!({"name": "v", "presets": [vms]}));
    assert_eq!(refusal(encoder.register_profile().body(without).call().await).0, 400);
    let unneeded = body::<ProfileCreate>(json!({"name": "u", "presets": [url], "vms_config": {"seek_preview": true}}));
    assert_eq!(refusal(encoder.register_profile().body(unneeded).call().await).0, 400);
    let with_vms = profile(&client, "v", &[vms], json!({"vms_config": {"seek_preview": true}})).await;
    // The simulated account is a sub-account: it cannot share, its profiles hold not_share.
    let stored = encoder.get_profile().profile_id(id(with_vms)).call().await.unwrap();
    assert_eq!(
        stored.share.as_ref().map(ToString::to_string).as_deref(),
        Some("not_share")
    );
    let sharing = body::<ProfileCreate>(json!({"name": "s", "presets": [url], "share": "shared_subs"}));
    assert_eq!(
        refusal(encoder.register_profile().body(sharing).call().await),
        (400, "INVALID_REQUEST".into())
    );
    let share = body::<ProfileUpdate>(json!({"share": "shared_subs"}));
    let refused = encoder
        .update_profile()
        .profile_id(id(with_vms))
        .body(share)
        .call()
        .await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
    let unshared = profile(&client, "n", &[url], json!({"share": "not_shared"})).await;
    let stored = encoder.get_profile().profile_id(id(unshared)).call().await.unwrap();
    assert_eq!(
        stored.share.as_ref().map(ToString::to_string).as_deref(),
        Some("not_share")
    );

    // FULL_PROFILE past the presets a profile holds.
    let mut ids = vec![url];
    for n in 0..10 {
        ids.push(preset(&client, &format!("more-{n}"), json!({})).await);
    }
    let plain = profile(&client, "plain", &ids[..10], json!({})).await;
    let full = body::<ProfileUpdate>(json!({"name": "plain", "presets": ids}));
    let refused = encoder.update_profile().profile_id(id(plain)).body(full).call().await;
    assert_eq!(refusal(refused), (400, "FULL_PROFILE".into()));
    // FULL_PROFILE is documented for profile update only: registering too many is INVALID_REQUEST.
    let too_many = body::<ProfileCreate>(json!({"name": "big", "presets": ids}));
    let refused = encoder.register_profile().body(too_many).call().await;
    assert_eq!(refusal(refused), (400, "INVALID_REQUEST".into()));
}

// The wire form of nulls.

/// A nullable member with no value is sent as `null`, as the documents show it,
/// not left out: clients of the simulator meet both forms (absent members are
/// exercised by the optional ones).
#[tokio::test]
async fn a_waiting_task_carries_its_nullable_members_as_null() {
    let (sim, client) = start(stepping(60_000)).await;
    let p = preset(&client, "p", json!({})).await;
    let profile_id = profile(&client, "only-p", &[p], json!({})).await;
    let task_id = register_one(&client, "movie.mp4", profile_id, json!({})).await;
    let raw: Value = crate::raw_http()
        .get(format!("{}/v1/tasks/{task_id}", sim.encoder_url))
        .bearer_auth(&sim.api_key)
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("a JSON task");
    for member in [
        "encode_start",
        "encode_end",
        "episode_name",
        "publish_start",
        "publish_end",
        "vms_config",
    ] {
        assert_eq!(raw.get(member), Some(&Value::Null), "{member} in {raw}");
    }
    let decoded = get_task(&client, task_id).await.expect("the task");
    assert_eq!(decoded.encode_start, None);
}

/// An empty list is the documented envelope with `"data": []`, not an
/// envelope without `data`; empty list members of an item are `[]` too.
#[tokio::test]
async fn empty_lists_keep_their_envelope() {
    let (sim, client) = start(stepping(60_000)).await;
    let http = crate::raw_http();
    let raw = |path: &'static str| {
        let request = http.get(format!("{}{path}", sim.encoder_url)).bearer_auth(&sim.api_key);
        async move {
            let answer = request.send().await.expect("an answer");
            assert_eq!(answer.status().as_u16(), 200, "{path}");
            answer.json::<Value>().await.expect("a JSON body")
        }
    };
    let tasks = raw("/v1/tasks").await;
    assert_eq!(tasks.get("data"), Some(&json!([])), "{tasks}");
    assert_eq!((tasks["total"].clone(), tasks["from"].clone()), (json!(0), json!(0)));
    for path in ["/v1/presets", "/v1/task-imports"] {
        assert_eq!(raw(path).await, json!({"data": []}), "{path}");
    }
    let p = preset(&client, "p", json!({})).await;
    let preset = raw("/v1/presets").await;
    assert_eq!(preset["data"][0]["streams"], json!([]), "{preset}");
    let profile_id = profile(&client, "only-p", &[p], json!({})).await;
    register_one(&client, "movie.mp4", profile_id, json!({})).await;
    let tasks = raw("/v1/tasks").await;
    assert_eq!(tasks["data"][0]["streams"], json!([]), "{tasks}");
}

/// `[]` sent in an update replaces the list: a preset's streams are cleared,
/// a profile's presets cannot be (a profile holds at least one).
#[tokio::test]
async fn an_empty_list_in_an_update_is_not_a_list_left_out() {
    let (sim, client) = start(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let encoder = client.encoder().unwrap();
    let p = preset(&client, "p", json!({"streams": [{"video": {"height": 720}}]})).await;
    let profile_id = profile(&client, "only-p", &[p], json!({})).await;
    let update = |operation: &str, parameter: &str, id: u64, body: Value| {
        let meta = vidplat::encoder::operations::ALL
            .iter()
            .find(|meta| meta.id == operation)
            .expect("an operation");
        let path = meta.path.replace(parameter, &id.to_string());
        let request = crate::raw_http()
            .request(meta.method.to_reqwest(), format!("{}{path}", sim.encoder_url))
            .bearer_auth(&sim.api_key)
            .json(&body);
        async move { request.send().await.expect("an answer").status().as_u16() }
    };
    assert_eq!(
        update("update_preset", "{preset-id}", p, json!({"description": "d"})).await,
        204
    );
    let stored = encoder.get_preset().preset_id(id(p)).call().await.unwrap();
    assert_eq!(stored.streams.len(), 1, "left out: kept");
    assert_eq!(
        update("update_preset", "{preset-id}", p, json!({"streams": []})).await,
        204
    );
    let stored = encoder.get_preset().preset_id(id(p)).call().await.unwrap();
    assert!(stored.streams.is_empty(), "{:?}", stored.streams);
    assert_eq!(
        update("update_profile", "{profile-id}", profile_id, json!({"presets": []})).await,
        400
    );
    let stored = encoder.get_profile().profile_id(id(profile_id)).call().await.unwrap();
    assert_eq!(stored.presets, [p as i64]);
}

// The encoder → video management pipeline.

/// A category in the simulated video management service.
async fn vms_category(client: &Client, name: &str) -> String {
    let category: vidplat::vms::types::CategoryCreate = body(json!({ "name": name }));
    let registered = client
        .vms()
        .unwrap()
        .register_category()
        .body(category)
        .call()
        .await
        .expect("a category");
    registered.id.expect("an id")
}

/// A task of a `vms5://` preset registers its output as a content in video
/// management when it becomes ready: one content per transaction, a stream set
/// per preset, with the category the task request overrides.
#[tokio::test]
async fn a_vms5_task_registers_a_content_when_it_is_ready() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let hls = preset(
        &client,
        "web-hls",
        json!({"destination": "vms5://", "format": "HLS", "hls_config": {}}),
    )
    .await;
    let mp4 = preset(&client, "web-mp4", json!({"destination": "vms5://"})).await;
    let profile_id = profile(
        &client,
        "web",
        &[hls, mp4],
        json!({"vms_config": {"seek_preview": true}}),
    )
    .await;
    let movies = vms_category(&client, "movies").await;
    let overrides = json!({"vms_config": {"config_overrides": {"category_id": movies}}});
    let registration = register(&client, "movie.mp4", profile_id, overrides.clone()).await;
    let transaction = registration.transaction.expect("a transaction");
    let task_ids: Vec<u64> = registration.tasks.iter().map(|task| task.id.unwrap() as u64).collect();
    let mut names = Vec::new();
    for task_id in &task_ids {
        let task = client
            .wait_for_task(*task_id)
            .polling(quick_polls())
            .await
            .expect("ready");
        let config = task.vms_config.expect("vms_config");
        names.push(config.get("content_name").cloned().expect("the content it registered"));
    }
    let name = format!("encoder-{transaction}");
    assert_eq!(names, [json!(name), json!(name)], "one content per transaction");

    let vms = client.vms().unwrap();
    let content = vms
        .get_content()
        .content_name(name.as_str())
        .call()
        .await
        .expect("the content");
    assert_eq!(
        (content.encoder_transaction_id, content.category_id.as_deref()),
        (Some(transaction), Some(movies.as_str()))
    );
    assert_eq!(content.title.as_deref(), Some("movie"));
    let sets: Vec<_> = content
        .stream_sets
        .iter()
        .filter_map(|set| set.name.as_deref())
        .collect();
    assert_eq!(sets, ["web-hls", "web-mp4"]);
    let streams: Vec<_> = content
        .streams
        .iter()
        .map(|stream| {
            (
                stream.encoder_task_id.map(|id| id as u64),
                stream.format.as_ref().map(ToString::to_string),
            )
        })
        .collect();
    assert_eq!(
        streams,
        [
            (Some(task_ids[0]), Some("HLS".to_owned())),
            (Some(task_ids[1]), Some("MP4".to_owned()))
        ]
    );
    let play = vms
        .get_play_information()
        .content_name(name.as_str())
        .call()
        .await
        .expect("playable");
    assert_eq!(play.stream_set_name.as_deref(), Some("web-hls"));

    // Without a category the content cannot be registered: the task fails.
    let registration = register(&client, "movie.mp4", profile_id, json!({})).await;
    let task_id = registration.tasks[0].id.unwrap() as u64;
    match client.wait_for_task(task_id).polling(quick_polls()).await {
        Err(Error::TaskEnded(task)) => assert_eq!(task.error_code, Some(1002)),
        other => panic!("expected the task to fail, got {other:?}"),
    }
    let failed = get_task(&client, task_id).await.unwrap();
    let reason = failed.vms_config.unwrap().get("registration_error").cloned();
    assert!(reason.is_some_and(|r| r.as_str().unwrap().contains("category")));
    let transaction = registration.transaction.unwrap();
    let missing = vms
        .get_content()
        .content_name(format!("encoder-{transaction}"))
        .call()
        .await;
    assert_eq!(refusal(missing), (404, "MODEL_NOT_FOUND".into()));
}

/// The content appears however the client polls: reading video management
/// alone brings the encoder up to date.
#[tokio::test]
async fn the_content_appears_to_a_client_polling_only_video_management() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let mp4 = preset(&client, "web-mp4", json!({"destination": "vms5://"})).await;
    let profile_id = profile(&client, "web", &[mp4], json!({"vms_config": {"seek_preview": true}})).await;
    let movies = vms_category(&client, "movies").await;
    let overrides = json!({"vms_config": {"config_overrides": {"category_id": movies}}});
    let transaction = register(&client, "movie.mp4", profile_id, overrides)
        .await
        .transaction
        .unwrap();
    let vms = client.vms().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let found = vms
            .get_content()
            .content_name(format!("encoder-{transaction}"))
            .call()
            .await;
        if found.is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "no content yet: {found:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A preset's or a profile's description sent as `null` is cleared; one left out is kept.
#[tokio::test]
async fn updates_clear_a_description_sent_as_null() {
    let (_sim, client) = start(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let encoder = client.encoder().expect("encoder");
    let preset_id = preset(&client, "described", json!({"description": "first"})).await;
    let profile_id = profile(&client, "described", &[preset_id], json!({"description": "first"})).await;
    encoder
        .update_preset()
        .preset_id(id(preset_id))
        .body(PresetUpdate::builder().name("renamed"))
        .call()
        .await
        .expect("updated");
    let kept = encoder
        .get_preset()
        .preset_id(id(preset_id))
        .call()
        .await
        .expect("read");
    assert_eq!(kept.description.as_deref(), Some("first"));
    encoder
        .update_preset()
        .preset_id(id(preset_id))
        .body(PresetUpdate::builder().clear_description())
        .call()
        .await
        .expect("updated");
    let cleared = encoder
        .get_preset()
        .preset_id(id(preset_id))
        .call()
        .await
        .expect("read");
    assert_eq!((cleared.description, cleared.name.as_deref()), (None, Some("renamed")));
    encoder
        .update_profile()
        .profile_id(id(profile_id))
        .body(ProfileUpdate::builder().clear_description())
        .call()
        .await
        .expect("updated");
    let profile = encoder
        .get_profile()
        .profile_id(id(profile_id))
        .call()
        .await
        .expect("read");
    assert_eq!(profile.description, None);
}

/// `modify_preset` keeps every member read, including the ones a change does not name.
#[tokio::test]
async fn modify_preset_keeps_what_it_does_not_change() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let encoder = client.encoder().expect("encoder");
    let preset_id = preset(
        &client,
        "kept",
        json!({"description": "first", "dynamic_streams": true}),
    )
    .await;
    let before = encoder
        .get_preset()
        .preset_id(id(preset_id))
        .call()
        .await
        .expect("read");
    encoder
        .modify_preset(id(preset_id), |update| update.name("renamed"))
        .await
        .expect("modified");
    let after = encoder
        .get_preset()
        .preset_id(id(preset_id))
        .call()
        .await
        .expect("read");
    assert_eq!(after.name.as_deref(), Some("renamed"));
    let comparable = |preset: &vidplat::encoder::types::Preset| {
        let mut value = serde_json::to_value(preset).expect("a preset serialises");
        for changed in ["name", "updated_at"] {
            value.as_object_mut().expect("an object").remove(changed);
        }
        value
    };
    assert_eq!(comparable(&after), comparable(&before));
}

/// Every nullable member of a preset update (`description`, `dash_config`,
/// `hls_config`, `vms_config`) sent as `null` is cleared in what the preset
/// then reads; one left out is kept.
#[tokio::test]
async fn a_preset_update_clears_each_nullable_member_sent_as_null() {
    let (sim, client) = start(SimConfig {
        updates: Updates::Keep,
        ..SimConfig::fast()
    })
    .await;
    let preset_id = preset(
        &client,
        "moving",
        json!({
            "description": "first HLS",
            "format": "HLS",
            "hls_config": {"multi_audio_flag": true},
            "dash_config": {"segment_seconds": 4},
            "vms_config": {"folder": "kept"}
        }),
    )
    .await;
    let preset_id = preset_id.to_string();
    let read = || async {
        let (status, mut body) = answer_raw(&sim, "get_preset", &[&preset_id], "", None).await;
        assert_eq!(status, 200, "{body}");
        for stamp in ["created_at", "updated_at"] {
            body.as_object_mut().expect("a preset").remove(stamp);
        }
        body
    };
    let update = |body: Value| async {
        let (status, answer) = answer_raw(&sim, "update_preset", &[&preset_id], "", Some(body)).await;
        assert_eq!((status, answer), (204, Value::Null));
    };
    let expected = |hls_config: Value, dash_config: Value, vms_config: Value, description: Value, format: &str| {
        json!({
            "id": preset_id.parse::<i64>().expect("an id"),
            "name": "moving",
            "description": description,
            "destination": "https://upload.example.com/out",
            "format": format,
            "output_filename": "%INPUT_FILENAME%",
            "dash_config": dash_config,
            "hls_config": hls_config,
            "vms_config": vms_config,
            "streams": [],
        })
    };
    update(json!({"format": "MP4", "hls_config": null})).await;
    assert_eq!(
        read().await,
        expected(
            Value::Null,
            json!({"segment_seconds": 4}),
            json!({"folder": "kept"}),
            json!("first HLS"),
            "MP4"
        )
    );
    update(json!({"dash_config": null, "vms_config": null, "description": null})).await;
    assert_eq!(
        read().await,
        expected(Value::Null, Value::Null, Value::Null, Value::Null, "MP4")
    );
    // Back to HLS: hls_config is required again, and a refused update changes nothing.
    let (status, answer) = answer_raw(&sim, "update_preset", &[&preset_id], "", Some(json!({"format": "HLS"}))).await;
    assert_eq!(
        (status, answer),
        (400, error_body("INVALID_REQUEST", "format HLS requires `hls_config`"))
    );
    assert_eq!(
        read().await,
        expected(Value::Null, Value::Null, Value::Null, Value::Null, "MP4")
    );
}

/// A label in the simulated video management service.
async fn vms_label(client: &Client, name: &str) -> String {
    let label: vidplat::vms::types::LabelCreate = body(json!({ "name": name }));
    let registered = client
        .vms()
        .unwrap()
        .register_label()
        .body(label)
        .call()
        .await
        .expect("a label");
    registered.id.expect("an id")
}

/// The task `task_id` once it has ended, as JSON.
async fn ended_task(sim: &Simulator, client: &Client, task_id: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status = status_of(client, task_id).await;
        if status == "ready" || status == "failed" {
            let (code, task) = answer_raw(sim, "get_task", &[&task_id.to_string()], "", None).await;
            assert_eq!(code, 200);
            return task;
        }
        assert!(Instant::now() < deadline, "task {task_id} still {status}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The category of a `vms5://` task's content comes from the task's
/// `config_overrides`, else from the profile's registration settings; the
/// task must name one itself only for a shared profile (encoding, profile
/// rule 3). With none anywhere, the content cannot be registered (a content
/// "belongs to one category"): the task fails.
#[tokio::test]
async fn a_vms5_task_takes_its_category_from_the_profile_unless_it_overrides_it() {
    let (sim, client) = start(SimConfig::fast()).await;
    let movies = vms_category(&client, "movies").await;
    let drama = vms_category(&client, "drama").await;
    let featured = vms_label(&client, "featured").await;
    let mp4 = preset(&client, "web-mp4", json!({"destination": "vms5://"})).await;
    let categorised = profile(
        &client,
        "categorised",
        &[mp4],
        json!({"vms_config": {"seek_preview": true, "category_id": movies, "labels": [featured]}}),
    )
    .await;
    let content_of = |task: &Value| {
        let name = task["vms_config"]["content_name"]
            .as_str()
            .expect("a content")
            .to_owned();
        let vms = client.vms().unwrap();
        async move {
            let content = vms
                .get_content()
                .content_name(name.as_str())
                .call()
                .await
                .expect("the content");
            (content.category_id.expect("a category"), content.labels)
        }
    };

    let from_profile = register_one(&client, "movie.mp4", categorised, json!({})).await;
    let task = ended_task(&sim, &client, from_profile).await;
    assert_eq!(
        (task["status"].clone(), task["error_code"].clone()),
        (json!("ready"), json!(0))
    );
    assert_eq!(content_of(&task).await, (movies.clone(), vec![featured.clone()]));

    let overrides = json!({"vms_config": {"config_overrides": {"category_id": drama}}});
    let overridden = register_one(&client, "movie.mp4", categorised, overrides).await;
    let task = ended_task(&sim, &client, overridden).await;
    assert_eq!(content_of(&task).await, (drama, vec![featured]));

    let bare = profile(&client, "bare", &[mp4], json!({"vms_config": {"seek_preview": true}})).await;
    let nowhere = register_one(&client, "movie.mp4", bare, json!({})).await;
    let task = ended_task(&sim, &client, nowhere).await;
    assert_eq!(
        (
            task["status"].clone(),
            task["error_code"].clone(),
            task["vms_config"].clone()
        ),
        (
            json!("failed"),
            json!(1002),
            json!({
                "seek_preview": true,
                "registration_error": "no category: give vms_config.config_overrides.category_id in the task \
                                       request (or category_id in the profile's vms_config)"
            })
        )
    );
}

/// A profile shared from another account: its labels, forward policy,
/// streaming policy and distribution network are ignored (defaults apply),
/// as the encoding document says of "the profile's registration settings";
/// the task's own overrides of them apply.
#[tokio::test]
async fn a_shared_profile_ignores_its_own_settings_but_not_the_tasks() {
    let (sim, client) = start(SimConfig::fast()).await;
    let movies = vms_category(&client, "movies").await;
    let featured = vms_label(&client, "featured").await;
    let vms = client.vms().unwrap();
    let policy_id = |policies: Vec<Option<String>>, index: usize| policies[index].clone().expect("a policy id");
    let forward: Vec<_> = vms
        .list_forward_policies()
        .call()
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|p| p.id)
        .collect();
    let streaming: Vec<_> = vms
        .list_streaming_policies()
        .call()
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|p| p.id)
        .collect();
    let (default_forward, overseas_image) = (policy_id(forward.clone(), 0), policy_id(forward, 2));
    let (default_streaming, hls_first) = (policy_id(streaming.clone(), 0), policy_id(streaming, 2));
    let distribution = "d1570000-0000-4000-8000-0000000000bb";
    let settings_of = |task: Value| {
        let name = task["vms_config"]["content_name"]
            .as_str()
            .expect("a content")
            .to_owned();
        async move {
            let content = vms
                .get_content()
                .content_name(name.as_str())
                .call()
                .await
                .expect("the content");
            (
                content.category_id.expect("a category"),
                content.labels,
                content.forward_policy_id.expect("a forward policy"),
                content.streaming_policy_id.expect("a streaming policy"),
                content.stream_sets[0].distribution_id.clone().expect("a distribution"),
            )
        }
    };

    // The task names only the category: none of the parent account's settings apply.
    let only_category = json!({"vms_config": {"config_overrides": {"category_id": movies}}});
    let task_id = register_one(&client, "movie.mp4", 1_000_001, only_category).await;
    let task = ended_task(&sim, &client, task_id).await;
    let content_name = task["vms_config"]["content_name"].clone();
    assert_eq!(
        task["vms_config"],
        json!({
            "seek_preview": true,
            "category_id": "ca700000-0000-4000-8000-0000000000aa",
            "config_overrides": {"category_id": movies},
            "content_name": content_name,
        })
    );
    assert_eq!(
        settings_of(task).await,
        (
            movies.clone(),
            vec![],
            default_forward,
            default_streaming,
            "d1570000-0000-4000-8000-000000000001".to_owned()
        )
    );

    // The task's own labels, policies and distribution network apply.
    let own = json!({"vms_config": {"config_overrides": {
        "category_id": movies,
        "labels": [featured],
        "forward_policy_id": overseas_image,
        "streaming_policy_id": hls_first,
        "distribution_id": distribution,
    }}});
    let task_id = register_one(&client, "movie.mp4", 1_000_001, own).await;
    let task = ended_task(&sim, &client, task_id).await;
    assert_eq!(
        (task["status"].clone(), task["error_code"].clone()),
        (json!("ready"), json!(0))
    );
    assert_eq!(
        settings_of(task).await,
        (
            movies,
            vec![featured],
            overseas_image,
            hls_first,
            distribution.to_owned()
        )
    );
}

/// CSV_INVALID_COLUMNS is the document's code for a missing required column
/// only: an unknown or repeated column is INVALID_REQUEST, whose message says so.
#[tokio::test]
async fn csv_columns_unknown_or_repeated_are_invalid_requests() {
    let (_sim, client) = start(SimConfig::fast()).await;
    let p = profile(&client, "p", &[preset(&client, "mp4", json!({})).await], json!({})).await;
    let no_code = "the document names no code for this; CSV_INVALID_COLUMNS is for a missing required column";
    let cases = [
        (
            format!("input_filepath,profile_id,colour\nmovie.mp4,{p},red\n"),
            format!(
                "unknown column `colour`: the columns are input_filepath, profile_id, output_filename, episode_name, \
                 poster_filename_prefix, seek_preview_filename, segment_filename_prefix, priority, upload_type \
                 ({no_code})"
            ),
        ),
        (
            format!("input_filepath,profile_id,priority,priority\nmovie.mp4,{p},1,2\n"),
            format!("column `priority` appears twice ({no_code})"),
        ),
    ];
    for (csv, message) in cases {
        let error = import_csv(&client, &csv).await.expect_err("refused");
        assert_eq!(
            (error.status(), error.code(), error.message()),
            (Some(400), Some("INVALID_REQUEST"), Some(message.as_str())),
            "{csv}"
        );
    }
    // A missing required column keeps the documented code.
    let error = import_csv(&client, "input_filepath,priority\nmovie.mp4,1\n")
        .await
        .expect_err("refused");
    assert_eq!(
        (error.status(), error.code(), error.message()),
        (
            Some(400),
            Some("CSV_INVALID_COLUMNS"),
            Some("the required column `profile_id` is missing")
        )
    );
    assert!(snapshot(&client).await.is_empty(), "a refused import registers nothing");
}

/// "Preset and profile updates use the same field rules as registration": by
/// default (`Updates::Reset`) an update is read as a registration, so what it
/// leaves out is gone, and the members registration requires must be sent.
#[tokio::test]
async fn preset_and_profile_updates_are_read_as_registrations() {
    let (sim, client) = start(SimConfig::fast()).await;
    let preset_id = preset(
        &client,
        "hd",
        json!({"description": "d", "streams": [{"video": {"height": 720}}]}),
    )
    .await;
    let preset_id = preset_id.to_string();
    assert_eq!(
        answer_raw(
            &sim,
            "update_preset",
            &[&preset_id],
            "",
            Some(json!({"description": "new"}))
        )
        .await,
        (
            400,
            error_body(
                "INVALID_REQUEST",
                "`name`, `destination`, `format` and `output_filename` are required"
            )
        )
    );
    let whole = json!({
        "name": "hd", "destination": "https://upload.example.com/out", "format": "MP4",
        "output_filename": "%INPUT_FILENAME%"
    });
    assert_eq!(
        answer_raw(&sim, "update_preset", &[&preset_id], "", Some(whole)).await,
        (204, Value::Null)
    );
    let (_, read) = answer_raw(&sim, "get_preset", &[&preset_id], "", None).await;
    assert_eq!(read["description"], Value::Null, "{read}");
    assert_eq!(read.get("streams").cloned().unwrap_or(json!([])), json!([]), "{read}");

    let profile_id = profile(
        &client,
        "main",
        &[preset_id.parse().unwrap()],
        json!({"description": "d"}),
    )
    .await;
    let profile_id = profile_id.to_string();
    assert_eq!(
        answer_raw(
            &sim,
            "update_profile",
            &[&profile_id],
            "",
            Some(json!({"description": "new"}))
        )
        .await,
        (400, error_body("INVALID_REQUEST", "`name` and `presets` are required"))
    );
    let renamed = json!({"name": "renamed", "presets": [preset_id.parse::<u64>().unwrap()]});
    assert_eq!(
        answer_raw(&sim, "update_profile", &[&profile_id], "", Some(renamed)).await,
        (204, Value::Null)
    );
    let (_, read) = answer_raw(&sim, "get_profile", &[&profile_id], "", None).await;
    assert_eq!(
        (&read["name"], &read["description"]),
        (&json!("renamed"), &Value::Null),
        "{read}"
    );
}
