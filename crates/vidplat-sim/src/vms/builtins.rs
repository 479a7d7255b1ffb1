//! What the API only reads: distribution sites, content forward policies,
//! streaming policies and playlists. The document gives no operation to
//! create them, so the simulator has a few built in, with fixed ids:
//!
//! - sites: the shared portal domain (`crate::PORTAL_DOMAIN`), and a
//!   dedicated domain (`videos.example.com`) with its SSL certificate and
//!   viewer limits;
//! - forward policies: `default` (the account default, no rules),
//!   `overseas-to-notice` (a viewer outside Japan is forwarded to the content
//!   named `overseas-notice`) and `overseas-image` (a viewer outside Japan gets an
//!   image instead);
//! - streaming policies: `default` (no rules, URLs valid 3600 s, subtitles in
//!   `ja`), `mobile-mp4` (a mobile viewer gets the MP4 stream set, 600 s, `en`)
//!   and `hls-first` (always the HLS stream set, 300 s);
//! - the playlist `all-contents`: every content, in registration order.
//!
//! Conditions read `COUNTRY` (the viewer's country), `DEVICE` (`PC` or
//! `MOBILE`, from the user agent) and `REFERER` with the operands `==` and `!=`;
//! a `then` item `FORMAT` picks the first stream set of that format.

use super::{canonical_id, PathParams};
use crate::SimError;
use axum::Json;
use serde_json::json;
use std::sync::LazyLock;
use vidplat_vms::types;

pub(super) const PORTAL_SITE_ID: &str = "517e0000-0000-4000-8000-000000000001";
pub(super) const DEDICATED_SITE_ID: &str = "517e0000-0000-4000-8000-000000000002";
pub(super) const DEFAULT_FORWARD_POLICY_ID: &str = "cf900000-0000-4000-8000-000000000001";
pub(super) const DEFAULT_STREAMING_POLICY_ID: &str = "5b000000-0000-4000-8000-000000000001";
/// The distribution network given to stream sets registered without one.
pub(super) const DEFAULT_DISTRIBUTION_ID: &str = "d1570000-0000-4000-8000-000000000001";
/// The country of a viewer the request does not place elsewhere (the document's
/// "home country", not named; the service is Japanese).
pub(super) const HOME_COUNTRY: &str = "JP";

/// The built-in playlists: (name, title, description). Their items are every content.
pub(super) const PLAYLISTS: &[(&str, &str, &str)] = &[(
    "all-contents",
    "All contents",
    "Every content of the account, in registration order.",
)];

const BUILT_AT: &str = "2025-01-01 00:00:00";

/// Built-in data from JSON literals (checked by this module's tests).
fn from_json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).unwrap_or_else(|error| panic!("built-in VMS data does not decode: {error}"))
}

pub(super) static SITES: LazyLock<Vec<types::Site>> = LazyLock::new(|| {
    from_json(json!([
        {
            "id": PORTAL_SITE_ID,
            "domain_names": [crate::PORTAL_DOMAIN],
            "propagation_status": "INSYNC",
            "ssl_certificate": null,
            "configurations": {
                "title": "Simulator portal",
                "description": "Pages on the shared portal domain.",
                "exposed_metadata": {"category": true, "labels": true, "description": true},
                "default_contents_per_page": 25,
                "default_contents_sort": "created_at|desc"
            },
            "status": "ACTIVE",
            "max_simultaneous_viewers": null,
            "access_denial_timeout": null,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        },
        {
            "id": DEDICATED_SITE_ID,
            "domain_names": ["videos.example.com"],
            "propagation_status": "INSYNC",
            "ssl_certificate": {
                "common_name": "videos.example.com",
                "fingerprint_sha1": "3f:1a:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01",
                "fingerprint_sha256": "9c:2b:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01",
                "serial_number": "0a1b2c3d4e5f",
                "not_before": BUILT_AT,
                "not_after": "2026-12-31 23:59:59",
                "imported_at": BUILT_AT
            },
            "configurations": {
                "title": "Example videos",
                "description": "A dedicated site domain.",
                "authentication": {"type": "NONE"},
                "content_scope": {"type": "ALL"}
            },
            "status": "ACTIVE",
            "max_simultaneous_viewers": 3,
            "access_denial_timeout": 600,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        }
    ]))
});

pub(super) static FORWARD_POLICIES: LazyLock<Vec<types::ForwardPolicy>> = LazyLock::new(|| {
    let outside_japan = json!([{"parameter": "COUNTRY", "operand": "!=", "value": HOME_COUNTRY}]);
    from_json(json!([
        {
            "id": DEFAULT_FORWARD_POLICY_ID,
            "name": "default",
            "description": "The account default: never forwards.",
            "rules": [],
            "is_default": true,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        },
        {
            "id": "cf900000-0000-4000-8000-000000000002",
            "name": "overseas-to-notice",
            "description": "Viewers outside Japan see the content overseas-notice.",
            "rules": [{"conditions": outside_japan, "forward_type": "VIDEO", "target_content_name": "overseas-notice"}],
            "is_default": false,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        },
        {
            "id": "cf900000-0000-4000-8000-000000000003",
            "name": "overseas-image",
            "description": "Viewers outside Japan see an image.",
            "rules": [{
                "conditions": outside_japan,
                "forward_type": "IMAGE",
                "target_image_url": "https://static.vidplat-sim.invalid/not-available-in-your-region.png"
            }],
            "is_default": false,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        }
    ]))
});

pub(super) static STREAMING_POLICIES: LazyLock<Vec<types::StreamingPolicy>> = LazyLock::new(|| {
    from_json(json!([
        {
            "id": DEFAULT_STREAMING_POLICY_ID,
            "name": "default",
            "description": "The account default: the first stream set.",
            "rules": [],
            "preferred_language": "ja",
            "url_lifetime": 3600,
            "is_default": true,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        },
        {
            "id": "5b000000-0000-4000-8000-000000000002",
            "name": "mobile-mp4",
            "description": "Mobile viewers get the MP4 stream set.",
            "rules": [{
                "conditions": [{"parameter": "DEVICE", "operand": "==", "value": "MOBILE"}],
                "then": [{"key": "FORMAT", "value": "MP4"}]
            }],
            "preferred_language": "en",
            "url_lifetime": 600,
            "is_default": false,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        },
        {
            "id": "5b000000-0000-4000-8000-000000000003",
            "name": "hls-first",
            "description": "Every viewer gets the HLS stream set.",
            "rules": [{"conditions": [], "then": [{"key": "FORMAT", "value": "HLS"}]}],
            "preferred_language": null,
            "url_lifetime": 300,
            "is_default": false,
            "created_at": BUILT_AT,
            "updated_at": BUILT_AT
        }
    ]))
});

/// Decodes the built-in data now, so that a mistake in it shows when the
/// simulator starts rather than in a request.
pub(super) fn load() {
    LazyLock::force(&SITES);
    LazyLock::force(&FORWARD_POLICIES);
    LazyLock::force(&STREAMING_POLICIES);
}

fn find<'a, T>(items: &'a [T], id: &str, id_of: impl Fn(&T) -> Option<&str>) -> Option<&'a T> {
    let id = canonical_id(id)?;
    items.iter().find(|item| id_of(item) == Some(id.as_str()))
}

pub(super) fn site(id: &str) -> Option<&'static types::Site> {
    find(&SITES, id, |site| site.id.as_deref())
}

pub(super) fn forward_policy(id: &str) -> Option<&'static types::ForwardPolicy> {
    find(&FORWARD_POLICIES, id, |policy| policy.id.as_deref())
}

pub(super) fn streaming_policy(id: &str) -> Option<&'static types::StreamingPolicy> {
    find(&STREAMING_POLICIES, id, |policy| policy.id.as_deref())
}

/// Whether a forward policy forwards to the content `name` (which then cannot be deleted).
pub(super) fn is_forward_target(name: &str) -> bool {
    FORWARD_POLICIES
        .iter()
        .flat_map(|policy| &policy.rules)
        .any(|rule| rule.target_content_name.as_deref() == Some(name))
}

pub(super) async fn list_sites() -> Json<types::SiteList> {
    Json(types::SiteList { data: SITES.clone() })
}

pub(super) async fn get_site(PathParams(id): PathParams<String>) -> Result<Json<types::Site>, SimError> {
    site(&id)
        .cloned()
        .map(Json)
        .ok_or_else(|| SimError::not_found(format!("site {id}")))
}

pub(super) async fn list_forward_policies() -> Json<types::ForwardPolicyList> {
    Json(types::ForwardPolicyList {
        data: FORWARD_POLICIES.clone(),
    })
}

pub(super) async fn get_forward_policy(
    PathParams(id): PathParams<String>,
) -> Result<Json<types::ForwardPolicy>, SimError> {
    forward_policy(&id)
        .cloned()
        .map(Json)
        .ok_or_else(|| SimError::not_found(format!("content forward policy {id}")))
}

pub(super) async fn list_streaming_policies() -> Json<types::StreamingPolicyList> {
    Json(types::StreamingPolicyList {
        data: STREAMING_POLICIES.clone(),
    })
}

pub(super) async fn get_streaming_policy(
    PathParams(id): PathParams<String>,
) -> Result<Json<types::StreamingPolicy>, SimError> {
    streaming_policy(&id)
        .cloned()
        .map(Json)
        .ok_or_else(|| SimError::not_found(format!("streaming policy {id}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_data_decodes_with_one_default_each() {
        assert_eq!(SITES.len(), 2);
        assert_eq!(
            FORWARD_POLICIES.iter().filter(|p| p.is_default == Some(true)).count(),
            1
        );
        assert_eq!(
            STREAMING_POLICIES.iter().filter(|p| p.is_default == Some(true)).count(),
            1
        );
        assert!(forward_policy(DEFAULT_FORWARD_POLICY_ID).is_some());
        assert!(streaming_policy(&DEFAULT_STREAMING_POLICY_ID.to_uppercase()).is_some());
        assert!(is_forward_target("overseas-notice"));
    }
}
