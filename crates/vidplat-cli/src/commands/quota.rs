//! `analytics quota`: the per-minute window and its calls, whether the slot
//! is held, the month's count, and which store counts them.

use super::Invocation;
use crate::failure::Failure;
use clap::Command;
use serde_json::{json, Value};
use vidplat::Client;

pub fn define(command: Command) -> Command {
    command.after_help("Examples:\n  vidplat analytics quota -o yaml")
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let client = invocation.client()?;
    let value = state(&client).await?;
    invocation.print(&value)
}

/// The quota's state as one row.
async fn state(client: &Client) -> Result<Value, Failure> {
    let limiter = client
        .analytics_quota()
        .ok_or_else(|| Failure::Setup("the analytics quota is turned off".to_owned()))?;
    let config = limiter.config();
    let usage = limiter.fetch_usage().await;
    // `null` when the store does not answer: not known, rather than a guess.
    let activity = limiter.fetch_activity().await;
    let store = match limiter.store().kind() {
        "memory" => "memory (this process only: other processes' calls are not counted)".to_owned(),
        "machine" => match vidplat::machine_quota::state_dir() {
            Ok(dir) => format!("machine (every process of this machine; in {})", dir.display()),
            Err(_) => "machine (every process of this machine)".to_owned(),
        },
        "redis" => "redis (every process of the account, on any machine)".to_owned(),
        other => other.to_owned(),
    };
    Ok(json!({
        "calls_per_window": config.calls_per_window,
        "window_secs": config.window.as_secs_f64(),
        "calls_at_a_time": config.concurrency,
        "calls_in_window": activity.map(|a| a.in_window),
        "calls_in_flight": activity.map(|a| a.in_flight),
        "slot_held": activity.map(|a| a.slots_full()),
        "per_month": usage.per_month,
        "used_this_month": usage.used,
        "remaining_this_month": usage.remaining(),
        "refused_by_server": usage.refused_by_server,
        "waiting": limiter.current_wait().map(|w| w.to_string()),
        "store": store,
    }))
}
