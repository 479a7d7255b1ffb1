//! Report rows: sessions grouped into flat rows (field name → JSON value),
//! sorted and windowed; the page holding them is then decoded into the
//! generated page type, so a row can only hold what the YAML declares.

use super::clock::{Civil, Local, DAY, HOUR};
use super::facts::{dimension, Aggregate, Edition, Fact, MetricOptions};
use crate::SimError;
use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One row before it is typed, with values it can be sorted by but does not show.
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub fields: Map<String, Value>,
    pub sort_only: Map<String, Value>,
}

impl Row {
    pub(super) fn into_value(self) -> Value {
        Value::Object(self.fields)
    }

    fn sort_value(&self, key: &str) -> Option<&Value> {
        self.sort_only.get(key).or_else(|| self.fields.get(key))
    }
}

/// A sort key and direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Sort {
    pub key: String,
    pub descending: bool,
}

impl Sort {
    pub(super) fn new(key: &str, descending: bool) -> Self {
        Self {
            key: key.to_owned(),
            descending,
        }
    }

    /// 400 unless `key` is one of `allowed` (the document lists no keys: any scalar field of the row).
    pub(super) fn check<'a>(&self, allowed: impl IntoIterator<Item = &'a str>) -> Result<(), SimError> {
        let allowed: Vec<&str> = allowed.into_iter().collect();
        if allowed.contains(&self.key.as_str()) {
            Ok(())
        } else {
            Err(SimError::invalid(format!(
                "unknown sort key `{}`; this operation sorts by {}",
                self.key,
                allowed.join(", ")
            )))
        }
    }

    /// Sorts stably: rows that compare equal keep their order.
    pub(super) fn apply(&self, rows: &mut [Row]) {
        rows.sort_by(|a, b| {
            let order = compare(a.sort_value(&self.key), b.sort_value(&self.key));
            if self.descending {
                order.reverse()
            } else {
                order
            }
        });
    }
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(a)), Some(Value::Number(b))) => {
            let (a, b) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
        (Some(Value::String(a)), Some(Value::String(b))) => a.cmp(b),
        (Some(Value::Bool(a)), Some(Value::Bool(b))) => a.cmp(b),
        (a, b) => a.is_some().cmp(&b.is_some()),
    }
}

/// Which part of the sorted result is returned.
#[derive(Clone, Copy, Debug)]
pub(super) enum Window {
    /// Basic edition: ranks `first..=last` (1-based).
    Ranks { first: u64, last: u64 },
    /// Cloud edition: `limit` rows from `offset`.
    Page { offset: u64, limit: u64 },
}

impl Window {
    /// Rows the caller asked for (what makes a query slow).
    pub(super) fn requested_rows(&self) -> u64 {
        match *self {
            Window::Ranks { first, last } => last.saturating_sub(first).saturating_add(1),
            Window::Page { limit, .. } => limit,
        }
    }

    /// The part asked for, and whether further items exist beyond it.
    pub(super) fn cut<T>(&self, items: Vec<T>) -> (Vec<T>, bool) {
        let (skip, end) = match *self {
            Window::Ranks { first, last } => (first.saturating_sub(1), last),
            Window::Page { offset, limit } => (offset, offset.saturating_add(limit)),
        };
        let truncated = (items.len() as u64) > end;
        let kept = items
            .into_iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(usize::try_from(end.saturating_sub(skip)).unwrap_or(usize::MAX))
            .collect();
        (kept, truncated)
    }
}

/// A report: the dimensions it groups by and the metrics of each row.
pub(super) struct Report<'a> {
    pub dims: &'a [&'a str],
    pub metrics: &'a [&'a str],
    /// Dimensions offered as sort keys although the rows do not carry them.
    pub sort_only: &'a [&'a str],
    pub default_sort: (&'a str, bool),
}

impl<'a> Report<'a> {
    /// Every field a row can be sorted by (arrays cannot).
    pub(super) fn sort_keys(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.dims
            .iter()
            .chain(self.metrics)
            .chain(self.sort_only)
            .copied()
            .filter(|key| *key != "engagement_bitmap")
    }

    pub(super) fn default_sort(&self) -> Sort {
        Sort::new(self.default_sort.0, self.default_sort.1)
    }

    /// One row per combination of the dimensions, in dimension order.
    pub(super) fn rows(&self, facts: &[Fact], edition: Edition, options: MetricOptions) -> Vec<Row> {
        let mut groups: BTreeMap<Vec<String>, (&Fact, Aggregate)> = BTreeMap::new();
        for fact in facts {
            let key = self
                .dims
                .iter()
                .map(|dim| dimension(fact, dim, edition).unwrap_or_default())
                .collect();
            groups
                .entry(key)
                .or_insert_with(|| (fact, Aggregate::default()))
                .1
                .add(fact);
        }
        groups
            .into_values()
            .map(|(first, aggregate)| Row {
                fields: self.fields(first, &aggregate, edition, options),
                sort_only: dimensions(first, self.sort_only, edition),
            })
            .collect()
    }

    /// One row per session, newest first (viewing history).
    pub(super) fn history(&self, facts: &[Fact], edition: Edition, options: MetricOptions) -> Vec<Row> {
        facts
            .iter()
            .rev()
            .map(|fact| Row {
                fields: self.fields(fact, &Aggregate::of([fact]), edition, options),
                sort_only: Map::new(),
            })
            .collect()
    }

    /// One row per time bucket of the period, empty buckets included; the
    /// bucket is the row's `date_time`.
    pub(super) fn buckets(
        &self,
        facts: &[Fact],
        period: (Local, Local),
        bucket: Bucket,
        options: MetricOptions,
    ) -> Vec<Row> {
        let mut aggregates: BTreeMap<Local, Aggregate> = BTreeMap::new();
        for fact in facts {
            aggregates.entry(bucket.start(fact.at)).or_default().add(fact);
        }
        bucket
            .starts(period)
            .map(|start| {
                let aggregate = aggregates.remove(&start).unwrap_or_default();
                let mut fields = Map::new();
                fields.insert("date_time".into(), bucket.label(start).into());
                fields.extend(metrics(&aggregate, self.metrics, options));
                Row {
                    fields,
                    sort_only: Map::new(),
                }
            })
            .collect()
    }

    fn fields(
        &self,
        fact: &Fact,
        aggregate: &Aggregate,
        edition: Edition,
        options: MetricOptions,
    ) -> Map<String, Value> {
        let mut fields = dimensions(fact, self.dims, edition);
        fields.extend(metrics(aggregate, self.metrics, options));
        fields
    }
}

fn dimensions(fact: &Fact, names: &[&str], edition: Edition) -> Map<String, Value> {
    names
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), dimension(fact, name, edition)?.into())))
        .collect()
}

fn metrics<'a>(
    aggregate: &'a Aggregate,
    names: &'a [&str],
    options: MetricOptions,
) -> impl Iterator<Item = (String, Value)> + 'a {
    names
        .iter()
        .filter_map(move |name| Some(((*name).to_owned(), aggregate.metric(name, options)?)))
}

/// The length of a time bucket (`granularity`), and how its start is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Bucket {
    pub seconds: i64,
    pub edition: Edition,
}

impl Bucket {
    pub(super) fn hourly(edition: Edition) -> Self {
        Self { seconds: HOUR, edition }
    }

    pub(super) fn daily(edition: Edition) -> Self {
        Self { seconds: DAY, edition }
    }

    pub(super) fn start(&self, at: Local) -> Local {
        at - at.rem_euclid(self.seconds)
    }

    /// The starts of the buckets of a period (bounded by the period's validated length).
    fn starts(&self, (from, to): (Local, Local)) -> impl Iterator<Item = Local> {
        let step = self.seconds;
        let first = self.start(from);
        let count = if to < first { 0 } else { (to - first) / step + 1 };
        (0..count).map(move |i| first + i * step)
    }

    /// Basic: `yyyy-mm-dd hh:00` (hour resolution) or `yyyy-mm-dd`;
    /// cloud: `yyyy-mm-dd hh:00:00` (second resolution).
    pub(super) fn label(&self, start: Local) -> String {
        let civil = Civil::of(start);
        match (self.edition, self.seconds) {
            (Edition::Basic, DAY) => civil.date(),
            (Edition::Basic, _) => civil.date_minute(),
            (Edition::Cloud, _) => civil.timestamp(),
        }
    }
}

/// Every field a report produces survives decoding into its generated row type `R`.
#[cfg(test)]
pub(super) fn assert_rows_fit<R: serde::de::DeserializeOwned + serde::Serialize>(report: &Report, edition: Edition) {
    let facts = super::facts::facts(7, 45, 0, 3 * DAY, 3 * DAY);
    let rows = report.rows(&facts, edition, MetricOptions::default());
    assert!(!rows.is_empty());
    let expected: Vec<&str> = report.dims.iter().chain(report.metrics).copied().collect();
    for row in rows {
        let typed: R = serde_json::from_value(row.into_value()).expect("the row decodes");
        let value = serde_json::to_value(typed).expect("the row encodes");
        let names: Vec<&str> = value
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert!(
            expected.iter().all(|name| names.contains(name)),
            "{names:?} lacks some of {expected:?}"
        );
    }
}
