//! The simulated video management service (document 2, `openapi/vms.yaml`).
//!
//! Every operation of the YAML is routed from the generated operation table
//! (`vidplat_vms::operations::ALL`: method, path and documented bounds), so the
//! routes cannot drift from the YAML; bodies are the generated types.
//!
//! Before a handler runs, each operation checks the key and its permission
//! (`x-permission`), then the documented bounds of its query and JSON body
//! (number ranges, item counts, uniqueness), answering 401, 403 or 400 with the
//! documented error body.
//!
//! Statuses of the error codes are not shown by the document; the simulator
//! answers 404 for what is not found (`MODEL_NOT_FOUND`, and `CONTENT_NOT_FOUND`
//! / `STREAM_SET_NOT_FOUND` on play), 403 for a content that cannot be played
//! (`CONTENT_INVALID_STATUS`, as documented) and for `OVER_SERVICE_LIMIT`, 409 for
//! `MODEL_ALREADY_EXISTS`, and 400 for every other rule (`FULL_*`, the deletion
//! rules, `STREAM_SET_MIXED_FORMATS`, `PARENT_CATEGORY_NOT_FOUND`, …). Updates and
//! deletions answer 204 without a body (the YAML: any 2XX without a body).
//!
//! Besides the YAML's operations, `GET /pages/{page-id}` serves the viewing
//! page itself (HTML), checking signed URLs as the document describes.

mod bounds;
mod builtins;
mod catalog;
mod clock;
mod contents;
mod filters;
mod media;
mod pages;
mod play;
mod store;
mod stream_sets;

use crate::auth::Keys;
use crate::{Shared, SimError};
use axum::extract::{FromRequestParts, Request};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::IntoResponse;
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use store::Store;

/// Where lib.rs mounts this service; the viewing-page URL a client signs is
/// `http://{host}{MOUNT}/pages/{page-id}`.
const MOUNT: &str = "/vms";

/// Largest request body read: one base64 field may hold 10,485,760 characters.
const BODY_LIMIT: usize = 24 * 1024 * 1024;

/// What every handler shares: the configuration and the service's state.
#[derive(Clone)]
struct App {
    shared: Shared,
    store: Arc<Mutex<Store>>,
}

impl App {
    /// The state, locked. A handler that panicked never leaves it half-changed
    /// (changes are applied after every check), so a poisoned lock is taken over.
    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub(crate) fn router(shared: Shared) -> Router {
    builtins::load();
    let app = App {
        store: Arc::new(Mutex::new(Store::default())),
        shared,
    };
    let keys = app.shared.keys.clone();
    let operations = [
        operation(&keys, "list_contents", "content read", contents::list),
        operation(&keys, "register_content", "content register", contents::register),
        operation(&keys, "get_content", "content read", contents::get),
        operation(&keys, "update_content", "content update", contents::update),
        operation(&keys, "delete_content", "content delete", contents::delete),
        operation(&keys, "get_content_statistics", "content read", contents::statistics),
        operation(&keys, "get_play_information", "content viewing", play::play),
        operation(&keys, "list_stream_sets", "content read", stream_sets::list),
        operation(&keys, "register_stream_set", "content update", stream_sets::register),
        operation(&keys, "get_stream_set", "content read", stream_sets::get),
        operation(&keys, "update_stream_set", "content update", stream_sets::update),
        operation(&keys, "delete_stream_set", "content update", stream_sets::delete),
        operation(&keys, "list_streams", "content read", media::list_streams),
        operation(&keys, "register_stream", "content update", media::register_stream),
        operation(
            &keys,
            "register_streams_bulk",
            "content update",
            media::register_streams_bulk,
        ),
        operation(&keys, "get_stream", "content read", media::get_stream),
        operation(&keys, "update_stream", "content update", media::update_stream),
        operation(&keys, "delete_stream", "content update", media::delete_stream),
        operation(&keys, "list_subtitles", "content read", media::list_subtitles),
        operation(&keys, "register_subtitle", "content update", media::register_subtitle),
        operation(
            &keys,
            "register_subtitles_bulk",
            "content update",
            media::register_subtitles_bulk,
        ),
        operation(&keys, "get_subtitle", "content read", media::get_subtitle),
        operation(&keys, "update_subtitle", "content update", media::update_subtitle),
        operation(&keys, "delete_subtitle", "content update", media::delete_subtitle),
        operation(&keys, "list_posters", "content read", media::list_posters),
        operation(&keys, "register_poster", "content update", media::register_poster),
        operation(
            &keys,
            "register_posters_bulk",
            "content update",
            media::register_posters_bulk,
        ),
        operation(&keys, "reorder_posters", "content update", media::reorder_posters),
        operation(&keys, "get_poster", "content read", media::get_poster),
        operation(&keys, "update_poster", "content update", media::update_poster),
        operation(&keys, "delete_poster", "content update", media::delete_poster),
        operation(&keys, "list_documents", "content read", media::list_documents),
        operation(&keys, "register_document", "content update", media::register_document),
        operation(
            &keys,
            "register_documents_bulk",
            "content update",
            media::register_documents_bulk,
        ),
        operation(&keys, "get_document", "content read", media::get_document),
        operation(&keys, "update_document", "content update", media::update_document),
        operation(&keys, "delete_document", "content update", media::delete_document),
        operation(&keys, "list_categories", "category read", catalog::list_categories),
        operation(
            &keys,
            "register_category",
            "category register",
            catalog::register_category,
        ),
        operation(&keys, "get_category", "category read", catalog::get_category),
        operation(&keys, "update_category", "category update", catalog::update_category),
        operation(&keys, "delete_category", "category delete", catalog::delete_category),
        operation(&keys, "list_labels", "label read", catalog::list_labels),
        operation(&keys, "register_label", "label register", catalog::register_label),
        operation(&keys, "get_label", "label read", catalog::get_label),
        operation(&keys, "update_label", "label update", catalog::update_label),
        operation(&keys, "delete_label", "label delete", catalog::delete_label),
        operation(&keys, "get_playlist_items", "content viewing", play::playlist_items),
        operation(&keys, "list_viewing_pages", "viewing page read", pages::list),
        operation(&keys, "register_viewing_page", "viewing page register", pages::register),
        operation(&keys, "get_viewing_page", "viewing page read", pages::get),
        operation(&keys, "update_viewing_page", "viewing page update", pages::update),
        operation(&keys, "delete_viewing_page", "viewing page delete", pages::delete),
        operation(
            &keys,
            "add_revoked_audience",
            "viewing page update",
            pages::add_revoked_audience,
        ),
        operation(&keys, "list_sites", "site read", builtins::list_sites),
        operation(&keys, "get_site", "site read", builtins::get_site),
        operation(
            &keys,
            "list_forward_policies",
            "content forward policy read",
            builtins::list_forward_policies,
        ),
        operation(
            &keys,
            "get_forward_policy",
            "content forward policy read",
            builtins::get_forward_policy,
        ),
        operation(
            &keys,
            "list_streaming_policies",
            "streaming policy read",
            builtins::list_streaming_policies,
        ),
        operation(
            &keys,
            "get_streaming_policy",
            "streaming policy read",
            builtins::get_streaming_policy,
        ),
    ];
    // Operations sharing a path share one route (axum's paths use the YAML's `{name}` syntax).
    let mut routes: BTreeMap<&'static str, MethodRouter<App>> = BTreeMap::new();
    for (path, route) in operations {
        let merged = match routes.remove(path) {
            Some(existing) => existing.merge(route),
            None => route,
        };
        routes.insert(path, merged);
    }
    routes
        .into_iter()
        .fold(Router::new(), |router, (path, route)| router.route(path, route))
        .route("/pages/{page-id}", axum::routing::get(pages::view))
        .fallback(|| async { SimError::new(StatusCode::NOT_FOUND, "MODEL_NOT_FOUND", "no such path") })
        .method_not_allowed_fallback(|| async {
            SimError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "method not allowed here",
            )
        })
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

/// The route of operation `id` (method and path from the generated table) with
/// `handler` behind the key, permission and bound checks.
fn operation<H, T>(
    keys: &Arc<Keys>,
    id: &str,
    permission: &'static str,
    handler: H,
) -> (&'static str, MethodRouter<App>)
where
    H: axum::handler::Handler<T, App>,
    T: 'static,
{
    let meta = vidplat_vms::operations::ALL
        .iter()
        .find(|meta| meta.id == id)
        .unwrap_or_else(|| panic!("operation {id} is not in openapi/vms.yaml"));
    let filter = match meta.method {
        vidplat::Method::Get => MethodFilter::GET,
        vidplat::Method::Post => MethodFilter::POST,
        vidplat::Method::Put => MethodFilter::PUT,
        vidplat::Method::Patch => MethodFilter::PATCH,
        vidplat::Method::Delete => MethodFilter::DELETE,
    };
    let checks = meta.checks;
    let keys = keys.clone();
    let guard = axum::middleware::from_fn(move |request: Request, next: Next| {
        let keys = keys.clone();
        async move {
            if let Err(error) = keys.check(request.headers(), Some(permission)) {
                return error.into_response();
            }
            match bounds::check(checks, request).await {
                Ok(request) => next.run(request).await,
                Err(error) => error.into_response(),
            }
        }
    });
    (meta.path, on(filter, handler).route_layer(guard))
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
