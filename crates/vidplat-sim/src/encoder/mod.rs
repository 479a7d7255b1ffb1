//! The simulated encoding service (document 1, `openapi/encoder.yaml`):
//! tasks and their encoding queue, presets, profiles (own and shared), CSV
//! import jobs, notification settings, input files and the external ID.
//!
//! Conventions of the simulator where the document is silent (each also said
//! where it applies):
//! - Input files are those seeded (`movie.mp4`, `sample/intro.mp4`,
//!   `sample/outro.mov`, `fail.mp4`) and those uploaded through the
//!   simulator's own API (see `account`); a task or CSV row naming another
//!   is refused with `INPUT_FILE_NOT_FOUND` (400).
//! - An input path containing `fail` makes its tasks end `failed`
//!   (`error_code` 1001) after encoding.
//! - A preset value "specified at each run" is the placeholder named after
//!   the task request field: `output_filename` `%OUTPUT_BASENAME%` (the
//!   document's), `vms_config.episode_name` `%EPISODE_NAME%`,
//!   `poster.filename_prefix` `%POSTER_FILENAME_PREFIX%`,
//!   `seek_preview.filename` `%SEEK_PREVIEW_FILENAME%`,
//!   `hls_config.segment_filename_prefix` `%SEGMENT_FILENAME_PREFIX%`.
//! - A preset registers to the video management service when its
//!   destination is `vms5://`: when its task's upload ends, the output is
//!   registered as a content there (see `handoff`), or the task fails
//!   (`error_code` 1002) when it cannot be.
//! - Legacy distributors 1001 (MP4 and HLS networks), 1002 (MP4 only) and
//!   1003 (HLS only) exist; a parent account shares one profile (id 1000001).
//! - Statuses: 400 for invalid input and the validation codes, 404
//!   `MODEL_NOT_FOUND`, 409 for `*_ALREADY_EXISTS`, 403 `OVER_SERVICE_LIMIT`;
//!   successes without a documented body answer 204.

mod access;
mod account;
mod board;
mod catalog;
mod clock;
mod handoff;
mod imports;
mod tasks;

use crate::error::SimError;
use crate::operations::Operations;
use crate::vms::VmsStore;
use crate::Shared;
use axum::http::StatusCode;
use axum::Router;
use board::{NewTask, TaskBoard};
use clock::Clock;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;
use vidplat::Timestamp;
use vidplat_encoder::types::Task;

/// The service's API (to mount under `/encoder`) and the service itself (for
/// the simulator's own controls, such as uploading input files).
pub(crate) fn router(shared: Shared, vms: VmsStore) -> (Router, Arc<Service>) {
    let service = Arc::new(Service::new(shared, vms));
    let api = Operations::new(&service.shared, &vidplat_encoder::operations::ALL)
        .route("get_external_id", account::get_external_id)
        .route("get_task_counts", tasks::get_task_counts)
        .route("list_tasks", tasks::list_tasks)
        .route("register_task", tasks::register_task)
        .route("delete_all_tasks", tasks::delete_all_tasks)
        .route("get_task", tasks::get_task)
        .route("cancel_or_delete_task", tasks::cancel_or_delete_task)
        // A wildcard, so a file name with an unencoded `/` is found too.
        .route_at("get_input_file", "/v1/upload/{*filename}", account::get_input_file)
        .route("list_task_imports", imports::list_task_imports)
        .route("import_tasks_csv", imports::import_tasks_csv)
        .route("get_task_import", imports::get_task_import)
        .route("delete_task_import", imports::delete_task_import)
        .route("list_presets", catalog::list_presets)
        .route("register_preset", catalog::register_preset)
        .route("get_preset", catalog::get_preset)
        .route_update("update_preset", catalog::update_preset)
        .route("delete_preset", catalog::delete_preset)
        .route("list_profiles", catalog::list_profiles)
        .route("register_profile", catalog::register_profile)
        .route("get_profile", catalog::get_profile)
        .route_update("update_profile", catalog::update_profile)
        .route("delete_profile", catalog::delete_profile)
        .route("get_notification_settings", account::get_notification_settings)
        .route("update_notification_settings", account::update_notification_settings)
        .into_router()
        .with_state(service.clone());
    (api, service)
}

/// The simulator's controls of this service, outside the API: `PUT
/// /sim/input-files/{path}` uploads an input file (the body, of any size, or
/// `?size=N` and no body).
pub(crate) fn control_router(service: Arc<Service>) -> Router {
    Router::new()
        .route(
            "/sim/input-files/{*path}",
            axum::routing::put(account::upload_input_file),
        )
        .with_state(service)
}

/// 403 `OVER_SERVICE_LIMIT`.
fn over_service_limit(what: &str, limit: usize) -> SimError {
    SimError::new(
        StatusCode::FORBIDDEN,
        "OVER_SERVICE_LIMIT",
        format!("the registrable number of {what} ({limit}) would be exceeded"),
    )
}

/// The encoding service's state behind one lock, and the configuration.
pub(crate) struct Service {
    shared: Shared,
    store: Mutex<Store>,
    /// Where the tasks of a `vms5://` preset register their content.
    vms: VmsStore,
}

impl Service {
    fn new(shared: Shared, vms: VmsStore) -> Self {
        let clock = Clock::start();
        let config = &shared.config;
        let store = Store {
            now: clock.started(),
            clock,
            max_tasks: config.max_tasks,
            every_task_fails: config.every_task_fails,
            board: TaskBoard::new(config.task_step, clock),
            catalog: catalog::Catalog::new(clock, config.max_presets, config.max_profiles),
            imports: imports::Imports::default(),
            account: account::Account::new(config.seed, clock.timestamp(clock.started())),
        };
        Self {
            store: Mutex::new(store),
            shared,
            vms,
        }
    }

    /// Applies every task event due by now (a content registered in video
    /// management included).
    pub(crate) fn catch_up(&self) {
        drop(self.lock());
    }

    /// Uploads (or replaces) an input file of `size` bytes.
    pub(crate) fn add_input_file(&self, path: &str, size: u64) {
        let mut store = self.lock();
        let at = store.timestamp_now();
        store.account.upload_input_file(path, size, at);
    }

    /// The service's state as of now: every task event due has been applied.
    fn lock(&self) -> MutexGuard<'_, Store> {
        // A handler that panicked cannot leave the state half-changed in a way
        // worse than refusing every later request, so keep serving.
        let mut store = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        let now = crate::calendar::instant_now();
        store.now = now;
        let Store { board, clock, .. } = &mut *store;
        let clock = *clock;
        board.advance(now, &mut |task, at| handoff::hand_over(&self.vms, &clock, task, at));
        store
    }
}

/// Everything the service holds, behind one lock: a task registration reads
/// the profiles and the input files and changes the tasks together.
struct Store {
    /// When the current request arrived.
    now: Instant,
    clock: Clock,
    max_tasks: usize,
    /// `SimConfig::every_task_fails`.
    every_task_fails: bool,
    board: TaskBoard,
    catalog: catalog::Catalog,
    imports: imports::Imports,
    account: account::Account,
}

impl Store {
    fn timestamp_now(&self) -> Option<Timestamp> {
        self.clock.timestamp(self.now)
    }

    /// Registers planned tasks, one transaction per batch, all or none:
    /// 403 `OVER_SERVICE_LIMIT` when the registrable task count would be exceeded.
    fn register_tasks(&mut self, batches: Vec<Vec<NewTask>>) -> Result<Vec<(i64, Vec<Task>)>, SimError> {
        let adding: usize = batches.iter().map(Vec::len).sum();
        if self.board.registrable_count() + adding > self.max_tasks {
            return Err(over_service_limit("tasks", self.max_tasks));
        }
        let every_task_fails = self.every_task_fails;
        Ok(batches
            .into_iter()
            .map(|mut batch| {
                batch.iter_mut().for_each(|task| task.fails |= every_task_fails);
                self.board.register(batch, self.now)
            })
            .collect())
    }
}
