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

/// A plain reqwest client, for requests the facade would not send. The
/// workspace builds reqwest without a TLS provider of its own (as vidplat's
/// users do), so the process's default provider is installed first.
pub fn raw_http() -> reqwest::Client {
    vidplat::install_default_tls_provider();
    reqwest::Client::new()
}
