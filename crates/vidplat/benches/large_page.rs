//! Figure (f) of BENCHMARKS.md: one 50,000-row cloud analytics page (the
//! viewing history, about 19 MiB of JSON) from a local server that sends it at
//! a limited rate, in chunks, as a real network would.
//!
//! - `transfer`: raw reqwest reads the body to its end and drops it: the floor.
//! - `read_then_decode`: raw reqwest reads the body whole, then `serde_json`
//!   decodes it into the SDK's page type: what the SDK did before (figure b's
//!   decode after the transfer).
//! - `vidplat`: `cloud_viewing_history().limit(50_000).call()`: the page,
//!   decoded while it arrives.
//! - `vidplat_rows`: `.rows()`, every row counted and dropped as it comes.
//!
//! Time: median of paired runs (the four, alternating in order), as ratios to
//! `transfer`. Memory: a counting `#[global_allocator]` (all threads: client,
//! decoder and server) gives the peak of live heap bytes during one call,
//! above what was live before, against what the decoded page keeps.
//!
//! `cargo bench -p vidplat --bench large_page` (`-- --rate-mib 50` to change the rate).

use futures::StreamExt as _;
use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use vidplat::analytics::types::CloudViewingHistoryPage;
use vidplat::{Call as _, Rows as _};

const ROWS: usize = 50_000;
const CHUNK: usize = 64 * 1024;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{LIVE, PEAK};

/// The same 50,000 rows as figure (b), built without the SDK.
fn page_body() -> Vec<u8> {
    const BROWSERS: [&str; 4] = ["Chrome", "Safari", "Edge", "Firefox"];
    const OS: [&str; 4] = ["Windows", "iOS", "Android", "macOS"];
    const REGIONS: [&str; 5] = ["Tokyo", "Osaka", "Hokkaido", "Fukuoka", "Aichi"];
    const CATEGORIES: [&str; 3] = ["drama", "news", "sports"];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let rows: Vec<_> = (0..ROWS)
        .map(|i| {
            let r = next();
            let content = r % 500;
            let duration = 600 + (r >> 20) % 3000;
            let played = (r >> 40) % (duration + 1);
            serde_json::json!({
                "browser_name": BROWSERS[(r % 4) as usize],
                "content_category": CATEGORIES[(r >> 8) as usize % 3],
                "content_name": format!("content-{content:04}"),
                "content_title": format!("ドラマ 第{}話: episode {content}", content % 50 + 1),
                "content_type": "VOD",
                "date_time": format!("2025-06-{:02} {:02}:{:02}:{:02}", 30 - i / 2000, (i / 60) % 24, i % 60, (r >> 4) % 60),
                "engagement_bitmap": (0..20).map(|p| (r >> p) & 3).collect::<Vec<_>>(),
                "os_name": OS[(r >> 12) as usize % 4],
                "play_percent": played * 100 / duration,
                "play_requested_count": 1 + (r >> 50) % 3,
                "play_started_count": 1,
                "play_time": played,
                "region": REGIONS[(r >> 16) as usize % 5],
                "user_id": format!("user-{:06}", (r >> 24) % 200_000),
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"data": rows, "truncated": true})).unwrap()
}

/// Serves `body` at `GET /v2/history` in 64 KiB chunks at `rate` bytes a second
/// (chunked transfer encoding, no `Content-Length`), on its own thread.
fn serve(body: bytes::Bytes, rate: f64) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let handler = move || {
                let body = body.clone();
                async move {
                    let started = tokio::time::Instant::now();
                    let chunks = futures::stream::unfold(0usize, move |at| {
                        let body = body.clone();
                        async move {
                            if at >= body.len() {
                                return None;
                            }
                            let end = (at + CHUNK).min(body.len());
                            // The chunk leaves when the rate allows the bytes before it.
                            tokio::time::sleep_until(started + Duration::from_secs_f64(at as f64 / rate)).await;
                            Some((Ok::<_, std::io::Error>(body.slice(at..end)), end))
                        }
                    });
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        axum::body::Body::from_stream(chunks),
                    )
                }
            };
            let app = axum::Router::new().route("/v2/history", axum::routing::get(handler));
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    format!("http://{address}")
}

/// Peak live bytes above the start while `run` runs, and the bytes its result keeps.
async fn measured<T>(run: impl std::future::Future<Output = T>) -> (T, f64, usize, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let started = Instant::now();
    let value = black_box(run.await);
    let seconds = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed).saturating_sub(before);
    let kept = LIVE.load(Relaxed).saturating_sub(before);
    (value, seconds, peak, kept)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let rate_mib = args
        .iter()
        .position(|a| a == "--rate-mib")
        .and_then(|at| args.get(at + 1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(50.0);
    let runs = if bench { 7 } else { 1 };
    let body = bytes::Bytes::from(page_body());
    let size = body.len();
    let base = serve(body, rate_mib * 1024.0 * 1024.0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        // reqwest has no TLS provider of its own here (as in a user's build).
        vidplat::install_default_tls_provider();
        let raw = reqwest::Client::new();
        let client = vidplat::Client::builder()
            .analytics_url(base.as_str())
            .api_key("bench-key")
            .analytics_quota(None)
            .build()
            .unwrap();
        let url = format!("{base}/v2/history?limit=50000");
        let transfer = || async {
            let mut response = raw.get(&url).send().await.unwrap();
            let mut total = 0usize;
            while let Some(chunk) = response.chunk().await.unwrap() {
                total += chunk.len();
            }
            assert_eq!(total, size);
        };
        let read_then_decode = || async {
            let body = raw.get(&url).send().await.unwrap().bytes().await.unwrap();
            let page: CloudViewingHistoryPage = serde_json::from_slice(&body).unwrap();
            page
        };
        let sdk = || async {
            let page = client
                .analytics()
                .unwrap()
                .cloud_viewing_history()
                .limit(50_000u64)
                .call()
                .await
                .unwrap();
            assert_eq!(page.data.len(), ROWS);
            page
        };
        let rows = || async {
            let mut stream = client
                .analytics()
                .unwrap()
                .cloud_viewing_history()
                .limit(50_000u64)
                .rows();
            let mut count = 0usize;
            while let Some(row) = stream.next().await {
                black_box(row.unwrap());
                count += 1;
            }
            assert_eq!(count, ROWS);
        };
        // Warm: connections open, code paged in.
        transfer().await;
        drop(sdk().await);

        let mut times: [Vec<f64>; 4] = Default::default();
        let mut peaks = [0usize; 4];
        let mut kept_page = 0usize;
        for run in 0..runs {
            for step in 0..4 {
                let which = (step + run) % 4;
                let (seconds, peak) = match which {
                    0 => {
                        let (_, s, p, _) = measured(transfer()).await;
                        (s, p)
                    }
                    1 => {
                        let (page, s, p, _) = measured(read_then_decode()).await;
                        drop(page);
                        (s, p)
                    }
                    2 => {
                        let (page, s, p, k) = measured(sdk()).await;
                        drop(page);
                        kept_page = kept_page.max(k);
                        (s, p)
                    }
                    _ => {
                        let (_, s, p, _) = measured(rows()).await;
                        (s, p)
                    }
                };
                times[which].push(seconds);
                peaks[which] = peaks[which].max(peak);
            }
        }
        let median = |values: &[f64]| {
            let mut v = values.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let ratio = |which: usize| {
            let mut r: Vec<f64> = times[which].iter().zip(&times[0]).map(|(a, b)| a / b).collect();
            r.sort_by(f64::total_cmp);
            (r[r.len() / 2], r[0], r[r.len() - 1])
        };
        println!(
            "large_page: {ROWS} rows, {:.1} MiB sent at {rate_mib} MiB/s in {} KiB chunks; {} paired runs",
            mib(size),
            CHUNK / 1024,
            times[0].len()
        );
        for (which, name) in ["transfer", "read_then_decode", "vidplat", "vidplat_rows"]
            .iter()
            .enumerate()
        {
            let (r, low, high) = ratio(which);
            println!(
                "large_page {name}: {:.1} ms (median), / transfer = {r:.3} (range {low:.3}..{high:.3}); \
                 peak live heap {:.1} MiB = {:.3} x the decoded page",
                median(&times[which]) * 1e3,
                mib(peaks[which]),
                peaks[which] as f64 / kept_page as f64,
            );
        }
        println!(
            "large_page: the decoded page keeps {:.1} MiB; targets: vidplat / transfer <= 1.05, \
             vidplat peak <= 1.15 x the page",
            mib(kept_page)
        );
    });
}
