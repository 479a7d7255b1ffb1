//! A rule: which requests of one operation it answers, and its answers in order.

use crate::operation::{Incoming, MockOperation, Sent};
use crate::success::first_break;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How a mock answers one request.
#[derive(Clone, Debug)]
pub(crate) enum Answer {
    /// An HTTP answer.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// The connection never opened: nothing was sent (the runtime may always send again).
    Refused,
    /// The head arrived (`status`), then the connection broke: the request
    /// arrived, its effect is unknown (sent again only if idempotent).
    BrokenAfterHeaders { status: u16 },
}

/// One step of a rule's sequence.
#[derive(Debug)]
pub(crate) struct Step {
    pub(crate) answer: Option<Answer>,
    /// `None`: every request from here on.
    pub(crate) times: Option<u32>,
    pub(crate) used: u32,
    pub(crate) delay: Duration,
}

type Matcher = Box<dyn Fn(&Incoming) -> bool + Send + Sync>;

/// The state of a rule, shared by the mock and the rule's handle.
pub(crate) struct RuleState {
    pub(crate) operation: &'static vidplat_core::OperationMeta,
    pub(crate) service: vidplat_core::Service,
    pub(crate) number: usize,
    pub(crate) matcher: Option<Matcher>,
    pub(crate) steps: Vec<Step>,
    pub(crate) calls: u32,
}

impl fmt::Debug for RuleState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("operation", &self.operation.id)
            .field("steps", &self.steps)
            .field("calls", &self.calls)
            .finish_non_exhaustive()
    }
}

impl RuleState {
    /// Whether this rule answers `incoming`; if so, its answer (the step used up by one).
    pub(crate) fn take(&mut self, incoming: &Incoming) -> Option<(Answer, Duration)> {
        if (self.service, self.operation.id) != (incoming.service, incoming.operation.id) {
            return None;
        }
        if self.matcher.as_ref().is_some_and(|matches| !matches(incoming)) {
            return None;
        }
        // The first step not used up answers, if any is left.
        let step = self
            .steps
            .iter_mut()
            .find(|s| s.times.is_none_or(|times| s.used < times))?;
        let answer = step.answer.clone()?;
        step.used = step.used.saturating_add(1);
        let delay = step.delay;
        self.calls = self.calls.saturating_add(1);
        Some((answer, delay))
    }

    /// What `verify` says of this rule, if its expectations are unmet.
    pub(crate) fn unmet(&self) -> Option<String> {
        let name = format!("{} (rule {})", self.operation.id, self.number);
        if self.steps.iter().any(|s| s.answer.is_none()) {
            return Some(format!("{name}: a step has no answer"));
        }
        let missing: Vec<String> = self
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s.times {
                Some(times) if s.used < times => Some(format!("step {} answered {} of {times}", i + 1, s.used)),
                // An open-ended step is met once it answered at least once.
                None if s.used == 0 => Some(format!("step {} (every request) answered none", i + 1)),
                _ => None,
            })
            .collect();
        (!missing.is_empty()).then(|| format!("{name}: {}", missing.join(", ")))
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A test that panicked holding the lock leaves the state as it was: still worth reporting.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A rule of a [`Mock`](crate::Mock) for operation `Op`: which of its requests
/// it answers ([`when`](Rule::when)) and how, in order ([`then`](Rule::then)).
///
/// Its answers are checked against the document when they are set: a success
/// status the operation does not document, a success value that breaks a
/// documented bound of the body, an error status it does not document or an
/// error code its service does not list panics there, naming the operation
/// (and the member, for a value). [`respond_raw`](Rule::respond_raw) is the
/// one way around it.
///
/// The rule is live as soon as [`Mock::on`](crate::Mock::on) returns it; keep
/// the handle to read [`calls`](Rule::calls).
pub struct Rule<Op: MockOperation> {
    pub(crate) state: Arc<Mutex<RuleState>>,
    pub(crate) op: PhantomData<Op>,
}

impl<Op: MockOperation> fmt::Debug for Rule<Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        lock(&self.state).fmt(f)
    }
}

impl<Op: MockOperation> Rule<Op> {
    /// Answers only the requests for which `matches` is true, given the
    /// request's typed members ([`Sent`]). A request whose members do not
    /// read as the operation's types never matches.
    pub fn when(self, matches: impl Fn(&Sent<Op>) -> bool + Send + Sync + 'static) -> Self {
        lock(&self.state).matcher = Some(Box::new(move |incoming| {
            Op::read(incoming).is_ok_and(|sent| matches(&sent))
        }));
        self
    }

    /// Answers with `value` under the operation's documented success status
    /// (the first the YAML gives; 200 for `2XX`).
    #[track_caller]
    pub fn respond(self, value: Op::Success) -> Self {
        let status = Op::META.success_statuses.first().map_or(200, |r| *r.start());
        self.respond_with_status(status, value)
    }

    /// Answers with `value` under `status`.
    ///
    /// # Panics
    /// If the operation does not document `status` as a success, or `value`
    /// breaks a documented rule of the success body (a length, a range, an
    /// item count, a pattern: [`MockOperation::SUCCESS_CHECKS`]).
    #[track_caller]
    pub fn respond_with_status(self, status: u16, value: Op::Success) -> Self {
        if !Op::META.documents_success(status) {
            panic!(
                "{}: the document gives no success status {status} (it gives {}); use respond_raw to answer what the service does not",
                Op::META.id,
                shown(Op::META.success_statuses)
            );
        }
        let body = if Op::META.reading == vidplat_core::Reading::Empty {
            Vec::new()
        } else {
            documented_body::<Op>(&value)
        };
        self.answer(Answer::Http {
            status,
            headers: json_header(),
            body,
        })
    }

    /// Answers with the service's error: `status` and `code`, no message.
    ///
    /// # Panics
    /// If the operation does not document `status` as an error, the service
    /// does not list `code`, or the document gives `code` another status.
    #[track_caller]
    pub fn fail(self, status: u16, code: Op::ErrorCode) -> Self {
        self.fail_with_message(status, code, None)
    }

    /// [`fail`](Rule::fail) with a `message`.
    #[track_caller]
    pub fn fail_with_message(self, status: u16, code: Op::ErrorCode, message: Option<&str>) -> Self {
        let code = documented_error::<Op>(status, &code);
        let body = serde_json::json!({ "code": code, "message": message });
        self.answer(Answer::Http {
            status,
            headers: json_header(),
            body: body.to_string().into_bytes(),
        })
    }

    /// Answers `status` with `body`, unchecked: the escape hatch for what the
    /// document does not describe (an undocumented status or code, a body of
    /// the wrong shape, a proxy's HTML page).
    pub fn respond_raw(self, status: u16, body: impl Into<Vec<u8>>) -> Self {
        self.answer(Answer::Http {
            status,
            headers: Vec::new(),
            body: body.into(),
        })
    }

    /// Adds a header to the current answer (`Retry-After` on a 429, say).
    ///
    /// # Panics
    /// If the current step's answer is not an HTTP answer.
    #[track_caller]
    pub fn header(self, name: &str, value: impl Into<String>) -> Self {
        match lock(&self.state).steps.last_mut().and_then(|s| s.answer.as_mut()) {
            Some(Answer::Http { headers, .. }) => headers.push((name.to_owned(), value.into())),
            _ => panic!("{}: header() follows an HTTP answer", Op::META.id),
        }
        self
    }

    /// The connection is refused: nothing reaches the service, and the
    /// runtime may send the request again whatever its method.
    pub fn refuse_connection(self) -> Self {
        self.answer(Answer::Refused)
    }

    /// The answer's head arrives (under the first documented success
    /// status), then the connection breaks: the request arrived and may have
    /// acted, so the runtime sends it again only if its method is idempotent.
    pub fn break_after_headers(self) -> Self {
        let status = Op::META.success_statuses.first().map_or(200, |r| *r.start());
        self.answer(Answer::BrokenAfterHeaders { status })
    }

    /// The current answer comes after `delay` (in tokio's time: instant under
    /// paused time). A delay past the client's attempt timeout is a timeout.
    pub fn delay(self, delay: Duration) -> Self {
        self.set(|step| step.delay = delay)
    }

    /// The current answer is given `n` times (1 unless set) before the next.
    pub fn times(self, n: u32) -> Self {
        self.set(|step| step.times = Some(n))
    }

    /// The current answer is given to every request from here on.
    pub fn always(self) -> Self {
        self.set(|step| step.times = None)
    }

    /// Starts the next answer of the sequence: what follows answers once the
    /// answers before it are used up.
    #[track_caller]
    pub fn then(self) -> Self {
        let mut state = lock(&self.state);
        match state.steps.last() {
            None | Some(Step { answer: None, .. }) => panic!("{}: then() follows an answer", Op::META.id),
            Some(Step { times: None, .. }) => panic!("{}: nothing follows an answer given always", Op::META.id),
            Some(_) => state.steps.push(new_step()),
        }
        drop(state);
        self
    }

    /// How many requests this rule answered.
    pub fn calls(&self) -> u32 {
        lock(&self.state).calls
    }

    /// Changes the current step (a rule always has one: [`Mock::on`](crate::Mock::on) adds the first).
    fn set(self, change: impl FnOnce(&mut Step)) -> Self {
        if let Some(step) = lock(&self.state).steps.last_mut() {
            change(step);
        }
        self
    }

    #[track_caller]
    fn answer(self, answer: Answer) -> Self {
        if let Some(Step { answer: Some(_), .. }) = lock(&self.state).steps.last() {
            panic!(
                "{}: this step has an answer already; start the next with then()",
                Op::META.id
            );
        }
        self.set(|step| step.answer = Some(answer))
    }
}

/// `value` as its JSON body, once it is known to keep the documented rules of
/// `Op`'s success body.
#[track_caller]
fn documented_body<Op: MockOperation>(value: &Op::Success) -> Vec<u8> {
    let id = Op::META.id;
    if let Some((place, rule)) = first_break(Op::SUCCESS_CHECKS, value) {
        panic!("{id}: the answer breaks the document at {place}: {rule}; use respond_raw to answer what the service does not");
    }
    match serde_json::to_vec(value) {
        Ok(body) => body,
        Err(e) => panic!("{id}: the success value does not serialise: {e}"),
    }
}

/// `code` as text, once the document is known to allow `status` and `code`
/// for `Op` (the checks of [`Rule::fail`], also made of a simulator's faults).
#[track_caller]
pub(crate) fn documented_error<Op: MockOperation>(status: u16, code: &Op::ErrorCode) -> String {
    let id = Op::META.id;
    if !Op::ERROR_STATUSES.iter().any(|range| range.contains(&status)) {
        panic!(
            "{id}: the document gives no error status {status} (it gives {}); use respond_raw to answer what the service does not",
            shown(Op::ERROR_STATUSES)
        );
    }
    let code = code.to_string();
    if !Op::TABLE.error_codes.contains(&code.as_str()) {
        panic!("{id}: the service's document lists no error code {code}; use respond_raw to answer what the service does not");
    }
    if let Some((_, documented)) = Op::CODE_STATUSES.iter().find(|(c, _)| *c == code) {
        if *documented != status {
            panic!("{id}: the document gives {code} the status {documented}, not {status}");
        }
    }
    code
}

pub(crate) fn new_step() -> Step {
    Step {
        answer: None,
        times: Some(1),
        used: 0,
        delay: Duration::ZERO,
    }
}

fn json_header() -> Vec<(String, String)> {
    vec![("content-type".to_owned(), "application/json".to_owned())]
}

fn shown(ranges: &[std::ops::RangeInclusive<u16>]) -> String {
    ranges
        .iter()
        .map(|r| match (*r.start(), *r.end()) {
            (a, b) if a == b => a.to_string(),
            (a, b) if a % 100 == 0 && b == a + 99 => format!("{}XX", a / 100),
            (a, b) => format!("{a}..={b}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
