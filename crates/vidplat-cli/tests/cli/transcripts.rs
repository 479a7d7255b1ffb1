//! The console transcripts of the README and the book, run: each page's
//! `console` blocks against a simulator of its own, one command after the
//! other through the real binary, what it prints (stdout and stderr as a
//! terminal shows them, interleaved) compared with the page.
//!
//! A transcript is written as trycmd reads one: `$ vidplat …` (a line ending
//! in `\` goes on), then `? N` when the command exits with N, then what it
//! prints; `...` on a line of its own stands for any lines, `[..]` for the
//! rest of a line up to the text after it. Only `vidplat` runs (no shell:
//! no pipes, variables or globs); commands for a shell go in `sh` blocks.

use std::io::Read as _;
use std::path::Path;
use std::time::{Duration, Instant};
use vidplat_sim::{SimConfig, Simulator};

/// One command of a transcript and what the page says it prints.
#[derive(Debug, PartialEq)]
struct Step {
    /// The line of the page the command is on.
    line: usize,
    args: Vec<String>,
    code: i32,
    expected: Vec<String>,
}

/// The commands of every `console` block of `page`, in order.
fn steps(page: &str) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_console = false;
    let mut lines = page.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim_end() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            let mut command = command.to_owned();
            while command.ends_with('\\') {
                command.pop();
                let (_, next) = lines
                    .next()
                    .ok_or_else(|| format!("line {}: the command goes on past the page", index + 1))?;
                command.push_str(next.trim_start());
            }
            let args = shlex::split(&command).ok_or_else(|| format!("line {}: unbalanced quotes", index + 1))?;
            if args.first().map(String::as_str) != Some("vidplat") {
                return Err(format!(
                    "line {}: a console transcript runs vidplat only (`{command}`): write it in a `sh` block",
                    index + 1
                ));
            }
            let mut code = 0;
            if let Some((_, status)) = lines.peek() {
                if let Some(status) = status.strip_prefix("? ") {
                    code = status
                        .trim()
                        .parse()
                        .map_err(|_| format!("line {}: `? {status}`", index + 2))?;
                    lines.next();
                }
            }
            steps.push(Step {
                line: index + 1,
                args: args[1..].to_vec(),
                code,
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.to_owned());
        } else {
            return Err(format!("line {}: output before any command", index + 1));
        }
    }
    Ok(steps)
}

/// Whether `actual` reads as `expected`, with its `...` lines and `[..]` runs.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((first, rest)) => {
            actual.first().is_some_and(|line| line_matches(first, line)) && lines_match(rest, &actual[1..])
        }
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    match expected.split_once("[..]") {
        None => expected == actual,
        Some((head, tail)) => {
            let Some(rest) = actual.strip_prefix(head) else {
                return false;
            };
            if tail.is_empty() {
                return true;
            }
            (0..=rest.len())
                .filter(|&at| rest.is_char_boundary(at))
                .any(|at| line_matches(tail, &rest[at..]))
        }
    }
}

/// Runs `args` with the simulator's set-up, stdout and stderr into one pipe
/// as a terminal interleaves them; its exit code and what it printed.
fn run(sim: &Simulator, home: &Path, args: &[String]) -> (i32, String) {
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vidplat"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("VIDPLAT_CONFIG_DIR", home.join("config"))
        .env("VIDPLAT_STATE_DIR", home.join("state"))
        .env("VIDPLAT_ENCODER_URL", &sim.encoder_url)
        .env("VIDPLAT_VMS_URL", &sim.vms_url)
        .env("VIDPLAT_ANALYTICS_URL", &sim.analytics_url)
        .env("VIDPLAT_API_KEY", &sim.api_key)
        .env("VIDPLAT_LOGIN_ID", &sim.login_id)
        .env("VIDPLAT_SIM_URL", format!("http://{}", sim.address))
        .env(
            "VIDPLAT_ANALYTICS_WINDOW",
            format!("{}ms", ANALYTICS_WINDOW.as_millis()),
        )
        .current_dir(home)
        .stdin(std::process::Stdio::null())
        .stdout(writer.try_clone().expect("the pipe's writer"))
        .stderr(writer)
        .spawn()
        .expect("the binary starts");
    let reading = std::thread::spawn(move || {
        let mut printed = String::new();
        let _ = reader.read_to_string(&mut printed);
        printed
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the command's status") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("`vidplat {}` did not end within a minute", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code().unwrap_or(-1), reading.join().expect("the reader"))
}

/// The simulator's per-minute analytics window in the transcripts, and the
/// command line's (the documented minute would make an export wait minutes).
const ANALYTICS_WINDOW: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_console_transcript_of_the_readme_and_the_book_runs_as_written() {
    let mut ran = 0;
    for page in vidplat_tests::book_pages() {
        let text = std::fs::read_to_string(&page).expect("the page");
        let name = page.file_name().expect("a name").to_string_lossy().into_owned();
        let steps = steps(&text).unwrap_or_else(|problem| panic!("{}: {problem}", page.display()));
        if steps.is_empty() {
            continue;
        }
        let sim = Simulator::start_with(SimConfig {
            analytics_window: ANALYTICS_WINDOW,
            ..SimConfig::fast()
        })
        .await
        .expect("the simulator starts");
        let home = tempfile::tempdir().expect("a temporary directory");
        for step in steps {
            let home_path = home.path().to_path_buf();
            let sim_ref = &sim;
            let (code, printed) = tokio::task::block_in_place(|| run(sim_ref, &home_path, &step.args));
            let actual: Vec<&str> = printed.lines().collect();
            assert!(
                code == step.code && lines_match(&step.expected, &actual),
                "{name}:{}: `vidplat {}`\nthe page says (exit {}):\n{}\nit printed (exit {code}):\n{printed}",
                step.line,
                step.args.join(" "),
                step.code,
                step.expected.join("\n"),
            );
            ran += 1;
        }
    }
    assert!(ran > 0, "no transcript ran");
}

#[test]
fn a_transcript_reads_as_trycmd_reads_one() {
    let page = "text\n```console\n$ vidplat a 'b c' \\\n   --d\n? 2\nout\n...\n$ vidplat e\n```\n```sh\n$ ls\n```\n";
    let parsed = steps(page).unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(
        (parsed[0].line, parsed[0].args.clone(), parsed[0].code),
        (3, vec!["a".into(), "b c".into(), "--d".into()], 2)
    );
    assert_eq!(parsed[0].expected, ["out", "..."]);
    assert_eq!((parsed[1].code, parsed[1].expected.len()), (0, 0));
    assert!(steps("```console\n$ ls\n```\n").unwrap_err().contains("vidplat only"));
    let expected = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &expected(&["a", "...", "d [..] f"]),
        &["a", "b", "c", "d e f"]
    ));
    assert!(lines_match(&expected(&["...", "x"]), &["x"]));
    assert!(!lines_match(&expected(&["a"]), &["a", "b"]));
    assert!(!lines_match(&expected(&["d [..] g"]), &["d e f"]));
}
