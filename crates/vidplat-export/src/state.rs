//! What earlier runs finished: the partitions committed, kept in a small
//! JSON file written atomically after every chunk.

use crate::sink::Partition;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version of the state file's shape.
const FORMAT: u32 = 1;

/// The largest state file read (a year of days is a few KiB).
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The partitions of one report an export has committed, with when each was fetched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportState {
    format: u32,
    report: String,
    /// Partition directory name (`date=2026-10-01`) → when it was fetched (RFC 3339).
    done: BTreeMap<String, String>,
}

/// A state file that cannot be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum StateError {
    /// Reading or writing it failed.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a state file of this version.
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The shared state in Redis cannot be used: [`vidplat_redis::SharedWorkError::redis`]
    /// says what Redis did (unreachable, no answer in time, an answer out of bounds).
    #[cfg(feature = "redis")]
    Shared(vidplat_redis::SharedWorkError),
    /// It belongs to another report's export.
    OtherReport {
        /// The file.
        path: PathBuf,
        /// The report it records.
        found: String,
        /// The report being exported.
        exporting: &'static str,
    },
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Io { path, source } => write!(f, "export state {}: {source}", path.display()),
            StateError::Invalid { path, reason } => {
                write!(f, "export state {} cannot be read: {reason}", path.display())
            }
            #[cfg(feature = "redis")]
            StateError::Shared(error) => write!(f, "export state: {error}"),
            StateError::OtherReport { path, found, exporting } => write!(
                f,
                "export state {} records an export of {found}, not {exporting}: give each report its own \
                 output directory or state file",
                path.display()
            ),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StateError::Io { source, .. } => Some(source),
            #[cfg(feature = "redis")]
            StateError::Shared(error) => Some(error),
            _ => None,
        }
    }
}

impl ExportState {
    /// Nothing done yet.
    pub fn new(report: &str) -> Self {
        Self {
            format: FORMAT,
            report: report.to_owned(),
            done: BTreeMap::new(),
        }
    }

    /// The state the finished partitions' records make (`date=2026-10-01` → when fetched).
    #[cfg(feature = "redis")]
    pub(crate) fn from_records(report: &str, records: Vec<(String, String)>) -> Self {
        Self {
            done: records.into_iter().collect(),
            ..Self::new(report)
        }
    }

    /// The state in `path`, or a new one when there is no file.
    pub fn load(path: &Path, report: &'static str) -> Result<Self, StateError> {
        let io = |source| StateError::Io {
            path: path.to_path_buf(),
            source,
        };
        // A FIFO or a device where the state should be is refused, not read.
        let file = match vidplat_core::__private::open_regular(path) {
            Ok(Some(file)) => file,
            Ok(None) => return Ok(Self::new(report)),
            Err(e) => return Err(io(e)),
        };
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_STATE_BYTES), &mut text).map_err(io)?;
        let state: ExportState = serde_json::from_str(&text).map_err(|e| StateError::Invalid {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        if state.format != FORMAT {
            return Err(StateError::Invalid {
                path: path.to_path_buf(),
                reason: format!("format {} (this version reads {FORMAT})", state.format),
            });
        }
        if state.report != report {
            return Err(StateError::OtherReport {
                path: path.to_path_buf(),
                found: state.report,
                exporting: report,
            });
        }
        Ok(state)
    }

    /// Writes the state to `path` atomically (a temporary file renamed over it).
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let io = |source| StateError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut text = serde_json::to_string_pretty(self).map_err(|e| io(e.into()))?;
        text.push('\n');
        vidplat_core::__private::replace_file(path, text.as_bytes(), false).map_err(io)
    }

    /// Whether a run committed `partition`.
    pub fn is_done(&self, partition: Partition) -> bool {
        self.done.contains_key(&partition.dir_name())
    }

    /// Records `partition` as committed, fetched at `fetched_at`.
    pub fn mark_done(&mut self, partition: Partition, fetched_at: &str) {
        self.done.insert(partition.dir_name(), fetched_at.to_owned());
    }

    /// How many partitions are recorded.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }
}
