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
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::num::NonZeroU64;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vidplat::pagination::{self, Limits};
use vidplat::signing::{self, Grant, SigningKey};
use vidplat::waiters::WaitOptions;
use vidplat::{Call, Client};
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
    let category = category(&client).await?;
    let task = transcode(&client, profile_id, &category).await?;
    let content = publish(&client, &task, &category).await?;
    signed_page(&client, &content, where_to_open).await?;
    analytics_report(&client).await?;

    println!("\ntour finished in {:.1?}", started.elapsed());
    Ok(())
}

/// Step 1: a preset (how to encode) and a profile (which presets a task uses).
async fn preset_and_profile(client: &Client) -> Result<NonZeroU64> {
    let encoder = client.encoder()?;
    let preset: vidplat::encoder::types::PresetCreate = serde_json::from_value(json!({
        "name": format!("tour-hls-{}", unique_suffix()),
        "description": "HLS, 720p",
        "destination": "vms5://",
        "format": "HLS",
        "hls_config": {"multi_audio_flag": false},
        "output_filename": "%INPUT_FILENAME%",
        "streams": [{"video": {"height": 720}}]
    }))?;
    let preset_id = encoder.register_preset().body(preset).call().await?.id;
    let profile: vidplat::encoder::types::ProfileCreate = serde_json::from_value(json!({
        "name": format!("tour-web-{}", unique_suffix()),
        "presets": [preset_id],
        "vms_config": {"seek_preview": true}
    }))?;
    let profile_id = encoder.register_profile().body(profile).call().await?.id;
    println!(
        "1. preset {} and profile {} registered",
        preset_id.unwrap_or_default(),
        profile_id.unwrap_or_default()
    );
    profile_id
        .and_then(|id| u64::try_from(id).ok())
        .and_then(NonZeroU64::new)
        .context("the service returned no profile id")
}

/// The video management category the tour's contents go in.
async fn category(client: &Client) -> Result<String> {
    let category: vidplat::vms::types::CategoryCreate =
        serde_json::from_value(json!({"name": format!("tour-{}", unique_suffix())}))?;
    let category = client.vms()?.register_category().body(category).call().await?;
    category.id.context("the service returned no category id")
}

/// Step 2: a transcoding task, watched with a progress bar until it is ready.
/// Its preset uploads to video management (`vms5://`), so the task names the
/// category of the content it registers there.
async fn transcode(client: &Client, profile_id: NonZeroU64, category: &str) -> Result<vidplat::encoder::types::Task> {
    let body: vidplat::encoder::types::TaskCreate = serde_json::from_value(json!({
        "input_filepath": "movie.mp4",
        "profile_id": profile_id,
        "vms_config": {"config_overrides": {"category_id": category}}
    }))?;
    let registered = client.encoder()?.register_task().body(body).call().await?;
    let task_id = registered
        .tasks
        .first()
        .and_then(|t| t.id)
        .and_then(|id| u64::try_from(id).ok())
        .and_then(NonZeroU64::new)
        .context("the registration returned no task id")?;
    let bar = ProgressBar::new(4).with_style(ProgressStyle::with_template("   {bar:24} {msg}")?);
    let options = WaitOptions {
        initial_interval: Duration::from_millis(150),
        max_interval: Duration::from_secs(2),
        max_wait: Duration::from_secs(120),
    };
    let mut changes = client.task_status_changes(task_id, options);
    let mut last = None;
    while let Some(task) = changes.next().await {
        let task = task?;
        let status = task.status.as_ref().map(|s| s.to_string()).unwrap_or_default();
        bar.set_position(match status.as_str() {
            "waiting" => 1,
            "encoding" => 2,
            "uploading" => 3,
            _ => 4,
        });
        bar.set_message(status);
        last = Some(task);
    }
    bar.finish();
    let task = last.context("no status was read")?;
    if task.status != Some(vidplat::encoder::types::TaskStatus::Ready) {
        bail!(
            "task {task_id} ended {:?} (error code {:?})",
            task.status,
            task.error_code
        );
    }
    // The simulator says which content the task registered in video management.
    let registered = task
        .vms_config
        .as_ref()
        .and_then(|config| config.get("content_name"))
        .and_then(|name| name.as_str())
        .map(|name| format!(" (its output is the content `{name}` in video management)"))
        .unwrap_or_default();
    println!("2. task {task_id} is ready{registered}");
    Ok(task)
}

/// Step 3: a content of its own with one stream and one stream set.
async fn publish(client: &Client, task: &vidplat::encoder::types::Task, category: &str) -> Result<String> {
    let vms = client.vms()?;
    let name = format!("tour-movie-{}", unique_suffix());
    let content: vidplat::vms::types::ContentCreate = serde_json::from_value(json!({
        "name": name,
        "title": "Tour movie",
        "category_id": category,
        "streams": [{
            "name": "main",
            "path": format!("/tour/{}/index.m3u8", task.output_filename.as_deref().unwrap_or("movie")),
            "format": "HLS"
        }],
        "stream_sets": [{"name": "default", "stream_names": ["main"]}]
    }))?;
    vms.register_content().body(content).call().await?;
    println!("3. content `{name}` registered with stream set `default`");
    Ok(name)
}

/// Step 4: a viewing page that only signed URLs may open, signed for its
/// documented address: `https://{site domain}/pages/{page id}`.
async fn signed_page(client: &Client, content: &str, where_to_open: impl Fn(&str) -> String) -> Result<()> {
    let vms = client.vms()?;
    let sites = vms.list_sites().call().await?;
    let site = sites.data.first().context("the account has no site")?;
    let site_id = site.id.clone().context("the site has no id")?;
    let domain = site.domain_names.first().context("the site has no domain")?;
    let body: vidplat::vms::types::ViewingPageCreate = serde_json::from_value(json!({
        "content_name": content,
        "site_id": site_id,
        "signature_required": true
    }))?;
    let page = vms.register_viewing_page().body(body).call().await?;
    let page_id = page.id.context("the page has no id")?;
    let key = page.signing_key.context("a signed page has a signing key")?;
    let page_url = format!("https://{domain}/pages/{page_id}");
    let in_an_hour = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs() + 3600;
    let grant = Grant {
        expires: Some(in_an_hour),
        audience: Some("viewer-42".into()),
    };
    let signed = signing::sign(&page_url, &SigningKey::new(key)?, &grant)?;
    let tampered = signed.replace("viewer-42", "viewer-43");
    let http = reqwest::Client::new();
    let opened = http.get(where_to_open(&signed)).send().await?.status();
    let refused = http.get(where_to_open(&tampered)).send().await?.status();
    println!("4. {page_url} signed: it opens ({opened}); a tampered copy does not ({refused})");
    if !opened.is_success() || refused != reqwest::StatusCode::FORBIDDEN {
        bail!("the signed URL should open and the tampered one should be refused");
    }
    Ok(())
}

/// Step 5: an analytics report, page by page; the client's limiter keeps to
/// the documented 3 calls a minute, so three pages cost no waiting.
async fn analytics_report(client: &Client) -> Result<()> {
    let analytics = client.analytics()?;
    let page_size = NonZeroU64::new(4).context("a page size")?;
    let pages = pagination::offset_limit(
        page_size,
        |offset, limit| analytics.cloud_by_os().offset(offset).limit(limit).send(),
        Limits::default().max_pages(3),
    );
    let rows: Vec<_> = pagination::items(pages, Limits::default()).collect().await;
    println!("5. viewing by operating system ({} rows, at most 3 calls):", rows.len());
    println!("   {:<10} {:<8} {:>6} {:>6}", "os", "version", "users", "plays");
    for row in rows {
        let row = row?;
        println!(
            "   {:<10} {:<8} {:>6} {:>6}",
            row.os_name.unwrap_or_default(),
            row.os_version.unwrap_or_default(),
            row.user_count.unwrap_or_default(),
            row.play_started_count.unwrap_or_default()
        );
    }
    if let Some(quota) = client.analytics_quota() {
        println!("   analytics calls left this month: {}", quota.remaining());
    }
    Ok(())
}

/// Keeps names unique when the tour runs again against the same account.
fn unique_suffix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64 % 1_000_000_000)
        .unwrap_or(0)
}
