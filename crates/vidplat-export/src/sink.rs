//! Where rows go: any [`RowSink`], or [`Files`] (one file a partition, in
//! CSV, NDJSON, Arrow IPC or Parquet).

use crate::encoder::{Encoder, SinkError};
use crate::manifest::{Manifest, MANIFEST_FILE};
use crate::schema::{Column, Value};
use chrono::NaiveDate;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use vidplat_core::Period;

/// The rows of one partition: one day of a report split by day, or the
/// whole period of one that is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Partition {
    /// One day (Japan time).
    Day(NaiveDate),
    /// A whole period, asked for in one call.
    Period(Period),
}

impl Partition {
    /// The partition's directory name: `date=2026-10-01`, or
    /// `period=2026-10-01_2026-10-31`.
    pub fn dir_name(&self) -> String {
        match self {
            Partition::Day(day) => format!("date={day}"),
            Partition::Period(period) => format!("period={}_{}", period.first(), period.last()),
        }
    }
}

/// A destination for a report's rows, one partition at a time. A run opens
/// the partitions of a chunk, writes each row to its own, and commits them
/// when the chunk has been read to its end; a partition dropped without
/// [`PartitionSink::commit`] must leave no trace (the chunk failed and will
/// be read again).
pub trait RowSink {
    /// The rows of one open partition.
    type Partition: PartitionSink;

    /// Opens `partition` of `report` for the rows that follow; `columns` are
    /// the report's own followed by the lineage columns.
    fn open(
        &mut self,
        report: &'static str,
        partition: Partition,
        columns: &[Column],
    ) -> Result<Self::Partition, SinkError>;

    /// Takes the zone of the run's timestamps before any partition opens
    /// (see [`crate::Export::time_zone`]): [`Files`] gives it to the Arrow and
    /// Parquet timestamp columns; by default it is dropped.
    fn time_zone(&mut self, zone: chrono::FixedOffset) {
        let _ = zone;
    }

    /// Takes the export's description at the end of every run (finished or
    /// paused): [`Files`] writes it as `_manifest.json`; by default it is
    /// dropped.
    fn describe(&mut self, manifest: &Manifest) -> Result<(), SinkError> {
        let _ = manifest;
        Ok(())
    }
}

/// An open partition.
pub trait PartitionSink {
    /// One row, its values in the order of the columns given to [`RowSink::open`].
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError>;

    /// Makes the partition's rows visible, replacing whatever an earlier run
    /// committed for the same partition (so a rerun never duplicates a row).
    fn commit(self) -> Result<(), SinkError>;
}

/// A file format of [`Files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Comma-separated values with a header row (the `csv` crate's quoting).
    Csv,
    /// One JSON object a line.
    Ndjson,
    /// Arrow IPC files (feature `arrow`).
    #[cfg(feature = "arrow")]
    Arrow,
    /// Parquet files, snappy-compressed (feature `parquet`).
    #[cfg(feature = "parquet")]
    Parquet,
}

impl Format {
    /// The files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Ndjson => "ndjson",
            #[cfg(feature = "arrow")]
            Format::Arrow => "arrow",
            #[cfg(feature = "parquet")]
            Format::Parquet => "parquet",
        }
    }
}

/// Rows per Arrow record batch and per Parquet row group: what a partition
/// holds in memory at most, besides the file's own buffers.
pub const DEFAULT_ROWS_PER_GROUP: usize = 8192;

/// A directory of files, one per partition:
/// `dir/date=2026-10-01/part-000.parquet` (or `period=…_…`). Each is written
/// to a hidden temporary name beside it and renamed when complete, so a
/// crash never leaves a half file where a finished one is expected.
#[derive(Clone, Debug)]
pub struct Files {
    dir: PathBuf,
    format: Format,
    rows_per_group: usize,
    time_zone: chrono::FixedOffset,
}

impl Files {
    /// Files of `format` under `dir` (created as needed).
    pub fn new(dir: impl Into<PathBuf>, format: Format) -> Self {
        Self {
            dir: dir.into(),
            format,
            rows_per_group: DEFAULT_ROWS_PER_GROUP,
            time_zone: vidplat_core::japan_offset(),
        }
    }

    /// Rows per Arrow batch or Parquet row group (at least 1).
    pub fn rows_per_group(mut self, rows: usize) -> Self {
        self.rows_per_group = rows.max(1);
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a partition ends up in.
    pub fn path_of(&self, partition: Partition) -> PathBuf {
        self.dir
            .join(partition.dir_name())
            .join(format!("part-000.{}", self.format.extension()))
    }
}

impl RowSink for Files {
    type Partition = FilePartition;

    fn open(
        &mut self,
        _report: &'static str,
        partition: Partition,
        columns: &[Column],
    ) -> Result<FilePartition, SinkError> {
        let path = self.path_of(partition);
        std::fs::create_dir_all(&self.dir)?;
        // The partition's directory is the export's own: a link planted there
        // would send the files elsewhere.
        if let Some(dir) = path.parent() {
            vidplat_core::__private::own_dir(dir)?;
        }
        // What killed runs left is discarded: the partition is written again
        // now, into a new file of this process's (never a link followed, nor a
        // file another writer holds).
        vidplat_core::__private::clear_beside(&path)?;
        let (temporary, file) = vidplat_core::__private::new_beside(&path, false)?;
        let writer: Box<dyn Encoder> = match self.format {
            Format::Csv => Box::new(CsvEncoder::new(file, columns)?),
            Format::Ndjson => Box::new(NdjsonEncoder::new(file, columns)),
            #[cfg(feature = "arrow")]
            Format::Arrow => Box::new(crate::arrow::IpcEncoder::new(
                file,
                columns,
                self.rows_per_group,
                self.time_zone,
            )?),
            #[cfg(feature = "parquet")]
            Format::Parquet => Box::new(crate::parquet::ParquetEncoder::new(
                file,
                columns,
                self.rows_per_group,
                self.time_zone,
            )?),
        };
        Ok(FilePartition {
            writer: Some(writer),
            temporary,
            path,
        })
    }

    fn time_zone(&mut self, zone: chrono::FixedOffset) {
        self.time_zone = zone;
    }

    fn describe(&mut self, manifest: &Manifest) -> Result<(), SinkError> {
        std::fs::create_dir_all(&self.dir)?;
        let mut text = serde_json::to_vec_pretty(manifest)?;
        text.push(b'\n');
        vidplat_core::__private::replace_file(&self.dir.join(MANIFEST_FILE), &text, false)?;
        Ok(())
    }
}

/// One partition's file being written (see [`Files`]).
pub struct FilePartition {
    writer: Option<Box<dyn Encoder>>,
    temporary: PathBuf,
    path: PathBuf,
}

impl std::fmt::Debug for FilePartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilePartition").field("path", &self.path).finish()
    }
}

impl PartitionSink for FilePartition {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        let writer = self.writer.as_mut().ok_or("the partition is already committed")?;
        writer.write(row)
    }

    fn commit(mut self) -> Result<(), SinkError> {
        let writer = self.writer.take().ok_or("the partition is already committed")?;
        let file = writer.finish()?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temporary, &self.path)?;
        // The rename itself survives a crash only once the directory is synced.
        if let Some(dir) = self.path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    }
}

impl Drop for FilePartition {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

struct CsvEncoder {
    writer: csv::Writer<BufWriter<File>>,
    /// One buffer for every value's text.
    text: String,
    /// Per column, the last time value and its text: the lineage columns
    /// are the same on every row of a chunk, a day column on a day's rows.
    last_times: Vec<(Value<'static>, String)>,
}

impl CsvEncoder {
    fn new(file: File, columns: &[Column]) -> Result<Self, SinkError> {
        let mut writer = csv::Writer::from_writer(BufWriter::with_capacity(64 * 1024, file));
        writer.write_record(columns.iter().map(|c| c.name))?;
        Ok(Self {
            writer,
            text: String::with_capacity(256),
            last_times: vec![(Value::Null, String::new()); columns.len()],
        })
    }
}

impl Encoder for CsvEncoder {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        for (column, value) in row.iter().enumerate() {
            let time = match value {
                Value::Timestamp(at) => Some(Value::Timestamp(*at)),
                Value::Date(day) => Some(Value::Date(*day)),
                _ => None,
            };
            match (time, self.last_times.get_mut(column)) {
                (Some(time), Some((seen, text))) => {
                    if *seen != time {
                        *text = time.to_text().unwrap_or_default().into_owned();
                        *seen = time;
                    }
                    self.writer.write_field(text.as_bytes())?;
                }
                _ => {
                    self.text.clear();
                    value.write_text(&mut self.text);
                    self.writer.write_field(self.text.as_bytes())?;
                }
            }
        }
        self.writer.write_record(None::<&[u8]>)?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<File, SinkError> {
        let buffered = self.writer.into_inner().map_err(|e| e.into_error())?;
        Ok(buffered.into_inner().map_err(|e| e.into_error())?)
    }
}

struct NdjsonEncoder {
    writer: BufWriter<File>,
    names: Vec<String>,
    /// One buffer for every time value's text.
    text: String,
}

impl NdjsonEncoder {
    fn new(file: File, columns: &[Column]) -> Self {
        Self {
            writer: BufWriter::with_capacity(64 * 1024, file),
            // Each name as its JSON string, written once per row as is.
            names: columns
                .iter()
                .map(|c| serde_json::Value::from(c.name).to_string())
                .collect(),
            text: String::with_capacity(64),
        }
    }
}

impl Encoder for NdjsonEncoder {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        let out = &mut self.writer;
        out.write_all(b"{")?;
        for (i, (name, value)) in self.names.iter().zip(row).enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(name.as_bytes())?;
            out.write_all(b":")?;
            match value {
                Value::Integer(n) => write!(out, "{n}")?,
                Value::Float(x) if x.is_finite() => write!(out, "{x}")?,
                Value::Null | Value::Float(_) => out.write_all(b"null")?,
                Value::Boolean(b) => out.write_all(if *b { b"true" } else { b"false" })?,
                // Nested members stay JSON, not JSON in a string.
                Value::Json(json) => out.write_all(json.as_bytes())?,
                // Digits and signs only: nothing to escape.
                Value::Timestamp(_) | Value::Date(_) => {
                    self.text.clear();
                    value.write_text(&mut self.text);
                    write!(out, "\"{}\"", self.text)?;
                }
                other => serde_json::to_writer(&mut *out, other.to_text().as_deref().unwrap_or_default())?,
            }
        }
        out.write_all(b"}\n")?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<File, SinkError> {
        Ok(self.writer.into_inner().map_err(|e| e.into_error())?)
    }
}
