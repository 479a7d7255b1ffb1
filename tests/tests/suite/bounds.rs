//! Bad input never reaches the network. For every documented bound on what a
//! client sends (read from the YAML: lengths, ranges, item counts, uniqueness,
//! patterns), a value at the bound is sent and a value just past it is refused,
//! naming the member and the rule, with nothing received by the server.
//!
//! A value past a bound is refused in one of two places: the generated types
//! cannot hold it (typify's checked newtypes, unsigned and non-zero integers),
//! or the runtime's pre-send checks refuse the request (`Error::InvalidInput`).

use serde_json::{json, Value};
use std::num::NonZeroU64;
use vidplat::{Client, Error};
use vidplat_tests::bounds::{operation_bounds, Bound, Step};
use vidplat_tests::driver::{Args, Failure};
use vidplat_tests::samples::operation_arguments;
use vidplat_tests::{generated, load_spec};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// How a value past a bound was refused.
#[derive(Default, Debug)]
struct Tally {
    bounds: usize,
    refused_by_types: usize,
    refused_before_sending: usize,
    /// Empty arrays of optional members, which the types leave out of the request.
    left_out: usize,
}

/// Whether a refusal names the member and the rule.
fn names(bound: &Bound, place: &str, rule: &str) -> bool {
    let place_ok = place == bound.place() || place == format!("body.{}", bound.place()) || place == bound.argument;
    place_ok && bound.mentions.iter().any(|m| rule.contains(m.as_str()))
}

macro_rules! bounds_of {
    ($test:ident, $service:literal, $driver:path) => {
        #[tokio::test]
        async fn $test() {
            use $driver as driver;
            let spec = load_spec($service);
            let server = MockServer::start().await;
            let client = crate::harness::local_client(&server.uri()).build().unwrap();
            let client = client.$test().unwrap();
            let mut tally = Tally::default();
            let mut problems = Vec::new();
            for (path, item) in spec["paths"].as_object().unwrap() {
                for (method, op) in item.as_object().unwrap() {
                    let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                        continue;
                    };
                    let (args, answer) = operation_arguments(&spec, path, op);
                    server.reset().await;
                    let body = answer.map(|a| a.to_string()).unwrap_or_default();
                    Mock::given(wiremock::matchers::any())
                        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
                        .mount(&server)
                        .await;
                    for bound in operation_bounds(&spec, path, op) {
                        tally.bounds += 1;
                        let with = |value: &Value| {
                            let mut args: Args = args.clone();
                            let slot = args
                                .0
                                .get_mut(&bound.argument)
                                .expect("the bound's argument has a sample");
                            bound.apply(slot, value);
                            args
                        };
                        let before = server.received_requests().await.unwrap().len();
                        if let Err(e) = driver::send(client, id, &with(&bound.at)).await {
                            problems.push(format!(
                                "{id} ({method} {path}) {bound}: at the bound, refused: {e}"
                            ));
                            continue;
                        }
                        let sent = server.received_requests().await.unwrap().len();
                        if sent != before + 1 {
                            problems.push(format!(
                                "{id} {bound}: at the bound, {} requests sent",
                                sent - before
                            ));
                        }
                        if bound.past_is_left_out() {
                            // `[]` for an optional member is sent as no member at all.
                            let outcome = driver::send(client, id, &with(&bound.past)).await;
                            let requests = server.received_requests().await.unwrap();
                            let body: Value = requests
                                .last()
                                .and_then(|r| serde_json::from_slice(&r.body).ok())
                                .unwrap_or_default();
                            let mut member = Some(&body);
                            for step in &bound.steps {
                                member = member.and_then(|v| match step {
                                    Step::Key(key) => v.get(key.as_str()),
                                    Step::First => v.get(0),
                                });
                            }
                            if outcome.is_err() || requests.len() != sent + 1 || member.is_some() {
                                problems.push(format!(
                                    "{id} {bound}: an empty optional array is left out: {outcome:?}"
                                ));
                            }
                            tally.left_out += 1;
                            continue;
                        }
                        match driver::send(client, id, &with(&bound.past)).await {
                            Err(Failure::BadArgument { at, why }) if names(&bound, &at, &why) => {
                                tally.refused_by_types += 1
                            }
                            Err(Failure::Call(error))
                                if vidplat_tests::only_refusal(&error)
                                    .is_some_and(|(field, rule)| names(&bound, field, rule)) =>
                            {
                                tally.refused_before_sending += 1
                            }
                            other => problems.push(format!(
                                "{id} {bound}: past the bound ({}): {other:?}",
                                bound.past
                            )),
                        }
                        let after = server.received_requests().await.unwrap().len();
                        if after != sent {
                            problems.push(format!(
                                "{id} {bound}: past the bound, the server received a request"
                            ));
                        }
                    }
                }
            }
            eprintln!("{}: {tally:?}", $service);
            assert!(
                problems.is_empty(),
                "{} bound(s) not kept:\n{}",
                problems.len(),
                problems.join("\n")
            );
            assert!(tally.bounds > 0);
        }
    };
}

bounds_of!(encoder, "encoder", generated::encoder);
bounds_of!(vms, "vms", generated::vms);
bounds_of!(analytics, "analytics", generated::analytics);

// The same rules through the typed builders, as a user writes them.

async fn server() -> (MockServer, Client) {
    server_answering(json!({"id": 1, "success_count": 1, "failure_count": 0, "data": []})).await
}

async fn server_answering(body: serde_json::Value) -> (MockServer, Client) {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    let client = crate::harness::local_client(&server.uri()).build().unwrap();
    (server, client)
}

async fn received(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

fn expect_invalid(error: Error, field: &str, rule: &str) {
    match vidplat_tests::only_refusal(&error) {
        Some((f, r)) => {
            assert_eq!(f, field);
            assert!(r.contains(rule), "{r}");
        }
        None => panic!("expected one refusal of {field}, got {error:?}"),
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
        .body(task(50, 0).multi_angles(Vec::<String>::new()).multi_angle_labels(vec![
            vidplat::encoder::types::TaskCreateMultiAngleLabelsItem::try_from("one").unwrap(),
        ]))
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
    assert_eq!(
        vidplat_tests::only_refusal(&error),
        Some(("name", "longer than 100 characters")),
        "{error:?}"
    );
    assert_eq!(received(&server).await, 1);
}
