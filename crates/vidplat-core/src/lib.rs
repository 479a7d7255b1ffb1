#![doc = include_str!("../ARCHITECTURE.md")]
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

#[cfg(feature = "by-name")]
mod args;
mod body;
mod builder;
mod config;
mod decode;
mod exchange;
mod failure;
mod files;
mod judge;
mod members;
mod observe;
mod open_enum;
mod operation;
mod paged;
mod patch;
mod period;
mod prepared;
mod quota;
#[cfg(feature = "by-name")]
mod raw;
mod redact;
mod remainder;
mod request;
mod response;
mod retry;
mod route;
mod runtime;
mod setter;
mod stream;
mod table;
mod text_pattern;
mod time;
mod timeout;
mod tls;
mod transport;
mod validate;

#[cfg(feature = "by-name")]
pub use args::{Args, OperationVisitor};
pub use builder::{RuntimeBuilder, DEFAULT_MAX_RESPONSE_BODY};
pub use config::{BaseUrl, ConfigError};
pub use failure::{ApiError, CallFailure, DecodeError, FailureKind, NotSendable};
pub use open_enum::ServiceErrorCode;
pub use operation::{operation_rows, send_operation, Operation, Paginated};
pub use paged::{PagePosition, Paged, PagingStyle};
pub use patch::Patch;
pub use period::{Period, PeriodError, ReportPeriod};
pub use prepared::{Prepared, Rows};
pub use quota::limiter::{QuotaLimiter, QuotaPermit, QuotaStore};
pub use quota::limits::{
    CountedUntil, Quota, QuotaActivity, QuotaConfig, QuotaMode, QuotaRefusal, QuotaUsage, QuotaWait, WaitCause, Waiting,
};
pub use quota::shared::{Lease, SharedQuota, StoreFuture, StoreUnavailable, Turn, TurnTaken, WhenUnavailable};
#[cfg(feature = "by-name")]
pub use raw::RawRequest;
pub use redact::{escape_controls, without_credentials, Redactor, REDACTED};
pub use response::Response;
pub use retry::{is_retryable_status, may_have_acted, may_send_again, parse_retry_after, Delivery, RetryPolicy};
pub use route::{RouteTemplate, Routes};
pub use runtime::Runtime;
pub use secrecy::{ExposeSecret, SecretString};
pub use setter::{IntoOptional, IntoValue, Refusal, Refusals, MISSING};
pub use stream::RowReceiver;
#[cfg(feature = "by-name")]
pub use table::laid_over;
pub use table::{
    Argument, CatalogKind, Kind, Method, OperationHelp, OperationMarker, OperationMeta, Place, Reading, RequestBody,
    Routed, Service, ServiceTable,
};
pub use time::humanized;
pub use time::{japan_offset, Date, Timestamp, TimestampParseError, JAPAN_OFFSET_SECONDS};
pub use timeout::{TimeoutKind, Timeouts, DEFAULT_IDLE_BODY_TIMEOUT};
pub use tls::install_default_tls_provider;
pub use transport::{ResponseFuture, Transport};
pub use validate::{body_violations, first_violation, query_violations, Check, Rule, SuccessCheck, SuccessRule};

/// What only the generated crates use: not part of the API, may change in
/// any release. (The macros `open_enum!` and `into_value!` are exported at
/// the crate root, hidden, for the same code.)
#[doc(hidden)]
pub mod __private {
    pub use crate::config::is_secure_enough;
    pub use crate::files::{clear_beside, new_beside, open_file, own_dir, read_text, replace_file, Links};
    pub use crate::members::{missing, read_once, read_unknown, skip, Member, MemberName};
    pub use crate::paged::{first_number, first_ranks, paging_field};
    pub use crate::redact::{bounded, Bounded};
    pub use crate::request::Request;
    pub use crate::setter::{array_of, refused_members, FromText};
    pub use crate::text_pattern::{Step, TextPattern};
    pub use crate::tls::tls_config;
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
}

// The generated conversions name `FromText` from the crate root.
#[doc(hidden)]
pub use setter::FromText;
