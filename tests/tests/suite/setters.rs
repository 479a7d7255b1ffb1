//! Setters that take plain values: what they accept goes out exactly as
//! written, and what they refuse never leaves, with the member's whole path.

use super::harness::{Expect, Wire};
use serde_json::json;
use vidplat::encoder::types::{PresetCreate, PresetStream, PresetStreamVideo, ProfileCreate};
use vidplat::vms::types::{ContentCreate, ContentStreamCreate};
use vidplat::{Call, Error};

/// Every refusal of an error refused before sending, as `(path, rule)`.
fn every_refusal(error: Error) -> Vec<(String, String)> {
    match error {
        Error::InvalidInput(refusals) => refusals.into_iter().map(vidplat::Refusal::into_parts).collect(),
        other => panic!("expected refusals before sending, got {other:?}"),
    }
}

fn refused(error: Error) -> (String, String) {
    match vidplat_tests::only_refusal(&error) {
        Some((field, rule)) => (field.to_owned(), rule.to_owned()),
        None => panic!("expected one refusal before sending, got {error:?}"),
    }
}

#[tokio::test]
async fn ids_as_responses_carry_them_pass_straight_on() {
    let wire = Wire::answering(200, json!({"id": 7})).await;
    // What a response gives: `Option<i64>` for an encoder id.
    let preset_id: Option<i64> = Some(7);
    let body = ProfileCreate::builder().name("web").presets([preset_id, Some(8)]);
    wire.encoder().register_profile().body(body).call().await.unwrap();
    wire.verify(Expect::post("/v1/profiles").json(json!({"name": "web", "presets": [7, 8]})))
        .await;

    let wire = Wire::answering(200, json!({"id": 7, "status": "ready"})).await;
    wire.encoder().get_task().task_id(preset_id).call().await.unwrap();
    wire.verify(Expect::get("/v1/tasks/7")).await;
}

#[tokio::test]
async fn a_missing_id_is_refused_naming_the_parameter() {
    let wire = Wire::answering(200, json!({})).await;
    let error = wire.encoder().get_task().task_id(None::<i64>).call().await.unwrap_err();
    assert_eq!(refused(error), ("task_id".to_owned(), vidplat_core::MISSING.to_owned()));
    let error = wire.encoder().get_task().task_id(0).call().await.unwrap_err();
    assert_eq!(
        refused(error),
        ("task_id".to_owned(), "must be at least 1 (minimum)".to_owned())
    );
    wire.assert_nothing_sent().await;
}

#[tokio::test]
async fn nested_builders_and_arrays_name_the_whole_path() {
    let wire = Wire::answering(200, json!({})).await;
    // A builder missing a required member, inside an array, inside the body.
    let body = ContentCreate::builder()
        .title("t")
        .category_id("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001")
        .streams([ContentStreamCreate::builder().name("main").path("/main/index.m3u8")])
        .stream_sets(Vec::<vidplat::vms::types::ContentStreamSetCreate>::new());
    let error = wire.vms().register_content().body(body).call().await.unwrap_err();
    assert_eq!(
        refused(error),
        ("streams[0].format".to_owned(), "is required".to_owned())
    );

    // A string that is not a UUID, where the YAML says uuid; and every other
    // member the body refuses, at once, in the builder's order.
    let body = ContentCreate::builder().title("t").category_id("cat-1");
    let refusals = every_refusal(wire.vms().register_content().body(body).call().await.unwrap_err());
    let fields: Vec<&str> = refusals.iter().map(|(field, _)| field.as_str()).collect();
    assert_eq!(fields, ["category_id", "stream_sets", "streams"], "{refusals:?}");
    assert!(refusals[0].1.starts_with("is not a UUID"), "{refusals:?}");
    assert_eq!(refusals[1].1, "is required");

    // Refusals inside nested builders and outside the body come together.
    let body = ContentCreate::builder()
        .title("t")
        .category_id("0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001")
        .streams([
            ContentStreamCreate::builder().name("main"),
            ContentStreamCreate::builder().path("/b/index.m3u8"),
        ])
        .stream_sets(Vec::<vidplat::vms::types::ContentStreamSetCreate>::new());
    let refusals = every_refusal(wire.vms().register_content().body(body).call().await.unwrap_err());
    let fields: Vec<&str> = refusals.iter().map(|(field, _)| field.as_str()).collect();
    assert_eq!(
        fields,
        ["streams[0].format", "streams[0].path", "streams[1].format"],
        "{refusals:?}"
    );

    // An array element breaking its rule (no whitespace in angle labels).
    let body = vidplat_tests::task_body().multi_angle_labels(["front", "back side"]);
    let (field, _) = refused(wire.encoder().register_task().body(body).call().await.unwrap_err());
    assert_eq!(field, "multi_angle_labels[1]");
    wire.assert_nothing_sent().await;
}

#[tokio::test]
async fn optional_members_with_a_rule_take_plain_values() {
    let wire = Wire::answering(200, json!({"id": 1})).await;
    let body = PresetCreate::builder()
        .name("hls-720")
        .description("HLS, 720p")
        .destination("vms5://")
        .output_filename("%INPUT_FILENAME%")
        .streams([PresetStream::builder().video(PresetStreamVideo::builder().height(720))]);
    wire.encoder().register_preset().body(body).call().await.unwrap();
    wire.verify(Expect::post("/v1/presets").json(json!({
        "name": "hls-720",
        "description": "HLS, 720p",
        "destination": "vms5://",
        "output_filename": "%INPUT_FILENAME%",
        "streams": [{"video": {"height": 720}}]
    })))
    .await;
    let too_long = "x".repeat(1000);
    let body = PresetCreate::builder().name(too_long.as_str());
    let (field, rule) = refused(wire.encoder().register_preset().body(body).call().await.unwrap_err());
    assert_eq!(field, "name");
    assert!(rule.contains("longer than"), "{rule}");
}

#[tokio::test]
async fn a_pattern_keeps_its_json_schema_meaning_for_unicode_spaces() {
    // `episode_name` is `^\S*$` (ECMA-262, as JSON Schema reads it): an
    // ideographic space (U+3000) is white space there, though not in an
    // ASCII-only regex dialect.
    let wire = Wire::answering(200, json!({"id": 1})).await;
    let body = vidplat_tests::task_body().episode_name("春の特集\u{3000}第1話");
    let (field, rule) = refused(wire.encoder().register_task().body(body).call().await.unwrap_err());
    assert_eq!(field, "episode_name");
    assert!(rule.contains("doesn't match pattern"), "{rule}");
    let body = vidplat_tests::task_body().episode_name("春の特集_第1話");
    wire.encoder().register_task().body(body).call().await.unwrap();
}

#[tokio::test]
async fn a_pattern_over_any_text_reads_characters_not_bytes() {
    // A cloud `sort` is `^[^|]+\|(asc|desc)$`: any member name, in any
    // script, then `|asc` or `|desc`, checked by the automaton the generator
    // compiled the pattern into.
    let wire = Wire::answering(200, json!({"data": [], "truncated": false})).await;
    let counts_sorted_by = |sort: &'static str| {
        wire.analytics()
            .cloud_realtime_user_counts()
            .start("2024-10-30 21:00:00")
            .end("2024-10-30 21:15:00")
            .sort(sort)
            .call()
    };
    for sort in ["名前|desc", "date_time|asc", "é|asc"] {
        let answer = counts_sorted_by(sort).await;
        assert!(answer.is_ok(), "{sort}: {answer:?}");
    }
    for sort in ["name|up", "|desc", "name", "name|desc|asc ", "名前|DESC"] {
        let (field, rule) = refused(counts_sorted_by(sort).await.unwrap_err());
        assert_eq!(field, "sort", "{sort}");
        assert!(rule.contains(r"doesn't match pattern"), "{sort}: {rule}");
    }
}

/// An update built from what was read sends every member both share, nested
/// ones converted (`Chapter` into `ChapterUpdate`), and leaves out what the
/// read did not hold; a read value that breaks a rule of the update is refused
/// before anything is sent, with its path.
#[tokio::test]
async fn an_update_built_from_a_read_resource_sends_what_was_read() {
    use vidplat::vms::types::{Content, ContentUpdate};
    let read: Content = serde_json::from_value(json!({
        "name": "c",
        "title": "Spring",
        "status": "LIMITED",
        "publish_end": "2030-12-31 23:59:59",
        "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "labels": [],
        "tags": [{"key": "k", "value": "v"}],
        "chapters": [{"start_time": 0, "title": "Start", "poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"}],
        "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8",
        "playback_count": 12,
        "created_at": "2025-01-01 00:00:00"
    }))
    .unwrap();
    let wire = Wire::no_content().await;
    let update = ContentUpdate::builder_from(&read).title("Summer").clear_publish_end();
    wire.vms()
        .update_content()
        .content_name("c")
        .body(update)
        .call()
        .await
        .unwrap();
    wire.verify(Expect::patch("/v1/contents/c").json(json!({
        "title": "Summer",
        "status": "LIMITED",
        "publish_end": null,
        "category_id": "5b0c8f52-8d1e-4a3b-9f2e-1c6d7a8b9e01",
        "labels": [],
        "tags": [{"key": "k", "value": "v"}],
        "chapters": [{"start_time": 0, "title": "Start", "poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7"}],
        "primary_poster_id": "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f8"
    })))
    .await;

    let wire = Wire::no_content().await;
    let refusal = |read: Content| {
        let vms = wire.vms();
        async move {
            let update = ContentUpdate::builder_from(&read);
            every_refusal(
                vms.update_content()
                    .content_name("c")
                    .body(update)
                    .call()
                    .await
                    .unwrap_err(),
            )
        }
    };
    let mut long = read.clone();
    long.title = Some("x".repeat(201));
    long.chapters[0].poster_id = Some("not-a-uuid".into());
    let refusals = refusal(long.clone()).await;
    let fields: Vec<&str> = refusals.iter().map(|(field, _)| field.as_str()).collect();
    assert_eq!(fields, ["chapters[0].poster_id", "title"], "{refusals:?}");
    assert!(refusals[0].1.contains("is not a UUID"), "{refusals:?}");
    long.chapters.clear();
    let refusals = refusal(long).await;
    assert_eq!(
        refusals,
        [("title".to_owned(), "longer than 200 characters".to_owned())]
    );
    wire.assert_nothing_sent().await;
}
