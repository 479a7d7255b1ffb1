//! Valid answer values with documented defaults, so a test states only what
//! it cares about: `Task { status: Some(TaskStatus::Failed), ..Task::fixture() }`.
//!
//! Hand-written for the types tests reach for first (the rest: their
//! `Default`, or `Type::builder()` with vidplat's `builders` feature).

/// A valid value of an answer type, with the defaults its implementation documents.
pub trait Fixture {
    /// The value with its documented defaults.
    fn fixture() -> Self;
}

/// Task 1, `ready`, error code 0, from `movie.mp4` to `movie`, preset and
/// profile 1, created 2024-04-01 12:00:00 (Japan time) and encoded in the
/// next five minutes; no streams, poster or seek preview.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::Task {
    fn fixture() -> Self {
        // Constant texts of the documented form: they parse.
        let at = |text: &str| text.parse::<vidplat_core::Timestamp>().ok();
        Self {
            id: Some(1),
            status: Some(vidplat::encoder::types::TaskStatus::Ready),
            error_code: Some(0),
            input_filename: Some("movie.mp4".to_owned()),
            output_filename: Some("movie".to_owned()),
            preset_id: Some(1),
            profile_id: Some(1),
            created_at: at("2024-04-01 12:00:00"),
            encode_start: at("2024-04-01 12:01:00"),
            encode_end: at("2024-04-01 12:05:00"),
            ..Self::default()
        }
    }
}

/// One task registered (`Task::fixture()`, but `waiting` and not yet
/// encoded), none failed, transaction 1.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::TaskRegistration {
    fn fixture() -> Self {
        use vidplat::encoder::types::{Task, TaskStatus};
        Self {
            success_count: Some(1),
            failure_count: Some(0),
            tasks: vec![Task {
                status: Some(TaskStatus::Waiting),
                encode_start: None,
                encode_end: None,
                ..Task::fixture()
            }],
            transaction: Some(1),
        }
    }
}

/// No task in any status (every count 0).
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::TaskCounts {
    fn fixture() -> Self {
        Self {
            canceled: Some(0),
            canceling: Some(0),
            encoding: Some(0),
            failed: Some(0),
            ready: Some(0),
            uploading: Some(0),
            waiting: Some(0),
        }
    }
}

/// An empty, complete page: no rows, not truncated.
#[cfg(feature = "analytics")]
impl Fixture for vidplat::analytics::types::CloudOsPage {
    fn fixture() -> Self {
        Self {
            data: Vec::new(),
            truncated: Some(false),
        }
    }
}

/// Android 14 in the SDK's player: 3 playback requests, 2 starts, nothing else counted.
#[cfg(feature = "analytics")]
impl Fixture for vidplat::analytics::types::CloudOsRow {
    fn fixture() -> Self {
        Self {
            os_name: Some("Android".to_owned()),
            os_version: Some("14".to_owned()),
            play_requested_count: Some(3),
            play_started_count: Some(2),
            ..Self::default()
        }
    }
}
