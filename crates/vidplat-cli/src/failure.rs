//! Why a command failed, and the exit code that says it (`command::EXIT_CODES`).

use serde_json::{json, Value};
use std::fmt;
use vidplat::Error;

/// The documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Api = 1,
    Invalid = 2,
    Quota = 3,
    TaskEnded = 4,
    BadSignature = 5,
    ChangesPlanned = 6,
    TimedOut = 124,
    Interrupted = 130,
}

/// A command's failure: what to print on stderr, and the exit code.
#[derive(Debug)]
pub enum Failure {
    /// An error of the SDK: its kind decides the exit code.
    Sdk(Error),
    /// Invalid input found by the command line itself: nothing was sent.
    Invalid { field: String, rule: String },
    /// Several members refused at once (each path and rule): nothing was sent.
    Refused(Vec<(String, String)>),
    /// A problem with the set-up (files, profiles, configuration).
    Setup(String),
    /// A signed URL or a webhook that does not verify (the whole sentence).
    Signature(String),
    /// Waited tasks ended failed or canceled (each id and status; the tasks were printed on stdout).
    TaskEnded { tasks: Vec<(u64, String)> },
    /// Tasks of a waited import job ended failed or canceled (the job was printed on stdout).
    ImportEnded {
        import_id: u64,
        count: u64,
        status: &'static str,
    },
    /// Ctrl-C: what was left as it is, and how to go on.
    Interrupted(String),
    /// The output could not be written (a closed pipe ends quietly).
    Output(std::io::Error),
    /// An export stopped by the quota or the month's reserve, its state saved.
    Paused(String),
    /// An export that failed, or finished with chunks it could not read.
    Export(String),
    /// A batch whose rows did not all get done (each row's line says why).
    RowsNotDone(usize),
    /// `catalog plan` found changes to make (printed on stdout): not a failure, an answer.
    ChangesPlanned(usize),
}

impl Failure {
    pub fn invalid(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Failure::Invalid {
            field: field.into(),
            rule: rule.into(),
        }
    }

    /// Every problem of one command's arguments: one is [`Failure::Invalid`].
    pub fn refused(mut problems: Vec<(String, String)>) -> Self {
        match problems.len() {
            1 => {
                let (field, rule) = problems.remove(0);
                Failure::Invalid { field, rule }
            }
            _ => Failure::Refused(problems),
        }
    }

    pub fn unknown_command(service: &str, command: &str) -> Self {
        Failure::invalid(service, format!("has no command `{command}`"))
    }

    pub fn exit(&self) -> Exit {
        match self {
            Failure::Sdk(error) => match error {
                Error::InvalidInput(_) | Error::NotSendable(_) | Error::Config(_) | Error::Profile(_) => Exit::Invalid,
                Error::RateLimited { .. } => Exit::Quota,
                Error::TaskEnded(_) => Exit::TaskEnded,
                Error::WaitTimedOut { .. } => Exit::TimedOut,
                _ => Exit::Api,
            },
            Failure::Invalid { .. } | Failure::Refused(_) | Failure::Setup(_) => Exit::Invalid,
            Failure::Signature(_) => Exit::BadSignature,
            Failure::TaskEnded { .. } | Failure::ImportEnded { .. } => Exit::TaskEnded,
            Failure::Output(_) | Failure::Export(_) | Failure::RowsNotDone(_) => Exit::Api,
            Failure::Paused(_) => Exit::Quota,
            Failure::Interrupted(_) => Exit::Interrupted,
            Failure::ChangesPlanned(_) => Exit::ChangesPlanned,
        }
    }

    /// The failure as JSON, for `--output json`.
    pub fn to_json(&self) -> Value {
        let kind = match self {
            Failure::Sdk(error) => sdk_kind(error),
            Failure::Invalid { .. } | Failure::Refused(_) => "invalid_input",
            Failure::Setup(_) => "setup",
            Failure::Signature(_) => "invalid_signature",
            Failure::TaskEnded { .. } | Failure::ImportEnded { .. } => "task_ended",
            Failure::Output(_) => "output",
            Failure::Paused(_) => "export_paused",
            Failure::Interrupted(_) => "interrupted",
            Failure::Export(_) => "export",
            Failure::RowsNotDone(_) => "rows_not_done",
            Failure::ChangesPlanned(_) => "changes_planned",
        };
        let mut error = json!({ "kind": kind, "message": self.to_string(), "exit_code": self.exit() as i32 });
        match self {
            Failure::Sdk(e) => {
                if let Some(status) = e.status() {
                    error["status"] = json!(status);
                }
                if let Some(code) = e.code() {
                    error["code"] = json!(code);
                }
                if let Error::RateLimited {
                    retry_after: Some(after),
                    ..
                } = e
                {
                    error["retry_after_secs"] = json!(after.as_secs_f64());
                }
            }
            Failure::Invalid { field, rule } => {
                error["field"] = json!(field);
                error["rule"] = json!(rule);
            }
            Failure::Refused(problems) => {
                if let Some((field, rule)) = problems.first() {
                    error["field"] = json!(field);
                    error["rule"] = json!(rule);
                }
                error["problems"] = problems
                    .iter()
                    .map(|(field, rule)| json!({ "field": field, "rule": rule }))
                    .collect();
            }
            Failure::TaskEnded { tasks } => {
                if let Some((id, status)) = tasks.first() {
                    error["task_id"] = json!(id);
                    error["status"] = json!(status);
                }
                error["tasks"] = tasks
                    .iter()
                    .map(|(id, status)| json!({ "task_id": id, "status": status }))
                    .collect();
            }
            Failure::ImportEnded {
                import_id,
                count,
                status,
            } => {
                error["import_id"] = json!(import_id);
                error["count"] = json!(count);
                error["status"] = json!(status);
            }
            _ => {}
        }
        json!({ "error": error })
    }
}

fn sdk_kind(error: &Error) -> &'static str {
    match error {
        Error::Api(_) => "api",
        Error::InvalidInput(_) => "invalid_input",
        Error::NotSendable(_) => "not_sendable",
        Error::RateLimited { .. } => "rate_limited",
        Error::QueryTooSlow(_) => "query_too_slow",
        Error::AlreadyDeleted(_) => "already_deleted",
        Error::Timeout(_) => "timeout",
        Error::Transport(_) => "transport",
        Error::BodyTooLarge { .. } => "body_too_large",
        Error::Decode(_) => "decode",
        Error::Config(_) => "config",
        Error::Profile(_) => "profile",
        Error::TaskEnded(_) => "task_ended",
        Error::Paging { .. } => "paging",
        Error::WaitTimedOut { .. } => "wait_timed_out",
        _ => "other",
    }
}

/// `value` as one line of JSON with no raw control character: serde_json
/// escapes those below U+0020 but writes DEL and the C1 controls (CSI is
/// U+009B) as they are; here they are `\u007f`, `\u009b`, … (the same text
/// to a JSON reader).
pub(crate) fn json_line(value: &Value) -> String {
    let text = value.to_string();
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut line = String::with_capacity(text.len() + 12);
    for c in text.chars() {
        if c.is_control() {
            line.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            line.push(c);
        }
    }
    line
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The SDK's words name its Rust method; a shell user has a flag.
            Failure::Sdk(Error::Paging {
                operation,
                problem: vidplat::PagingProblem::TooManyPages { bound },
                ..
            }) => write!(
                f,
                "paging {operation}: more than {bound} pages, the default bound; --max-pages N reads up to N pages"
            ),
            // The SDK's words say "set it on the builder"; a shell user has a flag, the variable and profiles.
            Failure::Sdk(Error::Config(vidplat::ConfigError::MissingBaseUrl { service, variable })) => write!(
                f,
                "client configuration: no base URL for the {service} service: give --{}, set {variable}, or \
                 add a profile (`vidplat profile add`); `vidplat sim --print-env` prints a local simulator's",
                url_flag(*service)
            ),
            Failure::Sdk(error) => error.fmt(f),
            Failure::Invalid { field, rule } => write!(f, "invalid input, not sent: `{field}` {rule}"),
            Failure::Refused(problems) => {
                f.write_str("invalid input, not sent:")?;
                for (at, (field, rule)) in problems.iter().enumerate() {
                    let sep = if at == 0 { " " } else { "; " };
                    write!(f, "{sep}`{field}` {rule}")?;
                }
                Ok(())
            }
            Failure::Setup(why) | Failure::Paused(why) | Failure::Export(why) | Failure::Interrupted(why) => {
                f.write_str(why)
            }
            Failure::RowsNotDone(rows) => write!(f, "{rows} row(s) not done"),
            Failure::ChangesPlanned(changes) => write!(f, "{changes} change(s) planned"),
            Failure::Signature(why) => f.write_str(why),
            Failure::TaskEnded { tasks } => match tasks.as_slice() {
                [(id, status)] => write!(f, "task {id} ended {status}"),
                _ => {
                    write!(f, "{} tasks ended without being ready:", tasks.len())?;
                    for (at, (id, status)) in tasks.iter().enumerate() {
                        write!(f, "{} task {id} {status}", if at == 0 { "" } else { "," })?;
                    }
                    Ok(())
                }
            },
            Failure::ImportEnded {
                import_id,
                count,
                status,
            } => write!(f, "import {import_id}: {count} task(s) ended {status}"),
            Failure::Output(e) => write!(f, "writing the output: {e}"),
        }
    }
}

/// The global flag that gives `service`'s base URL (`encoder-url`); the
/// crate's tests check that the command line has it.
pub(crate) fn url_flag(service: vidplat_core::Service) -> String {
    format!("{service}-url")
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        match error {
            // One shape for every refusal before sending, the SDK's or the command line's own.
            Error::InvalidInput(refusals) => {
                Failure::refused(refusals.into_iter().map(vidplat::Refusal::into_parts).collect())
            }
            error => Failure::Sdk(error),
        }
    }
}

impl From<vidplat_core::CallFailure> for Failure {
    fn from(failure: vidplat_core::CallFailure) -> Self {
        Error::from(failure).into()
    }
}

impl From<vidplat::profile::ProfileError> for Failure {
    fn from(error: vidplat::profile::ProfileError) -> Self {
        Failure::Sdk(error.into())
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        Failure::Output(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the default page bound, the command line names its own flag, not the SDK's method.
    #[test]
    fn too_many_pages_names_the_flag_that_raises_the_bound() {
        let failure = Failure::Sdk(Error::Paging {
            operation: "cloud_viewing_history",
            pages: 101,
            problem: vidplat::PagingProblem::TooManyPages { bound: 100 },
        });
        assert_eq!(
            failure.to_string(),
            "paging cloud_viewing_history: more than 100 pages, the default bound; --max-pages N reads up to N pages"
        );
    }

    /// Without a service's base URL, the command line names its flag, its variable and profiles, not the SDK's builder.
    #[test]
    fn a_missing_base_url_names_the_flag_the_variable_and_profiles() {
        let failure = Failure::Sdk(Error::Config(vidplat::ConfigError::MissingBaseUrl {
            service: vidplat_core::Service::Vms,
            variable: "VIDPLAT_VMS_URL",
        }));
        assert_eq!(
            failure.to_string(),
            "client configuration: no base URL for the vms service: give --vms-url, set VIDPLAT_VMS_URL, \
             or add a profile (`vidplat profile add`); `vidplat sim --print-env` prints a local simulator's"
        );
        assert_eq!(failure.exit(), Exit::Invalid);
    }
}
