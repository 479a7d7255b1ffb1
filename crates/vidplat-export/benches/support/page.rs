//! The page both export benches serve (`export` for time, `export_heap` for
//! memory): 50,000 cloud viewing-history rows, all on one day, built with the
//! generated row type and serialised as the server sends them, and a local
//! server that answers every GET with it.

use std::time::Duration;
use vidplat_analytics::types::{CloudViewingHistoryPage, CloudViewingHistoryRow, ContentType};

/// The documented maximum `limit` of the cloud edition.
pub const ROWS: usize = 50_000;
/// The sending server's chunk, as in the SDK's `large_page` bench.
const CHUNK: usize = 64 * 1024;

/// Reads the page through `.rows()` alone (no file), each row given to
/// `black_box`: the side every export is compared with. The rows read.
pub async fn rows_alone(client: &vidplat::Client) -> usize {
    use futures::StreamExt as _;
    use vidplat::Rows as _;
    let mut stream = client
        .analytics()
        .expect("analytics")
        .cloud_viewing_history()
        .limit(50_000u64)
        .rows();
    let mut count = 0usize;
    while let Some(row) = stream.next().await {
        std::hint::black_box(row.expect("a row"));
        count += 1;
    }
    count
}

/// The day every row falls on (Japan time).
pub fn day() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 10, 1).expect("a day")
}

/// The page's JSON: the rows of figure (b) of BENCHMARKS.md (same value
/// distributions), dated inside [`day`], `truncated: false` so the exporter
/// reads one page.
pub fn page_body() -> Vec<u8> {
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
    let data = (0..ROWS)
        .map(|i| {
            let r = next();
            let content = r % 500;
            let duration = 600 + (r >> 20) % 3000;
            let played = (r >> 40) % (duration + 1);
            // Newest first, as the service sends them, all on one day.
            let second = (ROWS - 1 - i) * 86_399 / (ROWS - 1);
            CloudViewingHistoryRow {
                browser_name: Some(BROWSERS[(r % 4) as usize].to_owned()),
                content_category: Some(CATEGORIES[(r >> 8) as usize % 3].to_owned()),
                content_name: Some(format!("content-{content:04}")),
                content_title: Some(format!("ドラマ 第{}話: episode {content}", content % 50 + 1)),
                // One row in a thousand has a type this SDK does not know.
                content_type: Some(if i % 1000 == 999 {
                    ContentType::Other("LIVE".to_owned())
                } else {
                    ContentType::Vod
                }),
                date_time: Some(format!(
                    "{} {:02}:{:02}:{:02}",
                    day(),
                    second / 3600,
                    second / 60 % 60,
                    second % 60
                )),
                engagement_bitmap: (0..20).map(|p| ((r >> p) & 3) as i64).collect(),
                os_name: Some(OS[(r >> 12) as usize % 4].to_owned()),
                play_percent: Some((played * 100 / duration) as i64),
                play_requested_count: Some(1 + ((r >> 50) % 3) as i64),
                play_started_count: Some(1),
                play_time: Some(played as i64),
                region: Some(REGIONS[(r >> 16) as usize % 5].to_owned()),
                user_id: Some(format!("user-{:06}", (r >> 24) % 200_000)),
            }
        })
        .collect();
    let page = CloudViewingHistoryPage {
        data,
        truncated: Some(false),
    };
    serde_json::to_vec(&page).expect("a page serialises")
}

/// Serves `body` for every GET on 127.0.0.1 (its own thread and runtime), in
/// 64 KiB chunks, at `rate` bytes a second when given, else as fast as the
/// loopback takes it. The base URL.
pub fn serve(body: bytes::Bytes, rate: Option<f64>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
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
                            if let Some(rate) = rate {
                                // The chunk leaves when the rate allows the bytes before it.
                                tokio::time::sleep_until(started + Duration::from_secs_f64(at as f64 / rate)).await;
                            }
                            Some((Ok::<_, std::io::Error>(body.slice(at..end)), end))
                        }
                    });
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        axum::body::Body::from_stream(chunks),
                    )
                }
            };
            let app = axum::Router::new().fallback(axum::routing::get(handler));
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    format!("http://{address}")
}

/// A client of that server with no client-side quota limiter (no waits).
pub fn client(base: &str) -> vidplat::Client {
    vidplat::Client::builder()
        .analytics_url(base)
        .api_key("bench-key")
        .analytics_quota(None)
        .build()
        .expect("client")
}

/// `--rate-mib N` from the bench's arguments: the server's rate, unlimited without it.
pub fn rate_from_args(args: &[String]) -> Option<f64> {
    args.iter()
        .position(|a| a == "--rate-mib")
        .and_then(|at| args.get(at + 1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|mib| mib * 1024.0 * 1024.0)
}

/// The one-day period of the page's rows.
pub fn period() -> vidplat::Period {
    vidplat::Period::day(day())
}
