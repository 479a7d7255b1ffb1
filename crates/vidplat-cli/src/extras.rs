//! The commands that are not one operation each: waiting, signed pages, the
//! analytics quota, profiles, the simulator and shell completion.

use crate::failure::Failure;
use crate::output::{self, Format, RowWriter};
use crate::progress::Statuses;
use crate::Io;
use clap::{Arg, ArgAction, ArgMatches, Command};
use futures::StreamExt as _;
use serde_json::{json, Value};
use std::time::Duration;
use vidplat::encoder::types::{Task, TaskStatus};
use vidplat::signing::{self, Grant, SigningKey};
use vidplat::waiters::Polling;
use vidplat::Client;

pub fn encoder_commands() -> Vec<Command> {
    vec![
        Command::new("wait-task")
            .about("Wait for tasks to end: each status change on stderr, the final tasks on stdout")
            .long_about(
                "Wait for tasks to end: each status change on stderr, the final tasks on stdout.\n\n\
                 Exits 0 when every task ended ready, 4 when one ended failed or canceled, 124 when \
                 --timeout passed first.",
            )
            .arg(
                Arg::new("task-id")
                    .value_name("TASK_ID")
                    .required(true)
                    .num_args(1..)
                    .value_parser(clap::value_parser!(u64).range(1..))
                    .help("The tasks to wait for"),
            )
            .arg(poll_interval()),
        Command::new("wait-task-import")
            .about("Wait for a CSV import job's tasks to finish; the job on stdout")
            .arg(
                Arg::new("import-id")
                    .value_name("IMPORT_ID")
                    .required(true)
                    .value_parser(clap::value_parser!(u64).range(1..))
                    .help("The import job"),
            )
            .arg(poll_interval()),
    ]
}

pub fn vms_commands() -> Vec<Command> {
    let key_file = Arg::new("signing-key-file")
        .long("signing-key-file")
        .value_name("FILE")
        .help("The page's signing key, from a file (else read from the page itself with the API key)");
    vec![
        Command::new("sign-page")
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
            .arg(key_file.clone()),
        Command::new("verify-url")
            .about("Check a signed page URL: its grant on stdout, exit 5 when expired or invalid")
            .arg(Arg::new("url").value_name("URL").required(true).help("The signed URL"))
            .arg(key_file),
    ]
}

pub fn analytics_commands() -> Vec<Command> {
    vec![
        Command::new("quota").about(
            "The analytics quota: the per-minute window and its calls, whether the slot is held, the month's count \
             (the account's, from Redis, when the profile has a quota store)",
        ),
        crate::export::command(),
    ]
}

pub fn top_commands() -> Vec<Command> {
    let name = || {
        Arg::new("name")
            .value_name("NAME")
            .required(true)
            .help("The profile's name")
    };
    vec![
        Command::new("profile")
            .about("Named set-ups in the configuration directory (the API key in a file only its owner reads)")
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
                            .help(
                                "Read the API key from stdin (asked for, hidden, on a terminal; or use --api-key-file)",
                            ),
                    )
                    .arg(
                        Arg::new("quota-store")
                            .long("quota-store")
                            .value_name("REDIS_URL")
                            .help("A shared analytics quota store"),
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
                    ),
            )
            .subcommand(Command::new("list").about("Every profile's name and URLs"))
            .subcommand(Command::new("status").about(
                "Each setting this invocation would use, its value (secrets redacted) and where it came from: \
                 a flag, a VIDPLAT_* variable or a profile",
            ))
            .subcommand(Command::new("show").about("A profile, its key redacted").arg(name()))
            .subcommand(Command::new("remove").about("Remove a profile").arg(name())),
        sim_command(),
        Command::new("completion")
            .about("Print the shell completion script")
            .arg(
                Arg::new("shell")
                    .value_name("SHELL")
                    .required(true)
                    .value_parser(clap::value_parser!(clap_complete::Shell)),
            ),
    ]
}

fn sim_command() -> Command {
    Command::new("sim")
        .about(
            "Run the simulator of the three services on 127.0.0.1 and print the VIDPLAT_* variables that point at it",
        )
        .arg(
            Arg::new("fast")
                .long("fast")
                .action(ArgAction::SetTrue)
                .help("Tasks move every 20 ms instead of 800 ms"),
        )
        .arg(
            Arg::new("port")
                .long("port")
                .value_name("PORT")
                .value_parser(clap::value_parser!(u16))
                .help("Port on 127.0.0.1 [default: a free one]"),
        )
        .arg(
            Arg::new("print-env").long("print-env").action(ArgAction::SetTrue).help(
                "Start it in the background, print the export lines and return: eval \"$(vidplat sim --print-env)\"",
            ),
        )
        .arg(
            Arg::new("scenario")
                .long("scenario")
                .value_name("NAME")
                .action(ArgAction::Append)
                .value_parser(clap::builder::PossibleValuesParser::new(scenario_names()))
                .help("Set up a hard case; repeat to combine"),
        )
}

/// The simulator's named scenarios (`month-quota-spent`, …).
#[cfg(feature = "sim")]
fn scenario_names() -> Vec<&'static str> {
    vidplat_sim::Scenario::ALL.iter().map(|(_, name)| *name).collect()
}

#[cfg(not(feature = "sim"))]
fn scenario_names() -> Vec<&'static str> {
    Vec::new()
}

/// `--poll-interval`, for the commands that wait.
pub fn poll_interval() -> Arg {
    Arg::new("poll-interval")
        .long("poll-interval")
        .value_name("DURATION")
        .value_parser(humantime::parse_duration)
        .help("First pause between polls; it grows to 30 s [default: 1s]")
}

/// The polling of a waiting command.
fn polling(matches: &ArgMatches, timeout: Option<Duration>) -> Polling {
    let mut polling = Polling::default();
    if let Some(interval) = matches.get_one::<Duration>("poll-interval") {
        polling.initial_interval = *interval;
        polling.max_interval = polling.max_interval.max(*interval);
    }
    if let Some(timeout) = timeout {
        polling.max_wait = timeout;
    }
    polling
}

/// Waits for `ids`: status changes on stderr, the final tasks as rows on stdout.
pub async fn wait_tasks(
    client: &Client,
    ids: &[u64],
    matches: &ArgMatches,
    timeout: Option<Duration>,
    io: &mut Io<'_>,
    format: Format,
    columns: Option<Vec<String>>,
) -> Result<(), Failure> {
    let polling = polling(matches, timeout);
    let streams = ids.iter().map(|&id| {
        client
            .wait_for_task(id)
            .polling(polling)
            .status_changes()
            .map(move |change| (id, change))
    });
    let mut changes = futures::stream::select_all(streams);
    let mut finals: Vec<(u64, Task)> = Vec::new();
    let mut failure = None;
    let statuses = Statuses::new(io.stderr_terminal);
    while let Some((id, change)) = changes.next().await {
        match change {
            Ok(task) => {
                let status = task.status.as_ref().map_or("unknown".to_owned(), ToString::to_string);
                statuses.line(io.stderr, &format!("task {id}: {status}"))?;
                if matches!(
                    task.status,
                    Some(TaskStatus::Ready | TaskStatus::Failed | TaskStatus::Canceled)
                ) {
                    finals.push((id, task));
                }
            }
            Err(e) => {
                failure.get_or_insert(Failure::from(e));
            }
        }
    }
    drop(statuses);
    finals.sort_by_key(|(id, _)| ids.iter().position(|i| i == id));
    let mut rows = RowWriter::new(format, columns);
    for (_, task) in &finals {
        rows.row(io.stdout, task)?;
    }
    // A wait that failed before any task ended prints nothing (not an empty list).
    if failure.is_none() || rows.rows() > 0 {
        if let Some(note) = rows.finish(io.stdout)?.note() {
            writeln!(io.stderr, "{note}")?;
        }
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    // Every task that did not end ready is named, not only the first.
    let ended: Vec<(u64, String)> = finals
        .iter()
        .filter(|(_, t)| !matches!(t.status, Some(TaskStatus::Ready)))
        .map(|(id, task)| {
            let status = task.status.as_ref().map_or("unknown".to_owned(), ToString::to_string);
            (*id, vidplat_core::escape_controls(&status).into_owned())
        })
        .collect();
    if ended.is_empty() {
        Ok(())
    } else {
        Err(Failure::TaskEnded { tasks: ended })
    }
}

/// `wait-task-import`: each change of the job's task counts on stderr, the
/// job on stdout once its tasks have finished; exit 4 when one of them ended
/// failed or canceled.
pub async fn wait_import(
    client: &Client,
    matches: &ArgMatches,
    timeout: Option<Duration>,
    io: &mut Io<'_>,
    format: Format,
    columns: Option<Vec<String>>,
) -> Result<(), Failure> {
    let id = *matches.get_one::<u64>("import-id").unwrap_or(&0);
    let (seen, mut counts) = tokio::sync::mpsc::unbounded_channel();
    let last = std::sync::Mutex::new(String::new());
    let waiter = client
        .wait_for_task_import(id)
        .polling(polling(matches, timeout))
        .until(move |job| {
            let now = task_counts(job);
            let mut last = last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if *last != now {
                let _ = seen.send(now.clone());
                *last = now;
            }
            vidplat::waiters::import_tasks_finished(job)
        });
    let statuses = Statuses::new(io.stderr_terminal);
    let mut waiter = std::pin::pin!(std::future::IntoFuture::into_future(waiter));
    let job = loop {
        tokio::select! {
            job = &mut waiter => break job,
            Some(now) = counts.recv() => statuses.line(io.stderr, &format!("import {id}: {now}"))?,
        }
    };
    // The last change, if the job ended on the poll that made it.
    while let Ok(now) = counts.try_recv() {
        statuses.line(io.stderr, &format!("import {id}: {now}"))?;
    }
    drop(statuses);
    let job = job?;
    let shown = serde_json::to_value(&job).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
    if let Some(note) = output::value(io.stdout, format, columns, &shown)? {
        writeln!(io.stderr, "{note}")?;
    }
    let status = serde_json::to_value(&job.task_status).unwrap_or_default();
    for ended in ["failed", "canceled"] {
        if status[ended].as_u64().is_some_and(|n| n > 0) {
            return Err(Failure::ImportEnded {
                import_id: id,
                count: status[ended].as_u64().unwrap_or(0),
                status: ended,
            });
        }
    }
    Ok(())
}

/// The job's task counts that are not zero, e.g. `1 encoding, 2 waiting`.
fn task_counts(job: &vidplat::encoder::types::TaskImport) -> String {
    let status = serde_json::to_value(&job.task_status).unwrap_or_default();
    let counts: Vec<String> = status
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, n)| n.as_u64().filter(|n| *n > 0).map(|n| format!("{n} {name}")))
        .collect();
    if counts.is_empty() {
        "no tasks counted yet".to_owned()
    } else {
        counts.join(", ")
    }
}

fn signing_key(matches: &ArgMatches) -> Result<Option<SigningKey>, Failure> {
    let Some(path) = matches.get_one::<String>("signing-key-file") else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Setup(format!("--signing-key-file {path}: {e}")))?;
    SigningKey::new(text.trim())
        .map(Some)
        .map_err(|e| Failure::invalid("--signing-key-file", e.to_string()))
}

/// The page's own signing key, read with the API key.
async fn page_key(client: &Client, page: &str) -> Result<SigningKey, Failure> {
    let page = vidplat::Call::call(client.vms()?.get_viewing_page().page_id(page)).await?;
    let key = page
        .signing_key
        .ok_or_else(|| Failure::Setup("the page's answer carries no signing_key".to_owned()))?;
    SigningKey::new(key).map_err(|e| Failure::Setup(format!("the page's signing key: {e}")))
}

/// `sign-page`: the signed URL.
pub async fn sign_page(client: Option<&Client>, matches: &ArgMatches) -> Result<String, Failure> {
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

fn needs_client() -> Failure {
    Failure::Setup("no video management service configured for reading the page's key".to_owned())
}

/// `verify-url`: the grant the URL carries, or why it does not verify.
pub async fn verify_url(client: Option<&Client>, matches: &ArgMatches) -> Result<Value, Failure> {
    let url = matches.get_one::<String>("url").map(String::as_str).unwrap_or_default();
    let key = match signing_key(matches)? {
        Some(key) => key,
        None => {
            let page =
                page_id(url).ok_or_else(|| Failure::Signature("the URL names no page (/pages/{id})".to_owned()))?;
            page_key(client.ok_or_else(needs_client)?, &page).await?
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let grant = signing::verify(url, &key, now).map_err(|e| Failure::Signature(e.to_string()))?;
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

/// `analytics quota`.
pub async fn quota(client: &Client) -> Result<Value, Failure> {
    let limiter = client
        .analytics_quota()
        .ok_or_else(|| Failure::Setup("the analytics quota is turned off".to_owned()))?;
    let config = limiter.config();
    let usage = limiter.fetch_usage().await;
    // `null` when the store does not answer: not known, rather than a guess.
    let activity = limiter.fetch_activity().await;
    let store = match limiter.store().kind() {
        "memory" => "memory (this process only: other processes' calls are not counted)".to_owned(),
        "machine" => match vidplat::machine_quota::state_dir() {
            Ok(dir) => format!("machine (every process of this machine; in {})", dir.display()),
            Err(_) => "machine (every process of this machine)".to_owned(),
        },
        "redis" => "redis (every process of the account, on any machine)".to_owned(),
        other => other.to_owned(),
    };
    Ok(json!({
        "calls_per_window": config.calls_per_window,
        "window_secs": config.window.as_secs_f64(),
        "calls_at_a_time": config.concurrency,
        "calls_in_window": activity.map(|a| a.in_window),
        "calls_in_flight": activity.map(|a| a.in_flight),
        "slot_held": activity.map(|a| a.slots_full()),
        "per_month": usage.per_month,
        "used_this_month": usage.used,
        "remaining_this_month": usage.remaining(),
        "refused_by_server": usage.refused_by_server,
        "waiting": limiter.current_wait().map(|w| w.to_string()),
        "store": store,
    }))
}

/// `profile …`.
pub fn profile(matches: &ArgMatches, global: &ArgMatches, io: &mut Io<'_>, format: Format) -> Result<(), Failure> {
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
                quota_store: sub.get_one::<String>("quota-store").cloned(),
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
                     (--api-key-stdin, --api-key-file), --quota-store, --total-timeout or --route, \
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
fn read_key(name: &str, io: &mut Io<'_>) -> Result<String, Failure> {
    if io.stdin_terminal {
        return rpassword::prompt_password(format!("API key for profile `{name}` (input hidden): "))
            .map_err(|e| Failure::Setup(format!("reading the key from the terminal: {e}")));
    }
    let mut key = String::new();
    io.stdin.read_to_string(&mut key)?;
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

/// `sim`.
#[cfg(feature = "sim")]
pub async fn sim(matches: &ArgMatches, io: &mut Io<'_>) -> Result<(), Failure> {
    use vidplat_sim::{SimConfig, Simulator};
    let port = matches.get_one::<u16>("port").copied().unwrap_or(0);
    let fast = matches.get_flag("fast");
    let scenarios: Vec<&str> = matches
        .get_many::<String>("scenario")
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    if matches.get_flag("print-env") {
        return sim_in_background(port, fast, &scenarios, io);
    }
    let defaults = SimConfig::default();
    let config = SimConfig {
        port,
        task_step: if fast {
            SimConfig::fast().task_step
        } else {
            defaults.task_step
        },
        ..defaults
    };
    // clap admitted only the scenarios' own names.
    let config = scenarios
        .iter()
        .filter_map(|name| name.parse::<vidplat_sim::Scenario>().ok())
        .fold(config, SimConfig::with_scenario);
    let sim = Simulator::start_with(config)
        .await
        .map_err(|e| Failure::Setup(format!("starting the simulator: {e}")))?;
    writeln!(
        io.stderr,
        "# vidplat simulator listening on {}; Ctrl-C stops it",
        sim.address
    )?;
    let variables = [
        ("VIDPLAT_SIM_URL", format!("http://{}", sim.address)),
        ("VIDPLAT_ENCODER_URL", sim.encoder_url.clone()),
        ("VIDPLAT_VMS_URL", sim.vms_url.clone()),
        ("VIDPLAT_ANALYTICS_URL", sim.analytics_url.clone()),
        ("VIDPLAT_API_KEY", sim.api_key.clone()),
        ("VIDPLAT_LOGIN_ID", sim.login_id.clone()),
    ];
    for (name, value) in &variables {
        writeln!(io.stdout, "export {name}={value}")?;
    }
    io.stdout.flush()?;
    tokio::signal::ctrl_c().await?;
    Ok(())
}

/// Starts `vidplat sim` as a process of its own, passes its export lines on and returns.
#[cfg(feature = "sim")]
fn sim_in_background(port: u16, fast: bool, scenarios: &[&str], io: &mut Io<'_>) -> Result<(), Failure> {
    use std::io::BufRead as _;
    use std::process::{Command as Process, Stdio};
    let exe = std::env::current_exe()?;
    let mut command = Process::new(exe);
    command.args(["sim", "--port", &port.to_string()]);
    if fast {
        command.arg("--fast");
    }
    for scenario in scenarios {
        command.args(["--scenario", scenario]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Failure::Setup("the simulator's output".to_owned()))?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    for _ in 0..6 {
        match lines.next() {
            Some(line) => writeln!(io.stdout, "{}", line?)?,
            None => {
                return Err(Failure::Setup(
                    "the simulator stopped before it printed where it listens".to_owned(),
                ))
            }
        }
    }
    writeln!(io.stdout, "export VIDPLAT_SIM_PID={}", child.id())?;
    writeln!(io.stdout, "# stop it with: kill $VIDPLAT_SIM_PID")?;
    Ok(())
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
