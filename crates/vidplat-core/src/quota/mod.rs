//! The analytics usage limits on the client side: 3 calls a minute, 1 at a
//! time and 50,000 a month per account by default (`limits`), counted by the
//! limiter (`limiter`) in this process's memory or in a store the account's
//! processes share (`shared`: the trait; the stores live in other crates,
//! Redis in `vidplat-redis`, a file of this machine in the facade).

pub(crate) mod limiter;
pub(crate) mod limits;
pub(crate) mod shared;
