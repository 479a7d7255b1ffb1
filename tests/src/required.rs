//! Whether a tool a check can do without is required. Read by the tests and
//! by xtask (which compiles this file as its own module): one rule for every
//! `VIDPLAT_REQUIRE_*` variable.

/// `VIDPLAT_REQUIRE_<TOOL>=1` requires the tool, as `.ci/run` and `cargo
/// xtask ci` set them. Any other value, `0` included, lets a check without
/// the tool say "skipped" and pass.
pub fn required(variable: &str) -> bool {
    requires(std::env::var_os(variable).as_deref())
}

fn requires(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|value| value == "1")
}

#[cfg(test)]
mod tests {
    use super::requires;

    /// `=1` requires a tool; unset, empty or `0` does not (`0` once required
    /// Chromium, Prism and Redis).
    #[test]
    fn only_one_requires_a_tool() {
        assert!(requires(Some("1".as_ref())));
        for value in [None, Some(""), Some("0"), Some("true")] {
            assert!(!requires(value.map(AsRef::as_ref)), "{value:?}");
        }
    }
}
