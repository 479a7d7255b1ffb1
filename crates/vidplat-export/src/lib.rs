#![doc = include_str!("../README.md")]
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

#[cfg(feature = "arrow")]
mod arrow;
mod encoder;
mod export;
// Written by `cargo xtask codegen`, formatted by prettyplease.
#[rustfmt::skip]
mod generated;
mod manifest;
#[cfg(feature = "parquet")]
mod parquet;
pub mod plan;
mod report;
pub mod schema;
mod sink;
mod state;

pub use encoder::SinkError;
#[cfg(feature = "redis")]
pub use export::SHARED_CHUNK_LEASE;
pub use export::{
    Export, ExportError, ExportReport, FailedChunk, Pause, Progress, Summary, DEFAULT_CHUNK_DAYS,
    DEFAULT_MAX_PAGES_PER_CHUNK, DEFAULT_SETTLE_DAYS, DOCUMENTED_WINDOW, FIRST_WINDOW,
};
#[cfg(feature = "by-name")]
pub use generated::report_named;
pub use generated::REPORTS;
pub use manifest::{Manifest, ManifestColumn, ManifestPartition, ManifestPeriod, MANIFEST_FILE};
pub use plan::{Chunk, Plan, Refetch};
pub use report::{AnyReport, FinalBy, Report, ReportInfo, Row, Split};
pub use schema::{Column, ColumnKind, Value, LINEAGE as LINEAGE_COLUMNS};
pub use sink::{FilePartition, Files, Format, Partition, PartitionSink, RowSink, DEFAULT_ROWS_PER_GROUP};
pub use state::{Committed, ExportState, StateError};
