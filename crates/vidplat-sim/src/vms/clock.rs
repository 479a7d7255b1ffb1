//! Time as the service writes it: `YYYY-MM-DD hh:mm:ss` timestamps and
//! `YYYY-MM-DD` dates. The document does not show their time zone; the
//! simulator writes and reads them in `SimConfig::time_zone` (Japan time by
//! default; see `crate::calendar`), and counts days on that zone's calendar.
//! Times inside the simulator are UNIX times.

use std::time::UNIX_EPOCH;

/// Seconds since the UNIX epoch.
pub(super) fn now() -> i64 {
    crate::calendar::system_now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
}

/// The day number (in the simulator's zone) of a UNIX time.
pub(super) fn day_of(unix: i64) -> i64 {
    crate::calendar::local_day(unix)
}

/// Seconds in a day.
pub(super) const DAY: i64 = 86_400;

/// The UNIX time at which day `day` (a day number in the simulator's zone) begins.
pub(super) fn start_of_day(day: i64) -> i64 {
    day.saturating_mul(DAY) - i64::from(crate::calendar::zone().local_minus_utc())
}

/// Days since 1970-01-01 of a civil date.
pub(super) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let month = u32::try_from(month).unwrap_or(1);
    crate::calendar::days_from_civil(year, month, 1) + day - 1
}

/// The civil date (year, month, day) of a day number.
pub(super) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let (year, month, day) = crate::calendar::civil_from_days(days);
    (year, i64::from(month), i64::from(day))
}

/// `YYYY-MM-DD` of a day number.
pub(super) fn format_date(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The day number of a `YYYY-MM-DD` date (strict: the date must exist).
pub(super) fn parse_date(text: &str) -> Option<i64> {
    crate::calendar::parse_date(text)
}

/// The UNIX time of a `YYYY-MM-DD hh:mm:ss` timestamp (strict).
pub(super) fn parse_timestamp(text: &str) -> Option<i64> {
    unix_of(&text.parse().ok()?)
}

/// A UNIX time as the generated types' timestamp.
pub(super) fn timestamp(unix: i64) -> Option<vidplat::Timestamp> {
    crate::calendar::timestamp_at(unix)
}

/// The UNIX time of a timestamp sent in a body, or `None` when it is not of the documented form.
pub(super) fn unix_of(value: &vidplat::Timestamp) -> Option<i64> {
    crate::calendar::unix_of(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_documented_forms() {
        let utc = chrono::FixedOffset::east_opt(0).unwrap();
        crate::calendar::in_zone_sync(utc, round_trips_in_utc);
    }

    fn round_trips_in_utc() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(format_date(days_from_civil(2024, 2, 29)), "2024-02-29");
        let text = |unix: i64| timestamp(unix).map(|t| t.to_string());
        assert_eq!(text(1_767_225_600).as_deref(), Some("2026-01-01 00:00:00"));
        assert_eq!(
            parse_timestamp("2025-12-08 12:34:56").and_then(text).as_deref(),
            Some("2025-12-08 12:34:56")
        );
        assert_eq!(parse_date("2025-02-29"), None);
        assert_eq!(parse_date("2025-2-01"), None);
        assert_eq!(parse_timestamp("2025-12-08 24:00:00"), None);
        assert_eq!(parse_timestamp("2025-12-08T12:00:00"), None);
    }
}
