//! For every operation, the exact HTTP request the generated client builds
//! from sample arguments (every parameter, every body field), captured by a
//! transport that never touches the network. The sample success body the
//! transport answers with must decode.

use serde_json::{json, Value};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use vidplat_core::{ResponseFuture, Runtime, Transport};
use vidplat_tests::samples::operation_arguments;
use vidplat_tests::{generated, load_spec};

const API_KEY: &str = "test-key-7f3a";

/// Records each request and answers with a canned response.
struct Recorder {
    requests: Mutex<Vec<String>>,
    answer: Mutex<(u16, Option<Value>)>,
}

impl Transport for Recorder {
    fn send<'a>(&'a self, _: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        let mut text = format!(
            "{} {}",
            request.method(),
            request.url().as_str().trim_start_matches(BASE)
        );
        let mut headers: Vec<(String, String)> = request
            .headers()
            .iter()
            .map(|(name, value)| {
                let value = value.to_str().unwrap_or("<binary>").to_owned();
                if name == "authorization" {
                    assert_eq!(value, format!("Bearer {API_KEY}"), "the bearer header carries the key");
                    return (name.to_string(), "Bearer <redacted>".to_owned());
                }
                (name.to_string(), value)
            })
            .collect();
        headers.sort();
        for (name, value) in headers {
            write!(text, "\n{name}: {value}").unwrap();
        }
        if let Some(body) = request.body().and_then(|b| b.as_bytes()) {
            let body = match serde_json::from_slice::<Value>(body) {
                Ok(json) => serde_json::to_string_pretty(&json).unwrap(),
                Err(_) => String::from_utf8_lossy(body).into_owned(),
            };
            write!(text, "\n\n{body}").unwrap();
        }
        self.requests.lock().unwrap().push(text);
        let (status, body) = self.answer.lock().unwrap().clone();
        let response = http::Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(body.map(|b| b.to_string()).unwrap_or_default())
            .unwrap();
        Box::pin(async move { Ok(reqwest::Response::from(response)) })
    }
}

const BASE: &str = "http://127.0.0.1:9/base";

macro_rules! request_snapshot {
    ($test:ident, $service:literal, $krate:ident, $driver:path) => {
        #[tokio::test]
        async fn $test() {
            use $driver as driver;
            let spec = load_spec($service);
            let recorder = Arc::new(Recorder {
                requests: Mutex::new(Vec::new()),
                answer: Mutex::new((200, None)),
            });
            let runtime = Runtime::builder(&$krate::operations::TABLE)
                .base_url(BASE)
                .api_key(API_KEY.into())
                .transport(recorder.clone())
                .build()
                .unwrap();
            let client = $krate::Client::new(runtime);
            let mut listing = String::new();
            let mut count = 0;
            for (path, item) in spec["paths"].as_object().unwrap() {
                for (method, op) in item.as_object().unwrap() {
                    let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                        continue;
                    };
                    let (args, answer) = operation_arguments(&spec, path, op);
                    *recorder.answer.lock().unwrap() = (200, answer.clone());
                    let decoded = driver::send(&client, id, &args)
                        .await
                        .unwrap_or_else(|e| panic!("{id} ({method} {path}): {e}"));
                    if answer.is_some() {
                        assert_ne!(decoded, json!(null), "{id}: the sample success body decodes");
                    }
                    let request = recorder
                        .requests
                        .lock()
                        .unwrap()
                        .pop()
                        .expect("one request recorded");
                    writeln!(listing, "## {id}\n{request}\n").unwrap();
                    count += 1;
                }
            }
            assert_eq!(count, $krate::operations::ALL.len());
            crate::in_snapshots(|| {
                insta::assert_snapshot!(concat!("generated_requests__requests_", $service), listing)
            });
        }
    };
}

request_snapshot!(encoder_requests, "encoder", vidplat_encoder, generated::encoder);
request_snapshot!(vms_requests, "vms", vidplat_vms, generated::vms);
request_snapshot!(analytics_requests, "analytics", vidplat_analytics, generated::analytics);
