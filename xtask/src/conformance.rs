//! `cargo xtask conformance`: schemathesis (pinned, installed with the lint
//! tools) sends generated valid requests for every operation to the simulator
//! and fails on any response that breaks the YAML: a status the operation does
//! not declare, a body outside its schema, a wrong content type.

use crate::lint::{install, venv_bin};
use crate::process::run;
use crate::services::{repo_root, SERVICES};
use anyhow::{Context, Result};
use std::process::{Child, Command, Stdio};

/// Test cases per operation: enough to reach the error paths, bounded for CI.
const EXAMPLES_PER_OPERATION: &str = "8";

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Where the simulator binary comes from.
pub enum Simulator {
    /// Built here, on its own.
    Build,
    /// The test build (`cargo xtask test`) built it already (CI): building it again with the
    /// simulator's features alone would rebuild what lies below it.
    BuiltByTests,
}

pub fn run_all(simulator: Simulator) -> Result<()> {
    install()?;
    let root = repo_root();
    if let Simulator::Build = simulator {
        run(crate::services::cargo()
            .args(["build", "--quiet", "-p", "vidplat-sim", "--bin", "vidplat-sim"])
            .current_dir(&root))?;
    }
    let binary = crate::publish::target_dir().join("debug/vidplat-sim");
    // Generous analytics limits: the documented 3 a minute would answer (valid) 429s to nearly everything.
    let mut sim = Running(
        Command::new(&binary)
            .args([
                "--fast",
                // Port 0: the simulator binds a free port and prints it, so no
                // other process can take it between a choice and the bind.
                "--port",
                "0",
                "--analytics-per-minute",
                "100000",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?,
    );
    // The simulator prints its settings once it listens; its address and key are read from there.
    let stdout = sim.0.stdout.take().context("the simulator's output")?;
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let (mut sim_url, mut api_key) = (None, None);
    for line in lines.by_ref().take(20).map_while(Result::ok) {
        if let Some(url) = line.strip_prefix("VIDPLAT_SIM_URL=") {
            sim_url = Some(url.to_owned());
        } else if let Some(key) = line.strip_prefix("VIDPLAT_API_KEY=") {
            api_key = Some(key.to_owned());
        }
        if sim_url.is_some() && api_key.is_some() {
            break;
        }
    }
    let sim_url = sim_url.context("the simulator printed no VIDPLAT_SIM_URL")?;
    let api_key = api_key.context("the simulator printed no VIDPLAT_API_KEY")?;
    // Keep reading, so the simulator never writes into a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    for service in &SERVICES {
        let url = format!("{sim_url}/{}", service.name);
        println!("schemathesis: {} against {url}", service.name);
        run(Command::new(venv_bin("schemathesis"))
            .arg("run")
            .arg(service.yaml_path())
            .args(["--url", &url])
            .args(["--header", &format!("Authorization: Bearer {api_key}")])
            .args([
                "--checks",
                "status_code_conformance,content_type_conformance,response_schema_conformance",
            ])
            .args(["--mode", "positive", "--max-examples", EXAMPLES_PER_OPERATION])
            .args([
                "--seed",
                "1",
                "--no-shrink",
                "--generation-database",
                "none",
                "--workers",
                "1",
            ])
            .args(["--phases", "examples,fuzzing", "--no-color"])
            .current_dir(&root))?;
    }
    Ok(())
}
