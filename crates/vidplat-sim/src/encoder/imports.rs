//! CSV import jobs: a CSV file with a header row naming task registration
//! fields, one task registration per row, all or nothing.

use super::access::{decode, ResourceId};
use super::account::Account;
use super::board::{NewTask, TaskBoard};
use super::catalog::Catalog;
use super::tasks::plan_tasks;
use super::Service;
use crate::error::SimError;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use std::collections::BTreeMap;
use std::sync::Arc;
use vidplat::Timestamp;
use vidplat_encoder::types::{ImportStatus, ImportTaskStatus, TaskCreate, TaskImport, TaskImportList};

/// Rows one file may hold; the document does not give the number (CSV_TOO_MANY_TASKS past it).
const MAX_CSV_ROWS: usize = 500;

/// The columns: the task registration request's scalar fields.
const REQUIRED_COLUMNS: [&str; 2] = ["input_filepath", "profile_id"];
const OPTIONAL_COLUMNS: [&str; 7] = [
    "output_filename",
    "episode_name",
    "poster_filename_prefix",
    "seek_preview_filename",
    "segment_filename_prefix",
    "priority",
    "upload_type",
];

/// Input formats the simulator can transcode (by extension).
const SUPPORTED_INPUTS: [&str; 16] = [
    "mp4", "m4v", "mov", "qt", "mpg", "mpeg", "ts", "m2ts", "mts", "avi", "wmv", "asf", "flv", "mkv", "webm", "mxf",
];

struct Job {
    name: String,
    rows: usize,
    task_ids: Vec<i64>,
    created_at: Option<Timestamp>,
}

#[derive(Default)]
pub(super) struct Imports {
    jobs: BTreeMap<i64, Job>,
    next_id: i64,
}

impl Imports {
    fn render(&self, id: i64, board: &TaskBoard) -> Option<TaskImport> {
        let job = self.jobs.get(&id)?;
        let rows = job.rows as i64;
        let import_status = serde_json::Map::from_iter([
            ("total_count".to_owned(), rows.into()),
            ("success_count".to_owned(), rows.into()),
            ("failure_count".to_owned(), 0.into()),
        ]);
        let task_status = match serde_json::to_value(board.counts(Some(&job.task_ids))) {
            Ok(serde_json::Value::Object(counts)) => counts,
            _ => serde_json::Map::new(),
        };
        let updated_at = job
            .task_ids
            .iter()
            .filter_map(|id| board.get(*id).and_then(|task| task.updated_at.clone()))
            .chain(job.created_at.clone())
            .max();
        Some(TaskImport {
            id: Some(id),
            name: Some(job.name.clone()),
            import_status: Some(ImportStatus(import_status)),
            task_status: Some(ImportTaskStatus(task_status)),
            created_at: job.created_at.clone(),
            updated_at,
        })
    }
}

fn csv_error(code: &str, message: impl Into<String>) -> SimError {
    SimError::new(StatusCode::BAD_REQUEST, code, message)
}

/// Prefixes an error's message with the CSV line it is about.
fn at_line(line: usize, mut error: SimError) -> SimError {
    error.message = Some(format!("line {line}: {}", error.message.unwrap_or_default()));
    error
}

/// Records of a CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF).
fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, SimError> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.trim_start_matches('\u{feff}').chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(SimError::invalid("the CSV file ends inside a quoted field"));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// The tasks a CSV file registers, one registration per row, checked row by
/// row like a task registration; nothing is registered here.
fn plan_import(text: &str, catalog: &Catalog, account: &Account) -> Result<Vec<Vec<NewTask>>, SimError> {
    // Blank lines describe nothing.
    let mut records = parse_csv(text)?
        .into_iter()
        .enumerate()
        .filter(|(_, record)| record.iter().any(|cell| !cell.trim().is_empty()));
    let Some((_, header)) = records.next() else {
        return Err(csv_error("CSV_EMPTY_TASKS", "the CSV file describes no task"));
    };
    let columns: Vec<String> = header.iter().map(|name| name.trim().to_owned()).collect();
    for required in REQUIRED_COLUMNS {
        if !columns.iter().any(|column| column == required) {
            return Err(csv_error(
                "CSV_INVALID_COLUMNS",
                format!("the required column `{required}` is missing"),
            ));
        }
    }
    // CSV_INVALID_COLUMNS means "a required column is missing"; the document
    // names no code for an unknown or repeated column, so INVALID_REQUEST.
    const NO_CODE: &str = "the document names no code for this; CSV_INVALID_COLUMNS is for a missing required column";
    for (position, column) in columns.iter().enumerate() {
        if !REQUIRED_COLUMNS.contains(&column.as_str()) && !OPTIONAL_COLUMNS.contains(&column.as_str()) {
            return Err(SimError::invalid(format!(
                "unknown column `{column}`: the columns are {} ({NO_CODE})",
                REQUIRED_COLUMNS
                    .iter()
                    .chain(&OPTIONAL_COLUMNS)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if columns[..position].contains(column) {
            return Err(SimError::invalid(format!(
                "column `{column}` appears twice ({NO_CODE})"
            )));
        }
    }
    let rows: Vec<(usize, Vec<String>)> = records.collect();
    if rows.is_empty() {
        return Err(csv_error("CSV_EMPTY_TASKS", "the CSV file describes no task"));
    }
    if rows.len() > MAX_CSV_ROWS {
        return Err(csv_error(
            "CSV_TOO_MANY_TASKS",
            format!("{} rows; at most {MAX_CSV_ROWS}", rows.len()),
        ));
    }
    rows.into_iter()
        .map(|(index, cells)| {
            let line = index + 1;
            if cells.len() != columns.len() {
                return Err(SimError::invalid(format!(
                    "line {line}: {} cells under {} columns",
                    cells.len(),
                    columns.len()
                )));
            }
            let row: BTreeMap<&str, &str> = columns
                .iter()
                .map(String::as_str)
                .zip(cells.iter().map(|cell| cell.trim()))
                .filter(|(_, cell)| !cell.is_empty())
                .collect();
            request_of(&row, catalog)
                .and_then(|request| plan_tasks(catalog, account, &request))
                .map_err(|error| at_line(line, error))
        })
        .collect()
}

/// One row's request, with the import's own error codes.
fn request_of(row: &BTreeMap<&str, &str>, catalog: &Catalog) -> Result<TaskCreate, SimError> {
    let input = row
        .get("input_filepath")
        .ok_or_else(|| csv_error("INPUT_FILE_NOT_FOUND", "no input file is written"))?;
    let extension = input
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    if !extension.is_some_and(|extension| SUPPORTED_INPUTS.contains(&extension.as_str())) {
        return Err(csv_error(
            "INPUT_FILE_NOT_SUPPORTED",
            format!("`{input}` is not a supported input format"),
        ));
    }
    let profile_id = row
        .get("profile_id")
        .and_then(|id| id.parse::<i64>().ok())
        .filter(|id| catalog.profile_for_task(*id).is_some())
        .ok_or_else(|| {
            csv_error(
                "PROFILE_NOT_FOUND",
                format!("profile `{}` is not found", row.get("profile_id").unwrap_or(&"")),
            )
        })?;
    let priority = match row.get("priority") {
        None => None,
        Some(written) => Some(
            written
                .parse::<i64>()
                .ok()
                .filter(|priority| (0..=99).contains(priority))
                .ok_or_else(|| {
                    csv_error(
                        "INVALID_PRIORITY",
                        format!("priority `{written}` is not an integer 0..99"),
                    )
                })?,
        ),
    };
    let mut body: serde_json::Map<String, serde_json::Value> = row
        .iter()
        .map(|(column, cell)| ((*column).to_owned(), serde_json::Value::from(*cell)))
        .collect();
    body.insert("profile_id".into(), profile_id.into());
    body.insert("priority".into(), priority.into());
    decode(serde_json::Value::Object(body))
}

// Handlers.

pub(super) async fn list_task_imports(State(service): State<Arc<Service>>) -> Json<TaskImportList> {
    let store = service.lock();
    Json(TaskImportList {
        data: store
            .imports
            .jobs
            .keys()
            .filter_map(|id| store.imports.render(*id, &store.board))
            .collect(),
    })
}

/// Import CSV file: the task register permission, as the YAML assumes (the job registers tasks).
pub(super) async fn import_tasks_csv(
    State(service): State<Arc<Service>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<TaskImport>, SimError> {
    let body = body.map_err(|rejection| SimError::invalid(rejection.body_text()))?;
    let text = std::str::from_utf8(&body).map_err(|_| SimError::invalid("the CSV file is not UTF-8 text"))?;
    let mut store = service.lock();
    let planned = plan_import(text, &store.catalog, &store.account)?;
    let rows = planned.len();
    let task_ids = store
        .register_tasks(planned)?
        .into_iter()
        .flat_map(|(_, tasks)| tasks.into_iter().filter_map(|task| task.id))
        .collect();
    let created_at = store.timestamp_now();
    let imports = &mut store.imports;
    imports.next_id += 1;
    let id = imports.next_id;
    imports.jobs.insert(
        id,
        Job {
            name: format!("import-{id}"),
            rows,
            task_ids,
            created_at,
        },
    );
    store
        .imports
        .render(id, &store.board)
        .map(Json)
        .ok_or_else(|| SimError::not_found(format!("CSV import job {id}")))
}

pub(super) async fn get_task_import(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<Json<TaskImport>, SimError> {
    let store = service.lock();
    store
        .imports
        .render(id, &store.board)
        .map(Json)
        .ok_or_else(|| SimError::not_found(format!("CSV import job {id}")))
}

/// Deletes the job only: the tasks it registered stay (the document does not say otherwise).
pub(super) async fn delete_task_import(
    State(service): State<Arc<Service>>,
    ResourceId(id): ResourceId,
) -> Result<StatusCode, SimError> {
    service
        .lock()
        .imports
        .jobs
        .remove(&id)
        .ok_or_else(|| SimError::not_found(format!("CSV import job {id}")))?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_quoted_fields_and_line_endings() {
        let records = parse_csv("a,\"b,c\",\"say \"\"hi\"\"\"\r\n1,,3\n").unwrap();
        assert_eq!(records, [vec!["a", "b,c", "say \"hi\""], vec!["1", "", "3"]]);
        assert_eq!(parse_csv("x\ny").unwrap(), [vec!["x"], vec!["y"]]);
        assert!(parse_csv("\"open").is_err());
    }
}
