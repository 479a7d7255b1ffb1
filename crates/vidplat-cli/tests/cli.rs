//! The `vidplat` binary, run as a user runs it, against the simulator started
//! in this process: the bytes it prints on stdout and stderr, and its exit codes.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt as _;
use vidplat_sim::{Fault, SimConfig, Simulator};

#[path = "cli/transcripts.rs"]
mod transcripts;

/// What one run printed, and how it ended.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is JSON ({e}): {self:?}"))
    }
}

struct Cli {
    sim: Simulator,
    config_dir: tempfile::TempDir,
}

impl Cli {
    async fn start() -> Self {
        Self::start_with(SimConfig::fast()).await
    }

    async fn start_with(config: SimConfig) -> Self {
        Self {
            sim: Simulator::start_with(config).await.expect("the simulator starts"),
            config_dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The binary with only the simulator's set-up in its environment.
    fn command(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
        command
            .args(args)
            .env_clear()
            .env("VIDPLAT_CONFIG_DIR", self.config_dir.path())
            .env("VIDPLAT_STATE_DIR", self.config_dir.path().join("state"))
            .env("VIDPLAT_ENCODER_URL", &self.sim.encoder_url)
            .env("VIDPLAT_VMS_URL", &self.sim.vms_url)
            .env("VIDPLAT_ANALYTICS_URL", &self.sim.analytics_url)
            .env("VIDPLAT_API_KEY", &self.sim.api_key)
            .env("VIDPLAT_LOGIN_ID", &self.sim.login_id);
        command
    }

    async fn run(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> Run {
        self.run_with(self.command(args), "").await
    }

    async fn run_stdin(&self, args: &[impl AsRef<std::ffi::OsStr>], stdin: &str) -> Run {
        self.run_with(self.command(args), stdin).await
    }

    async fn run_with(&self, mut command: tokio::process::Command, stdin: &str) -> Run {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(stdin.as_bytes()).await.expect("stdin written");
        drop(input);
        let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .expect("the command ends within a minute")
            .expect("the command's output");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// `count` tasks of `profile` (movie.mp4) registered through the command line.
    async fn register_tasks(&self, profile: &str, count: usize) {
        for _ in 0..count {
            let registered = self
                .run(&[
                    "encoder",
                    "register-task",
                    "--profile-id",
                    profile,
                    "--input-filepath",
                    "movie.mp4",
                ])
                .await;
            assert_eq!(registered.code, 0, "{registered:?}");
        }
    }

    /// A preset and a profile registered through the command line; the profile's id.
    async fn profile(&self) -> String {
        let preset = self
            .run_stdin(
                &["encoder", "register-preset", "--body", "-", "-o", "json"],
                r#"{"name": "cli-mp4", "destination": "https://upload.example.com/out", "format": "MP4",
                    "output_filename": "%INPUT_FILENAME%"}"#,
            )
            .await;
        assert_eq!(preset.code, 0, "{preset:?}");
        let preset_id = preset.json()["id"].to_string();
        let profile = self
            .run(&[
                "encoder",
                "register-profile",
                "--name",
                "cli-web",
                "--set",
                &format!("presets[0]={preset_id}"),
                "-o",
                "json",
            ])
            .await;
        assert_eq!(profile.code, 0, "{profile:?}");
        profile.json()["id"].to_string()
    }
}

#[tokio::test]
async fn a_paged_list_with_all_streams_every_row_in_each_format() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    cli.register_tasks(&profile, 3).await;
    let list = |format: &'static str| {
        let cli = &cli;
        async move {
            let run = cli
                .run(&[
                    "encoder",
                    "list-tasks",
                    "--all",
                    "--per-page",
                    "2",
                    "--columns",
                    "id,input_filename",
                    "-o",
                    format,
                ])
                .await;
            assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{format}: {run:?}");
            run.stdout
        }
    };
    let json: Value = serde_json::from_str(&list("json").await).expect("one JSON array");
    let ids: Vec<i64> = json
        .as_array()
        .expect("an array")
        .iter()
        .map(|t| t["id"].as_i64().expect("an id"))
        .collect();
    assert_eq!(ids.len(), 3, "three tasks over two pages: {json}");

    let ndjson = list("ndjson").await;
    let lines: Vec<Value> = ndjson
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        lines
            .iter()
            .map(|t| t["id"].as_i64().unwrap_or_default())
            .collect::<Vec<_>>(),
        ids
    );

    let csv = list("csv").await;
    let expected: String = std::iter::once("id,input_filename\n".to_owned())
        .chain(ids.iter().map(|id| format!("{id},movie.mp4\n")))
        .collect();
    assert_eq!(csv, expected);

    let yaml: Vec<Value> = serde_yaml::from_str(&list("yaml").await).expect("a YAML sequence");
    assert_eq!(
        yaml.iter()
            .map(|t| t["id"].as_i64().unwrap_or_default())
            .collect::<Vec<_>>(),
        ids
    );

    let table = list("table").await;
    assert!(table.contains("input_filename"), "{table}");
    for id in &ids {
        assert!(table.contains(&format!(" {id} ")), "{id} in\n{table}");
    }

    let first_two = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--all",
            "--per-page",
            "1",
            "--max-items",
            "2",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!(first_two.stdout.lines().count(), 2, "{first_two:?}");

    // Pages asked for ahead: only where the first page says how many there are.
    let ahead = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--all",
            "--per-page",
            "1",
            "--prefetch",
            "3",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!((ahead.code, ahead.stderr.as_str()), (0, ""), "{ahead:?}");
    assert_eq!(ahead.stdout.lines().count(), 3, "{ahead:?}");
    let not_offered = cli.run(&["vms", "list-contents", "--all", "--prefetch", "3"]).await;
    assert_eq!(
        (not_offered.code, not_offered.stdout.as_str()),
        (2, ""),
        "{not_offered:?}"
    );
    assert!(
        not_offered.stderr.contains("unexpected argument '--prefetch'"),
        "{}",
        not_offered.stderr
    );
}

/// A listener that records whether anything connected: the proof that nothing was sent.
async fn silent_server() -> (String, tokio::net::TcpListener) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}/encoder", listener.local_addr().expect("an address"));
    (url, listener)
}

async fn assert_nothing_connected(listener: &tokio::net::TcpListener) {
    let accepted = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
    assert!(accepted.is_err(), "something reached the server");
}

#[tokio::test]
async fn a_registration_out_of_bounds_is_refused_before_anything_is_sent() {
    let cli = Cli::start().await;
    let (url, listener) = silent_server().await;
    let mut command = cli.command(&[
        "encoder",
        "register-task",
        "--profile-id",
        "7",
        "--input-filepath",
        "movie.mp4",
        "--priority",
        "100",
    ]);
    command.env("VIDPLAT_ENCODER_URL", &url);
    let refused = cli.run_with(command, "").await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        "error: invalid input, not sent: `priority` must be at most 99 (maximum)\n"
    );

    let mut command = cli.command(&[
        "encoder",
        "register-task",
        "--input-filepath",
        "movie.mp4",
        "--set",
        "profile_id=0",
        "-o",
        "json",
    ]);
    command.env("VIDPLAT_ENCODER_URL", &url);
    let refused = cli.run_with(command, "").await;
    assert_eq!(refused.code, 2, "{refused:?}");
    let error: Value = serde_json::from_str(&refused.stderr).expect("the error is JSON on stderr");
    assert_eq!(error["error"]["kind"], "invalid_input");
    assert_eq!(error["error"]["field"], "body.profile_id");
    assert_nothing_connected(&listener).await;
}

/// A key file that never ends and a body nested without end are refused at
/// once, within bounds of memory and time.
#[tokio::test]
async fn an_endless_key_file_and_a_body_nested_without_end_are_refused_at_once() {
    let cli = Cli::start().await;
    let started = std::time::Instant::now();
    let endless = cli
        .run(&[
            "encoder",
            "get-task",
            "--task-id",
            "1",
            "--dry-run",
            "--api-key-file",
            "/dev/zero",
        ])
        .await;
    assert_eq!(
        (endless.code, endless.stdout.as_str(), endless.stderr.as_str()),
        (
            2,
            "",
            "error: invalid input, not sent: `--api-key-file` is larger than 65536 bytes, the most a secret's file may hold\n"
        )
    );
    let dir = tempfile::tempdir().expect("a directory");
    let deep = dir.path().join("deep.yaml");
    std::fs::write(&deep, format!("{}1{}", "{\"a\": ".repeat(50_000), "}".repeat(50_000))).expect("written");
    let body = format!("@{}", deep.display());
    let nested = cli
        .run(&["encoder", "update-notification-settings", "--body", &body, "--dry-run"])
        .await;
    assert_eq!(
        (nested.code, nested.stderr.as_str()),
        (
            2,
            "error: invalid input, not sent: `--body` is nested deeper than 64 levels\n"
        )
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

/// Every required member missing is named at once, by its whole path, and
/// nothing is sent: not one round trip per member.
#[tokio::test]
async fn every_missing_required_member_is_named_at_once_before_anything_is_sent() {
    let cli = Cli::start().await;
    let (url, listener) = silent_server().await;
    let mut command = cli.command(&[
        "vms",
        "register-content",
        "--title",
        "t",
        "--set",
        r#"streams:=[{"path": "a.mp4"}, {}]"#,
    ]);
    command.env("VIDPLAT_VMS_URL", url.replace("/encoder", "/vms"));
    let refused = cli.run_with(command, "").await;
    assert_eq!((refused.code, refused.stdout.as_str()), (2, ""), "{refused:?}");
    assert_eq!(
        refused.stderr,
        "error: invalid input, not sent: `body.category_id` is required; `body.stream_sets` is required; \
         `body.streams[0].format` is required; `body.streams[1].format` is required; `body.streams[1].path` is required\n"
    );
    assert_nothing_connected(&listener).await;
}

/// `null` where the YAML does not allow it is refused before sending, every
/// one named, beside the missing members (a typed body would read it as a
/// member left out, and send something else than was asked).
#[tokio::test]
async fn a_null_the_request_does_not_allow_is_refused_before_anything_is_sent() {
    let cli = Cli::start().await;
    let (url, listener) = silent_server().await;
    let mut command = cli.command(&[
        "vms",
        "update-stream",
        "--content-name",
        "c",
        "--stream-id",
        "6f1c1b8e-6a0e-4b8a-9a55-2f3f4c5d6e7f",
        "--body",
        "-",
    ]);
    command.env("VIDPLAT_VMS_URL", url.replace("/encoder", "/vms"));
    let body = r#"{"path": "a.m3u8", "format": "HLS", "video_codec": null, "width": null}"#;
    let refused = cli.run_with(command, body).await;
    assert_eq!((refused.code, refused.stdout.as_str()), (2, ""), "{refused:?}");
    assert_eq!(
        refused.stderr,
        "error: invalid input, not sent: `body.video_codec` must not be null; `body.width` must not be null\n"
    );
    assert_nothing_connected(&listener).await;
}

#[tokio::test]
async fn dry_run_and_print_curl_show_the_request_and_send_nothing() {
    let cli = Cli::start().await;
    let (url, listener) = silent_server().await;
    let mut command = cli.command(&[
        "encoder",
        "register-task",
        "--profile-id",
        "7",
        "--input-filepath",
        "movie.mp4",
        "--dry-run",
    ]);
    command.env("VIDPLAT_ENCODER_URL", &url);
    let shown = cli.run_with(command, "").await;
    assert_eq!(shown.code, 0, "{shown:?}");
    let expected = format!(
        "POST {url}/v1/tasks\naccept: application/json\nauthorization: Bearer <redacted>\ncontent-type: application/json\n\n\
         {{\n  \"input_filepath\": \"movie.mp4\",\n  \"priority\": 50,\n  \"profile_id\": 7,\n  \"upload_type\": \"internal\"\n}}\n"
    );
    assert_eq!(shown.stdout, expected);
    let mut command = cli.command(&["encoder", "get-task", "--task-id", "7", "--print", "curl"]);
    command.env("VIDPLAT_ENCODER_URL", &url);
    let curl = cli.run_with(command, "").await;
    assert_eq!(
        curl.stdout,
        format!("curl -X GET '{url}/v1/tasks/7' -H 'accept: application/json' -H \"authorization: Bearer $VIDPLAT_API_KEY\"\n")
    );
    assert!(!shown.stdout.contains(&cli.sim.api_key) && !curl.stdout.contains(&cli.sim.api_key));
    assert_nothing_connected(&listener).await;

    // A password in the body (an `x-secret` member) is shown no more than the key.
    for show in [["--dry-run", ""], ["--print", "curl"]] {
        let mut args = vec![
            "vms",
            "register-viewing-page",
            "--content-name",
            "c",
            "--set",
            "configurations.authentication.password=hunter2-pass",
        ];
        args.extend(show.iter().filter(|a| !a.is_empty()));
        let mut command = cli.command(&args);
        command.env("VIDPLAT_VMS_URL", url.replace("/encoder", "/vms"));
        let printed = cli.run_with(command, "").await;
        assert_eq!(printed.code, 0, "{printed:?}");
        assert!(!printed.stdout.contains("hunter2-pass"), "{}", printed.stdout);
        assert!(printed.stdout.contains("\"password\":"), "{}", printed.stdout);
        if show[0] == "--print" {
            assert!(printed.stderr.contains("put their values back"), "{}", printed.stderr);
        }
    }
    assert_nothing_connected(&listener).await;
}

#[tokio::test]
async fn register_task_wait_ends_ready_and_a_failing_input_exits_4() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let ready = cli
        .run(&[
            "encoder",
            "register-task",
            "--profile-id",
            &profile,
            "--input-filepath",
            "movie.mp4",
            "--wait",
            "--poll-interval",
            "20ms",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!(ready.code, 0, "{ready:?}");
    let task: Value = serde_json::from_str(ready.stdout.trim()).expect("the final task, one line");
    assert_eq!(task["status"], "ready");
    let id = task["id"].as_i64().expect("an id");
    assert!(ready.stderr.contains(&format!("task {id}: ready")), "{}", ready.stderr);

    let failed = cli
        .run(&[
            "encoder",
            "register-task",
            "--profile-id",
            &profile,
            "--input-filepath",
            "fail.mp4",
            "--wait",
            "--poll-interval",
            "20ms",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!(failed.code, 4, "{failed:?}");
    let task: Value = serde_json::from_str(failed.stdout.trim()).expect("the final task is still printed");
    assert_eq!(task["status"], "failed");
    assert!(
        failed
            .stderr
            .ends_with(&format!("error: task {} ended failed\n", task["id"])),
        "{}",
        failed.stderr
    );

    let waited = cli
        .run(&[
            "encoder",
            "wait-task",
            &id.to_string(),
            "--poll-interval",
            "20ms",
            "-o",
            "json",
        ])
        .await;
    assert_eq!(waited.code, 0, "{waited:?}");
    assert_eq!(waited.json()[0]["id"], id);

    // Tasks waited for print as `list-tasks` prints them: the chosen columns in a table.
    let table = cli.run(&["encoder", "wait-task", &id.to_string(), "-o", "table"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let header = table.stdout.lines().nth(1).expect("a header line");
    assert!(
        header.contains("input_filename") && !header.contains("transaction"),
        "{}",
        table.stdout
    );
}

#[tokio::test]
async fn sign_page_then_verify_url_and_a_tampered_url_exits_5() {
    let cli = Cli::start().await;
    let key_file = cli.config_dir.path().join("signing.key");
    std::fs::write(&key_file, "0123456789abcdef0123456789abcdef\n").expect("key written");
    let key = key_file.to_str().expect("a UTF-8 path");
    let signed = cli
        .run(&[
            "vms",
            "sign-page",
            "--page",
            "pg-1",
            "--domain",
            "video.example.com",
            "--valid-for",
            "2h",
            "--audience",
            "ann",
            "--signing-key-file",
            key,
        ])
        .await;
    assert_eq!(signed.code, 0, "{signed:?}");
    let url = signed.stdout.trim();
    assert!(url.starts_with("https://video.example.com/pages/pg-1?"), "{url}");
    let verified = cli
        .run(&["vms", "verify-url", url, "--signing-key-file", key, "-o", "json"])
        .await;
    assert_eq!(verified.code, 0, "{verified:?}");
    assert_eq!(verified.json()["audience"], "ann");
    let tampered = url.replace("aud=ann", "aud=bob");
    let refused = cli
        .run(&["vms", "verify-url", &tampered, "--signing-key-file", key])
        .await;
    assert_eq!(refused.code, 5, "{refused:?}");
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        "error: the URL does not verify: the signature does not match\n"
    );
    assert!(!signed.stderr.contains("0123456789abcdef"));
}

#[tokio::test]
async fn an_analytics_call_waits_for_the_quota_on_stderr_and_prints_clean_json() {
    let cli = Cli::start().await;
    cli.sim
        .inject_fault(Fault {
            operation_path_prefix: "/analytics/".into(),
            status: 429,
            code: "TOO_MANY_REQUESTS".into(),
            retry_after: Some(1),
            ..serde_json::from_value(json!({"operation_path_prefix": ""})).expect("a fault")
        })
        .expect("the fault is set");
    let run = cli
        .run(&["analytics", "basic-realtime-user-counts", "-o", "json"])
        .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("waiting 1 s: the server refused the last attempt (429 Too Many Requests)"),
        "{}",
        run.stderr
    );
    // A list answered whole prints its rows, as every list does.
    assert!(run.json().is_array(), "{}", run.stdout);
}

/// A key read from stdin is bounded as a key file is: stdin may be endless.
#[tokio::test]
async fn a_key_on_stdin_larger_than_any_key_is_refused() {
    let cli = Cli::start().await;
    let added = cli
        .run_stdin(&["profile", "add", "big", "--api-key-stdin"], &"k".repeat(70_000))
        .await;
    assert_eq!((added.code, added.stdout.as_str()), (2, ""), "{added:?}");
    assert!(
        added
            .stderr
            .contains("`--api-key-stdin` is larger than 65536 bytes: not a key"),
        "{added:?}"
    );
    assert!(!cli.config_dir.path().join("credentials.toml").exists());
}

#[tokio::test]
async fn a_profile_round_trip_keeps_the_key_in_a_file_only_its_owner_reads() {
    let cli = Cli::start().await;
    let add = cli
        .run_stdin(
            &[
                "profile",
                "add",
                "sim",
                "--api-key-stdin",
                "--encoder-url",
                &cli.sim.encoder_url.clone(),
                "--login-id",
                "me@acct",
            ],
            &format!("{}\n", cli.sim.api_key),
        )
        .await;
    assert_eq!(add.code, 0, "{add:?}");
    let credentials: PathBuf = cli.config_dir.path().join("credentials.toml");
    #[cfg(unix)]
    assert_eq!(permissions_of(&credentials), 0o600);
    let config = std::fs::read_to_string(cli.config_dir.path().join("config.toml")).expect("config written");
    assert!(!config.contains(&cli.sim.api_key), "the key stays out of config.toml");

    let shown = cli.run(&["profile", "show", "sim", "-o", "json"]).await;
    assert_eq!(shown.code, 0, "{shown:?}");
    assert_eq!(shown.json()["api_key"], "[redacted]");
    assert_eq!(shown.json()["login_id"], "me@acct");
    assert!(!shown.stdout.contains(&cli.sim.api_key));

    // The profile alone: no URL or key in the environment.
    let mut command = cli.command(&["encoder", "list-tasks", "--profile", "sim", "-o", "json"]);
    command.env_remove("VIDPLAT_ENCODER_URL").env_remove("VIDPLAT_API_KEY");
    let listed = cli.run_with(command, "").await;
    assert_eq!((listed.code, listed.stdout.as_str()), (0, "[]\n"), "{listed:?}");

    let list = cli.run(&["profile", "list", "-o", "ndjson"]).await;
    assert_eq!(list.stdout.lines().count(), 1, "{list:?}");
    let removed = cli.run(&["profile", "remove", "sim"]).await;
    assert_eq!(removed.code, 0, "{removed:?}");
    let gone = cli.run(&["profile", "show", "sim"]).await;
    assert_eq!(
        (gone.code, gone.stderr.as_str()),
        (2, "error: profile: no profile named `sim`\n")
    );
}

#[tokio::test]
async fn an_api_error_exits_1_and_names_the_code() {
    let cli = Cli::start().await;
    let missing = cli
        .run(&["encoder", "get-task", "--task-id", "999999", "-o", "json"])
        .await;
    assert_eq!(missing.code, 1, "{missing:?}");
    let error: Value = serde_json::from_str(&missing.stderr).expect("JSON on stderr");
    assert_eq!(error["error"]["status"], 404);
    assert_eq!(missing.stdout, "");

    let debug = cli
        .run(&["--debug", "encoder", "get-task", "--task-id", "999999"])
        .await;
    assert_eq!(debug.code, 1, "{debug:?}");
    let (events, message): (Vec<&str>, Vec<&str>) = debug.stderr.lines().partition(|l| l.starts_with('{'));
    assert_eq!(
        message,
        ["error: the service answered 404 MODEL_NOT_FOUND: task 999999 not found"]
    );
    let call: Value = serde_json::from_str(events.last().expect("the call's span, closed")).expect("a JSON line");
    assert_eq!(call["span"]["name"], "vidplat.call");
    assert_eq!(call["span"]["vidplat.operation"], "get_task");
    assert_eq!(call["span"]["http.response.status_code"], 404);
    assert!(!debug.stderr.contains(&cli.sim.api_key), "the key is never written");
}

#[test]
fn every_command_has_its_help_in_a_snapshot() {
    let mut root = vidplat_cli::root();
    root.build();
    let mut listing = String::new();
    fn walk(command: &mut clap::Command, path: &str, listing: &mut String) {
        let path = if path.is_empty() {
            command.get_name().to_owned()
        } else {
            format!("{path} {}", command.get_name())
        };
        listing.push_str(&format!("## {path}\n{}\n", command.render_long_help()));
        // One report's export in full: the others differ only in the report's
        // own flags, each checked below against the report's command.
        let subcommands = command.get_subcommands_mut();
        let subcommands: Vec<_> = if path == "vidplat analytics export" {
            subcommands.take(1).collect()
        } else {
            subcommands.collect()
        };
        for sub in subcommands {
            walk(sub, &path, listing);
        }
    }
    walk(&mut root, "", &mut listing);
    // Each report's export: its own command's value flags but the period and
    // the page window, then the export's flags (those of the first report's).
    let analytics = root.find_subcommand("analytics").expect("analytics");
    let export = analytics.find_subcommand("export").expect("analytics export");
    type Flags = std::collections::BTreeSet<String>;
    let longs = |command: &clap::Command| -> Flags {
        command
            .get_arguments()
            .filter(|a| !a.is_global_set())
            .filter_map(|a| a.get_long())
            .map(str::to_owned)
            .collect()
    };
    let parameters = |info: &vidplat_export::ReportInfo| -> Flags {
        let report = analytics
            .find_subcommand(info.name.replace('_', "-"))
            .expect("the report's own command");
        report
            .get_arguments()
            .filter(|a| a.get_help_heading().is_none() && !a.is_global_set())
            .filter_map(|a| a.get_long())
            .filter(|flag| !info.set_by_export.iter().any(|set| set.replace('_', "-") == *flag))
            .map(str::to_owned)
            .collect()
    };
    let first = vidplat_export::REPORTS[0];
    let export_flags: Flags = longs(export.find_subcommand(first.name.replace('_', "-")).expect("a report"))
        .difference(&parameters(first))
        .cloned()
        .collect();
    assert!(
        export_flags.contains("settle-days") && export_flags.contains("out"),
        "{export_flags:?}"
    );
    for info in vidplat_export::REPORTS {
        let name = info.name.replace('_', "-");
        let exporting = export
            .find_subcommand(&name)
            .unwrap_or_else(|| panic!("analytics export {name}"));
        let expected: Flags = parameters(info).union(&export_flags).cloned().collect();
        assert_eq!(longs(exporting), expected, "analytics export {name}");
    }
    let operations = vidplat::encoder::operations::ALL.len()
        + vidplat::vms::operations::ALL.len()
        + vidplat::analytics::operations::ALL.len();
    assert_eq!(operations, 118, "the operation table");
    for service in vidplat_cli::command::SERVICES {
        for spec in vidplat_cli::command::commands(service) {
            assert!(
                listing.contains(&format!("## vidplat {service} {}\n", spec.name())),
                "{}",
                spec.name()
            );
        }
    }
    insta::assert_snapshot!("help", listing);
}

/// A task registered on a simulator whose tasks never leave `waiting`; its id.
async fn a_task_that_stays_waiting() -> (Cli, String) {
    let cli = Cli::start_with(SimConfig {
        task_step: Duration::from_secs(3600),
        ..SimConfig::fast()
    })
    .await;
    let profile = cli.profile().await;
    let registered = cli
        .run(&[
            "encoder",
            "register-task",
            "--profile-id",
            &profile,
            "--input-filepath",
            "movie.mp4",
            "-o",
            "json",
        ])
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let id = registered.json()["tasks"][0]["id"].to_string();
    (cli, id)
}

#[tokio::test]
async fn a_wait_past_its_timeout_exits_124_with_each_status_on_stderr() {
    let (cli, id) = a_task_that_stays_waiting().await;
    let started = std::time::Instant::now();
    let run = cli
        .run(&[
            "encoder",
            "wait-task",
            &id,
            "--timeout",
            "300ms",
            "--poll-interval",
            "20ms",
        ])
        .await;
    assert_eq!(run.code, 124, "{run:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // Not a terminal: the progress is plain lines, one per status change.
    let (progress, error) = run.stderr.split_once("error: ").expect("an error line");
    assert_eq!(progress, format!("task {id}: waiting\n"));
    assert!(error.ends_with('\n') && !error.trim_end().contains('\n'), "{error}");
    assert_eq!(run.stdout, "", "no task ended: nothing on stdout");
}

#[tokio::test]
async fn ctrl_c_during_a_wait_exits_130() {
    use tokio::io::AsyncBufReadExt as _;
    let (cli, id) = a_task_that_stays_waiting().await;
    let mut child = cli
        .command(&["encoder", "wait-task", &id, "--poll-interval", "20ms"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    // It is waiting once it has printed the task's status.
    let first = tokio::time::timeout(Duration::from_secs(30), stderr.next_line())
        .await
        .expect("a status line within 30 s")
        .expect("stderr readable");
    assert_eq!(first, Some(format!("task {id}: waiting")));
    let pid = child.id().expect("still running").to_string();
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(signalled.success());
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("it ends within 10 s of Ctrl-C")
        .expect("its status");
    assert_eq!(status.code(), Some(130));
}

/// A Redis stand-in on 127.0.0.1 speaking RESP: the quota store's scripts get
/// `acquire` (the turn script), `activity` and `month` (the month's count)
/// answers; anything else `+OK`. Returns its URL and the turn scripts run.
async fn fake_redis(acquire: &'static str, activity: &'static str, month: &'static str) -> (String, Arc<AtomicU64>) {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("redis://{}/", listener.local_addr().expect("an address"));
    let turns = Arc::new(AtomicU64::new(0));
    let counted = turns.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut read = tokio::io::BufReader::new(read);
                for _ in 0..10_000 {
                    let mut line = String::new();
                    if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let parts: usize = line.trim().trim_start_matches('*').parse().unwrap_or(0);
                    let mut command = Vec::new();
                    for _ in 0..parts {
                        line.clear();
                        let _ = read.read_line(&mut line).await;
                        let len: usize = line.trim().trim_start_matches('$').parse().unwrap_or(0);
                        let mut bytes = vec![0; len + 2];
                        let _ = read.read_exact(&mut bytes).await;
                        command.push(String::from_utf8_lossy(&bytes[..len]).into_owned());
                    }
                    let verb = command.first().map(|v| v.to_uppercase()).unwrap_or_default();
                    let script = command.get(1).map(String::as_str).unwrap_or_default();
                    let answer = match verb.as_str() {
                        "EVALSHA" => "-NOSCRIPT No matching script\r\n",
                        "EVAL" if script.contains("ZRANK") => {
                            counted.fetch_add(1, Ordering::SeqCst);
                            acquire
                        }
                        "EVAL" if script.contains("ZCOUNT") => activity,
                        "EVAL" if script.contains("HGET") => month,
                        _ => "+OK\r\n",
                    };
                    if write.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, turns)
}

#[tokio::test]
async fn fail_fast_exits_3_with_nothing_sent_and_quota_shows_the_held_slot() {
    let cli = Cli::start().await;
    // Another process of the account holds the slot (1 call in flight, 2 in the
    // window, 7 this month): the turn script answers "slot taken".
    let (redis, turns) = fake_redis("*4\r\n:2\r\n:5000\r\n:7\r\n:0\r\n", "*2\r\n:1\r\n:2\r\n", ":7\r\n").await;
    let add = cli
        .run(&[
            "profile",
            "add",
            "shared",
            "--quota-store",
            &redis,
            "--login-id",
            "acct",
        ])
        .await;
    assert_eq!(add.code, 0, "{add:?}");
    let (analytics_url, listener) = silent_server().await;
    let refused = cli
        .run(&[
            "--profile",
            "shared",
            "--quota",
            "fail-fast",
            "--analytics-url",
            &analytics_url,
            "analytics",
            "cloud-by-os",
            "-o",
            "json",
        ])
        .await;
    assert_eq!(refused.code, 3, "{refused:?}");
    assert_eq!(refused.stdout, "");
    let error: Value = serde_json::from_str(&refused.stderr).expect("JSON on stderr");
    assert_eq!(error["error"]["kind"], "rate_limited", "{error}");
    assert_eq!(error["error"]["exit_code"], 3);
    assert_eq!(turns.load(Ordering::SeqCst), 1, "one turn asked, no wait");
    assert_nothing_connected(&listener).await;

    let quota = cli
        .run(&["--profile", "shared", "analytics", "quota", "-o", "json"])
        .await;
    assert_eq!(quota.code, 0, "{quota:?}");
    let shown = quota.json();
    assert_eq!(
        (
            &shown["slot_held"],
            &shown["calls_in_flight"],
            &shown["calls_in_window"],
            &shown["used_this_month"],
            &shown["store"]
        ),
        (
            &json!(true),
            &json!(1),
            &json!(2),
            &json!(7),
            &json!("redis (every process of the account, on any machine)")
        ),
        "{shown}"
    );
    assert_eq!(turns.load(Ordering::SeqCst), 1, "reading the quota takes no turn");

    // Without the profile, this machine's count (another store): nothing held.
    let local = cli.run(&["analytics", "quota", "-o", "json"]).await;
    assert_eq!(local.code, 0, "{local:?}");
    assert_eq!(
        (&local.json()["slot_held"], &local.json()["calls_in_flight"]),
        (&json!(false), &json!(0))
    );
}

#[tokio::test]
async fn completion_scripts_name_the_commands_for_each_shell() {
    let cli = Cli::start().await;
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let run = cli.run(&["completion", shell]).await;
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{shell}: {run:?}");
        for word in [
            "vidplat",
            "encoder",
            "wait-task-import",
            "list-tasks",
            "sign-page",
            "output",
        ] {
            assert!(run.stdout.contains(word), "{shell} script names {word}");
        }
    }
    let unknown = cli.run(&["completion", "tcsh"]).await;
    assert_eq!(unknown.code, 2, "{unknown:?}");
}

/// A simulator started with `sim --print-env`, stopped (SIGTERM) when dropped,
/// so none is left behind even when an assertion fails.
struct Background(u32);

impl Background {
    fn alive(&self) -> bool {
        // Gone: no such process, or a zombie waiting for its reaper.
        std::fs::read_to_string(format!("/proc/{}/stat", self.0))
            .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
    }

    fn stop(&self) {
        let _ = std::process::Command::new("kill")
            .arg(self.0.to_string())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `vidplat sim --print-env ARGS`, nothing else in its environment: what it
/// printed, and the simulator it left running (stopped when dropped).
async fn background_sim(cli: &Cli, args: &[&str]) -> (Run, Background) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
    command.args(["sim", "--print-env"]).args(args).env_clear();
    let printed = cli.run_with(command, "").await;
    let sim = printed
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("export VIDPLAT_SIM_PID="))
        .and_then(|p| p.parse().ok())
        .map(Background)
        .unwrap_or_else(|| panic!("a PID line: {printed:?}"));
    (printed, sim)
}

#[tokio::test]
async fn sim_print_env_prints_exports_that_work_and_a_pid_that_stops_it() {
    let cli = Cli::start().await;
    let (printed, sim) = background_sim(&cli, &["--fast"]).await;
    assert_eq!(printed.code, 0, "{printed:?}");
    let exports: Vec<&str> = printed.stdout.lines().filter(|l| l.starts_with("export ")).collect();
    for name in [
        "VIDPLAT_ENCODER_URL",
        "VIDPLAT_VMS_URL",
        "VIDPLAT_ANALYTICS_URL",
        "VIDPLAT_API_KEY",
        "VIDPLAT_LOGIN_ID",
    ] {
        assert!(
            exports.iter().any(|l| l.starts_with(&format!("export {name}="))),
            "{name} in {exports:?}"
        );
    }
    assert!(sim.alive(), "the simulator runs after the command returned");

    // The lines as a shell evaluates them, then a command with nothing else in its environment.
    let shell = after_exports(&printed.stdout, "encoder list-tasks -o json", cli.config_dir.path());
    let listed = cli.run_with(shell, "").await;
    assert_eq!((listed.code, listed.stdout.as_str()), (0, "[]\n"), "{listed:?}");

    sim.stop();
    let stopped = std::time::Instant::now();
    while sim.alive() && stopped.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!sim.alive(), "the printed PID stops it");
}

/// `/bin/sh` evaluating `exports` (what `vidplat sim --print-env` printed),
/// then running `vidplat <command>` with nothing else in its environment.
fn after_exports(exports: &str, command: &str, config_dir: &std::path::Path) -> tokio::process::Command {
    let mut shell = tokio::process::Command::new("/bin/sh");
    shell
        .args([
            "-c",
            &format!(r#"eval "$1" && exec "$2" {command}"#),
            "sh",
            exports,
            env!("CARGO_BIN_EXE_vidplat"),
        ])
        .env_clear()
        .env("VIDPLAT_CONFIG_DIR", config_dir);
    shell
}

#[tokio::test]
async fn sim_scenario_sets_up_a_hard_case_in_the_background_simulator() {
    let cli = Cli::start().await;
    let (printed, sim) = background_sim(&cli, &["--fast", "--scenario", "slow-queries"]).await;
    let shell = after_exports(&printed.stdout, "analytics cloud-by-region", cli.config_dir.path());
    let slow = cli.run_with(shell, "").await;
    sim.stop();
    assert_eq!((slow.code, slow.stdout.as_str()), (1, ""), "{slow:?}");
    assert!(slow.stderr.contains("REQUEST_TIMEOUT"), "{slow:?}");

    let mut unknown = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
    unknown.args(["sim", "--scenario", "sunny-day"]).env_clear();
    let refused = cli.run_with(unknown, "").await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains("month-quota-spent"),
        "the names it takes: {refused:?}"
    );
}

/// The simulator's settings reach the background process: under `--updates
/// keep` a partial update is taken, and `--analytics-per-month 1` spends the
/// month in one call.
#[tokio::test]
async fn sim_passes_its_settings_to_the_background_simulator() {
    let cli = Cli::start().await;
    let settings = [
        "--fast",
        "--updates",
        "keep",
        "--analytics-per-month",
        "1",
        "--seed",
        "11",
        "--analytics-basic-max-window",
        "50",
    ];
    let (printed, sim) = background_sim(&cli, &settings).await;
    let run = |command: &str| after_exports(&printed.stdout, command, cli.config_dir.path());
    let registered = cli
        .run_with(
            run("encoder register-preset --name p --destination vms5:// --format MP4 --output-filename x -o json"),
            "",
        )
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let updated = cli
        .run_with(run("encoder update-preset --preset-id 1 --description d"), "")
        .await;
    assert_eq!(updated.code, 0, "--updates keep takes a partial update: {updated:?}");
    // A window past the maximum is refused before the usage limits: the month's one call stays.
    let wide = cli
        .run_with(
            run("analytics basic-viewing-history --start-with 1 --end-with 51 -o json"),
            "",
        )
        .await;
    assert!(wide.code != 0 && wide.stderr.contains("at most 50"), "{wide:?}");
    let first = cli.run_with(run("analytics cloud-by-region -o json"), "").await;
    assert_eq!(first.code, 0, "{first:?}");
    let second = cli.run_with(run("analytics cloud-by-region -o json"), "").await;
    sim.stop();
    assert_ne!(second.code, 0, "the month's one call is spent: {second:?}");
    assert!(second.stderr.contains("month"), "{second:?}");
}

/// `vidplat sim --analytics-window 1s` with the client's `--analytics-window
/// 1s`: four analytics commands back to back are paced by the short window,
/// and none meets the server's 429 (with the documented 60 s window the
/// fourth would).
#[tokio::test]
async fn sim_analytics_window_paces_commands_back_to_back_without_a_429() {
    let cli = Cli::start().await;
    let (printed, sim) = background_sim(&cli, &["--fast", "--analytics-window", "1s"]).await;
    let started = std::time::Instant::now();
    for _ in 0..4 {
        let command = "--analytics-window 1s analytics cloud-by-region -o json";
        let run = cli
            .run_with(after_exports(&printed.stdout, command, cli.config_dir.path()), "")
            .await;
        assert_eq!(run.code, 0, "{run:?}");
        assert!(!run.stderr.contains("429"), "the server refused a call: {run:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    sim.stop();
}

/// A running simulator is driven from the command line: `sim put-input`
/// puts an input file a task can name, `sim advance` moves its clock and
/// prints its new time, both at the `VIDPLAT_SIM_URL` that `sim --print-env` printed.
#[tokio::test]
async fn sim_put_input_and_advance_drive_a_running_simulator() {
    let cli = Cli::start().await;
    let (printed, sim) = background_sim(&cli, &["--fast"]).await;
    let root = printed
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("export VIDPLAT_SIM_URL="))
        .expect("the root")
        .to_owned();
    let file = cli.config_dir.path().join("clip.mp4");
    std::fs::write(&file, vec![0_u8; 123]).unwrap();
    let run = |command: String| after_exports(&printed.stdout, &command, cli.config_dir.path());
    let put = cli
        .run_with(
            run(format!("sim put-input {} --as uploads/clip.mp4", file.display())),
            "",
        )
        .await;
    assert_eq!(
        (put.code, put.stdout.as_str(), put.stderr.as_str()),
        (0, "", "put uploads/clip.mp4 (123 bytes)\n")
    );
    let read = cli
        .run_with(
            run("encoder get-input-file --filename uploads/clip.mp4 -o json".to_owned()),
            "",
        )
        .await;
    assert_eq!(read.code, 0, "{read:?}");
    assert_eq!(read.json()["filesize"], "123", "{read:?}");

    let advanced = cli.run_with(run("sim advance 86400".to_owned()), "").await;
    assert_eq!((advanced.code, advanced.stderr.as_str()), (0, ""), "{advanced:?}");
    vidplat::install_default_tls_provider();
    let clock: serde_json::Value = reqwest::get(format!("{root}/sim/clock"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(clock["ahead_seconds"], 86_400);
    let shape: String = advanced
        .stdout
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    assert_eq!(shape, "9999-99-99 99:99:99\n", "the simulator's new time: {advanced:?}");
    sim.stop();
    let gone = cli.run_with(run("sim advance 1".to_owned()), "").await;
    assert_eq!(gone.code, 2, "{gone:?}");
    assert!(gone.stderr.contains("did not answer"), "{gone:?}");
}

#[tokio::test]
async fn wait_task_import_ends_ready_with_exit_0_and_failed_with_exit_4() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let import = |inputs: &'static [&'static str]| {
        let csv: String = std::iter::once("input_filepath,profile_id\n".to_owned())
            .chain(inputs.iter().map(|input| format!("{input},{profile}\n")))
            .collect();
        let cli = &cli;
        async move {
            let imported = cli
                .run_stdin(&["encoder", "import-tasks-csv", "--body", "-", "-o", "json"], &csv)
                .await;
            assert_eq!(imported.code, 0, "{imported:?}");
            let id = imported.json()["id"].to_string();
            let waited = cli
                .run(&[
                    "encoder",
                    "wait-task-import",
                    &id,
                    "--poll-interval",
                    "20ms",
                    "-o",
                    "json",
                ])
                .await;
            (id, waited)
        }
    };
    let (id, ready) = import(&["movie.mp4", "movie.mp4"]).await;
    assert_eq!(ready.code, 0, "{ready:?}");
    assert_eq!(ready.json()["task_status"]["ready"], 2, "{}", ready.stdout);
    // One line per change of the counts, the last one all ready.
    let lines: Vec<&str> = ready.stderr.lines().collect();
    assert!(
        lines.iter().all(|l| l.starts_with(&format!("import {id}: "))),
        "{lines:?}"
    );
    assert_eq!(
        lines.last(),
        Some(&format!("import {id}: 2 ready").as_str()),
        "{lines:?}"
    );

    let (id, failed) = import(&["movie.mp4", "fail.mp4"]).await;
    assert_eq!(failed.code, 4, "{failed:?}");
    assert_eq!(failed.json()["task_status"]["failed"], 1, "the job is still printed");
    let (progress, error) = failed
        .stderr
        .trim_end()
        .rsplit_once('\n')
        .expect("progress, then the error");
    assert!(
        progress.ends_with(&format!("import {id}: 1 failed, 1 ready")),
        "{progress}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(error).expect("the error as JSON (-o json)"),
        json!({"error": {"kind": "task_ended", "message": format!("import {id}: 1 task(s) ended failed"),
            "exit_code": 4, "import_id": id.parse::<u64>().expect("a number"), "count": 1, "status": "failed"}})
    );
}

/// A file's permission bits.
#[cfg(unix)]
fn permissions_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).expect("the file exists").permissions().mode() & 0o777
}

/// A key file only its owner reads, in the test's configuration directory.
fn key_file(cli: &Cli, name: &str, key: &str) -> String {
    let path = cli.config_dir.path().join(name);
    std::fs::write(&path, key).expect("key file written");
    path.to_string_lossy().into_owned()
}

/// `profile status -o json` as (setting, value, source) rows.
fn status_rows(run: &Run) -> Vec<(String, Value, Value)> {
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            (
                row["setting"].as_str().expect("a setting").to_owned(),
                row["value"].clone(),
                row["source"].clone(),
            )
        })
        .collect()
}

fn status_of<'r>(rows: &'r [(String, Value, Value)], setting: &str) -> (&'r Value, &'r Value) {
    let (_, value, source) = rows
        .iter()
        .find(|(name, _, _)| name == setting)
        .unwrap_or_else(|| panic!("no row for {setting}: {rows:?}"));
    (value, source)
}

/// A profile's `output` is weighed as the AWS CLI weighs it: the flag, then an
/// explicitly named profile's, then `VIDPLAT_OUTPUT`, then the profile in use
/// otherwise, then the terminal rule.
#[tokio::test]
async fn a_profile_s_output_format_is_weighed_between_the_flag_and_the_variable() {
    let cli = Cli::start().await;
    let set_up = format!("encoder_url = {:?}\n", cli.sim.encoder_url);
    std::fs::write(
        cli.config_dir.path().join("config.toml"),
        format!("[profiles.prod]\n{set_up}output = \"csv\"\n\n[profiles.plain]\n{set_up}"),
    )
    .expect("config.toml written");
    let credentials = cli.config_dir.path().join("credentials.toml");
    let key = format!("api_key = {:?}\n", cli.sim.api_key);
    std::fs::write(&credentials, format!("[profiles.prod]\n{key}\n[profiles.plain]\n{key}")).expect("credentials");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&credentials, std::fs::Permissions::from_mode(0o600)).expect("mode 0600");
    let counts = ["encoder", "get-task-counts"];
    let printed = |env: &[(&str, &str)], flags: &[&str]| {
        let mut command = cli.command(&[flags, &counts[..]].concat());
        for (name, value) in env {
            command.env(name, value);
        }
        cli.run_with(command, "")
    };
    let csv_header = "canceled,canceling,encoding,failed,ready,uploading,waiting\n";
    let explicit = printed(&[("VIDPLAT_OUTPUT", "ndjson")], &["--profile", "prod"]).await;
    assert_eq!(
        (explicit.code, explicit.stdout.starts_with(csv_header)),
        (0, true),
        "{explicit:?}"
    );
    let flag = printed(&[("VIDPLAT_OUTPUT", "ndjson")], &["--profile", "prod", "-o", "yaml"]).await;
    assert!(flag.stdout.starts_with("canceled: 0\n"), "{flag:?}");
    let variable = printed(&[("VIDPLAT_OUTPUT", "ndjson"), ("VIDPLAT_PROFILE", "prod")], &[]).await;
    assert_eq!(variable.stdout.lines().count(), 1, "ndjson, one line: {variable:?}");
    assert!(variable.stdout.starts_with("{\"canceled\":0,"), "{variable:?}");
    let named_by_variable = printed(&[("VIDPLAT_PROFILE", "prod")], &[]).await;
    assert!(
        named_by_variable.stdout.starts_with(csv_header),
        "{named_by_variable:?}"
    );
    let neither = printed(&[], &["--profile", "plain"]).await;
    assert!(
        neither.stdout.starts_with("{\n  \"canceled\": 0,"),
        "JSON off a terminal: {neither:?}"
    );
    let unknown = printed(&[("VIDPLAT_OUTPUT", "xml")], &[]).await;
    assert_eq!(
        (unknown.code, unknown.stdout.as_str(), unknown.stderr.as_str()),
        (
            2,
            "",
            "error: invalid input, not sent: `VIDPLAT_OUTPUT` names the output format `xml`: one of json, ndjson, table, csv, yaml\n"
        )
    );
    // `profile status` says which one chose the format.
    let status = cli.run(&["--profile", "prod", "profile", "status", "-o", "json"]).await;
    assert_eq!(
        status_of(&status_rows(&status), "output"),
        (&json!("json"), &json!("--output"))
    );
    let mut command = cli.command(&["profile", "status"]);
    command.env("VIDPLAT_PROFILE", "prod").env("VIDPLAT_OUTPUT", "json");
    let status = cli.run_with(command, "").await;
    assert_eq!(
        status_of(&status_rows(&status), "output"),
        (&json!("json"), &json!("VIDPLAT_OUTPUT"))
    );
    let mut command = cli.command(&["profile", "status"]);
    command.env("VIDPLAT_PROFILE", "prod");
    let status = cli.run_with(command, "").await;
    assert!(
        status.stdout.starts_with("setting,source,value\n"),
        "the profile's csv: {status:?}"
    );
    assert!(status.stdout.contains("\noutput,profile `prod`,csv\n"), "{status:?}");
}

#[tokio::test]
async fn an_explicit_profile_beats_the_variables_and_status_says_where_each_value_came_from() {
    // The shell exports simulator A (as `eval "$(vidplat sim --print-env)"` does);
    // the profile `staging` is simulator B.
    let cli = Cli::start().await;
    let staging = Simulator::start_with(SimConfig::fast()).await.expect("simulator B");
    let key = key_file(&cli, "staging.key", &staging.api_key);
    let add = cli
        .run(&[
            "profile",
            "add",
            "staging",
            "--encoder-url",
            &staging.encoder_url,
            "--api-key-file",
            &key,
        ])
        .await;
    assert_eq!(add.code, 0, "{add:?}");
    let preset = r#"{"name": "only-on-staging", "destination": "https://upload.example.com/out", "format": "MP4", "output_filename": "%INPUT_FILENAME%"}"#;
    let registered = cli
        .run_stdin(
            &[
                "--encoder-url",
                &staging.encoder_url,
                "--api-key-file",
                &key,
                "encoder",
                "register-preset",
                "--body",
                "-",
                "-o",
                "json",
            ],
            preset,
        )
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let listed = cli
        .run(&["--profile", "staging", "encoder", "list-presets", "-o", "json"])
        .await;
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(
        listed.stdout.contains("only-on-staging"),
        "the call went to B: {listed:?}"
    );

    let status = cli
        .run(&["--profile", "staging", "profile", "status", "-o", "json"])
        .await;
    let rows = status_rows(&status);
    assert_eq!(status_of(&rows, "profile"), (&json!("staging"), &json!("--profile")));
    assert_eq!(
        status_of(&rows, "encoder_url"),
        (&json!(staging.encoder_url), &json!("profile `staging`"))
    );
    assert_eq!(
        status_of(&rows, "api_key"),
        (&json!("[redacted]"), &json!("profile `staging`"))
    );
    // `profile add` saved the variable's vms URL into the profile (and said so).
    assert!(add.stderr.contains("vms_url (VIDPLAT_VMS_URL)"), "{add:?}");
    assert_eq!(
        status_of(&rows, "vms_url"),
        (&json!(cli.sim.vms_url), &json!("profile `staging`"))
    );
    assert!(!status.stdout.contains(&staging.api_key) && !status.stdout.contains(&cli.sim.api_key));
    assert_eq!(
        status.stderr,
        "note: VIDPLAT_ENCODER_URL, VIDPLAT_VMS_URL, VIDPLAT_ANALYTICS_URL, VIDPLAT_LOGIN_ID, VIDPLAT_API_KEY \
         set but not read: --profile names the whole set-up\n"
    );

    // A flag beats the profile.
    let status = cli
        .run(&[
            "--profile",
            "staging",
            "--encoder-url",
            "http://127.0.0.1:9/encoder",
            "--timeout",
            "90s",
            "profile",
            "status",
            "-o",
            "json",
        ])
        .await;
    let rows = status_rows(&status);
    assert_eq!(
        status_of(&rows, "encoder_url"),
        (&json!("http://127.0.0.1:9/encoder"), &json!("--encoder-url"))
    );
    assert_eq!(
        status_of(&rows, "total_timeout"),
        (&json!("1m 30s"), &json!("--timeout"))
    );

    // A profile named by VIDPLAT_PROFILE is under the variables (which the shell set on purpose).
    let mut command = cli.command(&["profile", "status", "-o", "json"]);
    command.env("VIDPLAT_PROFILE", "staging");
    let status = cli.run_with(command, "").await;
    let rows = status_rows(&status);
    assert_eq!(
        status_of(&rows, "profile"),
        (&json!("staging"), &json!("VIDPLAT_PROFILE"))
    );
    assert_eq!(
        status_of(&rows, "encoder_url"),
        (&json!(cli.sim.encoder_url), &json!("VIDPLAT_ENCODER_URL"))
    );
    assert_eq!(status.stderr, "");
}

#[tokio::test]
async fn profile_add_takes_the_environment_and_refuses_a_profile_with_nothing_in_it() {
    let cli = Cli::start().await;
    let add = cli.run(&["profile", "add", "from-env"]).await;
    assert_eq!(add.code, 0, "{add:?}");
    assert!(
        add.stderr.contains("encoder_url (VIDPLAT_ENCODER_URL)") && add.stderr.contains("api_key (VIDPLAT_API_KEY)"),
        "{add:?}"
    );
    let shown = cli.run(&["profile", "show", "from-env", "-o", "json"]).await;
    assert_eq!(shown.code, 0, "{shown:?}");
    assert_eq!(
        (
            &shown.json()["encoder_url"],
            &shown.json()["api_key"],
            &shown.json()["login_id"]
        ),
        (
            &json!(cli.sim.encoder_url),
            &json!("[redacted]"),
            &json!(cli.sim.login_id)
        )
    );
    // The saved profile alone reaches the simulator.
    let mut command = cli.command(&["--profile", "from-env", "encoder", "list-tasks", "-o", "json"]);
    command.env_remove("VIDPLAT_ENCODER_URL").env_remove("VIDPLAT_API_KEY");
    let listed = cli.run_with(command, "").await;
    assert_eq!((listed.code, listed.stdout.as_str()), (0, "[]\n"), "{listed:?}");

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
    command
        .args(["profile", "add", "empty"])
        .env_clear()
        .env("VIDPLAT_CONFIG_DIR", cli.config_dir.path());
    let empty = cli.run_with(command, "").await;
    assert_eq!(empty.code, 2, "{empty:?}");
    assert!(empty.stderr.contains("has nothing to save"), "{empty:?}");
    let config = std::fs::read_to_string(cli.config_dir.path().join("config.toml")).expect("config");
    assert!(!config.contains("empty"), "nothing saved: {config}");
}

/// Runs `vidplat ARGS` on a pseudo-terminal (Python's `pty`, which makes it
/// the controlling terminal), types `typed` once `prompt` shows, and gives
/// back everything the terminal showed and the exit code.
async fn on_a_terminal(cli: &Cli, args: &[&str], prompt: &str, typed: &str) -> (String, i32) {
    const DRIVER: &str = r#"
import os, pty, select, sys, time
prompt, typed = sys.argv[1].encode(), sys.argv[2].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[3], sys.argv[3:])
shown, sent, deadline = b"", False, time.time() + 30
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if not sent and (prompt in shown or time.time() > deadline - 25):
        os.write(fd, typed + b"\n")
        sent = True
    if ready:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let output = tokio::process::Command::new("python3")
        .args(["-c", DRIVER, prompt, typed, env!("CARGO_BIN_EXE_vidplat")])
        .args(args)
        .env_clear()
        .env("VIDPLAT_CONFIG_DIR", cli.config_dir.path())
        .env("VIDPLAT_STATE_DIR", cli.config_dir.path().join("state"))
        .env("VIDPLAT_ENCODER_URL", &cli.sim.encoder_url)
        // As a terminal emulator sets it (indicatif draws nothing on a terminal without one).
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("python3 runs the terminal driver");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

#[tokio::test]
async fn profile_add_on_a_terminal_asks_for_the_key_and_never_shows_it() {
    let cli = Cli::start().await;
    let typed = "typed-key-8d1f";
    for (name, flag) in [("typed", None), ("stdin", Some("--api-key-stdin"))] {
        let mut args = vec!["profile", "add", name];
        args.extend(flag);
        let (screen, code) = on_a_terminal(&cli, &args, "(input hidden): ", typed).await;
        assert_eq!(code, 0, "{name}: {screen}");
        assert!(
            screen.contains(&format!("API key for profile `{name}` (input hidden): ")),
            "{name}: {screen}"
        );
        assert!(!screen.contains(typed), "{name}: the key was echoed: {screen}");
        let credentials = std::fs::read_to_string(cli.config_dir.path().join("credentials.toml")).expect("credentials");
        assert!(credentials.contains(typed), "{name}: {credentials}");
    }
}

/// A server answering every request with `status_and_headers` and the JSON
/// `body`: its base URL (ending in `/{service}`) and a count of its requests.
async fn canned_server(
    service: &str,
    status_and_headers: &'static str,
    body: &'static str,
) -> (String, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}/{service}", listener.local_addr().expect("an address"));
    let requests = Arc::new(AtomicU64::new(0));
    let counted = requests.clone();
    tokio::spawn(async move {
        use tokio::io::AsyncReadExt as _;
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut head = [0u8; 4096];
            let _ = socket.read(&mut head).await;
            let answer = format!(
                "HTTP/1.1 {status_and_headers}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    (url, requests)
}

/// Whoever built an error, its text reaches stderr with no raw control
/// character: a server's error code (the C1 CSI, which JSON writers leave
/// as it is) in a JSON error, a catalog file's key (ESC) and a batch row's
/// cell (CSI again: clap's messages drop ESC sequences, not it) in text errors.
#[tokio::test]
async fn no_error_puts_a_raw_control_character_on_stderr() {
    let raw = |text: &str| text.chars().any(|c| c.is_control() && c != '\n');
    let cli = Cli::start().await;
    let (url, _) = canned_server("encoder", "404 Not Found", r#"{"code":"E\u009b2J","message":"m"}"#).await;
    let run = cli
        .run(&[
            "--encoder-url",
            &url,
            "encoder",
            "get-task",
            "--task-id",
            "1",
            "-o",
            "json",
        ])
        .await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(!raw(&run.stderr) && run.stderr.contains(r"E\u009b2J"), "{run:?}");
    let error: Value = serde_json::from_str(&run.stderr).expect("JSON on stderr");
    assert_eq!(error["error"]["code"], "E\u{9b}2J", "the same code to a JSON reader");

    let run = cli.run_stdin(&["catalog", "plan", "-f", "-"], "\"\\e[2J\": []\n").await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        !raw(&run.stderr) && run.stderr.contains(r"`\u{1b}[2J` is no kind the file declares"),
        "{run:?}"
    );

    let run = cli
        .run_stdin(
            &["batch", "encoder", "register-task", "-"],
            "profile-id,input-filepath,priority\n\u{9b}2J,clip.mp4,1\n",
        )
        .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        !raw(&run.stderr) && run.stderr.contains(r"row 1: `profile-id` invalid value '\u{9b}2J'"),
        "{run:?}"
    );
}

#[tokio::test]
async fn fail_fast_exits_3_at_once_on_the_servers_429_with_its_retry_time() {
    let cli = Cli::start().await;
    let (url, requests) = canned_server(
        "analytics",
        "429 Too Many Requests\r\nRetry-After: 30",
        r#"{"message":"too many requests"}"#,
    )
    .await;
    let started = std::time::Instant::now();
    let refused = cli
        .run(&[
            "--quota",
            "fail-fast",
            "--analytics-url",
            &url,
            "analytics",
            "cloud-by-os",
            "-o",
            "json",
        ])
        .await;
    assert!(started.elapsed() < Duration::from_secs(10), "no wait: {refused:?}");
    assert_eq!(refused.code, 3, "{refused:?}");
    assert_eq!(refused.stdout, "");
    let error: Value = serde_json::from_str(&refused.stderr).expect("JSON on stderr");
    assert_eq!(
        (
            &error["error"]["kind"],
            &error["error"]["status"],
            &error["error"]["retry_after_secs"]
        ),
        (&json!("rate_limited"), &json!(429), &json!(30.0)),
        "{error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("retry after")),
        "{error}"
    );
    assert_eq!(requests.load(Ordering::SeqCst), 1, "sent once, not again");
}

#[test]
fn a_completion_script_into_a_closed_pipe_ends_quietly() {
    use std::io::Read as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vidplat"))
        .args(["completion", "bash"])
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // `| head -c 100`: the reader takes a little, then closes the pipe.
    let mut start = [0u8; 100];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut start)
        .expect("the script begins");
    let output = child.wait_with_output().expect("the binary ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!((output.status.code(), stderr.as_ref()), (Some(0), ""));
}

#[tokio::test]
async fn a_quota_store_read_from_its_file_keeps_the_password_off_the_command_line() {
    let cli = Cli::start().await;
    let dir = cli.config_dir.path();
    let file = dir.join("quota-store.url");
    std::fs::write(&file, "redis://:hunter2@127.0.0.1:9/0\n").expect("the store's file");
    let file = file.to_string_lossy().into_owned();
    let both = cli
        .run(&[
            "profile",
            "add",
            "shared",
            "--quota-store",
            "redis://127.0.0.1:9/0",
            "--quota-store-file",
            &file,
            "--login-id",
            "acct",
        ])
        .await;
    assert_eq!(both.code, 2, "{both:?}");
    let config = std::fs::read_to_string(dir.join("config.toml")).unwrap_or_default();
    assert!(!config.contains("shared"), "nothing saved: {config}");

    let add = cli
        .run(&[
            "profile",
            "add",
            "shared",
            "--quota-store-file",
            &file,
            "--login-id",
            "acct",
        ])
        .await;
    assert_eq!(add.code, 0, "{add:?}");
    assert!(!add.stderr.contains("hunter2"), "{add:?}");
    let credentials = std::fs::read_to_string(dir.join("credentials.toml")).expect("credentials");
    assert!(
        credentials.contains("\"redis://:hunter2@127.0.0.1:9/0\""),
        "the URL, without its line end: {credentials}"
    );
    let shown = cli.run(&["profile", "show", "shared", "-o", "json"]).await;
    assert_eq!(shown.json()["quota_store"], "redis://***@127.0.0.1:9/0");
}

#[tokio::test]
async fn secrets_stay_in_the_owners_file_and_an_unprotected_one_is_refused() {
    let cli = Cli::start().await;
    let store = "redis://:hunter2@127.0.0.1:9/0";
    let add = cli
        .run(&["profile", "add", "shared", "--quota-store", store, "--login-id", "acct"])
        .await;
    assert_eq!(add.code, 0, "{add:?}");
    let dir = cli.config_dir.path();
    let config = std::fs::read_to_string(dir.join("config.toml")).expect("config");
    assert!(
        !config.contains("hunter2") && !config.contains(&cli.sim.api_key),
        "{config}"
    );
    let credentials_path = dir.join("credentials.toml");
    let credentials = std::fs::read_to_string(&credentials_path).expect("credentials");
    assert!(credentials.contains(store), "{credentials}");
    let shown = cli.run(&["profile", "show", "shared", "-o", "json"]).await;
    assert_eq!(shown.json()["quota_store"], "redis://***@127.0.0.1:9/0");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(permissions_of(&credentials_path), 0o600);
        // Others can read it: refused, named, and how to fix it said (also for the default profile).
        std::fs::set_permissions(&credentials_path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        for args in [
            &["--profile", "shared", "encoder", "list-tasks"][..],
            &["encoder", "list-tasks"][..],
        ] {
            let refused = cli.run(args).await;
            assert_eq!(refused.code, 2, "{refused:?}");
            assert_eq!(
                refused.stderr,
                format!(
                    "error: profile: {0}: holds secrets and others can read or write it (mode 0644): \
                     run `chmod 600 {0}`\n",
                    credentials_path.display()
                )
            );
        }
        // A symbolic link to a private file: refused as well.
        let real = dir.join("elsewhere.toml");
        std::fs::rename(&credentials_path, &real).expect("moved");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::os::unix::fs::symlink(&real, &credentials_path).expect("symlink");
        let refused = cli.run(&["--profile", "shared", "encoder", "list-tasks"]).await;
        assert_eq!(refused.code, 2, "{refused:?}");
        assert!(
            refused.stderr.contains("is a symbolic link, which is not read"),
            "{refused:?}"
        );
    }
}

/// A task whose text would, printed raw, write the clipboard (OSC 52), set the
/// window's title (OSC 0), clear the screen (CSI 2J, also as the C1 control
/// U+009B) and rewrite the line (CR).
const HOSTILE_TASK: &str = r#"{"id": 1, "status": "\u001b]0;pwned\u0007encoding",
    "episode_name": "\u001b]52;c;aGk=\u0007movie\r\u001b[2J\u009b2J.mp4"}"#;

#[tokio::test]
async fn escape_sequences_from_the_network_never_reach_a_terminal() {
    let cli = Cli::start().await;
    let (url, _) = canned_server("encoder", "200 OK", HOSTILE_TASK).await;
    let get = ["--encoder-url", url.as_str(), "encoder", "get-task", "--task-id", "1"];
    for format in [None, Some("csv"), Some("table")] {
        let mut args = get.to_vec();
        args.extend(format.map(|f| ["-o", f]).into_iter().flatten());
        let (screen, code) = on_a_terminal(&cli, &args, "", "").await;
        assert_eq!(code, 0, "{format:?}: {screen}");
        assert!(
            !screen.contains(['\u{1b}', '\u{7}', '\u{9b}']),
            "{format:?}: {screen:?}"
        );
        assert!(
            screen.contains("\\u{1b}]52;c;aGk=\\u{7}movie\\r"),
            "{format:?}: {screen:?}"
        );
    }
    // A table is escaped into a pipe too; CSV into a pipe keeps the bytes as they came.
    let table = cli.run(&[&get[..], &["-o", "table"]].concat()).await;
    assert!(
        !table.stdout.contains('\u{1b}') && table.stdout.contains("\\u{1b}]0;pwned"),
        "{table:?}"
    );
    let csv = cli.run(&[&get[..], &["-o", "csv"]].concat()).await;
    assert!(csv.stdout.contains("\u{1b}]52;c;aGk=\u{7}movie\r"), "{csv:?}");
    // A wait's status lines on stderr.
    let wait = cli
        .run(&[
            "--encoder-url",
            &url,
            "--timeout",
            "1s",
            "encoder",
            "wait-task",
            "1",
            "--poll-interval",
            "200ms",
        ])
        .await;
    assert_eq!(wait.code, 124, "{wait:?}");
    assert!(
        !wait.stderr.contains('\u{1b}') && wait.stderr.contains("task 1: \\u{1b}]0;pwned\\u{7}encoding"),
        "{wait:?}"
    );
}

#[tokio::test]
async fn a_wait_that_ends_with_several_failed_tasks_names_each() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let registered = cli
            .run(&[
                "encoder",
                "register-task",
                "--profile-id",
                &profile,
                "--input-filepath",
                "fail.mp4",
                "-o",
                "json",
            ])
            .await;
        assert_eq!(registered.code, 0, "{registered:?}");
        ids.push(registered.json()["tasks"][0]["id"].to_string());
    }
    let waited = cli
        .run(&[
            "encoder",
            "wait-task",
            &ids[0],
            &ids[1],
            "--poll-interval",
            "20ms",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!(waited.code, 4, "{waited:?}");
    assert_eq!(waited.stdout.lines().count(), 2, "both final tasks printed: {waited:?}");
    assert!(
        waited.stderr.ends_with(&format!(
            "error: 2 tasks ended without being ready: task {} failed, task {} failed\n",
            ids[0], ids[1]
        )),
        "{}",
        waited.stderr
    );
    let json = cli
        .run(&[
            "encoder",
            "wait-task",
            &ids[0],
            &ids[1],
            "--poll-interval",
            "20ms",
            "-o",
            "json",
        ])
        .await;
    let last = json.stderr.lines().last().unwrap_or_default();
    let error: Value = serde_json::from_str(last).expect("the last line is the error, as JSON");
    assert_eq!(error["error"]["tasks"].as_array().map(Vec::len), Some(2), "{error}");
}

#[tokio::test]
async fn an_exports_quota_wait_counts_down_on_a_terminal() {
    let cli = Cli::start_with(SimConfig {
        analytics_window: Duration::from_secs(3),
        ..SimConfig::fast()
    })
    .await;
    let key = key_file(&cli, "sim.key", &cli.sim.api_key);
    let out = cli.config_dir.path().join("out");
    let last = vidplat::Period::today_in_japan() - chrono::Days::new(7);
    let (from, to) = ((last - chrono::Days::new(4)).to_string(), last.to_string());
    let args = [
        "--analytics-url",
        &cli.sim.analytics_url,
        "--api-key-file",
        &key,
        "--analytics-window",
        "3s",
        "analytics",
        "export",
        "cloud-viewing-history",
        "--from",
        &from,
        "--to",
        &to,
        "--chunk-days",
        "1",
        "--out",
        &out.to_string_lossy(),
    ];
    let (screen, code) = on_a_terminal(&cli, &args, "", "").await;
    assert_eq!(code, 0, "{screen}");
    for left in ["3 s", "2 s", "1 s"] {
        assert!(
            screen.contains(&format!("waiting {left} for the per-minute analytics quota")),
            "the wait counts down through {left}: {screen:?}"
        );
    }
}

#[tokio::test]
async fn the_analytics_quota_is_the_machines_back_to_back_in_parallel_and_in_a_new_process() {
    let cli = Cli::start_with(SimConfig {
        analytics_window: Duration::from_secs(2),
        ..SimConfig::fast()
    })
    .await;
    let call = ["--analytics-window", "2s", "analytics", "cloud-by-os", "-o", "json"];
    let no_429 = |run: &Run| {
        assert_eq!(run.code, 0, "{run:?}");
        assert!(!run.stderr.contains("429"), "the server refused a call: {run:?}");
    };
    for _ in 0..2 {
        no_429(&cli.run(&call).await);
    }
    for run in futures::future::join_all((0..4).map(|_| cli.run(&call))).await {
        no_429(&run);
    }
    let answered: Vec<u16> = cli.sim.journal().iter().map(|r| r.status).collect();
    assert_eq!(answered, [200; 6], "six calls, none refused by the simulator");

    // A new process reads the same count.
    let quota = cli.run(&["analytics", "quota", "-o", "json"]).await;
    assert_eq!(quota.code, 0, "{quota:?}");
    assert_eq!(quota.json()["used_this_month"], 6, "{quota:?}");
    assert!(
        quota.json()["store"]
            .as_str()
            .is_some_and(|s| s.starts_with("machine (every process of this machine; in ")),
        "{quota:?}"
    );
    // Another simulator on another port is another account's count.
    let other = Simulator::start_with(SimConfig::fast()).await.expect("simulator B");
    let mut command = cli.command(&["analytics", "quota", "-o", "json"]);
    command
        .env("VIDPLAT_ANALYTICS_URL", &other.analytics_url)
        .env("VIDPLAT_API_KEY", &other.api_key);
    let theirs = cli.run_with(command, "").await;
    assert_eq!(theirs.json()["used_this_month"], 0, "{theirs:?}");
}

/// A machine store that cannot be used (here a file where its directory
/// should be) leaves the quota counted in this process only: the command
/// still runs, and says so once on stderr, whatever its attempts.
#[tokio::test]
async fn a_quota_counted_in_this_process_only_says_so_once() {
    let cli = Cli::start().await;
    let blocked = cli.config_dir.path().join("a-file");
    std::fs::write(&blocked, "not a directory").expect("written");
    let mut command = cli.command(&["analytics", "cloud-by-os", "-o", "json"]);
    command.env("VIDPLAT_STATE_DIR", &blocked);
    let run = cli.run_with(command, "").await;
    assert_eq!(run.code, 0, "{run:?}");
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{run:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "warning: analytics quota (machine): creating {}: ",
            blocked.display()
        )) && warnings[0].ends_with("; counting in this process only"),
        "{run:?}"
    );
}

/// Four commands at once: the machine's store lets one call go at a time
/// and three a window, so the fourth waits for the first call's place
/// whatever the time each process takes to start.
async fn four_at_once(cli: &Cli, call: &[&str], flag: Option<&str>, env: Option<&str>) -> Vec<Run> {
    let mut args: Vec<&str> = Vec::new();
    if let Some(reading) = flag {
        args.extend(["--analytics-counted-until", reading]);
    }
    args.extend(call);
    let runs = (0..4).map(|_| {
        let mut command = cli.command(&args);
        if let Some(reading) = env {
            command.env("VIDPLAT_ANALYTICS_COUNTED_UNTIL", reading);
        }
        cli.run_with(command, "")
    });
    futures::future::join_all(runs).await
}

/// The simulator counts an analytics call until a window after its end. The
/// default keeps to that with 500 ms calls and the 250 ms margin;
/// `VIDPLAT_ANALYTICS_COUNTED_UNTIL=turn` or `--analytics-counted-until turn`
/// (for a service counting arrivals) does not: its fourth call meets the
/// server's 429 and waits for its Retry-After.
#[tokio::test]
async fn an_analytics_call_counts_until_a_minute_after_its_end_unless_told_its_turn() {
    // Each reading against a simulator of its own, the three at once.
    let reading = |flag: Option<&'static str>, env: Option<&'static str>| async move {
        let cli = Cli::start_with(SimConfig {
            analytics_window: Duration::from_secs(4),
            analytics_latency: Duration::from_millis(500),
            ..SimConfig::fast()
        })
        .await;
        let call = ["--analytics-window", "4s", "analytics", "cloud-by-os", "-o", "json"];
        let runs = four_at_once(&cli, &call, flag, env).await;
        for run in &runs {
            assert_eq!(run.code, 0, "{run:?}");
        }
        let answered: Vec<u16> = cli.sim.journal().iter().map(|r| r.status).collect();
        let refused = runs
            .iter()
            .filter(|run| {
                run.stderr
                    .contains("the server refused the last attempt (429 Too Many Requests)")
            })
            .count();
        (answered, refused)
    };
    let (by_default, by_env, by_flag) = tokio::join!(
        reading(None, None),
        reading(None, Some("turn")),
        // The flag beats the environment.
        reading(Some("turn"), Some("end")),
    );
    assert_eq!(by_default, (vec![200; 4], 0));
    // The fourth call goes a window after the first one's turn, inside the
    // server's window: refused, then sent again after the server's Retry-After.
    assert_eq!(by_env, (vec![200, 200, 200, 429, 200], 1));
    assert_eq!(by_flag, (vec![200, 200, 200, 429, 200], 1));
}

#[tokio::test]
async fn every_list_prints_rows_says_when_it_stops_early_and_columns_shape_json() {
    let cli = Cli::start().await;
    // An empty list: no table on stdout, a note on stderr; CSV names its columns.
    let empty = cli.run(&["encoder", "list-tasks", "-o", "table"]).await;
    assert_eq!(
        (empty.code, empty.stdout.as_str(), empty.stderr.as_str()),
        (0, "", "no rows\n")
    );
    let empty_csv = cli
        .run(&["encoder", "list-tasks", "-o", "csv", "--columns", "id,status"])
        .await;
    assert_eq!(
        (empty_csv.code, empty_csv.stdout.as_str()),
        (0, "id,status\n"),
        "{empty_csv:?}"
    );
    // Without --columns, CSV's header is every member of a task, in the YAML's order.
    let empty_csv = cli.run(&["encoder", "list-tasks", "-o", "csv"]).await;
    assert_eq!(
        (empty_csv.code, empty_csv.stdout.as_str()),
        (
            0,
            "id,transaction,status,error_code,input_filename,multi_angles,output_filename,profile_id,\
             profile_name,preset_id,preset_name,format,destination,poster,seek_preview,encode_start,\
             encode_end,episode_name,publish_start,publish_end,vms_config,created_at,updated_at,streams\n"
        ),
        "{empty_csv:?}"
    );

    // A list the service answers whole prints rows, as a paged one does.
    for name in ["news", "sports"] {
        let registered = cli
            .run(&["vms", "register-category", "--name", name, "-o", "json"])
            .await;
        assert_eq!(registered.code, 0, "{registered:?}");
    }
    let categories = cli.run(&["vms", "list-categories", "-o", "ndjson"]).await;
    assert_eq!(categories.code, 0, "{categories:?}");
    let names: Vec<String> = categories
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a row a line")["name"].to_string())
        .collect();
    assert_eq!(names, ["\"news\"", "\"sports\""], "{categories:?}");
    let as_json = cli
        .run(&["vms", "list-categories", "-o", "json", "--columns", "name"])
        .await;
    assert_eq!(
        as_json.json(),
        json!([{"name": "news"}, {"name": "sports"}]),
        "{as_json:?}"
    );

    // A paged list that stops at its first page says so on stderr.
    let profile = cli.profile().await;
    cli.register_tasks(&profile, 2).await;
    let first = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--per-page",
            "1",
            "-o",
            "json",
            "--columns",
            "id",
        ])
        .await;
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.json().as_array().map(|rows| rows.len()), Some(1), "{first:?}");
    assert!(
        first.json()[0].as_object().is_some_and(|row| row.len() == 1),
        "only the column asked for: {first:?}"
    );
    assert_eq!(first.stderr, "showing 1 row, page 1 of 2; --all for every page\n");
    let all = cli
        .run(&["encoder", "list-tasks", "--per-page", "1", "--all", "-o", "ndjson"])
        .await;
    assert_eq!((all.stdout.lines().count(), all.stderr.as_str()), (2, ""), "{all:?}");
    // --max-pages bounds --all: one page of one row, and one call.
    cli.sim.clear_journal();
    let bounded = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--per-page",
            "1",
            "--all",
            "--max-pages",
            "1",
            "-o",
            "ndjson",
        ])
        .await;
    assert_eq!((bounded.code, bounded.stdout.lines().count()), (0, 1), "{bounded:?}");
    let calls = cli
        .sim
        .journal()
        .iter()
        .filter(|r| r.operation == Some("list_tasks"))
        .count();
    assert_eq!(calls, 1);

    // A table shows the task's chosen columns (x-table-columns), not all 24.
    let table = cli.run(&["encoder", "list-tasks", "--all", "-o", "table"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let header = table.stdout.lines().nth(1).expect("a header line");
    let shown: Vec<&str> = header
        .split(['│', '┆'])
        .map(str::trim)
        .filter(|cell| !cell.is_empty())
        .collect();
    assert_eq!(
        shown,
        [
            "id",
            "status",
            "input_filename",
            "preset_name",
            "profile_name",
            "error_code",
            "created_at"
        ],
        "{}",
        table.stdout
    );
    let chosen = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--all",
            "-o",
            "table",
            "--columns",
            "id,transaction",
        ])
        .await;
    assert!(chosen.stdout.contains("transaction"), "{}", chosen.stdout);
}

#[tokio::test]
async fn a_list_of_scalars_has_a_repeated_flag_and_an_unknown_flag_points_to_set() {
    let cli = Cli::start().await;
    let shown = cli
        .run(&[
            "encoder",
            "register-profile",
            "--name",
            "web",
            "--presets",
            "3",
            "--presets",
            "7",
            "--dry-run",
        ])
        .await;
    assert_eq!(shown.code, 0, "{shown:?}");
    assert!(
        shown.stdout.contains("\"presets\": [\n    3,\n    7\n  ]"),
        "{}",
        shown.stdout
    );
    let unknown = cli
        .run(&["encoder", "register-preset", "--name", "p", "--video-height", "720"])
        .await;
    assert_eq!((unknown.code, unknown.stdout.as_str()), (2, ""), "{unknown:?}");
    assert!(
        unknown.stderr.contains(
            "tip: a body member without a flag of its own is set with --set PATH=VALUE \
             (e.g. --set 'streams[0].video.height=720'); --body-template lists every member"
        ),
        "{}",
        unknown.stderr
    );
}

#[tokio::test]
async fn the_simulator_names_every_preset_member_it_requires_in_one_answer() {
    let cli = Cli::start().await;
    let refused = cli.run(&["encoder", "register-preset", "--name", "p"]).await;
    assert_eq!(refused.code, 1, "{refused:?}");
    assert!(
        refused
            .stderr
            .contains("`destination`, `format` and `output_filename` are required"),
        "{}",
        refused.stderr
    );
}

#[tokio::test]
async fn a_killed_holder_of_the_machines_analytics_slot_frees_it() {
    let cli = Cli::start().await;
    // The first analytics call is answered in 60 s: its process holds the slot meanwhile.
    cli.sim
        .inject_fault(Fault {
            times: 1,
            delay_ms: 60_000,
            outcome: vidplat_sim::FaultOutcome::Run,
            ..Fault::operation("cloud_by_os")
        })
        .expect("the fault is set");
    let mut holder = cli
        .command(&["analytics", "cloud-by-os", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let in_flight = || async { cli.run(&["analytics", "quota", "-o", "json"]).await.json()["calls_in_flight"].clone() };
    let started = std::time::Instant::now();
    while in_flight().await != json!(1) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the call never took the slot"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    holder.kill().await.expect("SIGKILL");
    assert_eq!(in_flight().await, json!(0), "the kernel dropped the dead holder's lock");
    // The holder may have died between taking the slot and sending its call:
    // its slow answer must not fall on the next call.
    cli.sim.clear_faults();
    let next = tokio::time::timeout(
        Duration::from_secs(10),
        cli.run(&["analytics", "cloud-by-os", "-o", "json"]),
    )
    .await
    .expect("the next call does not wait for the dead one");
    assert_eq!(next.code, 0, "{next:?}");
}

/// `sign-page --sim` prints where the simulator serves the signed page (under
/// `VIDPLAT_SIM_URL`, at `/hosts/{domain}/pages/…`), and that address opens it.
#[tokio::test]
async fn sign_page_sim_prints_where_the_simulator_serves_the_signed_page() {
    let cli = Cli::start().await;
    let client = cli.sim.client().build().expect("a client");
    let vms = client.vms().expect("vms");
    let from = |value: serde_json::Value| value;
    let category =
        vidplat::Call::call(vms.register_category().create_parents(true).body(
            serde_json::from_value::<vidplat::vms::types::CategoryCreate>(from(json!({"name": "movies"}))).unwrap(),
        ))
        .await
        .expect("a category");
    let content = json!({
        "name": "c", "title": "T", "category_id": category.id,
        "streams": [{"name": "s", "path": "/a.mp4", "format": "MP4"}],
        "stream_sets": [{"name": "mp4", "stream_names": ["s"]}]
    });
    vidplat::Call::call(
        vms.register_content()
            .body(serde_json::from_value::<vidplat::vms::types::ContentCreate>(content).unwrap()),
    )
    .await
    .expect("a content");
    let page = json!({"content_name": "c", "signature_required": true, "configurations": {"title": "Members"}});
    let page = vidplat::Call::call(
        vms.register_viewing_page()
            .body(serde_json::from_value::<vidplat::vms::types::ViewingPageCreate>(page).unwrap()),
    )
    .await
    .expect("a page");
    let page_id = page.id.expect("an id");
    let root = format!("http://{}", cli.sim.address);
    let args = [
        "vms",
        "sign-page",
        "--page",
        page_id.as_str(),
        "--domain",
        vidplat_sim::PORTAL_DOMAIN,
        "--valid-for",
        "1h",
        "--sim",
    ];
    let mut command = cli.command(&args);
    command.env("VIDPLAT_SIM_URL", &root);
    let printed = cli.run_with(command, "").await;
    assert_eq!(printed.code, 0, "{printed:?}");
    let address = printed.stdout.trim();
    let expected = format!("{root}/hosts/{}/pages/{page_id}?", vidplat_sim::PORTAL_DOMAIN);
    assert!(address.starts_with(&expected), "{address}");
    vidplat::install_default_tls_provider();
    assert_eq!(reqwest::get(address).await.expect("an answer").status(), 200);

    let mut command = cli.command(&args);
    command.env_remove("VIDPLAT_SIM_URL");
    let refused = cli.run_with(command, "").await;
    assert_eq!((refused.code, refused.stdout.as_str()), (2, ""), "{refused:?}");
}

/// `rows` task rows for `profile` (`input-filepath` `clip-N.mp4`), as CSV.
fn task_rows(profile: &str, rows: usize) -> String {
    let mut csv = String::from("profile-id,input-filepath,priority\n");
    for n in 1..=rows {
        csv.push_str(&format!("{profile},clip-{n}.mp4,{}\n", n % 50));
    }
    csv
}

/// Each stdout line of a batch, by row number: its status.
fn row_statuses(run: &Run) -> std::collections::BTreeMap<u64, String> {
    run.stdout
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("a JSON line ({e}): {line}"));
            (
                row["row"].as_u64().expect("a row number"),
                row["status"].as_str().expect("a status").to_owned(),
            )
        })
        .collect()
}

impl Cli {
    /// Input files `clip-1.mp4` to `clip-{count}.mp4` in the simulator.
    fn clips(&self, count: usize) {
        for n in 1..=count {
            self.sim.add_input_file(&format!("clip-{n}.mp4"), 1_000);
        }
    }

    /// The input file names of every task the simulator holds.
    async fn task_inputs(&self) -> Vec<String> {
        let run = self.run(&["encoder", "list-tasks", "--all", "-o", "ndjson"]).await;
        assert_eq!(run.code, 0, "{run:?}");
        let mut inputs: Vec<String> = run
            .stdout
            .lines()
            .map(|line| {
                let task: Value = serde_json::from_str(line).expect("a task");
                task["input_filename"].as_str().unwrap_or_default().to_owned()
            })
            .collect();
        inputs.sort();
        inputs
    }
}

#[tokio::test]
async fn a_batch_names_every_refused_row_and_sends_nothing() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    cli.clips(500);
    let dir = tempfile::tempdir().expect("a directory");
    let mut csv = task_rows(&profile, 500);
    // Three rows broken three ways: a bound, a type, a required member.
    csv = csv
        .replacen(",clip-17.mp4,17\n", ",clip-17.mp4,100\n", 1)
        .replacen(&format!("{profile},clip-250.mp4,"), "seven,clip-250.mp4,", 1)
        .replacen(",clip-499.mp4,", ",,", 1);
    let file = dir.path().join("tasks.csv");
    std::fs::write(&file, csv).expect("rows written");
    let run = cli
        .run(&["batch", "encoder", "register-task", file.to_str().expect("a path")])
        .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "row 17: `priority` must be at most 99 (maximum)\n\
         row 250: `profile-id` invalid value 'seven' for '--profile-id <INTEGER>': `seven` is not an integer\n\
         row 499: `body.input_filepath` is required\n\
         error: 3 of 500 row(s) refused, nothing sent (--skip-invalid sends the others)\n"
    );
    assert_eq!(cli.task_inputs().await, Vec::<String>::new(), "nothing was registered");
    assert!(
        !dir.path().join("tasks.csv.journal").exists(),
        "no journal for a batch that never ran"
    );

    // With --skip-invalid the other 497 go, and the refused three are listed.
    // The simulator takes 100 active tasks: past them registration is
    // refused (403 OVER_SERVICE_LIMIT), and the batch waits for tasks to end.
    let run = cli
        .run(&[
            "batch",
            "encoder",
            "register-task",
            file.to_str().expect("a path"),
            "--skip-invalid",
            "--parallel",
            "8",
            "--poll-interval",
            "20ms",
        ])
        .await;
    let stderr_start: String = run.stderr.chars().take(2_000).collect();
    assert_eq!(run.code, 0, "{stderr_start}");
    assert!(
        run.stderr.contains("skipping 3 refused row(s): [17, 250, 499]\n"),
        "{stderr_start}"
    );
    assert!(
        run.stderr.contains(
            "the task queue is full (403 OVER_SERVICE_LIMIT: nothing was registered); waiting for tasks to end ("
        ),
        "{stderr_start}"
    );
    let summary = format!(
        "batch: 497 ok, 0 failed, 0 unknown; journal {}\n",
        dir.path().join("tasks.csv.journal").display()
    );
    assert!(run.stderr.ends_with(&summary), "{stderr_start}");
    let statuses = row_statuses(&run);
    assert_eq!(statuses.len(), 497);
    assert!(statuses.values().all(|status| status == "ok"), "{statuses:?}");
    assert_eq!(cli.task_inputs().await.len(), 497);
}

/// A 401 sent without a key says where a key goes; with a key (a wrong one), the error stands alone.
#[tokio::test]
async fn a_401_without_an_api_key_says_where_a_key_goes() {
    let cli = Cli::start().await;
    let run = |args: &[&str], key: Option<&str>| {
        let mut command = cli.command(args);
        match key {
            Some(key) => command.env("VIDPLAT_API_KEY", key),
            None => command.env_remove("VIDPLAT_API_KEY"),
        };
        cli.run_with(command, "")
    };
    let keyless = run(&["encoder", "get-task-counts"], None).await;
    assert_eq!(keyless.code, 1, "{keyless:?}");
    assert_eq!(keyless.stdout, "");
    assert_eq!(
        keyless.stderr,
        "error: the service answered 401 REQUEST_UNAUTHORIZED\n\
         tip: no API key was given: --api-key-file FILE, VIDPLAT_API_KEY, or a profile (`vidplat profile add`)\n"
    );

    let wrong = run(&["encoder", "get-task-counts"], Some("not-the-account-key")).await;
    assert_eq!(wrong.code, 1, "{wrong:?}");
    assert_eq!(wrong.stderr, "error: the service answered 401 REQUEST_UNAUTHORIZED\n");

    // JSON errors are for programs: the same error, no tip.
    let json = run(&["encoder", "get-task-counts", "-o", "json"], None).await;
    assert_eq!(json.code, 1, "{json:?}");
    assert!(!json.stderr.contains("tip:"), "{json:?}");

    // The basic real-time counts authenticate by login ID, never by key: a key would not help.
    let by_login = run(
        &["analytics", "basic-realtime-user-counts", "--login-id", "someone@else"],
        None,
    )
    .await;
    assert_eq!(by_login.code, 1, "{by_login:?}");
    assert_eq!(
        by_login.stderr,
        "error: the service answered 401 REQUEST_UNAUTHORIZED\n"
    );
}

/// A batch of a service the set-up gives no URL is refused once, before any
/// row is read into a request (it was refused once for every row).
#[tokio::test]
async fn a_batch_of_a_service_without_a_url_is_refused_once() {
    let cli = Cli::start().await;
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("tasks.csv");
    std::fs::write(&file, task_rows("7", 50)).expect("rows written");
    let mut command = cli.command(&["batch", "encoder", "register-task", file.to_str().expect("a path")]);
    command.env_remove("VIDPLAT_ENCODER_URL");
    let run = cli.run_with(command, "").await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: client configuration: no base URL for the encoder service: give --encoder-url, set \
         VIDPLAT_ENCODER_URL, or add a profile (`vidplat profile add`); `vidplat sim --print-env` prints a \
         local simulator's\n"
    );
    assert!(!dir.path().join("tasks.csv.journal").exists(), "nothing ran");
}

#[tokio::test]
async fn a_rerun_sends_each_row_once_and_never_again_one_that_may_have_arrived() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let dir = tempfile::tempdir().expect("a directory");
    cli.clips(40);
    let file = dir.path().join("tasks.csv");
    std::fs::write(&file, task_rows(&profile, 40)).expect("rows written");
    let file = file.to_str().expect("a path");
    // Two registrations lose their answer: the connection breaks after the head.
    cli.sim
        .inject_fault(
            serde_json::from_value(json!({
                "operation": "register_task", "outcome": "reset", "times": 2
            }))
            .expect("a fault"),
        )
        .expect("the fault is set");
    let first = cli
        .run(&["batch", "encoder", "register-task", file, "--parallel", "8"])
        .await;
    assert_eq!(first.code, 1, "{first:?}");
    let statuses = row_statuses(&first);
    let unknown: Vec<u64> = statuses
        .iter()
        .filter(|(_, s)| *s == "unknown")
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(unknown.len(), 2, "{statuses:?}");
    assert_eq!(statuses.values().filter(|s| *s == "ok").count(), 38, "{statuses:?}");
    assert!(
        first.stderr.contains("batch: 38 ok, 0 failed, 2 unknown"),
        "{}",
        first.stderr
    );
    assert_eq!(cli.task_inputs().await.len(), 38, "a reset request does not run");

    // A rerun sends nothing: 38 rows done, 2 left unknown.
    let rerun = cli.run(&["batch", "encoder", "register-task", file]).await;
    assert_eq!(rerun.code, 1, "{rerun:?}");
    let statuses = row_statuses(&rerun);
    assert_eq!(statuses.values().filter(|s| *s == "done_before").count(), 38);
    let left: Vec<u64> = statuses
        .iter()
        .filter(|(_, s)| *s == "unknown_before")
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(left, unknown);
    assert_eq!(cli.task_inputs().await.len(), 38, "the rerun sent nothing");

    // --retry-unknown sends those two; then every row is registered exactly once.
    let retry = cli
        .run(&["batch", "encoder", "register-task", file, "--retry-unknown"])
        .await;
    assert_eq!(retry.code, 0, "{retry:?}");
    assert_eq!(row_statuses(&retry).values().filter(|s| *s == "ok").count(), 2);
    let expected: Vec<String> = {
        let mut all: Vec<String> = (1..=40).map(|n| format!("clip-{n}.mp4")).collect();
        all.sort();
        all
    };
    assert_eq!(cli.task_inputs().await, expected);

    // A changed input is refused against the journal, not run.
    std::fs::write(file, task_rows(&profile, 40).replace("clip-3.mp4", "other.mp4")).expect("rows written");
    let changed = cli.run(&["batch", "encoder", "register-task", file]).await;
    assert_eq!(changed.code, 2, "{changed:?}");
    assert!(
        changed.stderr.contains("row 3 is not the row the journal recorded"),
        "{}",
        changed.stderr
    );
}

/// `--timeout` bounds each call of a batch, not the batch: three calls of
/// 600 ms each pass under a 1 s limit, and a call slower than it fails alone.
#[tokio::test]
async fn a_batch_gives_its_timeout_to_each_call() {
    /// The batch of `file`, one call at a time, each within 1 s; how long it took.
    async fn batch_with_1s_calls(cli: &Cli, file: &std::path::Path) -> (Run, Duration) {
        let started = std::time::Instant::now();
        let file = file.to_str().expect("a path");
        let args = [
            "--timeout",
            "1s",
            "batch",
            "encoder",
            "register-task",
            file,
            "--parallel",
            "1",
        ];
        (cli.run(&args).await, started.elapsed())
    }
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let dir = tempfile::tempdir().expect("a directory");
    cli.clips(4);
    let slow = |delay_ms: u64, times: u32| Fault {
        times,
        delay_ms,
        outcome: vidplat_sim::FaultOutcome::Run,
        ..Fault::operation("register_task")
    };
    let three = dir.path().join("three.csv");
    std::fs::write(&three, task_rows(&profile, 3)).expect("rows written");
    cli.sim.inject_fault(slow(600, 3)).expect("the fault is set");
    let (run, took) = batch_with_1s_calls(&cli, &three).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(took >= Duration::from_millis(1_800), "{took:?}");
    assert_eq!(row_statuses(&run).values().filter(|s| *s == "ok").count(), 3, "{run:?}");

    // A call past the limit: the row's answer is lost, so its status is unknown.
    let fourth = dir.path().join("fourth.csv");
    let row = format!("profile-id,input-filepath,priority\n{profile},clip-4.mp4,1\n");
    std::fs::write(&fourth, row).expect("rows written");
    cli.sim.inject_fault(slow(3_000, 1)).expect("the fault is set");
    let (late, took) = batch_with_1s_calls(&cli, &fourth).await;
    assert_eq!(late.code, 1, "{late:?}");
    assert!(took < Duration::from_millis(2_800), "{took:?}");
    assert_eq!(
        row_statuses(&late).values().map(String::as_str).collect::<Vec<_>>(),
        ["unknown"],
        "{late:?}"
    );
}

#[tokio::test]
async fn a_batch_killed_mid_call_leaves_that_row_unknown_to_the_rerun() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let dir = tempfile::tempdir().expect("a directory");
    cli.clips(10);
    let file = dir.path().join("tasks.ndjson");
    let rows: String = (1..=10)
        .map(|n| format!("{{\"profile-id\": {profile}, \"input-filepath\": \"clip-{n}.mp4\"}}\n"))
        .collect();
    std::fs::write(&file, rows).expect("rows written");
    let file = file.to_str().expect("a path");
    // The first registration hangs (then runs): the batch is killed while it waits.
    cli.sim
        .inject_fault(
            serde_json::from_value(json!({"operation": "register_task", "outcome": "run", "delay_ms": 30_000}))
                .expect("a fault"),
        )
        .expect("the fault is set");
    let mut child = cli
        .command(&["batch", "encoder", "register-task", file, "--parallel", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = 0;
    let mut line = String::new();
    while lines < 9 {
        line.clear();
        let read = tokio::time::timeout(
            Duration::from_secs(30),
            tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line),
        )
        .await
        .expect("nine rows end within 30 s")
        .expect("stdout read");
        assert!(read > 0, "the batch ended early");
        lines += 1;
    }
    child.kill().await.expect("the batch is killed");
    cli.sim.clear_faults();
    let rerun = cli.run(&["batch", "encoder", "register-task", file]).await;
    assert_eq!(rerun.code, 1, "{rerun:?}");
    let statuses = row_statuses(&rerun);
    assert_eq!(
        statuses.values().filter(|s| *s == "done_before").count(),
        9,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.values().filter(|s| *s == "unknown_before").count(),
        1,
        "{statuses:?}"
    );
    let registered = cli.task_inputs().await.len();
    assert!(
        (9..=10).contains(&registered),
        "the hanging row ran at most once: {registered}"
    );
}

#[tokio::test]
async fn a_batch_reads_body_paths_from_stdin_and_an_update_keeps_what_its_rows_leave_out() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let preset = cli.run(&["encoder", "list-presets", "-o", "json"]).await.json()[0]["id"].clone();
    let dir = tempfile::tempdir().expect("a directory");
    let journal = dir.path().join("profiles.journal");
    // `presets[0]` names no flag: it is a `--set` path into the body.
    let rows = format!("name,presets[0]\nweb-a,{preset}\nweb-b,{preset}\n");
    let run = cli
        .run_stdin(
            &[
                "batch",
                "encoder",
                "register-profile",
                "-",
                "--journal",
                journal.to_str().expect("a path"),
            ],
            &rows,
        )
        .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(row_statuses(&run).values().filter(|s| *s == "ok").count(), 2, "{run:?}");
    let profiles = cli.run(&["encoder", "list-profiles", "-o", "json"]).await.json();
    let registered: Vec<&Value> = profiles
        .as_array()
        .expect("profiles")
        .iter()
        .filter(|p| p["name"].as_str().is_some_and(|name| name.starts_with("web-")))
        .collect();
    let mut names: Vec<&str> = registered
        .iter()
        .map(|p| p["name"].as_str().unwrap_or_default())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["web-a", "web-b"], "{profiles} (besides {profile})");
    for listed in registered {
        assert_eq!(listed["presets"], json!([preset]), "{listed}");
    }

    // An update's row names only what it changes. The simulator's default
    // reading resets what an update leaves out (and refuses an update leaving
    // out what registration requires): read first, every member is kept.
    let mut presets = Vec::new();
    for name in ["spring", "autumn"] {
        let registered = cli
            .run(&[
                "encoder",
                "register-preset",
                "--name",
                name,
                "--destination",
                "vms5://",
                "--format",
                "MP4",
                "--output-filename",
                "%INPUT_FILENAME%",
                "--description",
                "before",
                "-o",
                "json",
            ])
            .await;
        assert_eq!(registered.code, 0, "{registered:?}");
        presets.push((registered.json()["id"].to_string(), name));
    }
    let updates = dir.path().join("descriptions.ndjson");
    let rows: String = presets
        .iter()
        .map(|(id, _)| format!("{{\"preset-id\": {id}, \"description\": \"after {id}\"}}\n"))
        .collect();
    std::fs::write(&updates, rows).expect("rows written");
    let partial_journal = dir.path().join("partial.journal");
    let partial = cli
        .run(&[
            "batch",
            "encoder",
            "update-preset",
            updates.to_str().expect("a path"),
            "--partial",
            "--journal",
            partial_journal.to_str().expect("a path"),
        ])
        .await;
    assert_eq!(partial.code, 1, "each row sent alone is refused: {partial:?}");
    let lines: Vec<Value> = partial
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{partial:?}");
    for line in &lines {
        assert_eq!(line["status"], "failed", "{line}");
        assert_eq!(line["error"]["status"], 400, "{line}");
    }
    let whole = cli
        .run(&["batch", "encoder", "update-preset", updates.to_str().expect("a path")])
        .await;
    assert_eq!(whole.code, 0, "{whole:?}");
    assert_eq!(
        row_statuses(&whole).values().filter(|s| *s == "ok").count(),
        2,
        "{whole:?}"
    );
    for (id, name) in &presets {
        let read = cli
            .run(&["encoder", "get-preset", "--preset-id", id, "-o", "json"])
            .await
            .json();
        assert_eq!(read["description"], format!("after {id}"), "{read}");
        assert_eq!(
            (&read["name"], &read["format"], &read["output_filename"]),
            (&json!(name), &json!("MP4"), &json!("%INPUT_FILENAME%")),
            "kept: {read}"
        );
    }
    let refused = cli
        .run(&[
            "batch",
            "encoder",
            "register-preset",
            updates.to_str().expect("a path"),
            "--partial",
        ])
        .await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(
        refused.stderr,
        "error: invalid input, not sent: `--partial` is for an update: register-preset reads nothing first\n"
    );
}

#[tokio::test]
async fn sign_page_signs_one_url_per_audience_line_as_json_lines_or_csv() {
    let cli = Cli::start().await;
    let key_file = cli.config_dir.path().join("signing.key");
    std::fs::write(&key_file, "0123456789abcdef0123456789abcdef\n").expect("key written");
    let key = key_file.to_str().expect("a UTF-8 path");
    let sign = |format: &'static str, audiences: &'static str| {
        let cli = &cli;
        async move {
            cli.run_stdin(
                &[
                    "vms",
                    "sign-page",
                    "--page",
                    "pg-1",
                    "--domain",
                    "video.example.com",
                    "--valid-for",
                    "2h",
                    "--signing-key-file",
                    key,
                    "--audience-file",
                    "-",
                    "-o",
                    format,
                ],
                audiences,
            )
            .await
        }
    };
    let run = sign("ndjson", "ann\nbob\n\ncho\n").await;
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let audiences: Vec<&str> = lines
        .iter()
        .map(|l| l["audience"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(audiences, ["ann", "bob", "cho"], "a blank line is no user");
    for line in &lines {
        let url = line["url"].as_str().expect("a url");
        let verified = cli
            .run(&["vms", "verify-url", url, "--signing-key-file", key, "-o", "json"])
            .await;
        assert_eq!(verified.code, 0, "{verified:?}");
        assert_eq!(verified.json()["audience"], line["audience"]);
    }

    let csv = sign("csv", "ann\nbob\n").await;
    assert_eq!(csv.code, 0, "{csv:?}");
    let mut rows = csv.stdout.lines();
    assert_eq!(rows.next(), Some("audience,url"));
    assert_eq!(rows.clone().count(), 2);
    assert!(
        rows.all(|row| row.contains(",https://video.example.com/pages/pg-1?")),
        "{}",
        csv.stdout
    );

    // A user holding the query's own characters is encoded, and verifies as written.
    let special = sign("ndjson", "b&b\nc=d é\r\n").await;
    assert_eq!(special.code, 0, "{special:?}");
    let lines: Vec<Value> = special
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{special:?}");
    for (line, audience) in lines.iter().zip(["b&b", "c=d é"]) {
        assert_eq!(line["audience"], audience, "a CRLF file's line ends are not the user's");
        let verified = cli
            .run(&[
                "vms",
                "verify-url",
                line["url"].as_str().expect("a url"),
                "--signing-key-file",
                key,
                "-o",
                "json",
            ])
            .await;
        assert_eq!(verified.json()["audience"], audience, "{verified:?}");
    }
}

#[tokio::test]
async fn a_batch_waits_only_where_the_limit_frees_by_itself() {
    // A preset's limit frees only when one is deleted: no wait, the row fails.
    let cli = Cli::start_with(SimConfig {
        max_presets: 1,
        ..SimConfig::fast()
    })
    .await;
    let rows = "name,destination,format,output-filename\n\
                p-one,https://upload.example.com/out,MP4,%INPUT_FILENAME%\n\
                p-two,https://upload.example.com/out,MP4,%INPUT_FILENAME%\n";
    let run = cli
        .run_stdin(&["batch", "encoder", "register-preset", "-", "--parallel", "1"], rows)
        .await;
    assert_eq!(run.code, 1, "{run:?}");
    let statuses = row_statuses(&run);
    assert_eq!(statuses.get(&1).map(String::as_str), Some("ok"), "{run:?}");
    assert_eq!(statuses.get(&2).map(String::as_str), Some("failed"), "{run:?}");
    assert!(run.stdout.contains("\"code\":\"OVER_SERVICE_LIMIT\""), "{}", run.stdout);
    assert!(!run.stderr.contains("waiting"), "{}", run.stderr);
    assert!(
        run.stderr.contains("batch: 1 ok, 1 failed, 0 unknown"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("\nerror: 1 row(s) not done\n"), "{}", run.stderr);
}

#[tokio::test]
async fn a_batch_with_wait_prints_each_row_with_its_ended_tasks_and_exits_4_on_a_failed_one() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    cli.clips(3);
    cli.sim.add_input_file("will-fail.mp4", 1_000);
    let rows =
        format!("profile-id,input-filepath\n{profile},clip-1.mp4\n{profile},will-fail.mp4\n{profile},clip-2.mp4\n");
    let run = cli
        .run_stdin(
            &[
                "batch",
                "encoder",
                "register-task",
                "-",
                "--wait",
                "--poll-interval",
                "20ms",
            ],
            &rows,
        )
        .await;
    assert_eq!(run.code, 4, "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{run:?}");
    for line in &lines {
        let registered = line["answer"]["tasks"][0]["id"].clone();
        let ended = &line["tasks"][0];
        assert_eq!(ended["id"], registered, "{line}");
        let expected = if ended["input_filename"] == "will-fail.mp4" {
            "failed"
        } else {
            "ready"
        };
        assert_eq!(ended["status"], expected, "{line}");
    }
    assert!(run.stderr.contains(": ready\n"), "{}", run.stderr);
    assert!(run.stderr.ends_with(" ended failed\n"), "{}", run.stderr);

    // --wait on an operation that registers no task is refused before anything is read.
    let refused = cli
        .run_stdin(&["batch", "encoder", "register-preset", "-", "--wait"], "name\nx\n")
        .await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(
        refused.stderr,
        "error: invalid input, not sent: `--wait` has nothing to wait for: register-preset registers no tasks\n"
    );
}

#[tokio::test]
async fn import_tasks_csv_check_names_every_problem_by_row_offline_and_sends_nothing() {
    let cli = Cli::start().await;
    let check = |csv: &'static str| {
        let cli = &cli;
        async move {
            // No set-up at all: the check needs none.
            let mut command = cli.command(&["encoder", "import-tasks-csv", "--body", "-", "--check"]);
            command.env_clear().env("VIDPLAT_CONFIG_DIR", cli.config_dir.path());
            cli.run_with(command, csv).await
        }
    };
    let run = check("profile_id,input_filepath,priority\n7,a.mp4,10\n7,b.mp4,100\nx,,5\n").await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "row 2: `priority` must be at most 99 (maximum)\n\
         row 3: `profile_id` invalid value 'x' for '--profile-id <INTEGER>': `x` is not an integer; \
         `body.input_filepath` is required\n\
         error: 2 problem(s) in the CSV file; nothing sent\n"
    );
    let run = check("priority\n").await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "header: no `input_filepath` column (the import answers CSV_INVALID_COLUMNS: a required column is missing)\n\
         header: no `profile_id` column (the import answers CSV_INVALID_COLUMNS: a required column is missing)\n\
         the file describes no task (the import answers CSV_EMPTY_TASKS)\n\
         error: 3 problem(s) in the CSV file; nothing sent\n"
    );
    let run = check("profile_id,input_filepath,priority\n7,a.mp4,10\n7,b.mp4,\n").await;
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
    assert_eq!(
        run.stderr,
        "2 row(s), each a valid `register-task` body; nothing sent\n"
    );
    assert!(cli.sim.journal().is_empty(), "nothing reached the service");
}

/// A DELETE asks before destroying, and where nothing can be asked (stdin
/// not a terminal, as here) it needs `--yes`: refused with exit 2 and
/// nothing sent; `--dry-run` sends nothing, so it needs no confirmation.
#[tokio::test]
async fn a_delete_without_a_terminal_needs_yes_and_sends_nothing_without_it() {
    let cli = Cli::start().await;
    cli.profile().await;
    let registered = cli
        .run(&[
            "encoder",
            "register-preset",
            "--name",
            "doomed",
            "--destination",
            "vms5://",
            "--format",
            "MP4",
            "--output-filename",
            "x",
            "-o",
            "json",
        ])
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let id = registered.json()["id"].to_string();
    let refused = cli.run(&["encoder", "delete-preset", "--preset-id", &id]).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(refused.stdout, "");
    assert_eq!(
        refused.stderr,
        format!(
            "error: invalid input, not sent: `--yes` is required to delete preset {id} without a terminal to ask \
             on (nothing was sent)\n"
        )
    );
    let still = cli
        .run(&["encoder", "get-preset", "--preset-id", &id, "-o", "json"])
        .await;
    assert_eq!(still.code, 0, "not deleted: {still:?}");
    let dry = cli
        .run(&["encoder", "delete-preset", "--preset-id", &id, "--dry-run"])
        .await;
    assert_eq!(dry.code, 0, "{dry:?}");
    let request = dry.stdout.lines().next().unwrap_or_default();
    assert!(
        request.starts_with("DELETE http://") && request.ends_with(&format!("/encoder/v1/presets/{id}")),
        "{dry:?}"
    );

    let rows = format!("preset-id\n{id}\n");
    let batch = cli.run_stdin(&["batch", "encoder", "delete-preset", "-"], &rows).await;
    assert_eq!(batch.code, 2, "{batch:?}");
    assert_eq!(
        batch.stderr,
        "error: invalid input, not sent: `--yes` is required to delete preset for each of 1 row(s) without a \
         terminal to ask on (nothing was sent)\n"
    );
    assert_eq!(batch.stdout, "");
    assert_eq!(
        cli.run(&["encoder", "get-preset", "--preset-id", &id]).await.code,
        0,
        "the batch sent nothing"
    );

    let deleted = cli
        .run(&["encoder", "delete-preset", "--preset-id", &id, "--yes"])
        .await;
    assert_eq!(deleted.code, 0, "{deleted:?}");
    let gone = cli.run(&["encoder", "get-preset", "--preset-id", &id]).await;
    assert_eq!(gone.code, 1, "deleted: {gone:?}");
}

/// The account's set-up as a file: `plan` lists each change and exits 6,
/// `apply` makes them in order (presets before the profile holding them by
/// name, a parent category before its child) and a second `apply` writes
/// nothing; a changed member is shown before → after and the others kept;
/// `export` writes a file that plans no change; `--prune` deletes only with
/// `--yes` where nothing can be asked.
#[tokio::test]
async fn a_catalog_file_is_planned_applied_once_exported_and_pruned_only_when_confirmed() {
    let cli = Cli::start().await;
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("catalog.yaml");
    let path = file.to_str().expect("a path");
    let wanted = |description: &str| {
        format!(
            "notification_settings:\n  notify_error: true\n\
             presets:\n\
             - name: web-720\n  destination: https://out.example.com/\n  format: MP4\n  output_filename: \"%INPUT_FILENAME%\"\n  description: {description}\n\
             - name: web-1080\n  destination: https://out.example.com/\n  format: MP4\n  output_filename: \"%INPUT_FILENAME%\"\n\
             profiles:\n- name: web\n  presets: [web-720, web-1080]\n\
             categories:\n- name: Sports/Football\n- name: Sports\n\
             labels:\n- name: featured\n"
        )
    };
    std::fs::write(&file, wanted("first")).expect("the file written");
    let shared = "catalog: profile parent-shared-vms left alone: it holds presets that are not the account's \
                  (another account shares it, read only)\n";

    let plan = cli.run(&["catalog", "plan", "-f", path]).await;
    assert_eq!(plan.code, 6, "{plan:?}");
    assert_eq!(
        plan.stdout,
        "~ notification_settings\n    notify_error: false → true\n+ preset web-720\n+ preset web-1080\n\
         + profile web\n+ category Sports\n+ category Sports/Football\n+ label featured\n"
    );
    assert_eq!(
        plan.stderr,
        format!("{shared}plan: 6 to create, 1 to update, 0 to delete\n")
    );
    let writes = |cli: &Cli| {
        cli.sim
            .journal()
            .iter()
            .filter(|received| received.method != "GET")
            .count()
    };
    assert_eq!(writes(&cli), 0, "a plan writes nothing");

    let apply = cli.run(&["catalog", "apply", "-f", path]).await;
    assert_eq!(apply.code, 0, "{apply:?}");
    assert_eq!(apply.stdout, plan.stdout, "each change printed once made");
    assert_eq!(apply.stderr, format!("{shared}apply: 7 change(s) made\n"));
    assert_eq!(writes(&cli), 7);
    let again = cli.run(&["catalog", "apply", "-f", path]).await;
    assert_eq!((again.code, again.stdout.as_str()), (0, ""), "{again:?}");
    assert_eq!(writes(&cli), 7, "a second apply writes nothing");
    let profiles = cli.run(&["encoder", "list-profiles", "-o", "json"]).await.json();
    let presets = cli.run(&["encoder", "list-presets", "-o", "json"]).await.json();
    let id_of = |name: &str| {
        presets
            .as_array()
            .into_iter()
            .flatten()
            .find(|preset| preset["name"] == name)
            .map(|preset| preset["id"].clone())
            .expect("registered")
    };
    let web = profiles
        .as_array()
        .into_iter()
        .flatten()
        .find(|profile| profile["name"] == "web")
        .expect("the profile");
    assert_eq!(web["presets"], json!([id_of("web-720"), id_of("web-1080")]), "{web}");

    std::fs::write(&file, wanted("second")).expect("the file written");
    let plan = cli.run(&["catalog", "plan", "-f", path]).await;
    assert_eq!(plan.code, 6, "{plan:?}");
    assert_eq!(
        plan.stdout,
        "~ preset web-720\n    description: \"first\" → \"second\"\n"
    );
    assert_eq!(cli.run(&["catalog", "apply", "-f", path]).await.code, 0);
    let preset = cli
        .run(&[
            "encoder",
            "get-preset",
            "--preset-id",
            &id_of("web-720").to_string(),
            "-o",
            "json",
        ])
        .await
        .json();
    assert_eq!(
        (&preset["description"], &preset["output_filename"], &preset["format"]),
        (&json!("second"), &json!("%INPUT_FILENAME%"), &json!("MP4")),
        "{preset}"
    );

    let export = cli.run(&["catalog", "export"]).await;
    assert_eq!(export.code, 0, "{export:?}");
    assert!(
        export
            .stdout
            .contains("profiles:\n- name: web\n  presets:\n  - web-720\n  - web-1080\n"),
        "{}",
        export.stdout
    );
    let exported = dir.path().join("exported.yaml");
    std::fs::write(&exported, &export.stdout).expect("the export written");
    let replan = cli
        .run(&["catalog", "plan", "-f", exported.to_str().expect("a path")])
        .await;
    assert_eq!((replan.code, replan.stdout.as_str()), (0, ""), "{replan:?}");

    // Without the label: kept, unless pruned, and pruned only when confirmed.
    std::fs::write(
        &file,
        wanted("second").replace("labels:\n- name: featured\n", "labels: []\n"),
    )
    .expect("written");
    let plan = cli.run(&["catalog", "plan", "-f", path]).await;
    assert_eq!((plan.code, plan.stdout.as_str()), (0, ""), "{plan:?}");
    assert!(
        plan.stderr
            .ends_with("plan: no changes; 1 on the account the file does not name (deleted only with --prune)\n"),
        "{plan:?}"
    );
    let pruned = cli.run(&["catalog", "plan", "-f", path, "--prune"]).await;
    assert_eq!(
        (pruned.code, pruned.stdout.as_str()),
        (6, "- label featured\n"),
        "{pruned:?}"
    );
    let refused = cli.run(&["catalog", "apply", "-f", path, "--prune"]).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.ends_with(
        "error: invalid input, not sent: `--yes` is required to delete 1 resource(s) the file does not name without \
         a terminal to ask on (nothing was sent)\n"
    ));
    let before = writes(&cli);
    let deleted = cli.run(&["catalog", "apply", "-f", path, "--prune", "--yes"]).await;
    assert_eq!(
        (deleted.code, deleted.stdout.as_str()),
        (0, "- label featured\n"),
        "{deleted:?}"
    );
    assert_eq!(writes(&cli), before + 1);
}

/// A file's problems are all named at once, by their place, and nothing is read for them twice.
#[tokio::test]
async fn a_catalog_file_names_every_problem_at_once() {
    let cli = Cli::start().await;
    let run = cli
        .run_stdin(
            &["catalog", "plan", "-f", "-"],
            "presets:\n- name: a\n  colour: red\n- name: a\n- description: no name\nprofiles:\n- name: p\n  presets: [missing]\nwidgets: []\n",
        )
        .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.ends_with(
            "error: invalid input, not sent: `widgets` is no kind the file declares (notification_settings, presets, \
             profiles, categories, labels); `presets[1].name` `a` is named twice; `presets[2].name` is required (a \
             text); `presets[0].colour` is no member of a preset registration; `profiles[0].presets[0]` names no \
             preset of the file or the account\n"
        ),
        "{run:?}"
    );
    // A file that is whole: each write's request is checked as it would be sent, by the resource and member.
    let long = "d".repeat(151);
    let run = cli
        .run_stdin(
            &["catalog", "plan", "-f", "-"],
            &format!("presets:\n- name: long\n  description: {long}\nnotification_settings:\n  notify_ready: 3\n"),
        )
        .await;
    assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{run:?}");
    assert!(
        run.stderr.ends_with(
            "error: invalid input, not sent: `notification_settings.notify_ready` invalid type: integer `3`, \
             expected a boolean; `presets.long.description` longer than 150 characters\n"
        ),
        "{run:?}"
    );
    assert!(
        cli.sim.journal().iter().all(|received| received.method == "GET"),
        "nothing written"
    );
}

/// `apply` stops at the first change the service refuses, having printed
/// each change made before it, and says what was done and what was not.
#[tokio::test]
async fn a_catalog_apply_stops_at_the_first_refused_change_and_says_what_was_done() {
    let cli = Cli::start().await;
    // A preset registering to video management makes its profile need vms_config (the simulator refuses it).
    let file = "presets:\n- name: to-vms\n  destination: vms5://\n  format: MP4\n  output_filename: x\n\
                profiles:\n- name: refused\n  presets: [to-vms]\nlabels:\n- name: never\n";
    let apply = cli.run_stdin(&["catalog", "apply", "-f", "-"], file).await;
    assert_eq!(apply.code, 1, "{apply:?}");
    assert_eq!(apply.stdout, "+ preset to-vms\n");
    assert!(
        apply.stderr.contains(
            "apply: 1 of 3 change(s) done (printed above); stopped at `+ profile refused`; the other 1 not made \
             (`vidplat catalog plan` shows what is left)\nerror: the service answered 400"
        ),
        "{apply:?}"
    );
    let plan = cli.run_stdin(&["catalog", "plan", "-f", "-"], file).await;
    assert_eq!(
        (plan.code, plan.stdout.as_str()),
        (6, "+ profile refused\n+ label never\n"),
        "{plan:?}"
    );
}

/// `catalog schema` prints the committed JSON Schema, which a draft-07
/// validator (Python's jsonschema, as editors use) takes as a schema; the
/// account's export is valid under it, and a kind it does not know is not.
#[tokio::test]
async fn the_catalog_schema_validates_an_export_as_an_editor_would() {
    let cli = Cli::start().await;
    let schema = cli.run(&["catalog", "schema"]).await;
    assert_eq!(schema.code, 0, "{schema:?}");
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/catalog.schema.json"))
        .expect("the committed schema");
    assert_eq!(schema.stdout, committed);
    let python = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/venv/bin/python");
    let ready = std::process::Command::new(&python)
        .args(["-c", "import jsonschema, yaml"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        assert!(
            !vidplat_tests::required("VIDPLAT_REQUIRE_PYTHON_READERS"),
            "VIDPLAT_REQUIRE_PYTHON_READERS=1 and no jsonschema in .tools/venv: run `cargo xtask lint`"
        );
        eprintln!("skipped: no jsonschema in .tools/venv (`cargo xtask lint` installs it)");
        return;
    }
    let preset = cli
        .run(&[
            "encoder",
            "register-preset",
            "--name",
            "in-schema",
            "--destination",
            "https://out.example.com/",
            "--format",
            "MP4",
            "--output-filename",
            "x",
        ])
        .await;
    assert_eq!(preset.code, 0, "{preset:?}");
    let export = cli.run(&["catalog", "export"]).await;
    assert_eq!(export.code, 0, "{export:?}");
    let dir = tempfile::tempdir().expect("a directory");
    let (schema_file, export_file, wrong_file) = (
        dir.path().join("catalog.schema.json"),
        dir.path().join("export.yaml"),
        dir.path().join("wrong.yaml"),
    );
    std::fs::write(&schema_file, &schema.stdout).expect("written");
    std::fs::write(&export_file, &export.stdout).expect("written");
    std::fs::write(&wrong_file, "widgets: []\npresets:\n- description: no name\n").expect("written");
    let script = "import json, sys, yaml, jsonschema\n\
                  schema = json.load(open(sys.argv[1]))\n\
                  jsonschema.Draft7Validator.check_schema(schema)\n\
                  for path in sys.argv[2:]:\n    \
                      errors = sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(yaml.safe_load(open(path))))\n    \
                      print(path.rsplit('/', 1)[-1], errors)\n";
    let checked = std::process::Command::new(&python)
        .args(["-c", script])
        .args([&schema_file, &export_file, &wrong_file])
        .output()
        .expect("python runs");
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    assert_eq!(
        String::from_utf8_lossy(&checked.stdout),
        "export.yaml []\nwrong.yaml [\"'name' is a required property\", \"Additional properties are not allowed ('widgets' was unexpected)\"]\n"
    );
}

/// Staging copied to production: one account's set-up exported (presets, a
/// profile, a three-level category tree, labels, notification settings) and
/// applied to another; then nothing is left to plan, a second apply writes
/// nothing, three members changed in the file are exactly the three changes
/// planned and the three writes made.
#[tokio::test]
async fn a_catalog_exported_from_one_account_is_applied_to_another_with_exactly_its_changes() {
    let staging = Cli::start().await;
    let seed = "notification_settings:\n  notify_ready: true\n  notify_error: true\n\
                presets:\n- name: hd\n  destination: https://out.example.com/\n  format: MP4\n  output_filename: x\n\
                - name: sd\n  destination: https://out.example.com/\n  format: MP4\n  output_filename: y\n\
                profiles:\n- name: web\n  description: both\n  presets: [hd, sd]\n\
                categories:\n- name: Sports\n- name: Sports/Football\n- name: Sports/Football/Japan\n\
                labels:\n- name: featured\n- name: archive\n";
    let seeded = staging.run_stdin(&["catalog", "apply", "-f", "-"], seed).await;
    assert_eq!(seeded.code, 0, "{seeded:?}");
    let export = staging.run(&["catalog", "export"]).await;
    assert_eq!(export.code, 0, "{export:?}");

    let production = Simulator::start_with(SimConfig::fast())
        .await
        .expect("a second simulator");
    let writes = || {
        production
            .journal()
            .iter()
            .filter(|received| received.method != "GET")
            .count()
    };
    let on_production = |args: &[&str]| {
        let mut all = vec![
            "--encoder-url",
            production.encoder_url.as_str(),
            "--vms-url",
            production.vms_url.as_str(),
        ];
        all.extend_from_slice(args);
        all.iter().map(|arg| (*arg).to_owned()).collect::<Vec<String>>()
    };
    let run = |args: Vec<String>, stdin: String| {
        let staging = &staging;
        async move { staging.run_stdin(&args, &stdin).await }
    };
    let applied = run(on_production(&["catalog", "apply", "-f", "-"]), export.stdout.clone()).await;
    assert_eq!(applied.code, 0, "{applied:?}");
    assert_eq!(
        applied.stdout,
        "~ notification_settings\n    notify_error: false → true\n    notify_ready: false → true\n+ preset hd\n\
         + preset sd\n+ profile web\n+ category Sports\n+ category Sports/Football\n+ category Sports/Football/Japan\n\
         + label archive\n+ label featured\n"
    );
    assert_eq!(writes(), 9);
    let plan = run(on_production(&["catalog", "plan", "-f", "-"]), export.stdout.clone()).await;
    assert_eq!((plan.code, plan.stdout.as_str()), (0, ""), "{plan:?}");
    let again = run(on_production(&["catalog", "apply", "-f", "-"]), export.stdout.clone()).await;
    assert_eq!((again.code, again.stdout.as_str()), (0, ""), "{again:?}");
    assert_eq!(writes(), 9, "a second apply makes no write");

    let changed = export
        .stdout
        .replace("notify_ready: true", "notify_ready: false")
        .replace("output_filename: y", "output_filename: z")
        .replace("description: both", "description: all");
    let plan = run(on_production(&["catalog", "plan", "-f", "-"]), changed.clone()).await;
    assert_eq!(plan.code, 6, "{plan:?}");
    assert_eq!(
        plan.stdout,
        "~ notification_settings\n    notify_ready: true → false\n~ preset sd\n    output_filename: \"y\" → \"z\"\n\
         ~ profile web\n    description: \"both\" → \"all\"\n"
    );
    let applied = run(on_production(&["catalog", "apply", "-f", "-"]), changed.clone()).await;
    assert_eq!(
        (applied.code, applied.stdout.as_str()),
        (0, plan.stdout.as_str()),
        "{applied:?}"
    );
    assert_eq!(writes(), 12, "exactly three writes");

    let pruning = changed.replace("- name: archive\n", "");
    let refused = run(on_production(&["catalog", "apply", "-f", "-", "--prune"]), pruning).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(writes(), 12, "nothing deleted");
}

/// `webhook verify` checks a Standard Webhooks signature offline (the
/// specification's example, verified within a tolerance wide enough for its
/// 2021 timestamp): exit 0 and the message on stdout; exit 5 for a changed
/// body, and for the same message past the default five minutes.
#[tokio::test]
async fn webhook_verify_takes_the_specification_s_example_and_refuses_a_changed_or_old_one() {
    let cli = Cli::start().await;
    let secret = cli.config_dir.path().join("hook.secret");
    std::fs::write(&secret, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n").expect("written");
    let verify = |tolerance: Option<&'static str>, body: &'static str| {
        let mut args = vec![
            "webhook".to_owned(),
            "verify".to_owned(),
            "--secret-file".to_owned(),
            secret.to_string_lossy().into_owned(),
            "--id".to_owned(),
            "msg_p5jXN8AQM9LWM0D4loKWxJek".to_owned(),
            "--timestamp".to_owned(),
            "1614265330".to_owned(),
            "--signature".to_owned(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=".to_owned(),
        ];
        if let Some(tolerance) = tolerance {
            args.extend(["--tolerance".to_owned(), tolerance.to_owned()]);
        }
        let cli = &cli;
        async move { cli.run_stdin(&args, body).await }
    };
    let body = r#"{"test": 2432232314}"#;
    let valid = verify(Some("36500days"), body).await;
    assert_eq!(valid.code, 0, "{valid:?}");
    assert_eq!(
        valid.json(),
        json!({"valid": true, "id": "msg_p5jXN8AQM9LWM0D4loKWxJek", "timestamp": "1614265330"})
    );
    let changed = verify(Some("36500days"), r#"{"test": 2432232315}"#).await;
    assert_eq!((changed.code, changed.stdout.as_str()), (5, ""), "{changed:?}");
    assert_eq!(
        changed.stderr,
        "error: the webhook does not verify: no signature is the message's\n"
    );
    let old = verify(None, body).await;
    assert_eq!(old.code, 5, "{old:?}");
    assert!(
        old.stderr
            .starts_with("error: the webhook does not verify: the timestamp is ")
            && old.stderr.ends_with(" s old, past the tolerance\n"),
        "{old:?}"
    );
}

/// `watch tasks` prints one JSON line per change seen, each task's events
/// chained (`before` is the last `after`), its last one how it ended (a
/// failed task with its error code); with the cursor a restart prints
/// nothing it printed, and the cursor is its owner's alone.
#[tokio::test]
async fn watch_tasks_prints_each_change_once_and_a_restart_from_its_cursor_repeats_none() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    cli.sim.add_input_file("fail-me.mp4", 1_000);
    for input in ["movie.mp4", "fail-me.mp4"] {
        let registered = cli
            .run(&[
                "encoder",
                "register-task",
                "--profile-id",
                &profile,
                "--input-filepath",
                input,
            ])
            .await;
        assert_eq!(registered.code, 0, "{registered:?}");
    }
    let dir = tempfile::tempdir().expect("a directory");
    let cursor = dir.path().join("tasks.cursor");
    let cursor = cursor.to_str().expect("a path");
    let executed = dir.path().join("exec.out");
    let exec = format!("sh -c 'cat >> \"$0\"' '{}'", executed.display());
    let watch = |duration: &'static str, exec: Option<&str>| {
        let cli = &cli;
        let mut args = vec![
            "watch",
            "tasks",
            "--interval",
            "20ms",
            "--cursor",
            cursor,
            "--for",
            duration,
        ];
        args.extend(exec.map(|exec| ["--exec", exec]).into_iter().flatten());
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        async move { cli.run(&args).await }
    };
    let first = watch("3s", Some(&exec)).await;
    assert_eq!(first.code, 0, "{first:?}");
    // Each event's line reached the command on its stdin, in order, once.
    assert_eq!(
        std::fs::read_to_string(&executed).expect("the commands wrote"),
        first.stdout
    );
    let events: Vec<Value> = first
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let mut last: std::collections::BTreeMap<i64, Value> = std::collections::BTreeMap::new();
    let mut ids = std::collections::BTreeSet::new();
    for event in &events {
        let task = event["task_id"].as_i64().expect("a task id");
        assert!(ids.insert(event["id"].to_string()), "an id twice: {first:?}");
        assert_eq!(
            event["id"],
            format!("task.{task}.{}", event["after"].as_str().unwrap_or_default())
        );
        let before = last
            .get(&task)
            .map_or(Value::Null, |previous| previous["after"].clone());
        assert_eq!(event["before"], before, "chained: {event}");
        last.insert(task, event.clone());
    }
    assert_eq!(last.len(), 2, "{first:?}");
    let ended: Vec<(&str, &str)> = last
        .values()
        .map(|event| {
            (
                event["type"].as_str().unwrap_or_default(),
                event["after"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert!(ended.contains(&("task.ready", "ready")), "{first:?}");
    assert!(ended.contains(&("task.failed", "failed")), "{first:?}");
    let failed = last
        .values()
        .find(|event| event["type"] == "task.failed")
        .expect("the failed one");
    assert!(failed["error_code"].is_i64(), "{failed}");
    assert!(
        first.stderr.starts_with(&format!("watch: {} event(s), ", events.len())),
        "{first:?}"
    );

    let again = watch("300ms", Some("false")).await;
    assert_eq!((again.code, again.stdout.as_str()), (0, ""), "{again:?}");
    assert!(again.stderr.starts_with("watch: 0 event(s), "), "{again:?}");
    // A new task: its first event goes to a command that fails, which is said on stderr.
    let registered = cli
        .run(&[
            "encoder",
            "register-task",
            "--profile-id",
            &profile,
            "--input-filepath",
            "movie.mp4",
        ])
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let failing = cli
        .run(&[
            "watch",
            "tasks",
            "--interval",
            "20ms",
            "--cursor",
            cursor,
            "--count",
            "1",
            "--for",
            "3s",
            "--exec",
            "false",
        ])
        .await;
    assert_eq!(failing.code, 0, "{failing:?}");
    assert_eq!(failing.stdout.lines().count(), 1, "{failing:?}");
    assert!(
        failing.stderr.starts_with("watch: task.")
            && failing.stderr.contains(": --exec: `false` ended with exit status: 1\n"),
        "{failing:?}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(cursor).expect("saved").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}

/// A receiver of webhooks on 127.0.0.1: answers 500 to the first `failures`
/// requests, 204 after; every request's headers (lower-cased) and body kept.
async fn webhook_receiver(failures: usize) -> (String, Arc<std::sync::Mutex<Vec<(Vec<(String, String)>, String)>>>) {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}/hooks", listener.local_addr().expect("an address"));
    let received = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let mut stream = tokio::io::BufReader::new(stream);
            let mut headers = Vec::new();
            let mut line = String::new();
            while stream.read_line(&mut line).await.is_ok_and(|n| n > 0) && line != "\r\n" {
                if let Some((name, value)) = line.trim_end().split_once(':') {
                    headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
                }
                line.clear();
            }
            let length = headers
                .iter()
                .find(|(name, _)| name == "content-length")
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0usize);
            let mut body = vec![0; length.min(1 << 20)];
            let _ = stream.read_exact(&mut body).await;
            let answered = {
                let mut received = kept.lock().expect("not poisoned");
                received.push((headers, String::from_utf8_lossy(&body).into_owned()));
                received.len()
            };
            let status = if answered <= failures {
                "500 Internal Server Error"
            } else {
                "204 No Content"
            };
            let answer = format!("HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = stream.get_mut().write_all(answer.as_bytes()).await;
        }
    });
    (url, received)
}

/// `watch --forward-to`: the event POSTed as Standard Webhooks says, its
/// signature checked by Python's `hmac` and `base64`; a receiver failing
/// twice gets it three times under one id; one that never answers 2xx
/// leaves it in the dead-letter file; a plain-http URL to another host and
/// a missing secret are refused before any call.
#[tokio::test]
async fn watch_forwards_each_event_signed_retried_under_one_id_then_dead_lettered() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    let registered = cli
        .run(&[
            "encoder",
            "register-task",
            "--profile-id",
            &profile,
            "--input-filepath",
            "movie.mp4",
        ])
        .await;
    assert_eq!(registered.code, 0, "{registered:?}");
    let dir = tempfile::tempdir().expect("a directory");
    let secret_file = dir.path().join("hook.secret");
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    std::fs::write(&secret_file, format!("{secret}\n")).expect("written");
    let secret_path = secret_file.to_string_lossy().into_owned();
    let dead_letter = dir.path().join("dead.ndjson");
    let dead_path = dead_letter.to_string_lossy().into_owned();
    let forward = |url: String, extra: &'static [&'static str]| {
        let mut args: Vec<String> = ["watch", "tasks", "--count", "1", "--for", "20s", "--forward-to"]
            .map(str::to_owned)
            .to_vec();
        args.extend([
            url,
            "--secret-file".to_owned(),
            secret_path.clone(),
            "--dead-letter".to_owned(),
            dead_path.clone(),
        ]);
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        let cli = &cli;
        async move { cli.run(&args).await }
    };

    let (url, received) = webhook_receiver(2).await;
    let delivered = forward(url, &[]).await;
    assert_eq!(delivered.code, 0, "{delivered:?}");
    let event = delivered.stdout.trim_end().to_owned();
    let id = delivered.json()["id"].as_str().expect("an id").to_owned();
    let received = received.lock().expect("not poisoned").clone();
    assert_eq!(received.len(), 3, "{received:?}");
    let header = |headers: &[(String, String)], name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    for (headers, body) in &received {
        assert_eq!(header(headers, "webhook-id"), id);
        assert_eq!(header(headers, "content-type"), "application/json");
        assert_eq!(*body, event);
        let timestamp = header(headers, "webhook-timestamp");
        let script = "import base64, hashlib, hmac, sys\n\
                      secret, msg_id, timestamp, signature = sys.argv[1:5]\n\
                      key = base64.b64decode(secret.removeprefix('whsec_'))\n\
                      body = sys.stdin.buffer.read()\n\
                      mac = hmac.new(key, msg_id.encode() + b'.' + timestamp.encode() + b'.' + body, hashlib.sha256)\n\
                      print(signature == 'v1,' + base64.b64encode(mac.digest()).decode())\n";
        let mut python = std::process::Command::new("python3")
            .args([
                "-c",
                script,
                secret,
                &id,
                &timestamp,
                &header(headers, "webhook-signature"),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        std::io::Write::write_all(&mut python.stdin.take().expect("stdin"), body.as_bytes()).expect("written");
        let checked = python.wait_with_output().expect("python3 ends");
        assert_eq!(String::from_utf8_lossy(&checked.stdout), "True\n", "{headers:?}");
    }
    assert!(!dead_letter.exists(), "delivered: nothing dead-lettered");

    let (url, received) = webhook_receiver(usize::MAX).await;
    let undelivered = forward(url, &["--tries", "2"]).await;
    assert_eq!(undelivered.code, 0, "{undelivered:?}");
    assert_eq!(received.lock().expect("not poisoned").len(), 2);
    assert_eq!(
        std::fs::read_to_string(&dead_letter).expect("dead-lettered"),
        undelivered.stdout
    );
    assert!(
        undelivered.stderr.starts_with(&format!(
            "watch: {}: --forward-to: not delivered after 2 tries (answered 500 Internal Server Error); written to {}\n",
            undelivered.json()["id"].as_str().unwrap_or_default(),
            dead_letter.display()
        )),
        "{undelivered:?}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&dead_letter).expect("there").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    // A dead-letter file others may read (planted in a shared directory, say)
    // does not get the account's events.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let shared = dir.path().join("shared.ndjson");
        std::fs::write(&shared, "").expect("written");
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o644)).expect("readable by all");
        let (url, _) = webhook_receiver(usize::MAX).await;
        let shared_path = shared.to_string_lossy().into_owned();
        let refused = cli
            .run(&[
                "watch",
                "tasks",
                "--count",
                "1",
                "--for",
                "20s",
                "--tries",
                "1",
                "--forward-to",
                &url,
                "--secret-file",
                &secret_path,
                "--dead-letter",
                &shared_path,
            ])
            .await;
        assert_eq!(refused.code, 0, "{refused:?}");
        assert!(
            refused.stderr.contains(&format!(
                "and not written to {shared_path}: others can read or write it (mode 0644)"
            )),
            "{refused:?}"
        );
        assert_eq!(std::fs::read_to_string(&shared).expect("there"), "", "nothing written");
    }

    // A --for or --interval past what the clock can say is no bound, not a panic.
    let endless = cli
        .run(&[
            "watch",
            "tasks",
            "--count",
            "1",
            "--for",
            "500000000000y",
            "--interval",
            "500000000000y",
        ])
        .await;
    assert_eq!((endless.code, endless.stdout.lines().count()), (0, 1), "{endless:?}");

    // `--for` ends the handling too: a receiver that never takes the event
    // does not hold the watch past it, whatever the tries left.
    let (url, _) = webhook_receiver(usize::MAX).await;
    let started = std::time::Instant::now();
    let args = [
        "watch",
        "tasks",
        "--count",
        "1",
        "--for",
        "2s",
        "--tries",
        "20",
        "--forward-to",
        &url,
        "--secret-file",
        &secret_path,
        "--dead-letter",
        &dead_path,
    ];
    let cut = tokio::time::timeout(Duration::from_secs(30), cli.run(&args))
        .await
        .expect("ended by --for");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(cut.code, 0, "{cut:?}");
    assert!(
        cut.stderr
            .contains("watch: --for ended with 1 event(s) of the last poll not handled\n"),
        "{cut:?}"
    );

    let before = cli.sim.journal().len();
    let elsewhere = forward("http://example.com/hooks".to_owned(), &[]).await;
    assert_eq!((elsewhere.code, elsewhere.stdout.as_str()), (2, ""), "{elsewhere:?}");
    assert!(
        elsewhere
            .stderr
            .contains("must be https (or http to a loopback address)"),
        "{elsewhere:?}"
    );
    let unsigned = cli
        .run(&[
            "watch",
            "tasks",
            "--count",
            "1",
            "--forward-to",
            "http://127.0.0.1:9/hooks",
        ])
        .await;
    assert_eq!(unsigned.code, 2, "{unsigned:?}");
    assert!(
        unsigned.stderr.contains("needs a secret: --secret-file FILE"),
        "{unsigned:?}"
    );
    let unforwarded = cli
        .run(&["watch", "tasks", "--count", "1", "--secret-file", &secret_path])
        .await;
    assert_eq!(
        (unforwarded.code, unforwarded.stdout.as_str()),
        (2, ""),
        "{unforwarded:?}"
    );
    assert!(unforwarded.stderr.contains("--forward-to"), "{unforwarded:?}");
    assert_eq!(cli.sim.journal().len(), before, "nothing was called");
}

/// A simulator step longer than any test: tasks move only when a test steps the clock.
const HELD_STEP: Duration = Duration::from_secs(3600);

/// A command line over a simulator holding three waiting tasks that move
/// only when the clock is stepped ([`HELD_STEP`]).
async fn three_waiting_tasks() -> Cli {
    let cli = Cli::start_with(SimConfig {
        task_step: HELD_STEP,
        ..SimConfig::fast()
    })
    .await;
    let profile = cli.profile().await;
    for _ in 0..3 {
        let registered = cli
            .run(&[
                "encoder",
                "register-task",
                "--profile-id",
                &profile,
                "--input-filepath",
                "movie.mp4",
            ])
            .await;
        assert_eq!(registered.code, 0, "{registered:?}");
    }
    cli
}

/// Killed while it handled a poll's events, a watch restarted from its
/// cursor prints again only that poll's unhandled events, byte for byte (the
/// same ids); the events handled before are not repeated. The simulator's
/// tasks move only when the test steps its clock.
#[tokio::test]
async fn watch_killed_mid_batch_repeats_at_most_that_batch_with_the_same_ids() {
    use tokio::io::AsyncBufReadExt as _;
    let step = HELD_STEP;
    let cli = three_waiting_tasks().await;
    let dir = tempfile::tempdir().expect("a directory");
    let cursor = dir.path().join("tasks.cursor");
    let handled = dir.path().join("handled");
    // Each event's line appended; an upload's command then never ends.
    let exec = format!(
        "sh -c 'cat >> \"$0\"; case \"$(tail -n 1 \"$0\")\" in *\\\"after\\\":\\\"uploading\\\"*) exec sleep 30 >/dev/null 2>&1;; esac' '{}'",
        handled.display()
    );
    let args = [
        "watch",
        "tasks",
        "--interval",
        "20ms",
        "--cursor",
        &cursor.to_string_lossy(),
        "--exec",
        &exec,
    ]
    .map(str::to_owned);
    let mut child = cli
        .command(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut first: Vec<String> = Vec::new();
    let mut last_batch = 0;
    let read = async {
        // Three waiting; step: the first encodes; step: it uploads and the second encodes.
        for (wanted, steps) in [(3, 1), (4, 1), (6, 0)] {
            while first.len() < wanted {
                let line = lines.next_line().await.expect("read").expect("a line");
                first.push(line);
            }
            if steps == 1 {
                // Every event of that poll handled and recorded before the clock moves.
                while std::fs::read_to_string(&handled).unwrap_or_default().lines().count() < wanted {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                last_batch = first.len();
                cli.sim.advance_clock(step);
            }
        }
        // The upload's command has started: the watch is inside the last batch.
        while !std::fs::read_to_string(&handled)
            .unwrap_or_default()
            .contains(r#""after":"uploading""#)
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the events came");
    child.start_kill().expect("killed");
    let _ = child.wait().await;

    let again = cli
        .run(&[
            "watch",
            "tasks",
            "--interval",
            "20ms",
            "--cursor",
            &cursor.to_string_lossy(),
            "--for",
            "500ms",
        ])
        .await;
    assert_eq!(again.code, 0, "{again:?}");
    let repeated: Vec<&str> = again.stdout.lines().collect();
    assert!(!repeated.is_empty(), "the unhandled upload is repeated: {again:?}");
    let batch: Vec<&str> = first[last_batch..].iter().map(String::as_str).collect();
    assert_eq!(batch.len(), 2, "{first:?}");
    for line in &repeated {
        assert!(
            batch.contains(line),
            "only the last batch's lines, unchanged: {line} not in {batch:?}"
        );
    }
    assert!(
        repeated.iter().any(|line| line.contains(r#""after":"uploading""#)),
        "{repeated:?}"
    );
}

/// `--parallel 3`: a poll's three events are handled at once. Each command
/// waits (at most 5 s) until all three have started, and fails if they did
/// not: run one at a time, the first would fail.
#[tokio::test]
async fn watch_exec_runs_a_poll_s_events_at_once_with_parallel() {
    let cli = three_waiting_tasks().await;
    let dir = tempfile::tempdir().expect("a directory");
    let started = dir.path().join("started");
    let exec = format!(
        "sh -c 'echo x >> \"$0\"; i=0; while [ $(wc -l < \"$0\") -lt 3 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; [ $(wc -l < \"$0\") -ge 3 ]' '{}'",
        started.display()
    );
    let watched = cli
        .run(&["watch", "tasks", "--count", "3", "--parallel", "3", "--exec", &exec])
        .await;
    assert_eq!(watched.code, 0, "{watched:?}");
    assert_eq!(watched.stdout.lines().count(), 3, "{watched:?}");
    assert_eq!(watched.stderr, "watch: 3 event(s), 2 call(s)\n", "no command failed");
}

/// `--jq`: each row of a list (or the one value) filtered as JSON before
/// `--columns` and the format; an expression that does not compile exits 2
/// with nothing sent.
#[tokio::test]
async fn jq_filters_each_row_before_columns_and_a_broken_one_sends_nothing() {
    let cli = Cli::start().await;
    let profile = cli.profile().await;
    cli.sim.add_input_file("fail-me.mp4", 1_000);
    let mut failed_id = String::new();
    for input in ["movie.mp4", "fail-me.mp4"] {
        let registered = cli
            .run(&[
                "encoder",
                "register-task",
                "--profile-id",
                &profile,
                "--input-filepath",
                input,
                "--wait",
                "-o",
                "json",
            ])
            .await;
        if input == "fail-me.mp4" {
            assert_eq!(registered.code, 4, "{registered:?}");
            failed_id = registered.json()[0]["id"].to_string();
        }
    }
    let failed = cli
        .run(&[
            "encoder",
            "list-tasks",
            "--all",
            "-o",
            "ndjson",
            "--jq",
            "select(.status == \"failed\") | {id, error_code}",
        ])
        .await;
    assert_eq!(failed.code, 0, "{failed:?}");
    // Members print sorted, as everywhere in vidplat's JSON.
    assert_eq!(failed.stdout, format!("{{\"error_code\":1001,\"id\":{failed_id}}}\n"));

    let csv = cli
        .run(&[
            "encoder",
            "list-tasks",
            "-o",
            "csv",
            "--jq",
            "{id, state: .status}",
            "--columns",
            "state",
        ])
        .await;
    assert_eq!(csv.code, 0, "{csv:?}");
    let mut lines: Vec<&str> = csv.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["failed", "ready", "state"]);

    let counts = cli
        .run(&["encoder", "get-task-counts", "-o", "json", "--jq", ".ready"])
        .await;
    assert_eq!((counts.code, counts.stdout.as_str()), (0, "1\n"), "{counts:?}");

    let before = cli.sim.journal().len();
    let broken = cli.run(&["encoder", "list-tasks", "--jq", ".[ | "]).await;
    assert_eq!((broken.code, broken.stdout.as_str()), (2, ""), "{broken:?}");
    assert_eq!(
        broken.stderr,
        "error: invalid input, not sent: `--jq` does not parse: expected closing bracket at the end\n"
    );
    let unknown = cli.run(&["encoder", "list-tasks", "--jq", "no_such_filter(1)"]).await;
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown.stderr.contains("`no_such_filter/1`") || unknown.stderr.contains("`no_such_filter`"),
        "{unknown:?}"
    );
    assert_eq!(cli.sim.journal().len(), before, "nothing was sent");
}

/// `vidplat man DIR` writes a page per command, which groff renders with no
/// warning (all of them asked for) and `man -l` shows.
#[tokio::test]
async fn man_pages_are_written_for_every_command_and_render_without_a_warning() {
    let cli = Cli::start().await;
    let dir = tempfile::tempdir().expect("a directory");
    let written = cli.run(&["man", &dir.path().to_string_lossy(), "-o", "json"]).await;
    assert_eq!(written.code, 0, "{written:?}");
    let mut pages: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .expect("read")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    pages.sort();
    assert_eq!(written.json()["pages"], pages.len());
    for name in [
        "vidplat.1",
        "vidplat-encoder-list-tasks.1",
        "vidplat-watch-tasks.1",
        "vidplat-man.1",
    ] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
    assert!(!dir.path().join("vidplat-help.1").exists(), "clap's help is no page");
    let groff = std::process::Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .args(&pages)
        .output();
    let Ok(groff) = groff else {
        assert!(
            !vidplat_tests::required("VIDPLAT_REQUIRE_MAN"),
            "VIDPLAT_REQUIRE_MAN=1 and no groff"
        );
        eprintln!("skipped: no groff");
        return;
    };
    assert!(groff.status.success());
    assert_eq!(String::from_utf8_lossy(&groff.stderr), "", "groff warns");
    let man = std::process::Command::new("man")
        .args(["-l", &dir.path().join("vidplat-encoder-list-tasks.1").to_string_lossy()])
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .expect("man runs where groff does");
    assert_eq!(String::from_utf8_lossy(&man.stderr), "");
    let shown = String::from_utf8_lossy(&man.stdout);
    assert!(
        shown.contains("vidplat-encoder-list-tasks") && shown.contains("--per-page"),
        "{shown}"
    );
}

/// `vidplat api`: any path of a service with the configured base URL and key;
/// its answer printed as JSON rows; `--paginate` following the paging of the
/// operation the route matches; a path that is not one refused, nothing sent.
#[tokio::test]
async fn api_sends_a_path_of_the_service_and_nothing_else() {
    let cli = Cli::start().await;
    let preset =
        r#"{"name": "raw", "destination": "https://upload.example.com/out", "format": "MP4", "output_filename": "x"}"#;
    let posted = cli
        .run_stdin(&["api", "encoder", "POST", "/v1/presets", "--input", "-"], preset)
        .await;
    assert_eq!((posted.code, posted.json()["id"].as_i64()), (0, Some(1)), "{posted:?}");
    let read = cli
        .run(&["api", "encoder", "get", "/v1/presets/1", "--jq", ".name"])
        .await;
    assert_eq!((read.code, read.stdout.as_str()), (0, "\"raw\"\n"), "{read:?}");
    let sent = cli.sim.journal();
    let sent: Vec<(&str, &str, Option<&str>)> = sent
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str(), r.operation))
        .collect();
    assert_eq!(
        sent,
        [
            ("POST", "/v1/presets", Some("register_preset")),
            ("GET", "/v1/presets/1", Some("get_preset"))
        ]
    );

    // A dry run shows no secret member, as an operation's does; curl's says so.
    let run = &cli;
    let shown_with = |form: &'static [&'static str]| {
        let mut words = vec!["api", "vms", "POST", "/v1/viewing-pages", "--field", "password=hunter2"];
        words.extend_from_slice(form);
        async move { run.run(&words).await }
    };
    let shown = shown_with(&["--dry-run"]).await;
    assert_eq!(shown.code, 0, "{shown:?}");
    assert!(!shown.stdout.contains("hunter2"), "{shown:?}");
    assert!(shown.stdout.contains("\"password\": \"[redacted]\""), "{shown:?}");
    let curl = shown_with(&["--print", "curl"]).await;
    assert!(
        curl.stdout.starts_with("curl ") && !curl.stdout.contains("hunter2"),
        "{curl:?}"
    );
    assert!(curl.stderr.contains("put their values back"), "{curl:?}");

    // Every page of the operation the route matches, as its rows.
    let profile = cli.profile().await;
    cli.register_tasks(&profile, 3).await;
    let pages = cli
        .run(&[
            "api",
            "encoder",
            "GET",
            "/v1/tasks?per_page=1",
            "--paginate",
            "-o",
            "ndjson",
            "--columns",
            "id",
        ])
        .await;
    assert_eq!(
        (pages.code, pages.stdout.as_str()),
        (0, "{\"id\":3}\n{\"id\":2}\n{\"id\":1}\n"),
        "{pages:?}"
    );
    let asked: Vec<Option<String>> = cli
        .sim
        .journal()
        .into_iter()
        .filter(|r| r.operation == Some("list_tasks"))
        .map(|r| r.query)
        .collect();
    assert_eq!(asked.len(), 3, "one request a page: {asked:?}");
    let unknown = cli.run(&["api", "encoder", "GET", "/v1/elsewhere", "--paginate"]).await;
    assert_eq!(unknown.code, 2, "{unknown:?}");

    // A URL, another host or a way out of the base URL: refused, nothing sent.
    let (url, listener) = silent_server().await;
    for path in [
        "https://evil.example/v1/tasks",
        "//evil.example/v1/tasks",
        "/v1/../../admin",
        "/v1/tasks#x",
    ] {
        let mut command = cli.command(&["api", "encoder", "GET", path]);
        command.env("VIDPLAT_ENCODER_URL", &url);
        let refused = cli.run_with(command, "").await;
        assert_eq!((refused.code, refused.stdout.as_str()), (2, ""), "{path}: {refused:?}");
        assert!(
            refused.stderr.starts_with("error: not sent: the path must"),
            "{refused:?}"
        );
    }
    assert_nothing_connected(&listener).await;

    // A DELETE asks first; where it cannot ask it is refused, nothing sent.
    let before = cli.sim.journal().len();
    let delete = cli.run(&["api", "encoder", "DELETE", "/v1/presets/1"]).await;
    assert_eq!(delete.code, 2, "{delete:?}");
    assert_eq!(cli.sim.journal().len(), before);

    // Analytics through the quota: the call is counted by every process.
    let counts = cli
        .run(&["api", "analytics", "GET", "/v2/realtime/user-counts", "-o", "ndjson"])
        .await;
    assert_eq!(counts.code, 0, "{counts:?}");
    let quota = cli.run(&["analytics", "quota", "-o", "json"]).await;
    assert_eq!(quota.json()["used_this_month"], 1, "{quota:?}");

    // The help's own example: --input names a JSON file.
    let file = cli.config_dir.path().join("preset.json");
    std::fs::write(&file, preset.replace("\"raw\"", "\"from-file\"")).expect("written");
    let input = file.to_string_lossy().into_owned();
    let from_file = cli
        .run(&["api", "encoder", "POST", "/v1/presets", "--input", &input])
        .await;
    let id = from_file.json()["id"].as_i64().expect("an id");
    let read = cli
        .run(&["api", "encoder", "get", &format!("/v1/presets/{id}"), "--jq", ".name"])
        .await;
    assert_eq!((read.code, read.stdout.as_str()), (0, "\"from-file\"\n"), "{read:?}");
}

/// The binary parses with a tree whose commands are made only when run
/// (`root_to_run`); each command's help, and the refusal of a flag it does
/// not have, are the same bytes as from the whole tree the snapshot reads.
#[test]
fn the_tree_to_run_gives_each_command_the_whole_tree_s_help_and_refusals() {
    fn paths(command: &clap::Command, path: Vec<String>, all: &mut Vec<Vec<String>>) {
        all.push(path.clone());
        for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
            let mut below = path.clone();
            below.push(sub.get_name().to_owned());
            paths(sub, below, all);
        }
    }
    let mut whole = vidplat_cli::root();
    whole.build();
    let mut all = Vec::new();
    paths(&whole, vec!["vidplat".to_owned()], &mut all);
    assert!(all.len() > 150, "{} commands", all.len());
    let rendered = |root: clap::Command, words: &[String]| match root.try_get_matches_from(words) {
        Ok(_) => "parsed".to_owned(),
        Err(e) => format!("{:?}: {}", e.kind(), e.render()),
    };
    // Made once and copied for each parse: making the whole tree is what costs.
    let whole_unbuilt = vidplat_cli::root();
    let mut differ = Vec::new();
    for path in &all {
        for last in ["--help", "--no-such-flag"] {
            let mut words = path.clone();
            words.push(last.to_owned());
            if rendered(vidplat_cli::root_to_run(), &words) != rendered(whole_unbuilt.clone(), &words) {
                differ.push(words.join(" "));
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// Every command that runs something shows how, as gh's help does: an
/// `Examples:` section in its help (groups list their commands instead),
/// each example a command line the command tree parses.
#[test]
fn every_command_s_help_has_an_example() {
    fn walk(command: &mut clap::Command, path: &str, missing: &mut Vec<String>) {
        let path = format!("{path} {}", command.get_name()).trim().to_owned();
        let leaves: Vec<&mut clap::Command> = command
            .get_subcommands_mut()
            .filter(|sub| sub.get_name() != "help")
            .collect();
        if leaves.is_empty() {
            let help = command.render_long_help().to_string();
            let Some((_, examples)) = help.split_once("\nExamples:\n") else {
                missing.push(path);
                return;
            };
            // Each example is a command line the tree takes: its flags exist, its values parse.
            for line in examples.lines().take_while(|l| l.starts_with("  vidplat ")) {
                let line = line.split(" # ").next().unwrap_or_default();
                let line = line.split(" > ").next().unwrap_or_default();
                let line = line.split(" | ").next().unwrap_or_default();
                let line = line.split(" < ").next().unwrap_or_default();
                let line = line.split(" && ").next().unwrap_or_default();
                let words = shlex::split(line).unwrap_or_else(|| panic!("{path}: `{line}` does not split"));
                // Parsed as the binary parses: by the tree whose commands are made as they are run.
                match vidplat_cli::root_to_run().try_get_matches_from(&words) {
                    // The simulator's URL comes from VIDPLAT_SIM_URL, which `vidplat sim` exports.
                    Err(e) if e.to_string().contains("--sim-url") => {}
                    Err(e) => missing.push(format!("{path}: `{line}` does not parse: {}", e.kind())),
                    Ok(_) => {}
                }
            }
            return;
        }
        for sub in leaves {
            walk(sub, &path, missing);
        }
    }
    let mut root = vidplat_cli::root();
    root.build();
    let mut missing = Vec::new();
    walk(&mut root, "", &mut missing);
    assert!(
        missing.is_empty(),
        "{} commands without an example: {missing:#?}",
        missing.len()
    );
}
