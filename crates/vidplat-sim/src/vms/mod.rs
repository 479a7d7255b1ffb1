//! The simulated video management service (document 2, `openapi/vms.yaml`).
//!
//! Every operation of the YAML is routed from the generated operation table
//! (method, path, permission and documented bounds: see `crate::operations`),
//! so the routes cannot drift from the YAML; bodies are the generated types.
//!
//! Statuses of the error codes are not shown by the document; the simulator
//! answers 404 for what is not found (`MODEL_NOT_FOUND`, and `CONTENT_NOT_FOUND`
//! / `STREAM_SET_NOT_FOUND` on play), 403 for a content that cannot be played
//! (`CONTENT_INVALID_STATUS`, as documented) and for `OVER_SERVICE_LIMIT`, 409 for
//! `MODEL_ALREADY_EXISTS`, and 400 for every other rule (`FULL_*`, the deletion
//! rules, `STREAM_SET_MIXED_FORMATS`, `PARENT_CATEGORY_NOT_FOUND`, …). Updates and
//! deletions answer 204 without a body (the YAML: any 2XX without a body).
//!
//! Besides the YAML's operations, the viewing pages themselves (HTML) are
//! served at their documented address, `https://{domain}/pages/{page-id}`,
//! mapped onto the simulator's listener as `/hosts/{domain}/pages/{page-id}`
//! (see `pages`).

mod builtins;
mod catalog;
mod clock;
mod contents;
mod filters;
mod intake;
mod media;
mod pages;
mod play;
mod signature;
mod store;
mod stream_sets;
mod viewers;

use crate::operations::Operations;
use crate::{Shared, SimError};
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::Router;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use store::Store;

pub(crate) use intake::{EncodedOutput, VmsStore};

/// Brings the encoding service up to date (its tasks register contents here
/// when they become ready), so a content a task registers is here however
/// the client polls.
pub(crate) type CatchUp = Arc<dyn Fn() + Send + Sync>;

/// What every handler shares: the configuration and the service's state.
#[derive(Clone)]
struct App {
    shared: Shared,
    store: Arc<Mutex<Store>>,
    catch_up: CatchUp,
}

impl App {
    /// The state as of now (the encoding service caught up first), locked. A
    /// handler that panicked never leaves it half-changed (changes are applied
    /// after every check), so a poisoned lock is taken over.
    fn store(&self) -> MutexGuard<'_, Store> {
        // The encoding service's lock, then this one: never the other way round.
        (self.catch_up)();
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The service's API (to mount under `/vms`) and its viewing pages (to merge
/// at the listener's root: `/hosts/{domain}/pages/{page-id}`).
pub(crate) fn routers(shared: Shared, store: VmsStore, catch_up: CatchUp) -> (Router, Router) {
    builtins::load();
    let app = App {
        store: store.0,
        shared,
        catch_up,
    };
    let operations = Operations::new(&app.shared, &vidplat_vms::operations::ALL)
        .route("list_contents", contents::list)
        .route("register_content", contents::register)
        .route("get_content", contents::get)
        .route_update("update_content", contents::update)
        .route("delete_content", contents::delete)
        .route("get_content_statistics", contents::statistics)
        .route("get_play_information", play::play)
        .route("list_stream_sets", stream_sets::list)
        .route("register_stream_set", stream_sets::register)
        .route("get_stream_set", stream_sets::get)
        .route_update("update_stream_set", stream_sets::update)
        .route("delete_stream_set", stream_sets::delete)
        .route("list_streams", media::list_streams)
        .route("register_stream", media::register_stream)
        .route("register_streams_bulk", media::register_streams_bulk)
        .route("get_stream", media::get_stream)
        .route_update("update_stream", media::update_stream)
        .route("delete_stream", media::delete_stream)
        .route("list_subtitles", media::list_subtitles)
        .route("register_subtitle", media::register_subtitle)
        .route("register_subtitles_bulk", media::register_subtitles_bulk)
        .route("get_subtitle", media::get_subtitle)
        .route_update("update_subtitle", media::update_subtitle)
        .route("delete_subtitle", media::delete_subtitle)
        .route("list_posters", media::list_posters)
        .route("register_poster", media::register_poster)
        .route("register_posters_bulk", media::register_posters_bulk)
        .route("reorder_posters", media::reorder_posters)
        .route("get_poster", media::get_poster)
        .route("update_poster", media::update_poster)
        .route("delete_poster", media::delete_poster)
        .route("list_documents", media::list_documents)
        .route("register_document", media::register_document)
        .route("register_documents_bulk", media::register_documents_bulk)
        .route("get_document", media::get_document)
        .route("update_document", media::update_document)
        .route("delete_document", media::delete_document)
        .route("list_categories", catalog::list_categories)
        .route("register_category", catalog::register_category)
        .route("get_category", catalog::get_category)
        .route("update_category", catalog::update_category)
        .route("delete_category", catalog::delete_category)
        .route("list_labels", catalog::list_labels)
        .route("register_label", catalog::register_label)
        .route("get_label", catalog::get_label)
        .route("update_label", catalog::update_label)
        .route("delete_label", catalog::delete_label)
        .route("get_playlist_items", play::playlist_items)
        .route("list_viewing_pages", pages::list)
        .route("register_viewing_page", pages::register)
        .route("get_viewing_page", pages::get)
        .route("update_viewing_page", pages::update)
        .route("delete_viewing_page", pages::delete)
        .route("add_revoked_audience", pages::add_revoked_audience)
        .route("list_sites", builtins::list_sites)
        .route("get_site", builtins::get_site)
        .route("list_forward_policies", builtins::list_forward_policies)
        .route("get_forward_policy", builtins::get_forward_policy)
        .route("list_streaming_policies", builtins::list_streaming_policies)
        .route("get_streaming_policy", builtins::get_streaming_policy)
        .into_router();
    let api = operations
        .route("/pages/{*rest}", axum::routing::get(pages::not_here))
        .layer(axum::extract::DefaultBodyLimit::max(crate::operations::BODY_LIMIT))
        .with_state(app.clone());
    let pages = Router::new()
        .route("/hosts/{domain}/pages/{page-id}", axum::routing::get(pages::view))
        .with_state(app);
    (api, pages)
}

/// `axum::extract::Path`, refusing with the documented 400 body.
struct PathParams<T>(T);

impl<T, S> FromRequestParts<S> for PathParams<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = SimError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| PathParams(value))
            .map_err(|rejection| SimError::invalid(rejection.body_text()))
    }
}

/// A documented rule the request breaks: 400 with the rule's code.
fn rule(code: &str, message: impl Into<String>) -> SimError {
    SimError::new(StatusCode::BAD_REQUEST, code, message)
}

fn already_exists(message: impl Into<String>) -> SimError {
    SimError::new(StatusCode::CONFLICT, "MODEL_ALREADY_EXISTS", message)
}

fn over_limit(what: &str, limit: usize) -> SimError {
    SimError::new(
        StatusCode::FORBIDDEN,
        "OVER_SERVICE_LIMIT",
        format!("the simulator keeps at most {limit} {what}"),
    )
}

/// 204: the YAML's "any 2XX without a body" of updates and deletions.
fn done() -> StatusCode {
    StatusCode::NO_CONTENT
}

/// A new identifier (the document: UUID strings).
fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// An identifier from a path or a body in the stored form, or `None` when it is not a UUID.
fn canonical_id(raw: &str) -> Option<String> {
    uuid::Uuid::parse_str(raw).ok().map(|id| id.to_string())
}

/// The documented default page size.
const DEFAULT_PER_PAGE: u64 = 25;

/// One page of `items` and whether a next page exists (the `truncated` envelope).
fn page_of<T>(items: Vec<T>, page: u64, per_page: u64) -> (Vec<T>, bool) {
    let skip = usize::try_from(page.saturating_sub(1).saturating_mul(per_page)).unwrap_or(usize::MAX);
    let take = usize::try_from(per_page).unwrap_or(usize::MAX);
    let truncated = items.len() > skip.saturating_add(take);
    (items.into_iter().skip(skip).take(take).collect(), truncated)
}

/// A sort expression `column|asc` or `column|desc` over one of `columns`.
fn parse_sort<'a>(expression: Option<&str>, columns: &[&'a str]) -> Result<(&'a str, bool), SimError> {
    let expression = expression.unwrap_or("created_at|desc");
    let (column, direction) = expression
        .split_once('|')
        .ok_or_else(|| SimError::invalid(format!("sort `{expression}` is not `column|asc` or `column|desc`")))?;
    let descending = match direction {
        "asc" => false,
        "desc" => true,
        _ => {
            return Err(SimError::invalid(format!(
                "sort direction `{direction}` is not asc or desc"
            )))
        }
    };
    let column = columns
        .iter()
        .find(|known| **known == column)
        .ok_or_else(|| SimError::invalid(format!("cannot sort by `{column}`; columns: {}", columns.join(", "))))?;
    Ok((column, descending))
}

/// Whether `haystack` contains `needle`, ignoring case.
fn contains_ignoring_case(haystack: Option<&str>, needle: &str) -> bool {
    haystack.is_some_and(|text| text.to_lowercase().contains(&needle.to_lowercase()))
}
