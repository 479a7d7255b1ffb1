//! Viewing pages (instant pages): the API's operations, and the page itself.
//!
//! **Where a page is.** The document puts a page at
//! `https://{portal_domain}/pages/{page-id}` on the shared portal domain or
//! `https://{site_domain}/pages/{page-id}` on a site's own domain. The
//! simulator serves a page registered with a `site_id` on each of that site's
//! `domain_names`, and a page without one on the shared portal domain
//! ([`crate::PORTAL_DOMAIN`]). Those hosts are mapped onto the simulator's
//! listener by a path prefix: `https://{domain}/pages/{page-id}?{query}` is
//! answered at `http://127.0.0.1:{port}/hosts/{domain}/pages/{page-id}?{query}`
//! (`Simulator::local_page_url` rewrites one into the other). A page asked for
//! on a domain it is not on is 404.
//!
//! **Signed URLs.** A page registered with `signature_required` gets a
//! 32-character `signing_key` and answers only URLs signed with it for the
//! page's real address, `https://{domain}/pages/{page-id}`, checked by the
//! document's words alone (see `signature`: `signature` and `version` anywhere,
//! `version` optional, the rest signed as sent); a bad or missing signature, a
//! passed `expires` or a revoked `aud` gets 403.
//!
//! **Viewers.** `max_simultaneous_viewers` and `access_denial_timeout`: see
//! the `viewers` module.
//!
//! The ViewingPage schema has no member for the page's URL, so the responses
//! do not carry it.

use super::store::{PageRecord, MAX_RECORDS};
use super::viewers::{Admission, Limits, SESSION_COOKIE};
use super::{
    builtins, canonical_id, clock, contains_ignoring_case, done, new_id, over_limit, page_of, parse_sort, signature,
    App, PathParams, DEFAULT_PER_PAGE,
};
use crate::{JsonBody, QueryParams, SimError};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
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
        viewers: Default::default(),
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
/// `revoked_audiences` sent replaces the list (`[]` clears it); a nullable
/// member sent as `null` is cleared (no site, unlimited viewers, no timeout).
pub(super) async fn update(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    JsonBody(body): JsonBody<types::ViewingPageUpdate>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = page_index(&store, &id)?;
    let site_id = body.site_id.as_ref().try_map(require_site)?;
    let mut page = store.pages[index].body.clone();
    site_id.apply_to(&mut page.site_id);
    if body.configurations.is_some() {
        page.configurations = body.configurations;
    }
    if let Some(revoked_audiences) = body.revoked_audiences {
        page.revoked_audiences.clear();
        for audience in revoked_audiences {
            if !page.revoked_audiences.contains(&audience) {
                page.revoked_audiences.push(audience);
            }
        }
    }
    if let Some(status) = body.status {
        page.status = Some(status);
    }
    body.max_simultaneous_viewers
        .apply_to(&mut page.max_simultaneous_viewers);
    body.access_denial_timeout.apply_to(&mut page.access_denial_timeout);
    // As at registration: the page's title and description come from one of them.
    if page.site_id.is_none() && page.configurations.is_none() {
        return Err(SimError::invalid(
            "a viewing page needs site_id or configurations (this update would leave it neither)",
        ));
    }
    page.updated_at = clock::timestamp(clock::now());
    store.pages[index].body = page;
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

fn refusal(status: StatusCode, why: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("Refused");
    (
        status,
        Html(format!(
            "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1><p>{}</p></body></html>",
            escape(why)
        )),
    )
        .into_response()
}

/// The domains a page is served on: its site's, or the shared portal domain.
fn domains_of(page: &types::ViewingPage) -> Vec<String> {
    match page.site_id.as_deref().and_then(builtins::site) {
        Some(site) => site
            .domain_names
            .iter()
            .map(|domain| domain.to_ascii_lowercase())
            .collect(),
        None => vec![crate::PORTAL_DOMAIN.to_owned()],
    }
}

/// The session the request's cookie names, if any.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(SESSION_COOKIE)?.strip_prefix('='))
}

/// The viewing page at `https://{domain}/pages/{page-id}`, served at
/// `/hosts/{domain}/pages/{page-id}`: 200 with an HTML page, 404 for a page
/// that is not on `domain`, 403 for an unsigned, tampered, expired or
/// revoked-audience URL of a page that requires signatures, and for a viewer
/// past the simultaneous-viewer limit.
pub(super) async fn view(
    State(app): State<App>,
    PathParams((domain, id)): PathParams<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let domain = domain.to_ascii_lowercase();
    let mut store = app.store();
    let Ok(index) = page_index(&store, &id) else {
        return refusal(StatusCode::NOT_FOUND, "no such page");
    };
    let domains = domains_of(&store.pages[index].body);
    if !domains.contains(&domain) {
        return refusal(
            StatusCode::NOT_FOUND,
            &format!(
                "page {id} is not on {domain}; it is at https://{}/pages/{id}",
                domains.join(" and at https://")
            ),
        );
    }
    let page = &store.pages[index].body;
    if page.status.as_ref() != Some(&types::PageStatus::Public) {
        return refusal(StatusCode::FORBIDDEN, "the page is not public");
    }
    // The path after `/hosts/{domain}` as it was sent: the signature covers it.
    let path = uri
        .path()
        .split_once("/pages/")
        .map_or_else(|| format!("/pages/{id}"), |(_, rest)| format!("/pages/{rest}"));
    let page_url = format!("https://{domain}{path}");
    let mut audience = None;
    if let Some(key) = &page.signing_key {
        let now = u64::try_from(clock::now()).unwrap_or_default();
        match signature::check(&page_url, uri.query(), key, now) {
            Ok(Some(viewer)) if page.revoked_audiences.contains(&viewer) => {
                return refusal(StatusCode::FORBIDDEN, "this viewer's access is revoked");
            }
            Ok(viewer) => audience = viewer,
            Err(why) => return refusal(StatusCode::FORBIDDEN, &why),
        }
    }
    let content_name = page.content_name.clone().unwrap_or_default();
    let Some(content) = store.contents.get(&content_name) else {
        return refusal(StatusCode::NOT_FOUND, "the page's content no longer exists");
    };
    // "403 ... for viewing a content that is not published" (Errors), as play answers.
    if !super::play::is_published(&content.body, clock::now()) {
        return refusal(StatusCode::FORBIDDEN, "the page's content is not published");
    }
    let (title, description) = title_and_description(page);
    let title = title.or_else(|| content.body.title.clone()).unwrap_or_default();
    let description = description
        .or_else(|| content.body.description.clone())
        .unwrap_or_default();
    let noindex = page.configurations.as_ref().and_then(|c| c.noindex) == Some(true);
    let limit = page.max_simultaneous_viewers.and_then(|max| usize::try_from(max).ok());
    let limits = limit.map(|max_viewers| Limits {
        max_viewers,
        denial: page
            .access_denial_timeout
            .and_then(|seconds| u64::try_from(seconds).ok())
            .map(std::time::Duration::from_secs),
        session_lifetime: app.shared.config.viewing_session,
    });
    let html = Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>{robots}</head>\
         <body><h1>{title}</h1><p>{description}</p>\
         <div class=\"player\" data-content=\"{content}\"></div></body></html>",
        title = escape(&title),
        description = escape(&description),
        content = escape(&content_name),
        robots = if noindex {
            "<meta name=\"robots\" content=\"noindex\">"
        } else {
            ""
        },
    ));
    // Without `aud` the simultaneous-viewer limit does not apply (documented).
    let (Some(limits), Some(audience)) = (limits, audience) else {
        return (StatusCode::OK, html).into_response();
    };
    let now = crate::calendar::instant_now();
    match store.pages[index]
        .viewers
        .admit(&audience, session_cookie(&headers), limits, now)
    {
        Admission::Admitted { session } => {
            let cookie = format!("{SESSION_COOKIE}={session}; Path=/; HttpOnly");
            (StatusCode::OK, [(header::SET_COOKIE, cookie)], html).into_response()
        }
        Admission::Refused { why } => refusal(StatusCode::FORBIDDEN, &why),
    }
}

/// The old address, `{vms_url}/pages/{page-id}`: pages are not served by the
/// API; the answer says where they are.
pub(super) async fn not_here(uri: Uri) -> SimError {
    SimError::not_found(format!(
        "{}: viewing pages are not served under the API's base URL; a page is at https://{{domain}}/pages/{{page-id}}, \
         which the simulator answers at /hosts/{{domain}}/pages/{{page-id}} on its listener",
        uri.path()
    ))
}
