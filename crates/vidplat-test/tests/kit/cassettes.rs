//! Record and replay: a scenario recorded against the simulator (standing in
//! for a real account) replays from the file with the simulator gone;
//! requests not recorded, unused exchanges, unreadable cassettes, scrubbing.

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use vidplat::encoder::types::{PresetCreate, ProfileCreate, Task, TaskCreate, TaskStatus};
use vidplat::vms::types::{CategoryCreate, ContentCreate, ViewingPageCreate};
use vidplat::{Call, Client, Error};
use vidplat_sim::{SimConfig, Simulator};
use vidplat_test::{Cassette, Fixture, CASSETTE_FORMAT};

/// A path in a directory of its own under the system's temporary directory
/// (not created: saving creates it), removed when dropped.
struct TempPath(PathBuf);

impl TempPath {
    fn new(name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vidplat-test-cassettes-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        Self(dir.join("nested").join(name))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent().and_then(|nested| nested.parent()) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn from<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid request body")
}

/// What the scenario saw, to compare the replay with the recording.
#[derive(Debug, PartialEq)]
struct Outcome {
    task_id: i64,
    statuses: Vec<Option<TaskStatus>>,
    listed_tasks: Vec<Option<i64>>,
    page_id: Option<String>,
    signing_key: Option<String>,
    listed_pages: Vec<Option<String>>,
}

/// Registers a preset, a profile and a task and polls it until it is ready, lists tasks, registers a
/// signed viewing page (whose answer carries its `signing_key`) and finds it
/// in a list filtered by a query. `pause` between polls: the simulator's
/// step when recording, nothing when replaying.
async fn scenario(client: &Client, pause: Duration) -> Outcome {
    let encoder = client.encoder().unwrap();
    let preset = encoder
        .register_preset()
        .body(from::<PresetCreate>(json!({
            "name": "mp4",
            "destination": "https://upload.example.com/out",
            "format": "MP4",
            "output_filename": "%INPUT_FILENAME%",
        })))
        .call()
        .await
        .unwrap();
    let profile = encoder
        .register_profile()
        .body(from::<ProfileCreate>(json!({"name": "p", "presets": [preset.id]})))
        .call()
        .await
        .unwrap();
    let registered = encoder
        .register_task()
        .body(from::<TaskCreate>(
            json!({"input_filepath": "movie.mp4", "profile_id": profile.id}),
        ))
        .call()
        .await
        .unwrap();
    let task_id = registered.tasks[0].id.unwrap();
    let mut statuses = Vec::new();
    loop {
        let task = encoder.get_task().task_id(task_id).call().await.unwrap();
        let ready = task.status == Some(TaskStatus::Ready);
        statuses.push(task.status);
        if ready {
            break;
        }
        assert!(statuses.len() < 50, "the task never got ready: {statuses:?}");
        tokio::time::sleep(pause).await;
    }
    let listed_tasks = encoder
        .list_tasks()
        .per_page(5_u64)
        .call()
        .await
        .unwrap()
        .data
        .iter()
        .map(|t| t.id)
        .collect();

    let vms = client.vms().unwrap();
    let category = vms
        .register_category()
        .create_parents(true)
        .body(from::<CategoryCreate>(json!({"name": "movies"})))
        .call()
        .await
        .unwrap();
    vms.register_content()
        .body(from::<ContentCreate>(json!({
            "name": "c",
            "title": "A cat",
            "category_id": category.id,
            "streams": [{"name": "mp4", "path": "/m/720.mp4", "format": "MP4", "filesize": 800}],
            "stream_sets": [{"name": "mp4", "stream_names": ["mp4"]}],
        })))
        .call()
        .await
        .unwrap();
    let page = vms
        .register_viewing_page()
        .body(from::<ViewingPageCreate>(json!({
            "content_name": "c",
            "signature_required": true,
            "configurations": {"title": "Members only"},
        })))
        .call()
        .await
        .unwrap();
    let listed_pages = vms
        .list_viewing_pages()
        .query("members")
        .per_page(10_u64)
        .call()
        .await
        .unwrap()
        .data
        .iter()
        .map(|p| p.id.clone())
        .collect();
    Outcome {
        task_id,
        statuses,
        listed_tasks,
        page_id: page.id,
        signing_key: page.signing_key,
        listed_pages,
    }
}

#[tokio::test]
async fn a_scenario_recorded_against_the_simulator_replays_without_it() {
    let path = TempPath::new("scenario.json");
    let sim = Simulator::start_with(SimConfig::fast()).await.unwrap();
    let api_key = sim.api_key.clone();
    let cassette = Cassette::record(&path.0);
    assert!(cassette.is_recording());
    let client = cassette.client_builder(sim.client()).build().unwrap();
    let recorded = scenario(&client, Duration::from_millis(20)).await;
    cassette.finish();
    drop((client, sim));

    let signing_key = recorded.signing_key.clone().expect("a signed page has a signing key");
    assert_eq!(recorded.statuses.last(), Some(&Some(TaskStatus::Ready)));
    assert!(recorded.statuses.len() >= 2, "{:?}", recorded.statuses);
    assert_eq!(recorded.listed_pages, std::slice::from_ref(&recorded.page_id));

    let text = std::fs::read_to_string(&path.0).unwrap();
    assert!(!text.contains(&api_key), "the API key is stored");
    assert!(!text.contains(&signing_key), "the signing key is stored");
    assert!(!text.to_ascii_lowercase().contains("authorization"));
    assert!(text.contains(vidplat_core::REDACTED));
    assert!(text.ends_with("}\n"));
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["format"], CASSETTE_FORMAT);
    let exchanges = file["exchanges"].as_array().unwrap();
    let operations: Vec<&str> = exchanges
        .iter()
        .map(|e| e["request"]["operation"].as_str().unwrap())
        .collect();
    let polls = recorded.statuses.len();
    let mut expected = vec!["register_preset", "register_profile", "register_task"];
    expected.extend(std::iter::repeat_n("get_task", polls));
    expected.extend([
        "list_tasks",
        "register_category",
        "register_content",
        "register_viewing_page",
        "list_viewing_pages",
    ]);
    assert_eq!(operations, expected);
    // Relative to the service's base URL (the simulator's is /encoder), the body parsed.
    let poll = &exchanges[3]["request"];
    assert_eq!(poll["service"], "encoder");
    assert_eq!(poll["path"], format!("/v1/tasks/{}", recorded.task_id));
    assert_eq!(exchanges[2]["request"]["body"]["json"]["input_filepath"], "movie.mp4");
    assert_eq!(exchanges[polls + 3]["request"]["query"], "per_page=5");
    let page = &exchanges[polls + 6]["response"];
    let page_body: Value = serde_json::from_str(page["body"].as_str().unwrap()).unwrap();
    assert_eq!(page_body["signing_key"], vidplat_core::REDACTED);
    assert!(page["headers"].get("content-length").is_none());

    // The simulator is gone: the file answers, at the mock's URLs.
    let cassette = Cassette::replay(&path.0).unwrap();
    assert!(!cassette.is_recording());
    let client = cassette.client_builder(Client::builder()).build().unwrap();
    let replayed = scenario(&client, Duration::ZERO).await;
    assert_eq!(
        replayed,
        Outcome {
            signing_key: Some(vidplat_core::REDACTED.to_owned()),
            ..recorded
        }
    );
    assert_eq!(cassette.problems(), Vec::<String>::new());
    cassette.finish();
}

/// A cassette of `get_task` for task 7 answered twice: encoding, then ready.
fn two_polls() -> Value {
    let task = |status| {
        serde_json::to_string(&Task {
            id: Some(7),
            status: Some(status),
            ..Task::fixture()
        })
        .unwrap()
    };
    let exchange = |status| {
        json!({
            "request": {"service": "encoder", "operation": "get_task", "method": "GET", "path": "/v1/tasks/7"},
            "response": {"status": 200, "headers": {"content-type": "application/json"}, "body": task(status)},
        })
    };
    json!({
        "format": CASSETTE_FORMAT,
        "exchanges": [exchange(TaskStatus::Encoding), exchange(TaskStatus::Ready)],
    })
}

#[tokio::test]
async fn a_request_not_recorded_gets_501_and_finish_names_it_and_the_unused_exchange() {
    let path = TempPath::new("two-polls.json");
    std::fs::create_dir_all(path.0.parent().unwrap()).unwrap();
    std::fs::write(&path.0, two_polls().to_string()).unwrap();
    let cassette = Cassette::replay(&path.0).unwrap();
    let client = cassette.client_builder(Client::builder()).build().unwrap();
    let encoder = client.encoder().unwrap();

    let task = encoder.get_task().task_id(7).call().await.unwrap();
    assert_eq!(task.status, Some(TaskStatus::Encoding));
    let error = encoder.get_task().task_id(8).call().await.unwrap_err();
    assert!(matches!(&error, Error::Api(_)), "{error:?}");
    assert_eq!(error.status(), Some(501), "{error}");
    assert!(error.to_string().contains("not recorded"), "{error}");
    let problems = [
        "not recorded: GET /v1/tasks/8 (encoder get_task); the nearest, exchange #2, differs in path",
        "unused: exchange #2 GET /v1/tasks/7 (encoder get_task)",
    ];
    assert_eq!(cassette.problems(), problems);

    let shown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cassette.finish())).unwrap_err();
    let shown = shown.downcast_ref::<String>().unwrap();
    assert!(shown.contains(&path.0.display().to_string()), "{shown}");
    for problem in problems {
        assert!(shown.contains(problem), "{shown}");
    }

    // The second poll of task 7 gets the second answer: in order, each once.
    let task = encoder.get_task().task_id(7).call().await.unwrap();
    assert_eq!(task.status, Some(TaskStatus::Ready));
    let again = encoder.get_task().task_id(7).call().await.unwrap_err();
    assert_eq!(again.status(), Some(501));
    assert_eq!(
        cassette.problems(),
        [
            problems[0],
            "not recorded: GET /v1/tasks/7 (encoder get_task); exchange #1 matched it, and was used",
        ]
    );
}

#[test]
fn a_cassette_that_is_not_one_is_an_io_error_naming_the_file() {
    let path = TempPath::new("broken.json");
    std::fs::create_dir_all(path.0.parent().unwrap()).unwrap();
    let shown = path.0.display().to_string();
    let error_for = |text: &str| {
        std::fs::write(&path.0, text).unwrap();
        Cassette::replay(&path.0).unwrap_err()
    };

    let error = error_for(r#"{"format": "vidplat-test cassette 1", "exchanges": ["#);
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    assert!(error.to_string().contains(&shown), "{error}");
    assert!(error.to_string().contains("is not valid JSON"), "{error}");

    let error = error_for(r#"{"format": "vidplat-test cassette 2", "exchanges": []}"#);
    assert!(error.to_string().contains(&shown), "{error}");
    assert!(error.to_string().contains("unknown format"), "{error}");
    let error = error_for(r#"[1, 2]"#);
    assert!(error.to_string().contains("no \"format\" member"), "{error}");

    let mut unusable = two_polls();
    unusable["exchanges"][1]["response"]["status"] = json!(1000);
    let error = error_for(&unusable.to_string());
    assert!(error.to_string().contains("exchange #2: status 1000"), "{error}");
    let mut unusable = two_polls();
    unusable["exchanges"][0]["response"]["body_base64"] = json!("not base64!");
    unusable["exchanges"][0]["response"]["body"] = Value::Null;
    let error = error_for(&unusable.to_string());
    assert!(error.to_string().contains("exchange #1"), "{error}");

    std::fs::remove_file(&path.0).unwrap();
    let error = Cassette::replay(&path.0).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    assert!(error.to_string().contains(&shown), "{error}");
    assert!(
        Cassette::from_env(&path.0).is_err(),
        "VIDPLAT_RECORD is not set: from_env replays"
    );
}

#[tokio::test]
async fn signatures_in_a_query_or_a_body_are_stored_redacted_and_any_signature_replays() {
    let path = TempPath::new("signatures.json");
    let sim = Simulator::start_with(SimConfig::fast()).await.unwrap();
    vidplat_core::install_default_tls_provider();
    let http = crate::raw_http();
    // The key, when the service echoes it, is scrubbed like the signatures.
    let list = |base: &str, key: &str, signature: &str| {
        http.get(format!(
            "{base}/v1/instant-pages?per_page=1&signature={signature}&expires=9"
        ))
        .bearer_auth(key)
        .build()
        .unwrap()
    };
    let register = |base: &str, key: &str, signature: &str| {
        let url = format!("https://portal.example/pages/p?expires=9&signature={signature}");
        http.post(format!("{base}/v1/instant-pages"))
            .bearer_auth(key)
            .json(&json!({"content_name": "nope", "configurations": {"description": url, "title": key}}))
            .build()
            .unwrap()
    };

    let cassette = Cassette::record(&path.0);
    let transport = cassette.transport();
    let key = sim.api_key.clone();
    let listed = transport
        .send(&http, list(&sim.vms_url, &key, "abc123def456"))
        .await
        .unwrap();
    let registered = transport
        .send(&http, register(&sim.vms_url, &key, "0ddba11f00d"))
        .await
        .unwrap();
    let statuses = (listed.status().as_u16(), registered.status().as_u16());
    // Listed, and refused for the content that does not exist: the simulator took the key.
    assert_eq!(statuses, (200, 404));
    cassette.finish();
    drop(sim);

    let text = std::fs::read_to_string(&path.0).unwrap();
    assert!(
        text.contains(r#""query": "per_page=1&signature=[redacted]&expires=9""#),
        "{text}"
    );
    assert!(
        text.contains("?expires=9&signature=[redacted]\""),
        "the URL in the body: {text}"
    );
    assert!(text.contains(r#""title": "[redacted]""#), "the key in the body: {text}");
    for secret in ["abc123def456", "0ddba11f00d", key.as_str()] {
        assert!(!text.contains(secret), "{secret} is stored: {text}");
    }

    // Another signature and another key (and the mock's host) match: neither is part of the key.
    let cassette = Cassette::replay(&path.0).unwrap();
    let transport = cassette.transport();
    let (base, key) = (vidplat_test::VMS_URL, "another-key");
    let listed = transport.send(&http, list(base, key, "ffff")).await.unwrap();
    let registered = transport.send(&http, register(base, key, "eeee")).await.unwrap();
    assert_eq!((listed.status().as_u16(), registered.status().as_u16()), statuses);
    cassette.finish();
}

#[tokio::test]
async fn an_answer_past_64_mib_reaches_the_live_run_unrecorded_and_is_named() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    const SIZE: usize = 64 * 1024 * 1024 + 1;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("an address");
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("a connection");
        // The request's head first: an answer before it is a protocol error.
        let mut read = Vec::new();
        let mut buffer = [0_u8; 1024];
        while !read.windows(4).any(|w| w == b"\r\n\r\n") && read.len() < 64 * 1024 {
            let n = socket.read(&mut buffer).await.expect("the request");
            if n == 0 {
                break;
            }
            read.extend_from_slice(&buffer[..n]);
        }
        let head = format!("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {SIZE}\r\n\r\n");
        socket.write_all(head.as_bytes()).await.expect("the head");
        let block = vec![b'x'; 1024 * 1024];
        let mut left = SIZE;
        while left > 0 {
            let n = left.min(block.len());
            socket.write_all(&block[..n]).await.expect("the body");
            left -= n;
        }
    });
    let path = TempPath::new("large.json");
    let cassette = Cassette::record(&path.0);
    let client = crate::raw_http();
    let request = client
        .get(format!("http://{address}/v1/tasks/7"))
        .build()
        .expect("a request");
    let response = cassette.transport().send(&client, request).await.expect("an answer");
    let body = response.bytes().await.expect("the whole body");
    server.await.expect("the server");
    assert_eq!(body.len(), SIZE, "the live run gets all of it");
    let problems = cassette.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].ends_with("an answer larger than 64 MiB"), "{problems:?}");
    cassette.save().expect("saved");
    let saved = std::fs::read_to_string(&path.0).expect("the file");
    assert!(!saved.contains("xxxx"), "nothing of it recorded");
}

/// A server that answers each connection with the next of `answers` (the
/// whole HTTP response, bytes as given), on 127.0.0.1.
async fn answering(answers: Vec<Vec<u8>>) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        for answer in answers {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut request = vec![0_u8; 64 * 1024];
            let _ = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut request)).await;
            let _ = socket.write_all(&answer).await;
            let _ = socket.shutdown().await;
        }
    });
    format!("http://{address}")
}

fn http_answer(body: &[u8]) -> Vec<u8> {
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(body);
    answer
}

/// Whatever form a server writes the key or a secret member in (JSON-escaped,
/// percent-encoded, inside a body that is not UTF-8, a secret that is no
/// string), none of it reaches the cassette's file.
#[tokio::test]
async fn no_form_of_the_key_or_of_a_secret_reaches_the_file() {
    let key = "k/ey+with/slash";
    let escaped = r"k\/ey+with\/slash";
    let encoded = "k%2Fey%2Bwith%2Fslash";
    let json = format!(
        r#"{{"echo": "{escaped}", "query": "key={encoded}", "signing_key": {{"a": "s3cr3t-object"}}, "password": 4242}}"#
    );
    let mut binary = b"\xff\xfe not text, yet it says ".to_vec();
    binary.extend_from_slice(key.as_bytes());
    binary.extend_from_slice(b" and ");
    binary.extend_from_slice(encoded.to_lowercase().as_bytes());
    let base = answering(vec![http_answer(json.as_bytes()), http_answer(&binary)]).await;
    let path = TempPath::new("forms.json");
    let cassette = Cassette::record(&path.0);
    let transport = cassette.transport();
    let http = crate::raw_http();
    for _ in 0..2 {
        let request = http
            .get(format!("{base}/vms/v1/instant-pages"))
            .bearer_auth(key)
            .build()
            .unwrap();
        assert_eq!(transport.send(&http, request).await.unwrap().status(), 200);
    }
    cassette.finish();
    let text = std::fs::read_to_string(&path.0).unwrap();
    for secret in [
        key,
        escaped,
        &escaped.replace('\\', "\\\\"),
        encoded,
        &encoded.to_lowercase(),
        "s3cr3t",
        "4242",
    ] {
        assert!(!text.contains(secret), "{secret} is stored: {text}");
    }
    assert!(
        !text.contains("body_base64"),
        "a body holding the key is not kept as bytes: {text}"
    );
}

/// Saving writes a new file of its own and renames it over the cassette: a
/// link planted beside it (a repository can hold one, at the name the kit
/// used to write to) is never written through.
#[cfg(unix)]
#[tokio::test]
async fn saving_never_writes_through_a_link_planted_beside_the_cassette() {
    let path = TempPath::new("planted.json");
    let dir = path.0.parent().unwrap().to_owned();
    std::fs::create_dir_all(&dir).unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let mut partial = path.0.clone().into_os_string();
    partial.push(".partial");
    std::os::unix::fs::symlink(&victim, &partial).unwrap();
    Cassette::record(&path.0).finish();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(std::fs::read_to_string(&path.0).unwrap().contains(CASSETTE_FORMAT));
}

/// A FIFO where a cassette should be is refused, not read (a read would
/// wait for a writer forever).
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_as_a_cassette_unread() {
    let path = TempPath::new("fifo.json");
    std::fs::create_dir_all(path.0.parent().unwrap()).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&path.0).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    let (sender, outcome) = std::sync::mpsc::channel();
    let at = path.0.clone();
    std::thread::spawn(move || sender.send(Cassette::replay(&at).map(|_| ()).map_err(|e| e.to_string())));
    let refused = outcome
        .recv_timeout(Duration::from_secs(5))
        .expect("the FIFO is not waited on");
    assert!(refused.is_err_and(|e| e.ends_with("is not a regular file")));
}
