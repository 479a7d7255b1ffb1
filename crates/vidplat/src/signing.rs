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
//!
//! The rules this module adds where the document is silent:
//!
//! - **What is signed** is the URL as the server receives it: the page URL is
//!   parsed and written back in its normal form (a non-ASCII host as punycode,
//!   a non-ASCII path percent-encoded, the host in lower case). `aud` is
//!   percent-encoded, RFC 3986 unreserved characters left as they are (the
//!   escaping the document does not show; listed in GAPS.md).
//! - **Fragments** never reach a server: [`sign`] signs the URL without its
//!   fragment and puts the fragment back after the signed query; [`verify`]
//!   ignores a fragment. A query after `#` is part of the fragment, so such a
//!   URL is not signed.
//! - **Expiry**: `expires` is the UNIX time at which the URL expires: at
//!   `now == expires` it has expired, for [`verify`] and the simulator alike
//!   (which otherwise reads the document's words on its own, more leniently
//!   than [`verify`]: see its README table).
//! - **One form**: [`verify`] accepts only what [`sign`] produces: each
//!   parameter at most once, none empty, `expires` and `aud` just before
//!   `signature` and `version`, which come last, a decimal `expires` without
//!   leading zeros, a lowercase 64-digit signature. [`sign`] refuses a page URL
//!   that already carries `expires`, `aud`, `signature` or `version`, or whose
//!   own query repeats or leaves empty a parameter.
//! - **Keys** have the documented 32 characters: [`SigningKey::new`] refuses any other.

use secrecy::{ExposeSecret, SecretString};
use std::fmt;
use vidplat_core::escape_controls;

/// The `version` the document defines.
pub const SIGNATURE_VERSION: &str = "1";

/// The documented length of a signing key, in characters.
pub const SIGNING_KEY_CHARS: usize = 32;

/// The parameters signing adds; a page URL may not carry them already.
const RESERVED: [&str; 4] = ["expires", "aud", "signature", "version"];

/// A page's signing key. Never printed.
#[derive(Clone)]
pub struct SigningKey(SecretString);

/// A signing key that does not have the documented 32 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidSigningKey {
    /// How many characters it has (the key itself is never shown).
    pub chars: usize,
}

impl fmt::Display for InvalidSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a signing key has {SIGNING_KEY_CHARS} characters; this one has {}",
            self.chars
        )
    }
}

impl std::error::Error for InvalidSigningKey {}

impl SigningKey {
    /// The key a page's `signing_key` gives; refused unless it has 32 characters.
    pub fn new(key: impl Into<String>) -> Result<Self, InvalidSigningKey> {
        let key = key.into();
        let chars = key.chars().count();
        if chars != SIGNING_KEY_CHARS {
            return Err(InvalidSigningKey { chars });
        }
        Ok(Self(SecretString::from(key)))
    }

    /// The HMAC-SHA-256 key, with ring (already built for TLS: no second
    /// crypto library in a user's build).
    fn hmac(&self) -> ring::hmac::Key {
        ring::hmac::Key::new(ring::hmac::HMAC_SHA256, self.0.expose_secret().as_bytes())
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey([redacted])")
    }
}

impl TryFrom<&str> for SigningKey {
    type Error = InvalidSigningKey;
    fn try_from(key: &str) -> Result<Self, Self::Error> {
        Self::new(key)
    }
}

impl TryFrom<String> for SigningKey {
    type Error = InvalidSigningKey;
    fn try_from(key: String) -> Result<Self, Self::Error> {
        Self::new(key)
    }
}

/// What a signed URL grants.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Grant {
    /// UNIX time at which the URL expires (refused from that second on).
    pub expires: Option<u64>,
    /// The user the URL is for.
    pub audience: Option<String>,
}

impl Grant {
    /// A grant that expires `validity` from now (rounded up to the next
    /// second), for anyone until [`audience`](Self::audience) names a user.
    pub fn valid_for(validity: std::time::Duration) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let expires = now.saturating_add(validity);
        let seconds = expires.as_secs().saturating_add(u64::from(expires.subsec_nanos() > 0));
        Self {
            expires: Some(seconds),
            audience: None,
        }
    }

    /// The user the URL is for (the page's simultaneous-viewer limit then applies).
    pub fn audience(mut self, user: impl Into<String>) -> Self {
        self.audience = Some(user.into());
        self
    }
}

/// A viewing page's URL, `https://{domain}/pages/{page_id}`: the documented
/// form, on a site's domain (one of its `domain_names`) or on the shared
/// portal domain (whose host the documents do not show). No response carries
/// the URL itself (GAPS.md).
pub fn page_url(domain: &str, page_id: &str) -> Result<String, SignError> {
    // A host name only: a port, credentials or a path would change what the URL names.
    if domain.is_empty() || domain.contains([':', '@', '/', '\\', '?', '#', '%', ' ']) {
        return Err(SignError::InvalidUrl(format!(
            "{}: a page's domain is a host name only (no port, user, path or query)",
            vidplat_core::escape_controls(domain)
        )));
    }
    let mut url =
        reqwest::Url::parse("https://page.invalid/pages/").map_err(|e| SignError::InvalidUrl(e.to_string()))?;
    url.set_host(Some(domain))
        .map_err(|e| SignError::InvalidUrl(format!("{domain}: {e}")))?;
    if page_id.is_empty() {
        return Err(SignError::InvalidUrl("an empty page id".into()));
    }
    url.path_segments_mut()
        .map_err(|()| SignError::InvalidUrl(domain.to_owned()))?
        .pop_if_empty()
        .push(page_id);
    Ok(url.into())
}

/// A viewing page as a response gives it: its id and signing key (Register
/// viewing page's answer, Get viewing page's).
#[cfg(feature = "vms")]
pub trait SignablePage {
    /// The page's `id`.
    fn page_id(&self) -> Option<&str>;
    /// The page's `signing_key`.
    fn signing_key(&self) -> Option<&str>;
}

#[cfg(feature = "vms")]
impl SignablePage for crate::vms::types::ViewingPage {
    fn page_id(&self) -> Option<&str> {
        self.id.as_deref()
    }
    fn signing_key(&self) -> Option<&str> {
        self.signing_key.as_deref()
    }
}

#[cfg(feature = "vms")]
impl SignablePage for crate::vms::types::ViewingPageRegistration {
    fn page_id(&self) -> Option<&str> {
        self.id.as_deref()
    }
    fn signing_key(&self) -> Option<&str> {
        self.signing_key.as_deref()
    }
}

/// Signs a page as a response gives it: its URL on `domain`
/// ([`page_url`]), keyed with its `signing_key`.
#[cfg(feature = "vms")]
pub fn sign_page(page: &impl SignablePage, domain: &str, grant: &Grant) -> Result<String, SignError> {
    let id = page.page_id().ok_or(SignError::MissingMember("id"))?;
    let key = page.signing_key().ok_or(SignError::MissingMember("signing_key"))?;
    let key = SigningKey::new(key).map_err(SignError::InvalidKey)?;
    sign(&page_url(domain, id)?, &key, grant)
}

/// Why a page URL cannot be signed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignError {
    /// Not an absolute URL.
    InvalidUrl(String),
    /// The page URL already carries a parameter signing adds.
    ReservedParameter(String),
    /// The page URL's own query repeats a parameter or has an empty one.
    NotCanonical(String),
    /// The page, as read, lacks this member (`signing_key` is given only for
    /// pages that require signatures).
    MissingMember(&'static str),
    /// The page's `signing_key` is not a valid key.
    InvalidKey(InvalidSigningKey),
}

impl fmt::Display for SignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignError::InvalidUrl(why) => write!(f, "not a page URL: {}", escape_controls(why)),
            SignError::MissingMember(member) => write!(f, "the viewing page has no `{member}`"),
            SignError::InvalidKey(why) => write!(f, "the viewing page's signing_key: {why}"),
            SignError::ReservedParameter(name) => write!(
                f,
                "the page URL already carries `{}`, which signing adds",
                escape_controls(name)
            ),
            SignError::NotCanonical(why) => write!(f, "the page URL's query {}", escape_controls(why)),
        }
    }
}

impl std::error::Error for SignError {}

/// Why a URL was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// Not a signed URL in the form [`sign`] produces.
    Malformed(String),
    /// No `signature` parameter.
    MissingSignature,
    /// `version` is absent or not `1`.
    UnsupportedVersion(Option<String>),
    /// The signature does not match the message and key.
    BadSignature,
    /// `expires` has come.
    Expired {
        /// The URL's `expires`.
        expires: u64,
        /// The time it was checked at.
        now: u64,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Malformed(why) => write!(f, "malformed signed URL: {}", escape_controls(why)),
            VerifyError::MissingSignature => f.write_str("the URL carries no signature"),
            VerifyError::UnsupportedVersion(Some(v)) => {
                write!(f, "signature version {} is not supported (only 1)", escape_controls(v))
            }
            VerifyError::UnsupportedVersion(None) => f.write_str("the URL carries no signature version"),
            VerifyError::BadSignature => f.write_str("the signature does not match"),
            VerifyError::Expired { expires, now } => write!(f, "the URL expired at {expires} (now {now})"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Signs a page URL (`https://{domain}/pages/{page_id}`, a fragment allowed).
pub fn sign(page_url: &str, key: &SigningKey, grant: &Grant) -> Result<String, SignError> {
    // The fragment (from `#`, or nothing) goes back after the signed query.
    let (page_url, fragment) = page_url.split_at(page_url.find('#').unwrap_or(page_url.len()));
    let message = message(page_url, grant)?;
    let signature = hex::encode(ring::hmac::sign(&key.hmac(), message.as_bytes()));
    let separator = if message.contains('?') { '&' } else { '?' };
    Ok(format!(
        "{message}{separator}signature={signature}&version={SIGNATURE_VERSION}{fragment}"
    ))
}

/// The message the signature covers: the page URL in the form the server
/// receives, then `expires` and `aud`.
pub fn message(page_url: &str, grant: &Grant) -> Result<String, SignError> {
    let mut url = reqwest::Url::parse(page_url).map_err(|e| SignError::InvalidUrl(e.to_string()))?;
    // Only what a viewer can open as a page: https (http for a local server), no credentials.
    if !matches!(url.scheme(), "https" | "http") || url.host_str().is_none() {
        return Err(SignError::InvalidUrl(format!(
            "{}: not an https page URL",
            url.scheme()
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(SignError::InvalidUrl("a page URL carries no user or password".into()));
    }
    if grant.audience.as_deref() == Some("") {
        return Err(SignError::InvalidUrl(
            "an empty audience (`aud`): name the user, or grant no audience".into(),
        ));
    }
    url.set_fragment(None);
    if url.query() == Some("") {
        url.set_query(None);
    }
    let names = parameter_names(url.query()).map_err(SignError::NotCanonical)?;
    if let Some(reserved) = names.iter().find(|name| RESERVED.contains(&name.as_str())) {
        return Err(SignError::ReservedParameter(reserved.clone()));
    }
    let mut message = String::from(url);
    let mut separator = if message.contains('?') { '&' } else { '?' };
    if let Some(expires) = grant.expires {
        message.push_str(&format!("{separator}expires={expires}"));
        separator = '&';
    }
    if let Some(audience) = &grant.audience {
        message.push_str(&format!("{separator}aud={}", encode_component(audience)));
    }
    Ok(message)
}

/// The decoded names of a query's parameters (none without a query), refusing empty and repeated ones.
fn parameter_names(query: Option<&str>) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    for pair in query.into_iter().flat_map(|query| query.split('&')) {
        let (raw_name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if raw_name.is_empty() || value.is_empty() {
            return Err(format!("has an empty parameter `{pair}`"));
        }
        let name = decode_component(raw_name)
            .ok_or_else(|| format!("has a parameter name that is not UTF-8: `{raw_name}`"))?;
        if names.contains(&name) {
            return Err(format!("repeats the parameter `{name}`"));
        }
        names.push(name);
    }
    Ok(names)
}

/// Checks a signed URL against the key (in constant time) and the clock.
pub fn verify(url: &str, key: &SigningKey, now_unix: u64) -> Result<Grant, VerifyError> {
    let malformed = |why: &str| VerifyError::Malformed(why.to_owned());
    // A fragment never reaches the server; a query after `#` is part of it.
    let url = url.split_once('#').map_or(url, |(url, _)| url);
    let (base, query) = url.split_once('?').ok_or_else(|| malformed("no query string"))?;
    let pairs: Vec<(&str, &str)> = query
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if name.is_empty() || value.is_empty() {
            return Err(malformed("a parameter is empty"));
        }
        if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
            return Err(VerifyError::Malformed(format!("`{name}` appears more than once")));
        }
    }
    let position = |wanted: &str| pairs.iter().position(|(name, _)| *name == wanted);
    let signature_at = position("signature").ok_or(VerifyError::MissingSignature)?;
    let version_at = position("version").ok_or(VerifyError::UnsupportedVersion(None))?;
    let version = pairs[version_at].1;
    if version != SIGNATURE_VERSION {
        return Err(VerifyError::UnsupportedVersion(Some(version.to_owned())));
    }
    // signature, then version, last; aud and expires (when present) just before, in that order.
    let last = pairs.len() - 1;
    let mut expected_at = signature_at;
    let mut take = |name: &str| match position(name) {
        Some(at) if at + 1 == expected_at => {
            expected_at = at;
            Ok(Some(pairs[at].1))
        }
        Some(_) => Err(VerifyError::Malformed(format!("`{name}` is out of place"))),
        None => Ok(None),
    };
    if version_at != last || signature_at + 1 != last {
        return Err(malformed("`signature` and `version` must come last, in that order"));
    }
    let audience = take("aud")?;
    let expires = take("expires")?;
    let mut grant = Grant::default();
    if let Some(raw) = expires {
        // Decimal digits without a sign or leading zeros: the number written back is the text.
        let canonical = raw.parse::<u64>().ok().filter(|expires| expires.to_string() == raw);
        grant.expires =
            Some(canonical.ok_or_else(|| VerifyError::Malformed(format!("expires `{raw}` is not a UNIX time")))?);
    }
    if let Some(raw) = audience {
        let decoded = decode_component(raw).ok_or_else(|| malformed("aud is not valid percent-encoded UTF-8"))?;
        if encode_component(&decoded) != raw {
            return Err(malformed("aud is not percent-encoded the way signing encodes it"));
        }
        grant.audience = Some(decoded);
    }
    let canonical_base = reqwest::Url::parse(base).is_ok_and(|parsed| parsed.as_str() == base);
    if !canonical_base {
        return Err(malformed("the page URL is not in the form the server receives"));
    }
    let signature = pairs[signature_at].1;
    if signature.len() != 64 || !signature.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(malformed("the signature is not 64 lowercase hexadecimal digits"));
    }
    let expected = hex::decode(signature).map_err(|_| VerifyError::BadSignature)?;
    // The message is everything before `signature` (each earlier pair: a separator, `name=value`).
    let before: usize = pairs[..signature_at].iter().map(|(n, v)| n.len() + v.len() + 2).sum();
    let message = &url[..base.len() + before];
    // Compared in constant time.
    ring::hmac::verify(&key.hmac(), message.as_bytes(), &expected).map_err(|_| VerifyError::BadSignature)?;
    if let Some(expires) = grant.expires.filter(|expires| now_unix >= *expires) {
        return Err(VerifyError::Expired { expires, now: now_unix });
    }
    Ok(grant)
}

/// Everything but RFC 3986 unreserved characters (letters, digits, `-._~`).
const NOT_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn encode_component(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, NOT_UNRESERVED).to_string()
}

/// `value` percent-decoded, when each `%` begins two hexadecimal digits (the
/// percent-encoding crate keeps `%zz` as it is) and the bytes are UTF-8.
fn decode_component(value: &str) -> Option<String> {
    let hex_pair = |after: &str| after.bytes().take(2).filter(u8::is_ascii_hexdigit).count() == 2;
    let escapes_whole = value.split('%').skip(1).all(hex_pair);
    let decoded = percent_encoding::percent_decode_str(value).decode_utf8().ok()?;
    escapes_whole.then(|| decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected signatures computed independently with
    // `printf '%s' "$MESSAGE" | openssl dgst -sha256 -hmac "$KEY"`.
    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const PAGE: &str = "https://portal.example.jp/pages/0b6c8e0e-5d3a-4c7e-9f51-2a4d6e8f0001";

    #[test]
    fn a_component_decodes_only_from_whole_escapes_of_utf_8() {
        assert_eq!(decode_component("a%2Fb%e3%81%82").as_deref(), Some("a/bあ"));
        assert_eq!(decode_component("%0f").as_deref(), Some("\u{f}"));
        // `+f` is no hexadecimal pair, though u8::from_str_radix reads it as 15.
        for refused in ["%+f", "%zz", "a%2", "%", "%ff"] {
            assert_eq!(decode_component(refused), None, "{refused}");
        }
    }

    #[test]
    fn what_cannot_be_a_page_url_is_not_signed() {
        assert_eq!(Grant::valid_for(std::time::Duration::MAX).expires, Some(u64::MAX));
        for domain in [
            "user:pw@videos.example.com",
            "videos.example.com:8443",
            "a/b",
            "",
            "x%2fy",
        ] {
            let refused = page_url(domain, "pg-1");
            assert!(
                matches!(refused, Err(SignError::InvalidUrl(_))),
                "{domain}: {refused:?}"
            );
        }
        assert_eq!(
            page_url("Videos.Example.com", "pg-1").unwrap(),
            "https://videos.example.com/pages/pg-1"
        );
        let key = SigningKey::new(KEY).unwrap();
        let grant = Grant::valid_for(std::time::Duration::from_secs(60));
        for url in [
            "javascript:alert(1)",
            "https://user:pw@videos.example.com/pages/p",
            "data:text/html,x",
        ] {
            assert!(
                matches!(sign(url, &key, &grant), Err(SignError::InvalidUrl(_))),
                "{url}"
            );
        }
        let nobody = grant.clone().audience("");
        let refused = sign(PAGE, &key, &nobody).unwrap_err().to_string();
        assert!(refused.contains("empty audience"), "{refused}");
    }

    #[test]
    fn a_grant_from_a_validity_expires_that_long_from_now() {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let grant = Grant::valid_for(std::time::Duration::from_secs(3600)).audience("viewer-42");
        let expires = grant.expires.unwrap();
        assert!(
            (before + 3600..=before + 3602).contains(&expires),
            "{expires} vs {before}"
        );
        assert_eq!(grant.audience.as_deref(), Some("viewer-42"));
    }

    #[test]
    fn page_urls_follow_the_documented_form() {
        assert_eq!(
            page_url("Portal.Example.jp", "p-1").unwrap(),
            "https://portal.example.jp/pages/p-1"
        );
        // An id cannot leave its path segment.
        assert_eq!(
            page_url("portal.example.jp", "../x?y#z").unwrap(),
            "https://portal.example.jp/pages/..%2Fx%3Fy%23z"
        );
        assert!(matches!(page_url("bad host/", "p-1"), Err(SignError::InvalidUrl(_))));
        assert!(matches!(
            page_url("portal.example.jp", ""),
            Err(SignError::InvalidUrl(_))
        ));
    }

    #[test]
    fn a_page_as_read_is_signed_with_its_own_key() {
        let page: crate::vms::types::ViewingPage =
            serde_json::from_value(serde_json::json!({"id": "p-1", "signing_key": KEY})).unwrap();
        let grant = Grant {
            expires: Some(1_767_225_600),
            audience: None,
        };
        let signed = sign_page(&page, "portal.example.jp", &grant).unwrap();
        assert_eq!(
            signed,
            sign("https://portal.example.jp/pages/p-1", &key(), &grant).unwrap()
        );
        let unsigned: crate::vms::types::ViewingPage =
            serde_json::from_value(serde_json::json!({"id": "p-1"})).unwrap();
        assert_eq!(
            sign_page(&unsigned, "portal.example.jp", &grant),
            Err(SignError::MissingMember("signing_key"))
        );
    }

    fn key() -> SigningKey {
        SigningKey::new(KEY).unwrap()
    }

    #[test]
    fn signs_as_openssl_does() {
        let key = key();
        let grant = Grant {
            expires: Some(1767225600),
            audience: Some("user-42".into()),
        };
        assert_eq!(
            sign(PAGE, &key, &grant).unwrap(),
            format!("{PAGE}?expires=1767225600&aud=user-42&signature=4714ef20f28388bf42e0d548628375ef5ef07629e37afcc6a7114f6f7eda75ba&version=1")
        );
        let encoded = Grant {
            expires: Some(1767225600),
            audience: Some("山田 taro@example.com".into()),
        };
        assert_eq!(
            sign(PAGE, &key, &encoded).unwrap(),
            format!("{PAGE}?expires=1767225600&aud=%E5%B1%B1%E7%94%B0%20taro%40example.com&signature=a8c9cccdba77d888caeb0d7accdd6c22499685865389a5aa3b8bc0ac8b25f1c0&version=1")
        );
        assert_eq!(
            sign(PAGE, &key, &Grant::default()).unwrap(),
            format!("{PAGE}?signature=0f9c00bd9f749b63c6a20870123bdb0d946d9be6f7a10f26e14fed566110847f&version=1")
        );
        let audience_only = Grant {
            expires: None,
            audience: Some("a+b&c=d".into()),
        };
        assert_eq!(
            sign("https://videos.example.com/pages/pg-2", &key, &audience_only).unwrap(),
            "https://videos.example.com/pages/pg-2?aud=a%2Bb%26c%3Dd&signature=b336ac713aefc118a7633f807550d527ba15b7bb8f4639953fdd1022de991713&version=1"
        );
    }

    #[test]
    fn verify_returns_the_grant_or_says_which_check_failed() {
        let key = key();
        let grant = Grant {
            expires: Some(2_000),
            audience: Some("山田 taro@example.com".into()),
        };
        let url = sign(PAGE, &key, &grant).unwrap();
        assert_eq!(verify(&url, &key, 1_999), Ok(grant.clone()));
        assert_eq!(
            verify(&url, &SigningKey::new("another-key-another-key-another-").unwrap(), 0),
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
    fn expires_is_the_first_second_the_url_is_refused() {
        let key = key();
        let grant = Grant {
            expires: Some(2_000),
            audience: None,
        };
        let url = sign(PAGE, &key, &grant).unwrap();
        assert!(verify(&url, &key, 1_999).is_ok());
        assert_eq!(
            verify(&url, &key, 2_000),
            Err(VerifyError::Expired {
                expires: 2_000,
                now: 2_000
            })
        );
        assert_eq!(
            verify(&url, &key, 2_001),
            Err(VerifyError::Expired {
                expires: 2_000,
                now: 2_001
            })
        );
    }

    #[test]
    fn a_fragment_is_not_signed_and_a_query_after_it_is_no_query() {
        let key = key();
        let grant = Grant {
            expires: Some(2_000),
            audience: Some("u".into()),
        };
        let url = sign(&format!("{PAGE}#chapter-2"), &key, &grant).unwrap();
        let without = sign(PAGE, &key, &grant).unwrap();
        assert_eq!(url, format!("{without}#chapter-2"));
        assert_eq!(verify(&url, &key, 0), Ok(grant.clone()));
        assert_eq!(verify(&format!("{without}#anything?x=1"), &key, 0), Ok(grant));
        // The signed query moved behind `#` never reaches a server.
        let (page, query) = without.split_once('?').unwrap();
        assert_eq!(
            verify(&format!("{page}#?{query}"), &key, 0),
            Err(VerifyError::Malformed("no query string".into()))
        );
    }

    #[test]
    fn only_the_form_sign_produces_verifies() {
        let key = key();
        let grant = Grant {
            expires: Some(2_000),
            audience: Some("a b".into()),
        };
        let url = sign(PAGE, &key, &grant).unwrap();
        assert!(verify(&url, &key, 0).is_ok());
        let (head, signature) = url.split_once("signature=").unwrap();
        let upper = format!(
            "{head}signature={}",
            signature.to_uppercase().replace("&VERSION=1", "&version=1")
        );
        let cases = [
            url.replace("expires=2000", "expires=2000&expires=2000"),
            url.replace("aud=a%20b", "aud=a%20b&aud=a%20b"),
            url.replace("&aud", "&&aud"),
            url.replace("version=1", "version=1&"),
            url.replace("expires=2000", "expires=02000"),
            url.replace("expires=2000", "expires=+2000"),
            url.replace("aud=a%20b", "aud=a%20%62"),
            url.replace("?expires=2000&aud=a%20b", "?aud=a%20b&expires=2000"),
            url.replace("&version=1", "") + "&version=1&x=1",
            upper,
        ];
        for case in cases {
            assert!(
                matches!(verify(&case, &key, 0), Err(VerifyError::Malformed(_))),
                "{case}"
            );
        }
    }

    #[test]
    fn sign_refuses_page_urls_that_cannot_verify() {
        let key = key();
        for reserved in ["expires=1", "aud=x", "signature=ab", "version=1", "%65xpires=1"] {
            let error = sign(&format!("{PAGE}?{reserved}"), &key, &Grant::default()).unwrap_err();
            assert!(matches!(error, SignError::ReservedParameter(_)), "{reserved}: {error}");
        }
        for odd in ["a=1&a=2", "a=1&&b=2", "a="] {
            let error = sign(&format!("{PAGE}?{odd}"), &key, &Grant::default()).unwrap_err();
            assert!(matches!(error, SignError::NotCanonical(_)), "{odd}: {error}");
        }
        assert!(matches!(
            sign("pages/p-1", &key, &Grant::default()),
            Err(SignError::InvalidUrl(_))
        ));
        // A page's own query is kept and signed.
        let grant = Grant {
            expires: Some(9),
            audience: None,
        };
        let url = sign(&format!("{PAGE}?lang=ja"), &key, &grant).unwrap();
        assert!(
            url.starts_with(&format!("{PAGE}?lang=ja&expires=9&signature=")),
            "{url}"
        );
        assert!(verify(&url, &key, 0).is_ok());
    }

    #[test]
    fn non_ascii_hosts_and_paths_are_signed_as_the_server_receives_them() {
        let key = key();
        let url = sign("https://例え.jp/pages/ページ", &key, &Grant::default()).unwrap();
        assert!(
            url.starts_with("https://xn--r8jz45g.jp/pages/%E3%83%9A%E3%83%BC%E3%82%B8?signature="),
            "{url}"
        );
        assert!(verify(&url, &key, 0).is_ok());
        // The unencoded form is not what a server receives: not accepted.
        let raw = url.replace("xn--r8jz45g.jp", "例え.jp");
        assert!(matches!(verify(&raw, &key, 0), Err(VerifyError::Malformed(_))));
    }

    #[test]
    fn keys_have_32_characters_and_never_print() {
        assert_eq!(SigningKey::new("short").unwrap_err(), InvalidSigningKey { chars: 5 });
        assert!(SigningKey::new("x".repeat(33)).is_err());
        assert!(SigningKey::try_from("秘".repeat(32)).is_ok());
        assert_eq!(format!("{:?}", key()), "SigningKey([redacted])");
        assert!(!SigningKey::new("sk-too-short").unwrap_err().to_string().contains("sk-"));
    }

    #[test]
    fn errors_escape_what_they_quote() {
        let key = key();
        let zeros = "0".repeat(64);
        let url = format!("{PAGE}?expires=1\n\u{1b}[31m&signature={zeros}&version=1");
        let error = verify(&url, &key, 0).unwrap_err().to_string();
        assert!(!error.contains('\u{1b}') && !error.contains('\n'), "{error}");
        let version = verify(&format!("{PAGE}?signature={zeros}&version=\r\n2"), &key, 0);
        assert!(!version.unwrap_err().to_string().contains('\r'));
    }
}
