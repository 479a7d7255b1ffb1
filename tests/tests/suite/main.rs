//! The SDK's integration suite, one test binary so that the workspace links
//! the generated clients once:
//!
//! - the wire suite: every operation against a local HTTP server on
//!   127.0.0.1, the documented error paths, bounds refused before sending,
//!   transport faults, what no hostile server may achieve, and every
//!   operation against Prism's spec-driven mock;
//! - the generated clients: every request byte for byte and the API surface
//!   (insta snapshots in `tests/tests/snapshots`), responses read tolerantly,
//!   the YAML's own invariants;
//! - the facade: configuration, paginators, waiters, large lists, the
//!   analytics quota in one process and shared through Redis.

mod harness;

mod bounds;
mod cli_confirm;
mod cli_dry_run;
mod coverage;
mod doc_claims;
mod errors;
mod faults;
mod from_args;
mod hostile;
mod observability;
mod ops_analytics;
mod ops_encoder;
mod ops_vms_catalog;
mod ops_vms_media;
mod prism;
mod setters;
mod watch;

mod generated_requests;
mod generated_surface;
mod response_tolerance;
mod spec_invariants;

mod analytics_quota;
mod facade_config;
mod facade_wire;
mod large_lists;
mod pagination;
mod redis_quota;
mod waiters;

/// Runs `assert` with insta reading and writing `tests/tests/snapshots`
/// under the snapshot's own name (the files predate this binary).
pub(crate) fn in_snapshots(assert: impl FnOnce()) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(assert);
}
