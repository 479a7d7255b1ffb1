//! typify checks a string's `pattern` with `regress` (ECMA-262 regexes, as
//! JSON Schema defines them). The generated crates use `regex-lite` instead,
//! a quarter of `regress`'s compile time for a user's build. The two dialects
//! differ where ECMA-262 is wider than regex-lite's ASCII classes: `\s` and
//! `\S` (ECMA-262 counts Unicode spaces such as U+3000 as white space) and `.`
//! (ECMA-262 excludes every line terminator). Those are rewritten to the
//! explicit ECMA-262 sets; constructs regex-lite lacks, or reads differently
//! (lookaround, back-references, `\p{..}`, `\c`, `\0`), stop the generation.

use crate::codegen::expect::Expect;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use syn::visit_mut::VisitMut;

/// ECMA-262's `WhiteSpace` and `LineTerminator` code points, as members of a
/// regex-lite class.
const ECMA_WHITE_SPACE: &str =
    r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// What ECMA-262's `.` does not match (without the `s` flag).
const ECMA_LINE_TERMINATORS: &str = r"\n\r\x{2028}\x{2029}";

/// Pass `patterns`: rewrites `::regress::Regex` to `::regex_lite::Regex` in
/// `file`, and every pattern given to `Regex::new` to the same language in
/// regex-lite's syntax; the sites are the patterns translated.
pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let mut rewrite = Rewrite {
        error: None,
        translated: 0,
    };
    rewrite.visit_file_mut(file);
    match rewrite.error {
        Some(error) => Err(error),
        None => Ok(rewrite.translated),
    }
}

/// typify checks every `pattern` of a string type (a parameter's or a member's).
pub fn expect(spec: &Value) -> Expect {
    fn has_pattern(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.get("pattern").is_some_and(Value::is_string) || map.values().any(has_pattern),
            Value::Array(items) => items.iter().any(has_pattern),
            _ => false,
        }
    }
    Expect::some_if(has_pattern(&spec["components"]) || has_pattern(&spec["paths"]))
}

struct Rewrite {
    error: Option<anyhow::Error>,
    translated: usize,
}

impl VisitMut for Rewrite {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(first) = path.segments.first_mut() {
            if first.ident == "regress" {
                first.ident = syn::Ident::new("regex_lite", first.ident.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, call);
        let syn::Expr::Path(func) = &*call.func else { return };
        let names: Vec<String> = func.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if !names.ends_with(&["regex_lite".into(), "Regex".into(), "new".into()]) {
            return;
        }
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(pattern),
            ..
        })) = call.args.first_mut()
        else {
            return;
        };
        match translate(&pattern.value()) {
            Ok(translated) => {
                *pattern = syn::LitStr::new(&translated, pattern.span());
                self.translated += 1;
            }
            Err(error) => {
                self.error.get_or_insert(error);
            }
        }
    }
}

/// `pattern` (ECMA-262) in regex-lite's syntax, checked to compile.
pub fn translate(pattern: &str) -> Result<String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    bail!("pattern {pattern:?} ends with a lone backslash")
                };
                match (escaped, in_class) {
                    ('s', false) => out.push_str(&format!("[{ECMA_WHITE_SPACE}]")),
                    ('s', true) => out.push_str(ECMA_WHITE_SPACE),
                    ('S', _) => out.push_str(&format!("[^{ECMA_WHITE_SPACE}]")),
                    ('p' | 'P' | 'c' | 'k' | '0'..='9', _) => {
                        bail!("pattern {pattern:?}: `\\{escaped}` has no equivalent here (regex-lite)")
                    }
                    (other, _) => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A `]` or `^]` right after `[` is a member in regex-lite, an empty class in ECMA-262.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    bail!("pattern {pattern:?}: an empty class reads differently in regex-lite");
                }
            }
            '[' => bail!("pattern {pattern:?}: `[` inside a class reads differently in regex-lite"),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => out.push_str(&format!("[^{ECMA_LINE_TERMINATORS}]")),
            '(' if !in_class && chars.peek() == Some(&'?') => {
                let mut ahead = chars.clone();
                ahead.next();
                match ahead.next() {
                    Some(':') => out.push('('),
                    _ => bail!("pattern {pattern:?}: lookaround and named groups have no equivalent here"),
                }
            }
            '&' | '~' | '-' if in_class && chars.peek() == Some(&c) => {
                // `&&`, `~~` and `--` are set operations in regex-lite, plain members in ECMA-262.
                out.push('\\');
                out.push(c);
            }
            other => out.push(other),
        }
    }
    if in_class {
        bail!("pattern {pattern:?} leaves a class open");
    }
    regex_lite::Regex::new(&out).with_context(|| format!("pattern {pattern:?} (as {out:?}) does not compile"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `pattern` of the three YAML files.
    fn yaml_patterns() -> Vec<String> {
        let mut patterns = Vec::new();
        for name in ["encoder", "vms", "analytics"] {
            let path = crate::services::repo_root().join(format!("openapi/{name}.yaml"));
            let text = std::fs::read_to_string(&path).unwrap();
            let value: serde_json::Value = serde_yaml::from_str(&text).unwrap();
            collect(&value, &mut patterns);
        }
        patterns.sort();
        patterns.dedup();
        patterns
    }

    fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(p)) = map.get("pattern") {
                    out.push(p.clone());
                }
                map.values().for_each(|v| collect(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }

    /// Strings that tell the dialects apart: Unicode spaces and line
    /// terminators, the members of the documented patterns, and their edges.
    const PROBES: &[&str] = &[
        "",
        "a",
        "abc",
        "A-Z_09",
        "a b",
        "a\u{3000}b",
        "a\u{A0}b",
        "a\u{2028}b",
        "a\tb",
        "a\nb",
        "\u{FEFF}",
        "x|asc",
        "name|desc",
        "name|ASC",
        "|asc",
        "a|b|asc",
        "daily:30",
        "monthly:1",
        "weekly:1",
        "daily:",
        "user@site",
        "user@",
        "@site",
        "a.b-c_d",
        "a/b",
        "日本語",
        "日本語|asc",
        "名前",
        "a\u{3000}",
        "-",
        "_",
    ];

    #[test]
    fn every_yaml_pattern_matches_what_regress_matches() {
        let patterns = yaml_patterns();
        assert!(patterns.iter().any(|p| p == r"^\S*$"), "{patterns:?}");
        for pattern in patterns {
            let ecma = regress::Regex::new(&pattern).unwrap();
            let lite = regex_lite::Regex::new(&translate(&pattern).unwrap()).unwrap();
            for probe in PROBES {
                assert_eq!(
                    lite.find(probe).is_some(),
                    ecma.find(probe).is_some(),
                    "pattern {pattern:?} on {probe:?}"
                );
            }
        }
    }

    #[test]
    fn ecma_classes_keep_their_unicode_meaning() {
        for (pattern, probe) in [
            (r"^\S*$", "a\u{3000}b"),
            (r"^[^\s]+$", "a\u{A0}"),
            (r"^a.b$", "a\u{2028}b"),
            (r"^[a\-z]+$", "a-z"),
            (r"^[a&&b]+$", "a&b"),
            (r"^(?:ab)+$", "abab"),
        ] {
            let ecma = regress::Regex::new(pattern).unwrap().find(probe).is_some();
            let lite = regex_lite::Regex::new(&translate(pattern).unwrap())
                .unwrap()
                .find(probe)
                .is_some();
            assert_eq!(lite, ecma, "{pattern:?} on {probe:?}");
        }
    }

    #[test]
    fn what_has_no_equivalent_stops_the_generation() {
        for pattern in [r"^(?=a)", r"(a)\1", r"\p{L}", "[]a]", "[a", r"a\"] {
            assert!(translate(pattern).is_err(), "{pattern:?}");
        }
    }

    #[test]
    fn the_generated_check_is_rewritten_whole() {
        let mut file: syn::File = syn::parse_quote! {
            static PATTERN: ::std::sync::LazyLock<::regress::Regex> =
                ::std::sync::LazyLock::new(|| ::regress::Regex::new("^\\S*$").unwrap());
        };
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 1);
        let code = prettyplease::unparse(&file);
        assert!(!code.contains("regress"), "{code}");
        assert!(code.contains("::regex_lite::Regex::new("), "{code}");
        assert!(code.contains(r"\\x{3000}"), "{code}");
    }
}
