//! The `vidplat` binary, run as a user runs it, against the simulator started
//! in this process: the bytes it prints on stdout and stderr, and its exit codes.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt as _;
use vidplat_sim::{Fault, SimConfig, Simulator};

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
    fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vidplat"));
        command
            .args(args)
            .env_clear()
            .env("VIDPLAT_CONFIG_DIR", self.config_dir.path())
            .env("VIDPLAT_ENCODER_URL", &self.sim.encoder_url)
            .env("VIDPLAT_VMS_URL", &self.sim.vms_url)
            .env("VIDPLAT_ANALYTICS_URL", &self.sim.analytics_url)
            .env("VIDPLAT_API_KEY", &self.sim.api_key)
            .env("VIDPLAT_LOGIN_ID", &self.sim.login_id);
        command
    }

    async fn run(&self, args: &[&str]) -> Run {
        self.run_with(self.command(args), "").await
    }

    async fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
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
    assert!(run.json().is_object(), "{}", run.stdout);
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
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&credentials)
            .expect("credentials written")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
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
        for sub in command.get_subcommands_mut() {
            walk(sub, &path, listing);
        }
    }
    walk(&mut root, "", &mut listing);
    let operations = vidplat::encoder::operations::ALL.len()
        + vidplat::vms::operations::ALL.len()
        + vidplat::analytics::operations::ALL.len();
    assert_eq!(operations, 118, "the operation table");
    for service in vidplat_cli::command::SERVICES {
        for spec in vidplat_cli::command::commands(service) {
            assert!(
                listing.contains(&format!("## vidplat {service} {}\n", spec.name)),
                "{}",
                spec.name
            );
        }
    }
    insta::assert_snapshot!("help", listing);
}
