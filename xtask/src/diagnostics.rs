//! What rustc tells a user who gives a setter what it cannot take: each
//! program under `crates/vidplat-core/tests/ui/` must fail to compile with
//! exactly the errors its `.expected` file lists (`#[diagnostic::on_unimplemented]`
//! on the setter traits names the member's type and what to pass instead).
//!
//! The programs are checked against the packaged `vidplat-core`, in the
//! workspace `cargo xtask package` has just checked it in, so its dependencies
//! are already compiled with its own features: a second of checking, where a
//! separate target directory (trybuild's) compiled them all again (40 s here).
//!
//! Each error is written as rustc reports it in JSON, without the source
//! snippets: the message with its code, every labelled place in the program
//! (`line:column`), and the notes and help, in rustc's order.

use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The fixtures, beside the crate whose diagnostics they show.
pub fn fixtures_dir() -> PathBuf {
    crate::services::repo_root().join("crates/vidplat-core/tests/ui")
}

/// The package holding one binary per fixture, depending on `core_dir` (the
/// packaged `vidplat-core`), written into `dir`. Returns its name.
pub fn write_package(dir: &Path, core_dir: &str) -> Result<&'static str> {
    const NAME: &str = "vidplat-core-diagnostics";
    let bin = dir.join("src/bin");
    std::fs::create_dir_all(&bin)?;
    for (name, source) in fixtures()? {
        std::fs::write(bin.join(format!("{name}.rs")), source)?;
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{NAME}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nvidplat-core = {{ path = \"../{core_dir}\" }}\n"
        ),
    )?;
    Ok(NAME)
}

/// Checks every fixture of the package `write_package` wrote, in `workspace`,
/// and compares each one's errors with its `.expected` file
/// (`VIDPLAT_BLESS=1` writes them instead).
pub fn check(workspace: &Path, package: &str, env: &[(&str, &str)]) -> Result<()> {
    let started = std::time::Instant::now();
    let args = [
        "check",
        "-p",
        package,
        "--bins",
        "--keep-going",
        "--message-format=json",
    ];
    println!("$ cargo {}", args.join(" "));
    let output = crate::services::cargo()
        .args(args)
        .current_dir(workspace)
        .envs(env.iter().copied())
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running cargo check on the diagnostics fixtures")?;
    if output.status.success() {
        bail!("the diagnostics fixtures compiled; each must fail with the errors its .expected file lists");
    }
    let mut found = errors_by_program(&String::from_utf8_lossy(&output.stdout))?;
    let bless = std::env::var_os("VIDPLAT_BLESS").is_some_and(|v| v == "1");
    let mut wrong = Vec::new();
    for (name, _) in fixtures()? {
        let expected_path = fixtures_dir().join(format!("{name}.expected"));
        let actual = found.remove(&name).unwrap_or_default();
        if bless {
            std::fs::write(&expected_path, &actual)?;
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path)
            .with_context(|| format!("reading {} (VIDPLAT_BLESS=1 writes it)", expected_path.display()))?;
        if actual.is_empty() || actual != expected {
            wrong.push(format!(
                "{}: rustc's errors differ from the expected ones.\n--- expected\n{expected}--- rustc\n{actual}---",
                expected_path.display()
            ));
        }
    }
    if !wrong.is_empty() {
        bail!("{}\n(VIDPLAT_BLESS=1 writes what rustc says)", wrong.join("\n"));
    }
    println!(
        "diagnostics: each fixture under {} fails with the errors it expects ({:.1?})",
        fixtures_dir().display(),
        started.elapsed()
    );
    Ok(())
}

/// The fixtures, each a file name without `.rs` and its source, by name.
fn fixtures() -> Result<Vec<(String, String)>> {
    let dir = fixtures_dir();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .context("a fixture's name is not UTF-8")?
                .to_owned();
            found.push((name, std::fs::read_to_string(&path)?));
        }
    }
    found.sort();
    if found.is_empty() {
        bail!("no fixture under {}", dir.display());
    }
    Ok(found)
}

/// Cargo's JSON messages: each binary's errors, written as `render` does.
fn errors_by_program(messages: &str) -> Result<BTreeMap<String, String>> {
    let mut by_program: BTreeMap<String, String> = BTreeMap::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let message: Value = serde_json::from_str(line).context("cargo printed a line that is not JSON")?;
        if message["reason"] != "compiler-message" {
            continue;
        }
        let Some(program) = message["target"]["name"].as_str() else {
            continue;
        };
        let diagnostic = &message["message"];
        // "aborting due to …" and warnings point nowhere in the program.
        if diagnostic["level"] != "error" || diagnostic["spans"].as_array().is_none_or(|s| s.is_empty()) {
            continue;
        }
        by_program
            .entry(program.to_owned())
            .or_default()
            .push_str(&render(diagnostic));
    }
    Ok(by_program)
}

/// One error: `error[CODE]: message` and ` --> line:column: label` for each
/// labelled place in the fixture, then `  = level: message` for each note, with
/// its own places in the fixture. Places in other files (vidplat-core's
/// sources) are left out, so that editing them does not change the expectation.
fn render(diagnostic: &Value) -> String {
    let mut out = match diagnostic["code"]["code"].as_str() {
        Some(code) => format!("error[{code}]: {}\n", text(&diagnostic["message"])),
        None => format!("error: {}\n", text(&diagnostic["message"])),
    };
    places(diagnostic, &mut out);
    for child in diagnostic["children"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  = {}: {}\n",
            text(&child["level"]),
            others_counted_as_n(text(&child["message"]))
        ));
        places(child, &mut out);
    }
    out
}

/// ` --> line:column: label` for each labelled span of `diagnostic` in a fixture.
fn places(diagnostic: &Value, out: &mut String) {
    for span in diagnostic["spans"].as_array().into_iter().flatten() {
        let in_fixture = span["file_name"].as_str().is_some_and(|f| f.contains("src/bin/"));
        if let (true, Some(label)) = (in_fixture, span["label"].as_str()) {
            out.push_str(&format!(
                " --> {}:{}: {label}\n",
                span["line_start"], span["column_start"]
            ));
        }
    }
}

/// rustc lists a few implementations and says `and 84 others`: the count
/// changes whenever an implementation is added, so it is written `and $N others`.
fn others_counted_as_n(message: &str) -> String {
    message
        .lines()
        .map(|line| {
            match line
                .trim()
                .strip_prefix("and ")
                .and_then(|rest| rest.strip_suffix(" others"))
            {
                Some(count) if !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()) => {
                    line.replacen(count, "$N", 1)
                }
                _ => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_written_with_its_places_and_notes_and_nothing_else_counts() {
        let messages = [
            r#"{"reason":"compiler-artifact","target":{"name":"dep"}}"#,
            r#"{"reason":"compiler-message","target":{"name":"wrong_type"},"message":{"level":"error","message":"a setter of a `u8` member does not take a `f64`","code":{"code":"E0277"},"spans":[{"file_name":"d/src/bin/wrong_type.rs","line_start":8,"column_start":13,"label":"not a `u8`"},{"file_name":"d/src/bin/wrong_type.rs","line_start":8,"column_start":5,"label":null}],"children":[{"level":"note","message":"pass a `u8`","spans":[]},{"level":"help","message":"others:\n  `&u8`\nand 84 others","spans":[{"file_name":"vidplat-core-0.1.0/src/setter.rs","line_start":40,"column_start":9,"label":"here"}]},{"level":"note","message":"required by a bound in `f`","spans":[{"file_name":"d/src/bin/wrong_type.rs","line_start":2,"column_start":15,"label":"required by this bound in `f`"}]}]}}"#,
            r#"{"reason":"compiler-message","target":{"name":"wrong_type"},"message":{"level":"warning","message":"unused","code":null,"spans":[{"line_start":1,"column_start":1,"label":null}],"children":[]}}"#,
            r#"{"reason":"compiler-message","target":{"name":"wrong_type"},"message":{"level":"error","message":"aborting due to 1 previous error","code":null,"spans":[],"children":[]}}"#,
            "   Compiling something (not JSON)",
        ]
        .join("\n");
        let found = errors_by_program(&messages).unwrap();
        assert_eq!(
            found["wrong_type"],
            "error[E0277]: a setter of a `u8` member does not take a `f64`\n --> 8:13: not a `u8`\n  = note: pass a `u8`\n  \
             = help: others:\n  `&u8`\nand $N others\n  \
             = note: required by a bound in `f`\n --> 2:15: required by this bound in `f`\n"
        );
        assert_eq!(found.len(), 1);
    }
}
