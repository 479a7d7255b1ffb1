//! # vidplat
//!
//! One client for the platform's three APIs (encoding, video management,
//! viewing analytics): every operation a typed builder ([`encoder`],
//! [`vms`], [`analytics`]), generated from `openapi/*.yaml`, with one
//! [`Error`], retries that never repeat work, the analytics quotas,
//! [pagination](Paginate), waiters, [signed page URLs](signing) and route
//! overrides.
//!
//! The guide to all of it is the book's SDK chapter (`docs/sdk.md` in the
//! repository; `cargo xtask docs` builds the book); the [`operations`] page
//! lists every operation. Below, one compiled example per topic.
//!
//! ## A client
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
//! ## A call and its errors
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
//! A bound is checked before the request leaves:
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
//! ## The analytics quotas
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
//! ## Pages of a list
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use vidplat::prelude::*;
//! let tasks: Vec<_> = client.encoder()?.list_tasks().per_page(100).items().prefetch(4).try_collect().await?;
//! let rows: Vec<_> = client.analytics()?.cloud_by_os().limit(1000).items().max_items(5000).try_collect().await?;
//! # Ok(()) }
//! ```
//!
//! ## Waiting for tasks
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
//! ## A signed viewing-page URL
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
//! ## A route of your account's
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
//! Spans and measurements ([`ClientBuilder::traceparent`],
//! [`ClientBuilder::idle_body_timeout`], the `metrics` feature): the book's
//! observability chapter.

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

#[doc = include_str!("operations.md")]
pub mod operations {}

#[cfg(feature = "by-name")]
pub mod any_call;
#[cfg(feature = "by-name")]
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
#[cfg(feature = "watch")]
pub mod watch;
#[cfg(feature = "webhooks")]
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
    install_default_tls_provider, CountedUntil, Date, Delivery, Method, QuotaActivity, QuotaConfig, QuotaLimiter,
    QuotaMode, QuotaStore, QuotaUsage, QuotaWait, RetryPolicy, Timestamp, Transport, WaitCause,
};
#[cfg(feature = "redis")]
pub use vidplat_redis::{RedisQuota, RedisQuotaError, RedisUnavailable};

#[cfg(feature = "analytics")]
pub use vidplat_analytics as analytics;
#[cfg(feature = "encoder")]
pub use vidplat_encoder as encoder;
#[cfg(feature = "vms")]
pub use vidplat_vms as vms;

/// A URL as `Debug` shows it: without a user, a password or a `password=`
/// value (here, where both `client` and `profile` reach it without a cycle).
fn shown_url(url: &Option<String>) -> Option<std::borrow::Cow<'_, str>> {
    url.as_deref().map(vidplat_core::without_credentials)
}
