//! Parquet files (feature `parquet`): each row group's values gathered by
//! column, then written by the parquet crate's column writers. The crate's
//! Arrow bridge is not used: it would compile Arrow's cast and sort kernels
//! into every build of the exporter for a handful of column kinds
//! ([docs/decisions/0008](../../../docs/decisions/0008-parquet-without-the-arrow-bridge.md)).
//! The file still carries the Arrow schema ([`crate::arrow::schema`]) in its
//! footer, as Arrow's writers do, so readers that know it get the zone of
//! the timestamps, the dictionaries and the descriptions back.

use crate::arrow::{check_row, schema as arrow_schema};
use crate::encoder::{Encoder, SinkError};
use crate::schema::{Column, ColumnKind, Value};
use arrow_array::types::Date32Type;
use base64::Engine as _;
use bytes::Bytes;
use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as PhysicalType};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, DEFAULT_CREATED_BY};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};
use std::fs::File;
use std::sync::Arc;

/// The footer key under which Arrow's writers keep a file's Arrow schema.
const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// A Parquet file: one row group every `rows_per_group` rows, snappy pages.
///
/// The same rows give the same bytes: the file holds no time of writing,
/// `created_by` is the parquet crate's constant (`parquet-rs version …`, kept
/// because readers such as parquet-java decide from it whether to trust the
/// statistics), and the Arrow schema embedded in the footer is written with
/// its metadata keys sorted.
pub(crate) struct ParquetEncoder {
    writer: SerializedFileWriter<File>,
    columns: Vec<Column>,
    group: Vec<ColumnValues>,
    rows: usize,
    rows_per_group: usize,
}

impl ParquetEncoder {
    pub(crate) fn new(
        file: File,
        columns: &[Column],
        rows_per_group: usize,
        zone: chrono::FixedOffset,
    ) -> Result<Self, SinkError> {
        let mut properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_size(rows_per_group.max(1))
            .set_created_by(DEFAULT_CREATED_BY.to_owned())
            .set_key_value_metadata(Some(vec![KeyValue::new(
                ARROW_SCHEMA_KEY.to_owned(),
                encoded_arrow_schema(columns, &zone.to_string()),
            )]));
        // A nested member's JSON is nearly always unique to its row: a
        // dictionary of it costs hashing every value and saves nothing.
        for column in columns.iter().filter(|c| c.kind == ColumnKind::Json) {
            properties = properties.set_column_dictionary_enabled(ColumnPath::from(column.name), false);
        }
        let fields = columns
            .iter()
            .map(|c| field(c).map(Arc::new))
            .collect::<Result<_, _>>()?;
        // Arrow's writers name the root group so; readers ignore the name.
        let schema = Type::group_type_builder("arrow_schema").with_fields(fields).build()?;
        // The writer buffers its output itself (a `BufWriter` inside its `TrackedWrite`).
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(properties.build()))?;
        Ok(Self {
            writer,
            columns: columns.to_vec(),
            group: columns.iter().map(|c| ColumnValues::new(c.kind)).collect(),
            rows: 0,
            rows_per_group: rows_per_group.max(1),
        })
    }

    /// Writes the rows gathered so far as one row group.
    fn write_group(&mut self) -> Result<(), SinkError> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut group = self.writer.next_row_group()?;
        for (column, values) in self.columns.iter().zip(&mut self.group) {
            let mut writer = group
                .next_column()?
                .ok_or_else(|| format!("the file's schema lacks column `{}`", column.name))?;
            let levels = column.nullable.then_some(values.levels.as_slice());
            let written = match (writer.untyped(), &mut values.values) {
                (ColumnWriter::ByteArrayColumnWriter(w), Values::Text { bytes, ends }) => {
                    let bytes = Bytes::from(std::mem::take(bytes));
                    let starts = std::iter::once(0).chain(ends.iter().copied());
                    let texts: Vec<ByteArray> = starts
                        .zip(ends.iter())
                        .map(|(start, &end)| ByteArray::from(bytes.slice(start..end)))
                        .collect();
                    w.write_batch(&texts, levels, None)
                }
                (ColumnWriter::Int64ColumnWriter(w), Values::Int64(v)) => w.write_batch(v, levels, None),
                (ColumnWriter::Int32ColumnWriter(w), Values::Int32(v)) => w.write_batch(v, levels, None),
                (ColumnWriter::DoubleColumnWriter(w), Values::Double(v)) => w.write_batch(v, levels, None),
                (ColumnWriter::BoolColumnWriter(w), Values::Boolean(v)) => w.write_batch(v, levels, None),
                _ => return Err(format!("column `{}`: the file's type is not its kind's", column.name).into()),
            };
            written?;
            writer.close()?;
            values.clear();
        }
        group.close()?;
        self.rows = 0;
        Ok(())
    }
}

impl Encoder for ParquetEncoder {
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError> {
        // A row that does not fit is refused whole: no column gets a value of it.
        check_row(&self.columns, row)?;
        for (values, value) in self.group.iter_mut().zip(row) {
            values.push(value);
        }
        self.rows += 1;
        if self.rows >= self.rows_per_group {
            self.write_group()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<File, SinkError> {
        self.write_group()?;
        // Writes the footer.
        Ok(self.writer.into_inner()?)
    }
}

/// A column's Parquet type: the physical type and the logical type Arrow's
/// writers give the column's Arrow type ([`crate::arrow::data_type`]).
fn field(column: &Column) -> Result<Type, SinkError> {
    let (physical, logical) = match column.kind {
        ColumnKind::Text | ColumnKind::OpenEnum | ColumnKind::Json => {
            (PhysicalType::BYTE_ARRAY, Some(LogicalType::String))
        }
        ColumnKind::Integer => (PhysicalType::INT64, None),
        ColumnKind::Float => (PhysicalType::DOUBLE, None),
        ColumnKind::Boolean => (PhysicalType::BOOLEAN, None),
        // Milliseconds adjusted to UTC: what pyarrow and DuckDB read as a
        // timestamp (see `crate::arrow::data_type`); the zone is in the Arrow schema.
        ColumnKind::Timestamp => (
            PhysicalType::INT64,
            Some(LogicalType::Timestamp {
                is_adjusted_to_u_t_c: true,
                unit: TimeUnit::MILLIS,
            }),
        ),
        ColumnKind::Date => (PhysicalType::INT32, Some(LogicalType::Date)),
    };
    let repetition = if column.nullable {
        Repetition::OPTIONAL
    } else {
        Repetition::REQUIRED
    };
    Ok(Type::primitive_type_builder(column.name, physical)
        .with_logical_type(logical)
        .with_repetition(repetition)
        .build()?)
}

/// The columns' Arrow schema as Arrow's writers keep it in a Parquet footer:
/// the IPC schema message, after the continuation marker and its length, in base64.
fn encoded_arrow_schema(columns: &[Column], zone: &str) -> String {
    let schema = arrow_schema(columns, zone);
    let encoded = arrow_ipc::writer::IpcDataGenerator::default().schema_to_bytes_with_dictionary_tracker(
        &schema,
        &mut arrow_ipc::writer::DictionaryTracker::new(true),
        &arrow_ipc::writer::IpcWriteOptions::default(),
    );
    let message = encoded.ipc_message;
    let framed = [&[0xff; 4][..], &(message.len() as u32).to_le_bytes(), &message].concat();
    base64::engine::general_purpose::STANDARD.encode(framed)
}

/// One column's values of the row group being gathered, and its definition
/// levels (1 a value, 0 a null) when it may be null.
struct ColumnValues {
    values: Values,
    levels: Vec<i16>,
}

/// Values by their Parquet physical type. Text is kept as one buffer and the
/// end of each value in it: the row group's values become slices of one
/// allocation, not one allocation a value.
enum Values {
    Text { bytes: Vec<u8>, ends: Vec<usize> },
    Int64(Vec<i64>),
    Int32(Vec<i32>),
    Double(Vec<f64>),
    Boolean(Vec<bool>),
}

impl ColumnValues {
    fn new(kind: ColumnKind) -> Self {
        let values = match kind {
            ColumnKind::Text | ColumnKind::OpenEnum | ColumnKind::Json => Values::Text {
                bytes: Vec::new(),
                ends: Vec::new(),
            },
            ColumnKind::Integer | ColumnKind::Timestamp => Values::Int64(Vec::new()),
            ColumnKind::Date => Values::Int32(Vec::new()),
            ColumnKind::Float => Values::Double(Vec::new()),
            ColumnKind::Boolean => Values::Boolean(Vec::new()),
        };
        Self {
            values,
            levels: Vec::new(),
        }
    }

    /// Adds a value [`check_row`] accepted for this column (a null adds only its level).
    fn push(&mut self, value: &Value<'_>) {
        self.levels.push(i16::from(*value != Value::Null));
        match (&mut self.values, value) {
            (Values::Text { bytes, ends }, Value::Text(_) | Value::Json(_)) => {
                bytes.extend_from_slice(value.to_text().unwrap_or_default().as_bytes());
                ends.push(bytes.len());
            }
            (Values::Int64(v), Value::Integer(n)) => v.push(*n),
            // The instant, in milliseconds since the epoch; the Arrow schema's zone says which offset to show.
            (Values::Int64(v), Value::Timestamp(at)) => v.push(at.timestamp_millis()),
            (Values::Int32(v), Value::Date(day)) => v.push(Date32Type::from_naive_date(*day)),
            (Values::Double(v), Value::Float(x)) => v.push(*x),
            (Values::Boolean(v), Value::Boolean(b)) => v.push(*b),
            // Null, or (never, after `check_row`) a value of another kind.
            _ => {}
        }
    }

    /// Empties the column for the next row group (the numbers' buffers keep
    /// their room; the text's went to the row group as it was written).
    fn clear(&mut self) {
        self.levels.clear();
        match &mut self.values {
            Values::Text { bytes, ends } => {
                bytes.clear();
                ends.clear();
            }
            Values::Int64(v) => v.clear(),
            Values::Int32(v) => v.clear(),
            Values::Double(v) => v.clear(),
            Values::Boolean(v) => v.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A null that `check_row` let through, or a value it would refuse,
    /// never reaches a column's values: only its level does.
    #[test]
    fn a_null_adds_a_level_and_no_value() {
        let mut values = ColumnValues::new(ColumnKind::Text);
        values.push(&Value::Text("VOD"));
        values.push(&Value::Null);
        values.push(&Value::Text("LIVE"));
        assert_eq!(values.levels, [1, 0, 1]);
        let Values::Text { bytes, ends } = &values.values else {
            panic!("a text column keeps text")
        };
        assert_eq!((bytes.as_slice(), ends.as_slice()), (&b"VODLIVE"[..], &[3, 7][..]));
    }
}
