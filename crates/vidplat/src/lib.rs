//! # vidplat
//!
//! The Rust SDK for the video platform's three web APIs: the encoding service,
//! the video management service and viewing analytics (basic and cloud editions).
//!
//! Every operation of the three services is a method of a generated client
//! ([`encoder`], [`vms`], [`analytics`]), built from `openapi/*.yaml`. This crate
//! adds what the documents imply a client should do: one configuration, one
//! error type, retries that never duplicate work, the analytics quotas,
//! pagination, waiters, signed viewing-page URLs and route overrides.
//!
//! ## Configure a client
//!
//! No base URL has a default (the documents show only `{base_url}`); set the
//! services you use. `Client::from_env()` reads `VIDPLAT_API_KEY`,
//! `VIDPLAT_ENCODER_URL`, `VIDPLAT_VMS_URL`, `VIDPLAT_ANALYTICS_URL` and
//! `VIDPLAT_LOGIN_ID`. The key never shows in `Debug` output, logs or errors.
//!
//! ## What the client guarantees, whatever a server does
//!
//! - **Credentials stay home.** The API key is sent only to the origin of the
//!   configured base URL. Redirects are never followed (the documents describe
//!   none): a 3xx ends the call with [`Error::Api`] carrying the `Location`.
//!   So no redirect can carry the key elsewhere, turn a POST into a GET, or
//!   send a body twice.
//! - **HTTPS.** The documents require it: an `http://` base URL fails
//!   `build()` unless its host is a loopback address (`localhost`,
//!   `127.0.0.0/8`, `::1`: the simulator, tests) or
//!   [`ClientBuilder::allow_insecure_http`] is called.
//! - **Bounded memory.** An answer's body is read under a cap (default 64 MiB,
//!   [`ClientBuilder::max_response_body`]): a larger one is refused with
//!   [`Error::BodyTooLarge`] while it streams, never buffered whole first.
//!   64 MiB holds the largest documented answer, a 50,000-row cloud analytics
//!   page (about 19 MiB), three times over.
//! - **One deadline.** [`ClientBuilder::total_timeout`] (default 300 s) bounds
//!   everything a call does: the wait for the analytics quota, every attempt
//!   (body included), every backoff sleep. A quota turn that would come after
//!   the deadline is refused at once with [`Error::RateLimited`] saying when
//!   to retry.
//! - **No panic** from any answer: statuses, headers (`Retry-After` of any
//!   size or form), bodies (truncated, oversized, invalid UTF-8) end in an
//!   [`Error`] or a clamped wait.
//! - **Redacted.** The API key, and the values of the members the YAML marks
//!   `x-secret` (a viewing page's `signing_key`, passwords, client secrets),
//!   never appear in `Debug` output, errors, excerpts of bodies or logs; every
//!   error that quotes server or URL text escapes its control characters.
//!
//! ```
//! use std::time::Duration;
//! let client = vidplat::Client::builder()
//!     .encoder_url("https://encoder.example.invalid")
//!     .vms_url("https://vms.example.invalid")
//!     .analytics_url("https://analytics.example.invalid")
//!     .api_key("my-api-key")
//!     .attempt_timeout(Duration::from_secs(20))
//!     .total_timeout(Duration::from_secs(60))
//!     .build()?;
//! assert!(!format!("{client:?}").contains("my-api-key"));
//! # Ok::<(), vidplat::Error>(())
//! ```
//!
//! ## Call an operation, handle errors
//!
//! Operations are builders. [`Call::call`] sends one and returns its decoded
//! body or an [`Error`], which says what happened. `send().await?` works too:
//! it returns the body with the answer's status and headers
//! (`vidplat_core::Response`), and its error (`vidplat_core::CallFailure`,
//! whose `Display` says the cause) converts into [`Error`] with `?`.
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use vidplat::encoder::types::ErrorCode;
//! use vidplat::{Call, Error};
//! match client.encoder()?.get_task().task_id(7).call().await {
//!     Ok(task) => println!("task 7 is {:?}", task.status),
//!     Err(error) if error.code_as::<ErrorCode>() == Some(ErrorCode::ModelNotFound) => println!("no task 7"),
//!     Err(Error::InvalidInput(refusals)) => {
//!         for refusal in refusals.iter() {
//!             println!("not sent: `{}` {}", refusal.path(), refusal.rule());
//!         }
//!     }
//!     Err(error) => return Err(error),
//! }
//! # Ok(()) }
//! ```
//!
//! Each service's documented error codes are the variants of its open
//! `ErrorCode` enum ([`encoder::types::ErrorCode`],
//! [`vms::types::ErrorCode`], [`analytics::types::ErrorCode`]);
//! [`Error::code_as`] reads the answer's code as one of them, and a code the
//! enum does not know as `Other` with the code as sent. [`Error::code`] gives
//! the code as a string.
//!
//! Bounds the documents give are checked before a request leaves:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let client = vidplat::Client::builder().encoder_url("http://127.0.0.1:9").build().unwrap();
//! // (http is accepted for loopback addresses only)
//! let body = vidplat::encoder::types::TaskCreate::builder()
//!     .input_filepath("movie.mp4")
//!     .profile_id(1)
//!     .priority(100); // documented range: 0..=99
//! let error = vidplat::Error::from(client.encoder().unwrap().register_task().body(body).send().await.unwrap_err());
//! assert_eq!(error.to_string(), "invalid input, not sent: `priority` must be at most 99 (maximum)");
//! # }
//! ```
//!
//! ## Retries
//!
//! [`RetryPolicy`]: exponential backoff with full jitter, capped attempts,
//! `Retry-After` honoured, all within the call's deadline. A connection that
//! never opened is retried for every method; 429/502/503/504 and failures after
//! sending only for GET and DELETE. POST, PUT and PATCH (task or content
//! registration) are never sent twice once they may have reached the server,
//! and [`Error::is_retryable`] follows the same rule. A DELETE retried after
//! an attempt that may have arrived, whose retry finds nothing (404), ends in
//! [`Error::AlreadyDeleted`], not a plain not-found.
//!
//! ```
//! use std::time::Duration;
//! let policy = vidplat::RetryPolicy { max_attempts: 5, ..Default::default() };
//! let client = vidplat::Client::builder()
//!     .vms_url("https://vms.example.invalid")
//!     .retry(policy)
//!     .total_timeout(Duration::from_secs(60))
//!     .build()?;
//! # Ok::<(), vidplat::Error>(())
//! ```
//!
//! ## Analytics quotas
//!
//! Analytics allows 3 calls a minute, 1 at a time, 50,000 a month per account.
//! The client waits for its turn by default (shared by all clones), or fails
//! fast with [`Error::RateLimited`] naming the [`Quota`].
//!
//! ```
//! use vidplat::{QuotaConfig, QuotaMode};
//! let client = vidplat::Client::builder()
//!     .analytics_url("https://analytics.example.invalid")
//!     .analytics_quota(QuotaConfig { mode: QuotaMode::FailFast, ..Default::default() })
//!     .build()?;
//! assert_eq!(client.analytics_quota().map(|q| q.remaining()), Some(50_000));
//! # Ok::<(), vidplat::Error>(())
//! ```
//!
//! The limiter counts in this process by default. With the `redis` feature,
//! `.quota_store(RedisQuota::new(url, account)?)` makes every process and
//! machine of the account share one count (README, "Several processes or
//! machines").
//!
//! ## Pagination
//!
//! Every list operation's builder has `.pages()` and `.items()`
//! ([`Paginate`]), built from the paging style its YAML declares: page numbers
//! with `last_page` (tasks, with concurrent prefetch), `truncated` (contents,
//! viewing pages), rank windows (analytics basic) and offset/limit (analytics
//! cloud). Caps: `.max_pages(n)` on pages, `.max_items(n)` on items.
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use vidplat::prelude::*;
//! let tasks: Vec<_> = client.encoder()?.list_tasks().per_page(100).items().prefetch(4).try_collect().await?;
//! let rows: Vec<_> = client.analytics()?.cloud_by_os().limit(1000).items().max_items(5000).try_collect().await?;
//! # Ok(()) }
//! ```
//!
//! ## Ids flow, setters take plain values
//!
//! An id read from a response passes to the next call as it is (`Option<i64>`,
//! `Option<String>`): setters take any [`IntoValue`] (or [`IntoOptional`] for
//! an optional member), so `.name("x")`, `.category_id(&category.id)` and
//! `.streams([PresetStream::builder().video(...)])` need no conversion. A value
//! that breaks a rule is refused before anything is sent, naming the member's
//! path. `vidplat` re-exports [`uuid`] and [`chrono`].
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use vidplat::prelude::*;
//! use vidplat::encoder::types::{PresetCreate, PresetStream, PresetStreamVideo, ProfileCreate, TaskCreate};
//! let encoder = client.encoder()?;
//! let preset = PresetCreate::builder()
//!     .name("hls-720")
//!     .streams([PresetStream::builder().video(PresetStreamVideo::builder().height(720))]);
//! let preset = encoder.register_preset().body(preset).call().await?;
//! let profile = encoder.register_profile().body(ProfileCreate::builder().name("web").presets([preset.id])).call().await?;
//! let task = TaskCreate::builder().input_filepath("movie.mp4").profile_id(profile.id);
//! let registered = encoder.register_task().body(task).call().await?;
//! # Ok(()) }
//! ```
//!
//! ## Waiters
//!
//! ```no_run
//! # async fn run(client: vidplat::Client, task_id: Option<i64>, ids: Vec<Option<i64>>) -> Result<(), vidplat::Error> {
//! use std::time::Duration;
//! // Ready, or `Error::TaskEnded` carrying the final task.
//! let task = client.wait_for_task(task_id).max_wait(Duration::from_secs(600)).await?;
//! // Many tasks, 8 polled at once: each one's final state, whatever it is.
//! let finals = client.wait_for_tasks(ids).concurrency(8).await;
//! # Ok(()) }
//! ```
//!
//! ## Signed viewing-page URLs
//!
//! ```
//! use std::time::Duration;
//! use vidplat::signing::{page_url, sign, verify, Grant, SigningKey};
//! let key = SigningKey::new("0123456789abcdef0123456789abcdef")?; // 32 characters, or refused
//! let grant = Grant::valid_for(Duration::from_secs(3600)).audience("user-42");
//! let url = sign(&page_url("portal.example.jp", "p-1")?, &key, &grant)?;
//! assert!(url.starts_with("https://portal.example.jp/pages/p-1?expires="));
//! assert_eq!(verify(&url, &key, grant.expires.unwrap() - 60), Ok(grant));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A page as a response gives it signs with [`signing::sign_page`] (its id and
//! `signing_key`, on the domain you choose: no response says which domain
//! serves a page).
//!
//! See [`signing`] for the rules: fragments, expiry (`now == expires` has
//! expired), the one accepted form, non-ASCII hosts and paths.
//!
//! ## Route overrides
//!
//! Operations whose route the documents do not show use the YAML's assumption
//! (listed in GAPS.md and in each method's documentation). Override any route:
//!
//! ```
//! use vidplat::Method;
//! let client = vidplat::Client::builder()
//!     .encoder_url("https://encoder.example.invalid")
//!     .route("register_task", Method::Post, "/v1/tasks/register")
//!     .build()?;
//! // An unknown operation or a template with other parameters fails here, not later.
//! assert!(vidplat::Client::builder().route("update_preset", Method::Put, "/v1/presets/{id}").build().is_err());
//! # Ok::<(), vidplat::Error>(())
//! ```
//!
//! ## Observability
//!
//! Every call is one `vidplat.call` span through the `tracing` crate, in
//! OpenTelemetry's HTTP-client terms (`vidplat.service`,
//! `vidplat.operation`, `http.request.method`, `url.template`,
//! `server.address`, `server.port`, `http.response.status_code`,
//! `error.type`, `vidplat.attempts`, `vidplat.quota.wait_ms`), with a
//! `vidplat.attempt` span per attempt and a `vidplat.quota` span per
//! analytics turn inside it; no header, key, filled path, body or signature
//! is ever recorded. With the `metrics` feature, call and attempt durations,
//! attempts, errors by `error.type`, body sizes and the analytics quota's
//! health (waits by reason, local refusals, server 429s, the month's
//! remaining count, the slot's hold time) go to the `metrics` recorder the
//! application installs. The README's "Observability" section lists every
//! name, unit and label. [`ClientBuilder::traceparent`] sends a W3C
//! `traceparent` header (off by default);
//! [`ClientBuilder::idle_body_timeout`] ends an attempt whose body stops
//! arriving.

//! ## Every operation
//!
//! The [`operations`] page lists every operation of the three services with
//! its builder method, body and response types and paging style.

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

#[doc = include_str!("operations.md")]
pub mod operations {}

pub mod batch;
mod call;
#[cfg(feature = "catalog")]
pub mod catalog;
mod client;
mod error;
#[cfg(feature = "machine-quota")]
pub mod machine_quota;
pub mod pagination;
#[cfg(feature = "profiles")]
pub mod profile;
pub mod rows;
pub mod signing;
#[cfg(feature = "encoder")]
mod task_times;
#[cfg(feature = "encoder")]
pub mod waiters;
#[cfg(feature = "encoder")]
pub mod watch;
pub mod webhooks;

pub use call::Call;
pub use client::{Client, ClientBuilder};
pub use pagination::Paginate;
pub use vidplat_core::{IntoOptional, IntoValue, PagingStyle, Patch, Period, PeriodError};
/// The crates whose types appear in vidplat's own: ids (`uuid::Uuid`) and
/// dates (`chrono`), so a program needs no direct dependency to name them.
pub use {chrono, uuid};

/// The traits most programs use: `use vidplat::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "encoder")]
    pub use crate::TaskTimes as _;
    pub use crate::{Call, Paginate};
    pub use futures_util::{StreamExt as _, TryStreamExt as _};
}
pub use error::{
    ApiError, ConfigError, DecodeError, Error, NotSendable, PagingProblem, Quota, Refusal, Refusals, ServiceErrorCode,
    TimeoutError, TimeoutKind, TransportError,
};
#[cfg(feature = "machine-quota")]
pub use machine_quota::MachineQuota;
pub use rows::{RowStream, Rows};
#[cfg(feature = "encoder")]
pub use task_times::TaskTimes;
pub use vidplat_core::{
    install_default_tls_provider, Date, Delivery, Method, QuotaActivity, QuotaConfig, QuotaLimiter, QuotaMode,
    QuotaStore, QuotaUsage, QuotaWait, RetryPolicy, Timestamp, Transport, WaitCause,
};
#[cfg(feature = "redis")]
pub use vidplat_redis::{RedisQuota, RedisQuotaError, RedisUnavailable};

#[cfg(feature = "analytics")]
pub use vidplat_analytics as analytics;
#[cfg(feature = "encoder")]
pub use vidplat_encoder as encoder;
#[cfg(feature = "vms")]
pub use vidplat_vms as vms;
