//! A mock cannot teach what the service cannot do: answers are checked
//! against the document when a rule is set up.

use vidplat::encoder::types::{ErrorCode, Task};
use vidplat::Call;
use vidplat_test::{analytics, encoder, Fixture, Mock};

/// The panic message of `setup`, which must panic.
fn refused(setup: impl FnOnce(&Mock)) -> String {
    let mock = Mock::new();
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| setup(&mock))).expect_err("the rule was accepted");
    payload.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn an_undocumented_success_status_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).respond_with_status(201, Task::fixture());
    });
    assert_eq!(
        shown,
        "get_task: the document gives no success status 201 (it gives 200); use respond_raw to answer what the service does not"
    );
}

#[test]
fn an_undocumented_error_code_or_status_fails_at_setup() {
    // The documents know no FULL_TASK: a full queue is OVER_SERVICE_LIMIT (403).
    let shown = refused(|mock| {
        mock.on(encoder::RegisterTask)
            .fail(409, ErrorCode::Other("FULL_TASK".into()));
    });
    assert!(
        shown.contains("register_task: the service's document lists no error code FULL_TASK"),
        "{shown}"
    );
    let shown = refused(|mock| {
        mock.on(encoder::RegisterTask).fail(400, ErrorCode::OverServiceLimit);
    });
    assert_eq!(
        shown,
        "register_task: the document gives OVER_SERVICE_LIMIT the status 403, not 400"
    );
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).fail(302, ErrorCode::ModelNotFound);
    });
    assert!(
        shown.starts_with("get_task: the document gives no error status 302 (it gives 401, 403, 404, 4XX, 5XX)"),
        "{shown}"
    );
    // Another service's codes are its own: analytics lists TOO_MANY_REQUESTS under 429.
    let shown = refused(|mock| {
        mock.on(analytics::CloudByOs)
            .fail(503, vidplat::analytics::types::ErrorCode::TooManyRequests);
    });
    assert!(shown.contains("TOO_MANY_REQUESTS the status 429, not 503"), "{shown}");
}

#[test]
fn a_sequence_step_takes_one_answer() {
    let shown = refused(|mock| {
        mock.on(encoder::GetTask)
            .respond(Task::fixture())
            .respond(Task::fixture());
    });
    assert!(shown.contains("start the next with then()"), "{shown}");
}

#[tokio::test(start_paused = true)]
async fn the_raw_escape_hatch_answers_what_the_document_does_not() {
    let mock = Mock::new();
    mock.on(encoder::GetTask)
        .respond_raw(201, r#"{"id": 5, "status": "ready"}"#)
        .then()
        .respond_raw(409, r#"{"code": "FULL_TASK", "message": null}"#);
    let client = mock.client();
    let encoder = client.encoder().unwrap();
    // What the pipeline does with it is what it would do with a real server's.
    let response = encoder.get_task().task_id(5).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let error = encoder.get_task().task_id(5).call().await.unwrap_err();
    assert_eq!((error.status(), error.code()), (Some(409), Some("FULL_TASK")));
    mock.verify();
}
