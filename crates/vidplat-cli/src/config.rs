//! The client of an invocation: the profile, then `VIDPLAT_*` variables, then flags.

use crate::failure::Failure;
use clap::ArgMatches;
use std::time::Duration;
use vidplat::profile::{Profiles, DEFAULT_PROFILE};
use vidplat::{ClientBuilder, QuotaConfig, QuotaMode};

/// The builder the flags, the environment and the profile describe.
pub fn client_builder(matches: &ArgMatches) -> Result<ClientBuilder, Failure> {
    let mut builder = ClientBuilder::default();
    match matches.get_one::<String>("profile") {
        Some(name) => {
            let profiles = Profiles::load()?;
            builder = builder.profile(name, profiles.get(name)?)?;
        }
        // The default profile, when there is one: a missing directory or file is no error.
        None => {
            if let Ok(profiles) = Profiles::load() {
                if let Ok(profile) = profiles.get(DEFAULT_PROFILE) {
                    builder = builder.profile(DEFAULT_PROFILE, profile)?;
                }
            }
        }
    }
    builder = builder.with_env();
    if let Some(url) = matches.get_one::<String>("encoder-url") {
        builder = builder.encoder_url(url);
    }
    if let Some(url) = matches.get_one::<String>("vms-url") {
        builder = builder.vms_url(url);
    }
    if let Some(url) = matches.get_one::<String>("analytics-url") {
        builder = builder.analytics_url(url);
    }
    if let Some(login) = login_id(matches) {
        builder = builder.login_id(login);
    }
    if let Some(path) = matches.get_one::<String>("api-key-file") {
        let key = std::fs::read_to_string(path).map_err(|e| Failure::Setup(format!("--api-key-file {path}: {e}")))?;
        builder = builder.api_key(key.trim());
    }
    if let Some(timeout) = matches.get_one::<Duration>("timeout") {
        builder = builder.total_timeout(*timeout);
    }
    let mode = match matches.get_one::<String>("quota").map(String::as_str) {
        Some("fail-fast") => QuotaMode::FailFast,
        _ => QuotaMode::Wait,
    };
    let defaults = QuotaConfig::default();
    Ok(builder.analytics_quota(QuotaConfig {
        mode,
        window: matches
            .get_one::<Duration>("analytics-window")
            .copied()
            .unwrap_or(defaults.window),
        ..defaults
    }))
}

/// `--login-id`: the global flag, or an analytics operation's parameter of the same id (both JSON text).
pub fn login_id(matches: &ArgMatches) -> Option<String> {
    matches
        .get_one::<serde_json::Value>("login-id")
        .and_then(|v| v.as_str().map(str::to_owned))
}
