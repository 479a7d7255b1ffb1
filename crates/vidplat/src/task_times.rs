//! How long a task took, from its own timestamps.

use std::time::Duration;
use vidplat_core::Timestamp;
use vidplat_encoder::types::Task;

/// The durations of a task (`use vidplat::prelude::*`), each from two of its
/// timestamps. The encoding service names no time zone for them; none is
/// needed, since both ends of each duration are written in the same one.
/// `None` when an end is missing (not reached yet, or null), does not parse,
/// or comes before the start.
pub trait TaskTimes {
    /// From registration (`created_at`) to its last change (`updated_at`):
    /// for a task in a final status, its whole life.
    fn elapsed(&self) -> Option<Duration>;
    /// The encoding: `encode_start` to `encode_end`.
    fn encoding_time(&self) -> Option<Duration>;
    /// The publication to the legacy video management service:
    /// `publish_start` to `publish_end` (null for a task not published there).
    fn publishing_time(&self) -> Option<Duration>;
}

fn between(start: Option<&Timestamp>, end: Option<&Timestamp>) -> Option<Duration> {
    end?.duration_since(start?)?.to_std().ok()
}

impl TaskTimes for Task {
    fn elapsed(&self) -> Option<Duration> {
        between(self.created_at.as_ref(), self.updated_at.as_ref())
    }

    fn encoding_time(&self) -> Option<Duration> {
        between(self.encode_start.as_ref(), self.encode_end.as_ref())
    }

    fn publishing_time(&self) -> Option<Duration> {
        between(self.publish_start.as_ref(), self.publish_end.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_from_the_tasks_own_timestamps() {
        let task: Task = serde_json::from_value(serde_json::json!({
            "id": 7,
            "created_at": "2026-11-24 23:59:00",
            "encode_start": "2026-11-24 23:59:30",
            "encode_end": "2026-11-25 00:02:00",
            "publish_start": null,
            "updated_at": "2026-11-25 00:02:05",
        }))
        .unwrap();
        assert_eq!(task.elapsed(), Some(Duration::from_secs(185)));
        assert_eq!(task.encoding_time(), Some(Duration::from_secs(150)));
        assert_eq!(task.publishing_time(), None, "never published");
        let backwards: Task = serde_json::from_value(serde_json::json!({
            "created_at": "2026-11-25 00:00:00", "updated_at": "2026-11-24 00:00:00",
            "encode_start": "2026-11-24 00:00:00", "encode_end": "not a time",
        }))
        .unwrap();
        assert_eq!((backwards.elapsed(), backwards.encoding_time()), (None, None));
    }
}
