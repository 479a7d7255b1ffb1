//! Parquet and Arrow IPC files written through `Files`, read back with the
//! parquet crate's reader and arrow-ipc's `FileReader` (not the exporter's
//! own code): schema, row groups, values, determinism, and what a bad row
//! leaves behind.

use crate::columns::EVERY_KIND as COLUMNS;
use arrow_array::cast::AsArray as _;
use arrow_array::types::{Date32Type, Float64Type, Int32Type, Int64Type, TimestampMillisecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use chrono::{DateTime, NaiveDate};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{LogicalType, Type as PhysicalType};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use vidplat_export::{Files, Format, Partition, PartitionSink as _, RowSink as _, Value};

pub(crate) const REPORT: &str = "cloud_viewing_history";

pub(crate) fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, 1).expect("a day")
}

fn at(rfc3339: &str) -> DateTime<chrono::FixedOffset> {
    DateTime::parse_from_rfc3339(rfc3339).expect(rfc3339)
}

/// Row `i`: nulls, an unknown open-enum value, non-ASCII text and a JSON
/// member among them (the Python readers' test writes them too).
pub(crate) fn row(i: usize) -> Vec<Value<'static>> {
    const TITLES: [&str; 3] = [
        "ドラマ 第1話: \"始まり\"",
        "news, at 7\nsecond line",
        "Ωmega – ümlaut 🎬",
    ];
    const TYPES: [&str; 3] = ["VOD", "LIVE_ARCHIVE", "VOD"];
    let nulls = i % 4 == 3;
    vec![
        if nulls { Value::Null } else { Value::Text(TITLES[i % 3]) },
        if nulls { Value::Null } else { Value::Text(TYPES[i % 3]) },
        if nulls {
            Value::Null
        } else {
            Value::Integer(i as i64 * 1_000 - 5)
        },
        if nulls {
            Value::Null
        } else {
            Value::Float(i as f64 / 8.0)
        },
        if nulls {
            Value::Null
        } else {
            Value::Boolean(i.is_multiple_of(2))
        },
        if nulls {
            Value::Null
        } else {
            Value::Timestamp(at(&format!("2026-10-01T{:02}:45:07+09:00", i % 24)))
        },
        Value::Json(format!("[0,{i},3]")),
        Value::Text(["user-一", "user-2"][i % 2]),
        Value::Date(day()),
        Value::Timestamp(at("2026-10-02T08:00:00+09:00")),
    ]
}

/// What the readers should give for row `i`, worked out here, not by the exporter.
#[derive(Debug, PartialEq)]
enum Cell {
    Null,
    Text(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// Milliseconds since the Unix epoch.
    Millis(i64),
    /// Days since 1970-01-01.
    Days(i32),
}

fn expected(i: usize) -> Vec<Cell> {
    row(i)
        .into_iter()
        .map(|value| match value {
            Value::Null => Cell::Null,
            Value::Text(text) => Cell::Text(text.to_owned()),
            Value::Json(json) => Cell::Text(json),
            Value::Integer(n) => Cell::Integer(n),
            Value::Float(x) => Cell::Float(x),
            Value::Boolean(b) => Cell::Boolean(b),
            Value::Timestamp(t) => Cell::Millis(t.timestamp_millis()),
            Value::Date(d) => Cell::Days(
                i32::try_from((d - NaiveDate::from_ymd_opt(1970, 1, 1).expect("epoch")).num_days()).expect("days"),
            ),
        })
        .collect()
}

/// The schema the files must carry, written out by hand.
fn expected_schema() -> Schema {
    let described = |name: &str, data_type: DataType, nullable: bool, description: &str| {
        Field::new(name, data_type, nullable)
            .with_metadata(HashMap::from([("description".to_owned(), description.to_owned())]))
    };
    let japan = || DataType::Timestamp(TimeUnit::Millisecond, Some("+09:00".into()));
    Schema::new(vec![
        described("content_title", DataType::Utf8, true, "Content title."),
        described(
            "content_type",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
            "Type of a content.",
        ),
        described("play_time", DataType::Int64, true, "Play time."),
        described(
            "complete_play_percent",
            DataType::Float64,
            true,
            "Share of plays watched to the end.",
        ),
        described("is_live", DataType::Boolean, true, "Whether the content is live."),
        described("date_time", japan(), true, "Time of the viewing."),
        Field::new("engagement_bitmap", DataType::Utf8, false).with_metadata(HashMap::from([
            ("description".to_owned(), "Engagement per position.".to_owned()),
            ("vidplat.kind".to_owned(), "json".to_owned()),
            ("ARROW:extension:name".to_owned(), "arrow.json".to_owned()),
            ("ARROW:extension:metadata".to_owned(), String::new()),
        ])),
        described("user_id", DataType::Utf8, false, "User ID."),
        described(
            "export_chunk_first",
            DataType::Date32,
            false,
            "The first day of the period the row was asked for in (Japan time).",
        ),
        described(
            "export_fetched_at",
            japan(),
            false,
            "When the row's period was fetched (Japan time).",
        ),
    ])
}

/// Writes `rows` rows into one day's partition and commits it; the file.
fn write(dir: &Path, format: Format, rows_per_group: usize, rows: usize) -> PathBuf {
    let mut files = Files::new(dir, format).rows_per_group(rows_per_group);
    let mut partition = files.open(REPORT, Partition::Day(day()), &COLUMNS).expect("open");
    for i in 0..rows {
        partition.write(&row(i)).expect("write");
    }
    partition.commit().expect("commit");
    files.path_of(Partition::Day(day()))
}

/// Every row of the batches, as cells.
fn cells(batches: &[RecordBatch]) -> Vec<Vec<Cell>> {
    let mut rows = Vec::new();
    for batch in batches {
        for r in 0..batch.num_rows() {
            let row = batch
                .columns()
                .iter()
                .map(|column| {
                    if column.is_null(r) {
                        return Cell::Null;
                    }
                    match column.data_type() {
                        DataType::Utf8 => Cell::Text(column.as_string::<i32>().value(r).to_owned()),
                        DataType::Dictionary(_, _) => {
                            let dictionary = column.as_dictionary::<Int32Type>();
                            let key = dictionary.keys().value(r) as usize;
                            Cell::Text(dictionary.values().as_string::<i32>().value(key).to_owned())
                        }
                        DataType::Int64 => Cell::Integer(column.as_primitive::<Int64Type>().value(r)),
                        DataType::Float64 => Cell::Float(column.as_primitive::<Float64Type>().value(r)),
                        DataType::Boolean => Cell::Boolean(column.as_boolean().value(r)),
                        DataType::Timestamp(TimeUnit::Millisecond, _) => {
                            Cell::Millis(column.as_primitive::<TimestampMillisecondType>().value(r))
                        }
                        DataType::Date32 => Cell::Days(column.as_primitive::<Date32Type>().value(r)),
                        other => panic!("unexpected type {other}"),
                    }
                })
                .collect();
            rows.push(row);
        }
    }
    rows
}

/// The schema, the row groups' sizes and the batches of a Parquet file.
fn read_parquet(path: &Path) -> (Schema, Vec<i64>, Vec<RecordBatch>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("open")).expect("a Parquet file");
    let groups = builder.metadata().row_groups().iter().map(|g| g.num_rows()).collect();
    let schema = builder.schema().as_ref().clone();
    let batches = builder
        .build()
        .expect("reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("batches");
    (schema, groups, batches)
}

/// The schema and the batches of an Arrow IPC file.
fn read_ipc(path: &Path) -> (Schema, Vec<RecordBatch>) {
    let reader = arrow_ipc::reader::FileReader::try_new(File::open(path).expect("open"), None).expect("an IPC file");
    let schema = reader.schema().as_ref().clone();
    let batches = reader.collect::<Result<Vec<_>, _>>().expect("batches");
    (schema, batches)
}

/// Names of everything in the partition's directory (hidden temporary files included).
fn listing(dir: &Path) -> Vec<String> {
    let partition = dir.join(Partition::Day(day()).dir_name());
    match std::fs::read_dir(partition) {
        Ok(entries) => entries
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn parquet_reads_back_with_its_schema_and_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), Format::Parquet, 8192, 8);
    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some("part-000.parquet"));
    let (schema, groups, batches) = read_parquet(&path);
    assert_eq!(schema.fields(), expected_schema().fields());
    assert_eq!(groups, [8]);
    assert_eq!(cells(&batches), (0..8).map(expected).collect::<Vec<_>>());
    // Snappy, as documented.
    let file = parquet::file::reader::SerializedFileReader::new(File::open(&path).expect("open")).expect("parquet");
    let metadata = parquet::file::reader::FileReader::metadata(&file);
    for column in metadata.row_group(0).columns() {
        assert_eq!(
            column.compression(),
            parquet::basic::Compression::SNAPPY,
            "{}",
            column.column_path()
        );
    }
    // The Parquet schema itself, which DuckDB reads the types from (and pyarrow
    // too, for an INT64 without a logical type, whatever the embedded Arrow
    // schema says): timestamps are TIMESTAMP(MILLIS, UTC), dates DATE, not
    // bare integers.
    let parquet_schema = metadata.file_metadata().schema_descr();
    let logical: Vec<(&str, PhysicalType, Option<LogicalType>)> = parquet_schema
        .columns()
        .iter()
        .map(|c| (c.name(), c.physical_type(), c.logical_type_ref().cloned()))
        .filter(|(name, _, _)| ["date_time", "export_chunk_first", "export_fetched_at"].contains(name))
        .collect();
    let utc_millis = || {
        Some(LogicalType::Timestamp {
            is_adjusted_to_u_t_c: true,
            unit: parquet::basic::TimeUnit::MILLIS,
        })
    };
    assert_eq!(
        logical,
        [
            ("date_time", PhysicalType::INT64, utc_millis()),
            ("export_chunk_first", PhysicalType::INT32, Some(LogicalType::Date)),
            ("export_fetched_at", PhysicalType::INT64, utc_millis()),
        ]
    );
    assert_eq!(listing(dir.path()), ["part-000.parquet"]);
}

#[test]
fn arrow_ipc_reads_back_with_its_schema_and_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), Format::Arrow, 8192, 8);
    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some("part-000.arrow"));
    let (schema, batches) = read_ipc(&path);
    assert_eq!(schema.fields(), expected_schema().fields());
    assert_eq!(batches.len(), 1);
    assert_eq!(cells(&batches), (0..8).map(expected).collect::<Vec<_>>());
    assert_eq!(listing(dir.path()), ["part-000.arrow"]);
}

#[test]
fn more_rows_than_rows_per_group_make_several_groups_and_read_back_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Row 1 brings the unknown `LIVE_ARCHIVE` after row 0's `VOD`: with one row a group
    // the IPC file's dictionary grows by deltas. 3,100 rows in groups of 1,500: two
    // full groups and the rest, each written when it is full or the file ends.
    for (rows_per_group, rows) in [(1, 10), (3, 10), (1_500, 3_100)] {
        let sizes: Vec<i64> = (0..rows)
            .step_by(rows_per_group)
            .map(|start| (rows - start).min(rows_per_group) as i64)
            .collect();
        let all: Vec<Vec<Cell>> = (0..rows).map(expected).collect();

        let parquet = write(
            &dir.path().join(format!("p{rows_per_group}")),
            Format::Parquet,
            rows_per_group,
            rows,
        );
        let (_, groups, batches) = read_parquet(&parquet);
        assert_eq!(groups, sizes, "{rows_per_group} rows a group");
        assert!(
            cells(&batches) == all,
            "{rows_per_group} rows a group: the Parquet file's values"
        );

        let arrow = write(
            &dir.path().join(format!("a{rows_per_group}")),
            Format::Arrow,
            rows_per_group,
            rows,
        );
        let (_, batches) = read_ipc(&arrow);
        assert_eq!(batches.iter().map(|b| b.num_rows() as i64).collect::<Vec<_>>(), sizes);
        assert!(
            cells(&batches) == all,
            "{rows_per_group} rows a group: the IPC file's values"
        );
    }
}

#[test]
fn the_same_rows_give_byte_identical_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in [Format::Parquet, Format::Arrow] {
        let first = std::fs::read(write(&dir.path().join("1"), format, 4, 10)).expect("read");
        let second = std::fs::read(write(&dir.path().join("2"), format, 4, 10)).expect("read");
        assert!(
            first == second,
            "{format:?}: {} and {} bytes differ",
            first.len(),
            second.len()
        );
        // And a different row changes them (the comparison can fail).
        let third = std::fs::read(write(&dir.path().join("3"), format, 4, 11)).expect("read");
        assert_ne!(first, third, "{format:?}");
    }
    // `created_by` is the parquet crate's constant; the footer holds no time of writing.
    let path = write(&dir.path().join("4"), Format::Parquet, 4, 10);
    let file = parquet::file::reader::SerializedFileReader::new(File::open(path).expect("open")).expect("parquet");
    let metadata = parquet::file::reader::FileReader::metadata(&file);
    assert_eq!(
        metadata.file_metadata().created_by(),
        Some(parquet::file::properties::DEFAULT_CREATED_BY)
    );
}

#[test]
fn a_row_that_does_not_fit_is_an_error_naming_the_column_and_leaves_no_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in [Format::Parquet, Format::Arrow] {
        for (column, bad, says) in [
            (2, Value::Text("12"), "`play_time`"),
            (6, Value::Text("[1]"), "`engagement_bitmap`"),
            (8, Value::Integer(20261001), "`export_chunk_first`"),
            (7, Value::Null, "`user_id` may not be null"),
        ] {
            let dir = dir.path().join(format!("{format:?}-{column}"));
            let mut files = Files::new(&dir, format).rows_per_group(2);
            let mut partition = files.open(REPORT, Partition::Day(day()), &COLUMNS).expect("open");
            // A full group is written before the bad row, so there are bytes to clean up.
            for i in 0..3 {
                partition.write(&row(i)).expect("write");
            }
            let mut values = row(3);
            values[column] = bad;
            let error = partition.write(&values).expect_err("a value that does not fit");
            assert!(error.to_string().contains(says), "{format:?}: {error}");
            assert_eq!(listing(&dir).len(), 1, "the temporary file while the partition is open");
            drop(partition);
            assert_eq!(
                listing(&dir),
                Vec::<String>::new(),
                "{format:?}: nothing left after the drop"
            );
            assert!(!files.path_of(Partition::Day(day())).exists());
        }
    }
}

#[test]
fn a_partition_dropped_without_commit_leaves_no_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    for format in [Format::Parquet, Format::Arrow] {
        let mut files = Files::new(dir.path(), format).rows_per_group(2);
        let mut partition = files.open(REPORT, Partition::Day(day()), &COLUMNS).expect("open");
        for i in 0..5 {
            partition.write(&row(i)).expect("write");
        }
        drop(partition);
        assert_eq!(listing(dir.path()), Vec::<String>::new(), "{format:?}");
    }
}
