//! Webhook signatures as the Standard Webhooks specification gives them: a
//! `whsec_` secret (base64 of the key), the message `id.timestamp.body`
//! signed with HMAC-SHA-256, sent as `webhook-signature: v1,<base64>` beside
//! `webhook-id` and `webhook-timestamp` (seconds since the epoch). What the
//! receiving side checks ([`verify`]) and what a sender writes ([`sign`]).
//! Feature `webhooks`.
//!
//! ```
//! use vidplat::webhooks::{sign, verify, WebhookSecret, DEFAULT_TOLERANCE};
//!
//! let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")?;
//! let body = br#"{"type":"task.ready","task_id":7}"#;
//! let signature = sign(&secret, "evt_1", 1_700_000_000, body);
//! verify(&secret, "evt_1", "1700000000", &signature, body, 1_700_000_030, DEFAULT_TOLERANCE)?;
//! # Ok::<(), vidplat::webhooks::WebhookError>(())
//! ```

use base64::Engine as _;
use std::fmt;
use std::time::Duration;

/// How far a message's timestamp may be from now, either way (the
/// specification's suggestion): older is a replay, newer a wrong clock.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// The signing secret; its bytes appear in no output (`Debug` redacts them).
#[derive(Clone)]
pub struct WebhookSecret(Vec<u8>);

impl WebhookSecret {
    /// A secret as the specification writes it, `whsec_` then the key in
    /// base64 (the prefix may be left out); surrounding whitespace ignored.
    pub fn parse(text: &str) -> Result<Self, WebhookError> {
        let text = text.trim();
        let encoded = text.strip_prefix("whsec_").unwrap_or(text);
        let key = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| WebhookError::Secret("is not `whsec_` and the key in base64"))?;
        if key.is_empty() {
            return Err(WebhookError::Secret("is empty"));
        }
        Ok(Self(key))
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

/// Why a message does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WebhookError {
    /// The secret cannot be read.
    Secret(&'static str),
    /// `webhook-timestamp` is not whole seconds since the epoch.
    Timestamp,
    /// The timestamp is older than the tolerance allows (a replay?).
    TooOld {
        /// How old it is.
        age: Duration,
    },
    /// The timestamp is further ahead than the tolerance allows.
    TooNew {
        /// How far ahead.
        ahead: Duration,
    },
    /// `webhook-signature` holds no `v1,` signature.
    NoSignature,
    /// No `v1` signature is the message's.
    Mismatch,
}

impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebhookError::Secret(why) => write!(f, "the secret {why}"),
            WebhookError::Timestamp => f.write_str("the timestamp is not whole seconds since the epoch"),
            WebhookError::TooOld { age } => write!(f, "the timestamp is {} s old, past the tolerance", age.as_secs()),
            WebhookError::TooNew { ahead } => {
                write!(f, "the timestamp is {} s ahead, past the tolerance", ahead.as_secs())
            }
            WebhookError::NoSignature => f.write_str("the signature header holds no `v1,` signature"),
            WebhookError::Mismatch => f.write_str("no signature is the message's"),
        }
    }
}

impl std::error::Error for WebhookError {}

fn key(secret: &WebhookSecret) -> ring::hmac::Key {
    ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &secret.0)
}

fn message(id: &str, timestamp: &str, body: &[u8]) -> Vec<u8> {
    [id.as_bytes(), b".", timestamp.as_bytes(), b".", body].concat()
}

/// Now, in seconds since the epoch: what a sender puts in
/// `webhook-timestamp` and what [`verify`] compares it with.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_secs()).unwrap_or(i64::MAX))
}

/// The `webhook-signature` value of a message: `v1,` and the base64 of
/// HMAC-SHA-256 over `id.timestamp.body`.
pub fn sign(secret: &WebhookSecret, id: &str, timestamp: i64, body: &[u8]) -> String {
    let tag = ring::hmac::sign(&key(secret), &message(id, &timestamp.to_string(), body));
    format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(tag.as_ref()))
}

/// Checks a received message: its timestamp within `tolerance` of `now`
/// (seconds since the epoch), and one of the space-separated `v1,`
/// signatures of `signatures` its own (compared in constant time; other
/// versions are skipped). `timestamp` is the header as received.
pub fn verify(
    secret: &WebhookSecret,
    id: &str,
    timestamp: &str,
    signatures: &str,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> Result<(), WebhookError> {
    let sent: i64 = timestamp.trim().parse().map_err(|_| WebhookError::Timestamp)?;
    let tolerance = i64::try_from(tolerance.as_secs()).unwrap_or(i64::MAX);
    let age = now.saturating_sub(sent);
    if age > tolerance {
        return Err(WebhookError::TooOld {
            age: Duration::from_secs(age.unsigned_abs()),
        });
    }
    // `age` may be i64::MIN, whose negation overflows.
    if age < -tolerance {
        return Err(WebhookError::TooNew {
            ahead: Duration::from_secs(age.unsigned_abs()),
        });
    }
    let message = message(id, timestamp.trim(), body);
    let key = key(secret);
    let mut any = false;
    for signature in signatures.split_whitespace() {
        let Some(encoded) = signature.strip_prefix("v1,") else {
            continue;
        };
        any = true;
        let Ok(tag) = base64::engine::general_purpose::STANDARD.decode(encoded) else {
            continue;
        };
        if ring::hmac::verify(&key, &message, &tag).is_ok() {
            return Ok(());
        }
    }
    Err(if any {
        WebhookError::Mismatch
    } else {
        WebhookError::NoSignature
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's example secret, id, timestamp and body; its
    /// signature also computed with Python's `hmac` and `base64`.
    /// A sending time as far ahead as an i64 goes, against any clock, is too new.
    #[test]
    fn a_timestamp_at_the_end_of_time_is_too_new_whatever_the_clock() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("a secret");
        for now in [-1, 0, now()] {
            let verified = verify(
                &secret,
                "msg",
                &i64::MAX.to_string(),
                "v1,x",
                b"{}",
                now,
                Duration::from_secs(300),
            );
            assert!(
                matches!(verified, Err(WebhookError::TooNew { .. })),
                "{now}: {verified:?}"
            );
        }
    }

    #[test]
    fn the_specification_s_example_verifies_and_anything_changed_does_not() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("the example's secret");
        let (id, timestamp) = ("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330");
        let body = br#"{"test": 2432232314}"#;
        let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
        assert_eq!(sign(&secret, id, 1_614_265_330, body), expected);
        let now = 1_614_265_330 + 10;
        let several = format!("v1a,abc v1,AAAA {expected}");
        let changed_body = br#"{"test": 2432232315}"#;
        // (id, timestamp, signatures, body, now): what verify says.
        type Case<'a> = (&'a str, &'a str, &'a str, &'a [u8], i64, Result<(), WebhookError>);
        let cases: [Case<'_>; 8] = [
            (id, timestamp, expected, body, now, Ok(())),
            // One of several, other versions skipped.
            (id, timestamp, &several, body, now, Ok(())),
            (id, timestamp, expected, changed_body, now, Err(WebhookError::Mismatch)),
            ("msg_other", timestamp, expected, body, now, Err(WebhookError::Mismatch)),
            (id, timestamp, "v1a,abc", body, now, Err(WebhookError::NoSignature)),
            (
                id,
                timestamp,
                expected,
                body,
                1_614_265_330 + 301,
                Err(WebhookError::TooOld {
                    age: Duration::from_secs(301),
                }),
            ),
            (
                id,
                timestamp,
                expected,
                body,
                1_614_265_330 - 301,
                Err(WebhookError::TooNew {
                    ahead: Duration::from_secs(301),
                }),
            ),
            (id, "soon", expected, body, now, Err(WebhookError::Timestamp)),
        ];
        for (id, timestamp, signatures, body, now, said) in cases {
            assert_eq!(
                verify(&secret, id, timestamp, signatures, body, now, DEFAULT_TOLERANCE),
                said,
                "{id} {timestamp} {signatures} at {now}"
            );
        }
        assert!(matches!(
            WebhookSecret::parse("whsec_***"),
            Err(WebhookError::Secret(_))
        ));
        assert_eq!(format!("{secret:?}"), "WebhookSecret(<redacted>)");
    }
}
