//! Peak heap of the exporter against the page it reads: the `export` bench's
//! page and server, a counting `#[global_allocator]` (all threads: client,
//! decoder, server), and for each way of reading the page the peak of live
//! heap bytes above what was live before it, against what the decoded page
//! (`.call()`'s `Vec` of 50,000 rows) keeps.
//!
//! `cargo bench -p vidplat-export --features parquet --bench export_heap`
//! (`-- --rate-mib 50` to send the page at 50 MiB/s).

use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;
use vidplat::Call as _;
use vidplat_export::{ExportReport as _, Files, Format};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{LIVE, PEAK};

#[path = "support/page.rs"]
mod page;
use page::ROWS;

/// Peak live bytes above the start while `run` runs, and the bytes its result keeps.
async fn measured<T>(run: impl std::future::Future<Output = T>) -> (T, usize, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let value = black_box(run.await);
    let peak = PEAK.load(Relaxed).saturating_sub(before);
    let kept = LIVE.load(Relaxed).saturating_sub(before);
    (value, peak, kept)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

const SIDES: [&str; 4] = ["rows", "csv", "parquet", "arrow"];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = if args.iter().any(|a| a == "--bench") { 3 } else { 1 };
    let rate = page::rate_from_args(&args);
    let body = bytes::Bytes::from(page::page_body());
    let base = page::serve(body, rate);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let client = page::client(&base);
        let dir = tempfile::tempdir().expect("tempdir");
        let page = || async {
            let page = client
                .analytics()
                .expect("analytics")
                .cloud_viewing_history()
                .limit(50_000u64)
                .call()
                .await
                .expect("the page");
            assert_eq!(page.data.len(), ROWS);
            page.data
        };
        let rows = || async { assert_eq!(page::rows_alone(&client).await, ROWS) };
        let export = |format: Format| {
            let client = &client;
            let dir = dir.path().join(format.extension());
            async move {
                let summary = client
                    .analytics()
                    .expect("analytics")
                    .cloud_viewing_history()
                    .export(page::period())
                    .run(Files::new(dir, format))
                    .await
                    .expect("export");
                assert_eq!(summary.rows, ROWS as u64);
            }
        };
        // Warm: connections open, the files' directories made.
        drop(page().await);
        for format in [Format::Csv, Format::Parquet, Format::Arrow] {
            export(format).await;
        }
        let mut kept_page = 0usize;
        let mut peak_page = 0usize;
        let mut peaks = [0usize; SIDES.len()];
        for _ in 0..rounds {
            let (data, peak, kept) = measured(page()).await;
            drop(data);
            kept_page = kept_page.max(kept);
            peak_page = peak_page.max(peak);
            for (side, peak) in peaks.iter_mut().enumerate() {
                let (_, p, _) = match side {
                    0 => measured(rows()).await,
                    1 => measured(export(Format::Csv)).await,
                    2 => measured(export(Format::Parquet)).await,
                    _ => measured(export(Format::Arrow)).await,
                };
                *peak = (*peak).max(p);
            }
        }
        let rate = rate.map_or("as fast as the loopback takes it".to_owned(), |r| {
            format!("at {:.0} MiB/s", r / (1024.0 * 1024.0))
        });
        println!(
            "export_heap: {ROWS} rows sent {rate}; the decoded page (`.call()`) keeps {:.1} MiB \
             (peak {:.1} MiB while it decodes); the most of {rounds} rounds",
            mib(kept_page),
            mib(peak_page)
        );
        for (side, name) in SIDES.iter().enumerate() {
            println!(
                "export_heap {name:>8}: peak live heap {:6.1} MiB = {:.3} x the decoded page",
                mib(peaks[side]),
                peaks[side] as f64 / kept_page as f64
            );
        }
        println!("export_heap: target: peak <= 1.3 x the decoded page");
    });
}
