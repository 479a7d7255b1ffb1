//! Registers 20 transcoding tasks and waits for all of them, 8 polled at a
//! time, against the simulator: `cargo run --example bulk_tasks`.
//!
//! One input is designed to fail (the simulator fails tasks whose input path
//! contains `fail`): its final task comes back with its error code, beside
//! the 19 that are ready.

use anyhow::Result;
use std::time::Duration;
use vidplat::encoder::types::{PresetCreate, PresetFormat, ProfileCreate, TaskCreate, TaskStatus};
use vidplat::prelude::*;
use vidplat::waiters::Polling;
use vidplat_sim::{SimConfig, Simulator};

#[tokio::main]
async fn main() -> Result<()> {
    let sim = Simulator::start_with(SimConfig::fast()).await?;
    let client = sim.client().build()?;
    let encoder = client.encoder()?;

    let preset = PresetCreate::builder()
        .name("bulk-mp4")
        .format(PresetFormat::Mp4)
        .destination("https://storage.example.jp/bulk/")
        .output_filename("%INPUT_FILENAME%");
    let preset = encoder.register_preset().body(preset).call().await?;
    let profile = ProfileCreate::builder().name("bulk").presets([preset.id]);
    let profile = encoder.register_profile().body(profile).call().await?;

    let mut inputs: Vec<String> = (1..20).map(|n| format!("bulk/clip-{n:02}.mp4")).collect();
    inputs.iter().for_each(|input| sim.add_input_file(input, 1_048_576));
    inputs.push("fail.mp4".into());
    let mut task_ids = Vec::new();
    for input in &inputs {
        let task = TaskCreate::builder()
            .input_filepath(input.as_str())
            .profile_id(profile.id);
        let registered = encoder.register_task().body(task).call().await?;
        task_ids.extend(registered.tasks.into_iter().map(|task| task.id));
    }
    println!("{} tasks registered", task_ids.len());

    let polling = Polling {
        initial_interval: Duration::from_millis(20),
        ..Polling::default()
    };
    let finals = client.wait_for_tasks(task_ids).concurrency(8).polling(polling).await;
    let mut ready = 0;
    for (input, task) in inputs.iter().zip(finals) {
        let task = task?;
        match task.status {
            Some(TaskStatus::Ready) => ready += 1,
            status => println!(
                "{input}: {}, error code {}",
                status.map_or("no status".to_owned(), |status| status.to_string()),
                task.error_code.map_or("none".to_owned(), |code| code.to_string())
            ),
        }
    }
    println!("{ready} of {} ready", inputs.len());
    anyhow::ensure!(ready == 19, "19 tasks should be ready");
    Ok(())
}
