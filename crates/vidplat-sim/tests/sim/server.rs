//! The listener itself: a client that sends part of a request does not hold
//! its connection longer than `SimConfig::header_read_timeout`. Plain TCP on
//! 127.0.0.1; every wait is bounded.

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use vidplat_sim::{SimConfig, Simulator};

const TIMEOUT: Duration = Duration::from_millis(300);
/// Far longer than `TIMEOUT`: a connection still open then was never going to close.
const PATIENCE: Duration = Duration::from_secs(10);

/// Writes `sent` and reads until the server closes the connection: what it
/// answered and how long after the write it closed, or `None` past `PATIENCE`.
async fn until_closed(sim: &Simulator, sent: &[u8]) -> Option<(Vec<u8>, Duration)> {
    let mut stream = TcpStream::connect(sim.address).await.expect("a connection");
    stream.write_all(sent).await.expect("the bytes are sent");
    let started = Instant::now();
    let mut answered = Vec::new();
    let mut buffer = [0_u8; 4096];
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_elapsed) => return None,
            Ok(Ok(0) | Err(_)) => return Some((answered, started.elapsed())),
            Ok(Ok(read)) => answered.extend_from_slice(&buffer[..read]),
        }
    }
}

#[tokio::test]
async fn a_client_sending_half_a_request_is_disconnected() {
    assert_eq!(SimConfig::default().header_read_timeout, Duration::from_secs(30));
    let sim = Simulator::start_with(SimConfig {
        header_read_timeout: TIMEOUT,
        ..SimConfig::fast()
    })
    .await
    .expect("the simulator starts");

    for half in [
        &b"GET /encoder/v1/cou"[..],
        b"GET /encoder/v1/counts HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        b"",
    ] {
        let shown = String::from_utf8_lossy(half).into_owned();
        let (answered, after) = until_closed(&sim, half)
            .await
            .unwrap_or_else(|| panic!("`{shown}` held its connection for {PATIENCE:?}"));
        assert_eq!(answered, b"", "`{shown}` got an answer");
        assert!(
            after >= TIMEOUT - Duration::from_millis(50),
            "`{shown}` was disconnected after {after:?}, before the timeout"
        );
    }

    // A whole request is answered, then the idle connection closes the same way.
    let whole = format!(
        "GET /encoder/v1/counts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
        sim.api_key
    );
    let (answered, _) = until_closed(&sim, whole.as_bytes())
        .await
        .expect("an idle connection closes too");
    let answered = String::from_utf8(answered).expect("a text answer");
    assert!(answered.starts_with("HTTP/1.1 200 OK\r\n"), "{answered}");
    assert!(answered.ends_with(r#""waiting":0}"#), "{answered}");
}
