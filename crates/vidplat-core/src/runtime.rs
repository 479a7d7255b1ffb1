//! The runtime every generated client delegates its hooks to.

use crate::operation::{Method, OperationMeta, RouteTemplate, Service};
use crate::quota::{QuotaLimiter, QuotaRefusal};
use crate::retry::{is_retryable_status, parse_retry_after, RetryPolicy};
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future of a response, as a [`Transport`] returns it.
pub type ResponseFuture<'a> = Pin<Box<dyn Future<Output = reqwest::Result<reqwest::Response>> + Send + 'a>>;

/// Sends a prepared request. The default sends it with the client's `reqwest::Client`;
/// tests substitute one that records the request and answers without a network.
pub trait Transport: Send + Sync + 'static {
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a>;
}

struct Network;

impl Transport for Network {
    fn send<'a>(&'a self, client: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        Box::pin(client.execute(request))
    }
}

/// Shared, cheap to clone: every clone of a client uses the same runtime.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

struct Inner {
    service: Service,
    operations: &'static [OperationMeta],
    /// `Bearer <key>`, built once and marked sensitive (never printed by reqwest or us).
    authorization: Option<reqwest::header::HeaderValue>,
    routes: HashMap<&'static str, Route>,
    transport: Arc<dyn Transport>,
    retry: RetryPolicy,
    /// Time allowed for one attempt; the call's remaining budget caps it.
    attempt_timeout: Option<std::time::Duration>,
    quota: Option<QuotaLimiter>,
}

/// The header of the 429 the runtime answers itself when its limiter refuses a
/// call in fail-fast mode (or the month is spent): which quota, as in [`QuotaKind`].
pub const LOCAL_QUOTA_HEADER: &str = "x-vidplat-local-quota";

/// Where an operation is sent when it was overridden.
#[derive(Clone, Debug)]
struct Route {
    method: Method,
    template: RouteTemplate,
    default: RouteTemplate,
}

/// A configuration mistake found while building a runtime, or a request the runtime refuses.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RuntimeError {
    UnknownOperation {
        service: Service,
        operation: String,
    },
    InvalidRoute {
        operation: String,
        reason: String,
    },
    /// The request's path did not match its operation's template (cannot happen with generated clients).
    UnroutableRequest {
        operation: String,
        path: String,
    },
    /// The API key cannot be sent as a header value (it holds a control character, say).
    InvalidApiKey,
    /// A value breaks a documented bound; the request was not sent.
    InvalidInput {
        field: String,
        rule: String,
    },
    /// The client-side limiter refused the call (fail-fast mode); the request was not sent.
    QuotaExhausted {
        quota: QuotaKind,
        retry_after_ms: Option<u64>,
    },
}

/// Which client-side usage limit refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuotaKind {
    PerMinute,
    Concurrency,
    Month,
}

/// progenitor's hooks can only fail with `Error::Custom(String)`; the runtime's
/// errors travel through it with this prefix so the facade can restore them.
const CUSTOM_PREFIX: &str = "vidplat-runtime:";

impl RuntimeError {
    /// The form carried in progenitor's `Error::Custom`.
    pub fn to_custom(&self) -> String {
        format!("{CUSTOM_PREFIX}{}", serde_json::to_string(self).unwrap_or_default())
    }

    /// Restores an error made by [`RuntimeError::to_custom`].
    pub fn from_custom(custom: &str) -> Option<Self> {
        serde_json::from_str(custom.strip_prefix(CUSTOM_PREFIX)?).ok()
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::UnknownOperation { service, operation } => {
                write!(f, "the {service} service has no operation `{operation}`")
            }
            RuntimeError::InvalidRoute { operation, reason } => write!(f, "route for `{operation}`: {reason}"),
            RuntimeError::InvalidApiKey => f.write_str("the API key is not a valid HTTP header value"),
            RuntimeError::UnroutableRequest { operation, path } => {
                write!(f, "request path `{path}` does not match the route of `{operation}`")
            }
            RuntimeError::InvalidInput { field, rule } => write!(f, "`{field}` {rule}"),
            RuntimeError::QuotaExhausted { quota, .. } => write!(f, "client-side {quota:?} quota exhausted"),
        }
    }
}

impl std::error::Error for RuntimeError {}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("service", &self.inner.service)
            .field("api_key", &self.inner.authorization.as_ref().map(|_| "[redacted]"))
            .field(
                "routes",
                &self
                    .inner
                    .routes
                    .iter()
                    .map(|(id, r)| (id, format!("{} {}", r.method, r.template)))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Runtime {
    pub fn builder(service: Service, operations: &'static [OperationMeta]) -> RuntimeBuilder {
        RuntimeBuilder {
            service,
            operations,
            api_key: None,
            routes: Vec::new(),
            transport: Arc::new(Network),
            retry: RetryPolicy::default(),
            attempt_timeout: None,
            quota: None,
        }
    }

    pub fn service(&self) -> Service {
        self.inner.service
    }

    /// The usage limiter, when one is set.
    pub fn quota(&self) -> Option<&QuotaLimiter> {
        self.inner.quota.as_ref()
    }

    pub fn operation(&self, id: &str) -> Option<&'static OperationMeta> {
        self.inner.operations.iter().find(|op| op.id == id)
    }

    /// The method and path template an operation is sent with, overrides applied.
    pub fn route_of(&self, id: &str) -> Option<(Method, String)> {
        if let Some(route) = self.inner.routes.get(id) {
            return Some((route.method, route.template.to_string()));
        }
        self.operation(id).map(|op| (op.method, op.path.to_owned()))
    }

    /// Runs before a request leaves: credentials, route override, and removal
    /// of the `api-version` header progenitor adds (the services define none).
    pub fn prepare(
        &self,
        base_url: &str,
        request: &mut reqwest::Request,
        operation_id: &str,
    ) -> Result<(), RuntimeError> {
        let headers = request.headers_mut();
        headers.remove("api-version");
        let op = self.operation(operation_id);
        if let Some(authorization) = &self.inner.authorization {
            if op.is_none_or(|op| op.authenticated) {
                headers.insert(reqwest::header::AUTHORIZATION, authorization.clone());
            }
        }
        if let Some(op) = op.filter(|op| !op.checks.is_empty()) {
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
                return Err(RuntimeError::InvalidInput { field, rule });
            }
        }
        if let Some(route) = self.inner.routes.get(operation_id) {
            self.reroute(base_url, request, operation_id, route)?;
        }
        Ok(())
    }

    fn reroute(
        &self,
        base_url: &str,
        request: &mut reqwest::Request,
        operation_id: &str,
        route: &Route,
    ) -> Result<(), RuntimeError> {
        let unroutable = || RuntimeError::UnroutableRequest {
            operation: operation_id.into(),
            path: request.url().path().into(),
        };
        let base_path = reqwest::Url::parse(base_url)
            .map(|u| u.path().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        let full_path = request.url().path().to_owned();
        let relative = full_path.strip_prefix(base_path.as_str()).ok_or_else(unroutable)?;
        let values = route.default.capture(relative).ok_or_else(unroutable)?;
        let new_path = route.template.render(&values).ok_or_else(unroutable)?;
        request.url_mut().set_path(&format!("{base_path}{new_path}"));
        *request.method_mut() = route.method.to_reqwest();
        Ok(())
    }

    /// Sends the request: retries what is safe to retry, normalises error
    /// bodies, and records one tracing span for the whole call.
    pub async fn execute(
        &self,
        client: &reqwest::Client,
        request: reqwest::Request,
        operation_id: &str,
    ) -> reqwest::Result<reqwest::Response> {
        let span = tracing::info_span!(
            "vidplat.call",
            service = %self.inner.service,
            operation = operation_id,
            method = %request.method(),
            path = request.url().path(),
            attempts = tracing::field::Empty,
            status = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
            quota_wait_ms = tracing::field::Empty,
        );
        let started = tokio::time::Instant::now();
        let result =
            tracing::Instrument::instrument(self.send_with_retries(client, request, operation_id), span.clone()).await;
        span.record("latency_ms", started.elapsed().as_millis() as u64);
        match &result {
            Ok(response) => span.record("status", response.status().as_u16()),
            Err(error) => span.record("status", tracing::field::display(error_kind(error))),
        };
        result
    }

    async fn send_with_retries(
        &self,
        client: &reqwest::Client,
        request: reqwest::Request,
        operation_id: &str,
    ) -> reqwest::Result<reqwest::Response> {
        let policy = &self.inner.retry;
        let idempotent = matches!(*request.method(), reqwest::Method::GET | reqwest::Method::DELETE);
        let started = tokio::time::Instant::now();
        let deadline = started + policy.total_timeout;
        let mut next = Some(request);
        let mut attempt: u32 = 0;
        let mut quota_wait = std::time::Duration::ZERO;
        loop {
            let Some(mut request) = next.take() else {
                unreachable!("a request is kept for every attempt")
            };
            // No attempt outlives the call's total budget.
            // (A request's timeout replaces the HTTP client's, so the attempt limit is applied here.)
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let limit = self.inner.attempt_timeout.map_or(remaining, |t| t.min(remaining));
            if request.timeout().is_none_or(|t| *t > limit) {
                *request.timeout_mut() = Some(limit);
            }
            attempt += 1;
            tracing::Span::current().record("attempts", attempt);
            // Keep a copy for another attempt (streaming bodies cannot be copied: one attempt).
            let spare = if attempt < policy.max_attempts {
                request.try_clone()
            } else {
                None
            };
            let _permit = match &self.inner.quota {
                Some(limiter) => match self.operation(operation_id) {
                    Some(op) => match limiter.acquire(op).await {
                        Ok(permit) => {
                            quota_wait += permit.waited;
                            tracing::Span::current().record("quota_wait_ms", quota_wait.as_millis() as u64);
                            Some(permit)
                        }
                        Err(refusal) => return Ok(refused(refusal)),
                    },
                    None => None,
                },
                None => None,
            };
            let outcome = self.inner.transport.send(client, request).await;
            let wait = match &outcome {
                Err(error) => {
                    // A connection that never opened carried nothing: safe for every method.
                    let unsent = error.is_connect();
                    if !(unsent || idempotent) {
                        None
                    } else {
                        Some(policy.backoff(attempt - 1))
                    }
                }
                Ok(response) if idempotent && is_retryable_status(response.status().as_u16()) => {
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
                    let backoff = policy.backoff(attempt - 1);
                    Some(retry_after.map_or(backoff, |after| after.max(backoff)))
                }
                Ok(_) => None,
            };
            match (wait, spare) {
                (Some(wait), Some(spare)) if tokio::time::Instant::now() + wait < deadline => {
                    tracing::debug!(
                        attempt,
                        wait_ms = wait.as_millis() as u64,
                        cause = %outcome.as_ref().map(|r| r.status().to_string()).unwrap_or_else(|e| error_kind(e).to_owned()),
                        "retrying {operation_id}"
                    );
                    tokio::time::sleep(wait).await;
                    next = Some(spare);
                }
                _ => return normalise_error_body(outcome?).await,
            }
        }
    }
}

/// The answer to a call the limiter refused: a 429 that never left the client.
fn refused(refusal: QuotaRefusal) -> reqwest::Response {
    let quota = serde_json::to_value(refusal.quota)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    tracing::debug!(quota = %quota, "refused by the client-side limiter");
    let body = serde_json::json!({
        "code": "TOO_MANY_REQUESTS",
        "message": format!("client-side {quota} limit reached; the request was not sent"),
    });
    let mut response = http::Response::builder()
        .status(429)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(LOCAL_QUOTA_HEADER, quota);
    if let Some(after) = refusal.retry_after {
        response = response.header(reqwest::header::RETRY_AFTER, after.as_secs_f64().ceil().to_string());
    }
    let response = response.body(body.to_string()).expect("a static response is valid");
    reqwest::Response::from(response)
}

fn error_kind(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timeout"
    } else if error.is_connect() {
        "connect"
    } else if error.is_body() || error.is_decode() {
        "body"
    } else {
        "transport"
    }
}

/// An error answer whose body is not a JSON object (an HTML 500 page from a
/// proxy, say) becomes `{"code": null, "message": "..."}`, so it still decodes
/// as the services' error body and keeps its status.
async fn normalise_error_body(response: reqwest::Response) -> reqwest::Result<reqwest::Response> {
    if response.status().as_u16() < 400 {
        return Ok(response);
    }
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.bytes().await?;
    let is_object = matches!(
        serde_json::from_slice::<serde_json::Value>(&body),
        Ok(serde_json::Value::Object(_))
    );
    let body = if is_object {
        body.to_vec()
    } else {
        let excerpt: String = String::from_utf8_lossy(&body).chars().take(200).collect();
        let message = format!("HTTP {status} with a body that is not a JSON error: {excerpt}");
        serde_json::to_vec(&serde_json::json!({"code": null, "message": message})).unwrap_or_default()
    };
    let mut rebuilt = http::Response::builder().status(status);
    for (name, value) in &headers {
        if name != reqwest::header::CONTENT_LENGTH && name != reqwest::header::CONTENT_TYPE {
            rebuilt = rebuilt.header(name, value);
        }
    }
    let rebuilt = rebuilt
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .expect("status and headers come from a valid response");
    Ok(reqwest::Response::from(rebuilt))
}

/// Builds a [`Runtime`]; route overrides are checked here, before any request.
pub struct RuntimeBuilder {
    service: Service,
    operations: &'static [OperationMeta],
    api_key: Option<SecretString>,
    routes: Vec<(String, Method, String)>,
    transport: Arc<dyn Transport>,
    retry: RetryPolicy,
    /// Time allowed for one attempt; the call's remaining budget caps it.
    attempt_timeout: Option<std::time::Duration>,
    quota: Option<QuotaLimiter>,
}

impl RuntimeBuilder {
    /// Puts every call through a usage limiter (analytics).
    pub fn quota(mut self, limiter: QuotaLimiter) -> Self {
        self.quota = Some(limiter);
        self
    }

    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Time allowed for one attempt (a request's own timeout, when shorter, wins).
    pub fn attempt_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.attempt_timeout = Some(timeout);
        self
    }

    pub fn api_key(mut self, key: SecretString) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Replaces the network (for tests and recording).
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = transport;
        self
    }

    /// Sends `operation_id` with `method` to `template` instead of the YAML's route.
    pub fn route(mut self, operation_id: impl Into<String>, method: Method, template: impl Into<String>) -> Self {
        self.routes.push((operation_id.into(), method, template.into()));
        self
    }

    pub fn build(self) -> Result<Runtime, RuntimeError> {
        let authorization = match &self.api_key {
            Some(key) => {
                let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", key.expose_secret()))
                    .map_err(|_| RuntimeError::InvalidApiKey)?;
                value.set_sensitive(true);
                Some(value)
            }
            None => None,
        };
        let mut routes = HashMap::new();
        for (id, method, template) in self.routes {
            let op = self
                .operations
                .iter()
                .find(|op| op.id == id)
                .ok_or_else(|| RuntimeError::UnknownOperation {
                    service: self.service,
                    operation: id.clone(),
                })?;
            let invalid = |reason: String| RuntimeError::InvalidRoute {
                operation: id.clone(),
                reason,
            };
            let template = RouteTemplate::parse(&template).map_err(invalid)?;
            let default = RouteTemplate::parse(op.path).map_err(invalid)?;
            if !template.same_params(&default) {
                return Err(invalid(format!(
                    "template `{template}` has parameters {:?}, the operation has {:?}",
                    template.params(),
                    default.params()
                )));
            }
            routes.insert(
                op.id,
                Route {
                    method,
                    template,
                    default,
                },
            );
        }
        Ok(Runtime {
            inner: Arc::new(Inner {
                service: self.service,
                operations: self.operations,
                authorization,
                routes,
                transport: self.transport,
                retry: self.retry,
                attempt_timeout: self.attempt_timeout,
                quota: self.quota,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const OPS: &[OperationMeta] = &[
        OperationMeta {
            id: "get_task",
            summary: "Get task",
            method: Method::Get,
            path: "/v1/tasks/{task-id}",
            route_assumed: false,
            authenticated: true,
            permission: None,
            rate_limited: false,
            checks: &[],
        },
        OperationMeta {
            id: "realtime",
            summary: "real-time",
            method: Method::Get,
            path: "/v1/realtime",
            route_assumed: false,
            authenticated: false,
            permission: None,
            rate_limited: false,
            checks: &[],
        },
    ];

    fn request(url: &str) -> reqwest::Request {
        let mut request = reqwest::Request::new(reqwest::Method::GET, url.parse().unwrap());
        request.headers_mut().insert("api-version", "1.0".parse().unwrap());
        request
    }

    #[test]
    fn adds_bearer_and_drops_api_version() {
        let rt = Runtime::builder(Service::Encoder, OPS)
            .api_key("k-123".into())
            .build()
            .unwrap();
        let mut req = request("http://h/base/v1/tasks/7");
        rt.prepare("http://h/base", &mut req, "get_task").unwrap();
        assert_eq!(req.headers()["authorization"], "Bearer k-123");
        assert!(req.headers()["authorization"].is_sensitive());
        assert!(!req.headers().contains_key("api-version"));
        let mut unauth = request("http://h/base/v1/realtime");
        rt.prepare("http://h/base", &mut unauth, "realtime").unwrap();
        assert!(!unauth.headers().contains_key("authorization"));
        assert!(!format!("{rt:?}").contains("k-123"));
    }

    #[test]
    fn reroutes_with_captured_parameters() {
        let rt = Runtime::builder(Service::Encoder, OPS)
            .route("get_task", Method::Post, "/v2/task/{task-id}/show")
            .build()
            .unwrap();
        let mut req = request("http://h/base/v1/tasks/7?x=1");
        rt.prepare("http://h/base/", &mut req, "get_task").unwrap();
        assert_eq!(req.url().as_str(), "http://h/base/v2/task/7/show?x=1");
        assert_eq!(req.method(), reqwest::Method::POST);
        assert_eq!(
            rt.route_of("get_task"),
            Some((Method::Post, "/v2/task/{task-id}/show".into()))
        );
    }

    #[test]
    fn errors_survive_the_custom_string() {
        let error = RuntimeError::InvalidInput {
            field: "priority".into(),
            rule: "must be at most 99".into(),
        };
        assert_eq!(RuntimeError::from_custom(&error.to_custom()), Some(error));
        assert_eq!(RuntimeError::from_custom("something else"), None);
    }

    #[test]
    fn an_unsendable_key_fails_at_build_time_without_showing_it() {
        let error = Runtime::builder(Service::Encoder, OPS)
            .api_key("k-123\nsecret".into())
            .build()
            .unwrap_err();
        assert_eq!(error, RuntimeError::InvalidApiKey);
        assert!(!error.to_string().contains("secret"));
    }

    #[test]
    fn bad_overrides_fail_at_build_time() {
        let unknown = Runtime::builder(Service::Encoder, OPS)
            .route("nope", Method::Get, "/x")
            .build()
            .unwrap_err();
        assert_eq!(unknown.to_string(), "the encoder service has no operation `nope`");
        let params = Runtime::builder(Service::Encoder, OPS)
            .route("get_task", Method::Get, "/v1/tasks/{id}")
            .build()
            .unwrap_err();
        assert!(matches!(params, RuntimeError::InvalidRoute { .. }), "{params}");
    }

    /// Answers from a script, counting sends; never touches the network.
    struct Scripted {
        answers: std::sync::Mutex<Vec<(u16, Option<&'static str>)>>,
        sent: std::sync::atomic::AtomicUsize,
    }

    impl Scripted {
        fn new(answers: &[(u16, Option<&'static str>)]) -> Arc<Self> {
            Arc::new(Self {
                answers: std::sync::Mutex::new(answers.iter().rev().copied().collect()),
                sent: Default::default(),
            })
        }
        fn sent(&self) -> usize {
            self.sent.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    impl Transport for Scripted {
        fn send<'a>(&'a self, _: &'a reqwest::Client, _: reqwest::Request) -> ResponseFuture<'a> {
            self.sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let (status, retry_after) = self.answers.lock().unwrap().pop().expect("script long enough");
            let mut response = http::Response::builder().status(status);
            if let Some(after) = retry_after {
                response = response.header("retry-after", after);
            }
            let response = response.body(r#"{"code":"X","message":null}"#).unwrap();
            Box::pin(async move { Ok(reqwest::Response::from(response)) })
        }
    }

    fn runtime(script: Arc<Scripted>, policy: RetryPolicy) -> Runtime {
        Runtime::builder(Service::Encoder, OPS)
            .transport(script)
            .retry(policy)
            .build()
            .unwrap()
    }

    fn quick() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            total_timeout: Duration::from_secs(60),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn get_is_retried_and_retry_after_is_honoured() {
        let script = Scripted::new(&[(503, Some("7")), (429, Some("3")), (200, None)]);
        let rt = runtime(script.clone(), quick());
        let started = tokio::time::Instant::now();
        let response = rt
            .execute(&reqwest::Client::new(), request("http://h/v1/tasks/1"), "get_task")
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(script.sent(), 3);
        let waited = started.elapsed();
        // Retry-After is a floor; the jittered backoff (at most 100 ms, then 200 ms) may add to it.
        assert!(
            waited >= Duration::from_secs(10) && waited <= Duration::from_millis(10_300),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn post_put_patch_are_never_sent_twice_after_an_answer() {
        for method in [reqwest::Method::POST, reqwest::Method::PUT, reqwest::Method::PATCH] {
            let script = Scripted::new(&[(503, None), (200, None)]);
            let rt = runtime(script.clone(), quick());
            let mut req = request("http://h/v1/tasks");
            *req.method_mut() = method.clone();
            let response = rt.execute(&reqwest::Client::new(), req, "get_task").await.unwrap();
            assert_eq!(response.status(), 503, "{method}");
            assert_eq!(script.sent(), 1, "{method}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn attempts_and_total_time_are_capped() {
        let script = Scripted::new(&[(503, None); 10]);
        let rt = runtime(script.clone(), quick());
        let response = rt
            .execute(&reqwest::Client::new(), request("http://h/v1/tasks/1"), "get_task")
            .await
            .unwrap();
        assert_eq!((response.status().as_u16(), script.sent()), (503, 4));

        // A Retry-After beyond the total budget ends the call at once with the answer.
        let script = Scripted::new(&[(503, Some("120")), (200, None)]);
        let rt = runtime(script.clone(), quick());
        let started = tokio::time::Instant::now();
        let response = rt
            .execute(&reqwest::Client::new(), request("http://h/v1/tasks/1"), "get_task")
            .await
            .unwrap();
        assert_eq!((response.status().as_u16(), script.sent()), (503, 1));
        assert!(started.elapsed() < Duration::from_millis(1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_non_json_error_body_becomes_a_json_error() {
        struct Html;
        impl Transport for Html {
            fn send<'a>(&'a self, _: &'a reqwest::Client, _: reqwest::Request) -> ResponseFuture<'a> {
                let response = http::Response::builder()
                    .status(500)
                    .header("content-type", "text/html")
                    .body("<html><h1>Bad gateway</h1></html>")
                    .unwrap();
                Box::pin(async move { Ok(reqwest::Response::from(response)) })
            }
        }
        let rt = Runtime::builder(Service::Encoder, OPS)
            .transport(Arc::new(Html))
            .retry(RetryPolicy::never())
            .build()
            .unwrap();
        let response = rt
            .execute(&reqwest::Client::new(), request("http://h/v1/tasks"), "get_task")
            .await
            .unwrap();
        assert_eq!(response.status(), 500);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["code"], serde_json::Value::Null);
        assert!(
            body["message"].as_str().unwrap().contains("<h1>Bad gateway</h1>"),
            "{body}"
        );
    }
}
