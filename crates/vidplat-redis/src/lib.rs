//! The Redis store of vidplat's analytics quota, and the work the processes
//! of one account share through the same Redis (see the README).
//!
//! - [`RedisQuota`] (`quota.rs`): the store, a [`vidplat_core::SharedQuota`];
//!   its Lua scripts, leases and queue.
//! - `nodes.rs`: one node, or a cluster's nodes followed through `MOVED` and
//!   fail-overs.
//! - `wire.rs`: the connection, every reply read under a bound.
//! - [`SharedWork`] (`work.rs`): a plan of items agreed by the workers, each
//!   item claimed by one of them (the exporter's chunks).

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod error;
mod nodes;
mod quota;
mod wire;
mod work;

pub use error::{Bound, RedisError};
pub use quota::{RedisQuota, RedisQuotaError, RedisUnavailable};
pub use work::{AgreedPlan, SharedWork, SharedWorkError, WorkClaim, WorkToken};
