//! An operation named at run time, its types erased: [`Client::any_call`].
//!
//! A reader of data (the command line, a file of rows) learns an
//! operation's id only when it runs, so it takes every operation's typed
//! call: decoding each answer's type, paging each list. Made here, behind
//! one vtable per operation, all of that is compiled once, in this crate,
//! and the reader's own crate compiles none of it (the command line's
//! install then needs less memory: docs/decisions/0011). Answers come back
//! as JSON values; a list's rows as their JSON text, members in the order of
//! their type, which a reader writes out as they are or transcodes.

use crate::pagination::Item;
use crate::{Call as _, Client, Error, Paginate as _};
use futures_util::future::BoxFuture;
use futures_util::stream::{BoxStream, StreamExt as _, TryStreamExt as _};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use vidplat_core::{Args, Operation, OperationVisitor, PagePosition, Paged as _, Paginated, Refusals, Service};

/// One row of a list: its JSON text (compact, members in the order of its type).
pub type Row = Vec<u8>;

/// An operation made from data ([`Client::any_call`]): a list, which can
/// also page, or any other.
#[derive(Debug)]
pub enum AnyCall<'a> {
    /// An operation that does not page.
    One(AnyOne<'a>),
    /// A list with a paging style.
    List(AnyList<'a>),
}

/// An operation that does not page, made from data.
pub struct AnyOne<'a>(Box<dyn Erased<'a> + 'a>);

/// A list with a paging style, made from data.
pub struct AnyList<'a>(Box<dyn ErasedList<'a> + 'a>);

/// A list's page: its rows and what it says about the pages after it.
#[derive(Debug, Default)]
pub struct AnyPage {
    /// The page's rows, in order.
    pub rows: Vec<Row>,
    /// Whether rows exist past this page, where the list says so.
    pub truncated: Option<bool>,
    /// The last page's number, where the list says it (`last_page` style).
    pub last_page: Option<i64>,
}

impl<'a> AnyCall<'a> {
    /// The request as it would go on the wire (nothing is sent), or why it
    /// cannot be made.
    pub fn prepare(self) -> Result<reqwest::Request, Error> {
        match self {
            AnyCall::One(AnyOne(call)) => call.prepare(),
            AnyCall::List(AnyList(list)) => list.prepare(),
        }
    }

    /// Sends it; its answer as JSON (a list's first page).
    pub fn call(self) -> BoxFuture<'a, Result<Value, Error>> {
        match self {
            AnyCall::One(AnyOne(call)) => call.call(),
            AnyCall::List(AnyList(list)) => list.call(),
        }
    }
}

impl<'a> AnyOne<'a> {
    /// Sends it; its answer as JSON.
    pub fn call(self) -> BoxFuture<'a, Result<Value, Error>> {
        self.0.call()
    }
}

impl<'a> AnyList<'a> {
    /// The page the list starts at.
    pub fn first(&self) -> PagePosition {
        self.0.first()
    }

    /// Sends it: the page it names (its first, unless the arguments set one).
    pub fn page(self) -> BoxFuture<'a, Result<AnyPage, Error>> {
        self.0.page()
    }

    /// Every row of every page from the first, as
    /// [`Paginate::items`](crate::Paginate::items) streams them: up to
    /// `max_items` rows, `max_pages` pages (the paginator's default bound
    /// when `None`), `prefetch` pages on the wire at once (above 1, a list
    /// of another style than `last_page` refuses it, as
    /// [`Pages::prefetch`](crate::pagination::Pages::prefetch) says).
    pub fn rows(
        self,
        prefetch: usize,
        max_items: usize,
        max_pages: Option<usize>,
    ) -> BoxStream<'a, Result<Row, Error>> {
        self.0.rows(prefetch, max_items, max_pages)
    }
}

impl fmt::Debug for AnyOne<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AnyOne").field(&self.0.id()).finish()
    }
}

impl fmt::Debug for AnyList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AnyList").field(&self.0.id()).finish()
    }
}

impl Client {
    /// `service`'s operation `id` made from `args` (every refusal at once),
    /// its types erased ([`crate::any_call`]). `Ok(None)` when this build
    /// has no such operation; an error when the service is not configured.
    pub fn any_call<'a>(
        &'a self,
        service: Service,
        id: &str,
        args: &Args,
    ) -> Result<Option<Result<AnyCall<'a>, Refusals>>, Error> {
        self.visit(service, id, args, Erase)
    }
}

/// What every operation's builder does, behind a vtable.
trait Erased<'a>: Send {
    fn id(&self) -> &'static str;
    fn prepare(self: Box<Self>) -> Result<reqwest::Request, Error>;
    fn call(self: Box<Self>) -> BoxFuture<'a, Result<Value, Error>>;
}

/// What a list's builder does besides, behind a vtable.
trait ErasedList<'a>: Erased<'a> {
    fn first(&self) -> PagePosition;
    fn page(self: Box<Self>) -> BoxFuture<'a, Result<AnyPage, Error>>;
    fn rows(
        self: Box<Self>,
        prefetch: usize,
        max_items: usize,
        max_pages: Option<usize>,
    ) -> BoxStream<'a, Result<Row, Error>>;
}

/// An operation's builder, known by its type here only.
struct Typed<Op>(Op);

impl<'a, Op> Erased<'a> for Typed<Op>
where
    Op: Operation + 'a,
    Op::Success: Serialize,
{
    fn id(&self) -> &'static str {
        Op::META.id
    }

    fn prepare(self: Box<Self>) -> Result<reqwest::Request, Error> {
        Ok(self.0.prepare()?.into_request())
    }

    fn call(self: Box<Self>) -> BoxFuture<'a, Result<Value, Error>> {
        Box::pin(async move {
            let answer = self.0.call().await?;
            // The answer was decoded from JSON into types whose maps are keyed
            // by text: it always makes JSON again. Were it not to, the work is
            // still done, so the answer is given as `null`.
            Ok(serde_json::to_value(answer).unwrap_or(Value::Null))
        })
    }
}

impl<'a, Op> ErasedList<'a> for Typed<Op>
where
    Op: Paginated + Unpin + 'a,
    Op::Success: Serialize,
    Item<Op>: Serialize + Send + 'static,
{
    fn first(&self) -> PagePosition {
        self.0.first()
    }

    fn page(self: Box<Self>) -> BoxFuture<'a, Result<AnyPage, Error>> {
        Box::pin(async move {
            let page = self.0.call().await?;
            Ok(AnyPage {
                truncated: page.truncated(),
                last_page: page.last_page(),
                rows: {
                    let mut text = RowText::default();
                    page.items().iter().map(|row| text.of(row)).collect()
                },
            })
        })
    }

    fn rows(
        self: Box<Self>,
        prefetch: usize,
        max_items: usize,
        max_pages: Option<usize>,
    ) -> BoxStream<'a, Result<Row, Error>> {
        let mut items = self.0.items().prefetch(prefetch).max_items(max_items);
        if let Some(pages) = max_pages {
            items = items.max_pages(pages);
        }
        let mut text = RowText::default();
        items.map_ok(move |row| text.of(&row)).boxed()
    }
}

/// Rows' JSON text, written through one reused `BufWriter`: serde_json's
/// many small writes straight into a `Vec` would each be a call in a build
/// without link-time optimisation (docs/decisions/0010), a `BufWriter`'s
/// are compiled inline.
struct RowText(std::io::BufWriter<Vec<u8>>);

impl Default for RowText {
    fn default() -> Self {
        Self(std::io::BufWriter::new(Vec::new()))
    }
}

impl RowText {
    /// `row`'s JSON text. A row decoded from JSON into types whose maps are
    /// keyed by text always makes JSON again; were one not to, it is `null`.
    fn of(&mut self, row: &impl Serialize) -> Row {
        use std::io::Write as _;
        self.0.get_mut().clear();
        if serde_json::to_writer(&mut self.0, row).is_err() || self.0.flush().is_err() {
            // The buffer may hold part of the row: start again.
            *self = Self::default();
            return b"null".to_vec();
        }
        self.0.get_ref().clone()
    }
}

/// Hands each builder back erased.
struct Erase;

impl<'a> OperationVisitor<'a> for Erase {
    type Output = AnyCall<'a>;

    fn operation<Op>(self, builder: Op) -> Self::Output
    where
        Op: Operation + 'a,
        Op::Success: Serialize,
    {
        AnyCall::One(AnyOne(Box::new(Typed(builder))))
    }

    fn list<Op>(self, builder: Op) -> Self::Output
    where
        Op: Paginated + Unpin + 'a,
        Op::Success: Serialize,
        Item<Op>: Serialize + serde::de::DeserializeOwned + Unpin + Send + 'static,
    {
        AnyCall::List(AnyList(Box::new(Typed(builder))))
    }
}
