//! What a generated builder's setters accept: plain values, the ids responses
//! carry, and builders of nested bodies.
//!
//! A setter for a member of type `T` takes any [`IntoValue<T>`]; a setter for
//! an optional member takes any [`IntoOptional<T>`]. So `.name("x")` works for
//! an optional member with a rule, `.task_id(task.id)` passes the `Option<i64>`
//! a response carries straight to the next call, and `.streams([builder])`
//! takes builders. A value that breaks a rule is not sent: the request fails
//! with an error naming the member's path (`streams[0].video.height`).

use std::num::NonZeroU64;

/// A value a setter of a `T` member accepts.
pub trait IntoValue<T> {
    /// The value, or why it breaks `T`'s rules.
    fn into_value(self) -> Result<T, String>;
}

/// A value a setter of an optional `T` member accepts (`None` leaves it unset).
pub trait IntoOptional<T> {
    /// The value (or none), or why it breaks `T`'s rules.
    fn into_optional(self) -> Result<Option<T>, String>;
}

impl<T> IntoValue<T> for T {
    fn into_value(self) -> Result<T, String> {
        Ok(self)
    }
}

impl<T> IntoOptional<T> for T {
    fn into_optional(self) -> Result<Option<T>, String> {
        Ok(Some(self))
    }
}

impl<T> IntoOptional<T> for Option<T> {
    fn into_optional(self) -> Result<Option<T>, String> {
        Ok(self)
    }
}

/// A missing value where one is required (a response's `None` id passed on).
pub const MISSING: &str = "is required, and the value given is None";

/// Implements both traits for conversions `$from => $to`, each a function
/// from `$from` to `Result<$to, String>`, with their `Option` and borrowed
/// forms: `None` is missing for a required member and unset for an optional
/// one, and `&Option<_>` passes a borrowed response member on as it is.
#[macro_export]
#[doc(hidden)]
macro_rules! into_value {
    ($to:ty: $($from:ty => $convert:expr),* $(,)?) => {
        $crate::into_value!(@same $to);
        $(
            impl $crate::IntoValue<$to> for $from {
                fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                    let convert: fn($from) -> ::std::result::Result<$to, ::std::string::String> = $convert;
                    convert(self)
                }
            }
            impl $crate::IntoOptional<$to> for $from {
                fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, ::std::string::String> {
                    $crate::IntoValue::<$to>::into_value(self).map(::std::option::Option::Some)
                }
            }
            $crate::into_value!(@option $to, $from);
        )*
    };
    (@same $to:ty) => {
        impl $crate::IntoValue<$to> for &$to {
            fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                ::std::result::Result::Ok(::std::clone::Clone::clone(self))
            }
        }
        impl $crate::IntoOptional<$to> for &$to {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, ::std::string::String> {
                ::std::result::Result::Ok(::std::option::Option::Some(::std::clone::Clone::clone(self)))
            }
        }
        impl $crate::IntoValue<$to> for ::std::option::Option<$to> {
            fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                self.ok_or_else(|| $crate::MISSING.into())
            }
        }
        impl $crate::IntoValue<$to> for &::std::option::Option<$to> {
            fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                ::std::clone::Clone::clone(self).ok_or_else(|| $crate::MISSING.into())
            }
        }
        impl $crate::IntoOptional<$to> for &::std::option::Option<$to> {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, ::std::string::String> {
                ::std::result::Result::Ok(::std::clone::Clone::clone(self))
            }
        }
    };
    (@option $to:ty, $from:ty) => {
        impl $crate::IntoValue<$to> for ::std::option::Option<$from> {
            fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                match self {
                    ::std::option::Option::Some(value) => $crate::IntoValue::<$to>::into_value(value),
                    ::std::option::Option::None => ::std::result::Result::Err($crate::MISSING.into()),
                }
            }
        }
        impl $crate::IntoOptional<$to> for ::std::option::Option<$from> {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, ::std::string::String> {
                self.map($crate::IntoValue::<$to>::into_value).transpose()
            }
        }
        impl $crate::IntoValue<$to> for &::std::option::Option<$from> {
            fn into_value(self) -> ::std::result::Result<$to, ::std::string::String> {
                $crate::IntoValue::<$to>::into_value(::std::clone::Clone::clone(self))
            }
        }
        impl $crate::IntoOptional<$to> for &::std::option::Option<$from> {
            fn into_optional(self) -> ::std::result::Result<::std::option::Option<$to>, ::std::string::String> {
                $crate::IntoOptional::<$to>::into_optional(::std::clone::Clone::clone(self))
            }
        }
    };
}

fn positive(value: Option<u64>) -> Result<NonZeroU64, String> {
    value
        .and_then(NonZeroU64::new)
        .ok_or_else(|| "must be at least 1 (minimum)".to_owned())
}

into_value!(NonZeroU64:
    u64 => |v| positive(Some(v)),
    u32 => |v| positive(Some(v.into())),
    usize => |v| positive(u64::try_from(v).ok()),
    i64 => |v| positive(u64::try_from(v).ok()),
    i32 => |v| positive(u64::try_from(v).ok()),
);

into_value!(i64:
    i32 => |v| Ok(v.into()),
    u32 => |v| Ok(v.into()),
    u64 => |v| i64::try_from(v).map_err(|_| "must be at most 9223372036854775807".to_owned()),
    usize => |v| i64::try_from(v).map_err(|_| "must be at most 9223372036854775807".to_owned()),
    NonZeroU64 => |v| i64::try_from(v.get()).map_err(|_| "must be at most 9223372036854775807".to_owned()),
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

into_value!(uuid::Uuid:
    &str => |v| v.parse().map_err(|e| format!("is not a UUID ({e})")),
    String => |v| v.parse().map_err(|e| format!("is not a UUID ({e})")),
);

/// The setter error for `member`, in the one form every layer reads:
/// `error converting supplied value for <path>: <why>`. A nested builder's
/// own error is spliced into the path (`streams[0].video.height`), and a
/// missing required member becomes `<path>.<member>: is required`.
pub fn member_error(member: &str, why: impl std::fmt::Display) -> String {
    const PREFIX: &str = "error converting supplied value for ";
    const MISSING_MEMBER: &str = "no value supplied for ";
    let why = why.to_string();
    if let Some((path, rest)) = why.strip_prefix(PREFIX).and_then(|r| r.split_once(": ")) {
        return format!("{PREFIX}{}: {rest}", join(member, path));
    }
    if let Some(inner) = why.strip_prefix(MISSING_MEMBER) {
        return format!("{PREFIX}{}: is required", join(member, inner));
    }
    format!("{PREFIX}{member}: {why}")
}

fn join(member: &str, path: &str) -> String {
    match (member.is_empty(), path.starts_with('[')) {
        (true, _) => path.to_owned(),
        (false, true) => format!("{member}{path}"),
        (false, false) => format!("{member}.{path}"),
    }
}

/// Converts each element of an array member, naming the failing index.
pub fn array_of<T, V: IntoValue<T>>(member: &str, values: impl IntoIterator<Item = V>) -> Result<Vec<T>, String> {
    values
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            value
                .into_value()
                .map_err(|why| member_error(&format!("{member}[{index}]"), why))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn required<T, V: IntoValue<T>>(value: V) -> Result<T, String> {
        value.into_value()
    }

    fn optional<T, V: IntoOptional<T>>(value: V) -> Result<Option<T>, String> {
        value.into_optional()
    }

    #[test]
    fn response_ids_pass_to_parameters() {
        let id: Option<i64> = Some(7);
        assert_eq!(required::<NonZeroU64, _>(id), Ok(NonZeroU64::new(7).unwrap()));
        assert_eq!(required::<NonZeroU64, _>(&id), Ok(NonZeroU64::new(7).unwrap()));
        assert_eq!(required::<NonZeroU64, _>(None::<i64>), Err(MISSING.to_owned()));
        assert_eq!(
            required::<NonZeroU64, _>(0i64),
            Err("must be at least 1 (minimum)".to_owned())
        );
        assert_eq!(
            required::<NonZeroU64, _>(-3),
            Err("must be at least 1 (minimum)".to_owned())
        );
        let name: Option<String> = Some("cat-1".into());
        assert_eq!(required::<String, _>(&name), Ok("cat-1".to_owned()));
        assert!(required::<uuid::Uuid, _>("not-a-uuid")
            .unwrap_err()
            .starts_with("is not a UUID"));
    }

    #[test]
    fn optional_members_take_plain_values_and_none() {
        assert_eq!(optional::<String, _>("x"), Ok(Some("x".to_owned())));
        assert_eq!(optional::<i64, _>(5), Ok(Some(5)));
        assert_eq!(optional::<i64, _>(None::<i64>), Ok(None));
        assert_eq!(optional::<NonZeroU64, _>(None::<i64>), Ok(None));
        assert_eq!(
            optional::<NonZeroU64, _>(Some(0i64)),
            Err("must be at least 1 (minimum)".to_owned())
        );
    }

    #[test]
    fn errors_name_the_whole_path() {
        assert_eq!(
            member_error(
                "streams[0]",
                "error converting supplied value for video: no value supplied for height"
            ),
            "error converting supplied value for streams[0].video: no value supplied for height"
        );
        assert_eq!(
            member_error("body", "no value supplied for profile_id"),
            "error converting supplied value for body.profile_id: is required"
        );
        assert_eq!(
            member_error("", "no value supplied for profile_id"),
            "error converting supplied value for profile_id: is required"
        );
        assert_eq!(
            array_of::<NonZeroU64, _>("presets", [Some(1i64), None]),
            Err(format!("error converting supplied value for presets[1]: {MISSING}"))
        );
    }
}
