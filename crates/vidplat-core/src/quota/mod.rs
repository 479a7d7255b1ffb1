//! The analytics usage limits on the client side: 3 calls a minute, 1 at a
//! time and 50,000 a month per account by default (`limits`), counted by the
//! limiter (`limiter`) in this process's memory or, with the `redis` feature,
//! in Redis, shared by every process of the account (`redis`).

pub(crate) mod limiter;
pub(crate) mod limits;
#[cfg(feature = "redis")]
pub(crate) mod redis;
#[cfg(feature = "redis")]
pub(crate) mod redis_nodes;
#[cfg(feature = "redis")]
pub(crate) mod redis_wire;
#[cfg(feature = "redis")]
pub(crate) mod work;
