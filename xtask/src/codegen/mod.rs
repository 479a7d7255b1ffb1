//! `cargo xtask codegen [--check]`: openapi/<service>.yaml →
//! crates/vidplat-<service>/src/generated.rs (and the test drivers and the
//! operation index).
//!
//! The pipeline, in order:
//! 1. progenitor reads the YAML (as `spec::for_progenitor` prepares it) and
//!    writes the types (typify) and its client;
//! 2. `model` describes every operation from the YAML and the types
//!    progenitor chose for its parameters and answer;
//! 3. the passes (`passes/`, in the order of `passes::PASSES`) rewrite
//!    progenitor's output, each over `syn` nodes, each checked against the
//!    number of sites the YAML says it must find; `keep` drops progenitor's
//!    client and builders;
//! 4. whole items (`items/`) are generated from the YAML and the model: the
//!    open enums, `Paged` and the setter conversions, the client and its
//!    operation builders, paging, the operation table, the aliases;
//! 5. the files beside the client crates (`emit/`): the test driver, the
//!    exporter's report schema and the operation index. The command line has no generated file: it
//!    builds its commands from the table (`operations::ALL`, and `HELP` with
//!    the client crates' `help` feature).

mod emit;
mod items;
mod model;
mod passes;
mod spec;
pub mod syntax;

use crate::services::{repo_root, Service, SERVICES};
use anyhow::{anyhow, bail, Context, Result};
use progenitor::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle, TypeImpl};
use quote::quote;

/// The progenitor version the generated files are written with: the one
/// xtask depends on (checked against `xtask/Cargo.toml` and `Cargo.lock`).
pub const PROGENITOR_VERSION: &str = "0.15.1";

/// Generates every file, or (with `check`) says which are stale; `without`
/// names passes left out (for pricing them only: the files then differ).
pub fn run_without(check: bool, without: &[String]) -> Result<()> {
    for pass in without {
        if !passes::PASSES.iter().chain([&passes::LAST]).any(|p| p.name == pass) {
            bail!("--without {pass}: no such pass");
        }
    }
    let started = std::time::Instant::now();
    let mut stale = Vec::new();
    let mut rows = Vec::new();
    for service in &SERVICES {
        let generated = generate(service, without)?;
        println!(
            "codegen {}: {}",
            service.name,
            generated
                .passes
                .iter()
                .map(|(name, sites)| format!("{name} {sites}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        rows.extend(generated.rows);
        let outputs = [
            (
                repo_root()
                    .join("crates")
                    .join(service.crate_dir)
                    .join("src/generated.rs"),
                generated.client,
            ),
            (
                repo_root()
                    .join("tests/src/generated")
                    .join(format!("{}.rs", service.name)),
                generated.driver,
            ),
        ];
        stale.extend(write_or_check(outputs, check)?);
        if let Some(exports) = generated.exports {
            let path = repo_root().join("crates/vidplat-export/src/generated.rs");
            stale.extend(write_or_check([(path, exports)], check)?);
        }
    }
    let index = [(
        repo_root().join("crates/vidplat/src/operations.md"),
        emit::operation_index::render(&rows),
    )];
    stale.extend(write_or_check(index, check)?);
    let specs = SERVICES.iter().map(Service::load).collect::<Result<Vec<_>>>()?;
    let catalog = [(
        repo_root().join("crates/vidplat-cli/catalog.schema.json"),
        emit::catalog_schema::render(&specs.iter().collect::<Vec<_>>())?,
    )];
    stale.extend(write_or_check(catalog, check)?);
    if !stale.is_empty() {
        bail!(
            "generated files are stale (run `cargo xtask codegen`):\n{}",
            stale.join("\n")
        );
    }
    println!(
        "codegen: {} ({:.1?})",
        if check {
            "generated files are up to date"
        } else {
            "done"
        },
        started.elapsed()
    );
    Ok(())
}

/// What codegen writes for one service.
pub struct Generated {
    /// `crates/vidplat-<service>/src/generated.rs`.
    pub client: String,
    /// `tests/src/generated/<service>.rs`.
    pub driver: String,
    /// `crates/vidplat-export/src/generated.rs` (analytics only).
    pub exports: Option<String>,
    /// The service's rows of the operation index.
    pub rows: Vec<emit::operation_index::Row>,
    /// Each pass and the sites it changed.
    pub passes: Vec<(&'static str, usize)>,
}

/// Everything generated from one service's YAML.
pub fn generate(service: &Service, without: &[String]) -> Result<Generated> {
    let spec = service.load()?;
    let openapi: openapiv3::OpenAPI = serde_json::from_value(spec::for_progenitor(&spec))
        .with_context(|| format!("{} is not OpenAPI 3.0", service.name))?;
    let enums = spec::open_enums(&spec);

    let mut settings = GenerationSettings::default();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_hooks(HooksMode::Expected)
        .with_inner_type(quote!(vidplat_core::Runtime))
        .with_derive("schemars::JsonSchema");
    let schemas = spec["components"]["schemas"].as_object();
    for (schema, replacement) in [("Timestamp", "vidplat_core::Timestamp"), ("Date", "vidplat_core::Date")] {
        if schemas.is_some_and(|s| s.contains_key(schema)) {
            settings.with_replacement(schema, replacement, [TypeImpl::Display, TypeImpl::FromStr].into_iter());
        }
    }
    for e in &enums {
        settings.with_replacement(
            &e.name,
            format!("crate::types::{}", e.name),
            [TypeImpl::Display, TypeImpl::FromStr].into_iter(),
        );
    }
    let tokens = Generator::new(&settings)
        .generate_tokens(&openapi)
        .map_err(|e| anyhow!("progenitor failed on {}: {e}", service.name))?;
    let mut file: syn::File = syn::parse2(tokens).context("parsing progenitor's output")?;

    let operations = model::operations(service.name, &spec, &file)?;
    let mut passes = passes::run(&mut file, &spec, without)?;

    let types = syntax::types_module(&mut file)?;
    let mut added = items::enums::items(&enums)?;
    added.extend(items::paging::paged_impls(types)?);
    added.extend(items::conversions::items(types)?);
    added.extend(items::from_read::items(&spec, types)?);
    types.extend(added);
    let mut items = items::operation_builders::items(service.title, &spec, &operations)?;
    let builder = syntax::module_items(&mut items, "builder").context("the generated `builder` module")?;
    builder.extend(items::paging::paginated_impls(&operations)?);
    builder.extend(items::period::period_methods(&operations)?);
    file.items.extend(items);
    file.items
        .push(items::operation_table::module(service, &spec, &operations)?);
    file.items.push(items::markers::module(&spec, &operations)?);
    file.items.extend(items::aliases::alias_methods(&spec)?);
    file.items.extend(items::from_read::modify_methods(&spec, &operations)?);
    if !without.iter().any(|pass| pass == passes::LAST.name) {
        passes.push(passes::run_one(&passes::LAST, &mut file, &spec)?);
    }

    let exports = match service.name {
        "analytics" => Some(emit::export_schema::render(&spec, &operations, &file)?),
        _ => None,
    };
    let driver = emit::test_driver::render(service, &spec)?;
    let rows = emit::operation_index::rows(service.name, &operations, &spec);
    let header = format!(
        "// @generated by `cargo xtask codegen` from openapi/{}.yaml (progenitor {PROGENITOR_VERSION}).\n\
         // Do not edit: change the YAML or xtask/src/codegen/ and run `cargo xtask codegen`.\n\n\
         // typify emits generic `defaults::default_*` helpers whether or not a default uses them.\n\
         #![allow(dead_code)]\n\n",
        service.name
    );
    Ok(Generated {
        client: header + &prettyplease::unparse(&file),
        driver,
        exports,
        rows,
        passes,
    })
}

/// Writes each generated file, or (with `check`) says which differ from the committed ones.
fn write_or_check(outputs: impl IntoIterator<Item = (std::path::PathBuf, String)>, check: bool) -> Result<Vec<String>> {
    let mut stale = Vec::new();
    for (path, generated) in outputs {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == generated {
            continue;
        }
        if check {
            stale.push(format!("{}\n{}", path.display(), short_diff(&committed, &generated)));
        } else {
            std::fs::write(&path, &generated).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    Ok(stale)
}

fn short_diff(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("committed", "generated")
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.iter().take(40).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > 40 {
        format!("{shown}\n... ({} more diff lines)", lines.len() - 40)
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version in the generated header, the one xtask depends on, and the one
    /// Cargo.lock resolved must be one version, or the header would lie.
    #[test]
    fn progenitor_is_one_version_everywhere() {
        let manifest: toml::Table = std::fs::read_to_string(repo_root().join("xtask/Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let wanted = manifest["dependencies"]["progenitor"]["version"].as_str().unwrap();
        assert_eq!(wanted, format!("={PROGENITOR_VERSION}"), "xtask/Cargo.toml");
        let lock: toml::Table = std::fs::read_to_string(repo_root().join("Cargo.lock"))
            .unwrap()
            .parse()
            .unwrap();
        let locked: Vec<&str> = lock["package"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| {
                p["name"]
                    .as_str()
                    .is_some_and(|n| n == "progenitor" || n == "progenitor-impl")
            })
            .filter_map(|p| p["version"].as_str())
            .collect();
        assert_eq!(locked, [PROGENITOR_VERSION, PROGENITOR_VERSION], "Cargo.lock");
        // The workspace names no progenitor crate of its own: the generated crates do not depend on one.
        let workspace = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
        assert!(
            !workspace.contains("progenitor"),
            "the workspace Cargo.toml names progenitor"
        );
    }
}
