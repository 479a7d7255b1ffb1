//! What a content holds: streams, subtitles, posters (and their order) and
//! related documents; single and bulk registration, reads, updates and the
//! deletion rules.
//!
//! Files sent as base64 `content` win over `url` and are "stored" on the
//! simulated storage service: the item's `url` becomes a storage URL, and a
//! subtitle's or poster's format is detected from the data (WEBVTT, PNG).

use super::store::{ContentRecord, Store};
use super::{clock, done, new_id, rule, App, PathParams};
use crate::{decode, JsonBody, SimError, Updates};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use vidplat_vms::types;

// Per-content maxima. The document names FULL_STREAM_SETS, FULL_STREAMS,
// FULL_SUBTITLES and FULL_POSTERS but does not show their values; the simulator
// takes the limits of one registration request (5 / 10 / 10 / 200). The
// slideshow limit, 20 posters, is documented. Documents have no FULL_ code:
// MAX_DOCUMENTS only guards the simulator's memory (OVER_SERVICE_LIMIT).
pub(super) const MAX_STREAM_SETS: usize = 5;
pub(super) const MAX_STREAMS: usize = 10;
pub(super) const MAX_SUBTITLES: usize = 10;
pub(super) const MAX_POSTERS: usize = 200;
pub(super) const MAX_SLIDESHOW_POSTERS: usize = 20;
const MAX_DOCUMENTS: usize = 100;

/// Where the simulated storage service keeps a file sent as base64.
pub(super) fn storage_url(content: &str, kind: &str, id: &str) -> String {
    format!("https://storage.vidplat-sim.invalid/{content}/{kind}/{id}")
}

fn url_or_content(what: &str) -> SimError {
    SimError::invalid(format!("a {what} needs url or content"))
}

/// The format of subtitle data (base64): WEBVTT files start with `WEBVTT`.
fn subtitle_format(data: &str) -> types::SubtitleFormat {
    match data.starts_with("V0VCVlRU") {
        true => types::SubtitleFormat::Webvtt,
        false => types::SubtitleFormat::Unknown,
    }
}

/// The format of poster data (base64), from the file signature.
fn poster_format(data: &str) -> types::PosterFormat {
    if data.starts_with("iVBORw0KGgo") {
        types::PosterFormat::Png
    } else if data.starts_with("/9j/") {
        types::PosterFormat::Other("JPEG".into())
    } else {
        types::PosterFormat::Unknown
    }
}

pub(super) fn stream_record(body: types::StreamCreate) -> types::Stream {
    let now = clock::timestamp(clock::now());
    // origin_domain_name is request only.
    types::Stream {
        id: Some(new_id()),
        path: Some(body.path.into()),
        format: Some(body.format),
        video_codec: body.video_codec,
        video_bitrate: body.video_bitrate,
        framerate: body.framerate,
        width: body.width,
        height: body.height,
        audio_codec: body.audio_codec,
        audio_bitrate: body.audio_bitrate,
        sample_rate: body.sample_rate,
        channels: body.channels,
        audio_track_type: body.audio_track_type,
        audio_language: body.audio_language.map(Into::into),
        audio_label: body.audio_label.map(Into::into),
        playback_rate: Some(body.playback_rate),
        filesize: body.filesize,
        encoder_task_id: body
            .encoder_task_id
            .map(|id| i64::try_from(id.get()).unwrap_or(i64::MAX)),
        is_original: Some(body.is_original),
        status: Some(body.status),
        created_at: now.clone(),
        updated_at: now,
    }
}

/// "audio_track_type: only for a stream without video" (the Stream table). The
/// document does not say what makes a stream one with video; the simulator:
/// any video member given (`video_codec`, `video_bitrate`, `framerate`,
/// `width`, `height`). `at` is where the stream is in the request (`""`,
/// `requests[1].`, `streams[0].`), so the refusal names the member's path.
pub(super) fn check_audio_track_type(stream: &types::Stream, at: &str) -> Result<(), SimError> {
    let video = [
        ("video_codec", stream.video_codec.is_some()),
        ("video_bitrate", stream.video_bitrate.is_some()),
        ("framerate", stream.framerate.is_some()),
        ("width", stream.width.is_some()),
        ("height", stream.height.is_some()),
    ];
    match (&stream.audio_track_type, video.iter().find(|(_, given)| *given)) {
        (Some(_), Some((member, _))) => Err(SimError::invalid(format!(
            "`{at}audio_track_type` is only for a stream without video, and this stream has `{at}{member}`"
        ))),
        _ => Ok(()),
    }
}

/// The records of streams registered together, each checked (`at` names the
/// list in the request: `requests`, `streams`).
pub(super) fn stream_records(
    at: &str,
    requests: impl IntoIterator<Item = types::StreamCreate>,
) -> Result<Vec<types::Stream>, SimError> {
    requests
        .into_iter()
        .map(stream_record)
        .enumerate()
        .map(|(index, stream)| check_audio_track_type(&stream, &format!("{at}[{index}].")).map(|()| stream))
        .collect()
}

pub(super) fn subtitle_record(content: &str, body: types::SubtitleCreate) -> Result<types::Subtitle, SimError> {
    subtitle_with_id(content, new_id(), body)
}

fn subtitle_with_id(content: &str, id: String, body: types::SubtitleCreate) -> Result<types::Subtitle, SimError> {
    let (url, format) = match (body.content, body.url) {
        (Some(data), _) => (storage_url(content, "subtitles", &id), subtitle_format(&data)),
        (None, Some(url)) => (url.into(), body.format),
        (None, None) => return Err(url_or_content("subtitle")),
    };
    let now = clock::timestamp(clock::now());
    Ok(types::Subtitle {
        id: Some(id),
        format: Some(format),
        language: Some(body.language.into()),
        label: Some(body.label.into()),
        url: Some(url),
        content: None,
        created_at: now.clone(),
        updated_at: now,
    })
}

pub(super) fn poster_record(content: &str, body: types::PosterCreate) -> Result<types::Poster, SimError> {
    let id = new_id();
    let (url, format, width, height) = match (body.content, body.url) {
        (Some(data), _) => (storage_url(content, "posters", &id), poster_format(&data), None, None),
        (None, Some(url)) => (url.into(), body.format, body.width, body.height),
        (None, None) => return Err(url_or_content("poster")),
    };
    let now = clock::timestamp(clock::now());
    Ok(types::Poster {
        id: Some(id),
        format: Some(format),
        width,
        height,
        url: Some(url),
        content: None,
        timestamp: body.timestamp,
        used_in_slideshow: Some(body.used_in_slideshow),
        created_at: now.clone(),
        updated_at: now,
    })
}

pub(super) fn document_record(content: &str, body: types::DocumentCreate) -> Result<types::Document, SimError> {
    let id = new_id();
    let url = match (body.content, body.url) {
        (Some(_), _) => storage_url(content, "documents", &id),
        (None, Some(url)) => url.into(),
        (None, None) => return Err(url_or_content("document")),
    };
    let now = clock::timestamp(clock::now());
    Ok(types::Document {
        id: Some(id),
        title: Some(body.title.into()),
        type_: body.type_.map(Into::into),
        url: Some(url),
        content: None,
        filename: body.filename.map(Into::into),
        created_at: now.clone(),
        updated_at: now,
    })
}

/// The streams of one stream set: at least one, one format (STREAM_SET_MIXED_FORMATS),
/// and at most one of format MP4 or UNKNOWN.
pub(super) fn check_stream_set_streams(streams: &[&types::Stream]) -> Result<(), SimError> {
    let formats: Vec<&types::StreamFormat> = streams.iter().filter_map(|stream| stream.format.as_ref()).collect();
    let Some(first) = formats.first() else {
        return Err(SimError::invalid("a stream set needs at least one stream"));
    };
    if formats.iter().any(|format| format != first) {
        return Err(rule(
            "STREAM_SET_MIXED_FORMATS",
            "streams of different formats cannot be mixed in a stream set",
        ));
    }
    let single_file =
        |format: &&&types::StreamFormat| matches!(format, types::StreamFormat::Mp4 | types::StreamFormat::Unknown);
    if formats.iter().filter(single_file).count() > 1 {
        return Err(SimError::invalid(
            "a stream set holds at most one stream of format MP4 or UNKNOWN",
        ));
    }
    Ok(())
}

/// One kind of item nested in a content.
struct Kind<T: 'static> {
    what: &'static str,
    items: fn(&mut types::Content) -> &mut Vec<T>,
    id: fn(&T) -> Option<&String>,
    /// The per-content maximum, and the refusal past it.
    max: usize,
    full: fn() -> SimError,
}

const STREAMS: Kind<types::Stream> = Kind {
    what: "stream",
    items: |content| &mut content.streams,
    id: |stream| stream.id.as_ref(),
    max: MAX_STREAMS,
    full: || rule("FULL_STREAMS", format!("a content holds at most {MAX_STREAMS} streams")),
};
const SUBTITLES: Kind<types::Subtitle> = Kind {
    what: "subtitle",
    items: |content| &mut content.subtitles,
    id: |subtitle| subtitle.id.as_ref(),
    max: MAX_SUBTITLES,
    full: || {
        rule(
            "FULL_SUBTITLES",
            format!("a content holds at most {MAX_SUBTITLES} subtitles"),
        )
    },
};
const POSTERS: Kind<types::Poster> = Kind {
    what: "poster",
    items: |content| &mut content.posters,
    id: |poster| poster.id.as_ref(),
    max: MAX_POSTERS,
    full: || rule("FULL_POSTERS", format!("a content holds at most {MAX_POSTERS} posters")),
};
const DOCUMENTS: Kind<types::Document> = Kind {
    what: "document",
    items: |content| &mut content.documents,
    id: |document| document.id.as_ref(),
    max: MAX_DOCUMENTS,
    full: || super::over_limit("documents of a content", MAX_DOCUMENTS),
};

impl<T: Clone> Kind<T> {
    fn position(&self, record: &mut ContentRecord, id: &str) -> Result<usize, SimError> {
        let content = record.name().to_owned();
        (self.items)(&mut record.body)
            .iter()
            .position(|item| (self.id)(item).map(String::as_str) == Some(id))
            .ok_or_else(|| SimError::not_found(format!("{} {id} of content {content}", self.what)))
    }

    fn list(&self, store: &mut Store, content: &str) -> Result<Vec<T>, SimError> {
        Ok((self.items)(&mut store.content_mut(content)?.body).clone())
    }

    fn get(&self, store: &mut Store, content: &str, id: &str) -> Result<T, SimError> {
        let record = store.content_mut(content)?;
        let index = self.position(record, id)?;
        Ok((self.items)(&mut record.body)[index].clone())
    }

    /// Appends `records` (built from the content's name) when they fit, all or none.
    fn register(
        &self,
        store: &mut Store,
        content: &str,
        build: impl FnOnce(&str) -> Result<Vec<T>, SimError>,
    ) -> Result<Vec<types::RegisteredId>, SimError> {
        let record = store.content_mut(content)?;
        let records = build(content)?;
        if (self.items)(&mut record.body).len() + records.len() > self.max {
            return Err((self.full)());
        }
        let ids = records
            .iter()
            .map(|item| types::RegisteredId {
                id: (self.id)(item).cloned(),
                extra: serde_json::Map::new(),
            })
            .collect();
        (self.items)(&mut record.body).extend(records);
        record.touch();
        Ok(ids)
    }

    /// Replaces item `id` by `change(item, content)` when it succeeds.
    fn update(
        &self,
        store: &mut Store,
        content: &str,
        id: &str,
        change: impl FnOnce(T, &types::Content) -> Result<T, SimError>,
    ) -> Result<StatusCode, SimError> {
        let record = store.content_mut(content)?;
        let index = self.position(record, id)?;
        let changed = change((self.items)(&mut record.body)[index].clone(), &record.body)?;
        (self.items)(&mut record.body)[index] = changed;
        record.touch();
        Ok(done())
    }

    /// Removes item `id` unless `forbid` names a rule it breaks.
    fn delete(
        &self,
        store: &mut Store,
        content: &str,
        id: &str,
        forbid: impl FnOnce(&types::Content, &str) -> Result<(), SimError>,
    ) -> Result<StatusCode, SimError> {
        let record = store.content_mut(content)?;
        let index = self.position(record, id)?;
        forbid(&record.body, id)?;
        (self.items)(&mut record.body).remove(index);
        record.touch();
        Ok(done())
    }
}

fn registered(ids: Vec<types::RegisteredId>) -> Json<types::RegisteredId> {
    Json(ids.into_iter().next().unwrap_or(types::RegisteredId {
        id: None,
        extra: serde_json::Map::new(),
    }))
}

fn bulk_registered(ids: Vec<types::RegisteredId>) -> Json<types::BulkRegistration> {
    Json(types::BulkRegistration {
        responses: ids.into_iter().map(types::BulkRegisteredId::from).collect(),
    })
}

type Item = PathParams<(String, String)>;

// Streams

pub(super) async fn list_streams(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
) -> Result<Json<types::StreamList>, SimError> {
    let data = STREAMS.list(&mut app.store(), &content)?;
    Ok(Json(types::StreamList { data }))
}

pub(super) async fn register_stream(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::StreamCreate>,
) -> Result<Json<types::RegisteredId>, SimError> {
    let ids = STREAMS.register(&mut app.store(), &content, |_| {
        let stream = stream_record(body);
        check_audio_track_type(&stream, "")?;
        Ok(vec![stream])
    })?;
    Ok(registered(ids))
}

pub(super) async fn register_streams_bulk(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::StreamBulkCreate>,
) -> Result<Json<types::BulkRegistration>, SimError> {
    let ids = STREAMS.register(&mut app.store(), &content, |_| {
        stream_records("requests", body.requests)
    })?;
    Ok(bulk_registered(ids))
}

pub(super) async fn get_stream(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<Json<types::Stream>, SimError> {
    Ok(Json(STREAMS.get(&mut app.store(), &content, &id)?))
}

/// Under [`Updates::Reset`] the body is read as a registration's (its
/// defaults for what it leaves out; `path` and `format` checked as sent);
/// under [`Updates::Keep`] the members sent replace those stored.
pub(super) async fn update_stream(
    State(app): State<App>,
    PathParams((content, id)): Item,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    let updates = app.shared.config.updates;
    STREAMS.update(&mut app.store(), &content, &id, |current, owner| {
        let mut stream = match updates {
            Updates::Reset => types::Stream {
                id: current.id.clone(),
                created_at: current.created_at.clone(),
                ..stream_record(decode(body)?)
            },
            Updates::Keep => with_members_sent(current.clone(), decode(body)?),
        };
        if stream.format != current.format {
            // A new format must keep every stream set holding the stream unmixed.
            for set in owner.stream_sets.iter().filter(|set| set.streams.contains(&id)) {
                let members: Vec<&types::Stream> = owner
                    .streams
                    .iter()
                    .filter(|other| other.id.as_ref().is_some_and(|o| set.streams.contains(o) && *o != id))
                    .chain(std::iter::once(&stream))
                    .collect();
                check_stream_set_streams(&members)?;
            }
        }
        check_audio_track_type(&stream, "")?;
        stream.updated_at = clock::timestamp(clock::now());
        Ok(stream)
    })
}

/// `stream` with each member `body` sends in place of its own.
fn with_members_sent(mut stream: types::Stream, body: types::StreamUpdate) -> types::Stream {
    macro_rules! replace {
        ($($member:ident),*) => { $( if let Some(value) = body.$member { stream.$member = Some(value.into()); } )* };
    }
    replace!(
        format,
        path,
        video_codec,
        video_bitrate,
        framerate,
        width,
        height,
        audio_codec,
        audio_bitrate,
        sample_rate,
        channels,
        audio_track_type,
        audio_language,
        audio_label,
        playback_rate,
        filesize,
        is_original,
        status
    );
    if let Some(task) = body.encoder_task_id {
        stream.encoder_task_id = Some(i64::try_from(task.get()).unwrap_or(i64::MAX));
    }
    stream
}

pub(super) async fn delete_stream(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<StatusCode, SimError> {
    STREAMS.delete(&mut app.store(), &content, &id, |owner, id| {
        match owner.stream_sets.iter().find(|set| set.streams.iter().any(|s| s == id)) {
            Some(set) => Err(rule(
                "STREAM_IN_STREAM_SETS",
                format!(
                    "stream set {} contains the stream",
                    set.name.as_deref().unwrap_or_default()
                ),
            )),
            None => Ok(()),
        }
    })
}

// Subtitles

pub(super) async fn list_subtitles(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
) -> Result<Json<types::SubtitleList>, SimError> {
    let data = SUBTITLES.list(&mut app.store(), &content)?;
    Ok(Json(types::SubtitleList { data }))
}

pub(super) async fn register_subtitle(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::SubtitleCreate>,
) -> Result<Json<types::RegisteredId>, SimError> {
    let ids = SUBTITLES.register(&mut app.store(), &content, |name| {
        Ok(vec![subtitle_record(name, body)?])
    })?;
    Ok(registered(ids))
}

pub(super) async fn register_subtitles_bulk(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::SubtitleBulkCreate>,
) -> Result<Json<types::BulkRegistration>, SimError> {
    let ids = SUBTITLES.register(&mut app.store(), &content, |name| {
        body.requests
            .into_iter()
            .map(|item| subtitle_record(name, item))
            .collect()
    })?;
    Ok(bulk_registered(ids))
}

pub(super) async fn get_subtitle(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<Json<types::Subtitle>, SimError> {
    Ok(Json(SUBTITLES.get(&mut app.store(), &content, &id)?))
}

/// Under [`Updates::Reset`] the body is read as a registration's (its
/// defaults for what it leaves out; `label` checked as sent, `url` or
/// `content` required); under [`Updates::Keep`] the members sent replace those stored.
pub(super) async fn update_subtitle(
    State(app): State<App>,
    PathParams((content, id)): Item,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    let owner = content.clone();
    let updates = app.shared.config.updates;
    SUBTITLES.update(&mut app.store(), &content, &id, |mut subtitle, _| {
        match updates {
            Updates::Reset => {
                let created_at = subtitle.created_at.take();
                subtitle = types::Subtitle {
                    created_at,
                    ..subtitle_with_id(&owner, id.clone(), decode(body)?)?
                };
            }
            Updates::Keep => {
                let body: types::SubtitleUpdate = decode(body)?;
                match (body.content, body.url) {
                    (Some(data), _) => {
                        subtitle.url = Some(storage_url(&owner, "subtitles", &id));
                        subtitle.format = Some(subtitle_format(&data));
                    }
                    (None, url) => {
                        subtitle.url = url.map(Into::into).or(subtitle.url);
                        subtitle.format = body.format.or(subtitle.format);
                    }
                }
                subtitle.label = body.label.map(Into::into).or(subtitle.label);
                subtitle.language = body.language.map(Into::into).or(subtitle.language);
            }
        }
        subtitle.updated_at = clock::timestamp(clock::now());
        Ok(subtitle)
    })
}

pub(super) async fn delete_subtitle(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<StatusCode, SimError> {
    SUBTITLES.delete(&mut app.store(), &content, &id, |owner, id| {
        match owner
            .stream_sets
            .iter()
            .find(|set| set.subtitles.iter().any(|s| s == id))
        {
            Some(set) => Err(rule(
                "SUBTITLE_IN_STREAM_SETS",
                format!(
                    "stream set {} contains the subtitle",
                    set.name.as_deref().unwrap_or_default()
                ),
            )),
            None => Ok(()),
        }
    })
}

// Posters

fn slideshow_count(content: &types::Content) -> usize {
    content
        .posters
        .iter()
        .filter(|poster| poster.used_in_slideshow == Some(true))
        .count()
}

fn full_slideshow() -> SimError {
    rule(
        "FULL_POSTER_SLIDESHOW",
        format!("at most {MAX_SLIDESHOW_POSTERS} posters of a content are used in the slideshow"),
    )
}

/// Registers posters, refusing those that would put more than 20 in the slideshow.
fn register_posters(
    app: &App,
    content: &str,
    requests: Vec<types::PosterCreate>,
) -> Result<Vec<types::RegisteredId>, SimError> {
    let mut store = app.store();
    let adding = requests.iter().filter(|poster| poster.used_in_slideshow).count();
    if slideshow_count(&store.content(content)?.body) + adding > MAX_SLIDESHOW_POSTERS {
        return Err(full_slideshow());
    }
    POSTERS.register(&mut store, content, |name| {
        requests.into_iter().map(|item| poster_record(name, item)).collect()
    })
}

pub(super) async fn list_posters(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
) -> Result<Json<types::PosterList>, SimError> {
    let data = POSTERS.list(&mut app.store(), &content)?;
    Ok(Json(types::PosterList { data }))
}

pub(super) async fn register_poster(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::PosterCreate>,
) -> Result<Json<types::RegisteredId>, SimError> {
    Ok(registered(register_posters(&app, &content, vec![body])?))
}

pub(super) async fn register_posters_bulk(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::PosterBulkCreate>,
) -> Result<Json<types::BulkRegistration>, SimError> {
    Ok(bulk_registered(register_posters(&app, &content, body.requests)?))
}

/// The order must name every poster of the content, each once; it is checked
/// whole before the posters move, so a refused order changes nothing.
pub(super) async fn reorder_posters(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::PosterOrder>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let record = store.content_mut(&content)?;
    let posters = &record.body.posters;
    let mut placed = vec![false; posters.len()];
    let mut positions = Vec::with_capacity(posters.len());
    for id in body.order.iter().map(uuid::Uuid::to_string) {
        match posters.iter().position(|poster| poster.id.as_ref() == Some(&id)) {
            Some(index) if !placed[index] => {
                placed[index] = true;
                positions.push(index);
            }
            Some(_) => return Err(SimError::invalid(format!("the order names poster {id} twice"))),
            None => return Err(SimError::invalid(format!("{id} is not a poster of content {content}"))),
        }
    }
    let missing = placed.iter().filter(|placed| !**placed).count();
    if missing > 0 {
        return Err(SimError::invalid(format!(
            "the order leaves out {missing} poster(s) of the content"
        )));
    }
    record.body.posters = positions.into_iter().map(|index| posters[index].clone()).collect();
    record.touch();
    Ok(done())
}

pub(super) async fn get_poster(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<Json<types::Poster>, SimError> {
    Ok(Json(POSTERS.get(&mut app.store(), &content, &id)?))
}

pub(super) async fn update_poster(
    State(app): State<App>,
    PathParams((content, id)): Item,
    JsonBody(body): JsonBody<types::PosterUpdate>,
) -> Result<StatusCode, SimError> {
    let owner = content.clone();
    POSTERS.update(&mut app.store(), &content, &id, |mut poster, record| {
        if body.used_in_slideshow == Some(true)
            && poster.used_in_slideshow != Some(true)
            && slideshow_count(record) >= MAX_SLIDESHOW_POSTERS
        {
            return Err(full_slideshow());
        }
        match (body.content, body.url) {
            (Some(data), _) => {
                poster.url = Some(storage_url(&owner, "posters", &id));
                poster.format = Some(poster_format(&data));
                (poster.width, poster.height) = (None, None);
            }
            (None, url) => {
                poster.url = url.map(Into::into).or(poster.url);
                poster.format = body.format.or(poster.format);
                poster.width = body.width.or(poster.width);
                poster.height = body.height.or(poster.height);
            }
        }
        poster.timestamp = body.timestamp.or(poster.timestamp);
        poster.used_in_slideshow = body.used_in_slideshow.or(poster.used_in_slideshow);
        poster.updated_at = clock::timestamp(clock::now());
        Ok(poster)
    })
}

pub(super) async fn delete_poster(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    POSTERS.delete(&mut store, &content, &id, |owner, id| {
        let id = Some(id.to_owned());
        if owner.primary_poster_id == id {
            return Err(rule(
                "DELETING_PRIMARY_POSTER",
                "the poster is the content's primary poster",
            ));
        }
        if owner
            .playlist_item_overrides
            .as_ref()
            .is_some_and(|overrides| overrides.primary_poster_id == id)
        {
            return Err(rule(
                "DELETING_PLAYLIST_ITEM_POSTER",
                "the poster is the playlist display poster",
            ));
        }
        if owner
            .posters
            .iter()
            .any(|poster| poster.id == id && poster.used_in_slideshow == Some(true))
        {
            return Err(rule("POSTER_IN_SLIDESHOW", "the poster is used in the slideshow"));
        }
        Ok(())
    })?;
    // Chapters showing the poster keep their place without it.
    if let Ok(record) = store.content_mut(&content) {
        for chapter in record
            .body
            .chapters
            .iter_mut()
            .filter(|c| c.poster_id.as_ref() == Some(&id))
        {
            chapter.poster_id = None;
        }
    }
    Ok(done())
}

// Documents

pub(super) async fn list_documents(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
) -> Result<Json<types::DocumentList>, SimError> {
    let data = DOCUMENTS.list(&mut app.store(), &content)?;
    Ok(Json(types::DocumentList { data }))
}

pub(super) async fn register_document(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::DocumentCreate>,
) -> Result<Json<types::RegisteredId>, SimError> {
    let ids = DOCUMENTS.register(&mut app.store(), &content, |name| {
        Ok(vec![document_record(name, body)?])
    })?;
    Ok(registered(ids))
}

pub(super) async fn register_documents_bulk(
    State(app): State<App>,
    PathParams(content): PathParams<String>,
    JsonBody(body): JsonBody<types::DocumentBulkCreate>,
) -> Result<Json<types::BulkRegistration>, SimError> {
    let ids = DOCUMENTS.register(&mut app.store(), &content, |name| {
        body.requests
            .into_iter()
            .map(|item| document_record(name, item))
            .collect()
    })?;
    Ok(bulk_registered(ids))
}

pub(super) async fn get_document(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<Json<types::Document>, SimError> {
    Ok(Json(DOCUMENTS.get(&mut app.store(), &content, &id)?))
}

pub(super) async fn update_document(
    State(app): State<App>,
    PathParams((content, id)): Item,
    JsonBody(body): JsonBody<types::DocumentUpdate>,
) -> Result<StatusCode, SimError> {
    let owner = content.clone();
    DOCUMENTS.update(&mut app.store(), &content, &id, |mut document, _| {
        document.url = match (body.content, body.url) {
            (Some(_), _) => Some(storage_url(&owner, "documents", &id)),
            (None, url) => url.map(Into::into).or(document.url),
        };
        document.title = body.title.map(Into::into).or(document.title);
        document.type_ = body.type_.map(Into::into).or(document.type_);
        document.filename = body.filename.map(Into::into).or(document.filename);
        document.updated_at = clock::timestamp(clock::now());
        Ok(document)
    })
}

/// A document set for presentation linkage cannot be deleted (the document shows no code; INVALID_REQUEST).
pub(super) async fn delete_document(
    State(app): State<App>,
    PathParams((content, id)): Item,
) -> Result<StatusCode, SimError> {
    DOCUMENTS.delete(&mut app.store(), &content, &id, |owner, id| {
        match owner.presentation_document_id.as_deref() == Some(id) {
            true => Err(SimError::invalid("the document is set for presentation linkage")),
            false => Ok(()),
        }
    })
}
