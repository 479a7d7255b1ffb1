//! Figure (b) of BENCHMARKS.md: decoding one cloud analytics page of 50,000 rows
//! (the documented maximum `limit`) of the viewing history, the operation whose
//! rows are the largest, through the SDK's generated type (what progenitor does
//! with a response body: `serde_json::from_slice` over the whole body) against
//! `serde_json` into a hand-written struct.
//!
//! Time: criterion, then a paired measurement (alternating decodes) for the ratio.
//! Memory: a counting `#[global_allocator]` around `std::alloc::System` gives the
//! peak of live bytes during one decode (the body itself, allocated before, is
//! not counted) and what the decoded page keeps.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode};
use serde::Deserialize;
use serde_json::json;
use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use vidplat::analytics::types::{CloudViewingHistoryPage, CloudViewingHistoryRow};

const ROWS: usize = 50_000;
/// The operation's default `engagement_bitmap_granularity`.
const GRANULARITY: usize = 20;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{LIVE, PEAK};

/// Peak live bytes while `decode` runs, above what was live before it, and the
/// bytes still held by its result.
fn measure<T>(decode: impl FnOnce() -> T) -> (usize, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let value = black_box(decode());
    let peak = PEAK.load(Relaxed) - before;
    let kept = LIVE.load(Relaxed) - before;
    drop(value);
    (peak, kept)
}

/// What a careful hand-written client would declare for a viewing record.
#[allow(dead_code)] // read only through black_box
#[derive(Deserialize)]
struct HandPage {
    #[serde(default)]
    data: Vec<HandRow>,
    truncated: Option<bool>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct HandRow {
    browser_name: Option<String>,
    content_category: Option<String>,
    content_name: Option<String>,
    content_title: Option<String>,
    content_type: Option<HandContentType>,
    date_time: Option<String>,
    #[serde(default)]
    engagement_bitmap: Vec<i64>,
    os_name: Option<String>,
    play_percent: Option<i64>,
    play_requested_count: Option<i64>,
    play_started_count: Option<i64>,
    play_time: Option<i64>,
    region: Option<String>,
    user_id: Option<String>,
}

#[derive(Deserialize)]
enum HandContentType {
    #[serde(rename = "VOD")]
    Vod,
    #[serde(other)]
    Other,
}

/// 50,000 plausible viewing records, the same on every run.
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
            json!({
                "browser_name": BROWSERS[(r % 4) as usize],
                "content_category": CATEGORIES[(r >> 8) as usize % 3],
                "content_name": format!("content-{content:04}"),
                "content_title": format!("ドラマ 第{}話: episode {content}", content % 50 + 1),
                "content_type": "VOD",
                "date_time": format!("2025-06-{:02} {:02}:{:02}:{:02}", 30 - i / 2000, (i / 60) % 24, i % 60, (r >> 4) % 60),
                "engagement_bitmap": (0..GRANULARITY).map(|p| (r >> p) & 3).collect::<Vec<_>>(),
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
    serde_json::to_vec(&json!({"data": rows, "truncated": true})).unwrap()
}

fn sdk_decode(body: &[u8]) -> CloudViewingHistoryPage {
    serde_json::from_slice(body).unwrap()
}

fn hand_decode(body: &[u8]) -> HandPage {
    serde_json::from_slice(body).unwrap()
}

/// Seconds one decode takes; the result is dropped after the clock stops.
fn timed<T>(decode: impl FnOnce() -> T) -> f64 {
    let started = Instant::now();
    let value = black_box(decode());
    let elapsed = started.elapsed().as_secs_f64();
    drop(value);
    elapsed
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn decode_50k_rows(c: &mut Criterion) {
    let body = page_body();
    assert_eq!(sdk_decode(&body).data.len(), ROWS);
    assert_eq!(hand_decode(&body).data.len(), ROWS);

    // Memory first, before criterion allocates anything of its own.
    let (sdk_peak, sdk_kept) = measure(|| sdk_decode(&body));
    let (hand_peak, hand_kept) = measure(|| hand_decode(&body));
    println!(
        "decode_50k_rows memory: body {:.1} MiB; peak live bytes during one decode: vidplat {:.1} MiB, \
         hand_written {:.1} MiB (ratio {:.3}); kept by the page: vidplat {:.1} MiB, hand_written {:.1} MiB; \
         row size: vidplat {} B, hand_written {} B",
        mib(body.len()),
        mib(sdk_peak),
        mib(hand_peak),
        sdk_peak as f64 / hand_peak as f64,
        mib(sdk_kept),
        mib(hand_kept),
        size_of::<CloudViewingHistoryRow>(),
        size_of::<HandRow>(),
    );

    let mut group = c.benchmark_group("decode_50k_rows");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    // The decoded page is dropped outside the timing.
    group.bench_function("vidplat", |b| {
        b.iter_batched(|| (), |()| sdk_decode(black_box(&body)), BatchSize::PerIteration)
    });
    group.bench_function("hand_written", |b| {
        b.iter_batched(|| (), |()| hand_decode(black_box(&body)), BatchSize::PerIteration)
    });
    group.finish();

    // Paired: alternate the two decodes so load from other processes hits both alike.
    let count = if std::env::args().any(|a| a == "--bench") {
        21
    } else {
        1
    };
    let pairs: Vec<(f64, f64)> = (0..count)
        .map(|pair| {
            if pair % 2 == 0 {
                let sdk = timed(|| sdk_decode(&body));
                (sdk, timed(|| hand_decode(&body)))
            } else {
                let hand = timed(|| hand_decode(&body));
                (timed(|| sdk_decode(&body)), hand)
            }
        })
        .collect();
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        (values[values.len() / 2], values[0], values[values.len() - 1])
    };
    let (ratio, low, high) = median(pairs.iter().map(|(sdk, hand)| sdk / hand).collect());
    let (sdk, _, _) = median(pairs.iter().map(|p| p.0 * 1e3).collect());
    let (hand, _, _) = median(pairs.iter().map(|p| p.1 * 1e3).collect());
    println!(
        "decode_50k_rows paired: vidplat {sdk:.1} ms, hand_written {hand:.1} ms (medians); \
         vidplat / hand_written = {ratio:.3} (median of {} alternating pairs; range {low:.3}..{high:.3}; \
         target <= 1.10)",
        pairs.len(),
    );
}

criterion_group!(benches, decode_50k_rows);
criterion_main!(benches);
