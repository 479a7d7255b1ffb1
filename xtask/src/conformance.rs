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
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let binary = crate::publish::target_dir().join("debug/vidplat-sim");
    // Generous analytics limits: the documented 3 a minute would answer (valid) 429s to nearly everything.
    let mut sim = Running(
        Command::new(&binary)
            .args([
                "--fast",
                "--port",
                &port.to_string(),
                "--analytics-per-minute",
                "100000",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?,
    );
    // The simulator prints its settings once it listens; the key is read from there.
    let stdout = sim.0.stdout.take().context("the simulator's output")?;
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let api_key = lines
        .by_ref()
        .take(20)
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("VIDPLAT_API_KEY=").map(str::to_owned))
        .context("the simulator printed no VIDPLAT_API_KEY")?;
    // Keep reading, so the simulator never writes into a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    for service in &SERVICES {
        let url = format!("http://127.0.0.1:{port}/{}", service.name);
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
