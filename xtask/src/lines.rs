//! `cargo xtask lines [REV]`: the hand-written source lines of the library
//! crates at a commit, so that the size of what every SDK user compiles is
//! counted the same way each time it is compared; with `--since`, what each
//! commit changed in that count.
//!
//! Counted: every line (code, comments, blank) of `src/**/*.rs` of the crates
//! below, read through git. Left out: generated files (named `generated` or
//! marked as such in their first lines) and test items (`#[cfg(test)]`, or
//! `#[cfg(all(test, …))]`), which users never compile.

use crate::process::output;
use crate::services::repo_root;
use anyhow::Result;
use std::path::Path;
use std::process::Command;

/// The crates an SDK user compiles, by the name the count gives them, with
/// their source folders. The simulator and the command line are programs.
const COUNTED: [(&str, &[&str]); 6] = [
    ("core", &["crates/vidplat-core/src"]),
    ("redis", &["crates/vidplat-redis/src"]),
    ("facade", &["crates/vidplat/src"]),
    ("export", &["crates/vidplat-export/src"]),
    ("kit", &["crates/vidplat-test/src"]),
    (
        "clients",
        &[
            "crates/vidplat-encoder/src",
            "crates/vidplat-vms/src",
            "crates/vidplat-analytics/src",
        ],
    ),
];

#[derive(Debug, clap::Args)]
pub struct Options {
    /// The commit to count (a branch, tag or hash).
    #[arg(default_value = "HEAD")]
    revision: String,
    /// Also print each file's count (with `--since`, each file's change).
    #[arg(long)]
    files: bool,
    /// Instead of the count, what each commit since this one changed in it,
    /// oldest first: where a difference between two counts comes from.
    #[arg(long, value_name = "REV")]
    since: Option<String>,
}

pub fn run(options: &Options) -> Result<()> {
    let root = repo_root();
    let repo = Repo(&root);
    if let Some(since) = &options.since {
        return changes_since(&repo, since, options);
    }
    let mut total = 0;
    for (name, folders) in COUNTED {
        let mut crate_lines = 0;
        for (path, lines) in repo.count(&options.revision, folders)? {
            if options.files {
                println!("{lines:>6}  {path}");
            }
            crate_lines += lines;
        }
        println!("{name:<8} {crate_lines:>6}");
        total += crate_lines;
    }
    println!("{:<8} {total:>6}", "total");
    Ok(())
}

/// Each commit of `since..revision` (merges left out: their changes are their
/// parents') with the net change it made to the count, oldest first; the
/// changes add up to the difference between the two counts.
fn changes_since(repo: &Repo, since: &str, options: &Options) -> Result<()> {
    let range = format!("{since}..{}", options.revision);
    let mut total = 0;
    for commit in repo.git(&["rev-list", "--reverse", "--no-merges", &range])?.lines() {
        let changes = repo.changes(commit)?;
        if changes.is_empty() {
            continue;
        }
        let change: i64 = changes.iter().map(|(change, _)| change).sum();
        let subject = repo.git(&["log", "-1", "--format=%h %s", commit])?;
        println!("{change:>+6}  {}", subject.trim_end());
        if options.files {
            for (change, path) in &changes {
                println!("        {change:>+6}  {path}");
            }
        }
        total += change;
    }
    println!("{total:>+6}  in all ({range})");
    Ok(())
}

/// A repository read through `git`.
struct Repo<'a>(&'a Path);

impl Repo<'_> {
    fn git(&self, args: &[&str]) -> Result<String> {
        output(Command::new("git").args(args).current_dir(self.0))
    }

    /// The counted files under `folders` at `revision`, with their lines.
    fn count(&self, revision: &str, folders: &[&str]) -> Result<Vec<(String, usize)>> {
        let mut files = Vec::new();
        for folder in folders {
            let listing = self.git(&["ls-tree", "-r", "--name-only", revision, "--", folder])?;
            for path in listing.lines().filter(|path| path.ends_with(".rs")) {
                if let Some(lines) = self.file_lines(revision, path)? {
                    files.push((path.to_string(), lines));
                }
            }
        }
        Ok(files)
    }

    /// The counted lines of `path` at `revision`; `None` for a generated file.
    fn file_lines(&self, revision: &str, path: &str) -> Result<Option<usize>> {
        let text = self.git(&["show", &format!("{revision}:{path}")])?;
        Ok((!is_generated(path, &text)).then(|| counted_lines(&text)))
    }

    /// What `commit` changed in the count, file by file (files it left as
    /// counted as before are not listed).
    fn changes(&self, commit: &str) -> Result<Vec<(i64, String)>> {
        let parent = format!("{commit}^");
        let mut args = vec![
            "diff-tree",
            "-r",
            "--no-renames",
            "--name-status",
            &parent,
            commit,
            "--",
        ];
        args.extend(COUNTED.iter().flat_map(|(_, folders)| folders.iter().copied()));
        let lines =
            |revision: &str, path: &str| -> Result<i64> { Ok(self.file_lines(revision, path)?.unwrap_or(0) as i64) };
        let mut changes = Vec::new();
        for line in self.git(&args)?.lines() {
            let Some((status, path)) = line.split_once('\t') else {
                continue;
            };
            if !path.ends_with(".rs") {
                continue;
            }
            let before = if status == "A" { 0 } else { lines(&parent, path)? };
            let after = if status == "D" { 0 } else { lines(commit, path)? };
            if after != before {
                changes.push((after - before, path.to_string()));
            }
        }
        Ok(changes)
    }
}

/// What `cargo xtask codegen` writes: each file it writes is named
/// `generated`, or lies in a `generated/` folder, and opens with `// @generated`.
fn is_generated(path: &str, text: &str) -> bool {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    file_name.contains("generated") || path.contains("/generated/") || text.starts_with("// @generated")
}

/// The lines of `text` outside test items. An item ends at the
/// line that closes its first brace, or at its first `;` if it opens none
/// (`#[cfg(test)] mod tests;`, `#[cfg(test)] use …;`).
fn counted_lines(text: &str) -> usize {
    let mut lines = text.split('\n');
    let mut counted = 0;
    while let Some(line) = lines.next() {
        let line = line.trim_start();
        if !(line.starts_with("#[cfg(test)]") || line.starts_with("#[cfg(all(test,")) {
            counted += 1;
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        for line in lines.by_ref() {
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            opened |= line.contains('{');
            if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    counted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_items_are_left_out_and_the_rest_counted() {
        let text = "use a;\n\
                    #[cfg(test)]\n\
                    use b;\n\
                    fn f() {\n\
                    }\n\
                    \n\
                    #[cfg(test)]\n\
                    mod tests {\n\
                    \x20   fn g() {\n\
                    \x20   }\n\
                    }\n\
                    // after\n\
                    #[cfg(all(test, feature = \"x\"))]\n\
                    mod more {\n\
                    }\n";
        // `use a;`, `fn f() {`, `}`, the blank line, `// after` and the empty last line.
        assert_eq!(counted_lines(text), 6);
    }

    /// Three commits in a scratch repository: a file added, one changed
    /// (a test item and a generated file beside it, neither counted) and one
    /// replaced by another; each commit's changes add up to the difference of
    /// the counts on either side of it.
    #[test]
    fn each_commit_changes_the_count_by_what_it_adds_and_removes() {
        let dir = tempfile::tempdir().expect("a scratch directory");
        let repo = Repo(dir.path());
        let src = dir.path().join("crates/vidplat-core/src");
        std::fs::create_dir_all(&src).unwrap();
        let commit = |message: &str| {
            repo.git(&["add", "-A"]).unwrap();
            let signed = [
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "commit.gpgsign=false",
            ];
            repo.git(&[&signed[..], &["commit", "-q", "-m", message]].concat())
                .unwrap();
            repo.git(&["rev-parse", "HEAD"]).unwrap().trim().to_string()
        };
        repo.git(&["init", "-q"]).unwrap();
        std::fs::write(src.join("a.rs"), "fn a() {}\n").unwrap();
        let first = commit("a.rs");
        std::fs::write(src.join("a.rs"), "fn a() {}\nfn b() {}\n#[cfg(test)]\nmod tests {\n}\n").unwrap();
        std::fs::write(src.join("generated.rs"), "fn g() {}\n").unwrap();
        let second = commit("b, a test and a generated file");
        std::fs::remove_file(src.join("a.rs")).unwrap();
        std::fs::write(src.join("c.rs"), "fn c() {}\n\n\n\n").unwrap();
        let third = commit("a.rs replaced by c.rs");

        let core = COUNTED[0].1;
        assert_eq!(
            repo.count(&first, core).unwrap(),
            [("crates/vidplat-core/src/a.rs".to_string(), 2)]
        );
        assert_eq!(
            repo.changes(&second).unwrap(),
            [(1, "crates/vidplat-core/src/a.rs".to_string())]
        );
        assert_eq!(
            repo.changes(&third).unwrap(),
            [
                (-3, "crates/vidplat-core/src/a.rs".to_string()),
                (5, "crates/vidplat-core/src/c.rs".to_string())
            ]
        );
        let total = |revision: &str| -> usize { repo.count(revision, core).unwrap().iter().map(|(_, n)| n).sum() };
        assert_eq!(total(&third) - total(&first), 1 + 2);
    }

    #[test]
    fn generated_files_are_known_by_their_name_or_their_mark() {
        assert!(is_generated("crates/vidplat-vms/src/generated.rs", "fn a() {}"));
        assert!(is_generated("crates/vidplat-vms/src/generated/ops.rs", "fn a() {}"));
        assert!(is_generated(
            "crates/vidplat-export/src/schema.rs",
            "// @generated by xtask\n"
        ));
        assert!(!is_generated(
            "crates/vidplat-core/src/table.rs",
            "//! What the runtime knows\n"
        ));
    }
}
