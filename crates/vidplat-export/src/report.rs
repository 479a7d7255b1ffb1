//! What the exporter knows of each report: generated from the YAML
//! (`x-export`, the row schema) by `cargo xtask codegen`.

use crate::schema::{Column, TimeValueError, Value};
use futures::future::BoxFuture;
use std::task::{Context, Poll};
use vidplat_core::{CallFailure, Operation, OperationMeta, PagePosition, Paged, Period, ReportPeriod, Rows, Runtime};

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
    Operation<Success: Paged<Item: serde::de::DeserializeOwned + Send + Unpin + 'static>>
    + ReportPeriod
    + Clone
    + Unpin
    + Sync
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

/// Any [`Report`] behind one type: what the command line gets for a report
/// chosen by name ([`crate::report_named`]), and what an [`Export`](crate::Export)
/// holds. An export's machinery is compiled once, not once for each report:
/// only the few steps below that touch the report's own types are.
pub struct AnyReport<'a>(Box<dyn Source + 'a>);

impl<'a> AnyReport<'a> {
    /// The report `report`, its builder's settings kept.
    pub fn new<R: Report + 'a>(report: R) -> Self {
        Self(Box::new(report))
    }

    /// What the exporter knows of the report.
    pub fn info(&self) -> &'static ReportInfo {
        self.0.info()
    }

    /// An export of this request's rows over `period` (Japan time), as
    /// [`ExportReport::export`](crate::ExportReport::export).
    pub fn export(self, period: Period) -> crate::Export<'a> {
        crate::Export::new(self, period)
    }

    pub(crate) fn source(&self) -> &(dyn Source + 'a) {
        &*self.0
    }
}

impl std::fmt::Debug for AnyReport<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AnyReport").field(&self.info().name).finish()
    }
}

/// What an export asks of its report: implemented by every [`Report`].
pub(crate) trait Source: Send + Sync {
    fn info(&self) -> &'static ReportInfo;
    fn meta(&self) -> &'static OperationMeta;
    fn runtime(&self) -> &Runtime;
    /// The query of the request as the builder makes it (refused as its call would be).
    fn query(&self) -> Result<Vec<(String, String)>, CallFailure>;
    /// Where the first page of `period` starts; `None` for one page.
    fn first_page(&self, period: Period, page_rows: Option<u64>) -> Option<PagePosition>;
    /// The rows of the page at `position` over `period`; a position the report
    /// does not page by is handed back.
    fn page(
        &self,
        period: Period,
        page_rows: Option<u64>,
        position: Option<PagePosition>,
    ) -> Result<Page<'_>, PagePosition>;
}

/// A page on its way: its rows once the answer has come.
pub(crate) type Page<'a> = BoxFuture<'a, Result<Box<dyn PageRows>, CallFailure>>;

/// One page's rows, read one at a time: the row read last is kept for [`PageRows::values`].
pub(crate) trait PageRows: Send {
    /// Reads the next row: `Some(Ok(()))` when there is one.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(), CallFailure>>>;
    /// The values of the row read last, as [`Report::values`].
    fn values<'r>(&'r self, out: &mut Vec<Value<'r>>, zone: chrono::FixedOffset) -> Result<(), TimeValueError>;
    fn truncated(&self) -> Option<bool>;
    fn golden(&self) -> Option<bool>;
    fn unsampled(&self) -> Option<bool>;
}

impl<R: Report> Source for R {
    fn info(&self) -> &'static ReportInfo {
        R::INFO
    }

    fn meta(&self) -> &'static OperationMeta {
        R::META
    }

    fn runtime(&self) -> &Runtime {
        ReportPeriod::runtime(self)
    }

    fn query(&self) -> Result<Vec<(String, String)>, CallFailure> {
        let prepared = self.clone().prepare()?;
        Ok(prepared.request().url().query_pairs().into_owned().collect())
    }

    fn first_page(&self, period: Period, page_rows: Option<u64>) -> Option<PagePosition> {
        request(self, period, page_rows).first_page()
    }

    fn page(
        &self,
        period: Period,
        page_rows: Option<u64>,
        position: Option<PagePosition>,
    ) -> Result<Page<'_>, PagePosition> {
        let request = request(self, period, page_rows);
        let page = match position {
            Some(position) => request.at_page(position)?,
            None => request,
        };
        Ok(Box::pin(async move {
            let rows = vidplat_core::operation_rows(page).await?;
            let rows = ReportRows {
                rows,
                last: None,
                values: R::values,
            };
            Ok(Box::new(rows) as Box<dyn PageRows>)
        }))
    }
}

/// `report` over `period`, `page_rows` a page when set.
fn request<R: Report>(report: &R, period: Period, page_rows: Option<u64>) -> R {
    let request = report.clone().with_period(period);
    match page_rows {
        Some(rows) => request.page_rows(rows),
        None => request,
    }
}

/// A page's rows of type `T`, the report's own: by the row type, not the
/// report, so that the row's lifetime is not the client's.
struct ReportRows<T> {
    rows: Rows<T>,
    last: Option<T>,
    values: for<'r> fn(&'r T, &mut Vec<Value<'r>>, chrono::FixedOffset) -> Result<(), TimeValueError>,
}

impl<T: serde::de::DeserializeOwned + Send + 'static> PageRows for ReportRows<T> {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(), CallFailure>>> {
        self.rows.poll_next(cx).map(|next| {
            next.map(|row| {
                self.last = Some(row?);
                Ok(())
            })
        })
    }

    fn values<'r>(&'r self, out: &mut Vec<Value<'r>>, zone: chrono::FixedOffset) -> Result<(), TimeValueError> {
        self.last.as_ref().map_or(Ok(()), |row| (self.values)(row, out, zone))
    }

    fn truncated(&self) -> Option<bool> {
        self.rows.truncated()
    }

    fn golden(&self) -> Option<bool> {
        self.rows.golden()
    }

    fn unsampled(&self) -> Option<bool> {
        self.rows.unsampled()
    }
}
