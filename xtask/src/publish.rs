//! Ready to publish: the library crates' documentation builds without a
//! warning, and each of them packages into a `.crate` that compiles on its own.

use crate::services::repo_root;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates meant for crates.io, in dependency order (`xtask` and `vidplat-tests` are not):
/// the libraries, the simulator, the exporter, the test kit and the command line.
pub const LIBRARY_CRATES: [&str; 10] = [
    "vidplat-core",
    "vidplat-redis",
    "vidplat-encoder",
    "vidplat-vms",
    "vidplat-analytics",
    "vidplat",
    "vidplat-sim",
    "vidplat-export",
    "vidplat-test",
    "vidplat-cli",
];

/// The crates checked together: one `cargo check` per group, each with only
/// its own crates' features. The three generated crates declare the same
/// dependencies with the same features, so checking them together unifies
/// nothing a lone check of one of them would not.
const CHECK_GROUPS: [&[&str]; 8] = [
    &["vidplat-core"],
    &["vidplat-redis"],
    &["vidplat-encoder", "vidplat-vms", "vidplat-analytics"],
    &["vidplat"],
    &["vidplat-sim"],
    &["vidplat-export"],
    &["vidplat-test"],
    &["vidplat-cli"],
];

/// Files every package must carry besides its sources: what crates.io shows and the license texts.
const REQUIRED_FILES: [&str; 3] = ["README.md", "LICENSE-MIT", "LICENSE-APACHE"];

/// `cargo doc --no-deps` with `-D warnings`, every feature of the library
/// crates on: broken intra-doc links and malformed docs fail.
///
/// The libraries alone, without a target that needs the dev-dependencies:
/// nothing else checks the dependencies (the test build compiles them, and
/// lints the workspace's crates: docs/decisions/0014), so only what the
/// libraries use is checked. Not the unpublished crates either (the tests'
/// crate, which holds the README and the guides only to run their code, and
/// the application built as a user's): their dependencies' features joined
/// the libraries' and made the package checks' dependencies differ from these.
pub fn docs() -> Result<()> {
    let features = library_features()?.join(",");
    let mut args = vec!["doc", "--no-deps", "--lib"];
    args.extend(each_library());
    if !features.is_empty() {
        args.extend(["--features", &features]);
    }
    run_cargo(&args, &repo_root(), &[("RUSTDOCFLAGS", "-D warnings")])
}

/// `-p NAME` for each library crate: cargo's selection of them all.
fn each_library<'a>() -> impl Iterator<Item = &'a str> {
    LIBRARY_CRATES.into_iter().flat_map(|name| ["-p", name])
}

/// Every feature of the library crates, as `crate/feature`, from `cargo metadata`.
fn library_features() -> Result<Vec<String>> {
    let output = crate::services::cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(repo_root())
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed ({})", output.status);
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).context("cargo metadata's output")?;
    let mut features = Vec::new();
    for package in metadata["packages"].as_array().context("cargo metadata's packages")? {
        let name = package["name"].as_str().unwrap_or_default();
        if LIBRARY_CRATES.contains(&name) {
            let own = package["features"].as_object().context("a package's features")?;
            features.extend(own.keys().map(|feature| format!("{name}/{feature}")));
        }
    }
    Ok(features)
}

/// Packages the library crates and checks that each package compiles from its
/// own files.
///
/// `cargo package`'s own verification builds every package from its `.crate`,
/// with each package's own feature set: 5m20s on the shared 2-core machine
/// from a cold target directory. And only a cold one gives a true answer: it
/// takes the sibling crates it packaged as registry crates, which cargo treats
/// as immutable for a given version, so a second run with the same version
/// reuses the first run's unpacked copy (in `$CARGO_HOME/registry/src`) and
/// compiled artifact (in the target directory) of `vidplat-core`. Seen here:
/// after `ServiceErrorCode` was added, `vidplat-analytics` failed to verify
/// against the earlier `vidplat-core`; a breaking change could as well pass.
///
/// This does the same with `cargo check` (no code generation, no linking),
/// with the crates as path dependencies, which cargo re-checks whenever their
/// files are newer than its last check (unpacking gives them the current
/// time), in the shared target directory: 3m30s cold, 1m20s warm:
/// 1. `cargo package --no-verify`: manifests valid for crates.io, path
///    dependencies carrying versions, the files each package holds;
/// 2. each `.crate` is unpacked into one workspace whose `[patch.crates-io]`
///    resolves the crates to each other's packaged copies (as crates.io would
///    after publishing them in order), with the repository's `Cargo.lock`;
/// 3. `cargo check` of each crate on its own (`CHECK_GROUPS`), so each builds
///    with only the features it asks for, like a user's build or the verification;
/// 4. the programs under `crates/vidplat-core/tests/ui/` fail to compile
///    against the packaged `vidplat-core` with the errors they expect (`diagnostics.rs`).
///
/// What it does not check, and the verification would: code generation and
/// linking (only `vidplat-sim`'s binary links; the libraries are pure Rust),
/// and the lock `cargo package` resolves for each package alone (this check
/// uses the workspace's `Cargo.lock`). Neither checks the packages' tests,
/// examples or benchmarks.
pub fn package() -> Result<()> {
    let started = std::time::Instant::now();
    let root = repo_root();
    // --allow-dirty: a run before committing checks the working tree as it is.
    // --offline: the workspace's build has the registry's index entries for
    // every package of `Cargo.lock` at hand; online, cargo asks the registry
    // again for each package (1.6 s against 16.9 s here, the same `.crate`
    // files byte for byte, also from a new CARGO_HOME after `cargo fetch`).
    let mut args = vec!["package", "--no-verify", "--allow-dirty", "--offline"];
    args.extend(each_library());
    run_cargo(&args, &root, &[])?;

    let target = target_dir();
    let packages = target.join("package");
    // A stable path keeps the check's fingerprints valid from one run to the next.
    let workspace = packages.join("check");
    if workspace.exists() {
        std::fs::remove_dir_all(&workspace).with_context(|| format!("removing {}", workspace.display()))?;
    }
    std::fs::create_dir_all(&workspace)?;
    let mut members = Vec::new();
    let mut patches = Vec::new();
    for name in LIBRARY_CRATES {
        let version = crate_version(name)?;
        let file = packages.join(format!("{name}-{version}.crate"));
        // -m: files get the time of unpacking. The .crate holds one fixed time for
        // every file, which would let cargo take a changed file for an unchanged one.
        let status = Command::new("tar")
            .arg("-xmzf")
            .arg(&file)
            .arg("-C")
            .arg(&workspace)
            .status()
            .context("running tar")?;
        if !status.success() {
            bail!("unpacking {} failed ({status})", file.display());
        }
        let dir = format!("{name}-{version}");
        for required in REQUIRED_FILES {
            if !workspace.join(&dir).join(required).is_file() {
                bail!("the {name} package has no {required}");
            }
        }
        members.push(format!("{dir:?}"));
        patches.push(format!("{name} = {{ path = {dir:?} }}"));
    }
    let diagnostics_dir = "vidplat-core-diagnostics";
    let diagnostics = crate::diagnostics::write_package(
        &workspace.join(diagnostics_dir),
        &format!("vidplat-core-{}", crate_version("vidplat-core")?),
    )?;
    members.push(format!("{diagnostics_dir:?}"));
    std::fs::write(
        workspace.join("Cargo.toml"),
        format!(
            "# Written by `cargo xtask ci` (xtask/src/publish.rs): the packaged crates, as crates.io would serve them.\n\
             [workspace]\nresolver = \"2\"\nmembers = [{}]\n\n[patch.crates-io]\n{}\n",
            members.join(", "),
            patches.join("\n")
        ),
    )?;
    std::fs::copy(root.join("Cargo.lock"), workspace.join("Cargo.lock"))?;
    let target_env = [("CARGO_TARGET_DIR", target.to_str().context("target directory path")?)];
    for group in CHECK_GROUPS {
        let mut args = vec!["check"];
        for name in group {
            args.extend(["-p", name]);
        }
        run_cargo(&args, &workspace, &target_env)?;
    }
    // After `vidplat-core`'s lone check: its dependencies are compiled with its features.
    crate::diagnostics::check(&workspace, diagnostics, &target_env)?;
    println!(
        "package: {} packaged, each compiles from its .crate ({:.0?})",
        LIBRARY_CRATES.join(", "),
        started.elapsed()
    );
    Ok(())
}

/// A crate's version, which names its package file.
fn crate_version(name: &str) -> Result<String> {
    let path = repo_root().join("crates").join(name).join("Cargo.toml");
    let manifest = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .with_context(|| format!("{} has no `version = \"…\"` line", path.display()))
}

pub fn target_dir() -> PathBuf {
    // A relative CARGO_TARGET_DIR is relative to where cargo runs: the repository root.
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => repo_root().join(dir),
        None => repo_root().join("target"),
    }
}

/// Runs cargo in `dir`, saying the command and how long it took.
pub fn run_cargo(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Result<()> {
    println!("$ cargo {}", args.join(" "));
    let started = std::time::Instant::now();
    let status = crate::services::cargo()
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .status()?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    println!("(cargo {} took {:.1?})", args.join(" "), started.elapsed());
    Ok(())
}
