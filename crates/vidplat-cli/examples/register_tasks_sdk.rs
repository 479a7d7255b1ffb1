//! The SDK program `vidplat batch encoder register-task FILE --parallel 8` is
//! measured against (BENCHMARKS.md (m)): each row of a CSV of
//! `profile-id,input-filepath` registered as a task, 8 at a time with
//! `buffer_unordered`, one JSON line per answer on a buffered stdout. Set-up
//! from `VIDPLAT_*` variables, as the command line's.
//!
//! ```sh
//! VIDPLAT_ENCODER_URL=http://127.0.0.1:PORT VIDPLAT_API_KEY=k \
//!   cargo run --release -p vidplat-cli --example register_tasks_sdk -- tasks.csv
//! ```

use futures::StreamExt as _;
use std::io::Write as _;
use vidplat::encoder::types::TaskCreate;
use vidplat::Call as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args().nth(1).ok_or("usage: register_tasks_sdk FILE")?;
    let client = vidplat::ClientBuilder::from_env().build()?;
    let encoder = client.encoder()?;
    let mut rows = Vec::new();
    for record in csv::Reader::from_path(file)?.records() {
        let record = record?;
        let profile: i64 = record.get(0).ok_or("a profile-id column")?.parse()?;
        let input = record.get(1).ok_or("an input-filepath column")?.to_owned();
        rows.push(TaskCreate::builder().profile_id(profile).input_filepath(input));
    }
    let mut answers = futures::stream::iter(rows)
        .map(|body| encoder.register_task().body(body).call())
        .buffer_unordered(8);
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    while let Some(answer) = answers.next().await {
        serde_json::to_writer(&mut out, &answer?)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}
