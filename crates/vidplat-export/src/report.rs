//! What the exporter knows of each report: generated from the YAML
//! (`x-export`, the row schema) by `cargo xtask codegen`.

use crate::schema::{Column, TimeValueError, Value};
use vidplat_core::{Operation, PagePosition, Paged, ReportPeriod};

/// A report's row type.
pub type Row<R> = <<R as Operation>::Success as Paged>::Item;

/// Whether a report's period may be asked for in parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Each row belongs to one day (its `day` column): the period is asked
    /// for a chunk of days at a time, and each row is filed under its day.
    ByDay {
        /// The column that gives the row's day.
        day: &'static str,
    },
    /// The rows total the whole period (distinct counts among them, which do
    /// not add up across parts of it): the period is asked for in one call.
    WholePeriod,
}

/// A report's description, for the plan, the command line and the schema snapshot.
#[derive(Clone, Copy, Debug)]
pub struct ReportInfo {
    /// The operation id (`cloud_viewing_history`).
    pub name: &'static str,
    /// `basic` (`/v1`) or `cloud` (`/v2`): the YAML's `x-edition`.
    pub edition: &'static str,
    /// How its period may be split.
    pub split: Split,
    /// Why (the YAML's `x-export.reason`).
    pub reason: &'static str,
    /// The row's columns, in the row type's order (its members sorted by
    /// name; lineage columns not included).
    pub columns: &'static [Column],
    /// The page size asked for when the caller sets none: the documented
    /// maximum where one is documented (cloud: 50,000 rows), else `None`
    /// (the builder's own window: the basic edition's maximum is not shown).
    pub default_page_rows: Option<u64>,
    /// The arguments the exporter sets on every request (the period pair
    /// and the page window): a caller's own values for them are replaced.
    pub set_by_export: &'static [&'static str],
    /// How the exporter tells that a partition's figures are final.
    pub final_by: FinalBy,
    /// The `granularity` values under which a by-day report stays by day
    /// (the YAML's `x-export.day_granularities`, an assumption); empty for a
    /// report without the parameter. With another value, the report's
    /// period is asked for whole, as one partition.
    pub day_granularities: &'static [&'static str],
}

impl ReportInfo {
    /// How the period is split when the report is asked for with `granularity`.
    pub fn split_with(&self, granularity: Option<&str>) -> Split {
        match (self.split, granularity) {
            (Split::ByDay { .. }, Some(value)) if !self.day_granularities.contains(&value) => Split::WholePeriod,
            (split, _) => split,
        }
    }
}

/// How an export tells that a partition's figures are final (and need not
/// be asked for again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalBy {
    /// The answer says so: the basic edition's `golden` ("all returned data
    /// is final"). An answer without it is judged by age.
    Golden,
    /// The answer does not say (the cloud edition): a day is final once the
    /// export's settling days have passed since it ended (an assumption:
    /// the documents do not say when figures settle).
    Age,
}

/// An analytics report builder the exporter can run: generated for every
/// analytics operation whose YAML has `x-export` with a split.
pub trait Report:
    Operation<Success: Paged<Item: serde::de::DeserializeOwned + Send + Unpin + 'static>> + ReportPeriod + Clone + Unpin
{
    /// What the exporter knows of the report.
    const INFO: &'static ReportInfo;

    /// The same request asking for `rows` rows a page (`limit`, or
    /// `start_with = 1, end_with = rows`).
    fn page_rows(self, rows: u64) -> Self;

    /// Where the first page starts (the builder's own position, else the
    /// first row); `None` for a report answered in one page.
    fn first_page(&self) -> Option<PagePosition>;

    /// The same request for the page at `position`; a position the report
    /// does not page by (or any, for a report answered in one page) is handed back.
    fn at_page(self, position: PagePosition) -> Result<Self, PagePosition>;

    /// A row's values, in the order of [`ReportInfo::columns`].
    /// Time members are read as times of `zone` (the zone of returned times).
    fn values<'r>(
        row: &'r Row<Self>,
        out: &mut Vec<Value<'r>>,
        zone: chrono::FixedOffset,
    ) -> Result<(), TimeValueError>;
}
