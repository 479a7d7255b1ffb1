//! The `vidplat-sim` binary as a user runs it: its arguments, and the shell
//! lines it prints once it listens. Every child process is killed at the end
//! and every wait is bounded.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use vidplat::Call;
use vidplat_sim::{DEMO_API_KEY, DEMO_LOGIN_ID};

const BINARY: &str = env!("CARGO_BIN_EXE_vidplat-sim");

/// What `vidplat::ClientBuilder::from_env` reads, in the order printed.
const FROM_ENV: [&str; 5] = [
    "VIDPLAT_ENCODER_URL",
    "VIDPLAT_VMS_URL",
    "VIDPLAT_ANALYTICS_URL",
    "VIDPLAT_API_KEY",
    "VIDPLAT_LOGIN_ID",
];

/// Set for the copy of this test binary that `a_shell_evaluating_the_lines_configures_client_from_env` runs.
const CHILD_MARKER: &str = "VIDPLAT_SIM_TEST_FROM_ENV_CHILD";

const PATIENCE: Duration = Duration::from_secs(30);

/// A child process, killed when the test ends (passed or not).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits at most `PATIENCE` for `child` to exit; its output was piped to threads.
fn exit_status(child: &mut Running) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.0.try_wait().expect("the child's status") {
            return status;
        }
        assert!(Instant::now() < deadline, "the child did not exit within {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `command` to its end (at most `PATIENCE`): exit status, stdout, stderr.
fn finished(command: &mut Command) -> (ExitStatus, String, String) {
    let mut child = Running(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the child starts"),
    );
    // Read on threads, so a full pipe never blocks the child.
    let stdout = read_to_end(child.0.stdout.take().expect("a piped stdout"));
    let stderr = read_to_end(child.0.stderr.take().expect("a piped stderr"));
    let status = exit_status(&mut child);
    let text = |reader: std::thread::JoinHandle<String>| reader.join().expect("the reader thread");
    (status, text(stdout), text(stderr))
}

fn read_to_end(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// A simulator started with `args`, and the lines it printed up to its
/// `export` line (at most 20 lines, within `PATIENCE`).
fn start(args: &[&str]) -> (Running, Vec<String>) {
    let mut sim = Running(
        Command::new(BINARY)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the simulator starts"),
    );
    let stdout = sim.0.stdout.take().expect("a piped stdout");
    let (sender, lines) = mpsc::channel();
    // Keeps reading after the export line, so the simulator never writes into a closed pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let deadline = Instant::now() + PATIENCE;
    let mut printed = Vec::new();
    while printed.len() < 20 {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no export line within {PATIENCE:?}; printed: {printed:?}"));
        let done = line.starts_with("export ");
        printed.push(line);
        if done {
            return (sim, printed);
        }
    }
    panic!("no export line in the first 20: {printed:?}");
}

/// The `NAME=value` lines, in order.
fn assignments(printed: &[String]) -> Vec<(String, String)> {
    printed
        .iter()
        .filter(|line| !line.starts_with('#') && !line.starts_with("export "))
        .map(|line| {
            let (name, value) = line.split_once('=').unwrap_or_else(|| panic!("not NAME=value: {line}"));
            (name.to_owned(), value.to_owned())
        })
        .collect()
}

#[test]
fn help_exits_0_and_names_every_option_and_variable() {
    for flag in ["--help", "-h"] {
        let (status, stdout, stderr) = finished(Command::new(BINARY).arg(flag));
        assert_eq!(status.code(), Some(0), "{flag}; stderr: {stderr}");
        assert_eq!(stderr, "", "{flag}");
        assert!(stdout.contains("Usage: vidplat-sim [OPTIONS]"), "{flag}: {stdout}");
        for option in [
            "--port <PORT>",
            "--fast",
            "--analytics-per-minute <N>",
            "--analytics-per-month <N>",
            "--analytics-settle-days <DAYS>",
            "--analytics-basic-max-window <N|none>",
            "--key-with-permissions <PERMISSIONS>",
            "--time-zone <OFFSET>",
            "--seed <N>",
            "--updates <READING>",
            "-h, --help",
            "-V, --version",
        ] {
            assert!(stdout.contains(option), "{flag} names {option}: {stdout}");
        }
        for variable in std::iter::once("VIDPLAT_SIM_URL").chain(FROM_ENV) {
            assert!(
                stdout.contains(&format!("\n  {variable}=")),
                "{flag} shows {variable}: {stdout}"
            );
        }
        assert!(
            stdout.contains("PUT /sim/input-files/{path}?size=N"),
            "{flag}: {stdout}"
        );
    }
}

#[test]
fn an_unknown_or_bad_argument_exits_2_with_a_message_on_stderr() {
    for (args, message) in [
        (&["--bogus"][..], "error: unexpected argument '--bogus' found"),
        (&["--port"][..], "error: a value is required for '--port <PORT>'"),
        (
            &["--port", "70000"][..],
            "error: invalid value '70000' for '--port <PORT>'",
        ),
        (
            &["--time-zone", "Tokyo"][..],
            "error: invalid value 'Tokyo' for '--time-zone <OFFSET>'",
        ),
        (
            &["--key-with-permissions", "task read,tsk read"][..],
            "error: invalid value 'task read,tsk read' for '--key-with-permissions <PERMISSIONS>': unknown \
             permission `tsk read`; the permissions are: category delete, category read,",
        ),
        (
            &["--analytics-per-month", "many"][..],
            "error: invalid value 'many' for '--analytics-per-month <N>'",
        ),
    ] {
        let (status, stdout, stderr) = finished(Command::new(BINARY).args(args));
        assert_eq!(status.code(), Some(2), "{args:?}");
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
    }
}

#[tokio::test]
async fn the_printed_lines_name_the_root_and_what_from_env_reads_and_the_root_answers() {
    // `-05:00`: an offset starting with a hyphen is taken as a value, not refused as an option.
    let (_sim, printed) = start(&["--fast", "--port", "0", "--time-zone", "-05:00"]);
    let address = printed[0]
        .strip_prefix("# vidplat simulator listening on ")
        .and_then(|rest| rest.strip_suffix("; Ctrl-C stops it"))
        .unwrap_or_else(|| panic!("a comment first: {printed:?}"));
    let port: u16 = address
        .strip_prefix("127.0.0.1:")
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("an address on 127.0.0.1: {address}"));
    assert_ne!(port, 0);
    let root = format!("http://127.0.0.1:{port}");
    let expected: Vec<(String, String)> = [
        ("VIDPLAT_SIM_URL", root.clone()),
        ("VIDPLAT_ENCODER_URL", format!("{root}/encoder")),
        ("VIDPLAT_VMS_URL", format!("{root}/vms")),
        ("VIDPLAT_ANALYTICS_URL", format!("{root}/analytics")),
        ("VIDPLAT_API_KEY", DEMO_API_KEY.to_owned()),
        ("VIDPLAT_LOGIN_ID", DEMO_LOGIN_ID.to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    assert_eq!(assignments(&printed), expected);
    assert_eq!(printed.len(), expected.len() + 2, "{printed:?}");
    assert_eq!(
        printed.last().map(String::as_str),
        Some(
            "export VIDPLAT_SIM_URL VIDPLAT_ENCODER_URL VIDPLAT_VMS_URL VIDPLAT_ANALYTICS_URL VIDPLAT_API_KEY \
             VIDPLAT_LOGIN_ID"
        )
    );

    // The root answers the simulator's own routes; the encoder URL and key, the service's.
    let http = crate::raw_http();
    let uploaded = http
        .put(format!("{root}/sim/input-files/from-binary.mp4?size=123"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(uploaded.status().as_u16(), 204);
    let listed: serde_json::Value = http
        .get(format!("{root}/encoder/v1/upload/from-binary.mp4"))
        .bearer_auth(DEMO_API_KEY)
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("a JSON body");
    assert_eq!(listed["filename"], "from-binary.mp4");
    assert_eq!(listed["filesize"], "123");
}

/// GET `url` with `key` (none when `None`): the status, `Retry-After` and the JSON body.
async fn answer(url: &str, key: Option<&str>) -> (u16, Option<String>, serde_json::Value) {
    crate::request("GET", url, key, None).await
}

/// `--key-with-permissions` prints one more variable, a key holding only
/// those permissions; `--analytics-per-month` sets the monthly limit.
#[tokio::test]
async fn a_limited_key_and_the_monthly_limit_are_set_by_flags() {
    let (_sim, printed) = start(&[
        "--fast",
        "--key-with-permissions",
        "task read, preset read",
        "--analytics-per-month",
        "1",
    ]);
    let variables = assignments(&printed);
    let names: Vec<&str> = variables.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        std::iter::once("VIDPLAT_SIM_URL")
            .chain(FROM_ENV)
            .chain(["VIDPLAT_SIM_LIMITED_KEY"])
            .collect::<Vec<_>>()
    );
    let (root, key) = (&variables[0].1, variables[6].1.as_str());
    assert_eq!(key, "sim-key-0001");
    assert_eq!(
        printed.last().map(String::as_str),
        Some(
            "export VIDPLAT_SIM_URL VIDPLAT_ENCODER_URL VIDPLAT_VMS_URL VIDPLAT_ANALYTICS_URL VIDPLAT_API_KEY \
             VIDPLAT_LOGIN_ID VIDPLAT_SIM_LIMITED_KEY"
        )
    );
    let encoder = format!("{root}/encoder/v1");
    assert_eq!(
        answer(&format!("{encoder}/counts"), Some(key)).await.0,
        200,
        "task read"
    );
    assert_eq!(
        answer(&format!("{encoder}/presets"), Some(key)).await.0,
        200,
        "preset read"
    );
    assert_eq!(
        answer(&format!("{encoder}/profiles"), Some(key)).await,
        (
            403,
            None,
            serde_json::json!({"code": "REQUEST_UNAUTHORIZED", "message": "the API key lacks the `profile read` permission"})
        )
    );
    // One analytics call a month: the basic real-time operation counts only against that limit.
    let realtime = format!("{root}/analytics/v1/realtime/user-counts?login_id={DEMO_LOGIN_ID}");
    assert_eq!(answer(&realtime, None).await.0, 200);
    let (status, retry_after, body) = answer(&realtime, None).await;
    assert_eq!(
        (status, body),
        (
            429,
            serde_json::json!({"code": "TOO_MANY_REQUESTS", "message": "the monthly limit is exceeded"})
        )
    );
    let retry_after: u64 = retry_after.expect("Retry-After").parse().expect("seconds");
    assert!((1..=31 * 24 * 3600).contains(&retry_after), "{retry_after}");

    // An empty list: a key without any permission.
    let (_sim, printed) = start(&["--key-with-permissions", ""]);
    let variables = assignments(&printed);
    let (root, key) = (&variables[0].1, variables[6].1.as_str());
    assert_eq!(variables[6].0, "VIDPLAT_SIM_LIMITED_KEY");
    assert_eq!(
        answer(&format!("{root}/encoder/v1/counts"), Some(key)).await,
        (
            403,
            None,
            serde_json::json!({"code": "REQUEST_UNAUTHORIZED", "message": "the API key lacks the `task read` permission"})
        )
    );
}

/// `--seed` decides the synthetic analytics data, `--updates` the reading of
/// an update, and `/sim/clock` moves the one clock of the three services:
/// what a test in any language needs, over HTTP.
#[tokio::test]
async fn the_seed_the_update_reading_and_the_clock_are_reachable_from_outside_rust() {
    let report = |root: &str| {
        format!("{root}/analytics/v1/datetime/data?login_id={DEMO_LOGIN_ID}&start_interval=-3&end_interval=-2")
    };
    let mut figures = Vec::new();
    for seed in ["11", "11", "12"] {
        let (_sim, printed) = start(&["--seed", seed]);
        let root = assignments(&printed)[0].1.clone();
        let (status, _, body) = answer(&report(&root), Some(DEMO_API_KEY)).await;
        assert_eq!(status, 200, "{body}");
        figures.push(body["data"].clone());
    }
    assert_eq!(figures[0], figures[1], "the same seed, the same figures");
    assert_ne!(figures[0], figures[2], "another seed, other figures");

    // When figures become final and the widest basic window are not shown: both are settings.
    let (_sim, printed) = start(&["--analytics-settle-days", "1", "--analytics-basic-max-window", "500"]);
    let root = assignments(&printed)[0].1.clone();
    let (status, _, body) = answer(&report(&root), Some(DEMO_API_KEY)).await;
    assert_eq!(
        (status, &body["golden"]),
        (200, &serde_json::json!(true)),
        "ended 2 days ago, 1 settling day"
    );
    let wide = format!("{}&start_with=1&end_with=501", report(&root));
    let (status, _, body) = answer(&wide, Some(DEMO_API_KEY)).await;
    assert_eq!(status, 400, "{body}");
    let (_sim, printed) = start(&["--analytics-basic-max-window", "none"]);
    let root = assignments(&printed)[0].1.clone();
    let widest = format!("{}&start_with=1&end_with=50001", report(&root));
    let (status, _, body) = answer(&widest, Some(DEMO_API_KEY)).await;
    assert_eq!(status, 200, "none: any width is answered: {body}");

    let (_sim, printed) = start(&["--updates", "keep"]);
    let root = assignments(&printed)[0].1.clone();
    let clock = format!("{root}/sim/clock");
    let (status, _, before) = answer(&clock, None).await;
    assert_eq!(
        (status, &before["ahead_seconds"]),
        (200, &serde_json::json!(0)),
        "{before}"
    );
    let moved = crate::request("POST", &clock, None, Some(serde_json::json!({"seconds": 86_400}))).await;
    assert_eq!(moved.0, 204, "{moved:?}");
    let (_, _, after) = answer(&clock, None).await;
    assert_eq!(after["ahead_seconds"], 86_400);
    assert_ne!(after["now"], before["now"]);
    let too_far = crate::request("POST", &clock, None, Some(serde_json::json!({"seconds": u64::MAX}))).await;
    assert_eq!(too_far.0, 400, "{too_far:?}");

    let preset = serde_json::json!({"name": "p", "destination": "vms5://", "format": "MP4", "output_filename": "x", "description": "d"});
    let (status, _, created) = crate::request(
        "POST",
        &format!("{root}/encoder/v1/presets"),
        Some(DEMO_API_KEY),
        Some(preset),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let item = format!("{root}/encoder/v1/presets/{}", created["id"]);
    let renamed = serde_json::json!({"name": "renamed"});
    let (status, _, _) = crate::request("PUT", &item, Some(DEMO_API_KEY), Some(renamed)).await;
    assert_eq!(status, 204, "--updates keep: a partial update is taken");
    let (_, _, read) = answer(&item, Some(DEMO_API_KEY)).await;
    assert_eq!(
        (&read["name"], &read["description"]),
        (&serde_json::json!("renamed"), &serde_json::json!("d"))
    );
}

/// `sh` evaluates what the simulator printed and runs this test binary's
/// `client_from_env_in_the_evaluating_shell` there, which builds its client
/// with `vidplat::Client::from_env` alone.
#[cfg(unix)]
#[test]
fn a_shell_evaluating_the_lines_configures_client_from_env() {
    let (_sim, printed) = start(&["--fast"]);
    let lines = printed.join("\n");
    let this_test_binary = std::env::current_exe().expect("the test binary's path");
    let mut shell = Command::new("sh");
    shell
        .args([
            "-c",
            r#"eval "$1" && exec "$2" --exact binary::client_from_env_in_the_evaluating_shell --ignored --test-threads=1"#,
            "sh",
            &lines,
        ])
        .arg(&this_test_binary)
        .env(CHILD_MARKER, "1");
    // Nothing inherited: only the evaluated lines can set these.
    for name in std::iter::once("VIDPLAT_SIM_URL").chain(FROM_ENV) {
        shell.env_remove(name);
    }
    let (status, stdout, stderr) = finished(&mut shell);
    assert!(status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
}

/// Run by `a_shell_evaluating_the_lines_configures_client_from_env`, in the
/// shell that evaluated the simulator's lines; does nothing elsewhere.
#[tokio::test]
#[ignore = "run by a_shell_evaluating_the_lines_configures_client_from_env"]
async fn client_from_env_in_the_evaluating_shell() {
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    // Exported, not only set in the shell.
    for name in std::iter::once("VIDPLAT_SIM_URL").chain(FROM_ENV) {
        assert!(std::env::var_os(name).is_some(), "{name} is exported");
    }
    let client = vidplat::Client::from_env().expect("a client from the environment");
    assert_eq!(client.login_id(), Some(DEMO_LOGIN_ID));
    assert!(client.vms().is_ok() && client.analytics().is_ok());
    let movie = client
        .encoder()
        .expect("the encoder URL was read")
        .get_input_file()
        .filename("movie.mp4")
        .call()
        .await
        .expect("the simulator answers with the key read");
    assert_eq!(movie.filesize.as_deref(), Some("104857600"));
}
