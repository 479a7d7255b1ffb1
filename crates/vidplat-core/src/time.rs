//! The services' timestamp (`yyyy-mm-dd hh:mm:ss`) and date (`YYYY-MM-DD`).
//!
//! Neither is RFC 3339: they carry no offset. Values read from a response are
//! kept even when they do not parse (the documents ask clients to be tolerant),
//! so a round trip is always lossless; values built by the caller always parse.

use chrono::{DateTime, Datelike as _, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Timelike as _, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

const TIMESTAMP_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
const DATE_FORMAT: &str = "%Y-%m-%d";

/// Japan Standard Time (UTC+9, no daylight saving): the analytics cloud edition's `start`/`end`.
pub const JAPAN_OFFSET_SECONDS: i32 = 9 * 3600;

/// Why a string is not a `yyyy-mm-dd hh:mm:ss` timestamp or a `YYYY-MM-DD` date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampParseError {
    input: String,
    expected: &'static str,
}

impl fmt::Display for TimestampParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not of the form {}", self.input, self.expected)
    }
}

impl std::error::Error for TimestampParseError {}

macro_rules! civil_value {
    (
        $name:ident,
        $inner:ty,
        $format:expr,
        $fixed_width:path,
        $fixed_width_text:path,
        $shape:expr,
        $example:expr,
        $doc:expr
    ) => {
        #[doc = $doc]
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Repr<$inner>);

        impl $name {
            /// The value, or `None` when the server sent a string of another form.
            pub fn value(&self) -> Option<$inner> {
                match &self.0 {
                    Repr::Parsed(value) => Some(*value),
                    Repr::Unparsed(_) => None,
                }
            }

            /// The text as sent on the wire.
            pub fn as_str(&self) -> Cow<'_, str> {
                match &self.0 {
                    Repr::Parsed(_) => Cow::Owned(self.with_text(str::to_owned)),
                    Repr::Unparsed(raw) => Cow::Borrowed(raw),
                }
            }

            /// Hands the wire text to `use_text`. An ordinary value is written by
            /// the fixed-width writer, on the stack: chrono's format interpreter
            /// took a fifth of a long listing's instructions, reading its format string
            /// again for every value.
            fn with_text<R>(&self, use_text: impl FnOnce(&str) -> R) -> R {
                match &self.0 {
                    Repr::Parsed(value) => match $fixed_width_text(value) {
                        Some(text) => use_text(text.as_str()),
                        None => use_text(&value.format($format).to_string()),
                    },
                    Repr::Unparsed(raw) => use_text(raw),
                }
            }
        }

        impl From<$inner> for $name {
            fn from(value: $inner) -> Self {
                Self(Repr::Parsed(value))
            }
        }

        impl FromStr for $name {
            type Err = TimestampParseError;

            /// Strict: only the documented form is accepted from the caller.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                // The fixed-width reader covers every ordinary value; chrono (with a
                // round-trip check) decides the rest, such as a leap second.
                $fixed_width(s)
                    .or_else(|| {
                        <$inner>::parse_from_str(s, $format)
                            .ok()
                            .filter(|value| value.format($format).to_string() == s)
                    })
                    .map(|value| Self(Repr::Parsed(value)))
                    .ok_or_else(|| TimestampParseError { input: s.to_owned(), expected: $shape })
            }
        }

        impl TryFrom<&str> for $name {
            type Error = TimestampParseError;
            fn try_from(s: &str) -> Result<Self, Self::Error> {
                s.parse()
            }
        }

        impl TryFrom<String> for $name {
            type Error = TimestampParseError;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                s.parse()
            }
        }

        impl crate::setter::FromText for $name {
            fn from_text(text: &str) -> Result<Self, crate::setter::Refusal> {
                text.parse()
                    .map_err(|e: TimestampParseError| crate::setter::Refusal::new(e.to_string()))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.with_text(|text| f.write_str(text))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match &self.0 {
                    Repr::Parsed(_) => write!(f, "{}({})", stringify!($name), self.as_str()),
                    Repr::Unparsed(raw) => write!(f, "{}(unparsed {raw:?})", stringify!($name)),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.with_text(|text| serializer.serialize_str(text))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            /// Tolerant: a string of another form is kept as it is.
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visitor;
                impl serde::de::Visitor<'_> for Visitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a string")
                    }
                    // Borrowed when the input allows: no allocation for a value that parses.
                    fn visit_str<E: serde::de::Error>(self, raw: &str) -> Result<$name, E> {
                        Ok(raw.parse().unwrap_or_else(|_| $name(Repr::Unparsed(raw.to_owned()))))
                    }
                    fn visit_string<E: serde::de::Error>(self, raw: String) -> Result<$name, E> {
                        Ok(raw.parse().unwrap_or($name(Repr::Unparsed(raw))))
                    }
                }
                deserializer.deserialize_str(Visitor)
            }
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "description": $shape,
                    "examples": [$example],
                })
            }
        }
    };
}

/// The number written by `digits` (ASCII digits only).
fn number(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0u32, |n, d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0')))
}

/// `YYYY-MM-DD`, exactly: what a fast decode needs, without chrono's format interpreter.
fn fixed_width_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    NaiveDate::from_ymd_opt(number(&b[0..4])? as i32, number(&b[5..7])?, number(&b[8..10])?)
}

/// `yyyy-mm-dd hh:mm:ss`, exactly (a leap second is left to chrono).
fn fixed_width_timestamp(s: &str) -> Option<NaiveDateTime> {
    let b = s.as_bytes();
    if b.len() != 19 || b[10] != b' ' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    fixed_width_date(&s[..10])?.and_hms_opt(number(&b[11..13])?, number(&b[14..16])?, number(&b[17..19])?)
}

/// ASCII text of at most 19 bytes, written on the stack.
#[derive(Default)]
struct ShortText {
    bytes: [u8; 19],
    len: usize,
}

impl ShortText {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    /// `value`'s last `width` decimal digits, zero-padded.
    fn digits(&mut self, mut value: u32, width: usize) {
        for at in (self.len..self.len + width).rev() {
            self.bytes[at] = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.len += width;
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits and separators are ever pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// `YYYY-MM-DD` for a year of four digits; chrono writes any other.
fn fixed_width_date_text(date: &NaiveDate) -> Option<ShortText> {
    let year = u32::try_from(date.year()).ok().filter(|year| *year <= 9999)?;
    let mut text = ShortText::default();
    text.digits(year, 4);
    text.push(b'-');
    text.digits(date.month(), 2);
    text.push(b'-');
    text.digits(date.day(), 2);
    Some(text)
}

/// `yyyy-mm-dd hh:mm:ss` for a year of four digits; chrono writes any other,
/// and a leap second (a nanosecond count of a second or more).
fn fixed_width_timestamp_text(value: &NaiveDateTime) -> Option<ShortText> {
    if value.nanosecond() >= 1_000_000_000 {
        return None;
    }
    let mut text = fixed_width_date_text(&value.date())?;
    text.push(b' ');
    text.digits(value.hour(), 2);
    text.push(b':');
    text.digits(value.minute(), 2);
    text.push(b':');
    text.digits(value.second(), 2);
    Some(text)
}

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Repr<T> {
    Parsed(T),
    Unparsed(String),
}

civil_value!(
    Timestamp,
    NaiveDateTime,
    TIMESTAMP_FORMAT,
    fixed_width_timestamp,
    fixed_width_timestamp_text,
    "`yyyy-mm-dd hh:mm:ss`",
    "2025-06-01 12:34:56",
    "A timestamp as the services write it: `yyyy-mm-dd hh:mm:ss`, a civil time with no offset."
);

civil_value!(
    Date,
    NaiveDate,
    DATE_FORMAT,
    fixed_width_date,
    fixed_width_date_text,
    "`YYYY-MM-DD`",
    "2025-06-01",
    "A calendar date as the services write it: `YYYY-MM-DD`."
);

impl Timestamp {
    /// The civil time in Japan (UTC+9) at an absolute instant: what the analytics
    /// cloud edition's `start` and `end` expect.
    pub fn japan_time<Tz: TimeZone>(instant: &DateTime<Tz>) -> Self {
        Self::from(instant.with_timezone(&japan_offset()).naive_local())
    }

    /// The civil time in UTC at an absolute instant.
    pub fn utc<Tz: TimeZone>(instant: &DateTime<Tz>) -> Self {
        Self::from(instant.naive_utc())
    }

    /// The absolute instant of this timestamp read as Japan time.
    pub fn to_instant_in_japan(&self) -> Option<DateTime<Utc>> {
        self.in_offset(japan_offset())
    }

    /// The time from `earlier` to this one (negative if `earlier` is later),
    /// or `None` if either did not parse. Both are read in the same zone,
    /// whichever it is: the services name none for most of their timestamps,
    /// and none of the zones they could mean observes daylight saving (Japan).
    pub fn duration_since(&self, earlier: &Timestamp) -> Option<chrono::TimeDelta> {
        Some(self.value()? - earlier.value()?)
    }

    /// The absolute instant of this timestamp read in the given offset.
    pub fn in_offset(&self, offset: FixedOffset) -> Option<DateTime<Utc>> {
        let local = self.value()?.and_local_timezone(offset).single()?;
        Some(local.with_timezone(&Utc))
    }
}

/// Japan time (+09:00), the zone the analytics documents state for their dates.
pub fn japan_offset() -> FixedOffset {
    FixedOffset::east_opt(JAPAN_OFFSET_SECONDS).expect("+09:00 is a valid offset")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_width_reader_agrees_with_chrono() {
        for text in [
            "2025-06-01 12:34:56",
            "0999-01-01 00:00:00",
            "2024-02-29 23:59:59",
            "2025-02-29 00:00:00",
            "2025-13-01 00:00:00",
            "2025-06-01 24:00:00",
            "2025-06-01T12:34:56",
            "2025-06-01 12:34:5x",
            "+025-06-01 12:34:56",
            "2025-06-01 12:34:56 ",
            "２０２５-06-01 12:34",
        ] {
            let slow = NaiveDateTime::parse_from_str(text, TIMESTAMP_FORMAT)
                .ok()
                .filter(|v| v.format(TIMESTAMP_FORMAT).to_string() == text);
            assert_eq!(fixed_width_timestamp(text), slow, "{text}");
            assert_eq!(text.parse::<Timestamp>().ok().and_then(|t| t.value()), slow, "{text}");
        }
        assert_eq!(fixed_width_date("2025-06-01"), NaiveDate::from_ymd_opt(2025, 6, 1));
        assert_eq!(fixed_width_date("2025-6-01x"), None);
    }

    #[test]
    fn the_fixed_width_writer_agrees_with_chrono() {
        let date = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        for value in [
            date(2025, 6, 1).and_hms_opt(12, 34, 56).unwrap(),
            date(2025, 6, 1).and_hms_nano_opt(9, 5, 0, 999_999_999).unwrap(),
            date(0, 1, 1).and_hms_opt(0, 0, 0).unwrap(),
            date(999, 12, 31).and_hms_opt(23, 59, 59).unwrap(),
            date(9999, 12, 31).and_hms_opt(23, 59, 59).unwrap(),
            date(10000, 1, 1).and_hms_opt(0, 0, 0).unwrap(),
            date(-1, 1, 1).and_hms_opt(0, 0, 0).unwrap(),
            date(2016, 12, 31).and_hms_milli_opt(23, 59, 59, 1_500).unwrap(),
        ] {
            let chrono = value.format(TIMESTAMP_FORMAT).to_string();
            assert_eq!(Timestamp::from(value).to_string(), chrono, "{value:?}");
            assert_eq!(
                serde_json::to_string(&Timestamp::from(value)).unwrap(),
                format!("\"{chrono}\"")
            );
            assert_eq!(
                Date::from(value.date()).to_string(),
                value.format(DATE_FORMAT).to_string()
            );
        }
        let leap = date(2016, 12, 31).and_hms_milli_opt(23, 59, 59, 1_500).unwrap();
        assert_eq!(Timestamp::from(leap).as_str(), "2016-12-31 23:59:60");
        assert!(fixed_width_timestamp_text(&leap).is_none());
    }

    #[test]
    fn parses_formats_and_round_trips() {
        let t: Timestamp = "2025-06-01 09:05:00".parse().unwrap();
        assert_eq!(t.to_string(), "2025-06-01 09:05:00");
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"2025-06-01 09:05:00\"");
        let back: Timestamp = serde_json::from_str("\"2025-06-01 09:05:00\"").unwrap();
        assert_eq!(back, t);
        let d: Date = "2025-02-28".parse().unwrap();
        assert_eq!(d.value(), NaiveDate::from_ymd_opt(2025, 2, 28));
    }

    #[test]
    fn strict_for_the_caller() {
        for bad in [
            "2025-06-01T09:05:00",
            "2025-06-01 9:05:00",
            "2025-13-01 00:00:00",
            "",
            "2025-06-01 09:05:00Z",
        ] {
            let error = bad.parse::<Timestamp>().unwrap_err();
            assert!(error.to_string().contains("yyyy-mm-dd hh:mm:ss"), "{error}");
        }
        assert!("2025-02-30".parse::<Date>().is_err());
        assert!("2025-2-3".parse::<Date>().is_err());
    }

    #[test]
    fn tolerant_and_lossless_for_the_server() {
        let t: Timestamp = serde_json::from_str("\"2025-06-01T09:05:00+09:00\"").unwrap();
        assert_eq!(t.value(), None);
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"2025-06-01T09:05:00+09:00\"");
        assert_eq!(format!("{t:?}"), "Timestamp(unparsed \"2025-06-01T09:05:00+09:00\")");
    }

    #[test]
    fn the_difference_of_two_timestamps() {
        let start: Timestamp = "2025-12-31 23:58:30".parse().unwrap();
        let end: Timestamp = "2026-01-01 00:01:00".parse().unwrap();
        assert_eq!(end.duration_since(&start), Some(chrono::TimeDelta::seconds(150)));
        assert_eq!(start.duration_since(&end), Some(chrono::TimeDelta::seconds(-150)));
        let unparsed: Timestamp = serde_json::from_str("\"soon\"").unwrap();
        assert_eq!(end.duration_since(&unparsed), None);
    }

    #[test]
    fn japan_time_conversions() {
        let instant = Utc.with_ymd_and_hms(2025, 12, 31, 15, 30, 0).unwrap();
        let jst = Timestamp::japan_time(&instant);
        assert_eq!(jst.to_string(), "2026-01-01 00:30:00");
        assert_eq!(jst.to_instant_in_japan(), Some(instant));
        assert_eq!(Timestamp::utc(&instant).to_string(), "2025-12-31 15:30:00");
    }
}

/// A wait as people read it, rounded up to the second (so "0 s" only once it
/// is over): `41 s` under 100 seconds, then `12 min 5 s`, `3 h 20 min`, `2 d 11 h`.
pub fn humanized(wait: std::time::Duration) -> impl std::fmt::Display {
    struct Humanized(u64);
    impl std::fmt::Display for Humanized {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            let seconds = self.0;
            let (days, hours, minutes) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60);
            match seconds {
                0..100 => write!(f, "{seconds} s"),
                100..3_600 => write!(f, "{minutes} min {} s", seconds % 60),
                3_600..86_400 => write!(f, "{} h {minutes} min", seconds / 3_600),
                _ => write!(f, "{days} d {hours} h"),
            }
        }
    }
    Humanized(wait.as_secs().saturating_add(u64::from(wait.subsec_nanos() > 0)))
}

#[cfg(test)]
mod humanized_tests {
    use super::humanized;
    use std::time::Duration;

    #[test]
    fn waits_read_in_the_largest_units_that_fit() {
        let shown = |secs: f64| humanized(Duration::from_secs_f64(secs)).to_string();
        assert_eq!(shown(0.0), "0 s");
        assert_eq!(shown(0.2), "1 s");
        assert_eq!(shown(60.0), "60 s");
        assert_eq!(shown(100.0), "1 min 40 s");
        assert_eq!(shown(3_600.0), "1 h 0 min");
        assert_eq!(shown(213_886.0), "2 d 11 h");
        assert_eq!(humanized(Duration::MAX).to_string(), "213503982334601 d 7 h");
    }
}
