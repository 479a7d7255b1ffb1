//! `--jq EXPR`: a jq filter applied to what a command prints, as JSON, before
//! `--columns` and the output format (gh's `--jq`). jaq runs it: jq's
//! language in pure Rust, no C build.

use crate::failure::Failure;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Native, RcIter};
use jaq_json::Val;
use serde_json::Value;

/// A compiled filter.
pub struct Jq {
    filter: jaq_core::Filter<Native<Val>>,
}

impl std::fmt::Debug for Jq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Jq")
    }
}

impl Jq {
    /// `code` compiled: an expression that does not parse or names no known
    /// filter is refused (exit 2, before anything is sent).
    pub fn compile(code: &str) -> Result<Self, Failure> {
        let refused = |why: String| Failure::invalid("--jq", why);
        let loader = Loader::new(jaq_std::defs().chain(jaq_json::defs()));
        let arena = Arena::default();
        let modules = loader
            .load(&arena, File { code, path: () })
            .map_err(|errors| refused(format!("does not parse: {}", load_errors(&errors))))?;
        let filter = Compiler::default()
            .with_funs(jaq_std::funs().chain(jaq_json::funs()))
            .compile(modules)
            .map_err(|errors| {
                let names: Vec<String> = errors
                    .iter()
                    .flat_map(|(_, errors)| errors.iter().map(|(name, _)| format!("`{name}`")))
                    .collect();
                refused(format!("names what is not defined: {}", names.join(", ")))
            })?;
        Ok(Self { filter })
    }

    /// Every output of the filter run on `value`; a runtime error (`.a` of a
    /// number, `error("…")`) ends the command as an output error.
    pub fn apply(&self, value: Value) -> std::io::Result<Vec<Value>> {
        let inputs = RcIter::new(core::iter::empty());
        self.filter
            .run((Ctx::new([], &inputs), Val::from(value)))
            .map(|output| {
                output
                    .map(Value::from)
                    .map_err(|e| std::io::Error::other(format!("--jq: {e}")))
            })
            .collect()
    }
}

fn load_errors(errors: &jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut said = Vec::new();
    for (_, error) in errors {
        match error {
            Error::Io(problems) => said.extend(problems.iter().map(|(path, why)| format!("{path}: {why}"))),
            Error::Lex(problems) => said.extend(
                problems
                    .iter()
                    .map(|(expected, found)| format!("expected {} {}", expected.as_str(), at(found))),
            ),
            Error::Parse(problems) => said.extend(
                problems
                    .iter()
                    .map(|(expected, found)| format!("expected {} {}", expected.as_str(), at(found))),
            ),
        }
    }
    said.join("; ")
}

/// Where an error is: the start of what follows it, or the end.
fn at(rest: &str) -> String {
    if rest.is_empty() {
        return "at the end".to_owned();
    }
    let shown: String = rest.chars().take(20).collect();
    format!("at `{}`", vidplat_core::escape_controls(&shown))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_filter_runs_and_a_broken_one_is_refused() {
        let jq = Jq::compile("select(.status == \"ready\") | {id, name: .input_filename}").expect("compiles");
        assert_eq!(
            jq.apply(json!({"id": 7, "status": "ready", "input_filename": "a.mp4"}))
                .expect("runs"),
            [json!({"id": 7, "name": "a.mp4"})]
        );
        assert_eq!(
            jq.apply(json!({"id": 8, "status": "waiting"})).expect("runs"),
            Vec::<Value>::new()
        );
        assert!(matches!(Jq::compile(".[ | "), Err(Failure::Invalid { .. })));
        assert!(matches!(Jq::compile("no_such_filter(1)"), Err(Failure::Invalid { .. })));
        assert!(Jq::compile(".a").expect("compiles").apply(json!(3)).is_err());
    }
}
