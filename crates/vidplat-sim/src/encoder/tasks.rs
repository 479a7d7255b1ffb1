//! Tasks: registration (one task per preset of the profile, the fields given
//! "at each run"), the list with its pagination envelope, counts, cancel/delete.

use super::access::{decode, ResourceId};
use super::account::Account;
use super::board::NewTask;
use super::catalog::{Catalog, Destination, ProfileInUse, INPUT_FILENAME, OUTPUT_BASENAME, VMS_OUTPUT_FILENAME};
use super::Service;
use crate::error::SimError;
use crate::{JsonBody, QueryParams};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::Value;
use std::cmp::Ordering;
use std::sync::Arc;
use vidplat_encoder::types::{
    ListTasksSort, Preset, PresetFormat, Task, TaskCounts, TaskCreate, TaskFormat, TaskList, TaskPoster,
    TaskRegistration, TaskSeekPreview, TaskStream, TaskVmsConfigDetail, UploadType,
};

/// The registration settings of a profile shared from another account that
/// the encoding document says are ignored: labels, forward policy, streaming
/// policy, distribution network.
const IGNORED_WHEN_SHARED: [&str; 4] = ["labels", "forward_policy_id", "streaming_policy_id", "distribution_id"];

const DEFAULT_PRIORITY: i64 = 50;
const DEFAULT_PER_PAGE: i64 = 10;

/// A task request field accepted, and required, only when a preset of the
/// profile defines the matching value as "specified at each run". The
/// document shows that setting only for the output file name
/// (`%OUTPUT_BASENAME%`); the simulator reads the others the same way: the
/// preset holds the placeholder named after the field.
#[derive(Clone, Copy, Debug)]
enum RunField {
    OutputFilename,
    EpisodeName,
    PosterFilenamePrefix,
    SeekPreviewFilename,
    SegmentFilenamePrefix,
}

impl RunField {
    const ALL: [RunField; 5] = [
        RunField::OutputFilename,
        RunField::EpisodeName,
        RunField::PosterFilenamePrefix,
        RunField::SeekPreviewFilename,
        RunField::SegmentFilenamePrefix,
    ];

    fn request_field(self) -> &'static str {
        match self {
            RunField::OutputFilename => "output_filename",
            RunField::EpisodeName => "episode_name",
            RunField::PosterFilenamePrefix => "poster_filename_prefix",
            RunField::SeekPreviewFilename => "seek_preview_filename",
            RunField::SegmentFilenamePrefix => "segment_filename_prefix",
        }
    }

    /// Where the preset holds the value, for messages.
    fn preset_setting(self) -> &'static str {
        match self {
            RunField::OutputFilename => "output_filename",
            RunField::EpisodeName => "vms_config.episode_name",
            RunField::PosterFilenamePrefix => "poster.filename_prefix",
            RunField::SeekPreviewFilename => "seek_preview.filename",
            RunField::SegmentFilenamePrefix => "hls_config.segment_filename_prefix",
        }
    }

    /// The preset value meaning "specified at each run".
    fn placeholder(self) -> &'static str {
        match self {
            RunField::OutputFilename => OUTPUT_BASENAME,
            RunField::EpisodeName => "%EPISODE_NAME%",
            RunField::PosterFilenamePrefix => "%POSTER_FILENAME_PREFIX%",
            RunField::SeekPreviewFilename => "%SEEK_PREVIEW_FILENAME%",
            RunField::SegmentFilenamePrefix => "%SEGMENT_FILENAME_PREFIX%",
        }
    }

    /// The error code when the field is required but missing. The document
    /// names none for the output file name at task registration;
    /// OUTPUT_FILE_NAME_NOT_FOUND is its code for the same omission in a CSV import.
    fn missing_code(self) -> &'static str {
        match self {
            RunField::OutputFilename => "OUTPUT_FILE_NAME_NOT_FOUND",
            RunField::EpisodeName => "EPISODE_NAME_NOT_FOUND",
            RunField::PosterFilenamePrefix => "POSTER_FILENAME_PREFIX_NOT_FOUND",
            RunField::SeekPreviewFilename => "SEEK_PREVIEW_FILENAME_NOT_FOUND",
            RunField::SegmentFilenamePrefix => "SEGMENT_FILENAME_PREFIX_NOT_FOUND",
        }
    }

    fn preset_value(self, preset: &Preset) -> Option<&str> {
        fn member<'a>(map: Option<&'a serde_json::Map<String, serde_json::Value>>, key: &str) -> Option<&'a str> {
            map.and_then(|map| map.get(key)).and_then(serde_json::Value::as_str)
        }
        match self {
            RunField::OutputFilename => preset.output_filename.as_deref(),
            RunField::EpisodeName => member(preset.vms_config.as_deref(), "episode_name"),
            RunField::PosterFilenamePrefix => preset
                .poster
                .as_ref()
                .and_then(|poster| poster.filename_prefix.as_deref()),
            RunField::SeekPreviewFilename => member(preset.seek_preview.as_deref(), "filename"),
            RunField::SegmentFilenamePrefix => member(
                preset.hls_config.as_ref().map(|hls| &hls.extra),
                "segment_filename_prefix",
            ),
        }
    }

    fn asked_by(self, preset: &Preset) -> bool {
        self.preset_value(preset) == Some(self.placeholder())
    }

    /// The request's value; an empty one counts as not given.
    fn request_value(self, request: &TaskCreate) -> Option<&str> {
        let value = match self {
            RunField::OutputFilename => request.output_filename.as_deref(),
            RunField::EpisodeName => request.episode_name.as_deref(),
            RunField::PosterFilenamePrefix => request.poster_filename_prefix.as_deref(),
            RunField::SeekPreviewFilename => request.seek_preview_filename.as_deref(),
            RunField::SegmentFilenamePrefix => request.segment_filename_prefix.as_deref(),
        };
        value.map(String::as_str).filter(|value| !value.is_empty())
    }

    /// The value for a task of `preset`: the request's when the preset asks for it, else the preset's own.
    fn resolve<'a>(self, preset: &'a Preset, request: &'a TaskCreate) -> Option<&'a str> {
        if self.asked_by(preset) {
            self.request_value(request)
        } else {
            self.preset_value(preset)
        }
    }
}

/// Plans the tasks a registration creates, one per preset of the profile,
/// after every documented check; nothing is registered here.
pub(super) fn plan_tasks(catalog: &Catalog, account: &Account, request: &TaskCreate) -> Result<Vec<NewTask>, SimError> {
    check_request_bounds(request)?;
    let inputs =
        std::iter::once(request.input_filepath.as_str()).chain(request.multi_angles.iter().map(|angle| angle.as_str()));
    for input in inputs {
        if !account.has_input_file(input) {
            // The document names INPUT_FILE_NOT_FOUND for a CSV row; a task registration is the same request.
            return Err(SimError::new(
                StatusCode::BAD_REQUEST,
                "INPUT_FILE_NOT_FOUND",
                format!(
                    "input file `{input}` was never uploaded (the simulator: Simulator::add_input_file or \
                     PUT /sim/input-files/{{path}})"
                ),
            ));
        }
    }
    let in_use = i64::try_from(request.profile_id.get())
        .ok()
        .and_then(|id| catalog.profile_for_task(id))
        .ok_or_else(|| SimError::not_found(format!("profile {}", request.profile_id)))?;
    if in_use.presets.is_empty() {
        return Err(SimError::invalid("the profile holds no preset"));
    }
    for field in RunField::ALL {
        let asked_by = in_use.presets.iter().find(|preset| field.asked_by(preset));
        match (asked_by, field.request_value(request)) {
            (Some(preset), None) => {
                return Err(SimError::new(
                    StatusCode::BAD_REQUEST,
                    field.missing_code(),
                    format!(
                        "`{}` is required: preset `{}` specifies it at each run ({} is {})",
                        field.request_field(),
                        preset.name.as_deref().unwrap_or_default(),
                        field.preset_setting(),
                        field.placeholder(),
                    ),
                ))
            }
            (None, Some(_)) => {
                return Err(SimError::invalid(format!(
                    "`{}` is accepted only when a preset of the profile specifies it at each run ({} is {})",
                    field.request_field(),
                    field.preset_setting(),
                    field.placeholder(),
                )))
            }
            _ => {}
        }
    }
    let category = request
        .vms_config
        .as_ref()
        .and_then(|config| config.config_overrides.as_ref())
        .and_then(|overrides| overrides.category_id.as_deref());
    if in_use.shared && in_use.registers_to_vms() && category.is_none() {
        return Err(SimError::invalid(
            "the profile is shared from another account and registers to the video management service: \
             `vms_config.config_overrides.category_id` is required",
        ));
    }
    let priority = request.priority.unwrap_or(DEFAULT_PRIORITY);
    // The simulator's convention: an input whose path says "fail" fails.
    let fails = request.input_filepath.contains("fail");
    Ok(in_use
        .presets
        .iter()
        .map(|preset| NewTask {
            detail: task_detail(&in_use, preset, request),
            priority,
            fails,
        })
        .collect())
}

/// The YAML's bounds of a registration, by the client's own rules: the route
/// checks them on the wire, and CSV rows, which come here without it, need them too.
fn check_request_bounds(request: &TaskCreate) -> Result<(), SimError> {
    let checks = vidplat_encoder::operations::ALL
        .iter()
        .find(|op| op.id == "register_task")
        .map_or(&[][..], |op| op.checks);
    let body = serde_json::to_value(request).map_err(|error| SimError::invalid(error.to_string()))?;
    if let Some((field, rule)) = vidplat_core::first_violation(checks, &[], Some(&body)) {
        return Err(SimError::invalid(format!("`{field}` {rule}")));
    }
    match &request.upload_type {
        None | Some(UploadType::Internal | UploadType::External) => Ok(()),
        Some(other) => Err(SimError::invalid(format!("unknown upload_type `{other}`"))),
    }
}

/// The detail of the task `preset` creates (ids, status and times are the board's).
fn task_detail(in_use: &ProfileInUse<'_>, preset: &Preset, request: &TaskCreate) -> Task {
    let input = request.input_filepath.as_str();
    let stem = input_stem(input);
    let destination = Destination::of(preset);
    let output_filename = match RunField::OutputFilename.resolve(preset, request) {
        Some(name) => name.replace(INPUT_FILENAME, stem).replace(VMS_OUTPUT_FILENAME, stem),
        None => stem.to_owned(),
    };
    let poster = preset.poster.as_ref().map(|poster| {
        let mut members = serde_json::Map::new();
        let prefix = RunField::PosterFilenamePrefix.resolve(preset, request).unwrap_or(stem);
        members.insert("filename_prefix".into(), prefix.into());
        if let Some(destination) = &poster.destination {
            members.insert("destination".into(), destination.as_str().into());
        }
        TaskPoster(members)
    });
    let seek_preview = preset.seek_preview.as_ref().map(|settings| {
        let mut members = settings.0.clone();
        let filename = RunField::SeekPreviewFilename.resolve(preset, request).unwrap_or(stem);
        members.insert("filename".into(), filename.into());
        TaskSeekPreview(members)
    });
    let episode_name = matches!(destination, Some(Destination::LegacyVms { .. }))
        .then(|| RunField::EpisodeName.resolve(preset, request).map(str::to_owned))
        .flatten();
    // The profile's registration settings, with the request's overrides.
    let vms_config = (destination == Some(Destination::Vms)).then(|| {
        let mut members = object_members(&in_use.profile.vms_config);
        if in_use.shared {
            // Profile rule 3: these of a shared profile's settings are ignored
            // (defaults apply); the task's own overrides still do.
            members.retain(|name, _| !IGNORED_WHEN_SHARED.contains(&name.as_str()));
        }
        members.extend(object_members(&request.vms_config));
        TaskVmsConfigDetail(members)
    });
    Task {
        input_filename: Some(input.to_owned()),
        multi_angles: request.multi_angles.clone(),
        output_filename: Some(output_filename),
        profile_id: in_use.profile.id,
        profile_name: in_use.profile.name.clone(),
        preset_id: preset.id,
        preset_name: preset.name.clone(),
        format: preset.format.as_ref().map(task_format),
        destination: preset.destination.clone(),
        poster,
        seek_preview,
        episode_name,
        vms_config,
        streams: preset
            .streams
            .iter()
            .map(|stream| TaskStream(object_members(stream)))
            .collect(),
        ..Task::default()
    }
}

/// The task table lists MP4, HLS and DASH; the encrypted variants report
/// their base format and PASSTHROUGH itself (the YAML leaves this open).
fn task_format(format: &PresetFormat) -> TaskFormat {
    match format {
        PresetFormat::Mp4 => TaskFormat::Mp4,
        PresetFormat::Hls | PresetFormat::HlsEncrypted => TaskFormat::Hls,
        PresetFormat::Dash | PresetFormat::DashEncrypted => TaskFormat::Dash,
        other => TaskFormat::from(other.as_str()),
    }
}

/// The input file's name without folders and extension: what %INPUT_FILENAME% stands for.
fn input_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    }
}

fn object_members(value: &impl serde::Serialize) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(members)) => members,
        _ => serde_json::Map::new(),
    }
}

/// A body holding tasks, as JSON: the YAML's Task has `multi_angles` of 1 to 7
/// items, neither nullable nor required, so a task without angles leaves the
/// member out (the generated type would write `[]`). `tasks` is where the
/// body holds its tasks: `None` for a task itself, else the member listing them.
fn without_empty_angles(body: &impl serde::Serialize, tasks: Option<&str>) -> Result<Json<Value>, SimError> {
    let mut body = serde_json::to_value(body).map_err(|error| {
        SimError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "UNKNOWN_ERROR",
            format!("the simulator could not write a task: {error}"),
        )
    })?;
    let drop_empty = |task: &mut Value| {
        if let Some(task) = task.as_object_mut() {
            if task
                .get("multi_angles")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                task.remove("multi_angles");
            }
        }
    };
    match tasks {
        None => drop_empty(&mut body),
        Some(member) => body
            .get_mut(member)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .for_each(drop_empty),
    }
    Ok(Json(body))
}

// Handlers.

pub(super) async fn get_task_counts(State(service): State<Arc<Service>>) -> Json<TaskCounts> {
    Json(service.lock().board.counts(None))
}

#[derive(Deserialize)]
pub(super) struct ListTasksQuery {
    page: Option<i64>,
    per_page: Option<i64>,
    sort: Option<ListTasksSort>,
}

pub(super) async fn list_tasks(
    State(service): State<Arc<Service>>,
    QueryParams(query): QueryParams<ListTasksQuery>,
) -> Result<Json<Value>, SimError> {
    let page = query.page.unwrap_or(1);
    let per_page = query.per_page.unwrap_or(DEFAULT_PER_PAGE);
    if page < 1 {
        return Err(SimError::invalid("`page` starts at 1"));
    }
    if !(1..=100).contains(&per_page) {
        return Err(SimError::invalid("`per_page` is 1..100"));
    }
    let sort = query.sort.unwrap_or_default();
    let (column, direction) = sort.split_once('|').unwrap_or(("created_at", "desc"));
    let order = sort_order(column)?;
    let mut tasks: Vec<Task> = service.lock().board.all().cloned().collect();
    // Ties (timestamps have whole seconds) fall back to registration order.
    tasks.sort_by(|a, b| order(a, b).then(a.id.cmp(&b.id)));
    if direction == "desc" {
        tasks.reverse();
    }
    without_empty_angles(&page_of(tasks, page, per_page), Some("data"))
}

/// Comparison by a sortable column (the document shows only created_at; the
/// simulator sorts by any scalar member of the task).
fn sort_order(column: &str) -> Result<fn(&Task, &Task) -> Ordering, SimError> {
    Ok(match column {
        "id" => |a, b| a.id.cmp(&b.id),
        "created_at" => |a, b| a.created_at.cmp(&b.created_at),
        "updated_at" => |a, b| a.updated_at.cmp(&b.updated_at),
        "encode_start" => |a, b| a.encode_start.cmp(&b.encode_start),
        "encode_end" => |a, b| a.encode_end.cmp(&b.encode_end),
        "status" => |a, b| a.status.cmp(&b.status),
        "transaction" => |a, b| a.transaction.cmp(&b.transaction),
        "error_code" => |a, b| a.error_code.cmp(&b.error_code),
        "input_filename" => |a, b| a.input_filename.cmp(&b.input_filename),
        "output_filename" => |a, b| a.output_filename.cmp(&b.output_filename),
        "profile_id" => |a, b| a.profile_id.cmp(&b.profile_id),
        "profile_name" => |a, b| a.profile_name.cmp(&b.profile_name),
        "preset_id" => |a, b| a.preset_id.cmp(&b.preset_id),
        "preset_name" => |a, b| a.preset_name.cmp(&b.preset_name),
        "format" => |a, b| a.format.cmp(&b.format),
        "destination" => |a, b| a.destination.cmp(&b.destination),
        other => return Err(SimError::invalid(format!("tasks cannot be sorted by `{other}`"))),
    })
}

/// One page and its envelope: `from`/`to` are 1-based positions, 0 on an empty page.
fn page_of(tasks: Vec<Task>, page: i64, per_page: i64) -> TaskList {
    let total = tasks.len() as i64;
    let last_page = ((total + per_page - 1) / per_page).max(1);
    let offset = (page - 1).checked_mul(per_page).unwrap_or(i64::MAX);
    let data: Vec<Task> = tasks
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(per_page as usize)
        .collect();
    let (from, to) = match data.len() as i64 {
        0 => (0, 0),
        shown => (offset + 1, offset + shown),
    };
    TaskList {
        data,
        total: Some(total),
        per_page: Some(per_page),
        current_page: Some(page),
        last_page: Some(last_page),
        from: Some(from),
        to: Some(to),
    }
}

pub(super) async fn register_task(
    State(service): State<Arc<Service>>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<Value>, SimError> {
    let request: TaskCreate = decode(body)?;
    let mut store = service.lock();
    let planned = plan_tasks(&store.catalog, &store.account, &request)?;
    let mut registered = store.register_tasks(vec![planned])?;
    let (transaction, tasks) = registered.pop().unwrap_or_default();
    let registration = TaskRegistration {
        success_count: Some(tasks.len() as i64),
        failure_count: Some(0),
        transaction: Some(transaction),
        tasks,
    };
    without_empty_angles(&registration, Some("tasks"))
}

pub(super) async fn delete_all_tasks(State(service): State<Arc<Service>>) -> StatusCode {
    service.lock().board.delete_finished();
    StatusCode::NO_CONTENT
}

pub(super) async fn get_task(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<Json<Value>, SimError> {
    let store = service.lock();
    let task = store
        .board
        .get(id)
        .ok_or_else(|| SimError::not_found(format!("task {id}")))?;
    without_empty_angles(task, None)
}

pub(super) async fn cancel_or_delete_task(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<StatusCode, SimError> {
    let mut store = service.lock();
    let now = store.now;
    store.board.cancel_or_delete(id, now)?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_stems() {
        assert_eq!(input_stem("movie.mp4"), "movie");
        assert_eq!(input_stem("sample/intro.final.mp4"), "intro.final");
        assert_eq!(input_stem("folder/.hidden"), ".hidden");
        assert_eq!(input_stem("noext"), "noext");
    }

    #[test]
    fn pages_and_their_envelope() {
        let tasks = |n: i64| {
            (1..=n)
                .map(|id| Task {
                    id: Some(id),
                    ..Task::default()
                })
                .collect::<Vec<_>>()
        };
        let page = page_of(tasks(25), 3, 10);
        assert_eq!(
            (page.data.len(), page.from, page.to, page.last_page),
            (5, Some(21), Some(25), Some(3))
        );
        let empty = page_of(tasks(0), 1, 10);
        assert_eq!(
            (empty.total, empty.last_page, empty.from, empty.to),
            (Some(0), Some(1), Some(0), Some(0))
        );
        let beyond = page_of(tasks(3), i64::MAX, 100);
        assert_eq!((beyond.data.len(), beyond.from, beyond.to), (0, Some(0), Some(0)));
    }
}
