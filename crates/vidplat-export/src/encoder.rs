//! The writer every file format implements, apart from the sink that picks
//! one ([`crate::sink`]): no format refers to the dispatcher, as arrow-rs's
//! formats implement `RecordBatchWriter` apart from whoever chooses them.

use crate::schema::Value;
use std::fs::File;

/// What a sink can fail with.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// A file format's writer.
pub(crate) trait Encoder: Send {
    /// One row, its values in the order of the partition's columns.
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError>;
    /// Writes what is buffered and the format's footer; the file, to be synced.
    fn finish(self: Box<Self>) -> Result<File, SinkError>;
}

/// What the columnar formats (Arrow IPC and Parquet) share: a row's values
/// checked against the columns' kinds, and dates counted from the epoch.
#[cfg(feature = "arrow")]
mod columnar {
    use super::SinkError;
    use crate::schema::{Column, ColumnKind, Value};

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

    pub(crate) fn mismatch(column: &Column, value: &Value<'_>) -> SinkError {
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
        let fits = match (column.kind, value) {
            (_, Value::Null) if column.nullable => true,
            (_, Value::Null) => {
                return Err(format!("column `{}` may not be null, and the row leaves it empty", column.name).into())
            }
            (ColumnKind::Text | ColumnKind::OpenEnum, Value::Text(_))
            | (ColumnKind::Integer, Value::Integer(_))
            | (ColumnKind::Float, Value::Float(_))
            | (ColumnKind::Boolean, Value::Boolean(_))
            | (ColumnKind::Timestamp, Value::Timestamp(_))
            | (ColumnKind::Date, Value::Date(_))
            | (ColumnKind::Json, Value::Json(_)) => true,
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(mismatch(column, value))
        }
    }
}
#[cfg(feature = "arrow")]
pub(crate) use columnar::{check_row, mismatch};
