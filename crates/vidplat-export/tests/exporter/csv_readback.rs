//! CSV written through `Files` read back with the `csv` crate's reader: text
//! that needs quoting survives, nulls are empty fields, timestamps are
//! RFC 3339 in +09:00.

use chrono::{DateTime, NaiveDate};
use vidplat_export::{Files, Format, Partition, PartitionSink as _, RowSink as _, Value};

#[test]
fn csv_reads_back_with_quoting_nulls_and_japan_time() {
    let columns = crate::columns::every_kind_but(&["user_id", "export_fetched_at"]);
    let day = NaiveDate::from_ymd_opt(2026, 10, 1).expect("a day");
    let at = DateTime::parse_from_rfc3339("2026-10-01T13:45:07+09:00").expect("a moment");
    let rows = [
        vec![
            Value::Text("ドラマ 第1話: \"始まり\", part 1\nsecond line\r\nthird"),
            Value::Text("LIVE_ARCHIVE"),
            Value::Integer(-42),
            Value::Float(0.125),
            Value::Boolean(true),
            Value::Timestamp(at),
            Value::Json(r#"[{"a":"x,y"},2]"#.to_owned()),
            Value::Date(day),
        ],
        vec![
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Json("[]".to_owned()),
            Value::Date(day),
        ],
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files = Files::new(dir.path(), Format::Csv);
    let mut partition = files
        .open("cloud_viewing_history", Partition::Day(day), &columns)
        .expect("open");
    for row in &rows {
        partition.write(row).expect("write");
    }
    partition.commit().expect("commit");
    let path = files.path_of(Partition::Day(day));
    assert!(path.ends_with("date=2026-10-01/part-000.csv"), "{}", path.display());

    let mut reader = csv::Reader::from_path(&path).expect("open");
    let header: Vec<String> = reader.headers().expect("header").iter().map(str::to_owned).collect();
    assert_eq!(header, columns.iter().map(|c| c.name).collect::<Vec<_>>());
    let records: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("a record").iter().map(str::to_owned).collect())
        .collect();
    assert_eq!(
        records,
        [
            vec![
                "ドラマ 第1話: \"始まり\", part 1\nsecond line\r\nthird",
                "LIVE_ARCHIVE",
                "-42",
                "0.125",
                "true",
                "2026-10-01T13:45:07+09:00",
                r#"[{"a":"x,y"},2]"#,
                "2026-10-01",
            ],
            vec!["", "", "", "", "", "", "[]", "2026-10-01"],
        ]
    );
    // The timestamp is the same instant, read by an RFC 3339 parser.
    assert_eq!(DateTime::parse_from_rfc3339(&records[0][5]).expect("RFC 3339"), at);
}
