//! Calendar arithmetic the three services share (proleptic Gregorian, by chrono):
//! day numbers count days since 1970-01-01.
//!
//! **Time zone.** The encoder and video management documents do not say in
//! which zone their `yyyy-mm-dd hh:mm:ss` timestamps are; the analytics
//! document says Japan time. The simulator makes it one choice for all three:
//! `SimConfig::time_zone`, Japan time (UTC+09:00) unless configured. Each
//! request is answered within [`in_calendar`] (a layer in lib.rs), so simulators
//! with different zones and clocks can share a process; outside a request the zone is
//! Japan time.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use vidplat::Timestamp;

/// The simulator's time as a request sees it: its zone, and how far its
/// clock runs ahead of the wall clock (`Simulator::advance_clock`), one
/// offset for the three services, so a test moves task pace, quota windows,
/// page expiry and the month together.
#[derive(Clone, Debug)]
pub(crate) struct Calendar {
    pub zone: FixedOffset,
    pub ahead: Ahead,
}

/// Milliseconds the simulator's clock runs ahead of the wall clock; only grows.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ahead(Arc<AtomicU64>);

impl Ahead {
    pub(crate) fn advance(&self, by: Duration) {
        let millis = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        let _ = self.0.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |ahead| {
            Some(ahead.saturating_add(millis))
        });
    }

    fn get(&self) -> Duration {
        Duration::from_millis(self.0.load(Ordering::SeqCst))
    }
}

tokio::task_local! {
    /// The zone and clock of the request being answered.
    static CALENDAR: Calendar;
}

/// Japan time, UTC+09:00 (no daylight saving): the default zone.
pub(crate) fn japan() -> FixedOffset {
    FixedOffset::east_opt(9 * 3600).expect("+09:00 is a valid offset")
}

/// The zone timestamps are written and read in now.
pub(crate) fn zone() -> FixedOffset {
    CALENDAR.try_with(|calendar| calendar.zone).unwrap_or_else(|_| japan())
}

/// How far the clock has been moved ahead (zero outside a request).
fn ahead() -> Duration {
    CALENDAR.try_with(|calendar| calendar.ahead.get()).unwrap_or_default()
}

/// Now, on the simulator's clock.
pub(crate) fn system_now() -> SystemTime {
    let now = SystemTime::now();
    now.checked_add(ahead()).unwrap_or(now)
}

/// Now, as the simulator's monotonic clock (task pace, viewing sessions, quota windows).
pub(crate) fn instant_now() -> Instant {
    let now = Instant::now();
    now.checked_add(ahead()).unwrap_or(now)
}

/// Runs `future` (a request) with `calendar` as the simulator's zone and clock.
pub(crate) async fn in_calendar<F: Future>(calendar: Calendar, future: F) -> F::Output {
    CALENDAR.scope(calendar, future).await
}

/// Runs `f` (outside a request) with `calendar` as the simulator's zone and clock.
pub(crate) fn in_calendar_sync<R>(calendar: Calendar, f: impl FnOnce() -> R) -> R {
    CALENDAR.sync_scope(calendar, f)
}

/// Runs `f` with `zone` as the simulator's time zone and the wall clock.
#[cfg(test)]
pub(crate) fn in_zone_sync<R>(zone: FixedOffset, f: impl FnOnce() -> R) -> R {
    in_calendar_sync(
        Calendar {
            zone,
            ahead: Ahead::default(),
        },
        f,
    )
}

/// The day number of a UNIX time on the zone's calendar.
pub(crate) fn local_day(unix: i64) -> i64 {
    unix.saturating_add(i64::from(zone().local_minus_utc()))
        .div_euclid(86_400)
}

/// chrono's day number (days since 0001-01-01, which is day 1) of 1970-01-01.
const UNIX_EPOCH_FROM_CE: i64 = 719_163;

/// Year, month and day of a day number (dates chrono cannot hold clamp to its range).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let from_ce = i32::try_from(days.saturating_add(UNIX_EPOCH_FROM_CE)).unwrap_or(i32::MAX);
    let date = NaiveDate::from_num_days_from_ce_opt(from_ce).unwrap_or(if from_ce > 0 {
        NaiveDate::MAX
    } else {
        NaiveDate::MIN
    });
    (i64::from(date.year()), date.month(), date.day())
}

/// The day number of a civil date; an invalid date (month 13, 30 February)
/// counts on from the month's start, as the arithmetic that produced it meant.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let first = i32::try_from(year)
        .ok()
        .and_then(|year| NaiveDate::from_ymd_opt(year, month.clamp(1, 12), 1))
        .unwrap_or(NaiveDate::MIN);
    i64::from(first.num_days_from_ce()) - UNIX_EPOCH_FROM_CE + i64::from(day) - 1
}

/// Days in a month.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    let (next_year, next_month) = if month >= 12 { (year + 1, 1) } else { (year, month + 1) };
    (days_from_civil(next_year, next_month, 1) - days_from_civil(year, month, 1)) as u32
}

/// The timestamp of a UNIX time, in the simulator's zone.
pub(crate) fn timestamp_at(unix: i64) -> Option<Timestamp> {
    DateTime::from_timestamp(unix, 0).map(|instant| Timestamp::from(instant.with_timezone(&zone()).naive_local()))
}

/// The UNIX time of a timestamp read in the simulator's zone; `None` when it
/// is not of the documented form.
pub(crate) fn unix_of(timestamp: &Timestamp) -> Option<i64> {
    Some(timestamp.value()?.and_local_timezone(zone()).single()?.timestamp())
}

/// The day number of a `YYYY-MM-DD` date; `None` when it is not of that form or does not exist.
pub(crate) fn parse_date(text: &str) -> Option<i64> {
    let date = text.parse::<vidplat::Date>().ok()?.value()?;
    Some(days_from_civil(i64::from(date.year()), date.month(), date.day()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_in_the_zone() {
        let utc = FixedOffset::east_opt(0).unwrap();
        let text = |unix| timestamp_at(unix).map(|t| t.to_string());
        assert_eq!(
            text(1_767_225_600).as_deref(),
            Some("2026-01-01 09:00:00"),
            "Japan time"
        );
        assert_eq!(
            in_zone_sync(utc, || text(1_767_225_600)).as_deref(),
            Some("2026-01-01 00:00:00")
        );
        let stamp: Timestamp = "2026-01-01 09:00:00".parse().unwrap();
        assert_eq!(unix_of(&stamp), Some(1_767_225_600));
        assert_eq!(local_day(1_767_225_600 - 1), local_day(1_767_225_600));
        assert_eq!(in_zone_sync(utc, || local_day(1_767_225_600 - 1)), 20_453);
    }

    #[test]
    fn day_numbers_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2025, 2), 28);
        assert_eq!(days_in_month(2025, 12), 31);
        for days in [-1_000_000, -1, 0, 1, 20_000, 1_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}

/// Longest step `POST /sim/clock` takes at once: ten years, far past any
/// month, URL or quota window a test may want to see pass.
const MAX_ADVANCE_SECONDS: u64 = 10 * 366 * 24 * 3600;

/// The body of `POST /sim/clock`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    /// Seconds to move the clock forward.
    seconds: u64,
}

/// `GET /sim/clock` (`{"now": "yyyy-mm-dd hh:mm:ss", "ahead_seconds": N}`, in
/// the simulator's zone) and `POST /sim/clock` (`{"seconds": N}`: moves the
/// clock of the three services forward, as `Simulator::advance_clock`), so a
/// test in any language sees a month turn, a URL expire or a task finish
/// without waiting.
pub(crate) fn control_router(calendar: Calendar) -> axum::Router {
    let read = calendar.clone();
    axum::Router::new().route(
        "/sim/clock",
        axum::routing::get(move || async move {
            let ahead = read.ahead.get();
            let now = SystemTime::now().checked_add(ahead).unwrap_or_else(SystemTime::now);
            let now = DateTime::<chrono::Utc>::from(now).with_timezone(&read.zone);
            axum::Json(serde_json::json!({
                "now": Timestamp::from(now.naive_local()),
                "ahead_seconds": ahead.as_secs(),
            }))
        })
        .post(move |crate::JsonBody(advance): crate::JsonBody<Advance>| async move {
            if advance.seconds > MAX_ADVANCE_SECONDS {
                return Err(crate::SimError::invalid(format!(
                    "`seconds` is at most {MAX_ADVANCE_SECONDS} (ten years) a step"
                )));
            }
            calendar.ahead.advance(Duration::from_secs(advance.seconds));
            Ok(axum::http::StatusCode::NO_CONTENT)
        }),
    )
}
