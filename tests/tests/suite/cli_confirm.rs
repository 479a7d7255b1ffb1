//! A DELETE on a terminal asks first: the command line run in-process with
//! stdin and stderr taken for a terminal, answered `n`, then `y`.

use vidplat::Call as _;
use vidplat_sim::{SimConfig, Simulator};

async fn on_a_terminal(argv: &[&str], answer: &str) -> (i32, String, String) {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = answer.as_bytes();
    let mut io = vidplat_cli::Io {
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        terminal: false,
        stderr_terminal: true,
        stdin_terminal: true,
    };
    let code = vidplat_cli::run(argv.iter().copied(), &mut io).await;
    (
        code,
        String::from_utf8(stdout).expect("UTF-8"),
        String::from_utf8(stderr).expect("UTF-8"),
    )
}

#[tokio::test]
async fn a_delete_on_a_terminal_asks_and_sends_only_on_yes() {
    let sim = Simulator::start_with(SimConfig::fast()).await.expect("a simulator");
    let client = sim.client().build().expect("a client");
    let encoder = client.encoder().expect("the encoder");
    let preset = encoder
        .register_preset()
        .body(
            vidplat::encoder::types::PresetCreate::builder()
                .name("asked")
                .destination("vms5://")
                .format(vidplat::encoder::types::PresetFormat::Mp4)
                .output_filename("x"),
        )
        .call()
        .await
        .expect("registered")
        .id
        .expect("an id");
    let dir = tempfile::tempdir().expect("a directory");
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, &sim.api_key).expect("key written");
    let id = preset.to_string();
    let argv = [
        "vidplat",
        "--encoder-url",
        &sim.encoder_url,
        "--api-key-file",
        key_file.to_str().expect("a path"),
        "encoder",
        "delete-preset",
        "--preset-id",
        &id,
    ];
    let deletes = || {
        sim.journal()
            .iter()
            .filter(|received| received.method == "DELETE")
            .count()
    };

    let (code, stdout, stderr) = on_a_terminal(&argv, "n\n").await;
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "delete preset {id}? This cannot be undone. [y/N] error: not confirmed: did not delete preset {id} \
             (nothing was sent)\n"
        )
    );
    assert_eq!(deletes(), 0, "nothing sent");

    let (code, _, stderr) = on_a_terminal(&argv, "y\n").await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, format!("delete preset {id}? This cannot be undone. [y/N] "));
    assert_eq!(deletes(), 1, "sent once");
}
