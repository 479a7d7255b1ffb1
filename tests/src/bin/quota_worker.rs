//! One "process" of the multi-process quota runs (tests/tests/redis_quota.rs):
//! makes `--calls` analytics calls against the simulator, counting the quota in
//! Redis (`--store redis://...`, or `--store cluster:URL,URL,...` for some
//! nodes of a Redis Cluster) or in its own memory (`--store memory`), and
//! prints one line per call: `call ok|429|unavailable|refused|timeout|error
//! <start ms> <end ms>` (`unavailable`: refused because the store could not be
//! reached; `refused`: the quota wait reached the call's deadline; Unix
//! epoch), then `round_trips <n>`. With `--hold` it takes the analytics slot,
//! prints `holding`, and keeps it until killed. With `--export REPORT --out DIR
//! --from DATE --to DATE` it exports the report one day a chunk instead, and
//! prints `exported …` (see `export`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vidplat::{Error, QuotaConfig, QuotaStore, RedisQuota, RetryPolicy};

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

struct Args {
    analytics: String,
    key: String,
    store: String,
    account: String,
    calls: u32,
    window: Duration,
    margin: Duration,
    lease: Duration,
    command_timeout: Option<Duration>,
    total_timeout: Option<Duration>,
    start_at: u128,
    hold: bool,
    export: Option<String>,
    /// `--shared`: the export's state in the quota's Redis, split with the other workers.
    shared: bool,
    out: String,
    from: String,
    to: String,
}

fn args() -> Result<Args, String> {
    let mut out = Args {
        analytics: String::new(),
        key: String::new(),
        store: "memory".into(),
        account: "demo".into(),
        calls: 10,
        window: Duration::from_secs(60),
        margin: Duration::from_millis(250),
        lease: Duration::from_secs(30),
        command_timeout: None,
        total_timeout: None,
        start_at: 0,
        hold: false,
        export: None,
        shared: false,
        out: String::new(),
        from: String::new(),
        to: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(name) = it.next() {
        if name == "--hold" {
            out.hold = true;
            continue;
        }
        if name == "--shared" {
            out.shared = true;
            continue;
        }
        let value = it.next().ok_or(format!("{name} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{name}: {e}"));
        match name.as_str() {
            "--analytics" => out.analytics = value.clone(),
            "--key" => out.key = value.clone(),
            "--store" => out.store = value.clone(),
            "--account" => out.account = value.clone(),
            "--calls" => out.calls = u32::try_from(number()?).map_err(|e| e.to_string())?,
            "--window-ms" => out.window = Duration::from_millis(number()?),
            "--margin-ms" => out.margin = Duration::from_millis(number()?),
            "--lease-ms" => out.lease = Duration::from_millis(number()?),
            "--command-timeout-ms" => out.command_timeout = Some(Duration::from_millis(number()?)),
            "--total-timeout-ms" => out.total_timeout = Some(Duration::from_millis(number()?)),
            "--start-at" => out.start_at = u128::from(number()?),
            "--export" => out.export = Some(value.clone()),
            "--out" => out.out = value.clone(),
            "--from" => out.from = value.clone(),
            "--to" => out.to = value.clone(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args = args()?;
    let redis = if args.store == "memory" {
        None
    } else {
        let store = match args.store.strip_prefix("cluster:") {
            Some(nodes) => RedisQuota::cluster(nodes.split(','), &args.account),
            None => RedisQuota::new(&args.store, &args.account),
        };
        let store = store.map_err(|e| e.to_string())?.lease(args.lease);
        Some(match args.command_timeout {
            Some(timeout) => store.command_timeout(timeout),
            None => store,
        })
    };
    let store = redis.clone().map_or(QuotaStore::Memory, QuotaStore::from);
    let mut builder = vidplat::Client::builder();
    if let Some(timeout) = args.total_timeout {
        builder = builder.total_timeout(timeout);
    }
    let client = builder
        .analytics_url(&args.analytics)
        .api_key(&args.key)
        .retry(RetryPolicy::never())
        .quota_store(store)
        .analytics_quota(QuotaConfig {
            window: args.window,
            safety_margin: args.margin,
            ..QuotaConfig::default()
        })
        .build()
        .map_err(|e| e.to_string())?;
    let limiter = client.analytics_quota().ok_or("no limiter")?.clone();
    if args.hold {
        let operation = vidplat::analytics::operations::TABLE
            .operation("cloud_by_os")
            .ok_or("no cloud_by_os")?;
        let _permit = limiter.acquire(operation, None).await.map_err(|r| format!("{r:?}"))?;
        println!("holding");
        tokio::time::sleep(Duration::from_secs(600)).await;
        return Ok(());
    }
    println!("ready");
    let now = epoch_ms();
    if args.start_at > now {
        let wait = u64::try_from(args.start_at - now).unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
    let analytics = client.analytics().map_err(|e| e.to_string())?;
    // A clone shares the store's counters.
    let counted = redis.clone();
    if let Some(report) = &args.export {
        let shared = redis.filter(|_| args.shared);
        return export(analytics, report, &args, shared).await;
    }
    for _ in 0..args.calls {
        let started = epoch_ms();
        let outcome = analytics.cloud_by_os().send().await.map_err(Error::from);
        let kind = match outcome {
            Ok(_) => "ok",
            Err(Error::RateLimited { response: Some(_), .. }) => "429",
            Err(Error::RateLimited {
                quota: vidplat::Quota::StoreUnavailable,
                ..
            }) => "unavailable",
            Err(Error::RateLimited { response: None, .. }) => "refused",
            Err(Error::Timeout(_)) => "timeout",
            Err(e) => {
                eprintln!("{e}");
                "error"
            }
        };
        println!("call {kind} {started} {}", epoch_ms());
    }
    let round_trips = counted.map_or(0, |store| store.round_trips());
    println!("round_trips {round_trips}");
    Ok(())
}

/// `--export`: one report, a day a chunk, into CSV files; `shared`: the
/// state in Redis, split with the other workers. Prints `exported <rows>
/// <calls> <paused> <chunks done> <chunks left to others>`, after
/// `paused <why>` if it paused.
async fn export(
    analytics: &vidplat::analytics::Client,
    report: &str,
    args: &Args,
    shared: Option<RedisQuota>,
) -> Result<(), String> {
    let day = |text: &str| chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|e| e.to_string());
    let period = vidplat::Period::days(day(&args.from)?, day(&args.to)?).map_err(|e| e.to_string())?;
    let report = vidplat_export::report_named(analytics, report, &vidplat_core::Args::default())
        .ok_or(format!("no report {report}"))?
        .map_err(|refusals| refusals.to_string())?;
    let files = vidplat_export::Files::new(&args.out, vidplat_export::Format::Csv);
    let export = report.export(period).chunk_days(1);
    let summary = match shared {
        Some(store) => export.shared_state(store).run(files).await,
        None => export.run(files).await,
    }
    .map_err(|e| e.to_string())?;
    if let Some(pause) = &summary.paused {
        println!("paused {pause}");
    }
    println!(
        "exported {} {} {} {} {}",
        summary.rows,
        summary.calls,
        summary.paused.is_some(),
        summary.chunks_done,
        summary.chunks_by_others
    );
    Ok(())
}
