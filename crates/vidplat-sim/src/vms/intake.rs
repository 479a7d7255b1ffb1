//! Contents the encoding service registers: "the encoding service registers
//! contents here when its task registers to this service" (a preset whose
//! destination is `vms5://`). The document shows neither the content it
//! registers nor where its settings come from; the simulator's reading:
//!
//! - one content per transaction (the tasks created together from one
//!   profile), named `encoder-{transaction}`, titled with the output file
//!   name, `encoder_transaction_id` the transaction, status PUBLIC,
//!   encode_status COMPLETED; each task adds one stream (its
//!   `encoder_task_id`, the format of its preset) in a stream set named after
//!   its preset;
//! - the settings are the task's `vms_config` (the profile's, with the task
//!   request's): `category_id`, `labels`, `forward_policy_id`,
//!   `streaming_policy_id`, `distribution_id`, each taken from
//!   `config_overrides` when given there; a profile shared from another
//!   account contributes none but the category, which the task must override
//!   (documented: the others of the profile are ignored; the task's own apply);
//! - a content "belongs to one category" (its `category_id` is required at
//!   registration): without one, or when a setting names something that does
//!   not exist or the content is full, nothing is registered and the task fails.

use super::builtins::{self, DEFAULT_DISTRIBUTION_ID};
use super::media::{MAX_STREAMS, MAX_STREAM_SETS};
use super::store::{ContentRecord, Store, MAX_RECORDS};
use super::{canonical_id, clock, new_id};
use std::sync::{Arc, Mutex, PoisonError};
use vidplat_vms::types;

/// The video management service's state, which the encoding service registers
/// contents in.
#[derive(Clone, Default)]
pub(crate) struct VmsStore(pub(super) Arc<Mutex<Store>>);

/// The output of a task to register as a content.
#[derive(Debug)]
pub(crate) struct EncodedOutput {
    pub(crate) transaction: i64,
    pub(crate) task_id: i64,
    /// When the upload ended (UNIX time).
    pub(crate) at: i64,
    pub(crate) output_filename: String,
    /// The stream set's name: the preset's.
    pub(crate) preset_name: String,
    /// The stream's format and file extension.
    pub(crate) format: types::StreamFormat,
    pub(crate) extension: String,
    pub(crate) category_id: Option<String>,
    pub(crate) labels: Vec<String>,
    pub(crate) forward_policy_id: Option<String>,
    pub(crate) streaming_policy_id: Option<String>,
    pub(crate) distribution_id: Option<String>,
}

impl VmsStore {
    /// Registers `output` (a new content for its transaction, or a stream set
    /// of the content already registered for it); the content's name, or why not.
    pub(crate) fn register_encoded(&self, output: &EncodedOutput) -> Result<String, String> {
        let mut store = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let settings = Settings::check(&store, output)?;
        let existing = store
            .contents
            .values()
            .find(|record| record.body.encoder_transaction_id == Some(output.transaction))
            .map(|record| record.name().to_owned());
        if let Some(name) = existing {
            let record = store
                .content_mut(&name)
                .map_err(|error| error.message.unwrap_or_default())?;
            add_stream_set(record, output, &settings)?;
            return Ok(name);
        }
        if store.contents.len() >= MAX_RECORDS {
            return Err(format!("the simulator keeps at most {MAX_RECORDS} contents"));
        }
        let name = format!("encoder-{}", output.transaction);
        if store.contents.contains_key(&name) {
            return Err(format!("a content named {name} exists already"));
        }
        // Complete before it is stored: a refusal leaves no content behind.
        let mut record = ContentRecord {
            seq: 0,
            created: output.at,
            body: new_content(&name, output, &settings),
        };
        add_stream_set(&mut record, output, &settings)?;
        record.seq = store.next_seq();
        store.contents.insert(name.clone(), record);
        Ok(name)
    }
}

/// The task's settings, checked against what exists.
struct Settings {
    category_id: String,
    labels: Vec<String>,
    forward_policy_id: String,
    streaming_policy_id: String,
    distribution_id: String,
}

impl Settings {
    fn check(store: &Store, output: &EncodedOutput) -> Result<Self, String> {
        let category = output.category_id.as_deref().ok_or(
            "no category: give vms_config.config_overrides.category_id in the task request (or category_id in \
             the profile's vms_config)",
        )?;
        let category_id = canonical_id(category)
            .filter(|id| store.category(id).is_some())
            .ok_or_else(|| format!("category {category} not found"))?;
        let labels = output
            .labels
            .iter()
            .map(|label| {
                canonical_id(label)
                    .filter(|id| store.label(id).is_some())
                    .ok_or_else(|| format!("label {label} not found"))
            })
            .collect::<Result<_, _>>()?;
        let forward_policy_id = match &output.forward_policy_id {
            Some(id) => builtins::forward_policy(id)
                .and_then(|policy| policy.id.clone())
                .ok_or_else(|| format!("content forward policy {id} not found"))?,
            None => builtins::DEFAULT_FORWARD_POLICY_ID.to_owned(),
        };
        let streaming_policy_id = match &output.streaming_policy_id {
            Some(id) => builtins::streaming_policy(id)
                .and_then(|policy| policy.id.clone())
                .ok_or_else(|| format!("streaming policy {id} not found"))?,
            None => builtins::DEFAULT_STREAMING_POLICY_ID.to_owned(),
        };
        let distribution_id = match &output.distribution_id {
            Some(id) => canonical_id(id).ok_or_else(|| format!("distribution {id} is not a UUID"))?,
            None => DEFAULT_DISTRIBUTION_ID.to_owned(),
        };
        Ok(Self {
            category_id,
            labels,
            forward_policy_id,
            streaming_policy_id,
            distribution_id,
        })
    }
}

fn new_content(name: &str, output: &EncodedOutput, settings: &Settings) -> types::Content {
    let stamp = clock::timestamp(output.at);
    types::Content {
        name: Some(name.to_owned()),
        title: Some(output.output_filename.clone()),
        type_: Some(types::ContentType::Vod),
        status: Some(types::ContentStatus::Public),
        encode_status: Some(types::EncodeStatus::Completed),
        duration: Some(0),
        category_id: Some(settings.category_id.clone()),
        labels: settings.labels.clone(),
        forward_policy_id: Some(settings.forward_policy_id.clone()),
        streaming_policy_id: Some(settings.streaming_policy_id.clone()),
        encoder_transaction_id: Some(output.transaction),
        playback_count: Some(0),
        poster_slideshow_interval: Some(1000),
        created_at: stamp.clone(),
        updated_at: stamp.clone(),
        cta_actions: Some(types::CtaActions {
            id: Some(new_id()),
            card_options: Vec::new(),
            created_at: stamp.clone(),
            updated_at: stamp,
            extra: serde_json::Map::new(),
        }),
        ..types::Content::default()
    }
}

/// Adds the task's stream, in a stream set named after its preset.
fn add_stream_set(record: &mut ContentRecord, output: &EncodedOutput, settings: &Settings) -> Result<(), String> {
    let name = record.name().to_owned();
    let content = &mut record.body;
    if content.stream_sets.len() >= MAX_STREAM_SETS || content.streams.len() >= MAX_STREAMS {
        return Err(format!("content {name} holds no more stream sets or streams"));
    }
    if content
        .stream_sets
        .iter()
        .any(|set| set.name.as_deref() == Some(output.preset_name.as_str()))
    {
        return Err(format!(
            "content {name} has a stream set {} already",
            output.preset_name
        ));
    }
    let stamp = clock::timestamp(output.at);
    let id = new_id();
    content.streams.push(types::Stream {
        id: Some(id.clone()),
        path: Some(format!(
            "/{name}/{}/{}.{}",
            output.preset_name, output.output_filename, output.extension
        )),
        format: Some(output.format.clone()),
        playback_rate: Some(1.0),
        encoder_task_id: Some(output.task_id),
        is_original: Some(false),
        status: Some(types::StreamStatus::Completed),
        created_at: stamp.clone(),
        updated_at: stamp.clone(),
        ..types::Stream::default()
    });
    content.stream_sets.push(types::StreamSet {
        name: Some(output.preset_name.clone()),
        distribution_id: Some(settings.distribution_id.clone()),
        streams: vec![id],
        subtitles: Vec::new(),
        created_at: stamp.clone(),
        updated_at: stamp,
    });
    content.updated_at = clock::timestamp(output.at);
    Ok(())
}
