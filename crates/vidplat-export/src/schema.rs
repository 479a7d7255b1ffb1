//! The columns of a report's rows, declared once (generated from the YAML),
//! and the values a row gives them.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone as _};
use std::fmt;

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColumnKind {
    /// Text.
    Text,
    /// One of the values an open enum documents, or any other the service
    /// sends (kept as it came): dictionary-encoded text in Arrow and Parquet.
    OpenEnum,
    /// A 64-bit integer.
    Integer,
    /// A 64-bit float.
    Float,
    /// A boolean.
    Boolean,
    /// A moment, in Japan time (+09:00).
    Timestamp,
    /// A day in Japan.
    Date,
    /// A nested member (an array or an object), as its JSON text.
    Json,
}

impl ColumnKind {
    /// The kind's name in the schema snapshot and the plan.
    pub fn name(self) -> &'static str {
        match self {
            ColumnKind::Text => "text",
            ColumnKind::OpenEnum => "open enum",
            ColumnKind::Integer => "integer",
            ColumnKind::Float => "float",
            ColumnKind::Boolean => "boolean",
            ColumnKind::Timestamp => "timestamp (+09:00)",
            ColumnKind::Date => "date",
            ColumnKind::Json => "json",
        }
    }
}

/// One column: its name, kind, whether it may be empty, and the YAML's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The row member's name (or the lineage column's).
    pub name: &'static str,
    /// What it holds.
    pub kind: ColumnKind,
    /// Whether a row may leave it empty (null).
    pub nullable: bool,
    /// The YAML's description of the member.
    pub description: &'static str,
}

/// The columns the exporter adds after a report's own: where each row came from.
pub const LINEAGE: [Column; 4] = [
    Column {
        name: "export_report",
        kind: ColumnKind::Text,
        nullable: false,
        description: "The report (operation id) the row was read from.",
    },
    Column {
        name: "export_chunk_first",
        kind: ColumnKind::Date,
        nullable: false,
        description: "The first day of the period the row was asked for in (Japan time).",
    },
    Column {
        name: "export_chunk_last",
        kind: ColumnKind::Date,
        nullable: false,
        description: "The last day of the period the row was asked for in (Japan time).",
    },
    Column {
        name: "export_fetched_at",
        kind: ColumnKind::Timestamp,
        nullable: false,
        description: "When the row's period was fetched (Japan time).",
    },
];

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// No value.
    Null,
    /// Text, or an open enum's value.
    Text(&'a str),
    /// An integer.
    Integer(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Boolean(bool),
    /// A moment in Japan time.
    Timestamp(DateTime<FixedOffset>),
    /// A day.
    Date(NaiveDate),
    /// A nested member's JSON text.
    Json(String),
}

impl Value<'_> {
    /// The value as CSV or NDJSON text writes it (`None` for null): RFC 3339
    /// timestamps with their offset (`+09:00`), ISO dates.
    pub fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        Some(match self {
            Value::Null => return None,
            Value::Text(text) => Cow::Borrowed(*text),
            Value::Boolean(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            Value::Json(json) => Cow::Borrowed(json.as_str()),
            other => {
                let mut text = String::new();
                other.write_text(&mut text);
                Cow::Owned(text)
            }
        })
    }

    /// Appends [`to_text`](Value::to_text)'s text to `out` (nothing for
    /// null): the encoders reuse one buffer instead of a string a value.
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        match self {
            Value::Null => {}
            Value::Text(text) => out.push_str(text),
            Value::Integer(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Float(x) => {
                let _ = write!(out, "{x}");
            }
            Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Timestamp(at) => push_rfc3339(out, at),
            Value::Date(day) => push_date(out, *day),
            Value::Json(json) => out.push_str(json),
        }
    }
}

/// `YYYY-MM-DD`, as `NaiveDate`'s `Display` writes it (which years outside 0..=9999 keep).
fn push_date(out: &mut String, day: NaiveDate) {
    use chrono::Datelike as _;
    match u32::try_from(day.year()) {
        Ok(year) if year <= 9999 => {
            push_digits(out, year, 4);
            out.push('-');
            push_digits(out, day.month(), 2);
            out.push('-');
            push_digits(out, day.day(), 2);
        }
        _ => {
            use std::fmt::Write as _;
            let _ = write!(out, "{day}");
        }
    }
}

/// RFC 3339 as `DateTime::to_rfc3339` writes it: whole seconds written
/// digit by digit (every time the services send), anything else by chrono.
fn push_rfc3339(out: &mut String, at: &DateTime<FixedOffset>) {
    use chrono::Timelike as _;
    let local = at.naive_local();
    let offset = at.offset().local_minus_utc();
    let year_fits = (0..=9999).contains(&chrono::Datelike::year(&local));
    if local.nanosecond() != 0 || !year_fits || offset % 60 != 0 {
        out.push_str(&at.to_rfc3339());
        return;
    }
    push_date(out, local.date());
    out.push('T');
    push_digits(out, local.hour(), 2);
    out.push(':');
    push_digits(out, local.minute(), 2);
    out.push(':');
    push_digits(out, local.second(), 2);
    out.push(if offset < 0 { '-' } else { '+' });
    let minutes = offset.unsigned_abs() / 60;
    push_digits(out, minutes / 60, 2);
    out.push(':');
    push_digits(out, minutes % 60, 2);
}

/// `n` in exactly `width` decimal digits (`n` has no more).
fn push_digits(out: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        let digit = n / 10_u32.pow(place) % 10;
        out.push(char::from(b'0' + digit as u8));
    }
}

/// A row member's value: implemented for the member types of the generated rows.
pub trait Cell {
    /// The member as a value.
    fn cell(&self) -> Value<'_>;
}

impl Cell for String {
    fn cell(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl Cell for i64 {
    fn cell(&self) -> Value<'_> {
        Value::Integer(*self)
    }
}

impl Cell for f64 {
    fn cell(&self) -> Value<'_> {
        Value::Float(*self)
    }
}

impl Cell for bool {
    fn cell(&self) -> Value<'_> {
        Value::Boolean(*self)
    }
}

impl<T: Cell> Cell for Option<T> {
    fn cell(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, Cell::cell)
    }
}

impl<T: serde::Serialize> Cell for Vec<T> {
    fn cell(&self) -> Value<'_> {
        json(self)
    }
}

/// A nested member as its JSON text (generated rows' nested members).
pub fn json<T: serde::Serialize + ?Sized>(member: &T) -> Value<'static> {
    // Serialising a decoded value cannot fail (no map has non-string keys).
    serde_json::to_string(member).map_or(Value::Null, Value::Json)
}

/// A time member's text that is not a Japan-time moment or day the exporter reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeValueError {
    /// The member.
    pub column: &'static str,
    /// The value, shortened.
    pub value: String,
}

impl fmt::Display for TimeValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is {:?}, not `yyyy-mm-dd hh:mm:ss` in Japan time or its leading part \
             (the documents do not show the format; see GAPS.md)",
            self.column, self.value
        )
    }
}

impl std::error::Error for TimeValueError {}

/// A timestamp member (`x-japan-time: timestamp`), read as a time of `zone`
/// (the zone of returned times: Japan time unless the export says otherwise).
pub fn timestamp<'a>(
    column: &'static str,
    text: Option<&'a str>,
    zone: FixedOffset,
) -> Result<Value<'a>, TimeValueError> {
    let Some(text) = text else { return Ok(Value::Null) };
    parse_moment(text, zone)
        .map(Value::Timestamp)
        .ok_or_else(|| time_error(column, text))
}

/// A date member (`x-japan-time: date`).
pub fn date<'a>(column: &'static str, text: Option<&'a str>) -> Result<Value<'a>, TimeValueError> {
    let Some(text) = text else { return Ok(Value::Null) };
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map(Value::Date)
        .map_err(|_| time_error(column, text))
}

fn time_error(column: &'static str, text: &str) -> TimeValueError {
    TimeValueError {
        column,
        value: text.chars().take(64).collect(),
    }
}

/// `yyyy-mm-dd hh:mm:ss`, or its leading part down to the day, in `zone`.
/// Read by position (every row of a 50,000-row page has one: a format
/// parser cost more than the rest of the row).
fn parse_moment(text: &str, zone: FixedOffset) -> Option<DateTime<FixedOffset>> {
    let bytes = text.trim().as_bytes();
    let number = |at: usize, len: usize| -> Option<u32> {
        let digits = bytes.get(at..at + len)?;
        digits
            .iter()
            .try_fold(0u32, |n, d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0')))
    };
    let separator = |at: usize, expected: u8| bytes.get(at) == Some(&expected);
    if !matches!(bytes.len(), 10 | 13 | 16 | 19) || !separator(4, b'-') || !separator(7, b'-') {
        return None;
    }
    let part = |at: usize, before: u8| -> Option<u32> {
        if bytes.len() <= at {
            return Some(0);
        }
        separator(at - 1, before).then(|| number(at, 2)).flatten()
    };
    let day = NaiveDate::from_ymd_opt(i32::try_from(number(0, 4)?).ok()?, number(5, 2)?, number(8, 2)?)?;
    let local: NaiveDateTime = day.and_hms_opt(part(11, b' ')?, part(14, b':')?, part(17, b':')?)?;
    zone.from_local_datetime(&local).single()
}

/// The day a value falls on: a date's own, a timestamp's in the zone it was
/// read in (the zone of returned times, in which the period's days are asked for).
pub fn day_of(value: &Value<'_>) -> Option<NaiveDate> {
    match value {
        Value::Timestamp(at) => Some(at.date_naive()),
        Value::Date(day) => Some(*day),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_chrono_writes_them() {
        let zones = [9 * 3600, 0, -(5 * 3600 + 30 * 60), 14 * 3600, 45];
        let moments = [
            0_i64,
            1_767_225_600,
            951_782_400,
            -86_401,
            253_402_300_799,
            253_402_300_800,
        ];
        for zone in zones {
            let zone = FixedOffset::east_opt(zone).unwrap();
            for unix in moments {
                for nanos in [0, 5_000_000] {
                    let at = DateTime::from_timestamp(unix, nanos).unwrap().with_timezone(&zone);
                    let mut text = String::new();
                    Value::Timestamp(at).write_text(&mut text);
                    assert_eq!(text, at.to_rfc3339(), "{unix} {zone}");
                    let mut day = String::new();
                    Value::Date(at.date_naive()).write_text(&mut day);
                    assert_eq!(day, at.date_naive().to_string());
                }
            }
        }
        let far = NaiveDate::from_ymd_opt(-44, 3, 15).unwrap();
        assert_eq!(Value::Date(far).to_text().as_deref(), Some(far.to_string().as_str()));
    }

    fn japan() -> FixedOffset {
        vidplat_core::japan_offset()
    }

    #[test]
    fn time_members_read_as_japan_time_down_to_the_day() {
        for (text, rfc3339) in [
            ("2026-10-01 13:45:07", "2026-10-01T13:45:07+09:00"),
            ("2026-10-01 13:45", "2026-10-01T13:45:00+09:00"),
            ("2026-10-01 13", "2026-10-01T13:00:00+09:00"),
            ("2026-10-01", "2026-10-01T00:00:00+09:00"),
        ] {
            let value = timestamp("date_time", Some(text), japan()).expect(text);
            assert_eq!(value.to_text().as_deref(), Some(rfc3339), "{text}");
        }
        for bad in [
            "01/10/2026 13:00",
            "2026-10-01T13:00:00",
            "2026-13-01",
            "2026-10-01 24:00",
            "2026-10-01 1x",
            "２０２６-10-01",
        ] {
            assert!(timestamp("date_time", Some(bad), japan()).is_err(), "{bad}");
        }
        let error = timestamp("date_time", Some("01/10/2026 13:00"), japan()).unwrap_err();
        assert_eq!(error.column, "date_time");
        assert!(error.to_string().contains("\"01/10/2026 13:00\""), "{error}");
        assert_eq!(timestamp("date_time", None, japan()), Ok(Value::Null));
        assert_eq!(
            date("date", Some("2026-10-01")),
            Ok(Value::Date(NaiveDate::from_ymd_opt(2026, 10, 1).unwrap()))
        );
        // 23:30 in Japan is still that day, whatever the machine's zone.
        let late = timestamp("date_time", Some("2026-10-01 23:30:00"), japan()).unwrap();
        assert_eq!(day_of(&late), NaiveDate::from_ymd_opt(2026, 10, 1));
    }

    #[test]
    fn time_members_read_in_another_zone_keep_their_day_in_it() {
        let utc = FixedOffset::east_opt(0).unwrap();
        let late = timestamp("date_time", Some("2026-10-01 23:30:00"), utc).unwrap();
        assert_eq!(late.to_text().as_deref(), Some("2026-10-01T23:30:00+00:00"));
        // The day is the zone's: in Japan the same instant is the 2nd.
        assert_eq!(day_of(&late), NaiveDate::from_ymd_opt(2026, 10, 1));
    }
}
