//! `vidplat`: see `vidplat --help`, and the README's command-line section.

use std::io::IsTerminal as _;

fn main() {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: starting the runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(async {
        let (mut stdin, stdout, mut stderr) = (std::io::stdin().lock(), std::io::stdout(), std::io::stderr());
        let terminal = stdout.is_terminal();
        let stderr_terminal = stderr.is_terminal();
        let stdin_terminal = stdin.is_terminal();
        // On a terminal, nothing from the network reaches it unescaped, whatever the format.
        let mut stdout: Box<dyn std::io::Write> = if terminal {
            Box::new(std::io::BufWriter::with_capacity(
                64 * 1024,
                vidplat_cli::TerminalSafe::new(stdout.lock()),
            ))
        } else {
            Box::new(std::io::BufWriter::with_capacity(64 * 1024, stdout.lock()))
        };
        let mut io = vidplat_cli::Io {
            stdin: &mut stdin,
            stdout: &mut stdout,
            stderr: &mut stderr,
            terminal,
            stderr_terminal,
            stdin_terminal,
        };
        // Ctrl-C is `run`'s to handle (exit 130, saying what it leaves behind).
        vidplat_cli::run(std::env::args_os(), &mut io).await
    });
    // Leaves at once: a paginator's requests still on the wire are not waited for.
    runtime.shutdown_background();
    std::process::exit(code);
}
