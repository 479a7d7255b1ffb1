//! Reading a generated struct from an object, for the `Deserialize` impls the
//! codegen writes in place of serde's derive.
//!
//! For every struct, serde's derive writes a member-name type with its own
//! `Deserialize` and three visitors, a sequence form no JSON body uses, and,
//! for a struct keeping unknown members (`#[serde(flatten)]`), a buffer of
//! every unknown member as serde's private `Content`: about 17 KB of code per
//! struct, the largest part of what the generated crates cost to compile. The
//! generated impls read an object the same way (a member given twice is
//! refused, a missing one is `None` for an `Option` and refused by name
//! otherwise, unknown ones are skipped or kept in `extra`) with the name
//! lookup and the reads shared here, once per deserializer.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use std::marker::PhantomData;

/// A member name read from an object.
#[derive(Debug)]
pub enum Member {
    /// The member at this index of the struct's list of names.
    Known(usize),
    /// A member the struct does not name, kept (`extra`).
    Unknown(String),
    /// A member the struct does not name, skipped.
    Skipped,
}

/// Reads a member name and finds it with `index_of` (a `match` over the
/// struct's names, which compiles to a search by length and bytes, where a
/// scan of a list compares every name in turn); an unknown one is kept when
/// `keep_unknown` (the struct has `extra`), else skipped.
#[derive(Debug, Clone, Copy)]
pub struct MemberName<F> {
    /// The index of a member name among the struct's, if it is one of them.
    pub index_of: F,
    /// Whether a member not among the struct's names is kept with its name.
    pub keep_unknown: bool,
}

impl<F: Fn(&str) -> Option<usize>> MemberName<F> {
    fn find(self, name: &str) -> Member {
        match (self.index_of)(name) {
            Some(index) => Member::Known(index),
            None if self.keep_unknown => Member::Unknown(name.to_owned()),
            None => Member::Skipped,
        }
    }
}

impl<'de, F: Fn(&str) -> Option<usize>> DeserializeSeed<'de> for MemberName<F> {
    type Value = Member;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Member, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, F: Fn(&str) -> Option<usize>> Visitor<'de> for MemberName<F> {
    type Value = Member;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
        Ok(self.find(name))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<Member, E> {
        Ok(match std::str::from_utf8(name) {
            Ok(name) => self.find(name),
            Err(_) if self.keep_unknown => Member::Unknown(String::from_utf8_lossy(name).into_owned()),
            Err(_) => Member::Skipped,
        })
    }
}

/// Reads the value of the member `name` into `slot`, refusing the member a
/// second time (serde's derive does the same).
pub fn read_once<'de, A, T>(map: &mut A, slot: &mut Option<T>, name: &'static str) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: de::Deserialize<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value of a member the object left out: an `Option` (or what reads
/// like one) is `None`, anything else is refused as missing, naming it.
pub fn missing<'de, T, E>(name: &'static str) -> Result<T, E>
where
    T: de::Deserialize<'de>,
    E: de::Error,
{
    T::deserialize(Missing {
        name,
        error: PhantomData,
    })
}

/// Reads the value of an unknown member into the struct's `extra`.
pub fn read_unknown<'de, A>(
    map: &mut A,
    extra: &mut serde_json::Map<String, serde_json::Value>,
    name: String,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
{
    extra.insert(name, map.next_value()?);
    Ok(())
}

/// Skips the value of a member the struct does not keep.
pub fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<de::IgnoredAny>().map(|_| ())
}

/// A deserializer with nothing to read: an option reads as `None`, anything
/// else is a missing member.
struct Missing<E> {
    name: &'static str,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.name))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// What the codegen writes for a struct with a required member, an
    /// optional one, one with a default and `extra`.
    #[derive(Debug, PartialEq)]
    struct Sample {
        id: i64,
        name: Option<String>,
        count: u32,
        extra: serde_json::Map<String, serde_json::Value>,
    }

    impl<'de> Deserialize<'de> for Sample {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Read;
            impl<'de> Visitor<'de> for Read {
                type Value = Sample;
                fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    formatter.write_str("struct Sample")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sample, A::Error> {
                    let (mut id, mut name, mut count) = (None, None, None);
                    let mut extra = serde_json::Map::new();
                    let names = MemberName {
                        index_of: |name: &str| match name {
                            "id" => Some(0),
                            "name" => Some(1),
                            "count" => Some(2),
                            _ => None,
                        },
                        keep_unknown: true,
                    };
                    while let Some(member) = map.next_key_seed(names)? {
                        match member {
                            Member::Known(0) => read_once(&mut map, &mut id, "id")?,
                            Member::Known(1) => read_once(&mut map, &mut name, "name")?,
                            Member::Known(2) => read_once(&mut map, &mut count, "count")?,
                            Member::Unknown(unknown) => read_unknown(&mut map, &mut extra, unknown)?,
                            _ => skip(&mut map)?,
                        }
                    }
                    Ok(Sample {
                        id: match id {
                            Some(value) => value,
                            None => missing("id")?,
                        },
                        name: match name {
                            Some(value) => value,
                            None => missing("name")?,
                        },
                        count: count.unwrap_or_default(),
                        extra,
                    })
                }
            }
            deserializer.deserialize_map(Read)
        }
    }

    #[test]
    fn an_object_reads_as_serdes_derive_reads_it() {
        let sample: Sample = serde_json::from_str(r#"{"name":null,"id":7,"new":[1]}"#).unwrap();
        assert_eq!(sample.id, 7);
        assert_eq!(sample.name, None);
        assert_eq!(sample.count, 0);
        assert_eq!(serde_json::Value::Object(sample.extra), serde_json::json!({"new": [1]}));
        // From a `Value` too (keys arrive owned), and with an escaped key (not borrowed).
        let sample: Sample = serde_json::from_value(serde_json::json!({"id": 1, "count": 3})).unwrap();
        assert_eq!((sample.id, sample.count), (1, 3));
        let sample: Sample = serde_json::from_str(r#"{"\u0069d":2}"#).unwrap();
        assert_eq!(sample.id, 2);
    }

    #[test]
    fn a_missing_required_member_a_repeated_one_and_a_wrong_shape_are_refused_in_serdes_words() {
        let error = |json: &str| serde_json::from_str::<Sample>(json).unwrap_err().to_string();
        assert_eq!(error(r#"{"name":"a"}"#), "missing field `id` at line 1 column 12");
        assert_eq!(error(r#"{"id":1,"id":2}"#), "duplicate field `id` at line 1 column 12");
        assert_eq!(
            error(r#"["a"]"#),
            "invalid type: sequence, expected struct Sample at line 1 column 0"
        );
        assert_eq!(
            error(r#"{"id":"x"}"#),
            "invalid type: string \"x\", expected i64 at line 1 column 9"
        );
    }
}
