//! Signed viewing-page URLs, checked by the document's words alone (video
//! management, Authentication §4), not by `vidplat::signing::verify`, which
//! accepts only the one form the SDK itself writes:
//!
//! - the parameters are `expires` (optional), `aud` (optional), `signature`
//!   (required) and `version` ("value 1"): `version` may be left out, but
//!   when given it must be 1; `signature` and `version` may stand anywhere in
//!   the query, in either order;
//! - the message is "the URL without signature and version": the URL as
//!   received with those two parameters taken out and nothing else changed,
//!   so `aud` is signed exactly as it was sent (a raw `@` included);
//! - "with both expires and aud, expires is written first";
//! - the signature is the lowercase hexadecimal HMAC-SHA-256 of the message,
//!   keyed with the page's signing key, compared in constant time;
//! - `expires` is the UNIX time of expiry: from that second on the URL is refused;
//! - `aud` names the viewer after percent-decoding (what is compared with
//!   `revoked_audiences` and counted against the viewer limit).
//!
//! A parameter of the four given twice is refused: which one would count is not said.

/// Checks the signed URL `page_url?query` (`page_url` without a query) with
/// the page's signing key at `now` (UNIX time): the decoded `aud`, if any, or
/// why the URL is refused.
pub(super) fn check(page_url: &str, query: Option<&str>, key: &str, now: u64) -> Result<Option<String>, String> {
    let segments: Vec<&str> = query.unwrap_or_default().split('&').collect();
    let pairs: Vec<(&str, &str)> = segments
        .iter()
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect();
    let mut at = [None; 4];
    for (slot, name) in at.iter_mut().zip(["signature", "version", "expires", "aud"]) {
        let mut positions = pairs
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| *n == name)
            .map(|(i, _)| i);
        *slot = positions.next();
        if positions.next().is_some() {
            return Err(format!("`{name}` appears more than once"));
        }
    }
    let [signature_at, version_at, expires_at, aud_at] = at;
    let signature = signature_at.map(|i| pairs[i].1).ok_or("the URL carries no signature")?;
    if let Some(version) = version_at.map(|i| pairs[i].1) {
        if version != "1" {
            return Err(format!("signature version `{version}` is not supported (only 1)"));
        }
    }
    if let (Some(expires_at), Some(aud_at)) = (expires_at, aud_at) {
        if aud_at < expires_at {
            return Err("`aud` comes before `expires`; the document writes expires first".into());
        }
    }
    if signature.len() != 64 || !signature.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("the signature is not 64 lowercase hexadecimal digits".into());
    }
    let expected = hex::decode(signature).map_err(|_| "the signature is not hexadecimal".to_owned())?;
    let kept: Vec<&str> = segments
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != signature_at && Some(*i) != version_at)
        .map(|(_, pair)| *pair)
        .collect();
    let message = match kept.is_empty() {
        true => page_url.to_owned(),
        false => format!("{page_url}?{}", kept.join("&")),
    };
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.as_bytes());
    ring::hmac::verify(&key, message.as_bytes(), &expected).map_err(|_| "the signature does not match".to_owned())?;
    if let Some(raw) = expires_at.map(|i| pairs[i].1) {
        let expires: u64 = raw
            .parse()
            .ok()
            .filter(|_| raw.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| format!("expires `{raw}` is not a UNIX time"))?;
        if now >= expires {
            return Err(format!("the URL expired at {expires} (now {now})"));
        }
    }
    Ok(aud_at.map(|i| percent_decode(pairs[i].1)))
}

/// Percent-decoding as URLs do it: `%` and two hexadecimal digits is a byte,
/// anything else stays as it is; bytes that are not UTF-8 become U+FFFD.
fn percent_decode(value: &str) -> String {
    percent_encoding::percent_decode_str(value)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";
    const PAGE: &str = "https://portal.example.jp/pages/p1";

    fn hmac_hex(message: &str) -> String {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, KEY.as_bytes());
        hex::encode(ring::hmac::sign(&key, message.as_bytes()))
    }

    #[test]
    fn signature_and_version_are_taken_out_wherever_they_are() {
        let message = format!("{PAGE}?expires=2000&aud=a@b");
        let signature = hmac_hex(&message);
        for query in [
            format!("expires=2000&aud=a@b&signature={signature}&version=1"),
            format!("expires=2000&aud=a@b&version=1&signature={signature}"),
            format!("signature={signature}&expires=2000&version=1&aud=a@b"),
            format!("expires=2000&aud=a@b&signature={signature}"),
        ] {
            assert_eq!(check(PAGE, Some(&query), KEY, 1000), Ok(Some("a@b".into())), "{query}");
        }
        let bare = format!("signature={}", hmac_hex(PAGE));
        assert_eq!(check(PAGE, Some(&bare), KEY, 1000), Ok(None));
    }

    #[test]
    fn what_the_document_rules_out_is_refused() {
        let signature = hmac_hex(&format!("{PAGE}?expires=2000"));
        let refused = |query: String| check(PAGE, Some(&query), KEY, 1000).unwrap_err();
        assert_eq!(
            refused(format!("expires=2000&signature={signature}&version=2")),
            "signature version `2` is not supported (only 1)"
        );
        assert_eq!(refused("expires=2000".into()), "the URL carries no signature");
        assert_eq!(
            refused(format!("expires=2000&signature={signature}&signature={signature}")),
            "`signature` appears more than once"
        );
        assert_eq!(
            refused(format!("expires=2000&signature={}", signature.to_uppercase())),
            "the signature is not 64 lowercase hexadecimal digits"
        );
        assert_eq!(
            refused(format!("expires=2001&signature={signature}")),
            "the signature does not match"
        );
        assert_eq!(
            check(PAGE, Some(&format!("expires=2000&signature={signature}")), KEY, 2000),
            Err("the URL expired at 2000 (now 2000)".into())
        );
    }

    #[test]
    fn percent_decoding_keeps_what_is_not_an_escape() {
        assert_eq!(percent_decode("a%40b%2Dc"), "a@b-c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%+1"), "%+1");
        assert_eq!(percent_decode("%E3%81%82"), "あ");
    }
}
