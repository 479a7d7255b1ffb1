//! Every documented error path ends in the right `vidplat::Error`, says what
//! happened, and never panics: statuses and codes from the three documents'
//! Errors sections, plus the ways a body can be broken.

use crate::harness::{Wire, API_KEY};
use serde_json::json;
use std::time::Duration;
use vidplat::{ApiError, Call, Error, Quota, RetryPolicy};
use wiremock::ResponseTemplate;

/// A resource id (video-management ids are UUIDs).
const ID: uuid::Uuid = uuid::uuid!("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001");

fn error_body(status: u16, code: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"code": code, "message": message}))
}

/// A client that makes one attempt, so each test sees the first answer's error.
async fn answering_once(response: ResponseTemplate) -> Wire {
    Wire::configured(response, |builder| builder.retry(RetryPolicy::never())).await
}

#[track_caller]
fn assert_api(error: &Error, status: u16, code: Option<&str>) -> ApiError {
    match error {
        Error::Api(api) => {
            assert_eq!((api.status, api.code.as_deref()), (status, code), "{error}");
            (**api).clone()
        }
        other => panic!("expected an API error {status} {code:?}, got {other:?}"),
    }
}

#[tokio::test]
async fn unauthorized_is_request_unauthorized_in_all_three_services() {
    let wire = Wire::answering(401, json!({"code": "REQUEST_UNAUTHORIZED", "message": null})).await;
    let errors = [
        wire.encoder().get_task_counts().call().await.unwrap_err(),
        wire.vms().list_sites().call().await.unwrap_err(),
        wire.analytics().cloud_by_os().call().await.unwrap_err(),
    ];
    for error in &errors {
        assert_api(error, 401, Some("REQUEST_UNAUTHORIZED"));
        assert!(!error.is_retryable(), "a bad key stays bad");
        let shown = format!("{error} {error:?}");
        assert!(
            shown.contains("401") && shown.contains("REQUEST_UNAUTHORIZED"),
            "{shown}"
        );
        assert!(!shown.contains(API_KEY), "the key never appears in an error: {shown}");
    }
    assert_eq!(wire.requests().await.len(), 3, "no retry of a 401");
}

#[tokio::test]
async fn missing_permission_is_a_403_with_the_message_kept() {
    // The documents name no code for a missing permission: whatever comes is kept.
    let wire = Wire::with(error_body(
        403,
        "REQUEST_UNAUTHORIZED",
        "preset register permission required",
    ))
    .await;
    use vidplat::encoder::types::{PresetCreate, PresetName};
    let body = PresetCreate::builder().name(PresetName::try_from("hls-720p").ok());
    let error = wire.encoder().register_preset().body(body).call().await.unwrap_err();
    let api = assert_api(&error, 403, Some("REQUEST_UNAUTHORIZED"));
    assert_eq!(api.message.as_deref(), Some("preset register permission required"));
    assert!(
        error.to_string().contains("preset register permission required"),
        "{error}"
    );

    // A 403 with no body at all still ends in a 403.
    let wire = Wire::with(ResponseTemplate::new(403)).await;
    let error = wire.vms().get_site().site_id(ID).call().await.unwrap_err();
    assert_api(&error, 403, None);
}

#[tokio::test]
async fn over_service_limit_is_a_403_and_a_registration_is_sent_once() {
    let wire = Wire::with(error_body(403, "OVER_SERVICE_LIMIT", "registrable task count exceeded")).await;
    let error = wire
        .encoder()
        .register_task()
        .body(vidplat_tests::task_body())
        .call()
        .await
        .unwrap_err();
    assert_api(&error, 403, Some("OVER_SERVICE_LIMIT"));
    assert!(!error.is_retryable());
    assert_eq!(wire.requests().await.len(), 1);

    // Through `send()` too, the error carries the code, which is the service's known variant.
    let typed: Error = wire
        .encoder()
        .register_task()
        .body(vidplat_tests::task_body())
        .send()
        .await
        .map(|_| ())
        .expect_err("a 403 is an error")
        .into();
    let code: vidplat::encoder::types::ErrorCode = typed.code().unwrap().parse().unwrap();
    assert_eq!(code, vidplat::encoder::types::ErrorCode::OverServiceLimit);
}

#[tokio::test]
async fn cancelling_a_task_in_uploading_is_a_403() {
    let wire = Wire::with(error_body(403, "INVALID_REQUEST", "task is uploading")).await;
    let error = wire
        .encoder()
        .cancel_or_delete_task()
        .task_id(std::num::NonZeroU64::new(7).unwrap())
        .call()
        .await
        .unwrap_err();
    let api = assert_api(&error, 403, Some("INVALID_REQUEST"));
    assert_eq!(api.message.as_deref(), Some("task is uploading"));
    assert_eq!(wire.requests().await.len(), 1, "a DELETE answered 403 is not retried");
}

#[tokio::test]
async fn model_not_found_is_a_404_in_each_service() {
    let wire = Wire::answering(404, json!({"code": "MODEL_NOT_FOUND", "message": "content not found"})).await;
    let errors = [
        wire.encoder()
            .get_preset()
            .preset_id(std::num::NonZeroU64::new(3).unwrap())
            .call()
            .await
            .unwrap_err(),
        wire.vms()
            .get_content()
            .content_name("missing")
            .call()
            .await
            .unwrap_err(),
        wire.analytics().basic_viewing_history().call().await.unwrap_err(),
    ];
    for error in &errors {
        assert_api(error, 404, Some("MODEL_NOT_FOUND"));
        assert!(!error.is_retryable());
    }
}

#[tokio::test]
async fn error_codes_read_as_each_services_open_enum() {
    use vidplat::{analytics, encoder, vms};
    let wire = Wire::answering(404, json!({"code": "MODEL_NOT_FOUND", "message": "task not found"})).await;
    let error = wire.encoder().get_task().task_id(7_u64).call().await.unwrap_err();
    assert_eq!(
        error.code_as::<encoder::types::ErrorCode>(),
        Some(encoder::types::ErrorCode::ModelNotFound)
    );
    // The same code read through another service's enumeration is that service's variant.
    assert_eq!(
        error.code_as::<vms::types::ErrorCode>(),
        Some(vms::types::ErrorCode::ModelNotFound)
    );

    let wire = Wire::with(error_body(400, "CATEGORY_ASSOCIATED", "the category has contents")).await;
    let error = wire.vms().delete_category().category_id(ID).call().await.unwrap_err();
    assert_eq!(
        error.code_as::<vms::types::ErrorCode>(),
        Some(vms::types::ErrorCode::CategoryAssociated)
    );

    // A code no document lists is kept, exactly as sent.
    let wire = Wire::with(error_body(400, "QUERY_REJECTED_V3", "new code")).await;
    let error = wire.analytics().basic_viewing_history().call().await.unwrap_err();
    let code = error.code_as::<analytics::types::ErrorCode>();
    assert_eq!(
        code,
        Some(analytics::types::ErrorCode::Other("QUERY_REJECTED_V3".into()))
    );
    assert!(!code.is_some_and(|code| code.is_known()));

    // No code sent (a proxy's HTML page): no code to read.
    let wire = answering_once(ResponseTemplate::new(502).set_body_string("<html>bad gateway</html>")).await;
    let error = wire.vms().get_content().content_name("x").call().await.unwrap_err();
    assert_eq!(error.code_as::<vms::types::ErrorCode>(), None);
}

#[tokio::test]
async fn video_management_deletion_rules_keep_their_codes() {
    // The documents give no status for these codes; 400 stands in for "some 4xx".
    let vms_codes = [
        "STREAM_IN_STREAM_SETS",
        "SUBTITLE_IN_STREAM_SETS",
        "DELETING_FINAL_STREAM_SET",
        "DELETING_PRIMARY_POSTER",
        "CATEGORY_ASSOCIATED",
        "CONTENT_FORWARD_TARGET",
    ];
    for code in vms_codes {
        let wire = Wire::with(error_body(400, code, "cannot delete")).await;
        let vms = wire.vms();
        let error = match code {
            "STREAM_IN_STREAM_SETS" => vms.delete_stream().content_name("c").stream_id(ID).call().await,
            "SUBTITLE_IN_STREAM_SETS" => vms.delete_subtitle().content_name("c").subtitle_id(ID).call().await,
            "DELETING_FINAL_STREAM_SET" => vms.delete_stream_set().content_name("c").set_name("main").call().await,
            "DELETING_PRIMARY_POSTER" => vms.delete_poster().content_name("c").poster_id(ID).call().await,
            "CATEGORY_ASSOCIATED" => vms.delete_category().category_id(ID).call().await,
            _ => vms.delete_content().content_name("c").call().await,
        }
        .unwrap_err();
        assert_api(&error, 400, Some(code));
        // Each is a documented code, so it decodes to a known variant, not `Other`.
        let typed: vidplat::vms::types::ErrorCode = code.parse().unwrap();
        assert!(!matches!(typed, vidplat::vms::types::ErrorCode::Other(_)), "{code}");
    }
}

#[tokio::test]
async fn analytics_408_is_query_too_slow_and_is_not_retried() {
    let wire = Wire::answering(408, json!({"code": "REQUEST_TIMEOUT", "message": "shorten the period"})).await;
    let error = wire.analytics().cloud_query().call().await.unwrap_err();
    match &error {
        Error::QueryTooSlow(api) => assert_eq!(api.message.as_deref(), Some("shorten the period")),
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("shorten"), "{error}");
    assert_eq!(error.code(), Some("REQUEST_TIMEOUT"), "the server's code, as sent");
    assert_eq!(
        wire.requests().await.len(),
        1,
        "a slow query is not re-run automatically"
    );
}

#[tokio::test]
async fn analytics_429_carries_retry_after_in_seconds_or_as_a_date() {
    let wire = answering_once(error_body(429, "TOO_MANY_REQUESTS", "limit").insert_header("Retry-After", "42")).await;
    let error = wire.analytics().cloud_by_site().call().await.unwrap_err();
    match error {
        Error::RateLimited {
            quota,
            retry_after,
            response: Some(api),
        } => {
            assert_eq!(quota, Quota::Unspecified, "the server does not say which limit");
            assert_eq!(retry_after, Some(Duration::from_secs(42)));
            // A server 429 keeps its code and message.
            assert_eq!(
                (api.code.as_deref(), api.message.as_deref()),
                (Some("TOO_MANY_REQUESTS"), Some("limit"))
            );
        }
        other => panic!("{other:?}"),
    }

    let in_a_minute = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(60));
    let wire =
        answering_once(error_body(429, "TOO_MANY_REQUESTS", "limit").insert_header("Retry-After", in_a_minute)).await;
    let error = wire.analytics().basic_by_site().call().await.unwrap_err();
    match error {
        Error::RateLimited {
            retry_after: Some(wait),
            ..
        } => {
            assert!(
                wait > Duration::from_secs(55) && wait <= Duration::from_secs(60),
                "{wait:?}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_500_with_an_html_body_is_an_api_error_quoting_the_page() {
    let page = "<html><head><title>502 Bad Gateway</title></head><body>upstream down</body></html>";
    let wire = answering_once(ResponseTemplate::new(500).set_body_raw(page, "text/html")).await;
    let error = wire.vms().list_labels().call().await.unwrap_err();
    let api = assert_api(&error, 500, None);
    assert_eq!(api.message, None, "the server sent no message");
    assert!(
        api.excerpt.as_deref().is_some_and(|m| m.contains("upstream down")),
        "{api:?}"
    );
    assert!(error.to_string().contains("upstream down"), "{error}");
}

#[tokio::test]
async fn a_200_with_truncated_json_is_a_decode_error_with_the_body_excerpt() {
    let wire =
        Wire::with(ResponseTemplate::new(200).set_body_raw(r#"{"id": 3, "status": "enc"#, "application/json")).await;
    let error = wire
        .encoder()
        .get_task()
        .task_id(std::num::NonZeroU64::new(3).unwrap())
        .call()
        .await
        .unwrap_err();
    match &error {
        Error::Decode(decode) => {
            assert_eq!(decode.operation, Some("get_task"));
            assert!(decode.reason.contains("EOF"), "{decode}");
            assert_eq!(decode.excerpt, r#"{"id": 3, "status": "enc"#);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        std::error::Error::source(&error).is_some(),
        "the decode error is the source"
    );
}

/// serde quotes the value it refuses; a printout of the error, its whole
/// source chain included, never shows the key a server echoed into a member
/// of the wrong type, nor the value of a secret member.
#[tokio::test]
async fn a_refused_value_is_quoted_without_the_key_or_a_secret() {
    let echoed = Wire::ok(json!({"status": "ready", "id": format!("Bearer {API_KEY}")})).await;
    let error = echoed.encoder().get_task().task_id(3u64).call().await.unwrap_err();
    let shown = format!("{error} / {error:?}");
    let printed = format!("{shown} / {:?}", anyhow::Error::from(error));
    assert!(!printed.contains(API_KEY), "{printed}");
    assert!(printed.contains("[redacted]"), "{printed}");

    let secret = Wire::ok(json!({"id": "pg-1", "signing_key": 12345678901234567u64})).await;
    let page = "0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001";
    let error = secret.vms().get_viewing_page().page_id(page).call().await.unwrap_err();
    let printed = format!("{error:#} / {error:?}");
    assert!(!printed.contains("12345678901234567"), "{printed}");
    match &error {
        Error::Decode(decode) => assert_eq!(
            decode.reason,
            "a value of the wrong type or form (not shown: a secret member)"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_200_with_a_wrong_type_names_the_member() {
    let wire = Wire::ok(json!({"data": [{"name": "movie", "title": ["not", "a", "string"]}]})).await;
    let error = wire.vms().list_contents().call().await.unwrap_err();
    match &error {
        Error::Decode(decode) => {
            assert_eq!(decode.operation, Some("list_contents"));
            assert_eq!(decode.path.as_deref(), Some("data[0].title"), "{decode}");
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("list_contents"), "{error}");
}

#[tokio::test]
async fn an_unknown_error_code_is_kept() {
    let wire = Wire::with(error_body(409, "CODE_FROM_A_NEWER_SERVER", "something new")).await;
    let error = wire.vms().delete_label().label_id(ID).call().await.unwrap_err();
    assert_api(&error, 409, Some("CODE_FROM_A_NEWER_SERVER"));
    let sent: Error = wire.vms().delete_label().label_id(ID).send().await.unwrap_err().into();
    let code: vidplat::vms::types::ErrorCode = sent.code().unwrap().parse().unwrap();
    assert_eq!(
        code,
        vidplat::vms::types::ErrorCode::Other("CODE_FROM_A_NEWER_SERVER".into())
    );
}

/// Every public error type of the workspace's library crates can be shown,
/// chained and boxed: `?` into `Box<dyn std::error::Error>` works for each.
#[test]
fn every_public_error_type_is_a_std_error() {
    fn std_error<E: std::error::Error + Send + Sync + 'static>() {}
    std_error::<vidplat::Error>();
    std_error::<vidplat::ApiError>();
    std_error::<vidplat::ConfigError>();
    std_error::<vidplat::DecodeError>();
    std_error::<vidplat::TimeoutError>();
    std_error::<vidplat::TransportError>();
    std_error::<vidplat::PeriodError>();
    std_error::<vidplat::RedisQuotaError>();
    std_error::<vidplat::profile::ProfileError>();
    std_error::<vidplat::signing::SignError>();
    std_error::<vidplat::signing::VerifyError>();
    std_error::<vidplat::signing::InvalidSigningKey>();
    std_error::<vidplat_core::CallFailure>();
    std_error::<vidplat_core::QuotaRefusal>();
    std_error::<vidplat_core::Refusal>();
    std_error::<vidplat_redis::SharedWorkError>();
    std_error::<vidplat_core::TimestampParseError>();
    std_error::<vidplat_export::ExportError>();
    std_error::<vidplat_export::StateError>();
    std_error::<vidplat_sim::SimError>();
    std_error::<vidplat_test::Unreadable>();
}

#[test]
fn a_simulator_error_says_its_status_code_and_message() {
    let error = vidplat_sim::SimError::new(axum::http::StatusCode::FORBIDDEN, "OVER_SERVICE_LIMIT", "no more tasks");
    assert_eq!(error.to_string(), "403 Forbidden OVER_SERVICE_LIMIT: no more tasks");
}

/// The READMEs' and the book's Rust examples are compiled as doc tests
/// (`tests/src/lib.rs`): none may opt out with `ignore` but the metrics
/// exporter wiring, which needs crates vidplat does not depend on.
#[test]
fn readme_and_book_rust_examples_are_not_ignored() {
    let root = vidplat_tests::repo_root();
    let mut readmes = vidplat_tests::book_pages();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let readme = entry.expect("an entry").path().join("README.md");
        if readme.exists() {
            readmes.push(readme);
        }
    }
    let mut ignored = Vec::new();
    for readme in &readmes {
        let text = std::fs::read_to_string(readme).expect("a README");
        let lines: Vec<&str> = text.lines().collect();
        for (at, fence) in lines.iter().enumerate().filter(|(_, l)| l.starts_with("```")) {
            let words: Vec<&str> = fence.trim_start_matches('`').split(',').collect();
            if words.contains(&"ignore") {
                let first = lines.get(at + 1).copied().unwrap_or_default().to_owned();
                ignored.push((readme.clone(), first));
            }
        }
    }
    assert_eq!(
        ignored,
        [(
            root.join("docs/observability.md"),
            r#"// Cargo.toml: vidplat = { path = "…/crates/vidplat", features = ["metrics"] },"#.to_owned()
        )],
        "only the metrics exporter wiring is ignored"
    );
}

/// A pause or a refusal reads as words: the limit's name and the wait in
/// days and hours, not `PerMinute` and `213886s`.
#[test]
fn a_client_side_quota_refusal_names_its_limit_and_wait_in_words() {
    let spent = Error::RateLimited {
        quota: Quota::Month,
        retry_after: Some(Duration::from_secs(213_886)),
        response: None,
    };
    assert_eq!(
        spent.to_string(),
        "rate limited by the client-side monthly analytics quota; not sent; retry after 2 d 11 h"
    );
    let minute = Error::RateLimited {
        quota: Quota::PerMinute,
        retry_after: Some(Duration::from_millis(40_200)),
        response: None,
    };
    assert_eq!(
        minute.to_string(),
        "rate limited by the client-side per-minute analytics quota; not sent; retry after 41 s"
    );
}
