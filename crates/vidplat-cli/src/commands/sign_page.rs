//! `vms sign-page`: a viewing page's signed URL, with the page's own key
//! (read with the API key) or one from a file.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgMatches, Command};
use std::time::Duration;
use vidplat::signing::{self, Grant, SigningKey};
use vidplat::Client;

pub fn define(command: Command) -> Command {
    command
        .about("Print a viewing page's signed URL")
        .arg(
            Arg::new("page")
                .long("page")
                .value_name("PAGE_ID")
                .required(true)
                .help("The viewing page"),
        )
        .arg(
            Arg::new("domain")
                .long("domain")
                .value_name("HOST")
                .required(true)
                .help("The domain the page is served on (a site's domain name)"),
        )
        .arg(
            Arg::new("valid-for")
                .long("valid-for")
                .value_name("DURATION")
                .required(true)
                .value_parser(humantime::parse_duration)
                .help("How long the URL works, e.g. 2h, 30m"),
        )
        .arg(
            Arg::new("audience")
                .long("audience")
                .value_name("USER")
                .help("The user the URL is for"),
        )
        .arg(signing_key_file())
        .arg(Arg::new("sim").long("sim").action(clap::ArgAction::SetTrue).help(
            "Print the address at which the simulator (VIDPLAT_SIM_URL, as `vidplat sim` exports it) \
                     serves the signed URL, instead of the URL",
        ))
}

/// `--signing-key-file`, for the commands that sign or verify.
pub(super) fn signing_key_file() -> Arg {
    Arg::new("signing-key-file")
        .long("signing-key-file")
        .value_name("FILE")
        .help("The page's signing key, from a file (else read from the page itself with the API key)")
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let client = invocation.client()?;
    let url = signed(Some(&client), invocation.matches).await?;
    let url = match invocation.matches.get_flag("sim") {
        true => simulator_address(&url)?,
        false => url,
    };
    writeln!(invocation.io.stdout, "{url}")?;
    Ok(())
}

/// Where the simulator serves `url` (`https://{domain}/pages/…`): under its
/// root, at `/hosts/{domain}/pages/…`, the query (and so the signature) as it is.
fn simulator_address(url: &str) -> Result<String, Failure> {
    let root = std::env::var("VIDPLAT_SIM_URL").map_err(|_| {
        Failure::invalid(
            "--sim",
            "needs VIDPLAT_SIM_URL, the simulator's root `vidplat sim` exports",
        )
    })?;
    let rest = url
        .strip_prefix("https://")
        .ok_or_else(|| Failure::invalid("--domain", "gives no https:// page URL"))?;
    Ok(format!("{}/hosts/{rest}", root.trim_end_matches('/')))
}

pub(super) fn signing_key(matches: &ArgMatches) -> Result<Option<SigningKey>, Failure> {
    let Some(path) = matches.get_one::<String>("signing-key-file") else {
        return Ok(None);
    };
    let text = crate::config::read_key_file(path, "--signing-key-file")?;
    SigningKey::new(text.trim())
        .map(Some)
        .map_err(|e| Failure::invalid("--signing-key-file", e.to_string()))
}

/// The page's own signing key, read with the API key.
pub(super) async fn page_key(client: &Client, page: &str) -> Result<SigningKey, Failure> {
    let page = vidplat::Call::call(client.vms()?.get_viewing_page().page_id(page)).await?;
    let key = page
        .signing_key
        .ok_or_else(|| Failure::Setup("the page's answer carries no signing_key".to_owned()))?;
    SigningKey::new(key).map_err(|e| Failure::Setup(format!("the page's signing key: {e}")))
}

/// The signed URL.
async fn signed(client: Option<&Client>, matches: &ArgMatches) -> Result<String, Failure> {
    let page = matches
        .get_one::<String>("page")
        .map(String::as_str)
        .unwrap_or_default();
    let domain = matches
        .get_one::<String>("domain")
        .map(String::as_str)
        .unwrap_or_default();
    let valid_for = *matches.get_one::<Duration>("valid-for").unwrap_or(&Duration::ZERO);
    let mut grant = Grant::valid_for(valid_for);
    if let Some(audience) = matches.get_one::<String>("audience") {
        grant = grant.audience(audience);
    }
    let key = match signing_key(matches)? {
        Some(key) => key,
        None => page_key(client.ok_or_else(needs_client)?, page).await?,
    };
    let url = signing::page_url(domain, page).map_err(|e| Failure::invalid("--domain", e.to_string()))?;
    signing::sign(&url, &key, &grant).map_err(|e| Failure::invalid("--page", e.to_string()))
}

pub(super) fn needs_client() -> Failure {
    Failure::Setup("no video management service configured for reading the page's key".to_owned())
}
