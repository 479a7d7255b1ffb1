//! The client of an invocation, and where each of its settings came from
//! (`vidplat profile status`, as `aws configure list`).
//!
//! A flag beats everything. Below the flags, a profile named with `--profile`
//! is the whole set-up: the `VIDPLAT_*` variables are not read, so a shell
//! that exported another account's (the simulator's, say) cannot redirect a
//! call meant for the profile (the AWS CLI's rule for an explicit profile).
//! Otherwise the variables beat the profile `VIDPLAT_PROFILE` names, else the
//! profile `default` when there is one. The output format is weighed the
//! same way, except that `VIDPLAT_OUTPUT` is read under an explicit profile
//! too, below that profile's own `output`.

use crate::failure::Failure;
use crate::output::Format;
use clap::parser::ValueSource;
use clap::ArgMatches;
use std::fmt;
use std::time::Duration;
use vidplat::profile::{Profile, ProfileError, Profiles, DEFAULT_PROFILE, PROFILE_VARIABLE};
use vidplat::{ClientBuilder, CountedUntil, QuotaConfig, QuotaMode};

/// Where a setting's value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A flag of this invocation (`--encoder-url`).
    Flag(&'static str),
    /// An environment variable (`VIDPLAT_ENCODER_URL`).
    Variable(&'static str),
    /// A profile of the configuration directory.
    Profile(String),
    /// Nothing named one: the profile `default`, which exists.
    DefaultProfile,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag(flag) => write!(f, "--{flag}"),
            Source::Variable(name) => f.write_str(name),
            Source::Profile(name) => write!(f, "profile `{name}`"),
            Source::DefaultProfile => f.write_str("the default"),
        }
    }
}

/// One setting as `profile status` shows it: secrets redacted.
pub struct Setting {
    pub name: &'static str,
    pub value: Option<String>,
    pub source: Option<Source>,
}

/// A connection setting a flag, a variable and a profile can each give.
struct Layered {
    name: &'static str,
    flag: &'static str,
    variable: &'static str,
    of_profile: fn(&Profile) -> Option<String>,
    apply: fn(ClientBuilder, &str) -> ClientBuilder,
}

const URLS_AND_LOGIN: [Layered; 4] = [
    Layered {
        name: "encoder_url",
        flag: "encoder-url",
        variable: "VIDPLAT_ENCODER_URL",
        of_profile: |p| p.encoder_url.clone(),
        apply: |b, v| b.encoder_url(v),
    },
    Layered {
        name: "vms_url",
        flag: "vms-url",
        variable: "VIDPLAT_VMS_URL",
        of_profile: |p| p.vms_url.clone(),
        apply: |b, v| b.vms_url(v),
    },
    Layered {
        name: "analytics_url",
        flag: "analytics-url",
        variable: "VIDPLAT_ANALYTICS_URL",
        of_profile: |p| p.analytics_url.clone(),
        apply: |b, v| b.analytics_url(v),
    },
    Layered {
        name: "login_id",
        flag: "login-id",
        variable: "VIDPLAT_LOGIN_ID",
        of_profile: |p| p.login_id.clone(),
        apply: |b, v| b.login_id(v),
    },
];

const API_KEY_VARIABLE: &str = "VIDPLAT_API_KEY";
const OUTPUT_VARIABLE: &str = "VIDPLAT_OUTPUT";

/// The invocation's set-up: the profile in use and each connection setting
/// with its source, the flags, variables and profile already weighed.
pub struct Setup {
    /// The profile in use, and what named it.
    profile: Option<(String, Source, Profile)>,
    /// Whether the variables are read (not when `--profile` names the profile).
    variables_read: bool,
    /// The value of each of `URLS_AND_LOGIN`, in its order.
    values: Vec<Option<(String, Source)>>,
    api_key: Option<(String, Source)>,
    /// `--timeout`, which beats the profile's total timeout.
    timeout: Option<Duration>,
    /// The output format named by a flag, a variable or the profile.
    output: Option<(String, Source)>,
}

impl Setup {
    /// Weighs the flags of `matches`, the environment and the profiles.
    pub fn resolve(matches: &ArgMatches) -> Result<Self, Failure> {
        let profile = profile_in_use(matches)?;
        Self::weigh(matches, profile, !named_by_flag(matches))
    }

    /// The flags of `matches` over the variables, with no profile: the values of a new one.
    pub fn without_profile(matches: &ArgMatches) -> Result<Self, Failure> {
        Self::weigh(matches, None, true)
    }

    fn weigh(
        matches: &ArgMatches,
        profile: Option<(String, Source, Profile)>,
        variables_read: bool,
    ) -> Result<Self, Failure> {
        let variable = |name: &'static str| {
            variables_read
                .then(|| std::env::var(name).ok().filter(|v| !v.is_empty()))
                .flatten()
                .map(|value| (value, Source::Variable(name)))
        };
        let of_profile = |get: fn(&Profile) -> Option<String>| {
            profile
                .as_ref()
                .and_then(|(name, _, p)| get(p).map(|value| (value, Source::Profile(name.clone()))))
        };
        let mut values = Vec::new();
        for layered in &URLS_AND_LOGIN {
            let flag = if layered.flag == "login-id" {
                login_id(matches)
            } else {
                matches.get_one::<String>(layered.flag).cloned()
            };
            values.push(
                flag.map(|value| (value, Source::Flag(layered.flag)))
                    .or_else(|| variable(layered.variable))
                    .or_else(|| of_profile(layered.of_profile)),
            );
        }
        let key_file = match matches.get_one::<String>("api-key-file") {
            Some(path) => {
                let key = read_key_file(path, "--api-key-file")?;
                Some((key.trim().to_owned(), Source::Flag("api-key-file")))
            }
            None => None,
        };
        let api_key = key_file.or_else(|| variable(API_KEY_VARIABLE)).or_else(|| {
            profile.as_ref().and_then(|(name, _, p)| {
                use secrecy::ExposeSecret as _;
                let key = p.api_key.as_ref()?.expose_secret().to_owned();
                Some((key, Source::Profile(name.clone())))
            })
        });
        let output = weigh_output(matches, !variables_read, profile.as_ref());
        Ok(Self {
            profile,
            variables_read,
            values,
            api_key,
            timeout: matches.get_one::<Duration>("timeout").copied(),
            output,
        })
    }

    /// The weighed value of one of `encoder_url`, `vms_url`, `analytics_url`, `login_id`.
    pub fn value(&self, name: &str) -> Option<(&str, &Source)> {
        let at = URLS_AND_LOGIN.iter().position(|l| l.name == name)?;
        self.values[at].as_ref().map(|(value, source)| (value.as_str(), source))
    }

    /// The profile in use, when there is one.
    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_ref().map(|(_, _, profile)| profile)
    }

    /// The weighed API key, and where it came from.
    pub fn api_key(&self) -> Option<(&str, &Source)> {
        self.api_key.as_ref().map(|(key, source)| (key.as_str(), source))
    }

    /// The builder the weighed settings describe, with the invocation's
    /// timeout and quota flags over it.
    pub fn builder(&self, matches: &ArgMatches) -> Result<ClientBuilder, Failure> {
        let mut builder = ClientBuilder::default();
        if let Some((name, _, profile)) = &self.profile {
            // Routes, timeouts and the quota store come from the profile alone.
            builder = builder.profile(name, profile)?;
        }
        for (layered, value) in URLS_AND_LOGIN.iter().zip(&self.values) {
            if let Some((value, _)) = value {
                builder = (layered.apply)(builder, value);
            }
        }
        if let Some((key, _)) = &self.api_key {
            builder = builder.api_key(key);
        }
        // The account's analytics quota is counted for the whole machine (every
        // `vidplat` process of the account), unless the profile names a store.
        let profile_store = self.profile.as_ref().is_some_and(|(_, _, p)| p.quota_store.is_some());
        if let (false, Some((url, _))) = (profile_store, self.value("analytics_url")) {
            let account = match (self.value("login_id"), &self.api_key) {
                (Some((login, _)), _) => login.to_owned(),
                (None, Some((key, _))) => vidplat::MachineQuota::key_fingerprint(key),
                (None, None) => "no account".to_owned(),
            };
            match vidplat::MachineQuota::in_state_dir(url, &account) {
                Ok(store) => builder = builder.quota_store(store),
                Err(e) => tracing::warn!("analytics quota: {e}; counting in this process only"),
            }
        }
        if let Some(timeout) = self.timeout {
            builder = builder.total_timeout(timeout);
        }
        let mode = match matches.get_one::<String>("quota").map(String::as_str) {
            Some("fail-fast") => QuotaMode::FailFast,
            _ => QuotaMode::Wait,
        };
        let counted_until = match matches.get_one::<String>("analytics-counted-until").map(String::as_str) {
            Some("turn") => CountedUntil::WindowAfterTurn,
            _ => CountedUntil::WindowAfterEnd,
        };
        let defaults = QuotaConfig::default();
        Ok(builder.analytics_quota(QuotaConfig {
            mode,
            counted_until,
            window: matches
                .get_one::<Duration>("analytics-window")
                .copied()
                .unwrap_or(defaults.window),
            ..defaults
        }))
    }

    /// Each setting, its value (secrets redacted) and where it came from.
    pub fn settings(&self) -> Vec<Setting> {
        let mut settings = vec![Setting {
            name: "profile",
            value: self.profile.as_ref().map(|(name, _, _)| name.clone()),
            source: self.profile.as_ref().map(|(_, source, _)| source.clone()),
        }];
        for (layered, chosen) in URLS_AND_LOGIN.iter().zip(&self.values) {
            settings.push(Setting {
                name: layered.name,
                value: chosen
                    .as_ref()
                    .map(|(value, _)| vidplat_core::without_credentials(value).into_owned()),
                source: chosen.as_ref().map(|(_, source)| source.clone()),
            });
        }
        settings.push(Setting {
            name: "api_key",
            value: self.api_key.as_ref().map(|_| vidplat_core::REDACTED.to_owned()),
            source: self.api_key.as_ref().map(|(_, source)| source.clone()),
        });
        let profile = self.profile.as_ref();
        let of_profile = |name, value: Option<String>| Setting {
            name,
            source: value
                .as_ref()
                .and(profile.map(|(profile, _, _)| Source::Profile(profile.clone()))),
            value,
        };
        let store = profile.and_then(|(_, _, p)| p.quota_store.as_deref());
        settings.push(of_profile(
            "quota_store",
            store.map(|url| vidplat_core::without_credentials(url).into_owned()),
        ));
        let shown = |d: Duration| humantime::format_duration(d).to_string();
        settings.push(match self.timeout {
            // `--timeout` is applied over the profile's (`builder`).
            Some(timeout) => Setting {
                name: "total_timeout",
                value: Some(shown(timeout)),
                source: Some(Source::Flag("timeout")),
            },
            None => of_profile(
                "total_timeout",
                profile.and_then(|(_, _, p)| p.total_timeout_secs.map(|s| shown(Duration::from_secs(s)))),
            ),
        });
        settings.push(Setting {
            name: "output",
            value: self.output.as_ref().map(|(value, _)| value.clone()),
            source: self.output.as_ref().map(|(_, source)| source.clone()),
        });
        settings
    }

    /// The `VIDPLAT_*` variables that are set but not read, because `--profile` names the profile.
    pub fn ignored_variables(&self) -> Vec<&'static str> {
        if self.variables_read {
            return Vec::new();
        }
        URLS_AND_LOGIN
            .iter()
            .map(|l| l.variable)
            .chain([API_KEY_VARIABLE])
            .filter(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
            .collect()
    }
}

/// Whether `--profile` names the profile (not `VIDPLAT_PROFILE`).
fn named_by_flag(matches: &ArgMatches) -> bool {
    matches.value_source("profile") == Some(ValueSource::CommandLine)
}

/// The profile in use, its name and what named it: the one `--profile` or
/// `VIDPLAT_PROFILE` names, else `default` when it exists.
fn profile_in_use(matches: &ArgMatches) -> Result<Option<(String, Source, Profile)>, Failure> {
    let explicit = named_by_flag(matches);
    let profile = match matches.get_one::<String>("profile") {
        Some(name) => {
            let profiles = Profiles::load()?;
            let source = if explicit {
                Source::Flag("profile")
            } else {
                Source::Variable(PROFILE_VARIABLE)
            };
            Some((name.clone(), source, profiles.get(name)?.clone()))
        }
        // The default profile, when there is one: a missing directory or file is no
        // error, an unreadable or unprotected one is (never silently skipped).
        None => match Profiles::load() {
            Ok(profiles) => profiles
                .get(DEFAULT_PROFILE)
                .ok()
                .map(|profile| (DEFAULT_PROFILE.to_owned(), Source::DefaultProfile, profile.clone())),
            Err(ProfileError::NoConfigDir) => None,
            Err(e) => return Err(e.into()),
        },
    };
    Ok(profile)
}

/// The output format and what named it: `--output`, then the `output` of a
/// profile named with `--profile`, then `VIDPLAT_OUTPUT`, then the `output` of
/// the profile in use otherwise; `None` leaves it to the terminal rule.
fn weigh_output(
    matches: &ArgMatches,
    explicit: bool,
    profile: Option<&(String, Source, Profile)>,
) -> Option<(String, Source)> {
    let flag = matches
        .get_one::<String>("output")
        .map(|f| (f.clone(), Source::Flag("output")));
    let of_profile = || profile.and_then(|(name, _, p)| p.output.clone().map(|o| (o, Source::Profile(name.clone()))));
    let variable = || {
        std::env::var(OUTPUT_VARIABLE)
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (v, Source::Variable(OUTPUT_VARIABLE)))
    };
    flag.or_else(|| explicit.then(of_profile).flatten())
        .or_else(variable)
        .or_else(of_profile)
}

/// The format data is printed in when one is named (`None`: a table on a
/// terminal, JSON elsewhere). A profile that cannot be read names nothing
/// here: the command that needs its connection settings reports it.
pub fn named_output_format(matches: &ArgMatches) -> Result<Option<Format>, Failure> {
    let profile = match matches.get_one::<String>("output") {
        Some(_) => None,
        None => profile_in_use(matches).ok().flatten(),
    };
    match weigh_output(matches, named_by_flag(matches), profile.as_ref()) {
        Some((name, source)) => Format::parse(&name).map(Some).ok_or_else(|| {
            Failure::invalid(
                source.to_string(),
                format!("names the output format `{name}`: one of json, ndjson, table, csv, yaml"),
            )
        }),
        None => Ok(None),
    }
}

/// The builder the flags, the environment and the profile describe.
pub fn client_builder(matches: &ArgMatches) -> Result<ClientBuilder, Failure> {
    Setup::resolve(matches)?.builder(matches)
}

/// `--login-id`: the global flag, or an analytics operation's parameter of the same id (both JSON text).
pub fn login_id(matches: &ArgMatches) -> Option<String> {
    matches
        .get_one::<serde_json::Value>("login-id")
        .and_then(|v| v.as_str().map(str::to_owned))
}

/// The most bytes a key file is read for: a key is short, and `/dev/zero`
/// must not fill the memory.
pub(crate) const MAX_KEY_FILE: u64 = 64 * 1024;

/// The text of a file holding a secret (a key, a URL with a password) named
/// by `flag` (a FIFO from `<(…)` too), at most [`MAX_KEY_FILE`] bytes.
pub(crate) fn read_key_file(path: &str, flag: &str) -> Result<String, Failure> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_KEY_FILE + 1).read_to_end(&mut bytes))
        .map_err(|e| Failure::Setup(format!("{flag} {path}: {e}")))?;
    if bytes.len() as u64 > MAX_KEY_FILE {
        return Err(Failure::invalid(
            flag,
            format!("is larger than {MAX_KEY_FILE} bytes, the most a secret's file may hold"),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Failure::invalid(flag, "is not UTF-8 text"))
}
