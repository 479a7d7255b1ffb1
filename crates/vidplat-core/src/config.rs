//! Configuration mistakes, found when a runtime or a client is built, and the
//! rules a base URL must follow.

use crate::redact::escape_controls;
use crate::table::Service;
use std::fmt;

/// A configuration mistake, reported by `build()` before any request.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// No base URL for a service that was asked for.
    MissingBaseUrl {
        /// The service.
        service: Service,
        /// The environment variable that would set it.
        variable: &'static str,
    },
    /// A base URL that does not parse.
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// A base URL that is neither `https` nor a loopback `http` address.
    InsecureBaseUrl {
        /// The URL as given.
        url: String,
    },
    /// A route override names an operation no service has.
    UnknownOperation {
        /// The service searched, when one was.
        service: Option<Service>,
        /// The name given.
        operation: String,
    },
    /// A route override's template is malformed or has other parameters than the operation.
    InvalidRoute {
        /// The operation.
        operation: String,
        /// What is wrong.
        reason: String,
    },
    /// Two route overrides for one operation.
    DuplicateRoute {
        /// The operation.
        operation: String,
    },
    /// The API key cannot be sent as a header value (it holds a control character, say).
    InvalidApiKey,
    /// The HTTP client could not be built.
    HttpClient(reqwest::Error),
    /// The TLS configuration could not be built (the platform's certificate verifier, say).
    Tls(String),
    /// A request the runtime would not send: it would leave the client's
    /// origin, go over plain http to a host that is not loopback, or fit no route.
    Refused(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::MissingBaseUrl { service, variable } => write!(
                f,
                "no base URL for the {service} service (set it on the builder or in {variable})"
            ),
            ConfigError::InvalidBaseUrl { url, source } => {
                write!(f, "base URL `{}` does not parse: {source}", escape_controls(url))
            }
            ConfigError::InsecureBaseUrl { url } => write!(
                f,
                "base URL `{}` is not https: the documents require HTTPS (plain http is accepted \
                 for loopback addresses, or with `allow_insecure_http`)",
                escape_controls(url)
            ),
            ConfigError::UnknownOperation {
                service: Some(service),
                operation,
            } => write!(
                f,
                "the {service} service has no operation `{}`",
                escape_controls(operation)
            ),
            ConfigError::UnknownOperation {
                service: None,
                operation,
            } => write!(
                f,
                "route override for unknown operation `{}`",
                escape_controls(operation)
            ),
            ConfigError::InvalidRoute { operation, reason } => {
                write!(f, "route for `{operation}`: {}", escape_controls(reason))
            }
            ConfigError::DuplicateRoute { operation } => {
                write!(f, "two route overrides for `{operation}` (give one)")
            }
            ConfigError::InvalidApiKey => f.write_str("the API key is not a valid HTTP header value"),
            ConfigError::HttpClient(error) => write!(f, "HTTP client: {error}"),
            ConfigError::Tls(why) => write!(f, "TLS configuration: {}", escape_controls(why)),
            ConfigError::Refused(why) => write!(f, "request not sent: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::InvalidBaseUrl { source, .. } => Some(source),
            ConfigError::HttpClient(error) => Some(error),
            _ => None,
        }
    }
}

/// Checks a service's base URL: it parses, and it is `https` unless its host
/// is a loopback address (`localhost`, `127.0.0.0/8`, `::1`: the simulator,
/// tests) or `allow_insecure_http` is set. Returns it without a trailing `/`.
pub fn check_base_url(url: &str, allow_insecure_http: bool) -> Result<String, ConfigError> {
    let parsed = reqwest::Url::parse(url).map_err(|source| ConfigError::InvalidBaseUrl {
        url: url.to_owned(),
        source,
    })?;
    if !is_secure_enough(&parsed, allow_insecure_http) {
        return Err(ConfigError::InsecureBaseUrl { url: url.to_owned() });
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// Whether a request may go to `url`: `https`, or `http` to a loopback host, or `http` by explicit consent.
pub(crate) fn is_secure_enough(url: &reqwest::Url, allow_insecure_http: bool) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => allow_insecure_http || is_loopback(url),
        _ => false,
    }
}

fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_or_loopback_or_consent() {
        for ok in [
            "https://api.example.jp/",
            "http://127.0.0.1:8080",
            "http://127.8.9.10",
            "http://localhost:3000/x",
            "http://[::1]:9",
        ] {
            assert!(check_base_url(ok, false).is_ok(), "{ok}");
        }
        for refused in [
            "http://api.example.jp",
            "http://10.0.0.1",
            "ftp://127.0.0.1",
            "http://localhost.evil.com",
        ] {
            let error = check_base_url(refused, false).unwrap_err();
            assert!(
                matches!(error, ConfigError::InsecureBaseUrl { .. }),
                "{refused}: {error}"
            );
        }
        assert!(check_base_url("http://api.example.jp", true).is_ok());
        assert!(check_base_url("ftp://api.example.jp", true).is_err());
        let error = check_base_url("not a url\n", false).unwrap_err();
        assert!(error.to_string().contains("not a url\\n"), "{error}");
        assert!(std::error::Error::source(&error).is_some());
        assert_eq!(check_base_url("https://h/base/", false).unwrap(), "https://h/base");
    }
}
