//! Building a [`Runtime`]: every setting is checked here, before any request.

use crate::config::{BaseUrl, ConfigError};
use crate::quota::limiter::QuotaLimiter;
use crate::redact::Redactor;
use crate::retry::RetryPolicy;
use crate::route::Routes;
use crate::runtime::{Inner, Runtime};
use crate::table::{Method, ServiceTable};
use crate::timeout::Timeouts;
use crate::transport::{Network, Transport};
use secrecy::{ExposeSecret, SecretString};
use std::sync::Arc;

/// The largest answer body read by default: 64 MiB.
///
/// The largest documented answer is a cloud analytics page of 50,000 rows
/// (`limit` at its maximum), about 19 MiB of JSON for the widest rows (viewing
/// history). 64 MiB leaves room for rows three times as wide (long multibyte
/// titles escaped as `\uXXXX`, say) while bounding what a broken or hostile
/// server can make the client hold; every other answer is far smaller.
pub const DEFAULT_MAX_RESPONSE_BODY: u64 = 64 * 1024 * 1024;

/// Builds a [`Runtime`]. Each setting is its own field, so the order of the
/// calls never matters; the base URL and route overrides are checked once,
/// in [`RuntimeBuilder::build`].
pub struct RuntimeBuilder {
    table: &'static ServiceTable,
    base_url: Option<String>,
    api_key: Option<SecretString>,
    routes: Vec<(String, Method, String)>,
    checked_routes: Routes,
    transport: Arc<dyn Transport>,
    retry: RetryPolicy,
    timeouts: Timeouts,
    max_response_body: u64,
    quota: Option<QuotaLimiter>,
    allow_insecure_http: bool,
    user_agent: Option<String>,
    traceparent: bool,
}

impl std::fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBuilder")
            .field("service", &self.table.service)
            .field(
                "base_url",
                &self.base_url.as_deref().map(crate::redact::without_credentials),
            )
            .field("api_key", &self.api_key.as_ref().map(|_| crate::redact::REDACTED))
            .field("routes", &self.routes)
            .field("checked_routes", &self.checked_routes)
            .field("retry", &self.retry)
            .field("timeouts", &self.timeouts)
            .field("max_response_body", &self.max_response_body)
            .field("quota", &self.quota)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("traceparent", &self.traceparent)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A builder for a runtime of the service `table` describes (`<crate>::operations::TABLE`).
    pub fn builder(table: &'static ServiceTable) -> RuntimeBuilder {
        RuntimeBuilder {
            table,
            base_url: None,
            api_key: None,
            routes: Vec::new(),
            checked_routes: Routes::default(),
            transport: Arc::new(Network),
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            max_response_body: DEFAULT_MAX_RESPONSE_BODY,
            quota: None,
            allow_insecure_http: false,
            user_agent: None,
            traceparent: false,
        }
    }
}

impl RuntimeBuilder {
    /// The service's base URL (`https://`, or `http://` to a loopback address);
    /// required. Checked in [`RuntimeBuilder::build`].
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Puts every attempt through a usage limiter (analytics).
    pub fn quota(mut self, limiter: QuotaLimiter) -> Self {
        self.quota = Some(limiter);
        self
    }

    /// How failed attempts are retried.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Connect, attempt and total timeouts.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The largest answer body read, in bytes (default [`DEFAULT_MAX_RESPONSE_BODY`]).
    pub fn max_response_body(mut self, bytes: u64) -> Self {
        self.max_response_body = bytes;
        self
    }

    /// The API key, sent as `Authorization: Bearer …` to the base URL's origin only.
    pub fn api_key(mut self, key: SecretString) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Allows plain `http` base URLs to hosts other than loopback addresses.
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_insecure_http = allow;
        self
    }

    /// The `User-Agent` of every request.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// Sends a W3C Trace Context `traceparent` header with every attempt
    /// (default: off). The documents do not say the services read it; it
    /// costs nothing to send and lets a server that does join its logs to
    /// the client's. Each call has a trace id of its own and each attempt a
    /// parent id of its own (random); the attempt's `vidplat.attempt` span
    /// records the header it sent (`vidplat.traceparent`).
    pub fn traceparent(mut self, send: bool) -> Self {
        self.traceparent = send;
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

    /// Overrides checked already ([`Routes::check`]); those given with
    /// [`RuntimeBuilder::route`] are checked in [`RuntimeBuilder::build`].
    pub fn routes(mut self, routes: Routes) -> Self {
        self.checked_routes = routes;
        self
    }

    /// Checks every setting and builds the runtime.
    pub fn build(self) -> Result<Runtime, ConfigError> {
        crate::tls::install_default_tls_provider();
        // Units and descriptions, for the recorder installed now (nothing without the `metrics` feature).
        crate::observe::describe();
        let authorization = match &self.api_key {
            Some(key) => {
                let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", key.expose_secret()))
                    .map_err(|_| ConfigError::InvalidApiKey)?;
                value.set_sensitive(true);
                Some(value)
            }
            None => None,
        };
        let Some(url) = &self.base_url else {
            return Err(ConfigError::MissingBaseUrl {
                service: self.table.service,
                variable: self.table.service.url_variable(),
            });
        };
        let base = BaseUrl::parse(url, self.allow_insecure_http)?;
        let routes = if self.routes.is_empty() {
            self.checked_routes
        } else if self.checked_routes.is_empty() {
            Routes::check(self.table, &self.routes)?
        } else {
            return Err(ConfigError::InvalidRoute {
                operation: self.routes[0].0.clone(),
                reason: "give overrides either one by one or checked together, not both".into(),
            });
        };
        let mut http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .tls_backend_preconfigured(crate::tls::config_for(base.is_https())?);
        // A proxy from the environment (HTTP_PROXY, ALL_PROXY) would receive a
        // plain-http request whole, the key with it: plain http goes direct.
        // Over https a proxy only tunnels the encrypted connection, so it stays.
        if !base.is_https() {
            http = http.no_proxy();
        }
        // A connect timeout too large for the clock means none.
        if std::time::Instant::now().checked_add(self.timeouts.connect).is_some() {
            http = http.connect_timeout(self.timeouts.connect);
        }
        if let Some(user_agent) = &self.user_agent {
            http = http.user_agent(user_agent.as_str());
        }
        let http = http.build().map_err(ConfigError::HttpClient)?;
        Ok(Runtime {
            inner: Arc::new(Inner {
                table: self.table,
                base,
                authorization,
                redactor: Arc::new(Redactor::new(self.api_key, self.table.secret_members)),
                routes,
                transport: self.transport,
                http,
                retry: self.retry,
                timeouts: self.timeouts,
                max_response_body: self.max_response_body,
                quota: self.quota,
                traceparent: self.traceparent,
            }),
        })
    }
}
