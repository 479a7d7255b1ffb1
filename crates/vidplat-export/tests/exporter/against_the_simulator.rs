//! The exporter against the simulator: chunks, files, the state, 408s, the
//! month's quota and the reserve.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use vidplat::Period;
use vidplat_core::{QuotaConfig, QuotaMode};
use vidplat_export::{ExportReport as _, Files, Format, Pause};
use vidplat_sim::{SimConfig, Simulator};

/// The simulator's per-minute window, shortened; the client keeps the same one.
const WINDOW: Duration = Duration::from_millis(300);

async fn simulator(config: SimConfig) -> Simulator {
    Simulator::start_with(SimConfig {
        analytics_window: WINDOW,
        analytics_latency: Duration::from_millis(5),
        ..config
    })
    .await
    .expect("the simulator starts")
}

fn client(sim: &Simulator, per_month: u64) -> vidplat::Client {
    sim.client()
        .analytics_quota(QuotaConfig {
            window: WINDOW,
            safety_margin: Duration::from_millis(20),
            per_month,
            mode: QuotaMode::Wait,
            ..QuotaConfig::default()
        })
        .build()
        .expect("a client")
}

/// Four days ending a week ago (data the simulator has whatever today is).
fn four_days() -> Period {
    let last = Period::today_in_japan() - chrono::Days::new(7);
    Period::days(last - chrono::Days::new(3), last).expect("a period")
}

fn fixed_time() -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::parse_from_rfc3339("2026-11-25T10:00:00+09:00").expect("a time")
}

/// Every file under `dir` (the state file aside): relative path → bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    for partition in std::fs::read_dir(dir).expect("the output directory") {
        let partition = partition.expect("an entry").path();
        if !partition.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&partition).expect("a partition") {
            let file = file.expect("an entry").path();
            let name = format!(
                "{}/{}",
                partition.file_name().unwrap().to_string_lossy(),
                file.file_name().unwrap().to_string_lossy()
            );
            found.insert(name, std::fs::read(&file).expect("a file"));
        }
    }
    found
}

/// The CSV rows of a file with their `date_time` and lineage columns.
fn csv_rows(bytes: &[u8]) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(bytes);
    let headers = reader.headers().expect("a header").clone();
    reader
        .records()
        .map(|record| {
            let record = record.expect("a record");
            headers
                .iter()
                .zip(record.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn rows_are_filed_once_under_their_day_and_a_rerun_fetches_only_the_lookback() {
    let sim = simulator(SimConfig::fast()).await;
    let client = client(&sim, 50_000);
    let out = tempfile::tempdir().expect("a directory");
    let state = out.path().join("state.json");
    let period = four_days();
    let export = || {
        client
            .analytics()
            .expect("analytics")
            .cloud_viewing_history()
            .export(period)
            .chunk_days(3)
            .state_file(&state)
            .fetched_at(fixed_time())
    };

    let plan = export().plan().await.expect("a plan");
    assert_eq!(plan.chunks.len(), 2, "{plan:?}");
    assert_eq!((plan.calls_at_least, plan.month_used), (2, 0));

    let summary = export()
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("the export");
    assert_eq!(
        (summary.calls, summary.chunks_done, summary.partitions),
        (2, 2, 4),
        "{summary:?}"
    );
    assert!(summary.paused.is_none() && summary.failed.is_empty(), "{summary:?}");
    let first = files(out.path());
    let days: Vec<String> = vidplat_export::plan::days(period)
        .map(|d| format!("date={d}/part-000.csv"))
        .collect();
    assert_eq!(first.keys().cloned().collect::<Vec<_>>(), days);
    let mut rows = 0;
    for (name, bytes) in &first {
        let day = &name[5..15];
        for row in csv_rows(bytes) {
            rows += 1;
            assert!(row["date_time"].starts_with(day), "{name}: {row:?}");
            assert!(row["date_time"].ends_with("+09:00"), "{row:?}");
            assert_eq!(row["export_report"], "cloud_viewing_history");
            assert_eq!(row["export_fetched_at"], "2026-11-25T10:00:00+09:00");
        }
    }
    assert!(rows > 0, "the simulator has viewings on these days");
    assert_eq!(rows, summary.rows);
    // The same rows as the SDK's own listing of the period.
    let listed = {
        use futures::TryStreamExt as _;
        use vidplat::Paginate as _;
        let rows: Vec<_> = client
            .analytics()
            .unwrap()
            .cloud_viewing_history()
            .period(period)
            .limit(50_000u64)
            .items()
            .try_collect()
            .await
            .expect("the listing");
        rows.len() as u64
    };
    assert_eq!(listed, summary.rows);

    // Everything is done: nothing is asked for again.
    let again = export()
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("a rerun");
    assert_eq!((again.calls, again.skipped, again.partitions), (0, 4, 0), "{again:?}");

    // The lookback window: the last day only, its file rewritten whole (the same bytes).
    let lookback = export()
        .lookback_days(1)
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("a rerun");
    assert_eq!(
        (lookback.calls, lookback.skipped, lookback.partitions),
        (1, 3, 1),
        "{lookback:?}"
    );
    assert_eq!(files(out.path()), first);
}

#[tokio::test]
async fn a_chunk_answered_408_is_halved_and_a_day_that_still_is_gets_reported() {
    // A query costs rows asked for × days: 50,000 × 4 days times out, 50,000 × 2 does not.
    let sim = simulator(SimConfig {
        analytics_slow_cost: 150_000,
        ..SimConfig::fast()
    })
    .await;
    let halving = client(&sim, 50_000);
    let out = tempfile::tempdir().expect("a directory");
    let summary = halving
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .export(four_days())
        .chunk_days(4)
        .run(Files::new(out.path(), Format::Ndjson))
        .await
        .expect("the export");
    assert_eq!(summary.chunks_split, 1, "{summary:?}");
    assert_eq!((summary.calls, summary.chunks_done, summary.partitions), (3, 2, 4));
    assert!(summary.failed.is_empty());

    // Every query times out: each one-day chunk is reported once, none is asked for again.
    let sim = simulator(SimConfig {
        analytics_slow_cost: 0,
        ..SimConfig::fast()
    })
    .await;
    let slow = client(&sim, 50_000);
    let out = tempfile::tempdir().expect("a directory");
    let summary = slow
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .export(four_days())
        .chunk_days(2)
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("the export");
    // 2 chunks of 2 days, each halved: 2 + 4 calls, 4 days reported.
    assert_eq!(
        (summary.calls, summary.chunks_split, summary.chunks_done),
        (6, 2, 0),
        "{summary:?}"
    );
    assert_eq!(summary.failed.len(), 4);
    assert!(summary.failed[0].reason.contains("408"), "{:?}", summary.failed[0]);
    assert!(files(out.path()).is_empty(), "no file for a chunk that failed");
}

#[tokio::test]
async fn a_whole_period_report_is_never_split() {
    let sim = simulator(SimConfig {
        analytics_slow_cost: 0,
        ..SimConfig::fast()
    })
    .await;
    let client = client(&sim, 50_000);
    let out = tempfile::tempdir().expect("a directory");
    let summary = client
        .analytics()
        .unwrap()
        .cloud_by_os()
        .export(four_days())
        .chunk_days(1)
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("the export");
    assert_eq!(
        (summary.calls, summary.chunks_split, summary.failed.len()),
        (1, 0, 1),
        "{summary:?}"
    );
    let info = vidplat_export::REPORTS
        .iter()
        .find(|r| r.name == "cloud_by_os")
        .unwrap();
    assert_eq!(info.split, vidplat_export::Split::WholePeriod);
    assert!(info.reason.contains("distinct"), "{}", info.reason);
}

#[tokio::test]
async fn the_month_spent_pauses_the_run_and_the_next_month_finishes_it() {
    let sim = simulator(SimConfig {
        analytics_monthly: 2,
        ..SimConfig::fast()
    })
    .await;
    let out = tempfile::tempdir().expect("a directory");
    let state = out.path().join("state.json");
    let run = |client: vidplat::Client| {
        let state = state.clone();
        let dir = out.path().to_path_buf();
        async move {
            client
                .analytics()
                .unwrap()
                .cloud_viewing_history()
                .export(four_days())
                .chunk_days(1)
                .state_file(&state)
                .fetched_at(fixed_time())
                .run(Files::new(dir, Format::Csv))
                .await
                .expect("the export")
        }
    };
    let first = run(client(&sim, 50_000)).await;
    assert_eq!(first.chunks_done, 2, "{first:?}");
    let Some(Pause::Quota { resume_at, .. }) = &first.paused else {
        panic!("paused by the server's monthly limit: {first:?}");
    };
    assert!(resume_at.is_some(), "the server said when the month turns");
    assert_eq!(files(out.path()).len(), 2);

    sim.advance_clock(Duration::from_secs(32 * 86_400));
    let second = run(client(&sim, 50_000)).await;
    assert_eq!((second.chunks_done, second.skipped), (2, 2), "{second:?}");
    assert!(second.paused.is_none());

    // The same files as one run that was never paused.
    let whole = tempfile::tempdir().expect("a directory");
    let fresh = simulator(SimConfig::fast()).await;
    client(&fresh, 50_000)
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .export(four_days())
        .chunk_days(1)
        .fetched_at(fixed_time())
        .run(Files::new(whole.path(), Format::Csv))
        .await
        .expect("the export");
    assert_eq!(files(out.path()), files(whole.path()));
}

/// The reserve holds before every call: before each chunk of a day (two
/// chunks read, then a pause), and between the pages of one chunk of many
/// pages (two pages read, nothing of the chunk committed).
#[tokio::test]
async fn the_reserve_stops_before_the_month_falls_below_it() {
    let sim = simulator(SimConfig {
        analytics_per_minute: 1_000,
        ..SimConfig::fast()
    })
    .await;
    for (chunk_days, page_rows, chunks_done) in [(1, 50_000, 2), (4, 37, 0)] {
        let out = tempfile::tempdir().expect("a directory");
        // Each run's client counts 5 calls a month; keep 3 of them.
        let summary = client(&sim, 5)
            .analytics()
            .unwrap()
            .cloud_viewing_history()
            .export(four_days())
            .chunk_days(chunk_days)
            .page_rows(page_rows)
            .reserve_month(3)
            .run(Files::new(out.path(), Format::Csv))
            .await
            .expect("the export");
        assert_eq!((summary.calls, summary.chunks_done), (2, chunks_done), "{summary:?}");
        match &summary.paused {
            Some(Pause::Reserve { remaining, reserve, .. }) => assert_eq!((*remaining, *reserve), (3, 3)),
            other => panic!("paused by the reserve: {other:?}"),
        }
    }
}

#[tokio::test]
async fn small_pages_follow_truncated_to_the_same_files_as_one_page() {
    let sim = simulator(SimConfig {
        analytics_per_minute: 1_000,
        ..SimConfig::fast()
    })
    .await;
    let client = sim.client().analytics_quota(None).build().expect("a client");
    let period = four_days();
    let export = |dir: &Path, rows: u64| {
        client
            .analytics()
            .unwrap()
            .cloud_viewing_history()
            .export(period)
            .chunk_days(4)
            .page_rows(rows)
            .fetched_at(fixed_time())
            .run(Files::new(dir, Format::Ndjson))
    };
    let (whole, paged) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = export(whole.path(), 50_000).await.expect("one page");
    let many = export(paged.path(), 37).await.expect("pages of 37 rows");
    assert_eq!(one.calls, 1);
    // Every page but the last is full and says `truncated`; the last ends the chunk.
    assert_eq!(
        many.calls,
        one.rows.div_ceil(37) + u64::from(one.rows % 37 == 0),
        "{many:?}"
    );
    assert_eq!(many.rows, one.rows);
    assert_eq!(files(paged.path()), files(whole.path()));
}

/// What another user plants in a shared output directory cannot turn the
/// export against its user: a FIFO as the state file is refused at once
/// (not read forever), a link at a temporary file's name is replaced (its
/// target untouched), and a partition directory that is a link to elsewhere
/// is refused (no file written there).
#[cfg(unix)]
#[tokio::test]
async fn links_and_fifos_planted_in_the_output_directory_are_never_followed() {
    let sim = simulator(SimConfig::fast()).await;
    let client = client(&sim, 50_000);
    let out = tempfile::tempdir().expect("a directory");
    let elsewhere = tempfile::tempdir().expect("another directory");
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, "keep me").expect("the victim file");
    let period = four_days();
    let first_day = vidplat_export::plan::days(period).next().expect("a day");
    let export = |state: &Path| {
        client
            .analytics()
            .expect("analytics")
            .cloud_viewing_history()
            .export(period)
            .state_file(state)
            .fetched_at(fixed_time())
    };

    // A FIFO where the state is: refused at once, nothing fetched.
    let fifo = out.path().join("fifo-state.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let refused = tokio::time::timeout(
        Duration::from_secs(5),
        export(&fifo).run(Files::new(out.path(), Format::Csv)),
    )
    .await
    .expect("the export does not wait on the FIFO")
    .expect_err("a FIFO is not a state file");
    assert!(refused.to_string().contains("is not a regular file"), "{refused}");

    // Links at the temporary names this process would write: replaced, never followed.
    let state = out.path().join("state.json");
    let pid = std::process::id();
    std::os::unix::fs::symlink(&victim, out.path().join(format!(".state.json.{pid}.tmp"))).expect("a link");
    let day_dir = out.path().join(format!("date={first_day}"));
    std::fs::create_dir(&day_dir).expect("a partition directory");
    std::os::unix::fs::symlink(&victim, day_dir.join(format!(".part-000.csv.{pid}.tmp"))).expect("a link");
    let summary = export(&state)
        .run(Files::new(out.path(), Format::Csv))
        .await
        .expect("the export");
    assert!(summary.failed.is_empty(), "{summary:?}");
    assert_eq!(std::fs::read_to_string(&victim).expect("the victim"), "keep me");
    assert!(std::fs::symlink_metadata(day_dir.join("part-000.csv"))
        .expect("the partition")
        .is_file());

    // A partition directory that is a link to elsewhere: refused, nothing written there.
    let out = tempfile::tempdir().expect("a third directory");
    std::os::unix::fs::symlink(elsewhere.path(), out.path().join(format!("date={first_day}"))).expect("a link");
    let state = out.path().join("state.json");
    let outcome = export(&state).run(Files::new(out.path(), Format::Csv)).await;
    let message = match outcome {
        Ok(summary) => format!("{:?}", summary.failed),
        Err(error) => error.to_string(),
    };
    assert!(message.contains("is not a directory of its own"), "{message}");
    let written: Vec<_> = std::fs::read_dir(elsewhere.path())
        .expect("elsewhere")
        .map(|e| e.expect("an entry").file_name())
        .collect();
    assert_eq!(written, ["victim"], "nothing written through the link");
}
