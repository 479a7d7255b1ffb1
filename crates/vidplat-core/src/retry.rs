//! Whether a request may be sent again, and how long to wait first.

use crate::table::Method;
use std::time::{Duration, SystemTime};

/// How many attempts a call makes and how long it waits between them.
///
/// What is retried is decided by [`may_send_again`], not by the policy: a
/// request that never left, for every method; a 429, 502, 503 or 504 answer,
/// or a failure after sending, only for GET and DELETE. POST, PUT and PATCH
/// are never sent again once they may have reached the server: a duplicated
/// task registration costs money. Analytics' 408 ("query too slow") is never
/// retried. How long the whole call may take is a timeout
/// ([`Timeouts`](crate::Timeouts)), not part of this policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 disables retries).
    pub max_attempts: u32,
    /// The backoff ceiling of the first retry; it doubles with every retry.
    pub initial_backoff: Duration,
    /// The largest backoff ceiling.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(20),
        }
    }
}

impl RetryPolicy {
    /// One attempt only.
    pub fn never() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Full jitter: a uniformly random wait between zero and the ceiling of this retry.
    pub fn backoff(&self, retry: u32) -> Duration {
        let ceiling = self
            .initial_backoff
            .saturating_mul(1u32.checked_shl(retry.min(30)).unwrap_or(u32::MAX))
            .min(self.max_backoff);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// Whether a request may have reached the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Nothing left the client, or the connection never opened.
    NotSent,
    /// Sent, but no answer came (a timeout, a connection broken before the
    /// answer): the server may have acted on it.
    MayHaveArrived,
    /// The server answered.
    Answered,
}

/// Whether an attempt that ended this way may have done its work on the
/// service: it may have arrived and no answer came, or a gateway answered
/// (502, 503, 504), which it may do after the service acted.
pub fn may_have_acted(delivery: Delivery, status: Option<u16>) -> bool {
    match delivery {
        Delivery::MayHaveArrived => true,
        Delivery::Answered => status.is_some_and(|s| matches!(s, 502..=504)),
        Delivery::NotSent => false,
    }
}

/// Statuses worth another attempt of an idempotent request.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// The one rule for sending a request again, used by the runtime's retries and
/// by `vidplat::Error::is_retryable`: a request that never left may always be
/// sent; one that may have arrived only if its method is idempotent; one the
/// server answered only if the method is idempotent and the status says "try
/// again". An unknown method counts as not idempotent.
pub fn may_send_again(method: Option<Method>, delivery: Delivery, status: Option<u16>) -> bool {
    let idempotent = method.is_some_and(Method::is_idempotent);
    match delivery {
        Delivery::NotSent => true,
        Delivery::MayHaveArrived => idempotent,
        Delivery::Answered => idempotent && status.is_some_and(is_retryable_status),
    }
}

/// `Retry-After`: delay-seconds or an HTTP date, read once per answer. Any
/// other form (a negative or fractional number, garbage) is ignored; a date in
/// the past is zero; a huge value is kept as it is (waits are clamped by the
/// call's deadline, never added unchecked).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // All digits: seconds; more than u64 can hold is "as long as it gets".
        return Some(Duration::from_secs(value.parse::<u64>().unwrap_or(u64::MAX)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_full_jitter_under_a_doubling_cap() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(700),
            ..RetryPolicy::default()
        };
        for retry in 0..6 {
            let cap = Duration::from_millis((100u64 << retry).min(700));
            let waits: Vec<Duration> = (0..200).map(|_| policy.backoff(retry)).collect();
            assert!(waits.iter().all(|w| *w <= cap), "retry {retry}");
            assert!(waits.iter().any(|w| *w < cap / 2), "jitter reaches the lower half");
        }
        let huge = RetryPolicy {
            initial_backoff: Duration::MAX,
            max_backoff: Duration::MAX,
            ..RetryPolicy::default()
        };
        let _ = huge.backoff(u32::MAX);
    }

    #[test]
    fn retry_after_seconds_and_http_date_of_any_size() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("+5", now), None);
        assert_eq!(parse_retry_after("1.5", now), None);
        assert_eq!(
            parse_retry_after("18446744073709551615", now),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            parse_retry_after("99999999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
        assert!(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now).is_some());
    }

    #[test]
    fn only_requests_that_cannot_duplicate_work_are_sent_again() {
        use Delivery::*;
        for method in [Method::Post, Method::Put, Method::Patch] {
            assert!(may_send_again(Some(method), NotSent, None));
            assert!(!may_send_again(Some(method), MayHaveArrived, None));
            assert!(!may_send_again(Some(method), Answered, Some(503)));
        }
        for method in [Method::Get, Method::Delete] {
            assert!(may_send_again(Some(method), MayHaveArrived, None));
            assert!(may_send_again(Some(method), Answered, Some(503)));
            assert!(!may_send_again(Some(method), Answered, Some(404)));
            assert!(!may_send_again(Some(method), Answered, Some(408)));
        }
        assert!(!may_send_again(None, MayHaveArrived, None));
    }
}
