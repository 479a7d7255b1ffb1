//! The TypeScript step of `cargo xtask lint` beyond the types: openapi-generator's
//! `typescript-fetch` client of the video management service (the jar of the
//! pinned `openapi-generator-cli`, run with `java`) decodes a bulk
//! registration's `responses` in both of the forms an item may take, the id
//! object (with an unknown member) and the id string, and encodes them back
//! unchanged. A two-form `anyOf` made that client read the string form as `{}`:
//! the item names no type in the YAML (`x-forms` lists the forms for the Rust
//! generator), and this check keeps it that way.
//!
//! Needs `java` and `node` on `PATH`; without them it says "skipped" and passes,
//! unless `VIDPLAT_REQUIRE_GO=1` (the same switch as the Go step, which needs
//! `java` too).

use crate::go_client::Body;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The check, run by node on the compiled client: every BulkRegistration body
/// (as the client keeps it) through `FromJSON` and `ToJSON`; prints how many.
const CHECK: &str = r#"
import { BulkRegistrationFromJSON, BulkRegistrationToJSON } from "./models/BulkRegistration";
// Node's own names, declared here: the tools install no @types/node.
declare const require: (name: string) => any;
declare const process: { argv: string[]; exit(code: number): never };
const fs = require("fs");

const bodies: Array<{ schema: string; disturbance: string; kept: any }> = JSON.parse(
  fs.readFileSync(process.argv[2], "utf8"),
);
let checked = 0;
const problems: string[] = [];
for (const body of bodies.filter((b) => b.schema === "BulkRegistration")) {
  const again = BulkRegistrationToJSON(BulkRegistrationFromJSON(body.kept));
  if (JSON.stringify(again) !== JSON.stringify(body.kept)) {
    problems.push(`${body.disturbance}: ${JSON.stringify(body.kept)} came back as ${JSON.stringify(again)}`);
  }
  checked += 1;
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(checked);
"#;

/// Generates the client under `out/typescript-fetch` and decodes the
/// BulkRegistration bodies of `bodies/vms-bodies.json`.
pub fn run(generator: &Path, tsc: &Path, out: &Path, bodies: &Path) -> Result<()> {
    let started = Instant::now();
    let found = crate::process::tools_found(
        "typescript-fetch client",
        &["java", "node"],
        crate::go_client::on_path,
        crate::go_client::REQUIRE_GO,
    )?;
    if !found {
        return Ok(());
    }
    let file = bodies.join("vms-bodies.json");
    let list: Vec<Body> = serde_json::from_str(&std::fs::read_to_string(&file)?)
        .with_context(|| format!("reading {}", file.display()))?;
    crate::go_client::bulk_registered_id_cases(&list)?;

    let dir = out.join("typescript-fetch");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    let yaml = crate::services::repo_root().join("openapi/vms.yaml");
    let log = std::fs::File::create(out.join("typescript-fetch.log"))?;
    let status = Command::new(generator)
        .env("JAVA_OPTS", "-XX:TieredStopAtLevel=1")
        .args(["generate", "-g", "typescript-fetch", "-i"])
        .arg(&yaml)
        .arg("-o")
        .arg(&dir)
        // The models of a bulk registration and the runtime they import; no API classes.
        .args([
            "--global-property",
            "models=BulkRegistration:BulkRegisteredId:RegisteredId,supportingFiles=runtime.ts",
        ])
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .context("starting openapi-generator-cli")?;
    if !status.success() {
        bail!("openapi-generator-cli (typescript-fetch) failed ({status}); see typescript-fetch.log");
    }
    std::fs::write(dir.join("check.ts"), CHECK)?;
    crate::process::run(
        Command::new(tsc)
            .args(["--strict", "--target", "es2020", "--module", "commonjs"])
            .args(["--skipLibCheck", "--outDir"])
            .arg(dir.join("js"))
            .arg(dir.join("check.ts"))
            .current_dir(&dir),
    )?;
    let ran = Command::new("node")
        .arg(dir.join("js/check.js"))
        .arg(&file)
        .output()
        .context("running node")?;
    if !ran.status.success() {
        bail!(
            "typescript-fetch client: a bulk registration's item does not come back as it was sent:\n{}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    println!(
        "typescript-fetch client vms: a bulk registration's item decodes and encodes back unchanged in both \
         forms, the id object (with an unknown member) and the id string ({} bodies, {:.1?})",
        String::from_utf8_lossy(&ran.stdout).trim(),
        started.elapsed()
    );
    Ok(())
}
