//! What every list envelope (`{data: [...], ...}`) offers a paginator. The
//! generator implements [`Paged`] for each one it finds in the YAML (and
//! `Paginated`, in `operation.rs`, for each list operation whose `x-paging`
//! declares its style).

use crate::setter::Refusal;
use std::num::NonZeroU64;

/// A page of a list response.
pub trait Paged {
    /// One row of the list (serialisable: a paginator tells a page that repeats the one before by its rows).
    type Item: serde::Serialize;

    /// The page's rows.
    fn into_items(self) -> Vec<Self::Item>;

    /// The page's rows, borrowed.
    fn items(&self) -> &[Self::Item];

    /// How many rows the page holds.
    fn len(&self) -> usize;

    /// Whether the page holds no row.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `truncated`: further rows exist (contents, viewing pages, analytics).
    fn truncated(&self) -> Option<bool> {
        None
    }

    /// `golden` (analytics basic edition): all returned data is final.
    fn golden(&self) -> Option<bool> {
        None
    }

    /// `unsampled` (analytics basic edition): all returned data is unsampled.
    fn unsampled(&self) -> Option<bool> {
        None
    }

    /// `last_page` of a page-numbered list (tasks).
    fn last_page(&self) -> Option<i64> {
        None
    }
}

/// How a list operation pages, as its `x-paging` declares in the YAML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PagingStyle {
    /// Page numbers from 1; the first page says `last_page` (tasks).
    LastPage,
    /// Page numbers from 1 while a page says `truncated` (contents, viewing pages).
    Truncated,
    /// Rank windows `start_with..=end_with` while `truncated` (analytics basic edition).
    RankWindows,
    /// `offset` and `limit` while `truncated` (analytics cloud edition).
    OffsetLimit,
}

impl PagingStyle {
    /// The style's name in the YAML (`x-paging.style`).
    pub fn name(self) -> &'static str {
        match self {
            PagingStyle::LastPage => "last_page",
            PagingStyle::Truncated => "truncated",
            PagingStyle::RankWindows => "rank_windows",
            PagingStyle::OffsetLimit => "offset_limit",
        }
    }
}

/// Where a page starts, in its operation's [`PagingStyle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PagePosition {
    /// Page `n`, counted from 1.
    Number(NonZeroU64),
    /// Ranks `start..=end`.
    Ranks {
        /// The first rank.
        start: NonZeroU64,
        /// The last rank.
        end: NonZeroU64,
    },
    /// The rows from `offset` (0 is the first row).
    Offset(u64),
}

impl PagePosition {
    /// The position of the page after this one, which held `rows` rows: the
    /// next page number, the next window of ranks as wide as this one, or the
    /// offset past the rows received. `None` past the largest position.
    pub fn after(self, rows: usize) -> Option<PagePosition> {
        match self {
            PagePosition::Number(n) => n.checked_add(1).map(PagePosition::Number),
            PagePosition::Ranks { start, end } => {
                let width = end.get().checked_sub(start.get())?.checked_add(1)?;
                Some(PagePosition::Ranks {
                    start: end.checked_add(1)?,
                    end: end.checked_add(width)?,
                })
            }
            PagePosition::Offset(offset) => offset.checked_add(u64::try_from(rows).ok()?).map(PagePosition::Offset),
        }
    }
}

/// A builder's query value as a count, if the caller set one (generated code).
#[doc(hidden)]
pub fn paging_field<T: Copy + TryInto<u64>>(field: &Result<Option<T>, Refusal>) -> Option<u64> {
    field.as_ref().ok().copied().flatten().and_then(|v| v.try_into().ok())
}

/// The first page of a page-numbered list from the caller's `page`, else 1.
#[doc(hidden)]
pub fn first_number(page: Option<u64>) -> PagePosition {
    PagePosition::Number(page.and_then(NonZeroU64::new).unwrap_or(NonZeroU64::MIN))
}

/// The first rank window from the caller's `start_with`/`end_with`; the
/// documented defaults are ranks 1 to 100, so a window is 100 ranks wide
/// unless the caller says otherwise.
#[doc(hidden)]
pub fn first_ranks(start: Option<u64>, end: Option<u64>) -> PagePosition {
    let start = start.and_then(NonZeroU64::new).unwrap_or(NonZeroU64::MIN);
    let end = end
        .and_then(NonZeroU64::new)
        .filter(|end| *end >= start)
        .unwrap_or_else(|| start.saturating_add(99));
    PagePosition::Ranks { start, end }
}
