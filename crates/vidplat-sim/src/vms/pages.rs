//! Viewing pages (instant pages): the API's operations, and the page itself at
//! `GET {vms_url}/pages/{page-id}`.
//!
//! A page registered with `signature_required` gets a 32-character
//! `signing_key` and answers only URLs signed with it, as the document
//! describes (`vidplat::signing`, shared with the SDK): the message is the page
//! URL `http://{Host}{MOUNT}/pages/{page-id}` with `expires` then `aud`; a bad
//! or missing signature, a passed `expires` or a revoked `aud` gets 403. The
//! simultaneous-viewer limit and the access-denial timeout are not simulated.
//!
//! The ViewingPage schema has no member for the page's URL, so the responses
//! do not carry it; it is `{vms_url}/pages/{id}`.

use super::store::{PageRecord, MAX_RECORDS};
use super::{
    builtins, canonical_id, clock, contains_ignoring_case, done, new_id, over_limit, page_of, parse_sort, App,
    PathParams, DEFAULT_PER_PAGE, MOUNT,
};
use crate::{JsonBody, QueryParams, SimError};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::Html;
use axum::Json;
use vidplat::signing::{self, SigningKey};
use vidplat_vms::types;

const SORT_COLUMNS: &[&str] = &["created_at", "updated_at"];
/// The documented maximum of `revoked_audiences`.
const MAX_REVOKED_AUDIENCES: usize = 1000;

/// The page's title and description: its own configurations, else its site's.
fn title_and_description(page: &types::ViewingPage) -> (Option<String>, Option<String>) {
    let site = page
        .site_id
        .as_deref()
        .and_then(builtins::site)
        .and_then(|site| site.configurations.as_ref());
    let own = page.configurations.as_ref();
    (
        own.and_then(|c| c.title.clone())
            .or_else(|| site.and_then(|c| c.title.clone())),
        own.and_then(|c| c.description.clone())
            .or_else(|| site.and_then(|c| c.description.clone())),
    )
}

fn require_site(id: &uuid::Uuid) -> Result<String, SimError> {
    builtins::site(&id.to_string())
        .and_then(|site| site.id.clone())
        .ok_or_else(|| SimError::not_found(format!("site {id}")))
}

#[derive(serde::Deserialize)]
pub(super) struct ListQuery {
    page: Option<u64>,
    per_page: Option<u64>,
    sort: Option<String>,
    #[serde(rename = "type")]
    type_: Option<String>,
    content: Option<String>,
    playlist: Option<String>,
    query: Option<String>,
}

/// Every page publishes a content (the fields show only content_name), so
/// `type=playlist` and `playlist` match none.
pub(super) async fn list(
    State(app): State<App>,
    QueryParams(query): QueryParams<ListQuery>,
) -> Result<Json<types::ViewingPageList>, SimError> {
    let (column, descending) = parse_sort(query.sort.as_deref(), SORT_COLUMNS)?;
    let content_pages = match query.type_.as_deref() {
        None | Some("content") => true,
        Some("playlist") => false,
        Some(other) => return Err(SimError::invalid(format!("type `{other}` is not content or playlist"))),
    };
    let store = app.store();
    let mut pages: Vec<&PageRecord> = store
        .pages
        .iter()
        .filter(|_| content_pages && query.playlist.is_none())
        .filter(|page| {
            query
                .content
                .as_ref()
                .is_none_or(|name| page.body.content_name.as_ref() == Some(name))
        })
        .filter(|page| {
            query.query.as_ref().is_none_or(|needle| {
                let (title, description) = title_and_description(&page.body);
                contains_ignoring_case(title.as_deref(), needle)
                    || contains_ignoring_case(description.as_deref(), needle)
            })
        })
        .collect();
    match column {
        "updated_at" => pages.sort_by_key(|page| (page.body.updated_at.as_ref().map(|t| t.to_string()), page.seq)),
        _ => pages.sort_by_key(|page| (page.created, page.seq)),
    }
    if descending {
        pages.reverse();
    }
    let (page, per_page) = (query.page.unwrap_or(1), query.per_page.unwrap_or(DEFAULT_PER_PAGE));
    let (data, truncated) = page_of(
        pages.into_iter().map(|page| page.body.clone()).collect(),
        page,
        per_page,
    );
    Ok(Json(types::ViewingPageList {
        data,
        truncated: Some(truncated),
        current_page: i64::try_from(page).ok(),
        per_page: i64::try_from(per_page).ok(),
    }))
}

pub(super) async fn register(
    State(app): State<App>,
    JsonBody(body): JsonBody<types::ViewingPageCreate>,
) -> Result<Json<types::ViewingPageRegistration>, SimError> {
    let mut store = app.store();
    let content_name = body.content_name.to_string();
    store.content(&content_name)?;
    if body.site_id.is_none() && body.configurations.is_none() {
        return Err(SimError::invalid("a viewing page needs site_id or configurations"));
    }
    let site_id = body.site_id.as_ref().map(require_site).transpose()?;
    if store.pages.len() >= MAX_RECORDS {
        return Err(over_limit("viewing pages", MAX_RECORDS));
    }
    // 32 characters: a UUID's hex digits.
    let signing_key = body
        .signature_required
        .then(|| uuid::Uuid::new_v4().simple().to_string());
    let now = clock::now();
    let id = new_id();
    let mut revoked_audiences = Vec::new();
    for audience in body.revoked_audiences {
        if !revoked_audiences.contains(&audience) {
            revoked_audiences.push(audience);
        }
    }
    let seq = store.next_seq();
    store.pages.push(PageRecord {
        seq,
        created: now,
        body: types::ViewingPage {
            id: Some(id.clone()),
            content_name: Some(content_name),
            site_id,
            configurations: body.configurations,
            signing_key: signing_key.clone(),
            revoked_audiences,
            status: Some(body.status),
            max_simultaneous_viewers: body.max_simultaneous_viewers,
            access_denial_timeout: body.access_denial_timeout,
            created_at: clock::timestamp(now),
            updated_at: clock::timestamp(now),
        },
    });
    Ok(Json(types::ViewingPageRegistration {
        id: Some(id),
        signing_key,
    }))
}

fn page_index(store: &super::store::Store, raw_id: &str) -> Result<usize, SimError> {
    let id = canonical_id(raw_id).ok_or_else(|| SimError::not_found(format!("viewing page {raw_id}")))?;
    store.page_index(&id)
}

pub(super) async fn get(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
) -> Result<Json<types::ViewingPage>, SimError> {
    let store = app.store();
    Ok(Json(store.pages[page_index(&store, &id)?].body.clone()))
}

/// Updates the members sent; the content and signature_required are fixed.
/// (An empty `revoked_audiences` cannot be told from an absent one: it changes nothing.)
pub(super) async fn update(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    JsonBody(body): JsonBody<types::ViewingPageUpdate>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = page_index(&store, &id)?;
    let site_id = body.site_id.as_ref().map(require_site).transpose()?;
    let page = &mut store.pages[index].body;
    if site_id.is_some() {
        page.site_id = site_id;
    }
    if body.configurations.is_some() {
        page.configurations = body.configurations;
    }
    if !body.revoked_audiences.is_empty() {
        page.revoked_audiences.clear();
        for audience in body.revoked_audiences {
            if !page.revoked_audiences.contains(&audience) {
                page.revoked_audiences.push(audience);
            }
        }
    }
    if let Some(status) = body.status {
        page.status = Some(status);
    }
    if body.max_simultaneous_viewers.is_some() {
        page.max_simultaneous_viewers = body.max_simultaneous_viewers;
    }
    if body.access_denial_timeout.is_some() {
        page.access_denial_timeout = body.access_denial_timeout;
    }
    page.updated_at = clock::timestamp(clock::now());
    Ok(done())
}

pub(super) async fn delete(State(app): State<App>, PathParams(id): PathParams<String>) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = page_index(&store, &id)?;
    store.pages.remove(index);
    Ok(done())
}

/// Adding an audience already listed changes nothing and succeeds.
pub(super) async fn add_revoked_audience(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    JsonBody(body): JsonBody<types::RevokedAudienceAdd>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = page_index(&store, &id)?;
    let page = &mut store.pages[index].body;
    let audience = body.revoked_audience.to_string();
    if page.revoked_audiences.contains(&audience) {
        return Ok(done());
    }
    if page.revoked_audiences.len() >= MAX_REVOKED_AUDIENCES {
        return Err(SimError::invalid(format!(
            "a page lists at most {MAX_REVOKED_AUDIENCES} revoked audiences"
        )));
    }
    page.revoked_audiences.push(audience);
    page.updated_at = clock::timestamp(clock::now());
    Ok(done())
}

fn escape(text: &str) -> String {
    text.chars().fold(String::with_capacity(text.len()), |mut out, c| {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
        out
    })
}

fn refusal(status: StatusCode, why: &str) -> (StatusCode, Html<String>) {
    let title = status.canonical_reason().unwrap_or("Refused");
    (
        status,
        Html(format!(
            "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1><p>{}</p></body></html>",
            escape(why)
        )),
    )
}

/// The viewing page: 200 with an HTML page, or 403 for an unsigned, tampered,
/// expired or revoked-audience URL of a page that requires signatures.
pub(super) async fn view(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    uri: Uri,
    headers: HeaderMap,
) -> (StatusCode, Html<String>) {
    let Some(host) = headers.get(header::HOST).and_then(|host| host.to_str().ok()) else {
        return refusal(StatusCode::BAD_REQUEST, "the request has no Host header");
    };
    let store = app.store();
    let Ok(index) = page_index(&store, &id) else {
        return refusal(StatusCode::NOT_FOUND, "no such page");
    };
    let page = &store.pages[index].body;
    if page.status.as_ref() != Some(&types::PageStatus::Public) {
        return refusal(StatusCode::FORBIDDEN, "the page is not public");
    }
    if let Some(key) = &page.signing_key {
        let url = match uri.query() {
            Some(query) => format!("http://{host}{MOUNT}{}?{query}", uri.path()),
            None => format!("http://{host}{MOUNT}{}", uri.path()),
        };
        let now = u64::try_from(clock::now()).unwrap_or_default();
        match signing::verify(&url, &SigningKey::from(key.as_str()), now) {
            Ok(grant) => {
                if grant
                    .audience
                    .is_some_and(|audience| page.revoked_audiences.contains(&audience))
                {
                    return refusal(StatusCode::FORBIDDEN, "this viewer's access is revoked");
                }
            }
            Err(error) => return refusal(StatusCode::FORBIDDEN, &error.to_string()),
        }
    }
    let content_name = page.content_name.as_deref().unwrap_or_default();
    let Some(content) = store.contents.get(content_name) else {
        return refusal(StatusCode::NOT_FOUND, "the page's content no longer exists");
    };
    let (title, description) = title_and_description(page);
    let title = title.or_else(|| content.body.title.clone()).unwrap_or_default();
    let description = description
        .or_else(|| content.body.description.clone())
        .unwrap_or_default();
    let noindex = page.configurations.as_ref().and_then(|c| c.noindex) == Some(true);
    (
        StatusCode::OK,
        Html(format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>{robots}</head>\
             <body><h1>{title}</h1><p>{description}</p>\
             <div class=\"player\" data-content=\"{content}\"></div></body></html>",
            title = escape(&title),
            description = escape(&description),
            content = escape(content_name),
            robots = if noindex {
                "<meta name=\"robots\" content=\"noindex\">"
            } else {
                ""
            },
        )),
    )
}
