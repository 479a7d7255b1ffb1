//! Figures (a) and (c) of BENCHMARKS.md, against a local axum server on 127.0.0.1
//! that this bench starts itself (one worker thread; the client runs on another).
//!
//! (a) `get_task`: one `get task` call through `vidplat` (`.call()`) against the same
//!     request made with raw `reqwest` + `serde_json` into a hand-written struct:
//!     same server, same body, same headers, one keep-alive client each, warm.
//!     After criterion's two timings, a paired measurement (blocks of calls that
//!     alternate between the two clients) prints the ratio with the machine's load
//!     drift cancelled out. `get_task_decode_only` times the decoding part alone.
//! (c) `list_10k_tasks`: 10,000 tasks (100 pages of 100) from a server that adds
//!     5 ms to every list request: the paginator's concurrent prefetch
//!     (`list_tasks().items().prefetch(n)`) against a plain page-after-page loop, the
//!     client's CPU floor (`decode_only`: the 100 bodies decoded from memory), and
//!     what a hand-written client gets from the same server at depth 4
//!     (`raw_pipelined_4`: raw `reqwest` keeping 4 requests in flight, each page
//!     decoded on the blocking pool as it arrives, with no bound on how many at once).

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::header;
use axum::routing::get;
use axum::Router;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use futures::{stream, StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;
use vidplat::Call;
use vidplat::Paginate;

const API_KEY: &str = "bench-api-key";
const TASK_ID: u64 = 7;
const PAGES: u64 = 100;
const PER_PAGE: u64 = 100;
/// Added by the server to every list request (figure c).
const LIST_LATENCY: Duration = Duration::from_millis(5);
/// The paginator's prefetch depths measured (4 is the one the crate documentation shows).
const PREFETCH: [usize; 3] = [4, 8, 16];

/// One task as the encoding service describes it. The members of `streams`,
/// `poster` and `vms_config` are not shown by the document; these are plausible.
fn task_json(id: u64) -> Value {
    json!({
        "id": id,
        "transaction": 1000 + id / 3,
        "status": "ready",
        "error_code": 0,
        "input_filename": format!("input/movie-{id:05}.mp4"),
        "output_filename": format!("movie-{id:05}"),
        "profile_id": 12,
        "profile_name": "standard-abr",
        "preset_id": 34,
        "preset_name": "hls-720p",
        "format": "HLS",
        "destination": "objstore://bench-bucket/outputs",
        "poster": {"destination": "objstore://bench-bucket/posters", "filename_prefix": format!("poster-{id}")},
        "seek_preview": null,
        "encode_start": "2025-06-01 12:34:56",
        "encode_end": "2025-06-01 12:41:07",
        "episode_name": null,
        "publish_start": null,
        "publish_end": null,
        "vms_config": {"content_id": format!("c-{id}"), "category_id": 3},
        "created_at": "2025-06-01 12:30:00",
        "updated_at": "2025-06-01 12:41:09",
        "streams": [
            {"height": 1080, "video_bitrate": 5000, "audio_bitrate": 128},
            {"height": 720, "video_bitrate": 2500, "audio_bitrate": 128},
            {"height": 360, "video_bitrate": 800, "audio_bitrate": 96}
        ]
    })
}

fn page_json(page: u64) -> Value {
    let first = (page - 1) * PER_PAGE;
    json!({
        "data": (first + 1..=first + PER_PAGE).map(task_json).collect::<Vec<_>>(),
        "total": PAGES * PER_PAGE,
        "per_page": PER_PAGE,
        "current_page": page,
        "last_page": PAGES,
        "from": first + 1,
        "to": first + PER_PAGE,
    })
}

/// What a careful hand-written client would declare for a task: the same
/// members, timestamps parsed into `chrono`, free-form objects kept as JSON maps.
#[allow(dead_code)] // read only through black_box
#[derive(Deserialize)]
struct HandTask {
    id: Option<i64>,
    transaction: Option<i64>,
    status: Option<String>,
    error_code: Option<i64>,
    input_filename: Option<String>,
    #[serde(default)]
    multi_angles: Vec<String>,
    output_filename: Option<String>,
    profile_id: Option<i64>,
    profile_name: Option<String>,
    preset_id: Option<i64>,
    preset_name: Option<String>,
    format: Option<String>,
    destination: Option<String>,
    poster: Option<Map<String, Value>>,
    seek_preview: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "timestamp")]
    encode_start: Option<chrono::NaiveDateTime>,
    #[serde(default, deserialize_with = "timestamp")]
    encode_end: Option<chrono::NaiveDateTime>,
    episode_name: Option<String>,
    #[serde(default, deserialize_with = "timestamp")]
    publish_start: Option<chrono::NaiveDateTime>,
    #[serde(default, deserialize_with = "timestamp")]
    publish_end: Option<chrono::NaiveDateTime>,
    vms_config: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "timestamp")]
    created_at: Option<chrono::NaiveDateTime>,
    #[serde(default, deserialize_with = "timestamp")]
    updated_at: Option<chrono::NaiveDateTime>,
    #[serde(default)]
    streams: Vec<Map<String, Value>>,
}

fn timestamp<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<chrono::NaiveDateTime>, D::Error> {
    let text: Option<String> = Option::deserialize(deserializer)?;
    text.map(|t| chrono::NaiveDateTime::parse_from_str(&t, "%Y-%m-%d %H:%M:%S").map_err(serde::de::Error::custom))
        .transpose()
}

/// A page as the hand-written client declares it.
#[derive(Deserialize)]
struct HandPage {
    data: Vec<HandTask>,
}

struct Bodies {
    task: Bytes,
    pages: Vec<Bytes>,
}

#[derive(Deserialize)]
struct ListQuery {
    page: Option<u64>,
}

fn json_response(body: Bytes) -> ([(header::HeaderName, &'static str); 1], Bytes) {
    ([(header::CONTENT_TYPE, "application/json")], body)
}

/// The local encoding service: `GET /v1/tasks/{id}` answers at once, `GET /v1/tasks` after 5 ms.
struct Server {
    _runtime: Runtime,
    base_url: String,
}

fn start_server() -> Server {
    let bodies = Arc::new(Bodies {
        task: Bytes::from(serde_json::to_vec(&task_json(TASK_ID)).unwrap()),
        pages: (1..=PAGES)
            .map(|page| Bytes::from(serde_json::to_vec(&page_json(page)).unwrap()))
            .collect(),
    });
    let app = Router::new()
        .route(
            "/v1/tasks/{id}",
            get(|State(bodies): State<Arc<Bodies>>| async move { json_response(bodies.task.clone()) }),
        )
        .route(
            "/v1/tasks",
            get(
                |State(bodies): State<Arc<Bodies>>, Query(query): Query<ListQuery>| async move {
                    tokio::time::sleep(LIST_LATENCY).await;
                    let page = query.page.unwrap_or(1).clamp(1, PAGES);
                    json_response(bodies.pages[(page - 1) as usize].clone())
                },
            ),
        )
        .with_state(bodies);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bench-server")
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    Server {
        _runtime: runtime,
        base_url,
    }
}

fn client_runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn sdk_client(base_url: &str) -> vidplat::Client {
    vidplat::Client::builder()
        .encoder_url(base_url)
        .api_key(API_KEY)
        .build()
        .unwrap()
}

/// The raw client, configured like the SDK's: same user agent, connect and request timeouts.
fn raw_client() -> reqwest::Client {
    // reqwest has no TLS provider of its own here (as in a user's build).
    vidplat::install_default_tls_provider();
    reqwest::Client::builder()
        .user_agent(concat!("vidplat-rust/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

async fn sdk_get_task(encoder: &vidplat::encoder::Client) -> vidplat::encoder::types::Task {
    encoder.get_task().task_id(TASK_ID).call().await.unwrap()
}

/// A GET as the hand-written client sends it: the SDK's headers and request timeout.
fn raw_get(http: &reqwest::Client, url: &str) -> reqwest::RequestBuilder {
    http.get(url)
        .bearer_auth(API_KEY)
        .header(header::ACCEPT, "application/json")
        .timeout(Duration::from_secs(30))
}

async fn raw_get_task(http: &reqwest::Client, url: &str) -> HandTask {
    let response = raw_get(http, url).send().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.unwrap()
}

fn get_task(c: &mut Criterion) {
    let server = start_server();
    let runtime = client_runtime();
    let sdk = sdk_client(&server.base_url);
    let encoder = sdk.encoder().unwrap();
    let raw = raw_client();
    let url = format!("{}/v1/tasks/{TASK_ID}", server.base_url);

    // Both decode the same task.
    runtime.block_on(async {
        let task = sdk_get_task(encoder).await;
        let hand = raw_get_task(&raw, &url).await;
        assert_eq!(task.id, hand.id);
        assert_eq!(task.streams.len(), hand.streams.len());
        assert_eq!(task.updated_at.as_ref().and_then(|t| t.value()), hand.updated_at);
    });

    // `VIDPLAT_BENCH_CALLS=vidplat:N` (or `raw_reqwest:N`): only N calls of one
    // side, then exit; run under `valgrind --tool=callgrind` at two values of N,
    // the difference in instructions counts one call's, free of the host's noise.
    if let Ok(spec) = std::env::var("VIDPLAT_BENCH_CALLS") {
        let (side, calls) = spec
            .split_once(':')
            .expect("VIDPLAT_BENCH_CALLS=vidplat:N or raw_reqwest:N");
        let calls: usize = calls.parse().expect("a number of calls");
        runtime.block_on(async {
            for _ in 0..calls {
                match side {
                    "vidplat" => drop(black_box(sdk_get_task(encoder).await)),
                    "raw_reqwest" => drop(black_box(raw_get_task(&raw, &url).await)),
                    other => panic!("no side {other}"),
                }
            }
        });
        std::process::exit(0);
    }

    // The decoding part of one call, on its own: the same body into each type.
    let body = serde_json::to_vec(&task_json(TASK_ID)).unwrap();
    let mut group = c.benchmark_group("get_task_decode_only");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("vidplat", |b| {
        b.iter(|| black_box(serde_json::from_slice::<vidplat::encoder::types::Task>(black_box(&body)).unwrap()))
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| black_box(serde_json::from_slice::<HandTask>(black_box(&body)).unwrap()))
    });
    group.finish();

    let mut group = c.benchmark_group("get_task");
    group.bench_function("vidplat", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(sdk_get_task(encoder).await) })
    });
    group.bench_function("raw_reqwest", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(raw_get_task(&raw, &url).await) })
    });
    group.finish();

    // Paired: blocks of calls alternating between the clients (order swapped every
    // block), so that load from other processes hits both alike.
    let full = std::env::args().any(|a| a == "--bench");
    let (blocks, calls) = if full { (61, 100) } else { (3, 5) };
    let (ratios, sdk_times, raw_times) = runtime.block_on(async {
        let (mut ratios, mut sdk_times, mut raw_times) = (Vec::new(), Vec::new(), Vec::new());
        for block in 0..blocks {
            let mut sdk_time = Duration::ZERO;
            let mut raw_time = Duration::ZERO;
            for turn in 0..2 {
                let started = Instant::now();
                if (block + turn) % 2 == 0 {
                    for _ in 0..calls {
                        black_box(sdk_get_task(encoder).await);
                    }
                    sdk_time += started.elapsed();
                } else {
                    for _ in 0..calls {
                        black_box(raw_get_task(&raw, &url).await);
                    }
                    raw_time += started.elapsed();
                }
            }
            ratios.push(sdk_time.as_secs_f64() / raw_time.as_secs_f64());
            sdk_times.push(sdk_time.as_secs_f64() * 1e6 / calls as f64);
            raw_times.push(raw_time.as_secs_f64() * 1e6 / calls as f64);
        }
        (ratios, sdk_times, raw_times)
    });
    let (median, low, high) = median_and_quartiles(ratios);
    let (sdk_median, _, _) = median_and_quartiles(sdk_times);
    let (raw_median, _, _) = median_and_quartiles(raw_times);
    println!(
        "get_task paired: vidplat {sdk_median:.1} us/call, raw_reqwest {raw_median:.1} us/call (medians over blocks); \
         vidplat / raw_reqwest = {median:.3} (median of {blocks} blocks of {calls}+{calls} calls; \
         quartiles {low:.3}..{high:.3}; target <= 1.02)"
    );
}

fn median_and_quartiles(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.25), at(0.75))
}

async fn sequential_pages(encoder: &vidplat::encoder::Client) -> Vec<vidplat::encoder::types::Task> {
    let mut tasks = Vec::new();
    let mut page = 1u64;
    loop {
        let list = encoder.list_tasks().page(page).per_page(PER_PAGE).call().await.unwrap();
        let last = list.last_page.unwrap_or(1).max(1) as u64;
        tasks.extend(list.data);
        if page >= last {
            return tasks;
        }
        page += 1;
    }
}

async fn prefetched_pages(encoder: &vidplat::encoder::Client, prefetch: usize) -> Vec<vidplat::encoder::types::Task> {
    encoder
        .list_tasks()
        .per_page(PER_PAGE)
        .items()
        .prefetch(prefetch)
        .try_collect()
        .await
        .unwrap()
}

/// The hand-written reference at a given depth: it knows the number of pages
/// beforehand (the SDK learns it from the first page, and asks for the
/// `depth - 1` pages after it meanwhile, so both start `depth` requests at once).
async fn raw_pipelined_pages(http: &reqwest::Client, url: &str, depth: usize) -> Vec<HandTask> {
    stream::iter(1..=PAGES)
        .map(|page| async move {
            let body = raw_get(http, url)
                .query(&[("page", page), ("per_page", PER_PAGE)])
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            tokio::task::spawn_blocking(move || serde_json::from_slice::<HandPage>(&body).unwrap().data)
                .await
                .unwrap()
        })
        .buffered(depth)
        .fold(Vec::new(), |mut tasks, page| async move {
            tasks.extend(page);
            tasks
        })
        .await
}

fn list_10k_tasks(c: &mut Criterion) {
    let server = start_server();
    let runtime = client_runtime();
    let sdk = sdk_client(&server.base_url);
    let encoder = sdk.encoder().unwrap();
    let raw = raw_client();
    let list_url = format!("{}/v1/tasks", server.base_url);

    runtime.block_on(async {
        let sequential = sequential_pages(encoder).await;
        let pipelined = raw_pipelined_pages(&raw, &list_url, PREFETCH[0]).await;
        assert!(
            pipelined.iter().map(|t| t.id).eq(sequential.iter().map(|t| t.id)),
            "the hand-written client's tasks differ"
        );
        assert_eq!(sequential.len(), (PAGES * PER_PAGE) as usize);
        for prefetch in PREFETCH {
            let prefetched = prefetched_pages(encoder, prefetch).await;
            assert_eq!(prefetched.len(), sequential.len());
            assert!(
                prefetched.iter().zip(&sequential).all(|(a, b)| a.id == b.id),
                "pages out of order"
            );
        }
    });

    let mut group = c.benchmark_group("list_10k_tasks");
    // One listing takes 0.1 to 1 s: few samples, each of the same number of listings.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1));
    // The client's CPU floor: decoding the 100 page bodies, no network, no waiting.
    let bodies: Vec<Vec<u8>> = (1..=PAGES)
        .map(|page| serde_json::to_vec(&page_json(page)).unwrap())
        .collect();
    group.bench_function("decode_only", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(serde_json::from_slice::<vidplat::encoder::types::TaskList>(body).unwrap());
            }
        })
    });
    // The 10,000 tasks are dropped outside the timing (`iter_with_large_drop`):
    // freeing them (~25 ms, their free-form objects are maps) is the caller's
    // cost whatever the paging, and would only add the same to both sides.
    group.bench_function("sequential", |b| {
        b.to_async(&runtime)
            .iter_with_large_drop(|| async { black_box(sequential_pages(encoder).await) })
    });
    for prefetch in PREFETCH {
        group.bench_function(format!("prefetch_{prefetch}"), |b| {
            b.to_async(&runtime)
                .iter_with_large_drop(|| async { black_box(prefetched_pages(encoder, prefetch).await) })
        });
    }
    group.bench_function(format!("raw_pipelined_{}", PREFETCH[0]), |b| {
        b.to_async(&runtime)
            .iter_with_large_drop(|| async { black_box(raw_pipelined_pages(&raw, &list_url, PREFETCH[0]).await) })
    });
    group.finish();
}

criterion_group!(benches, get_task, list_10k_tasks);
criterion_main!(benches);
