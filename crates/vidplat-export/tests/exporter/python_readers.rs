//! The files read back by the readers the exporter's users have, not by
//! arrow-rs (which trusts the Arrow schema embedded in the file): pyarrow
//! reads CSV, NDJSON, Parquet and Arrow IPC, DuckDB reads CSV, NDJSON and
//! Parquet, through `xtask/python/read_export.py` run by the tools venv's
//! python (`.tools/venv`, where `cargo xtask lint` installs the pinned
//! pyarrow and duckdb). Every timestamp column must read as a timestamp with a
//! zone, every date column as a date, and every value as the rows gave it.
//!
//! Without the venv or the packages the test says `skipped: …` and passes,
//! unless `VIDPLAT_REQUIRE_PYTHON_READERS=1` (set by `cargo xtask ci`).

use crate::columnar::{day, row, REPORT};
use crate::columns::EVERY_KIND as COLUMNS;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;
use vidplat_export::{ColumnKind, Files, Format, Partition, PartitionSink as _, RowSink as _, Value};

const REQUIRE: &str = "VIDPLAT_REQUIRE_PYTHON_READERS";

/// Rows written: every fourth one has its nullable columns null.
const ROWS: usize = 10;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/vidplat-export is two levels down")
        .to_path_buf()
}

/// Says why the test does not run, or fails when it is required to.
fn skip(why: &str) {
    assert!(
        std::env::var(REQUIRE).as_deref() != Ok("1"),
        "{why}, and {REQUIRE}=1 requires the Python readers: \
         run `cargo xtask lint` (installs pyarrow and duckdb into .tools/venv)"
    );
    eprintln!("skipped: {why} (`cargo xtask lint` installs them; {REQUIRE}=1 makes this an error)");
}

/// A value as the test expects a reader to give it, or as one gave it.
#[derive(Debug, PartialEq)]
enum Cell {
    Null,
    Text(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// Milliseconds since the Unix epoch.
    Millis(i64),
    /// `YYYY-MM-DD`.
    Day(String),
    Json(Json),
    /// What the reader gave, where it does not fit the column's kind.
    Unreadable(String),
}

/// Row `i` worked out here, from the values the exporter was given.
fn expected(i: usize) -> Vec<Cell> {
    row(i)
        .into_iter()
        .map(|value| match value {
            Value::Null => Cell::Null,
            Value::Text(text) => Cell::Text(text.to_owned()),
            Value::Integer(n) => Cell::Integer(n),
            Value::Float(x) => Cell::Float(x),
            Value::Boolean(b) => Cell::Boolean(b),
            Value::Timestamp(at) => Cell::Millis(at.timestamp_millis()),
            Value::Date(day) => Cell::Day(day.format("%Y-%m-%d").to_string()),
            Value::Json(text) => Cell::Json(serde_json::from_str(&text).expect("the row's JSON")),
        })
        .collect()
}

/// A value of the script's report, read as a column of `kind` holds it.
fn cell(kind: ColumnKind, value: &Json) -> Cell {
    let read = match (kind, value) {
        (_, Json::Null) => Some(Cell::Null),
        (ColumnKind::Text | ColumnKind::OpenEnum, Json::String(text)) => Some(Cell::Text(text.clone())),
        (ColumnKind::Integer, Json::Number(n)) => n.as_i64().map(Cell::Integer),
        (ColumnKind::Float, Json::Number(n)) if n.is_f64() => n.as_f64().map(Cell::Float),
        (ColumnKind::Boolean, Json::Bool(b)) => Some(Cell::Boolean(*b)),
        (ColumnKind::Timestamp, Json::Number(n)) => n.as_i64().map(Cell::Millis),
        (ColumnKind::Date, Json::String(day)) => Some(Cell::Day(day.clone())),
        (ColumnKind::Json, json) => Some(Cell::Json(json.clone())),
        _ => None,
    };
    read.unwrap_or_else(|| Cell::Unreadable(value.to_string()))
}

/// The type a reader must give a column of `kind` in a file of `format`;
/// `None` where any type will do (the reader's choice for JSON text).
fn expected_type(reader: &str, format: &str, kind: ColumnKind) -> Option<&'static str> {
    let columnar = matches!(format, "parquet" | "arrow");
    Some(match (reader, kind) {
        // The Arrow schema's zone, kept; in CSV and NDJSON the zone declared to the reader.
        ("pyarrow", ColumnKind::Timestamp) => "timestamp[ms, tz=+09:00]",
        ("pyarrow", ColumnKind::Date) => "date32[day]",
        ("pyarrow", ColumnKind::Text) => "string",
        ("pyarrow", ColumnKind::OpenEnum) if columnar => "dictionary<values=string, indices=int32, ordered=0>",
        ("pyarrow", ColumnKind::OpenEnum) => "string",
        ("pyarrow", ColumnKind::Integer) => "int64",
        ("pyarrow", ColumnKind::Float) => "double",
        ("pyarrow", ColumnKind::Boolean) => "bool",
        // The canonical extension type the Arrow schema names.
        ("pyarrow", ColumnKind::Json) if columnar => "extension<arrow.json>",
        ("duckdb", ColumnKind::Timestamp) => "TIMESTAMP WITH TIME ZONE",
        ("duckdb", ColumnKind::Date) => "DATE",
        ("duckdb", ColumnKind::Text | ColumnKind::OpenEnum) => "VARCHAR",
        ("duckdb", ColumnKind::Integer) => "BIGINT",
        ("duckdb", ColumnKind::Float) => "DOUBLE",
        ("duckdb", ColumnKind::Boolean) => "BOOLEAN",
        _ => return None,
    })
}

/// Writes the rows in `format` under `dir`; the file. One row a batch and a
/// row group: the IPC file's open-enum dictionary grows by deltas (row 1
/// brings a value row 0 did not).
fn write(dir: &Path, format: Format) -> PathBuf {
    let mut files = Files::new(dir, format).rows_per_group(1);
    let mut partition = files.open(REPORT, Partition::Day(day()), &COLUMNS).expect("open");
    for i in 0..ROWS {
        partition.write(&row(i)).expect("write");
    }
    partition.commit().expect("commit");
    files.path_of(Partition::Day(day()))
}

#[test]
fn pyarrow_and_duckdb_read_every_format_with_its_types_and_values() {
    let root = repo_root();
    let python = root.join(".tools/venv/bin/python");
    if !python.is_file() {
        return skip(&format!("no {}", python.display()));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let formats = [
        ("csv", Format::Csv),
        ("ndjson", Format::Ndjson),
        ("parquet", Format::Parquet),
        ("arrow", Format::Arrow),
    ];
    let files: Vec<String> = formats
        .iter()
        .map(|(name, format)| {
            let path = write(&dir.path().join(name), *format);
            format!("{name}={}", path.display())
        })
        .collect();
    let declared: Vec<[&str; 2]> = COLUMNS.iter().map(|c| [c.name, c.kind.name()]).collect();
    let output = Command::new(&python)
        .arg(root.join("xtask/python/read_export.py"))
        .arg("--columns")
        .arg(serde_json::to_string(&declared).expect("JSON"))
        .args(&files)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", python.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(3) {
        return skip(&format!(
            "pyarrow or duckdb is not installed in .tools/venv ({})",
            stderr.trim()
        ));
    }
    assert!(output.status.success(), "read_export.py: {}\n{stderr}", output.status);
    let report: Json = serde_json::from_slice(&output.stdout).expect("the script's JSON report");
    eprintln!("pyarrow {}, duckdb {}", report["pyarrow"], report["duckdb"]);

    let all: Vec<Vec<Cell>> = (0..ROWS).map(expected).collect();
    let mut read = Vec::new();
    let mut failures = Vec::new();
    for file in report["files"].as_array().expect("files") {
        let format = file["format"].as_str().expect("format");
        for reading in file["readers"].as_array().expect("readers") {
            let reader = reading["reader"].as_str().expect("reader");
            read.push(format!("{reader} {format}"));
            let what = format!("{reader} reading {format}");
            if let Some(error) = reading.get("error") {
                failures.push(format!("{what}: {error}"));
                continue;
            }
            for note in reading["notes"].as_array().into_iter().flatten() {
                eprintln!("{what}: {}", note.as_str().unwrap_or_default());
            }
            let columns = reading["columns"].as_array().expect("columns");
            let names: Vec<&str> = columns.iter().map(|c| c["name"].as_str().expect("name")).collect();
            if names != COLUMNS.iter().map(|c| c.name).collect::<Vec<_>>() {
                failures.push(format!("{what}: columns {names:?}"));
                continue;
            }
            for (column, read) in COLUMNS.iter().zip(columns) {
                let got = read["type"].as_str().expect("type");
                if let Some(wanted) = expected_type(reader, format, column.kind) {
                    if got != wanted {
                        failures.push(format!(
                            "{what}: `{}` ({}) is {got}, not {wanted}",
                            column.name,
                            column.kind.name()
                        ));
                    }
                }
            }
            let rows: Vec<Vec<Cell>> = reading["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .map(|row| {
                    let values = row.as_array().expect("a row");
                    COLUMNS.iter().zip(values).map(|(c, v)| cell(c.kind, v)).collect()
                })
                .collect();
            if rows.len() != all.len() {
                failures.push(format!("{what}: {} rows, not {}", rows.len(), all.len()));
            }
            for (i, (got, wanted)) in rows.iter().zip(&all).enumerate() {
                for ((column, got), wanted) in COLUMNS.iter().zip(got).zip(wanted) {
                    if got != wanted {
                        failures.push(format!("{what}: row {i} `{}`: {got:?}, not {wanted:?}", column.name));
                    }
                }
            }
        }
    }
    assert_eq!(
        read,
        [
            "pyarrow csv",
            "duckdb csv",
            "pyarrow ndjson",
            "duckdb ndjson",
            "pyarrow parquet",
            "duckdb parquet",
            "pyarrow arrow"
        ],
        "the readings the script made"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
