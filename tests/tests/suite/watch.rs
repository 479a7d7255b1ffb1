//! `vidplat::watch` against the simulator, its clock stepped one task state
//! per poll: every status of every task seen once and in order, what a poll
//! costs while nothing changes, a deleted task, a refused sort.

use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use vidplat::encoder::types::{PresetCreate, ProfileCreate, TaskCreate};
use vidplat::watch::{Cursor, Event, Source, Subject};
use vidplat::{Call as _, Client};
use vidplat_sim::{Fault, SimConfig, Simulator};

/// Far longer than a test: tasks move only when the clock is stepped.
const STEP: Duration = Duration::from_secs(3600);

async fn with_tasks(count: usize) -> (Simulator, Client, Vec<i64>) {
    let config = SimConfig {
        task_step: STEP,
        ..SimConfig::fast()
    };
    with_tasks_on(config, count).await
}

/// A simulator of `config` holding `count` tasks of a one-preset profile.
async fn with_tasks_on(config: SimConfig, count: usize) -> (Simulator, Client, Vec<i64>) {
    let sim = Simulator::start_with(config).await.expect("the simulator starts");
    sim.add_input_file("in.mp4", 1_048_576);
    let client = sim.client().build().expect("a client");
    let encoder = client.encoder().expect("encoder");
    let preset: PresetCreate = serde_json::from_value(json!({
        "name": "p", "destination": "https://upload.example.com/out", "format": "MP4",
        "output_filename": "%INPUT_FILENAME%",
    }))
    .expect("a preset");
    let preset = encoder.register_preset().body(preset).call().await.expect("registered");
    let profile: ProfileCreate =
        serde_json::from_value(json!({"name": "q", "presets": [preset.id]})).expect("a profile");
    let profile = encoder
        .register_profile()
        .body(profile)
        .call()
        .await
        .expect("registered");
    let mut ids = Vec::new();
    for _ in 0..count {
        let task: TaskCreate =
            serde_json::from_value(json!({"input_filepath": "in.mp4", "profile_id": profile.id})).expect("a task");
        let registered = encoder.register_task().body(task).call().await.expect("registered");
        ids.push(registered.tasks[0].id.expect("an id"));
    }
    (sim, client, ids)
}

fn task_of(event: &Event) -> i64 {
    match event.subject {
        Subject::TaskId(id) => id,
        ref other => panic!("not a task: {other:?}"),
    }
}

#[tokio::test]
async fn every_status_of_fifty_tasks_is_seen_once_in_order_and_an_idle_poll_costs_two_calls() {
    let (sim, client, ids) = with_tasks(50).await;
    let calls = Arc::new(AtomicU64::new(0));
    let watch = client.watch().count_calls(Arc::clone(&calls));
    let mut poller = watch.poller(Source::Tasks, Cursor::default());
    let mut seen: BTreeMap<i64, Vec<Event>> = BTreeMap::new();
    // One encodes at a time, a step in each state: 50 tasks end within 53 steps.
    for _ in 0..60 {
        for event in poller.poll().await.expect("a poll") {
            seen.entry(task_of(&event)).or_default().push(event);
        }
        sim.advance_clock(STEP);
    }
    assert!(poller.by_update_time(), "the simulator sorts by updated_at");
    assert_eq!(seen.keys().copied().collect::<Vec<_>>(), ids);
    for (task, events) in &seen {
        let afters: Vec<&str> = events.iter().map(|event| event.after.as_str()).collect();
        assert_eq!(afters, ["waiting", "encoding", "uploading", "ready"], "task {task}");
        let befores: Vec<Option<&str>> = events.iter().map(|event| event.before.as_deref()).collect();
        assert_eq!(
            befores,
            [None, Some("waiting"), Some("encoding"), Some("uploading")],
            "task {task}"
        );
        let kinds: Vec<&str> = events.iter().map(|event| event.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "task.status_changed",
                "task.status_changed",
                "task.status_changed",
                "task.ready"
            ]
        );
        assert_eq!(events[3].id, format!("task.{task}.ready"));
    }

    // Nothing changes: the counts and one page, twice.
    let before = calls.load(Ordering::Relaxed);
    for _ in 0..2 {
        assert_eq!(poller.poll().await.expect("a poll"), []);
    }
    assert_eq!(calls.load(Ordering::Relaxed) - before, 4);

    // A deleted task: the counts no longer add up, every page is read, a get confirms it.
    let encoder = client.encoder().expect("encoder");
    encoder
        .cancel_or_delete_task()
        .task_id(ids[7])
        .send()
        .await
        .expect("deleted");
    let events = poller.poll().await.expect("a poll");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        (
            events[0].id.as_str(),
            events[0].kind.as_str(),
            events[0].before.as_deref(),
            events[0].after.as_str()
        ),
        (
            format!("task.{}.deleted", ids[7]).as_str(),
            "task.deleted",
            Some("ready"),
            "deleted"
        )
    );
    assert_eq!(poller.poll().await.expect("a poll"), [], "said once");
}

#[tokio::test]
async fn a_list_that_refuses_the_sort_is_read_in_its_default_order_from_then_on() {
    let (sim, client, ids) = with_tasks(3).await;
    sim.inject_fault(Fault {
        status: 400,
        code: "INVALID_REQUEST".to_owned(),
        ..Fault::operation("list_tasks")
    })
    .expect("a fault");
    let calls = Arc::new(AtomicU64::new(0));
    let mut poller = client
        .watch()
        .count_calls(Arc::clone(&calls))
        .poller(Source::Tasks, Cursor::default());
    let first = poller.poll().await.expect("a poll");
    assert!(!poller.by_update_time());
    assert_eq!(first.iter().map(task_of).collect::<Vec<_>>(), ids);
    // The counts, the refused page, the page in the default order.
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    sim.advance_clock(STEP);
    let second = poller.poll().await.expect("a poll");
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!((task_of(&second[0]), second[0].after.as_str()), (ids[0], "encoding"));
    let journal = sim.journal();
    let queries: Vec<Option<&str>> = journal
        .iter()
        .filter(|entry| entry.operation == Some("list_tasks"))
        .map(|entry| entry.query.as_deref())
        .collect();
    assert_eq!(
        queries,
        [
            Some("page=1&per_page=100&sort=updated_at%7Cdesc"),
            Some("page=1&per_page=100"),
            Some("page=1&per_page=100")
        ]
    );
}

/// BENCHMARKS.md (o): the calls a minute of watching 1,000 tasks at a 10 s
/// interval costs, on the simulator's clock: while nothing changes, while a
/// task changes each poll, and reading every page (`--by-creation`).
#[tokio::test]
async fn watching_a_thousand_tasks_at_ten_seconds_costs_twelve_calls_a_minute_while_idle() {
    let interval = Duration::from_secs(10);
    let config = SimConfig {
        task_step: interval,
        max_tasks: 1_000,
        ..SimConfig::fast()
    };
    let (sim, client, _) = with_tasks_on(config, 1_000).await;
    // A minute of polls, the clock stepped an interval after each: (calls, events).
    async fn minute(sim: &Simulator, poller: &mut vidplat::watch::Poller<'_>, calls: &AtomicU64) -> (u64, usize) {
        let (before, mut events) = (calls.load(Ordering::Relaxed), 0);
        for _ in 0..6 {
            events += poller.poll().await.expect("a poll").len();
            sim.advance_clock(Duration::from_secs(10));
        }
        (calls.load(Ordering::Relaxed) - before, events)
    }
    let calls = Arc::new(AtomicU64::new(0));
    let watch = client.watch().count_calls(Arc::clone(&calls));
    let mut poller = watch.poller(Source::Tasks, Cursor::default());
    let first = minute(&sim, &mut poller, &calls).await;
    let busy = minute(&sim, &mut poller, &calls).await;
    // Past the last task's end: one encodes at a time, a step each state.
    sim.advance_clock(interval * 3_010);
    poller.poll().await.expect("the last changes");
    let idle = minute(&sim, &mut poller, &calls).await;
    let whole_calls = Arc::new(AtomicU64::new(0));
    let whole = client
        .watch()
        .count_calls(Arc::clone(&whole_calls))
        .sort_by_update_time(false);
    let mut whole_poller = whole.poller(Source::Tasks, Cursor::default());
    whole_poller.poll().await.expect("a first poll");
    let every_page = minute(&sim, &mut whole_poller, &whole_calls).await;
    println!(
        "watching 1,000 tasks at 10 s: first minute {first:?}, a task changing each poll {busy:?}, \
         idle {idle:?}, every page read {every_page:?} (calls, events)"
    );
    // The first poll reads every page (10 of 100) after the counts; the next
    // read on past the first page while it holds only tasks of the newest
    // second seen (timestamps are whole seconds, and the 1,000 registrations
    // took more than one).
    assert!(first.0 >= 11 + 5 * 2 && first.0 <= 11 + 5 * 4, "{first:?}");
    assert!(first.1 > 1_000, "{first:?}");
    assert_eq!(busy.0, 12, "{busy:?}");
    assert_eq!(idle, (12, 0));
    assert_eq!(every_page, (6 * 11, 0));
}

/// A CSV import job: created with its progress, progressed, finished once
/// its tasks ended; a poll of the jobs is one call.
/// `Watch::tasks` yields one poll's events one by one, polls again only
/// once they are all taken, and sleeps its interval between polls.
#[tokio::test]
async fn the_stream_yields_a_poll_s_events_before_it_polls_again() {
    use futures::StreamExt as _;
    let (sim, client, ids) = with_tasks(3).await;
    let calls = Arc::new(AtomicU64::new(0));
    let watch = client
        .watch()
        .interval(Duration::from_millis(10))
        .count_calls(Arc::clone(&calls));
    let mut events = Box::pin(watch.tasks(Cursor::default()));
    let mut first = Vec::new();
    for _ in 0..3 {
        first.push(events.next().await.expect("an event").expect("a poll"));
    }
    let one_poll = calls.load(Ordering::Relaxed);
    assert_eq!(first.iter().map(task_of).collect::<Vec<_>>(), ids);
    assert!(first.iter().all(|event| event.after == "waiting"), "{first:?}");
    sim.advance_clock(STEP);
    let next = events.next().await.expect("an event").expect("a poll");
    assert_eq!((task_of(&next), next.after.as_str()), (ids[0], "encoding"));
    assert!(calls.load(Ordering::Relaxed) > one_poll, "polled again for it");
}

#[tokio::test]
async fn an_import_job_is_seen_created_then_finished() {
    let (sim, client, _) = with_tasks(0).await;
    let profile = client
        .encoder()
        .expect("encoder")
        .list_profiles()
        .call()
        .await
        .expect("profiles")
        .data[0]
        .id
        .expect("an id");
    let csv = format!("input_filepath,profile_id\nin.mp4,{profile}\nin.mp4,{profile}\n");
    let job = client
        .encoder()
        .expect("encoder")
        .import_tasks_csv()
        .body(csv.into_bytes())
        .call()
        .await
        .expect("imported");
    let job_id = job.id.expect("an id");
    let calls = Arc::new(AtomicU64::new(0));
    let mut poller = client
        .watch()
        .count_calls(Arc::clone(&calls))
        .poller(Source::Imports, Cursor::default());
    let mut events = Vec::new();
    for _ in 0..8 {
        events.extend(poller.poll().await.expect("a poll"));
        sim.advance_clock(STEP);
    }
    assert_eq!(calls.load(Ordering::Relaxed), 8);
    let kinds: Vec<&str> = events.iter().map(|event| event.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"import.created"), "{events:?}");
    assert_eq!(kinds.last(), Some(&"import.finished"), "{events:?}");
    assert!(
        kinds[1..kinds.len() - 1]
            .iter()
            .all(|kind| *kind == "import.progressed"),
        "{kinds:?}"
    );
    assert!(events.iter().all(|event| event.subject == Subject::ImportId(job_id)));
    let last = events.last().expect("an event");
    assert_eq!(
        (last.id.as_str(), last.after.as_str()),
        (format!("import.{job_id}.finished").as_str(), "finished")
    );
    assert!(
        last.detail
            .as_ref()
            .is_some_and(|detail| detail["task_status"].is_object()),
        "{last:?}"
    );
    // Each event's id is its own: a progress seen again would carry the same.
    let ids: std::collections::BTreeSet<&str> = events.iter().map(|event| event.id.as_str()).collect();
    assert_eq!(ids.len(), events.len());
}

/// A content: created, updated (its title), its status changed; deleted,
/// as a watch started again from its cursor sees it.
#[tokio::test]
async fn a_content_is_seen_created_updated_and_deleted() {
    use vidplat::vms::types::{CategoryCreate, ContentCreate, ContentUpdate};
    let sim = Simulator::start_with(SimConfig::fast())
        .await
        .expect("the simulator starts");
    let client = sim.client().build().expect("a client");
    let vms = client.vms().expect("vms");
    let category: CategoryCreate = serde_json::from_value(json!({"name": "Watched"})).expect("a category");
    let category = vms.register_category().body(category).call().await.expect("registered");
    let content: ContentCreate = serde_json::from_value(json!({
        "name": "intro", "title": "Intro", "category_id": category.id,
        "streams": [{"name": "mp4", "path": "/m/720.mp4", "format": "MP4", "filesize": 800}],
        "stream_sets": [{"name": "mp4", "stream_names": ["mp4"]}],
    }))
    .expect("a content");
    vms.register_content().body(content).call().await.expect("registered");
    let mut poller = client.watch().poller(Source::Contents, Cursor::default());
    let created = poller.poll().await.expect("a poll");
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(
        (
            created[0].kind.as_str(),
            &created[0].subject,
            created[0].before.as_deref()
        ),
        ("content.created", &Subject::ContentName("intro".to_owned()), None)
    );
    let mut cursor = Cursor::default();
    cursor.record(&created[0]);
    assert_eq!(poller.poll().await.expect("a poll"), []);

    // The timestamps are whole seconds: the change is a second later.
    sim.advance_clock(Duration::from_secs(1));
    let change = |members: serde_json::Value| {
        let vms = &vms;
        async move {
            let read = vms.get_content().content_name("intro").call().await.expect("read");
            let mut body =
                serde_json::to_value(ContentUpdate::try_from(ContentUpdate::builder_from(&read)).expect("an update"))
                    .expect("JSON");
            for (member, value) in members.as_object().expect("members") {
                body[member] = value.clone();
            }
            let body: ContentUpdate = serde_json::from_value(body).expect("an update");
            vms.update_content()
                .content_name("intro")
                .body(body)
                .send()
                .await
                .expect("updated");
        }
    };
    change(json!({"title": "Intro, again"})).await;
    let updated = poller.poll().await.expect("a poll");
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert_eq!(
        (
            updated[0].kind.as_str(),
            updated[0].before.as_deref(),
            updated[0].after.as_str()
        ),
        ("content.updated", Some("PUBLIC"), "PUBLIC")
    );
    sim.advance_clock(Duration::from_secs(1));
    change(json!({"status": "LIMITED"})).await;
    let limited = poller.poll().await.expect("a poll");
    assert_eq!(
        limited
            .iter()
            .map(|event| (event.kind.as_str(), event.before.as_deref(), event.after.as_str()))
            .collect::<Vec<_>>(),
        [("content.status_changed", Some("PUBLIC"), "LIMITED")]
    );
    cursor.record(&updated[0]);
    cursor.record(&limited[0]);

    vms.delete_content()
        .content_name("intro")
        .send()
        .await
        .expect("deleted");
    let mut again = client.watch().poller(Source::Contents, cursor);
    let deleted = again.poll().await.expect("a poll");
    assert_eq!(
        deleted
            .iter()
            .map(|event| (event.id.as_str(), event.kind.as_str(), event.before.as_deref()))
            .collect::<Vec<_>>(),
        [("content.intro.deleted", "content.deleted", Some("LIMITED"))]
    );
}
