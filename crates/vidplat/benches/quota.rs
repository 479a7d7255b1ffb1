//! Figure (d) of BENCHMARKS.md: 20 analytics calls through the client's quota
//! limiter (the default: 3 calls a minute, 1 at a time, 250 ms safety margin)
//! against the ideal schedule for those limits, in simulated time, and the 429s
//! of a local server (127.0.0.1, started here) that enforces the same limits.
//!
//! A plain `harness = false` bench, not criterion: the figure is a span of
//! *simulated* time (tokio's paused clock), deterministic from run to run, plus
//! a count of refusals; there is no noise for criterion's statistics to tame.
//! It prints its figures; the real time a run takes is printed too.
//!
//! Client, server and limiter share one current-thread runtime whose clock is
//! paused: the clock jumps to the next timer whenever no task can run and a
//! poll of I/O wakes none. Loopback bytes are normally readable by the next
//! poll, but not always (the kernel may defer delivery under load), and then
//! the clock would jump while a request or response is still on its way (to
//! the 180 s attempt timeout, say). So a park hook keeps the runtime polling
//! I/O without advancing the clock while a call is on the wire: from the
//! limiter's grant to the server's arrival, and from the server's answer to the
//! call's return. The clock therefore moves only through the limiter's waits
//! and the server's query time: exactly what the figure is about.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;
use vidplat::{Call, QuotaConfig, QuotaLimiter, RetryPolicy};

const CALLS: usize = 20;
/// The documented limits, as the server enforces them: a call counts from its
/// arrival until a window after its end (a refused one ends at once), as the
/// simulator counts; how the service counts is not shown.
const PER_WINDOW: usize = 3;
const WINDOW: Duration = Duration::from_secs(60);
/// Simulated time the server spends on one query.
const QUERY_TIME: Duration = Duration::from_secs(2);
/// Hook calls in a row with no progress after which the clock is let go
/// (a guard against a bookkeeping mistake spinning forever; never reached in a sound run).
const STALL_LIMIT: u64 = 1_000_000;

/// Bookkeeping shared by the server, the callers and the park hook.
#[derive(Default)]
struct Shared {
    limiter: OnceLock<QuotaLimiter>,
    /// Requests that reached the server's handler.
    received: AtomicU64,
    /// Answers the handler produced (200 or 429).
    answered: AtomicU64,
    /// Calls that returned to their caller.
    completed: AtomicU64,
    refused: AtomicU64,
    server: Mutex<ServerState>,
    pump: Notify,
    forced: AtomicU64,
    stalls: AtomicU64,
    last_progress: Mutex<([u64; 4], u64)>,
}

#[derive(Default)]
struct ServerState {
    /// When the calls answered so far ended.
    ends: Vec<Instant>,
    in_flight: u32,
}

impl Shared {
    fn granted(&self) -> u64 {
        self.limiter
            .get()
            .map_or(0, |limiter| limiter.config().per_month - limiter.remaining())
    }

    /// Whether a call is on the wire (bytes in a socket that the clock must wait for).
    fn on_the_wire(&self) -> bool {
        let state = [
            self.granted(),
            self.received.load(SeqCst),
            self.answered.load(SeqCst),
            self.completed.load(SeqCst),
        ];
        let [granted, received, answered, completed] = state;
        if granted <= received && answered <= completed {
            return false;
        }
        let mut last = self.last_progress.lock().unwrap();
        if last.0 != state {
            *last = (state, 0);
        }
        last.1 += 1;
        if last.1 == STALL_LIMIT {
            self.stalls.fetch_add(1, SeqCst);
        }
        last.1 < STALL_LIMIT
    }

    /// Runs before the runtime parks: while a call is on the wire, wake the pump
    /// so the runtime polls I/O without letting the paused clock jump.
    fn before_park(&self) {
        if self.on_the_wire() {
            self.forced.fetch_add(1, SeqCst);
            self.pump.notify_one();
        }
    }
}

/// The cloud edition's "by OS" operation, enforcing 3 calls a minute (counted
/// at arrival, refused ones included) and 1 at a time, as the documents say.
async fn by_os(State(shared): State<Arc<Shared>>) -> Response {
    shared.received.fetch_add(1, SeqCst);
    let now = Instant::now();
    let accepted = {
        let mut server = shared.server.lock().unwrap();
        let ended_in_window = server.ends.iter().filter(|t| now.duration_since(**t) < WINDOW).count();
        let in_window = ended_in_window + server.in_flight as usize;
        let accepted = in_window < PER_WINDOW && server.in_flight == 0;
        if accepted {
            server.in_flight += 1;
        } else {
            server.ends.push(now);
        }
        accepted
    };
    if !accepted {
        shared.refused.fetch_add(1, SeqCst);
        shared.answered.fetch_add(1, SeqCst);
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "60")],
            axum::Json(serde_json::json!({"code": "TOO_MANY_REQUESTS", "message": "usage limit exceeded"})),
        )
            .into_response();
    }
    tokio::time::sleep(QUERY_TIME).await;
    {
        let mut server = shared.server.lock().unwrap();
        server.in_flight -= 1;
        server.ends.push(Instant::now());
    }
    shared.answered.fetch_add(1, SeqCst);
    axum::Json(serde_json::json!({
        "data": [{"os_name": "Android", "os_version": "14", "play_requested_count": 3, "user_count": 2}],
        "truncated": false
    }))
    .into_response()
}

/// How the 20 calls are issued.
#[derive(Clone, Copy)]
enum Pattern {
    /// 20 tasks, each making one call, all started at once on clones of one client.
    Concurrent,
    /// One task making 20 calls in a row.
    Sequential,
}

struct Outcome {
    elapsed: Duration,
    refused: u64,
    errors: usize,
    forced: u64,
    stalls: u64,
    wall: std::time::Duration,
}

/// The client's limiter: the default one, or (for the control run) one whose
/// limits are lifted, so the server's enforcement shows.
fn run(pattern: Pattern, lifted: bool) -> Outcome {
    let wall = std::time::Instant::now();
    let shared = Arc::new(Shared::default());
    let hook = shared.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .on_thread_park(move || hook.before_park())
        .build()
        .unwrap();
    let (elapsed, errors) = runtime.block_on(async {
        let pump = shared.clone();
        tokio::spawn(async move {
            loop {
                pump.pump.notified().await;
            }
        });
        let app = Router::new()
            .route("/v2/os/data", get(by_os))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        // The default client: default limiter; no retries, so a 429 would show as an error.
        let mut builder = vidplat::Client::builder()
            .analytics_url(base_url)
            .api_key("bench-api-key")
            .retry(RetryPolicy::never());
        if lifted {
            builder = builder.analytics_quota(QuotaConfig {
                calls_per_window: 1000,
                concurrency: 1000,
                ..QuotaConfig::default()
            });
        }
        let client = builder.build().unwrap();
        let _ = shared.limiter.set(client.analytics_quota().unwrap().clone());

        let started = Instant::now();
        let one_call = |client: vidplat::Client, shared: Arc<Shared>| async move {
            let result = client.analytics().unwrap().cloud_by_os().call().await;
            shared.completed.fetch_add(1, SeqCst);
            result.is_err()
        };
        let errors = match pattern {
            Pattern::Concurrent => {
                let calls: Vec<_> = (0..CALLS)
                    .map(|_| tokio::spawn(one_call(client.clone(), shared.clone())))
                    .collect();
                let mut errors = 0;
                for call in calls {
                    errors += usize::from(call.await.unwrap());
                }
                errors
            }
            Pattern::Sequential => {
                let mut errors = 0;
                for _ in 0..CALLS {
                    errors += usize::from(one_call(client.clone(), shared.clone()).await);
                }
                errors
            }
        };
        (started.elapsed(), errors)
    });
    drop(runtime);
    Outcome {
        elapsed,
        refused: shared.refused.load(SeqCst),
        errors,
        forced: shared.forced.load(SeqCst),
        stalls: shared.stalls.load(SeqCst),
        wall: wall.elapsed(),
    }
}

/// The earliest the n-th call can end under the server's rules: at most
/// PER_WINDOW calls in a window, each from its start until a WINDOW after its
/// end, one call at a time, each taking QUERY_TIME.
fn ideal(calls: usize) -> Duration {
    let mut starts: Vec<Duration> = Vec::with_capacity(calls);
    for i in 0..calls {
        let after_previous = i.checked_sub(1).map_or(Duration::ZERO, |p| starts[p] + QUERY_TIME);
        let after_window = i
            .checked_sub(PER_WINDOW)
            .map_or(Duration::ZERO, |p| starts[p] + QUERY_TIME + WINDOW);
        starts.push(after_previous.max(after_window));
    }
    starts.last().map_or(Duration::ZERO, |s| *s + QUERY_TIME)
}

fn main() {
    // `cargo bench` passes --bench; without it (`cargo test --benches`) one run per pattern.
    let repeats = if std::env::args().any(|a| a == "--bench") { 5 } else { 1 };
    let ideal = ideal(CALLS);
    for (name, pattern) in [
        ("concurrent_20_tasks", Pattern::Concurrent),
        ("sequential_1_task", Pattern::Sequential),
    ] {
        let mut outcomes: Vec<Outcome> = (0..repeats).map(|_| run(pattern, false)).collect();
        outcomes.sort_by_key(|o| o.elapsed);
        let median = &outcomes[outcomes.len() / 2];
        let (min, max) = (outcomes[0].elapsed, outcomes[outcomes.len() - 1].elapsed);
        let refused_max = outcomes.iter().map(|o| o.refused).max().unwrap_or(0);
        let errors_max = outcomes.iter().map(|o| o.errors).max().unwrap_or(0);
        let stalls: u64 = outcomes.iter().map(|o| o.stalls).sum();
        let mut walls: Vec<_> = outcomes.iter().map(|o| o.wall).collect();
        walls.sort();
        println!(
            "analytics_quota/{name}: {CALLS} calls in {:.3} s simulated (median of {repeats}, range {:.3}..{:.3} s); \
             ideal {:.3} s; ratio {:.4} (target <= 1.02); server 429s {refused_max} (target 0); \
             client errors {errors_max}; query time {:.1} s; wall time per run {:.0} ms; \
             I/O polls held {}; stalls {stalls}",
            median.elapsed.as_secs_f64(),
            min.as_secs_f64(),
            max.as_secs_f64(),
            ideal.as_secs_f64(),
            median.elapsed.as_secs_f64() / ideal.as_secs_f64(),
            QUERY_TIME.as_secs_f64(),
            walls[walls.len() / 2].as_secs_f64() * 1000.0,
            median.forced,
        );
    }
    // Control: the same calls with the client-side limits lifted. The server must refuse most of them,
    // or a count of 0 above would prove nothing.
    for (name, pattern) in [
        ("concurrent_20_tasks", Pattern::Concurrent),
        ("sequential_1_task", Pattern::Sequential),
    ] {
        let control = run(pattern, true);
        println!(
            "analytics_quota/{name}/control (client limits lifted): server 429s {} of {CALLS}, client errors {}, \
             {:.3} s simulated; stalls {}",
            control.refused,
            control.errors,
            control.elapsed.as_secs_f64(),
            control.stalls,
        );
    }
}
