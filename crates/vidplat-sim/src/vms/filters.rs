//! The content list's `filters` parameter.
//!
//! `filters` (note 2; keys and modifiers not shown) is a JSON object whose keys
//! are members of a listed content (`name`, `title`, `description`, `type`,
//! `status`, `encode_status`, `category_id`, `duration`, …), matched exactly, or
//! followed by `__` and a modifier: `ne`, `gt`, `gte`, `lt`, `lte`, `contains`
//! (case-insensitive substring) or `in` (an array of values). Keys combine with
//! AND; two keys of one member (`duration__gte` and `duration`) cannot combine.

use super::contains_ignoring_case;
use crate::SimError;
use serde_json::Value;

const FILTER_MEMBERS: &[&str] = &[
    "name",
    "title",
    "description",
    "type",
    "status",
    "encode_status",
    "category_id",
    "duration",
    "encoder_transaction_id",
    "playback_count",
    "poster_slideshow_interval",
    "forward_policy_id",
    "streaming_policy_id",
    "primary_poster_id",
    "publish_start",
    "publish_end",
    "created_at",
    "updated_at",
];

#[derive(Clone, Copy, PartialEq)]
enum Modifier {
    Exact,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    Contains,
    In,
}

pub(super) struct Filter {
    member: String,
    modifier: Modifier,
    value: Value,
}

pub(super) fn parse_filters(raw: &str) -> Result<Vec<Filter>, SimError> {
    let object = match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(object)) => object,
        _ => return Err(SimError::invalid("filters must be a JSON object")),
    };
    let mut filters: Vec<Filter> = Vec::new();
    for (key, value) in object {
        let (member, modifier) = match key.split_once("__") {
            None => (key.as_str(), Modifier::Exact),
            Some((member, modifier)) => (
                member,
                match modifier {
                    "ne" => Modifier::Ne,
                    "gt" => Modifier::Gt,
                    "gte" => Modifier::Gte,
                    "lt" => Modifier::Lt,
                    "lte" => Modifier::Lte,
                    "contains" => Modifier::Contains,
                    "in" => Modifier::In,
                    other => return Err(SimError::invalid(format!("unknown filter modifier `{other}`"))),
                },
            ),
        };
        if !FILTER_MEMBERS.contains(&member) {
            return Err(SimError::invalid(format!(
                "cannot filter on `{member}`; members: {}",
                FILTER_MEMBERS.join(", ")
            )));
        }
        if filters.iter().any(|filter| filter.member == member) {
            return Err(SimError::invalid(format!(
                "filters on `{member}` differ only by modifier and cannot be combined"
            )));
        }
        if modifier == Modifier::In && !value.is_array() {
            return Err(SimError::invalid(format!("`{key}` takes an array")));
        }
        filters.push(Filter {
            member: member.to_owned(),
            modifier,
            value,
        });
    }
    Ok(filters)
}

impl Filter {
    pub(super) fn matches(&self, content: &Value) -> bool {
        let actual = content.get(&self.member).unwrap_or(&Value::Null);
        let ordering = || match (actual, &self.value) {
            (Value::Number(a), Value::Number(b)) => a.as_f64().zip(b.as_f64()).and_then(|(a, b)| a.partial_cmp(&b)),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            _ => None,
        };
        let equal = |expected: &Value| match (actual, expected) {
            (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
            _ => actual == expected,
        };
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self.modifier {
            Modifier::Exact => equal(&self.value),
            Modifier::Ne => !equal(&self.value),
            Modifier::Gt => ordering() == Some(Greater),
            Modifier::Gte => matches!(ordering(), Some(Greater | Equal)),
            Modifier::Lt => ordering() == Some(Less),
            Modifier::Lte => matches!(ordering(), Some(Less | Equal)),
            Modifier::Contains => self
                .value
                .as_str()
                .is_some_and(|needle| contains_ignoring_case(actual.as_str(), needle)),
            Modifier::In => self.value.as_array().is_some_and(|values| values.iter().any(equal)),
        }
    }
}
