//! `_manifest.json`: what an output directory holds, for whoever reads it
//! without the command that wrote it: the report, its parameters and
//! period, each partition with its rows and whether its figures are final,
//! the columns with their kinds and descriptions, the zone of its times and
//! the version of the tool.

use crate::report::{FinalBy, ReportInfo, Split};
use crate::schema::Column;
use serde::Serialize;
use serde_json::{Map, Value};
use vidplat_core::Period;

/// The manifest's file name in the output directory.
pub const MANIFEST_FILE: &str = "_manifest.json";

/// The version of the manifest's shape.
const MANIFEST_FORMAT: u32 = 1;

/// An export's description, written beside its partitions (see [`crate::Files`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Manifest {
    /// The version of this shape.
    pub format: u32,
    /// The report (operation id).
    pub report: &'static str,
    /// `basic` (`/v1`) or `cloud` (`/v2`).
    pub edition: &'static str,
    /// The report's own parameters, as sent.
    pub parameters: Map<String, Value>,
    /// The period asked for.
    pub period: ManifestPeriod,
    /// `by_day` (one partition a day) or `whole_period`.
    pub split: &'static str,
    /// How finality is judged: `golden` (the service says) or `age`.
    pub final_by: &'static str,
    /// Days a day's figures may change after it ends, where judged by age.
    pub settle_days: u32,
    /// The zone of every time in the files and of the day folders (`+09:00`).
    pub time_zone: String,
    /// Every partition committed, in order.
    pub partitions: Vec<ManifestPartition>,
    /// The columns of every file, in order.
    pub columns: Vec<ManifestColumn>,
    /// The tool that wrote the files.
    pub written_by: String,
}

/// The period of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ManifestPeriod {
    /// The first day.
    pub first: String,
    /// The last day (included).
    pub last: String,
}

/// One partition of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ManifestPartition {
    /// Its directory (`date=2026-10-01`).
    pub path: String,
    /// Its rows, when known.
    pub rows: Option<u64>,
    /// Whether its figures are final.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Whether the service said its figures are unsampled; `null` when it did not say.
    pub unsampled: Option<bool>,
    /// When it was fetched (RFC 3339).
    pub fetched_at: String,
}

/// One column of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ManifestColumn {
    /// Its name.
    pub name: &'static str,
    /// Its kind (`text`, `integer`, `timestamp (+09:00)`, `date`, …).
    pub kind: &'static str,
    /// Whether a row may leave it empty.
    pub nullable: bool,
    /// The YAML's description.
    pub description: &'static str,
}

/// What a manifest is made of: an export of `info` over `period`, sent with `parameters`, whose committed partitions are `partitions`.
pub(crate) struct Described<'a> {
    pub(crate) info: &'a ReportInfo,
    pub(crate) period: Period,
    pub(crate) parameters: Map<String, Value>,
    pub(crate) settle_days: u32,
    pub(crate) time_zone: chrono::FixedOffset,
    pub(crate) columns: &'a [Column],
    pub(crate) partitions: Vec<ManifestPartition>,
}

impl Manifest {
    /// The manifest of what `described` says.
    pub(crate) fn new(described: Described<'_>) -> Self {
        let Described {
            info,
            period,
            parameters,
            settle_days,
            time_zone,
            columns,
            partitions,
        } = described;
        Self {
            format: MANIFEST_FORMAT,
            report: info.name,
            edition: info.edition,
            parameters,
            period: ManifestPeriod {
                first: period.first().to_string(),
                last: period.last().to_string(),
            },
            split: match info.split {
                Split::ByDay { .. } => "by_day",
                Split::WholePeriod => "whole_period",
            },
            final_by: match info.final_by {
                FinalBy::Golden => "golden",
                FinalBy::Age => "age",
            },
            settle_days,
            time_zone: time_zone.to_string(),
            partitions,
            columns: columns
                .iter()
                .map(|c| ManifestColumn {
                    name: c.name,
                    kind: c.kind.name(),
                    nullable: c.nullable,
                    description: c.description,
                })
                .collect(),
            written_by: concat!("vidplat-export ", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }
}
