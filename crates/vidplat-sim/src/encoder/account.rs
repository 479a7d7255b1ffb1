//! The account: its external ID, notification settings and uploaded input
//! files. Input files are those seeded (`DEMO_INPUT_FILES`) and those uploaded
//! through the simulator's own API (`Simulator::add_input_file`, or
//! `PUT /sim/input-files/{path}` with the file as the body, or with
//! `?size=N` and no body): the documents show no operation of the service
//! that uploads one.

use super::access::decode;
use super::clock::fixed_timestamp;
use super::Service;
use crate::error::SimError;
use crate::{JsonBody, QueryParams};
use axum::body::{Body, HttpBody as _};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;
use vidplat::Timestamp;
use vidplat_encoder::types::{ExternalId, InputFile, NotificationSettings, NotificationSettingsUpdate};

/// Input files every simulated account has uploaded: name and size in bytes
/// (`fail.mp4`: tasks of an input whose path contains `fail` fail).
const DEMO_INPUT_FILES: [(&str, u64); 4] = [
    ("movie.mp4", 104_857_600),
    ("sample/intro.mp4", 5_242_880),
    ("sample/outro.mov", 3_145_728),
    ("fail.mp4", 1_048_576),
];

struct UploadedFile {
    size: u64,
    modified: Option<Timestamp>,
}

pub(super) struct Account {
    external_id: String,
    notifications: NotificationSettings,
    input_files: BTreeMap<String, UploadedFile>,
}

impl Account {
    pub(super) fn new(seed: u64, created: Option<Timestamp>) -> Self {
        let input_files = DEMO_INPUT_FILES
            .iter()
            .map(|(name, size)| {
                let file = UploadedFile {
                    size: *size,
                    modified: fixed_timestamp(),
                };
                ((*name).to_owned(), file)
            })
            .collect();
        Self {
            external_id: format!("sim-external-{:016x}", mix(seed)),
            notifications: NotificationSettings {
                notify_error: Some(false),
                notify_ready: Some(false),
                notify_imported_tasks: Some(false),
                updated_at: created,
            },
            input_files,
        }
    }

    /// Whether the input file `name` was uploaded.
    pub(super) fn has_input_file(&self, name: &str) -> bool {
        self.input_files.contains_key(name)
    }

    /// Uploads (or replaces) the input file `name`.
    pub(super) fn upload_input_file(&mut self, name: &str, size: u64, at: Option<Timestamp>) {
        self.input_files
            .insert(name.to_owned(), UploadedFile { size, modified: at });
    }
}

/// SplitMix64: a stable scramble of a seed.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A size with a unit (`readable=1`): 1024-based, one decimal.
fn readable_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

// Handlers.

pub(super) async fn get_external_id(State(service): State<Arc<Service>>) -> Json<ExternalId> {
    Json(ExternalId {
        external_id: Some(service.lock().account.external_id.clone()),
    })
}

pub(super) async fn get_notification_settings(State(service): State<Arc<Service>>) -> Json<NotificationSettings> {
    Json(service.lock().account.notifications.clone())
}

/// The Endpoints table names task read as this operation's permission.
pub(super) async fn update_notification_settings(
    State(service): State<Arc<Service>>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<StatusCode, SimError> {
    let update: NotificationSettingsUpdate = decode(body)?;
    let mut store = service.lock();
    let updated_at = store.timestamp_now();
    let settings = &mut store.account.notifications;
    // Flags left out keep their value.
    settings.notify_error = update.notify_error.or(settings.notify_error);
    settings.notify_ready = update.notify_ready.or(settings.notify_ready);
    settings.notify_imported_tasks = update.notify_imported_tasks.or(settings.notify_imported_tasks);
    settings.updated_at = updated_at;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
pub(super) struct InputFileQuery {
    readable: Option<String>,
}

/// `readable`: the document types it boolean (default 0) and writes 0 and 1;
/// the YAML keeps the integer 0..1 a client sends. Both spellings are
/// accepted: `0`/`false` and `1`/`true`.
fn readable(value: Option<&str>) -> Result<bool, SimError> {
    match value {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true") => Ok(true),
        Some(other) => Err(SimError::invalid(format!(
            "`readable` is a boolean: 0 or 1 (or false or true), not `{other}`"
        ))),
    }
}

pub(super) async fn get_input_file(
    State(service): State<Arc<Service>>,
    filename: Result<Path<String>, PathRejection>,
    QueryParams(query): QueryParams<InputFileQuery>,
) -> Result<Json<InputFile>, SimError> {
    let Path(filename) = filename.map_err(|rejection| SimError::invalid(rejection.body_text()))?;
    let readable = readable(query.readable.as_deref())?;
    let store = service.lock();
    let file = store
        .account
        .input_files
        .get(&filename)
        .ok_or_else(|| SimError::not_found(format!("input file `{filename}`")))?;
    Ok(Json(InputFile {
        filesize: Some(if readable {
            readable_size(file.size)
        } else {
            file.size.to_string()
        }),
        filetime: file.modified.clone(),
        filename: Some(filename),
    }))
}

/// The query of `PUT /sim/input-files/{*path}`; an unknown parameter is
/// refused rather than silently making a file of the body's length.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UploadQuery {
    /// The file's size in bytes, so that its bytes need not be sent.
    size: Option<u64>,
}

/// `PUT /sim/input-files/{*path}[?size=N]`: the simulator's stand-in for
/// uploading an input file (through the management screen or WebDAV, FTP, …).
/// Its size is `size` when given (the body then empty or exactly that long),
/// else the body's length. 204; 400 for a bad query or a body of another size.
pub(super) async fn upload_input_file(
    State(service): State<Arc<Service>>,
    Path(path): Path<String>,
    query: Result<QueryParams<UploadQuery>, SimError>,
    body: Body,
) -> Result<StatusCode, SimError> {
    // The body is read before a bad query is refused: an answer sent while
    // the client still writes reaches it as a broken pipe, not as the 400.
    let received = body_length(body).await?;
    let QueryParams(query) = query?;
    let size = match query.size {
        None => received,
        Some(size) if received == 0 || received == size => size,
        Some(size) => {
            return Err(SimError::invalid(format!(
                "`size` is {size} but the body has {received} bytes: send the whole file or an empty body"
            )))
        }
    };
    service.add_input_file(&path, size);
    Ok(StatusCode::NO_CONTENT)
}

/// The body's length, counted as its frames arrive and never kept, so any
/// size goes (axum's 2 MB default limit applies only to extractors that
/// collect the body).
async fn body_length(mut body: Body) -> Result<u64, SimError> {
    let mut length = 0_u64;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|error| SimError::invalid(format!("the body could not be read: {error}")))?;
        if let Some(data) = frame.data_ref() {
            length += data.len() as u64;
        }
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(readable_size(512), "512 B");
        assert_eq!(readable_size(5_242_880), "5.0 MB");
        assert_eq!(readable_size(104_857_600), "100.0 MB");
        assert_eq!(readable_size(1_610_612_736), "1.5 GB");
    }
}
