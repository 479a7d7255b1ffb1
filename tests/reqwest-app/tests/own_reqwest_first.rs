//! An application that builds its own reqwest client before any vidplat
//! client calls `vidplat::install_default_tls_provider()` first (README,
//! "An application that also uses reqwest").

#[test]
fn the_applications_own_reqwest_client_builds_before_any_vidplat_client() {
    vidplat::install_default_tls_provider();
    let _own = reqwest::Client::new();
    let _sdk = vidplat::Client::builder()
        .build()
        .expect("a client with no service configured");
}
