//! The exporter's cost over reading the rows: one 50,000-row cloud viewing
//! history page (about 19 MiB of JSON, all rows on one day) from a local
//! server, read
//!
//! - `rows`: with the SDK's `.rows()` stream, each row counted and dropped
//!   (receive + decode: the floor);
//! - `csv`, `parquet`, `arrow`: by `.export(one day).run(Files::new(dir, format))`,
//!   the file written, synced and renamed;
//! - `discard`: by the same export into a sink that drops every row (the
//!   exporter's own work without a file: values, lineage, partitioning).
//!
//! Time: the five alternate within each round (the order rotating); the
//! median (and quartiles) of each one's ratio to `rows` in the same round is
//! reported (`-- --rounds N`: 21 by default).
//! Peak heap is the `export_heap` bench (a counting allocator would tax
//! these timings).
//!
//! `cargo bench -p vidplat-export --features parquet --bench export`
//! (`-- --rate-mib 50` to send the page at 50 MiB/s, as on a network;
//! `-- --only parquet --times 3` to run one side alone, for a profiler: the
//! difference between two `--times` is that many runs' cost).

use std::hint::black_box;
use std::time::Instant;
use vidplat_export::{Column, ExportReport as _, Files, Format, Partition, PartitionSink, RowSink, SinkError, Value};

#[path = "support/page.rs"]
mod page;
use page::ROWS;

/// A sink that drops every row: what the exporter costs before any encoder.
struct Discard;

impl RowSink for Discard {
    type Partition = Discard;

    fn open(&mut self, _: &'static str, _: Partition, _: &[Column]) -> Result<Discard, SinkError> {
        Ok(Discard)
    }
}

impl PartitionSink for Discard {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        black_box(row);
        Ok(())
    }

    fn commit(self) -> Result<(), SinkError> {
        Ok(())
    }
}

const SIDES: [&str; 5] = ["rows", "csv", "parquet", "arrow", "discard"];

/// The argument after `name`.
fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|at| args.get(at + 1))
        .map(String::as_str)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --benches` runs this once, as a smoke test.
    let rounds = match option(&args, "--rounds").and_then(|r| r.parse().ok()) {
        Some(rounds) => rounds,
        None if args.iter().any(|a| a == "--bench") => 21,
        None => 1,
    };
    let rate = page::rate_from_args(&args);
    let body = bytes::Bytes::from(page::page_body());
    let size = body.len();
    let base = page::serve(body, rate);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let client = page::client(&base);
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = || async { assert_eq!(page::rows_alone(&client).await, ROWS) };
        let export = |format: Option<Format>| {
            let client = &client;
            let dir = dir.path();
            async move {
                let export = client
                    .analytics()
                    .expect("analytics")
                    .cloud_viewing_history()
                    .export(page::period());
                let summary = match format {
                    Some(format) => export.run(Files::new(dir.join(format.extension()), format)).await,
                    None => export.run(Discard).await,
                }
                .expect("export");
                assert_eq!(summary.rows, ROWS as u64);
                assert_eq!(summary.calls, 1);
            }
        };
        let run = |side: usize| async move {
            let started = Instant::now();
            match side {
                0 => rows().await,
                1 => export(Some(Format::Csv)).await,
                2 => export(Some(Format::Parquet)).await,
                3 => export(Some(Format::Arrow)).await,
                _ => export(None).await,
            }
            started.elapsed().as_secs_f64()
        };
        if let Some(side) = option(&args, "--only") {
            let side = SIDES
                .iter()
                .position(|s| *s == side)
                .expect("--only rows|csv|parquet|arrow|discard");
            let times = option(&args, "--times").and_then(|t| t.parse().ok()).unwrap_or(1);
            for _ in 0..times {
                println!("export {}: {:.1} ms", SIDES[side], run(side).await * 1e3);
            }
            return;
        }
        // Warm: connections open, code paged in, the files' directories made.
        for side in 0..SIDES.len() {
            run(side).await;
        }
        let mut times: Vec<[f64; SIDES.len()]> = Vec::new();
        for round in 0..rounds {
            let mut took = [0.0; SIDES.len()];
            for step in 0..SIDES.len() {
                let side = (step + round) % SIDES.len();
                took[side] = run(side).await;
            }
            times.push(took);
        }
        // The quartiles: the median, and the middle half of the rounds around it.
        let quartiles = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            let at = |q: usize| values[(values.len() - 1) * q / 4];
            (at(2), at(1), at(3))
        };
        let rate = rate.map_or("as fast as the loopback takes it".to_owned(), |r| {
            format!("at {:.0} MiB/s", r / (1024.0 * 1024.0))
        });
        println!(
            "export: {ROWS} rows, {:.1} MiB sent {rate}; {} rounds",
            size as f64 / (1024.0 * 1024.0),
            times.len()
        );
        for (side, name) in SIDES.iter().enumerate() {
            let (time, ..) = quartiles(times.iter().map(|t| t[side]).collect());
            let (ratio, low, high) = quartiles(times.iter().map(|t| t[side] / t[0]).collect());
            println!(
                "export {name:>8}: {:7.1} ms (median), / rows = {ratio:.3} (quartiles {low:.3}..{high:.3})",
                time * 1e3
            );
        }
        for format in [Format::Csv, Format::Parquet, Format::Arrow] {
            let path = dir
                .path()
                .join(format.extension())
                .join(Partition::Day(page::day()).dir_name())
                .join(format!("part-000.{}", format.extension()));
            let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
            println!(
                "export: the {} file is {:.1} MiB",
                format.extension(),
                bytes as f64 / (1024.0 * 1024.0)
            );
        }
        println!("export: target: csv and parquet / rows <= 1.10");
    });
}
