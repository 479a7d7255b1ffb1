//! # vidplat
//!
//! The Rust SDK for the video platform's three web APIs: the encoding service,
//! the video management service and viewing analytics (basic and cloud editions).
//!
//! ```no_run
//! # async fn run() -> Result<(), vidplat::Error> {
//! let client = vidplat::Client::builder()
//!     .encoder_url("https://encoder.example.invalid")
//!     .api_key("my-api-key")
//!     .build()?;
//! let task = client.encoder()?.get_task().task_id(7u64).send().await?;
//! println!("task 7 is {:?}", task.status);
//! # Ok(()) }
//! ```
//!
//! Operations whose route the documents do not show use the route the YAML
//! assumed (see GAPS.md); [`ClientBuilder::route`] overrides any route.

mod client;
mod error;
pub mod pagination;
pub mod signing;
#[cfg(feature = "encoder")]
pub mod waiters;

pub use client::{Client, ClientBuilder};
pub use error::{ApiError, Error, Quota};
pub use vidplat_core::{Date, Method, QuotaConfig, QuotaLimiter, QuotaMode, RetryPolicy, Timestamp};

#[cfg(feature = "analytics")]
pub use vidplat_analytics as analytics;
#[cfg(feature = "encoder")]
pub use vidplat_encoder as encoder;
#[cfg(feature = "vms")]
pub use vidplat_vms as vms;
