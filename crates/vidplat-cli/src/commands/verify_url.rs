//! `vms verify-url URL`: the grant a signed page URL carries on stdout; exit
//! 5 when it is expired or does not verify.

use super::{sign_page, Invocation};
use crate::failure::Failure;
use clap::{Arg, ArgMatches, Command};
use serde_json::{json, Value};
use vidplat::signing;
use vidplat::Client;

pub fn define(command: Command) -> Command {
    command
        .after_help(
            "Examples:\n  vidplat vms verify-url 'https://portal.example.jp/pages/PAGE_ID?expires=…&signature=…'",
        )
        .arg(Arg::new("url").value_name("URL").required(true).help("The signed URL"))
        .arg(sign_page::signing_key_file())
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let client = invocation.client()?;
    let value = verified(Some(&client), invocation.matches).await?;
    invocation.print(&value)
}

/// The grant the URL carries, or why it does not verify.
async fn verified(client: Option<&Client>, matches: &ArgMatches) -> Result<Value, Failure> {
    let url = matches.get_one::<String>("url").map(String::as_str).unwrap_or_default();
    let key = match sign_page::signing_key(matches)? {
        Some(key) => key,
        None => {
            let page = page_id(url).ok_or_else(|| {
                Failure::Signature("the URL does not verify: it names no page (/pages/{id})".to_owned())
            })?;
            sign_page::page_key(client.ok_or_else(sign_page::needs_client)?, &page).await?
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let grant =
        signing::verify(url, &key, now).map_err(|e| Failure::Signature(format!("the URL does not verify: {e}")))?;
    Ok(json!({ "valid": true, "expires": grant.expires, "audience": grant.audience }))
}

/// The page id of `https://{domain}/pages/{id}…`.
fn page_id(url: &str) -> Option<String> {
    let url = reqwest::Url::parse(url).ok()?;
    let mut segments = url.path_segments()?;
    (segments.next()? == "pages").then_some(())?;
    let id = percent_encoding::percent_decode_str(segments.next()?)
        .decode_utf8()
        .ok()?;
    (!id.is_empty()).then(|| id.into_owned())
}

#[cfg(test)]
mod tests {
    use super::page_id;

    #[test]
    fn the_page_id_is_the_decoded_segment_after_pages() {
        assert_eq!(
            page_id("https://v.example.com/pages/pg%2D1?expires=1").as_deref(),
            Some("pg-1")
        );
        assert_eq!(page_id("https://v.example.com/other/pg-1"), None);
        assert_eq!(page_id("https://v.example.com/pages/"), None);
        assert_eq!(page_id("https://v.example.com/pages/%FF"), None, "not UTF-8");
        assert_eq!(page_id("not a url"), None);
    }
}
