//! What the runtime knows of each service: the table the generator writes from
//! the YAML (`<crate>::operations::TABLE`), one row per operation.

use std::fmt;

/// The three services.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    /// The encoding service.
    Encoder,
    /// The video management service.
    Vms,
    /// Viewing analytics (basic and cloud editions).
    Analytics,
}

impl Service {
    /// The short name used in paths, logs and environment variables.
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Encoder => "encoder",
            Service::Vms => "vms",
            Service::Analytics => "analytics",
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// HTTP methods the services use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

impl Method {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// Whether sending the request twice has the effect of sending it once.
    /// Only such requests are sent again after they may have reached the
    /// server ([`crate::may_send_again`] is the one place that decides).
    pub fn is_idempotent(self) -> bool {
        matches!(self, Method::Get | Method::Delete)
    }

    /// The same method as `reqwest` spells it.
    pub fn to_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One operation, as the YAML describes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OperationMeta {
    /// The YAML's `operationId`.
    pub id: &'static str,
    /// The operation's name in the document (the YAML's `summary`).
    pub summary: &'static str,
    /// The method the YAML gives it.
    pub method: Method,
    /// Path template, e.g. `/v1/tasks/{task-id}`.
    pub path: &'static str,
    /// The document does not show this route; the YAML chose it (`x-route-assumed`).
    pub route_assumed: bool,
    /// Whether the request carries the API key.
    pub authenticated: bool,
    /// The permission the key needs (the YAML's `x-permission`), when the document names one.
    pub permission: Option<&'static str>,
    /// Analytics: counts against the per-minute and concurrency limits (not only the monthly one).
    pub rate_limited: bool,
    /// Documented bounds of the query and body, checked before the request leaves.
    pub checks: &'static [crate::validate::Check],
    /// Top-level members of the success body's schema (empty when it has none):
    /// a 2xx body in the services' error shape that has none of these is an error.
    pub success_members: &'static [&'static str],
}

/// Everything the generator knows of one service that the runtime needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServiceTable {
    /// Which service.
    pub service: Service,
    /// One row per operation, in the YAML's order.
    pub operations: &'static [OperationMeta],
    /// Every error `code` the document lists (the YAML's `ErrorCode`).
    pub error_codes: &'static [&'static str],
    /// Names of the members the YAML marks `x-secret: true`: their values are
    /// replaced by `[redacted]` in every excerpt of a body the runtime makes.
    pub secret_members: &'static [&'static str],
}

impl ServiceTable {
    /// The row of `id`, if the service has such an operation.
    pub fn operation(&self, id: &str) -> Option<&'static OperationMeta> {
        self.operations.iter().find(|op| op.id == id)
    }
}
