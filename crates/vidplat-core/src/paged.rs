//! What every list envelope (`{data: [...], ...}`) offers a paginator. The
//! generator implements [`Paged`] for each one it finds in the YAML.

/// A page of a list response.
pub trait Paged {
    /// One row of the list.
    type Item;

    /// The page's rows.
    fn into_items(self) -> Vec<Self::Item>;

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

    /// `last_page` of a page-numbered list (tasks).
    fn last_page(&self) -> Option<i64> {
        None
    }
}
