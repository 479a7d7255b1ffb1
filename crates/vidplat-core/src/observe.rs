//! Measurements of calls and of the analytics quota, through the `metrics`
//! facade (the application installs the recorder and picks the exporter).
//!
//! Names and units follow OpenTelemetry's conventions (seconds, bytes,
//! dotted lower-case names). Labels hold only bounded values known before
//! anything is sent or fixed by the SDK: the service, the operation id, the
//! method, an `error.type` (a status or a fixed name), a quota's name. Never
//! an id, a URL, a header or a body.
//!
//! Without the `metrics` feature every function here is empty and inlined
//! away, and no clock is read for it: callers pass the instants they hold.

use crate::table::{Method, Service};
use std::borrow::Cow;
use tokio::time::Instant;

/// A failure's class in OpenTelemetry's `error.type` terms (a status as
/// text, or a fixed name): what spans and labels say of a failure.
pub(crate) trait ErrorType {
    fn error_type(&self) -> Cow<'static, str>;
}

/// What every call measurement is labelled with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    pub(crate) service: Service,
    pub(crate) operation: &'static str,
    pub(crate) method: Method,
}

/// How long something took, read off the clock only with the `metrics`
/// feature (without it, nothing is held and no clock is read).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Took(#[cfg(feature = "metrics")] std::time::Duration);

impl Took {
    /// The time since `started`.
    #[inline(always)]
    pub(crate) fn since(started: Instant) -> Self {
        #[cfg(feature = "metrics")]
        return Took(started.elapsed());
        #[cfg(not(feature = "metrics"))]
        {
            let _ = started;
            Took()
        }
    }
}

/// Why an analytics call waits for its turn (the `vidplat.quota.reason` label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitReason {
    /// The per-minute window is full.
    PerMinute,
    /// Another call holds the one-at-a-time slot.
    Concurrency,
    /// The server refused the previous attempt with 429.
    Server429,
}

impl WaitReason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WaitReason::PerMinute => "per_minute",
            WaitReason::Concurrency => "concurrency",
            WaitReason::Server429 => "server_429",
        }
    }
}

#[cfg(feature = "metrics")]
mod on {
    use super::*;
    use metrics::{Label, Unit};

    /// Every call's duration, from its first quota turn to the answer read (or the failure), in seconds.
    pub(crate) const CALL_DURATION: &str = "vidplat.client.call.duration";
    /// Every attempt's duration, from sending to its body read (or its failure), in seconds.
    pub(crate) const ATTEMPT_DURATION: &str = "vidplat.client.attempt.duration";
    /// Attempts a call made.
    pub(crate) const CALL_ATTEMPTS: &str = "vidplat.client.call.attempts";
    /// Calls that ended in a failure, by `error.type`.
    pub(crate) const CALL_ERRORS: &str = "vidplat.client.call.errors";
    /// The size of each answer's body, in bytes.
    pub(crate) const BODY_SIZE: &str = "vidplat.client.response.body.size";
    /// Time spent waiting for an analytics turn, by reason, in seconds.
    pub(crate) const QUOTA_WAIT: &str = "vidplat.analytics.quota.wait.duration";
    /// Analytics calls the client's limiter refused (not sent), by limit.
    pub(crate) const QUOTA_REFUSED: &str = "vidplat.analytics.quota.refused";
    /// Analytics attempts the server refused with 429.
    pub(crate) const QUOTA_SERVER_REFUSED: &str = "vidplat.analytics.quota.server_refused";
    /// Analytics calls left this month, as the client last knew the count.
    pub(crate) const QUOTA_REMAINING: &str = "vidplat.analytics.quota.remaining";
    /// How long an analytics call held the one-at-a-time slot, in seconds.
    pub(crate) const QUOTA_SLOT_HELD: &str = "vidplat.analytics.quota.slot.hold.duration";

    fn labels(site: Site, failure: Option<&dyn ErrorType>) -> Vec<Label> {
        let mut labels = Vec::with_capacity(4);
        labels.push(Label::new("vidplat.service", site.service.as_str()));
        labels.push(Label::new("vidplat.operation", site.operation));
        labels.push(Label::new("http.request.method", site.method.as_str()));
        if let Some(failure) = failure {
            labels.push(Label::new("error.type", failure.error_type()));
        }
        labels
    }

    fn seconds(since: Instant) -> f64 {
        since.elapsed().as_secs_f64()
    }

    pub(crate) fn describe() {
        metrics::describe_histogram!(
            CALL_DURATION,
            Unit::Seconds,
            "Duration of a vidplat call: quota waits, attempts, backoff and the answer's body read."
        );
        metrics::describe_histogram!(
            ATTEMPT_DURATION,
            Unit::Seconds,
            "Duration of one attempt of a vidplat call: sending it and reading its answer."
        );
        metrics::describe_histogram!(CALL_ATTEMPTS, Unit::Count, "Attempts a vidplat call made.");
        metrics::describe_counter!(
            CALL_ERRORS,
            Unit::Count,
            "vidplat calls that ended in a failure, by error.type."
        );
        metrics::describe_histogram!(BODY_SIZE, Unit::Bytes, "Size of an answer's body.");
        metrics::describe_histogram!(
            QUOTA_WAIT,
            Unit::Seconds,
            "Time an analytics call waited for its turn, by reason."
        );
        metrics::describe_counter!(
            QUOTA_REFUSED,
            Unit::Count,
            "Analytics calls the client-side limiter refused (not sent), by limit."
        );
        metrics::describe_counter!(
            QUOTA_SERVER_REFUSED,
            Unit::Count,
            "Analytics attempts the server refused with 429."
        );
        metrics::describe_gauge!(
            QUOTA_REMAINING,
            Unit::Count,
            "Analytics calls left this month, as the client last knew the count (from Redis when shared)."
        );
        metrics::describe_histogram!(
            QUOTA_SLOT_HELD,
            Unit::Seconds,
            "Time an analytics call held the one-at-a-time slot."
        );
    }

    pub(crate) fn attempt_ended(site: Site, took: Took, failure: Option<&dyn ErrorType>) {
        metrics::histogram!(ATTEMPT_DURATION, labels(site, failure)).record(took.0.as_secs_f64());
    }

    pub(crate) fn call_ended(site: Site, started: Instant, attempts: u32, failure: Option<&dyn ErrorType>) {
        metrics::histogram!(CALL_DURATION, labels(site, failure)).record(seconds(started));
        let mut labels = labels(site, None);
        labels.truncate(2);
        metrics::histogram!(CALL_ATTEMPTS, labels).record(f64::from(attempts));
        if let Some(failure) = failure {
            call_failed(site, failure);
        }
    }

    pub(crate) fn call_failed(site: Site, failure: &dyn ErrorType) {
        metrics::counter!(CALL_ERRORS, labels(site, Some(failure))).increment(1);
    }

    pub(crate) fn body_read(site: Site, bytes: u64) {
        let mut labels = labels(site, None);
        labels.truncate(2);
        // Exact up to 2^53 bytes, far past any cap.
        #[allow(clippy::cast_precision_loss)]
        metrics::histogram!(BODY_SIZE, labels).record(bytes as f64);
    }

    pub(crate) fn quota_waited(reason: WaitReason, started: Instant) {
        metrics::histogram!(QUOTA_WAIT, "vidplat.quota.reason" => reason.as_str()).record(seconds(started));
    }

    pub(crate) fn quota_refused(limit: &'static str) {
        metrics::counter!(QUOTA_REFUSED, "vidplat.quota.limit" => limit).increment(1);
    }

    pub(crate) fn server_refused() {
        metrics::counter!(QUOTA_SERVER_REFUSED).increment(1);
    }

    pub(crate) fn quota_remaining(store: &'static str, remaining: u64) {
        #[allow(clippy::cast_precision_loss)]
        metrics::gauge!(QUOTA_REMAINING, "vidplat.quota.store" => store).set(remaining as f64);
    }

    pub(crate) fn slot_held(taken: Instant) {
        metrics::histogram!(QUOTA_SLOT_HELD).record(seconds(taken));
    }
}

#[cfg(feature = "metrics")]
pub(crate) use on::*;

#[cfg(not(feature = "metrics"))]
mod off {
    use super::*;

    #[inline(always)]
    pub(crate) fn describe() {}
    #[inline(always)]
    pub(crate) fn attempt_ended(_: Site, _: Took, _: Option<&dyn ErrorType>) {}
    #[inline(always)]
    pub(crate) fn call_ended(_: Site, _: Instant, _: u32, _: Option<&dyn ErrorType>) {}
    #[inline(always)]
    pub(crate) fn call_failed(_: Site, _: &dyn ErrorType) {}
    #[inline(always)]
    pub(crate) fn body_read(_: Site, _: u64) {}
    #[inline(always)]
    pub(crate) fn quota_waited(_: WaitReason, _: Instant) {}
    #[inline(always)]
    pub(crate) fn server_refused() {}
}

#[cfg(not(feature = "metrics"))]
pub(crate) use off::*;
