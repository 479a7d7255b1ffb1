//! What a generated builder's setters accept: plain values, the ids responses
//! carry, and builders of nested bodies; and how they refuse a value.
//!
//! A setter for a member of type `T` takes any [`IntoValue<T>`]; a setter for
//! an optional member takes any [`IntoOptional<T>`]. So `.name("x")` works for
//! an optional member with a rule, `.task_id(task.id)` passes the `Option<i64>`
//! a response carries straight to the next call, and `.streams([builder])`
//! takes builders. A value that breaks a rule is not sent: the request fails
//! with a [`Refusal`] naming the member's path (`streams[0].video.height`).
//! The path is built as the value moves outwards, member by member, never
//! read back from an error message.

use std::borrow::Cow;
use std::fmt;
use std::num::NonZeroU64;

/// A value a setter refused: where (the member's whole path) and why (the rule).
///
/// Typed from the setter that refused it to `vidplat::Error::InvalidInput`:
/// each enclosing builder adds its member's name in front ([`Refusal::at`]).
/// A nested body's builder refused for several members gives one `Refusal`
/// that carries the others along ([`Refusal::into_each`]), so that every one
/// is reported, not the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// `streams[0].video.height`; empty for the value itself.
    path: Cow<'static, str>,
    rule: Cow<'static, str>,
    /// The members of the same value refused with this one (none of them carries others).
    others: Vec<Refusal>,
}

impl Refusal {
    /// The value itself breaks `rule` (its member's name is added by whoever holds it).
    pub fn new(rule: impl Into<Cow<'static, str>>) -> Self {
        Self {
            path: Cow::Borrowed(""),
            rule: rule.into(),
            others: Vec::new(),
        }
    }

    /// The required `member` was never given. Allocates nothing: every
    /// builder starts with one for each required member.
    pub const fn missing(member: &'static str) -> Self {
        Self {
            path: Cow::Borrowed(member),
            rule: Cow::Borrowed("is required"),
            others: Vec::new(),
        }
    }

    /// The same refusal, seen from the value that holds it as `member`
    /// (`streams[0]` and `video.height` make `streams[0].video.height`).
    #[must_use]
    pub fn at(mut self, member: &str) -> Self {
        let member = member.strip_prefix("r#").unwrap_or(member);
        self.path = Cow::Owned(inside(member, &self.path));
        for other in &mut self.others {
            other.path = Cow::Owned(inside(member, &other.path));
        }
        self
    }

    /// This refusal and every other it carries, one member each.
    pub fn into_each(mut self) -> impl Iterator<Item = Refusal> {
        let others = std::mem::take(&mut self.others);
        std::iter::once(self).chain(others)
    }

    /// The refused member's whole path (empty when the value itself was refused).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The rule the value breaks ("must be at most 99 (maximum)", "is required").
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// `(path, rule)`, owned.
    pub fn into_parts(self) -> (String, String) {
        (self.path.into_owned(), self.rule.into_owned())
    }
}

/// `path` seen from the value holding it as `member`.
fn inside(member: &str, path: &str) -> String {
    match (path.is_empty(), path.starts_with('[')) {
        (true, _) => member.to_owned(),
        (false, true) => format!("{member}{path}"),
        (false, false) => format!("{member}.{path}"),
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.rule)?;
        } else {
            write!(f, "`{}` {}", crate::redact::escape_controls(&self.path), self.rule)?;
        }
        for other in &self.others {
            write!(f, "; {other}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Refusal {}

/// Every refusal of one request or one set of arguments, each by its
/// member's whole path, in the order the members are declared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refusals(Vec<Refusal>);

impl Refusals {
    /// Each refusal.
    pub fn iter(&self) -> impl Iterator<Item = &Refusal> {
        self.0.iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The refusals, owned.
    pub fn into_vec(self) -> Vec<Refusal> {
        self.0
    }

    /// Adds `refusal`, and each other refusal it carries.
    pub fn push(&mut self, refusal: Refusal) {
        self.0.extend(refusal.into_each());
    }

    /// Adds a builder's own refusal of `member` (a required member left
    /// unset, a value a setter refused), unless an argument of that member
    /// was already refused.
    #[doc(hidden)]
    pub fn __held<T>(&mut self, member: &str, held: &Result<T, Refusal>) {
        let Err(refusal) = held else { return };
        let named = |r: &Refusal| {
            let path = r.path();
            path == member
                || path
                    .strip_prefix(member)
                    .is_some_and(|rest| rest.starts_with(['.', '[']))
        };
        if !self.0.iter().any(named) {
            self.push(refusal.clone());
        }
    }

    /// `value` when nothing was refused.
    pub fn or<T>(self, value: T) -> Result<T, Refusals> {
        self.is_empty().then_some(value).ok_or(self)
    }
}

impl fmt::Display for Refusals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, refusal) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str("; ")?;
            }
            refusal.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for Refusals {}

impl From<Refusal> for Refusals {
    fn from(refusal: Refusal) -> Self {
        Refusals(refusal.into_each().collect())
    }
}

impl IntoIterator for Refusals {
    type Item = Refusal;
    type IntoIter = std::vec::IntoIter<Refusal>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A value a setter of a `T` member accepts.
#[diagnostic::on_unimplemented(
    message = "a setter of a `{T}` member does not take a `{Self}`",
    label = "not a `{T}`, nor text, a number or an id it can be made from",
    note = "pass a `{T}`, a reference to one, its builder, or (for text, ids and numbers) a `&str`, `String`, integer or the `Option` a response carries"
)]
pub trait IntoValue<T> {
    /// The value, or why it breaks `T`'s rules.
    fn into_value(self) -> Result<T, Refusal>;
}

/// A value a setter of an optional `T` member accepts (`None` leaves it unset).
#[diagnostic::on_unimplemented(
    message = "a setter of an optional `{T}` member does not take a `{Self}`",
    label = "not a `{T}`, nor text, a number or an id it can be made from",
    note = "pass a `{T}`, a reference to one, its builder, `None`, or (for text, ids and numbers) a `&str`, `String`, integer or the `Option` a response carries"
)]
pub trait IntoOptional<T> {
    /// The value (or none), or why it breaks `T`'s rules.
    fn into_optional(self) -> Result<Option<T>, Refusal>;
}

impl<T> IntoValue<T> for T {
    fn into_value(self) -> Result<T, Refusal> {
        Ok(self)
    }
}

impl<T> IntoOptional<T> for T {
    fn into_optional(self) -> Result<Option<T>, Refusal> {
        Ok(Some(self))
    }
}

impl<T> IntoOptional<T> for Option<T> {
    fn into_optional(self) -> Result<Option<T>, Refusal> {
        Ok(self)
    }
}

/// A type a setter builds from text: a constrained string, an enumeration, a
/// timestamp. One small impl per type (generated for the generated types);
/// the conversions from `&str`, `String` and a response's `Option<String>`
/// follow for all of them from the impls below.
pub trait FromText: Sized {
    /// The value `text` stands for, or why it breaks the type's rules.
    fn from_text(text: &str) -> Result<Self, Refusal>;
}

/// Implements both traits, for every `T: FromText`, for a text type whose
/// value `$text` reads as an `Option<&str>` (`None`: no value was given).
macro_rules! from_text {
    ($($from:ty => |$value:ident| $text:expr),* $(,)?) => {$(
        impl<T: FromText> IntoValue<T> for $from {
            fn into_value(self) -> Result<T, Refusal> {
                let $value = self;
                T::from_text($text.ok_or_else(|| Refusal::new(MISSING))?)
            }
        }

        impl<T: FromText> IntoOptional<T> for $from {
            fn into_optional(self) -> Result<Option<T>, Refusal> {
                let $value = self;
                $text.map(T::from_text).transpose()
            }
        }
    )*};
}

from_text!(
    &str => |text| Some(text),
    String => |text| Some(text.as_str()),
    &String => |text| Some(text.as_str()),
    Option<String> => |text| text.as_deref(),
    &Option<String> => |text| text.as_deref(),
);

/// A missing value where one is required (a response's `None` id passed on).
pub const MISSING: &str = "is required, and the value given is None";

/// Implements both traits for conversions `$from => $to`, each a function
/// from `$from` to `Result<$to, Refusal>`, with their `Option` and borrowed
/// forms: `None` is missing for a required member and unset for an optional
/// one, and `&Option<_>` passes a borrowed response member on as it is.
/// Each function is `#[inline]`: compiled where a setter uses it, not in the
/// generated crate (see ARCHITECTURE.md).
#[macro_export]
#[doc(hidden)]
macro_rules! into_value {
    ($to:ty: $($from:ty => $convert:expr),* $(,)?) => {
        $crate::into_value!(@same $to);
        $(
            impl $crate::IntoValue<$to> for $from {
                #[inline]
                fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                    let convert: fn($from) -> ::std::result::Result<$to, $crate::Refusal> = $convert;
                    convert(self)
                }
            }
            impl $crate::IntoOptional<$to> for $from {
                #[inline]
                fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                    $crate::IntoValue::<$to>::into_value(self).map(::std::option::Option::Some)
                }
            }
            $crate::into_value!(@option $to, $from);
        )*
    };
    // A body's builder: the two conversions a setter needs, nothing more
    // (one pair per body type keeps the generated crates quick to compile).
    (@builder $to:ty: $from:ty) => {
        impl $crate::IntoValue<$to> for $from {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                <$to>::try_from(self)
            }
        }
        impl $crate::IntoOptional<$to> for $from {
            #[inline]
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                <$to>::try_from(self).map(::std::option::Option::Some)
            }
        }
    };
    (@same $to:ty) => {
        impl $crate::IntoValue<$to> for &$to {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                ::std::result::Result::Ok(::std::clone::Clone::clone(self))
            }
        }
        impl $crate::IntoOptional<$to> for &$to {
            #[inline]
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                ::std::result::Result::Ok(::std::option::Option::Some(::std::clone::Clone::clone(self)))
            }
        }
        impl $crate::IntoValue<$to> for ::std::option::Option<$to> {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                self.ok_or_else(|| $crate::Refusal::new($crate::MISSING))
            }
        }
        impl $crate::IntoValue<$to> for &::std::option::Option<$to> {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                ::std::clone::Clone::clone(self).ok_or_else(|| $crate::Refusal::new($crate::MISSING))
            }
        }
        impl $crate::IntoOptional<$to> for &::std::option::Option<$to> {
            #[inline]
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                ::std::result::Result::Ok(::std::clone::Clone::clone(self))
            }
        }
    };
    (@option $to:ty, $from:ty) => {
        impl $crate::IntoValue<$to> for ::std::option::Option<$from> {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                self.ok_or_else(|| $crate::Refusal::new($crate::MISSING)).and_then($crate::IntoValue::<$to>::into_value)
            }
        }
        impl $crate::IntoOptional<$to> for ::std::option::Option<$from> {
            #[inline]
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                self.map($crate::IntoValue::<$to>::into_value).transpose()
            }
        }
        impl $crate::IntoValue<$to> for &::std::option::Option<$from> {
            #[inline]
            fn into_value(self) -> ::std::result::Result<$to, $crate::Refusal> {
                $crate::IntoValue::<$to>::into_value(::std::clone::Clone::clone(self))
            }
        }
        impl $crate::IntoOptional<$to> for &::std::option::Option<$from> {
            #[inline]
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, $crate::Refusal> {
                $crate::IntoOptional::<$to>::into_optional(::std::clone::Clone::clone(self))
            }
        }
    };
}

fn positive(value: Option<u64>) -> Result<NonZeroU64, Refusal> {
    value
        .and_then(NonZeroU64::new)
        .ok_or_else(|| Refusal::new("must be at least 1 (minimum)"))
}

fn within_i64(value: Option<i64>) -> Result<i64, Refusal> {
    value.ok_or_else(|| Refusal::new("must be at most 9223372036854775807"))
}

into_value!(NonZeroU64:
    u64 => |v| positive(Some(v)),
    u32 => |v| positive(Some(v.into())),
    usize => |v| positive(u64::try_from(v).ok()),
    i64 => |v| positive(u64::try_from(v).ok()),
    i32 => |v| positive(u64::try_from(v).ok()),
    &u64 => |v| positive(Some(*v)),
    &i64 => |v| positive(u64::try_from(*v).ok()),
);

into_value!(i64:
    i32 => |v| Ok(v.into()),
    u32 => |v| Ok(v.into()),
    u64 => |v| within_i64(i64::try_from(v).ok()),
    usize => |v| within_i64(i64::try_from(v).ok()),
    NonZeroU64 => |v| within_i64(i64::try_from(v.get()).ok()),
);

into_value!(String:
    &str => |v| Ok(v.to_owned()),
    Box<str> => |v| Ok(v.into()),
    std::borrow::Cow<'_, str> => |v| Ok(v.into_owned()),
);

into_value!(bool:);
into_value!(f64: i32 => |v| Ok(v.into()), f32 => |v| Ok(v.into()));

// Members the documents leave untyped (`serde_json::Value`) take plain values too.
into_value!(serde_json::Value:
    bool => |v| Ok(v.into()),
    i64 => |v| Ok(v.into()),
    &str => |v| Ok(v.into()),
    String => |v| Ok(v.into()),
);

fn uuid_from(text: &str) -> Result<uuid::Uuid, Refusal> {
    text.parse().map_err(|e| Refusal::new(format!("is not a UUID ({e})")))
}

into_value!(uuid::Uuid:
    &str => uuid_from,
    String => |v| uuid_from(&v),
    &String => |v| uuid_from(v),
);

/// Every refused member of a body, in the builder's order, as one refusal
/// carrying the others (its `TryFrom` gathers them once one is refused).
pub fn refused_members(members: &[Option<&Refusal>]) -> Refusal {
    // Never empty: the builder calls this only when a member was refused.
    carrying_the_rest(members.iter().flatten().map(|member| (*member).clone()))
        .unwrap_or_else(|| Refusal::new("a member was refused"))
}

/// Converts each element of an array member; every element refused is
/// named by its index.
pub fn array_of<T, V: IntoValue<T>>(member: &str, values: impl IntoIterator<Item = V>) -> Result<Vec<T>, Refusal> {
    let mut items = Vec::new();
    let mut refused = Vec::new();
    for (index, value) in values.into_iter().enumerate() {
        match value.into_value() {
            Ok(item) => items.push(item),
            Err(refusal) => refused.push(refusal.at(&format!("[{index}]")).at(member)),
        }
    }
    carrying_the_rest(refused).map_or(Ok(items), Err)
}

/// The first of `refusals` carrying the rest, and every other each carries, in order.
fn carrying_the_rest(refusals: impl IntoIterator<Item = Refusal>) -> Option<Refusal> {
    let mut each = refusals.into_iter().flat_map(Refusal::into_each);
    let mut first = each.next()?;
    first.others.extend(each);
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn required<T, V: IntoValue<T>>(value: V) -> Result<T, Refusal> {
        value.into_value()
    }

    fn optional<T, V: IntoOptional<T>>(value: V) -> Result<Option<T>, Refusal> {
        value.into_optional()
    }

    #[test]
    fn a_body_refuses_with_every_refused_member_in_order() {
        let name = Refusal::missing("name");
        let title = Refusal::new("longer than 200 characters").at("title");
        let video = refused_members(&[Some(&Refusal::missing("height")), Some(&Refusal::missing("width"))]);
        let body = refused_members(&[None, Some(&name), None, Some(&title), Some(&video.at("video"))])
            .at("[0]")
            .at("streams");
        assert_eq!(
            body.to_string(),
            "`streams[0].name` is required; `streams[0].title` longer than 200 characters; \
             `streams[0].video.height` is required; `streams[0].video.width` is required"
        );
        let paths: Vec<String> = body.into_each().map(|refusal| refusal.path().to_owned()).collect();
        assert_eq!(
            paths,
            [
                "streams[0].name",
                "streams[0].title",
                "streams[0].video.height",
                "streams[0].video.width"
            ]
        );
    }

    #[test]
    fn response_ids_pass_to_parameters() {
        let id: Option<i64> = Some(7);
        assert_eq!(required::<NonZeroU64, _>(id), Ok(NonZeroU64::new(7).unwrap()));
        assert_eq!(required::<NonZeroU64, _>(&id), Ok(NonZeroU64::new(7).unwrap()));
        assert_eq!(required::<NonZeroU64, _>(None::<i64>), Err(Refusal::new(MISSING)));
        assert_eq!(
            required::<NonZeroU64, _>(0i64).unwrap_err().rule(),
            "must be at least 1 (minimum)"
        );
        assert_eq!(
            required::<NonZeroU64, _>(-3).unwrap_err().rule(),
            "must be at least 1 (minimum)"
        );
        let name: Option<String> = Some("cat-1".into());
        assert_eq!(required::<String, _>(&name), Ok("cat-1".to_owned()));
        assert!(required::<uuid::Uuid, _>("not-a-uuid")
            .unwrap_err()
            .rule()
            .starts_with("is not a UUID"));
        // Borrowed forms of what a user holds.
        let owned = String::from("0b0b0b0b-0000-4000-8000-000000000000");
        let uuid: uuid::Uuid = required(&owned).unwrap();
        assert_eq!(required::<uuid::Uuid, _>(&uuid), Ok(uuid));
        assert_eq!(required::<uuid::Uuid, _>(&Some(uuid)), Ok(uuid));
    }

    #[test]
    fn optional_members_take_plain_values_and_none() {
        assert_eq!(optional::<String, _>("x"), Ok(Some("x".to_owned())));
        assert_eq!(optional::<i64, _>(5), Ok(Some(5)));
        assert_eq!(optional::<i64, _>(None::<i64>), Ok(None));
        assert_eq!(optional::<NonZeroU64, _>(None::<i64>), Ok(None));
        assert_eq!(
            optional::<NonZeroU64, _>(Some(0i64)).unwrap_err().rule(),
            "must be at least 1 (minimum)"
        );
    }

    #[test]
    fn refusals_name_the_whole_path_as_they_move_outwards() {
        let inner = Refusal::missing("height");
        assert_eq!(inner.path(), "height");
        let outer = inner.at("video").at("[0]").at("streams");
        assert_eq!(outer.path(), "streams[0].video.height");
        assert_eq!(outer.rule(), "is required");
        assert_eq!(outer.to_string(), "`streams[0].video.height` is required");
        assert_eq!(
            array_of::<NonZeroU64, _>("presets", [Some(1i64), None]).unwrap_err(),
            Refusal::new(MISSING).at("presets[1]")
        );
        // Whatever a rule says, its words never move the path.
        let wordy = Refusal::new("error converting supplied value for x: no value supplied for y").at("name");
        assert_eq!(wordy.path(), "name");
        assert_eq!(Refusal::new("r").at("r#type").path(), "type");
        // Arguments are read into a builder only when nothing was refused.
        assert_eq!(Refusals::default().or(7), Ok(7));
        assert_eq!(
            Refusals::from(Refusal::missing("name")).or(7),
            Err(Refusals(vec![Refusal::missing("name")]))
        );
    }
}
