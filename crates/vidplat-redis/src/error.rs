//! Why the Redis store could not be used. Every text in it is the store's own
//! words, the redacted URL, or the server's words escaped and cut to 200
//! characters: a hostile server can neither forge log lines nor fill them,
//! and no password is ever in it.

use std::fmt;

/// A Redis command that did not come back with an answer the store reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedisError {
    /// No node took a connection (`reason`: the last one's).
    Unreachable {
        /// The store's URL, its password redacted.
        url: String,
        /// Why the last node tried did not connect.
        reason: String,
    },
    /// No answer came within `within`: the command timeout or the call's deadline.
    NoAnswer {
        /// The store's URL, its password redacted.
        url: String,
        /// Which bound ended the wait.
        within: Bound,
    },
    /// Redis answered an error, or the connection broke (a reply out of
    /// bounds among the causes); `tries` above 1 when a cluster kept
    /// redirecting or was between masters.
    Failed {
        /// The store's URL, its password redacted.
        url: String,
        /// Commands sent.
        tries: u32,
        /// What Redis or the connection said, escaped and cut.
        reason: String,
    },
    /// A standalone store was answered `MOVED`: the URL names a Redis Cluster node.
    NotStandalone {
        /// The node Redis named, escaped and cut.
        named: String,
    },
    /// A cluster redirected to an address that is not `host:port`.
    BadRedirect {
        /// The address, escaped and cut.
        named: String,
    },
    /// One of the store's scripts answered what its caller does not read.
    UnexpectedAnswer {
        /// The script.
        script: &'static str,
        /// The answer, shortened.
        answer: String,
    },
}

/// The bound that ended a wait for Redis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The store's command timeout.
    CommandTimeout,
    /// The deadline of the call the command was for.
    CallDeadline,
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisError::Unreachable { url, reason } => write!(f, "cannot connect to Redis at {url}: {reason}"),
            RedisError::NoAnswer { url, within } => {
                let within = match within {
                    Bound::CommandTimeout => "the command timeout",
                    Bound::CallDeadline => "the call's deadline",
                };
                write!(f, "no answer from Redis at {url} within {within}")
            }
            RedisError::Failed { url, tries: 1, reason } => write!(f, "Redis at {url} failed: {reason}"),
            RedisError::Failed { url, tries, reason } => {
                write!(f, "Redis at {url} failed: {tries} tries, the last {reason}")
            }
            RedisError::NotStandalone { named } => write!(
                f,
                "Redis answered MOVED ({named}): it is a Redis Cluster node; make the store with RedisQuota::cluster"
            ),
            RedisError::BadRedirect { named } => write!(f, "Redis redirected to `{named}`, which is not host:port"),
            RedisError::UnexpectedAnswer { script, answer } => {
                write!(f, "unexpected answer from the {script} script: {answer}")
            }
        }
    }
}

impl std::error::Error for RedisError {}

/// `text` from the server or the network, as the error keeps it.
pub(crate) fn quoted(text: &str, at_most: usize) -> String {
    vidplat_core::__private::bounded(text, at_most).to_string()
}
