//! Play information (the content forward policy and the streaming policy
//! evaluated) and playlist items.
//!
//! The viewer: `x-vms-client-country`, else the country of `x-vms-client-ip`
//! (the simulator places the documentation ranges 192.0.2.0/24 in US,
//! 198.51.100.0/24 in GB and 203.0.113.0/24 in AU, every other address at home),
//! else the home country (JP); the device is `MOBILE` when `x-vms-user-agent`
//! names a phone (Mobile, Android, iPhone), else `PC` (also when omitted).
//! `x-vms-date` evaluates the LIMITED window and URL expiry at that time.
//!
//! A content plays when its status is PUBLIC, or LIMITED within its window
//! (an open bound is no bound); otherwise 403 CONTENT_INVALID_STATUS. A forward
//! to another content plays that content (its own forward policy is not
//! evaluated again); an image forward answers type `IMAGE` with `image_url`.
//! Policy conditions of one rule combine with AND.

use super::builtins::{self, HOME_COUNTRY, PLAYLISTS};
use super::store::{ContentRecord, Store};
use super::{clock, App, PathParams};
use crate::{QueryParams, SimError};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::{json, Map, Value};
use std::net::Ipv4Addr;
use vidplat_vms::types;

/// Who asks to play, as the play parameters describe them.
struct Viewer {
    country: String,
    device: &'static str,
    referer: Option<String>,
}

fn header<'a>(headers: &'a HeaderMap, name: &str, max_chars: usize) -> Result<Option<&'a str>, SimError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| SimError::invalid(format!("{name} is not text")))?;
    if text.chars().count() > max_chars {
        return Err(SimError::invalid(format!(
            "{name} has more than {max_chars} characters"
        )));
    }
    Ok(Some(text))
}

fn country_of(address: Ipv4Addr) -> &'static str {
    match address.octets() {
        [192, 0, 2, _] => "US",
        [198, 51, 100, _] => "GB",
        [203, 0, 113, _] => "AU",
        _ => HOME_COUNTRY,
    }
}

/// The viewer and the time to evaluate at, from the `x-vms-*` headers.
fn viewer(headers: &HeaderMap) -> Result<(Viewer, i64), SimError> {
    let country = match header(headers, "x-vms-client-country", 2)? {
        Some(country) if country.chars().count() == 2 => country.to_uppercase(),
        Some(country) => {
            return Err(SimError::invalid(format!(
                "x-vms-client-country `{country}` is not 2 letters"
            )))
        }
        None => match header(headers, "x-vms-client-ip", 15)? {
            Some(ip) => country_of(
                ip.parse()
                    .map_err(|_| SimError::invalid(format!("x-vms-client-ip `{ip}` is not IPv4")))?,
            )
            .to_owned(),
            None => HOME_COUNTRY.to_owned(),
        },
    };
    let device = match header(headers, "x-vms-user-agent", 1000)? {
        Some(agent) if ["Mobile", "Android", "iPhone"].iter().any(|word| agent.contains(word)) => "MOBILE",
        _ => "PC",
    };
    let referer = header(headers, "x-vms-client-referer", 200)?.map(str::to_owned);
    let at = match header(headers, "x-vms-date", 19)? {
        Some(date) => clock::parse_timestamp(date)
            .ok_or_else(|| SimError::invalid(format!("x-vms-date `{date}` is not `YYYY-MM-DD hh:mm:ss`")))?,
        None => clock::now(),
    };
    Ok((
        Viewer {
            country,
            device,
            referer,
        },
        at,
    ))
}

fn conditions_hold(conditions: &[types::PolicyCondition], viewer: &Viewer) -> bool {
    conditions.iter().all(|condition| {
        let actual = match condition.parameter.as_ref().map(|parameter| parameter.as_str()) {
            Some("COUNTRY") => Some(viewer.country.as_str()),
            Some("DEVICE") => Some(viewer.device),
            Some("REFERER") => viewer.referer.as_deref(),
            _ => return false,
        };
        match condition.operand.as_ref().map(|operand| operand.as_str()) {
            Some("==") => actual == condition.value.as_deref(),
            Some("!=") => actual != condition.value.as_deref(),
            _ => false,
        }
    })
}

enum Forward {
    Content(String),
    Image(String),
}

/// The forward of the first rule whose conditions hold; VIDEO forwards to
/// `target_content_name`, any other forward_type to `target_image_url`.
fn forward(policy_id: Option<&str>, viewer: &Viewer) -> Option<Forward> {
    let policy = builtins::forward_policy(policy_id.unwrap_or(builtins::DEFAULT_FORWARD_POLICY_ID))?;
    let rule = policy
        .rules
        .iter()
        .find(|rule| conditions_hold(&rule.conditions, viewer))?;
    match rule.forward_type {
        Some(types::ForwardType::Video) => rule.target_content_name.clone().map(Forward::Content),
        _ => rule.target_image_url.clone().map(Forward::Image),
    }
}

/// Whether the content may be played at `at`.
pub(super) fn is_published(content: &types::Content, at: i64) -> bool {
    let bound = |value: &Option<vidplat::Timestamp>| value.as_ref().and_then(clock::unix_of);
    match content.status {
        Some(types::ContentStatus::Public) => true,
        Some(types::ContentStatus::Limited) => {
            bound(&content.publish_start).is_none_or(|start| start <= at)
                && bound(&content.publish_end).is_none_or(|end| at <= end)
        }
        _ => false,
    }
}

fn playable<'a>(store: &'a Store, name: &str, at: i64) -> Result<&'a ContentRecord, SimError> {
    let record = store.contents.get(name).ok_or_else(|| {
        SimError::new(
            StatusCode::NOT_FOUND,
            "CONTENT_NOT_FOUND",
            format!("content {name} not found"),
        )
    })?;
    if !is_published(&record.body, at) {
        return Err(SimError::new(
            StatusCode::FORBIDDEN,
            "CONTENT_INVALID_STATUS",
            format!("content {name} is not in a publishable state"),
        ));
    }
    Ok(record)
}

fn set_format(content: &types::Content, set: &types::StreamSet) -> Option<types::StreamFormat> {
    let first = set.streams.first()?;
    content
        .streams
        .iter()
        .find(|stream| stream.id.as_ref() == Some(first))
        .and_then(|stream| stream.format.clone())
}

/// `ss` when given; else the first matching rule's FORMAT, else (the implicit
/// rule, not shown) the first stream set.
fn select_stream_set<'a>(
    content: &'a types::Content,
    requested: Option<&str>,
    policy: &types::StreamingPolicy,
    viewer: &Viewer,
) -> Result<&'a types::StreamSet, SimError> {
    let not_found = |what: String| SimError::new(StatusCode::NOT_FOUND, "STREAM_SET_NOT_FOUND", what);
    if let Some(name) = requested {
        return content
            .stream_sets
            .iter()
            .find(|set| set.name.as_deref() == Some(name))
            .ok_or_else(|| not_found(format!("stream set {name} not found")));
    }
    let chosen = policy
        .rules
        .iter()
        .find(|rule| conditions_hold(&rule.conditions, viewer))
        .and_then(|rule| {
            rule.then
                .iter()
                .filter(|selection| selection.key == Some(types::StreamSelectionKey::Format))
                .find_map(|selection| {
                    content.stream_sets.iter().find(|set| {
                        set_format(content, set)
                            .is_some_and(|format| Some(format.as_str()) == selection.value.as_deref())
                    })
                })
        });
    chosen
        .or_else(|| content.stream_sets.first())
        .ok_or_else(|| not_found("the content has no stream set".into()))
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn play_stream(stream: &types::Stream) -> types::PlayStream {
    types::PlayStream {
        format: stream.format.clone(),
        video_codec: stream.video_codec.clone(),
        video_bitrate: stream.video_bitrate,
        framerate: stream.framerate,
        width: stream.width,
        height: stream.height,
        audio_codec: stream.audio_codec.clone(),
        audio_bitrate: stream.audio_bitrate,
        sample_rate: stream.sample_rate,
        channels: stream.channels,
        audio_track_type: stream.audio_track_type.clone(),
        audio_language: stream.audio_language.clone(),
        audio_label: stream.audio_label.clone(),
        playback_rate: stream.playback_rate,
        extra: Map::new(),
    }
}

fn category_name(store: &Store, content: &types::Content) -> Option<String> {
    content
        .category_id
        .as_deref()
        .and_then(|id| store.category(id))
        .and_then(|category| category.name.clone())
}

fn label_names(store: &Store, content: &types::Content) -> Vec<String> {
    content
        .labels
        .iter()
        .filter_map(|id| store.label(id).and_then(|label| label.name.clone()))
        .collect()
}

fn poster_url(content: &types::Content, id: Option<&String>) -> Option<String> {
    let id = id?;
    content
        .posters
        .iter()
        .find(|poster| poster.id.as_ref() == Some(id))
        .and_then(|poster| poster.url.clone())
}

#[derive(serde::Deserialize)]
pub(super) struct PlayQuery {
    ss: Option<String>,
    disable_cfp: Option<bool>,
}

pub(super) async fn play(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
    QueryParams(query): QueryParams<PlayQuery>,
    headers: HeaderMap,
) -> Result<Json<types::PlayInformation>, SimError> {
    let (viewer, at) = viewer(&headers)?;
    let store = app.store();
    let mut record = playable(&store, &name, at)?;
    if !query.disable_cfp.unwrap_or(false) {
        match forward(record.body.forward_policy_id.as_deref(), &viewer) {
            Some(Forward::Content(target)) => record = playable(&store, &target, at)?,
            Some(Forward::Image(url)) => {
                return Ok(Json(types::PlayInformation {
                    name: Some(name),
                    type_: Some(types::PlayResponseType::Other("IMAGE".into())),
                    image_url: Some(url),
                    ..Default::default()
                }))
            }
            None => {}
        }
    }
    let content = &record.body;
    let policy = content
        .streaming_policy_id
        .as_deref()
        .and_then(builtins::streaming_policy)
        .or_else(|| builtins::streaming_policy(builtins::DEFAULT_STREAMING_POLICY_ID))
        .ok_or_else(|| {
            SimError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "UNKNOWN_ERROR",
                "no streaming policy",
            )
        })?;
    let set = select_stream_set(content, query.ss.as_deref(), policy, &viewer)?;
    let format = set_format(content, set);
    let streams: Vec<&types::Stream> = set
        .streams
        .iter()
        .filter_map(|id| content.streams.iter().find(|stream| stream.id.as_ref() == Some(id)))
        .collect();
    let file = match format {
        Some(types::StreamFormat::Hls) => "master.m3u8".to_owned(),
        _ => streams
            .first()
            .and_then(|stream| stream.path.as_deref())
            .and_then(|path| path.rsplit('/').next())
            .unwrap_or("video")
            .to_owned(),
    };
    let expires = at.saturating_add(policy.url_lifetime.unwrap_or(300));
    let video_url = format!(
        "https://delivery.vidplat-sim.invalid/{}/{}/{}/{file}?expires={expires}",
        set.distribution_id.as_deref().unwrap_or_default(),
        record.name(),
        set.name.as_deref().unwrap_or_default(),
    );
    let subtitles: Vec<&types::Subtitle> = set
        .subtitles
        .iter()
        .filter_map(|id| {
            content
                .subtitles
                .iter()
                .find(|subtitle| subtitle.id.as_ref() == Some(id))
        })
        .collect();
    let default_subtitle_index = policy.preferred_language.as_ref().and_then(|language| {
        subtitles
            .iter()
            .position(|subtitle| subtitle.language.as_ref() == Some(language))
            .and_then(|index| i64::try_from(index).ok())
    });
    let slideshow: Vec<String> = content
        .posters
        .iter()
        .filter(|poster| poster.used_in_slideshow == Some(true))
        .filter_map(|poster| poster.url.clone())
        .collect();
    Ok(Json(types::PlayInformation {
        name: Some(record.name().to_owned()),
        type_: Some(types::PlayResponseType::Video),
        video_url: Some(video_url),
        image_url: None,
        title: content.title.clone(),
        description: content.description.clone(),
        content_type: content.type_.clone(),
        stream_set_name: set.name.clone(),
        format,
        duration: content.duration,
        category: category_name(&store, content),
        labels: Some(label_names(&store, content)),
        tags: Some(content.tags.clone()),
        chapters: Some(
            content
                .chapters
                .iter()
                .map(|chapter| {
                    types::PlayChapter(object(json!({
                        "start_time": chapter.start_time,
                        "title": chapter.title,
                        "poster_url": poster_url(content, chapter.poster_id.as_ref()),
                        "data": chapter.data,
                    })))
                })
                .collect(),
        ),
        poster_url: poster_url(content, content.primary_poster_id.as_ref()),
        poster_slideshow: (!slideshow.is_empty()).then(|| types::PlayPosterSlideshow {
            interval: content.poster_slideshow_interval,
            extra: object(json!({ "poster_urls": slideshow })),
        }),
        seek_preview_url: content.seek_preview_url.clone(),
        streams: Some(streams.into_iter().map(play_stream).collect()),
        subtitles: Some(
            subtitles
                .iter()
                .map(|subtitle| {
                    types::PlaySubtitle(object(json!({
                        "format": subtitle.format,
                        "language": subtitle.language,
                        "label": subtitle.label,
                        "url": subtitle.url,
                    })))
                })
                .collect(),
        ),
        default_subtitle_index,
        documents: Some(
            content
                .documents
                .iter()
                .map(|document| {
                    types::PlayDocument(object(json!({
                        "title": document.title,
                        "type": document.type_,
                        "url": document.url,
                        "filename": document.filename,
                    })))
                })
                .collect(),
        ),
        presentation: content.presentation_document_id.as_ref().and_then(|id| {
            let document = content
                .documents
                .iter()
                .find(|document| document.id.as_ref() == Some(id))?;
            Some(types::PlayPresentation(object(json!({
                "document_id": id,
                "url": document.url,
            }))))
        }),
        cta_actions: content.cta_actions.clone(),
    }))
}

#[derive(serde::Deserialize)]
pub(super) struct PlaylistQuery {
    include_private: Option<bool>,
}

/// The built-in playlists list every content in registration order; only those
/// published now unless `include_private`. Overrides replace title, description
/// and the displayed poster (`poster_url`, a member the document does not name).
pub(super) async fn playlist_items(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
    QueryParams(query): QueryParams<PlaylistQuery>,
) -> Result<Json<types::PlaylistItems>, SimError> {
    let (playlist_name, title, description) = PLAYLISTS
        .iter()
        .find(|(playlist, _, _)| *playlist == name)
        .ok_or_else(|| SimError::not_found(format!("playlist {name}")))?;
    let store = app.store();
    let now = clock::now();
    let mut records: Vec<&ContentRecord> = store
        .contents
        .values()
        .filter(|record| query.include_private.unwrap_or(false) || is_published(&record.body, now))
        .collect();
    records.sort_by_key(|record| record.seq);
    let playlist_items = records
        .into_iter()
        .map(|record| {
            let content = &record.body;
            let overrides = content.playlist_item_overrides.as_ref();
            let poster = overrides
                .and_then(|o| o.primary_poster_id.as_ref())
                .or(content.primary_poster_id.as_ref());
            types::PlaylistItem {
                name: content.name.clone(),
                title: overrides
                    .and_then(|o| o.title.clone())
                    .or_else(|| content.title.clone()),
                description: overrides
                    .and_then(|o| o.description.clone())
                    .or_else(|| content.description.clone()),
                content_type: content.type_.clone(),
                status: content.status.clone(),
                duration: content.duration,
                category: category_name(&store, content),
                labels: label_names(&store, content),
                tags: content.tags.clone(),
                extra: object(json!({ "poster_url": poster_url(content, poster) })),
            }
        })
        .collect();
    Ok(Json(types::PlaylistItems {
        playlist_name: Some((*playlist_name).to_owned()),
        playlist_title: Some((*title).to_owned()),
        playlist_description: Some((*description).to_owned()),
        playlist_items,
    }))
}
