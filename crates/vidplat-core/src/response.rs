//! A decoded success answer with its status and headers.

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use std::fmt;
use std::ops::{Deref, DerefMut};

/// What `send()` returns: the decoded body, with the answer's status and
/// headers. It dereferences to the body; [`Response::into_inner`] takes it.
pub struct Response<T> {
    status: StatusCode,
    headers: HeaderMap,
    value: T,
    digest: Option<u64>,
}

/// The hash of a body's bytes as they arrive (SipHash with fixed keys: the
/// same bytes give the same digest in every call of a process; not a
/// secure digest), taken only where a paginator compares a page with the
/// one before: hashing every answer was 1.6 % of a one-task call's
/// instructions. Its default is not taken: for a reader that never compares pages.
#[derive(Default)]
pub(crate) struct BodyDigest(Option<std::collections::hash_map::DefaultHasher>);

impl BodyDigest {
    /// Taken when `operation` pages; nothing is hashed for any other.
    pub(crate) fn for_operation(operation: &crate::OperationMeta) -> Self {
        Self(operation.paging.is_some().then(Default::default))
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if let Some(hasher) = &mut self.0 {
            std::hash::Hasher::write(hasher, bytes);
        }
    }

    pub(crate) fn finish(&self) -> Option<u64> {
        self.0.as_ref().map(std::hash::Hasher::finish)
    }
}

impl<T> Response<T> {
    pub(crate) fn new(status: StatusCode, headers: HeaderMap, value: T) -> Self {
        Self {
            status,
            headers,
            value,
            digest: None,
        }
    }

    pub(crate) fn with_digest(mut self, digest: Option<u64>) -> Self {
        self.digest = digest;
        self
    }

    /// A hash of the body's bytes as they arrived, for an operation that
    /// pages (`None` for one that does not, or when no body was read): two
    /// answers with the same bytes have the same digest, so a paginator
    /// tells a page the server sends again without serialising its rows.
    /// Not a secure digest.
    pub fn body_digest(&self) -> Option<u64> {
        self.digest
    }

    /// The decoded body.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The answer's status (a 2xx).
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The answer's headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }
}

impl<T> Deref for Response<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Response<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Response<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Headers are left out: a server could echo anything into them.
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}
