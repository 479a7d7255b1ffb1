//! One call on the wire, from a prepared request to a success answer:
//! attempts (quota turn, send, read the body under the cap), each answer
//! judged once, retries with backoff, all within the call's deadline. The
//! outcome is typed: an [`Exchange`] (the success answer, its body read, or
//! for a large list its start with the rest still on the wire), or a
//! [`CallFailure`].
//!
//! What an operator sees of it: a `vidplat.call` tracing span in
//! OpenTelemetry's HTTP-client terms, a `vidplat.quota` span for each
//! analytics turn and a `vidplat.attempt` span for each attempt inside it,
//! and (with the `metrics` feature) the measurements of `crate::observe`.
//! None of them holds a header, a filled path, a query or a body.

use crate::body::{read_capped, ReadAnswer, ReadError};
use crate::failure::{CallFailure, FailureKind};
use crate::judge::{Judge, Judged};
use crate::observe::{ErrorType, Site, Took};
use crate::quota::limits::QuotaMode;
use crate::redact::Redactor;
use crate::remainder::{Remainder, STREAM_ABOVE};
use crate::retry::{may_send_again, Delivery};
use crate::runtime::Runtime;
use crate::table::{Method, OperationMeta, Reading};
use crate::timeout::{Deadline, TimeoutKind};
use bytes::Bytes;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tracing::Instrument as _;

/// What is known of a call once it has an answer: what a failure while
/// reading or decoding the body must say.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub(crate) site: Site,
    pub(crate) operation: &'static OperationMeta,
    pub(crate) attempts: u32,
    pub(crate) redactor: Arc<Redactor>,
}

impl Call {
    /// A failure of the call after its exchange (reading the rest of a body, decoding).
    pub(crate) fn failure(&self, delivery: Delivery, kind: FailureKind) -> CallFailure {
        crate::observe::call_failed(self.site, &kind);
        self.site.failure(delivery, self.attempts, kind)
    }
}

impl Site {
    /// A failure of a call of this site after `attempts` attempts.
    pub(crate) fn failure(self, delivery: Delivery, attempts: u32, kind: FailureKind) -> CallFailure {
        CallFailure {
            service: self.service,
            operation: self.operation,
            method: self.method,
            delivery,
            attempts,
            kind,
        }
    }
}

/// A success answer: its head, its body (whole, or for a large list its
/// start), and the rest of that body when it is still on the wire.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// Status and headers; for `rest`, the body still to be read.
    pub(crate) response: reqwest::Response,
    pub(crate) body: Bytes,
    pub(crate) rest: Option<Remainder>,
    pub(crate) call: Call,
}

/// Why an attempt brought back no answer to judge.
enum AttemptError {
    Send(reqwest::Error),
    Read(ReadError),
}

impl Runtime {
    /// Sends `request` (operation `operation`, sent with `method`) the way
    /// the documents allow, until a success answer or a failure. One
    /// `vidplat.call` tracing span covers the call; the call's deadline
    /// starts when its future is first polled.
    ///
    /// A function that returns one `async` block rather than an `async fn`
    /// calling another: an `async fn` keeps its arguments beside its locals,
    /// so the request would be held again at each level, and every call
    /// would move that much more memory. Here the future holds the request
    /// once, and a copy for the next attempt.
    pub(crate) fn exchange(
        self,
        operation: &'static OperationMeta,
        method: Method,
        mut request: reqwest::Request,
    ) -> impl Future<Output = Result<Exchange, CallFailure>> + Send + 'static {
        let service = self.inner.table.service;
        // OpenTelemetry's HTTP-client attributes; `url.template` is the route, never the filled path.
        // (The values are computed only when a subscriber wants the span.)
        let span = tracing::info_span!(
            "vidplat.call",
            vidplat.service = service.as_str(),
            vidplat.operation = operation.id,
            http.request.method = method.as_str(),
            url.template = self.route(operation).1,
            server.address = request
                .url()
                .host_str()
                .map(|host| host.trim_start_matches('[').trim_end_matches(']')),
            server.port = request.url().port_or_known_default(),
            http.response.status_code = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
            vidplat.attempts = tracing::field::Empty,
            vidplat.quota.wait_ms = tracing::field::Empty,
        );
        let call_span = span.clone();
        async move {
            let started = Instant::now();
            let inner = &*self.inner;
            let site = Site {
                service,
                operation: operation.id,
                method,
            };
            // One trace for the call, one parent id per attempt (`traceparent`, when asked for).
            let trace_id = inner.traceparent.then(|| fastrand::u128(1..));
            let deadline = Deadline::after(started, inner.timeouts.total);
            let judge = Judge {
                table: inner.table,
                operation,
                method,
                redactor: &inner.redactor,
            };
            let mut attempts = 0u32;
            // Whether an earlier attempt may have done the work (for a DELETE that then finds nothing).
            let mut earlier_may_have_acted = false;
            let mut last: Option<CallFailure> = None;
            let mut quota_wait = Duration::ZERO;
            // The large lists are decoded while they arrive (see `crate::stream`).
            let stream_above = (operation.reading == Reading::WhileArriving).then_some(STREAM_ABOVE);
            let outcome = loop {
                // Everything of the attempt but what the wait before the next one needs ends with
                // this block, so none of it is kept in the future while that wait lasts.
                let (this, spare, wait, _server_wait) = {
                    attempts = attempts.saturating_add(1);
                    call_span.record("vidplat.attempts", attempts);
                    // A copy for another attempt (a streaming body cannot be copied: one attempt).
                    let spare = (attempts < inner.retry.max_attempts)
                        .then(|| request.try_clone())
                        .flatten();
                    // A retry that cannot start (quota refused, deadline passed) ends with the previous outcome.
                    // The limiter's futures (Redis round trips among them) are boxed: only analytics calls
                    // pay for them, and every call's future stays small to move.
                    let mut permit = match &inner.quota {
                        None => None,
                        Some(limiter) => match Box::pin(limiter.acquire(operation, deadline.instant()))
                            .instrument(tracing::info_span!("vidplat.quota"))
                            .await
                        {
                            Ok(permit) => {
                                quota_wait = quota_wait.saturating_add(permit.waited);
                                call_span.record("vidplat.quota.wait_ms", millis(quota_wait));
                                Some(permit)
                            }
                            Err(refusal) => {
                                break Err(last.unwrap_or_else(|| {
                                    site.failure(Delivery::NotSent, 0, FailureKind::Quota(refusal))
                                }))
                            }
                        },
                    };
                    let now = Instant::now();
                    if deadline.passed(now) {
                        break Err(last.unwrap_or_else(|| {
                            site.failure(Delivery::NotSent, 0, FailureKind::Timeout(TimeoutKind::Total))
                        }));
                    }
                    let attempt_deadline = Deadline::after(now, inner.timeouts.attempt).min(deadline);
                    let attempt_span = tracing::info_span!(
                        "vidplat.attempt",
                        http.request.resend_count = attempts - 1,
                        http.response.status_code = tracing::field::Empty,
                        http.response.body.size = tracing::field::Empty,
                        "error.type" = tracing::field::Empty,
                        vidplat.traceparent = tracing::field::Empty,
                    );
                    if let Some(trace_id) = trace_id {
                        let traceparent = format!("00-{trace_id:032x}-{:016x}-01", fastrand::u64(1..));
                        attempt_span.record("vidplat.traceparent", traceparent.as_str());
                        if let Ok(value) = reqwest::header::HeaderValue::try_from(traceparent) {
                            request.headers_mut().insert(TRACEPARENT, value);
                        }
                    }
                    let outcome = attempt_deadline
                        .run(self.attempt(request, stream_above))
                        .instrument(attempt_span.clone())
                        .await;
                    // Read before the concurrency slot is given back (a Redis round trip).
                    let took = Took::since(now);
                    if let Some(Ok(answer @ ReadAnswer { more: false, .. })) = &outcome {
                        let size = u64::try_from(answer.body.len()).unwrap_or(u64::MAX);
                        attempt_span.record("http.response.body.size", size);
                        crate::observe::body_read(site, size);
                    }
                    // The concurrency slot is held exactly while the attempt is in flight, body included:
                    // a body left on the wire keeps it until the decoding has read it.
                    let left_on_wire = matches!(&outcome, Some(Ok(answer)) if answer.more);
                    if let Some(permit) = permit.take_if(|_| !left_on_wire) {
                        Box::pin(permit.release()).await;
                    }
                    let (kind, delivery, status) = match outcome {
                        None => (FailureKind::Timeout(deadline.ran_out()), Delivery::MayHaveArrived, None),
                        Some(Err(AttemptError::Send(error))) => {
                            // A connection that never opened carried nothing.
                            let delivery = if error.is_connect() || error.is_builder() {
                                Delivery::NotSent
                            } else {
                                Delivery::MayHaveArrived
                            };
                            let kind = match (error.is_timeout(), error.is_connect()) {
                                (true, true) => FailureKind::Timeout(TimeoutKind::Connect),
                                (true, false) => FailureKind::Timeout(TimeoutKind::Attempt),
                                (false, _) => FailureKind::Transport(error),
                            };
                            (kind, delivery, None)
                        }
                        // Answered, without a status to try again on: `may_send_again` never sends it again.
                        Some(Err(AttemptError::Read(ReadError::TooLarge))) => {
                            let limit = inner.max_response_body;
                            (FailureKind::BodyTooLarge { limit }, Delivery::Answered, None)
                        }
                        // The body began, then stopped arriving: like a break, its effect is unknown.
                        Some(Err(AttemptError::Read(ReadError::Idle))) => (
                            FailureKind::Timeout(TimeoutKind::IdleBody),
                            Delivery::MayHaveArrived,
                            None,
                        ),
                        // The head arrived, the body broke: the request arrived, its effect is unknown.
                        Some(Err(AttemptError::Read(ReadError::Transport(error)))) => {
                            (FailureKind::Transport(error), Delivery::MayHaveArrived, None)
                        }
                        Some(Ok(answer)) => match judge.judge(answer) {
                            Judged::Success(ReadAnswer { response, body, more }) => {
                                end_attempt(&attempt_span, site, took, Some(response.status().as_u16()), None);
                                let rest = more.then(|| Remainder {
                                    cap: inner.max_response_body,
                                    read: u64::try_from(body.len()).unwrap_or(u64::MAX),
                                    attempt: attempt_deadline,
                                    total: deadline,
                                    idle: inner.timeouts.idle_body,
                                    site,
                                    permit: permit.take(),
                                });
                                break Ok(Exchange {
                                    response,
                                    body,
                                    rest,
                                    call: Call {
                                        site,
                                        operation,
                                        attempts,
                                        redactor: inner.redactor.clone(),
                                    },
                                });
                            }
                            Judged::Error(api)
                                if method == Method::Delete && api.status == 404 && earlier_may_have_acted =>
                            {
                                (FailureKind::AlreadyDeleted(api), Delivery::Answered, Some(404))
                            }
                            Judged::Error(api) => {
                                let status = api.status;
                                (FailureKind::Answer(api), Delivery::Answered, Some(status))
                            }
                        },
                    };
                    end_attempt(&attempt_span, site, took, status, Some(&kind));
                    earlier_may_have_acted |= crate::retry::may_have_acted(delivery, status);
                    let retry_after = match &kind {
                        FailureKind::Answer(api) => api.retry_after,
                        _ => None,
                    };
                    let this = site.failure(delivery, attempts, kind);
                    // A server's 429 is a quota answer too: in fail-fast mode it is the caller's at once.
                    let fail_fast_429 = status == Some(429)
                        && inner
                            .quota
                            .as_ref()
                            .is_some_and(|limiter| limiter.config().mode == QuotaMode::FailFast);
                    let retry = spare.filter(|_| !fail_fast_429 && may_send_again(Some(method), delivery, status));
                    let backoff = inner.retry.backoff(attempts - 1);
                    let wait = retry_after.map_or(backoff, |after| after.max(backoff));
                    let retrying = retry.is_some() && !deadline.cut_short(Instant::now(), wait);
                    // A 429 on a limited service: counted, and the wait before the next attempt shown.
                    let _server_wait = match (&inner.quota, status) {
                        (Some(limiter), Some(429)) => {
                            limiter.count_refused_by_server();
                            retrying.then(|| limiter.show_server_wait(Instant::now().checked_add(wait)))
                        }
                        _ => None,
                    };
                    let Some(spare) = retry.filter(|_| retrying) else {
                        break Err(this);
                    };
                    (this, spare, wait, _server_wait)
                };
                tracing::debug!(
                    attempt = attempts,
                    wait_ms = millis(wait),
                    cause = this.kind.error_type().as_ref(),
                    "retrying {}",
                    operation.id
                );
                tokio::time::sleep(wait).await;
                last = Some(this);
                request = spare;
            };
            call_ended(&call_span, site, started, &outcome);
            outcome
        }
        .instrument(span)
    }

    /// One attempt: send, then read the whole body under the cap (or, for a
    /// large list past `stream_above` bytes, its start). The request goes to
    /// the transport before the future is made, so the future never holds it.
    fn attempt(
        &self,
        request: reqwest::Request,
        stream_above: Option<u64>,
    ) -> impl Future<Output = Result<ReadAnswer, AttemptError>> + Send + '_ {
        let inner = &*self.inner;
        let sending = inner.transport.send(&inner.http, request);
        async move {
            let response = sending.await.map_err(AttemptError::Send)?;
            read_capped(
                response,
                inner.max_response_body,
                stream_above,
                inner.timeouts.idle_body,
            )
            .await
            .map_err(AttemptError::Read)
        }
    }
}

/// Records how a call ended on its span and in the measurements.
fn call_ended(span: &tracing::Span, site: Site, started: Instant, outcome: &Result<Exchange, CallFailure>) {
    match outcome {
        Ok(exchange) => {
            span.record("http.response.status_code", exchange.response.status().as_u16());
            crate::observe::call_ended(site, started, exchange.call.attempts, None);
        }
        Err(failure) => {
            if let FailureKind::Answer(api) | FailureKind::AlreadyDeleted(api) = &failure.kind {
                span.record("http.response.status_code", api.status);
            }
            if !span.is_disabled() {
                span.record("error.type", failure.kind.error_type().as_ref());
            }
            crate::observe::call_ended(site, started, failure.attempts, Some(&failure.kind));
        }
    }
}

/// Records how an attempt ended on its span and in the measurements.
fn end_attempt(span: &tracing::Span, site: Site, took: Took, status: Option<u16>, failure: Option<&FailureKind>) {
    if let Some(status) = status {
        span.record("http.response.status_code", status);
    }
    if let (Some(failure), false) = (failure, span.is_disabled()) {
        span.record("error.type", failure.error_type().as_ref());
    }
    crate::observe::attempt_ended(site, took, failure.map(|kind| kind as &dyn ErrorType));
}

/// The W3C Trace Context header.
const TRACEPARENT: reqwest::header::HeaderName = reqwest::header::HeaderName::from_static("traceparent");

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
