//! The mock: a [`Transport`] that answers each request from the first rule
//! of its operation that matches, and keeps a journal of what it received.

use crate::operation::{Incoming, MockOperation, Sent, Unreadable};
use crate::rule::{lock, new_step, Answer, Rule, RuleState};
use reqwest::Body;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};
use vidplat_core::{OperationMeta, ResponseFuture, Service, ServiceTable, Transport};

/// The base URL of each service in a client built by [`Mock::client_builder`].
pub const ENCODER_URL: &str = "https://encoder.mock.invalid";
/// See [`ENCODER_URL`].
pub const VMS_URL: &str = "https://vms.mock.invalid";
/// See [`ENCODER_URL`].
pub const ANALYTICS_URL: &str = "https://analytics.mock.invalid";

/// Typed, in-process answers for any operation of the three services, with
/// the SDK's real pipeline in front of them (validation, retries, decoding,
/// the analytics quota, waiters). No socket, no server.
///
/// ```no_run
/// use vidplat::Call;
/// use vidplat::encoder::types::{Task, TaskStatus};
/// use vidplat_test::{encoder, Fixture, Mock};
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), vidplat::Error> {
/// let mock = Mock::new();
/// mock.on(encoder::GetTask)
///     .when(|sent| sent.params.task_id.get() == 7)
///     .respond(Task { status: Some(TaskStatus::Failed), ..Task::fixture() });
/// let client = mock.client();
/// let task = client.encoder()?.get_task().task_id(7).call().await?;
/// assert_eq!(task.status, Some(TaskStatus::Failed));
/// mock.verify();
/// # Ok(()) }
/// ```
///
/// A request no rule answers gets `501` with a body naming the operation (so
/// the code under test sees `vidplat::Error::Api`), and [`verify`](Mock::verify)
/// reports it. Rules are tried in the order they were added; a rule whose
/// answers are used up answers no more.
#[derive(Clone, Default)]
pub struct Mock {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    rules: Mutex<Vec<Arc<Mutex<RuleState>>>>,
    journal: Mutex<Vec<Incoming>>,
    unmatched: Mutex<Vec<String>>,
    /// Gives refused connections: its resolver finds no address, so no socket is opened.
    refusing: OnceLock<Result<reqwest::Client, String>>,
}

impl fmt::Debug for Mock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mock")
            .field("rules", &lock(&self.inner.rules).len())
            .field("received", &lock(&self.inner.journal).len())
            .finish()
    }
}

impl Mock {
    /// A mock with no rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// A rule for operation `op` (a marker such as `vidplat_test::encoder::GetTask`).
    pub fn on<Op: MockOperation>(&self, op: Op) -> Rule<Op> {
        let _ = op;
        let mut rules = lock(&self.inner.rules);
        let state = Arc::new(Mutex::new(RuleState {
            operation: Op::META,
            service: Op::TABLE.service,
            number: rules.len() + 1,
            matcher: None,
            steps: vec![new_step()],
            calls: 0,
        }));
        rules.push(state.clone());
        Rule { state, op: PhantomData }
    }

    /// This mock as a client's transport (`Client::builder().transport(…)`);
    /// the client's base URLs must be [`ENCODER_URL`], [`VMS_URL`] and
    /// [`ANALYTICS_URL`], or have no path of their own.
    pub fn transport(&self) -> Arc<dyn Transport> {
        Arc::new(self.clone())
    }

    /// A client builder with the mock as its transport, the three base URLs
    /// and a key set, and everything else as a user's client has it (the
    /// analytics quota included: use tokio's paused time).
    pub fn client_builder(&self) -> vidplat::ClientBuilder {
        at_mock_urls(vidplat::Client::builder()).transport(self.transport())
    }

    /// A client answered by this mock ([`client_builder`](Mock::client_builder), built).
    ///
    /// # Panics
    /// Never with the builder as it is; the panic names the configuration error if one appears.
    pub fn client(&self) -> vidplat::Client {
        self.client_builder()
            .build()
            .unwrap_or_else(|e| panic!("the mock's client: {e}"))
    }

    /// Every request received, in order (answered or not).
    pub fn received(&self) -> Vec<Incoming> {
        lock(&self.inner.journal).clone()
    }

    /// The requests of `op` received, read into its types, in order.
    pub fn sent<Op: MockOperation>(&self, op: Op) -> Result<Vec<Sent<Op>>, Unreadable> {
        let _ = op;
        lock(&self.inner.journal)
            .iter()
            .filter(|i| (i.service, i.operation.id) == (Op::TABLE.service, Op::META.id))
            .map(Op::read)
            .collect()
    }

    /// What is wrong, if anything: each rule whose answers were not all used
    /// (by operation id and rule number) and each request no rule answered.
    pub fn problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = lock(&self.inner.rules)
            .iter()
            .filter_map(|rule| lock(rule).unmet())
            .collect();
        problems.extend(lock(&self.inner.unmatched).iter().map(|u| format!("unmatched: {u}")));
        problems
    }

    /// Checks that every rule's answers were used and every request was answered.
    ///
    /// # Panics
    /// Listing the [`problems`](Mock::problems), if any.
    #[track_caller]
    pub fn verify(&self) {
        let problems = self.problems();
        if !problems.is_empty() {
            panic!("the mock's expectations are unmet:\n  {}", problems.join("\n  "));
        }
    }

    fn refusing(&self) -> Result<reqwest::Client, String> {
        self.inner
            .refusing
            .get_or_init(|| {
                vidplat_core::install_default_tls_provider();
                reqwest::Client::builder()
                    .dns_resolver(Arc::new(NoAddress))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .clone()
    }
}

impl Transport for Mock {
    fn send<'a>(&'a self, _: &'a reqwest::Client, request: reqwest::Request) -> ResponseFuture<'a> {
        let Some((incoming, _)) = route(&request) else {
            let line = format!("{} {}", request.method(), request.url().path());
            lock(&self.inner.unmatched).push(format!("{line}: no operation of the services"));
            return Box::pin(async move { Ok(not_answered(&format!("{line} is no operation of the services"))) });
        };
        lock(&self.inner.journal).push(incoming.clone());
        let rules = lock(&self.inner.rules).clone();
        let taken = rules.iter().find_map(|rule| lock(rule).take(&incoming));
        let Some((answer, delay)) = taken else {
            let line = format!("{} ({})", incoming.line(), incoming.operation());
            lock(&self.inner.unmatched).push(format!("{line}: no rule answers it"));
            return Box::pin(async move { Ok(not_answered(&format!("no rule answers {line}"))) });
        };
        Box::pin(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            match answer {
                Answer::Http { status, headers, body } => Ok(http_answer(status, &headers, body)),
                Answer::BrokenAfterHeaders { status } => {
                    let broken = futures::stream::once(async {
                        Err::<Vec<u8>, _>(std::io::Error::new(
                            std::io::ErrorKind::ConnectionReset,
                            "vidplat-test: the connection broke after the answer's head",
                        ))
                    });
                    Ok(http_answer(status, &[], Body::wrap_stream(broken)))
                }
                Answer::Refused => match self.refusing() {
                    Ok(client) => client.get("http://refused.mock.invalid/").send().await,
                    Err(e) => Ok(not_answered(&format!("could not refuse the connection: {e}"))),
                },
            }
        })
    }
}

/// `builder` with the mock's base URLs and a key: its requests reach no service.
pub(crate) fn at_mock_urls(builder: vidplat::ClientBuilder) -> vidplat::ClientBuilder {
    builder
        .encoder_url(ENCODER_URL)
        .vms_url(VMS_URL)
        .analytics_url(ANALYTICS_URL)
        .api_key("vidplat-test-key")
}

/// A resolver that finds no address: a connection that never opens, without a socket.
struct NoAddress;

impl reqwest::dns::Resolve for NoAddress {
    fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async {
            Err::<reqwest::dns::Addrs, _>(Box::new(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "vidplat-test: connection refused",
            )) as Box<dyn std::error::Error + Send + Sync>)
        })
    }
}

pub(crate) fn http_answer(status: u16, headers: &[(String, String)], body: impl Into<Body>) -> reqwest::Response {
    let mut response = http::Response::new(body.into());
    *response.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (name.parse::<http::HeaderName>(), value.parse::<http::HeaderValue>()) {
            response.headers_mut().append(name, value);
        }
    }
    reqwest::Response::from(response)
}

/// 501 is never retried, and shows its body in the error the code under test gets.
fn not_answered(why: &str) -> reqwest::Response {
    http_answer(501, &[], format!("vidplat-test: {why} (see Mock::verify)"))
}

/// The tables of the services this build has.
fn tables() -> Vec<&'static ServiceTable> {
    vec![
        #[cfg(feature = "encoder")]
        &vidplat::encoder::operations::TABLE,
        #[cfg(feature = "vms")]
        &vidplat::vms::operations::TABLE,
        #[cfg(feature = "analytics")]
        &vidplat::analytics::operations::TABLE,
    ]
}

fn service_of_host(host: &str) -> Option<Service> {
    [
        (ENCODER_URL, Service::Encoder),
        (VMS_URL, Service::Vms),
        (ANALYTICS_URL, Service::Analytics),
    ]
    .into_iter()
    .find(|(url, _)| url.strip_prefix("https://") == Some(host))
    .map(|(_, service)| service)
}

/// The operation a request is for (by its method and its path's last segments
/// against each route template), its members as text, and its service's table.
pub(crate) fn route(request: &reqwest::Request) -> Option<(Incoming, &'static ServiceTable)> {
    let url = request.url();
    let method = request.method().as_str();
    let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
    let only = url.host_str().and_then(service_of_host);
    // A literal segment wins over a member (`/v1/tasks/counts` over `/v1/tasks/{task-id}`),
    // and a whole path over a path under a base URL's own path.
    let (table, operation, path_params) = tables()
        .into_iter()
        .filter(|table| only.is_none_or(|service| table.service == service))
        .flat_map(|table| table.operations.iter().map(move |op| (table, op)))
        .filter(|(_, op)| op.method.as_str() == method)
        .filter_map(|(table, op)| matches_template(op, &segments).map(|params| (table, op, params)))
        .min_by_key(|(_, op, params)| (op.path.matches('/').count() != segments.len(), params.len()))?;
    let incoming = Incoming {
        service: table.service,
        operation,
        method: method.to_owned(),
        path: url.path().to_owned(),
        path_params,
        query: url.query_pairs().into_owned().collect(),
        headers: request
            .headers()
            .iter()
            .filter(|(name, _)| *name != reqwest::header::AUTHORIZATION)
            .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
            .collect(),
        body: request.body().and_then(|b| b.as_bytes()).map(<[u8]>::to_vec),
    };
    Some((incoming, table))
}

/// The path members, decoded, when `segments` end with the segments of `operation`'s path.
fn matches_template(operation: &OperationMeta, segments: &[&str]) -> Option<Vec<(String, String)>> {
    let wanted = operation.path.split('/').filter(|s| !s.is_empty()).count();
    path_params(operation, segments.get(segments.len().checked_sub(wanted)?..)?)
}

/// The path members when `segments` are those of `operation`'s path: percent-decoded, invalid UTF-8 replaced.
pub(crate) fn path_params(operation: &OperationMeta, segments: &[&str]) -> Option<Vec<(String, String)>> {
    let members = operation.path_members(segments)?.into_iter();
    let decoded = |segment: &str| {
        percent_encoding::percent_decode_str(segment)
            .decode_utf8_lossy()
            .into_owned()
    };
    Some(members.map(|(name, value)| (name.to_owned(), decoded(value))).collect())
}
