//! Parquet files (feature `parquet`): the Arrow schema and batches of
//! `crate::arrow`, written by the parquet crate's `ArrowWriter`.

use crate::arrow::Batcher;
use crate::encoder::{Encoder, SinkError};
use crate::schema::{Column, ColumnKind, Value};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, DEFAULT_CREATED_BY};
use parquet::schema::types::ColumnPath;
use std::fs::File;

/// Rows a batch handed to the writer.
const BATCH_ROWS: usize = 1024;

/// A Parquet file: one row group every `rows_per_group` rows, snappy pages.
///
/// The same rows give the same bytes: the file holds no time of writing,
/// `created_by` is the parquet crate's constant (`parquet-rs version …`, kept
/// because readers such as parquet-java decide from it whether to trust the
/// statistics), and the Arrow schema embedded in the footer is written with
/// its metadata keys sorted.
pub(crate) struct ParquetEncoder {
    writer: ArrowWriter<File>,
    batcher: Batcher,
}

impl ParquetEncoder {
    pub(crate) fn new(
        file: File,
        columns: &[Column],
        rows_per_group: usize,
        zone: chrono::FixedOffset,
    ) -> Result<Self, SinkError> {
        // The writer gets the rows in small batches and cuts the row groups
        // itself: it encodes each batch as it comes, so the work is spread
        // over the rows instead of a burst at every group's end, during which
        // the SDK's row stream (a few hundred rows of slack) would stall the
        // download. No dictionary carries over: the writer re-encodes each batch.
        let batcher = Batcher::new(columns, rows_per_group.clamp(1, BATCH_ROWS), false, zone);
        let mut properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_size(rows_per_group.max(1))
            .set_created_by(DEFAULT_CREATED_BY.to_owned());
        // A nested member's JSON is nearly always unique to its row: a
        // dictionary of it costs hashing every value and saves nothing.
        for column in columns.iter().filter(|c| c.kind == ColumnKind::Json) {
            properties = properties.set_column_dictionary_enabled(ColumnPath::from(column.name), false);
        }
        let properties = properties.build();
        // `ArrowWriter` buffers its output itself (a `BufWriter` inside its `TrackedWrite`).
        let writer = ArrowWriter::try_new(file, batcher.schema().clone(), Some(properties))?;
        Ok(Self { writer, batcher })
    }
}

impl Encoder for ParquetEncoder {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        if let Some(batch) = self.batcher.push(row)? {
            self.writer.write(&batch)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<File, SinkError> {
        if let Some(batch) = self.batcher.flush()? {
            self.writer.write(&batch)?;
        }
        // Flushes the last row group and writes the footer.
        Ok(self.writer.into_inner()?)
    }
}
