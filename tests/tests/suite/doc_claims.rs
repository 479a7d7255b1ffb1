//! What the READMEs and the Rust docs may claim: nothing stated as fact about
//! a question the documents leave open.

use std::path::{Path, PathBuf};

/// Every Rust source file under `dir`, into `found`.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// The root README, the book's pages, each crate's README and every Rust source file under `crates/`.
fn documentation() -> Vec<PathBuf> {
    let root = vidplat_tests::repo_root();
    let mut found = vidplat_tests::book_pages();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let crate_dir = entry.expect("an entry").path();
        if crate_dir.join("README.md").exists() {
            found.push(crate_dir.join("README.md"));
        }
        rust_files(&crate_dir.join("src"), &mut found);
    }
    found
}

/// Whether an update keeps or resets the members it leaves out is not shown
/// (`GAPS.md`, under each `update_*`): no page says that it keeps them.
#[test]
fn no_page_claims_an_update_keeps_what_it_leaves_out() {
    let claims = [
        "keeps its value",
        "keeps the member's current value",
        "the server keeps",
        "the service keeps",
        "no setter touched is kept",
    ];
    let mut found = Vec::new();
    for path in documentation() {
        let text = std::fs::read_to_string(&path).expect("a readable file");
        for (number, line) in text.lines().enumerate() {
            if let Some(claim) = claims.iter().find(|claim| line.to_lowercase().contains(*claim)) {
                found.push(format!("{}:{}: {claim}", path.display(), number + 1));
            }
        }
    }
    assert!(found.is_empty(), "stated as fact: {found:#?}");
}

/// BENCHMARKS.md is the one place of each figure: the README and the book's
/// pages link it and quote none (a ratio such as `0.95×` copied elsewhere goes stale).
#[test]
fn no_page_but_the_benchmarks_quotes_a_benchmark_figure() {
    let mut quoted = Vec::new();
    for page in vidplat_tests::book_pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        for (number, line) in text.lines().enumerate() {
            if line
                .char_indices()
                .any(|(at, c)| c == '×' && line[..at].ends_with(|d: char| d.is_ascii_digit()))
            {
                quoted.push(format!("{}:{}: {line}", page.display(), number + 1));
            }
        }
    }
    assert!(quoted.is_empty(), "figures quoted: {quoted:#?}");
    let readme = std::fs::read_to_string(vidplat_tests::repo_root().join("README.md")).expect("the README");
    assert!(readme.contains("](BENCHMARKS.md)"));
}

/// Code and docs name behaviours, not the tickets that asked for them: a
/// ticket number means nothing to a reader of the repository.
#[test]
fn no_page_or_source_names_a_ticket_number() {
    let root = vidplat_tests::repo_root();
    let mut pages = documentation();
    pages.push(root.join("BENCHMARKS.md"));
    for dir in ["tests/tests", "tests/src", "xtask/src", "crates/vidplat/benches"] {
        rust_files(&root.join(dir), &mut pages);
    }
    let word = ["iss", "ue "].concat();
    let mut named = Vec::new();
    for path in pages {
        let text = std::fs::read_to_string(&path).expect("a readable file");
        for (number, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let ticket = lower
                .match_indices(&word)
                .any(|(at, _)| lower[at + word.len()..].starts_with(|c: char| c.is_ascii_digit()));
            if ticket {
                named.push(format!("{}:{}", path.display(), number + 1));
            }
        }
    }
    assert!(named.is_empty(), "ticket numbers: {named:#?}");
}

/// The contributors' page's `cargo xtask package` row names every crate the
/// package step packs (each crate under `crates/` that is published), none left out.
#[test]
fn the_book_names_every_published_crate_the_package_step_packs() {
    let root = vidplat_tests::repo_root();
    let readme = std::fs::read_to_string(root.join("docs/contributing.md")).expect("the contributors' page");
    let row = readme
        .lines()
        .find(|line| line.starts_with("| `cargo xtask package` |"))
        .expect("the package row");
    let mut left_out = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let dir = entry.expect("an entry").path();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if manifest.is_empty() || manifest.contains("publish = false") {
            continue;
        }
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        if !row.contains(&format!("`{name}`")) {
            left_out.push(name);
        }
    }
    assert!(left_out.is_empty(), "the package row leaves out {left_out:?}");
}

/// Every page of the book with Rust in it is compiled: `tests/src/lib.rs`
/// includes it as a doc test.
#[test]
fn the_book_s_rust_is_compiled() {
    let root = vidplat_tests::repo_root();
    let lib = std::fs::read_to_string(root.join("tests/src/lib.rs")).expect("tests/src/lib.rs");
    let mut left_out = Vec::new();
    for page in vidplat_tests::book_pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        if !text.lines().any(|line| line.starts_with("```rust")) {
            continue;
        }
        let relative = page.strip_prefix(&root).expect("a page of the repository");
        if !lib.contains(&format!("include_str!(\"../../{}\")", relative.display())) {
            left_out.push(relative.display().to_string());
        }
    }
    assert!(
        left_out.is_empty(),
        "pages whose Rust no doc test compiles: {left_out:?}"
    );
}
