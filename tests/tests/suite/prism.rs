//! Every operation of the generated clients against Prism (`prism mock`, on
//! 127.0.0.1), which validates each request against the YAML: any request it
//! reports as not matching (a violation, a 422, a security failure) fails.
//!
//! Prism is installed with the lint tools (`cargo xtask lint`, into `.tools/`).
//! Without it the test says so and passes, unless `VIDPLAT_REQUIRE_PRISM=1`, as
//! `cargo xtask ci` sets.

use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vidplat_core::{ResponseFuture, Runtime, Transport};
use vidplat_tests::samples::operation_arguments;
use vidplat_tests::{generated, load_spec, repo_root};

/// Sends through the network and keeps what Prism says of each request.
#[derive(Default)]
struct Inspector {
    findings: Mutex<Vec<String>>,
    /// Requests Prism answered (anything else is a transport failure: Prism is not there).
    answered: std::sync::atomic::AtomicUsize,
}

impl Transport for Inspector {
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        Box::pin(async move {
            let target = format!("{} {}", request.method(), request.url());
            let response = client.execute(request).await?;
            self.answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let status = response.status();
            let violations = response
                .headers()
                .get("sl-violations")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let headers = response.headers().clone();
            let body = response.bytes().await?;
            let problem: Option<Value> = serde_json::from_slice(&body).ok();
            let prism_error = problem
                .as_ref()
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .filter(|t| t.contains("stoplight.io/prism/errors"))
                .map(str::to_owned);
            let request_violations: Vec<Value> = violations
                .as_deref()
                .and_then(|v| serde_json::from_str::<Vec<Value>>(v).ok())
                .unwrap_or_default()
                .into_iter()
                .filter(|v| v["location"][0] == "request")
                .collect();
            // Prism's own errors about the request: invalid (422), unauthorised, no such route.
            let refused = prism_error.as_deref().is_some_and(|t| {
                [
                    "UNPROCESSABLE_ENTITY",
                    "UNAUTHORIZED",
                    "NO_PATH_MATCHED_ERROR",
                    "NO_METHOD_MATCHED_ERROR",
                ]
                .iter()
                .any(|kind| t.ends_with(kind))
            });
            if !request_violations.is_empty() || refused {
                let detail = problem.map(|p| p.to_string()).unwrap_or_default();
                self.findings.lock().unwrap().push(format!(
                    "{target} -> {status}: violations {request_violations:?} {detail}"
                ));
            }
            let mut rebuilt = http::Response::builder().status(status);
            for (name, value) in &headers {
                rebuilt = rebuilt.header(name, value);
            }
            Ok(reqwest::Response::from(
                rebuilt.body(body).expect("a response rebuilt from a response"),
            ))
        })
    }
}

/// A `prism mock` process, killed on drop.
struct Prism {
    child: Child,
    url: String,
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn prism_binary() -> Option<std::path::PathBuf> {
    let binary = repo_root().join(".tools/node/node_modules/.bin/prism");
    if binary.exists() {
        return Some(binary);
    }
    assert!(
        !vidplat_tests::required("VIDPLAT_REQUIRE_PRISM"),
        "Prism is required but not installed: run `cargo xtask lint` first"
    );
    eprintln!("skipped: Prism is not installed (`cargo xtask lint` installs it into .tools/)");
    None
}

async fn start_prism(binary: &std::path::Path, service: &str) -> Prism {
    start_prism_on(binary, service, free_port).await
}

/// A loopback port free when asked (another process may take it before it is bound).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Prism on the first of the ports `next_port` gives that it can listen on.
async fn start_prism_on(binary: &std::path::Path, service: &str, mut next_port: impl FnMut() -> u16) -> Prism {
    let spec = repo_root().join("openapi").join(format!("{service}.yaml"));
    // The free port found may be taken before Prism binds it; Prism then exits,
    // and whatever holds the port would answer in its place (passing the checks
    // above with no findings). So Prism's own line saying it listens is awaited,
    // and a few ports are tried.
    for _ in 0..5 {
        let port = next_port();
        let mut child = Command::new(binary)
            .args(["mock", "--host", "127.0.0.1", "--port", &port.to_string()])
            .arg(&spec)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("prism starts");
        let stdout = child.stdout.take().expect("Prism's stdout");
        let prism = Prism {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let listening = format!("Prism is listening on {}", prism.url);
        let (started, said) = std::sync::mpsc::channel();
        // Read to the end, so that Prism's log of each request never fills the pipe.
        std::thread::spawn(move || {
            let mut started = Some(started);
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                let Ok(line) = line else { break };
                if line.contains(&listening) {
                    if let Some(started) = started.take() {
                        let _ = started.send(());
                    }
                }
            }
        });
        // Prism needs a few seconds to read the YAML; bounded wait. The channel
        // closes without a message when Prism exits first.
        match tokio::task::spawn_blocking(move || said.recv_timeout(Duration::from_secs(90)))
            .await
            .expect("the wait for Prism")
        {
            Ok(()) => return prism,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("prism did not start for {service}"),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => continue,
        }
    }
    panic!("prism could not listen on any of five free ports for {service}")
}

/// A port taken by another server is passed over: the Prism returned is the
/// one that answers, not whatever held its port.
#[tokio::test]
async fn prism_is_not_mistaken_for_what_held_its_port() {
    let Some(binary) = prism_binary() else { return };
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let taken_port = taken.local_addr().expect("its address").port();
    let mut ports = vec![taken_port];
    let prism = start_prism_on(&binary, "encoder", move || ports.pop().unwrap_or_else(free_port)).await;
    assert_ne!(prism.url, format!("http://127.0.0.1:{taken_port}"));
    // A plain reqwest client: the workspace's reqwest has no TLS provider of its
    // own, so this test, run alone, installs the default as a program would.
    vidplat_core::install_default_tls_provider();
    let answer = reqwest::get(format!("{}/v1/nowhere", prism.url))
        .await
        .expect("Prism answers");
    let problem: Value = answer.json().await.expect("Prism's problem document");
    assert!(
        problem["type"]
            .as_str()
            .is_some_and(|t| t.ends_with("NO_PATH_MATCHED_ERROR")),
        "{problem}"
    );
}

macro_rules! against_prism {
    ($test:ident, $service:literal, $krate:ident, $driver:path) => {
        #[tokio::test]
        async fn $test() {
            use $driver as driver;
            let Some(binary) = prism_binary() else { return };
            let prism = start_prism(&binary, $service).await;
            let inspector = Arc::new(Inspector::default());
            let runtime = Runtime::builder(&$krate::operations::TABLE)
                .base_url(&prism.url)
                .api_key("prism-test-key".into())
                .transport(inspector.clone())
                .retry(vidplat_core::RetryPolicy::never())
                .build()
                .unwrap();
            let client = $krate::Client::new(runtime);
            let spec = load_spec($service);
            let mut sent = 0;
            for (path, item) in spec["paths"].as_object().unwrap() {
                for op in item.as_object().unwrap().values() {
                    let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                        continue;
                    };
                    let (args, _) = operation_arguments(&spec, path, op);
                    // Prism answers from the YAML's schemas; only what it says of the request matters here.
                    let _ = driver::send(&client, id, &args).await;
                    sent += 1;
                }
            }
            assert_eq!(sent, $krate::operations::ALL.len());
            let answered = inspector.answered.load(std::sync::atomic::Ordering::SeqCst);
            assert_eq!(answered, sent, "Prism answered every request");
            let findings = inspector.findings.lock().unwrap();
            assert!(
                findings.is_empty(),
                "Prism refused {} of {sent} requests:\n{}",
                findings.len(),
                findings.join("\n")
            );
        }
    };
}

against_prism!(encoder_against_prism, "encoder", vidplat_encoder, generated::encoder);
against_prism!(vms_against_prism, "vms", vidplat_vms, generated::vms);
against_prism!(
    analytics_against_prism,
    "analytics",
    vidplat_analytics,
    generated::analytics
);

/// The check above can fail: a request off the YAML's routes, and one without
/// the bearer header the YAML requires, are both reported.
#[tokio::test]
async fn prism_reports_requests_that_break_the_yaml() {
    let Some(binary) = prism_binary() else { return };
    let prism = start_prism(&binary, "encoder").await;
    let inspector = Arc::new(Inspector::default());
    let runtime = Runtime::builder(&vidplat_encoder::operations::TABLE)
        .base_url(&prism.url)
        .transport(inspector.clone())
        .route("get_task", vidplat_core::Method::Get, "/v1/nowhere/{task-id}")
        .build()
        .unwrap();
    let client = vidplat_encoder::Client::new(runtime);
    // Under load Prism may take a moment more to answer than to listen: both
    // requests are sent again (a bounded number of times) until it answers both.
    let started = Instant::now();
    loop {
        inspector.findings.lock().unwrap().clear();
        inspector.answered.store(0, std::sync::atomic::Ordering::SeqCst);
        let _ = client.get_task().task_id(std::num::NonZeroU64::MIN).send().await;
        let _ = client.get_task_counts().send().await;
        let answered = inspector.answered.load(std::sync::atomic::Ordering::SeqCst);
        if answered == 2 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Prism answered {answered} of 2 requests"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let findings = inspector.findings.lock().unwrap();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert!(findings[0].contains("NO_PATH_MATCHED"), "{}", findings[0]);
    assert!(findings[1].contains("UNAUTHORIZED"), "{}", findings[1]);
}
