//! `cargo run -p vidplat-sim`: runs the simulator until Ctrl-C and prints
//! where to point a client, as `VIDPLAT_*` lines a shell can export.
//!
//! Options: `--port N` (default: a free one), `--fast` (tasks move every
//! 20 ms instead of 800 ms; nothing else changes, the analytics latency and
//! limits included), `--analytics-per-minute N` (default: the documented 3),
//! `--time-zone +HH:MM` (the zone of every timestamp; default +09:00, Japan time).

use vidplat_sim::{SimConfig, Simulator};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut config = SimConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                config.port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .ok_or_else(|| std::io::Error::other("--port takes a number"))?;
            }
            "--fast" => config.task_step = SimConfig::fast().task_step,
            "--analytics-per-minute" => {
                config.analytics_per_minute = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| std::io::Error::other("--analytics-per-minute takes a number"))?;
            }
            "--time-zone" => {
                config.time_zone = args
                    .next()
                    .and_then(|zone| zone.parse().ok())
                    .ok_or_else(|| std::io::Error::other("--time-zone takes an offset such as +09:00 or -05:00"))?;
            }
            other => {
                return Err(std::io::Error::other(format!(
                    "unknown argument {other}; try --port N, --fast (tasks move every 20 ms), --analytics-per-minute N, --time-zone +HH:MM"
                )))
            }
        }
    }
    let sim = Simulator::start_with(config).await?;
    println!("vidplat simulator listening on {}", sim.address);
    println!("VIDPLAT_ENCODER_URL={}", sim.encoder_url);
    println!("VIDPLAT_VMS_URL={}", sim.vms_url);
    println!("VIDPLAT_ANALYTICS_URL={}", sim.analytics_url);
    println!("VIDPLAT_API_KEY={}", sim.api_key);
    println!("VIDPLAT_LOGIN_ID={}", sim.login_id);
    // Flushed now: a parent process reads these lines while the simulator keeps running.
    std::io::Write::flush(&mut std::io::stdout())?;
    tokio::signal::ctrl_c().await?;
    Ok(())
}
