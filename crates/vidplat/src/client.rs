//! `Client`: one handle on the three services.

use crate::error::Error;
use crate::shown_url;
use secrecy::SecretString;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use vidplat_core::{
    ConfigError, Method, QuotaConfig, QuotaLimiter, QuotaStore, RetryPolicy, Routes, Runtime, Service, ServiceTable,
    Timeouts, Transport, DEFAULT_MAX_RESPONSE_BODY,
};

/// The SDK's entry point: configured once, cheap to clone, shared by every task.
///
/// Each service is reached through its generated client (`client.encoder()?`,
/// `client.vms()?`, `client.analytics()?`), whose operations are builders:
/// `client.encoder()?.get_task().task_id(7).send().await?`. Their errors
/// convert into [`Error`] with `?`.
#[derive(Clone)]
pub struct Client {
    #[cfg(feature = "encoder")]
    encoder: Option<vidplat_encoder::Client>,
    #[cfg(feature = "vms")]
    vms: Option<vidplat_vms::Client>,
    #[cfg(feature = "analytics")]
    analytics: Option<vidplat_analytics::Client>,
    login_id: Option<String>,
    analytics_quota: Option<QuotaLimiter>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Client");
        #[cfg(feature = "encoder")]
        debug.field("encoder", &self.encoder.as_ref().map(|c| c.baseurl().to_owned()));
        #[cfg(feature = "vms")]
        debug.field("vms", &self.vms.as_ref().map(|c| c.baseurl().to_owned()));
        #[cfg(feature = "analytics")]
        debug.field("analytics", &self.analytics.as_ref().map(|c| c.baseurl().to_owned()));
        debug.field("login_id", &self.login_id).finish_non_exhaustive()
    }
}

fn not_configured(service: Service) -> Error {
    Error::Config(ConfigError::MissingBaseUrl {
        service,
        variable: service.url_variable(),
    })
}

impl Client {
    /// A builder with the defaults (see [`ClientBuilder`]).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Reads `VIDPLAT_API_KEY`, `VIDPLAT_ENCODER_URL`, `VIDPLAT_VMS_URL`,
    /// `VIDPLAT_ANALYTICS_URL` and `VIDPLAT_LOGIN_ID`; every one is optional.
    pub fn from_env() -> Result<Self, Error> {
        ClientBuilder::from_env().build()
    }

    /// The encoding service.
    #[cfg(feature = "encoder")]
    pub fn encoder(&self) -> Result<&vidplat_encoder::Client, Error> {
        self.encoder.as_ref().ok_or_else(|| not_configured(Service::Encoder))
    }

    /// The video management service.
    #[cfg(feature = "vms")]
    pub fn vms(&self) -> Result<&vidplat_vms::Client, Error> {
        self.vms.as_ref().ok_or_else(|| not_configured(Service::Vms))
    }

    /// The viewing analytics service (basic and cloud editions).
    #[cfg(feature = "analytics")]
    pub fn analytics(&self) -> Result<&vidplat_analytics::Client, Error> {
        self.analytics
            .as_ref()
            .ok_or_else(|| not_configured(Service::Analytics))
    }

    /// The builder of `service`'s operation `id` (its `operationId`), made
    /// from `args` by its `from_args` (every refusal at once), handed to
    /// `visitor`: the one place a reader of data ([`Client::any_call`],
    /// [`crate::batch`]) turns a service and an operation id into a typed
    /// call. `Ok(None)` when this build has no such operation; an error when
    /// the service is not configured.
    #[cfg(feature = "by-name")]
    pub fn visit<'a, V: vidplat_core::OperationVisitor<'a>>(
        &'a self,
        service: Service,
        id: &str,
        args: &vidplat_core::Args,
        visitor: V,
    ) -> Result<Option<Result<V::Output, vidplat_core::Refusals>>, Error> {
        match service {
            #[cfg(feature = "encoder")]
            Service::Encoder => Ok(vidplat_encoder::builder::visit(self.encoder()?, id, args, visitor)),
            #[cfg(feature = "vms")]
            Service::Vms => Ok(vidplat_vms::builder::visit(self.vms()?, id, args, visitor)),
            #[cfg(feature = "analytics")]
            Service::Analytics => Ok(vidplat_analytics::builder::visit(self.analytics()?, id, args, visitor)),
            #[allow(unreachable_patterns)] // every service's feature on
            _ => {
                let _ = (id, args, visitor);
                Ok(None)
            }
        }
    }

    /// `service`'s operation `id` made from `args` ([`Client::visit`]) and
    /// sent; its answer as JSON (a list's first page). A refused argument is
    /// [`Error::InvalidInput`], with every refusal; nothing is sent then.
    #[cfg(feature = "by-name")]
    pub async fn call_json(
        &self,
        service: Service,
        id: &str,
        args: &vidplat_core::Args,
    ) -> Result<serde_json::Value, Error> {
        match self.any_call(service, id, args)? {
            Some(Ok(call)) => call.call().await,
            Some(Err(refusals)) => Err(Error::InvalidInput(refusals)),
            None => Err(Error::InvalidInput(
                vidplat_core::Refusal::new("is not an operation of this client")
                    .at(id)
                    .into(),
            )),
        }
    }

    /// Whether this client has `service` (built with its feature and given its URL).
    pub fn has(&self, service: Service) -> bool {
        self.runtime(service).is_ok()
    }

    /// `service`'s runtime (its base URL, key, retries, deadline and quota):
    /// for a request no operation describes, [`Runtime::raw`] (`vidplat api`).
    pub fn runtime(&self, service: Service) -> Result<&Runtime, Error> {
        match service {
            #[cfg(feature = "encoder")]
            Service::Encoder => Ok(self.encoder()?.runtime()),
            #[cfg(feature = "vms")]
            Service::Vms => Ok(self.vms()?.runtime()),
            #[cfg(feature = "analytics")]
            Service::Analytics => Ok(self.analytics()?.runtime()),
            #[allow(unreachable_patterns)] // every service's feature on
            _ => Err(not_configured(service)),
        }
    }

    /// The client-side analytics limiter (shared by every clone of this client):
    /// `client.analytics_quota().map(|q| q.remaining())` is the month's remaining calls.
    pub fn analytics_quota(&self) -> Option<&QuotaLimiter> {
        self.analytics_quota.as_ref()
    }

    /// The login id for the basic edition's real-time operation (called without the API key).
    pub fn login_id(&self) -> Option<&str> {
        self.login_id.as_deref()
    }
}

/// Configures a [`Client`]. No base URL has a default: the documents show only `{base_url}`.
///
/// Every setting is its own field and every setter sets one field, so the
/// result never depends on the order of the calls. Everything is checked
/// once, in [`ClientBuilder::build`]: base URLs (parse, HTTPS, no
/// credentials, query or fragment), route overrides (known operation, same
/// parameters, one per operation), the API key.
#[derive(Clone)]
pub struct ClientBuilder {
    encoder_url: Option<String>,
    vms_url: Option<String>,
    analytics_url: Option<String>,
    api_key: Option<SecretString>,
    login_id: Option<String>,
    /// Every service's timeouts, but the analytics attempt's.
    timeouts: Timeouts,
    analytics_attempt_timeout: Duration,
    traceparent: bool,
    user_agent: String,
    retry: RetryPolicy,
    analytics_quota: Option<QuotaConfig>,
    quota_store: QuotaStore,
    routes: Vec<(String, Method, String)>,
    max_response_body: u64,
    allow_insecure_http: bool,
    transport: Option<Arc<dyn Transport>>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            encoder_url: None,
            vms_url: None,
            analytics_url: None,
            api_key: None,
            login_id: None,
            timeouts: Timeouts::default(),
            // The server answers 408 to a slow analytics query; wait long enough to hear it.
            analytics_attempt_timeout: Duration::from_secs(180),
            traceparent: false,
            user_agent: concat!("vidplat-rust/", env!("CARGO_PKG_VERSION")).to_owned(),
            retry: RetryPolicy::default(),
            analytics_quota: Some(QuotaConfig::default()),
            quota_store: QuotaStore::Memory,
            routes: Vec::new(),
            max_response_body: DEFAULT_MAX_RESPONSE_BODY,
            allow_insecure_http: false,
            transport: None,
        }
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("encoder_url", &shown_url(&self.encoder_url))
            .field("vms_url", &shown_url(&self.vms_url))
            .field("analytics_url", &shown_url(&self.analytics_url))
            .field("api_key", &self.api_key.as_ref().map(|_| vidplat_core::REDACTED))
            .field("login_id", &self.login_id)
            .field("connect_timeout", &self.timeouts.connect)
            .field("attempt_timeout", &self.timeouts.attempt)
            .field("analytics_attempt_timeout", &self.analytics_attempt_timeout)
            .field("total_timeout", &self.timeouts.total)
            .field("idle_body_timeout", &self.timeouts.idle_body)
            .field("traceparent", &self.traceparent)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("analytics_quota", &self.analytics_quota)
            .field("quota_store", &self.quota_store)
            .field("routes", &self.routes)
            .field("max_response_body", &self.max_response_body)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("transport", &self.transport.as_ref().map(|_| "custom"))
            .finish()
    }
}

impl ClientBuilder {
    /// A builder preset from the `VIDPLAT_*` environment variables (see [`Client::from_env`]).
    pub fn from_env() -> Self {
        Self::default().with_env()
    }

    /// The `VIDPLAT_*` variables that are set (and not empty), over what the
    /// builder holds: a profile, then the environment, then explicit settings.
    pub fn with_env(mut self) -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        self.encoder_url = var("VIDPLAT_ENCODER_URL").or(self.encoder_url);
        self.vms_url = var("VIDPLAT_VMS_URL").or(self.vms_url);
        self.analytics_url = var("VIDPLAT_ANALYTICS_URL").or(self.analytics_url);
        self.login_id = var("VIDPLAT_LOGIN_ID").or(self.login_id);
        self.api_key = var("VIDPLAT_API_KEY").map(SecretString::from).or(self.api_key);
        self
    }

    /// The encoding service's base URL (`https://`, or `http://` to a loopback address).
    pub fn encoder_url(mut self, url: impl Into<String>) -> Self {
        self.encoder_url = Some(url.into());
        self
    }

    /// The video management service's base URL.
    pub fn vms_url(mut self, url: impl Into<String>) -> Self {
        self.vms_url = Some(url.into());
        self
    }

    /// The analytics service's base URL.
    pub fn analytics_url(mut self, url: impl Into<String>) -> Self {
        self.analytics_url = Some(url.into());
        self
    }

    /// The API key, sent as `Authorization: Bearer …` to the base URL's origin
    /// only; never printed, never in an error or a log.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(SecretString::from(key.into()));
        self
    }

    /// The login id of the basic edition's real-time operation.
    pub fn login_id(mut self, login_id: impl Into<String>) -> Self {
        self.login_id = Some(login_id.into());
        self
    }

    /// Time allowed to open a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.connect = timeout;
        self
    }

    /// Time allowed for one attempt, body included (encoder and video management; default 30 s).
    pub fn attempt_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.attempt = timeout;
        self
    }

    /// Time allowed for one analytics attempt (default 180 s, so the server's own 408 arrives first).
    pub fn analytics_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.analytics_attempt_timeout = timeout;
        self
    }

    /// The deadline of a whole call (default 300 s): the analytics quota
    /// wait, every attempt, every backoff sleep and the reading of the body
    /// end by it. `Duration::MAX` means no deadline.
    pub fn total_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.total = timeout;
        self
    }

    /// The longest silence allowed while an answer's body arrives (default
    /// 20 s, [`vidplat_core::DEFAULT_IDLE_BODY_TIMEOUT`] says why): once its
    /// first byte has come, no further byte for this long ends the attempt
    /// with [`Error::Timeout`] of kind [`TimeoutKind::IdleBody`](crate::TimeoutKind::IdleBody),
    /// retried under the usual rules (a GET or DELETE; never a request that
    /// may have registered something). It never applies while the server
    /// prepares the answer (before the first byte of the body), nor to an
    /// empty body. `Duration::MAX` turns it off.
    pub fn idle_body_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.idle_body = timeout;
        self
    }

    /// Sends a W3C Trace Context `traceparent` header with every attempt
    /// (default: off). The documents do not say the services read it. Each
    /// call has a random trace id of its own, each attempt a parent id of its
    /// own; the attempt's span records the header it sent (README, "Observability").
    pub fn traceparent(mut self, send: bool) -> Self {
        self.traceparent = send;
        self
    }

    /// The `User-Agent` of every request.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// How failed attempts are retried (see [`RetryPolicy`]); `RetryPolicy::never()` disables retries.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Where the analytics quota is counted (default: [`QuotaStore::Memory`],
    /// this client and its clones only). With the `redis` feature,
    /// `.quota_store(RedisQuota::new(url, account)?)` shares one account's
    /// quota among every process and machine that uses the same Redis.
    pub fn quota_store(mut self, store: impl Into<QuotaStore>) -> Self {
        self.quota_store = store.into();
        self
    }

    /// The analytics usage limits enforced on the client side, or `None` for
    /// no client-side limiter (the server's 429s still map to
    /// [`Error::RateLimited`]). Default: the documented 3 calls a minute, 1 at
    /// a time, 50,000 a month; waiting for a turn.
    pub fn analytics_quota(mut self, config: impl Into<Option<QuotaConfig>>) -> Self {
        self.analytics_quota = config.into();
        self
    }

    /// Sends an operation with another method and path template, e.g. when the
    /// real route of an operation the documents do not show differs from the
    /// YAML's assumption. Checked in [`ClientBuilder::build`]: the operation must
    /// exist, the template must have exactly its path parameters, the method
    /// may differ only for a route the YAML assumes (one the documents show
    /// keeps its method), and an operation may be overridden once.
    pub fn route(mut self, operation_id: impl Into<String>, method: Method, template: impl Into<String>) -> Self {
        self.routes.push((operation_id.into(), method, template.into()));
        self
    }

    /// The largest answer body read, in bytes (default 64 MiB: a 50,000-row
    /// analytics page, the largest documented answer, is about 19 MiB). A
    /// larger body is refused with [`Error::BodyTooLarge`] while it streams.
    pub fn max_response_body(mut self, bytes: u64) -> Self {
        self.max_response_body = bytes;
        self
    }

    /// Accepts `http://` base URLs to hosts that are not loopback addresses.
    /// The documents require HTTPS; without this, such a URL fails `build()`.
    pub fn allow_insecure_http(mut self) -> Self {
        self.allow_insecure_http = true;
        self
    }

    /// Sends every request through `transport` instead of the network (for
    /// tests and recording).
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }

    /// Checks the configuration and builds the client.
    pub fn build(self) -> Result<Client, Error> {
        // Whether or not a service is configured (see `install_default_tls_provider`).
        vidplat_core::install_default_tls_provider();
        let tables = tables();
        // Every override must name an operation of some service, and follow its
        // rules whether or not that service is configured.
        for (id, _, _) in &self.routes {
            if !tables.iter().any(|table| table.operation(id).is_some()) {
                return Err(ConfigError::UnknownOperation {
                    service: None,
                    operation: id.clone(),
                }
                .into());
            }
        }
        let routes = tables
            .iter()
            .map(|table| {
                let overrides: Vec<_> = self
                    .routes
                    .iter()
                    .filter(|(id, _, _)| table.operation(id).is_some())
                    .cloned()
                    .collect();
                Routes::check(table, &overrides)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let analytics_quota = self
            .analytics_quota
            .clone()
            .map(|config| QuotaLimiter::with_store(config, self.quota_store.clone()));
        // One runtime (or none, without its URL) per table, in the order of `tables`.
        #[allow(unused_mut, unused_variables)] // one service per feature
        let mut runtimes = tables
            .into_iter()
            .zip(routes)
            .map(|(table, routes)| self.runtime(table, routes, analytics_quota.as_ref()))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter();
        Ok(Client {
            #[cfg(feature = "encoder")]
            encoder: runtimes.next().flatten().map(vidplat_encoder::Client::new),
            #[cfg(feature = "vms")]
            vms: runtimes.next().flatten().map(vidplat_vms::Client::new),
            #[cfg(feature = "analytics")]
            analytics: runtimes.next().flatten().map(vidplat_analytics::Client::new),
            login_id: self.login_id,
            analytics_quota,
        })
    }

    /// The runtime of the service `table` describes, when its base URL is set
    /// (`None` when it is not); analytics has its own attempt timeout and the quota.
    fn runtime(
        &self,
        table: &'static ServiceTable,
        routes: Routes,
        analytics_quota: Option<&QuotaLimiter>,
    ) -> Result<Option<Runtime>, Error> {
        let (url, attempt, quota) = match table.service {
            Service::Encoder => (&self.encoder_url, self.timeouts.attempt, None),
            Service::Vms => (&self.vms_url, self.timeouts.attempt, None),
            Service::Analytics => (&self.analytics_url, self.analytics_attempt_timeout, analytics_quota),
        };
        let Some(url) = url else { return Ok(None) };
        let mut runtime = Runtime::builder(table)
            .base_url(url.as_str())
            .routes(routes)
            .retry(self.retry.clone())
            .timeouts(Timeouts {
                attempt,
                ..self.timeouts
            })
            .traceparent(self.traceparent)
            .max_response_body(self.max_response_body)
            .allow_insecure_http(self.allow_insecure_http)
            .user_agent(self.user_agent.clone());
        if let Some(key) = &self.api_key {
            runtime = runtime.api_key(key.clone());
        }
        if let Some(limiter) = quota {
            runtime = runtime.quota(limiter.clone());
        }
        if let Some(transport) = &self.transport {
            runtime = runtime.transport(transport.clone());
        }
        Ok(Some(runtime.build()?))
    }
}

/// The operation table of every service this build holds.
pub(crate) fn tables() -> Vec<&'static ServiceTable> {
    vec![
        #[cfg(feature = "encoder")]
        &vidplat_encoder::operations::TABLE,
        #[cfg(feature = "vms")]
        &vidplat_vms::operations::TABLE,
        #[cfg(feature = "analytics")]
        &vidplat_analytics::operations::TABLE,
    ]
}

/// `service`'s operation table, when this build holds it.
#[cfg(feature = "by-name")]
pub(crate) fn table(service: Service) -> Option<&'static ServiceTable> {
    tables().into_iter().find(|table| table.service == service)
}
