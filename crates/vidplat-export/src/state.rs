//! What earlier runs finished: the partitions committed, whether each is
//! final, and the report's parameters, kept in a small JSON file written
//! atomically after every chunk.

use crate::sink::Partition;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version of the state file's shape. Version 1 (a fetch time per
/// partition, no finality, no parameters) is still read: its partitions
/// count as final, as that version treated them.
const FORMAT: u32 = 2;

/// The largest state file read (a year of days is a few KiB).
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The partitions of one report an export has committed, with when each was
/// fetched, how many rows it holds and whether its figures are final.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportState {
    format: u32,
    report: String,
    /// The report's parameters (filters, granularity, …) every run of this
    /// export sends: a run with others is refused rather than mixed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parameters: Option<Map<String, Value>>,
    /// The widest rank window the service took (basic reports whose window
    /// the export chooses): the next run starts there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    window_rows: Option<u64>,
    /// Partition directory name (`date=2026-10-01`) → what was committed.
    #[serde(deserialize_with = "recorded")]
    done: BTreeMap<String, Committed>,
}

/// One committed partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Committed {
    /// When it was fetched (RFC 3339).
    pub fetched_at: String,
    /// Its rows, when known (a version 1 state does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Whether its figures are final: the service said so (`golden`), or
    /// the day is older than the settling days the export allows.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Whether the service said every figure is unsampled (`unsampled`);
    /// `None` when its answers do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsampled: Option<bool>,
}

/// A committed partition as this version records it, or as version 1 did
/// (its fetch time alone: final, as that version treated every partition).
#[derive(Deserialize)]
#[serde(untagged)]
enum Recorded {
    Committed(Committed),
    FetchedAt(String),
}

impl From<Recorded> for Committed {
    fn from(recorded: Recorded) -> Self {
        match recorded {
            Recorded::Committed(committed) => committed,
            Recorded::FetchedAt(fetched_at) => Committed {
                fetched_at,
                rows: None,
                is_final: true,
                unsampled: None,
            },
        }
    }
}

impl Committed {
    /// The record as one string (a shared export's Redis keeps strings).
    pub(crate) fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A record [`Self::to_text`] wrote, or a bare fetch time (an older worker's).
    #[cfg(feature = "redis")]
    pub(crate) fn from_text(text: &str) -> Self {
        serde_json::from_str::<Committed>(text).unwrap_or_else(|_| Recorded::FetchedAt(text.to_owned()).into())
    }
}

/// The `done` map of either version.
fn recorded<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<BTreeMap<String, Committed>, D::Error> {
    let recorded: BTreeMap<String, Recorded> = Deserialize::deserialize(deserializer)?;
    Ok(recorded.into_iter().map(|(name, r)| (name, r.into())).collect())
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
    /// It records an export of the same report with other parameters.
    OtherParameters {
        /// The file (or the shared store's job).
        path: PathBuf,
        /// The parameters it records.
        found: Map<String, Value>,
        /// The parameters of this run.
        exporting: Map<String, Value>,
    },
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
            StateError::OtherParameters { path, found, exporting } => write!(
                f,
                "export state {} records the parameters {}, not {}: an export keeps one set of \
                 parameters; give this one its own output directory or state file",
                path.display(),
                // JSON escapes C0 controls only: C1 ones (U+009B, a CSI) are escaped here.
                vidplat_core::escape_controls(&Value::Object(found.clone()).to_string()),
                vidplat_core::escape_controls(&Value::Object(exporting.clone()).to_string()),
            ),
            // What the file says is shown, never obeyed: a terminal sequence in it is escaped.
            StateError::OtherReport { path, found, exporting } => write!(
                f,
                "export state {} records an export of {}, not {exporting}: give each report its own \
                 output directory or state file",
                path.display(),
                vidplat_core::escape_controls(found)
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
            parameters: None,
            window_rows: None,
            done: BTreeMap::new(),
        }
    }

    /// The state the finished partitions' records make (`date=2026-10-01` →
    /// [`Committed::to_text`], or a bare fetch time), recording `parameters`.
    #[cfg(feature = "redis")]
    pub(crate) fn from_records(report: &str, parameters: &Map<String, Value>, records: Vec<(String, String)>) -> Self {
        Self {
            parameters: Some(parameters.clone()),
            done: records
                .into_iter()
                .map(|(name, text)| (name, Committed::from_text(&text)))
                .collect(),
            ..Self::new(report)
        }
    }

    /// The state in `path`, or a new one when there is no file.
    pub fn load(path: &Path, report: &'static str) -> Result<Self, StateError> {
        // A FIFO or a device where the state should be is refused, not read.
        let read = vidplat_core::__private::read_text(path, MAX_STATE_BYTES, vidplat_core::__private::Links::Follow);
        let io = |source| StateError::Io {
            path: path.to_path_buf(),
            source,
        };
        let Some(text) = read.map_err(io)? else {
            return Ok(Self::new(report));
        };
        let state: ExportState = serde_json::from_str(&text).map_err(|e| StateError::Invalid {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        if !(1..=FORMAT).contains(&state.format) {
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
        Ok(Self {
            format: FORMAT,
            ..state
        })
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

    /// Whether a run committed `partition` with final figures.
    pub fn is_final(&self, partition: Partition) -> bool {
        self.done.get(&partition.dir_name()).is_some_and(|c| c.is_final)
    }

    /// What a run committed of `partition`.
    pub fn committed(&self, partition: Partition) -> Option<&Committed> {
        self.done.get(&partition.dir_name())
    }

    /// Every committed partition, by directory name.
    pub fn partitions(&self) -> impl Iterator<Item = (&str, &Committed)> {
        self.done.iter().map(|(name, committed)| (name.as_str(), committed))
    }

    /// Records `partition` as committed.
    pub fn mark_done(&mut self, partition: Partition, committed: Committed) {
        self.done.insert(partition.dir_name(), committed);
    }

    /// The widest rank window the service took, as an earlier run learnt it.
    pub fn window_rows(&self) -> Option<u64> {
        self.window_rows
    }

    /// Records `rows` as a rank window the service took.
    pub fn learn_window_rows(&mut self, rows: Option<u64>) {
        self.window_rows = rows.or(self.window_rows);
    }

    /// The parameters recorded, if any.
    pub fn parameters(&self) -> Option<&Map<String, Value>> {
        self.parameters.as_ref()
    }

    /// Records `parameters` as this export's, or refuses them when the state
    /// records others (a state without any takes them).
    pub fn check_parameters(&mut self, path: &Path, parameters: &Map<String, Value>) -> Result<(), StateError> {
        match &self.parameters {
            Some(found) if found != parameters => Err(StateError::OtherParameters {
                path: path.to_path_buf(),
                found: found.clone(),
                exporting: parameters.clone(),
            }),
            _ => {
                self.parameters = Some(parameters.clone());
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn day(d: u32) -> Partition {
        Partition::Day(NaiveDate::from_ymd_opt(2026, 10, d).unwrap())
    }

    /// A state file is someone's text: the report it names reaches a
    /// terminal escaped, so a sequence planted in it does nothing there.
    #[test]
    fn another_reports_name_is_shown_escaped() {
        let dir = std::env::temp_dir().join(format!("vidplat-state-other-{}", std::process::id()));
        let path = dir.join("state.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            &path,
            r#"{"format": 2, "report": "\u001b]52;c;aGk=\u0007", "done": {}}"#,
        )
        .unwrap();
        let refused = ExportState::load(&path, "r").unwrap_err().to_string();
        assert!(!refused.contains('\u{1b}') && !refused.contains('\u{7}'), "{refused:?}");
        assert!(
            refused.contains(r"records an export of \u{1b}]52;c;aGk=\u{7}, not r"),
            "{refused}"
        );
        let other = StateError::OtherParameters {
            path: path.clone(),
            found: serde_json::from_str(r#"{"x": "\u009b2J"}"#).unwrap(),
            exporting: Map::new(),
        };
        assert!(!other.to_string().contains('\u{9b}'), "{other}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_version_1_state_is_read_as_final_and_saved_as_version_2() {
        let dir = std::env::temp_dir().join(format!("vidplat-state-v1-{}", std::process::id()));
        let path = dir.join("state.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            &path,
            r#"{"format": 1, "report": "r", "done": {"date=2026-10-01": "2026-10-02T00:00:00+09:00"}}"#,
        )
        .unwrap();
        let mut state = ExportState::load(&path, "r").unwrap();
        assert!(state.is_final(day(1)) && !state.is_done(day(2)));
        assert_eq!(
            state.committed(day(1)).and_then(|c| c.rows),
            None,
            "a version 1 state does not say"
        );
        state.mark_done(
            day(2),
            Committed {
                fetched_at: "2026-10-03T00:00:00+09:00".to_owned(),
                rows: Some(24),
                is_final: false,
                unsampled: Some(true),
            },
        );
        state.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"format\": 2") && text.contains("\"final\": false"),
            "{text}"
        );
        let again = ExportState::load(&path, "r").unwrap();
        assert_eq!(again, state);
        assert!(again.is_done(day(2)) && !again.is_final(day(2)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn other_parameters_are_refused_and_none_recorded_takes_them() {
        let mut state = ExportState::new("r");
        let daily: Map<String, Value> = serde_json::from_str(r#"{"granularity": "daily"}"#).unwrap();
        let hourly: Map<String, Value> = serde_json::from_str(r#"{"granularity": "hourly"}"#).unwrap();
        state.check_parameters(Path::new("s"), &daily).unwrap();
        state.check_parameters(Path::new("s"), &daily).unwrap();
        let refused = state.check_parameters(Path::new("s"), &hourly).unwrap_err();
        assert!(matches!(refused, StateError::OtherParameters { .. }), "{refused}");
        assert_eq!(state.parameters(), Some(&daily));
    }
}
