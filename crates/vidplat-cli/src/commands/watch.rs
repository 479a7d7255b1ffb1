//! `vidplat watch tasks|imports|contents`: each change as a JSON line on
//! stdout ([`vidplat::watch`]), a cursor file so that a restart repeats
//! nothing handled, a command run or a signed webhook sent for each event,
//! and the calls the polling makes on stderr.

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgAction, ArgMatches, Command};
use futures::StreamExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vidplat::watch::{Cursor, Event, Source};
use vidplat::webhooks::WebhookSecret;

pub fn define(command: Command) -> Command {
    command
        .subcommand_required(true)
        .subcommand(source(
            "tasks",
            "Each change of a task's status",
            "`type` is `task.ready`, `task.failed` (with `error_code`), `task.canceled`, \
             `task.status_changed` or `task.deleted`; `task_id`, `before` and `after` are statuses. A poll \
             costs the task counts and the first page of the tasks sorted by `updated_at` (an assumption: \
             the documents name no sort column but created_at; when the service refuses it, every page is \
             read at every poll); when the counts disagree with the statuses seen, every page is read.",
            "vidplat watch tasks --cursor tasks.cursor\n  \
             vidplat watch tasks --exec './notify.sh --channel ops' --parallel 4\n  \
             vidplat watch tasks --forward-to http://127.0.0.1:8000/hooks --secret-file hook.secret\n  \
             vidplat watch tasks --interval 10s | jq -c 'select(.type == \"task.failed\")'",
        ))
        .subcommand(source(
            "imports",
            "Each change of a CSV import job",
            "`type` is `import.created`, `import.progressed`, `import.finished` or `import.deleted`; \
             `import_id`; `after` is `in_progress` or `finished`, `detail` the job's `import_status` and \
             `task_status` (whose members the documents do not show: finished is read as no task \
             waiting, encoding, uploading or canceling). A poll is one call.",
            "vidplat watch imports --count 1 | jq -r .import_id",
        ))
        .subcommand(source(
            "contents",
            "Each change of a content of the video management service",
            "`type` is `content.created`, `content.status_changed` (status or encode_status), \
             `content.updated` or `content.deleted` (seen on the first poll of a watch only); \
             `content_name`; `after` is the status, `detail` the encode_status and updated_at. A poll costs \
             the first page of the contents sorted by `updated_at` (an assumption, as for tasks).",
            "vidplat watch contents --cursor contents.cursor",
        ))
}

/// One source's command: the flags every watch takes.
fn source(name: &'static str, about: &'static str, what: &'static str, examples: &'static str) -> Command {
    let value = |name: &'static str, value_name: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value_name).help(help)
    };
    Command::new(name)
        .about(format!("{about}: one JSON line per change seen"))
        .long_about(format!(
            "{about}, as one JSON line per change seen: `id` (the same for the same change, so that a receiver \
             seeing it twice knows it), `type`, the subject, `before` and `after`. {what} A state passed \
             through between two polls is not invented. The calls made are said on stderr each minute. With \
             --cursor, each event is recorded once handled: a restart repeats nothing handled (a crash may \
             repeat the last)."
        ))
        .arg(
            value(
                "interval",
                "DURATION",
                "The pause between polls [default: 2s; the documents give no rate]",
            )
            .value_parser(humantime::parse_duration),
        )
        .arg(value(
            "cursor",
            "FILE",
            "Where what was seen is kept (owner only): a restart goes on from it",
        ))
        .arg(value(
            "exec",
            "COMMAND",
            "Run COMMAND for each event, the event's JSON line on its stdin (split as a shell splits words, \
             never run by a shell, nothing put into it); the event is recorded once it ended, a failure said \
             on stderr",
        ))
        .arg(
            value(
                "parallel",
                "N",
                "How many events are handled at once (--exec, --forward-to), never two of one subject [default: 1]",
            )
            .value_parser(clap::value_parser!(u64).range(1..=64)),
        )
        .arg(value(
            "forward-to",
            "URL",
            "POST each event to URL as a Standard Webhooks message (`webhook-id`, `webhook-timestamp`, \
             `webhook-signature`); https, or http to a loopback address; retried with backoff, then written \
             to the --dead-letter file",
        ))
        .arg(
            value(
                "secret-file",
                "FILE",
                "The `whsec_…` secret --forward-to signs with [default: the profile's `webhook_secret` in \
             credentials.toml]; never taken on the command line",
            )
            .requires("forward-to"),
        )
        .arg(
            value(
                "tries",
                "N",
                "How many times --forward-to sends an event before giving up on it [default: 5]",
            )
            .value_parser(clap::value_parser!(u32).range(1..=20))
            .requires("forward-to"),
        )
        .arg(
            value(
                "dead-letter",
                "FILE",
                "Where an event --forward-to could not deliver is appended, a JSON line each [default: \
             vidplat-dead-letters.ndjson]",
            )
            .requires("forward-to"),
        )
        .arg(
            Arg::new("by-creation")
                .long("by-creation")
                .action(ArgAction::SetTrue)
                .help("Never ask the list sorted by updated_at: read every page at every poll"),
        )
        .arg(value("count", "N", "Stop after N events").value_parser(clap::value_parser!(u64).range(1..)))
        .arg(value("for", "DURATION", "Stop after this long").value_parser(humantime::parse_duration))
        .after_help(format!("Examples:\n  {examples}"))
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let (source, matches) = match invocation.matches.subcommand() {
        Some(("tasks", matches)) => (Source::Tasks, matches),
        Some(("imports", matches)) => (Source::Imports, matches),
        Some(("contents", matches)) => (Source::Contents, matches),
        _ => return Err(Failure::invalid("watch", "needs a subcommand")),
    };
    let handlers = Handlers::from(matches, invocation.global)?;
    let client = invocation.client()?;
    let cursor_path = matches.get_one::<String>("cursor").map(PathBuf::from);
    let mut cursor = match &cursor_path {
        Some(path) => Cursor::load(path).map_err(|e| Failure::Setup(format!("--cursor {}: {e}", path.display())))?,
        None => Cursor::default(),
    };
    let calls = Arc::new(AtomicU64::new(0));
    let by_creation = matches.get_flag("by-creation");
    let watch = client
        .watch()
        .count_calls(Arc::clone(&calls))
        .sort_by_update_time(!by_creation);
    let mut poller = watch.poller(source, cursor.clone());
    let interval = matches
        .get_one::<Duration>("interval")
        .copied()
        .unwrap_or(Duration::from_secs(2));
    let limit = matches.get_one::<u64>("count").copied().unwrap_or(u64::MAX);
    let parallel = matches.get_one::<u64>("parallel").copied().unwrap_or(1);
    // A `--for` past what the clock can say is no bound.
    let until = matches
        .get_one::<Duration>("for")
        .and_then(|d| Instant::now().checked_add(*d));
    let io = invocation.io;
    let (mut printed, mut minute, mut calls_before, mut said_fallback) = (0u64, Instant::now(), 0u64, by_creation);
    loop {
        let polled = match until {
            Some(until) => match tokio::time::timeout_at(until.into(), poller.poll()).await {
                Ok(polled) => polled,
                Err(_) => break,
            },
            None => poller.poll().await,
        };
        let mut events = polled?;
        if !poller.by_update_time() && !said_fallback {
            said_fallback = true;
            writeln!(
                io.stderr,
                "watch: the list refused the sort by updated_at: every page is read at every poll"
            )?;
        }
        events.truncate(usize::try_from(limit - printed).unwrap_or(usize::MAX));
        let mut lines = Vec::with_capacity(events.len());
        for event in events {
            let mut line = serde_json::to_vec(&event).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
            line.push(b'\n');
            io.stdout.write_all(&line)?;
            lines.push((event, line));
        }
        io.stdout.flush()?;
        printed += lines.len() as u64;
        let lines_count = lines.len();
        // One poll's events are of distinct subjects: any of them may run beside another.
        let mut handled = futures::stream::iter(lines)
            .map(|(event, line)| {
                let handlers = &handlers;
                async move {
                    let failures = handlers.handle(&event, &line).await;
                    (event, failures)
                }
            })
            .buffer_unordered(usize::try_from(parallel).unwrap_or(1));
        let mut unhandled = lines_count;
        loop {
            // `--for` ends the handling too: what is left is not recorded, so
            // a watch from the cursor gets it again.
            let next = match until {
                Some(until) => tokio::time::timeout_at(until.into(), handled.next()).await.ok(),
                None => Some(handled.next().await),
            };
            let Some(next) = next else {
                writeln!(
                    io.stderr,
                    "watch: --for ended with {unhandled} event(s) of the last poll not handled{}",
                    if cursor_path.is_some() {
                        " (nor recorded in the cursor)"
                    } else {
                        ""
                    }
                )?;
                break;
            };
            let Some((event, failures)) = next else { break };
            unhandled -= 1;
            for why in failures {
                writeln!(
                    io.stderr,
                    "watch: {}: {}",
                    vidplat_core::escape_controls(&event.id),
                    why
                )?;
            }
            if let Some(path) = &cursor_path {
                cursor.record(&event);
                cursor
                    .save(path)
                    .map_err(|e| Failure::Setup(format!("--cursor {}: {e}", path.display())))?;
            }
        }
        if minute.elapsed() >= Duration::from_secs(60) {
            let total = calls.load(Ordering::Relaxed);
            writeln!(io.stderr, "watch: {} call(s) in the last minute", total - calls_before)?;
            (minute, calls_before) = (Instant::now(), total);
        }
        let ends_before_next_poll = |until| Instant::now().checked_add(interval).is_none_or(|next| next >= until);
        if printed >= limit || until.is_some_and(ends_before_next_poll) {
            break;
        }
        tokio::time::sleep(interval).await;
    }
    writeln!(
        io.stderr,
        "watch: {printed} event(s), {} call(s)",
        calls.load(Ordering::Relaxed)
    )?;
    Ok(())
}

/// What is done with each event beside printing it.
struct Handlers {
    exec: Option<Vec<String>>,
    forward: Option<Forward>,
}

impl Handlers {
    fn from(matches: &ArgMatches, global: &ArgMatches) -> Result<Self, Failure> {
        let exec = match matches.get_one::<String>("exec") {
            Some(command) => match shlex::split(command) {
                Some(words) if !words.is_empty() => Some(words),
                _ => {
                    return Err(Failure::invalid(
                        "--exec",
                        "is no command (empty, or a quote left open)",
                    ))
                }
            },
            None => None,
        };
        let forward = matches
            .get_one::<String>("forward-to")
            .map(|url| Forward::new(url, matches, global))
            .transpose()?;
        Ok(Self { exec, forward })
    }

    /// Runs the command and sends the webhook for `event`; why each failed.
    async fn handle(&self, event: &Event, line: &[u8]) -> Vec<String> {
        let mut failures = Vec::new();
        if let Some(words) = &self.exec {
            if let Err(why) = run_for(words, line).await {
                failures.push(format!("--exec: {}", vidplat_core::escape_controls(&why)));
            }
        }
        if let Some(forward) = &self.forward {
            if let Err(why) = forward.send(event, line).await {
                failures.push(why);
            }
        }
        failures
    }
}

/// Runs `words` (a program and its arguments) with `event` on its stdin; why it failed.
async fn run_for(words: &[String], event: &[u8]) -> Result<(), String> {
    use tokio::io::AsyncWriteExt as _;
    let (program, args) = words.split_first().ok_or("no command")?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("`{program}` did not start: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin is not a failure.
        let _ = stdin.write_all(event).await;
    }
    let status = child.wait().await.map_err(|e| e.to_string())?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("`{program}` ended with {status}")),
    }
}

/// `--forward-to`: each event POSTed, signed as Standard Webhooks says.
struct Forward {
    url: reqwest::Url,
    secret: WebhookSecret,
    http: reqwest::Client,
    tries: u32,
    dead_letter: PathBuf,
}

/// The first pause between two tries of a webhook; each next one doubles,
/// up to [`LAST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(500);
/// The longest pause between two tries of a webhook.
const LAST_RETRY: Duration = Duration::from_secs(30);

/// The pauses between a webhook's tries, in order: from [`FIRST_RETRY`],
/// each double the one before, none longer than [`LAST_RETRY`].
fn retry_pauses() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(FIRST_RETRY), |pause| Some(pause.saturating_mul(2).min(LAST_RETRY)))
}
/// The longest one try of a webhook may take.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

impl Forward {
    fn new(url: &str, matches: &ArgMatches, global: &ArgMatches) -> Result<Self, Failure> {
        let refuse = |why: &str| Failure::invalid("--forward-to", why);
        let url = reqwest::Url::parse(url).map_err(|e| refuse(&format!("is not a URL: {e}")))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refuse(
                "carries a user or password: the events are signed, not logged in",
            ));
        }
        // As the SDK's base URLs: https, or http to a loopback address.
        if !vidplat_core::__private::is_secure_enough(&url, false) {
            return Err(refuse("must be https (or http to a loopback address)"));
        }
        let secret = match matches.get_one::<String>("secret-file") {
            Some(path) => crate::config::read_key_file(path, "--secret-file")?,
            None => {
                use secrecy::ExposeSecret as _;
                let setup = crate::config::Setup::resolve(global)?;
                let Some(secret) = setup.profile().and_then(|profile| profile.webhook_secret.as_ref()) else {
                    return Err(Failure::invalid(
                        "--forward-to",
                        "needs a secret: --secret-file FILE, or `webhook_secret` in the profile's credentials.toml",
                    ));
                };
                secret.expose_secret().to_owned()
            }
        };
        let secret =
            WebhookSecret::parse(secret.trim()).map_err(|e| Failure::invalid("--secret-file", e.to_string()))?;
        let tls = vidplat_core::__private::tls_config().map_err(|e| Failure::Setup(e.to_string()))?;
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(FORWARD_TIMEOUT)
            .build()
            .map_err(|e| Failure::Setup(format!("--forward-to: {e}")))?;
        Ok(Self {
            url,
            secret,
            http,
            tries: matches.get_one::<u32>("tries").copied().unwrap_or(5),
            dead_letter: matches
                .get_one::<String>("dead-letter")
                .map_or_else(|| PathBuf::from("vidplat-dead-letters.ndjson"), PathBuf::from),
        })
    }

    /// Sends `event` until a 2xx answers or the tries are spent; then the
    /// dead-letter file has it. Every try carries the same id.
    async fn send(&self, event: &Event, line: &[u8]) -> Result<(), String> {
        let body = line.strip_suffix(b"\n").unwrap_or(line).to_vec();
        let mut pauses = retry_pauses();
        let mut why = String::new();
        for attempt in 1..=self.tries {
            let timestamp = vidplat::webhooks::now();
            let signature = vidplat::webhooks::sign(&self.secret, &event.id, timestamp, &body);
            let sent = self
                .http
                .post(self.url.clone())
                .header("content-type", "application/json")
                .header("webhook-id", &event.id)
                .header("webhook-timestamp", timestamp.to_string())
                .header("webhook-signature", signature)
                .body(body.clone())
                .send()
                .await;
            why = match sent {
                Ok(answer) if answer.status().is_success() => return Ok(()),
                Ok(answer) => format!("answered {}", answer.status()),
                Err(error) => vidplat_core::escape_controls(&error.without_url().to_string()).into_owned(),
            };
            if attempt < self.tries {
                tokio::time::sleep(pauses.next().unwrap_or(LAST_RETRY)).await;
            }
        }
        let kept = append_dead_letter(&self.dead_letter, line);
        Err(match kept {
            Ok(()) => format!(
                "--forward-to: not delivered after {} tries ({why}); written to {}",
                self.tries,
                self.dead_letter.display()
            ),
            Err(e) => format!(
                "--forward-to: not delivered after {} tries ({why}), and not written to {}: {e}",
                self.tries,
                self.dead_letter.display()
            ),
        })
    }
}

/// Appends `line` to the dead-letter file, made owner only; a link there is not followed.
fn append_dead_letter(path: &Path, line: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use vidplat_core::__private::{open_file, Links};
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    // A link or a FIFO planted at its name is refused, not followed.
    let mut file = open_file(path, &mut options, Links::Refuse)?;
    // The events are the account's: a file others may read (planted in a
    // shared directory, say) does not get them.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = file.metadata()?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(std::io::Error::other(format!(
                "others can read or write it (mode {mode:04o}); `chmod 600` it if it is yours"
            )));
        }
    }
    file.write_all(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhook_s_pauses_double_from_half_a_second_to_at_most_30_s() {
        let pauses: Vec<u64> = retry_pauses().take(10).map(|p| p.as_millis() as u64).collect();
        assert_eq!(
            pauses,
            [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]
        );
    }
}
