//! Which chunks of a period a run asks for, and what that costs, before any call.

use crate::report::{ReportInfo, Split};
use crate::sink::Partition;
use crate::state::ExportState;
use chrono::NaiveDate;
use std::time::Duration;
use vidplat_core::{Period, QuotaConfig};

/// A part of the period asked for with one query (and as many pages as its rows need).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chunk {
    /// The days it covers.
    pub period: Period,
}

impl Chunk {
    /// The partitions its rows are filed under: each day, or the whole period.
    pub fn partitions(&self, split: Split) -> Vec<Partition> {
        match split {
            Split::ByDay { .. } => days(self.period).map(Partition::Day).collect(),
            Split::WholePeriod => vec![Partition::Period(self.period)],
        }
    }

    /// The two halves of a chunk of two days or more (the first takes the
    /// extra day of an odd count); `None` for one day.
    pub fn halves(&self) -> Option<(Chunk, Chunk)> {
        let first_last = self.period.first() + chrono::Days::new(self.period.len_days().div_ceil(2) - 1);
        // One day: its second half would end before it starts, which Period refuses.
        let second = Period::days(first_last.succ_opt()?, self.period.last()).ok()?;
        let first = Period::days(self.period.first(), first_last).ok()?;
        Some((Chunk { period: first }, Chunk { period: second }))
    }
}

impl std::fmt::Display for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.period.first() == self.period.last() {
            write!(f, "{}", self.period.first())
        } else {
            write!(f, "{}..={}", self.period.first(), self.period.last())
        }
    }
}

/// The days of a period, in order.
pub fn days(period: Period) -> impl Iterator<Item = NaiveDate> {
    period.first().iter_days().take_while(move |day| *day <= period.last())
}

/// What a run will do, computed without a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The report.
    pub report: &'static str,
    /// The period asked for.
    pub period: Period,
    /// The chunks still to fetch, in order.
    pub chunks: Vec<Chunk>,
    /// Partitions of the period already exported by an earlier run with
    /// final figures and not in the lookback window: not asked for again.
    pub done: usize,
    /// Partitions an earlier run committed that are asked for again: not
    /// final yet, or in the lookback window.
    pub again: usize,
    /// The fewest calls the chunks take (one each).
    pub calls_at_least: u64,
    /// The most calls they may take: every chunk split down to single days by
    /// 408 answers, each day taking the most pages a chunk may
    /// ([`crate::Export::max_pages_per_chunk`]).
    pub calls_at_most: u64,
    /// The shortest time `calls_at_least` calls take under the per-minute quota.
    pub minimum_duration: Duration,
    /// The month's calls so far, as the client's quota knows them (from Redis when shared).
    pub month_used: u64,
    /// The month's allowance.
    pub month_allowance: u64,
}

impl Plan {
    /// The month's count after the run, at the fewest calls.
    pub fn month_used_after(&self) -> u64 {
        self.month_used.saturating_add(self.calls_at_least)
    }
}

/// The shortest time `calls` calls take at `quota.calls_per_window` a window:
/// the first window's calls go at once, each further window waits its length.
pub fn minimum_duration(calls: u64, quota: &QuotaConfig) -> Duration {
    let per_window = u64::from(quota.calls_per_window.max(1));
    let waits = calls.saturating_sub(1) / per_window;
    quota.window.saturating_mul(u32::try_from(waits).unwrap_or(u32::MAX))
}

/// Which days a run asks for again although an earlier run committed them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refetch {
    /// The last days of the period asked for on every run (restated figures).
    pub lookback_days: u32,
    /// The first day whose figures may still change by age: a chunk never
    /// spans it and the day before, so that the days before it can be final.
    pub unsettled_from: NaiveDate,
}

/// The chunks of `period` still to fetch, and how many partitions need no
/// call: every partition not yet done or not final, and every one in the
/// last `lookback_days` days of the period, in runs of at most `chunk_days`
/// consecutive days that never cross `unsettled_from` (a report not split
/// by day: the whole period or nothing).
pub fn chunks(
    info: &ReportInfo,
    period: Period,
    chunk_days: u32,
    refetch: Refetch,
    state: &ExportState,
) -> (Vec<Chunk>, usize) {
    let lookback_days = refetch.lookback_days;
    let lookback_from = period
        .last()
        .checked_sub_days(chrono::Days::new(u64::from(lookback_days)))
        .and_then(|day| day.succ_opt());
    let in_lookback = |last: NaiveDate| lookback_days > 0 && lookback_from.is_none_or(|from| last >= from);
    match info.split {
        Split::WholePeriod => {
            let whole = Partition::Period(period);
            if state.is_final(whole) && !in_lookback(period.last()) {
                (Vec::new(), 1)
            } else {
                (vec![Chunk { period }], 0)
            }
        }
        Split::ByDay { .. } => {
            let chunk_days = u64::from(chunk_days.max(1));
            let mut chunks: Vec<Chunk> = Vec::new();
            let mut done = 0;
            for day in days(period) {
                if state.is_final(Partition::Day(day)) && !in_lookback(day) {
                    done += 1;
                    continue;
                }
                match chunks.last_mut() {
                    Some(chunk)
                        if chunk.period.last().succ_opt() == Some(day)
                            && chunk.period.len_days() < chunk_days
                            && day != refetch.unsettled_from =>
                    {
                        if let Ok(longer) = Period::days(chunk.period.first(), day) {
                            chunk.period = longer;
                        }
                    }
                    _ => chunks.push(Chunk {
                        period: Period::day(day),
                    }),
                }
            }
            (chunks, done)
        }
    }
}

/// The most calls `chunks` may take (see [`Plan::calls_at_most`]).
pub fn calls_at_most(chunks: &[Chunk], max_pages_per_chunk: u64) -> u64 {
    chunks
        .iter()
        .map(|chunk| {
            let days = chunk.period.len_days();
            // A chunk split to single days: days − 1 refused calls, then each day's pages.
            days.saturating_sub(1)
                .saturating_add(days.saturating_mul(max_pages_per_chunk))
        })
        .fold(0, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Column;

    const BY_DAY: ReportInfo = ReportInfo {
        name: "by_day",
        edition: "basic",
        split: Split::ByDay { day: "date_time" },
        reason: "",
        columns: &[] as &[Column],
        default_page_rows: None,
        set_by_export: &[],
        final_by: crate::FinalBy::Golden,
        day_granularities: &[],
    };

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 10, d).unwrap()
    }

    fn period(first: u32, last: u32) -> Period {
        Period::days(day(first), day(last)).unwrap()
    }

    fn shown(chunks: &[Chunk]) -> Vec<String> {
        chunks.iter().map(Chunk::to_string).collect()
    }

    /// Nothing in the lookback window, every day of October settled.
    fn refetch(lookback_days: u32) -> Refetch {
        Refetch {
            lookback_days,
            unsettled_from: day(31),
        }
    }

    fn committed(is_final: bool) -> crate::state::Committed {
        crate::state::Committed {
            fetched_at: "2026-10-11T00:00:00+09:00".to_owned(),
            rows: Some(24),
            is_final,
            unsampled: Some(true),
        }
    }

    #[test]
    fn chunks_run_over_the_days_not_done_and_the_lookback_window() {
        let mut state = ExportState::new("by_day");
        let (all, done) = chunks(&BY_DAY, period(1, 10), 4, refetch(0), &state);
        assert_eq!(
            shown(&all),
            [
                "2026-10-01..=2026-10-04",
                "2026-10-05..=2026-10-08",
                "2026-10-09..=2026-10-10"
            ]
        );
        assert_eq!(done, 0);

        for d in [1, 2, 3, 6, 9, 10] {
            state.mark_done(Partition::Day(day(d)), committed(true));
        }
        let (rest, done) = chunks(&BY_DAY, period(1, 10), 4, refetch(0), &state);
        assert_eq!(shown(&rest), ["2026-10-04..=2026-10-05", "2026-10-07..=2026-10-08"]);
        assert_eq!(done, 6);

        // The last 2 days are read again, done or not.
        let (with_lookback, done) = chunks(&BY_DAY, period(1, 10), 4, refetch(2), &state);
        assert_eq!(
            shown(&with_lookback),
            ["2026-10-04..=2026-10-05", "2026-10-07..=2026-10-10"]
        );
        assert_eq!(done, 4);
    }

    #[test]
    fn a_whole_period_report_is_one_chunk_or_none() {
        let whole = ReportInfo {
            split: Split::WholePeriod,
            ..BY_DAY
        };
        let mut state = ExportState::new("by_day");
        assert_eq!(
            shown(&chunks(&whole, period(1, 10), 4, refetch(0), &state).0),
            ["2026-10-01..=2026-10-10"]
        );
        state.mark_done(Partition::Period(period(1, 10)), committed(false));
        // Not final: asked for again.
        assert_eq!(chunks(&whole, period(1, 10), 4, refetch(0), &state).0.len(), 1);
        state.mark_done(Partition::Period(period(1, 10)), committed(true));
        assert_eq!(chunks(&whole, period(1, 10), 4, refetch(0), &state), (vec![], 1));
        assert_eq!(chunks(&whole, period(1, 10), 4, refetch(1), &state).0.len(), 1);
    }

    #[test]
    fn days_not_final_are_asked_again_and_no_chunk_crosses_the_settling_line() {
        let mut state = ExportState::new("by_day");
        for d in 1..=10 {
            state.mark_done(Partition::Day(day(d)), committed(d < 9));
        }
        // Only the two days committed provisional are asked for again.
        let (again, done) = chunks(&BY_DAY, period(1, 10), 7, refetch(0), &state);
        assert_eq!((shown(&again), done), (vec!["2026-10-09..=2026-10-10".to_owned()], 8));

        // A first run: the days from the settling line on get chunks of their own.
        let fresh = ExportState::new("by_day");
        let unsettled = Refetch {
            lookback_days: 0,
            unsettled_from: day(9),
        };
        let (first, _) = chunks(&BY_DAY, period(1, 10), 7, unsettled, &fresh);
        assert_eq!(
            shown(&first),
            ["2026-10-01..=2026-10-07", "2026-10-08", "2026-10-09..=2026-10-10"]
        );
    }

    #[test]
    fn halves_split_down_to_one_day() {
        let chunk = Chunk { period: period(1, 5) };
        let (a, b) = chunk.halves().unwrap();
        assert_eq!(
            (a.to_string(), b.to_string()),
            ("2026-10-01..=2026-10-03".into(), "2026-10-04..=2026-10-05".into())
        );
        assert_eq!(Chunk { period: period(7, 7) }.halves(), None);
    }

    #[test]
    fn the_plan_counts_calls_and_the_quota_time() {
        let quota = QuotaConfig::default();
        assert_eq!(minimum_duration(0, &quota), Duration::ZERO);
        assert_eq!(minimum_duration(3, &quota), Duration::ZERO);
        assert_eq!(minimum_duration(4, &quota), Duration::from_secs(60));
        assert_eq!(minimum_duration(30, &quota), Duration::from_secs(9 * 60));
        let two = [Chunk { period: period(1, 4) }, Chunk { period: period(5, 5) }];
        // 4 days: 3 refused calls + 4 × 10 pages; 1 day: 10 pages.
        assert_eq!(calls_at_most(&two, 10), 43 + 10);
    }
}
