//! A tour of vidplat: `cargo run --example tour`.
//!
//! Starts the simulator in-process (no account needed) and, through the
//! `vidplat` facade, walks one workflow end to end: a preset and a profile, a
//! transcoding task watched to the end, a content with a stream set, a viewing
//! page whose signed URL opens while a tampered copy does not, and an
//! analytics report read page by page under the documented quota.
//!
//! With `VIDPLAT_API_KEY` and the three `VIDPLAT_*_URL` variables set, the same
//! tour runs against that account instead (it creates a preset, a profile, a
//! task, a category, a content and a page there).

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vidplat::encoder::types::TaskVmsConfigOverrides;
use vidplat::encoder::types::{HlsConfig, PresetCreate, PresetFormat, PresetStream, PresetStreamVideo};
use vidplat::encoder::types::{ProfileCreate, ProfileVmsConfig, Task, TaskCreate, TaskStatus, TaskVmsConfig};
use vidplat::prelude::*;
use vidplat::signing::{sign_page, Grant};
use vidplat::vms::types::{CategoryCreate, ContentCreate, ContentStreamCreate, ContentStreamSetCreate};
use vidplat::vms::types::{StreamFormat, ViewingPageCreate};
use vidplat::Client;
use vidplat_sim::{SimConfig, Simulator};

#[tokio::main]
async fn main() -> Result<()> {
    let started = Instant::now();
    // Against a real account when one is configured; otherwise against the simulator.
    let (client, simulator) = if std::env::var_os("VIDPLAT_API_KEY").is_some() {
        let client = Client::from_env().context("reading the VIDPLAT_* variables")?;
        println!("vidplat tour against the account configured in VIDPLAT_*\n");
        (client, None)
    } else {
        let sim = Simulator::start_with(SimConfig {
            task_step: Duration::from_millis(600),
            ..SimConfig::default()
        })
        .await
        .context("starting the simulator")?;
        println!("vidplat tour against the simulator at http://{}\n", sim.address);
        let client = sim.client().build()?;
        (client, Some(sim))
    };
    // A page's real address, https://{domain}/pages/{id}; the simulator answers it on its own listener.
    let where_to_open = |url: &str| {
        simulator
            .as_ref()
            .and_then(|sim| sim.local_page_url(url))
            .unwrap_or_else(|| url.to_owned())
    };

    let profile_id = preset_and_profile(&client).await?;
    let category = client
        .vms()?
        .register_category()
        .body(CategoryCreate::builder().name(format!("tour-{}", unique_suffix())))
        .call()
        .await?
        .id;
    let task = transcode(&client, profile_id, &category).await?;
    let content = publish(&client, &task, &category).await?;
    signed_page(&client, &content, where_to_open).await?;
    analytics_report(&client).await?;

    println!("\ntour finished in {:.1?}", started.elapsed());
    Ok(())
}

/// Step 1: a preset (how to encode) and a profile (which presets a task uses).
async fn preset_and_profile(client: &Client) -> Result<Option<i64>> {
    let encoder = client.encoder()?;
    let preset = PresetCreate::builder()
        .name(format!("tour-hls-{}", unique_suffix()))
        .description("HLS, 720p")
        .destination("vms5://")
        .format(PresetFormat::Hls)
        .hls_config(HlsConfig::builder().multi_audio_flag(false))
        .output_filename("%INPUT_FILENAME%")
        .streams([PresetStream::builder().video(PresetStreamVideo::builder().height(720))]);
    let preset = encoder.register_preset().body(preset).call().await?;
    let profile = ProfileCreate::builder()
        .name(format!("tour-web-{}", unique_suffix()))
        .presets([preset.id])
        .vms_config(ProfileVmsConfig::builder().seek_preview(true));
    let profile = encoder.register_profile().body(profile).call().await?;
    println!(
        "1. preset {} and profile {} registered",
        shown(&preset.id),
        shown(&profile.id)
    );
    Ok(profile.id)
}

/// Step 2: a transcoding task, watched with a progress bar until it is ready.
/// Its preset uploads to video management (`vms5://`), so the task names the
/// category of the content it registers there.
async fn transcode(client: &Client, profile_id: Option<i64>, category: &Option<String>) -> Result<Task> {
    let task = TaskCreate::builder()
        .input_filepath("movie.mp4")
        .profile_id(profile_id)
        .vms_config(TaskVmsConfig::builder().config_overrides(TaskVmsConfigOverrides::builder().category_id(category)));
    let registered = client.encoder()?.register_task().body(task).call().await?;
    let task_id = registered.tasks.first().and_then(|task| task.id);
    let bar = ProgressBar::new(4).with_style(ProgressStyle::with_template("   {bar:24} {msg}")?);
    let mut changes = client
        .wait_for_task(task_id)
        .poll_interval(Duration::from_millis(150))
        .max_interval(Duration::from_secs(2))
        .max_wait(Duration::from_secs(120))
        .status_changes();
    let mut last = None;
    while let Some(task) = changes.try_next().await? {
        bar.set_position(match task.status {
            Some(TaskStatus::Waiting) => 1,
            Some(TaskStatus::Encoding) => 2,
            Some(TaskStatus::Uploading) => 3,
            _ => 4,
        });
        bar.set_message(task.status.as_ref().map(ToString::to_string).unwrap_or_default());
        last = Some(task);
    }
    bar.finish();
    let task = last.context("no status was read")?;
    if task.status != Some(TaskStatus::Ready) {
        bail!(
            "task {} ended {:?} (error code {:?})",
            shown(&task_id),
            task.status,
            task.error_code
        );
    }
    // The simulator says which content the task registered in video management.
    match task.vms_config.as_ref().and_then(|config| config.get("content_name")) {
        Some(name) => println!(
            "2. task {} is ready (its output is the content {name} in video management)",
            shown(&task_id)
        ),
        None => println!("2. task {} is ready", shown(&task_id)),
    }
    Ok(task)
}

/// Step 3: a content of its own with one stream and one stream set.
async fn publish(client: &Client, task: &Task, category: &Option<String>) -> Result<String> {
    let name = format!("tour-movie-{}", unique_suffix());
    let path = format!(
        "/tour/{}/index.m3u8",
        task.output_filename.as_deref().unwrap_or("movie")
    );
    let content = ContentCreate::builder()
        .name(name.as_str())
        .title("Tour movie")
        .category_id(category)
        .streams([ContentStreamCreate::builder()
            .name("main")
            .path(path)
            .format(StreamFormat::Hls)])
        .stream_sets([ContentStreamSetCreate::builder().name("default").stream_names(["main"])]);
    client.vms()?.register_content().body(content).call().await?;
    println!("3. content `{name}` registered with stream set `default`");
    Ok(name)
}

/// Step 4: a viewing page that only signed URLs may open, signed for its
/// documented address on the account's first site: `https://{domain}/pages/{id}`.
async fn signed_page(client: &Client, content: &str, where_to_open: impl Fn(&str) -> String) -> Result<()> {
    let vms = client.vms()?;
    let sites = vms.list_sites().call().await?;
    let site = sites.data.first().context("the account has no site")?;
    let domain = site.domain_names.first().context("the site has no domain")?;
    let page = ViewingPageCreate::builder()
        .content_name(content)
        .site_id(&site.id)
        .signature_required(true);
    let page = vms.register_viewing_page().body(page).call().await?;
    let signed = sign_page(
        &page,
        domain,
        &Grant::valid_for(Duration::from_secs(3600)).audience("viewer-42"),
    )?;
    let tampered = signed.replace("viewer-42", "viewer-43");
    let http = reqwest::Client::new();
    let opened = http.get(where_to_open(&signed)).send().await?.status();
    let refused = http.get(where_to_open(&tampered)).send().await?.status();
    println!(
        "4. page {} signed: it opens ({opened}); a tampered copy does not ({refused})",
        shown(&page.id)
    );
    if !opened.is_success() || refused != reqwest::StatusCode::FORBIDDEN {
        bail!("the signed URL should open and the tampered one should be refused");
    }
    Ok(())
}

/// Step 5: an analytics report, page by page; the client's limiter keeps to
/// the documented 3 calls a minute, so three pages cost no waiting.
async fn analytics_report(client: &Client) -> Result<()> {
    let rows: Vec<_> = client
        .analytics()?
        .cloud_by_os()
        .limit(4)
        .pages()
        .max_pages(3)
        .try_collect()
        .await?;
    let rows: Vec<_> = rows.into_iter().flat_map(|page| page.data).collect();
    // A row is an OS and a player, each with its version, in the report's
    // default order: plays requested, most first.
    println!("5. viewing by OS and player ({} rows, at most 3 calls):", rows.len());
    println!("   {:<18} {:<20} {:>6} {:>6}", "os", "player", "users", "plays");
    let named = |name: Option<String>, version: Option<String>| {
        format!("{} {}", name.unwrap_or_default(), version.unwrap_or_default())
    };
    for row in rows {
        let os = named(row.os_name, row.os_version);
        let player = named(row.player_name, row.player_version);
        let (users, plays) = (
            row.user_count.unwrap_or_default(),
            row.play_requested_count.unwrap_or_default(),
        );
        println!("   {os:<18} {player:<20} {users:>6} {plays:>6}");
    }
    if let Some(quota) = client.analytics_quota() {
        println!("   {}", quota.usage()); // "3 of 50000 analytics calls used this month"
    }
    Ok(())
}

/// An id as a response gives it (`?` when the response left it out).
fn shown(id: &Option<impl std::fmt::Display>) -> String {
    id.as_ref().map_or_else(|| "?".to_owned(), ToString::to_string)
}

/// Keeps names unique when the tour runs again against the same account.
fn unique_suffix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64 % 1_000_000_000)
        .unwrap_or(0)
}
