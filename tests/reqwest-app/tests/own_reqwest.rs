//! The application's own `reqwest::Client::new()` works beside vidplat.
//!
//! vidplat configures its own TLS (rustls with ring), for which it turns on
//! reqwest's `rustls-no-provider`; without a process-wide default provider,
//! that feature makes every other `reqwest::Client::new()` of the program
//! panic. One test per process: the default provider is process-wide state.

#[test]
fn the_applications_own_reqwest_client_builds_after_a_vidplat_client() {
    let _sdk = vidplat::Client::builder()
        .build()
        .expect("a client with no service configured");
    let _own = reqwest::Client::new();
}
