//! `.period(p)` on every builder whose operation reports over a period of
//! days: the basic edition's `start_interval`/`end_interval` (days relative to
//! today in Japan), the cloud edition's `start`/`end` timestamps (Japan time)
//! or a `start`/`end` pair of dates, set from one `vidplat_core::Period`. An operation whose pair cannot take whole
//! days (the 15-minute real-time window) says `x-period: none`. The same
//! builders implement `vidplat_core::ReportPeriod`, which the exporter is generic over.

use crate::codegen::model::{Location, Operation};
use crate::codegen::syntax::is_named;
use anyhow::{bail, Result};
use quote::quote;

/// The query parameter pairs that carry a report's period: the basic
/// edition's days relative to today, the cloud edition's start and end.
pub const PERIOD_PAIRS: [[&str; 2]; 2] = [["start_interval", "end_interval"], ["start", "end"]];

pub fn period_methods(operations: &[Operation]) -> Result<Vec<syn::Item>> {
    let mut items = Vec::new();
    for op in operations {
        let id = &op.id;
        let query = |name: &str| {
            op.params
                .iter()
                .find(|p| p.name == name && matches!(p.location, Location::Query { .. }))
        };
        let [[start_interval, end_interval], [start, end]] = PERIOD_PAIRS;
        let pair = [query(start_interval), query(end_interval), query(start), query(end)];
        let body = match pair {
            [None, None, None, None] => continue,
            [Some(start), Some(end), None, None] => {
                let (start, end) = (&start.field, &end.field);
                quote! {
                    /// Sets the period: `start_interval` and `end_interval` as its first and last
                    /// day relative to today in Japan (a day outside −731..=0 is refused before sending).
                    pub fn period(self, period: ::vidplat_core::Period) -> Self {
                        let (start, end) = period.relative_days(::vidplat_core::Period::today_in_japan());
                        self.#start(start).#end(end)
                    }
                }
            }
            [None, None, Some(start), Some(end)] if [start, end].iter().all(|p| is_named(&p.ty, "Timestamp")) => {
                let (start, end) = (&start.field, &end.field);
                quote! {
                    /// Sets the period: `start` at 00:00:00 of its first day and `end` at
                    /// 23:59:59 of its last, Japan time.
                    pub fn period(self, period: ::vidplat_core::Period) -> Self {
                        self.#start(period.start()).#end(period.end())
                    }
                }
            }
            [None, None, Some(start), Some(end)] if [start, end].iter().all(|p| is_named(&p.ty, "Date")) => {
                let (start, end) = (&start.field, &end.field);
                quote! {
                    /// Sets the period: `start` and `end` to its first and last day.
                    pub fn period(self, period: ::vidplat_core::Period) -> Self {
                        self.#start(::vidplat_core::Date::from(period.first()))
                            .#end(::vidplat_core::Date::from(period.last()))
                    }
                }
            }
            [None, None, Some(start), Some(_)] => {
                bail!(
                    "{id}: `{}` is neither a Timestamp nor a Date, so it cannot take a period",
                    start.name
                )
            }
            _ => bail!("{id}: takes half of a period pair (start_interval/end_interval or start/end)"),
        };
        match op.period.as_str() {
            None if op.period.is_null() => {}
            Some("none") => continue,
            _ => bail!("{id}: x-period is `{}`; only `none` is known", op.period),
        }
        let name = &op.builder;
        items.push(syn::parse2(quote! {
            impl<'a> #name<'a> {
                #body
            }
        })?);
        items.push(syn::parse2(quote! {
            impl<'a> ::vidplat_core::ReportPeriod for #name<'a> {
                fn with_period(self, period: ::vidplat_core::Period) -> Self {
                    self.period(period)
                }
                fn runtime(&self) -> &::vidplat_core::Runtime {
                    self.client.runtime()
                }
            }
        })?);
    }
    Ok(items)
}
