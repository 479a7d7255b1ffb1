//! Every operation is reachable from the command line: for each one, the
//! command's `--dry-run` with the sample arguments prints exactly the request
//! the wire snapshots (`generated_requests__requests_*.snap`) hold for it.

use serde_json::Value;
use vidplat_cli::command::find;
use vidplat_core::Place;
use vidplat_core::Service;
use vidplat_tests::load_spec;
use vidplat_tests::samples::operation_arguments;

const BASE: &str = "http://127.0.0.1:9/base";

/// The committed wire snapshot's request of each operation, by id.
fn wire_requests(service: &str) -> Vec<(String, String)> {
    let path = format!(
        "{}/tests/snapshots/generated_requests__requests_{service}.snap",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let listing = text
        .splitn(3, "---\n")
        .nth(2)
        .expect("a snapshot's header, then its text");
    listing
        .split("## ")
        .skip(1)
        .map(|section| {
            let (id, request) = section.split_once('\n').expect("an id line");
            (id.to_owned(), request.trim_end().to_owned())
        })
        .collect()
}

async fn dry_run(argv: Vec<String>) -> (i32, String, String) {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io = vidplat_cli::Io {
        stdin: &mut std::io::empty(),
        stdout: &mut stdout,
        stderr: &mut stderr,
        terminal: false,
        stderr_terminal: false,
        stdin_terminal: false,
    };
    let code = vidplat_cli::run(argv, &mut io).await;
    (
        code,
        String::from_utf8(stdout).expect("UTF-8"),
        String::from_utf8(stderr).expect("UTF-8"),
    )
}

#[tokio::test]
async fn every_operation_dry_runs_to_its_wire_snapshot() {
    // Removed when the test ends, however it ends.
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let dir = temporary.path();
    // No profile of the machine's may change a route: an empty configuration directory.
    std::env::set_var("VIDPLAT_CONFIG_DIR", dir);
    let key_file = dir.join("key");
    std::fs::write(&key_file, "test-key-7f3a").expect("key written");
    let mut checked = 0;
    for service in [Service::Encoder, Service::Vms, Service::Analytics] {
        let spec = load_spec(service.as_str());
        let wire = wire_requests(service.as_str());
        for (id, expected) in &wire {
            let (path, op) = spec["paths"]
                .as_object()
                .into_iter()
                .flatten()
                .find_map(|(path, item)| {
                    item.as_object()?
                        .values()
                        .find(|op| op["operationId"] == id.as_str())
                        .map(|op| (path, op))
                })
                .unwrap_or_else(|| panic!("{id} in the YAML"));
            let command = find(service, &id.replace('_', "-")).unwrap_or_else(|| panic!("{id} has a command"));
            let (args, _) = operation_arguments(&spec, path, op);
            let mut argv: Vec<String> = ["vidplat", service.as_str(), &command.name(), "--dry-run"]
                .map(String::from)
                .to_vec();
            for flag in ["--encoder-url", "--vms-url", "--analytics-url"] {
                argv.extend([flag.to_owned(), BASE.to_owned()]);
            }
            argv.extend(["--api-key-file".to_owned(), key_file.display().to_string()]);
            for (key, value) in &args.0 {
                if key == "body" {
                    let file = dir.join(format!("{id}.body"));
                    let bytes = match (command.operation.body.map(|b| b.json), value) {
                        (Some(false), Value::String(raw)) => raw.clone().into_bytes(),
                        _ => serde_json::to_vec(value).expect("JSON"),
                    };
                    std::fs::write(&file, bytes).expect("body written");
                    argv.extend(["--body".to_owned(), format!("@{}", file.display())]);
                    continue;
                }
                let arg = command
                    .args()
                    .find(|a| a.argument.place != Place::Body && a.argument.name.replace('-', "_") == *key)
                    .unwrap_or_else(|| panic!("{id}: a flag for `{key}`"));
                let values = match value {
                    Value::Array(items) => items.clone(),
                    one => vec![one.clone()],
                };
                for value in values {
                    let text = match value {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    argv.push(format!("--{}={text}", arg.flag()));
                }
            }
            let (code, stdout, stderr) = dry_run(argv.clone()).await;
            assert_eq!((code, stderr.as_str()), (0, ""), "{id}: {argv:?}");
            let shown = stdout.replacen(BASE, "", 1);
            // The request on the wire, its `x-secret` members (a page's password) shown redacted.
            let secret_members = match service {
                Service::Encoder => vidplat::encoder::operations::SECRET_MEMBERS,
                Service::Vms => vidplat::vms::operations::SECRET_MEMBERS,
                Service::Analytics => vidplat::analytics::operations::SECRET_MEMBERS,
            };
            let expected = vidplat_core::Redactor::new(None, secret_members).text(expected);
            assert_eq!(shown.trim_end(), expected, "{id}: {argv:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 118, "every row of the three operation tables");
}
