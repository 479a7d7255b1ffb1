//! The SDK program `vidplat encoder list-tasks --all --output ndjson` is
//! measured against (BENCHMARKS.md (h)): every task of every page through the
//! SDK's paginator, one JSON line each on a buffered stdout, as the command
//! line writes them. Set-up from `VIDPLAT_*` variables, as the command line's.
//!
//! ```sh
//! VIDPLAT_ENCODER_URL=http://127.0.0.1:PORT VIDPLAT_API_KEY=k \
//!   cargo run --release -p vidplat-cli --example list_tasks_ndjson > tasks.ndjson
//! ```

use futures::StreamExt as _;
use std::io::Write as _;
use vidplat::Paginate as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = vidplat::ClientBuilder::from_env().build()?;
    let mut tasks = client.encoder()?.list_tasks().items();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    while let Some(task) = tasks.next().await {
        serde_json::to_writer(&mut out, &task?)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
