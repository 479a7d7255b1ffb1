//! Configuration mistakes, found when a runtime or a client is built, and the
//! rules a base URL must follow.

use crate::redact::{escape_controls, without_credentials};
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
    /// A base URL that cannot be a base: it carries credentials (the services
    /// take a bearer key, never a user and password), a query or a fragment
    /// (every call would be sent to the base path).
    UnusableBaseUrl {
        /// The URL as given, credentials removed.
        url: String,
        /// What makes it unusable.
        reason: &'static str,
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
            ConfigError::UnusableBaseUrl { url, reason } => {
                write!(f, "base URL `{}` {reason}", escape_controls(url))
            }
            ConfigError::UnknownOperation { service, operation } => {
                let operation = escape_controls(operation);
                match service {
                    Some(service) => write!(f, "the {service} service has no operation `{operation}`"),
                    None => write!(f, "route override for unknown operation `{operation}`"),
                }
            }
            ConfigError::InvalidRoute { operation, reason } => {
                write!(f, "route for `{operation}`: {}", escape_controls(reason))
            }
            ConfigError::DuplicateRoute { operation } => {
                write!(f, "two route overrides for `{operation}` (give one)")
            }
            ConfigError::InvalidApiKey => f.write_str("the API key is not a valid HTTP header value"),
            ConfigError::HttpClient(error) => write!(f, "HTTP client: {error}"),
            ConfigError::Tls(why) => write!(f, "TLS configuration: {}", escape_controls(why)),
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

/// A service's base URL, checked once when a client is built: it parses, it
/// is `https` unless its host is a loopback address (`localhost`,
/// `127.0.0.0/8`, `::1`: the simulator, tests) or `allow_insecure_http` is
/// set, and it carries no credentials, query or fragment. Kept without a
/// trailing `/`; every request's URL is this followed by the operation's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    url: String,
}

impl BaseUrl {
    /// Checks `url` (see [`BaseUrl`]).
    pub fn parse(url: &str, allow_insecure_http: bool) -> Result<Self, ConfigError> {
        let shown = || without_credentials(url).into_owned();
        let parsed = reqwest::Url::parse(url).map_err(|source| ConfigError::InvalidBaseUrl { url: shown(), source })?;
        let unusable = |reason| ConfigError::UnusableBaseUrl { url: shown(), reason };
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(unusable(
                "carries a user or password: the services take the API key as a bearer token, never in the URL",
            ));
        }
        if parsed.query().is_some() {
            return Err(unusable("has a query (`?`): every call would be sent to the base path"));
        }
        if parsed.fragment().is_some() {
            return Err(unusable(
                "has a fragment (`#`): every call would be sent to the base path",
            ));
        }
        if parsed.cannot_be_a_base() || parsed.host().is_none() {
            return Err(unusable("has no host"));
        }
        if !is_secure_enough(&parsed, allow_insecure_http) {
            return Err(ConfigError::InsecureBaseUrl { url: shown() });
        }
        Ok(Self {
            url: parsed.as_str().trim_end_matches('/').to_owned(),
        })
    }

    /// The URL, without a trailing `/`.
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Whether it is `https`.
    pub fn is_https(&self) -> bool {
        // The parser writes the scheme in lower case.
        self.url.starts_with("https:")
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

/// Whether a request may go to `url`: `https`, or `http` to a loopback host, or `http` by explicit consent.
pub fn is_secure_enough(url: &reqwest::Url, allow_insecure_http: bool) -> bool {
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

    fn check_base_url(url: &str, allow_insecure_http: bool) -> Result<String, ConfigError> {
        BaseUrl::parse(url, allow_insecure_http).map(|base| base.as_str().to_owned())
    }

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
        let https = |url| BaseUrl::parse(url, true).unwrap().is_https();
        assert!(https("HTTPS://h") && https("https://h"));
        assert!(!https("http://localhost") && !https("HTTP://h"));
    }

    #[test]
    fn credentials_queries_and_fragments_are_refused_and_never_shown() {
        for (url, reason) in [
            ("https://user:hunter2@h.example/base", "user or password"),
            ("https://user@h.example/base", "user or password"),
            ("https://h.example/base?x=1", "query"),
            ("https://h.example/base#top", "fragment"),
        ] {
            let error = check_base_url(url, false).unwrap_err();
            assert!(matches!(error, ConfigError::UnusableBaseUrl { .. }), "{url}: {error}");
            let shown = error.to_string();
            assert!(shown.contains(reason), "{shown}");
            assert!(!shown.contains("hunter2"), "{shown}");
        }
        // Not even a URL that fails to parse shows its password.
        let error = check_base_url("https://user:hunter2@[bad/", false).unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
        let error = check_base_url("http://user:hunter2@api.example.jp", false).unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
    }
}
