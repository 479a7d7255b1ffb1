//! Streams over list operations, in the four paging styles the documents use.
//!
//! Each function takes a closure that builds and sends one page request from
//! its position, and returns a stream of pages; [`items`] turns any page
//! stream into a stream of items. [`Limits`] caps pages or items. Analytics
//! pages go through the client's quota limiter like every other call.
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use futures::TryStreamExt;
//! use vidplat::pagination::{items, numbered, Limits};
//!
//! let encoder = client.encoder()?;
//! let tasks: Vec<_> = items(
//!     numbered(|page| encoder.list_tasks().page(page).per_page(100).send(), 4, Limits::default()),
//!     Limits::default().max_items(250),
//! )
//! .try_collect()
//! .await?;
//! # Ok(()) }
//! ```

use crate::Error;
use futures::stream::{self, BoxStream, Stream, StreamExt, TryStreamExt};
use progenitor_client::ResponseValue;
use std::future::Future;
use std::num::NonZeroU64;
use vidplat_core::Paged;

/// Optional caps on a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many pages.
    pub max_pages: Option<usize>,
    /// Stop after this many items.
    pub max_items: Option<usize>,
}

impl Limits {
    /// Caps the pages.
    pub fn max_pages(mut self, pages: usize) -> Self {
        self.max_pages = Some(pages);
        self
    }

    /// Caps the items.
    pub fn max_items(mut self, items: usize) -> Self {
        self.max_items = Some(items);
        self
    }
}

/// Page-numbered lists with `last_page` (tasks). Page 1 is fetched first;
/// once `last_page` is known, up to `prefetch` further pages are in flight at
/// once (pages still arrive in order).
pub fn numbered<'a, P, E, F, Fut>(fetch: F, prefetch: usize, limits: Limits) -> BoxStream<'a, Result<P, Error>>
where
    P: Paged + Send + 'a,
    F: Fn(NonZeroU64) -> Fut + Send + Sync + 'a,
    Fut: Future<Output = Result<ResponseValue<P>, progenitor_client::Error<E>>> + Send + 'a,
    Error: From<progenitor_client::Error<E>>,
    E: Send + 'a,
{
    let fetch = std::sync::Arc::new(fetch);
    let first = {
        let fetch = fetch.clone();
        async move {
            fetch(NonZeroU64::MIN)
                .await
                .map(ResponseValue::into_inner)
                .map_err(Error::from)
        }
    };
    let pages = stream::once(first)
        .map(move |first| {
            let rest: BoxStream<'a, Result<P, Error>> = match &first {
                Ok(page) if !page.is_empty() => {
                    let last = page.last_page().unwrap_or(1).max(1) as u64;
                    let fetch = fetch.clone();
                    stream::iter(2..=last)
                        .map(move |n| {
                            let fetch = fetch.clone();
                            async move {
                                let n = NonZeroU64::MIN.saturating_add(n - 1);
                                fetch(n).await.map(ResponseValue::into_inner).map_err(Error::from)
                            }
                        })
                        .buffered(prefetch.max(1))
                        .boxed()
                }
                _ => stream::empty().boxed(),
            };
            stream::once(async move { first }).chain(rest)
        })
        .flatten();
    capped(pages, limits)
}

/// Page-numbered lists that say `truncated` while more pages exist (contents, viewing pages).
pub fn truncated<'a, P, E, F, Fut>(fetch: F, limits: Limits) -> BoxStream<'a, Result<P, Error>>
where
    P: Paged + Send + 'a,
    F: Fn(NonZeroU64) -> Fut + Send + 'a,
    Fut: Future<Output = Result<ResponseValue<P>, progenitor_client::Error<E>>> + Send + 'a,
    Error: From<progenitor_client::Error<E>>,
{
    sequential(move |n| fetch(NonZeroU64::MIN.saturating_add(n)), limits)
}

/// Analytics basic edition: rank windows `start_with..=end_with` of `window` rows, while `truncated`.
pub fn rank_windows<'a, P, E, F, Fut>(window: NonZeroU64, fetch: F, limits: Limits) -> BoxStream<'a, Result<P, Error>>
where
    P: Paged + Send + 'a,
    F: Fn(NonZeroU64, NonZeroU64) -> Fut + Send + 'a,
    Fut: Future<Output = Result<ResponseValue<P>, progenitor_client::Error<E>>> + Send + 'a,
    Error: From<progenitor_client::Error<E>>,
{
    let window = window.get();
    let rank = |r: u64| NonZeroU64::new(r).unwrap_or(NonZeroU64::MAX);
    sequential(
        move |n| {
            let first = n.saturating_mul(window).saturating_add(1);
            fetch(rank(first), rank(n.saturating_add(1).saturating_mul(window)))
        },
        limits,
    )
}

/// Analytics cloud edition: `offset`/`limit`, while `truncated`.
pub fn offset_limit<'a, P, E, F, Fut>(limit: NonZeroU64, fetch: F, limits: Limits) -> BoxStream<'a, Result<P, Error>>
where
    P: Paged + Send + 'a,
    F: Fn(i64, NonZeroU64) -> Fut + Send + 'a,
    Fut: Future<Output = Result<ResponseValue<P>, progenitor_client::Error<E>>> + Send + 'a,
    Error: From<progenitor_client::Error<E>>,
{
    sequential(
        move |n| fetch(i64::try_from(n.saturating_mul(limit.get())).unwrap_or(i64::MAX), limit),
        limits,
    )
}

/// Fetches page 0, 1, 2, … until one is not `truncated` (or is empty).
fn sequential<'a, P, E, F, Fut>(fetch: F, limits: Limits) -> BoxStream<'a, Result<P, Error>>
where
    P: Paged + Send + 'a,
    F: Fn(u64) -> Fut + Send + 'a,
    Fut: Future<Output = Result<ResponseValue<P>, progenitor_client::Error<E>>> + Send + 'a,
    Error: From<progenitor_client::Error<E>>,
{
    let pages = stream::try_unfold((fetch, Some(0u64)), |(fetch, next)| async move {
        let Some(n) = next else { return Ok(None) };
        let page = fetch(n).await.map_err(Error::from)?.into_inner();
        let more = page.truncated() == Some(true) && !page.is_empty();
        Ok(Some((page, (fetch, more.then(|| n.saturating_add(1))))))
    });
    capped(pages, limits)
}

fn capped<'a, P: Send + 'a>(
    pages: impl Stream<Item = Result<P, Error>> + Send + 'a,
    limits: Limits,
) -> BoxStream<'a, Result<P, Error>> {
    pages.take(limits.max_pages.unwrap_or(usize::MAX)).boxed()
}

/// The items of every page, in order, capped by `limits.max_items`.
pub fn items<'a, P>(pages: BoxStream<'a, Result<P, Error>>, limits: Limits) -> BoxStream<'a, Result<P::Item, Error>>
where
    P: Paged + Send + 'a,
    P::Item: Send + 'a,
{
    pages
        .map_ok(|page| stream::iter(page.into_items().into_iter().map(Ok)))
        .try_flatten()
        .take(limits.max_items.unwrap_or(usize::MAX))
        .boxed()
}
