//! typify checks a string's `pattern` with `regress` (ECMA-262 regexes, as
//! JSON Schema defines them). The generated crates compile no regex engine:
//! this pass compiles each pattern, here, into the tables of an automaton
//! over bytes (`vidplat_core::__private::TextPattern`), built with
//! `regex-automata` from the pattern translated out of ECMA-262. The dialects
//! differ where ECMA-262 is wider than the ASCII classes (`\s` and `\S`:
//! ECMA-262 counts Unicode spaces such as U+3000 as white space; `.`:
//! ECMA-262 excludes every line terminator) or narrower than Unicode ones
//! (`\d`, `\w`): those are spelt out as explicit sets. Constructs with no
//! equivalent (lookaround, back-references, word boundaries, `\p{..}`, `\c`,
//! `\0`) stop the generation.

use crate::codegen::passes::expect::Expect;
use crate::codegen::syntax::types_module;
use anyhow::{bail, ensure, Context, Result};
use proc_macro2::TokenStream;
use quote::quote;
use regex_automata::hybrid::dfa::DFA;
use regex_automata::hybrid::LazyStateID;
use regex_automata::util::start;
use regex_automata::Anchored;
use serde_json::Value;
use std::collections::HashMap;
use syn::visit_mut::VisitMut;

/// ECMA-262's `WhiteSpace` and `LineTerminator` code points, as members of a
/// regex-lite class.
const ECMA_WHITE_SPACE: &str =
    r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// ECMA-262's `\d` and `\w`, as members of a class.
const ASCII_DIGITS: &str = "0-9";
const ASCII_WORD: &str = "0-9A-Za-z_";

/// What ECMA-262's `.` does not match (without the `s` flag).
const ECMA_LINE_TERMINATORS: &str = r"\n\r\x{2028}\x{2029}";

/// Pass `patterns`: every `static PATTERN: LazyLock<regress::Regex>` typify
/// writes refers instead to its pattern's compiled automaton, one `static`
/// per distinct pattern in a `patterns` module of `types`, and every
/// `PATTERN.find(value).is_none()` becomes `!PATTERN.is_match(value)`; the
/// sites are the checks rewritten. A check left behind, a check outside
/// `types`, or a `regress` path anywhere, stops the generation.
pub fn run(file: &mut syn::File, _spec: &Value) -> Result<usize> {
    let mut rewrite = Rewrite::default();
    rewrite.visit_file_mut(file);
    if let Some(error) = rewrite.error {
        return Err(error);
    }
    ensure!(
        rewrite.checks == rewrite.statics,
        "{} patterns compiled but {} checks of them rewritten: has typify changed how it checks a pattern?",
        rewrite.statics,
        rewrite.checks
    );
    ensure!(
        !rewrite.regress_left,
        "a `regress` path is left after the patterns were compiled"
    );
    if let Some(module) = rewrite.compiled.module("patterns") {
        types_module(file)?.push(module);
    }
    Ok(rewrite.statics)
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

#[derive(Default)]
struct Rewrite {
    error: Option<anyhow::Error>,
    compiled: Compiled,
    /// The inline modules around the item being visited.
    modules: Vec<String>,
    statics: usize,
    checks: usize,
    regress_left: bool,
}

impl Rewrite {
    /// The pattern `static PATTERN: LazyLock<regress::Regex> = LazyLock::new(|| Regex::new("…").unwrap())` holds.
    fn regress_pattern(item: &syn::ItemStatic) -> Option<String> {
        struct Find(Option<String>);
        impl<'ast> syn::visit::Visit<'ast> for Find {
            fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
                if let syn::Expr::Path(func) = &*call.func {
                    let names: Vec<String> = func.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    if names == ["regress", "Regex", "new"] {
                        if let Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(pattern),
                            ..
                        })) = call.args.first()
                        {
                            self.0 = Some(pattern.value());
                        }
                    }
                }
                syn::visit::visit_expr_call(self, call);
            }
        }
        if item.ident != "PATTERN" {
            return None;
        }
        let mut find = Find(None);
        syn::visit::visit_expr(&mut find, &item.expr);
        find.0
    }
}

impl VisitMut for Rewrite {
    fn visit_item_mod_mut(&mut self, module: &mut syn::ItemMod) {
        self.modules.push(module.ident.to_string());
        syn::visit_mut::visit_item_mod_mut(self, module);
        self.modules.pop();
    }

    fn visit_item_static_mut(&mut self, item: &mut syn::ItemStatic) {
        let Some(pattern) = Self::regress_pattern(item) else {
            return syn::visit_mut::visit_item_static_mut(self, item);
        };
        if self.modules != ["types"] {
            self.error.get_or_insert(anyhow::anyhow!(
                "pattern {pattern:?} is checked in `{}`, not in `types`, where its automaton is",
                self.modules.join("::")
            ));
            return;
        }
        match self.compiled.name_of(&pattern) {
            Ok(name) => {
                *item.ty = syn::parse_quote!(&::vidplat_core::__private::TextPattern);
                *item.expr = syn::parse_quote!(&self::patterns::#name);
                self.statics += 1;
            }
            Err(error) => {
                self.error.get_or_insert(error);
            }
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        // `PATTERN.find(value).is_none()` → `!PATTERN.is_match(value)`.
        if let syn::Expr::MethodCall(is_none) = expr {
            if let syn::Expr::MethodCall(find) = &*is_none.receiver {
                let on_pattern = matches!(&*find.receiver, syn::Expr::Path(path) if path.path.is_ident("PATTERN"));
                if is_none.method == "is_none" && find.method == "find" && on_pattern && find.args.len() == 1 {
                    let value = &find.args[0];
                    *expr = syn::parse_quote!(!PATTERN.is_match(#value));
                    self.checks += 1;
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.segments.first().is_some_and(|first| first.ident == "regress") {
            self.regress_left = true;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}

/// The distinct patterns of one generated file, each compiled once: the
/// statics of a `patterns` module that its checks refer to.
#[derive(Default)]
pub struct Compiled {
    tables: Vec<(String, Table)>,
}

impl Compiled {
    /// The name of `pattern`'s automaton in the `patterns` module, compiling
    /// it the first time it is asked for.
    pub fn name_of(&mut self, pattern: &str) -> Result<syn::Ident> {
        let index = match self.tables.iter().position(|(known, _)| known == pattern) {
            Some(index) => index,
            None => {
                self.tables.push((pattern.to_owned(), compile(pattern)?));
                self.tables.len() - 1
            }
        };
        Ok(quote::format_ident!("PATTERN_{index}"))
    }

    /// `mod patterns { … }`: each distinct pattern's automaton; none when no
    /// pattern was asked for.
    /// The statics, as a module `name` (`patterns` for the setters', the
    /// table's own for the success checks) its parent reads.
    pub fn module(&self, name: &str) -> Option<syn::Item> {
        if self.tables.is_empty() {
            return None;
        }
        let statics = self.tables.iter().enumerate().map(|(index, (pattern, table))| {
            let name = quote::format_ident!("PATTERN_{index}");
            let doc = format!(" `{pattern}`, compiled.");
            let value = table.to_tokens();
            quote! {
                #[doc = #doc]
                pub(super) static #name: ::vidplat_core::__private::TextPattern = #value;
            }
        });
        let name = quote::format_ident!("{name}");
        Some(syn::parse_quote! {
            /// The documents' patterns, compiled by `cargo xtask codegen` (pass `patterns`).
            mod #name {
                #(#statics)*
            }
        })
    }
}

/// A pattern's automaton, as `vidplat_core::__private::TextPattern` holds it.
#[derive(Debug, PartialEq)]
pub struct Table {
    /// `(first, last, class)`: the byte ranges of every class but 0.
    ranges: Vec<(u8, u8, u8)>,
    class_count: usize,
    next: Vec<u8>,
    on_entry: Vec<Step>,
    at_end: Vec<bool>,
    start: u8,
}

/// `vidplat_core::__private::Step`, as the generator knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Continue,
    Found,
    Failed,
}

/// The most states an automaton may have (its state numbers are bytes).
const MOST_STATES: usize = 256;

/// `pattern` (ECMA-262) compiled: a deterministic automaton over UTF-8
/// bytes that finds a match anywhere in a text, as `Regex::find` does. Built
/// lazily by `regex-automata`, then walked whole from its start: every state
/// it reaches on every byte, and whether the text's end completes a match.
pub fn compile(pattern: &str) -> Result<Table> {
    let translated = translate(pattern)?;
    let dfa = DFA::builder()
        .configure(DFA::config().cache_capacity(8 << 20))
        .build(&translated)
        .with_context(|| format!("pattern {pattern:?} (as {translated:?}) does not compile"))?;
    let mut cache = dfa.create_cache();
    let failed = |e: &dyn std::fmt::Display| anyhow::anyhow!("pattern {pattern:?}: its automaton cannot be built: {e}");
    let start = dfa
        .start_state(&mut cache, &start::Config::new().anchored(Anchored::No))
        .map_err(|e| failed(&e))?;

    // States numbered in the order they are first reached; `rows[state][byte]`.
    let mut numbers: HashMap<LazyStateID, usize> = HashMap::from([(start, 0)]);
    let mut order = vec![start];
    let mut rows: Vec<[usize; 256]> = Vec::new();
    let mut at_end = Vec::new();
    while let Some(&state) = order.get(rows.len()) {
        let mut row = [0; 256];
        for (byte, slot) in (0..=u8::MAX).zip(row.iter_mut()) {
            let next = dfa.next_state(&mut cache, state, byte).map_err(|e| failed(&e))?;
            ensure!(
                !next.is_quit(),
                "pattern {pattern:?}: its automaton gives up on byte {byte:#04x}"
            );
            let count = numbers.len();
            *slot = *numbers.entry(next).or_insert_with(|| {
                order.push(next);
                count
            });
        }
        ensure!(
            order.len() <= MOST_STATES,
            "pattern {pattern:?}: its automaton has more than {MOST_STATES} states"
        );
        rows.push(row);
        let end = dfa.next_eoi_state(&mut cache, state).map_err(|e| failed(&e))?;
        at_end.push(end.is_match());
    }
    // Numbers are only good while the lazy automaton keeps every state it made.
    ensure!(
        cache.clear_count() == 0,
        "pattern {pattern:?}: its automaton outgrew the cache"
    );
    let on_entry = order
        .iter()
        .map(|state| match (state.is_match(), state.is_dead()) {
            (true, _) => Step::Found,
            (false, true) => Step::Failed,
            (false, false) => Step::Continue,
        })
        .collect();

    // Bytes that move every state alike share a class; class 0 is byte 0's.
    let mut class_of_column: HashMap<Vec<usize>, u8> = HashMap::new();
    let mut classes = [0u8; 256];
    for (byte, class) in classes.iter_mut().enumerate() {
        let column: Vec<usize> = rows.iter().map(|row| row[byte]).collect();
        let count = class_of_column.len();
        *class = *class_of_column
            .entry(column)
            .or_insert_with(|| u8::try_from(count).unwrap_or(u8::MAX));
    }
    let class_count = class_of_column.len();
    let mut representative = vec![0usize; class_count];
    for byte in (0..256).rev() {
        representative[usize::from(classes[byte])] = byte;
    }
    let next = rows
        .iter()
        .flat_map(|row| representative.iter().map(|&byte| row[byte]))
        .map(|state| u8::try_from(state).context("a state number above 255"))
        .collect::<Result<Vec<u8>>>()?;
    let mut ranges = Vec::new();
    let mut first = 0usize;
    for byte in 1..=256 {
        if byte == 256 || classes[byte] != classes[first] {
            if classes[first] != 0 {
                ranges.push((first as u8, (byte - 1) as u8, classes[first]));
            }
            first = byte;
        }
    }
    Ok(Table {
        ranges,
        class_count,
        next,
        on_entry,
        at_end,
        start: 0,
    })
}

impl Table {
    /// The `TextPattern::new(…)` expression that holds this automaton.
    fn to_tokens(&self) -> TokenStream {
        let byte = |value: u8| proc_macro2::Literal::u8_unsuffixed(value);
        let ranges = self.ranges.iter().map(|&(first, last, class)| {
            let (first, last, class) = (byte(first), byte(last), byte(class));
            quote!((#first, #last, #class))
        });
        let class_count = proc_macro2::Literal::usize_unsuffixed(self.class_count);
        let next = self.next.iter().copied().map(byte);
        let on_entry = self.on_entry.iter().map(|step| match step {
            Step::Continue => quote!(Continue),
            Step::Found => quote!(Found),
            Step::Failed => quote!(Failed),
        });
        let at_end = &self.at_end;
        let start = byte(self.start);
        quote! {
            {
                use ::vidplat_core::__private::Step::*;
                ::vidplat_core::__private::TextPattern::new(
                    &[#(#ranges),*],
                    #class_count,
                    &[#(#next),*],
                    &[#(#on_entry),*],
                    &[#(#at_end),*],
                    #start,
                )
            }
        }
    }
}

/// `pattern` (ECMA-262) in the syntax regex-automata and regex-lite share,
/// meaning the same to both (the tests hold regex-lite to it as a second reader).
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
                    // ECMA-262's `\d` and `\w` are ASCII, as regex-lite's are; regex-automata's
                    // are Unicode. Spelt out, they read the same to both.
                    ('d', false) => out.push_str(&format!("[{ASCII_DIGITS}]")),
                    ('d', true) => out.push_str(ASCII_DIGITS),
                    ('D', _) => out.push_str(&format!("[^{ASCII_DIGITS}]")),
                    ('w', false) => out.push_str(&format!("[{ASCII_WORD}]")),
                    ('w', true) => out.push_str(ASCII_WORD),
                    ('W', _) => out.push_str(&format!("[^{ASCII_WORD}]")),
                    ('b' | 'B', false) => {
                        bail!("pattern {pattern:?}: word boundaries have no equivalent here")
                    }
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
    Ok(out)
}

/// The code that reads the tables in the generated crates, as it is there.
#[cfg(test)]
#[path = "../../../../crates/vidplat-core/src/text_pattern.rs"]
#[allow(dead_code, unreachable_pub)]
mod text_pattern;

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

    use super::text_pattern;

    /// `table` as the generated crates hold it.
    fn automaton(table: Table) -> text_pattern::TextPattern {
        let on_entry: Vec<text_pattern::Step> = table
            .on_entry
            .iter()
            .map(|step| match step {
                Step::Continue => text_pattern::Step::Continue,
                Step::Found => text_pattern::Step::Found,
                Step::Failed => text_pattern::Step::Failed,
            })
            .collect();
        text_pattern::TextPattern::new(
            &table.ranges,
            table.class_count,
            Vec::leak(table.next),
            Vec::leak(on_entry),
            Vec::leak(table.at_end),
            table.start,
        )
    }

    #[test]
    fn every_yaml_pattern_matches_what_regress_matches() {
        let patterns = yaml_patterns();
        assert!(patterns.iter().any(|p| p == r"^\S*$"), "{patterns:?}");
        for pattern in patterns {
            let ecma = regress::Regex::new(&pattern).unwrap();
            let lite = regex_lite::Regex::new(&translate(&pattern).unwrap()).unwrap();
            let compiled = automaton(compile(&pattern).unwrap());
            for probe in PROBES {
                let expected = ecma.find(probe).is_some();
                assert_eq!(lite.find(probe).is_some(), expected, "pattern {pattern:?} on {probe:?}");
                assert_eq!(compiled.is_match(probe), expected, "compiled {pattern:?} on {probe:?}");
            }
        }
    }

    #[test]
    fn a_compiled_pattern_finds_what_regress_finds_anywhere_in_the_text() {
        for (pattern, probes) in [
            // Unanchored: a match anywhere, as `find` has it.
            ("ab", &["ab", "xaby", "a", "ba", ""][..]),
            ("^ab", &["ab", "abx", "xab"][..]),
            ("ab$", &["ab", "xab", "abx"][..]),
            (r"^\d{2,3}$", &["12", "123", "1", "1234", "\u{0663}\u{0663}"][..]),
            (r"^\w+$", &["a_1", "\u{e9}", "a b"][..]),
            (r"^[^|]$", &["\u{e9}", "\u{65e5}", "|", "ab", "\u{1F600}"][..]),
            ("^a.b$", &["a\u{e9}b", "a\nb", "a\u{2028}b", "ab"][..]),
            ("", &["", "x"][..]),
            ("^$", &["", "x"][..]),
        ] {
            let ecma = regress::Regex::new(pattern).unwrap();
            let compiled = automaton(compile(pattern).unwrap());
            for probe in probes {
                assert_eq!(
                    compiled.is_match(probe),
                    ecma.find(probe).is_some(),
                    "{pattern:?} on {probe:?}"
                );
            }
        }
    }

    #[test]
    fn a_compiled_pattern_is_small() {
        let table = compile("^[0-9a-zA-Z_-]+$").unwrap();
        // The start, inside the word, and no match possible.
        assert_eq!(table.on_entry.len(), 3, "{table:?}");
        assert_eq!(table.class_count, 2, "{table:?}");
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
        for pattern in [r"^(?=a)", r"(a)\1", r"\p{L}", "[]a]", "[a", r"a\", r"\bword"] {
            assert!(compile(pattern).is_err(), "{pattern:?}");
        }
    }

    #[test]
    fn the_generated_check_is_rewritten_whole() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                fn from_str(value: &str) -> Result<(), &'static str> {
                    static PATTERN: ::std::sync::LazyLock<::regress::Regex> =
                        ::std::sync::LazyLock::new(|| ::regress::Regex::new("^\\S*$").unwrap());
                    if PATTERN.find(value).is_none() {
                        return Err("doesn't match pattern");
                    }
                    Ok(())
                }
                fn from_string(value: &str) -> Result<(), &'static str> {
                    static PATTERN: ::std::sync::LazyLock<::regress::Regex> =
                        ::std::sync::LazyLock::new(|| ::regress::Regex::new("^\\S*$").unwrap());
                    if PATTERN.find(value).is_none() {
                        return Err("doesn't match pattern");
                    }
                    Ok(())
                }
            }
        };
        assert_eq!(run(&mut file, &Value::Null).unwrap(), 2);
        let code = prettyplease::unparse(&file);
        assert!(!code.contains("regress"), "{code}");
        // Both checks refer to the one automaton of their pattern.
        let reference = "static PATTERN: &::vidplat_core::__private::TextPattern = &self::patterns::PATTERN_0;";
        assert_eq!(code.matches(reference).count(), 2, "{code}");
        let automaton = "static PATTERN_0: ::vidplat_core::__private::TextPattern";
        assert_eq!(code.matches(automaton).count(), 1, "{code}");
        assert!(!code.contains("PATTERN_1"), "{code}");
        assert_eq!(code.matches("if !PATTERN.is_match(value)").count(), 2, "{code}");
    }

    #[test]
    fn a_check_outside_types_stops_the_generation() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub mod builder {
                    fn from_str(value: &str) -> bool {
                        static PATTERN: ::std::sync::LazyLock<::regress::Regex> =
                            ::std::sync::LazyLock::new(|| ::regress::Regex::new("^a$").unwrap());
                        PATTERN.find(value).is_none()
                    }
                }
            }
        };
        let error = run(&mut file, &Value::Null).unwrap_err().to_string();
        assert!(error.contains("checked in `types::builder`"), "{error}");
    }

    #[test]
    fn a_pattern_whose_check_is_not_rewritten_stops_the_generation() {
        // A typify that checked with `is_match` instead of `find`.
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                fn from_str(value: &str) -> bool {
                    static PATTERN: ::std::sync::LazyLock<::regress::Regex> =
                        ::std::sync::LazyLock::new(|| ::regress::Regex::new("^a$").unwrap());
                    PATTERN.is_match(value)
                }
            }
        };
        let error = run(&mut file, &Value::Null).unwrap_err().to_string();
        assert!(error.contains("1 patterns compiled but 0 checks"), "{error}");
    }
}
