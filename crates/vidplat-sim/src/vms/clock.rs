//! Time as the service writes it: `YYYY-MM-DD hh:mm:ss` timestamps and
//! `YYYY-MM-DD` dates. The document does not show their time zone; the
//! simulator uses UTC. The crate has no date library, so the civil calendar is
//! computed here (H. Hinnant's `days_from_civil` / `civil_from_days`).

use std::time::{SystemTime, UNIX_EPOCH};

pub(super) const SECONDS_PER_DAY: i64 = 86_400;

/// Seconds since the UNIX epoch.
pub(super) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
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

/// `YYYY-MM-DD hh:mm:ss` of a UNIX time.
pub(super) fn format_timestamp(unix: i64) -> String {
    let seconds = unix.rem_euclid(SECONDS_PER_DAY);
    format!(
        "{} {:02}:{:02}:{:02}",
        format_date(unix.div_euclid(SECONDS_PER_DAY)),
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The day number of a `YYYY-MM-DD` date (strict: the date must exist).
pub(super) fn parse_date(text: &str) -> Option<i64> {
    let mut fields = text.splitn(3, '-').map(|field| field.parse::<i64>().ok());
    let (year, month, day) = (fields.next()??, fields.next()??, fields.next()??);
    // Ranges first, so that no arithmetic overflows; the round trip rejects the rest (2025-02-30).
    if !((0..=9999).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day)) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    (format_date(days) == text).then_some(days)
}

/// The UNIX time of a `YYYY-MM-DD hh:mm:ss` timestamp (strict).
pub(super) fn parse_timestamp(text: &str) -> Option<i64> {
    let (date, time) = text.split_once(' ')?;
    let mut fields = time.splitn(3, ':').map(|field| field.parse::<i64>().ok());
    let (hours, minutes, seconds) = (fields.next()??, fields.next()??, fields.next()??);
    if !((0..24).contains(&hours) && (0..60).contains(&minutes) && (0..60).contains(&seconds)) {
        return None;
    }
    let unix = parse_date(date)? * SECONDS_PER_DAY + hours * 3600 + minutes * 60 + seconds;
    (format_timestamp(unix) == text).then_some(unix)
}

/// A UNIX time as the generated types' timestamp.
pub(super) fn timestamp(unix: i64) -> Option<vidplat::Timestamp> {
    format_timestamp(unix).parse().ok()
}

/// The UNIX time of a timestamp sent in a body, or `None` when it is not of the documented form.
pub(super) fn unix_of(value: &vidplat::Timestamp) -> Option<i64> {
    parse_timestamp(&value.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_documented_forms() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(format_date(days_from_civil(2024, 2, 29)), "2024-02-29");
        assert_eq!(format_timestamp(1_767_225_600), "2026-01-01 00:00:00");
        assert_eq!(
            parse_timestamp("2025-12-08 12:34:56").map(format_timestamp).as_deref(),
            Some("2025-12-08 12:34:56")
        );
        assert_eq!(parse_date("2025-02-29"), None);
        assert_eq!(parse_date("2025-2-01"), None);
        assert_eq!(parse_timestamp("2025-12-08 24:00:00"), None);
        assert_eq!(parse_timestamp("2025-12-08T12:00:00"), None);
    }
}
