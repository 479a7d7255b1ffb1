//! Arrow: the schema a report's columns give, the batches its rows make, and
//! Arrow IPC files (feature `arrow`). The Parquet encoder embeds the same
//! schema in its files, and checks its rows as the batches do ([`check_row`]).

use crate::encoder::{Encoder, SinkError};
use crate::schema::{Column, ColumnKind, Value};
use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, StringBuilder, StringDictionaryBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::types::{Date32Type, Int32Type};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_ipc::writer::{DictionaryHandling, FileWriter, IpcWriteOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use chrono::FixedOffset;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::Arc;

/// The Arrow type of a column kind; timestamps carry `zone` (`+09:00`).
pub(crate) fn data_type(kind: ColumnKind, zone: &str) -> DataType {
    match kind {
        ColumnKind::Text | ColumnKind::Json => DataType::Utf8,
        ColumnKind::OpenEnum => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        ColumnKind::Integer => DataType::Int64,
        ColumnKind::Float => DataType::Float64,
        ColumnKind::Boolean => DataType::Boolean,
        // Milliseconds: Parquet has no second unit, and a second timestamp is
        // written as a bare INT64, which readers that go by the Parquet schema
        // (pyarrow, DuckDB) read as a number. As milliseconds it is a TIMESTAMP
        // adjusted to UTC, the zone kept in the embedded Arrow schema
        // (`tests/exporter/python_readers.rs` reads both formats back).
        ColumnKind::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, Some(zone.into())),
        ColumnKind::Date => DataType::Date32,
    }
}

/// The Arrow schema of a report's columns: each column's description in its
/// field metadata, JSON columns marked both with `vidplat.kind = json` and
/// with Arrow's canonical `arrow.json` extension type (so readers that know it,
/// pyarrow among them, read the column as JSON).
pub(crate) fn schema(columns: &[Column], zone: &str) -> Schema {
    let fields: Vec<Field> = columns
        .iter()
        .map(|column| {
            let mut metadata = HashMap::from([("description".to_owned(), column.description.to_owned())]);
            if column.kind == ColumnKind::Json {
                metadata.insert("vidplat.kind".to_owned(), "json".to_owned());
                metadata.insert("ARROW:extension:name".to_owned(), "arrow.json".to_owned());
                metadata.insert("ARROW:extension:metadata".to_owned(), String::new());
            }
            Field::new(column.name, data_type(column.kind, zone), column.nullable).with_metadata(metadata)
        })
        .collect();
    Schema::new(fields)
}

fn variant(value: &Value<'_>) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Text(_) => "text",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Timestamp(_) => "a timestamp",
        Value::Date(_) => "a date",
        Value::Json(_) => "JSON",
    }
}

fn mismatch(column: &Column, value: &Value<'_>) -> SinkError {
    format!(
        "column `{}` holds {} values, and the row gives it {}",
        column.name,
        column.kind.name(),
        variant(value)
    )
    .into()
}

/// Whether `row` fits `columns`: as many values as columns, each of its
/// column's kind (or null where the column may be empty).
pub(crate) fn check_row(columns: &[Column], row: &[Value<'_>]) -> Result<(), SinkError> {
    if row.len() != columns.len() {
        return Err(format!("a row of {} values for {} columns", row.len(), columns.len()).into());
    }
    columns
        .iter()
        .zip(row)
        .try_for_each(|(column, value)| check(column, value))
}

/// Whether `value` fits `column`.
fn check(column: &Column, value: &Value<'_>) -> Result<(), SinkError> {
    match (column.kind, value) {
        (_, Value::Null) if column.nullable => Ok(()),
        (_, Value::Null) => {
            Err(format!("column `{}` may not be null, and the row leaves it empty", column.name).into())
        }
        (ColumnKind::Text | ColumnKind::OpenEnum, Value::Text(_))
        | (ColumnKind::Integer, Value::Integer(_))
        | (ColumnKind::Float, Value::Float(_))
        | (ColumnKind::Boolean, Value::Boolean(_))
        | (ColumnKind::Timestamp, Value::Timestamp(_))
        | (ColumnKind::Date, Value::Date(_))
        | (ColumnKind::Json, Value::Json(_)) => Ok(()),
        _ => Err(mismatch(column, value)),
    }
}

/// One column's values of the batch being built.
enum Builder {
    Text(StringBuilder),
    OpenEnum(StringDictionaryBuilder<Int32Type>),
    Integer(Int64Builder),
    Float(Float64Builder),
    Boolean(BooleanBuilder),
    Timestamp(TimestampMillisecondBuilder),
    Date(Date32Builder),
    Json(StringBuilder),
}

impl Builder {
    fn new(kind: ColumnKind, rows: usize, zone: &str) -> Self {
        match kind {
            // 16 bytes a value to start with; the buffers grow as needed.
            ColumnKind::Text => Builder::Text(StringBuilder::with_capacity(rows, rows * 16)),
            ColumnKind::OpenEnum => Builder::OpenEnum(StringDictionaryBuilder::new()),
            ColumnKind::Integer => Builder::Integer(Int64Builder::with_capacity(rows)),
            ColumnKind::Float => Builder::Float(Float64Builder::with_capacity(rows)),
            ColumnKind::Boolean => Builder::Boolean(BooleanBuilder::with_capacity(rows)),
            ColumnKind::Timestamp => {
                Builder::Timestamp(TimestampMillisecondBuilder::with_capacity(rows).with_timezone(zone))
            }
            ColumnKind::Date => Builder::Date(Date32Builder::with_capacity(rows)),
            ColumnKind::Json => Builder::Json(StringBuilder::with_capacity(rows, rows * 64)),
        }
    }

    /// Text bytes already in the batch, for the builders whose offsets are i32.
    fn text_bytes(&self) -> usize {
        match self {
            Builder::Text(b) | Builder::Json(b) => b.values_slice().len(),
            _ => 0,
        }
    }

    /// Appends a value [`check_row`] accepted for this builder's column.
    fn append(&mut self, column: &Column, value: &Value<'_>) -> Result<(), SinkError> {
        match (self, value) {
            (Builder::Text(b) | Builder::Json(b), Value::Null) => b.append_null(),
            (Builder::OpenEnum(b), Value::Null) => b.append_null(),
            (Builder::Integer(b), Value::Null) => b.append_null(),
            (Builder::Float(b), Value::Null) => b.append_null(),
            (Builder::Boolean(b), Value::Null) => b.append_null(),
            (Builder::Timestamp(b), Value::Null) => b.append_null(),
            (Builder::Date(b), Value::Null) => b.append_null(),
            (Builder::Text(b), Value::Text(text)) => b.append_value(text),
            (Builder::Json(b), Value::Json(json)) => b.append_value(json),
            (Builder::OpenEnum(b), Value::Text(text)) => {
                // `append_value` would panic past 2^31 distinct values; this says so instead.
                b.append(text).map_err(|e| format!("column `{}`: {e}", column.name))?;
            }
            (Builder::Integer(b), Value::Integer(n)) => b.append_value(*n),
            (Builder::Float(b), Value::Float(x)) => b.append_value(*x),
            (Builder::Boolean(b), Value::Boolean(v)) => b.append_value(*v),
            // The instant, in milliseconds since the epoch; the field's zone says which offset to show.
            (Builder::Timestamp(b), Value::Timestamp(at)) => b.append_value(at.timestamp_millis()),
            (Builder::Date(b), Value::Date(day)) => b.append_value(Date32Type::from_naive_date(*day)),
            (_, value) => return Err(mismatch(column, value)),
        }
        Ok(())
    }

    /// The batch's array; the builder starts the next batch empty but for an
    /// open enum's dictionary, which carries over, so each batch's dictionary
    /// extends the last one's (what an IPC file's delta dictionaries need).
    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Text(b) | Builder::Json(b) => Arc::new(b.finish()),
            Builder::OpenEnum(b) => Arc::new(b.finish_preserve_values()),
            Builder::Integer(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Boolean(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::Date(b) => Arc::new(b.finish()),
        }
    }
}

/// Rows into record batches of `rows_per_group` rows: at most one batch is
/// held, never the whole partition.
struct Batcher {
    schema: SchemaRef,
    columns: Vec<Column>,
    builders: Vec<Builder>,
    rows: usize,
    rows_per_group: usize,
}

impl Batcher {
    /// A batcher for `columns`, timestamps in `zone`.
    fn new(columns: &[Column], rows_per_group: usize, zone: FixedOffset) -> Self {
        let rows_per_group = rows_per_group.max(1);
        let zone = zone.to_string();
        Self {
            schema: Arc::new(schema(columns, &zone)),
            columns: columns.to_vec(),
            builders: columns
                .iter()
                .map(|c| Builder::new(c.kind, rows_per_group, &zone))
                .collect(),
            rows: 0,
            rows_per_group,
        }
    }

    /// Adds a row; the batch it completes, if it does. A row that does not fit
    /// the columns is refused whole (no column gets a value of it).
    fn push(&mut self, row: &[Value<'_>]) -> Result<Option<RecordBatch>, SinkError> {
        check_row(&self.columns, row)?;
        for ((column, value), builder) in self.columns.iter().zip(row).zip(&self.builders) {
            // Text arrays have i32 offsets: 2 GiB of one column's text in one batch would overflow them.
            let added = match value {
                Value::Text(text) => text.len(),
                Value::Json(json) => json.len(),
                _ => 0,
            };
            if builder.text_bytes() + added > i32::MAX as usize {
                return Err(format!(
                    "column `{}`: more than 2 GiB of text in one batch; write fewer rows a group",
                    column.name
                )
                .into());
            }
        }
        for ((column, value), builder) in self.columns.iter().zip(row).zip(&mut self.builders) {
            builder.append(column, value)?;
        }
        self.rows += 1;
        if self.rows >= self.rows_per_group {
            return self.flush();
        }
        Ok(None)
    }

    /// The rows not yet in a batch, as one (none if there are none).
    fn flush(&mut self) -> Result<Option<RecordBatch>, SinkError> {
        if self.rows == 0 {
            return Ok(None);
        }
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        Ok(Some(RecordBatch::try_new(Arc::clone(&self.schema), arrays)?))
    }
}

/// An Arrow IPC file (the file format, `.arrow`), one record batch every
/// `rows_per_group` rows, uncompressed (the codecs are C builds or extra crates).
pub(crate) struct IpcEncoder {
    writer: FileWriter<BufWriter<File>>,
    batcher: Batcher,
}

impl IpcEncoder {
    pub(crate) fn new(
        file: File,
        columns: &[Column],
        rows_per_group: usize,
        zone: FixedOffset,
    ) -> Result<Self, SinkError> {
        // An IPC file may not replace a dictionary, only extend it: the batcher
        // keeps each open enum's dictionary from batch to batch, and the writer
        // writes what each batch adds as a delta.
        let batcher = Batcher::new(columns, rows_per_group, zone);
        let options = IpcWriteOptions::default().with_dictionary_handling(DictionaryHandling::Delta);
        let writer =
            FileWriter::try_new_with_options(BufWriter::with_capacity(256 * 1024, file), &batcher.schema, options)?;
        Ok(Self { writer, batcher })
    }
}

impl Encoder for IpcEncoder {
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
        let buffered = self.writer.into_inner()?;
        Ok(buffered.into_inner().map_err(|e| e.into_error())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray as _;
    use arrow_array::Array as _;

    const COLUMNS: [Column; 3] = [
        Column {
            name: "kind",
            kind: ColumnKind::OpenEnum,
            nullable: true,
            description: "An open enum.",
        },
        Column {
            name: "count",
            kind: ColumnKind::Integer,
            nullable: false,
            description: "A count.",
        },
        Column {
            name: "bitmap",
            kind: ColumnKind::Json,
            nullable: false,
            description: "Nested.",
        },
    ];

    #[test]
    fn a_batch_every_rows_per_group_rows_and_the_rest_at_the_end() {
        let mut batcher = Batcher::new(&COLUMNS, 2, vidplat_core::japan_offset());
        let row = |kind, n| [Value::Text(kind), Value::Integer(n), Value::Json("[1]".to_owned())];
        assert!(batcher.push(&row("VOD", 1)).unwrap().is_none());
        let first = batcher.push(&row("LIVE", 2)).unwrap().expect("a batch at 2 rows");
        assert_eq!(first.num_rows(), 2);
        assert!(batcher.push(&row("VOD", 3)).unwrap().is_none());
        let last = batcher.flush().unwrap().expect("the last row");
        assert_eq!(last.num_rows(), 1);
        assert!(batcher.flush().unwrap().is_none());
        // The dictionary carries over: the second batch's extends the first's.
        let dictionary = last.column(0).as_dictionary::<Int32Type>();
        let values: Vec<_> = dictionary.values().as_string::<i32>().iter().flatten().collect();
        assert_eq!(values, ["VOD", "LIVE"]);
        assert_eq!(dictionary.keys().value(0), 0);
    }

    #[test]
    fn a_row_that_does_not_fit_is_refused_whole_naming_its_column() {
        let mut batcher = Batcher::new(&COLUMNS, 10, vidplat_core::japan_offset());
        let error = batcher
            .push(&[Value::Text("VOD"), Value::Text("7"), Value::Json("[]".to_owned())])
            .unwrap_err();
        assert!(error.to_string().contains("`count`"), "{error}");
        let error = batcher
            .push(&[Value::Null, Value::Integer(1), Value::Null])
            .unwrap_err();
        assert!(error.to_string().contains("`bitmap` may not be null"), "{error}");
        let error = batcher.push(&[Value::Null]).unwrap_err();
        assert!(error.to_string().contains("1 values for 3 columns"), "{error}");
        // Nothing of the refused rows went into the builders.
        batcher
            .push(&[Value::Null, Value::Integer(1), Value::Json("[]".to_owned())])
            .unwrap();
        let batch = batcher.flush().unwrap().expect("one row");
        assert_eq!(batch.num_rows(), 1);
        assert!(batch.column(0).is_null(0));
    }
}
