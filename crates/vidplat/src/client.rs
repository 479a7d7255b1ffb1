//! `Client`: one handle on the three services.

use crate::error::Error;
use progenitor_client::ClientInfo as _;
use secrecy::SecretString;
use std::fmt;
use std::time::Duration;
use vidplat_core::{Method, OperationMeta, QuotaConfig, QuotaLimiter, RetryPolicy, Runtime, Service};

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

fn not_configured(service: &str, variable: &str) -> Error {
    Error::Config(format!(
        "no base URL for the {service} service (set it on the builder or in {variable})"
    ))
}

impl Client {
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
        self.encoder
            .as_ref()
            .ok_or_else(|| not_configured("encoder", "VIDPLAT_ENCODER_URL"))
    }

    /// The video management service.
    #[cfg(feature = "vms")]
    pub fn vms(&self) -> Result<&vidplat_vms::Client, Error> {
        self.vms
            .as_ref()
            .ok_or_else(|| not_configured("video management", "VIDPLAT_VMS_URL"))
    }

    /// The viewing analytics service (basic and cloud editions).
    #[cfg(feature = "analytics")]
    pub fn analytics(&self) -> Result<&vidplat_analytics::Client, Error> {
        self.analytics
            .as_ref()
            .ok_or_else(|| not_configured("analytics", "VIDPLAT_ANALYTICS_URL"))
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
#[derive(Clone)]
pub struct ClientBuilder {
    encoder_url: Option<String>,
    vms_url: Option<String>,
    analytics_url: Option<String>,
    api_key: Option<SecretString>,
    login_id: Option<String>,
    connect_timeout: Duration,
    attempt_timeout: Duration,
    analytics_attempt_timeout: Duration,
    user_agent: String,
    retry: RetryPolicy,
    analytics_quota: Option<QuotaConfig>,
    routes: Vec<(String, Method, String)>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            encoder_url: None,
            vms_url: None,
            analytics_url: None,
            api_key: None,
            login_id: None,
            connect_timeout: Duration::from_secs(10),
            attempt_timeout: Duration::from_secs(30),
            // The server answers 408 to a slow analytics query; wait long enough to hear it.
            analytics_attempt_timeout: Duration::from_secs(180),
            user_agent: concat!("vidplat-rust/", env!("CARGO_PKG_VERSION")).to_owned(),
            retry: RetryPolicy::default(),
            analytics_quota: Some(QuotaConfig::default()),
            routes: Vec::new(),
        }
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("encoder_url", &self.encoder_url)
            .field("vms_url", &self.vms_url)
            .field("analytics_url", &self.analytics_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("login_id", &self.login_id)
            .field("connect_timeout", &self.connect_timeout)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("analytics_attempt_timeout", &self.analytics_attempt_timeout)
            .field("user_agent", &self.user_agent)
            .field("retry", &self.retry)
            .field("analytics_quota", &self.analytics_quota)
            .field("routes", &self.routes)
            .finish()
    }
}

impl ClientBuilder {
    /// A builder preset from the `VIDPLAT_*` environment variables (see [`Client::from_env`]).
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self {
            encoder_url: var("VIDPLAT_ENCODER_URL"),
            vms_url: var("VIDPLAT_VMS_URL"),
            analytics_url: var("VIDPLAT_ANALYTICS_URL"),
            api_key: var("VIDPLAT_API_KEY").map(SecretString::from),
            login_id: var("VIDPLAT_LOGIN_ID"),
            ..Self::default()
        }
    }

    pub fn encoder_url(mut self, url: impl Into<String>) -> Self {
        self.encoder_url = Some(url.into());
        self
    }

    pub fn vms_url(mut self, url: impl Into<String>) -> Self {
        self.vms_url = Some(url.into());
        self
    }

    pub fn analytics_url(mut self, url: impl Into<String>) -> Self {
        self.analytics_url = Some(url.into());
        self
    }

    /// The API key, sent as `Authorization: Bearer …`; never printed.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(SecretString::from(key.into()));
        self
    }

    pub fn login_id(mut self, login_id: impl Into<String>) -> Self {
        self.login_id = Some(login_id.into());
        self
    }

    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Time allowed for one attempt (encoder and video management).
    pub fn attempt_timeout(mut self, timeout: Duration) -> Self {
        self.attempt_timeout = timeout;
        self
    }

    /// Time allowed for one analytics attempt (default 180 s, so the server's own 408 arrives first).
    pub fn analytics_attempt_timeout(mut self, timeout: Duration) -> Self {
        self.analytics_attempt_timeout = timeout;
        self
    }

    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// The whole call, retries included, ends after this long (default 300 s).
    pub fn total_timeout(mut self, timeout: Duration) -> Self {
        self.retry.total_timeout = timeout;
        self
    }

    /// How failed attempts are retried (see [`RetryPolicy`]); `RetryPolicy::never()` disables retries.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The analytics usage limits enforced on the client side (default: the
    /// documented 3 calls a minute, 1 at a time, 50,000 a month; waiting for a turn).
    pub fn analytics_quota(mut self, config: QuotaConfig) -> Self {
        self.analytics_quota = Some(config);
        self
    }

    /// No client-side analytics limiter (the server's 429s still map to `RateLimited`).
    pub fn without_analytics_quota(mut self) -> Self {
        self.analytics_quota = None;
        self
    }

    /// Sends an operation with another method and path template, e.g. when the
    /// real route of an operation the documents do not show differs from the
    /// YAML's assumption. Checked in [`ClientBuilder::build`]: the operation must
    /// exist and the template must have exactly its path parameters.
    pub fn route(mut self, operation_id: impl Into<String>, method: Method, template: impl Into<String>) -> Self {
        self.routes.push((operation_id.into(), method, template.into()));
        self
    }

    pub fn build(self) -> Result<Client, Error> {
        // Every override must name an operation of some service.
        let tables: Vec<(Service, &'static [OperationMeta])> = vec![
            #[cfg(feature = "encoder")]
            (Service::Encoder, vidplat_encoder::operations::ALL),
            #[cfg(feature = "vms")]
            (Service::Vms, vidplat_vms::operations::ALL),
            #[cfg(feature = "analytics")]
            (Service::Analytics, vidplat_analytics::operations::ALL),
        ];
        for (id, method, template) in &self.routes {
            let Some((service, operations)) = tables.iter().find(|(_, ops)| ops.iter().any(|op| op.id == id)) else {
                return Err(Error::Config(format!("route override for unknown operation `{id}`")));
            };
            // Checked whether or not the service is configured, by the runtime's own rules.
            Runtime::builder(*service, operations)
                .route(id.clone(), *method, template.clone())
                .build()
                .map_err(|e| Error::Config(e.to_string()))?;
        }
        let analytics_quota = self.analytics_quota.clone().map(QuotaLimiter::new);
        Ok(Client {
            #[cfg(feature = "encoder")]
            encoder: self
                .service(
                    Service::Encoder,
                    vidplat_encoder::operations::ALL,
                    &self.encoder_url,
                    self.attempt_timeout,
                    None,
                )?
                .map(|(url, http, runtime)| vidplat_encoder::Client::new_with_client(&url, http, runtime)),
            #[cfg(feature = "vms")]
            vms: self
                .service(
                    Service::Vms,
                    vidplat_vms::operations::ALL,
                    &self.vms_url,
                    self.attempt_timeout,
                    None,
                )?
                .map(|(url, http, runtime)| vidplat_vms::Client::new_with_client(&url, http, runtime)),
            #[cfg(feature = "analytics")]
            analytics: self
                .service(
                    Service::Analytics,
                    vidplat_analytics::operations::ALL,
                    &self.analytics_url,
                    self.analytics_attempt_timeout,
                    analytics_quota.clone(),
                )?
                .map(|(url, http, runtime)| vidplat_analytics::Client::new_with_client(&url, http, runtime)),
            login_id: self.login_id,
            analytics_quota,
        })
    }

    #[allow(dead_code)] // unused when every service feature is off
    fn service(
        &self,
        service: Service,
        operations: &'static [OperationMeta],
        url: &Option<String>,
        attempt_timeout: Duration,
        quota: Option<QuotaLimiter>,
    ) -> Result<Option<(String, reqwest::Client, Runtime)>, Error> {
        let Some(url) = url else { return Ok(None) };
        reqwest::Url::parse(url).map_err(|e| Error::Config(format!("{service} base URL `{url}`: {e}")))?;
        let http = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(self.user_agent.clone())
            .build()
            .map_err(|e| Error::Config(format!("HTTP client: {e}")))?;
        let mut runtime = Runtime::builder(service, operations)
            .retry(self.retry.clone())
            .attempt_timeout(attempt_timeout);
        if let Some(key) = &self.api_key {
            runtime = runtime.api_key(key.clone());
        }
        if let Some(limiter) = quota {
            runtime = runtime.quota(limiter);
        }
        for (id, method, template) in &self.routes {
            if operations.iter().any(|op| op.id == id) {
                runtime = runtime.route(id.clone(), *method, template.clone());
            }
        }
        let runtime = runtime.build().map_err(|e| Error::Config(e.to_string()))?;
        Ok(Some((url.trim_end_matches('/').to_owned(), http, runtime)))
    }
}
