//! The Redis quota store: one account's analytics quota shared by every
//! process and machine that uses the same Redis.
//!
//! Every decision is one Lua script run on the server, reading the server's
//! clock (`TIME`), so no two processes can both take the last call of a window
//! or the last concurrency slot, whatever their own clocks say.
//!
//! - The concurrency slots are leases: a sorted set of owner tokens scored by
//!   their expiry. A holder renews its lease while its attempt runs; one killed
//!   with `kill -9` blocks the others only until its lease expires. Releasing
//!   removes the holder's own token only (compare-and-delete) and publishes a
//!   wake-up on the account's channel.
//! - Waiters queue in a sorted set of tickets (first come, first served) and
//!   only the head of the queue may take a turn, so with N processes waiting
//!   every one gets calls. A ticket lives only while its waiter refreshes it.
//! - A waiter never polls: it sleeps until the time the script names (the
//!   window), or until a wake-up or the holder's lease expiry (the slot),
//!   whichever is first, and at the latest until its ticket needs refreshing.
//! - The month is counted per calendar month at a fixed UTC offset the user
//!   sets (default +09:00, Japan time, in which the documents give every
//!   date). The documents do not say when the month turns (GAPS.md).
//!
//! All of an account's keys share the hash tag `{vidplat:<account>}`, so one
//! slot holds them and each script touches one slot only. A store made with
//! [`RedisQuota::cluster`] follows the cluster's `MOVED` redirections to the
//! node that owns that slot, and tries the other nodes it knows when that one
//! stops answering, so it finds the replica a fail-over promotes
//! (`nodes`).

use crate::error::{quoted, Bound, RedisError};
use crate::nodes::Nodes;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use vidplat_core::{without_credentials, Quota, QuotaRefusal, WaitCause};
use vidplat_core::{Lease, SharedQuota, StoreFuture, StoreUnavailable, Turn, TurnTaken, WhenUnavailable};

/// What a call does when Redis cannot be reached (the name it had before
/// every shared store had it).
pub use vidplat_core::WhenUnavailable as RedisUnavailable;

/// Why a Redis quota store could not be set up.
#[derive(Debug)]
pub struct RedisQuotaError {
    message: String,
}

impl fmt::Display for RedisQuotaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redis quota store: {}", self.message)
    }
}

impl std::error::Error for RedisQuotaError {}

fn set_up_error(message: impl Into<String>) -> RedisQuotaError {
    RedisQuotaError {
        message: message.into(),
    }
}

/// The Redis quota store of one account. Cheap to clone: clones share the connection.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = vidplat_redis::RedisQuota::new("redis://127.0.0.1:6379/", "my-account")?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisQuota {
    inner: Arc<Inner>,
}

struct Inner {
    /// The node in use and the others known (one, unless a cluster).
    nodes: Nodes,
    /// What every connection sends first: database, user, password, protocol.
    login: redis::RedisConnectionInfo,
    redacted_url: String,
    account: String,
    keys: Keys,
    settings: Settings,
    connection: tokio::sync::Mutex<Option<redis::aio::MultiplexedConnection>>,
    woken: Arc<Notify>,
    listener: OnceLock<JoinHandle<()>>,
    round_trips: AtomicU64,
}

#[derive(Clone, Copy, Debug)]
struct Settings {
    lease: Duration,
    ticket: Duration,
    op_timeout: Duration,
    utc_offset_minutes: i32,
    on_unavailable: RedisUnavailable,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            ticket: Duration::from_secs(10),
            op_timeout: Duration::from_secs(2),
            utc_offset_minutes: JAPAN_MINUTES,
            on_unavailable: RedisUnavailable::Fail,
        }
    }
}

struct Keys {
    leases: String,
    window: String,
    queue: String,
    alive: String,
    seq: String,
    month: String,
    channel: String,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(task) = self.listener.get() {
            task.abort();
        }
    }
}

impl fmt::Debug for RedisQuota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisQuota")
            .field("url", &self.inner.redacted_url)
            .field("account", &self.inner.account)
            .field("settings", &self.inner.settings)
            .finish()
    }
}

fn check_account(account: &str) -> Result<(), RedisQuotaError> {
    if account.is_empty() || account.contains(['{', '}']) {
        return Err(set_up_error("the account key must be non-empty and hold no braces"));
    }
    Ok(())
}

/// The address and login of a Redis URL; `#insecure` TLS refused.
fn parse_url(url: &str) -> Result<redis::ConnectionInfo, RedisQuotaError> {
    use redis::IntoConnectionInfo;
    let info = url
        .into_connection_info()
        .map_err(|e| set_up_error(format!("invalid URL {}: {:?}", without_credentials(url), e.kind())))?;
    if let redis::ConnectionAddr::TcpTls { insecure: true, .. } = info.addr() {
        return Err(set_up_error(format!(
            "{}: `#insecure` (TLS without checking the server's name) is not supported",
            without_credentials(url)
        )));
    }
    Ok(info)
}

impl RedisQuota {
    /// A store on the Redis at `url` (`redis://[user:password@]host:port/[db]`)
    /// for the account `account` (any name all the account's processes share,
    /// e.g. the login ID). Connects on first use.
    pub fn new(url: &str, account: &str) -> Result<Self, RedisQuotaError> {
        // `rediss://` connects with rustls, through the process's default provider.
        vidplat_core::install_default_tls_provider();
        check_account(account)?;
        let info = parse_url(url)?;
        Ok(Self::build(
            Nodes::standalone(info.addr().clone()),
            info.redis_settings().clone(),
            without_credentials(url).into_owned(),
            account.to_owned(),
            Settings::default(),
        ))
    }

    /// A store on a Redis Cluster, from the URLs of some of its nodes
    /// (`redis://[user:password@]host:port/` or `rediss://…`; the first one's
    /// user, password and TLS apply to every node). It follows the cluster's
    /// `MOVED` redirections to the node that owns the account's hash slot, and
    /// when that node stops answering it asks the others it knows, so it
    /// reaches the replica a fail-over promotes. Name two or more nodes: with
    /// one, a store whose node is gone has no other to ask.
    ///
    /// The cluster's nodes are trusted with the password, as with every
    /// cluster client: a redirection is followed to the address the cluster
    /// names. A slot being migrated (`ASK`), `TRYAGAIN` and `CLUSTERDOWN` are
    /// waited out, at most until the command timeout.
    pub fn cluster<I, S>(node_urls: I, account: &str) -> Result<Self, RedisQuotaError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        vidplat_core::install_default_tls_provider();
        check_account(account)?;
        // Each node's address and login, and its URL as it may be shown.
        let nodes = node_urls
            .into_iter()
            .map(|url| Ok((parse_url(url.as_ref())?, without_credentials(url.as_ref()).into_owned())))
            .collect::<Result<Vec<_>, RedisQuotaError>>()?;
        let Some((first, _)) = nodes.first() else {
            return Err(set_up_error("a cluster store needs the URL of at least one node"));
        };
        // Whether a node is reached over TLS; `None`: not over TCP.
        let tls = |info: &redis::ConnectionInfo| match info.addr() {
            redis::ConnectionAddr::Tcp(..) => Some(false),
            redis::ConnectionAddr::TcpTls { .. } => Some(true),
            _ => None,
        };
        if let Some((_, shown)) = nodes
            .iter()
            .find(|(info, _)| tls(info).is_none() || tls(info) != tls(first))
        {
            return Err(set_up_error(format!(
                    "{shown}: every node of a cluster is reached the same way (all redis:// or all rediss://; no unix socket)"
                )));
        }
        let addrs = nodes.iter().map(|(info, _)| info.addr().clone()).collect();
        let shown: Vec<&str> = nodes.iter().map(|(_, shown)| shown.as_str()).collect();
        Ok(Self::build(
            Nodes::cluster(addrs),
            first.redis_settings().clone(),
            format!("cluster {}", shown.join(",")),
            account.to_owned(),
            Settings::default(),
        ))
    }

    fn build(
        nodes: Nodes,
        login: redis::RedisConnectionInfo,
        redacted_url: String,
        account: String,
        settings: Settings,
    ) -> Self {
        let tag = format!("{{vidplat:{account}}}");
        Self {
            inner: Arc::new(Inner {
                nodes,
                login,
                redacted_url,
                keys: Keys {
                    leases: format!("{tag}:leases"),
                    window: format!("{tag}:window"),
                    queue: format!("{tag}:queue"),
                    alive: format!("{tag}:alive"),
                    seq: format!("{tag}:seq"),
                    month: format!("{tag}:month"),
                    channel: format!("{tag}:released"),
                },
                account,
                settings,
                connection: tokio::sync::Mutex::new(None),
                woken: Arc::new(Notify::new()),
                listener: OnceLock::new(),
                round_trips: AtomicU64::new(0),
            }),
        }
    }

    /// A store with changed settings (and its own connection, made on first use).
    fn with_settings(self, change: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = self.inner.settings;
        change(&mut settings);
        let inner = &self.inner;
        Self::build(
            inner.nodes.fresh_copy(),
            inner.login.clone(),
            inner.redacted_url.clone(),
            inner.account.clone(),
            settings,
        )
    }

    /// How long a concurrency slot stays taken if its holder vanishes (default
    /// 30 s). A live holder renews its lease every third of it, so an attempt
    /// may run longer than the lease; a process killed while holding the slot
    /// blocks the others at most this long. Set before first use.
    pub fn lease(self, lease: Duration) -> Self {
        self.with_settings(|s| s.lease = lease.max(Duration::from_millis(30)))
    }

    /// The month's time zone, as a fixed offset from UTC in minutes (default
    /// 540: Japan time, +09:00, the documents' time zone). The documents do not
    /// say when the platform's month turns (GAPS.md).
    pub fn month_utc_offset_minutes(self, minutes: i32) -> Self {
        self.with_settings(|s| s.utc_offset_minutes = minutes.clamp(-24 * 60, 24 * 60))
    }

    /// What a call does when Redis cannot be reached (default: [`RedisUnavailable::Fail`]).
    pub fn on_unavailable(self, behaviour: RedisUnavailable) -> Self {
        self.with_settings(|s| s.on_unavailable = behaviour)
    }

    /// How long one Redis command may take before Redis counts as unavailable (default 2 s).
    pub fn command_timeout(self, timeout: Duration) -> Self {
        self.with_settings(|s| s.op_timeout = timeout.max(Duration::from_millis(1)))
    }

    /// The behaviour when Redis cannot be reached.
    pub fn unavailable_behaviour(&self) -> RedisUnavailable {
        self.inner.settings.on_unavailable
    }

    /// Redis commands (each one round trip) this store has sent so far.
    pub fn round_trips(&self) -> u64 {
        self.inner.round_trips.load(Ordering::Relaxed)
    }

    /// The key prefix of this account: every key starts with it (one hash slot).
    pub fn key_prefix(&self) -> String {
        format!("{{vidplat:{}}}", self.inner.account)
    }

    /// The connection to Redis (made on first use, and again after one broke),
    /// every reply read within bounds (`wire`).
    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, RedisError> {
        let inner = &self.inner;
        let mut slot = inner.connection.lock().await;
        if let Some(connection) = slot.as_ref() {
            return Ok(connection.clone());
        }
        let timeout = inner.settings.op_timeout;
        let connect = async {
            // The node in use, then (on a cluster) the others it knows: after a
            // fail-over, one of them redirects to the promoted replica.
            let mut failed = None;
            for addr in inner.nodes.candidates() {
                match self.connect_to(&addr, timeout).await {
                    Ok(connection) => {
                        inner.nodes.use_node(&addr);
                        return Ok(connection);
                    }
                    Err(e) => failed = Some(e),
                }
            }
            Err(failed.map(|e| quoted(&e.to_string(), 200)).unwrap_or_default())
        };
        let url = || inner.redacted_url.clone();
        let connection = tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| RedisError::NoAnswer {
                url: url(),
                within: Bound::CommandTimeout,
            })?
            .map_err(|reason| RedisError::Unreachable { url: url(), reason })?;
        *slot = Some(connection.clone());
        drop(slot);
        self.listen();
        Ok(connection)
    }

    /// A connection to the node `addr`, its replies read within bounds.
    async fn connect_to(
        &self,
        addr: &redis::ConnectionAddr,
        timeout: Duration,
    ) -> Result<redis::aio::MultiplexedConnection, Box<dyn std::error::Error + Send + Sync>> {
        let socket = crate::wire::open(addr).await?;
        let config = redis::AsyncConnectionConfig::new().set_response_timeout(Some(timeout));
        let (connection, driver) =
            redis::aio::MultiplexedConnection::new_with_config(&self.inner.login, socket, config).await?;
        tokio::spawn(driver);
        Ok(connection)
    }

    /// Forgets a connection that broke: the next command makes a new one.
    fn forget_connection(&self) {
        // A connection being made meanwhile is new: it stays.
        if let Ok(mut slot) = self.inner.connection.try_lock() {
            *slot = None;
        }
    }

    /// Starts (once) the task that turns release messages into local wake-ups.
    fn listen(&self) {
        self.inner.listener.get_or_init(|| {
            // Weak: the task must not keep the store alive (its Drop ends the task).
            let store = Arc::downgrade(&self.inner);
            let channel = self.inner.keys.channel.clone();
            let woken = self.inner.woken.clone();
            let timeout = self.inner.settings.op_timeout;
            tokio::spawn(async move {
                use futures::StreamExt;
                // Lives as long as the store; reconnects after a pause if Redis goes away,
                // to the node in use then (a cluster publishes to every node).
                loop {
                    let Some((addr, login)) = store
                        .upgrade()
                        .map(|inner| (inner.nodes.current(), inner.login.clone()))
                    else {
                        return;
                    };
                    let subscribed = tokio::time::timeout(timeout, async {
                        let socket = crate::wire::open(&addr).await.ok()?;
                        let mut pubsub = redis::aio::PubSub::new(&login, socket).await.ok()?;
                        pubsub.subscribe(&channel).await.ok()?;
                        Some(pubsub)
                    });
                    if let Ok(Some(mut pubsub)) = subscribed.await {
                        let mut messages = pubsub.on_message();
                        while messages.next().await.is_some() {
                            woken.notify_waiters();
                        }
                    }
                    // Waiters still wake at their own timeouts meanwhile.
                    woken.notify_waiters();
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            })
        });
    }

    /// Runs `script`, connecting first if needed, within the command timeout
    /// and never past `deadline` (the call's), whichever ends first.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        script: &LuaScript,
        keys: &[&str],
        args: &[String],
        deadline: Option<Instant>,
    ) -> Result<T, RedisError> {
        let url = &self.inner.redacted_url;
        let command_timeout = self.inner.settings.op_timeout;
        let until = Instant::now().checked_add(command_timeout);
        let (until, cut_by) = match deadline {
            Some(deadline) if until.is_none_or(|until| deadline < until) => (Some(deadline), Bound::CallDeadline),
            _ => (until, Bound::CommandTimeout),
        };
        let attempt = async {
            // On a cluster, a command the cluster did not run (redirected, or
            // the slot's master down) is asked again, after a pause once the
            // redirections go round: the outer timeout ends the waiting.
            let mut asked = 0u32;
            loop {
                asked += 1;
                let mut connection = self.connection().await?;
                let e = match self.run_once(script, keys, args, &mut connection).await {
                    Ok(value) => return Ok(value),
                    Err(e) => e,
                };
                let cluster = self.inner.nodes.is_cluster();
                let kind = e.kind();
                let moved = kind == redis::ErrorKind::Server(redis::ServerErrorKind::Moved);
                let not_run = matches!(
                    kind,
                    redis::ErrorKind::Server(
                        redis::ServerErrorKind::Ask
                            | redis::ServerErrorKind::TryAgain
                            | redis::ServerErrorKind::ClusterDown
                            | redis::ServerErrorKind::MasterDown
                            | redis::ServerErrorKind::BusyLoading
                    )
                );
                // Escaped and cut: a hostile peer's text can neither forge log lines nor fill them.
                let failed = |tries| RedisError::Failed {
                    url: url.clone(),
                    tries,
                    reason: quoted(&e.to_string(), 200),
                };
                if moved {
                    // Named by the cluster: the next connection goes there (refused on a standalone store).
                    let named = e.redirect_node().map(|(addr, _)| addr.to_owned()).unwrap_or_default();
                    drop(connection);
                    self.inner.nodes.moved_to(&named)?;
                    self.forget_connection();
                } else if !(cluster && not_run) {
                    // A connection that broke (a reply out of bounds among them) is made anew next time.
                    if e.is_unrecoverable_error() || e.is_io_error() || e.is_connection_dropped() {
                        drop(connection);
                        self.forget_connection();
                    }
                    return Err(failed(1));
                }
                if asked >= MAX_CLUSTER_ASKS {
                    return Err(failed(asked));
                }
                if asked.is_multiple_of(3) || not_run {
                    tokio::time::sleep(CLUSTER_NAP).await;
                }
            }
        };
        let Some(until) = until else { return attempt.await };
        tokio::time::timeout_at(until, attempt).await.unwrap_or_else(|_| {
            Err(RedisError::NoAnswer {
                url: url.clone(),
                within: cut_by,
            })
        })
    }

    /// Runs `script` once on `connection`: by hash, or by its text when the
    /// server does not hold it yet (EVAL). Not redis::Script::invoke, whose
    /// SCRIPT LOAD panics when a server answers with another hash than the script's.
    async fn run_once<T: redis::FromRedisValue>(
        &self,
        script: &LuaScript,
        keys: &[&str],
        args: &[String],
        connection: &mut redis::aio::MultiplexedConnection,
    ) -> redis::RedisResult<T> {
        self.inner.round_trips.fetch_add(1, Ordering::Relaxed);
        match script.command("EVALSHA", keys, args).query_async(connection).await {
            Err(e) if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript) => {
                self.inner.round_trips.fetch_add(1, Ordering::Relaxed);
                script.command("EVAL", keys, args).query_async(connection).await
            }
            outcome => outcome,
        }
    }

    /// Waits for (or refuses) one turn. `Err(_)`: Redis could not be used.
    pub(crate) async fn take_turn(&self, turn: Turn<'_>) -> Result<Result<RedisLease, QuotaRefusal>, RedisError> {
        let Turn {
            config,
            rate_limited: limited,
            wait,
            deadline,
            waiting,
            saw_month,
        } = turn;
        let token = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
        let settings = self.inner.settings;
        let window = config.window.saturating_add(config.safety_margin);
        // The window a released call counts in, when it counts until a window after its end.
        let until_end = config.counted_until.until_end().then_some(window);
        let args = [
            token.clone(),
            millis(window).to_string(),
            config.calls_per_window.max(1).to_string(),
            config.concurrency.max(1).to_string(),
            millis(settings.lease).to_string(),
            config.per_month.to_string(),
            settings.utc_offset_minutes.to_string(),
            millis(settings.ticket).to_string(),
            if wait { "1" } else { "0" }.to_owned(),
            if limited { "1" } else { "0" }.to_owned(),
            self.window_life(until_end),
            millis(window).saturating_mul(2).to_string(),
        ];
        let k = &self.inner.keys;
        let keys = [&k.leases, &k.window, &k.queue, &k.alive, &k.seq, &k.month].map(String::as_str);
        let refresh = settings.ticket / 3;
        // A waiter dropped mid-wait (its future cancelled) leaves the queue in the
        // background, so its ticket does not hold up the others until it expires.
        let mut ticket = Ticket {
            store: wait.then(|| self.clone()),
            token: token.clone(),
        };
        // What held the call at its last turn: what a wait cut by the deadline ends with.
        let mut held: Option<QuotaRefusal> = None;
        // Every refusal leaves the queue first (a no-op for a call that never queued).
        let refused = loop {
            // Registered before the script runs, so a release in between is not missed.
            let woken = self.inner.woken.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let answer: Vec<i64> = match self.run(&ACQUIRE, &keys, &args, deadline).await {
                Ok(answer) => answer,
                Err(e) => {
                    let Some(held) = held.filter(|_| deadline.is_some_and(|at| Instant::now() >= at)) else {
                        // The ticket leaves in the background (its Drop), within the command
                        // timeout: a Redis back soon (a cluster's fail-over) then does not
                        // keep a dead ticket at the head of the queue until it expires.
                        return Err(e);
                    };
                    break held;
                }
            };
            let &[code, hint, used, ahead] = answer.as_slice() else {
                return Err(unexpected(&answer));
            };
            // Whatever the store says, a wait is at least MIN_NAP (no busy loop)
            // and at most what the limits allow (a window, a lease).
            let hint = Duration::from_millis(u64::try_from(hint).unwrap_or(0));
            saw_month(u64::try_from(used).unwrap_or(0));
            let refusal = |quota, retry_after| QuotaRefusal { quota, retry_after };
            match code {
                GRANTED => {
                    ticket.store = None;
                    return Ok(Ok(if limited {
                        RedisLease::start(self.clone(), token, until_end)
                    } else {
                        RedisLease { held: None }
                    }));
                }
                MONTH_SPENT => break refusal(Quota::Month, None),
                WINDOW_FULL => {
                    let hint = hint.clamp(MIN_NAP, window.max(MIN_NAP));
                    let past = deadline.is_some_and(|at| Instant::now().checked_add(hint).is_none_or(|end| end > at));
                    if !wait || past {
                        break refusal(Quota::PerMinute, Some(hint));
                    }
                    held = Some(refusal(Quota::PerMinute, Some(hint)));
                    // The head of the queue sleeps exactly until the window frees a call
                    // (refreshing its ticket on the way if the wait is long).
                    waiting.show(Quota::PerMinute, WaitCause::Limit, Instant::now().checked_add(hint));
                    tokio::time::sleep(hint.min(refresh).max(MIN_NAP)).await;
                }
                SLOT_TAKEN | QUEUED => {
                    if !wait {
                        break refusal(Quota::Concurrency, None);
                    }
                    held = Some(refusal(Quota::Concurrency, None));
                    let ahead = Some(u64::try_from(ahead).unwrap_or(0));
                    waiting.show(Quota::Concurrency, WaitCause::Queued { ahead }, None);
                    // The holder's lease expiry bounds the wait if no release comes.
                    let lease_end = (code == SLOT_TAKEN).then(|| hint.saturating_add(Duration::from_millis(1)));
                    let nap = lease_end.map_or(refresh, |end| refresh.min(end)).max(MIN_NAP);
                    // The earlier of the nap's end and the deadline, whichever are known.
                    if let Some(until) = Instant::now().checked_add(nap).into_iter().chain(deadline).min() {
                        let _ = tokio::time::timeout_at(until, woken).await;
                    }
                    if deadline.is_some_and(|at| Instant::now() >= at) {
                        break refusal(Quota::Concurrency, None);
                    }
                }
                _ => return Err(unexpected(&answer)),
            }
        };
        ticket.leave().await;
        Ok(Err(refused))
    }

    async fn leave(&self, token: &str) {
        let k = &self.inner.keys;
        let args = [token.to_owned(), k.channel.clone()];
        let _: Result<i64, RedisError> = self
            .run(&LEAVE, &[k.queue.as_str(), k.alive.as_str()], &args, None)
            .await;
    }

    /// Gives the slot of `token` back if it still holds it (compare-and-delete);
    /// 1 if it did. Either way its call ended now: with `Some(window)`, it
    /// counts in the window (`window` long) from now.
    pub(crate) async fn release(&self, token: &str, window: Option<Duration>) -> Result<i64, RedisError> {
        let k = &self.inner.keys;
        let args = [token.to_owned(), k.channel.clone(), self.window_life(window)];
        self.run(&RELEASE, &[k.leases.as_str(), k.window.as_str()], &args, None)
            .await
    }

    /// Extends the lease of `token` if it still holds one, and (with
    /// `Some(window)`) its place in the window with it; 1 if it did.
    pub(crate) async fn renew(&self, token: &str, window: Option<Duration>) -> Result<i64, RedisError> {
        let k = &self.inner.keys;
        let lease = millis(self.inner.settings.lease).to_string();
        let args = [token.to_owned(), lease, self.window_life(window)];
        self.run(&RENEW, &[k.leases.as_str(), k.window.as_str()], &args, None)
            .await
    }

    /// How long the window's key outlives its last change: a call in flight
    /// counts until its lease ends, then a window more. `0`: the call's place
    /// in the window is not changed (it counts from its turn).
    fn window_life(&self, window: Option<Duration>) -> String {
        window
            .map_or(0, |window| {
                millis(window.saturating_add(self.inner.settings.lease)).saturating_mul(2)
            })
            .to_string()
    }
}

/// A waiter's place in the queue (`store` is `None` once it has left or never queued).
struct Ticket {
    store: Option<RedisQuota>,
    token: String,
}

impl Ticket {
    async fn leave(&mut self) {
        if let Some(store) = self.store.take() {
            store.leave(&self.token).await;
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(store) = self.store.take() {
            let token = std::mem::take(&mut self.token);
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { store.leave(&token).await });
            }
        }
    }
}

/// Whole milliseconds, at least one (a lease or a life of 0 would end at once, or be refused).
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// A slot lease held in Redis while one attempt is in flight: renewed in the
/// background, released (compare-and-delete) when dropped.
pub(crate) struct RedisLease {
    held: Option<Held>,
}

/// A lease in force: its call counts in the window until `end`.
struct Held {
    store: RedisQuota,
    token: String,
    /// The window the call counts in after it ends (with the safety margin);
    /// `None` when it counts from its turn.
    window: Option<Duration>,
    renewer: JoinHandle<()>,
}

impl fmt::Debug for RedisLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisLease")
            .field("held", &self.held.is_some())
            .finish()
    }
}

impl RedisLease {
    fn start(store: RedisQuota, token: String, window: Option<Duration>) -> Self {
        let every = (store.inner.settings.lease / 3).max(Duration::from_millis(10));
        let (renewing, renewed) = (store.clone(), token.clone());
        let renewer = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                // Lost (expired, or Redis gone): nothing left to renew.
                if !matches!(renewing.renew(&renewed, window).await, Ok(1)) {
                    break;
                }
            }
        });
        Self {
            held: Some(Held {
                store,
                token,
                window,
                renewer,
            }),
        }
    }
}

impl Held {
    /// Stops renewing, then gives the slot back with the call's end.
    async fn end(self) {
        self.renewer.abort();
        if let Err(e) = self.store.release(&self.token, self.window).await {
            tracing::warn!(
                "could not release the analytics slot in Redis ({e}); it frees itself when its lease expires, \
                 and its call counts in the window until then"
            );
        }
    }
}

impl Drop for RedisLease {
    fn drop(&mut self) {
        if let Some(held) = self.held.take() {
            held.renewer.abort();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(held.end());
            }
        }
    }
}

impl From<RedisQuota> for vidplat_core::QuotaStore {
    fn from(store: RedisQuota) -> Self {
        vidplat_core::QuotaStore::Shared(Arc::new(store))
    }
}

impl Lease for RedisLease {
    /// Gives the slot back now and waits for Redis to confirm (bounded by the
    /// command timeout), so a process that ends right after its call leaves
    /// the slot free. Dropping a lease releases it in the background instead.
    fn release(mut self: Box<Self>) -> StoreFuture<'static, ()> {
        Box::pin(async move {
            if let Some(held) = self.held.take() {
                held.end().await;
            }
        })
    }
}

impl SharedQuota for RedisQuota {
    fn kind(&self) -> &'static str {
        "redis"
    }

    fn as_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        Some(self)
    }

    fn acquire<'a>(&'a self, turn: Turn<'a>) -> StoreFuture<'a, TurnTaken> {
        Box::pin(async move {
            let decision = self.take_turn(turn).await.map_err(StoreUnavailable::because)?;
            Ok(decision.map(|lease| Box::new(lease) as Box<dyn Lease>))
        })
    }

    fn month_used(&self) -> StoreFuture<'_, Result<u64, StoreUnavailable>> {
        Box::pin(async move {
            let offset = self.inner.settings.utc_offset_minutes.to_string();
            let used: i64 = self
                .run(&MONTH_USED, &[self.inner.keys.month.as_str()], &[offset], None)
                .await
                .map_err(StoreUnavailable::because)?;
            Ok(u64::try_from(used).unwrap_or(0))
        })
    }

    /// Reads only: expired leases and calls out of the window are counted out, not removed.
    fn activity(&self, window: Duration) -> StoreFuture<'_, Result<(u64, u64), StoreUnavailable>> {
        Box::pin(async move {
            let k = &self.inner.keys;
            let keys = [k.leases.as_str(), k.window.as_str()];
            let answer: Vec<i64> = self
                .run(&ACTIVITY, &keys, &[millis(window).to_string()], None)
                .await
                .map_err(StoreUnavailable::because)?;
            let &[in_flight, in_window] = answer.as_slice() else {
                return Err(StoreUnavailable::because(unexpected(&answer)));
            };
            let count = |n: i64| u64::try_from(n).unwrap_or(0);
            Ok((count(in_flight), count(in_window)))
        })
    }

    fn when_unavailable(&self) -> WhenUnavailable {
        self.unavailable_behaviour()
    }
}

/// Japan time (+09:00), in minutes: the default month time zone.
const JAPAN_MINUTES: i32 = 9 * 60;

/// A Lua script run by hash (`EVALSHA`), or by its text (`EVAL`) when the
/// server does not hold it yet.
pub(crate) struct LuaScript {
    code: &'static str,
    /// Its SHA-1, computed when first sent.
    hash: OnceLock<String>,
}

impl LuaScript {
    pub(crate) const fn new(code: &'static str) -> Self {
        Self {
            code,
            hash: OnceLock::new(),
        }
    }

    fn command(&self, verb: &str, keys: &[&str], args: &[String]) -> redis::Cmd {
        let script = match verb {
            "EVAL" => self.code,
            _ => self
                .hash
                .get_or_init(|| redis::Script::new(self.code).get_hash().to_owned())
                .as_str(),
        };
        let mut command = redis::cmd(verb);
        command.arg(script).arg(keys.len()).arg(keys).arg(args);
        command
    }
}

/// The pause before a cluster is asked again, when its redirections went
/// round or it said it could not run the command now (a fail-over, a slot
/// being migrated): a fail-over takes about a second or two.
const CLUSTER_NAP: Duration = Duration::from_millis(100);

/// The most times one command is asked of a cluster (the command timeout ends
/// the asking sooner, at its default: 2 s).
const MAX_CLUSTER_ASKS: u32 = 100;

/// The shortest wait between two turns asked of Redis, whatever it answers:
/// a store answering "wait −5 ms" costs at most 50 round trips a second.
const MIN_NAP: Duration = Duration::from_millis(20);

/// An answer of the wrong shape, described within bounds (its length and start).
fn unexpected(answer: &[i64]) -> RedisError {
    let start = &answer[..answer.len().min(4)];
    RedisError::UnexpectedAnswer {
        script: "quota",
        answer: format!("{} values, starting {start:?}", answer.len()),
    }
}

const GRANTED: i64 = 0;
const QUEUED: i64 = 1;
const SLOT_TAKEN: i64 = 2;
const MONTH_SPENT: i64 = 3;
const WINDOW_FULL: i64 = 4;

/// The calendar month at the offset `offset` (minutes), from `now` (ms since
/// the epoch), as `YYYY-MM` in `month` (days to civil date, H. Hinnant).
macro_rules! month_lua {
    () => {
        r#"
local z = math.floor((now + offset * 60000) / 86400000) + 719468
local era = math.floor(z / 146097)
local doe = z - era * 146097
local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
local mp = math.floor((5 * doy + 2) / 153)
local m = mp < 10 and mp + 3 or mp - 9
local y = yoe + era * 400
if m <= 2 then y = y + 1 end
local month = string.format('%04d-%02d', y, m)
"#
    };
}

/// KEYS: leases, window, queue, alive, seq, month.
/// ARGV: token, window ms, calls per window, concurrency, lease ms, month limit,
/// UTC offset minutes, ticket ms, queue (1/0), rate limited (1/0), the window
/// key's life ms for a call counted until a window after its end (0: counted
/// from its turn), the window key's life ms for one counted from its turn.
/// Returns {code, wait ms, the month's count, calls queued ahead}.
static ACQUIRE: LuaScript = LuaScript::new(concat!(
    r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local token = ARGV[1]
local window = tonumber(ARGV[2])
local calls = tonumber(ARGV[3])
local concurrency = tonumber(ARGV[4])
local lease = tonumber(ARGV[5])
local month_limit = tonumber(ARGV[6])
local offset = tonumber(ARGV[7])
local ticket = tonumber(ARGV[8])
local queue = ARGV[9] == '1'
local limited = ARGV[10] == '1'
local life_until_end = tonumber(ARGV[11])
local life_from_turn = tonumber(ARGV[12])

"#,
    month_lua!(),
    r#"
local used = tonumber(redis.call('HGET', KEYS[6], month) or '0')
if used >= month_limit then
  return {3, 0, used, 0}
end
if not limited then
  return {0, 0, redis.call('HINCRBY', KEYS[6], month, 1), 0}
end

if queue then
  -- Forget waiters that stopped refreshing their ticket (gave up or died).
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if not redis.call('ZSCORE', KEYS[4], member) then
      redis.call('ZREM', KEYS[3], member)
    end
  end
  if not redis.call('ZSCORE', KEYS[3], token) then
    redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[5]), token)
  end
  redis.call('ZADD', KEYS[4], now + ticket, token)
  redis.call('PEXPIRE', KEYS[3], ticket * 3)
  redis.call('PEXPIRE', KEYS[4], ticket * 3)
  local ahead = redis.call('ZRANK', KEYS[3], token)
  if ahead > 0 then
    return {1, ticket, used, ahead}
  end
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= concurrency then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {2, tonumber(first[2]) - now, used, 0}
end

-- A call counts until a window after its end (see the end's ZADD below).
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
local in_window = redis.call('ZCARD', KEYS[2])
if in_window >= calls then
  local frees = redis.call('ZRANGE', KEYS[2], in_window - calls, in_window - calls, 'WITHSCORES')
  return {4, tonumber(frees[2]) + window - now, used, 0}
end

redis.call('ZADD', KEYS[1], now + lease, token)
redis.call('PEXPIRE', KEYS[1], lease * 2)
if life_until_end > 0 then
  -- Counted until its end: the lease's, until its release says when.
  redis.call('ZADD', KEYS[2], now + lease, token)
  redis.call('PEXPIRE', KEYS[2], life_until_end)
else
  redis.call('ZADD', KEYS[2], now, token)
  redis.call('PEXPIRE', KEYS[2], life_from_turn)
end
used = redis.call('HINCRBY', KEYS[6], month, 1)
redis.call('EXPIRE', KEYS[6], 100 * 86400)
if queue then
  redis.call('ZREM', KEYS[3], token)
  redis.call('ZREM', KEYS[4], token)
end
return {0, 0, used, 0}
"#
));

/// KEYS: month. ARGV: UTC offset minutes. Returns the month's count.
static MONTH_USED: LuaScript = LuaScript::new(concat!(
    r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local offset = tonumber(ARGV[1])
"#,
    month_lua!(),
    r#"
return tonumber(redis.call('HGET', KEYS[1], month) or '0')
"#
));

/// KEYS: leases, window. ARGV: window ms. Returns {live leases, calls in the
/// window}; reads only (expired entries are counted out, not removed).
static ACTIVITY: LuaScript = LuaScript::new(
    r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
local recent = redis.call('ZCOUNT', KEYS[2], '(' .. (now - tonumber(ARGV[1])), '+inf')
return {held, recent}
"#,
);

/// KEYS: leases, window. ARGV: token, channel, the window key's life ms (0:
/// the call counts from its turn). The call's end is now, in the window
/// whether or not its lease was still held; then compare-and-delete the
/// lease, and wake the waiters.
static RELEASE: LuaScript = LuaScript::new(
    r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local life = tonumber(ARGV[3])
if life > 0 and redis.call('ZADD', KEYS[2], 'XX', 'CH', now, ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[2], life)
end
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 then
  redis.call('PUBLISH', ARGV[2], 'released')
end
return removed
"#,
);

/// KEYS: leases, window. ARGV: token, lease ms, the window key's life ms (0:
/// the call counts from its turn).
/// Extends only a lease the token still holds, and the call's place in the window with it.
static RENEW: LuaScript = LuaScript::new(
    r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
local until_ms = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
local life = tonumber(ARGV[3])
if life > 0 then
  redis.call('ZADD', KEYS[2], 'XX', until_ms, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], life)
end
return 1
"#,
);

/// KEYS: queue, alive. ARGV: token, channel. A waiter that gives up leaves the queue.
static LEAVE: LuaScript = LuaScript::new(
    r#"
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if removed == 1 then
  redis.call('PUBLISH', ARGV[2], 'left')
end
return removed
"#,
);

#[cfg(test)]
mod tests {
    use super::*;
    use vidplat_core::{QuotaConfig, Waiting};

    #[test]
    fn debug_and_errors_never_show_the_password() {
        let store = RedisQuota::new("redis://user:hunter2@127.0.0.1:1/", "acct").unwrap();
        let shown = format!("{store:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("***"), "{shown}");
        assert_eq!(store.key_prefix(), "{vidplat:acct}");
        assert!(RedisQuota::new("redis://127.0.0.1/", "a{b").is_err());
        // TLS: the password and the replies never travel in clear over a network.
        assert!(RedisQuota::new("rediss://:hunter2@127.0.0.1:1/", "acct").is_ok());
        for url in [
            "redis+unix:///tmp/r.sock?db=1&pass=hunter2",
            "unix:///tmp/r.sock?pass=hunter2",
        ] {
            let shown = format!("{:?}", RedisQuota::new(url, "acct").unwrap());
            assert!(!shown.contains("hunter2") && shown.contains("pass=***"), "{shown}");
        }
    }

    /// A Redis that answers every script with `reply` (raw RESP), after `delay`
    /// (`None`: never), and anything else with `+OK`; counts the scripts run.
    /// (Its `+OK` to a `SCRIPT LOAD` made redis::Script panic, so every test
    /// here also shows the client never loads a script that way.)
    async fn hostile_redis(reply: &'static [u8], delay: Option<Duration>) -> (String, Arc<AtomicU64>) {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("redis://{}/", listener.local_addr().unwrap());
        let scripts = Arc::new(AtomicU64::new(0));
        let counted = scripts.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let counted = counted.clone();
                tokio::spawn(async move {
                    let (read, mut write) = socket.into_split();
                    let mut read = BufReader::new(read);
                    // Each command is an array of bulk strings: `*N`, then `$len` and the bytes, N times.
                    for _ in 0..100_000 {
                        let mut line = String::new();
                        if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let parts: usize = line.trim().trim_start_matches('*').parse().unwrap_or(0);
                        let mut command = Vec::new();
                        for _ in 0..parts {
                            line.clear();
                            read.read_line(&mut line).await.unwrap_or(0);
                            let len: usize = line.trim().trim_start_matches('$').parse().unwrap_or(0);
                            let mut bytes = vec![0; len + 2];
                            let _ = read.read_exact(&mut bytes).await;
                            command.push(String::from_utf8_lossy(&bytes[..len]).to_uppercase());
                        }
                        let answer: &[u8] = match command.first().map(String::as_str) {
                            Some("EVALSHA") => b"-NOSCRIPT No matching script\r\n",
                            Some("EVAL") => {
                                counted.fetch_add(1, Ordering::Relaxed);
                                match delay {
                                    Some(delay) => tokio::time::sleep(delay).await,
                                    None => std::future::pending().await,
                                }
                                reply
                            }
                            _ => b"+OK\r\n",
                        };
                        if write.write_all(answer).await.is_err() {
                            return;
                        }
                        if answer.starts_with(b"$1073741824") {
                            // The gigabyte it announced, for as long as the client reads it.
                            let chunk = vec![b'x'; 64 * 1024];
                            for _ in 0..16_384 {
                                if write.write_all(&chunk).await.is_err() {
                                    return;
                                }
                                counted.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        (url, scripts)
    }

    /// One turn asked of the store at `url`, within `deadline`.
    async fn turn(url: &str, deadline: Option<Instant>) -> Result<Result<RedisLease, QuotaRefusal>, RedisError> {
        let store = RedisQuota::new(url, "hostile").unwrap();
        let waits = tokio::sync::watch::channel(None).0;
        let waiting = Waiting::new(&waits);
        let turn = Turn {
            config: &QuotaConfig::default(),
            rate_limited: true,
            wait: true,
            deadline,
            waiting: &waiting,
            saw_month: &|_| {},
        };
        store.take_turn(turn).await
    }

    #[tokio::test]
    async fn a_silent_redis_cannot_hold_a_call_past_its_deadline() {
        let (url, _) = hostile_redis(b"", None).await;
        let started = Instant::now();
        let error = turn(&url, Some(started + Duration::from_millis(300)))
            .await
            .unwrap_err();
        assert!(
            matches!(
                error,
                RedisError::NoAnswer {
                    within: Bound::CallDeadline,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(error.to_string().ends_with("within the call's deadline"), "{error}");
        let took = started.elapsed();
        // Not the 2 s command timeout: the call's 300 ms deadline.
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_millis(1000),
            "{took:?}"
        );
    }

    #[tokio::test]
    async fn an_unreachable_store_says_so_through_the_trait_with_its_typed_error() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let store = RedisQuota::new(&format!("redis://:hunter2@127.0.0.1:{port}/"), "gone").unwrap();
        let unavailable = SharedQuota::month_used(&store).await.unwrap_err();
        let redis = unavailable
            .error()
            .and_then(|e| e.downcast_ref::<RedisError>())
            .expect("the store's own error, typed");
        assert!(matches!(redis, RedisError::Unreachable { .. }), "{redis:?}");
        assert_eq!(unavailable.reason(), redis.to_string());
        assert!(!unavailable.reason().contains("hunter2"), "{}", unavailable.reason());
    }

    #[tokio::test]
    async fn a_redis_saying_wait_less_than_nothing_cannot_busy_loop_the_client() {
        // WINDOW_FULL, "wait -5 ms".
        let (url, scripts) = hostile_redis(b"*4\r\n:4\r\n:-5\r\n:0\r\n:0\r\n", Some(Duration::ZERO)).await;
        let refusal = turn(&url, Some(Instant::now() + Duration::from_secs(1)))
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(refusal.quota, Quota::PerMinute);
        let asked = scripts.load(Ordering::Relaxed);
        assert!(
            asked <= 1_000 / MIN_NAP.as_millis() as u64 + 2,
            "{asked} scripts in a second"
        );
    }

    #[tokio::test]
    async fn a_gigabyte_reply_is_refused_at_its_header_and_never_read() {
        let (url, sent) = hostile_redis(b"$1073741824\r\n", Some(Duration::ZERO)).await;
        let started = Instant::now();
        let error = turn(&url, Some(started + Duration::from_secs(5))).await.unwrap_err();
        assert!(matches!(error, RedisError::Failed { tries: 1, .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("a reply from Redis announces 1073741824 bytes, over the 65536 allowed"),
            "{message}"
        );
        assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
        // The client closed the connection instead of reading on: what the server
        // got out is what the sockets' buffers hold, not the gigabyte.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let sent = sent.load(Ordering::Relaxed);
        assert!(sent < 64 * 1024 * 1024, "{sent} bytes sent");
    }

    /// `text` as a `&'static [u8]` reply (for replies built at run time).
    fn leaked(text: String) -> &'static [u8] {
        Box::leak(text.into_bytes().into_boxed_slice())
    }

    /// GRANTED, as the quota script answers it.
    const GRANTED_REPLY: &[u8] = b"*4\r\n:0\r\n:0\r\n:1\r\n:0\r\n";

    async fn cluster_turn(store: &RedisQuota) -> Result<Result<RedisLease, QuotaRefusal>, RedisError> {
        let waits = tokio::sync::watch::channel(None).0;
        let waiting = Waiting::new(&waits);
        let config = QuotaConfig::default();
        // Unlimited and not queued: one script a turn, no ticket to leave afterwards.
        let turn = Turn {
            config: &config,
            rate_limited: false,
            wait: false,
            deadline: None,
            waiting: &waiting,
            saw_month: &|_| {},
        };
        store.take_turn(turn).await
    }

    #[tokio::test]
    async fn a_cluster_store_follows_moved_and_a_standalone_one_names_the_cluster_constructor() {
        let (owner, owner_scripts) = hostile_redis(GRANTED_REPLY, Some(Duration::ZERO)).await;
        let owner_port = owner.trim_end_matches('/').rsplit(':').next().unwrap().to_owned();
        let (other, other_scripts) = hostile_redis(
            leaked(format!("-MOVED 1234 127.0.0.1:{owner_port}\r\n")),
            Some(Duration::ZERO),
        )
        .await;

        let standalone = RedisQuota::new(&other, "acct").unwrap();
        let error = cluster_turn(&standalone).await.unwrap_err();
        assert!(matches!(error, RedisError::NotStandalone { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("MOVED") && message.contains("RedisQuota::cluster"),
            "{message}"
        );
        assert_eq!(
            owner_scripts.load(Ordering::Relaxed),
            0,
            "a standalone store never follows"
        );

        // The first node named is gone; the second redirects to the owner of the slot.
        let gone = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let cluster = RedisQuota::cluster([format!("redis://{gone}/"), other.clone()], "acct").unwrap();
        assert!(cluster_turn(&cluster).await.unwrap().is_ok());
        assert_eq!(owner_scripts.load(Ordering::Relaxed), 1);
        // Then it speaks to the owner straight away.
        assert!(cluster_turn(&cluster).await.unwrap().is_ok());
        assert_eq!(
            (
                owner_scripts.load(Ordering::Relaxed),
                other_scripts.load(Ordering::Relaxed)
            ),
            (2, 2)
        );
        let shown = format!("{cluster:?}");
        assert!(shown.contains("cluster redis://"), "{shown}");
    }

    #[tokio::test]
    async fn a_cluster_that_stays_down_or_redirects_in_circles_ends_at_the_command_timeout() {
        let (down, asked) = hostile_redis(b"-CLUSTERDOWN The cluster is down\r\n", Some(Duration::ZERO)).await;
        let store = RedisQuota::cluster([down], "acct")
            .unwrap()
            .command_timeout(Duration::from_millis(500));
        let started = Instant::now();
        let error = cluster_turn(&store).await.unwrap_err();
        assert!(
            matches!(
                error,
                RedisError::NoAnswer {
                    within: Bound::CommandTimeout,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        // Waited out a pause at a time, not in a busy loop.
        let asked = asked.load(Ordering::Relaxed);
        assert!((2..=6).contains(&asked), "{asked} scripts in 500 ms");

        // A node that redirects to a node that is gone: bounded the same way.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let (circle, asked) =
            hostile_redis(leaked(format!("-MOVED 1 127.0.0.1:{port}\r\n")), Some(Duration::ZERO)).await;
        let store = RedisQuota::cluster([circle], "acct")
            .unwrap()
            .command_timeout(Duration::from_millis(500));
        assert!(cluster_turn(&store).await.is_err());
        assert!(asked.load(Ordering::Relaxed) <= 20, "{}", asked.load(Ordering::Relaxed));
        assert!(RedisQuota::cluster(Vec::<String>::new(), "acct").is_err());
        let mixed = RedisQuota::cluster(["redis://127.0.0.1:1/", "rediss://127.0.0.1:2/"], "acct").unwrap_err();
        assert!(mixed.to_string().contains("the same way"), "{mixed}");
    }

    #[tokio::test]
    async fn a_reply_of_the_wrong_shape_is_described_within_bounds() {
        // An error reply of 54,000 characters (within the bound on a reply's size),
        // with line breaks that could forge a log line.
        static LONG: std::sync::LazyLock<&'static [u8]> = std::sync::LazyLock::new(|| {
            let text = "x\nFORGED LOG LINE ".repeat(3_000);
            Box::leak(format!("-ERR {text}\r\n").into_bytes().into_boxed_slice())
        });
        let (url, _) = hostile_redis(&LONG, Some(Duration::ZERO)).await;
        let message = turn(&url, None).await.unwrap_err().to_string();
        assert!(message.len() < 400, "{} characters", message.len());
        assert!(!message.contains('\n'), "{message}");
        assert!(message.contains("characters in all"), "{message}");

        // Too many values: only their count and start are shown.
        let (url, _) = hostile_redis(b"*6\r\n:9\r\n:9\r\n:9\r\n:9\r\n:9\r\n:9\r\n", Some(Duration::ZERO)).await;
        let error = turn(&url, None).await.unwrap_err();
        assert_eq!(
            error,
            RedisError::UnexpectedAnswer {
                script: "quota",
                answer: "6 values, starting [9, 9, 9, 9]".to_owned()
            }
        );
        assert_eq!(
            error.to_string(),
            "unexpected answer from the quota script: 6 values, starting [9, 9, 9, 9]"
        );
    }
}
