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

async fn run(sim: &Simulator, args: &[&str]) -> Ran {
    let output = tokio::time::timeout(Duration::from_secs(60), command(sim, args).output())
        .await
        .expect("the export ends within a minute")
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

/// Every file under `dir` but the state: relative path → bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with(".vidplat-export-state.json") {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                found.insert(name, std::fs::read(&path).expect("a file"));
            }
        }
    }
    found
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
