//! `cargo xtask build-cost`: what depending on `vidplat` costs a user's clean
//! dev build, against a crate that depends only on what a hand-written client
//! would (reqwest with the SDK's features, serde, serde_json, tokio).
//!
//! Each minimal crate is written under a temporary directory, outside the
//! workspace, with the workspace's `Cargo.lock` (so both sides build the same
//! versions), and built in a fresh target directory that is deleted as soon as
//! it is measured. The baseline is built once and compared with every feature
//! set. After each clean build, the crate's `main.rs` is touched and the crate
//! rebuilt: the incremental rebuild a user pays on every edit.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One feature set of `vidplat` to measure, and the ratio it must meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeatureSet {
    pub name: &'static str,
    pub features: &'static [&'static str],
    pub target: f64,
}

/// All three services: ≤ 1.3× the baseline; one service alone: ≤ 1.1×.
pub const FEATURE_SETS: [FeatureSet; 4] = [
    FeatureSet {
        name: "all",
        features: &["encoder", "vms", "analytics"],
        target: 1.3,
    },
    FeatureSet {
        name: "encoder",
        features: &["encoder"],
        target: 1.1,
    },
    FeatureSet {
        name: "vms",
        features: &["vms"],
        target: 1.1,
    },
    FeatureSet {
        name: "analytics",
        features: &["analytics"],
        target: 1.1,
    },
];

/// reqwest exactly as `vidplat` enables it (workspace `Cargo.toml` plus the facade's `rustls`).
const REQWEST_FEATURES: &[&str] = &["json", "query", "stream", "rustls"];

/// What the hand-written client is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Baseline {
    /// The issue's baseline: reqwest's `rustls` feature, so rustls with its
    /// default provider (aws-lc-rs, a C build), as a hand-written client gets it.
    Reqwest,
    /// The same with the TLS provider `vidplat` uses (rustls with ring): what
    /// the SDK's own code costs, the TLS choice set aside (`--ring-baseline`).
    ReqwestRing,
}

/// What one build measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub clean: Duration,
    pub rebuild: Duration,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub set: FeatureSet,
    pub vidplat: Measured,
    pub baseline: Measured,
}

impl Row {
    pub fn ratio(&self) -> f64 {
        self.vidplat.clean.as_secs_f64() / self.baseline.clean.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    pub fn met(&self) -> bool {
        self.ratio() <= self.set.target
    }
}

/// The `Cargo.toml` of the user's crate that depends on `vidplat` (by path).
pub fn vidplat_manifest(vidplat: &Path, set: &FeatureSet) -> String {
    let features = quoted(set.features);
    format!(
        "[package]\nname = \"uses-vidplat\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nvidplat = {{ path = {path}, default-features = false, features = [{features}] }}\n\
         tokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n\n[workspace]\n",
        path = toml_string(&vidplat.display().to_string()),
    )
}

/// The `Cargo.toml` of the baseline crate: what a hand-written client depends on.
pub fn baseline_manifest(baseline: Baseline) -> String {
    let (features, tls) = match baseline {
        Baseline::Reqwest => (quoted(REQWEST_FEATURES), String::new()),
        Baseline::ReqwestRing => {
            let mut features = REQWEST_FEATURES.to_vec();
            features.retain(|f| *f != "rustls");
            features.push("rustls-no-provider");
            (
                quoted(&features),
                "rustls = { version = \"0.23\", default-features = false, features = [\"ring\", \"std\", \"tls12\"] }\n"
                    .to_owned(),
            )
        }
    };
    format!(
        "[package]\nname = \"uses-reqwest\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nreqwest = {{ version = \"0.13\", default-features = false, features = [{features}] }}\n\
         {tls}serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\
         tokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n\n[workspace]\n",
    )
}

/// `main.rs` of the baseline crate; with ring, the provider is installed first
/// (reqwest has none to fall back on). With `calls`, it also sends a request
/// and decodes the answer (never run: the crate is only built).
pub fn baseline_main(baseline: Baseline, calls: bool) -> String {
    let mut main = BASELINE_MAIN.to_owned();
    if calls {
        main = main.replacen(
            "    Ok(())",
            "    if std::env::args().count() > 1 {\n        \
             let task: Task = client.get(\"https://encoder.example.invalid/v1/tasks/7\").send().await?.json().await?;\n        \
             println!(\"{}\", task.id);\n    }\n    Ok(())",
            1,
        );
    }
    match baseline {
        Baseline::Reqwest => main,
        Baseline::ReqwestRing => main.replacen(
            "    let client",
            "    let _ = rustls::crypto::ring::default_provider().install_default();\n    let client",
            1,
        ),
    }
}

/// `main.rs` of the `vidplat` crate: build a client for each enabled service,
/// so the linker links them; with `calls`, also send one operation of each
/// (never run: the crate is only built), so what an operation a program calls
/// costs to compile is in the figure.
pub fn vidplat_main(set: &FeatureSet, calls: bool) -> String {
    let mut urls = String::new();
    let mut uses = String::new();
    for service in set.features {
        urls.push_str(&format!(
            "        .{service}_url(\"https://{service}.example.invalid\")\n"
        ));
        uses.push_str(&format!(
            "    println!(\"{service}: {{}}\", client.{service}().is_ok());\n"
        ));
    }
    if calls {
        uses.push_str("    if std::env::args().count() > 1 {\n");
        for service in set.features {
            let call = match *service {
                "encoder" => "encoder()?.get_task().task_id(7)",
                "vms" => "vms()?.get_content().content_name(\"c\")",
                _ => "analytics()?.basic_by_content_category()",
            };
            uses.push_str(&format!(
                "        println!(\"{service}: {{}}\", client.{call}.send().await.is_ok());\n"
            ));
        }
        uses.push_str("    }\n");
    }
    format!(
        "#[tokio::main]\nasync fn main() -> Result<(), vidplat::Error> {{\n    let client = vidplat::Client::builder()\n\
         {urls}        .api_key(\"key\")\n        .build()?;\n{uses}    Ok(())\n}}\n"
    )
}

/// `main.rs` of the baseline crate: build a client and serialize a struct.
pub const BASELINE_MAIN: &str = r#"#[derive(serde::Serialize, serde::Deserialize)]
struct Task {
    id: u64,
    name: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = reqwest::Client::builder().user_agent("baseline").build()?;
    let body = serde_json::to_string(&Task { id: 7, name: "task".into() })?;
    let back: Task = serde_json::from_str(&body)?;
    println!("{:?} {} {}", client, body, back.id);
    Ok(())
}
"#;

fn quoted(items: &[&str]) -> String {
    items.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ")
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The table the command prints.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| feature set | vidplat clean (s) | baseline clean (s) | ratio | target | met? | vidplat rebuild (s) | baseline rebuild (s) |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for row in rows {
        out.push_str(&format!(
            "| {} | {:.1} | {:.1} | {:.2} | ≤ {:.2} | {} | {:.2} | {:.2} |\n",
            row.set.name,
            row.vidplat.clean.as_secs_f64(),
            row.baseline.clean.as_secs_f64(),
            row.ratio(),
            row.set.target,
            if row.met() { "yes" } else { "no" },
            row.vidplat.rebuild.as_secs_f64(),
            row.baseline.rebuild.as_secs_f64(),
        ));
    }
    out
}

/// The median of each feature set's ratio over the rounds (each round judged
/// against its own baseline build), and whether it meets the target.
pub fn summary(rounds: &[Vec<Row>]) -> String {
    let mut out = String::from(
        "| feature set | ratio in each round | median | target | met? |\n| --- | --- | --- | --- | --- |\n",
    );
    let Some(first) = rounds.first() else { return out };
    for (at, row) in first.iter().enumerate() {
        let mut ratios: Vec<f64> = rounds
            .iter()
            .filter_map(|round| round.get(at))
            .map(Row::ratio)
            .collect();
        let each = ratios.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(", ");
        ratios.sort_by(f64::total_cmp);
        let median = match ratios.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => ratios[n / 2],
            n => (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0,
        };
        out.push_str(&format!(
            "| {} | {each} | {median:.2} | ≤ {:.2} | {} |\n",
            row.set.name,
            row.set.target,
            if median <= row.set.target { "yes" } else { "no" },
        ));
    }
    out
}

/// What `cargo xtask build-cost` measures (its `--help` says how).
#[derive(Debug, clap::Args)]
pub struct Options {
    /// Only this feature set: all, encoder, vms or analytics.
    #[arg(long)]
    only: Option<String>,
    /// Builds the baseline and every feature set this many times in turn and
    /// judges the median ratio (one round swings by ±0.1 on a busy machine).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    rounds: u64,
    /// The baseline uses the SDK's TLS provider (ring): what vidplat's own
    /// crates cost a user, the TLS choice set aside.
    #[arg(long)]
    ring_baseline: bool,
    /// The checkout whose crates are measured (default: this one).
    #[arg(long)]
    repo: Option<PathBuf>,
    /// Both mains also send a request (one operation of each service for
    /// vidplat): what the operations a program calls add.
    #[arg(long)]
    calls: bool,
    /// Each clean build of the last round also writes cargo's `--timings` report into this directory.
    #[arg(long)]
    timings: Option<PathBuf>,
}

pub fn run(options: &Options) -> Result<()> {
    let repo = options.repo.clone().unwrap_or_else(crate::services::repo_root);
    let only = options.only.as_deref();
    let timings = options.timings.clone();
    let rounds = usize::try_from(options.rounds).unwrap_or(usize::MAX);
    let baseline_kind = if options.ring_baseline {
        Baseline::ReqwestRing
    } else {
        Baseline::Reqwest
    };
    let sets: Vec<FeatureSet> = FEATURE_SETS
        .iter()
        .copied()
        .filter(|s| only.is_none_or(|o| o == s.name))
        .collect();
    if sets.is_empty() {
        bail!("--only takes one of: all, encoder, vms, analytics");
    }
    let lock = repo.join("Cargo.lock");
    let root = std::env::temp_dir().join(format!("vidplat-build-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let outcome = (|| -> Result<Vec<Vec<Row>>> {
        println!("load before: {} (baseline: {baseline_kind:?})", load());
        let mut all = Vec::new();
        for round in 1..=rounds {
            let last = round == rounds;
            let report = |name: &str| {
                timings
                    .as_ref()
                    .filter(|_| last)
                    .map(|dir| dir.join(format!("{name}.html")))
            };
            let baseline = measure(
                &root.join("baseline"),
                &baseline_manifest(baseline_kind),
                &baseline_main(baseline_kind, options.calls),
                &lock,
                report("baseline").as_deref(),
            )?;
            println!("round {round}: baseline: {baseline:?} (load {})", load());
            let mut rows = Vec::new();
            for set in &sets {
                let dir = root.join(format!("vidplat-{}", set.name));
                let vidplat = measure(
                    &dir,
                    &vidplat_manifest(&repo.join("crates/vidplat"), set),
                    &vidplat_main(set, options.calls),
                    &lock,
                    report(&format!("vidplat-{}", set.name)).as_deref(),
                )?;
                println!("round {round}: vidplat {}: {vidplat:?} (load {})", set.name, load());
                rows.push(Row {
                    set: *set,
                    vidplat,
                    baseline,
                });
            }
            println!("\n{}", table(&rows));
            all.push(rows);
        }
        Ok(all)
    })();
    let _ = std::fs::remove_dir_all(&root);
    let rounds = outcome?;
    if rounds.len() > 1 {
        println!("{}", summary(&rounds));
    }
    println!("load after: {}", load());
    Ok(())
}

/// Writes the crate into `dir`, builds it in a fresh target directory, touches
/// `main.rs`, rebuilds, and deletes the target directory.
fn measure(dir: &Path, manifest: &str, main: &str, lock: &Path, timings: Option<&Path>) -> Result<Measured> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::write(dir.join("src/main.rs"), main)?;
    std::fs::copy(lock, dir.join("Cargo.lock")).context("copying the workspace's Cargo.lock")?;
    let target = dir.join("target");
    let build = |timed: bool| -> Result<Duration> {
        let started = Instant::now();
        let status = crate::services::cargo()
            .args(["build", "--quiet"])
            .args(timed.then_some("--timings"))
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .status()?;
        if !status.success() {
            bail!("`cargo build` failed in {} ({status})", dir.display());
        }
        Ok(started.elapsed())
    };
    let outcome = (|| -> Result<Measured> {
        let clean = build(timings.is_some())?;
        if let Some(report) = timings {
            std::fs::create_dir_all(report.parent().unwrap_or(Path::new(".")))?;
            std::fs::copy(target.join("cargo-timings/cargo-timing.html"), report)?;
        }
        let main_rs = dir.join("src/main.rs");
        std::fs::File::options()
            .append(true)
            .open(&main_rs)?
            .set_modified(std::time::SystemTime::now())?;
        let rebuild = build(false)?;
        Ok(Measured { clean, rebuild })
    })();
    let _ = std::fs::remove_dir_all(&target);
    outcome
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(clean: f64, rebuild: f64) -> Measured {
        Measured {
            clean: Duration::from_secs_f64(clean),
            rebuild: Duration::from_secs_f64(rebuild),
        }
    }

    #[test]
    fn manifests_name_the_features_and_stay_out_of_any_workspace() {
        let set = FEATURE_SETS[1];
        let manifest = vidplat_manifest(Path::new("/src/vid\"plat/crates/vidplat"), &set);
        let parsed: toml_value::Table = toml_value::parse(&manifest);
        assert!(manifest.contains("default-features = false, features = [\"encoder\"]"));
        assert!(manifest.contains("path = \"/src/vid\\\"plat/crates/vidplat\""));
        assert!(parsed.has_section("workspace"));
        let baseline = baseline_manifest(Baseline::Reqwest);
        assert!(baseline.contains("features = [\"json\", \"query\", \"stream\", \"rustls\"]"));
        assert!(baseline.contains("default-features = false"));
        assert!(!baseline.contains("ring"));
        assert!(toml_value::parse(&baseline).has_section("workspace"));
        let ring = baseline_manifest(Baseline::ReqwestRing);
        assert!(ring.contains("features = [\"json\", \"query\", \"stream\", \"rustls-no-provider\"]"));
        assert!(ring.contains("rustls = { version = \"0.23\", default-features = false, features = [\"ring\""));
        assert!(baseline_main(Baseline::ReqwestRing, false).contains("ring::default_provider().install_default()"));
        assert_eq!(baseline_main(Baseline::Reqwest, false), BASELINE_MAIN);
        let calling = baseline_main(Baseline::ReqwestRing, true);
        assert!(
            calling.contains(".send().await?.json().await?") && calling.contains("install_default"),
            "{calling}"
        );
    }

    #[test]
    fn over_rounds_the_median_ratio_is_judged() {
        let round = |vms: f64, base: f64| {
            vec![Row {
                set: FEATURE_SETS[2],
                vidplat: secs(vms, 1.0),
                baseline: secs(base, 1.0),
            }]
        };
        // 1.21, 1.00, 1.05: one bad round does not decide.
        let rounds = [round(60.5, 50.0), round(50.0, 50.0), round(52.5, 50.0)];
        let lines: Vec<String> = summary(&rounds).lines().map(str::to_owned).collect();
        assert_eq!(lines[2], "| vms | 1.21, 1.00, 1.05 | 1.05 | ≤ 1.10 | yes |");
        let worse = [round(60.5, 50.0), round(56.0, 50.0)];
        assert_eq!(
            summary(&worse).lines().nth(2),
            Some("| vms | 1.21, 1.12 | 1.17 | ≤ 1.10 | no |")
        );
    }

    #[test]
    fn the_vidplat_main_builds_one_client_per_enabled_service() {
        let all = vidplat_main(&FEATURE_SETS[0], false);
        for service in ["encoder", "vms", "analytics"] {
            assert!(all.contains(&format!(".{service}_url(")), "{all}");
            assert!(all.contains(&format!("client.{service}()")), "{all}");
        }
        let vms = vidplat_main(&FEATURE_SETS[2], false);
        assert!(vms.contains(".vms_url(") && !vms.contains("encoder"), "{vms}");
        assert!(!all.contains(".send()"), "{all}");
        let calling = vidplat_main(&FEATURE_SETS[0], true);
        for call in [
            "get_task().task_id(7)",
            "get_content().content_name(\"c\")",
            "basic_by_content_category()",
        ] {
            assert!(calling.contains(&format!("{call}.send().await.is_ok()")), "{calling}");
        }
    }

    #[test]
    fn the_ratio_is_judged_against_each_sets_target() {
        let baseline = secs(60.0, 1.0);
        let row = |set, clean| Row {
            set,
            vidplat: secs(clean, 1.5),
            baseline,
        };
        let all = row(FEATURE_SETS[0], 78.0);
        assert!((all.ratio() - 1.3).abs() < 1e-9 && all.met());
        assert!(!row(FEATURE_SETS[0], 78.1).met());
        assert!(row(FEATURE_SETS[1], 66.0).met());
        assert!(!row(FEATURE_SETS[1], 66.1).met());
        let table = table(&[all, row(FEATURE_SETS[3], 90.0)]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert_eq!(lines[2], "| all | 78.0 | 60.0 | 1.30 | ≤ 1.30 | yes | 1.50 | 1.00 |");
        assert_eq!(
            lines[3],
            "| analytics | 90.0 | 60.0 | 1.50 | ≤ 1.10 | no | 1.50 | 1.00 |"
        );
    }

    /// Just enough TOML to check the generated manifests' sections (xtask has no TOML parser).
    mod toml_value {
        pub struct Table(Vec<String>);
        impl Table {
            pub fn has_section(&self, name: &str) -> bool {
                self.0.iter().any(|s| s == name)
            }
        }
        pub fn parse(text: &str) -> Table {
            Table(
                text.lines()
                    .filter_map(|l| l.trim().strip_prefix('[')?.strip_suffix(']').map(str::to_owned))
                    .collect(),
            )
        }
    }
}
