//! Stream sets of a content: groups of streams of one format plus subtitles,
//! addressed by name. A content keeps at least one.

use super::builtins::DEFAULT_DISTRIBUTION_ID;
use super::contents::unused_name;
use super::media::{check_stream_set_streams, MAX_STREAM_SETS};
use super::{already_exists, clock, done, rule, App, PathParams};
use crate::{JsonBody, SimError, Updates};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use vidplat_vms::types;

fn position(content: &types::Content, set: &str) -> Result<usize, SimError> {
    content
        .stream_sets
        .iter()
        .position(|candidate| candidate.name.as_deref() == Some(set))
        .ok_or_else(|| {
            SimError::not_found(format!(
                "stream set {set} of content {}",
                content.name.as_deref().unwrap_or_default()
            ))
        })
}

/// The ids of a stream set's streams and subtitles, checked against the content.
fn members(
    content: &types::Content,
    streams: &[uuid::Uuid],
    subtitles: &[uuid::Uuid],
) -> Result<(Vec<String>, Vec<String>), SimError> {
    let mut chosen = Vec::with_capacity(streams.len());
    for id in streams {
        let id = id.to_string();
        let stream = content
            .streams
            .iter()
            .find(|stream| stream.id.as_ref() == Some(&id))
            .ok_or_else(|| SimError::not_found(format!("stream {id} of the content")))?;
        chosen.push(stream);
    }
    check_stream_set_streams(&chosen)?;
    let subtitle_ids = subtitles
        .iter()
        .map(|id| {
            let id = id.to_string();
            match content
                .subtitles
                .iter()
                .any(|subtitle| subtitle.id.as_ref() == Some(&id))
            {
                true => Ok(id),
                false => Err(SimError::not_found(format!("subtitle {id} of the content"))),
            }
        })
        .collect::<Result<_, _>>()?;
    Ok((streams.iter().map(uuid::Uuid::to_string).collect(), subtitle_ids))
}

pub(super) async fn list(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
) -> Result<Json<types::StreamSetList>, SimError> {
    let data = app.store().content(&content)?.body.stream_sets.clone();
    Ok(Json(types::StreamSetList { data }))
}

pub(super) async fn get(
    State(app): State<App>,
    PathParams((content, set)): PathParams<(String, String)>,
) -> Result<Json<types::StreamSet>, SimError> {
    let store = app.store();
    let content = &store.content(&content)?.body;
    Ok(Json(content.stream_sets[position(content, &set)?].clone()))
}

pub(super) async fn register(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::StreamSetCreate>,
) -> Result<Json<types::StreamSetRegistration>, SimError> {
    let mut store = app.store();
    let record = store.content_mut(&content)?;
    let sets = &record.body.stream_sets;
    if sets.len() >= MAX_STREAM_SETS {
        return Err(rule(
            "FULL_STREAM_SETS",
            format!("a content holds at most {MAX_STREAM_SETS} stream sets"),
        ));
    }
    let taken: Vec<&str> = sets.iter().filter_map(|set| set.name.as_deref()).collect();
    let name = match &body.name {
        Some(name) if taken.contains(&name.as_str()) => {
            return Err(already_exists(format!("stream set {} already exists", name.as_str())))
        }
        Some(name) => name.to_string(),
        None => unused_name("set", &taken),
    };
    let (streams, subtitles) = members(
        &record.body,
        &body.streams,
        body.subtitles.as_deref().unwrap_or_default(),
    )?;
    let now = clock::timestamp(clock::now());
    record.body.stream_sets.push(types::StreamSet {
        name: Some(name.clone()),
        distribution_id: Some(
            body.distribution_id
                .map_or_else(|| DEFAULT_DISTRIBUTION_ID.to_owned(), |id| id.to_string()),
        ),
        streams,
        subtitles,
        created_at: now.clone(),
        updated_at: now,
    });
    record.touch();
    Ok(Json(types::StreamSetRegistration { name: Some(name) }))
}

pub(super) async fn update(
    State(app): State<App>,
    PathParams((content, set)): PathParams<(String, String)>,
    JsonBody(body): JsonBody<types::StreamSetUpdate>,
) -> Result<StatusCode, SimError> {
    let reset = app.shared.config.updates == Updates::Reset;
    let mut store = app.store();
    let record = store.content_mut(&content)?;
    let index = position(&record.body, &set)?;
    let current = &record.body.stream_sets[index];
    let as_uuids = |ids: &[String]| {
        ids.iter()
            .filter_map(|id| uuid::Uuid::parse_str(id).ok())
            .collect::<Vec<_>>()
    };
    // Left out under `Updates::Reset`: what registration stores without them
    // (`streams`, which registration requires, was checked as sent).
    let streams = body.streams.unwrap_or_else(|| as_uuids(&current.streams));
    let subtitles = match body.subtitles {
        Some(subtitles) => subtitles,
        None if reset => Vec::new(),
        None => as_uuids(&current.subtitles),
    };
    let (streams, subtitles) = members(&record.body, &streams, &subtitles)?;
    let set = &mut record.body.stream_sets[index];
    match body.distribution_id {
        Some(distribution) => set.distribution_id = Some(distribution.to_string()),
        None if reset => set.distribution_id = Some(DEFAULT_DISTRIBUTION_ID.to_owned()),
        None => {}
    }
    set.streams = streams;
    set.subtitles = subtitles;
    set.updated_at = clock::timestamp(clock::now());
    record.touch();
    Ok(done())
}

/// Deleting a stream set keeps its streams; the last one cannot be deleted.
pub(super) async fn delete(
    State(app): State<App>,
    PathParams((content, set)): PathParams<(String, String)>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let record = store.content_mut(&content)?;
    let index = position(&record.body, &set)?;
    if record.body.stream_sets.len() == 1 {
        return Err(rule(
            "DELETING_FINAL_STREAM_SET",
            "the last stream set of a content cannot be deleted",
        ));
    }
    record.body.stream_sets.remove(index);
    record.touch();
    Ok(done())
}
