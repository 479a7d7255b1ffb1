//! The analytics usage limits on the client side: 3 calls a minute, 1 at a
//! time and 50,000 a month per account by default (`limits`), counted by the
//! limiter (`limiter`) in this process's memory or in a store the account's
//! processes share (`shared`): with the `redis` feature, Redis (`redis`).

pub(crate) mod limiter;
pub(crate) mod limits;
#[cfg(feature = "redis")]
pub(crate) mod redis;
#[cfg(feature = "redis")]
pub(crate) mod redis_nodes;
#[cfg(feature = "redis")]
pub(crate) mod redis_wire;
pub(crate) mod shared;
#[cfg(feature = "redis")]
pub(crate) mod work;
