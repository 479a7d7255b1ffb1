//! Injected faults: every document lists `UNKNOWN_ERROR` ("internal server
//! error") for every operation, and a program has to cope with it and with
//! other failures (503 from a proxy, 429, a connection that breaks, a slow
//! answer), which the simulator never gives of itself. A [`Fault`] makes it
//! answer the next requests of an operation or of some paths with a chosen
//! status and code instead of running them, late, or not at all.

use crate::error::SimError;
use crate::JsonBody;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use std::sync::{Arc, Mutex, PoisonError};

/// Answers `status` with the documented error body `{"code", "message"}` to
/// the next `times` requests of `operation` (or whose path on the
/// simulator's listener starts with `operation_path_prefix`, and whose method
/// is `method`, when given), before their key is checked: the operation does
/// not run. `delay_ms` makes the answer late; `outcome` makes the request run
/// after the delay instead, or breaks the connection after the answer's head.
///
/// ```
/// use vidplat_sim::{Fault, FaultOutcome};
/// // Two 503 UNKNOWN_ERROR answers to any task operation, then normal service.
/// let fault = Fault { status: 503, times: 2, ..Fault::new("/encoder/v1/tasks") };
/// // The next `get_task` answers its head, then the connection breaks.
/// let reset = Fault { outcome: FaultOutcome::Reset, ..Fault::operation("get_task") };
/// // The next `register_task` runs 2 s late.
/// let slow = Fault { delay_ms: 2_000, outcome: FaultOutcome::Run, ..Fault::operation("register_task") };
/// ```
///
/// Over HTTP: `POST /sim/faults` with the same members as JSON (only
/// `operation` or `operation_path_prefix` is required), 204; `GET
/// /sim/faults` lists the faults still pending, `DELETE /sim/faults` removes
/// them all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The operation's id in the YAML (`get_task`, `register_content`, …):
    /// requests of its method to its path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// A plain prefix of the request path on the listener: the services are
    /// under `/encoder`, `/vms` and `/analytics` (`/encoder/v1/tasks` matches
    /// `/encoder/v1/tasks/7` too), viewing pages under `/hosts`. The
    /// simulator's own `/sim/` routes are never faulted. Empty: any path
    /// (with `operation`, which then decides).
    #[serde(default)]
    pub operation_path_prefix: String,
    /// Only requests of this method (`GET`, `POST`, …, in any case); any method when `None`.
    #[serde(default)]
    pub method: Option<String>,
    /// The answer's status, 400 to 599 (default 500).
    #[serde(default = "default_status")]
    pub status: u16,
    /// The body's `code` (default `UNKNOWN_ERROR`).
    #[serde(default = "default_code")]
    pub code: String,
    /// The body's `message` (default: says the simulator injected it).
    #[serde(default)]
    pub message: Option<String>,
    /// A `Retry-After` header, in seconds (none by default).
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// How many requests get the answer (default 1); then the fault is gone.
    #[serde(default = "default_times")]
    pub times: u32,
    /// Milliseconds to wait before the outcome (default 0).
    #[serde(default)]
    pub delay_ms: u64,
    /// What happens after the delay (default: the error answer).
    #[serde(default)]
    pub outcome: FaultOutcome,
    /// Allows an answer the service's document does not give (a 503 from a
    /// proxy, a code of another service): by default a fault's status and
    /// code must be ones the document gives the operations it applies to,
    /// as the test kit's `fail` requires, so that a test cannot teach code
    /// to handle what the service never answers (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undocumented: bool,
}

/// What a [`Fault`] does to a request it matches, after its delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultOutcome {
    /// Answers the fault's status and code; the operation does not run.
    #[default]
    Answer,
    /// Runs the request as usual: with `delay_ms`, a slow answer.
    Run,
    /// Sends the head of the fault's answer (status and headers, a
    /// `content-length` promising a body), then breaks the connection: the
    /// operation does not run, and the client cannot tell whether it did.
    Reset,
}

/// Longest delay a fault may ask for: a test that wants a slower answer wants a timeout, which an hour gives.
const MAX_DELAY_MS: u64 = 3_600_000;

fn default_status() -> u16 {
    500
}

fn default_code() -> String {
    "UNKNOWN_ERROR".to_owned()
}

fn default_times() -> u32 {
    1
}

/// The message of a fault that sets none.
const DEFAULT_MESSAGE: &str = "fault injected by the simulator (POST /sim/faults)";

impl Fault {
    /// 500 `UNKNOWN_ERROR` once, to any method under `operation_path_prefix`.
    pub fn new(operation_path_prefix: impl Into<String>) -> Self {
        Self {
            operation: None,
            operation_path_prefix: operation_path_prefix.into(),
            method: None,
            status: default_status(),
            code: default_code(),
            message: None,
            retry_after: None,
            times: default_times(),
            delay_ms: 0,
            outcome: FaultOutcome::Answer,
            undocumented: false,
        }
    }

    /// 500 `UNKNOWN_ERROR` once, to the operation whose YAML id is `id` (`get_task`).
    pub fn operation(id: impl Into<String>) -> Self {
        Self {
            operation: Some(id.into()),
            ..Self::new("")
        }
    }

    /// 400 `INVALID_REQUEST` naming what makes this fault unusable.
    fn check(&self) -> Result<(), SimError> {
        let refuse = |why: &str| Err(SimError::invalid(format!("the fault {why}")));
        if let Some(id) = &self.operation {
            if !crate::journal::TABLES
                .iter()
                .any(|(_, table, _)| table.operation(id).is_some())
            {
                return refuse(&format!("names no operation of the services: `{id}`"));
            }
        } else if !self.operation_path_prefix.starts_with('/') {
            return refuse("needs an `operation`, or an `operation_path_prefix` starting with `/`");
        }
        if !self.operation_path_prefix.is_empty() && !self.operation_path_prefix.starts_with('/') {
            return refuse("needs an `operation_path_prefix` starting with `/`");
        }
        if self.delay_ms > MAX_DELAY_MS {
            return refuse("needs a `delay_ms` of at most 3600000 (an hour)");
        }
        if self.operation_path_prefix.starts_with("/sim/") {
            return refuse("cannot apply to the simulator's own /sim/ routes");
        }
        if !(400..=599).contains(&self.status) {
            return refuse("needs a `status` from 400 to 599");
        }
        if self.code.is_empty() {
            return refuse("needs a non-empty `code`");
        }
        if self.times == 0 {
            return refuse("needs `times` of at least 1");
        }
        if self
            .method
            .as_deref()
            .is_some_and(|method| axum::http::Method::from_bytes(method.as_bytes()).is_err())
        {
            return refuse("has a `method` that is not an HTTP method");
        }
        match self.undocumented || self.outcome == FaultOutcome::Run {
            true => Ok(()),
            false => self.documented().map_err(|why| {
                SimError::invalid(format!(
                    "the fault {why} (set `undocumented: true` to answer it anyway)"
                ))
            }),
        }
    }

    /// Whether the documents give the answer to the operations the fault
    /// applies to (all of a service's under a path prefix; viewing pages, whose
    /// answers are pages, are not checked): one of them has the status among
    /// its error statuses, the service lists the code, and a code whose status
    /// the document states has that one.
    fn documented(&self) -> Result<(), String> {
        let prefix = self.operation_path_prefix.as_str();
        let services = crate::journal::TABLES
            .iter()
            .filter(|(under, table, _)| match &self.operation {
                Some(id) => table.operation(id).is_some(),
                None => prefix.starts_with(under) || under.starts_with(prefix),
            });
        let mut applies = false;
        for (_, table, name) in services {
            applies = true;
            let operations: Vec<&vidplat_core::OperationMeta> = match &self.operation {
                Some(id) => table.operation(id).into_iter().collect(),
                None => table.operations.iter().collect(),
            };
            if !operations
                .iter()
                .any(|op| op.error_statuses.iter().any(|range| range.contains(&self.status)))
            {
                return Err(format!(
                    "has a status, {}, that the {name} document gives none of the operations it applies to",
                    self.status
                ));
            }
            if !table.error_codes.contains(&self.code.as_str()) {
                return Err(format!(
                    "has a code, `{}`, that the {name} document does not list",
                    self.code
                ));
            }
            if let Some((_, status)) = table.code_statuses.iter().find(|(code, _)| *code == self.code) {
                if *status != self.status {
                    return Err(format!(
                        "answers `{}` with {}, where the {name} document gives it {status}",
                        self.code, self.status
                    ));
                }
            }
        }
        match applies || prefix.starts_with("/hosts") {
            true => Ok(()),
            false => Err(format!("applies to no service's path: `{prefix}`")),
        }
    }

    fn matches(&self, method: &axum::http::Method, path: &str) -> bool {
        let operation = || crate::journal::operation_of(method.as_str(), path).map(|(_, id)| id);
        path.starts_with(&self.operation_path_prefix)
            && self
                .operation
                .as_deref()
                .is_none_or(|wanted| operation() == Some(wanted))
            && self
                .method
                .as_deref()
                .is_none_or(|wanted| wanted.eq_ignore_ascii_case(method.as_str()))
    }

    fn answer(&self) -> Response {
        // `check` admitted only 400..=599.
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let message = self.message.clone().unwrap_or_else(|| DEFAULT_MESSAGE.to_owned());
        let mut response = SimError::new(status, &self.code, message).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }

    /// The head of the error answer, then a broken connection: the body
    /// promised by `content-length` fails after a moment, once the head has
    /// left (hyper sends it while the body is pending).
    fn reset(&self) -> Response {
        let (mut parts, _) = self.answer().into_parts();
        parts
            .headers
            .insert(header::CONTENT_LENGTH, HeaderValue::from(1024_u32));
        let broken = futures::stream::once(async {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            Err::<axum::body::Bytes, _>(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "fault injected by the simulator: the connection breaks after the head",
            ))
        });
        Response::from_parts(parts, axum::body::Body::from_stream(broken))
    }
}

/// The faults still pending, in the order they were added.
#[derive(Debug, Default)]
pub(crate) struct Faults(Mutex<Vec<Fault>>);

impl Faults {
    pub(crate) fn add(&self, fault: Fault) -> Result<(), SimError> {
        fault.check()?;
        self.lock().push(fault);
        Ok(())
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Fault>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The first pending fault matching the request, which then has one use less.
    fn take(&self, method: &axum::http::Method, path: &str) -> Option<Fault> {
        if path.starts_with("/sim/") {
            return None;
        }
        let mut faults = self.lock();
        let index = faults.iter().position(|fault| fault.matches(method, path))?;
        let answer = faults[index].clone();
        faults[index].times -= 1;
        if faults[index].times == 0 {
            faults.remove(index);
        }
        Some(answer)
    }
}

/// The middleware answering a pending fault instead of the request.
pub(crate) async fn inject(State(faults): State<Arc<Faults>>, request: Request, next: Next) -> Response {
    let Some(fault) = faults.take(request.method(), request.uri().path()) else {
        return next.run(request).await;
    };
    if fault.delay_ms > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(fault.delay_ms)).await;
    }
    match fault.outcome {
        FaultOutcome::Answer => fault.answer(),
        FaultOutcome::Run => next.run(request).await,
        FaultOutcome::Reset => fault.reset(),
    }
}

/// `POST /sim/faults` (add one), `GET /sim/faults` (those pending), `DELETE /sim/faults` (remove all).
pub(crate) fn control_router(faults: Arc<Faults>) -> Router {
    Router::new()
        .route("/sim/faults", axum::routing::post(add).get(list).delete(clear))
        .with_state(faults)
}

async fn add(State(faults): State<Arc<Faults>>, JsonBody(fault): JsonBody<Fault>) -> Result<StatusCode, SimError> {
    faults.add(fault)?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /sim/faults`: `{"data": [...]}`, each fault with the uses it has left.
#[derive(serde::Serialize)]
struct Pending {
    data: Vec<Fault>,
}

async fn list(State(faults): State<Arc<Faults>>) -> Json<Pending> {
    Json(Pending {
        data: faults.lock().clone(),
    })
}

async fn clear(State(faults): State<Arc<Faults>>) -> StatusCode {
    faults.clear();
    StatusCode::NO_CONTENT
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    #[test]
    fn a_fault_answers_its_prefix_and_method_as_many_times_as_asked() {
        let faults = Faults::default();
        let fault = Fault {
            method: Some("post".into()),
            times: 2,
            ..Fault::new("/encoder/v1/tasks")
        };
        faults.add(fault).unwrap();
        assert!(
            faults.take(&Method::GET, "/encoder/v1/tasks").is_none(),
            "another method"
        );
        assert!(faults.take(&Method::POST, "/vms/v1/contents").is_none(), "another path");
        assert!(faults.take(&Method::POST, "/encoder/v1/tasks/7").is_some());
        assert!(faults.take(&Method::POST, "/encoder/v1/tasks").is_some());
        assert!(faults.take(&Method::POST, "/encoder/v1/tasks").is_none(), "used up");
        faults.add(Fault::new("/")).unwrap();
        assert!(
            faults.take(&Method::PUT, "/sim/input-files/a.mp4").is_none(),
            "never /sim/"
        );
    }

    #[test]
    fn a_fault_on_an_operation_matches_its_method_and_template_only() {
        let faults = Faults::default();
        faults
            .add(Fault {
                times: 3,
                ..Fault::operation("get_task")
            })
            .unwrap();
        assert!(
            faults.take(&Method::GET, "/encoder/v1/tasks").is_none(),
            "another operation under the path"
        );
        assert!(
            faults.take(&Method::DELETE, "/encoder/v1/tasks/7").is_none(),
            "another method"
        );
        assert!(
            faults.take(&Method::GET, "/vms/v1/tasks/7").is_none(),
            "another service"
        );
        assert_eq!(
            faults.take(&Method::GET, "/encoder/v1/tasks/7").map(|f| f.times),
            Some(3)
        );
    }

    #[test]
    fn unusable_faults_are_refused() {
        let refused = |fault: Fault| Faults::default().add(fault).unwrap_err().message.unwrap_or_default();
        assert_eq!(
            refused(Fault::new("encoder")),
            "the fault needs an `operation`, or an `operation_path_prefix` starting with `/`"
        );
        assert_eq!(
            refused(Fault::operation("get_taks")),
            "the fault names no operation of the services: `get_taks`"
        );
        assert_eq!(
            refused(Fault {
                delay_ms: 3_600_001,
                ..Fault::operation("get_task")
            }),
            "the fault needs a `delay_ms` of at most 3600000 (an hour)"
        );
        assert_eq!(
            refused(Fault {
                status: 200,
                ..Fault::new("/")
            }),
            "the fault needs a `status` from 400 to 599"
        );
        assert_eq!(
            refused(Fault {
                times: 0,
                ..Fault::new("/")
            }),
            "the fault needs `times` of at least 1"
        );
        assert_eq!(
            refused(Fault::new("/sim/faults")),
            "the fault cannot apply to the simulator's own /sim/ routes"
        );
    }
}
