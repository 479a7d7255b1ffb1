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

    /// 401 without a key the simulator issued; 403 when the key lacks `permission`
    /// (`None`: the operation names no permission, any valid key will do).
    pub(crate) fn check(&self, headers: &HeaderMap, permission: Option<&str>) -> Result<(), SimError> {
        let key = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(SimError::unauthorized)?;
        let keys = self.keys.lock().expect("keys lock");
        let granted = keys.get(key).ok_or_else(SimError::unauthorized)?;
        match (granted, permission) {
            (Some(set), Some(needed)) if !set.contains(&Permission::new(needed)) => Err(SimError::forbidden(needed)),
            _ => Ok(()),
        }
    }
}
