//! The journal: every request the services received, in order, with the
//! operation it was for and the status it got, so a test asserts what its
//! code sent. No key is kept: no header but the `x-` ones is, and a key the
//! simulator issued, wherever it was sent, and the values of the YAML's
//! `x-secret` members are replaced by `[redacted]`.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::middleware::Next;
use axum::response::Response;
use axum::{Json, Router};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use vidplat_core::ServiceTable;

/// Requests kept: the oldest go first, so a simulator left running for days
/// does not grow without bound.
pub const JOURNAL_CAPACITY: usize = 10_000;

/// Bodies kept: JSON and text bodies up to this size (a base64 field may be
/// larger; such a body is journaled without it).
const BODY_KEPT: usize = 1024 * 1024;

/// One request the simulator received ([`Simulator::journal`](crate::Simulator::journal)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Received {
    /// `encoder`, `vms` or `analytics`; `None` for a viewing page (`/hosts/…`) or an unknown path.
    pub service: Option<&'static str>,
    /// The operation's id (`get_task`) when the method and path are one of the service's.
    pub operation: Option<&'static str>,
    /// The method (`GET`).
    pub method: String,
    /// The path relative to the service's base URL (`/v1/tasks/7`), as sent;
    /// the whole path on the listener when `service` is `None`.
    pub path: String,
    /// The query string as sent (without `?`).
    pub query: Option<String>,
    /// The request's `x-` headers (operation header members such as `x-vms-client-ip`).
    pub headers: Vec<(String, String)>,
    /// A JSON or text body of at most 1 MiB, as sent; `None` otherwise.
    pub body: Option<String>,
    /// The status it was answered with (an injected fault's included).
    pub status: u16,
}

impl Received {
    /// The body read as JSON, if it is.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.body.as_deref()?).ok()
    }
}

pub(crate) struct Journal {
    entries: Mutex<VecDeque<Received>>,
    keys: Arc<crate::auth::Keys>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").finish_non_exhaustive()
    }
}

impl Journal {
    pub(crate) fn new(keys: Arc<crate::auth::Keys>) -> Self {
        Self {
            entries: Mutex::default(),
            keys,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Received>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn entries(&self) -> Vec<Received> {
        self.lock().iter().cloned().collect()
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn push(&self, received: Received) {
        let mut entries = self.lock();
        if entries.len() == JOURNAL_CAPACITY {
            entries.pop_front();
        }
        entries.push_back(received);
    }
}

/// The services' prefixes on the listener, their tables and names.
pub(crate) static TABLES: [(&str, &ServiceTable, &str); 3] = [
    ("/encoder", &vidplat_encoder::operations::TABLE, "encoder"),
    ("/vms", &vidplat_vms::operations::TABLE, "vms"),
    ("/analytics", &vidplat_analytics::operations::TABLE, "analytics"),
];

/// The service a path on the listener is under, and the path relative to its base.
fn service_of(path: &str) -> Option<(&'static ServiceTable, &'static str, &str)> {
    TABLES.iter().find_map(|(prefix, table, name)| {
        let rest = path.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with('/')).then_some((*table, *name, rest))
    })
}

/// The service's name and the operation's id of a request on the listener.
pub(crate) fn operation_of(method: &str, path: &str) -> Option<(&'static str, &'static str)> {
    let (table, name, rest) = service_of(path)?;
    table.route(method, rest).map(|(operation, _)| (name, operation.id))
}

/// The middleware writing each request and its status to the journal.
pub(crate) async fn record(State(journal): State<Arc<Journal>>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    if path.starts_with("/sim/") {
        return next.run(request).await;
    }
    let method = request.method().as_str().to_owned();
    let (service, operation, relative) = match service_of(&path) {
        Some((table, name, rest)) => (
            Some(name),
            table.route(&method, rest).map(|(operation, _)| operation.id),
            rest.to_owned(),
        ),
        None => (None, None, path.clone()),
    };
    // A key sent outside `Authorization` (an `X-Api-Key` header, `?api_key=`)
    // and the values of secret members are not kept either.
    let secrets = vidplat_core::Redactor::new(
        None,
        service_of(&path).map_or(&[], |(table, _, _)| table.secret_members),
    );
    let redact = |text: &str| secrets.text(&journal.keys.redact(text)).into_owned();
    let query = request.uri().query().map(redact);
    let headers = request
        .headers()
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("x-"))
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), redact(value.to_str().ok()?))))
        .collect();
    let (request, body) = keep_body(request).await;
    let body = body.as_deref().map(redact);
    let response = next.run(request).await;
    journal.push(Received {
        service,
        operation,
        method,
        path: relative,
        query,
        headers,
        body,
        status: response.status().as_u16(),
    });
    response
}

/// The body's text when it is JSON or text of a known length up to
/// [`BODY_KEPT`], and the request to run with the same bytes.
async fn keep_body(request: Request) -> (Request, Option<String>) {
    let textual = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("application/json") || kind.starts_with("text/"));
    let small = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<usize>().ok())
        .is_some_and(|length| length <= BODY_KEPT);
    if !(textual && small) {
        return (request, None);
    }
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, BODY_KEPT).await {
        Ok(bytes) => {
            let text = String::from_utf8(bytes.to_vec()).ok();
            (Request::from_parts(parts, Body::from(bytes)), text)
        }
        // The client broke off or lied about the length: the handler sees an empty body and refuses it.
        Err(_) => (Request::from_parts(parts, Body::empty()), None),
    }
}

/// `GET /sim/journal` (`{"data": [...]}`, oldest first) and `DELETE /sim/journal`.
pub(crate) fn control_router(journal: Arc<Journal>) -> Router {
    Router::new()
        .route("/sim/journal", axum::routing::get(list).delete(clear))
        .with_state(journal)
}

#[derive(serde::Serialize)]
struct Entries {
    data: Vec<Received>,
}

async fn list(State(journal): State<Arc<Journal>>) -> Json<Entries> {
    Json(Entries {
        data: journal.entries(),
    })
}

async fn clear(State(journal): State<Arc<Journal>>) -> axum::http::StatusCode {
    journal.clear();
    axum::http::StatusCode::NO_CONTENT
}
