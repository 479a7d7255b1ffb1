//! The book: `docs/` and the pages it takes from elsewhere in the repository,
//! built with mdBook into `target/book`, every link inside it checked.
//!
//! mdBook reads its pages from one folder; some of the book's pages live
//! where their readers need them (the README at the root, the test kit's
//! README in its crate, the generated `GAPS.md` and operation index, the
//! command line's help in its snapshot). So the book's sources are
//! assembled under `target/book-src`: `docs/` as it is, each imported page
//! copied in, and every relative link rewritten to point at the page that
//! holds its target in the book (a link to a file the book does not hold
//! keeps its text and loses its target).

use crate::services::repo_root;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// The pages the book takes from elsewhere: (page in the book, file in the repository).
const IMPORTED: &[(&str, &str)] = &[
    ("README.md", "README.md"),
    ("kit.md", "crates/vidplat-test/README.md"),
    ("operations.md", "crates/vidplat/src/operations.md"),
    ("gaps.md", "GAPS.md"),
    ("benchmarks.md", "BENCHMARKS.md"),
    ("architecture.md", "ARCHITECTURE.md"),
    ("runtime.md", "crates/vidplat-core/ARCHITECTURE.md"),
];

/// The command reference: every command's help, as the command line's test
/// checks it (one snapshot of the whole command tree).
const REFERENCE: (&str, &str) = ("reference.md", "crates/vidplat-cli/tests/snapshots/cli__help.snap");

/// The book's own folder in the repository.
const BOOK_DIR: &str = "docs";

/// Builds the book into `target/book` with mdBook's own library (the
/// `mdbook` program's `build`, compiled into xtask: nothing to install) and
/// checks its links.
pub fn build(target: &Path) -> Result<PathBuf> {
    let root = repo_root();
    let sources = target.join("book-src");
    let out = target.join("book");
    assemble(&root, &sources)?;
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    let mut book = mdbook_driver::MDBook::load(&sources)
        .with_context(|| format!("mdBook reading the book in {}", sources.display()))?;
    book.config.build.build_dir = out.clone();
    book.build().context("mdBook building the book")?;
    let broken = broken_links(&out)?;
    if !broken.is_empty() {
        bail!("the book has {} broken links:\n  {}", broken.len(), broken.join("\n  "));
    }
    println!(
        "book: {} (every internal link resolves)",
        out.join("index.html").display()
    );
    check_in_browser(&out, target)?;
    Ok(out)
}

/// Writes the book's sources under `sources`.
pub fn assemble(root: &Path, sources: &Path) -> Result<()> {
    if sources.exists() {
        std::fs::remove_dir_all(sources).with_context(|| format!("removing {}", sources.display()))?;
    }
    let pages = pages(root)?;
    for (page, origin) in &pages {
        let text = std::fs::read_to_string(root.join(origin)).with_context(|| format!("reading {origin}"))?;
        let text = if (page.as_str(), origin.as_str()) == REFERENCE {
            reference_page(&text)?
        } else if page == "SUMMARY.md" {
            text // mdBook reads its links as the files they name
        } else {
            relink(&text, origin, page, &pages)
        };
        let path = sources.join(page);
        std::fs::create_dir_all(path.parent().context("a page's folder")?)?;
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    std::fs::copy(root.join(BOOK_DIR).join("book.toml"), sources.join("book.toml"))?;
    Ok(())
}

/// Every page of the book and the repository file it comes from.
pub fn pages(root: &Path) -> Result<BTreeMap<String, String>> {
    let mut pages = BTreeMap::new();
    let book = root.join(BOOK_DIR);
    for path in files_with(&book, "md")? {
        let page = path.strip_prefix(&book)?.to_string_lossy().into_owned();
        let origin = path.strip_prefix(root)?.to_string_lossy().into_owned();
        pages.insert(page, origin);
    }
    for (page, origin) in IMPORTED.iter().chain([&REFERENCE]) {
        if let Some(clash) = pages.insert(page.to_string(), origin.to_string()) {
            bail!("the book's page {page} is both {clash} and {origin}");
        }
    }
    Ok(pages)
}

/// Every file under `dir` (its folders too) whose name ends in `.extension`, sorted.
fn files_with(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).with_context(|| format!("reading {}", folder.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The command reference from the help snapshot: insta's header dropped,
/// each command's help under its own heading, as preformatted text.
fn reference_page(snapshot: &str) -> Result<String> {
    let body = snapshot
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, body)| body)
        .context("the help snapshot has no insta header")?;
    let mut page = String::from(
        "# Command reference\n\nEvery command's `--help`, as `vidplat` prints it \
         (the same text as `vidplat help COMMAND` and the man pages of `vidplat man DIR`).\n",
    );
    let mut open = false;
    for line in body.lines() {
        if let Some(command) = line.strip_prefix("## ") {
            if open {
                page.push_str("```\n");
            }
            page.push_str(&format!("\n## {command}\n\n```text\n"));
            open = true;
        } else {
            page.push_str(line);
            page.push('\n');
        }
    }
    if open {
        page.push_str("```\n");
    }
    Ok(page)
}

/// `text` (from `origin`, the page `page` of the book) with each relative
/// link pointing where its target is in the book.
fn relink(text: &str, origin: &str, page: &str, pages: &BTreeMap<String, String>) -> String {
    let by_origin: BTreeMap<&str, &str> = pages.iter().map(|(p, o)| (o.as_str(), p.as_str())).collect();
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            out.push_str(line);
        } else {
            out.push_str(&relink_line(line, origin, page, &by_origin));
        }
    }
    out
}

fn relink_line(line: &str, origin: &str, page: &str, by_origin: &BTreeMap<&str, &str>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let Some(end) = after[2..].find(')') else {
            out.push_str(after);
            return out;
        };
        let target = &after[2..2 + end];
        rest = &after[2 + end + 1..];
        match rewrite(target, origin, page, by_origin) {
            Some(new) => {
                out.push_str("](");
                out.push_str(&new);
                out.push(')');
            }
            None => {
                // A file the book does not hold: the text stays, unlinked.
                if let Some(open) = out.rfind('[') {
                    out.remove(open);
                } else {
                    out.push_str("](");
                    out.push_str(target);
                    out.push(')');
                }
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where `target`, a link of `origin`, points from `page` in the book; `None`
/// when the book does not hold it.
fn rewrite(target: &str, origin: &str, page: &str, by_origin: &BTreeMap<&str, &str>) -> Option<String> {
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
        return Some(target.to_owned());
    }
    if target.contains("::") {
        return None; // rustdoc's links to items
    }
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let resolved = normalise(&Path::new(origin).parent().unwrap_or(Path::new("")).join(path))?;
    let resolved = resolved.to_string_lossy();
    let Some(to) = by_origin.get(resolved.as_ref()) else {
        // A link by the page's name in the book (the imported pages, from `docs/`).
        let in_book = normalise(&Path::new(page).parent().unwrap_or(Path::new("")).join(path))?;
        return by_origin
            .values()
            .any(|p| Path::new(p) == in_book)
            .then(|| target.to_owned());
    };
    let from_dir = Path::new(page).parent().unwrap_or(Path::new(""));
    let mut relative = PathBuf::new();
    for _ in from_dir.components() {
        relative.push("..");
    }
    // mdBook writes a folder's README.md as its index.html, and leaves links as they are.
    match to.strip_suffix("README.md") {
        Some(folder) => relative.push(format!("{folder}index.md")),
        None => relative.push(to),
    }
    let mut link = relative.to_string_lossy().into_owned();
    if let Some(anchor) = anchor {
        link.push('#');
        link.push_str(anchor);
    }
    Some(link)
}

/// `path` with `.` and `..` folded; `None` if it leaves the repository.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut normal = PathBuf::new();
    // How many named folders deep it is: `..` may climb only those, never past the start or the root.
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Normal(part) => {
                normal.push(part);
                depth += 1;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                depth = depth.checked_sub(1)?;
                normal.pop();
            }
            root_or_prefix => normal.push(root_or_prefix),
        }
    }
    Some(normal)
}

/// Every `href` of the built book that names a page of the book or an anchor
/// and finds no such page or anchor: `file: href`.
fn broken_links(out: &Path) -> Result<Vec<String>> {
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    for path in files_with(out, "html")? {
        let html = std::fs::read_to_string(&path)?;
        ids.insert(path.clone(), attribute_values(&html, "id").into_iter().collect());
        files.push((path, html));
    }
    let mut broken = Vec::new();
    for (file, html) in &files {
        // The print page and the 404 page are mdBook's own, their links made from the others'.
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name == "print.html" || name == "404.html" || name == "toc.html" {
            continue;
        }
        for href in attribute_values(html, "href") {
            if href.contains("://") || href.starts_with("mailto:") || href.starts_with("javascript:") {
                continue;
            }
            let (path, anchor) = match href.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (href.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                let joined = file.parent().unwrap_or(out).join(path);
                let joined = if path.ends_with('/') {
                    joined.join("index.html")
                } else {
                    joined
                };
                match normalise(&joined) {
                    Some(target) => target,
                    None => {
                        broken.push(format!("{}: {href}", relative_to(file, out)));
                        continue;
                    }
                }
            };
            if !target.exists() {
                broken.push(format!("{}: {href} (no such file)", relative_to(file, out)));
            } else if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                if ids.get(&target).is_some_and(|ids| !ids.contains(anchor)) {
                    broken.push(format!("{}: {href} (no such anchor)", relative_to(file, out)));
                }
            }
        }
    }
    broken.sort();
    broken.dedup();
    Ok(broken)
}

fn relative_to(file: &Path, out: &Path) -> String {
    file.strip_prefix(out).unwrap_or(file).display().to_string()
}

/// The values of `name="…"` attributes in `html`, unescaped as far as links need.
fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    let mut values = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        if let Some(end) = rest.find('"') {
            values.push(rest[..end].replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages() -> BTreeMap<String, String> {
        [
            ("README.md", "README.md"),
            ("gaps.md", "GAPS.md"),
            ("sdk.md", "docs/sdk.md"),
            ("decisions/README.md", "docs/decisions/README.md"),
        ]
        .into_iter()
        .map(|(p, o)| (p.to_owned(), o.to_owned()))
        .collect()
    }

    #[test]
    fn links_point_at_the_page_that_holds_their_target() {
        let pages = pages();
        let text = "See [GAPS](../GAPS.md#encoder), [the SDK](sdk.md), [`x`](../xtask/src/main.rs) and [web](https://x.invalid/a.md).\n";
        assert_eq!(
            relink(text, "docs/sdk.md", "sdk.md", &pages),
            "See [GAPS](gaps.md#encoder), [the SDK](sdk.md), `x` and [web](https://x.invalid/a.md).\n"
        );
        assert_eq!(
            relink(
                "[up](../../GAPS.md) [rustdoc](crate::Paginate)\n",
                "docs/decisions/README.md",
                "decisions/README.md",
                &pages
            ),
            "[up](../gaps.md) rustdoc\n"
        );
        assert_eq!(
            relink("[records](decisions/README.md)\n", "docs/sdk.md", "sdk.md", &pages),
            "[records](decisions/index.md)\n"
        );
        assert_eq!(
            relink("```\n[a](GAPS.md)\n```\n", "README.md", "README.md", &pages),
            "```\n[a](GAPS.md)\n```\n"
        );
        // A page the book imports, linked by its name in the book.
        assert_eq!(
            relink("[g](gaps.md)\n", "docs/sdk.md", "sdk.md", &pages),
            "[g](gaps.md)\n"
        );
    }

    #[test]
    fn the_reference_holds_each_command_as_text() {
        let page = reference_page("---\nsource: x\n---\n## vidplat\nUsage: vidplat\n## vidplat sim\nRun it\n").unwrap();
        assert!(
            page.ends_with("\n## vidplat\n\n```text\nUsage: vidplat\n```\n\n## vidplat sim\n\n```text\nRun it\n```\n"),
            "{page}"
        );
    }
}

/// How many words in a row make a phrase that may be written only once.
const PHRASE_WORDS: usize = 8;

/// The prose every reader meets: the README, each library crate's
/// documentation and the book's pages (the command reference aside: it is
/// the commands' own help). Each file once, by its path in the repository.
fn prose_files(root: &Path) -> Result<Vec<(String, String)>> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for (page, origin) in pages(root)? {
        // The reference is the commands' own help; the summary, the chapters' names.
        if (page.as_str(), origin.as_str()) != REFERENCE && page != "SUMMARY.md" {
            let text = std::fs::read_to_string(root.join(&origin))?;
            files.insert(origin.clone(), strip_code(&text));
        }
    }
    for name in crate::publish::LIBRARY_CRATES {
        let lib = format!("crates/{name}/src/lib.rs");
        let source = std::fs::read_to_string(root.join(&lib)).with_context(|| format!("reading {lib}"))?;
        let docs: String = source
            .lines()
            .filter_map(|line| line.trim_start().strip_prefix("//!"))
            .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
            .collect();
        files.insert(lib, strip_code(&docs));
        // A crate whose documentation is a file (`#![doc = include_str!(…)]`) is that file, already read.
    }
    Ok(files.into_iter().collect())
}

/// Markdown without its code: fenced blocks, inline code, link targets and
/// comments become a break no phrase runs across.
fn strip_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push_str(" | \n");
            continue;
        }
        if fenced || line.trim_start().starts_with("<!--") {
            continue;
        }
        let mut in_code = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '`' => {
                    in_code = !in_code;
                    out.push_str(" | ");
                }
                _ if in_code => {}
                ']' if chars.peek() == Some(&'(') => {
                    // A link's target: skipped to its closing parenthesis.
                    for c in chars.by_ref() {
                        if c == ')' {
                            break;
                        }
                    }
                }
                '|' => out.push_str(" | "),
                _ => out.push(c),
            }
        }
        out.push('\n');
    }
    out
}

/// The phrases of `text`: each run of [`PHRASE_WORDS`] words not broken by code.
fn phrases(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for stretch in text.split('|') {
        let words: Vec<String> = stretch
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        for window in words.windows(PHRASE_WORDS) {
            set.insert(window.join(" "));
        }
    }
    set
}

/// Every phrase written in two or more files: (phrase, files).
pub fn repeated_phrases(root: &Path) -> Result<Vec<(String, Vec<String>)>> {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, text) in prose_files(root)? {
        for phrase in phrases(&text) {
            seen.entry(phrase).or_default().push(file.clone());
        }
    }
    Ok(seen.into_iter().filter(|(_, files)| files.len() > 1).collect())
}

/// Fails when a phrase is written in two files, listing each with its files.
pub fn check_each_topic_once(root: &Path) -> Result<()> {
    let repeated = repeated_phrases(root)?;
    if repeated.is_empty() {
        println!("docs: no {PHRASE_WORDS}-word phrase is written twice across the README, the crate docs and the book");
        return Ok(());
    }
    let mut by_files: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (phrase, files) in repeated {
        by_files.entry(files).or_default().push(phrase);
    }
    let mut report = String::new();
    for (files, phrases) in &by_files {
        report.push_str(&format!("\n{} ({} phrases):", files.join(" and "), phrases.len()));
        for phrase in phrases {
            report.push_str(&format!("\n    \"{phrase}\""));
        }
    }
    bail!("text written twice (say it once and link to it):{report}")
}

#[cfg(test)]
mod phrase_tests {
    use super::*;

    #[test]
    fn code_breaks_a_phrase_and_prose_makes_one() {
        let text = strip_code("One two three four five six seven `eight` nine ten\n```\na b c d e f g h\n```\nAlpha beta gamma delta epsilon zeta eta theta.\n");
        assert_eq!(
            phrases(&text).into_iter().collect::<Vec<_>>(),
            ["alpha beta gamma delta epsilon zeta eta theta"]
        );
    }
}

/// The built book in Debian's Chromium (`xtask/browser/check_book.mjs`,
/// through the DevTools protocol, nothing downloaded): every page loads
/// without an error, the title, the sidebar's chapters (as many as
/// SUMMARY.md links), a search hit for "signed URL", and a screenshot at
/// `target/book-screenshot.png`. Says it skipped without Chromium or Node,
/// unless `VIDPLAT_REQUIRE_BROWSER=1`.
pub fn check_in_browser(book: &Path, target: &Path) -> Result<()> {
    if !crate::process::tools_found(BROWSER_STEP, &BROWSER_TOOLS, on_path, REQUIRE_BROWSER)? {
        return Ok(());
    }
    let browser = Browser::on_path().context("chromium and node, found on PATH a moment ago")?;
    let summary = std::fs::read_to_string(repo_root().join(BOOK_DIR).join("SUMMARY.md"))?;
    let chapters = summary.lines().filter(|line| line.contains("](")).count();
    let screenshot = target.join("book-screenshot.png");
    let report = browser.check(book, &screenshot, chapters, &std::env::temp_dir())?;
    println!("book in a browser: {report} (screenshot {})", screenshot.display());
    Ok(())
}

/// Makes a missing Chromium or Node an error.
const REQUIRE_BROWSER: &str = "VIDPLAT_REQUIRE_BROWSER";
const BROWSER_TOOLS: [&str; 2] = ["chromium", "node"];
const BROWSER_STEP: &str = "book in a browser";

/// Whether `tool` of [`BROWSER_TOOLS`] is on `PATH`.
fn on_path(tool: &str) -> bool {
    tool_program(tool).is_some()
}

/// The program of `tool`: Chromium under either of its names.
fn tool_program(tool: &str) -> Option<PathBuf> {
    match tool {
        "chromium" => ["chromium", "chromium-browser"].into_iter().find_map(program),
        _ => program(tool),
    }
}

/// Chromium and Node, found on `PATH`.
struct Browser {
    chromium: PathBuf,
    node: PathBuf,
}

impl Browser {
    fn on_path() -> Option<Self> {
        Some(Self {
            chromium: tool_program("chromium")?,
            node: tool_program("node")?,
        })
    }

    /// Runs `xtask/browser/check_book.mjs` over every page of `book`, with a
    /// folder of its own in `temp` as the temporary directory (Chromium's
    /// profile folder and its own files go there), removed whole at the end;
    /// its one-line report.
    fn check(&self, book: &Path, screenshot: &Path, chapters: usize, temp: &Path) -> Result<String> {
        let pages = files_with(book, "html")?
            .iter()
            .map(|path| Ok(path.strip_prefix(book)?.to_string_lossy().into_owned()))
            .collect::<Result<Vec<String>>>()?;
        let server = StaticServer::start(book)?;
        let mut node = Command::new(&self.node);
        // Node 20 has WebSocket behind a flag; later versions have it by default.
        let probe = Command::new(&self.node)
            .args(["-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"])
            .status()?;
        if !probe.success() {
            node.arg("--experimental-websocket");
        }
        // Chromium's helper processes can still write a file of their own into
        // the temporary directory after the browser has exited: they write it
        // into this folder, gone with it.
        let own_temp = own_folder(temp)?;
        let output = node
            .arg(repo_root().join("xtask/browser/check_book.mjs"))
            .arg(&self.chromium)
            .arg(format!("http://{}/", server.address))
            .arg(screenshot)
            .arg(chapters.to_string())
            .args(&pages)
            .env("TMPDIR", &own_temp)
            .output()
            .context("running node");
        drop(server);
        remove_folder(&own_temp);
        let output = output?;
        let report = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if !output.status.success() {
            bail!(
                "the book in a browser: {report}{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(report)
    }
}

/// A new folder in `parent` for one check (refused if the name is taken).
fn own_folder(parent: &Path) -> Result<PathBuf> {
    static CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let number = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let folder = parent.join(format!("vidplat-book-check-{}-{number}", std::process::id()));
    std::fs::create_dir(&folder).with_context(|| format!("creating {}", folder.display()))?;
    Ok(folder)
}

/// Removes `folder` whole. A process that still writes into it can make one
/// attempt fail (a file made while the folder is emptied), so a few are made.
fn remove_folder(folder: &Path) {
    for _ in 0..10 {
        match std::fs::remove_dir_all(folder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                std::thread::sleep(std::time::Duration::from_millis(200))
            }
            _ => return,
        }
    }
}

/// The program `name` on `PATH`.
fn program(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The built book served over HTTP on 127.0.0.1, for as long as it lives.
struct StaticServer {
    address: std::net::SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StaticServer {
    fn start(root: &Path) -> Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (root, stopped) = (root.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let root = root.clone();
                        std::thread::spawn(move || {
                            let _ = serve(&root, stream);
                        });
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
        Ok(Self {
            address,
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One request: the file under `root` its path names (no `..`), or 404.
fn serve(root: &Path, mut stream: std::net::TcpStream) -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut reader = std::io::BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/").trim_start_matches('/');
    let path = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_owned()
    };
    let file = normalise(Path::new(&path)).map(|relative| root.join(relative));
    let (status, body) = match file.and_then(|file| std::fs::read(file).ok()) {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"not found".to_vec()),
    };
    let content_type = match Path::new(&path).extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)
}

#[cfg(test)]
mod browser_tests {
    use super::*;

    /// Whether the browser check runs, given what is on `PATH` and whether it is required.
    fn skipped(on_path: impl Fn(&str) -> bool, require: bool) -> Result<Option<String>> {
        crate::process::skipped_without(BROWSER_STEP, &BROWSER_TOOLS, on_path, REQUIRE_BROWSER, require)
    }

    /// Without Chromium or Node the check is skipped, unless it is required.
    #[test]
    fn a_missing_browser_is_skipped_unless_required() {
        assert_eq!(
            skipped(|tool| tool != "chromium", false).unwrap().as_deref(),
            Some("chromium not on PATH")
        );
        let error = skipped(|_| false, true).unwrap_err().to_string();
        assert!(error.contains("VIDPLAT_REQUIRE_BROWSER=1"), "{error}");
        assert_eq!(skipped(|_| true, true).unwrap(), None);
    }

    /// A page with what the check looks for: the title, two sidebar chapters and a search hit.
    const PAGE: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>A page - vidplat</title><link rel="icon" href="data:,"></head><body>
<nav id="mdbook-sidebar"><ol>
<li class="chapter-item"><span class="chapter-link-wrapper"><a href="index.html">One</a></span></li>
<li class="chapter-item"><span class="chapter-link-wrapper"><a href="index.html">Two</a></span></li>
</ol></nav>
<ul id="mdbook-searchresults"><li><a href="index.html">A hit</a></li></ul>
</body></html>"#;

    /// The check ends Chromium before it removes Chromium's profile: killed at
    /// once, Chromium's processes wrote on, and each run left its profile
    /// folder and a folder of Chromium's own in the temporary directory.
    #[test]
    fn a_check_leaves_nothing_in_the_temporary_directory() {
        if skipped(on_path, crate::process::required(REQUIRE_BROWSER))
            .unwrap()
            .is_some()
        {
            return;
        }
        let browser = Browser::on_path().unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-browser-check-{}", std::process::id()));
        let (book, temp) = (dir.join("book"), dir.join("temp"));
        std::fs::create_dir_all(&book).unwrap();
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::write(book.join("index.html"), PAGE).unwrap();
        let report = browser.check(&book, &dir.join("screenshot.png"), 2, &temp);
        // What a dying process still writes arrives a moment after the check returns.
        std::thread::sleep(std::time::Duration::from_secs(1));
        let left: Vec<_> = std::fs::read_dir(&temp)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        let report = report.unwrap();
        assert!(report.contains(r#""ok":true"#), "{report}");
        assert!(left.is_empty(), "left in the temporary directory: {left:?}");
    }
}
