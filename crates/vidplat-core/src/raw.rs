//! A request no operation describes (`vidplat api`): a path of the service
//! the runtime serves, sent the way every call is (the key to the base URL's
//! origin only, retries by the method's rules, the deadline, the analytics
//! quota), its answer judged by its status and read whole, undecoded.

use crate::exchange::Exchange;
use crate::failure::{CallFailure, FailureKind, NotSendable};
use crate::observe::Site;
use crate::prepared::Outgoing;
use crate::response::Response;
use crate::retry::Delivery;
use crate::runtime::Runtime;
use crate::table::{Method, OperationMeta};
use bytes::Bytes;
use reqwest::header::HeaderValue;

/// The row a request outside the table is sent under. Under the analytics
/// quota it counts against every limit, as the rate-limited reports do.
const fn raw_row(rate_limited: bool) -> OperationMeta {
    OperationMeta {
        summary: "A request no operation describes",
        rate_limited,
        error_statuses: &[400..=599],
        ..OperationMeta::bare("api", Method::Get, "")
    }
}

static RAW: OperationMeta = raw_row(false);
static RAW_RATE_LIMITED: OperationMeta = raw_row(true);

/// A request built by [`Runtime::raw`], checked, nothing sent yet.
pub struct RawRequest {
    outgoing: Outgoing,
}

impl std::fmt::Debug for RawRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL is a path the caller gave under the configured base URL; no key is in it.
        f.debug_struct("RawRequest")
            .field("method", &self.outgoing.method)
            .field("url", &self.outgoing.request.url().as_str())
            .finish_non_exhaustive()
    }
}

impl RawRequest {
    /// The request as it would go on the wire (its `authorization` header marked sensitive).
    pub fn request(&self) -> &reqwest::Request {
        &self.outgoing.request
    }

    /// Sends it: the answer's body as it came, under any 2xx; any other
    /// status is a failure, as for an operation.
    pub async fn send(self) -> Result<Response<Bytes>, CallFailure> {
        let Exchange { mut response, body, .. } = self.outgoing.exchange().await?;
        let status = response.status();
        let headers = std::mem::take(response.headers_mut());
        Ok(Response::new(status, headers, body))
    }
}

/// Why `path` cannot be a path of the service: `None` when it can.
fn refused_path(path: &str) -> Option<&'static str> {
    if !path.starts_with('/') {
        return Some("must start with `/`: a path of the service, never a URL");
    }
    if path.starts_with("//") {
        return Some("must not start with `//`, which names another host");
    }
    if path
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\' || c == '#')
    {
        return Some("must hold no space, control character, `\\` or `#`");
    }
    let (path_only, _) = path.split_once('?').unwrap_or((path, ""));
    // Decoded first: a URL parser takes `%2e%2e` for `..` too.
    let dots = |segment: &str| {
        let decoded = percent_encoding::percent_decode_str(segment).decode_utf8_lossy();
        decoded == "." || decoded == ".."
    };
    if path_only.split('/').any(dots) {
        return Some("must hold no `.` or `..` segment, which would change the path asked for");
    }
    None
}

impl Runtime {
    /// A request of `method` to `path_and_query` (`/v1/tasks/7?x=1`: a path
    /// of this service, appended to its base URL; never a URL, so the key
    /// cannot be sent to another origin), with a JSON `body`. For routes
    /// the table does not hold (a route of the account's that differs from
    /// the YAML's assumption, or one the documents add later).
    pub fn raw(&self, method: Method, path_and_query: &str, body: Option<Vec<u8>>) -> Result<RawRequest, CallFailure> {
        let inner = &*self.inner;
        let operation = if inner.quota.is_some() { &RAW_RATE_LIMITED } else { &RAW };
        let site = Site {
            service: inner.table.service,
            operation: operation.id,
            method,
        };
        let refused = |reason: NotSendable| site.failure(Delivery::NotSent, 0, FailureKind::Refused(reason));
        let unparsed = |e: url::ParseError| refused(NotSendable::UrlDoesNotParse { reason: e.to_string() });
        if let Some(rule) = refused_path(path_and_query) {
            return Err(refused(NotSendable::NotAPath { rule }));
        }
        let base = inner.base.as_str().trim_end_matches('/');
        let url = reqwest::Url::parse(&format!("{base}{path_and_query}")).map_err(unparsed)?;
        let base_url = reqwest::Url::parse(inner.base.as_str()).map_err(unparsed)?;
        // Belt and braces: the checks above leave no way out of the base URL
        // (whose path is a whole segment of the one asked for: `/encoder` is
        // not under `/enc`).
        let base_path = base_url.path().trim_end_matches('/');
        let under_base = url
            .path()
            .strip_prefix(base_path)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if url.origin() != base_url.origin() || !under_base {
            return Err(refused(NotSendable::NotAPath {
                rule: "must stay under the service's base URL",
            }));
        }
        let body = body.map(|body| (HeaderValue::from_static("application/json"), body.into()));
        Ok(RawRequest {
            outgoing: Outgoing::new(self.clone(), operation, method, url, Vec::new(), body),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::refused_path;

    #[test]
    fn only_a_path_of_the_service_is_taken() {
        assert_eq!(refused_path("/v1/tasks/7?sort=id"), None);
        for hostile in [
            "https://evil.example/v1",
            "//evil.example/v1",
            "v1/tasks",
            "/v1/../admin",
            "/v1/./tasks",
            "/%2e%2e/encoder-admin/x",
            "/v1/.%2E/x",
            "/v1/%2e/x",
            "/v1/tasks\\x",
            "/v1/tasks#x",
            "/v1/ta sks",
            "/v1/\ntasks",
        ] {
            assert!(refused_path(hostile).is_some(), "{hostile:?} taken");
        }
    }
}
