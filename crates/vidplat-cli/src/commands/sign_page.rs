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
        .after_help("Examples:\n  vidplat vms sign-page --page PAGE_ID --domain portal.example.jp --valid-for 2h --audience user-42")
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
        .arg(
            Arg::new("audience-file")
                .long("audience-file")
                .value_name("FILE")
                .conflicts_with_all(["audience", "sim"])
                .help("One signed URL per user: one user a line (- reads stdin), printed as a JSON line each (audience, url), or CSV with -o csv; every line is checked before any URL is printed"),
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
    if let Some(file) = invocation.matches.get_one::<String>("audience-file") {
        return signed_for_each(&client, file, invocation).await;
    }
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

/// The most bytes of audiences read (a million users of 60 characters fit).
const MAX_AUDIENCE_FILE: u64 = 64 << 20;

/// One signed URL per line of `file`, each line an audience.
async fn signed_for_each(client: &Client, file: &str, invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let matches = invocation.matches;
    let bytes = crate::run::read_input(file, "--audience-file", MAX_AUDIENCE_FILE, invocation.io.stdin)?;
    let text = String::from_utf8(bytes).map_err(|_| Failure::invalid("--audience-file", "is not UTF-8 text"))?;
    let (url, key) = (page_url(matches)?, key(Some(client), matches).await?);
    let mut signed = Vec::new();
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let audience = line.trim_end_matches('\r');
        if audience.is_empty() {
            continue;
        }
        match signing::sign(&url, &key, &grant(matches, Some(audience))) {
            Ok(signed_url) => signed.push((audience, signed_url)),
            Err(e) => problems.push((format!("--audience-file line {}", index + 1), e.to_string())),
        }
    }
    if !problems.is_empty() {
        return Err(Failure::refused(problems));
    }
    let stdout = &mut *invocation.io.stdout;
    if invocation.format == crate::output::Format::Csv {
        let mut csv = csv::Writer::from_writer(stdout);
        csv.write_record(["audience", "url"]).map_err(csv_failure)?;
        for (audience, url) in &signed {
            csv.write_record([audience, url.as_str()]).map_err(csv_failure)?;
        }
        csv.flush()?;
    } else {
        for (audience, url) in &signed {
            writeln!(stdout, "{}", serde_json::json!({"audience": audience, "url": url}))?;
        }
    }
    Ok(())
}

fn csv_failure(error: csv::Error) -> Failure {
    Failure::Output(std::io::Error::other(error))
}

/// The page's URL from `--domain` and `--page`.
fn page_url(matches: &ArgMatches) -> Result<String, Failure> {
    let text = |id: &str| matches.get_one::<String>(id).map(String::as_str).unwrap_or_default();
    signing::page_url(text("domain"), text("page")).map_err(|e| Failure::invalid("--domain", e.to_string()))
}

/// `--valid-for`, for `audience`.
fn grant(matches: &ArgMatches, audience: Option<&str>) -> Grant {
    let valid_for = *matches.get_one::<Duration>("valid-for").unwrap_or(&Duration::ZERO);
    let grant = Grant::valid_for(valid_for);
    match audience {
        Some(audience) => grant.audience(audience),
        None => grant,
    }
}

/// The key from `--signing-key-file`, else the page's own.
async fn key(client: Option<&Client>, matches: &ArgMatches) -> Result<SigningKey, Failure> {
    match signing_key(matches)? {
        Some(key) => Ok(key),
        None => {
            let page = matches
                .get_one::<String>("page")
                .map(String::as_str)
                .unwrap_or_default();
            page_key(client.ok_or_else(needs_client)?, page).await
        }
    }
}

/// The signed URL.
async fn signed(client: Option<&Client>, matches: &ArgMatches) -> Result<String, Failure> {
    let key = key(client, matches).await?;
    let url = page_url(matches)?;
    let grant = grant(matches, matches.get_one::<String>("audience").map(String::as_str));
    signing::sign(&url, &key, &grant).map_err(|e| Failure::invalid("--page", e.to_string()))
}

pub(super) fn needs_client() -> Failure {
    Failure::Setup("no video management service configured for reading the page's key".to_owned())
}
