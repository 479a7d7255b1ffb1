//! Paginators on the builders, one test per paging style the YAML declares,
//! against a local server: the exact position parameters sent, order, where
//! each style stops, caps, prefetch depth in flight, and the analytics quota.

use futures::TryStreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vidplat::prelude::*;
use vidplat::{Client, PagingStyle, QuotaConfig};
use vidplat_core::Paginated;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn query(request: &Request, name: &str) -> Option<u64> {
    request
        .url
        .query_pairs()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
}

type Seen = Arc<Mutex<Vec<(Instant, Instant, String)>>>;

/// Answers with `shape(request)` after `delay`, recording when each request
/// arrived, when its answer was due, and its query.
#[derive(Clone)]
struct Pages {
    shape: fn(&Request) -> Value,
    delay: Duration,
    seen: Seen,
}

impl Respond for Pages {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let now = Instant::now();
        self.seen.lock().unwrap().push((
            now,
            now + self.delay,
            request.url.query().unwrap_or_default().to_owned(),
        ));
        ResponseTemplate::new(200)
            .set_delay(self.delay)
            .set_body_json((self.shape)(request))
    }
}

/// A local server answering every request on `route` with `responder`.
async fn mount(route: &str, responder: impl Respond + 'static) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::path(route))
        .respond_with(responder)
        .mount(&server)
        .await;
    server
}

async fn serve(route: &str, shape: fn(&Request) -> Value, delay: Duration) -> (MockServer, Seen) {
    let seen = Seen::default();
    let responder = Pages {
        shape,
        delay,
        seen: seen.clone(),
    };
    (mount(route, responder).await, seen)
}

fn client(server: &MockServer) -> Client {
    vidplat_tests::local_client(&server.uri()).build().unwrap()
}

fn queries(seen: &Seen) -> Vec<String> {
    seen.lock().unwrap().iter().map(|(_, _, q)| q.clone()).collect()
}

/// The most requests whose answers were pending at once.
fn most_in_flight(seen: &Seen) -> usize {
    let seen = seen.lock().unwrap();
    seen.iter()
        .map(|(arrived, _, _)| seen.iter().filter(|(a, due, _)| a <= arrived && arrived < due).count())
        .max()
        .unwrap_or(0)
}

/// 7 pages of 3 tasks, ids 1..=21, `last_page` 7.
fn task_page(request: &Request) -> Value {
    let page = query(request, "page").unwrap_or(1);
    let data: Vec<Value> = (0..3)
        .map(|i| json!({"id": (page - 1) * 3 + i + 1, "status": "ready"}))
        .collect();
    json!({"data": data, "total": 21, "per_page": 3, "current_page": page, "last_page": 7})
}

/// The ids of every task the listing yields, 3 a page, `prefetch` pages on the wire.
async fn listed_ids(client: &Client, prefetch: usize) -> Vec<i64> {
    let tasks: Vec<_> = client
        .encoder()
        .unwrap()
        .list_tasks()
        .per_page(3)
        .items()
        .prefetch(prefetch)
        .try_collect()
        .await
        .unwrap();
    tasks.iter().map(|t| t.id.unwrap()).collect()
}

#[tokio::test]
async fn last_page_style_prefetches_to_the_depth_asked_and_keeps_order() {
    // Each page answered after 300 ms: time for all four asked at once to be
    // on the wire together, even on a loaded machine.
    let (server, seen) = serve("/v1/tasks", task_page, Duration::from_millis(300)).await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    assert_eq!(
        <vidplat::encoder::builder::ListTasks as Paginated>::STYLE,
        PagingStyle::LastPage
    );

    assert_eq!(listed_ids(&client, 4).await, (1..=21).collect::<Vec<_>>());
    let mut asked = queries(&seen);
    asked.sort();
    assert_eq!(
        asked,
        (1..=7).map(|p| format!("page={p}&per_page=3")).collect::<Vec<_>>()
    );
    assert_eq!(
        most_in_flight(&seen),
        4,
        "pages 1..=4 are asked at once (before page 1 says how many there are), never more"
    );

    // Sequential by default: one page in flight.
    seen.lock().unwrap().clear();
    let pages: Vec<_> = encoder.list_tasks().per_page(3).pages().try_collect().await.unwrap();
    assert_eq!(pages.len(), 7);
    assert_eq!(most_in_flight(&seen), 1);
}

/// Pages of 3 tasks up to `last_page` 2; past it, the service answers 404.
#[derive(Clone, Default)]
struct TwoPages {
    asked: Arc<Mutex<Vec<u64>>>,
}

impl Respond for TwoPages {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let page = query(request, "page").unwrap_or(1);
        self.asked.lock().unwrap().push(page);
        if page > 2 {
            return ResponseTemplate::new(404).set_body_json(json!({"error": {"code": "NOT_FOUND"}}));
        }
        let data: Vec<Value> = (0..3)
            .map(|i| json!({"id": (page - 1) * 3 + i + 1, "status": "ready"}))
            .collect();
        ResponseTemplate::new(200)
            .set_delay(Duration::from_millis(30))
            .set_body_json(json!({"data": data, "per_page": 3, "current_page": page, "last_page": 2}))
    }
}

#[tokio::test]
async fn pages_asked_past_the_end_of_a_short_list_are_dropped_whatever_they_say() {
    let responder = TwoPages::default();
    let server = mount("/v1/tasks", responder.clone()).await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();
    let asked = |responder: &TwoPages| {
        let mut asked = std::mem::take(&mut *responder.asked.lock().unwrap());
        asked.sort();
        asked
    };

    assert_eq!(listed_ids(&client, 4).await, [1, 2, 3, 4, 5, 6]);
    // Pages 3 and 4 went out beside page 1, before it said `last_page` 2.
    assert_eq!(asked(&responder), [1, 2, 3, 4]);

    // No page past `max_pages`, even speculatively; none at all for 0.
    let pages: Vec<_> = encoder
        .list_tasks()
        .per_page(3)
        .pages()
        .prefetch(4)
        .max_pages(1)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(asked(&responder), [1]);
    let none: Vec<_> = encoder
        .list_tasks()
        .pages()
        .prefetch(4)
        .max_pages(0)
        .try_collect()
        .await
        .unwrap();
    assert!(none.is_empty());
    assert_eq!(asked(&responder), Vec::<u64>::new());
}

/// 7 pages of 3 tasks; page 2 answers after 400 ms, the others after 20 ms.
#[derive(Clone)]
struct SlowSecondPage {
    seen: Seen,
}

impl Respond for SlowSecondPage {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let page = query(request, "page").unwrap_or(1);
        let delay = Duration::from_millis(if page == 2 { 400 } else { 20 });
        let now = Instant::now();
        self.seen
            .lock()
            .unwrap()
            .push((now, now + delay, format!("page={page}")));
        ResponseTemplate::new(200)
            .set_delay(delay)
            .set_body_json(task_page(request))
    }
}

#[tokio::test]
async fn a_page_that_has_arrived_gives_its_place_on_the_wire_to_the_next() {
    let seen = Seen::default();
    let server = mount("/v1/tasks", SlowSecondPage { seen: seen.clone() }).await;
    let client = client(&server);
    assert_eq!(
        listed_ids(&client, 2).await,
        (1..=21).collect::<Vec<_>>(),
        "still in order"
    );
    let seen = seen.lock().unwrap().clone();
    let page_two_due = seen.iter().find(|(_, _, q)| q == "page=2").unwrap().1;
    let mut asked_meanwhile: Vec<&str> = seen
        .iter()
        .filter(|(arrived, _, _)| *arrived < page_two_due)
        .map(|(_, _, q)| q.as_str())
        .collect();
    // Pages 3, 4 and 5 came back one after the other while page 2 was
    // pending (twice the depth in hand); page 6 waits for page 2 to be yielded.
    // Pages 1 and 2 leave together: either may reach the server first.
    asked_meanwhile.sort_unstable();
    assert_eq!(asked_meanwhile, ["page=1", "page=2", "page=3", "page=4", "page=5"]);
    let seen: Seen = Arc::new(Mutex::new(seen));
    assert_eq!(most_in_flight(&seen), 2, "never more than 2 on the wire");
}

#[tokio::test]
async fn caps_on_pages_and_items_each_mean_one_thing() {
    let (server, seen) = serve("/v1/tasks", task_page, Duration::ZERO).await;
    let client = client(&server);
    let encoder = client.encoder().unwrap();

    let five: Vec<_> = encoder
        .list_tasks()
        .per_page(3)
        .items()
        .max_items(5)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(five.iter().map(|t| t.id.unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert_eq!(
        queries(&seen),
        ["page=1&per_page=3", "page=2&per_page=3"],
        "no page past the 5th row"
    );

    seen.lock().unwrap().clear();
    let two: Vec<_> = encoder
        .list_tasks()
        .per_page(3)
        .pages()
        .max_pages(2)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(two.len(), 2);
    assert_eq!(queries(&seen), ["page=1&per_page=3", "page=2&per_page=3"]);

    // The stream starts where the builder does.
    seen.lock().unwrap().clear();
    let from_six: Vec<_> = encoder
        .list_tasks()
        .page(6)
        .per_page(3)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(from_six.len(), 6);
    assert_eq!(queries(&seen), ["page=6&per_page=3", "page=7&per_page=3"]);
}

#[tokio::test]
async fn truncated_style_stops_at_the_first_page_not_truncated() {
    fn contents(request: &Request) -> Value {
        let page = query(request, "page").unwrap_or(1);
        json!({"data": [{"name": format!("c{page}")}], "truncated": page < 3, "current_page": page, "per_page": 1})
    }
    let (server, seen) = serve("/v1/contents", contents, Duration::from_millis(30)).await;
    let client = client(&server);
    let vms = client.vms().unwrap();
    // The next page exists only if this one says so: pages cannot be asked
    // for ahead, and a prefetch above 1 is refused before anything is sent.
    let refused = vms
        .list_contents()
        .per_page(1)
        .items()
        .prefetch(4)
        .try_collect::<Vec<_>>()
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            vidplat::Error::Paging {
                operation: "list_contents",
                pages: 0,
                problem: vidplat::PagingProblem::PrefetchNotOffered(vidplat_core::PagingStyle::Truncated),
            }
        ),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        "list_contents: the listing did not start: a truncated list says on each page whether there is another, so `.prefetch(n)` above 1 cannot ask for pages ahead; nothing was sent"
    );
    assert!(queries(&seen).is_empty(), "nothing was sent");
    let names: Vec<_> = vms
        .list_contents()
        .per_page(1)
        .items()
        .prefetch(1)
        .map_ok(|c| c.name.unwrap())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(names, ["c1", "c2", "c3"]);
    assert_eq!(
        queries(&seen),
        ["page=1&per_page=1", "page=2&per_page=1", "page=3&per_page=1"]
    );
    assert_eq!(most_in_flight(&seen), 1);
}

#[tokio::test]
async fn rank_windows_keep_the_first_windows_width() {
    fn basic(request: &Request) -> Value {
        let start = query(request, "start_with").unwrap();
        json!({"data": [{"os": format!("rank{start}")}], "truncated": start < 101, "golden": true, "unsampled": true})
    }
    let (server, seen) = serve("/v1/os/data", basic, Duration::ZERO).await;
    let client = client(&server);
    let analytics = client.analytics().unwrap();

    // Default window: the documented ranks 1..=100.
    let pages: Vec<_> = analytics.basic_by_os().pages().try_collect().await.unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!(
        queries(&seen),
        ["end_with=100&start_with=1", "end_with=200&start_with=101"]
    );

    // A window of 50 from rank 51.
    seen.lock().unwrap().clear();
    let rows: Vec<_> = analytics
        .basic_by_os()
        .start_with(51)
        .end_with(100)
        .items()
        .map_ok(|row| row.os.unwrap())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, ["rank51", "rank101"]);
    assert_eq!(
        queries(&seen),
        ["end_with=100&start_with=51", "end_with=150&start_with=101"]
    );
}

#[tokio::test]
async fn offset_limit_moves_by_the_rows_received() {
    // The server sends fewer rows than asked: the next offset counts what came.
    fn cloud(request: &Request) -> Value {
        let offset = query(request, "offset").unwrap();
        let rows: Vec<Value> = (0..2)
            .map(|i| json!({"os_name": format!("row{}", offset + i)}))
            .collect();
        json!({"data": rows, "truncated": offset < 4})
    }
    let (server, seen) = serve("/v2/os/data", cloud, Duration::ZERO).await;
    let client = client(&server);
    let analytics = client.analytics().unwrap();
    let rows: Vec<_> = analytics
        .cloud_by_os()
        .limit(50)
        .items()
        .map_ok(|row| row.os_name.unwrap())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(rows, ["row0", "row1", "row2", "row3", "row4", "row5"]);
    assert_eq!(
        queries(&seen),
        ["limit=50&offset=0", "limit=50&offset=2", "limit=50&offset=4"]
    );
}

#[tokio::test]
async fn analytics_pages_wait_for_the_quota_one_at_a_time_and_show_the_wait() {
    fn cloud(request: &Request) -> Value {
        let offset = query(request, "offset").unwrap();
        json!({"data": [{"os_name": format!("row{offset}")}], "truncated": offset < 3})
    }
    let (server, seen) = serve("/v2/os/data", cloud, Duration::from_millis(20)).await;
    let window = Duration::from_millis(400);
    let client = vidplat_tests::local_client(&server.uri())
        .analytics_quota(QuotaConfig {
            calls_per_window: 3,
            window,
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        })
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    let limiter = client.analytics_quota().unwrap().clone();
    let mut waits = limiter.watch_waits();
    let watcher = tokio::spawn(async move {
        waits
            .wait_for(Option::is_some)
            .await
            .map(|w| w.map(|w| w.quota))
            .ok()
            .flatten()
    });
    let started = Instant::now();
    let rows: Vec<_> = analytics.cloud_by_os().limit(1).items().try_collect().await.unwrap();
    assert_eq!(rows.len(), 4);
    let arrivals: Vec<Duration> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(a, _, _)| a.duration_since(started))
        .collect();
    assert!(arrivals[3] >= window, "the 4th call waits for the window: {arrivals:?}");
    assert!(arrivals[2] < window, "{arrivals:?}");
    assert_eq!(most_in_flight(&seen), 1, "analytics: 1 call at a time");
    assert_eq!(
        watcher.await.unwrap(),
        Some(vidplat::Quota::PerMinute),
        "the wait was visible"
    );
    assert_eq!(limiter.current_wait(), None);
}

/// A hostile or broken server cannot keep a paginator going: per style, the
/// same page forever ends at the second page, and an impossible `last_page` at
/// the first, each with `Error::Paging` naming the operation and the problem.
#[tokio::test]
async fn a_list_that_never_ends_is_stopped_with_the_problem_named() {
    use vidplat::{Error, PagingProblem};
    fn same_tasks(_: &Request) -> Value {
        json!({"data": [{"id": 1}], "current_page": 1, "last_page": i64::MAX})
    }
    fn below_one(_: &Request) -> Value {
        json!({"data": [{"id": 1}], "current_page": 1, "last_page": -1})
    }
    fn same_truncated(_: &Request) -> Value {
        json!({"data": [{"name": "a", "os_name": "Android"}], "truncated": true})
    }
    let (server, seen) = serve("/v1/tasks", same_tasks, Duration::ZERO).await;
    let listing = client(&server);
    let tasks = listing.encoder().unwrap().list_tasks();
    assert_eq!(
        stopped(tasks, &seen).await,
        ("list_tasks", 2, PagingProblem::SamePageAgain, 2)
    );

    let (server, seen) = serve("/v1/tasks", below_one, Duration::ZERO).await;
    let listed: Result<Vec<_>, Error> = client(&server)
        .encoder()
        .unwrap()
        .list_tasks()
        .pages()
        .try_collect()
        .await;
    assert_eq!(
        listed.map(|pages| pages.len()).unwrap_err().to_string(),
        "list_tasks: the listing stopped at page 1: the server said last_page -1, which no list has"
    );
    assert_eq!(queries(&seen).len(), 1);

    let (server, seen) = serve("/v1/contents", same_truncated, Duration::ZERO).await;
    let listing = client(&server);
    let contents = listing.vms().unwrap().list_contents();
    assert_eq!(
        stopped(contents, &seen).await,
        ("list_contents", 2, PagingProblem::SamePageAgain, 2)
    );

    let unlimited = |server: &MockServer| {
        vidplat_tests::local_client(&server.uri())
            .analytics_quota(None)
            .build()
            .unwrap()
    };
    let (server, seen) = serve("/v2/os/data", same_truncated, Duration::ZERO).await;
    let listing = unlimited(&server);
    let cloud = listing.analytics().unwrap().cloud_by_os();
    assert_eq!(
        stopped(cloud, &seen).await,
        ("cloud_by_os", 2, PagingProblem::SamePageAgain, 2)
    );

    let (server, seen) = serve("/v1/os/data", same_truncated, Duration::ZERO).await;
    let listing = unlimited(&server);
    let basic = listing.analytics().unwrap().basic_by_os();
    assert_eq!(
        stopped(basic, &seen).await,
        ("basic_by_os", 2, PagingProblem::SamePageAgain, 2)
    );
}

/// The digest of an answer's body is taken for a list that pages, which
/// compares it with the page before, and for nothing else.
#[tokio::test]
async fn only_an_answer_that_pages_carries_the_digest_of_its_body() {
    fn one_task(_: &Request) -> Value {
        json!({"id": 7, "status": "ready"})
    }
    fn one_page(_: &Request) -> Value {
        json!({"data": [{"id": 7}], "current_page": 1, "last_page": 1})
    }
    fn counts(_: &Request) -> Value {
        json!({"data": [{"content_name": "intro", "count": 3}], "truncated": false})
    }
    let (server, _) = serve("/v1/tasks/7", one_task, Duration::ZERO).await;
    let task = client(&server)
        .encoder()
        .unwrap()
        .get_task()
        .task_id(7u64)
        .send()
        .await
        .unwrap();
    assert_eq!((task.id, task.body_digest()), (Some(7), None));
    let (server, _) = serve("/v1/tasks", one_page, Duration::ZERO).await;
    let page = client(&server).encoder().unwrap().list_tasks().send().await.unwrap();
    assert_eq!(page.data.len(), 1);
    assert!(page.body_digest().is_some());
    // Read while it arrives, and not paged: no digest either.
    let (server, _) = serve("/v2/realtime/user-counts", counts, Duration::ZERO).await;
    let unlimited = vidplat_tests::local_client(&server.uri())
        .analytics_quota(None)
        .build()
        .unwrap();
    let counts = unlimited
        .analytics()
        .unwrap()
        .cloud_realtime_user_counts()
        .start("2024-10-30 21:00:00")
        .end("2024-10-30 21:15:00")
        .send()
        .await
        .unwrap();
    assert_eq!((counts.data.len(), counts.body_digest()), (1, None));
}

/// A page too large to read whole (over 1 MiB: decoded while it arrives)
/// is told from the next by every byte of its body, its digest taken chunk by
/// chunk: the same page again stops the list, one whose last row alone differs
/// does not.
#[tokio::test]
async fn a_large_page_sent_again_is_told_by_every_byte_of_its_body() {
    fn rows(last: &str) -> Value {
        let mut rows: Vec<Value> = (0..30_000)
            .map(|n| json!({"name": format!("row-{n:06}"), "os_name": "Android"}))
            .collect();
        rows.push(json!({"name": last, "os_name": "Android"}));
        json!({"data": rows, "truncated": true})
    }
    fn same(_: &Request) -> Value {
        rows("last")
    }
    fn last_row_moves(request: &Request) -> Value {
        rows(&format!("last-{}", query(request, "offset").unwrap_or(0)))
    }
    let unlimited = |server: &MockServer| {
        vidplat_tests::local_client(&server.uri())
            .analytics_quota(None)
            .build()
            .unwrap()
    };
    let (server, seen) = serve("/v2/os/data", same, Duration::ZERO).await;
    let listing = unlimited(&server);
    assert_eq!(
        stopped(listing.analytics().unwrap().cloud_by_os(), &seen).await,
        ("cloud_by_os", 2, vidplat::PagingProblem::SamePageAgain, 2)
    );
    let (server, _) = serve("/v2/os/data", last_row_moves, Duration::ZERO).await;
    let listing = unlimited(&server);
    let pages: Vec<_> = listing
        .analytics()
        .unwrap()
        .cloud_by_os()
        .pages()
        .max_pages(3)
        .try_collect()
        .await
        .expect("three pages, each another body");
    assert_eq!(pages.len(), 3);
}

/// How listing every page of `builder` stopped (`Error::Paging`'s operation,
/// pages and problem), and how many requests the server saw.
async fn stopped<'a, O>(builder: O, seen: &Seen) -> (&'static str, u64, vidplat::PagingProblem, usize)
where
    O: Paginated + Unpin + Send + 'a,
    O::Success: Send,
{
    let listed: Result<Vec<O::Success>, vidplat::Error> = builder.pages().try_collect().await;
    match listed {
        Err(vidplat::Error::Paging {
            operation,
            pages,
            problem,
        }) => (operation, pages, problem, queries(seen).len()),
        other => panic!("expected Error::Paging, got {:?}", other.map(|pages| pages.len())),
    }
}

/// A list under the analytics quota that never ends stops at 100 pages (each
/// a call of the month's 50,000) unless the caller sets a bound; other lists
/// keep the bound of 10,000.
#[tokio::test]
async fn an_endless_analytics_list_stops_at_its_default_bound_of_100_calls() {
    fn endless(request: &Request) -> Value {
        let offset = query(request, "offset").unwrap_or(0);
        json!({"data": [{"os_name": format!("row{offset}")}], "truncated": true})
    }
    let (server, seen) = serve("/v2/os/data", endless, Duration::ZERO).await;
    let client = vidplat_tests::local_client(&server.uri())
        .analytics_quota(QuotaConfig {
            calls_per_window: 1_000_000,
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        })
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    let pages: Vec<Result<_, vidplat::Error>> = analytics.cloud_by_os().limit(1).pages().collect().await;
    assert_eq!(pages.len(), 101, "100 pages, then the error");
    assert!(
        matches!(
            pages.last(),
            Some(Err(vidplat::Error::Paging {
                operation: "cloud_by_os",
                problem: vidplat::PagingProblem::TooManyPages { bound: 100 },
                ..
            }))
        ),
        "{:?}",
        pages.last()
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        101,
        "the 101st call is the last: none after the end"
    );
    assert_eq!(vidplat::pagination::DEFAULT_MAX_QUOTA_PAGES, 100);
    // A bound of the caller's own ends the stream quietly there.
    let chosen: Vec<_> = analytics
        .cloud_by_os()
        .limit(1)
        .pages()
        .max_pages(150)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(chosen.len(), 150);
}
