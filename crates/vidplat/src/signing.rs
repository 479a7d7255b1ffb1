//! Signed viewing-page URLs (video management document, Authentication §4).
//!
//! A page created with `signature_required` answers only URLs signed with its
//! 32-character `signing_key`:
//!
//! - message: the page URL with `expires` (UNIX time) and then `aud` (a user
//!   identifier) as query parameters, whichever are present, in that order;
//! - signature: lowercase hexadecimal HMAC-SHA-256 of the message, keyed with
//!   the signing key;
//! - signed URL: the message followed by `signature=<hex>` and `version=1`.
//!
//! Without `aud` the page's simultaneous-viewer limit does not apply.
//! The document does not show how `aud` is escaped inside the message; this
//! module signs the URL exactly as it is sent (percent-encoded, RFC 3986
//! unreserved characters left as they are), which is what a server can verify
//! without decoding first. That choice is listed in GAPS.md.

use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;
use std::fmt;

type HmacSha256 = Hmac<Sha256>;

/// The `version` the document defines.
pub const SIGNATURE_VERSION: &str = "1";

/// A page's signing key. Never printed.
#[derive(Clone)]
pub struct SigningKey(SecretString);

impl SigningKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(SecretString::from(key.into()))
    }

    fn mac(&self) -> HmacSha256 {
        <HmacSha256 as KeyInit>::new_from_slice(self.0.expose_secret().as_bytes())
            .expect("HMAC takes keys of any length")
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey([redacted])")
    }
}

impl From<&str> for SigningKey {
    fn from(key: &str) -> Self {
        Self::new(key)
    }
}

impl From<String> for SigningKey {
    fn from(key: String) -> Self {
        Self::new(key)
    }
}

/// What a signed URL grants.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Grant {
    /// UNIX time after which the URL is refused.
    pub expires: Option<u64>,
    /// The user the URL is for.
    pub audience: Option<String>,
}

/// Why a URL was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// Not a URL, or not a page URL with a query.
    Malformed(String),
    /// No `signature` parameter.
    MissingSignature,
    /// `version` is absent or not `1`.
    UnsupportedVersion(Option<String>),
    /// The signature does not match the message and key.
    BadSignature,
    /// `expires` has passed.
    Expired { expires: u64, now: u64 },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Malformed(why) => write!(f, "malformed signed URL: {why}"),
            VerifyError::MissingSignature => f.write_str("the URL carries no signature"),
            VerifyError::UnsupportedVersion(Some(v)) => write!(f, "signature version {v} is not supported (only 1)"),
            VerifyError::UnsupportedVersion(None) => f.write_str("the URL carries no signature version"),
            VerifyError::BadSignature => f.write_str("the signature does not match"),
            VerifyError::Expired { expires, now } => write!(f, "the URL expired at {expires} (now {now})"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Signs a page URL (`https://{domain}/pages/{page_id}`).
pub fn sign(page_url: &str, key: &SigningKey, grant: &Grant) -> String {
    let message = message(page_url, grant);
    let mut mac = key.mac();
    mac.update(message.as_bytes());
    let signature = hex::encode(mac.finalize().into_bytes());
    let separator = if message.contains('?') { '&' } else { '?' };
    format!("{message}{separator}signature={signature}&version={SIGNATURE_VERSION}")
}

/// The message the signature covers.
pub fn message(page_url: &str, grant: &Grant) -> String {
    let mut message = page_url.to_owned();
    let mut separator = if page_url.contains('?') { '&' } else { '?' };
    if let Some(expires) = grant.expires {
        message.push_str(&format!("{separator}expires={expires}"));
        separator = '&';
    }
    if let Some(audience) = &grant.audience {
        message.push_str(&format!("{separator}aud={}", encode_component(audience)));
    }
    message
}

/// Checks a signed URL against the key (in constant time) and the clock.
pub fn verify(url: &str, key: &SigningKey, now_unix: u64) -> Result<Grant, VerifyError> {
    let (base, query) = url
        .split_once('?')
        .ok_or_else(|| VerifyError::Malformed("no query string".into()))?;
    let mut kept = Vec::new();
    let (mut signature, mut version, mut grant) = (None, None, Grant::default());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        match name {
            "signature" => signature = Some(value),
            "version" => version = Some(value),
            _ => {
                if name == "expires" {
                    let expires = value
                        .parse()
                        .map_err(|_| VerifyError::Malformed(format!("expires `{value}` is not a UNIX time")))?;
                    grant.expires = Some(expires);
                } else if name == "aud" {
                    let audience = decode_component(value)
                        .ok_or_else(|| VerifyError::Malformed("aud is not valid percent-encoded UTF-8".into()))?;
                    grant.audience = Some(audience);
                }
                kept.push(pair);
            }
        }
    }
    let signature = signature.ok_or(VerifyError::MissingSignature)?;
    if version != Some(SIGNATURE_VERSION) {
        return Err(VerifyError::UnsupportedVersion(version.map(str::to_owned)));
    }
    let message = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let expected = hex::decode(signature).map_err(|_| VerifyError::BadSignature)?;
    let mut mac = key.mac();
    mac.update(message.as_bytes());
    mac.verify_slice(&expected).map_err(|_| VerifyError::BadSignature)?;
    if let Some(expires) = grant.expires {
        if now_unix > expires {
            return Err(VerifyError::Expired { expires, now: now_unix });
        }
    }
    Ok(grant)
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn encode_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn decode_component(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected signatures computed independently with
    // `printf '%s' "$MESSAGE" | openssl dgst -sha256 -hmac "$KEY"`.
    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const PAGE: &str = "https://portal.example.jp/pages/0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001";

    #[test]
    fn signs_as_openssl_does() {
        let key = SigningKey::from(KEY);
        let grant = Grant {
            expires: Some(1767225600),
            audience: Some("user-42".into()),
        };
        assert_eq!(
            sign(PAGE, &key, &grant),
            format!("{PAGE}?expires=1767225600&aud=user-42&signature=4714ef20f28388bf42e0d548628375ef5ef07629e37afcc6a7114f6f7eda75ba&version=1")
        );
        let encoded = Grant {
            expires: Some(1767225600),
            audience: Some("山田 taro@example.com".into()),
        };
        assert_eq!(
            sign(PAGE, &key, &encoded),
            format!("{PAGE}?expires=1767225600&aud=%E5%B1%B1%E7%94%B0%20taro%40example.com&signature=a8c9cccdba77d888caeb0d7accdd6c22499685865389a5aa3b8bc0ac8b25f1c0&version=1")
        );
        assert_eq!(
            sign(PAGE, &key, &Grant::default()),
            format!("{PAGE}?signature=0f9c00bd9f749b63c6a20870123bdb0d946d9be6f7a10f26e14fed566110847f&version=1")
        );
        let audience_only = Grant {
            expires: None,
            audience: Some("a+b&c=d".into()),
        };
        assert_eq!(
            sign("https://videos.example.com/pages/pg-2", &key, &audience_only),
            "https://videos.example.com/pages/pg-2?aud=a%2Bb%26c%3Dd&signature=b336ac713aefc118a7633f807550d527ba15b7bb8f4639953fdd1022de991713&version=1"
        );
    }

    #[test]
    fn verify_returns_the_grant_or_says_which_check_failed() {
        let key = SigningKey::from(KEY);
        let grant = Grant {
            expires: Some(2_000),
            audience: Some("山田 taro@example.com".into()),
        };
        let url = sign(PAGE, &key, &grant);
        assert_eq!(verify(&url, &key, 1_999), Ok(grant.clone()));
        assert_eq!(verify(&url, &key, 2_000), Ok(grant));
        assert_eq!(
            verify(&url, &key, 2_001),
            Err(VerifyError::Expired {
                expires: 2_000,
                now: 2_001
            })
        );
        assert_eq!(
            verify(&url, &SigningKey::from("another-key-another-key-another-k"), 0),
            Err(VerifyError::BadSignature)
        );
        let tampered = url.replace("expires=2000", "expires=9000");
        assert_eq!(verify(&tampered, &key, 0), Err(VerifyError::BadSignature));
        let other_user = url.replace("taro", "hana");
        assert_eq!(verify(&other_user, &key, 0), Err(VerifyError::BadSignature));
        assert_eq!(
            verify(&url.replace("&version=1", ""), &key, 0),
            Err(VerifyError::UnsupportedVersion(None))
        );
        assert_eq!(
            verify(&url.replace("version=1", "version=2"), &key, 0),
            Err(VerifyError::UnsupportedVersion(Some("2".into())))
        );
        assert_eq!(
            verify(PAGE, &key, 0),
            Err(VerifyError::Malformed("no query string".into()))
        );
        assert_eq!(
            verify(&format!("{PAGE}?expires=5"), &key, 0),
            Err(VerifyError::MissingSignature)
        );
    }

    #[test]
    fn the_key_never_prints() {
        assert_eq!(format!("{:?}", SigningKey::from(KEY)), "SigningKey([redacted])");
    }
}
