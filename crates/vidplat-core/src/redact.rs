//! What the SDK never prints: the API key, the values of members the YAML
//! marks `x-secret: true` (a viewing page's `signing_key`, passwords, client
//! secrets), and the `signature` of signed viewing-page URLs (a credential
//! until it expires). Every excerpt of a body, and every server or URL text an error
//! quotes, goes through here.

use secrecy::{ExposeSecret, SecretString};
use std::borrow::Cow;
use std::fmt::Write as _;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Characters of a body an excerpt shows.
const EXCERPT_CHARS: usize = 200;
/// Bytes of a body scanned for secrets before the excerpt is cut: a secret
/// member that starts inside the excerpt is redacted up to this far.
const EXCERPT_SCAN_BYTES: usize = 8 * 1024;

/// Removes the API key and the values of secret members from text a server sent.
#[derive(Clone, Default)]
pub struct Redactor {
    api_key: Option<SecretString>,
    secret_members: &'static [&'static str],
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("api_key", &self.api_key.as_ref().map(|_| REDACTED))
            .field("secret_members", &self.secret_members)
            .finish()
    }
}

impl Redactor {
    /// Redacts `api_key` (when set and not empty) and the string values of `secret_members`.
    pub fn new(api_key: Option<SecretString>, secret_members: &'static [&'static str]) -> Self {
        Self {
            api_key: api_key.filter(|key| !key.expose_secret().is_empty()),
            secret_members,
        }
    }

    /// `text` with every occurrence of the key, every secret member's value
    /// and every `signature=` parameter's value replaced.
    pub fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut text = Cow::Borrowed(text);
        if let Some(key) = &self.api_key {
            for form in key_forms(key.expose_secret()) {
                if text.contains(form.as_str()) {
                    text = Cow::Owned(text.replace(form.as_str(), REDACTED));
                }
            }
        }
        if let Some(redacted) = redact_members(&text, self.secret_members) {
            text = Cow::Owned(redacted);
        }
        if let Cow::Owned(redacted) = redact_signatures(&text) {
            text = Cow::Owned(redacted);
        }
        text
    }

    /// Whether the member at the end of `path` (`data[3].signing_key`) is a secret.
    pub fn is_secret_path(&self, path: &str) -> bool {
        let last = path.rsplit('.').next().unwrap_or(path);
        let name = last.split('[').next().unwrap_or(last);
        self.secret_members.contains(&name)
    }

    /// The start of a body for an error message: secrets redacted, control
    /// characters escaped, at most 200 characters (then `…`).
    pub fn excerpt(&self, body: &[u8]) -> String {
        let scanned = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_SCAN_BYTES)]);
        let redacted = self.text(&scanned);
        let mut shown: String = redacted.chars().take(EXCERPT_CHARS).collect();
        if shown.len() < redacted.len() || body.len() > EXCERPT_SCAN_BYTES {
            shown.push('…');
        }
        escape_controls(&shown).into_owned()
    }
}

/// `text` with control characters (newlines, escapes, NUL, …) written as
/// escapes, so that quoted server or URL input cannot forge log lines or
/// terminal output.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Shows `text` escaped ([`escape_controls`]) and cut to `max` characters,
/// saying how long it was; nothing is copied to show it.
pub fn bounded(text: &str, max: usize) -> Bounded<'_> {
    Bounded { text, max }
}

/// A text shown escaped and cut (see [`bounded`]).
#[derive(Debug)]
pub struct Bounded<'a> {
    text: &'a str,
    max: usize,
}

impl std::fmt::Display for Bounded<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.text.char_indices().nth(self.max) {
            None => f.write_str(&escape_controls(self.text)),
            Some((cut, _)) => {
                let chars = self.text.chars().count();
                write!(f, "{}… ({chars} characters in all)", escape_controls(&self.text[..cut]))
            }
        }
    }
}

/// `url` with any credentials replaced by `***`: a `user:password@` before
/// the host, and a `pass=`/`password=` query value (Redis's unix-socket URLs
/// carry the password there). Works on text that does not parse as a URL too,
/// so an error about a malformed URL never shows its password.
pub fn without_credentials(url: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(url);
    if let Some(scheme_end) = url.find("://") {
        let authority_start = scheme_end + 3;
        let authority_end = url[authority_start..]
            .find(['/', '?', '#'])
            .map_or(url.len(), |end| authority_start + end);
        if let Some(at) = url[authority_start..authority_end].rfind('@') {
            out = Cow::Owned(format!(
                "{}***{}",
                &url[..authority_start],
                &url[authority_start + at..]
            ));
        }
    }
    if let Some(query_start) = out.find('?') {
        let (head, query) = out.split_at(query_start + 1);
        let mut changed = false;
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value))
                    if !value.is_empty() && matches!(name.to_ascii_lowercase().as_str(), "pass" | "password") =>
                {
                    changed = true;
                    format!("{name}=***")
                }
                _ => pair.to_owned(),
            })
            .collect();
        if changed {
            out = Cow::Owned(format!("{head}{}", pairs.join("&")));
        }
    }
    out
}

/// `text` with the value of every `signature=` parameter replaced by
/// `[redacted]`: in a query (`?signature=`, `&signature=`), inside a URL
/// quoted in JSON (`\u0026signature=`) or percent-encoded in another URL's
/// query (`%26signature%3D`). The value ends at the next delimiter.
fn redact_signatures(text: &str) -> Cow<'_, str> {
    const NAME: &str = "signature";
    // ASCII lowercase keeps every byte offset.
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = lower[at..].find(NAME) {
        let start = at + found;
        let after_name = start + NAME.len();
        at = after_name;
        let separator = if lower[after_name..].starts_with('=') {
            1
        } else if lower[after_name..].starts_with("%3d") {
            3
        } else {
            continue;
        };
        if !starts_parameter(&lower[..start]) {
            continue;
        }
        let value_start = after_name + separator;
        let rest = &lower[value_start..];
        let plain = rest
            .find(|c: char| c.is_whitespace() || "&\"'#<>\\,;()[]{}".contains(c))
            .unwrap_or(rest.len());
        // Only before the plain delimiter: searching all the rest for each
        // value made a text of many values quadratic.
        let encoded = ["%26", "%23", "%22"].iter().filter_map(|d| rest[..plain].find(d)).min();
        let value_end = value_start + encoded.unwrap_or(plain);
        if value_end == value_start {
            continue;
        }
        out.push_str(&text[copied..value_start]);
        out.push_str(REDACTED);
        copied = value_end;
        at = value_end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Whether a parameter name starts after `before` (lowercase): not inside a longer word.
fn starts_parameter(before: &str) -> bool {
    ["%3f", "%26", "\\u0026"].iter().any(|p| before.ends_with(p))
        || !before.ends_with(|c: char| c.is_ascii_alphanumeric() || "_-.%".contains(c))
}

/// Replaces the string value of every member whose name, once its JSON
/// escapes are read (`"signing\u005fkey"` is `signing_key`), is one of
/// `members`. The text may be cut short: an unterminated value is redacted to
/// the end. `None` when nothing matched.
fn redact_members(text: &str, members: &[&str]) -> Option<String> {
    let mut out = String::new();
    // Bytes of `text` already copied to `out`.
    let mut copied = 0;
    let mut at = 0;
    while let Some(open) = text[at..].find('"').map(|i| at + i) {
        let name_end = open + 1 + string_end(&text[open + 1..]);
        at = (name_end + 1).min(text.len());
        let after = text[at..].trim_start();
        let Some(value) = after.strip_prefix(':').map(str::trim_start) else {
            continue;
        };
        let secret = members.iter().any(|m| unescaped(&text[open + 1..name_end]) == *m);
        let Some(contents) = value.strip_prefix('"') else {
            // A number, a boolean, an object or an array where a secret
            // belongs is shown no more than a string: the whole value goes
            // (`null` holds nothing to hide).
            if secret && !value.is_empty() && !value.starts_with("null") {
                let value_start = text.len() - value.len();
                out.push_str(&text[copied..value_start]);
                out.push_str(REDACTED);
                copied = value_start + value_len(value);
                at = copied;
            }
            continue;
        };
        let value_start = text.len() - contents.len();
        let value_end = value_start + string_end(contents);
        if secret {
            out.push_str(&text[copied..value_start]);
            out.push_str(REDACTED);
            copied = value_end;
        }
        // A value that is itself a string: skip it, it names nothing.
        at = (value_end + 1).min(text.len());
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The forms a key takes in what a server writes: as it is, JSON-escaped
/// (`\/` for `/`), and percent-encoded (upper- and lower-case hex).
fn key_forms(key: &str) -> Vec<String> {
    let encoded = percent_encoding::utf8_percent_encode(key, percent_encoding::NON_ALPHANUMERIC).to_string();
    // The same bytes kept and escaped (all but ASCII letters and digits), the hex in lower case.
    let mut lower = String::with_capacity(encoded.len());
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() {
            lower.push(char::from(byte));
        } else {
            let _ = write!(lower, "%{byte:02x}");
        }
    }
    let mut forms = vec![key.to_owned(), key.replace('/', "\\/"), encoded, lower];
    // The longest first: a shorter form inside a longer one is replaced with it.
    forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    forms.dedup();
    forms
}

/// The length of the JSON value at the start of `value` (an object or an
/// array with what it holds, a string, or a scalar up to its delimiter).
fn value_len(value: &str) -> usize {
    let bytes = value.as_bytes();
    match bytes.first() {
        Some(b'"') => (1 + string_end(&value[1..]) + 1).min(value.len()),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => i += 1 + string_end(&value[i + 1..]),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            value.len()
        }
        _ => value
            .find([',', '}', ']', ' ', '\n', '\r', '\t'])
            .unwrap_or(value.len()),
    }
}

/// A JSON string's contents with its escapes read (an invalid escape is kept as written).
fn unescaped(contents: &str) -> Cow<'_, str> {
    if !contents.contains('\\') {
        return Cow::Borrowed(contents);
    }
    serde_json::from_str::<String>(&format!("\"{contents}\""))
        .map(Cow::Owned)
        .unwrap_or(Cow::Borrowed(contents))
}

/// The byte offset of the closing quote of a JSON string's contents (or the end).
fn string_end(contents: &str) -> usize {
    let bytes = contents.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRETS: &[&str] = &["signing_key", "password"];

    #[test]
    fn excerpts_hide_the_key_and_secret_members_and_escape_controls() {
        let redactor = Redactor::new(Some("sk-live-123".into()), SECRETS);
        let body = br#"{"id":"p","signing_key" : "0123\"456789abcdef0123456789abcdef","auth":{"password":"hunter2"},"echo":"Bearer sk-live-123","note":"a
b"}"#;
        let excerpt = redactor.excerpt(body);
        assert_eq!(
            excerpt,
            r#"{"id":"p","signing_key" : "[redacted]","auth":{"password":"[redacted]"},"echo":"Bearer [redacted]","note":"a\nb"}"#
        );
        // A secret cut by the end of the body is still hidden.
        assert_eq!(redactor.excerpt(br#"{"password":"hunt"#), r#"{"password":"[redacted]"#);
        // The name as parsed, whatever its escapes.
        assert_eq!(
            redactor.excerpt(br#"{"signing\u005fkey":"s3cr3t","pass\u0077ord": "x"}"#),
            r#"{"signing\u005fkey":"[redacted]","pass\u0077ord": "[redacted]"}"#
        );
        // null is no secret; a number is hidden like a string; nothing breaks.
        assert_eq!(
            redactor.excerpt(br#"{"password":null,"password""#),
            r#"{"password":null,"password""#
        );
        assert_eq!(
            redactor.excerpt(br#"{"signing_key": 1234567,"password":-5}"#),
            r#"{"signing_key": [redacted],"password":[redacted]}"#
        );
        // Long bodies are cut after 200 characters, secrets beyond the cut never show.
        let long = format!(r#"{{"pad":"{}","signing_key":"{}"}}"#, "x".repeat(190), "s".repeat(500));
        let excerpt = redactor.excerpt(long.as_bytes());
        assert!(!excerpt.contains("sss"), "{excerpt}");
        assert!(excerpt.ends_with('…'));
        assert_eq!(escape_controls("a\u{1b}[31mb\r\n"), "a\\u{1b}[31mb\\r\\n");
        assert!(!format!("{redactor:?}").contains("sk-live"));
    }

    #[test]
    fn urls_lose_their_credentials_parsed_or_not() {
        assert_eq!(
            without_credentials("https://u:pw@h.example/x"),
            "https://***@h.example/x"
        );
        assert_eq!(
            without_credentials("redis://:pw@127.0.0.1:6379/0"),
            "redis://***@127.0.0.1:6379/0"
        );
        assert_eq!(
            without_credentials("redis+unix:///tmp/r.sock?db=1&pass=pw"),
            "redis+unix:///tmp/r.sock?db=1&pass=***"
        );
        assert_eq!(
            without_credentials("unix:///tmp/r.sock?password=pw"),
            "unix:///tmp/r.sock?password=***"
        );
        assert_eq!(without_credentials("https://u:pw@[bad/"), "https://***@[bad/");
        assert_eq!(without_credentials("https://h.example/a@b"), "https://h.example/a@b");
        assert_eq!(without_credentials("not a url"), "not a url");
    }

    /// A text of many signatures (an error body a server made of them, a
    /// recorded page of signed URLs) is scrubbed in one pass: searching all
    /// that follows each took minutes for a megabyte.
    #[test]
    fn many_signatures_are_scrubbed_in_time() {
        let text = "signature=a&".repeat(200_000);
        let started = std::time::Instant::now();
        let scrubbed = redact_signatures(&text);
        let took = started.elapsed();
        assert_eq!(scrubbed, "signature=[redacted]&".repeat(200_000));
        assert!(took < std::time::Duration::from_secs(2), "{took:?}");
    }

    #[test]
    fn signatures_are_scrubbed_wherever_a_url_carries_them() {
        let cases = [
            (
                "expires=1&signature=abc123&version=1",
                "expires=1&signature=[redacted]&version=1",
            ),
            ("signature=abc123", "signature=[redacted]"),
            (
                r#"{"url":"https://h/pages/p?aud=a\u0026signature=ff00\u0026expires=2"}"#,
                r#"{"url":"https://h/pages/p?aud=a\u0026signature=[redacted]\u0026expires=2"}"#,
            ),
            (
                "next=https%3A%2F%2Fh%2Fp%3FSignature%3Dab%2Bc%26v%3D1",
                "next=https%3A%2F%2Fh%2Fp%3FSignature%3D[redacted]%26v%3D1",
            ),
            ("signature=[redacted]", "signature=[redacted]"),
        ];
        for (text, scrubbed) in cases {
            assert_eq!(redact_signatures(text), scrubbed);
        }
        // Other parameters, and words that end in it, are left alone (and not copied).
        for text in ["x_signature=1", "presignature=1", "signature: none", "signature="] {
            assert!(
                matches!(redact_signatures(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
    }
}
