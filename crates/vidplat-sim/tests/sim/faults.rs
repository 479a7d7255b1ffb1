//! Injected faults: `UNKNOWN_ERROR` and other failures answered on demand, by
//! `SimConfig::faults`, `Simulator::inject_fault` and `/sim/faults`, with the
//! documented error body, before the key check, running nothing.

use serde_json::{json, Value};
use vidplat::Call;
use vidplat_sim::{Fault, SimConfig, Simulator};

/// `method` `path` on the listener (with the demo key, unless `key` is false):
/// the status, the `Retry-After` header and the JSON body (`null` when empty).
async fn answer(
    sim: &Simulator,
    method: &str,
    path: &str,
    key: bool,
    body: Option<Value>,
) -> (u16, Option<String>, Value) {
    let url = format!("http://{}{path}", sim.address);
    crate::request(method, &url, key.then_some(sim.api_key.as_str()), body).await
}

const INJECTED: &str = "fault injected by the simulator (POST /sim/faults)";

#[tokio::test]
async fn injected_faults_answer_their_paths_as_many_times_as_asked() {
    let sim = Simulator::start_with(SimConfig {
        faults: vec![Fault {
            status: 502,
            message: Some("bad gateway".into()),
            ..Fault::new("/vms/v1/labels")
        }],
        ..SimConfig::fast()
    })
    .await
    .expect("the simulator starts");
    let added =
        json!({"operation_path_prefix": "/encoder/v1/tasks", "status": 503, "code": "UNKNOWN_ERROR", "times": 2});
    assert_eq!(
        answer(&sim, "POST", "/sim/faults", false, Some(added)).await,
        (204, None, Value::Null)
    );
    let pending = |prefix: &str, status: u16, message: Value, times: u32| {
        json!({
            "operation_path_prefix": prefix, "method": null, "status": status, "code": "UNKNOWN_ERROR",
            "message": message, "retry_after": null, "times": times, "delay_ms": 0, "outcome": "answer"
        })
    };
    assert_eq!(
        answer(&sim, "GET", "/sim/faults", false, None).await,
        (
            200,
            None,
            json!({"data": [
                pending("/vms/v1/labels", 502, json!("bad gateway"), 1),
                pending("/encoder/v1/tasks", 503, Value::Null, 2)
            ]})
        )
    );

    let unknown_error = (503, None, json!({"code": "UNKNOWN_ERROR", "message": INJECTED}));
    assert_eq!(
        answer(&sim, "GET", "/encoder/v1/tasks", true, None).await,
        unknown_error
    );
    assert_eq!(
        answer(&sim, "GET", "/encoder/v1/counts", true, None).await.0,
        200,
        "another path"
    );
    // Before the key check: no key, still the fault.
    assert_eq!(
        answer(&sim, "GET", "/encoder/v1/tasks/1", false, None).await,
        unknown_error
    );
    assert_eq!(
        answer(&sim, "GET", "/encoder/v1/tasks", true, None).await.0,
        200,
        "used up"
    );
    assert_eq!(
        answer(&sim, "GET", "/vms/v1/labels", true, None).await,
        (502, None, json!({"code": "UNKNOWN_ERROR", "message": "bad gateway"}))
    );
    assert_eq!(answer(&sim, "GET", "/vms/v1/labels", true, None).await.0, 200);
    assert_eq!(
        answer(&sim, "GET", "/sim/faults", false, None).await,
        (200, None, json!({"data": []}))
    );
    // A deliberate undocumented answer, said so, is taken.
    let teapot = json!({"operation": "get_task", "status": 418, "code": "TEAPOT", "undocumented": true});
    assert_eq!(answer(&sim, "POST", "/sim/faults", false, Some(teapot)).await.0, 204);

    // Through the facade: the client sees the documented code, and the faulted registration ran nothing.
    sim.inject_fault(Fault {
        method: Some("POST".into()),
        ..Fault::new("/encoder/v1/tasks")
    })
    .expect("a usable fault");
    let client = sim.client().build().expect("a client");
    let encoder = client.encoder().expect("encoder");
    let request: vidplat::encoder::types::TaskCreate =
        serde_json::from_value(json!({"input_filepath": "movie.mp4", "profile_id": 1})).expect("a request");
    let error = encoder.register_task().body(request).call().await.expect_err("faulted");
    assert_eq!(
        (error.status(), error.code(), error.message()),
        (Some(500), Some("UNKNOWN_ERROR"), Some(INJECTED))
    );
    let tasks = encoder.list_tasks().call().await.expect("the list");
    assert_eq!(tasks.total, Some(0));

    // A 429 with Retry-After; the analytics query never ran.
    sim.inject_fault(Fault {
        status: 429,
        code: "TOO_MANY_REQUESTS".into(),
        message: Some("the per-minute limit is exceeded".into()),
        retry_after: Some(7),
        ..Fault::new("/analytics/v2/")
    })
    .expect("a usable fault");
    assert_eq!(
        answer(&sim, "GET", "/analytics/v2/datetime/data", true, None).await,
        (
            429,
            Some("7".into()),
            json!({"code": "TOO_MANY_REQUESTS", "message": "the per-minute limit is exceeded"})
        )
    );
    assert_eq!(sim.analytics_stats().admitted(), 0);

    // DELETE removes what is pending.
    sim.inject_fault(Fault {
        times: 5,
        ..Fault::new("/vms/")
    })
    .expect("a usable fault");
    assert_eq!(
        answer(&sim, "DELETE", "/sim/faults", false, None).await,
        (204, None, Value::Null)
    );
    assert_eq!(answer(&sim, "GET", "/vms/v1/labels", true, None).await.0, 200);
}

#[tokio::test]
async fn an_unusable_fault_is_refused() {
    let sim = Simulator::start_with(SimConfig::fast())
        .await
        .expect("the simulator starts");
    let refused = |message: &str| (400, None, json!({"code": "INVALID_REQUEST", "message": message}));
    for (fault, message) in [
        (
            json!({"operation_path_prefix": "/vms/", "status": 200}),
            "the fault needs a `status` from 400 to 599",
        ),
        (
            json!({"operation_path_prefix": "vms", "times": 1}),
            "the fault needs an `operation`, or an `operation_path_prefix` starting with `/`",
        ),
        (
            json!({"operation_path_prefix": "/vms/", "times": 0}),
            "the fault needs `times` of at least 1",
        ),
        (
            json!({"operation_path_prefix": "/sim/input-files"}),
            "the fault cannot apply to the simulator's own /sim/ routes",
        ),
        // What the documents do not give, as the test kit refuses it. (A 418
        // passes where the YAML documents 4XX: the status of most codes is not shown.)
        (
            json!({"operation": "register_task", "status": 403, "code": "FULL_TASK"}),
            "the fault has a code, `FULL_TASK`, that the encoder document does not list \
             (set `undocumented: true` to answer it anyway)",
        ),
        (
            json!({"operation_path_prefix": "/encoder/v1/tasks", "status": 429, "code": "TOO_MANY_REQUESTS"}),
            "the fault has a code, `TOO_MANY_REQUESTS`, that the encoder document does not list \
             (set `undocumented: true` to answer it anyway)",
        ),
        (
            json!({"operation": "list_presets", "status": 400, "code": "REQUEST_UNAUTHORIZED"}),
            "the fault answers `REQUEST_UNAUTHORIZED` with 400, where the encoder document gives it 401 \
             (set `undocumented: true` to answer it anyway)",
        ),
    ] {
        assert_eq!(
            answer(&sim, "POST", "/sim/faults", false, Some(fault.clone())).await,
            refused(message),
            "{fault}"
        );
    }
    // A misspelt member is refused, not ignored.
    assert_eq!(
        answer(
            &sim,
            "POST",
            "/sim/faults",
            false,
            Some(json!({"operation_path_prefix": "/vms/", "statuss": 500})),
        )
        .await,
        refused(
            "Failed to deserialize the JSON body into the target type: statuss: unknown field `statuss`, expected \
             one of `operation`, `operation_path_prefix`, `method`, `status`, `code`, `message`, `retry_after`, \
             `times`, `delay_ms`, `outcome`, `undocumented` at line 1 \
             column 42"
        )
    );
    assert_eq!(
        answer(&sim, "GET", "/sim/faults", false, None).await,
        (200, None, json!({"data": []}))
    );

    let error = Simulator::start_with(SimConfig {
        faults: vec![Fault {
            status: 99,
            ..Fault::new("/")
        }],
        ..SimConfig::fast()
    })
    .await
    .expect_err("refused");
    assert_eq!(
        (error.kind(), error.to_string()),
        (
            std::io::ErrorKind::InvalidInput,
            "the fault needs a `status` from 400 to 599".to_owned()
        )
    );
}

/// One HTTP/1.1 request with the `Host` given, over a plain socket: the
/// status and the body.
async fn with_host(sim: &Simulator, method: &str, path: &str, host: &str, body: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut socket = tokio::net::TcpStream::connect(sim.address).await.expect("connects");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.expect("sent");
    let mut answer = String::new();
    socket.read_to_string(&mut answer).await.expect("an answer");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .expect("a status line");
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A page that makes its own name resolve to 127.0.0.1 (DNS rebinding) sends
/// its name as `Host`: the controls refuse it, nothing is injected or read.
#[tokio::test]
async fn the_controls_answer_only_requests_addressed_to_a_loopback_name() {
    let sim = Simulator::start_with(SimConfig::fast())
        .await
        .expect("the simulator starts");
    let port = sim.address.port();
    let fault = r#"{"path": "/vms/v1/labels", "status": 500}"#;
    let rebound = format!("rebound.example:{port}");
    let (status, body) = with_host(&sim, "POST", "/sim/faults", &rebound, fault).await;
    assert_eq!(status, 403, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(body["code"], "HOST_NOT_LOOPBACK", "{body}");
    for path in ["/sim/journal", "/sim/faults"] {
        assert_eq!(with_host(&sim, "GET", path, &rebound, "").await.0, 403, "{path}");
        // The right name at another port is another server's.
        assert_eq!(with_host(&sim, "GET", path, "127.0.0.1:1", "").await.0, 403, "{path}");
    }
    // Nothing was injected: the service answers as usual.
    let (status, _) = with_host(&sim, "GET", "/sim/faults", &format!("localhost:{port}"), "").await;
    assert_eq!(status, 200);
    assert_eq!(
        answer(&sim, "GET", "/sim/faults", false, None).await,
        (200, None, json!({"data": []}))
    );
    // The services' own routes are not the controls: a rebound name reaches them
    // as any client would (their key still decides).
    let (status, _) = with_host(&sim, "GET", "/vms/v1/labels", &rebound, "").await;
    assert_eq!(status, 401);
}
