//! Configuration of the facade: what the builder accepts and refuses, and what it never prints.

use std::time::Duration;
use vidplat::{Client, ConfigError, Error, Method, QuotaConfig, RetryPolicy};

#[test]
fn debug_never_shows_the_api_key() {
    let builder = Client::builder()
        .api_key("sk-very-secret-123")
        .encoder_url("http://127.0.0.1:1");
    assert!(!format!("{builder:?}").contains("sk-very-secret-123"));
    let client = builder.build().unwrap();
    let shown = format!("{client:?}");
    assert!(!shown.contains("sk-very-secret-123"), "{shown}");
    assert!(shown.contains("http://127.0.0.1:1"));
}

#[test]
fn a_service_without_base_url_is_a_config_error() {
    let client = Client::builder().encoder_url("http://127.0.0.1:1").build().unwrap();
    assert!(client.encoder().is_ok());
    let error = client.vms().unwrap_err();
    assert!(
        matches!(error, Error::Config(ref why) if why.to_string().contains("VIDPLAT_VMS_URL")),
        "{error}"
    );
    let bad = Client::builder().encoder_url("not a url").build().unwrap_err();
    assert!(bad.to_string().contains("not a url"), "{bad}");
}

#[test]
fn route_overrides_are_checked_at_build_time() {
    let unknown = Client::builder()
        .route("register_taks", Method::Post, "/v1/tasks")
        .build()
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "client configuration: route override for unknown operation `register_taks`"
    );
    for with_url in [true, false] {
        let mut builder = Client::builder().route("update_preset", Method::Patch, "/v1/presets/{id}");
        if with_url {
            builder = builder.encoder_url("http://127.0.0.1:1");
        }
        let wrong_params = builder.build().unwrap_err();
        assert!(wrong_params.to_string().contains("update_preset"), "{wrong_params}");
    }
    let fine = Client::builder()
        .encoder_url("http://127.0.0.1:1")
        .route("update_preset", Method::Patch, "/v1/presets/{preset-id}/settings")
        .build();
    assert!(fine.is_ok());
    // A route the documents show keeps its method: `get-task` never sends a DELETE.
    let deleting = Client::builder()
        .encoder_url("http://127.0.0.1:1")
        .route("get_task", Method::Delete, "/v1/tasks/{task-id}")
        .build()
        .unwrap_err();
    assert_eq!(
        deleting.to_string(),
        "client configuration: route for `get_task`: the documents give it the method GET, not DELETE; \
         only a route the YAML assumes may change its method"
    );
    let moved = Client::builder()
        .encoder_url("http://127.0.0.1:1")
        .route("get_task", Method::Get, "/proxy/v1/tasks/{task-id}")
        .build();
    assert!(moved.is_ok(), "a documented route may move, keeping its method");
}

#[test]
fn bounds_checked_by_the_generated_types_never_leave() {
    // typify rejects a string outside its documented length when the body is built.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = Client::builder()
        .encoder_url("http://127.0.0.1:1")
        .api_key("k")
        .build()
        .unwrap();
    let error: Error = runtime.block_on(async {
        let body = vidplat::encoder::types::TaskCreate::builder()
            .input_filepath("x".repeat(71))
            .profile_id(std::num::NonZeroU64::new(1).unwrap());
        client
            .encoder()
            .unwrap()
            .register_task()
            .body(body)
            .send()
            .await
            .unwrap_err()
            .into()
    });
    assert_eq!(
        vidplat_tests::only_refusal(&error),
        Some(("input_filepath", "longer than 70 characters")),
        "{error:?}"
    );
}

#[test]
fn an_http_base_url_needs_a_loopback_host_or_explicit_consent() {
    for insecure in [
        "http://encoder.example.jp",
        "http://10.1.2.3:8080",
        "http://localhost.example.jp",
    ] {
        let error = Client::builder().encoder_url(insecure).build().unwrap_err();
        assert!(
            matches!(error, Error::Config(ConfigError::InsecureBaseUrl { .. })),
            "{insecure}: {error}"
        );
        assert!(error.to_string().contains("HTTPS"), "{error}");
        assert!(Client::builder()
            .encoder_url(insecure)
            .allow_insecure_http()
            .build()
            .is_ok());
    }
    for fine in [
        "https://encoder.example.jp",
        "http://127.0.0.1:8080",
        "http://localhost:3000",
        "http://[::1]:9",
    ] {
        assert!(Client::builder().vms_url(fine).build().is_ok(), "{fine}");
    }
}

#[test]
fn the_builder_result_does_not_depend_on_the_order_of_calls() {
    let quota = QuotaConfig {
        calls_per_window: 5,
        ..QuotaConfig::default()
    };
    let policy = RetryPolicy {
        max_attempts: 7,
        ..RetryPolicy::default()
    };
    let one = Client::builder()
        .encoder_url("http://127.0.0.1:1")
        .total_timeout(Duration::from_secs(3))
        .retry(policy.clone())
        .attempt_timeout(Duration::from_secs(2))
        .analytics_quota(quota.clone())
        .analytics_url("http://127.0.0.1:1");
    let other = Client::builder()
        .analytics_url("http://127.0.0.1:1")
        .analytics_quota(quota)
        .attempt_timeout(Duration::from_secs(2))
        .retry(policy)
        .total_timeout(Duration::from_secs(3))
        .encoder_url("http://127.0.0.1:1");
    // A retry policy set after the total timeout no longer resets it.
    assert_eq!(format!("{one:?}"), format!("{other:?}"));
    assert!(format!("{one:?}").contains("total_timeout: 3s"));
    // Two overrides of one operation would depend on their order: refused.
    let twice = Client::builder()
        .route("update_preset", Method::Patch, "/v1/presets/{preset-id}/a")
        .route("update_preset", Method::Patch, "/v1/presets/{preset-id}/b")
        .build()
        .unwrap_err();
    assert!(
        matches!(twice, Error::Config(ConfigError::DuplicateRoute { .. })),
        "{twice}"
    );
}

/// With `HTTP_PROXY` and `ALL_PROXY` naming a local "proxy", a client of a
/// plain-http (loopback) base URL still goes direct: the key never travels in
/// clear to a proxy. The environment is the process's, so the check runs in a
/// child process (this test binary again, on the test below).
#[test]
fn a_plain_http_base_url_never_goes_through_a_proxy() {
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "facade_config::proxy_child", "--test-threads=1"])
        .env("VIDPLAT_PROXY_CHILD", "1")
        .env("HTTP_PROXY", &proxy_url)
        .env("http_proxy", &proxy_url)
        .env("ALL_PROXY", &proxy_url)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(printed.contains("1 passed"), "{printed}");
    proxy.set_nonblocking(true).unwrap();
    assert!(proxy.accept().is_err(), "the proxy received a connection");
}

#[tokio::test]
#[ignore = "run by a_plain_http_base_url_never_goes_through_a_proxy, with a proxy in the environment"]
async fn proxy_child() {
    if std::env::var_os("VIDPLAT_PROXY_CHILD").is_none() {
        return;
    }
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({"id": 7})))
        .mount(&server)
        .await;
    let client = vidplat_tests::local_client(&server.uri()).build().unwrap();
    use vidplat::Call;
    let task = client.encoder().unwrap().get_task().task_id(7u64).call().await.unwrap();
    assert_eq!(task.id, Some(7));
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "the request went direct"
    );
}
