//! Exports a cloud analytics report as CSV, page by page, while showing when
//! a page waits for the account's analytics quota: `cargo run --example
//! report_csv > report.csv` (the CSV goes to stdout, progress to stderr).
//!
//! The documented quota is 3 calls a minute; this simulator and client use a
//! 2-second window instead so that the example shows a wait without taking
//! minutes.

use anyhow::Result;
use std::io::Write;
use std::time::Duration;
use vidplat::prelude::*;
use vidplat::QuotaConfig;
use vidplat_sim::{SimConfig, Simulator};

#[tokio::main]
async fn main() -> Result<()> {
    let window = Duration::from_secs(2);
    let sim = Simulator::start_with(SimConfig {
        analytics_window: window,
        ..SimConfig::default()
    })
    .await?;
    let quota = QuotaConfig {
        window,
        ..QuotaConfig::default()
    };
    let client = sim.client().analytics_quota(quota).build()?;

    // Progress, whenever a page waits for its turn (counted from the end of the call a window before, plus a margin):
    // "waiting 3 s for the per-minute analytics quota".
    if let Some(limiter) = client.analytics_quota() {
        let mut waits = limiter.watch_waits();
        tokio::spawn(async move {
            while waits.changed().await.is_ok() {
                if let Some(wait) = *waits.borrow_and_update() {
                    eprintln!("{wait}");
                }
            }
        });
    }

    let mut out = std::io::stdout().lock();
    // One row an OS and a player, each with its version; the columns are named as the API names them.
    writeln!(
        out,
        "os_name,os_version,player_name,player_version,user_count,play_requested_count"
    )?;
    let mut rows = client.analytics()?.cloud_by_os().limit(3).items().max_items(15);
    let mut written = 0;
    while let Some(row) = rows.try_next().await? {
        let text = |value: Option<String>| csv_field(&value.unwrap_or_default());
        let number = |value: Option<i64>| value.map(|v| v.to_string()).unwrap_or_default();
        writeln!(
            out,
            "{},{},{},{},{},{}",
            text(row.os_name),
            text(row.os_version),
            text(row.player_name),
            text(row.player_version),
            number(row.user_count),
            number(row.play_requested_count)
        )?;
        written += 1;
    }
    eprintln!("{written} rows exported");
    anyhow::ensure!(written == 15, "15 rows expected");
    Ok(())
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}
