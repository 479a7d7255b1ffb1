//! The query parameters of both editions, checked against the documented
//! bounds (400 INVALID_REQUEST otherwise), with the documented defaults.

use super::clock::{day_of, Civil, Local, DAY, MINUTE};
use super::facts::{dimension, Edition, Fact, BASIC_FILTER_ITEMS, CLOUD_FILTER_ITEMS};
use super::table::{Bucket, Sort, Window};
use crate::SimError;
use serde::Deserialize;

/// Every parameter a basic-edition report may take (each operation reads those it declares).
#[derive(Debug, Default, Deserialize)]
pub(super) struct BasicParams {
    pub start_interval: Option<i64>,
    pub end_interval: Option<i64>,
    pub start_with: Option<i64>,
    pub end_with: Option<i64>,
    pub sort_key: Option<String>,
    pub sort_order: Option<String>,
    pub granularity: Option<String>,
    pub filters: Option<String>,
    pub dimensions: Option<String>,
    pub metrics: Option<String>,
    pub group_per: Option<String>,
}

/// The basic edition's real-time operation; the generated type checks the login ID's form.
#[derive(Debug, Deserialize)]
pub(super) struct BasicRealtimeParams {
    pub login_id: vidplat_analytics::types::BasicRealtimeUserCountsLoginId,
    pub minutes: Option<i64>,
    pub sort_key: Option<String>,
    pub sort_order: Option<String>,
}

/// Every parameter a cloud-edition operation may take.
#[derive(Debug, Default, Deserialize)]
pub(super) struct CloudParams {
    pub start: Option<String>,
    pub end: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    pub sort: Option<String>,
    /// `hourly` in the reports; a number of positions (1..100) in the positional operations.
    pub granularity: Option<String>,
    pub filters: Option<String>,
    pub dimensions: Option<String>,
    pub metrics: Option<String>,
    pub group_per: Option<String>,
    pub complete_play_percent_threshold: Option<i64>,
    pub engagement_bitmap_granularity: Option<i64>,
}

/// A period, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Period {
    pub from: Local,
    pub to: Local,
}

impl Period {
    pub(super) fn bounds(&self) -> (Local, Local) {
        (self.from, self.to)
    }

    /// Days the period touches (at least 1).
    pub(super) fn days(&self) -> u64 {
        u64::try_from(day_of(self.to) - day_of(self.from) + 1)
            .unwrap_or(1)
            .max(1)
    }

    /// What a query over this period asking for `rows` rows costs: the two
    /// things the documents say make a query slow (408), multiplied.
    pub(super) fn cost(&self, rows: u64) -> u64 {
        rows.saturating_mul(self.days())
    }
}

fn within(name: &str, value: i64, min: i64, max: i64) -> Result<i64, SimError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(SimError::invalid(format!("{name} must be between {min} and {max}")))
    }
}

/// Documented: `sort_key` and `sort_order` are given together; `sort_order` defaults to DESC.
/// Only DESC is documented; ASC is accepted as its opposite.
pub(super) fn basic_sort(key: Option<&str>, order: Option<&str>, default_key: &str) -> Result<Sort, SimError> {
    let descending = |order: &str| match order {
        "DESC" => Ok(true),
        "ASC" => Ok(false),
        other => Err(SimError::invalid(format!(
            "sort_order must be DESC or ASC, not `{other}`"
        ))),
    };
    match (key, order) {
        (None, None) => Ok(Sort::new(default_key, true)),
        (Some(key), Some(order)) => Ok(Sort::new(key, descending(order)?)),
        _ => Err(SimError::invalid("sort_key and sort_order must be given together")),
    }
}

impl BasicParams {
    /// `start_interval` (default -30) to `end_interval` (default -1), days
    /// relative to today (-731..0); today's data reaches now. The second
    /// value is `golden`: the period ended more than `settle_days` days ago,
    /// its data final.
    pub(super) fn period(&self, now: Local, settle_days: u32) -> Result<(Period, bool), SimError> {
        let start = within("start_interval", self.start_interval.unwrap_or(-30), -731, 0)?;
        let end = within("end_interval", self.end_interval.unwrap_or(-1), -731, 0)?;
        if start > end {
            return Err(SimError::invalid("start_interval must not be after end_interval"));
        }
        let today = day_of(now);
        let period = Period {
            from: (today + start) * DAY,
            to: ((today + end + 1) * DAY - 1).min(now),
        };
        Ok((period, end + i64::from(settle_days) < 0))
    }

    /// Ranks `start_with` (default 1) to `end_with` (default 100), at most
    /// `max_window` of them.
    pub(super) fn ranks(&self, max_window: Option<u64>) -> Result<Window, SimError> {
        let first = self.start_with.unwrap_or(1);
        let last = self.end_with.unwrap_or(100);
        if first < 1 || last < 1 {
            return Err(SimError::invalid("start_with and end_with must be at least 1"));
        }
        if first > last {
            return Err(SimError::invalid("start_with must not be after end_with"));
        }
        let width = (last - first + 1) as u64;
        if let Some(max) = max_window.filter(|max| width > *max) {
            return Err(SimError::invalid(format!(
                "end_with - start_with + 1 must be at most {max} (the simulator's maximum: the service's is not shown)"
            )));
        }
        Ok(Window::Ranks {
            first: first as u64,
            last: last as u64,
        })
    }

    pub(super) fn sort(&self, default_key: &str) -> Result<Sort, SimError> {
        basic_sort(self.sort_key.as_deref(), self.sort_order.as_deref(), default_key)
    }

    pub(super) fn filters(&self) -> Result<Filters, SimError> {
        Filters::basic(self.filters.as_deref())
    }

    /// `granularity`: `hourly` (documented, the default) or `daily`.
    pub(super) fn bucket(&self) -> Result<Bucket, SimError> {
        bucket(self.granularity.as_deref(), Edition::Basic)
    }
}

fn bucket(granularity: Option<&str>, edition: Edition) -> Result<Bucket, SimError> {
    match granularity.unwrap_or("hourly") {
        "hourly" => Ok(Bucket::hourly(edition)),
        "daily" => Ok(Bucket::daily(edition)),
        other => Err(SimError::invalid(format!(
            "granularity must be hourly or daily, not `{other}`"
        ))),
    }
}

/// How long a cloud-edition period may be.
#[derive(Clone, Copy, Debug)]
pub(super) enum MaxSpan {
    Months(u32),
    Minutes(i64),
}

impl CloudParams {
    /// `start` (default `default_start`) to `end` (default now), in the simulator's zone (Japan time by default).
    pub(super) fn period(&self, now: Local, default_start: Local, max: MaxSpan) -> Result<Period, SimError> {
        let parse = |name: &str, value: &Option<String>, default: Local| match value {
            None => Ok(default),
            Some(text) => super::clock::parse_timestamp(text)
                .ok_or_else(|| SimError::invalid(format!("{name} must be of the form yyyy-mm-dd hh:mm:ss"))),
        };
        let from = parse("start", &self.start, default_start)?;
        let to = parse("end", &self.end, now)?;
        if from > to {
            return Err(SimError::invalid("start must not be after end"));
        }
        let (latest_end, span) = match max {
            MaxSpan::Months(months) => (Civil::of(from).plus_months(months).at(), format!("{months} months")),
            MaxSpan::Minutes(minutes) => (from + minutes * MINUTE, format!("{minutes} minutes")),
        };
        if to > latest_end {
            return Err(SimError::invalid(format!("a request covers at most {span}")));
        }
        Ok(Period { from, to })
    }

    /// 00:00:00 thirty days before today: the documented default start.
    pub(super) fn default_start(now: Local) -> Local {
        (day_of(now) - 30) * DAY
    }

    /// `limit` (1..50000, default 100) rows from `offset` (default 0).
    pub(super) fn page(&self) -> Result<Window, SimError> {
        let limit = within("limit", self.limit.unwrap_or(100), 1, 50_000)?;
        let offset = within("offset", self.offset.unwrap_or(0), 0, i64::MAX)?;
        Ok(Window::Page {
            offset: offset as u64,
            limit: limit as u64,
        })
    }

    /// `sort`: a key and `asc` or `desc` joined by a vertical bar, in the
    /// document's lower case (which case the service takes is not shown; the
    /// basic edition's `sort_order` is `DESC`, in upper case, likewise exactly).
    pub(super) fn sort(&self, default: Sort) -> Result<Sort, SimError> {
        let Some(text) = self.sort.as_deref() else {
            return Ok(default);
        };
        let malformed = || SimError::invalid(format!("sort must be <key>|asc or <key>|desc, not `{text}`"));
        let (key, direction) = text.split_once('|').ok_or_else(malformed)?;
        let descending = match direction {
            "asc" => false,
            "desc" => true,
            _ => return Err(malformed()),
        };
        Ok(Sort::new(key, descending))
    }

    pub(super) fn filters(&self) -> Result<Filters, SimError> {
        Filters::cloud(self.filters.as_deref())
    }

    /// `granularity` of the reports: `hourly` (documented, the default) or `daily`.
    pub(super) fn bucket(&self) -> Result<Bucket, SimError> {
        bucket(self.granularity.as_deref(), Edition::Cloud)
    }

    /// `granularity` of the positional operations: a number of positions, 1..100.
    pub(super) fn positions(&self, default: i64) -> Result<usize, SimError> {
        let value = match self.granularity.as_deref() {
            None => default,
            Some(text) => text
                .parse()
                .map_err(|_| SimError::invalid("granularity must be an integer from 1 to 100"))?,
        };
        Ok(within("granularity", value, 1, 100)? as usize)
    }

    /// `complete_play_percent_threshold`: 1..100, default 90.
    pub(super) fn complete_threshold(&self) -> Result<u32, SimError> {
        let value = self.complete_play_percent_threshold.unwrap_or(90);
        Ok(within("complete_play_percent_threshold", value, 1, 100)? as u32)
    }

    /// `engagement_bitmap_granularity`: 1..100, default 20.
    pub(super) fn bitmap_positions(&self) -> Result<usize, SimError> {
        let value = self.engagement_bitmap_granularity.unwrap_or(20);
        Ok(within("engagement_bitmap_granularity", value, 1, 100)? as usize)
    }

    /// `group_per`: none (the default) or `content_name`; others are not shown.
    pub(super) fn per_content(&self) -> Result<bool, SimError> {
        match self.group_per.as_deref() {
            None => Ok(false),
            Some("content_name") => Ok(true),
            Some(other) => Err(SimError::invalid(format!(
                "group_per must be content_name, not `{other}`"
            ))),
        }
    }
}

/// How a filter compares (the document names none: these four are the simulator's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Match {
    Equal,
    NotEqual,
    Contain,
    NotContain,
}

impl Match {
    fn parse(name: &str) -> Result<Self, SimError> {
        match name {
            "equal" => Ok(Match::Equal),
            "not_equal" => Ok(Match::NotEqual),
            "contain" => Ok(Match::Contain),
            "not_contain" => Ok(Match::NotContain),
            other => Err(SimError::invalid(format!(
                "unknown filter condition `{other}`; use equal, not_equal, contain or not_contain"
            ))),
        }
    }
}

/// One filter: an item (a session dimension), how it compares and the values
/// it compares with (any of them may match; case-sensitive).
#[derive(Clone, Debug)]
struct Filter {
    item: String,
    how: Match,
    values: Vec<String>,
}

impl Filter {
    fn new(item: &str, how: Match, values: Vec<String>, items: &[&str]) -> Result<Self, SimError> {
        if !items.contains(&item) {
            return Err(SimError::invalid(format!(
                "unknown filter item `{item}`; use one of {}",
                items.join(", ")
            )));
        }
        if values.is_empty() {
            return Err(SimError::invalid(format!("the filter on `{item}` has no value")));
        }
        Ok(Self {
            item: item.to_owned(),
            how,
            values,
        })
    }

    fn keeps(&self, fact: &Fact, edition: Edition) -> bool {
        let actual = dimension(fact, &self.item, edition).unwrap_or_default();
        let equal = self.values.contains(&actual);
        let contains = self.values.iter().any(|value| actual.contains(value.as_str()));
        match self.how {
            Match::Equal => equal,
            Match::NotEqual => !equal,
            Match::Contain => contains,
            Match::NotContain => !contains,
        }
    }
}

/// The `filters` of a request: all must keep a session (AND).
#[derive(Clone, Debug, Default)]
pub(super) struct Filters {
    filters: Vec<Filter>,
    edition: Option<Edition>,
}

/// Basic: `[{"item": ..., "condition": ..., "value": [...]}]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BasicFilter {
    item: String,
    condition: String,
    value: Vec<String>,
}

/// Cloud: `{"<item>" or "<item>:<condition>": [...]}`, keys kept in order with
/// duplicates (the document forbids naming an item twice).
struct CloudFilterEntries(Vec<(String, Vec<String>)>);

impl<'de> Deserialize<'de> for CloudFilterEntries {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = CloudFilterEntries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of arrays of strings")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Vec<String>>()? {
                    entries.push(entry);
                }
                Ok(CloudFilterEntries(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

impl Filters {
    fn basic(raw: Option<&str>) -> Result<Self, SimError> {
        let Some(raw) = raw else { return Ok(Self::default()) };
        let entries: Vec<BasicFilter> = serde_json::from_str(raw).map_err(|error| {
            SimError::invalid(format!(
                "filters must be a JSON array of {{item, condition, value}} objects: {error}"
            ))
        })?;
        let filters = entries
            .into_iter()
            .map(|entry| {
                Filter::new(
                    &entry.item,
                    Match::parse(&entry.condition)?,
                    entry.value,
                    BASIC_FILTER_ITEMS,
                )
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            filters,
            edition: Some(Edition::Basic),
        })
    }

    fn cloud(raw: Option<&str>) -> Result<Self, SimError> {
        let Some(raw) = raw else { return Ok(Self::default()) };
        let CloudFilterEntries(entries) = serde_json::from_str(raw).map_err(|error| {
            SimError::invalid(format!(
                "filters must be a JSON object mapping items to arrays of strings: {error}"
            ))
        })?;
        let mut filters: Vec<Filter> = Vec::with_capacity(entries.len());
        for (name, values) in entries {
            let (item, how) = match name.split_once(':') {
                Some((item, condition)) => (item, Match::parse(condition)?),
                None => (name.as_str(), Match::Equal),
            };
            if filters.iter().any(|filter| filter.item == item) {
                return Err(SimError::invalid(format!("the filter item `{item}` appears twice")));
            }
            filters.push(Filter::new(item, how, values, CLOUD_FILTER_ITEMS)?);
        }
        Ok(Self {
            filters,
            edition: Some(Edition::Cloud),
        })
    }

    /// The sessions every filter keeps.
    pub(super) fn apply(&self, facts: Vec<Fact>) -> Vec<Fact> {
        match self.edition {
            None => facts,
            Some(edition) => facts
                .into_iter()
                .filter(|fact| self.filters.iter().all(|filter| filter.keeps(fact, edition)))
                .collect(),
        }
    }
}

/// `dimensions` / `metrics` of the generic query: comma-separated names, each
/// one of `allowed` (how several are written is not shown; commas are chosen).
pub(super) fn name_list(
    parameter: &str,
    value: Option<&str>,
    default: &'static str,
    allowed: &[&'static str],
) -> Result<Vec<&'static str>, SimError> {
    let mut names: Vec<&'static str> = Vec::new();
    for name in value.unwrap_or(default).split(',').map(str::trim) {
        let known = allowed.iter().find(|known| **known == name).ok_or_else(|| {
            SimError::invalid(format!(
                "unknown {parameter} value `{name}`; use any of {}",
                allowed.join(", ")
            ))
        })?;
        if !names.contains(known) {
            names.push(known);
        }
    }
    Ok(names)
}
