//! The passes over progenitor's output, in order. Each is a function over
//! `syn` nodes that says how many sites it changed; each states how many the
//! YAML says there must be, and generation fails, naming the pass, when the
//! two disagree (a pass that silently finds nothing is how a generator
//! breaks when progenitor changes a spelling). No pass reads rendered text.

mod answer_builders;
pub mod expect;
mod keep;
mod nulls;
mod patches;
pub mod patterns;
mod plain_setters;
mod reads;
pub mod refusals;
mod schemars;
mod secrets;
mod where_sent;

use anyhow::{bail, Context, Result};
use expect::Expect;
use serde_json::Value;

/// One pass: its name, what it does, the function, and what the YAML expects of it.
pub struct Pass {
    pub name: &'static str,
    pub does: &'static str,
    pub run: fn(&mut syn::File, &Value) -> Result<usize>,
    pub expect: fn(&Value) -> Expect,
}

/// The passes, in the order they run.
pub const PASSES: [Pass; 10] = [
    Pass {
        name: "keep",
        does: "keeps progenitor's types and the client's operation methods; drops its client, hooks and builders",
        run: keep::run,
        expect: keep::expect,
    },
    Pass {
        name: "refusals",
        does: "typify's body builders refuse typed: a Refusal (member path, rule) instead of a String",
        run: refusals::run,
        expect: refusals::expect,
    },
    Pass {
        name: "patches",
        does: "update bodies can clear: nullable members are Patch (keep, set, clear), optional lists Option<Vec> ([] is sent)",
        run: patches::run,
        expect: patches::expect,
    },
    Pass {
        name: "setters",
        does: "typify's setters take plain values (IntoValue, IntoOptional, iterators of them)",
        run: plain_setters::run,
        expect: plain_setters::expect,
    },
    Pass {
        name: "nulls",
        does: "response-only types write null and [] instead of leaving the member out",
        run: nulls::run,
        expect: nulls::expect,
    },
    Pass {
        name: "secrets",
        does: "types holding x-secret members print them as [redacted]",
        run: secrets::run,
        expect: secrets::expect,
    },
    Pass {
        name: "builders",
        does: "builders of the types only answers use are compiled only with the `builders` feature",
        run: answer_builders::run,
        expect: answer_builders::expect,
    },
    Pass {
        name: "schemars",
        does: "JsonSchema derives move behind the `schemars` feature",
        run: schemars::run,
        expect: schemars::expect,
    },
    Pass {
        name: "patterns",
        does: "patterns are compiled from ECMA-262 into automata checked by vidplat-core: no regex engine in the user's build",
        run: patterns::run,
        expect: patterns::expect,
    },
    Pass {
        name: "reads",
        does: "structs read themselves through a compact Deserialize (the shared part in vidplat-core) instead of serde's derive",
        run: reads::run,
        expect: reads::expect,
    },
];

/// The last pass, over everything written: progenitor's output after the
/// passes above, and the generator's own builders, table and methods.
pub const LAST: Pass = Pass {
    name: "where_sent",
    does:
        "every function written that is not generic is #[inline] without `by-name`: compiled in the crate that sends it",
    run: where_sent::run,
    expect: where_sent::expect,
};

/// Runs every pass of `PASSES` on `file` but those `without` names: (name,
/// sites changed) for each.
pub fn run(file: &mut syn::File, spec: &Value, without: &[String]) -> Result<Vec<(&'static str, usize)>> {
    PASSES
        .iter()
        .filter(|pass| !without.iter().any(|name| name == pass.name))
        .map(|pass| run_one(pass, file, spec))
        .collect()
}

/// Runs `pass` on `file` and checks its sites against what the YAML expects.
pub fn run_one(pass: &Pass, file: &mut syn::File, spec: &Value) -> Result<(&'static str, usize)> {
    let sites = (pass.run)(file, spec).with_context(|| format!("codegen pass `{}` failed", pass.name))?;
    check(pass, sites, (pass.expect)(spec))?;
    Ok((pass.name, sites))
}

fn check(pass: &Pass, sites: usize, expect: Expect) -> Result<()> {
    match expect {
        Expect::Exactly(n) if sites != n => bail!(
            "codegen pass `{}` ({}) changed {sites} sites where the YAML says there are {n}",
            pass.name,
            pass.does
        ),
        Expect::Some if sites == 0 => bail!(
            "codegen pass `{}` ({}) found no site, but the YAML says there must be some: \
             has progenitor or typify changed its output?",
            pass.name,
            pass.does
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_that_finds_no_site_the_yaml_needs_fails_generation_naming_it() {
        // A doctored progenitor output: the types module has no typify builders.
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub struct Task { pub id: Option<i64> }
            }
        };
        let spec = serde_json::json!({
            "components": {"schemas": {"Task": {"type": "object", "properties": {"id": {"type": "integer"}}}}},
            "paths": {}
        });
        let refusals = &PASSES[1];
        assert_eq!(refusals.name, "refusals");
        let sites = (refusals.run)(&mut file, &spec).unwrap();
        assert_eq!(sites, 0);
        let error = check(refusals, sites, (refusals.expect)(&spec))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("pass `refusals`") && error.contains("found no site"),
            "{error}"
        );
        // With nothing in the YAML for it, no site is fine.
        let empty = serde_json::json!({"components": {"schemas": {}}, "paths": {}});
        assert!(check(refusals, 0, (refusals.expect)(&empty)).is_ok());
        // An exact count that differs fails too.
        assert!(check(refusals, 2, Expect::Exactly(3)).is_err());
        assert!(check(refusals, 3, Expect::Exactly(3)).is_ok());
    }
}
