//! The process-wide TLS default the SDK's feature choices call for.

/// Makes ring rustls's process-wide default crypto provider, unless the
/// program has installed one already. Idempotent; every client build calls it.
///
/// The SDK's own clients do not need it (they are configured with ring
/// directly), but the SDK turns on reqwest's `rustls-no-provider` feature, and
/// Cargo unifies features: in a program that also uses reqwest without a TLS
/// feature of its own, every other `reqwest::Client::new()` would then panic
/// for want of a default provider. A program that builds its own reqwest
/// client before any vidplat client calls this first.
pub fn install_default_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may install one meanwhile: either way a default is set.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
