//! Valid answer values with documented defaults, so a test states only what
//! it cares about: `Task { status: Some(TaskStatus::Failed), ..Task::fixture() }`.
//!
//! Hand-written for the types tests reach for first (the rest: their
//! `Default`, or `Type::builder()` with vidplat's `builders` feature): the
//! YAML gives an `example` for a few small schemas only, none of the main
//! ones (Task, Preset, Content, the analytics rows), so there is nothing to
//! generate them from (`NotificationSettings` takes its example's values).
//! Each keeps the documented bounds of its answers: the kit's tests set
//! every one up as its operation's answer.

/// A valid value of an answer type, with the defaults its implementation documents.
pub trait Fixture {
    /// The value with its documented defaults.
    fn fixture() -> Self;
}

/// A timestamp of the documented form (`yyyy-mm-dd hh:mm:ss`); the texts
/// given here are constants that parse.
#[cfg(any(feature = "encoder", feature = "vms"))]
fn at(text: &str) -> Option<vidplat_core::Timestamp> {
    text.parse().ok()
}

/// Task 1, `ready`, error code 0, from `movie.mp4` to `movie`, preset and
/// profile 1, created 2024-04-01 12:00:00 (Japan time) and encoded in the
/// next five minutes; no streams, poster or seek preview.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::Task {
    fn fixture() -> Self {
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

/// An empty first page of tasks: total 0, the documented page size 10, page 1 of 1.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::TaskList {
    fn fixture() -> Self {
        Self {
            data: Vec::new(),
            total: Some(0),
            per_page: Some(10),
            current_page: Some(1),
            last_page: Some(1),
            from: Some(0),
            to: Some(0),
        }
    }
}

/// Preset 1, `mp4`: MP4 to the video management service (`vms5://`), output
/// named after the input file, no dynamic streams, no stream settings,
/// created and updated 2024-04-01 12:00:00.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::Preset {
    fn fixture() -> Self {
        Self {
            id: Some(1),
            name: Some("mp4".to_owned()),
            destination: Some("vms5://".to_owned()),
            format: Some(vidplat::encoder::types::PresetFormat::Mp4),
            output_filename: Some("%INPUT_FILENAME%".to_owned()),
            dynamic_streams: Some(false),
            created_at: at("2024-04-01 12:00:00"),
            updated_at: at("2024-04-01 12:00:00"),
            ..Self::default()
        }
    }
}

/// Profile 1, `default`: preset 1 (`Preset::fixture()`), not shared, no
/// description, created and updated 2024-04-01 12:00:00.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::Profile {
    fn fixture() -> Self {
        Self {
            id: Some(1),
            name: Some("default".to_owned()),
            presets: vec![1],
            share: Some(vidplat::encoder::types::ProfileShare::NotShared),
            created_at: at("2024-04-01 12:00:00"),
            updated_at: at("2024-04-01 12:00:00"),
            ..Self::default()
        }
    }
}

/// CSV import job 1, `import`, created and updated 2024-04-01 12:00:00; no
/// progress (its members are not shown in the documents).
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::TaskImport {
    fn fixture() -> Self {
        Self {
            id: Some(1),
            name: Some("import".to_owned()),
            created_at: at("2024-04-01 12:00:00"),
            updated_at: at("2024-04-01 12:00:00"),
            ..Self::default()
        }
    }
}

/// The YAML's example: notify on failure and on finished imports, not on
/// ready; updated 2024-04-01 12:34:56.
#[cfg(feature = "encoder")]
impl Fixture for vidplat::encoder::types::NotificationSettings {
    fn fixture() -> Self {
        Self {
            notify_error: Some(true),
            notify_ready: Some(false),
            notify_imported_tasks: Some(true),
            updated_at: at("2024-04-01 12:34:56"),
        }
    }
}

/// The first id of the video management service's form (a UUID).
#[cfg(feature = "vms")]
const VMS_ID_1: &str = "00000000-0000-0000-0000-000000000001";

/// Content `movie` ("Movie"): VOD, `PUBLIC`, encode status `NONE` (the
/// documented defaults), 60 seconds, never played, the default slideshow
/// interval (1000 ms), in category 1, created and updated
/// 2025-12-08 12:34:56; no streams, posters or other nested items.
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::Content {
    fn fixture() -> Self {
        use vidplat::vms::types::{ContentStatus, ContentType, EncodeStatus};
        Self {
            name: Some("movie".to_owned()),
            title: Some("Movie".to_owned()),
            type_: Some(ContentType::Vod),
            status: Some(ContentStatus::Public),
            encode_status: Some(EncodeStatus::None),
            duration: Some(60),
            playback_count: Some(0),
            poster_slideshow_interval: Some(1000),
            category_id: Some(VMS_ID_1.to_owned()),
            created_at: at("2025-12-08 12:34:56"),
            updated_at: at("2025-12-08 12:34:56"),
            ..Self::default()
        }
    }
}

/// `Content::fixture()` as a list shows it: its members that a list shows.
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::ContentSummary {
    fn fixture() -> Self {
        let content = serde_json::to_value(vidplat::vms::types::Content::fixture());
        content
            .and_then(serde_json::from_value)
            .expect("a content reads as its summary")
    }
}

/// An empty, complete first page of contents (the documented page size, 25).
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::ContentList {
    fn fixture() -> Self {
        Self {
            data: Vec::new(),
            current_page: Some(1),
            per_page: Some(25),
            truncated: Some(false),
        }
    }
}

/// Category 1, `movies`, without statistics, created and updated 2025-12-08 12:34:56.
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::Category {
    fn fixture() -> Self {
        Self {
            id: Some(VMS_ID_1.to_owned()),
            name: Some("movies".to_owned()),
            statistics: None,
            created_at: at("2025-12-08 12:34:56"),
            updated_at: at("2025-12-08 12:34:56"),
        }
    }
}

/// Playlist `playlist` ("Playlist"), no description, no items.
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::PlaylistItems {
    fn fixture() -> Self {
        Self {
            playlist_name: Some("playlist".to_owned()),
            playlist_title: Some("Playlist".to_owned()),
            playlist_description: None,
            playlist_items: Vec::new(),
        }
    }
}

/// Viewing page 1 of content `movie`, `PUBLIC` (the documented default),
/// on no site, unsigned (no signing key), no viewer limit, created and
/// updated 2025-12-08 12:34:56.
#[cfg(feature = "vms")]
impl Fixture for vidplat::vms::types::ViewingPage {
    fn fixture() -> Self {
        Self {
            id: Some(VMS_ID_1.to_owned()),
            content_name: Some("movie".to_owned()),
            status: Some(vidplat::vms::types::PageStatus::Public),
            created_at: at("2025-12-08 12:34:56"),
            updated_at: at("2025-12-08 12:34:56"),
            ..Self::default()
        }
    }
}

/// An empty, complete, final and unsampled page of the basic edition: no
/// rows, not truncated.
#[cfg(feature = "analytics")]
impl Fixture for vidplat::analytics::types::BasicTimePeriodPage {
    fn fixture() -> Self {
        Self {
            data: Vec::new(),
            golden: Some(true),
            truncated: Some(false),
            unsampled: Some(true),
        }
    }
}

/// The hour from 2024-04-01 12:00 (Japan time): 3 playback requests, 2
/// plays, nothing else counted.
#[cfg(feature = "analytics")]
impl Fixture for vidplat::analytics::types::BasicTimePeriodRow {
    fn fixture() -> Self {
        Self {
            date_time: Some("2024-04-01 12:00:00".to_owned()),
            playback_count: Some(3),
            play_count: Some(2),
            ..Self::default()
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
