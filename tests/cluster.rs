//! Several nodes behind HAProxy (issue 16): three real `spelbord` binaries on one database,
//! with HAProxy in front configured by the rules of `deploy/haproxy.cfg` (every request of a
//! table to one node by consistent hashing on the table id; health checks on `/healthz`).
//! Through the proxy, Gomoku games are played on a dozen tables; then
//! - the node owning the most tables is SIGKILLed: each of its tables is served again through
//!   the proxy (the time is measured and printed), with every acknowledged move, and play goes
//!   on;
//! - another node is SIGSTOPped past its lease while clients are connected straight to it on
//!   two of its tables: living nodes take both over (one asked for through the proxy, where
//!   a move is then played; the other adopted as a game in play); after SIGCONT the stale
//!   node stores nothing of the moves its clients send, and closes them with 1012;
//! - the killed node is started again: its tables move back to it (the lease rows say so),
//!   the players follow after 1012, and every game is played to its end.
//!
//! A second test restarts all three nodes in turn (SIGTERM: each drains) while a dozen games
//! with clocks are played through the proxy: every game goes on with every acknowledged
//! move, no flag falls, and the players' longest wait for a new connection is printed.
//!
//! All the while (in the first test), the lease rows are sampled every 20 ms: per table the epoch never goes
//! back, a new owner always comes with a higher epoch, and once the takeover has settled no
//! lease names a dead node.
//!
//! Without HAProxy the test says so and passes, so that `cargo test` works on a machine
//! without it; with `CI=true` (as `.ci/run` runs, which installs Debian's `haproxy`) it fails.

mod common;

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;

const BINARY: &str = env!("CARGO_BIN_EXE_spelbord");
/// The nodes' lease (`cluster.lease_seconds`): short, so that a stopped node loses it soon.
const LEASE: Duration = Duration::from_secs(2);
/// Tables played on: enough that every node owns several.
const TABLES: usize = 12;
/// Guards against hangs (not measures of speed): a node's start, one reconnect loop, one
/// message, a close that must come.
const STARTUP_LIMIT: Duration = Duration::from_secs(60);
const RETRY_LIMIT: Duration = Duration::from_secs(30);
const RETRY_EVERY: Duration = Duration::from_millis(100);
const RECV_LIMIT: Duration = Duration::from_secs(10);
const CLOSE_LIMIT: Duration = Duration::from_secs(15);
/// A node's drain after SIGTERM (`cluster.drain_seconds` is 30 s) and its exit.
const DRAIN_LIMIT: Duration = Duration::from_secs(45);
/// Errors after which a move is sent again (on a new connection): the node could not store
/// it, or the table is moving between nodes.
const RETRYABLE: [&str; 2] = ["storage_unavailable", "table_moving"];

/// Every game's moves: X completes H8–L8 on ply 9 while O plays down the A file.
const X_MOVES: [&str; 5] = ["H8", "I8", "J8", "K8", "L8"];
const O_MOVES: [&str; 4] = ["A1", "A2", "A3", "A4"];
const LAST_PLY: usize = 9;
/// The legal move the stale node's client tries after losing the table (never in the script).
const STALE_MOVE: &str = "O15";

/// The seat and the move of `ply` (from 1) in the script.
fn scripted(ply: usize) -> (usize, &'static str) {
    if ply % 2 == 1 {
        (0, X_MOVES[(ply - 1) / 2])
    } else {
        (1, O_MOVES[(ply - 2) / 2])
    }
}

/// The last lines a process wrote, shown when the test fails.
type Log = Arc<Mutex<VecDeque<String>>>;

/// Keeps the last lines of `stream` in `log`; sends the first line containing `marker`, if
/// any, to `found`.
fn keep_lines(
    stream: impl AsyncRead + Unpin + Send + 'static,
    log: Log,
    marker: Option<(&'static str, tokio::sync::oneshot::Sender<()>)>,
) {
    tokio::spawn(async move {
        let mut marker = marker;
        let mut lines = BufReader::new(stream).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if marker.as_ref().is_some_and(|(text, _)| line.contains(text))
                && let Some((_, found)) = marker.take()
            {
                let _ = found.send(());
            }
            let mut log = log.lock().expect("log");
            if log.len() == 200 {
                log.pop_front();
            }
            log.push_back(line);
        }
    });
}

/// A free port on 127.0.0.1 (bound, read and released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// HAProxy: `HAPROXY`, else on `PATH`, else where Debian puts it.
fn haproxy_binary() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("haproxy"))
            .find(|file| file.is_file())
    });
    std::env::var_os("HAPROXY")
        .map(PathBuf::from)
        .or(on_path)
        .or_else(|| Some(PathBuf::from("/usr/sbin/haproxy")))
        .filter(|file| file.is_file())
}

/// `deploy/haproxy.cfg` for this machine: listening on 127.0.0.1:`port`, the three nodes by
/// address with checks every 200 ms, no name resolution, and each answer saying which node
/// served it (`X-Served-By`). The routing and checking rules are the shipped ones.
fn proxy_config(port: u16, nodes: &[Node]) -> String {
    let shipped = include_str!("../deploy/haproxy.cfg");
    let mut config = String::new();
    let mut section = "";
    for line in shipped.lines() {
        if !line.starts_with([' ', '#']) && !line.is_empty() {
            section = line.split_whitespace().next().unwrap_or_default();
        }
        let rule = line.trim_start();
        if section == "resolvers" || rule.starts_with("server ") {
            continue;
        } else if rule == "bind :80" {
            config.push_str(&format!("    bind 127.0.0.1:{port}\n"));
        } else if rule.starts_with("maxconn ") {
            config.push_str("    maxconn 2000\n");
        } else if rule.starts_with("default-server ") {
            let rule = rule.split(" resolvers ").next().unwrap_or(rule);
            assert!(rule.contains("inter 1s"), "the shipped checks: {rule}");
            config.push_str(&format!("    {}\n", rule.replacen("inter 1s", "inter 200ms", 1)));
            // Checked every 200 ms to keep the test short, each check still given the shipped
            // 1 s to answer (HAProxy's check timeout is `inter` unless set): on a loaded
            // machine a debug build's /healthz can take over 200 ms, and two slow answers
            // marked a healthy node down and cut its sockets mid-test.
            config.push_str("    timeout check 1s\n");
            for node in nodes {
                let (name, port) = (node.name, node.port);
                config.push_str(&format!("    server {name} 127.0.0.1:{port} check\n"));
            }
        } else if rule.starts_with("balance ") {
            config.push_str(&format!(
                "{line}\n    http-response set-header X-Served-By %[srv_name]\n"
            ));
        } else {
            config.push_str(line);
            config.push('\n');
        }
    }
    for expected in [
        "bind 127.0.0.1:",
        "inter 200ms",
        "timeout check 1s",
        "shutdown-sessions",
        "balance hdr(X-Spelbord-Table)",
        "http-check disable-on-404",
    ] {
        assert!(
            config.contains(expected),
            "{expected} in the generated config:\n{config}"
        );
    }
    config
}

/// One server node: the real binary with a name and a port of its own.
struct Node {
    name: &'static str,
    port: u16,
    child: Option<Child>,
    log: Log,
}

impl Node {
    /// Starts the node on `database` and waits until it listens.
    async fn start(&mut self, database: &str) {
        let mut child = Command::new(BINARY)
            .current_dir(std::env::temp_dir())
            .env("APP_ENVIRONMENT", "local")
            .env("DATABASE_URL", database)
            .env("PORT", self.port.to_string())
            .env("APP__CLUSTER__NODE_NAME", self.name)
            .env("APP__CLUSTER__LEASE_SECONDS", LEASE.as_secs().to_string())
            .env("APP__CLUSTER__HANDOFF_WAIT_MS", "3000")
            // The proxy checks every 200 ms here (`proxy_config`): three checks' notice.
            .env("APP__CLUSTER__DRAIN_NOTICE_MS", "600")
            .env("APP__SERVER__TRUSTED_PROXIES", "127.0.0.1")
            .env("APP__LIMITS__TABLES_PER_MINUTE", "1000")
            .env("APP__LIMITS__CONNECTIONS_PER_ADDRESS", "0")
            .env("APP__LIMITS__SEEKS_PER_MINUTE", "100000")
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start a node");
        let (found, listening) = tokio::sync::oneshot::channel();
        let stdout = child.stdout.take().expect("piped stdout");
        keep_lines(stdout, self.log.clone(), Some(("listening on ", found)));
        keep_lines(child.stderr.take().expect("piped stderr"), self.log.clone(), None);
        timeout(STARTUP_LIMIT, listening)
            .await
            .unwrap_or_else(|_| panic!("node {} listens within {STARTUP_LIMIT:?}", self.name))
            .unwrap_or_else(|_| panic!("node {} exited before listening", self.name));
        self.child = Some(child);
    }

    fn pid(&self) -> libc::pid_t {
        let child = self.child.as_ref().expect("a running node");
        libc::pid_t::try_from(child.id().expect("a pid")).expect("a pid fits")
    }

    /// SIGTERMs the node and waits for it to exit (after its drain); how long that took.
    async fn terminate(&mut self) -> Duration {
        let mut child = self.child.take().expect("a running node");
        let asked = Instant::now();
        let pid = libc::pid_t::try_from(child.id().expect("a pid")).expect("a pid fits");
        signal(pid, libc::SIGTERM);
        let status = timeout(DRAIN_LIMIT, child.wait())
            .await
            .unwrap_or_else(|_| panic!("node {} exits within {DRAIN_LIMIT:?} of SIGTERM", self.name))
            .expect("its status");
        assert!(status.success(), "node {} exited with {status}", self.name);
        asked.elapsed()
    }

    /// SIGKILLs the node and waits for it to die.
    async fn kill(&mut self) {
        let mut child = self.child.take().expect("a running node");
        child.start_kill().expect("SIGKILL");
        timeout(STARTUP_LIMIT, child.wait())
            .await
            .expect("the node dies")
            .expect("its status");
    }
}

/// Sends `signal` to `pid`.
fn signal(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(sent, 0, "signal {signal} to {pid}");
}

/// The database, the three nodes and the proxy; on drop, every stopped node is continued
/// (then everything is killed), and when the test failed the logs' last lines are shown.
struct Cluster {
    nodes: Vec<Node>,
    proxy: Child,
    proxy_port: u16,
    proxy_log: Log,
    config_file: PathBuf,
    /// Nodes SIGSTOPped and not continued yet.
    stopped: Vec<libc::pid_t>,
    /// Cancelled on drop: stops whatever reads the database before it is dropped.
    done: CancellationToken,
    http: reqwest::Client,
    pool: PgPool,
    // Dropped last: the database outlives its users.
    database: common::TestDb,
}

impl Cluster {
    async fn start(haproxy: PathBuf) -> Cluster {
        let database = common::TestDb::create().await;
        let mut nodes: Vec<Node> = ["a", "b", "c"]
            .into_iter()
            .map(|name| Node {
                name,
                port: free_port(),
                child: None,
                log: Log::default(),
            })
            .collect();
        // One after the other: the first one migrates the database.
        for node in &mut nodes {
            node.start(&database.url()).await;
        }
        let proxy_port = free_port();
        let config_file = std::env::temp_dir().join(format!("spelbord-haproxy-{}.cfg", uuid::Uuid::new_v4().simple()));
        std::fs::write(&config_file, proxy_config(proxy_port, &nodes)).expect("write the proxy's config");
        let mut proxy = Command::new(haproxy)
            .arg("-f")
            .arg(&config_file)
            .arg("-db")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start HAProxy");
        let proxy_log = Log::default();
        keep_lines(proxy.stdout.take().expect("stdout"), proxy_log.clone(), None);
        keep_lines(proxy.stderr.take().expect("stderr"), proxy_log.clone(), None);
        let pool = PgPool::connect_with(database.options.clone()).await.expect("connect");
        let cluster = Cluster {
            nodes,
            proxy,
            proxy_port,
            proxy_log,
            config_file,
            stopped: Vec::new(),
            done: CancellationToken::new(),
            http: reqwest::Client::new(),
            pool,
            database,
        };
        // The proxy answers once it listens and its checks found the nodes.
        let deadline = Instant::now() + STARTUP_LIMIT;
        while cluster.served_by("/healthz").await.is_none() {
            assert!(Instant::now() < deadline, "the proxy serves within {STARTUP_LIMIT:?}");
            sleep(RETRY_EVERY).await;
        }
        cluster
    }

    fn http(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.proxy_port)
    }

    fn ws(&self) -> String {
        format!("ws://127.0.0.1:{}", self.proxy_port)
    }

    fn node(&self, name: &str) -> usize {
        self.nodes
            .iter()
            .position(|node| node.name == name)
            .expect("a node of that name")
    }

    /// Which node the proxy sent `GET path` to, if it answered 200.
    async fn served_by(&self, path: &str) -> Option<String> {
        let response = self.http.get(self.http(path)).send().await.ok()?;
        if response.status() != 200 {
            return None;
        }
        let node = response.headers().get("x-served-by")?.to_str().ok()?;
        Some(node.to_owned())
    }

    /// Each table's owning node by name, from the lease rows.
    async fn owners(&self) -> HashMap<String, String> {
        sqlx::query_as("SELECT l.table_id, n.name FROM table_leases l JOIN nodes n ON n.id = l.node")
            .fetch_all(&self.pool)
            .await
            .expect("the lease rows")
            .into_iter()
            .collect()
    }

    /// The stored moves of `table`'s game, in order.
    async fn stored_moves(&self, table: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT m.payload->>'at' FROM moves m JOIN games g ON g.id = m.game_id \
             WHERE g.table_id = $1 ORDER BY m.ply",
        )
        .bind(table)
        .fetch_all(&self.pool)
        .await
        .expect("the stored moves")
    }

    fn stop(&mut self, node: usize) {
        let pid = self.nodes[node].pid();
        signal(pid, libc::SIGSTOP);
        self.stopped.push(pid);
    }

    fn resume(&mut self, node: usize) {
        let pid = self.nodes[node].pid();
        signal(pid, libc::SIGCONT);
        self.stopped.retain(|stopped| *stopped != pid);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.done.cancel();
        for pid in &self.stopped {
            // SAFETY: as in `signal`; a failure (the node is gone) is of no concern here.
            unsafe { libc::kill(*pid, libc::SIGCONT) };
        }
        let _ = self.proxy.start_kill();
        let _ = std::fs::remove_file(&self.config_file);
        if std::thread::panicking() {
            let mut stderr = std::io::stderr();
            let logs = self.nodes.iter().map(|node| (format!("node {}", node.name), &node.log));
            for (name, log) in logs.chain([("the proxy".to_owned(), &self.proxy_log)]) {
                let log = log.lock().map(|log| log.iter().cloned().collect::<Vec<_>>());
                let lines = log.unwrap_or_default();
                let tail = &lines[lines.len().saturating_sub(40)..];
                let _ = writeln!(stderr, "--- last lines of {name} ---\n{}", tail.join("\n"));
            }
        }
    }
}

/// How a connection ended.
#[derive(Debug)]
enum Ended {
    /// A close frame, with its code.
    Closed(Option<u16>),
    /// The socket failed or ended without a close frame.
    Broken(#[expect(dead_code, reason = "shown in failure messages")] String),
    /// Nothing within [`RECV_LIMIT`].
    Silent,
}

/// A WebSocket client that, unlike `common::Client`, reports a closed connection instead of
/// failing, so that it can reconnect as a browser does.
struct Conn {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Conn {
    /// Connects to `url` and reads the snapshot.
    async fn open(url: &str) -> Result<(Conn, Value), String> {
        let (ws, _) = timeout(RECV_LIMIT, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| "no answer to the upgrade".to_owned())?
            .map_err(|error| match error {
                tokio_tungstenite::tungstenite::Error::Http(response) => {
                    let body = response.body().as_deref().map(String::from_utf8_lossy);
                    format!("HTTP {} {}", response.status(), body.unwrap_or_default())
                }
                other => other.to_string(),
            })?;
        let mut conn = Conn { ws };
        let snapshot = conn
            .recv()
            .await
            .map_err(|ended| format!("{ended:?} before the snapshot"))?;
        if snapshot["type"] != "snapshot" {
            return Err(format!("{snapshot} before the snapshot"));
        }
        Ok((conn, snapshot))
    }

    /// Connects to `url` until it answers with a snapshot, every [`RETRY_EVERY`] (refused,
    /// `503 table_moving`, closed), at most for [`RETRY_LIMIT`].
    async fn open_until(url: &str) -> (Conn, Value) {
        let deadline = Instant::now() + RETRY_LIMIT;
        loop {
            let last = match Conn::open(url).await {
                Ok(opened) => return opened,
                Err(error) => error,
            };
            assert!(
                Instant::now() < deadline,
                "{url} not served within {RETRY_LIMIT:?}; last: {last}"
            );
            sleep(RETRY_EVERY).await;
        }
    }

    async fn send(&mut self, message: Value) -> Result<(), Ended> {
        let sent = self.ws.send(Message::text(message.to_string())).await;
        sent.map_err(|error| Ended::Broken(error.to_string()))
    }

    /// The next JSON message.
    async fn recv(&mut self) -> Result<Value, Ended> {
        let deadline = Instant::now() + RECV_LIMIT;
        loop {
            let frame = timeout(deadline - Instant::now(), self.ws.next()).await;
            match frame.map_err(|_| Ended::Silent)? {
                Some(Ok(Message::Text(text))) => {
                    return Ok(serde_json::from_str(text.as_str()).expect("the server sends JSON"));
                }
                Some(Ok(Message::Close(frame))) => return Err(Ended::Closed(frame.map(|f| u16::from(f.code)))),
                Some(Ok(_)) => continue,
                Some(Err(error)) => return Err(Ended::Broken(error.to_string())),
                None => return Err(Ended::Broken("the stream ended".into())),
            }
        }
    }

    /// Reads until a message that `wanted` accepts.
    async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Result<Value, Ended> {
        loop {
            let message = self.recv().await?;
            if wanted(&message) {
                return Ok(message);
            }
        }
    }

    /// Everything the server sends until it closes the connection, and the close code;
    /// fails when the connection is still open after [`CLOSE_LIMIT`].
    async fn until_closed(mut self) -> (Vec<Value>, Option<u16>) {
        let deadline = Instant::now() + CLOSE_LIMIT;
        let mut seen = Vec::new();
        loop {
            match self.recv().await {
                Ok(message) => seen.push(message),
                Err(Ended::Closed(code)) => return (seen, code),
                Err(Ended::Silent) if Instant::now() < deadline => continue,
                Err(ended) => panic!("the connection ended without a close frame: {ended:?}; after {seen:?}"),
            }
        }
    }
}

/// One table's game as its two players see it.
struct Game {
    table: String,
    /// The players' tokens, by seat.
    tokens: [String; 2],
    /// Each player's connection through the proxy, while it is open.
    conns: [Option<Conn>; 2],
    /// Every move acknowledged (its `moved` seen), in order.
    acked: Vec<String>,
    /// The moves to play, X's and O's in turn.
    script: Arc<[String]>,
    /// When a player's connection last ended, until its next snapshot came.
    lost_at: [Option<Instant>; 2],
    /// Every wait from a connection's end to the snapshot of the next.
    gaps: Vec<Duration>,
}

impl Game {
    /// A new Gomoku table created through the proxy, X and O seated and the game started,
    /// to be played by the first script (X wins on ply 9).
    async fn start(cluster: &Cluster) -> Game {
        let script: Vec<String> = (1..=LAST_PLY).map(|ply| scripted(ply).1.to_owned()).collect();
        let time_control = json!({"kind": "correspondence", "days": 2});
        Game::start_with(cluster, time_control, script.into()).await
    }

    /// A new Gomoku table with `time_control`, X and O seated and the game started.
    async fn start_with(cluster: &Cluster, time_control: Value, script: Arc<[String]>) -> Game {
        let settings = json!({"seating": "chosen", "time_control": time_control});
        let created = cluster
            .http
            .post(cluster.http("/api/tables"))
            .json(&json!({"game": "gomoku", "settings": settings}))
            .send()
            .await
            .expect("POST /api/tables");
        assert_eq!(created.status(), 201);
        let created: Value = created.json().await.expect("JSON");
        let table = created["id"].as_str().expect("an id").to_owned();
        let url = format!("{}/ws/tables/{table}", cluster.ws());
        let mut tokens: [String; 2] = Default::default();
        let mut conns: [Option<Conn>; 2] = Default::default();
        for (seat, name) in ["X", "O"].into_iter().enumerate() {
            let (mut conn, _) = Conn::open_until(&url).await;
            conn.send(json!({"type": "hello"})).await.expect("hello");
            let welcome = conn.until(|m| m["type"] == "welcome").await.expect("welcome");
            tokens[seat] = welcome["token"].as_str().expect("a token").to_owned();
            conn.send(json!({"type": "sit", "seat": seat, "name": name}))
                .await
                .expect("sit");
            conn.until(|m| m["type"] == "seated" && m["seat"] == seat)
                .await
                .expect("seated");
            conns[seat] = Some(conn);
        }
        for conn in conns.iter_mut().flatten() {
            conn.until(|m| m["type"] == "game_started")
                .await
                .expect("the game starts");
        }
        Game {
            table,
            tokens,
            conns,
            acked: Vec::new(),
            script,
            lost_at: [None; 2],
            gaps: Vec::new(),
        }
    }

    fn url(&self, cluster: &Cluster) -> String {
        format!("{}/ws/tables/{}", cluster.ws(), self.table)
    }

    /// The moves `snapshot` holds, after checking that every acknowledged one is there, in
    /// order, and at most the one being sent besides.
    fn check(&self, snapshot: &Value) -> Vec<String> {
        let moves = snapshot["table"]["moves"].as_array().expect("the snapshot's moves");
        let served: Vec<String> = moves
            .iter()
            .map(|m| m["move"]["at"].as_str().expect("a Gomoku move").to_owned())
            .collect();
        let acked = self.acked.len();
        assert!(
            served.len() >= acked && served[..acked] == self.acked[..] && served.len() <= acked + 1,
            "table {}: acknowledged {:?}, served {served:?}",
            self.table,
            self.acked
        );
        served
    }

    /// Plays the script's next move through the proxy, (re)connecting its player as needed,
    /// until it is acknowledged.
    async fn play_next(&mut self, cluster: &Cluster) {
        let ply = self.acked.len() + 1;
        let seat = (ply - 1) % 2;
        let script = Arc::clone(&self.script);
        let at = script[ply - 1].as_str();
        let deadline = Instant::now() + RETRY_LIMIT;
        let mut last = String::from("nothing");
        while Instant::now() < deadline {
            let Some(conn) = self.conns[seat].as_mut() else {
                let (mut conn, snapshot) = Conn::open_until(&self.url(cluster)).await;
                if let Some(lost_at) = self.lost_at[seat].take() {
                    self.gaps.push(lost_at.elapsed());
                }
                if self.check(&snapshot).len() == ply {
                    // Stored before its acknowledgement was lost with the connection.
                    self.acked.push(at.to_owned());
                    return;
                }
                let hello = json!({"type": "hello", "token": self.tokens[seat]});
                if conn.send(hello).await.is_ok() && conn.until(|m| m["type"] == "welcome").await.is_ok() {
                    self.conns[seat] = Some(conn);
                }
                continue;
            };
            let answer = match conn.send(json!({"type": "move", "move": {"at": at}})).await {
                Ok(()) => {
                    let answer = |m: &Value| m["type"] == "error" || (m["type"] == "moved" && m["ply"] == ply);
                    conn.until(answer).await
                }
                Err(ended) => Err(ended),
            };
            match answer {
                Ok(moved) if moved["type"] == "moved" => {
                    assert_eq!(moved["move"]["at"], at, "table {}: {moved}", self.table);
                    self.acked.push(at.to_owned());
                    return;
                }
                Ok(error) => {
                    let code = error["code"].as_str().unwrap_or_default();
                    assert!(RETRYABLE.contains(&code), "table {}: {at} refused: {error}", self.table);
                    last = error.to_string();
                }
                Err(ended) => {
                    last = format!("{ended:?}");
                    self.lost_at[seat].get_or_insert_with(Instant::now);
                }
            }
            self.conns[seat] = None;
            sleep(RETRY_EVERY).await;
        }
        panic!(
            "table {}: ply {ply} ({at}) not acknowledged within {RETRY_LIMIT:?}; last: {last}",
            self.table
        );
    }
}

/// One reading of a lease row.
struct Sample {
    at: Instant,
    table: String,
    node: Option<i32>,
    epoch: i64,
    alive: Option<bool>,
}

/// Reads every lease row every 20 ms until `stop`.
fn sample_leases(pool: PgPool, stop: CancellationToken) -> tokio::task::JoinHandle<Vec<Sample>> {
    tokio::spawn(async move {
        let mut samples = Vec::new();
        loop {
            let rows: Vec<(String, Option<i32>, i64, Option<bool>)> =
                match sqlx::query_as("SELECT table_id, node, epoch, spelbord_node_alive(node) FROM table_leases")
                    .fetch_all(&pool)
                    .await
                {
                    Ok(rows) => rows,
                    // The test failed and its database is going.
                    Err(_) if stop.is_cancelled() => return samples,
                    Err(error) => panic!("the lease rows: {error}"),
                };
            let at = Instant::now();
            samples.extend(rows.into_iter().map(|(table, node, epoch, alive)| Sample {
                at,
                table,
                node,
                epoch,
                alive,
            }));
            tokio::select! {
                _ = stop.cancelled() => return samples,
                _ = sleep(Duration::from_millis(20)) => {}
            }
        }
    })
}

/// Checks the samples: per table the epoch never goes back and a new owner comes with a
/// higher epoch; from `settled` on, no lease names a dead node. Returns how many owner changes
/// were seen.
fn check_leases(samples: &[Sample], settled: Instant) -> usize {
    let mut last: HashMap<&str, (Option<i32>, i64)> = HashMap::new();
    let mut changes = 0;
    for sample in samples {
        let table = sample.table.as_str();
        if let Some(&(node, epoch)) = last.get(table) {
            assert!(
                sample.epoch >= epoch,
                "table {table}: the epoch went back from {epoch} to {}",
                sample.epoch
            );
            if sample.node.is_some() && sample.node != node {
                assert!(
                    sample.epoch > epoch,
                    "table {table}: node {:?} took over from {node:?} with the same epoch {epoch}",
                    sample.node
                );
                changes += 1;
            }
        }
        if sample.at >= settled && sample.node.is_some() {
            assert_ne!(
                sample.alive,
                Some(false),
                "table {table}: its lease names the dead node {:?} (epoch {})",
                sample.node,
                sample.epoch
            );
        }
        last.insert(table, (sample.node, sample.epoch));
    }
    changes
}

/// HAProxy, or `None` (said on stderr) when this machine lacks it outside CI.
fn haproxy_or_skip() -> Option<PathBuf> {
    let found = haproxy_binary();
    if found.is_none() {
        let missing = "HAProxy (`apt-get install haproxy`, or HAPROXY=/path/to/haproxy)";
        if std::env::var("CI").is_ok_and(|ci| ci == "true") {
            panic!("CI must run the cluster test, but this machine lacks {missing}");
        }
        // Straight to stderr, past the test harness's capture: a skip must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped the cluster test: this machine lacks {missing} (with CI=true this fails)"
        );
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_behind_haproxy_hand_tables_over_and_a_stale_node_stores_nothing() {
    let Some(haproxy) = haproxy_or_skip() else {
        return;
    };
    let began = Instant::now();
    let mut cluster = Cluster::start(haproxy).await;

    // a. Games on many tables, all through the proxy.
    let cluster_ref = &cluster;
    let mut games = join_all((0..TABLES).map(|_| async move {
        let mut game = Game::start(cluster_ref).await;
        for _ in 0..4 {
            game.play_next(cluster_ref).await;
        }
        game
    }))
    .await;
    let stop_sampling = cluster.done.child_token();
    let sampler = sample_leases(cluster.pool.clone(), stop_sampling.clone());

    // b. SIGKILL the node owning the most tables: each is served again through the proxy with
    // every acknowledged move, and play goes on.
    let owners = cluster.owners().await;
    assert_eq!(owners.len(), TABLES, "every table has an owner: {owners:?}");
    let killed = cluster
        .nodes
        .iter()
        .map(|node| node.name)
        .max_by_key(|name| owners.values().filter(|owner| owner == name).count())
        .expect("nodes");
    let orphans: Vec<String> = owners
        .iter()
        .filter(|(_, owner)| *owner == killed)
        .map(|(table, _)| table.clone())
        .collect();
    let killed_node = cluster.node(killed);
    let killed_at = Instant::now();
    cluster.nodes[killed_node].kill().await;
    let cluster_ref = &cluster;
    let mut failover: Vec<Duration> = join_all(games.iter_mut().filter(|game| orphans.contains(&game.table)).map(
        |game| async move {
            game.conns = Default::default();
            let (_, snapshot) = Conn::open_until(&game.url(cluster_ref)).await;
            let served_after = killed_at.elapsed();
            game.check(&snapshot);
            for _ in 0..2 {
                game.play_next(cluster_ref).await;
            }
            served_after
        },
    ))
    .await;
    failover.sort();
    let _ = writeln!(
        std::io::stderr(),
        "failover after SIGKILL of node {killed} ({} tables): max {:?}, median {:?}",
        failover.len(),
        failover.last().expect("the killed node owned tables"),
        failover[failover.len() / 2]
    );

    // c. SIGSTOP another node past its lease while its clients are connected straight to it,
    // on two of its tables: one whose players move on through the proxy (on a living node,
    // which takes the lease once it expires), and one nobody asks for (adopted all the same:
    // its game is in play). After SIGCONT each stale client sends a legal move of its own.
    let owners = cluster.owners().await;
    let stale = cluster
        .nodes
        .iter()
        .map(|node| node.name)
        .filter(|name| *name != killed)
        .max_by_key(|name| owners.values().filter(|owner| owner == name).count())
        .expect("living nodes");
    let mut stale_tables: Vec<usize> = (0..games.len())
        .filter(|&index| owners.get(&games[index].table).map(String::as_str) == Some(stale))
        .collect();
    stale_tables.sort_by_key(|&index| &games[index].table);
    let [taken, adopted] = stale_tables[..2] else {
        panic!("node {stale} owns two tables or more: {owners:?}");
    };
    let stale_node = cluster.node(stale);
    let mut stale_clients = Vec::new();
    for index in [taken, adopted] {
        let game = &games[index];
        let direct = format!(
            "ws://127.0.0.1:{}/ws/tables/{}",
            cluster.nodes[stale_node].port, game.table
        );
        let (mut conn, _) = Conn::open(&direct).await.expect("straight to the node");
        let (seat, _) = scripted(game.acked.len() + 1);
        conn.send(json!({"type": "hello", "token": game.tokens[seat]}))
            .await
            .expect("hello");
        conn.until(|m| m["type"] == "welcome").await.expect("welcome");
        stale_clients.push(conn);
    }
    let stopped_at = Instant::now();
    cluster.stop(stale_node);
    games[taken].conns = Default::default();
    games[taken].play_next(&cluster).await;
    let taken_after = stopped_at.elapsed();
    sleep_until(stopped_at + LEASE * 2 + Duration::from_secs(1)).await;
    let owners = cluster.owners().await;
    for index in [taken, adopted] {
        let table = &games[index].table;
        let owner = owners.get(table).map(String::as_str);
        assert!(
            owner.is_some_and(|owner| owner != stale),
            "table {table} was taken from the stopped node {stale}: {owner:?}"
        );
    }
    cluster.resume(stale_node);
    for conn in &mut stale_clients {
        let _ = conn.send(json!({"type": "move", "move": {"at": STALE_MOVE}})).await;
    }
    for (conn, index) in join_all(stale_clients.into_iter().map(Conn::until_closed))
        .await
        .into_iter()
        .zip([taken, adopted])
    {
        let (seen, code) = conn;
        let table = &games[index].table;
        assert!(
            !seen.iter().any(|m| m["type"] == "moved"),
            "table {table}: the stale node acknowledged a move: {seen:?}"
        );
        assert_eq!(
            code,
            Some(1012),
            "table {table}: the stale node closes its client with 1012 after {seen:?}"
        );
        assert_eq!(
            cluster.stored_moves(table).await,
            games[index].acked,
            "table {table}: the stale node's {STALE_MOVE} is not stored"
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "a living node took table {} over {taken_after:?} after node {stale} was stopped",
        games[taken].table
    );

    // d. Restart the killed node: its tables come back to it, and every game is played out.
    let restarted_at = Instant::now();
    cluster.nodes[killed_node].start(&cluster.database.url()).await;
    let deadline = Instant::now() + STARTUP_LIMIT;
    while cluster.served_by("/healthz").await.as_deref() != Some(killed) {
        assert!(
            Instant::now() < deadline,
            "the proxy sends requests to the restarted node"
        );
        sleep(RETRY_EVERY).await;
    }
    let cluster_ref = &cluster;
    let spectators = join_all(games.iter().map(|game| async move {
        let (conn, snapshot) = Conn::open_until(&game.url(cluster_ref)).await;
        game.check(&snapshot);
        conn
    }))
    .await;
    let settled = Instant::now();
    let owners = cluster.owners().await;
    for table in &orphans {
        assert_eq!(
            owners.get(table).map(String::as_str),
            Some(killed),
            "table {table} came back to the restarted node {killed}: {owners:?}"
        );
    }
    join_all(games.iter_mut().map(|game| async move {
        while game.acked.len() < LAST_PLY {
            game.play_next(cluster_ref).await;
        }
    }))
    .await;
    drop(spectators);
    // The leases are watched for ten seconds after the restart at least (nodes renewing theirs).
    sleep_until(restarted_at + Duration::from_secs(10)).await;
    stop_sampling.cancel();
    let samples = sampler.await.expect("the sampler");
    let changes = check_leases(&samples, settled);

    let script: Vec<String> = (1..=LAST_PLY).map(|ply| scripted(ply).1.to_owned()).collect();
    for game in &games {
        assert_eq!(cluster.stored_moves(&game.table).await, script, "table {}", game.table);
        let result: (String, Vec<i16>, i32) = sqlx::query_as(
            "SELECT r.reason, r.winners, r.move_count FROM results r JOIN games g ON g.id = r.game_id \
             WHERE g.table_id = $1",
        )
        .bind(&game.table)
        .fetch_one(&cluster.pool)
        .await
        .expect("the game's result");
        assert_eq!(result, ("five_in_a_row".to_owned(), vec![0], 9), "table {}", game.table);
    }
    let stale_stored: i64 = sqlx::query_scalar("SELECT count(*) FROM moves WHERE payload->>'at' = $1")
        .bind(STALE_MOVE)
        .fetch_one(&cluster.pool)
        .await
        .expect("count");
    assert_eq!(stale_stored, 0, "the stale node stored nothing");
    let _ = writeln!(
        std::io::stderr(),
        "cluster test: {} lease samples, {changes} changes of owner, {:?} in all",
        samples.len(),
        began.elapsed()
    );
}

/// A lobby WebSocket.
type Lobby = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A lobby connection through the proxy that said hello: the socket, the node that serves
/// it (the proxy's `X-Served-By`) and the person's token.
async fn lobby_person(cluster: &Cluster) -> (Lobby, String, String) {
    let (mut ws, response) = tokio_tungstenite::connect_async(format!("{}/ws/lobby", cluster.ws()))
        .await
        .expect("the lobby connects through the proxy");
    let node = response
        .headers()
        .get("x-served-by")
        .and_then(|value| value.to_str().ok())
        .expect("the proxy names the node")
        .to_owned();
    ws.send(Message::text(json!({"type": "hello"}).to_string()))
        .await
        .expect("hello");
    let welcome = lobby_until(&mut ws, &["welcome"]).await;
    let token = welcome["token"].as_str().expect("a token").to_owned();
    (ws, node, token)
}

/// Reads a lobby connection until a message of one of `kinds`.
async fn lobby_until(ws: &mut Lobby, kinds: &[&str]) -> Value {
    let read = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    let message: Value = serde_json::from_str(text.as_str()).expect("JSON");
                    if kinds.iter().any(|kind| message["type"] == *kind) {
                        return message;
                    }
                }
                Some(Ok(_)) => continue,
                other => panic!("the lobby connection ended: {other:?}"),
            }
        }
    };
    timeout(Duration::from_secs(30), read)
        .await
        .expect("an answer within 30 s")
}

/// The lobby through HAProxy on three real nodes (docs/architecture.md, "The lobby"): 50
/// people, spread over the nodes by the proxy, seek at once in one pool and are paired
/// exactly once, into 25 tables of two; then a node is SIGKILLed while one of its people
/// waits: that seek is never paired with anyone (a newcomer on a living node waits
/// instead), and the living nodes delete it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_pairs_across_nodes_exactly_once_and_never_with_a_killed_node_s_seekers() {
    let Some(haproxy) = haproxy_or_skip() else {
        return;
    };
    let mut cluster = Cluster::start(haproxy).await;
    let mut people = Vec::new();
    for _ in 0..50 {
        people.push(lobby_person(&cluster).await);
    }
    let nodes: std::collections::HashSet<String> = people.iter().map(|(_, node, _)| node.clone()).collect();
    assert!(nodes.len() > 1, "the proxy spreads the lobby over the nodes: {nodes:?}");
    let answers = join_all(people.iter_mut().map(|(ws, _, _)| async move {
        ws.send(Message::text(
            json!({"type": "seek", "pool": "gomoku/10+0"}).to_string(),
        ))
        .await
        .expect("seek");
        let first = lobby_until(ws, &["seeking", "paired", "error"]).await;
        if first["type"] == "seeking" {
            lobby_until(ws, &["paired"]).await
        } else {
            first
        }
    }))
    .await;
    let mut tables: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, answer) in answers.iter().enumerate() {
        assert_eq!(answer["type"], "paired", "{answer}");
        tables
            .entry(answer["table"].as_str().expect("a table").to_owned())
            .or_default()
            .push(index);
    }
    assert_eq!(tables.len(), 25, "{tables:?}");
    assert!(tables.values().all(|members| members.len() == 2), "{tables:?}");
    let across = tables
        .values()
        .filter(|members| people[members[0]].1 != people[members[1]].1)
        .count();
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&cluster.pool)
        .await
        .expect("count");
    assert_eq!(stored, 25);
    println!(
        "lobby: 50 seekers on {} nodes paired into 25 tables, {across} of them across nodes",
        nodes.len()
    );

    // One person waits on the node about to die.
    let (mut waiting, node, _) = lobby_person(&cluster).await;
    waiting
        .send(Message::text(json!({"type": "seek", "pool": "krux/10+0"}).to_string()))
        .await
        .expect("seek");
    assert_eq!(lobby_until(&mut waiting, &["seeking"]).await["type"], "seeking");
    let doomed = cluster.node(&node);
    cluster.nodes[doomed].kill().await;
    // The database knows the node is dead once its session's lock is gone: at once on a
    // quiet machine, a moment later on a busy one (until then its seeker can still be
    // paired, and would be an absent opponent). From then on its seekers never are.
    common::eventually(
        Duration::from_secs(10),
        Duration::from_millis(20),
        "the killed node's lock is released",
        || async {
            let alive: Option<bool> = sqlx::query_scalar("SELECT bool_or(spelbord_node_alive(node)) FROM lobby_seeks")
                .fetch_one(&cluster.pool)
                .await
                .expect("the seeker's node");
            (alive != Some(true)).then_some(())
        },
    )
    .await;
    // A newcomer on a living node is not paired with the dead node's seeker.
    let newcomer = loop {
        let candidate = lobby_person(&cluster).await;
        if candidate.1 != node {
            break candidate;
        }
    };
    let (mut newcomer, _, _) = newcomer;
    newcomer
        .send(Message::text(json!({"type": "seek", "pool": "krux/10+0"}).to_string()))
        .await
        .expect("seek");
    let answer = lobby_until(&mut newcomer, &["seeking", "paired", "error"]).await;
    assert_eq!(answer["type"], "seeking", "{answer}");
    common::eventually(
        Duration::from_secs(30),
        Duration::from_millis(200),
        "the killed node's seek is deleted by the living",
        || common::seeks_left_one(&cluster.pool),
    )
    .await;
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM tables")
        .fetch_one(&cluster.pool)
        .await
        .expect("count");
    assert_eq!(stored, 25, "nobody was paired with the killed node's seeker");
}

/// `plies` Gomoku moves, X's and O's in turn, in which nobody ever has five in a row: X
/// opens on the centre, then each player takes the first free square (row by row) that
/// gives them no five.
fn endless_script(plies: usize) -> Vec<String> {
    const SIZE: i32 = 15;
    let mut board = [[None::<usize>; 15]; 15];
    let run = |board: &[[Option<usize>; 15]; 15], (c, r): (i32, i32), (dc, dr): (i32, i32), seat: usize| {
        (1..5)
            .take_while(|step| {
                let (x, y) = (c + dc * step, r + dr * step);
                (0..SIZE).contains(&x) && (0..SIZE).contains(&y) && board[y as usize][x as usize] == Some(seat)
            })
            .count()
    };
    let mut script = Vec::with_capacity(plies);
    for ply in 0..plies {
        let seat = ply % 2;
        let square = std::iter::once((7, 7))
            .filter(|_| ply == 0)
            .chain((0..SIZE * SIZE).map(|i| (i % SIZE, i / SIZE)))
            .find(|&(c, r)| {
                board[r as usize][c as usize].is_none()
                    && [(1, 0), (0, 1), (1, 1), (1, -1)].into_iter().all(|(dc, dr)| {
                        1 + run(&board, (c, r), (dc, dr), seat) + run(&board, (c, r), (-dc, -dr), seat) < 5
                    })
            })
            .expect("a free square that makes no five");
        board[square.1 as usize][square.0 as usize] = Some(seat);
        let column = char::from(b'A' + u8::try_from(square.0).expect("a column"));
        script.push(format!("{column}{}", square.1 + 1));
    }
    script
}

/// Issue 34: every node of three behind HAProxy is restarted in turn (SIGTERM, then started
/// again, as a rolling upgrade does) while a dozen games with running clocks are played
/// through the proxy. Each stopped node drains: its health check turns the proxy away, its
/// tables move to the nodes their players reconnect to. Every game goes on: every
/// acknowledged move is kept, no flag falls, and the longest wait a player sees between a
/// connection's end and the next connection's snapshot is measured and printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_every_node_loses_no_game_and_no_move() {
    let Some(haproxy) = haproxy_or_skip() else {
        return;
    };
    let mut cluster = Cluster::start(haproxy).await;
    let script: Arc<[String]> = endless_script(160).into();
    // Five minutes and five seconds a move: the clocks run all through the restarts.
    let time_control = json!({"kind": "fischer", "base_seconds": 300, "increment_seconds": 5});
    let cluster_ref = &cluster;
    let mut games = join_all((0..TABLES).map(|_| {
        let (script, time_control) = (Arc::clone(&script), time_control.clone());
        async move {
            let mut game = Game::start_with(cluster_ref, time_control, script).await;
            game.play_next(cluster_ref).await;
            game
        }
    }))
    .await;
    assert_eq!(cluster.owners().await.len(), TABLES, "every table has an owner");

    // The players move all the while (one move a table every 150 ms or so), until the
    // restarts are over and each game has played a few moves more.
    let restarted = CancellationToken::new();
    // The nodes are out of the cluster while they restart (the players only use the proxy);
    // put back afterwards, so that a failure shows their logs.
    let mut nodes = std::mem::take(&mut cluster.nodes);
    let database = cluster.database.url();
    let cluster_ref = &cluster;
    let restarts = async {
        let mut drains = Vec::new();
        for node in &mut nodes {
            sleep(Duration::from_millis(500)).await;
            drains.push((node.name, node.terminate().await));
            node.start(&database).await;
            // Up in the proxy again after two good checks (200 ms apart).
            sleep(Duration::from_millis(800)).await;
        }
        restarted.cancel();
        drains
    };
    let players = join_all(games.iter_mut().map(|game| {
        let restarted = restarted.clone();
        async move {
            let mut after = 0;
            while after < 6 {
                assert!(
                    game.acked.len() < game.script.len(),
                    "table {}: the script ran out before the restarts ended",
                    game.table
                );
                game.play_next(cluster_ref).await;
                if restarted.is_cancelled() {
                    after += 1;
                }
                sleep(Duration::from_millis(150)).await;
            }
        }
    }));
    let (drains, _) = tokio::join!(restarts, players);
    cluster.nodes = nodes;

    let mut gaps: Vec<Duration> = games.iter().flat_map(|game| game.gaps.iter().copied()).collect();
    gaps.sort();
    for game in &games {
        let (_, snapshot) = Conn::open_until(&game.url(&cluster)).await;
        assert_eq!(
            game.check(&snapshot),
            game.acked,
            "table {}: every acknowledged move",
            game.table
        );
        assert_eq!(
            cluster.stored_moves(&game.table).await,
            game.acked,
            "table {}",
            game.table
        );
        let table = &snapshot["table"];
        assert_eq!(
            table["status"], "playing",
            "table {}: the game goes on: {table}",
            game.table
        );
        let remaining = table["clocks"]["remaining_ms"].as_array().expect("the clocks");
        assert!(
            remaining.iter().all(|ms| ms.as_i64().is_some_and(|ms| ms > 200_000)),
            "table {}: nobody lost time to the restarts: {remaining:?}",
            game.table
        );
    }
    let results: i64 = sqlx::query_scalar("SELECT count(*) FROM results")
        .fetch_one(&cluster.pool)
        .await
        .expect("count");
    assert_eq!(results, 0, "no game ended (no flag fell)");
    let longest = gaps.last().copied().unwrap_or_default();
    let median = gaps.get(gaps.len() / 2).copied().unwrap_or_default();
    let _ = writeln!(
        std::io::stderr(),
        "rolling restart: drains {drains:?}; {} reconnects, median gap {median:?}, longest {longest:?}; moves {}",
        gaps.len(),
        games.iter().map(|game| game.acked.len()).sum::<usize>()
    );
    assert!(
        !gaps.is_empty(),
        "the restarts moved tables (their players reconnected)"
    );
}
