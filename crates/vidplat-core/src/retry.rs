//! When and how long to wait before sending a request again.

use std::time::{Duration, SystemTime};

/// Retries with exponential backoff and full jitter, capped in attempts and in total time.
///
/// What is retried: a connection that failed before the request was sent, for
/// every method; a 429, 502, 503 or 504 answer, or a transport failure after
/// sending, only for GET and DELETE. POST, PUT and PATCH are never sent again
/// once they may have reached the server: a duplicated task registration costs
/// money. Analytics' 408 ("query too slow") is never retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 disables retries).
    pub max_attempts: u32,
    /// The backoff ceiling of the first retry; it doubles with every retry.
    pub initial_backoff: Duration,
    /// The largest backoff ceiling.
    pub max_backoff: Duration,
    /// The whole call, retries and waits included, ends after this long:
    /// no retry starts past it, and no attempt runs beyond it.
    pub total_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(20),
            total_timeout: Duration::from_secs(300),
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
        Duration::from_nanos(fastrand::u64(0..=ceiling.as_nanos().min(u64::MAX as u128) as u64))
    }
}

/// Statuses worth another attempt of an idempotent request.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// `Retry-After`: delay-seconds or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
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
    }

    #[test]
    fn retry_after_seconds_and_http_date() {
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
    }
}
