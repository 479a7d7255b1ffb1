//! The three services: where their YAML, their source document and their crate live.

use anyhow::{Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub struct Service {
    /// Short name, as in `openapi/<name>.yaml`.
    pub name: &'static str,
    /// Heading used in GAPS.md.
    pub title: &'static str,
    /// The source document's file name (the documents are not in the repository).
    pub document: &'static str,
    /// The generated crate's directory, under `crates/`.
    pub crate_dir: &'static str,
}

pub const SERVICES: [Service; 3] = [
    Service {
        name: "encoder",
        title: "Encoding service",
        document: "1-encoding-service.md",
        crate_dir: "vidplat-encoder",
    },
    Service {
        name: "vms",
        title: "Video management service",
        document: "2-video-management-service.md",
        crate_dir: "vidplat-vms",
    },
    Service {
        name: "analytics",
        title: "Viewing analytics (basic /v1 and cloud /v2)",
        document: "3-viewing-analytics.md",
        crate_dir: "vidplat-analytics",
    },
];

impl Service {
    pub fn yaml_path(&self) -> PathBuf {
        repo_root().join("openapi").join(format!("{}.yaml", self.name))
    }

    /// The YAML as a JSON value: the form every xtask command reads it in.
    pub fn load(&self) -> Result<Value> {
        load_yaml(&self.yaml_path())
    }
}

pub fn load_yaml(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// The cargo that runs the xtask (`$CARGO`), as a command to add arguments to.
pub fn cargo() -> std::process::Command {
    std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

pub fn repo_root() -> PathBuf {
    // xtask lives at <root>/xtask.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent directory")
        .to_path_buf()
}

/// Every operation of a spec: (path, method, operation object).
pub fn operations(spec: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    if let Some(paths) = spec["paths"].as_object() {
        for (path, item) in paths {
            if let Some(item) = item.as_object() {
                for (method, op) in item {
                    if HTTP_METHODS.contains(&method.as_str()) {
                        out.push((path.clone(), method.to_uppercase(), op));
                    }
                }
            }
        }
    }
    out
}

pub const HTTP_METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
