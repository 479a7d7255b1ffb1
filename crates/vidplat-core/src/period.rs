//! A reporting period of whole days in Japan time, for both analytics
//! editions: the basic edition asks for days relative to today
//! (`start_interval`/`end_interval`), the cloud edition for timestamps
//! (`start`/`end`); every analytics builder whose operation reports over days
//! has a generated `.period(p)` that sets whichever pair it takes.

use crate::time::{japan_offset, Timestamp};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use std::fmt;

/// A report builder that takes a period of days: the generated analytics
/// builders with a `.period(p)`. The exporter (`vidplat-export`) is generic
/// over it.
pub trait ReportPeriod: Sized {
    /// The same request over `period` (the builder's own `.period(p)`).
    fn with_period(self, period: Period) -> Self;

    /// The runtime the builder's client sends through (its quota among others).
    fn runtime(&self) -> &crate::runtime::Runtime;
}

/// Whole days in Japan time, from `first` to `last` inclusive.
///
/// ```
/// use vidplat_core::Period;
/// use chrono::NaiveDate;
/// let today = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
/// let month = Period::last_full_days_before(30, today);
/// assert_eq!(month.to_string(), "2026-10-26..=2026-11-24 (Japan time)");
/// // The basic edition: days relative to today.
/// assert_eq!(month.relative_days(today), (-30, -1));
/// // The cloud edition: timestamps in Japan time.
/// assert_eq!((month.start().to_string(), month.end().to_string()),
///            ("2026-10-26 00:00:00".to_owned(), "2026-11-24 23:59:59".to_owned()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Period {
    first: NaiveDate,
    last: NaiveDate,
}

/// A period whose last day comes before its first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeriodError {
    first: NaiveDate,
    last: NaiveDate,
}

impl fmt::Display for PeriodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a period cannot end ({}) before it starts ({})",
            self.last, self.first
        )
    }
}

impl std::error::Error for PeriodError {}

impl Period {
    /// The days from `first` to `last`, both included.
    pub fn days(first: NaiveDate, last: NaiveDate) -> Result<Self, PeriodError> {
        if last < first {
            return Err(PeriodError { first, last });
        }
        Ok(Self { first, last })
    }

    /// One day.
    pub fn day(day: NaiveDate) -> Self {
        Self { first: day, last: day }
    }

    /// The `days` whole days that ended at the last midnight in Japan
    /// (yesterday and before; today is still being counted). `0` is taken as 1.
    pub fn last_full_days(days: u32) -> Self {
        Self::last_full_days_before(days, Self::today_in_japan())
    }

    /// The `days` whole days before `today` (not included). `0` is taken as 1.
    pub fn last_full_days_before(days: u32, today: NaiveDate) -> Self {
        let last = today.pred_opt().unwrap_or(today);
        let first = last
            .checked_sub_days(chrono::Days::new(u64::from(days.max(1) - 1)))
            .unwrap_or(NaiveDate::MIN);
        Self { first, last }
    }

    /// Today's date in Japan, where the analytics services count their days.
    pub fn today_in_japan() -> NaiveDate {
        DateTime::<Utc>::from(std::time::SystemTime::now())
            .with_timezone(&japan_offset())
            .date_naive()
    }

    /// Its first day.
    pub fn first(&self) -> NaiveDate {
        self.first
    }

    /// Its last day (included).
    pub fn last(&self) -> NaiveDate {
        self.last
    }

    /// How many days it covers.
    pub fn len_days(&self) -> u64 {
        u64::try_from((self.last - self.first).num_days()).unwrap_or(0) + 1
    }

    /// The cloud edition's `start`: 00:00:00 of the first day.
    pub fn start(&self) -> Timestamp {
        Timestamp::from(self.first.and_time(NaiveTime::MIN))
    }

    /// The cloud edition's `end`: 23:59:59 of the last day. Whether the
    /// service's `end` is inclusive is not shown (GAPS.md): inclusive, the
    /// day is covered; exclusive, its last second is left out. Under neither
    /// reading does the period reach into the next day.
    pub fn end(&self) -> Timestamp {
        let last_second = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN);
        Timestamp::from(self.last.and_time(last_second))
    }

    /// The basic edition's `start_interval` and `end_interval`: the first and
    /// last day as days relative to `today` (yesterday is −1). The service
    /// accepts −731..=0; a period outside that is refused before sending, with
    /// the parameter and its bound.
    pub fn relative_days(&self, today: NaiveDate) -> (i64, i64) {
        ((self.first - today).num_days(), (self.last - today).num_days())
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={} (Japan time)", self.first, self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn both_editions_get_the_same_days() {
        let today = date(2026, 3, 1);
        let february = Period::days(date(2026, 2, 1), date(2026, 2, 28)).unwrap();
        assert_eq!(february.len_days(), 28);
        assert_eq!(february.relative_days(today), (-28, -1));
        assert_eq!(february.start().to_string(), "2026-02-01 00:00:00");
        assert_eq!(february.end().to_string(), "2026-02-28 23:59:59");
        assert_eq!(Period::last_full_days_before(28, today), february);
        assert_eq!(Period::last_full_days_before(0, today), Period::day(date(2026, 2, 28)));
        assert_eq!(Period::day(today).relative_days(today), (0, 0));
    }

    #[test]
    fn a_period_ending_before_it_starts_is_refused() {
        let error = Period::days(date(2026, 2, 2), date(2026, 2, 1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a period cannot end (2026-02-01) before it starts (2026-02-02)"
        );
    }

    #[test]
    fn no_day_count_overflows() {
        let period = Period::last_full_days_before(u32::MAX, date(2026, 1, 1));
        assert_eq!(period.last(), date(2025, 12, 31));
        assert!(period.first() < date(-1000, 1, 1));
        let earliest = Period::last_full_days_before(3, NaiveDate::MIN);
        assert_eq!(earliest.first(), NaiveDate::MIN);
    }
}
