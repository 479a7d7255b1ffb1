//! The list and batch benchmarks' server (BENCHMARKS.md (h) and (m)): a
//! local encoding service answering `GET /v1/tasks?page=P&per_page=N` from
//! `--tasks` tasks (default 10,000; 100 a page unless asked), every page's
//! body made before it listens, and `POST /v1/tasks` with a registration of
//! one task (the next id), answered at once or, with `--latency-ms N`, after
//! N milliseconds (a service some way off: BENCHMARKS.md (m)). Prints `VIDPLAT_ENCODER_URL=http://127.0.0.1:PORT`
//! on stdout, then serves until its stdin closes.
//!
//! ```sh
//! cargo run --release -p vidplat-cli --example bench_server -- --tasks 10000
//! ```

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::header;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const PER_PAGE: u64 = 100;

/// One task as the encoding service describes it, about 1 KB (the members of
/// `streams`, `poster` and `vms_config` are plausible: the document does not show them).
fn task(id: u64) -> Value {
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
        "encode_start": "2025-06-01 12:34:56",
        "encode_end": "2025-06-01 12:41:07",
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

#[derive(serde::Deserialize)]
struct ListQuery {
    page: Option<u64>,
    per_page: Option<u64>,
}

struct Tasks {
    count: u64,
    /// Tasks registered so far.
    registered: AtomicU64,
    /// The bodies of the pages of PER_PAGE tasks.
    pages: Vec<Bytes>,
}

fn page(count: u64, page: u64, per_page: u64) -> Bytes {
    let first = (page - 1) * per_page;
    let last = (first + per_page).min(count);
    let body = json!({
        "data": (first + 1..=last).map(task).collect::<Vec<_>>(),
        "total": count,
        "per_page": per_page,
        "current_page": page,
        "last_page": count.div_ceil(per_page).max(1),
        "from": first + 1,
        "to": last,
    });
    Bytes::from(serde_json::to_vec(&body).unwrap_or_default())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut count: u64 = 10_000;
    let mut latency = std::time::Duration::ZERO;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--tasks", Some(n)) => count = n,
            ("--latency-ms", Some(ms)) => latency = std::time::Duration::from_millis(ms),
            _ => {
                eprintln!("usage: bench_server [--tasks N] [--latency-ms N]");
                std::process::exit(2);
            }
        }
    }
    let pages = count.div_ceil(PER_PAGE).max(1);
    let tasks = Arc::new(Tasks {
        count,
        registered: AtomicU64::new(0),
        pages: (1..=pages).map(|p| page(count, p, PER_PAGE)).collect(),
    });
    let app = Router::new()
        .route(
            "/v1/tasks",
            get(
                |State(tasks): State<Arc<Tasks>>, Query(query): Query<ListQuery>| async move {
                    let per_page = query.per_page.unwrap_or(PER_PAGE).clamp(1, 1000);
                    let number = query.page.unwrap_or(1).max(1);
                    let body = match per_page {
                        PER_PAGE => tasks
                            .pages
                            .get(usize::try_from(number - 1).unwrap_or(usize::MAX))
                            .cloned()
                            .unwrap_or_else(|| page(tasks.count, number, per_page)),
                        _ => page(tasks.count, number, per_page),
                    };
                    ([(header::CONTENT_TYPE, "application/json")], body)
                },
            )
            .post(move |State(tasks): State<Arc<Tasks>>| async move {
                if !latency.is_zero() {
                    tokio::time::sleep(latency).await;
                }
                let id = tasks.registered.fetch_add(1, Ordering::Relaxed) + 1;
                let mut registered = task(id);
                registered["status"] = json!("waiting");
                let body = json!({"transaction": id, "success_count": 1, "failure_count": 0, "tasks": [registered]});
                ([(header::CONTENT_TYPE, "application/json")], body.to_string())
            }),
        )
        .with_state(tasks);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("VIDPLAT_ENCODER_URL=http://{}", listener.local_addr()?);
    let stdin_closed = tokio::task::spawn_blocking(|| {
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = stdin_closed.await;
        })
        .await
}
