//! The service's state: contents (with everything nested in them), categories,
//! labels and viewing pages, kept as the generated response types. Sites and
//! policies are built in (read only, see `builtins`).

use super::clock;
use crate::SimError;
use std::collections::BTreeMap;
use vidplat_vms::types;

/// At most this many contents, categories, labels or viewing pages: a guard of
/// the simulator's memory (the document's usage limits are not shown); past it,
/// `OVER_SERVICE_LIMIT`.
pub(super) const MAX_RECORDS: usize = 10_000;

pub(super) struct ContentRecord {
    /// Registration order: the tie-break of every ordering.
    pub seq: u64,
    /// UNIX time of registration.
    pub created: i64,
    pub body: types::Content,
}

impl ContentRecord {
    pub(super) fn name(&self) -> &str {
        self.body.name.as_deref().unwrap_or_default()
    }

    /// Marks the content as changed now.
    pub(super) fn touch(&mut self) {
        self.body.updated_at = clock::timestamp(clock::now());
    }

    /// Sum of the file sizes of its streams, in bytes.
    pub(super) fn total_filesize(&self) -> i64 {
        self.body
            .streams
            .iter()
            .filter_map(|stream| stream.filesize)
            .fold(0, i64::saturating_add)
    }
}

pub(super) struct PageRecord {
    pub seq: u64,
    pub created: i64,
    pub body: types::ViewingPage,
    /// Who watches the page now (the simultaneous-viewer limit).
    pub viewers: super::viewers::Viewers,
}

impl PageRecord {
    pub(super) fn id(&self) -> &str {
        self.body.id.as_deref().unwrap_or_default()
    }
}

#[derive(Default)]
pub(super) struct Store {
    /// By name (unique in the account).
    pub contents: BTreeMap<String, ContentRecord>,
    /// In registration order.
    pub categories: Vec<types::Category>,
    pub labels: Vec<types::Label>,
    pub pages: Vec<PageRecord>,
    last_seq: u64,
}

impl Store {
    pub(super) fn next_seq(&mut self) -> u64 {
        self.last_seq += 1;
        self.last_seq
    }

    pub(super) fn content(&self, name: &str) -> Result<&ContentRecord, SimError> {
        self.contents
            .get(name)
            .ok_or_else(|| SimError::not_found(format!("content {name}")))
    }

    pub(super) fn content_mut(&mut self, name: &str) -> Result<&mut ContentRecord, SimError> {
        self.contents
            .get_mut(name)
            .ok_or_else(|| SimError::not_found(format!("content {name}")))
    }

    pub(super) fn category(&self, id: &str) -> Option<&types::Category> {
        self.categories
            .iter()
            .find(|category| category.id.as_deref() == Some(id))
    }

    pub(super) fn category_named(&self, name: &str) -> Option<&types::Category> {
        self.categories
            .iter()
            .find(|category| category.name.as_deref() == Some(name))
    }

    pub(super) fn label(&self, id: &str) -> Option<&types::Label> {
        self.labels.iter().find(|label| label.id.as_deref() == Some(id))
    }

    pub(super) fn page_index(&self, id: &str) -> Result<usize, SimError> {
        self.pages
            .iter()
            .position(|page| page.id() == id)
            .ok_or_else(|| SimError::not_found(format!("viewing page {id}")))
    }
}
