//! The platform's three services simulated in memory, as the documents
//! describe them; its answers are values of the client crates' types, so the
//! simulator and the YAML agree by construction. Its manual is the book's
//! simulator chapter (`docs/simulator.md`).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let sim = vidplat_sim::Simulator::start().await?;
//! let client = vidplat::Client::builder()
//!     .encoder_url(&sim.encoder_url)
//!     .vms_url(&sim.vms_url)
//!     .analytics_url(&sim.analytics_url)
//!     .api_key(&sim.api_key)
//!     .build()
//!     .expect("a client for the simulator");
//! # Ok(()) }
//! ```
//!
//! All three services share one listener on 127.0.0.1, under `/encoder`,
//! `/vms` and `/analytics`. Viewing pages, which production serves at
//! `https://{domain}/pages/{page-id}`, are answered on the same listener at
//! `/hosts/{domain}/pages/{page-id}` ([`Simulator::local_page_url`]).
//!
//! The binary (`cargo run -p vidplat-sim -- --help`) runs one until Ctrl-C
//! and prints shell lines setting `VIDPLAT_SIM_URL` (its root) and the
//! variables `vidplat::Client::from_env` reads. The simulator's own routes,
//! outside the three services, are under that root: `PUT
//! /sim/input-files/{path}` ([`Simulator::add_input_file`]) and `POST`, `GET`,
//! `DELETE /sim/faults` ([`Simulator::inject_fault`]).
//!
//! **Faults.** `UNKNOWN_ERROR` and the other failures no request causes are
//! injected ([`Simulator::inject_fault`]): the next requests under a path prefix answer a
//! chosen status and code instead of running ([`Fault`], [`SimConfig::faults`]).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use vidplat_sim::{Fault, Simulator};
//! let sim = Simulator::start().await?;
//! // The next two task requests answer 503 {"code": "UNKNOWN_ERROR", ...}.
//! sim.inject_fault(Fault { status: 503, times: 2, ..Fault::new("/encoder/v1/tasks") })
//!     .expect("a usable fault");
//! // Over HTTP, the same:
//! // curl -X POST "$VIDPLAT_SIM_URL/sim/faults" -H 'content-type: application/json' \
//! //   -d '{"operation_path_prefix": "/encoder/v1/tasks", "status": 503, "code": "UNKNOWN_ERROR", "times": 2}'
//! # Ok(()) }
//! ```

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod analytics;
mod auth;
mod calendar;
mod control;
mod encoder;
mod error;
mod faults;
mod journal;
mod operations;
mod server;
mod vms;

pub use analytics::AnalyticsStats;
pub use auth::Permission;
pub use error::SimError;
pub(crate) use error::{decode, JsonBody, QueryParams};
pub use faults::{Fault, FaultOutcome};
pub use journal::{Received, JOURNAL_CAPACITY};

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// How the simulator behaves. `Default` is the pace a person watches (the
/// binary, the tour); [`SimConfig::fast`] is for tests.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// How long a task stays in each of waiting, encoding and uploading
    /// (and a cancelled task in canceling).
    pub task_step: Duration,
    /// Registrable tasks (not yet ready, canceled or failed), presets and profiles: past these, `OVER_SERVICE_LIMIT`.
    pub max_tasks: usize,
    /// Presets past which registration answers `OVER_SERVICE_LIMIT`.
    pub max_presets: usize,
    /// Profiles past which registration answers `OVER_SERVICE_LIMIT`.
    pub max_profiles: usize,
    /// Analytics calls a minute (documented: 3).
    pub analytics_per_minute: u32,
    /// Analytics calls at a time (documented: 1).
    pub analytics_concurrent: u32,
    /// Analytics calls a month (documented: 50,000).
    pub analytics_monthly: u32,
    /// An analytics query costing more than this answers 408 (`REQUEST_TIMEOUT`);
    /// a query costs the rows it asks for (`limit`, `end_with - start_with + 1`,
    /// the positions of a positional operation) times the days of its period.
    /// The default, 5,000,000, lets 30 days of 50,000 rows or 13 months of
    /// 10,000 rows through and times out 13 months of 50,000 rows; 0 makes
    /// every query time out.
    pub analytics_slow_cost: u64,
    /// The analytics per-minute window (documented: 60 s; tests shorten it).
    pub analytics_window: Duration,
    /// Days a day's analytics figures keep changing after it ends (default
    /// 2): a basic answer whose period reaches into them says `golden:
    /// false`. When the service's figures become final is not shown; with
    /// 2, code that re-fetches what was not final works whatever it is.
    pub analytics_settle_days: u32,
    /// The widest basic-edition rank window (`end_with - start_with + 1`)
    /// answered; a wider one is refused with 400 (default `Some(10_000)`).
    /// The documents do not show a maximum: code that narrows its window on
    /// that refusal works whatever it is; `None` takes any width.
    pub analytics_basic_max_window: Option<u64>,
    /// Viewing sessions a day in the synthetic analytics data, on average
    /// (default 45: 30 to 60 a day).
    pub analytics_sessions_per_day: u32,
    /// How long an analytics query takes, so that the one-at-a-time limit can
    /// be met (also with [`SimConfig::fast`]).
    pub analytics_latency: Duration,
    /// How long a viewing session of a page with `max_simultaneous_viewers`
    /// counts after the page was last opened in it (the documents do not say
    /// how the service tells that a viewer stopped watching).
    pub viewing_session: Duration,
    /// The time zone of every `yyyy-mm-dd hh:mm:ss` timestamp the three
    /// services write and read: Japan time (UTC+09:00) by default, the zone
    /// the analytics document states for its own; the encoder and video
    /// management documents do not say. Change it to see how your code copes
    /// with another (analytics then leaves its document too).
    pub time_zone: chrono::FixedOffset,
    /// Seed of the synthetic analytics data.
    pub seed: u64,
    /// Port to bind on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// How long a client may take to send a request's line and headers
    /// before its connection is closed (also how long a connection may sit
    /// idle between requests): 30 s, so a client sending half a request does
    /// not hold a connection forever.
    pub header_read_timeout: Duration,
    /// Faults pending from the start (none by default); more can be added
    /// while it runs ([`Simulator::inject_fault`], `POST /sim/faults`).
    pub faults: Vec<Fault>,
    /// Analytics calls already counted in the month the simulator starts in
    /// (default 0): at `analytics_monthly`, the month's quota is spent until
    /// the month turns ([`Simulator::advance_clock`] turns it).
    pub analytics_month_used: u32,
    /// Every task registered fails while encoding, as one whose input path
    /// contains `fail` does (default false).
    pub every_task_fails: bool,
    /// What an update does with the members it leaves out, a question the
    /// documents leave open ([`Updates`]; default [`Updates::Reset`]).
    pub updates: Updates,
}

/// What an update of a content, stream set, stream, subtitle, preset or
/// profile does with the members its body leaves out. The documents leave it
/// open: "The update body lists the same defaults as registration" (video
/// management) and "Preset and profile updates use the same field rules as
/// registration" (encoding) read as a reset, while "the fields to change"
/// reads as a patch. Code that sends every member it means to keep (as
/// `modify_*` and `builder_from` do) works under both; the default teaches that.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Updates {
    /// A member left out goes back to what registration stores when it is
    /// not sent: its documented default (a content's `status` to `PUBLIC`,
    /// its policies to the account's default ones), else `null` or nothing
    /// (a list to empty). An update leaving out a member registration requires
    /// is refused with 400 naming each such member (`title` and `category_id`
    /// of a content, `path` and `format` of a stream).
    #[default]
    Reset,
    /// The other reading: a member left out stays as it is.
    Keep,
}

impl Updates {
    /// Every setting, with its name on the command line.
    pub const ALL: [(Updates, &'static str); 2] = [(Updates::Reset, "reset"), (Updates::Keep, "keep")];
}

impl std::str::FromStr for Updates {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        named(&Self::ALL, name, "update reading")
    }
}

/// The setting called `name` among `all`, or a message naming those known.
fn named<T: Copy>(all: &[(T, &'static str)], name: &str, what: &str) -> Result<T, String> {
    all.iter()
        .find(|(_, known)| *known == name)
        .map(|(setting, _)| *setting)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|(_, known)| *known).collect();
            format!("no {what} `{name}` (known: {})", names.join(", "))
        })
}

/// A hard case set up in one line: `SimConfig::fast().with_scenario(Scenario::MonthQuotaSpent)`.
/// The binary takes the same names: `--scenario month-quota-spent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scenario {
    /// The month's 50,000 analytics calls are spent: every analytics call
    /// answers 429 `TOO_MANY_REQUESTS` with a `Retry-After` reaching the next
    /// month, until the clock turns the month.
    MonthQuotaSpent,
    /// Every analytics query is too slow: 408 `REQUEST_TIMEOUT`, however short its period.
    SlowQueries,
    /// Every task registered fails while encoding (status `failed`).
    FailingTasks,
    /// The task queue is full: registering a task answers 403
    /// `OVER_SERVICE_LIMIT` (the document's answer past the registrable count).
    FullTaskQueue,
}

impl Scenario {
    /// Every scenario, with its name on the command line.
    pub const ALL: [(Scenario, &'static str); 4] = [
        (Scenario::MonthQuotaSpent, "month-quota-spent"),
        (Scenario::SlowQueries, "slow-queries"),
        (Scenario::FailingTasks, "failing-tasks"),
        (Scenario::FullTaskQueue, "full-task-queue"),
    ];
}

impl std::str::FromStr for Scenario {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        named(&Self::ALL, name, "scenario")
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            task_step: Duration::from_millis(800),
            max_tasks: 100,
            max_presets: 50,
            max_profiles: 50,
            analytics_per_minute: 3,
            analytics_concurrent: 1,
            analytics_monthly: 50_000,
            analytics_slow_cost: 5_000_000,
            analytics_window: Duration::from_secs(60),
            analytics_settle_days: 2,
            analytics_basic_max_window: Some(10_000),
            analytics_sessions_per_day: 45,
            analytics_latency: Duration::from_millis(50),
            viewing_session: Duration::from_secs(60),
            time_zone: calendar::japan(),
            seed: 7,
            port: 0,
            header_read_timeout: Duration::from_secs(30),
            faults: Vec::new(),
            analytics_month_used: 0,
            every_task_fails: false,
            updates: Updates::Reset,
        }
    }
}

impl SimConfig {
    /// The text of [`SimConfig::analytics_basic_max_window`] on a command
    /// line: a positive width, or `none` for any width.
    pub fn basic_max_window_from(text: &str) -> Result<Option<u64>, String> {
        match text {
            "none" => Ok(None),
            _ => text
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .map(Some)
                .ok_or_else(|| format!("`{text}` is neither a positive number nor `none`")),
        }
    }

    /// For tests: tasks move every 20 ms. Nothing else changes: the analytics
    /// latency stays, so the one-at-a-time limit still answers 429 to a
    /// second concurrent query.
    pub fn fast() -> Self {
        Self {
            task_step: Duration::from_millis(20),
            ..Self::default()
        }
    }

    /// This configuration with `scenario` set up (scenarios combine).
    pub fn with_scenario(mut self, scenario: Scenario) -> Self {
        match scenario {
            Scenario::MonthQuotaSpent => self.analytics_month_used = self.analytics_monthly,
            Scenario::SlowQueries => self.analytics_slow_cost = 0,
            Scenario::FailingTasks => self.every_task_fails = true,
            Scenario::FullTaskQueue => self.max_tasks = 0,
        }
        self
    }
}

/// What every service module shares: the configuration and the API keys.
#[derive(Clone)]
pub(crate) struct Shared {
    pub config: Arc<SimConfig>,
    pub keys: Arc<auth::Keys>,
    pub analytics_stats: Arc<AnalyticsStats>,
}

/// A running simulator. Dropping it stops the server.
pub struct Simulator {
    /// Where it listens (127.0.0.1).
    pub address: SocketAddr,
    /// `http://127.0.0.1:<port>/encoder`: the encoding service's base URL.
    pub encoder_url: String,
    /// `http://127.0.0.1:<port>/vms`: the video management service's base URL.
    pub vms_url: String,
    /// `http://127.0.0.1:<port>/analytics`: the analytics service's base URL.
    pub analytics_url: String,
    /// A key holding every permission.
    pub api_key: String,
    /// The login ID of the demo account (basic real-time analytics).
    pub login_id: String,
    keys: Arc<auth::Keys>,
    encoder: Arc<encoder::Service>,
    faults: Arc<faults::Faults>,
    journal: Arc<journal::Journal>,
    calendar: calendar::Calendar,
    analytics_stats: Arc<AnalyticsStats>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The demo key is public (DEMO_API_KEY); keys issued later are not shown.
        f.debug_struct("Simulator")
            .field("address", &self.address)
            .field("encoder_url", &self.encoder_url)
            .field("vms_url", &self.vms_url)
            .field("analytics_url", &self.analytics_url)
            .field("login_id", &self.login_id)
            .finish_non_exhaustive()
    }
}

/// The demo account's key with every permission.
pub const DEMO_API_KEY: &str = "sim-demo-key-0123456789";
/// The demo account's login ID.
pub const DEMO_LOGIN_ID: &str = "demo@vidplat-sim";
/// The shared portal domain (the documents' `{portal_domain}`, whose value
/// they do not show): viewing pages without a site are at
/// `https://portal.vidplat-sim.invalid/pages/{page-id}`.
pub const PORTAL_DOMAIN: &str = "portal.vidplat-sim.invalid";

impl Simulator {
    /// Starts with [`SimConfig::default`] on a free port.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_with(SimConfig::default()).await
    }

    /// Starts with `config`; an unusable fault in `config.faults` is an
    /// `InvalidInput` error.
    pub async fn start_with(config: SimConfig) -> std::io::Result<Self> {
        let faults = Arc::new(faults::Faults::default());
        for fault in &config.faults {
            faults.add(fault.clone()).map_err(|error| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, error.message.unwrap_or_default())
            })?;
        }
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port)).await?;
        let calendar = calendar::Calendar {
            zone: config.time_zone,
            ahead: calendar::Ahead::default(),
        };
        let header_read_timeout = config.header_read_timeout;
        let address = listener.local_addr()?;
        let keys = Arc::new(auth::Keys::new(DEMO_API_KEY, DEMO_LOGIN_ID));
        let analytics_stats = Arc::new(AnalyticsStats::default());
        let shared = Shared {
            config: Arc::new(config),
            keys: keys.clone(),
            analytics_stats: analytics_stats.clone(),
        };
        let journal = Arc::new(journal::Journal::new(keys.clone()));
        let (app, encoder) = calendar::in_calendar_sync(calendar.clone(), || {
            router(shared, faults.clone(), journal.clone(), calendar.clone())
        });
        let app = app.layer(axum::middleware::from_fn_with_state(
            control::LoopbackHosts::at(address.port()),
            control::only_by_loopback_name,
        ));
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server::serve(listener, app, header_read_timeout, stopped));
        let base = format!("http://{address}");
        Ok(Self {
            address,
            encoder_url: format!("{base}/encoder"),
            vms_url: format!("{base}/vms"),
            analytics_url: format!("{base}/analytics"),
            api_key: DEMO_API_KEY.to_owned(),
            login_id: DEMO_LOGIN_ID.to_owned(),
            keys,
            encoder,
            faults,
            journal,
            calendar,
            analytics_stats,
            shutdown: Some(shutdown),
        })
    }

    /// Moves the simulator's clock forward by `by`, for the three services
    /// at once (it never goes back): tasks move on through their states at
    /// their pace, the analytics per-minute windows pass and its month turns,
    /// signed page URLs expire, timestamps written from then on are later.
    /// A test sees an hour pass without waiting for it.
    pub fn advance_clock(&self, by: Duration) {
        self.calendar.ahead.advance(by);
    }

    /// Every request the services received, oldest first (the last
    /// [`JOURNAL_CAPACITY`]), with the operation it was for and its status;
    /// over HTTP `GET /sim/journal`.
    pub fn journal(&self) -> Vec<Received> {
        self.journal.entries()
    }

    /// Empties the journal (`DELETE /sim/journal`).
    pub fn clear_journal(&self) {
        self.journal.clear();
    }

    /// What the analytics service saw across all connections: the largest
    /// number of rate-limited requests in flight at once, 429s, admissions.
    pub fn analytics_stats(&self) -> &AnalyticsStats {
        &self.analytics_stats
    }

    /// A new key holding only `permissions` (a key with none gets 403 everywhere).
    pub fn key_with(&self, permissions: impl IntoIterator<Item = Permission>) -> String {
        self.keys.issue(permissions.into_iter().collect::<BTreeSet<_>>())
    }

    /// Where this simulator answers a viewing-page URL of the documented form:
    /// `https://{domain}/pages/{page-id}?{query}` becomes
    /// `http://127.0.0.1:{port}/hosts/{domain}/pages/{page-id}?{query}`,
    /// unchanged otherwise, so the URL you signed for the page's real address
    /// opens with any HTTP client. `None` for a URL that is not `https://`.
    pub fn local_page_url(&self, page_url: &str) -> Option<String> {
        let rest = page_url.strip_prefix("https://")?;
        Some(format!("http://{}/hosts/{rest}", self.address))
    }

    /// Uploads an input file of `size` bytes at `path` (relative, as tasks name
    /// it in `input_filepath`), replacing one of the same path: the stand-in for
    /// uploading through the management screen or WebDAV, FTP, … Over HTTP:
    /// `PUT /sim/input-files/{path}` with the file as the body (counted, not
    /// kept: any size), or `PUT /sim/input-files/{path}?size=N` with an empty
    /// body for a file of N bytes; 204, or 400 when a non-empty body is not N
    /// bytes long. A task or CSV row naming a file never uploaded is refused
    /// with `INPUT_FILE_NOT_FOUND`.
    pub fn add_input_file(&self, path: &str, size: u64) {
        calendar::in_calendar_sync(self.calendar.clone(), || self.encoder.add_input_file(path, size));
    }

    /// Adds a fault: the next `fault.times` requests it matches answer its
    /// status and code instead of running (see [`Fault`]). 400
    /// `INVALID_REQUEST` for an unusable one, as `POST /sim/faults` answers.
    pub fn inject_fault(&self, fault: Fault) -> Result<(), SimError> {
        self.faults.add(fault)
    }

    /// Removes every pending fault (`DELETE /sim/faults`).
    pub fn clear_faults(&self) {
        self.faults.clear();
    }

    /// A facade client pointed at this simulator with the demo key.
    pub fn client(&self) -> vidplat::ClientBuilder {
        vidplat::Client::builder()
            .encoder_url(&self.encoder_url)
            .vms_url(&self.vms_url)
            .analytics_url(&self.analytics_url)
            .api_key(&self.api_key)
            .login_id(&self.login_id)
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// The listener's routes, and the encoding service (for the simulator's own controls).
fn router(
    shared: Shared,
    faults: Arc<faults::Faults>,
    journal: Arc<journal::Journal>,
    calendar: calendar::Calendar,
) -> (axum::Router, Arc<encoder::Service>) {
    // The encoding service registers contents in video management; video
    // management brings the encoding service up to date before it answers.
    let vms_store = vms::VmsStore::default();
    let (encoder, encoder_service) = encoder::router(shared.clone(), vms_store.clone());
    let catch_up: vms::CatchUp = {
        let encoder_service = encoder_service.clone();
        Arc::new(move || encoder_service.catch_up())
    };
    let (vms, pages) = vms::routers(shared.clone(), vms_store, catch_up);
    let router = axum::Router::new()
        .nest("/encoder", encoder)
        .nest("/vms", vms)
        .nest("/analytics", analytics::router(shared))
        .merge(pages)
        .merge(encoder::control_router(encoder_service.clone()))
        .merge(faults::control_router(faults.clone()))
        .merge(journal::control_router(journal.clone()))
        .merge(calendar::control_router(calendar.clone()))
        // A pending fault answers before anything runs (the key check included).
        .layer(axum::middleware::from_fn_with_state(faults, faults::inject))
        // Every request is journaled, a faulted one too.
        .layer(axum::middleware::from_fn_with_state(journal, journal::record))
        // Every request is answered in the configured time zone, on the simulator's clock.
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                calendar::in_calendar(calendar.clone(), next.run(request))
            },
        ));
    (router, encoder_service)
}
