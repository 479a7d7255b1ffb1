//! One "process" of the multi-process quota runs (tests/tests/redis_quota.rs):
//! makes `--calls` analytics calls against the simulator, counting the quota in
//! Redis (`--store redis://...`) or in its own memory (`--store memory`), and
//! prints one line per call: `call ok|429|error <start ms> <end ms>` (Unix
//! epoch), then `round_trips <n>`. With `--hold` it takes the analytics slot,
//! prints `holding`, and keeps it until killed.

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
    start_at: u128,
    hold: bool,
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
        start_at: 0,
        hold: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(name) = it.next() {
        if name == "--hold" {
            out.hold = true;
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
            "--start-at" => out.start_at = u128::from(number()?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args = args()?;
    let store = if args.store == "memory" {
        QuotaStore::Memory
    } else {
        RedisQuota::new(&args.store, &args.account)
            .map_err(|e| e.to_string())?
            .lease(args.lease)
            .into()
    };
    let client = vidplat::Client::builder()
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
    for _ in 0..args.calls {
        let started = epoch_ms();
        let outcome = analytics.cloud_by_os().send().await.map_err(Error::from);
        let kind = match outcome {
            Ok(_) => "ok",
            Err(Error::RateLimited { response: Some(_), .. }) => "429",
            Err(e) => {
                eprintln!("{e}");
                "error"
            }
        };
        println!("call {kind} {started} {}", epoch_ms());
    }
    let round_trips = match limiter.store() {
        QuotaStore::Redis(store) => store.round_trips(),
        _ => 0,
    };
    println!("round_trips {round_trips}");
    Ok(())
}
