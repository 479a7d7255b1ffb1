//! Time: the task lifecycle runs on `Instant`s (monotonic, so tests are
//! deterministic); responses carry wall-clock `yyyy-mm-dd hh:mm:ss` in the
//! simulator's zone (`SimConfig::time_zone`, Japan time by default; the
//! document does not say; see `crate::calendar`).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vidplat::Timestamp;

/// Maps the simulator's `Instant`s to wall-clock timestamps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    started: Instant,
    started_wall: SystemTime,
}

impl Clock {
    pub(super) fn start() -> Self {
        Self {
            started: Instant::now(),
            started_wall: SystemTime::now(),
        }
    }

    pub(super) fn started(&self) -> Instant {
        self.started
    }

    /// The UNIX time of `at`.
    pub(super) fn unix(&self, at: Instant) -> i64 {
        let wall = self.started_wall + at.saturating_duration_since(self.started);
        let seconds = wall.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs();
        i64::try_from(seconds).unwrap_or(i64::MAX)
    }

    /// The wall-clock timestamp of `at`.
    pub(super) fn timestamp(&self, at: Instant) -> Option<Timestamp> {
        let wall = self.started_wall + at.saturating_duration_since(self.started);
        timestamp_of(wall)
    }
}

/// `yyyy-mm-dd hh:mm:ss` (in the simulator's zone) of a wall-clock time (always `Some`: the
/// generated types hold timestamps as options).
pub(super) fn timestamp_of(wall: SystemTime) -> Option<Timestamp> {
    let seconds = wall.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs();
    crate::calendar::timestamp_at(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// A fixed timestamp for the simulator's demo data (the same in every zone).
pub(super) fn fixed_timestamp() -> Option<Timestamp> {
    "2024-04-01 12:34:56".parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_wall_clock_times() {
        let utc = chrono::FixedOffset::east_opt(0).unwrap();
        crate::calendar::in_zone_sync(utc, formats_in_utc);
    }

    fn formats_in_utc() {
        let text = |t: Option<Timestamp>| t.map(|t| t.to_string());
        assert_eq!(text(fixed_timestamp()).as_deref(), Some("2024-04-01 12:34:56"));
        assert_eq!(text(timestamp_of(UNIX_EPOCH)).as_deref(), Some("1970-01-01 00:00:00"));
        // A leap day.
        let leap_day = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(text(timestamp_of(leap_day)).as_deref(), Some("2000-02-29 00:00:00"));
    }
}
