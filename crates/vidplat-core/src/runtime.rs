//! The runtime every generated client sends through: one per client, shared
//! by its clones. Building it is in `builder.rs`; a request is described in
//! `request.rs` and sent by `exchange.rs`.

use crate::config::BaseUrl;
use crate::quota::limiter::QuotaLimiter;
use crate::redact::{Redactor, REDACTED};
use crate::retry::RetryPolicy;
use crate::route::Routes;
use crate::table::{Method, OperationMeta, Service, ServiceTable};
use crate::timeout::Timeouts;
use crate::transport::Transport;
use std::fmt;
use std::sync::Arc;

/// Shared, cheap to clone: every clone of a client uses the same runtime.
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) table: &'static ServiceTable,
    /// Checked once, when the runtime was built.
    pub(crate) base: BaseUrl,
    /// `Bearer <key>`, built once and marked sensitive (never printed by reqwest or us).
    pub(crate) authorization: Option<reqwest::header::HeaderValue>,
    pub(crate) redactor: Arc<Redactor>,
    /// Checked once, when the runtime was built.
    pub(crate) routes: Routes,
    pub(crate) transport: Arc<dyn Transport>,
    /// The runtime's own HTTP client: follows no redirect, has the connect timeout.
    pub(crate) http: reqwest::Client,
    pub(crate) retry: RetryPolicy,
    pub(crate) timeouts: Timeouts,
    pub(crate) max_response_body: u64,
    pub(crate) quota: Option<QuotaLimiter>,
    /// Whether each attempt carries a W3C `traceparent` header.
    pub(crate) traceparent: bool,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("Runtime")
            .field("service", &inner.table.service)
            .field("base_url", &inner.base.as_str())
            .field("api_key", &inner.authorization.as_ref().map(|_| REDACTED))
            .field("routes", &inner.routes)
            .field("retry", &inner.retry)
            .field("timeouts", &inner.timeouts)
            .field("max_response_body", &inner.max_response_body)
            .field("quota", &inner.quota)
            .field("traceparent", &inner.traceparent)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// The service it serves.
    pub fn service(&self) -> Service {
        self.inner.table.service
    }

    /// The service's table of operations.
    pub fn table(&self) -> &'static ServiceTable {
        self.inner.table
    }

    /// The base URL every request goes to (without a trailing `/`).
    pub fn base_url(&self) -> &str {
        self.inner.base.as_str()
    }

    /// The runtime's HTTP client (it follows no redirect); the runtime sends every request with it.
    pub fn http_client(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// The usage limiter, when one is set.
    pub fn quota(&self) -> Option<&QuotaLimiter> {
        self.inner.quota.as_ref()
    }

    /// The route overrides.
    pub fn routes(&self) -> &Routes {
        &self.inner.routes
    }

    /// The method and path template an operation is sent with, overrides applied.
    pub fn route_of(&self, id: &str) -> Option<(Method, String)> {
        let own = || self.inner.table.operation(id).map(|op| (op.method, op.path));
        let (method, template) = self.inner.routes.of(id).or_else(own)?;
        Some((method, template.to_owned()))
    }

    /// The method and template `operation` is sent with: its override, else the YAML's.
    pub(crate) fn route(&self, operation: &'static OperationMeta) -> (Method, &str) {
        self.inner
            .routes
            .of(operation.id)
            .unwrap_or((operation.method, operation.path))
    }
}
