//! Contents: list (filters, sort, the `truncated` envelope), register (with
//! stream sets, streams, subtitles, posters and documents referring to each
//! other by name), get, update, delete, and the delivery volume. `filters`: see the `filters` module.

use super::builtins::{self, DEFAULT_DISTRIBUTION_ID};
use super::filters::parse_filters;
use super::media::{self, MAX_SLIDESHOW_POSTERS};
use super::store::{ContentRecord, Store, MAX_RECORDS};
use super::{
    already_exists, canonical_id, clock, contains_ignoring_case, done, new_id, over_limit, page_of, parse_sort, rule,
    App, PathParams, DEFAULT_PER_PAGE,
};
use crate::{decode, JsonBody, QueryParams, SimError, Updates};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use std::collections::HashMap;
use vidplat_vms::types;

const SORT_COLUMNS: &[&str] = &["created_at", "updated_at", "name", "title", "duration"];

#[derive(serde::Deserialize)]
pub(super) struct ListQuery {
    page: Option<u64>,
    per_page: Option<u64>,
    sort: Option<String>,
    #[serde(rename = "type")]
    type_: Option<String>,
    status: Option<String>,
    category: Option<String>,
    label: Option<String>,
    query: Option<String>,
    filters: Option<String>,
}

pub(super) async fn list(
    State(app): State<App>,
    QueryParams(query): QueryParams<ListQuery>,
) -> Result<Json<types::ContentList>, SimError> {
    let (column, descending) = parse_sort(query.sort.as_deref(), SORT_COLUMNS)?;
    let uuid_param = |name: &str, value: &Option<String>| match value {
        Some(raw) => canonical_id(raw)
            .map(Some)
            .ok_or_else(|| SimError::invalid(format!("{name} `{raw}` is not a UUID"))),
        None => Ok(None),
    };
    let category = uuid_param("category", &query.category)?;
    let label = uuid_param("label", &query.label)?;
    let listed = |list: &Option<String>| -> Option<Vec<String>> {
        list.as_ref()
            .map(|list| list.split(',').map(|item| item.trim().to_owned()).collect())
    };
    let (types_, statuses) = (listed(&query.type_), listed(&query.status));
    // `filters` is ignored when `query` is given.
    let filters = match (&query.query, &query.filters) {
        (None, Some(raw)) => parse_filters(raw)?,
        _ => Vec::new(),
    };
    let store = app.store();
    let mut matching = Vec::new();
    for record in store.contents.values() {
        let content = &record.body;
        let listed_in = |list: &Option<Vec<String>>, value: Option<&str>| {
            list.as_ref()
                .is_none_or(|list| value.is_some_and(|value| list.iter().any(|item| item == value)))
        };
        let keep = listed_in(&types_, content.type_.as_ref().map(|v| v.as_str()))
            && listed_in(&statuses, content.status.as_ref().map(|v| v.as_str()))
            && category
                .as_ref()
                .is_none_or(|id| content.category_id.as_ref() == Some(id))
            && label.as_ref().is_none_or(|id| content.labels.contains(id))
            && query.query.as_ref().is_none_or(|needle| {
                [
                    content.name.as_deref(),
                    content.title.as_deref(),
                    content.description.as_deref(),
                ]
                .into_iter()
                .any(|text| contains_ignoring_case(text, needle))
            });
        if !keep {
            continue;
        }
        let summary = summary(record);
        if !filters.is_empty() {
            let json = serde_json::to_value(&summary).map_err(|error| SimError::invalid(error.to_string()))?;
            if !filters.iter().all(|filter| filter.matches(&json)) {
                continue;
            }
        }
        matching.push((sort_key(record, column), record.seq, summary));
    }
    matching.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    if descending {
        matching.reverse();
    }
    let (page, per_page) = (query.page.unwrap_or(1), query.per_page.unwrap_or(DEFAULT_PER_PAGE));
    let (data, truncated) = page_of(
        matching.into_iter().map(|(_, _, summary)| summary).collect(),
        page,
        per_page,
    );
    Ok(Json(types::ContentList {
        data,
        truncated: Some(truncated),
        current_page: i64::try_from(page).ok(),
        per_page: i64::try_from(per_page).ok(),
    }))
}

/// What a content sorts by: a number for numeric columns, else text.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Number(i64),
    Text(String),
}

fn sort_key(record: &ContentRecord, column: &str) -> SortKey {
    let content = &record.body;
    let text = |value: Option<&str>| SortKey::Text(value.unwrap_or_default().to_owned());
    match column {
        "updated_at" => text(content.updated_at.as_ref().map(|t| t.to_string()).as_deref()),
        "name" => text(content.name.as_deref()),
        "title" => text(content.title.as_deref()),
        "duration" => SortKey::Number(content.duration.unwrap_or_default()),
        _ => SortKey::Number(record.created),
    }
}

/// The content as read: its members plus the derived `primary_poster_url`.
pub(super) fn view(record: &ContentRecord) -> types::Content {
    let mut content = record.body.clone();
    content.primary_poster_url = content.primary_poster_id.as_ref().and_then(|id| {
        content
            .posters
            .iter()
            .find(|poster| poster.id.as_ref() == Some(id))
            .and_then(|poster| poster.url.clone())
    });
    content
}

/// The content as listed: without the nested arrays and cta_actions.
fn summary(record: &ContentRecord) -> types::ContentSummary {
    let content = view(record);
    types::ContentSummary {
        category_id: content.category_id,
        chapters: content.chapters,
        created_at: content.created_at,
        description: content.description,
        duration: content.duration,
        encode_status: content.encode_status,
        encoder_transaction_id: content.encoder_transaction_id,
        forward_policy_id: content.forward_policy_id,
        labels: content.labels,
        name: content.name,
        playback_count: content.playback_count,
        playlist_item_overrides: content.playlist_item_overrides,
        poster_slideshow_interval: content.poster_slideshow_interval,
        presentation_document_id: content.presentation_document_id,
        primary_poster_id: content.primary_poster_id,
        primary_poster_url: content.primary_poster_url,
        publish_end: content.publish_end,
        publish_start: content.publish_start,
        seek_preview_url: content.seek_preview_url,
        status: content.status,
        streaming_policy_id: content.streaming_policy_id,
        tags: content.tags,
        title: content.title,
        type_: content.type_,
        updated_at: content.updated_at,
    }
}

pub(super) async fn get(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
) -> Result<Json<types::Content>, SimError> {
    Ok(Json(view(app.store().content(&name)?)))
}

/// One item of Register content, read as the body of the single-item
/// registration (the same members, less the request-local `name`).
fn as_single<T: serde::Serialize, U: serde::de::DeserializeOwned>(item: &T) -> Result<U, SimError> {
    serde_json::to_value(item)
        .and_then(serde_json::from_value)
        .map_err(|error| SimError::invalid(error.to_string()))
}

/// The records of one kind of item of Register content, their names and ids
/// for the response, and the id of each name (names are local to the request).
struct Registered<R> {
    records: Vec<R>,
    response: Vec<types::RegisteredItem>,
    ids: HashMap<String, String>,
}

fn register_items<C, R>(
    what: &str,
    items: &[C],
    name_of: impl Fn(&C) -> Option<&String>,
    mut build: impl FnMut(&C) -> Result<R, SimError>,
    id_of: impl Fn(&R) -> Option<&String>,
) -> Result<Registered<R>, SimError> {
    let mut registered = Registered {
        records: Vec::new(),
        response: Vec::new(),
        ids: HashMap::new(),
    };
    for item in items {
        let record = build(item)?;
        let id = id_of(&record).cloned().unwrap_or_default();
        if let Some(name) = name_of(item) {
            if registered.ids.insert(name.clone(), id.clone()).is_some() {
                return Err(SimError::invalid(format!("two {what} are named `{name}`")));
            }
        }
        registered.response.push(types::RegisteredItem {
            id: Some(id),
            name: name_of(item).cloned(),
        });
        registered.records.push(record);
    }
    Ok(registered)
}

/// The id of the item `name` refers to.
fn resolve(ids: &HashMap<String, String>, what: &str, name: &str) -> Result<String, SimError> {
    ids.get(name)
        .cloned()
        .ok_or_else(|| SimError::invalid(format!("no {what} named `{name}` in this request")))
}

/// Several subtitles, posters or documents of one registration cannot all carry
/// `content`; the simulator reads the document's advice ("to register several
/// with content, use the single-item operations") as: at most one of them may.
fn at_most_one_with_content(what: &str, carrying: impl Iterator<Item = bool>) -> Result<(), SimError> {
    if carrying.filter(|has| *has).count() > 1 {
        return Err(SimError::invalid(format!(
            "several {what} cannot carry content in one registration; register them one by one"
        )));
    }
    Ok(())
}

pub(super) fn require_category(store: &Store, id: &str) -> Result<(), SimError> {
    store
        .category(id)
        .map(|_| ())
        .ok_or_else(|| SimError::not_found(format!("category {id}")))
}

fn require_labels(store: &Store, labels: &[uuid::Uuid]) -> Result<Vec<String>, SimError> {
    labels
        .iter()
        .map(|id| {
            let id = id.to_string();
            store
                .label(&id)
                .map(|_| id.clone())
                .ok_or_else(|| SimError::not_found(format!("label {id}")))
        })
        .collect()
}

fn require_forward_policy(id: &uuid::Uuid) -> Result<String, SimError> {
    builtins::forward_policy(&id.to_string())
        .and_then(|policy| policy.id.clone())
        .ok_or_else(|| SimError::not_found(format!("content forward policy {id}")))
}

fn require_streaming_policy(id: &uuid::Uuid) -> Result<String, SimError> {
    builtins::streaming_policy(&id.to_string())
        .and_then(|policy| policy.id.clone())
        .ok_or_else(|| SimError::not_found(format!("streaming policy {id}")))
}

/// A status the document shows (PUBLIC, LIMITED, PROCESSING); any other would
/// leave a content that cannot be played, so it is refused (400).
fn check_status(status: &types::ContentStatus) -> Result<(), SimError> {
    use types::ContentStatus::{Limited, Processing, Public};
    match status {
        Public | Limited | Processing => Ok(()),
        other => Err(SimError::invalid(format!(
            "status `{other}` is none of PUBLIC, LIMITED, PROCESSING (the statuses the document shows)"
        ))),
    }
}

/// `publish_start` and `publish_end` are valid only when the status is LIMITED, and in that order.
fn check_publish_window(
    status: &types::ContentStatus,
    start: Option<&vidplat::Timestamp>,
    end: Option<&vidplat::Timestamp>,
) -> Result<(), SimError> {
    if *status != types::ContentStatus::Limited && (start.is_some() || end.is_some()) {
        return Err(SimError::invalid(
            "publish_start and publish_end are valid only when status is LIMITED",
        ));
    }
    let unix = |value: Option<&vidplat::Timestamp>, member: &str| match value {
        Some(value) => clock::unix_of(value)
            .map(Some)
            .ok_or_else(|| SimError::invalid(format!("{member} `{value}` is not `YYYY-MM-DD hh:mm:ss`"))),
        None => Ok(None),
    };
    if let (Some(start), Some(end)) = (unix(start, "publish_start")?, unix(end, "publish_end")?) {
        if start > end {
            return Err(SimError::invalid("publish_start is after publish_end"));
        }
    }
    Ok(())
}

/// No two chapters may share a start_time.
fn check_chapter_times(times: impl Iterator<Item = Option<i64>>) -> Result<(), SimError> {
    let mut seen = std::collections::HashSet::new();
    for time in times.flatten() {
        if !seen.insert(time) {
            return Err(SimError::invalid(format!("two chapters start at {time}")));
        }
    }
    Ok(())
}

/// Read-only call-to-action settings of a new content.
fn cta_actions(now: i64) -> types::CtaActions {
    types::CtaActions {
        id: Some(new_id()),
        card_options: Vec::new(),
        created_at: clock::timestamp(now),
        updated_at: clock::timestamp(now),
        extra: serde_json::Map::new(),
    }
}

fn to_i64(value: std::num::NonZeroU64) -> i64 {
    i64::try_from(value.get()).unwrap_or(i64::MAX)
}

/// A name nobody uses yet: `{prefix}-1`, `{prefix}-2`, … (bounded by the number of names taken).
pub(super) fn unused_name(prefix: &str, taken: &[&str]) -> String {
    (1..=taken.len() + 1)
        .map(|n| format!("{prefix}-{n}"))
        .find(|candidate| !taken.contains(&candidate.as_str()))
        .unwrap_or_else(|| format!("{prefix}-{}", new_id()))
}

pub(super) async fn register(
    State(app): State<App>,
    JsonBody(body): JsonBody<types::ContentCreate>,
) -> Result<Json<types::ContentRegistration>, SimError> {
    let now = clock::now();
    let mut store = app.store();
    if store.contents.len() >= MAX_RECORDS {
        return Err(over_limit("contents", MAX_RECORDS));
    }
    let name = match &body.name {
        Some(name) if store.contents.contains_key(name.as_str()) => {
            return Err(already_exists(format!("content {} already exists", name.as_str())))
        }
        Some(name) => name.to_string(),
        None => format!("content-{}", uuid::Uuid::new_v4().simple()),
    };
    let category_id = body.category_id.to_string();
    require_category(&store, &category_id)?;
    let labels = require_labels(&store, body.labels.as_deref().unwrap_or_default())?;
    let forward_policy_id = match &body.forward_policy_id {
        Some(id) => require_forward_policy(id)?,
        None => builtins::DEFAULT_FORWARD_POLICY_ID.to_owned(),
    };
    let streaming_policy_id = match &body.streaming_policy_id {
        Some(id) => require_streaming_policy(id)?,
        None => builtins::DEFAULT_STREAMING_POLICY_ID.to_owned(),
    };
    check_status(&body.status)?;
    check_publish_window(&body.status, body.publish_start.as_ref(), body.publish_end.as_ref())?;
    check_chapter_times(body.chapters.iter().map(|chapter| chapter.start_time))?;
    at_most_one_with_content("subtitles", body.subtitles.iter().map(|s| s.content.is_some()))?;
    at_most_one_with_content("posters", body.posters.iter().map(|p| p.content.is_some()))?;
    at_most_one_with_content("documents", body.documents.iter().map(|d| d.content.is_some()))?;
    // Item counts are bounded by the YAML (checked before the handler); the slideshow limit is not.
    if body.posters.iter().filter(|poster| poster.used_in_slideshow).count() > MAX_SLIDESHOW_POSTERS {
        return Err(rule(
            "FULL_POSTER_SLIDESHOW",
            format!("at most {MAX_SLIDESHOW_POSTERS} posters of a content are used in the slideshow"),
        ));
    }

    let streams = register_items(
        "streams",
        &body.streams,
        |item| item.name.as_ref(),
        |item| as_single(item).map(media::stream_record),
        |record| record.id.as_ref(),
    )?;
    for (index, stream) in streams.records.iter().enumerate() {
        media::check_audio_track_type(stream, &format!("streams[{index}]."))?;
    }
    let subtitles = register_items(
        "subtitles",
        &body.subtitles,
        |item| item.name.as_ref(),
        |item| media::subtitle_record(&name, as_single(item)?),
        |record| record.id.as_ref(),
    )?;
    let posters = register_items(
        "posters",
        &body.posters,
        |item| item.name.as_ref(),
        |item| media::poster_record(&name, as_single(item)?),
        |record| record.id.as_ref(),
    )?;
    let documents = register_items(
        "documents",
        &body.documents,
        |item| item.name.as_ref(),
        |item| media::document_record(&name, as_single(item)?),
        |record| record.id.as_ref(),
    )?;

    let mut stream_sets: Vec<types::StreamSet> = Vec::new();
    for set in &body.stream_sets {
        let set_name = match &set.name {
            Some(given) if stream_sets.iter().any(|s| s.name.as_deref() == Some(given.as_str())) => {
                return Err(SimError::invalid(format!(
                    "two stream sets are named `{}`",
                    given.as_str()
                )))
            }
            Some(given) => given.to_string(),
            None => {
                let taken: Vec<&str> = stream_sets.iter().filter_map(|s| s.name.as_deref()).collect();
                let explicit: Vec<&str> = body
                    .stream_sets
                    .iter()
                    .filter_map(|s| s.name.as_ref().map(|n| n.as_str()))
                    .collect();
                unused_name("set", &[taken, explicit].concat())
            }
        };
        let stream_ids = set
            .stream_names
            .iter()
            .map(|stream| resolve(&streams.ids, "stream", stream))
            .collect::<Result<Vec<_>, _>>()?;
        let members: Vec<&types::Stream> = streams
            .records
            .iter()
            .filter(|stream| stream.id.as_ref().is_some_and(|id| stream_ids.contains(id)))
            .collect();
        media::check_stream_set_streams(&members)?;
        let subtitle_ids = set
            .subtitle_names
            .iter()
            .map(|subtitle| resolve(&subtitles.ids, "subtitle", subtitle))
            .collect::<Result<Vec<_>, _>>()?;
        stream_sets.push(types::StreamSet {
            name: Some(set_name),
            distribution_id: Some(
                set.distribution_id
                    .map_or_else(|| DEFAULT_DISTRIBUTION_ID.to_owned(), |id| id.to_string()),
            ),
            streams: stream_ids,
            subtitles: subtitle_ids,
            created_at: clock::timestamp(now),
            updated_at: clock::timestamp(now),
        });
    }

    let primary_poster_id = body
        .primary_poster_name
        .as_ref()
        .map(|poster| resolve(&posters.ids, "poster", poster))
        .transpose()?;
    let presentation_document_id = body
        .presentation_document_name
        .as_ref()
        .map(|document| resolve(&documents.ids, "document", document))
        .transpose()?;
    let chapters = body
        .chapters
        .iter()
        .map(|chapter| {
            Ok(types::Chapter {
                start_time: chapter.start_time,
                title: chapter.title.clone(),
                poster_id: chapter
                    .poster_name
                    .as_ref()
                    .map(|poster| resolve(&posters.ids, "poster", poster))
                    .transpose()?,
                data: chapter.data.clone(),
            })
        })
        .collect::<Result<Vec<_>, SimError>>()?;
    let playlist_item_overrides = body
        .playlist_item_overrides
        .as_ref()
        .map(|overrides| {
            Ok::<_, SimError>(types::PlaylistItemOverrides {
                title: overrides.title.clone(),
                description: overrides.description.clone(),
                primary_poster_id: overrides
                    .primary_poster_name
                    .as_ref()
                    .map(|poster| resolve(&posters.ids, "poster", poster))
                    .transpose()?,
                extra: overrides.extra.clone(),
            })
        })
        .transpose()?;
    let seek_preview_url = match (&body.seek_preview_content, &body.seek_preview_url) {
        (Some(_), _) => Some(media::storage_url(&name, "seek-previews", &new_id())),
        (None, url) => url.as_ref().map(|url| url.to_string()),
    };

    let response = types::ContentRegistration {
        name: Some(name.clone()),
        stream_sets: stream_sets
            .iter()
            .map(|set| types::RegisteredName { name: set.name.clone() })
            .collect(),
        streams: streams.response,
        subtitles: subtitles.response,
        posters: posters.response,
        documents: documents.response,
    };
    let content = types::Content {
        name: Some(name.clone()),
        title: Some(body.title.to_string()),
        description: body.description.map(String::from),
        type_: Some(body.type_),
        status: Some(body.status),
        encode_status: Some(body.encode_status),
        publish_start: body.publish_start,
        publish_end: body.publish_end,
        duration: Some(body.duration.unwrap_or(0)),
        category_id: Some(category_id),
        labels,
        tags: body.tags,
        forward_policy_id: Some(forward_policy_id),
        streaming_policy_id: Some(streaming_policy_id),
        seek_preview_url,
        encoder_transaction_id: body.encoder_transaction_id.map(to_i64),
        playback_count: Some(0),
        poster_slideshow_interval: Some(to_i64(body.poster_slideshow_interval)),
        primary_poster_id,
        primary_poster_url: None,
        presentation_document_id,
        playlist_item_overrides,
        chapters,
        created_at: clock::timestamp(now),
        updated_at: clock::timestamp(now),
        stream_sets,
        streams: streams.records,
        subtitles: subtitles.records,
        posters: posters.records,
        documents: documents.records,
        cta_actions: Some(cta_actions(now)),
    };
    let seq = store.next_seq();
    store.contents.insert(
        name,
        ContentRecord {
            seq,
            created: now,
            body: content,
        },
    );
    Ok(Json(response))
}

/// Updates the members sent; `tags`, `chapters` and `labels` sent replace the
/// list (`[]` clears it), and a nullable member sent as `null` is cleared.
/// Those left out are reset first ([`Updates::Reset`]) or kept.
pub(super) async fn update(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
    JsonBody(json): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    let body: types::ContentUpdate = decode(json.clone())?;
    let mut store = app.store();
    let mut content = store.content(&name)?.body.clone();
    if app.shared.config.updates == Updates::Reset {
        reset_left_out(&mut content, &json);
    }
    if let Some(status) = body.status {
        check_status(&status)?;
        // The document's example of an invalid change is PUBLIC to PROCESSING; the
        // simulator refuses any change to PROCESSING (a state of the system's own).
        if status == types::ContentStatus::Processing && content.status.as_ref() != Some(&status) {
            return Err(rule(
                "CONTENT_INVALID_STATUS",
                format!(
                    "cannot change the status from {} to PROCESSING",
                    content.status.as_ref().map_or("none", |s| s.as_str())
                ),
            ));
        }
        content.status = Some(status);
    }
    let status = content.status.clone().unwrap_or(types::ContentStatus::Public);
    if status == types::ContentStatus::Limited {
        body.publish_start.apply_to(&mut content.publish_start);
        body.publish_end.apply_to(&mut content.publish_end);
        check_publish_window(&status, content.publish_start.as_ref(), content.publish_end.as_ref())?;
    } else {
        check_publish_window(&status, body.publish_start.as_set(), body.publish_end.as_set())?;
        content.publish_start = None;
        content.publish_end = None;
    }
    if let Some(category) = body.category_id {
        let category = category.to_string();
        require_category(&store, &category)?;
        content.category_id = Some(category);
    }
    if let Some(labels) = &body.labels {
        content.labels = require_labels(&store, labels)?;
    }
    if let Some(id) = &body.forward_policy_id {
        content.forward_policy_id = Some(require_forward_policy(id)?);
    }
    if let Some(id) = &body.streaming_policy_id {
        content.streaming_policy_id = Some(require_streaming_policy(id)?);
    }
    let poster = |id: &uuid::Uuid| {
        let id = id.to_string();
        match content.posters.iter().any(|poster| poster.id.as_ref() == Some(&id)) {
            true => Ok(id),
            false => Err(SimError::not_found(format!("poster {id} of content {name}"))),
        }
    };
    let primary_poster_id = body.primary_poster_id.as_ref().try_map(poster)?;
    let chapters = match &body.chapters {
        None => None,
        Some(chapters) => {
            check_chapter_times(chapters.iter().map(|chapter| chapter.start_time))?;
            Some(
                chapters
                    .iter()
                    .map(|chapter| {
                        Ok(types::Chapter {
                            start_time: chapter.start_time,
                            title: chapter.title.clone(),
                            poster_id: chapter.poster_id.as_ref().map(poster).transpose()?,
                            data: chapter.data.clone(),
                        })
                    })
                    .collect::<Result<Vec<_>, SimError>>()?,
            )
        }
    };
    let overrides = body
        .playlist_item_overrides
        .as_ref()
        .map(|overrides| {
            Ok::<_, SimError>(types::PlaylistItemOverrides {
                title: overrides.title.clone(),
                description: overrides.description.clone(),
                primary_poster_id: overrides.primary_poster_id.as_ref().map(poster).transpose()?,
                extra: overrides.extra.clone(),
            })
        })
        .transpose()?;
    let presentation_document_id = body.presentation_document_id.try_map(|id| {
        let id = id.to_string();
        match content
            .documents
            .iter()
            .any(|document| document.id.as_ref() == Some(&id))
        {
            true => Ok(id),
            false => Err(SimError::not_found(format!("document {id} of content {name}"))),
        }
    })?;
    presentation_document_id.apply_to(&mut content.presentation_document_id);
    primary_poster_id.apply_to(&mut content.primary_poster_id);
    if let Some(chapters) = chapters {
        content.chapters = chapters;
    }
    if overrides.is_some() {
        content.playlist_item_overrides = overrides;
    }
    if let Some(title) = body.title {
        content.title = Some(title.to_string());
    }
    body.description
        .map(|text| text.to_string())
        .apply_to(&mut content.description);
    if let Some(type_) = body.type_ {
        content.type_ = Some(type_);
    }
    if let Some(encode_status) = body.encode_status {
        content.encode_status = Some(encode_status);
    }
    if let Some(duration) = body.duration {
        content.duration = Some(duration);
    }
    if let Some(tags) = body.tags {
        content.tags = tags;
    }
    if body.seek_preview_content.is_some() {
        content.seek_preview_url = Some(media::storage_url(&name, "seek-previews", &new_id()));
    } else {
        body.seek_preview_url
            .map(|url| url.to_string())
            .apply_to(&mut content.seek_preview_url);
    }
    body.encoder_transaction_id
        .map(to_i64)
        .apply_to(&mut content.encoder_transaction_id);
    if let Some(interval) = body.poster_slideshow_interval {
        content.poster_slideshow_interval = Some(to_i64(interval));
    }
    let record = store.content_mut(&name)?;
    record.body = content;
    record.touch();
    Ok(done())
}

/// What registration stores for each updatable member it is not sent (the
/// registration body's defaults, `null`, nothing or an empty list), put back
/// for each member `update` leaves out. `title` and `category_id`, required
/// at registration, were checked as sent before the handler ran.
fn reset_left_out(content: &mut types::Content, update: &serde_json::Value) {
    let left_out = |member: &str| update.get(member).is_none();
    if left_out("description") {
        content.description = None;
    }
    if left_out("type") {
        content.type_ = Some(REGISTERED_UNSENT.type_.clone());
    }
    if left_out("status") {
        content.status = Some(REGISTERED_UNSENT.status.clone());
    }
    if left_out("encode_status") {
        content.encode_status = Some(REGISTERED_UNSENT.encode_status.clone());
    }
    if left_out("publish_start") {
        content.publish_start = None;
    }
    if left_out("publish_end") {
        content.publish_end = None;
    }
    if left_out("duration") {
        content.duration = Some(0);
    }
    if left_out("labels") {
        content.labels.clear();
    }
    if left_out("tags") {
        content.tags.clear();
    }
    if left_out("chapters") {
        content.chapters.clear();
    }
    if left_out("forward_policy_id") {
        content.forward_policy_id = Some(builtins::DEFAULT_FORWARD_POLICY_ID.to_owned());
    }
    if left_out("streaming_policy_id") {
        content.streaming_policy_id = Some(builtins::DEFAULT_STREAMING_POLICY_ID.to_owned());
    }
    if left_out("seek_preview_url") && left_out("seek_preview_content") {
        content.seek_preview_url = None;
    }
    if left_out("encoder_transaction_id") {
        content.encoder_transaction_id = None;
    }
    if left_out("poster_slideshow_interval") {
        content.poster_slideshow_interval = Some(to_i64(REGISTERED_UNSENT.poster_slideshow_interval));
    }
    if left_out("primary_poster_id") {
        content.primary_poster_id = None;
    }
    if left_out("presentation_document_id") {
        content.presentation_document_id = None;
    }
    if left_out("playlist_item_overrides") {
        content.playlist_item_overrides = None;
    }
}

/// A registration sent only what it must: its members left out read as the
/// registration body's type reads them, with the YAML's defaults (`VOD`,
/// `PUBLIC`, `NONE`, 1000 ms), so those are stated in one place.
static REGISTERED_UNSENT: std::sync::LazyLock<types::ContentCreate> = std::sync::LazyLock::new(|| {
    let minimal = serde_json::json!({"title": "-", "category_id": uuid::Uuid::nil(), "stream_sets": [], "streams": []});
    serde_json::from_value(minimal).expect("a registration of its required members alone reads")
});

pub(super) async fn delete(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    store.content(&name)?;
    if builtins::is_forward_target(&name) {
        return Err(rule(
            "CONTENT_FORWARD_TARGET",
            format!("content {name} is the forward target of a content forward policy"),
        ));
    }
    store.contents.remove(&name);
    Ok(done())
}

#[derive(serde::Deserialize)]
pub(super) struct StatisticsQuery {
    start: Option<String>,
    end: Option<String>,
    granularity: Option<String>,
}

/// Days of the default period (not shown): the 30 days ending with `end`.
const DEFAULT_STATISTICS_DAYS: i64 = 30;
/// The documented maximum span of one request, in calendar months.
const MAX_STATISTICS_MONTHS: i64 = 13;

/// The first day a request starting on `start` may no longer cover: the same
/// day `months` calendar months later (clamped to the end of a shorter month).
/// `start` to the day before is exactly `months` months.
fn months_after(start: i64, months: i64) -> i64 {
    let (year, month, day) = clock::civil_from_days(start);
    let index = year * 12 + (month - 1) + months;
    let (year, month) = (index.div_euclid(12), index.rem_euclid(12) + 1);
    let last = i64::from(crate::calendar::days_in_month(year, u32::try_from(month).unwrap_or(1)));
    clock::days_from_civil(year, month, day.min(last))
}

/// The delivery volume per day. The numbers are synthetic but deterministic: 0
/// before the day the content was registered, then a value drawn from the
/// simulator's seed, the content name and the day (the same on every call).
/// Nothing is delivered in the future: today counts up to now (its share of
/// the day's value) and later days of the period are 0.
pub(super) async fn statistics(
    State(app): State<App>,
    PathParams(name): PathParams<String>,
    QueryParams(query): QueryParams<StatisticsQuery>,
) -> Result<Json<types::ContentStatistics>, SimError> {
    if let Some(granularity) = query.granularity.as_deref().filter(|g| *g != "daily") {
        return Err(SimError::invalid(format!(
            "granularity `{granularity}` is not supported (daily)"
        )));
    }
    let date = |value: &Option<String>, member: &str| match value {
        Some(text) => clock::parse_date(text)
            .map(Some)
            .ok_or_else(|| SimError::invalid(format!("{member} `{text}` is not `YYYY-MM-DD`"))),
        None => Ok(None),
    };
    let (start, end) = (date(&query.start, "start")?, date(&query.end, "end")?);
    let store = app.store();
    let record = store.content(&name)?;
    let now = clock::now();
    let today = clock::day_of(now);
    let end = end.unwrap_or(today);
    let start = start.unwrap_or(end - (DEFAULT_STATISTICS_DAYS - 1));
    if start > end {
        return Err(SimError::invalid("start is after end"));
    }
    if end >= months_after(start, MAX_STATISTICS_MONTHS) {
        return Err(SimError::invalid(format!(
            "one request may span at most {MAX_STATISTICS_MONTHS} months: from {} the last day is {}",
            clock::format_date(start),
            clock::format_date(months_after(start, MAX_STATISTICS_MONTHS) - 1)
        )));
    }
    let first_day = clock::day_of(record.created);
    // Seconds of today gone by, in the simulator's zone.
    let elapsed_today = now - clock::start_of_day(today);
    let statistics = (start..=end)
        .map(|day| {
            let bytes = if day < first_day || day > today {
                0
            } else if day == today {
                synthetic_bytes(app.shared.config.seed, &name, day).saturating_mul(elapsed_today) / clock::DAY
            } else {
                synthetic_bytes(app.shared.config.seed, &name, day)
            };
            types::DeliveryVolume {
                date: clock::format_date(day).parse().ok(),
                bytes_downloaded: Some(bytes),
            }
        })
        .collect();
    Ok(Json(types::ContentStatistics {
        statistics: Some(statistics),
    }))
}

/// Bytes downloaded on `day`: up to a gigabyte, from a hash of the seed, the name and the day.
fn synthetic_bytes(seed: u64, name: &str, day: i64) -> i64 {
    let mut state = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64 ^ seed, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    }) ^ day.unsigned_abs();
    // splitmix64 finaliser
    state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    state ^= state >> 31;
    i64::try_from(state % 1_000_000_000).unwrap_or_default()
}
