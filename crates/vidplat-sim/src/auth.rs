//! API keys and their permissions. Every request but the basic real-time
//! analytics operation carries `Authorization: Bearer <key>`.

use crate::error::SimError;
use axum::http::HeaderMap;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A permission as the documents name it: `task read`, `content update`, …
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Permission(pub String);

impl Permission {
    /// The permission named `name`.
    pub fn new(name: &str) -> Self {
        Self(name.to_owned())
    }
}

impl From<&str> for Permission {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

pub(crate) struct Keys {
    /// Key → its permissions (`None`: every permission).
    keys: Mutex<HashMap<String, Option<BTreeSet<Permission>>>>,
    issued: AtomicU64,
    pub login_id: String,
}

impl Keys {
    pub(crate) fn new(demo_key: &str, login_id: &str) -> Self {
        let mut keys = HashMap::new();
        keys.insert(demo_key.to_owned(), None);
        Self {
            keys: Mutex::new(keys),
            issued: AtomicU64::new(0),
            login_id: login_id.to_owned(),
        }
    }

    pub(crate) fn issue(&self, permissions: BTreeSet<Permission>) -> String {
        let n = self.issued.fetch_add(1, Ordering::SeqCst) + 1;
        let key = format!("sim-key-{n:04}");
        self.keys
            .lock()
            .expect("keys lock")
            .insert(key.clone(), Some(permissions));
        key
    }

    /// `text` with every key the simulator issued replaced by `[redacted]`.
    pub(crate) fn redact<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let keys = self.keys.lock().expect("keys lock");
        let mut text = std::borrow::Cow::Borrowed(text);
        for key in keys.keys().filter(|key| !key.is_empty()) {
            if text.contains(key.as_str()) {
                text = std::borrow::Cow::Owned(text.replace(key.as_str(), vidplat_core::REDACTED));
            }
        }
        text
    }

    /// 401 without a key the simulator issued; 403 when the key lacks `permission`
    /// (`None`: the operation names no permission, any valid key will do).
    pub(crate) fn check(&self, headers: &HeaderMap, permission: Option<&str>) -> Result<(), SimError> {
        let key = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token)
            .ok_or_else(SimError::unauthorized)?;
        let keys = self.keys.lock().expect("keys lock");
        let granted = keys.get(key).ok_or_else(SimError::unauthorized)?;
        match (granted, permission) {
            (Some(set), Some(needed)) if !set.contains(&Permission::new(needed)) => Err(SimError::forbidden(needed)),
            _ => Ok(()),
        }
    }
}

/// The token of `Bearer <token>`. Authentication schemes are case-insensitive
/// (RFC 9110, 11.1), so `bearer` and `BEARER` are the same scheme; one or more
/// spaces separate it from the token.
fn bearer_token(credentials: &str) -> Option<&str> {
    let (scheme, token) = credentials.split_once(' ')?;
    let token = token.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("Bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn the_scheme_is_case_insensitive() {
        for credentials in ["Bearer k", "bearer k", "BEARER k", "bEaReR  k"] {
            assert_eq!(bearer_token(credentials), Some("k"), "{credentials}");
        }
        for credentials in ["Bearer", "Bearer ", "Basic k", "Bearerk", "Token k"] {
            assert_eq!(bearer_token(credentials), None, "{credentials}");
        }
    }
}
