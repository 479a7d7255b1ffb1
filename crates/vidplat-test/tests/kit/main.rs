//! The kit's tests, one binary: mocks against the SDK's real pipeline, the
//! checks made when a rule is set up, tokio's paused time, record and replay
//! (against the simulator), and the example a user would write.

mod cassettes;
mod example_ingest;
mod mocks;
mod setup_checks;
#[cfg(feature = "sim")]
mod simulator;
mod time;
