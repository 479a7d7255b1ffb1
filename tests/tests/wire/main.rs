//! The wire-level suite: every operation against a local HTTP server on
//! 127.0.0.1, the documented error paths, bounds refused before sending,
//! transport faults, what no hostile server may achieve, and every operation
//! against Prism's spec-driven mock.
//!
//! One test binary, so the workspace links it once.

mod harness;

mod bounds;
mod coverage;
mod errors;
mod faults;
mod hostile;
mod ops_analytics;
mod ops_encoder;
mod ops_vms_catalog;
mod ops_vms_media;
mod prism;
mod setters;
