//! Rules, matchers, sequences, transport failures and `verify`, through a real client.

use std::time::Duration;
use vidplat::encoder::types::{ErrorCode, Task, TaskCreate, TaskRegistration, TaskStatus};
use vidplat::{Call, Error};
use vidplat_test::{analytics, encoder, Fixture, Mock};

fn task(id: i64, status: TaskStatus) -> Task {
    Task {
        id: Some(id),
        status: Some(status),
        ..Task::fixture()
    }
}

fn registration(file: &str) -> vidplat::encoder::types::builder::TaskCreate {
    TaskCreate::builder()
        .input_filepath(file)
        .profile_id(std::num::NonZeroU64::MIN)
}

#[tokio::test(start_paused = true)]
async fn a_rule_matches_typed_path_members_and_its_answer_is_decoded() {
    let mock = Mock::new();
    let rule = mock
        .on(encoder::GetTask)
        .when(|sent| sent.params.task_id.get() == 7)
        .respond(task(7, TaskStatus::Encoding));
    let client = mock.client();
    let got = client.encoder().unwrap().get_task().task_id(7).call().await.unwrap();
    assert_eq!((got.id, got.status), (Some(7), Some(TaskStatus::Encoding)));
    assert_eq!(rule.calls(), 1);
    // Task 8 matches no rule: 501 naming the operation, never retried, and `verify` says so.
    let error = client
        .encoder()
        .unwrap()
        .get_task()
        .task_id(8)
        .call()
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(501), "{error}");
    assert!(error.to_string().contains("get_task"), "{error}");
    assert_eq!(mock.received().len(), 2);
    assert_eq!(
        mock.problems(),
        ["unmatched: GET /v1/tasks/8 (get_task): no rule answers it"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_rule_matches_the_typed_body_and_the_journal_reads_it_back() {
    let mock = Mock::new();
    mock.on(encoder::RegisterTask)
        .when(|sent| sent.body.input_filepath.as_str() == "movie.mp4")
        .respond(TaskRegistration::fixture());
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    let registered = encoder
        .register_task()
        .body(registration("movie.mp4"))
        .call()
        .await
        .unwrap();
    assert_eq!(registered.tasks[0].status, Some(TaskStatus::Waiting));
    assert!(encoder
        .register_task()
        .body(registration("other.mp4"))
        .call()
        .await
        .is_err());
    let sent = mock.sent(encoder::RegisterTask).unwrap();
    let files: Vec<&str> = sent.iter().map(|s| s.body.input_filepath.as_str()).collect();
    assert_eq!(files, ["movie.mp4", "other.mp4"]);
    assert_eq!(sent[0].body.profile_id.get(), 1);
    // The untyped journal: each request's line, operation and body bytes as sent.
    let received = mock.received();
    assert_eq!(
        (received[1].line(), received[1].operation()),
        ("POST /v1/tasks".to_owned(), "register_task")
    );
    let body: serde_json::Value = serde_json::from_slice(received[1].body_bytes().unwrap()).unwrap();
    assert_eq!(
        body,
        // The builder's documented defaults are sent too.
        serde_json::json!({"input_filepath": "other.mp4", "priority": 50, "profile_id": 1, "upload_type": "internal"})
    );
}

#[tokio::test(start_paused = true)]
async fn query_members_are_typed_too() {
    let mock = Mock::new();
    mock.on(analytics::CloudByOs)
        .when(|sent| sent.params.limit.is_some_and(|l| l.get() == 10))
        .respond(analytics_page());
    let client = mock.client_builder().analytics_quota(None).build().unwrap();
    let page = client
        .analytics()
        .unwrap()
        .cloud_by_os()
        .limit(10)
        .call()
        .await
        .unwrap();
    assert_eq!(page.data[0].os_name.as_deref(), Some("Android"));
    let params = &mock.sent(analytics::CloudByOs).unwrap()[0].params;
    assert_eq!(params.limit.map(|l| l.get()), Some(10));
    mock.verify();
}

fn analytics_page() -> vidplat::analytics::types::CloudOsPage {
    use vidplat::analytics::types::{CloudOsPage, CloudOsRow};
    CloudOsPage {
        data: vec![CloudOsRow::fixture()],
        ..CloudOsPage::fixture()
    }
}

#[tokio::test(start_paused = true)]
async fn a_sequence_with_counts_drives_the_runtime_s_retries() {
    let mock = Mock::new();
    // A GET answered 503 twice is sent again (backoff in paused time), then succeeds.
    let rule = mock
        .on(encoder::GetTask)
        .fail(503, ErrorCode::UnknownError)
        .times(2)
        .then()
        .respond(task(1, TaskStatus::Ready));
    let got = mock
        .client()
        .encoder()
        .unwrap()
        .get_task()
        .task_id(1)
        .call()
        .await
        .unwrap();
    assert_eq!(got.status, Some(TaskStatus::Ready));
    assert_eq!(rule.calls(), 3);
    mock.verify();
}

#[tokio::test(start_paused = true)]
async fn a_refused_connection_is_sent_again_even_for_a_post() {
    let mock = Mock::new();
    let rule = mock
        .on(encoder::RegisterTask)
        .refuse_connection()
        .then()
        .respond(TaskRegistration::fixture());
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    encoder
        .register_task()
        .body(registration("a.mp4"))
        .call()
        .await
        .unwrap();
    assert_eq!(rule.calls(), 2, "nothing left the client the first time");
    // Refused every time: the failure says the connection never opened.
    let mock = Mock::new();
    mock.on(encoder::RegisterTask).refuse_connection().always();
    let error = mock
        .client()
        .encoder()
        .unwrap()
        .register_task()
        .body(registration("a.mp4"))
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert!(error.is_retryable(), "{error}");
    assert_eq!(mock.received().len(), 4, "the default policy's four attempts");
}

#[tokio::test(start_paused = true)]
async fn a_connection_broken_after_the_head_is_sent_again_only_if_idempotent() {
    let mock = Mock::new();
    let post = mock.on(encoder::RegisterTask).break_after_headers().always();
    let get = mock
        .on(encoder::GetTask)
        .break_after_headers()
        .then()
        .respond(task(1, TaskStatus::Ready));
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    let error = encoder
        .register_task()
        .body(registration("a.mp4"))
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert!(
        !error.is_retryable(),
        "a POST that may have arrived is never sent again"
    );
    assert_eq!(post.calls(), 1);
    encoder.get_task().task_id(1).call().await.unwrap();
    assert_eq!(get.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_delay_past_the_attempt_timeout_is_a_timeout() {
    let mock = Mock::new();
    mock.on(encoder::GetTask)
        .respond(task(1, TaskStatus::Ready))
        .delay(Duration::from_secs(30))
        .always();
    let client = mock
        .client_builder()
        .attempt_timeout(Duration::from_secs(5))
        .retry(vidplat::RetryPolicy::never())
        .build()
        .unwrap();
    let error = client
        .encoder()
        .unwrap()
        .get_task()
        .task_id(1)
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
}

#[tokio::test(start_paused = true)]
async fn verify_names_unmet_expectations_and_unmatched_requests() {
    let mock = Mock::new();
    mock.on(encoder::GetTask).respond(task(1, TaskStatus::Ready)).times(2);
    mock.on(encoder::GetTaskCounts)
        .respond(vidplat::encoder::types::TaskCounts::fixture());
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    encoder.get_task().task_id(1).call().await.unwrap();
    let _ = encoder.cancel_or_delete_task().task_id(1).call().await;
    assert_eq!(
        mock.problems(),
        [
            "get_task (rule 1): step 1 answered 1 of 2",
            "get_task_counts (rule 2): step 1 answered 0 of 1",
            "unmatched: DELETE /v1/tasks/1 (cancel_or_delete_task): no rule answers it",
        ]
    );
    let shown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| mock.verify())).unwrap_err();
    let shown = shown.downcast_ref::<String>().unwrap();
    assert!(shown.contains("cancel_or_delete_task"), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn a_delete_whose_first_attempt_may_have_acted_then_404_is_already_deleted() {
    let mock = Mock::new();
    // The first attempt's answer breaks after its head: the deletion may have happened.
    let rule = mock
        .on(encoder::CancelOrDeleteTask)
        .break_after_headers()
        .then()
        .fail(404, ErrorCode::ModelNotFound)
        .then()
        .respond(());
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    let error = encoder.cancel_or_delete_task().task_id(3).call().await.unwrap_err();
    assert!(matches!(error, Error::AlreadyDeleted(_)), "{error:?}");
    assert_eq!(rule.calls(), 2);
    // An operation without a success body is answered with `()`.
    encoder.cancel_or_delete_task().task_id(3).call().await.unwrap();
    mock.verify();
}

/// A body that is not JSON (a CSV import) reads back as the bytes sent.
#[tokio::test(start_paused = true)]
async fn a_raw_body_reads_back_as_the_bytes_sent() {
    let mock = Mock::new();
    mock.on(encoder::ImportTasksCsv)
        .respond(vidplat::encoder::types::TaskImport::fixture());
    let csv = b"input_filepath,profile_id\nmovie.mp4,1\n\xff".to_vec();
    let client = mock.client();
    client
        .encoder()
        .unwrap()
        .import_tasks_csv()
        .body(csv.clone())
        .call()
        .await
        .unwrap();
    let sent = mock.sent(encoder::ImportTasksCsv).expect("readable requests");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body, Some(csv));
    mock.verify();
}
