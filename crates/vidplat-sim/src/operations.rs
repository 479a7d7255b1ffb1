//! Routing from a service's generated operation table (`operations::ALL`):
//! each operation's method and path come from the YAML, and before its handler
//! runs the request passes the key check (401), the operation's `x-permission`
//! (403), then the YAML's bounds on query and body (400), checked by the
//! client's own `vidplat_core::first_violation`: the simulator refuses exactly
//! what a vidplat client refuses before sending. (The generated request types
//! already refuse strings breaking a length or pattern.)

use crate::{Shared, SimError, Updates};
use axum::extract::{FromRequestParts, Request};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::IntoResponse;
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use serde_json::Value;
use std::collections::BTreeMap;
use vidplat_core::{Method, OperationMeta, RequestBody};

/// Largest request body read: one base64 field may hold 10,485,760 characters.
pub(crate) const BODY_LIMIT: usize = 24 * 1024 * 1024;

/// The routes of one service, built operation by operation.
pub(crate) struct Operations<S> {
    shared: Shared,
    table: &'static [OperationMeta],
    routes: BTreeMap<&'static str, MethodRouter<S>>,
}

impl<S: Clone + Send + Sync + 'static> Operations<S> {
    pub(crate) fn new(shared: &Shared, table: &'static [OperationMeta]) -> Self {
        Self {
            shared: shared.clone(),
            table,
            routes: BTreeMap::new(),
        }
    }

    /// Routes operation `id` (method and path from the table) to `handler`.
    pub(crate) fn route<H, T>(self, id: &str, handler: H) -> Self
    where
        H: axum::handler::Handler<T, S>,
        T: 'static,
    {
        let path = self.meta(id).path;
        self.route_at(id, path, handler)
    }

    /// Routes update operation `id` like [`Operations::route`]. Under
    /// [`Updates::Reset`] an update stands for a registration (its row's
    /// `registered_by`), so a body leaving out a member that registration
    /// requires (and the update may carry) is refused, each such member named.
    pub(crate) fn route_update<H, T>(self, id: &str, handler: H) -> Self
    where
        H: axum::handler::Handler<T, S>,
        T: 'static,
    {
        let meta = self.meta(id);
        let registration = meta
            .registered_by
            .unwrap_or_else(|| panic!("`{id}` is routed as an update, and its row names no registration"));
        let (path, also_required) = (meta.path, self.meta(registration).body);
        let guard = match self.shared.config.updates {
            Updates::Reset => also_required,
            Updates::Keep => None,
        };
        self.add(id, path, handler, guard)
    }

    /// Like [`Operations::route`], at an axum form of the YAML's path (a wildcard
    /// where a parameter may arrive with an unencoded `/`).
    pub(crate) fn route_at<H, T>(self, id: &str, path: &'static str, handler: H) -> Self
    where
        H: axum::handler::Handler<T, S>,
        T: 'static,
    {
        self.add(id, path, handler, None)
    }

    fn add<H, T>(mut self, id: &str, path: &'static str, handler: H, also_required: Option<RequestBody>) -> Self
    where
        H: axum::handler::Handler<T, S>,
        T: 'static,
    {
        let meta = self.meta(id);
        let filter = match meta.method {
            Method::Get => MethodFilter::GET,
            Method::Post => MethodFilter::POST,
            Method::Put => MethodFilter::PUT,
            Method::Patch => MethodFilter::PATCH,
            Method::Delete => MethodFilter::DELETE,
        };
        let (keys, permission) = (self.shared.keys.clone(), meta.permission);
        let guard = axum::middleware::from_fn(move |request: Request, next: Next| {
            let keys = keys.clone();
            async move {
                if let Err(error) = keys.check(request.headers(), permission) {
                    return error.into_response();
                }
                match within_bounds(meta, also_required, request).await {
                    Ok(request) => next.run(request).await,
                    Err(error) => error.into_response(),
                }
            }
        });
        let route = on(filter, handler).route_layer(guard);
        // Operations sharing a path share one route.
        let merged = match self.routes.remove(path) {
            Some(existing) => existing.merge(route),
            None => route,
        };
        self.routes.insert(path, merged);
        self
    }

    pub(crate) fn into_router(self) -> Router<S> {
        let router = self
            .routes
            .into_iter()
            .fold(Router::new(), |router, (path, route)| router.route(path, route));
        with_fallbacks(router)
    }

    fn meta(&self, id: &str) -> &'static OperationMeta {
        self.table
            .iter()
            .find(|meta| meta.id == id)
            .unwrap_or_else(|| panic!("operation {id} is not in the service's YAML"))
    }
}

/// Unknown paths and methods answer with the documented error body too.
pub(crate) fn with_fallbacks<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router
        .fallback(|| async { SimError::not_found("operation") })
        .method_not_allowed_fallback(|| async {
            SimError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "the method is not allowed on this path",
            )
        })
}

/// The request unchanged, or 400 naming the first member the body's schema
/// does not have, or every required member missing (those `also_required`
/// requires too, where the body's schema has them), or every `null` on a
/// member that is not nullable, or the first broken bound. A body that is not JSON is left to the handler's extractor, which refuses it.
async fn within_bounds(
    meta: &'static OperationMeta,
    also_required: Option<RequestBody>,
    request: Request,
) -> Result<Request, SimError> {
    let checks = meta.checks;
    let schema = meta.body.filter(|body| body.json);
    if checks.is_empty() && schema.is_none() {
        return Ok(request);
    }
    let (mut parts, body) = request.into_parts();
    let query = match axum::extract::Query::<Vec<(String, String)>>::from_request_parts(&mut parts, &()).await {
        Ok(axum::extract::Query(pairs)) => pairs,
        Err(rejection) => return Err(SimError::invalid(rejection.body_text())),
    };
    let bytes = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map_err(|error| SimError::invalid(format!("unreadable body: {error}")))?;
    let json = serde_json::from_slice::<Value>(&bytes).ok();
    if let (Some(schema), Some(json)) = (schema, &json) {
        if let Some(unknown) = schema.unknown_member(json) {
            // The documents show no such member here: a service may refuse it or
            // drop it unread. Refused, so that code relying on either fails here first.
            return Err(SimError::invalid(format!(
                "`{unknown}` is not a member of this request's body (the documents show no such member here)"
            )));
        }
        let mut missing = schema.missing(json);
        if let Some(registration) = also_required {
            for path in registration.missing(json) {
                if schema.kind_of(&without_indices(&path)).is_some() && !missing.contains(&path) {
                    missing.push(path);
                }
            }
        }
        if !missing.is_empty() {
            let missing: Vec<&str> = missing.iter().map(String::as_str).collect();
            return Err(SimError::invalid(crate::error::missing_members(&missing)));
        }
        // The generated request types read most `null`s as a member left out:
        // refused here, so that no `null` is ignored.
        let nulls = schema.null_not_allowed(json);
        if !nulls.is_empty() {
            let nulls: Vec<&str> = nulls.iter().map(String::as_str).collect();
            return Err(SimError::invalid(crate::error::members_breaking(
                &nulls,
                "must not be null",
                "must not be null",
            )));
        }
    }
    if let Some((field, rule)) = vidplat_core::first_violation(checks, &query, json.as_ref()) {
        return Err(SimError::invalid(format!("`{field}` {rule}")));
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// `streams[1].path` as the table names its members: `streams[].path`.
fn without_indices(path: &str) -> String {
    let mut in_index = false;
    path.chars()
        .filter(|c| {
            match c {
                '[' => in_index = true,
                ']' => in_index = false,
                _ if in_index => return false,
                _ => {}
            }
            true
        })
        .collect()
}
