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

/// rustls with the `ring` provider and the platform's certificate verifier
/// (what reqwest's `rustls` feature sets up, with aws-lc-rs as the provider).
/// ring is chosen for its build: aws-lc-sys compiles a large C library (43 s
/// of a 70 s clean build here), ring a few C and assembly files. Both are
/// maintained providers of rustls; the documents require only TLS.
pub fn tls_config() -> Result<rustls::ClientConfig, crate::config::ConfigError> {
    use rustls_platform_verifier::BuilderVerifierExt as _;
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| crate::config::ConfigError::Tls(e.to_string()))?
        .with_platform_verifier()
        .map_err(|e| crate::config::ConfigError::Tls(e.to_string()))?
        .with_no_client_auth())
}

/// The TLS set-up of a client whose origin is `https`, or not.
///
/// Over https: [`tls_config`], made once per process and shared by every
/// client built after (reading the platform's certificates took about 3 ms
/// here, once per service's client before). Over plain http no TLS
/// connection is ever made (redirects are not followed, no proxy is used):
/// a set-up that trusts no certificate, so that none is read from disk.
pub(crate) fn config_for(https: bool) -> Result<rustls::ClientConfig, crate::config::ConfigError> {
    static SHARED: std::sync::OnceLock<Result<rustls::ClientConfig, String>> = std::sync::OnceLock::new();
    if !https {
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        return Ok(rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| crate::config::ConfigError::Tls(e.to_string()))?
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth());
    }
    SHARED
        .get_or_init(|| tls_config().map_err(|e| e.to_string()))
        .clone()
        .map_err(crate::config::ConfigError::Tls)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tls_is_rustls_with_ring_whatever_reqwest_would_default_to() {
        let config = super::tls_config().unwrap();
        let ring = rustls::crypto::ring::default_provider();
        let suites = |p: &rustls::crypto::CryptoProvider| format!("{:?}", p.cipher_suites);
        assert_eq!(suites(config.crypto_provider()), suites(&ring));
        assert_eq!(
            format!("{:?}", config.crypto_provider().kx_groups),
            format!("{:?}", ring.kx_groups)
        );
        // TLS 1.3 and 1.2 suites, as reqwest's own rustls setup offers.
        assert!(config
            .crypto_provider()
            .cipher_suites
            .iter()
            .any(|s| s.tls13().is_some()));
        assert!(config
            .crypto_provider()
            .cipher_suites
            .iter()
            .any(|s| s.tls13().is_none()));
    }
}
