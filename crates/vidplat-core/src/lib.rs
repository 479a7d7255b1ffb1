//! The runtime shared by the generated vidplat client crates.
//!
//! Generated crates implement progenitor's `ClientHooks` by delegating to a
//! [`Runtime`] (see [`client_hooks!`]), so authentication, route overrides and
//! the rest of the cross-cutting behaviour live here, in one place.

mod call;
mod open_enum;
mod operation;
mod paged;
mod query;
mod quota;
mod retry;
mod runtime;
mod time;
mod validate;

pub use call::Operation;
pub use operation::{Method, OperationMeta, RouteTemplate, Service};
pub use paged::Paged;
pub use query::CommaSeparated;
pub use quota::{QuotaConfig, QuotaLimiter, QuotaMode, QuotaPermit, QuotaRefusal};
pub use retry::{is_retryable_status, parse_retry_after, RetryPolicy};
pub use runtime::{QuotaKind, ResponseFuture, Runtime, RuntimeBuilder, RuntimeError, Transport, LOCAL_QUOTA_HEADER};
pub use secrecy::{ExposeSecret, SecretString};
pub use time::{Date, Timestamp, TimestampParseError, JAPAN_OFFSET_SECONDS};
pub use validate::{first_violation, Check, Rule};

#[doc(hidden)]
pub mod __private {
    pub use progenitor_client;
    pub use reqwest;
    pub use schemars;
    pub use serde;
}

/// Implements progenitor's `ClientHooks<Runtime>` for a generated `Client`
/// by delegating to its [`Runtime`]. Each generated crate calls this once.
#[macro_export]
macro_rules! client_hooks {
    ($client:ty) => {
        impl $crate::__private::progenitor_client::ClientHooks<$crate::Runtime> for $client {
            async fn pre<E>(
                &self,
                request: &mut $crate::__private::reqwest::Request,
                info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> ::std::result::Result<(), $crate::__private::progenitor_client::Error<E>> {
                use $crate::__private::progenitor_client::ClientInfo as _;
                self.inner()
                    .prepare(self.baseurl(), request, info.operation_id)
                    .map_err(|error| $crate::__private::progenitor_client::Error::Custom(error.to_custom()))
            }

            async fn exec(
                &self,
                request: $crate::__private::reqwest::Request,
                info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> $crate::__private::reqwest::Result<$crate::__private::reqwest::Response> {
                use $crate::__private::progenitor_client::ClientInfo as _;
                self.inner()
                    .execute(self.client(), request, info.operation_id)
                    .await
            }
        }
    };
}
