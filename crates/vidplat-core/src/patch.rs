//! A member of an update body that the documents mark nullable has three
//! states on the wire: left out, a value, or `null` (the server clears it).
//! `Option` has two, so an update could never clear `publish_end` or unset
//! `primary_poster_id`. What the server does with a member left out (keeps
//! it, or resets it to what registration stores) is not shown in the
//! documents (`GAPS.md`, under each `update_*` operation): to keep a member,
//! send it, as `modify_*` and `builder_from` do.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What an update does to one nullable member.
///
/// ```
/// use vidplat_core::Patch;
/// let keep: Patch<u32> = Patch::Keep; // left out of the body
/// let set = Patch::Set(3); // "member": 3
/// let clear: Patch<u32> = Patch::Clear; // "member": null
/// assert_eq!(serde_json::to_string(&set).unwrap(), "3");
/// assert_eq!(serde_json::to_string(&clear).unwrap(), "null");
/// assert!(keep.is_keep());
/// ```
///
/// The generated setters fill it: `.primary_poster_id(id)` sets,
/// `.clear_primary_poster_id()` clears, and a member no setter touched is
/// left out of the body ([`Patch::Keep`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Patch<T> {
    /// Left out of the body. Whether the server then keeps the member's
    /// value or resets it is not shown in the documents (`GAPS.md`); a body
    /// started from what was read (`builder_from`) sends the value instead.
    #[default]
    Keep,
    /// Sent as this value.
    Set(T),
    /// Sent as `null`: the server clears the member.
    Clear,
}

impl<T> Patch<T> {
    /// Whether the member is left out (the generated bodies skip it when serialising).
    pub fn is_keep(&self) -> bool {
        matches!(self, Patch::Keep)
    }

    /// The value sent, if any.
    pub fn as_set(&self) -> Option<&T> {
        self.as_ref().into_change().flatten()
    }

    /// `None` when kept; `Some(None)` when cleared; `Some(Some(value))` when set.
    pub fn into_change(self) -> Option<Option<T>> {
        match self {
            Patch::Keep => None,
            Patch::Set(value) => Some(Some(value)),
            Patch::Clear => Some(None),
        }
    }

    /// The same change with the value mapped.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Patch<U> {
        match self {
            Patch::Keep => Patch::Keep,
            Patch::Set(value) => Patch::Set(f(value)),
            Patch::Clear => Patch::Clear,
        }
    }

    /// The same change, borrowing the value.
    pub fn as_ref(&self) -> Patch<&T> {
        match self {
            Patch::Keep => Patch::Keep,
            Patch::Set(value) => Patch::Set(value),
            Patch::Clear => Patch::Clear,
        }
    }

    /// The same change with the value mapped by a check that may refuse it.
    pub fn try_map<U, E>(self, f: impl FnOnce(T) -> Result<U, E>) -> Result<Patch<U>, E> {
        Ok(match self {
            Patch::Keep => Patch::Keep,
            Patch::Set(value) => Patch::Set(f(value)?),
            Patch::Clear => Patch::Clear,
        })
    }

    /// Applies the change to `current`: what the server does with it.
    pub fn apply_to(self, current: &mut Option<T>) {
        if let Some(change) = self.into_change() {
            *current = change;
        }
    }
}

/// A value sets; `None` leaves the member as it is (as every optional setter
/// does). Clearing is said with [`Patch::Clear`] or the `clear_` setter.
impl<T> From<Option<T>> for Patch<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Patch::Keep, Patch::Set)
    }
}

impl<T: Serialize> Serialize for Patch<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Patch::Set(value) => value.serialize(serializer),
            // A kept member is skipped by the body's `skip_serializing_if`; written
            // on its own (outside a body) there is nothing else to say but null.
            Patch::Keep | Patch::Clear => serializer.serialize_none(),
        }
    }
}

/// `null` reads as [`Patch::Clear`]; a member that is absent is [`Patch::Keep`]
/// through the body's `#[serde(default)]`.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(deserializer).map(|value| value.map_or(Patch::Clear, Patch::Set))
    }
}

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Patch<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Option<T> as schemars::JsonSchema>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<T> as schemars::JsonSchema>::json_schema(generator)
    }

    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Body {
        #[serde(default, skip_serializing_if = "Patch::is_keep")]
        end: Patch<u32>,
    }

    #[test]
    fn three_states_on_the_wire_and_back() {
        for (patch, wire) in [
            (Patch::Keep, "{}"),
            (Patch::Set(7), r#"{"end":7}"#),
            (Patch::Clear, r#"{"end":null}"#),
        ] {
            let body = Body { end: patch };
            assert_eq!(serde_json::to_string(&body).unwrap(), wire);
            assert_eq!(serde_json::from_str::<Body>(wire).unwrap(), body);
        }
    }

    #[test]
    fn applying_a_patch_is_what_the_server_does() {
        let mut current = Some(1);
        Patch::Keep.apply_to(&mut current);
        assert_eq!(current, Some(1));
        Patch::Set(2).apply_to(&mut current);
        assert_eq!(current, Some(2));
        Patch::Clear.apply_to(&mut current);
        assert_eq!(current, None);
        assert_eq!(Patch::from(None::<u8>), Patch::Keep);
        assert_eq!(Patch::Set(2).as_set(), Some(&2));
        assert_eq!(Patch::<u8>::Clear.as_set(), None);
        assert_eq!(Patch::<u8>::Keep.as_set(), None);
        assert_eq!(Patch::Set(2).map(|v| v + 1), Patch::Set(3));
        assert_eq!(Patch::<u8>::Clear.map(|v| v + 1), Patch::Clear);
        assert_eq!(Patch::<u8>::Keep.map(|v| v + 1), Patch::Keep);
        assert_eq!(
            Patch::Set(2).as_ref().try_map(|v| Ok::<_, ()>(v * 2)),
            Ok(Patch::Set(4))
        );
        assert_eq!(Patch::Set(2).try_map(|_| Err::<u8, _>("refused")), Err("refused"));
        assert_eq!(
            Patch::<u8>::Clear.try_map(|_| Err::<u8, _>("refused")),
            Ok(Patch::Clear)
        );
    }
}
