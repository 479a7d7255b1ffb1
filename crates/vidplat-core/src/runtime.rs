//! The runtime every generated client delegates its hooks to: one per client,
//! shared by its clones. Building it is in `builder.rs`, sending in `pipeline.rs`.

use crate::config::is_secure_enough;
use crate::failure::FailureKind;
use crate::quota::QuotaLimiter;
use crate::redact::{escape_controls, Redactor, REDACTED};
use crate::retry::RetryPolicy;
use crate::route::Route;
use crate::table::{Method, OperationMeta, Service, ServiceTable};
use crate::timeout::Timeouts;
use crate::transport::Transport;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Shared, cheap to clone: every clone of a client uses the same runtime.
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) table: &'static ServiceTable,
    /// Operations by id: looked up once per call.
    pub(crate) index: HashMap<&'static str, &'static OperationMeta>,
    /// `Bearer <key>`, built once and marked sensitive (never printed by reqwest or us).
    pub(crate) authorization: Option<reqwest::header::HeaderValue>,
    pub(crate) redactor: Arc<Redactor>,
    pub(crate) routes: HashMap<&'static str, Route>,
    pub(crate) transport: Arc<dyn Transport>,
    /// The runtime's own HTTP client: follows no redirect, has the connect timeout.
    pub(crate) http: reqwest::Client,
    pub(crate) retry: RetryPolicy,
    pub(crate) timeouts: Timeouts,
    pub(crate) max_response_body: u64,
    pub(crate) quota: Option<QuotaLimiter>,
    pub(crate) allow_insecure_http: bool,
    /// The base URL of the client this runtime serves, parsed once.
    pub(crate) base: OnceLock<Base>,
}

/// A client's base URL, as requests are checked against it.
#[derive(Debug)]
pub(crate) struct Base {
    raw: String,
    scheme: String,
    host: Option<String>,
    port: Option<u16>,
    /// Path without a trailing `/`.
    path: String,
    secure: bool,
}

impl Base {
    fn parse(raw: &str, allow_insecure_http: bool) -> Option<Base> {
        let url = reqwest::Url::parse(raw).ok()?;
        Some(Base {
            raw: raw.to_owned(),
            scheme: url.scheme().to_owned(),
            host: url.host_str().map(str::to_owned),
            port: url.port_or_known_default(),
            path: url.path().trim_end_matches('/').to_owned(),
            secure: is_secure_enough(&url, allow_insecure_http),
        })
    }

    fn same_origin(&self, url: &reqwest::Url) -> bool {
        url.scheme() == self.scheme
            && url.host_str() == self.host.as_deref()
            && url.port_or_known_default() == self.port
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("Runtime")
            .field("service", &inner.table.service)
            .field("api_key", &inner.authorization.as_ref().map(|_| REDACTED))
            .field(
                "routes",
                &inner
                    .routes
                    .iter()
                    .map(|(id, r)| (id, format!("{} {}", r.method, r.template)))
                    .collect::<Vec<_>>(),
            )
            .field("retry", &inner.retry)
            .field("timeouts", &inner.timeouts)
            .field("max_response_body", &inner.max_response_body)
            .field("quota", &inner.quota)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// The service it serves.
    pub fn service(&self) -> Service {
        self.inner.table.service
    }

    /// The runtime's HTTP client (it follows no redirect). Generated clients
    /// are built with it; the runtime sends every request with it.
    pub fn http_client(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// The usage limiter, when one is set.
    pub fn quota(&self) -> Option<&QuotaLimiter> {
        self.inner.quota.as_ref()
    }

    /// The row of operation `id`.
    pub fn operation(&self, id: &str) -> Option<&'static OperationMeta> {
        self.inner.index.get(id).copied()
    }

    /// The route override of an operation, if any (no lookup when there are none, the usual case).
    pub(crate) fn route(&self, id: &str) -> Option<&crate::route::Route> {
        if self.inner.routes.is_empty() {
            return None;
        }
        self.inner.routes.get(id)
    }

    /// The method and path template an operation is sent with, overrides applied.
    pub fn route_of(&self, id: &str) -> Option<(Method, String)> {
        if let Some(route) = self.route(id) {
            return Some((route.method, route.template.to_string()));
        }
        self.operation(id).map(|op| (op.method, op.path.to_owned()))
    }

    /// Readies a request before its first attempt: refuses a request
    /// that would leave the configured origin or go over plain http, attaches
    /// the key, checks the documented bounds, applies a route override.
    pub(crate) fn prepare(
        &self,
        base_url: &str,
        request: &mut reqwest::Request,
        op: &'static OperationMeta,
    ) -> Result<(), FailureKind> {
        let allow_insecure_http = self.inner.allow_insecure_http;
        // The first base URL seen is parsed once and kept (a runtime serves one client).
        if self.inner.base.get().is_none() {
            if let Some(base) = Base::parse(base_url, allow_insecure_http) {
                let _ = self.inner.base.set(base);
            }
        }
        match self.inner.base.get() {
            Some(base) if base.raw == base_url => self.prepare_with(base, request, op),
            _ => {
                let base = Base::parse(base_url, allow_insecure_http).ok_or_else(|| {
                    FailureKind::Refused(format!("base URL `{}` does not parse", escape_controls(base_url)))
                })?;
                self.prepare_with(&base, request, op)
            }
        }
    }

    fn prepare_with(
        &self,
        base: &Base,
        request: &mut reqwest::Request,
        op: &'static OperationMeta,
    ) -> Result<(), FailureKind> {
        if !base.secure {
            return Err(FailureKind::Refused(format!(
                "base URL `{}` is plain http to a host that is not a loopback address",
                escape_controls(&self.inner.redactor.text(&base.raw))
            )));
        }
        // The key goes only to the configured origin.
        if !base.same_origin(request.url()) {
            return Err(FailureKind::Refused(
                "the request's URL is not on the client's base URL".into(),
            ));
        }
        let headers = request.headers_mut();
        if let (Some(authorization), true) = (&self.inner.authorization, op.authenticated) {
            headers.insert(reqwest::header::AUTHORIZATION, authorization.clone());
        }
        if !op.checks.is_empty() {
            let query: Vec<(String, String)> = request
                .url()
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            let body = request
                .body()
                .and_then(|b| b.as_bytes())
                .and_then(|b| serde_json::from_slice(b).ok());
            if let Some((field, rule)) = crate::validate::first_violation(op.checks, &query, body.as_ref()) {
                return Err(FailureKind::InvalidInput { field, rule });
            }
        }
        if let Some(route) = self.route(op.id) {
            let unroutable =
                || FailureKind::Refused(format!("the request's path does not match the route of `{}`", op.id));
            let relative = request
                .url()
                .path()
                .strip_prefix(base.path.as_str())
                .ok_or_else(unroutable)?;
            let path = route.rewrite(relative).ok_or_else(unroutable)?;
            request.url_mut().set_path(&format!("{}{path}", base.path));
            *request.method_mut() = route.method.to_reqwest();
        }
        Ok(())
    }
}
