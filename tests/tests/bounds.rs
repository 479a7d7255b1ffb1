//! Bad input never reaches the network: at a documented bound the request is
//! sent, past it the call fails with the field and the rule, and the local
//! server receives nothing.

use serde_json::json;
use std::num::NonZeroU64;
use vidplat::{Client, Error};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> (MockServer, Client) {
    server_answering(json!({"id": 1, "success_count": 1, "failure_count": 0, "data": []})).await
}

async fn server_answering(body: serde_json::Value) -> (MockServer, Client) {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    let client = vidplat_tests::local_client(&server.uri()).build().unwrap();
    (server, client)
}

async fn received(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

fn expect_invalid(error: Error, field: &str, rule: &str) {
    match error {
        Error::InvalidInput { field: f, rule: r } => {
            assert_eq!(f, field);
            assert!(r.contains(rule), "{r}");
        }
        other => panic!("expected InvalidInput for {field}, got {other:?}"),
    }
}

fn task(priority: i64, angles: usize) -> vidplat::encoder::types::builder::TaskCreate {
    vidplat_tests::task_body()
        .priority(Some(priority))
        .multi_angles(vec!["angle.mp4".to_string(); angles])
}

#[tokio::test]
async fn task_registration_bounds() {
    let (server, client) = server().await;
    let encoder = client.encoder().unwrap();
    encoder.register_task().body(task(99, 7)).send().await.unwrap();
    encoder.register_task().body(task(0, 1)).send().await.unwrap();
    assert_eq!(received(&server).await, 2);

    let error = encoder
        .register_task()
        .body(task(100, 1))
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "priority", "at most 99");
    let error = encoder
        .register_task()
        .body(task(-1, 1))
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "priority", "at least 0");
    let error = encoder
        .register_task()
        .body(task(50, 8))
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "multi_angles", "at most 7 items");
    let error = encoder
        .register_task()
        .body(
            task(50, 0)
                .multi_angles(Vec::<String>::new())
                .multi_angle_labels(vec!["one".to_string()]),
        )
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "multi_angle_labels", "at least 2 items");
    assert_eq!(received(&server).await, 2, "nothing past a bound was sent");
}

#[tokio::test]
async fn query_bounds() {
    let (server, client) = server().await;
    let encoder = client.encoder().unwrap();
    encoder
        .list_tasks()
        .per_page(NonZeroU64::new(100).unwrap())
        .send()
        .await
        .unwrap();
    let error = encoder
        .list_tasks()
        .per_page(NonZeroU64::new(101).unwrap())
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "per_page", "at most 100");

    let analytics = client.analytics().unwrap();
    analytics
        .cloud_by_os()
        .limit(NonZeroU64::new(50_000).unwrap())
        .send()
        .await
        .unwrap();
    let error = analytics
        .cloud_by_os()
        .limit(NonZeroU64::new(50_001).unwrap())
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "limit", "at most 50000");
    analytics.basic_by_os().start_interval(-731).send().await.unwrap();
    let error = analytics
        .basic_by_os()
        .start_interval(-732)
        .send()
        .await
        .unwrap_err()
        .into();
    expect_invalid(error, "start_interval", "at least -731");
    assert_eq!(received(&server).await, 3);
}

#[tokio::test]
async fn string_bounds_are_refused_when_the_body_is_built() {
    let (server, client) = server_answering(json!({"id": "0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001"})).await;
    let vms = client.vms().unwrap();
    let label = |n: usize| vidplat::vms::types::LabelCreate::builder().name("x".repeat(n));
    vms.register_label().body(label(100)).send().await.unwrap();
    let error: Error = vms.register_label().body(label(101)).send().await.unwrap_err().into();
    match error {
        Error::InvalidInput { rule, .. } => assert!(rule.contains("name") && rule.contains("100"), "{rule}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(received(&server).await, 1);
}
