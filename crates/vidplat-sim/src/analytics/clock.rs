//! The services' clock: the wall clock of the simulator's zone (Japan time,
//! UTC+9, as the document states, unless `SimConfig::time_zone` says
//! otherwise; see `crate::calendar`), held as seconds since 1970-01-01
//! 00:00:00 of that wall clock, and the calendar arithmetic the periods need.

use crate::calendar::{civil_from_days, days_from_civil, days_in_month};
use std::time::UNIX_EPOCH;

/// Seconds since 1970-01-01 00:00:00 of the simulator's zone (Japan time by default).
pub(super) type Local = i64;

pub(super) const MINUTE: i64 = 60;
pub(super) const HOUR: i64 = 3_600;
pub(super) const DAY: i64 = 86_400;
/// Now, on the wall clock of the simulator's zone (Japan time by default).
pub(super) fn now() -> Local {
    let utc = crate::calendar::system_now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() as i64)
        .unwrap_or(0);
    utc + i64::from(crate::calendar::zone().local_minus_utc())
}

/// The day number of a moment (days since 1970-01-01).
pub(super) fn day_of(at: Local) -> i64 {
    at.div_euclid(DAY)
}

/// A broken-down wall-clock moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Civil {
    pub(super) fn of(at: Local) -> Self {
        let (year, month, day) = civil_from_days(day_of(at));
        let seconds = at.rem_euclid(DAY);
        Self {
            year,
            month,
            day,
            hour: (seconds / HOUR) as u32,
            minute: (seconds % HOUR / MINUTE) as u32,
            second: (seconds % MINUTE) as u32,
        }
    }

    pub(super) fn at(self) -> Local {
        days_from_civil(self.year, self.month, self.day) * DAY
            + i64::from(self.hour) * HOUR
            + i64::from(self.minute) * MINUTE
            + i64::from(self.second)
    }

    /// `yyyy-mm-dd hh:mm:ss`
    pub(super) fn timestamp(self) -> String {
        format!("{} {:02}:{:02}:{:02}", self.date(), self.hour, self.minute, self.second)
    }

    /// `yyyy-mm-dd hh:mm`
    pub(super) fn date_minute(self) -> String {
        format!("{} {:02}:{:02}", self.date(), self.hour, self.minute)
    }

    /// `yyyy-mm-dd hh`
    pub(super) fn date_hour(self) -> String {
        format!("{} {:02}", self.date(), self.hour)
    }

    /// `yyyy-mm-dd`
    pub(super) fn date(self) -> String {
        format!("{}-{:02}", self.year_month(), self.day)
    }

    /// `yyyy-mm`
    pub(super) fn year_month(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }

    /// `hh:mm`
    pub(super) fn hour_minute(self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }

    /// The same wall-clock time `months` calendar months later (the day
    /// clamped to the end of a shorter month).
    pub(super) fn plus_months(self, months: u32) -> Self {
        let index = self.year * 12 + i64::from(self.month - 1) + i64::from(months);
        let (year, month) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
        Self {
            year,
            month,
            day: self.day.min(days_in_month(year, month)),
            ..self
        }
    }

    /// 00:00:00 of the first day of the next month.
    pub(super) fn next_month_start(self) -> Self {
        Self {
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            ..self.plus_months(1)
        }
    }
}

/// Parses the documented `yyyy-mm-dd hh:mm:ss` (strictly, as the SDK writes it).
pub(super) fn parse_timestamp(text: &str) -> Option<Local> {
    let parsed: vidplat::Timestamp = text.parse().ok()?;
    Some(parsed.value()?.and_utc().timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trips_and_formats() {
        let at = parse_timestamp("2024-02-29 23:59:58").expect("a valid timestamp");
        let civil = Civil::of(at);
        assert_eq!(civil.timestamp(), "2024-02-29 23:59:58");
        assert_eq!(civil.at(), at);
        assert_eq!(civil.plus_months(12).date(), "2025-02-28");
        assert_eq!(civil.plus_months(13).date(), "2025-03-29");
        assert_eq!(civil.next_month_start().timestamp(), "2024-03-01 00:00:00");
        assert_eq!(Civil::of(0).timestamp(), "1970-01-01 00:00:00");
        assert_eq!(Civil::of(-1).timestamp(), "1969-12-31 23:59:59");
        assert_eq!(parse_timestamp("2024-02-30 00:00:00"), None);
        assert_eq!(parse_timestamp("2024-2-1 00:00:00"), None);
    }
}
