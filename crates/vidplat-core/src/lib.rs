//! The runtime shared by the generated vidplat client crates.
//!
//! Generated crates implement progenitor's `ClientHooks` by delegating to a
//! [`Runtime`] (see [`client_hooks!`]), so authentication, retries, timeouts,
//! quotas and the reading of answers live here, in one place:
//!
//! - `table`: what the generator knows of each operation; `route`: overrides;
//! - `builder`, `runtime`, `pipeline`: building a runtime, preparing a request,
//!   and the attempt loop; `transport`: the network, replaceable in tests;
//! - `body`: reading an answer under a size cap; `answer`: judging it;
//!   `decode`: decoding a success body (`wire_slot`: a paginator's place on the wire, given back before it); `stream`: large list bodies decoded while they arrive; `failure`: the typed outcome of a
//!   failed call and how it travels back through progenitor;
//! - `retry`, `timeout`, `quota`: when to send again, how long a call may take,
//!   the analytics limiter; `redact`: what is never printed; `config`: configuration mistakes.

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod answer;
mod body;
mod builder;
mod config;
mod decode;
mod failure;
mod open_enum;
mod operation;
mod paged;
mod pipeline;
mod query;
mod quota;
#[cfg(feature = "redis")]
mod quota_redis;
mod redact;
mod retry;
mod route;
mod runtime;
mod setter;
mod stream;
mod table;
mod time;
mod timeout;
mod transport;
mod validate;
mod wire_slot;

pub use builder::{check_routes, install_default_tls_provider, RuntimeBuilder, DEFAULT_MAX_RESPONSE_BODY};
pub use config::{check_base_url, ConfigError};
pub use decode::decode_response;
pub use failure::{ApiError, CallFailure, DecodeError, FailureKind};
pub use open_enum::ServiceErrorCode;
pub use operation::Operation;
pub use paged::{first_number, first_ranks, paging_field, PagePosition, Paged, Paginated, PagingStyle};
pub use query::CommaSeparated;
pub use quota::{Quota, QuotaConfig, QuotaLimiter, QuotaMode, QuotaPermit, QuotaRefusal, QuotaStore, QuotaWait};
#[cfg(feature = "redis")]
pub use quota_redis::{RedisQuota, RedisQuotaError, RedisUnavailable};
pub use redact::{escape_controls, Redactor, REDACTED};
pub use retry::{is_retryable_status, may_send_again, parse_retry_after, Delivery, RetryPolicy};
pub use route::RouteTemplate;
pub use runtime::Runtime;
pub use secrecy::{ExposeSecret, SecretString};
pub use setter::{array_of, member_error, FromText, IntoOptional, IntoValue, MISSING};
pub use stream::{decode_streaming_response, with_row_handover, Handed, RowReceiver};
pub use table::{Method, OperationMeta, Service, ServiceTable};
pub use time::{Date, Timestamp, TimestampParseError, JAPAN_OFFSET_SECONDS};
pub use timeout::{TimeoutKind, Timeouts};
pub use transport::{ResponseFuture, Transport};
pub use validate::{first_violation, Check, Rule};
pub use wire_slot::holding_wire_slot;

#[doc(hidden)]
pub mod __private {
    pub use progenitor_client;
    pub use reqwest;
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
}

/// Implements progenitor's `ClientHooks<Runtime>` for a generated `Client`
/// by delegating to its [`Runtime`]. Each generated crate calls this once.
///
/// `exec` runs the whole call (every attempt); a failure comes back as a
/// response carrying a [`CallFailure`], which `post` turns into progenitor's
/// error before the generated code looks at any status.
#[macro_export]
macro_rules! client_hooks {
    ($client:ty) => {
        impl $crate::__private::progenitor_client::ClientHooks<$crate::Runtime> for $client {
            async fn exec(
                &self,
                request: $crate::__private::reqwest::Request,
                info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> $crate::__private::reqwest::Result<$crate::__private::reqwest::Response> {
                use $crate::__private::progenitor_client::ClientInfo as _;
                Ok(self
                    .inner()
                    .execute(self.baseurl(), request, info.operation_id)
                    .await)
            }

            async fn post<E>(
                &self,
                result: &$crate::__private::reqwest::Result<$crate::__private::reqwest::Response>,
                _info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> ::std::result::Result<(), $crate::__private::progenitor_client::Error<E>> {
                $crate::CallFailure::surface(result)
            }
        }
    };
}
