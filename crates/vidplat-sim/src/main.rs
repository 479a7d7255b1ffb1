//! `cargo run -p vidplat-sim`: runs the simulator until Ctrl-C and prints
//! where to point a client, as `VIDPLAT_*` lines a shell can export.
//!
//! Options: `--port N` (default: a free one), `--fast` (tasks move every
//! 20 ms instead of 800 ms; nothing else changes, the analytics latency and
//! limits included), `--analytics-per-minute N` (default: the documented 3).

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
            "--fast" => {
                config = SimConfig {
                    port: config.port,
                    analytics_per_minute: config.analytics_per_minute,
                    ..SimConfig::fast()
                };
            }
            "--analytics-per-minute" => {
                config.analytics_per_minute = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| std::io::Error::other("--analytics-per-minute takes a number"))?;
            }
            other => {
                return Err(std::io::Error::other(format!(
                    "unknown argument {other}; try --port N, --fast (tasks move every 20 ms), --analytics-per-minute N"
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
