//! Open enumerations: the documents require clients to accept values they do
//! not know, so every enumerated field is a Rust enum with one variant per
//! known value plus `Other(String)`, which keeps any other value unchanged.
//!
//! The generator (`cargo xtask codegen`) writes one [`open_enum!`] invocation
//! for every `x-extensible-enum` schema of the YAML.

/// A service's `ErrorCode`: the open enumeration of the codes its documents
/// list, read from an error answer's `code` (`vidplat::Error::code_as`).
///
/// Implemented by `vidplat_encoder::types::ErrorCode`,
/// `vidplat_vms::types::ErrorCode` and `vidplat_analytics::types::ErrorCode`.
/// Converting never fails: a code the enumeration does not know becomes
/// `Other` with the code exactly as sent.
pub trait ServiceErrorCode: for<'a> From<&'a str> {}

/// Declares an open enumeration. See the module documentation. Its functions
/// are `#[inline]`: compiled where they are used (see ARCHITECTURE.md).
#[macro_export]
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $value:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this version of the SDK does not know, kept exactly as the server sent it.
            Other(::std::string::String),
        }

        impl $name {
            /// Every value the document names, in its order.
            pub const KNOWN: &'static [&'static str] = &[$($value),*];

            /// The value as sent on the wire.
            #[inline]
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )*
                    Self::Other(value) => value.as_str(),
                }
            }

            /// Whether the value is one the document names.
            #[inline]
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl ::std::fmt::Display for $name {
            #[inline]
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;

            /// Never fails: an unknown value becomes `Other`.
            #[inline]
            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                Ok(Self::from(value))
            }
        }

        impl ::std::convert::From<&str> for $name {
            #[inline]
            fn from(value: &str) -> Self {
                match value {
                    $( $value => Self::$variant, )*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::std::convert::From<::std::string::String> for $name {
            #[inline]
            fn from(value: ::std::string::String) -> Self {
                Self::from(value.as_str())
            }
        }

        impl $crate::FromText for $name {
            #[inline]
            fn from_text(text: &str) -> ::std::result::Result<Self, $crate::Refusal> {
                ::std::result::Result::Ok($name::from(text))
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <::std::borrow::Cow<'de, str> as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from(value.as_ref()))
            }
        }

        $crate::__open_enum_schema!($name);
    };
}

/// `JsonSchema` for an open enumeration, with vidplat-core's `schemars` feature only.
#[cfg(feature = "schemars")]
#[doc(hidden)]
#[macro_export]
macro_rules! __open_enum_schema {
    ($name:ident) => {
        impl $crate::__private::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }

            fn json_schema(_: &mut $crate::__private::schemars::SchemaGenerator) -> $crate::__private::schemars::Schema {
                $crate::__private::schemars::json_schema!({
                    "type": "string",
                    "x-extensible-enum": Self::KNOWN,
                })
            }
        }
    };
}

/// Without the `schemars` feature, open enumerations have no `JsonSchema`.
#[cfg(not(feature = "schemars"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __open_enum_schema {
    ($name:ident) => {};
}

#[cfg(test)]
mod tests {
    // The macro's items are `pub`, as the generated crates need them.
    #![allow(unreachable_pub)]

    open_enum! {
        /// Test enumeration.
        pub enum Format {
            Mp4 => "MP4",
            HlsEncrypted => "HLS_ENCRYPTED",
            Unknown => "UNKNOWN",
        }
    }

    #[test]
    fn known_and_unknown_values_round_trip() {
        let known: Format = serde_json::from_str("\"HLS_ENCRYPTED\"").unwrap();
        assert_eq!(known, Format::HlsEncrypted);
        assert_eq!(known.to_string(), "HLS_ENCRYPTED");
        let other: Format = serde_json::from_str("\"AV2\"").unwrap();
        assert_eq!(other, Format::Other("AV2".into()));
        assert!(!other.is_known());
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"AV2\"");
        assert_eq!("UNKNOWN".parse::<Format>().unwrap(), Format::Unknown);
        assert_eq!(Format::KNOWN, ["MP4", "HLS_ENCRYPTED", "UNKNOWN"]);
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn the_schema_lists_the_known_values() {
        let schema = schemars::schema_for!(Format);
        assert_eq!(
            schema.get("x-extensible-enum").unwrap(),
            &serde_json::json!(["MP4", "HLS_ENCRYPTED", "UNKNOWN"])
        );
    }
}
