//! `vidplat analytics export`, run as a user runs it, against the simulator
//! started in this process: killed mid-run and run again, paused by the
//! month's quota, planned without a call.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use vidplat::Period;
use vidplat_sim::{SimConfig, Simulator};

/// The simulator's per-minute window, shortened; the command keeps the same one.
const WINDOW: &str = "300ms";

async fn simulator(config: SimConfig) -> Simulator {
    Simulator::start_with(SimConfig {
        analytics_window: Duration::from_millis(300),
        ..config
    })
    .await
    .expect("the simulator starts")
}

fn command(sim: &Simulator, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
    command
        .args(args)
        .env_clear()
        .env("VIDPLAT_CONFIG_DIR", "/nonexistent/vidplat-export-test")
        // The machine's quota store of this test run (each simulator's port keys its own count).
        .env(
            "VIDPLAT_STATE_DIR",
            format!("{}/vidplat-state-{}", env!("CARGO_TARGET_TMPDIR"), std::process::id()),
        )
        .env("VIDPLAT_ANALYTICS_URL", &sim.analytics_url)
        .env("VIDPLAT_API_KEY", &sim.api_key)
        .env("VIDPLAT_ANALYTICS_WINDOW", WINDOW)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// How long an export may take before the test calls it hung. Not a figure:
/// three exports of 100,000 rows at once take about 30 s in a debug build on
/// an idle 2-core machine, and over a minute beside other work.
const HUNG_AFTER: Duration = Duration::from_secs(300);

async fn run(sim: &Simulator, args: &[&str]) -> Ran {
    let output = tokio::time::timeout(HUNG_AFTER, command(sim, args).output())
        .await
        .expect("the export ends before it counts as hung")
        .expect("the binary runs");
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("UTF-8"),
    }
}

/// Eight days ending a week ago.
fn eight_days() -> (String, String) {
    let last = Period::today_in_japan() - chrono::Days::new(7);
    ((last - chrono::Days::new(7)).to_string(), last.to_string())
}

/// `analytics export REPORT` over `from..=to` into `out`, the summary as JSON.
fn exporting<'a>(report: &'a str, from: &'a str, to: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "analytics",
        "export",
        report,
        "--from",
        from,
        "--to",
        to,
        "--out",
        out,
        "-o",
        "json",
    ]
}

fn export_args<'a>(from: &'a str, to: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "analytics",
        "export",
        "cloud-viewing-history",
        "--from",
        from,
        "--to",
        to,
        "--chunk-days",
        "1",
        "--out",
        out,
        "--fetched-at",
        "2026-11-25T10:00:00+09:00",
        "-o",
        "json",
    ]
}

/// Every partition file under `dir` (not the state, not the manifest):
/// relative path → bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if next != dir {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                found.insert(name, std::fs::read(&path).expect("a file"));
            }
        }
    }
    found
}

/// The export's `_manifest.json`.
fn manifest(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("_manifest.json")).expect("a manifest beside the partitions");
    serde_json::from_str(&text).expect("the manifest is JSON")
}

/// Data rows across the CSV files (each file has a header line).
fn rows(files: &BTreeMap<String, Vec<u8>>) -> usize {
    files
        .values()
        .map(|bytes| csv::Reader::from_reader(bytes.as_slice()).records().count())
        .sum()
}

/// Waits (at most 30 s) until the running export `child` has recorded `days`
/// days in its `state` file.
async fn until_days_recorded(child: &mut tokio::process::Child, state: &Path, days: usize) {
    let started = Instant::now();
    while std::fs::read_to_string(state).map_or(0, |s| s.matches("date=").count()) < days {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the export made no progress"
        );
        assert!(
            child.try_wait().expect("the child").is_none(),
            "the export ended before {days} days were recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn killed_mid_export_then_run_again_the_files_are_those_of_one_run() {
    let sim = simulator(SimConfig {
        analytics_latency: Duration::from_millis(150),
        ..SimConfig::fast()
    })
    .await;
    let (from, to) = eight_days();
    let interrupted = tempfile::tempdir().expect("a directory");
    let out = interrupted.path().to_string_lossy().into_owned();
    let args = export_args(&from, &to, &out);

    let mut child = command(&sim, &args).spawn().expect("the export starts");
    let state = interrupted.path().join(".vidplat-export-state.json");
    // SIGKILL once two days are recorded: mid-run, a partition possibly half written.
    until_days_recorded(&mut child, &state, 2).await;
    child.kill().await.expect("SIGKILL");
    let partial = files(interrupted.path()).len();
    assert!(partial < 8 * 2, "killed before the end");

    let resumed = run(&sim, &args).await;
    assert_eq!(resumed.code, 0, "{resumed:?}");
    let summary: serde_json::Value = serde_json::from_str(&resumed.stdout).expect("the summary is JSON");
    assert!(summary["skipped"].as_u64().unwrap() >= 2, "{summary}");

    let whole = tempfile::tempdir().expect("a directory");
    let whole_out = whole.path().to_string_lossy().into_owned();
    let uninterrupted = run(&sim, &export_args(&from, &to, &whole_out)).await;
    assert_eq!(uninterrupted.code, 0, "{uninterrupted:?}");
    let once: serde_json::Value = serde_json::from_str(&uninterrupted.stdout).expect("JSON");

    let (after_kill, in_one_run) = (files(interrupted.path()), files(whole.path()));
    assert_eq!(in_one_run.len(), 8, "one file a day: {:?}", in_one_run.keys());
    assert_eq!(after_kill, in_one_run, "byte-identical, no temporary file left");
    assert_eq!(
        manifest(interrupted.path()),
        manifest(whole.path()),
        "the same manifest"
    );
    assert_eq!(
        rows(&after_kill) as u64,
        once["rows"].as_u64().unwrap(),
        "each row once"
    );
}

#[tokio::test]
async fn the_month_spent_exits_3_with_the_state_saved_and_the_next_month_finishes() {
    let sim = simulator(SimConfig {
        analytics_monthly: 5,
        ..SimConfig::fast()
    })
    .await;
    let (from, to) = eight_days();
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = export_args(&from, &to, &out);

    let paused = run(&sim, &args).await;
    assert_eq!(paused.code, 3, "{paused:?}");
    let summary: serde_json::Value = serde_json::from_str(&paused.stdout).expect("the summary on stdout");
    assert_eq!(summary["chunks_done"], 5, "{summary}");
    assert!(
        paused.stderr.contains("export paused:") && paused.stderr.contains("run the same command again to resume"),
        "{}",
        paused.stderr
    );
    assert!(paused.stderr.contains("resume after 20"), "when: {}", paused.stderr);

    sim.advance_clock(Duration::from_secs(32 * 86_400));
    let finished = run(&sim, &args).await;
    assert_eq!(finished.code, 0, "{finished:?}");
    let summary: serde_json::Value = serde_json::from_str(&finished.stdout).expect("JSON");
    assert_eq!(
        (summary["chunks_done"].as_u64(), summary["skipped"].as_u64()),
        (Some(3), Some(5)),
        "{summary}"
    );
    assert_eq!(files(dir.path()).len(), 8);
}

#[tokio::test]
async fn dry_run_plans_without_a_call_and_bad_input_exits_2() {
    let sim = simulator(SimConfig::fast()).await;
    let (from, to) = eight_days();
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let mut args = export_args(&from, &to, &out);
    args.push("--dry-run");
    args[8] = "3";
    let plan = run(&sim, &args).await;
    assert_eq!(plan.code, 0, "{plan:?}");
    let plan: serde_json::Value = serde_json::from_str(&plan.stdout).expect("the plan is JSON");
    assert_eq!(plan["chunks"].as_array().map(Vec::len), Some(3), "{plan}");
    assert_eq!(
        (
            plan["calls_at_least"].as_u64(),
            plan["minimum_duration_seconds"].as_u64()
        ),
        (Some(3), Some(0))
    );
    assert_eq!(sim.analytics_stats().admitted(), 0, "nothing was called");
    assert!(files(dir.path()).is_empty());

    let backwards = run(&sim, &export_args(&to, &from, &out)).await;
    assert_eq!(backwards.code, 2, "{backwards:?}");
    assert!(backwards.stderr.contains("`--to`"), "{}", backwards.stderr);
}

#[tokio::test]
async fn ctrl_c_mid_export_exits_130_saying_where_the_state_is_and_how_to_resume() {
    let sim = simulator(SimConfig {
        analytics_latency: Duration::from_millis(150),
        ..SimConfig::fast()
    })
    .await;
    let (from, to) = eight_days();
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = export_args(&from, &to, &out);
    let mut child = command(&sim, &args).spawn().expect("the export starts");
    let state = dir.path().join(".vidplat-export-state.json");
    until_days_recorded(&mut child, &state, 1).await;
    let pid = child.id().expect("still running").to_string();
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(signalled.success());
    let output = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("it ends within 10 s of Ctrl-C")
        .expect("its output");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    // `-o json`: the error is the last line, as JSON.
    let error: serde_json::Value =
        serde_json::from_str(stderr.lines().last().unwrap_or_default()).expect("the error is JSON");
    assert_eq!(
        (&error["error"]["kind"], &error["error"]["message"]),
        (
            &serde_json::json!("interrupted"),
            &serde_json::json!(format!(
                "interrupted: the chunks finished so far are saved in {}; run the same command again to resume \
                 (the chunk under way is read again from its start)",
                state.display()
            ))
        ),
        "{stderr}"
    );
    let resumed = run(&sim, &args).await;
    assert_eq!(resumed.code, 0, "{resumed:?}");
    let summary: serde_json::Value = serde_json::from_str(&resumed.stdout).expect("the summary is JSON");
    assert!(summary["skipped"].as_u64().unwrap() >= 1, "{summary}");
}

/// From `first` to `last` days before today (Japan time), as text.
fn days_ago(first: u64, last: u64) -> (String, String) {
    let today = Period::today_in_japan();
    (
        (today - chrono::Days::new(first)).to_string(),
        (today - chrono::Days::new(last)).to_string(),
    )
}

fn json_of(ran: &Ran) -> serde_json::Value {
    serde_json::from_str(&ran.stdout).unwrap_or_else(|e| panic!("JSON on stdout ({e}): {ran:?}"))
}

/// Each partition of the manifest with whether it is final, in order.
fn finality(manifest: &serde_json::Value) -> Vec<(String, bool)> {
    manifest["partitions"]
        .as_array()
        .expect("the manifest's partitions")
        .iter()
        .map(|p| (p["path"].as_str().unwrap_or_default().to_owned(), p["final"] == true))
        .collect()
}

#[tokio::test]
async fn basic_days_not_final_are_fetched_again_until_the_service_says_golden_and_only_they() {
    // Figures settle 2 days after a day ends (the simulator's default): the
    // answers for the last two days of the period say `golden: false`.
    let settling = simulator(SimConfig::fast()).await;
    let (from, to) = days_ago(6, 1);
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = [
        exporting("basic-by-time-period", &from, &to, &out),
        vec!["--granularity", "daily"],
    ]
    .concat();
    let first = run(&settling, &args).await;
    assert_eq!(first.code, 0, "{first:?}");
    let summary = json_of(&first);
    // 50,000 then 25,000 then 12,500 ranks refused (the simulator's maximum is 10,000), 6,250 taken.
    assert_eq!(
        (
            summary["partitions"].as_u64(),
            summary["provisional"].as_u64(),
            summary["windows_narrowed"].as_u64(),
            summary["page_rows"].as_u64(),
            summary["calls"].as_u64()
        ),
        (Some(6), Some(2), Some(3), Some(6_250), Some(5)),
        "{summary}"
    );
    let first_manifest = manifest(dir.path());
    assert_eq!(
        finality(&first_manifest).iter().map(|(_, f)| *f).collect::<Vec<_>>(),
        [true, true, true, true, false, false],
        "{first_manifest}"
    );
    assert_eq!(
        (
            &first_manifest["parameters"],
            &first_manifest["final_by"],
            &first_manifest["edition"]
        ),
        (
            &serde_json::json!({"granularity": "daily"}),
            &serde_json::json!("golden"),
            &serde_json::json!("basic")
        )
    );
    let rows_in_manifest: u64 = first_manifest["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rows"].as_u64().unwrap())
        .sum();
    assert_eq!(
        rows_in_manifest as usize,
        rows(&files(dir.path())),
        "the manifest counts every row"
    );

    // The same account once its figures have settled.
    let settled = simulator(SimConfig {
        analytics_settle_days: 0,
        ..SimConfig::fast()
    })
    .await;
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let plan = json_of(&run(&settled, &dry).await);
    assert_eq!(
        (
            plan["chunks"].as_array().map(Vec::len),
            plan["again"].as_u64(),
            plan["done_before"].as_u64()
        ),
        (Some(1), Some(2), Some(4)),
        "only the two provisional days: {plan}"
    );
    let second = run(&settled, &args).await;
    assert_eq!(second.code, 0, "{second:?}");
    let summary = json_of(&second);
    assert_eq!(
        (
            summary["calls"].as_u64(),
            summary["skipped"].as_u64(),
            summary["provisional"].as_u64(),
            summary["windows_narrowed"].as_u64()
        ),
        (Some(1), Some(4), Some(0), Some(0)),
        "one call at the window the first run learnt: {summary}"
    );
    let asked: Vec<String> = settled
        .journal()
        .iter()
        .map(|r| r.query.clone().unwrap_or_default())
        .collect();
    assert!(
        asked.len() == 1
            && ["start_interval=-2", "end_interval=-1", "end_with=6250"]
                .iter()
                .all(|part| asked[0].split('&').any(|pair| pair == *part)),
        "{asked:?}"
    );
    assert!(finality(&manifest(dir.path())).iter().all(|(_, f)| *f));

    // Other parameters are refused before any call, not mixed into the directory.
    let mut other = args.to_vec();
    let granularity = other.iter().position(|a| *a == "daily").expect("the granularity");
    other[granularity] = "hourly";
    let refused = run(&settled, &other).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("records the parameters"), "{}", refused.stderr);
    assert_eq!(settled.journal().len(), 1, "nothing more was sent");
}

#[tokio::test]
async fn cloud_days_younger_than_the_settling_days_stay_provisional() {
    let sim = simulator(SimConfig::fast()).await;
    let (from, to) = days_ago(4, 1);
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = exporting("cloud-viewing-history", &from, &to, &out);
    let first = json_of(&run(&sim, &args).await);
    // The cloud answers do not say: a day is final once 2 days have passed since it ended.
    assert_eq!(
        (first["provisional"].as_u64(), first["calls"].as_u64()),
        (Some(2), Some(2)),
        "{first}"
    );
    let described = manifest(dir.path());
    assert_eq!(described["final_by"], "age");
    assert_eq!(
        finality(&described).iter().map(|(_, f)| *f).collect::<Vec<_>>(),
        [true, true, false, false]
    );

    let mut settled = args.to_vec();
    settled.extend(["--settle-days", "0"]);
    let again = json_of(&run(&sim, &settled).await);
    assert_eq!(
        (
            again["calls"].as_u64(),
            again["skipped"].as_u64(),
            again["provisional"].as_u64()
        ),
        (Some(1), Some(2), Some(0)),
        "{again}"
    );
}

#[tokio::test]
async fn a_granularity_coarser_than_a_day_asks_for_the_whole_period_at_once() {
    let sim = simulator(SimConfig::fast()).await;
    let (from, to) = days_ago(20, 3);
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let plan = |granularity: &'static str| {
        let (from, to, out) = (from.clone(), to.clone(), out.clone());
        let sim = &sim;
        async move {
            let args = [
                exporting("cloud-by-time-period", &from, &to, &out),
                vec!["--granularity", granularity, "--dry-run"],
            ]
            .concat();
            json_of(&run(sim, &args).await)
        }
    };
    assert_eq!(
        plan("daily").await["chunks"].as_array().map(Vec::len),
        Some(3),
        "by day, a week a chunk"
    );
    assert_eq!(
        plan("weekly").await["chunks"],
        serde_json::json!([format!("{from}..={to}")]),
        "a row may span days: the period in one call"
    );
    assert_eq!(sim.analytics_stats().admitted(), 0);
}

#[tokio::test]
async fn a_parameter_out_of_its_bounds_is_refused_as_the_report_s_own_command_refuses_it() {
    let sim = simulator(SimConfig::fast()).await;
    let (from, to) = days_ago(4, 3);
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = [
        exporting("cloud-viewing-history", &from, &to, &out),
        vec!["--engagement-bitmap-granularity", "500"],
    ]
    .concat();
    let refused = run(&sim, &args).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused
            .stderr
            .contains("`engagement_bitmap_granularity` must be at most 100"),
        "{}",
        refused.stderr
    );
    assert_eq!(sim.analytics_stats().admitted(), 0, "nothing was called");
    let unknown = run(
        &sim,
        &["analytics", "export", "cloud-viewing-history", "--minutes", "5"],
    )
    .await;
    assert_eq!(unknown.code, 2, "a flag the report does not take: {unknown:?}");
}

/// The tools venv's python, when it has pyarrow and duckdb; `None` (the test
/// says `skipped`) without them, unless `VIDPLAT_REQUIRE_PYTHON_READERS=1`.
fn python_with_readers() -> Option<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(".tools/venv/bin/python");
    let ready = std::process::Command::new(&python)
        .args(["-c", "import pyarrow, duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        assert!(
            !vidplat_tests::required("VIDPLAT_REQUIRE_PYTHON_READERS"),
            "VIDPLAT_REQUIRE_PYTHON_READERS=1 and no pyarrow and duckdb in .tools/venv: run `cargo xtask lint`"
        );
        eprintln!("skipped: no pyarrow and duckdb in .tools/venv (`cargo xtask lint` installs them)");
    }
    ready.then_some(python)
}

#[tokio::test]
async fn pyarrow_and_duckdb_read_the_output_directory_as_one_dataset_with_the_manifest_s_types() {
    let Some(python) = python_with_readers() else { return };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../xtask/python/read_dataset.py");
    let sim = simulator(SimConfig::fast()).await;
    let (from, to) = days_ago(8, 4);
    for format in ["csv", "ndjson", "arrow", "parquet"] {
        let dir = tempfile::tempdir().expect("a directory");
        let out = dir.path().to_string_lossy().into_owned();
        let args = [
            exporting("cloud-viewing-history", &from, &to, &out),
            vec!["--format", format],
        ]
        .concat();
        let ran = run(&sim, &args).await;
        assert_eq!(ran.code, 0, "{ran:?}");
        let read = std::process::Command::new(&python)
            .arg(&script)
            .args([&out, format])
            .output()
            .expect("the script runs");
        assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
        let report: serde_json::Value = serde_json::from_slice(&read.stdout).expect("the report is JSON");
        let rows = report["manifest_rows"].as_u64().expect("the manifest's rows");
        assert!(rows > 0, "{report}");
        for reader in report["readers"].as_array().expect("readers") {
            if reader.get("skipped").is_some() {
                assert_eq!((format, &reader["reader"]), ("arrow", &serde_json::json!("duckdb")));
                continue;
            }
            let name = reader["reader"].as_str().unwrap_or_default();
            assert_eq!(reader["rows"].as_u64(), Some(rows), "{format} by {name}: {reader}");
            assert_eq!(
                reader["partitions"].as_u64(),
                Some(5),
                "{format} by {name}: one file a day"
            );
            let columns = &reader["columns"];
            let (timestamp, date) = match name {
                "pyarrow" => ("timestamp[ms, tz=+09:00]", "date32[day]"),
                _ => ("TIMESTAMP WITH TIME ZONE", "DATE"),
            };
            assert_eq!(
                (&columns["date_time"], &columns["export_chunk_first"]),
                (&serde_json::json!(timestamp), &serde_json::json!(date)),
                "{format} by {name}: {reader}"
            );
            assert!(columns.get("date").is_some(), "the hive partition column: {reader}");
        }
    }
}

/// An export of 100,000 rows and more: the calls a basic report spends
/// where the service takes wide rank windows and where it refuses them past
/// 25,000, and a cloud report's (BENCHMARKS.md (l) quotes them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_rows_take_a_few_calls_and_still_complete_where_wide_basic_windows_are_refused() {
    let (from, to) = days_ago(23, 3);
    let export = |report: &'static str, max_window: Option<u64>| {
        let (from, to) = (from.clone(), to.clone());
        async move {
            let sim = simulator(SimConfig {
                analytics_sessions_per_day: 5_500,
                analytics_basic_max_window: max_window,
                analytics_latency: Duration::ZERO,
                ..SimConfig::fast()
            })
            .await;
            let dir = tempfile::tempdir().expect("a directory");
            let out = dir.path().to_string_lossy().into_owned();
            let args = exporting(report, &from, &to, &out);
            let ran = run(&sim, &args).await;
            assert_eq!(ran.code, 0, "{ran:?}");
            let summary = json_of(&ran);
            let rows = summary["rows"].as_u64().unwrap_or_default();
            assert!(rows >= 100_000, "{summary}");
            assert_eq!(rows as usize, self::rows(&files(dir.path())), "every row in the files");
            (
                rows,
                summary["calls"].as_u64().unwrap_or_default(),
                summary["page_rows"].clone(),
            )
        }
    };
    // Three simulators, three processes: at once.
    let (wide, narrowed, cloud) = tokio::join!(
        export("basic-viewing-history", None),
        export("basic-viewing-history", Some(25_000)),
        export("cloud-viewing-history", None),
    );
    let spent = [wide, narrowed, cloud];
    eprintln!("rows, calls and page rows (basic, any window; basic, at most 25,000; cloud): {spent:?}");
    let [(_, wide, wide_rows), (_, narrowed, narrowed_rows), (_, cloud, _)] = &spent[..] else {
        unreachable!()
    };
    assert_eq!(*cloud, 3, "a cloud page holds 50,000 rows: {spent:?}");
    // Three chunks of a week: one call each.
    assert_eq!((*wide, wide_rows), (3, &serde_json::json!(50_000)), "{spent:?}");
    // 50,000 refused once; then each chunk of about 37,000 rows in two pages of 25,000.
    assert_eq!(
        (*narrowed, narrowed_rows),
        (1 + 3 * 2, &serde_json::json!(25_000)),
        "{spent:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_split_one_export_through_the_profile_s_redis_each_day_asked_once() {
    let Some(redis) = vidplat_tests::redis_server::RedisServer::start() else {
        return;
    };
    let sim = simulator(SimConfig {
        analytics_latency: Duration::from_millis(100),
        ..SimConfig::fast()
    })
    .await;
    let config = tempfile::tempdir().expect("a configuration directory");
    let config_dir = config.path().to_string_lossy().into_owned();
    let store = format!("redis://127.0.0.1:{}", redis.port);
    let add = {
        let mut add = command(
            &sim,
            &[
                "profile",
                "add",
                "shared",
                "--quota-store",
                &store,
                "--login-id",
                "acct",
            ],
        );
        add.env("VIDPLAT_CONFIG_DIR", &config_dir);
        add.output().await.expect("profile add runs")
    };
    assert!(add.status.success(), "{}", String::from_utf8_lossy(&add.stderr));

    let (from, to) = days_ago(9, 4);
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().to_string_lossy().into_owned();
    let args = [
        vec!["--profile", "shared"],
        exporting("cloud-viewing-history", &from, &to, &out),
        vec!["--chunk-days", "1", "--shared-state"],
    ]
    .concat();
    let worker = || {
        let mut worker = command(&sim, &args);
        worker.env("VIDPLAT_CONFIG_DIR", &config_dir);
        async move {
            let output = tokio::time::timeout(HUNG_AFTER, worker.output())
                .await
                .expect("a worker ends before it counts as hung")
                .expect("the binary runs");
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            assert!(
                output.status.success(),
                "{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_str::<serde_json::Value>(&stdout).expect("the summary is JSON")
        }
    };
    let summaries = futures::future::join_all([worker(), worker(), worker()]).await;
    let done: u64 = summaries.iter().map(|s| s["chunks_done"].as_u64().unwrap_or(0)).sum();
    assert_eq!(done, 6, "each of the 6 days done by one worker: {summaries:?}");
    let asked: Vec<String> = sim.journal().into_iter().filter_map(|r| r.query).collect();
    let distinct: std::collections::BTreeSet<&String> = asked.iter().collect();
    assert_eq!(
        (asked.len(), distinct.len()),
        (6, 6),
        "each day asked for once: {asked:?}"
    );
    assert_eq!(files(dir.path()).len(), 6);
    assert_eq!(
        finality(&manifest(dir.path())).len(),
        6,
        "the manifest lists every worker's days"
    );

    // Without a Redis quota store there is nowhere to share the state.
    let alone = run(&sim, &args[2..]).await;
    assert_eq!(alone.code, 2, "{alone:?}");
    assert!(alone.stderr.contains("quota store"), "{}", alone.stderr);
}

/// The zone of returned times is not shown (Japan time is assumed). Against a
/// service answering in UTC (the simulator set to it), `--time-zone +00:00`
/// reads and writes every time in UTC, files rows under UTC days and says so
/// in the manifest; without it the same wall times are taken for Japan time.
#[tokio::test]
async fn time_zone_reads_returned_times_in_the_service_s_zone() {
    let sim = simulator(SimConfig {
        time_zone: chrono::FixedOffset::east_opt(0).expect("UTC"),
        ..SimConfig::fast()
    })
    .await;
    let (from, to) = days_ago(6, 4);
    let export = |zone: Option<&'static str>| {
        let (from, to) = (from.clone(), to.clone());
        let sim = &sim;
        async move {
            let dir = tempfile::tempdir().expect("a directory");
            let out = dir.path().to_string_lossy().into_owned();
            let mut args = [
                exporting("cloud-viewing-history", &from, &to, &out),
                vec!["--fetched-at", "2026-11-25T10:00:00+09:00"],
            ]
            .concat();
            if let Some(zone) = zone {
                args.extend(["--time-zone", zone]);
            }
            let ran = run(sim, &args).await;
            assert_eq!(ran.code, 0, "{ran:?}");
            // Each partition's (day, date_time values).
            let files = files(dir.path());
            let times: Vec<(String, Vec<String>)> = files
                .iter()
                .map(|(name, bytes)| {
                    let mut reader = csv::Reader::from_reader(bytes.as_slice());
                    let at = reader
                        .headers()
                        .expect("a header")
                        .iter()
                        .position(|h| h == "date_time")
                        .expect("date_time");
                    let values = reader.records().map(|r| r.expect("a record")[at].to_owned()).collect();
                    (name[5..15].to_owned(), values)
                })
                .collect();
            (manifest(dir.path())["time_zone"].clone(), times)
        }
    };
    let (utc_zone, utc) = export(Some("+00:00")).await;
    assert_eq!(utc_zone, "+00:00");
    assert_eq!(utc.len(), 3, "three days");
    for (day, values) in &utc {
        assert!(!values.is_empty());
        for value in values {
            assert!(
                value.starts_with(day.as_str()) && value.ends_with("+00:00"),
                "{day}: {value}"
            );
        }
    }
    let (japan_zone, japan) = export(None).await;
    assert_eq!(japan_zone, "+09:00");
    let same_wall_times: Vec<(String, Vec<String>)> = utc
        .iter()
        .map(|(day, values)| {
            (
                day.clone(),
                values.iter().map(|v| v.replace("+00:00", "+09:00")).collect(),
            )
        })
        .collect();
    assert_eq!(
        japan, same_wall_times,
        "the assumption reads the same wall times as Japan time"
    );
}

/// `--timeout` bounds each call of an export, not the export: three calls of
/// 400 ms pass under a 1 s limit, and a call held 3 s ends the run within it.
#[tokio::test]
async fn an_export_gives_its_timeout_to_each_call() {
    /// The export of `days` days ending a week ago into `out`, each call within 1 s; how long it took.
    async fn export_with_1s_calls(sim: &Simulator, days: u64, out: &Path) -> (Ran, Duration) {
        let to = Period::today_in_japan() - chrono::Days::new(7);
        let (from, to) = ((to - chrono::Days::new(days - 1)).to_string(), to.to_string());
        let out = out.to_string_lossy().into_owned();
        let mut args = vec!["--timeout", "1s"];
        args.extend(export_args(&from, &to, &out));
        let started = Instant::now();
        (run(sim, &args).await, started.elapsed())
    }
    let sim = simulator(SimConfig::fast()).await;
    let slow = |delay_ms: u64, times: u32| vidplat_sim::Fault {
        times,
        delay_ms,
        outcome: vidplat_sim::FaultOutcome::Run,
        ..vidplat_sim::Fault::operation("cloud_viewing_history")
    };
    let dir = tempfile::tempdir().expect("a directory");
    sim.inject_fault(slow(400, 3)).expect("the fault is set");
    let (three, took) = export_with_1s_calls(&sim, 3, &dir.path().join("three")).await;
    assert_eq!(three.code, 0, "{three:?}");
    assert!(took >= Duration::from_millis(1_200), "{took:?}");
    assert_eq!(files(&dir.path().join("three")).len(), 3, "{three:?}");

    sim.inject_fault(slow(3_000, 1)).expect("the fault is set");
    let (late, took) = export_with_1s_calls(&sim, 1, &dir.path().join("late")).await;
    assert_eq!(late.code, 1, "{late:?}");
    assert!(late.stderr.contains(r#""kind":"timeout""#), "{late:?}");
    assert!(took < Duration::from_millis(2_800), "{took:?}");
}
