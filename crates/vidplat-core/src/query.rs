//! Query parameters sent the way their YAML declares them where progenitor
//! cannot: a list declared `style: form, explode: false` travels as one
//! comma-separated value (`type=VOD,LIVE`), while progenitor repeats the name
//! for every item (`type=VOD&type=LIVE`, the `explode: true` form). The
//! generator swaps this in for those parameters.

use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt::Display;

/// `name=a,b,c` for a list parameter declared `explode: false`; nothing at all
/// for an absent or empty list (an empty value would be a filter on "").
#[derive(Debug)]
pub struct CommaSeparated<'a, T> {
    name: &'a str,
    values: &'a [T],
}

impl<'a, T> CommaSeparated<'a, T> {
    /// The parameter `name` with the builder's (optional) list.
    pub fn new(name: &'a str, values: &'a Option<Vec<T>>) -> Self {
        Self {
            name,
            values: values.as_deref().unwrap_or_default(),
        }
    }
}

impl<T: Display> Serialize for CommaSeparated<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if !self.values.is_empty() {
            let joined = self
                .values
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",");
            map.serialize_entry(self.name, &joined)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(values: Option<Vec<&str>>) -> String {
        let values = values.map(|v| v.into_iter().map(String::from).collect::<Vec<_>>());
        // With the SDK's own TLS set-up: vidplat-core enables no default provider.
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::builder::tls_config().unwrap())
            .build()
            .unwrap();
        let request = client
            .get("https://example.invalid/v1/contents")
            .query(&CommaSeparated::new("type", &values))
            .query(&[("page", "1")])
            .build()
            .unwrap();
        request.url().query().unwrap_or_default().to_owned()
    }

    #[test]
    fn a_list_is_one_comma_separated_value_and_an_absent_or_empty_one_is_left_out() {
        assert_eq!(encoded(Some(vec!["VOD", "LIVE"])), "type=VOD%2CLIVE&page=1");
        assert_eq!(encoded(Some(vec!["PUBLIC"])), "type=PUBLIC&page=1");
        assert_eq!(encoded(Some(vec![])), "page=1");
        assert_eq!(encoded(None), "page=1");
    }
}
