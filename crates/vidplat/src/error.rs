//! One error type for every call of every service.

use std::fmt;
use std::time::Duration;
use vidplat_core::{
    escape_controls, may_have_acted, may_send_again, CallFailure, Delivery, FailureKind, Method, Service,
};

pub use vidplat_core::{
    ApiError, ConfigError, DecodeError, NotSendable, Quota, Refusal, Refusals, ServiceErrorCode, TimeoutKind,
};

/// Everything that can go wrong in a call. `#[non_exhaustive]`: match the
/// kinds you handle and keep a catch-all arm.
///
/// [`Error::code`] (typed: [`Error::code_as`]), [`Error::message`] and
/// [`Error::status`] return only what the server sent; [`Error::is_retryable`] never advises repeating a request
/// that may already have done its work.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The service answered with an error: an error status, a redirect (never
    /// followed; [`ApiError::location`] says where it pointed), or its error
    /// body under a 2xx status. (Boxed, like every `ApiError` here, to keep
    /// `Result<_, Error>` small.)
    Api(Box<ApiError>),
    /// The request was refused before it left: values break documented
    /// bounds. Every one found, each by its member's whole path (a parameter,
    /// or a body member's path: `tags[1].key`) and the rule it breaks.
    InvalidInput(Refusals),
    /// The request could not be written at all (a builder given another
    /// service's client, a value that does not serialise, a route naming a
    /// parameter the operation lacks); nothing was sent.
    NotSendable(NotSendable),
    /// A usage limit: the server's 429 (`response` holds its code, message and
    /// `Retry-After`), or the client-side limiter (`response` is `None`,
    /// nothing was sent).
    RateLimited {
        /// Which limit, when known.
        quota: Quota,
        /// When a call may succeed, when known.
        retry_after: Option<Duration>,
        /// The server's answer, when it was the server that refused.
        response: Option<Box<ApiError>>,
    },
    /// Analytics answered 408: the query took too long on the server.
    QueryTooSlow(Box<ApiError>),
    /// A DELETE whose earlier attempt may have reached the server (it timed
    /// out, the connection broke, or a gateway answered 502/503/504) was sent
    /// again, and that retry found nothing to delete (404). The resource is
    /// gone, most likely deleted by the earlier attempt: not a plain
    /// not-found. Treat it as done if all you need is the resource gone.
    AlreadyDeleted(Box<ApiError>),
    /// A timeout ended the call: connecting, one attempt, or the total deadline.
    Timeout(TimeoutError),
    /// The connection failed or broke.
    Transport(TransportError),
    /// The answer's body is larger than the client's cap
    /// ([`ClientBuilder::max_response_body`](crate::ClientBuilder::max_response_body)); it was not read further.
    BodyTooLarge {
        /// The cap, in bytes.
        limit: u64,
    },
    /// The response could not be decoded: which operation, where in the body,
    /// why, and the body's start (secrets redacted).
    Decode(DecodeError),
    /// The client is not configured for this (missing or insecure base URL, bad route override, …).
    Config(ConfigError),
    /// A waited-for task ended `failed` or `canceled`: the final task, as last
    /// read (status, `error_code`, timestamps).
    #[cfg(feature = "encoder")]
    TaskEnded(Box<vidplat_encoder::types::Task>),
    /// A paginator stopped a list whose server would not let it end (the
    /// pages yielded before it are good).
    Paging {
        /// The list operation.
        operation: &'static str,
        /// Pages received, this one included.
        pages: u64,
        /// What was wrong.
        problem: PagingProblem,
    },
    /// A profile could not be read or applied ([`Client::from_profile`](crate::Client::from_profile)).
    #[cfg(feature = "profiles")]
    Profile(crate::profile::ProfileError),
    /// A waiter gave up after its maximum wait; `last_status` is what it saw last.
    WaitTimedOut {
        /// How long it waited.
        waited: Duration,
        /// The last status it saw.
        last_status: Option<String>,
    },
}

/// Why a paginator stopped a list ([`Error::Paging`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PagingProblem {
    /// The page received is the one before it again (the same body, byte
    /// for byte): the list does not advance.
    SamePageAgain,
    /// `last_page` names no page that can exist (below 1, or before the page that said it).
    ImpossibleLastPage(i64),
    /// `.prefetch(n)` above 1 on a list whose pages do not say how many there
    /// are (every style but `last_page`): each page says whether there is
    /// another, so pages cannot be asked for ahead. Nothing was sent.
    PrefetchNotOffered(vidplat_core::PagingStyle),
    /// [`vidplat_core::Paginated::at`] was given a position of another paging
    /// style than the list's (a page number for a rank-window list, say).
    PositionOfAnotherStyle(vidplat_core::PagingStyle),
    /// More pages than the default bound ([`crate::pagination::DEFAULT_MAX_PAGES`],
    /// or [`crate::pagination::DEFAULT_MAX_QUOTA_PAGES`] under the analytics quota);
    /// `.max_pages(n)` sets another.
    TooManyPages {
        /// The bound reached.
        bound: usize,
    },
    /// The pages of one read of a list held more than `bound` bytes of what
    /// a watch keeps of them ([`crate::watch`]): more than any account's
    /// list, so a server's answers cannot fill the memory.
    TooLarge {
        /// The bound reached, in bytes.
        bound: usize,
    },
}

/// A call a timeout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeoutError {
    /// Which timeout.
    pub kind: TimeoutKind,
    /// The method of the request, when known.
    pub method: Option<Method>,
    /// Whether the request may have reached the server.
    pub delivery: Delivery,
}

impl fmt::Display for TimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the call timed out ({})", self.kind)
    }
}

impl std::error::Error for TimeoutError {}

/// A connection that failed or broke.
#[derive(Debug)]
#[non_exhaustive]
pub struct TransportError {
    /// The method of the request, when known.
    pub method: Option<Method>,
    /// Whether the request may have reached the server.
    pub delivery: Delivery,
    /// What the HTTP client reported.
    pub source: reqwest::Error,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "transport error: {}", self.source)
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl Error {
    /// The service's error code, exactly as it sent it (never one the SDK made up).
    pub fn code(&self) -> Option<&str> {
        self.api().and_then(|api| api.code.as_deref())
    }

    /// The service's error code as the service's open `ErrorCode` enum:
    /// `encoder::types::ErrorCode`, `vms::types::ErrorCode` or
    /// `analytics::types::ErrorCode`, one variant per documented code. A code
    /// the enum does not know comes back as `Other` with the code exactly as
    /// sent; `None` when the server sent no code (or did not answer).
    ///
    /// ```
    /// # #[cfg(feature = "encoder")] {
    /// use vidplat::encoder::types::ErrorCode;
    /// use vidplat::{ApiError, Error};
    /// // What a 404 answer with this code becomes.
    /// let answered = |code: &str| {
    ///     let mut api = ApiError::status_only(404);
    ///     api.code = Some(code.to_owned());
    ///     Error::Api(Box::new(api))
    /// };
    /// assert_eq!(answered("MODEL_NOT_FOUND").code_as::<ErrorCode>(), Some(ErrorCode::ModelNotFound));
    /// assert_eq!(answered("TASK_ARCHIVED").code_as(), Some(ErrorCode::Other("TASK_ARCHIVED".into())));
    /// # }
    /// ```
    pub fn code_as<C: ServiceErrorCode>(&self) -> Option<C> {
        self.code().map(C::from)
    }

    /// The service's error message, exactly as it sent it.
    pub fn message(&self) -> Option<&str> {
        self.api().and_then(|api| api.message.as_deref())
    }

    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        self.api().map(|api| api.status)
    }

    /// The server's answer, for the kinds that have one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(api) | Error::QueryTooSlow(api) | Error::AlreadyDeleted(api) => Some(api),
            Error::RateLimited { response, .. } => response.as_deref(),
            _ => None,
        }
    }

    /// Whether the failed call may still have done its work on the service:
    /// it may have arrived and its answer was lost (a timeout or a broken
    /// connection after sending), or a gateway answered 502, 503 or 504.
    /// The runtime's rule (`vidplat_core::may_have_acted`), which also tells
    /// a DELETE's retry that finds nothing ([`Error::AlreadyDeleted`]).
    /// So may an answer this client could not read (its body too large, or a
    /// success body other than the documented one): the call arrived.
    pub fn may_have_acted(&self) -> bool {
        match self {
            Error::Timeout(timeout) => may_have_acted(timeout.delivery, None),
            Error::Transport(transport) => may_have_acted(transport.delivery, None),
            Error::Api(api) => may_have_acted(Delivery::Answered, Some(api.status)),
            Error::Decode(_) | Error::BodyTooLarge { .. } => true,
            _ => false,
        }
    }

    /// Whether sending the same request again may succeed without duplicating
    /// work: `true` only when the request never left, or when its method is
    /// idempotent (GET, DELETE) and the failure is transient (a 429, 502, 503,
    /// 504, a timeout, a broken connection). The runtime's own retries follow
    /// the same rule (`vidplat_core::may_send_again`).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Api(api)
            | Error::RateLimited {
                response: Some(api), ..
            } => may_send_again(api.method, Delivery::Answered, Some(api.status)),
            // The client's limiter refused before sending: later, the same call can go (not once the month is spent).
            Error::RateLimited {
                quota, response: None, ..
            } => *quota != Quota::Month,
            Error::Timeout(timeout) => may_send_again(timeout.method, timeout.delivery, None),
            Error::Transport(transport) => may_send_again(transport.method, transport.delivery, None),
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(api) => api.fmt(f),
            Error::InvalidInput(refusals) => write!(f, "invalid input, not sent: {refusals}"),
            Error::NotSendable(reason) => write!(f, "not sent: {reason}"),
            Error::RateLimited {
                quota,
                retry_after,
                response,
            } => {
                match response {
                    Some(api) => write!(f, "rate limited by the service ({api})")?,
                    None if *quota == Quota::StoreUnavailable => write!(
                        f,
                        "the shared analytics quota store (Redis) is unavailable; not sent"
                    )?,
                    None => write!(f, "rate limited by the client-side {quota} analytics quota; not sent")?,
                }
                if let Some(after) = retry_after {
                    write!(f, "; retry after {}", vidplat_core::humanized(*after))?;
                }
                Ok(())
            }
            Error::QueryTooSlow(api) => write!(
                f,
                "the analytics query took too long ({api}): shorten the period or request fewer rows, or retry later"
            ),
            Error::AlreadyDeleted(api) => write!(
                f,
                "already deleted: a retry of this DELETE found nothing to delete ({api}); an earlier attempt most likely deleted it"
            ),
            Error::Timeout(timeout) => timeout.fmt(f),
            Error::Transport(transport) => transport.fmt(f),
            Error::BodyTooLarge { limit } => write!(f, "the answer is larger than {limit} bytes (the client's cap)"),
            Error::Decode(error) => error.fmt(f),
            Error::Config(error) => write!(f, "client configuration: {error}"),
            #[cfg(feature = "profiles")]
            Error::Profile(error) => write!(f, "profile: {error}"),
            #[cfg(feature = "encoder")]
            Error::TaskEnded(task) => {
                let status = task.status.as_ref().map(ToString::to_string).unwrap_or_default();
                write!(f, "task {} ended {}", task.id.unwrap_or_default(), escape_controls(&status))?;
                match task.error_code {
                    Some(code) => write!(f, " (error_code {code})"),
                    None => Ok(()),
                }
            }
            Error::Paging {
                operation,
                pages,
                problem,
            } => {
                match pages {
                    0 => write!(f, "{operation}: the listing did not start: ")?,
                    _ => write!(f, "{operation}: the listing stopped at page {pages}: ")?,
                }
                match problem {
                    PagingProblem::SamePageAgain => {
                        f.write_str("the server answered the page before again, byte for byte; the list does not advance")
                    }
                    PagingProblem::ImpossibleLastPage(last) => write!(f, "the server said last_page {last}, which no list has"),
                    PagingProblem::PrefetchNotOffered(style) => write!(
                        f,
                        "a {} list says on each page whether there is another, so `.prefetch(n)` above 1 cannot ask for pages ahead; nothing was sent",
                        style.name()
                    ),
                    PagingProblem::PositionOfAnotherStyle(style) => {
                        write!(f, "a position of another paging style than the list's ({})", style.name())
                    }
                    PagingProblem::TooManyPages { bound } => write!(
                        f,
                        "more than {bound} pages, the default bound; `.max_pages(n)` sets another"
                    ),
                    PagingProblem::TooLarge { bound } => {
                        write!(f, "its pages hold more than {bound} bytes of what is kept of them")
                    }
                }
            }
            Error::WaitTimedOut { waited, last_status } => {
                write!(f, "gave up waiting after {waited:?}")?;
                match last_status {
                    Some(status) => write!(f, " (last status {})", escape_controls(status)),
                    None => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Transport(transport) => Some(&transport.source),
            Error::Decode(error) => Some(error),
            Error::Config(error) => Some(error),
            #[cfg(feature = "profiles")]
            Error::Profile(error) => Some(error),
            _ => None,
        }
    }
}

impl From<ConfigError> for Error {
    fn from(error: ConfigError) -> Self {
        Error::Config(error)
    }
}

impl From<CallFailure> for Error {
    fn from(failure: CallFailure) -> Self {
        let method = Some(failure.method);
        match failure.kind {
            FailureKind::InvalidInput(refusals) => Error::InvalidInput(refusals),
            FailureKind::Refused(reason) => Error::NotSendable(reason),
            FailureKind::Quota(refusal) => Error::RateLimited {
                quota: refusal.quota,
                retry_after: refusal.retry_after,
                response: None,
            },
            FailureKind::Timeout(kind) => Error::Timeout(TimeoutError {
                kind,
                method,
                delivery: failure.delivery,
            }),
            FailureKind::Transport(source) => Error::Transport(TransportError {
                method,
                delivery: failure.delivery,
                source,
            }),
            FailureKind::BodyTooLarge { limit } => Error::BodyTooLarge { limit },
            FailureKind::Answer(api) => match api.status {
                429 => Error::RateLimited {
                    quota: Quota::Unspecified,
                    retry_after: api.retry_after,
                    response: Some(api),
                },
                // Only analytics documents 408 ("the query took too long").
                408 if failure.service == Service::Analytics => Error::QueryTooSlow(api),
                _ => Error::Api(api),
            },
            FailureKind::AlreadyDeleted(api) => Error::AlreadyDeleted(api),
            FailureKind::Decode(error) => Error::Decode(error),
        }
    }
}
