//! Support code for the workspace's integration tests.

pub mod bounds;
pub mod driver;
pub mod generated;
pub mod redis_server;
mod required;
pub mod samples;
pub mod surface;

pub use required::required;

/// The README's Rust examples, compiled (and run unless marked `no_run`) as
/// doc tests by `cargo xtask test`, so they cannot drift from the SDK.
/// Here, not in a published crate, because the README lies outside them.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// Each crate's README, likewise (vidplat-export's is its crate's own
/// documentation, compiled there). `crate_readmes_compile_their_rust` in the
/// suite checks that no README marks a Rust example `ignore` but the one
/// that needs crates vidplat does not depend on.
#[cfg(doctest)]
pub mod crate_readmes {
    #[doc = include_str!("../../crates/vidplat/README.md")]
    pub struct Facade;
    #[doc = include_str!("../../crates/vidplat-core/README.md")]
    pub struct Core;
    #[doc = include_str!("../../crates/vidplat-encoder/README.md")]
    pub struct Encoder;
    #[doc = include_str!("../../crates/vidplat-vms/README.md")]
    pub struct Vms;
    #[doc = include_str!("../../crates/vidplat-analytics/README.md")]
    pub struct Analytics;
    #[doc = include_str!("../../crates/vidplat-sim/README.md")]
    pub struct Sim;
    #[doc = include_str!("../../crates/vidplat-cli/README.md")]
    pub struct Cli;
    #[doc = include_str!("../../crates/vidplat-test/README.md")]
    pub struct Kit;
}

/// The book's pages (`docs/`), likewise: each Markdown file with Rust in it
/// is here, and `the_book_s_rust_is_compiled` in the suite checks that none is missing.
#[cfg(doctest)]
pub mod book {
    #[doc = include_str!("../../docs/sdk.md")]
    pub struct Sdk;
    #[doc = include_str!("../../docs/observability.md")]
    pub struct Observability;
    #[doc = include_str!("../../docs/cookbook.md")]
    pub struct Cookbook;
    #[doc = include_str!("../../docs/export.md")]
    pub struct Export;
    #[doc = include_str!("../../docs/simulator.md")]
    pub struct Simulator;
}

use std::path::{Path, PathBuf};

/// The README and every page of the book's own folder (`docs/`), sorted.
pub fn book_pages() -> Vec<PathBuf> {
    let root = repo_root();
    let mut pages = vec![root.join("README.md")];
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("the book's folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The services, by short name, as in `openapi/<name>.yaml` and `crates/vidplat-<name>`.
pub const SERVICES: [&str; 3] = ["encoder", "vms", "analytics"];

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A service's YAML as JSON.
pub fn load_spec(service: &str) -> serde_json::Value {
    let path = repo_root().join("openapi").join(format!("{service}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

pub fn generated_source(service: &str) -> String {
    let path = repo_root()
        .join("crates")
        .join(format!("vidplat-{service}"))
        .join("src/generated.rs");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A facade client whose three services all point at one local test server
/// (`http://127.0.0.1:<port>`), with the analytics limiter off unless a test sets one.
pub fn local_client(base_url: &str) -> vidplat::ClientBuilder {
    vidplat::Client::builder()
        .encoder_url(base_url)
        .vms_url(base_url)
        .analytics_url(base_url)
        .api_key("test-key")
        .analytics_quota(None)
}

/// A minimal valid task registration body.
pub fn task_body() -> vidplat::encoder::types::builder::TaskCreate {
    vidplat::encoder::types::TaskCreate::builder()
        .input_filepath("movie.mp4")
        .profile_id(std::num::NonZeroU64::MIN)
}

/// The one refusal of an error refused before sending, as `(path, rule)`:
/// `None` for any other error, or for several refusals.
pub fn only_refusal(error: &vidplat::Error) -> Option<(&str, &str)> {
    match error {
        vidplat::Error::InvalidInput(refusals) if refusals.len() == 1 => {
            refusals.iter().next().map(|refusal| (refusal.path(), refusal.rule()))
        }
        _ => None,
    }
}
