//! `profile add|list|status|show|remove`: named set-ups in the configuration
//! directory, the API key in a file only its owner reads.

use super::Invocation;
use crate::failure::Failure;
use crate::output::{self, RowWriter};
use clap::{Arg, ArgAction, Command};
use serde_json::{json, Value};
use std::time::Duration;

pub fn define(command: Command) -> Command {
    let name = || {
        Arg::new("name")
            .value_name("NAME")
            .required(true)
            .help("The profile's name")
    };
    command
        .subcommand_required(true)
        .subcommand(
            Command::new("add")
                .about(
                    "Add or replace a profile from the global URL, login and key flags, else the VIDPLAT_* \
                     variables; on a terminal, the key is asked for with the input hidden",
                )
                .arg(name())
                .arg(
                    Arg::new("api-key-stdin")
                        .long("api-key-stdin")
                        .action(ArgAction::SetTrue)
                        .help("Read the API key from stdin (asked for, hidden, on a terminal; or use --api-key-file)"),
                )
                .arg(
                    Arg::new("quota-store")
                        .long("quota-store")
                        .value_name("REDIS_URL")
                        .conflicts_with("quota-store-file")
                        .help("A shared analytics quota store (a password in the URL shows in the process list: use --quota-store-file)"),
                )
                .arg(
                    Arg::new("quota-store-file")
                        .long("quota-store-file")
                        .value_name("FILE")
                        .help("Read the shared quota store's URL from this file, keeping its password off the command line"),
                )
                .arg(
                    Arg::new("total-timeout")
                        .long("total-timeout")
                        .value_name("DURATION")
                        .value_parser(humantime::parse_duration)
                        .help("Longest time for a call, retries included"),
                )
                .arg(
                    Arg::new("route")
                        .long("route")
                        .value_name("OPERATION=METHOD /PATH")
                        .action(ArgAction::Append)
                        .help("A route override, e.g. 'get_task=GET /v1/tasks/{task-id}'"),
                )
                .after_help("Examples:\n  vidplat profile add prod --encoder-url https://encoder.example.com --api-key-file prod.key\n  vidplat profile add staging   # the VIDPLAT_* variables, the key asked for"),
        )
        .subcommand(
            Command::new("list")
                .about("Every profile's name and URLs")
                .after_help("Examples:\n  vidplat profile list -o table"),
        )
        .subcommand(
            Command::new("status")
                .about(
                    "Each setting this invocation would use, its value (secrets redacted) and where it came from: \
                     a flag, a VIDPLAT_* variable or a profile",
                )
                .after_help("Examples:\n  vidplat --profile prod profile status"),
        )
        .subcommand(
            Command::new("show")
                .about("A profile, its key redacted")
                .arg(name())
                .after_help("Examples:\n  vidplat profile show prod"),
        )
        .subcommand(
            Command::new("remove")
                .about("Remove a profile")
                .arg(name())
                .after_help("Examples:\n  vidplat profile remove staging"),
        )
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Invocation {
        global,
        matches,
        io,
        format,
        ..
    } = invocation;
    use vidplat::profile::{Profile, Profiles};
    let mut profiles = Profiles::load()?;
    match matches.subcommand() {
        Some(("add", sub)) => {
            let name = sub.get_one::<String>("name").cloned().unwrap_or_default();
            // Flags over the `VIDPLAT_*` variables, as any command weighs them.
            let setup = crate::config::Setup::without_profile(global)?;
            let mut sources: Vec<String> = Vec::new();
            let mut value = |setting: &str| {
                let (value, source) = setup.value(setting)?;
                sources.push(format!("{setting} ({source})"));
                Some(value.to_owned())
            };
            let mut profile = Profile {
                encoder_url: value("encoder_url"),
                vms_url: value("vms_url"),
                analytics_url: value("analytics_url"),
                login_id: value("login_id"),
                quota_store: match sub.get_one::<String>("quota-store-file") {
                    Some(path) => Some(
                        crate::config::read_key_file(path, "--quota-store-file")?
                            .trim()
                            .to_owned(),
                    ),
                    None => sub.get_one::<String>("quota-store").cloned(),
                },
                total_timeout_secs: sub.get_one::<Duration>("total-timeout").map(Duration::as_secs),
                ..Profile::default()
            };
            for route in sub.get_many::<String>("route").into_iter().flatten() {
                let (operation, route) = route
                    .split_once('=')
                    .ok_or_else(|| Failure::invalid("--route", format!("`{route}` is not OPERATION=METHOD /PATH")))?;
                profile.routes.insert(operation.to_owned(), route.to_owned());
            }
            let key = if sub.get_flag("api-key-stdin") {
                sources.push("api_key (--api-key-stdin)".to_owned());
                Some(read_key(&name, io)?)
            } else if let Some((key, source)) = setup.api_key() {
                sources.push(format!("api_key ({source})"));
                Some(key.to_owned())
            } else if io.stdin_terminal {
                let key = read_key(&name, io)?;
                (!key.trim().is_empty()).then(|| {
                    sources.push("api_key (typed)".to_owned());
                    key
                })
            } else {
                None
            };
            profile.api_key = key.map(|k| k.trim().to_owned().into());
            if sources.is_empty()
                && profile.quota_store.is_none()
                && profile.total_timeout_secs.is_none()
                && profile.routes.is_empty()
            {
                return Err(Failure::invalid(
                    "profile add",
                    "has nothing to save: give --encoder-url, --vms-url, --analytics-url, --login-id, a key \
                     (--api-key-stdin, --api-key-file), --quota-store, --quota-store-file, --total-timeout or --route, \
                     or export the VIDPLAT_* variables",
                ));
            }
            // Applying it checks the routes and the quota store before anything is saved.
            vidplat::ClientBuilder::default().profile(&name, &profile)?.build()?;
            profiles.insert(name.clone(), profile);
            profiles.save()?;
            let from = if sources.is_empty() {
                String::new()
            } else {
                format!(": {}", sources.join(", "))
            };
            writeln!(
                io.stderr,
                "saved profile `{name}` in {}{from}",
                profiles.dir().display()
            )?;
            Ok(())
        }
        Some(("status", _)) => {
            let setup = crate::config::Setup::resolve(global)?;
            let mut rows = RowWriter::new(format, None);
            for setting in setup.settings() {
                let row = json!({
                    "setting": setting.name,
                    "value": setting.value,
                    "source": setting.source.map(|s| s.to_string()),
                });
                rows.row(io.stdout, &row)?;
            }
            if let Some(note) = rows.finish(io.stdout)?.note() {
                writeln!(io.stderr, "{note}")?;
            }
            let ignored = setup.ignored_variables();
            if !ignored.is_empty() {
                writeln!(
                    io.stderr,
                    "note: {} set but not read: --profile names the whole set-up",
                    ignored.join(", ")
                )?;
            }
            Ok(())
        }
        Some(("list", _)) => {
            let mut rows = RowWriter::new(format, None);
            for (name, profile) in profiles.iter() {
                rows.row(io.stdout, &shown(name, profile))?;
            }
            if let Some(note) = rows.finish(io.stdout)?.note() {
                writeln!(io.stderr, "{note}")?;
            }
            Ok(())
        }
        Some(("show", sub)) => {
            let name = sub.get_one::<String>("name").map(String::as_str).unwrap_or_default();
            let profile = profiles.get(name)?;
            output::value(io.stdout, format, None, &shown(name, profile))?;
            Ok(())
        }
        Some(("remove", sub)) => {
            let name = sub.get_one::<String>("name").map(String::as_str).unwrap_or_default();
            if !profiles.remove(name) {
                return Err(vidplat::profile::ProfileError::NotFound { name: name.to_owned() }.into());
            }
            profiles.save()?;
            writeln!(io.stderr, "removed profile `{name}`")?;
            Ok(())
        }
        _ => Err(Failure::invalid("profile", "needs a subcommand")),
    }
}

/// The API key of a profile being added: typed at a prompt with the input
/// hidden when stdin is a terminal, else read from stdin.
fn read_key(name: &str, io: &mut crate::Io<'_>) -> Result<String, Failure> {
    if io.stdin_terminal {
        return rpassword::prompt_password(format!("API key for profile `{name}` (input hidden): "))
            .map_err(|e| Failure::Setup(format!("reading the key from the terminal: {e}")));
    }
    // As a key file is: a key is short, and stdin may be endless (`< /dev/zero`).
    let mut key = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(&mut *io.stdin, crate::config::MAX_KEY_FILE + 1),
        &mut key,
    )?;
    if key.len() as u64 > crate::config::MAX_KEY_FILE {
        return Err(Failure::invalid(
            "--api-key-stdin",
            format!("is larger than {} bytes: not a key", crate::config::MAX_KEY_FILE),
        ));
    }
    Ok(key)
}

/// A profile as `list` and `show` print it: URLs without credentials, the key redacted.
fn shown(name: &str, profile: &vidplat::profile::Profile) -> Value {
    let url = |u: &Option<String>| u.as_deref().map(|u| vidplat_core::without_credentials(u).into_owned());
    json!({
        "name": name,
        "encoder_url": url(&profile.encoder_url),
        "vms_url": url(&profile.vms_url),
        "analytics_url": url(&profile.analytics_url),
        "login_id": profile.login_id,
        "quota_store": url(&profile.quota_store),
        "connect_timeout_secs": profile.connect_timeout_secs,
        "attempt_timeout_secs": profile.attempt_timeout_secs,
        "total_timeout_secs": profile.total_timeout_secs,
        "routes": profile.routes,
        "api_key": profile.api_key.as_ref().map(|_| vidplat_core::REDACTED),
    })
}
