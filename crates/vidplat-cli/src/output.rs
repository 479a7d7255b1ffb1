//! Data on stdout: one value, or rows as they arrive, in the chosen format.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

/// A pretty JSON row as an element of the array the rows make, indented
/// as one pretty array is (JSON text has no raw newline inside a string).
fn array_element(first: bool, text: &[u8]) -> Vec<u8> {
    let mut element = Vec::with_capacity(text.len() + 16);
    element.extend_from_slice(if first { b"[\n  " } else { b",\n  " });
    for &byte in text {
        element.push(byte);
        if byte == b'\n' {
            element.extend_from_slice(b"  ");
        }
    }
    element
}

/// `--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Ndjson,
    Table,
    Csv,
    Yaml,
}

impl Format {
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "json" => Format::Json,
            "ndjson" => Format::Ndjson,
            "table" => Format::Table,
            "csv" => Format::Csv,
            "yaml" => Format::Yaml,
            _ => return None,
        })
    }
}

/// How what a command prints is shaped before its format writes it: `--jq`
/// first (on each row of a list, or on a value), then `--columns`.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    pub columns: Option<Vec<String>>,
    pub jq: Option<std::sync::Arc<crate::jq::Jq>>,
}

impl Shape {
    /// The same, with `default` as the columns when `--columns` named none.
    pub fn or_columns(mut self, default: impl FnOnce() -> Option<Vec<String>>) -> Self {
        if self.columns.is_none() {
            self.columns = default();
        }
        self
    }
}

impl From<Option<Vec<String>>> for Shape {
    fn from(columns: Option<Vec<String>>) -> Self {
        Self { columns, jq: None }
    }
}

/// Writes rows one at a time: JSON as one array, NDJSON a line each, YAML a
/// sequence, CSV a header then a record each. A table is drawn at the end
/// (it needs every row to size its columns; prefer ndjson or csv for long lists).
pub struct RowWriter {
    format: Format,
    columns: Option<Vec<String>>,
    jq: Option<std::sync::Arc<crate::jq::Jq>>,
    rows: usize,
    table: Vec<Vec<String>>,
    /// One JSON row, serialized here and written in one piece: serde_json's
    /// many small writes would each cross the `dyn Write` (BENCHMARKS.md (h)).
    /// They land in a `BufWriter`, whose small writes are compiled inline even
    /// in a build without link-time optimisation (docs/decisions/0010), where
    /// a `Vec`'s are calls.
    line: io::BufWriter<Vec<u8>>,
}

impl RowWriter {
    pub fn new(format: Format, shape: impl Into<Shape>) -> Self {
        let Shape { columns, jq } = shape.into();
        Self {
            format,
            columns,
            jq,
            rows: 0,
            table: Vec::new(),
            line: io::BufWriter::new(Vec::new()),
        }
    }

    pub fn row<T: Serialize>(&mut self, out: &mut dyn Write, row: &T) -> io::Result<()> {
        // `--jq` first: each row is what the filter outputs for it (none, one or more).
        if let Some(jq) = self.jq.clone() {
            let value = serde_json::to_value(row).map_err(io::Error::other)?;
            for output in jq.apply(value)? {
                self.projected_row(out, &output)?;
            }
            return Ok(());
        }
        self.projected_row(out, row)
    }

    /// A row given as its JSON text (`vidplat::any_call::Row`): written as
    /// it is (NDJSON), transcoded (JSON, YAML: its members keep their order),
    /// or read as a value where `--jq`, `--columns`, a table or CSV needs one.
    pub fn json_row(&mut self, out: &mut dyn Write, json: &[u8]) -> io::Result<()> {
        let whole = self.jq.is_none() && self.columns.is_none();
        match self.format {
            Format::Ndjson if whole => {
                self.rows += 1;
                let line = self.line.get_mut();
                line.clear();
                line.extend_from_slice(json);
                line.push(b'\n');
                out.write_all(line)
            }
            Format::Json | Format::Yaml if whole => {
                // Transcoded as it is written: its members keep their order.
                let mut from = serde_json::Deserializer::from_slice(json);
                self.write_row(out, &serde_transcode::Transcoder::new(&mut from))
            }
            _ => {
                let value: Value = serde_json::from_slice(json).map_err(io::Error::other)?;
                self.row(out, &value)
            }
        }
    }

    fn projected_row<T: Serialize>(&mut self, out: &mut dyn Write, row: &T) -> io::Result<()> {
        // `--columns` shapes every format's rows, JSON's too (gh's `--json fields`).
        if let (Some(columns), Format::Json | Format::Ndjson | Format::Yaml) = (&self.columns, self.format) {
            let value = serde_json::to_value(row).map_err(io::Error::other)?;
            let projected: serde_json::Map<String, Value> = columns
                .iter()
                .map(|column| (column.clone(), lookup(&value, column).cloned().unwrap_or(Value::Null)))
                .collect();
            return self.write_row(out, &projected);
        }
        self.write_row(out, row)
    }

    fn write_row<T: Serialize>(&mut self, out: &mut dyn Write, row: &T) -> io::Result<()> {
        let first = self.rows == 0;
        self.rows += 1;
        match self.format {
            Format::Json => {
                let text = self.json_text(|line| serde_json::to_writer_pretty(line, row))?;
                out.write_all(&array_element(first, text))
            }
            Format::Ndjson => {
                let text = self.json_text(|line| serde_json::to_writer(line, row))?;
                text.push(b'\n');
                out.write_all(text)
            }
            Format::Yaml => {
                let text = serde_yaml::to_string(&[row]).map_err(io::Error::other)?;
                out.write_all(text.as_bytes())
            }
            Format::Csv | Format::Table => {
                let value = serde_json::to_value(row).map_err(io::Error::other)?;
                let columns = self.columns.get_or_insert_with(|| default_columns(&value));
                let text = if self.format == Format::Csv { cell } else { table_cell };
                let cells: Vec<String> = columns.iter().map(|c| text(lookup(&value, c))).collect();
                if self.format == Format::Csv {
                    let mut csv = csv::WriterBuilder::new().from_writer(Vec::new());
                    if first {
                        csv.write_record(columns.iter())?;
                    }
                    csv.write_record(&cells)?;
                    let bytes = csv.into_inner().map_err(|e| io::Error::other(e.to_string()))?;
                    out.write_all(&bytes)
                } else {
                    self.table.push(cells);
                    Ok(())
                }
            }
        }
    }

    /// The text `write` puts in the reused buffer.
    fn json_text(
        &mut self,
        write: impl FnOnce(&mut io::BufWriter<Vec<u8>>) -> serde_json::Result<()>,
    ) -> io::Result<&mut Vec<u8>> {
        // Every use ends in a flush, or in a new buffer after a failure:
        // the BufWriter holds nothing here.
        self.line.get_mut().clear();
        if let Err(error) = write(&mut self.line) {
            self.line = io::BufWriter::new(Vec::new());
            return Err(io::Error::other(error));
        }
        self.line.flush()?;
        Ok(self.line.get_mut())
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Closes the rows: what the format needs after the last one. An empty
    /// table prints nothing (its note is the caller's, on stderr: [`Finished::note`]);
    /// an empty CSV list prints its header when `--columns` names it.
    pub fn finish(mut self, out: &mut dyn Write) -> io::Result<Finished> {
        let finished = Finished {
            format: self.format,
            rows: self.rows,
        };
        match self.format {
            Format::Json => out.write_all(if self.rows == 0 { b"[]\n" } else { b"\n]\n" })?,
            Format::Yaml if self.rows == 0 => out.write_all(b"[]\n")?,
            Format::Table if self.rows == 0 => {}
            Format::Csv if self.rows == 0 => {
                if let Some(columns) = &self.columns {
                    let mut csv = csv::WriterBuilder::new().from_writer(Vec::new());
                    csv.write_record(columns.iter())?;
                    let bytes = csv.into_inner().map_err(|e| io::Error::other(e.to_string()))?;
                    out.write_all(&bytes)?;
                }
            }
            Format::Table => {
                let mut table = Table::new();
                table
                    .load_preset(UTF8_FULL_CONDENSED)
                    .set_content_arrangement(ContentArrangement::Dynamic);
                if let Some(columns) = self.columns.take() {
                    table.set_header(columns);
                }
                for row in self.table.drain(..) {
                    table.add_row(row);
                }
                writeln!(out, "{table}")?;
            }
            _ => {}
        }
        Ok(finished)
    }
}

/// How a list ended.
#[derive(Clone, Copy, Debug)]
pub struct Finished {
    format: Format,
    rows: usize,
}

impl Finished {
    /// What to say on stderr: a table with no row prints nothing on stdout.
    pub fn note(self) -> Option<&'static str> {
        (self.rows == 0 && self.format == Format::Table).then_some("no rows")
    }
}

/// Writes one value in `format`: a list the service answers whole
/// (`{"data": [...]}`) as its rows, like every other list.
pub fn value(
    out: &mut dyn Write,
    format: Format,
    shape: impl Into<Shape>,
    value: &Value,
) -> io::Result<Option<&'static str>> {
    let Shape { columns, jq } = shape.into();
    if let Some(items) = value.get("data").and_then(Value::as_array) {
        let mut rows = RowWriter::new(format, Shape { columns, jq });
        for row in items {
            rows.row(out, row)?;
        }
        return Ok(rows.finish(out)?.note());
    }
    if let Some(jq) = jq {
        // Each output of the filter, written as a value of its own.
        for output in jq.apply(value.clone())? {
            self::value(out, format, columns.clone(), &output)?;
        }
        return Ok(None);
    }
    // `--columns` shapes one value as it shapes each row.
    let projected;
    let value = match (&columns, format) {
        (Some(columns), Format::Json | Format::Ndjson | Format::Yaml) if value.is_object() => {
            projected = Value::Object(
                columns
                    .iter()
                    .map(|column| (column.clone(), lookup(value, column).cloned().unwrap_or(Value::Null)))
                    .collect(),
            );
            &projected
        }
        _ => value,
    };
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
            out.write_all(b"\n")?;
        }
        Format::Ndjson => {
            serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
            out.write_all(b"\n")?;
        }
        Format::Yaml => out.write_all(serde_yaml::to_string(value).map_err(io::Error::other)?.as_bytes())?,
        Format::Csv => {
            let mut rows = RowWriter::new(format, columns);
            rows.row(out, value)?;
            rows.finish(out)?;
        }
        Format::Table => {
            if !value.is_object() {
                writeln!(out, "{}", table_cell(Some(value)))?;
                return Ok(None);
            }
            let mut table = Table::new();
            table
                .load_preset(UTF8_FULL_CONDENSED)
                .set_content_arrangement(ContentArrangement::Dynamic);
            for column in columns.unwrap_or_else(|| default_columns(value)) {
                let shown = table_cell(lookup(value, &column));
                table.add_row(vec![column, shown]);
            }
            writeln!(out, "{table}")?;
        }
    }
    Ok(None)
}

/// An object's top-level members, `id` first: the columns when `--columns` names none.
fn default_columns(value: &Value) -> Vec<String> {
    let mut columns: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(at) = columns.iter().position(|c| c == "id") {
        let id = columns.remove(at);
        columns.insert(0, id);
    }
    columns
}

/// The member at a dotted path (`video.height`, `streams.0.path`).
fn lookup<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(value, |at, part| match at {
        Value::Object(map) => map.get(part),
        Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// A CSV cell: a value's text as it came.
fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A table cell: its control characters escaped, wherever the table goes (a
/// table is read on a terminal, where an escape sequence from the network
/// could set the clipboard, the window's title or clear the screen).
fn table_cell(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => vidplat_core::escape_controls(s).into_owned(),
        other => cell(other),
    }
}

/// stdout on a terminal: every control character but the line's end and tab
/// written as an escape (`\u{1b}`), whatever the format (CSV cells are kept
/// as they came only when they go to a file or a pipe).
pub struct TerminalSafe<W: Write> {
    inner: W,
    /// A first byte of a two-byte UTF-8 sequence that may encode a C1 control (CSI is U+009B).
    held: Option<u8>,
    escaped: Vec<u8>,
}

impl<W: Write> TerminalSafe<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            held: None,
            escaped: Vec::new(),
        }
    }
}

impl<W: Write> Write for TerminalSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.escaped.clear();
        let mut rest = bytes;
        if let Some(first) = self.held.take() {
            match rest.first() {
                Some(&second) if (0x80..=0x9f).contains(&second) => {
                    let control = char::from(second);
                    self.escaped.extend(control.escape_default().to_string().bytes());
                    rest = &rest[1..];
                }
                _ => self.escaped.push(first),
            }
        }
        let mut at = 0;
        while at < rest.len() {
            let byte = rest[at];
            match byte {
                b'\n' | b'\t' => self.escaped.push(byte),
                0x00..=0x1f | 0x7f => self
                    .escaped
                    .extend(char::from(byte).escape_default().to_string().bytes()),
                0xc2 if at + 1 == rest.len() => self.held = Some(byte),
                0xc2 if (0x80..=0x9f).contains(&rest[at + 1]) => {
                    let control = char::from(rest[at + 1]);
                    self.escaped.extend(control.escape_default().to_string().bytes());
                    at += 1;
                }
                _ => self.escaped.push(byte),
            }
            at += 1;
        }
        self.inner.write_all(&self.escaped)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(byte) = self.held.take() {
            self.inner.write_all(&[byte])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::{Format, RowWriter, TerminalSafe};
    use std::io::Write as _;

    fn shown(chunks: &[&[u8]]) -> String {
        let mut safe = TerminalSafe::new(Vec::new());
        for chunk in chunks {
            safe.write_all(chunk).expect("written");
        }
        safe.flush().expect("flushed");
        String::from_utf8(safe.inner).expect("UTF-8")
    }

    #[test]
    fn json_rows_are_printed_as_one_pretty_array_is() {
        let rows = vec![
            serde_json::json!({"id": 1, "streams": [{"height": 720}], "title": "a\nb"}),
            serde_json::json!({"id": 2, "streams": [], "title": "c"}),
        ];
        let mut out = Vec::new();
        let mut writer = RowWriter::new(Format::Json, None);
        for row in &rows {
            writer.row(&mut out, row).expect("written");
        }
        writer.finish(&mut out).expect("finished");
        let expected = serde_json::to_string_pretty(&rows).expect("pretty") + "\n";
        assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
    }

    /// A typed row, its members in its type's order (not sorted, as a
    /// `serde_json::Value`'s are): its JSON text prints as the row itself does.
    #[derive(serde::Serialize)]
    struct Row {
        zone: &'static str,
        id: u64,
        ratio: f64,
        tags: Vec<&'static str>,
        note: Option<&'static str>,
    }

    #[test]
    fn a_row_given_as_its_json_text_prints_as_the_typed_row_in_every_format() {
        let rows = [
            Row {
                zone: "Asia/Tokyo",
                id: 7,
                ratio: 0.1,
                tags: vec!["a\"b", "\u{e9}"],
                note: None,
            },
            Row {
                zone: "UTC",
                id: u64::MAX,
                ratio: -1e300,
                tags: vec![],
                note: Some("x\ny"),
            },
        ];
        for format in [Format::Json, Format::Ndjson, Format::Yaml, Format::Csv, Format::Table] {
            for columns in [None, Some(vec!["id".to_owned(), "zone".to_owned()])] {
                let (mut typed, mut text) = (Vec::new(), Vec::new());
                let mut typed_writer = RowWriter::new(format, columns.clone());
                let mut text_writer = RowWriter::new(format, columns.clone());
                for row in &rows {
                    typed_writer.row(&mut typed, row).expect("written");
                    let json = serde_json::to_vec(row).expect("JSON");
                    text_writer.json_row(&mut text, &json).expect("written");
                }
                typed_writer.finish(&mut typed).expect("finished");
                text_writer.finish(&mut text).expect("finished");
                assert_eq!(
                    String::from_utf8(text).unwrap(),
                    String::from_utf8(typed).unwrap(),
                    "{format:?} {columns:?}"
                );
            }
        }
        let mut ndjson = Vec::new();
        RowWriter::new(Format::Ndjson, None)
            .json_row(&mut ndjson, br#"{"zone":"UTC","id":1}"#)
            .unwrap();
        assert_eq!(ndjson, b"{\"zone\":\"UTC\",\"id\":1}\n", "members in the row's order");
    }

    #[test]
    fn controls_are_escaped_and_line_ends_kept_even_across_writes() {
        let osc52 = "a\u{1b}]52;c;aGk=\u{7}b\r\n";
        assert_eq!(shown(&[osc52.as_bytes()]), "a\\u{1b}]52;c;aGk=\\u{7}b\\r\n");
        // CSI as the C1 control U+009B (0xC2 0x9B), split between two writes.
        assert_eq!(shown(&[b"x\xc2", b"\x9b2J"]), "x\\u{9b}2J");
        assert_eq!(shown(&["é ü – 🎬\t".as_bytes()]), "é ü – 🎬\t");
        // A two-byte character that is no control, split the same way.
        assert_eq!(shown(&[&"°".as_bytes()[..1], &"°".as_bytes()[1..]]), "°");
    }
}
