//! What a task whose upload ended hands over: for a preset whose destination
//! is `vms5://`, its output is registered as a content in the simulated video
//! management service (see `crate::vms` for the content it becomes). Other
//! destinations (legacy vms4://, URLs, object storage) are outside the
//! simulator: their tasks just become ready.
//!
//! The content's settings are the task's `vms_config`: the profile's
//! registration settings (for a profile shared from another account, without
//! the labels, policies and distribution network it ignores) with the task
//! request's `vms_config` over them, each member read from `config_overrides`
//! first. The task's `vms_config` then also carries `content_name` (the content
//! it registered in), or `registration_error` (why nothing was registered, and
//! the task failed): members the document does not show.

use super::catalog::Destination;
use super::clock::Clock;
use crate::vms::{EncodedOutput, VmsStore};
use serde_json::{Map, Value};
use std::time::Instant;
use vidplat_encoder::types::Task;
use vidplat_vms::types::StreamFormat;

/// Hands `task` over at `at`: the members to add to its `vms_config`, or why it fails.
pub(super) fn hand_over(vms: &VmsStore, clock: &Clock, task: &Task, at: Instant) -> Result<Map<String, Value>, String> {
    let destination = task.destination.as_deref().and_then(Destination::parse);
    if destination != Some(Destination::Vms) {
        return Ok(Map::new());
    }
    let config = task
        .vms_config
        .as_ref()
        .map(|config| config.0.clone())
        .unwrap_or_default();
    let overrides = config.get("config_overrides").and_then(Value::as_object);
    // config_overrides.X, else X.
    let setting = |name: &str| overrides.and_then(|o| o.get(name)).or_else(|| config.get(name));
    let text = |name: &str| setting(name).and_then(Value::as_str).map(str::to_owned);
    let format = task
        .format
        .as_ref()
        .map(|format| format.as_str().to_owned())
        .unwrap_or_default();
    let (format, extension) = match format.as_str() {
        "HLS" => (StreamFormat::Hls, "m3u8".to_owned()),
        "MP4" => (StreamFormat::Mp4, "mp4".to_owned()),
        "DASH" => (StreamFormat::Other("DASH".into()), "mpd".to_owned()),
        // PASSTHROUGH: the input file itself.
        _ => (
            StreamFormat::Unknown,
            task.input_filename
                .as_deref()
                .and_then(|input| input.rsplit_once('.'))
                .map_or_else(|| "bin".to_owned(), |(_, extension)| extension.to_owned()),
        ),
    };
    let output = EncodedOutput {
        transaction: task.transaction.unwrap_or_default(),
        task_id: task.id.unwrap_or_default(),
        at: clock.unix(at),
        output_filename: task.output_filename.clone().unwrap_or_default(),
        preset_name: task.preset_name.clone().unwrap_or_default(),
        format,
        extension,
        category_id: text("category_id"),
        labels: setting("labels")
            .and_then(Value::as_array)
            .map(|labels| labels.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        forward_policy_id: text("forward_policy_id"),
        streaming_policy_id: text("streaming_policy_id"),
        distribution_id: text("distribution_id"),
    };
    let name = vms.register_encoded(&output)?;
    Ok(Map::from_iter([("content_name".to_owned(), Value::from(name))]))
}
