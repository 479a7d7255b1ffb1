//! Paginators on the list operations' builders.
//!
//! Every list operation whose YAML declares its paging style (`x-paging`) has
//! `.pages()` and `.items()` through [`Paginate`]: set the query as usual
//! (filters, sort, page size), then stream. Pages arrive in order; the stream
//! starts where the builder does (its `page`, `offset` or `start_with..=end_with`,
//! else the first row) and ends where the documents say the list ends:
//!
//! | Style | Operations | Next page | Ends |
//! |---|---|---|---|
//! | `last_page` | tasks | page + 1 (up to [`Pages::prefetch`] at once) | after `last_page` |
//! | `truncated` | contents, viewing pages | page + 1 | a page not `truncated` |
//! | `rank_windows` | analytics basic | the next window as wide as the first (default 1..=100) | a page not `truncated` |
//! | `offset_limit` | analytics cloud | offset + rows received | a page not `truncated` |
//!
//! An empty page always ends the stream. Analytics pages go through the
//! client's quota limiter like every other call, one after the other.
//!
//! A server cannot keep a stream going forever: a page whose body is the
//! one before's again, byte for byte (hashed as it arrives), or a `last_page` below 1, ends it with
//! [`Error::Paging`], and so does a page past [`DEFAULT_MAX_PAGES`] (for a
//! list under the analytics quota, [`DEFAULT_MAX_QUOTA_PAGES`]) unless
//! [`Pages::max_pages`] set another bound (which then ends the stream quietly).
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), vidplat::Error> {
//! use futures::TryStreamExt;
//! use vidplat::Paginate;
//!
//! let tasks: Vec<_> = client.encoder()?.list_tasks().per_page(100).items().max_items(250).try_collect().await?;
//! let rows: Vec<_> = client.analytics()?.cloud_by_os().limit(1000).items().try_collect().await?;
//! # Ok(()) }
//! ```

use crate::{Error, PagingProblem};
use futures_util::future::{BoxFuture, FutureExt};
use futures_util::stream::{self, BoxStream, FuturesOrdered, Stream, StreamExt, TryStreamExt};
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use vidplat_core::{PagePosition, Paged, Paginated, PagingStyle};

/// The deepest [`Pages::prefetch`]: beyond it, more requests at once only load
/// the service (and the pages held waiting for their turn, the client's memory).
pub const MAX_PREFETCH: usize = 64;

/// The most pages a stream yields when [`Pages::max_pages`] is not set: one
/// more is [`Error::Paging`] ([`PagingProblem::TooManyPages`]). A million
/// tasks at 100 a page; far more analytics rows than a month's quota reads.
pub const DEFAULT_MAX_PAGES: usize = 10_000;

/// The most pages a list under the analytics per-minute quota yields when
/// [`Pages::max_pages`] is not set: each page is a call of the month's
/// 50,000, so a list that never ends spends at most this many (0.2 % of the
/// month) before [`PagingProblem::TooManyPages`] says so; set a bound of
/// your own for longer reports.
pub const DEFAULT_MAX_QUOTA_PAGES: usize = 100;

/// `.pages()` and `.items()` for every list operation's builder.
pub trait Paginate: Paginated + Unpin {
    /// The pages of the list, in order.
    fn pages<'a>(self) -> Pages<'a, Self>
    where
        Self: 'a,
    {
        Pages {
            operation: Some(self),
            prefetch: 1,
            max_pages: None,
            stream: None,
        }
    }

    /// The rows of every page, in order.
    fn items<'a>(self) -> Items<'a, Self>
    where
        Self: 'a,
    {
        Items {
            pages: Some(self.pages()),
            max_items: None,
            stream: None,
        }
    }
}

impl<O: Paginated + Unpin> Paginate for O {}

/// The row type of an operation's pages.
pub type Item<O> = <<O as vidplat_core::Operation>::Success as Paged>::Item;

/// A stream of pages (`Result<Page, Error>`); the first error ends it.
pub struct Pages<'a, O: Paginated> {
    operation: Option<O>,
    prefetch: usize,
    max_pages: Option<usize>,
    stream: Option<BoxStream<'a, Result<O::Success, Error>>>,
}

impl<'a, O: Paginated + Unpin + 'a> Pages<'a, O> {
    /// How many pages may be on the wire at once (1 to [`MAX_PREFETCH`]), where
    /// the style says how many pages there are (`last_page`): the pages after
    /// the first are asked for beside it, those past its `last_page` dropped
    /// unread, and a page that has arrived decodes while the next ones are
    /// asked for. Other styles learn from each page whether there is
    /// another, so they fetch one at a time: there, a depth above 1 ends the
    /// stream at once with [`PagingProblem::PrefetchNotOffered`], nothing
    /// sent. Default 1: one page at a time.
    pub fn prefetch(mut self, depth: usize) -> Self {
        self.prefetch = depth.clamp(1, MAX_PREFETCH);
        self
    }

    /// Stops after this many pages, quietly (instead of the default bound,
    /// [`DEFAULT_MAX_PAGES`], or [`DEFAULT_MAX_QUOTA_PAGES`] under the
    /// analytics quota, past which the stream ends with an error).
    pub fn max_pages(mut self, pages: usize) -> Self {
        self.max_pages = Some(pages);
        self
    }

    fn start(&mut self) -> BoxStream<'a, Result<O::Success, Error>> {
        let Some(operation) = self.operation.take() else {
            return stream::empty().boxed();
        };
        if self.prefetch > 1 && O::STYLE != PagingStyle::LastPage {
            let refused = not_started::<O>(PagingProblem::PrefetchNotOffered(O::STYLE));
            return stream::once(futures_util::future::ready(Err(refused))).boxed();
        }
        let first = operation.first();
        let pages = match (O::STYLE, first) {
            (PagingStyle::LastPage, PagePosition::Number(start)) => {
                Numbered::new(operation, start.get(), self.prefetch, self.max_pages).boxed()
            }
            _ => sequential(operation, first)
                .take(self.max_pages.unwrap_or(usize::MAX))
                .boxed(),
        };
        let default = if O::META.rate_limited {
            DEFAULT_MAX_QUOTA_PAGES
        } else {
            DEFAULT_MAX_PAGES
        };
        let bound = self.max_pages.is_none().then_some(default);
        guarded(pages, O::META.id, bound)
    }
}

impl<'a, O: Paginated + Unpin + 'a> Stream for Pages<'a, O> {
    type Item = Result<O::Success, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Made at the first poll, with the knobs set by then.
        let stream = self.stream.take().unwrap_or_else(|| self.start());
        self.stream.insert(stream).poll_next_unpin(cx)
    }
}

impl<O: Paginated> fmt::Debug for Pages<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pages")
            .field("operation", &O::META.id)
            .field("style", &O::STYLE)
            .field("prefetch", &self.prefetch)
            .field("max_pages", &self.max_pages)
            .field("started", &self.stream.is_some())
            .finish()
    }
}

/// A stream of rows (`Result<Row, Error>`) across pages; the first error ends it.
pub struct Items<'a, O: Paginated> {
    /// Until the first poll, which turns them into `stream`.
    pages: Option<Pages<'a, O>>,
    max_items: Option<usize>,
    stream: Option<BoxStream<'a, Result<Item<O>, Error>>>,
}

impl<'a, O> Items<'a, O>
where
    O: Paginated + Unpin + 'a,
    Item<O>: Send + 'a,
{
    /// As [`Pages::prefetch`].
    pub fn prefetch(mut self, depth: usize) -> Self {
        self.pages = self.pages.map(|pages| pages.prefetch(depth));
        self
    }

    /// As [`Pages::max_pages`]: the rows of at most this many pages, then the
    /// stream ends quietly.
    pub fn max_pages(mut self, pages: usize) -> Self {
        self.pages = self.pages.map(|all| all.max_pages(pages));
        self
    }

    /// Stops after this many rows: no page is asked for after the one that
    /// holds the last (pages already in flight through prefetch are dropped).
    pub fn max_items(mut self, items: usize) -> Self {
        self.max_items = Some(items);
        self
    }
}

impl<'a, O> Stream for Items<'a, O>
where
    O: Paginated + Unpin + 'a,
    Item<O>: Send + 'a,
{
    type Item = Result<Item<O>, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(pages) = self.pages.take() {
            let max_items = self.max_items.unwrap_or(usize::MAX);
            let rows = pages
                .map_ok(|page| stream::iter(page.into_items().into_iter().map(Ok)))
                .try_flatten()
                .take(max_items)
                .boxed();
            self.stream = Some(rows);
        }
        self.stream
            .as_mut()
            .map_or(Poll::Ready(None), |stream| stream.poll_next_unpin(cx))
    }
}

impl<O: Paginated> fmt::Debug for Items<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items")
            .field("pages", &self.pages)
            .field("max_items", &self.max_items)
            .finish()
    }
}

/// A page as it arrived: decoded, and the digest of its body's bytes.
struct Fetched<P> {
    page: P,
    digest: Option<u64>,
}

async fn fetch<O: Paginated>(
    operation: O,
    at: PagePosition,
    wire_slot: Option<OwnedSemaphorePermit>,
) -> Result<Fetched<O::Success>, Error> {
    let operation = operation
        .at(at)
        .map_err(|_| not_started::<O>(PagingProblem::PositionOfAnotherStyle(O::STYLE)))?;
    let response = vidplat_core::send_operation(operation, wire_slot).await?;
    let digest = response.body_digest();
    Ok(Fetched {
        page: response.into_inner(),
        digest,
    })
}

/// A listing refused before its first request.
fn not_started<O: Paginated>(problem: PagingProblem) -> Error {
    Error::Paging {
        operation: O::META.id,
        pages: 0,
        problem,
    }
}

/// `last_page` lists: the first page says how many there are, so the rest
/// are asked for `prefetch` at a time, still yielded in order. Until it
/// arrives the length is unknown: with a prefetch of P, the P − 1 pages after
/// it are asked for beside it, and those past `last_page` are dropped unread
/// (at most P − 1 requests past the end of a short list). A page that has
/// arrived gives its place on the wire back before it decodes
/// ([`vidplat_core::send_operation`]), so up to P more pages may wait,
/// decoded, for their turn. Without a `last_page`, pages follow one by one
/// until an empty one.
struct Numbered<'a, O: Paginated> {
    operation: O,
    /// The caller's first page.
    start: u64,
    /// The next page to ask for (`None` past `u64::MAX`).
    next: Option<u64>,
    /// No page after this one is asked for or yielded: the caller's
    /// `max_pages`, then `last_page`, an empty page or an error.
    limit: u64,
    /// Whether the first page has arrived, and what it said.
    first: FirstPage,
    prefetch: usize,
    wire_slots: Arc<Semaphore>,
    in_flight: FuturesOrdered<BoxFuture<'a, NumberedPage<O>>>,
}

/// A page's number and what asking for it gave.
type NumberedPage<O> = (u64, Result<Fetched<<O as vidplat_core::Operation>::Success>, Error>);

#[derive(Clone, Copy, PartialEq)]
enum FirstPage {
    Awaited,
    SaidLastPage,
    /// No `last_page`: one page at a time until an empty one.
    SaidNothing,
}

impl<'a, O: Paginated + 'a> Numbered<'a, O> {
    fn new(operation: O, start: u64, prefetch: usize, max_pages: Option<usize>) -> Self {
        let pages = max_pages.map_or(u64::MAX, |pages| u64::try_from(pages).unwrap_or(u64::MAX));
        Numbered {
            operation,
            start,
            // `max_pages(0)`: nothing at all.
            next: (pages > 0).then_some(start),
            limit: start.saturating_add(pages.saturating_sub(1)),
            first: FirstPage::Awaited,
            prefetch,
            wire_slots: Arc::new(Semaphore::new(prefetch)),
            in_flight: FuturesOrdered::new(),
        }
    }

    /// Asks for pages up to what is known to exist, keeping at most twice
    /// the prefetch depth in hand (on the wire, decoding, or waiting).
    fn ask(&mut self) {
        let last_asked = match self.first {
            FirstPage::Awaited => self.start.saturating_add(self.prefetch as u64).saturating_sub(1),
            FirstPage::SaidLastPage | FirstPage::SaidNothing => u64::MAX,
        };
        let last_asked = last_asked.min(self.limit);
        let in_hand = match (self.prefetch, self.first) {
            (1, _) | (_, FirstPage::SaidNothing) => 1,
            (depth, _) => depth.saturating_mul(2),
        };
        while self.in_flight.len() < in_hand {
            let Some(n) = self.next.filter(|n| *n <= last_asked) else {
                break;
            };
            self.next = n.checked_add(1);
            let operation = self.operation.clone();
            let wire_slots = self.wire_slots.clone();
            self.in_flight.push_back(
                async move {
                    let at = PagePosition::Number(std::num::NonZeroU64::new(n).unwrap_or(std::num::NonZeroU64::MAX));
                    // Never closed; were it, fetching without a slot is still right.
                    let page = fetch(operation, at, wire_slots.acquire_owned().await.ok()).await;
                    (n, page)
                }
                .boxed(),
            );
        }
    }

    /// Ends the listing after page `n`: what is still in flight is dropped.
    fn end_after(&mut self, n: u64) {
        self.limit = self.limit.min(n);
        self.in_flight.clear();
        self.next = None;
    }
}

impl<'a, O: Paginated + Unpin + 'a> Stream for Numbered<'a, O> {
    type Item = Result<Fetched<O::Success>, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.ask();
        let Some((n, page)) = std::task::ready!(this.in_flight.poll_next_unpin(cx)) else {
            return Poll::Ready(None);
        };
        if n > this.limit {
            // Asked for before `last_page` was known, and past it.
            this.end_after(this.limit);
            return Poll::Ready(None);
        }
        match page.as_ref().map(|fetched| &fetched.page) {
            Ok(page) if page.is_empty() => this.end_after(n),
            Ok(page) if this.first == FirstPage::Awaited => match page.last_page() {
                Some(last) if last < 1 => {
                    this.end_after(n);
                    return Poll::Ready(Some(Err(Error::Paging {
                        operation: O::META.id,
                        pages: n.saturating_sub(this.start).saturating_add(1),
                        problem: PagingProblem::ImpossibleLastPage(last),
                    })));
                }
                Some(last) => {
                    this.first = FirstPage::SaidLastPage;
                    this.limit = this.limit.min((last as u64).max(n));
                    if this.limit == n {
                        this.end_after(n);
                    }
                }
                None => this.first = FirstPage::SaidNothing,
            },
            Ok(_) if n == this.limit => this.end_after(n),
            Ok(_) => {}
            Err(_) => this.end_after(n),
        }
        Poll::Ready(Some(page))
    }
}

/// Ends `pages` with [`Error::Paging`] at a page that repeats the one before
/// (the same body, by its digest) or past `bound` pages.
fn guarded<'a, P: Paged + Send + 'a>(
    pages: BoxStream<'a, Result<Fetched<P>, Error>>,
    operation: &'static str,
    bound: Option<usize>,
) -> BoxStream<'a, Result<P, Error>> {
    // The state: the pages, numbered from 0, and the fingerprint of the one
    // before. Once an item is an error nothing more is asked of `pages` (the state
    // is `None`): no call (of the month's quota, for analytics) is spent after the end.
    stream::unfold(Some((pages.enumerate(), None)), move |state| async move {
        let (mut pages, previous) = state?;
        let (index, fetched) = pages.next().await?;
        let Fetched { page, digest } = match fetched {
            Ok(fetched) => fetched,
            Err(error) => return Some((Err(error), None)),
        };
        // An empty page ends a list: the same one twice says nothing.
        let fingerprint = digest.filter(|_| !page.is_empty()).map(|digest| (page.len(), digest));
        let problem = match bound {
            Some(bound) if index >= bound => PagingProblem::TooManyPages { bound },
            _ if fingerprint.is_some() && fingerprint == previous => PagingProblem::SamePageAgain,
            _ => return Some((Ok(page), Some((pages, fingerprint)))),
        };
        let error = Error::Paging {
            operation,
            pages: index as u64 + 1,
            problem,
        };
        Some((Err(error), None))
    })
    .boxed()
}

/// One page at a time from `first`, while a page is `truncated` and not empty.
fn sequential<'a, O: Paginated + 'a>(
    operation: O,
    first: PagePosition,
) -> BoxStream<'a, Result<Fetched<O::Success>, Error>> {
    stream::try_unfold((operation, Some(first)), move |(operation, next)| async move {
        let Some(at) = next else { return Ok(None) };
        let fetched = fetch(operation.clone(), at, None).await?;
        let page = &fetched.page;
        let more = page.truncated() == Some(true) && !page.is_empty();
        let next = if more { at.after(page.len()) } else { None };
        Ok(Some((fetched, (operation, next))))
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU64;

    fn n(v: u64) -> NonZeroU64 {
        NonZeroU64::new(v).unwrap()
    }

    /// A page of numbers.
    struct Numbers(Vec<u32>);

    impl Paged for Numbers {
        type Item = u32;
        fn into_items(self) -> Vec<u32> {
            self.0
        }
        fn items(&self) -> &[u32] {
            &self.0
        }
        fn len(&self) -> usize {
            self.0.len()
        }
    }

    async fn through_the_guard(pages: Vec<Vec<u32>>, bound: Option<usize>) -> Vec<Result<Vec<u32>, String>> {
        // Each page's body: its rows as text, its digest a hash of that text.
        let fetched = |rows: Vec<u32>| {
            use std::hash::Hasher as _;
            let mut digest = std::collections::hash_map::DefaultHasher::new();
            digest.write(format!("{rows:?}").as_bytes());
            Ok(Fetched {
                page: Numbers(rows),
                digest: Some(digest.finish()),
            })
        };
        let pages = stream::iter(pages.into_iter().map(fetched)).boxed();
        let guarded = guarded(pages, "list_numbers", bound);
        guarded
            .map(|page| page.map(|p| p.0).map_err(|e| e.to_string()))
            .collect()
            .await
    }

    #[tokio::test]
    async fn the_guard_passes_a_list_that_advances_and_stops_one_that_does_not() {
        let advancing = through_the_guard(vec![vec![1, 2], vec![3, 4], vec![5]], Some(3)).await;
        assert_eq!(advancing, [Ok(vec![1, 2]), Ok(vec![3, 4]), Ok(vec![5])]);
        // Same length and ends, another row between: another body, a new page.
        let advancing = through_the_guard(vec![vec![1, 2, 9], vec![1, 3, 9]], None).await;
        assert_eq!(advancing.len(), 2);
        assert!(advancing.iter().all(Result::is_ok));

        let repeating = through_the_guard(vec![vec![1, 2], vec![1, 2], vec![1, 2]], None).await;
        assert_eq!(
            repeating,
            [
                Ok(vec![1, 2]),
                Err("list_numbers: the listing stopped at page 2: the server answered the page before again, byte for byte; the list does not advance".to_owned())
            ]
        );

        let endless = through_the_guard((0..10).map(|n| vec![n]).collect(), Some(3)).await;
        assert_eq!(endless.len(), 4, "three pages, then the error");
        assert_eq!(
            endless[3],
            Err("list_numbers: the listing stopped at page 4: more than 3 pages, the default bound; `.max_pages(n)` sets another".to_owned())
        );
    }

    #[test]
    fn positions_follow_each_style() {
        assert_eq!(
            PagePosition::after(PagePosition::Number(n(3)), 10),
            Some(PagePosition::Number(n(4)))
        );
        assert_eq!(
            PagePosition::after(
                PagePosition::Ranks {
                    start: n(1),
                    end: n(100)
                },
                100
            ),
            Some(PagePosition::Ranks {
                start: n(101),
                end: n(200)
            })
        );
        // The next offset counts the rows received, not the limit asked for.
        assert_eq!(
            PagePosition::after(PagePosition::Offset(1000), 998),
            Some(PagePosition::Offset(1998))
        );
        assert_eq!(PagePosition::after(PagePosition::Number(NonZeroU64::MAX), 1), None);
        assert_eq!(
            PagePosition::after(
                PagePosition::Ranks {
                    start: n(1),
                    end: NonZeroU64::MAX
                },
                1
            ),
            None
        );
    }
}
