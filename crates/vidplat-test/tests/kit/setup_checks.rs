//! A mock cannot teach what the service cannot do: answers are checked
//! against the document when a rule is set up.

use std::time::{Duration, Instant};
use vidplat::encoder::types::{ErrorCode, Preset, Task, TaskRegistration};
use vidplat::vms::types::{Content, ContentList, ContentSummary};
use vidplat::Call;
use vidplat_test::{analytics, encoder, vms, Fixture, Mock, MockOperation};

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

/// What `refused` shows for `op` answering a value that breaks the document at `place`.
fn broken(op: &str, place: &str, rule: &str) -> String {
    format!(
        "{op}: the answer breaks the document at {place}: {rule}; use respond_raw to answer what the service does not"
    )
}

#[test]
fn a_number_below_its_documented_minimum_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).respond(Task {
            id: Some(0),
            ..Task::fixture()
        });
    });
    assert_eq!(shown, broken("get_task", "id", "must be at least 1 (minimum)"));
}

#[test]
fn a_number_above_its_documented_maximum_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(vms::ListContents).respond(ContentList {
            per_page: Some(101),
            ..ContentList::fixture()
        });
    });
    assert_eq!(
        shown,
        broken("list_contents", "per_page", "must be at most 100 (maximum)")
    );
}

#[test]
fn a_string_shorter_than_documented_fails_at_setup_naming_its_whole_path() {
    let task = Task {
        input_filename: Some(String::new()),
        ..Task::fixture()
    };
    let shown = refused(|mock| {
        mock.on(encoder::RegisterTask).respond(TaskRegistration {
            tasks: vec![Task::fixture(), task],
            ..TaskRegistration::fixture()
        });
    });
    assert_eq!(
        shown,
        broken(
            "register_task",
            "tasks[1].input_filename",
            "must have at least 1 character (minLength)"
        )
    );
}

#[test]
fn a_string_longer_than_documented_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(encoder::GetPreset).respond(Preset {
            name: Some("p".repeat(31)),
            ..Preset::fixture()
        });
    });
    assert_eq!(
        shown,
        broken("get_preset", "name", "must have at most 30 characters (maxLength)")
    );
}

#[test]
fn a_string_off_its_documented_pattern_fails_at_setup() {
    let row = ContentSummary {
        name: Some("my movie".to_owned()),
        ..ContentSummary::fixture()
    };
    let shown = refused(|mock| {
        mock.on(vms::ListContents).respond(ContentList {
            data: vec![ContentSummary::fixture(), ContentSummary::fixture(), row],
            ..ContentList::fixture()
        });
    });
    assert_eq!(
        shown,
        broken("list_contents", "data[2].name", "must match ^[0-9a-zA-Z_-]+$ (pattern)")
    );
}

#[test]
fn a_list_longer_than_documented_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(vms::GetContent).respond(Content {
            labels: (0..51).map(|i| format!("label-{i}")).collect(),
            ..Content::fixture()
        });
    });
    assert_eq!(
        shown,
        broken("get_content", "labels", "must have at most 50 items (maxItems)")
    );
}

#[test]
fn a_repeated_item_of_a_documented_unique_list_fails_at_setup() {
    let shown = refused(|mock| {
        mock.on(vms::GetContent).respond(Content {
            labels: vec!["news".to_owned(), "news".to_owned()],
            ..Content::fixture()
        });
    });
    assert_eq!(
        shown,
        broken("get_content", "labels", "must not repeat an item (uniqueItems)")
    );
}

#[test]
fn respond_with_status_checks_the_value_too() {
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).respond_with_status(
            200,
            Task {
                error_code: Some(-1),
                ..Task::fixture()
            },
        );
    });
    assert_eq!(shown, broken("get_task", "error_code", "must be at least 0 (minimum)"));
}

/// Every fixture is a valid answer of the operations that return its type,
/// alone and as a list's row.
#[test]
fn every_fixture_passes_its_operation_s_checks() {
    use vidplat::analytics::types as a;
    use vidplat::encoder::types as e;
    use vidplat::vms::types as v;
    let mock = Mock::new();
    mock.on(encoder::GetTask).respond(e::Task::fixture());
    mock.on(encoder::RegisterTask).respond(e::TaskRegistration::fixture());
    mock.on(encoder::GetTaskCounts).respond(e::TaskCounts::fixture());
    mock.on(encoder::ListTasks).respond(e::TaskList::fixture());
    mock.on(encoder::ListTasks).respond(e::TaskList {
        data: vec![e::Task::fixture()],
        total: Some(1),
        to: Some(1),
        from: Some(1),
        ..e::TaskList::fixture()
    });
    mock.on(encoder::GetPreset).respond(e::Preset::fixture());
    mock.on(encoder::ListPresets).respond(e::PresetList {
        data: vec![e::Preset::fixture()],
    });
    mock.on(encoder::GetProfile).respond(e::Profile::fixture());
    mock.on(encoder::ListProfiles).respond(e::ProfileList {
        data: vec![e::Profile::fixture()],
    });
    mock.on(encoder::GetTaskImport).respond(e::TaskImport::fixture());
    mock.on(encoder::ImportTasksCsv).respond(e::TaskImport::fixture());
    mock.on(encoder::ListTaskImports).respond(e::TaskImportList {
        data: vec![e::TaskImport::fixture()],
    });
    mock.on(encoder::GetNotificationSettings)
        .respond(e::NotificationSettings::fixture());
    mock.on(vms::GetContent).respond(v::Content::fixture());
    mock.on(vms::ListContents).respond(v::ContentList::fixture());
    mock.on(vms::ListContents).respond(v::ContentList {
        data: vec![v::ContentSummary::fixture()],
        ..v::ContentList::fixture()
    });
    mock.on(vms::GetCategory).respond(v::Category::fixture());
    mock.on(vms::ListCategories).respond(v::CategoryList {
        data: vec![v::Category::fixture()],
    });
    mock.on(vms::GetPlaylistItems).respond(v::PlaylistItems::fixture());
    mock.on(vms::GetViewingPage).respond(v::ViewingPage::fixture());
    mock.on(vms::ListViewingPages).respond(v::ViewingPageList {
        data: vec![v::ViewingPage::fixture()],
        current_page: Some(1),
        per_page: Some(25),
        truncated: Some(false),
    });
    mock.on(analytics::CloudByOs).respond(a::CloudOsPage {
        data: vec![a::CloudOsRow::fixture()],
        ..a::CloudOsPage::fixture()
    });
    mock.on(analytics::BasicByTimePeriod).respond(a::BasicTimePeriodPage {
        data: vec![a::BasicTimePeriodRow::fixture()],
        ..a::BasicTimePeriodPage::fixture()
    });
    // The checks are not vacuous: these operations' answers document bounds.
    for checks in [
        encoder::GetTask::SUCCESS_CHECKS,
        encoder::ListTasks::SUCCESS_CHECKS,
        encoder::GetPreset::SUCCESS_CHECKS,
        encoder::GetProfile::SUCCESS_CHECKS,
        encoder::GetTaskImport::SUCCESS_CHECKS,
        vms::GetContent::SUCCESS_CHECKS,
        vms::ListContents::SUCCESS_CHECKS,
        vms::GetCategory::SUCCESS_CHECKS,
        vms::GetPlaylistItems::SUCCESS_CHECKS,
        vms::GetViewingPage::SUCCESS_CHECKS,
    ] {
        assert!(!checks.is_empty());
    }
}

/// A fixture is what the client decodes: it comes back through the whole
/// pipeline as it was set up.
#[tokio::test(start_paused = true)]
async fn a_fixture_comes_back_as_it_was_answered() {
    let mock = Mock::new();
    mock.on(vms::GetContent).respond(Content::fixture());
    let got = mock
        .client()
        .vms()
        .unwrap()
        .get_content()
        .content_name("movie")
        .call()
        .await
        .unwrap();
    let json = |content: &Content| serde_json::to_value(content).unwrap();
    assert_eq!(json(&got), json(&Content::fixture()));
}

/// Checking costs little next to writing the answer out: the checks of a
/// 10,000-row page of contents add less than serialising the page costs, and
/// so does what answering a 50,000-row analytics page adds (the analytics
/// answers document no bounds: no checks, only the kit's own handling of the
/// page). Both are timed in the same moment,
/// so a loaded machine slows them alike (at 50,000 contents the checks took
/// 0.13 s to the writing's 1.2 s in a debug build), and by the time this
/// thread ran ([`running`]).
#[test]
fn checking_a_large_page_costs_less_than_writing_it() {
    use vidplat::analytics::types::{CloudOsPage, CloudOsRow};
    let rows = CloudOsPage {
        data: vec![CloudOsRow::fixture(); 50_000],
        ..CloudOsPage::fixture()
    };
    let contents = ContentList {
        data: vec![ContentSummary::fixture(); 10_000],
        ..ContentList::fixture()
    };
    let mock = Mock::new();
    let (writing, responding) = timed(&rows, |rows| {
        mock.on(analytics::CloudByOs).respond(rows);
    });
    let analytics = responding.saturating_sub(writing);
    assert!(
        analytics::CloudByOs::SUCCESS_CHECKS.is_empty(),
        "the comment above says so"
    );
    println!("50,000 analytics rows: written in {writing:?}, answered in {analytics:?} more");
    assert!(analytics < writing, "{analytics:?} to answer, {writing:?} to write");
    let (writing, responding) = timed(&contents, |contents| {
        mock.on(vms::ListContents).respond(contents);
    });
    let checking = responding.saturating_sub(writing);
    println!(
        "10,000 contents: written in {writing:?}, its {} checks {checking:?}",
        vms::ListContents::SUCCESS_CHECKS.len()
    );
    assert!(checking < writing, "{checking:?} to check, {writing:?} to write");
}

/// How long serialising `page` takes, and how long `respond` takes with a copy
/// of it (the copy made before the clock starts): the shortest of three
/// rounds of each.
fn timed<T: Clone + serde::Serialize>(page: &T, respond: impl Fn(T)) -> (Duration, Duration) {
    let (mut writing, mut responding) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        let mut written = Vec::new();
        writing = writing.min(running(|| written = serde_json::to_vec(page).unwrap()));
        assert!(!written.is_empty());
        let copy = page.clone();
        responding = responding.min(running(|| respond(copy)));
    }
    (writing, responding)
}

/// The time `work` ran on this thread: on Linux its CPU time, which leaves out
/// the time it waited for a core (the other tests of this program, and in
/// `cargo xtask ci` another test program, run beside it: a fresh-clone run
/// there read 256 ms of checks to 242 ms of writing by the wall clock, the
/// shortest of three rounds each); elsewhere the wall clock.
fn running(work: impl FnOnce()) -> Duration {
    match thread_cpu_time() {
        Some(before) => {
            work();
            let after = thread_cpu_time().expect("the thread's CPU time, read a moment ago");
            after.saturating_sub(before)
        }
        None => {
            let started = Instant::now();
            work();
            started.elapsed()
        }
    }
}

/// This thread's time on a CPU so far: the first field of Linux's
/// `/proc/thread-self/schedstat`, in nanoseconds (a running thread's is
/// brought up to date at the scheduler's ticks: here it moved in steps of
/// 4 ms, small next to the tens of milliseconds compared).
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
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

#[test]
fn a_sequence_set_up_out_of_order_panics_naming_the_operation() {
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).then();
    });
    assert_eq!(shown, "get_task: then() follows an answer");
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).refuse_connection().always().then();
    });
    assert_eq!(shown, "get_task: nothing follows an answer given always");
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).refuse_connection().refuse_connection();
    });
    assert_eq!(
        shown,
        "get_task: this step has an answer already; start the next with then()"
    );
    let shown = refused(|mock| {
        mock.on(encoder::GetTask).refuse_connection().header("retry-after", "1");
    });
    assert_eq!(shown, "get_task: header() follows an HTTP answer");
}
