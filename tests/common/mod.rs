//! Test harness: the real server on an ephemeral port with its own fresh database, and
//! real WebSocket clients.
//!
//! Databases live on `DATABASE_URL`'s server when it is set (the URL's database is used
//! only to create and drop the per-test ones); otherwise on one private PostgreSQL
//! cluster shared by all test processes, started with the server's own bootstrap
//! ([`spelbord::store::local_pg`]) in a folder under the system's temporary directory.
//! Each test gets a database of its own, dropped when the test's `TestApp` is dropped.

#![allow(dead_code)] // each test file uses a different part of the harness

pub mod actor;
pub mod scratch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use spelbord::app::App;
use spelbord::config::Settings;
use spelbord::store::games::{NewSeries, SeriesLink};
use spelbord::store::local_pg::LocalPostgres;
use spelbord::store::{PoolSizes, Store};
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};
use tokio::net::TcpStream;
use tokio::sync::OnceCell;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Longest a test waits for a message before failing (a guard against hangs, not a
/// measure of speed).
const RECV_TIMEOUT: Duration = Duration::from_secs(10);

static ADMIN: OnceCell<PgConnectOptions> = OnceCell::const_new();

/// Connection options for the maintenance database of the test server.
async fn admin_options() -> PgConnectOptions {
    ADMIN
        .get_or_init(|| async {
            if let Ok(url) = std::env::var("DATABASE_URL") {
                return url.parse().expect("DATABASE_URL is a valid PostgreSQL URL");
            }
            let bin_dir = LocalPostgres::find_binaries(None).expect("PostgreSQL binaries for the tests");
            let data_dir = test_cluster_dir();
            let cluster = LocalPostgres::ensure_running(&data_dir, &bin_dir)
                .await
                .expect("the shared test cluster starts");
            cluster.connect_options("postgres")
        })
        .await
        .clone()
}

fn test_cluster_dir() -> PathBuf {
    std::env::var_os("SPELBORD_TEST_PGDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("spelbord-test-postgres"))
}

/// A fresh, empty database of a test's own, dropped when this is dropped.
pub struct TestDb {
    /// Connection options for the database.
    pub options: PgConnectOptions,
    name: String,
    admin: PgConnectOptions,
}

impl TestDb {
    pub async fn create() -> TestDb {
        let admin = admin_options().await;
        let name = format!("spelbord_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = admin.connect().await.expect("connect to the test server");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut conn)
            .await
            .expect("create the test database");
        conn.close().await.ok();
        TestDb {
            options: admin.clone().database(&name),
            name,
            admin,
        }
    }
}

impl TestDb {
    /// The database as a URL, for starting the real binary against it.
    pub fn url(&self) -> String {
        if let Ok(server) = std::env::var("DATABASE_URL") {
            let (base, query) = server.split_once('?').map_or((server.as_str(), ""), |(b, q)| (b, q));
            let base = base.rsplit_once('/').map_or(base, |(server, _)| server);
            let query = if query.is_empty() {
                String::new()
            } else {
                format!("?{query}")
            };
            return format!("{base}/{}{query}", self.name);
        }
        let socket = self
            .options
            .get_socket()
            .map(|dir| format!("?host={}", dir.display()))
            .unwrap_or_default();
        format!(
            "postgres://{}@localhost:{}/{}{socket}",
            self.options.get_username(),
            self.options.get_port(),
            self.name
        )
    }

    /// Stands in for a database that moved elsewhere; dropping it does nothing.
    fn placeholder() -> TestDb {
        TestDb {
            options: PgConnectOptions::new(),
            name: String::new(),
            admin: PgConnectOptions::new(),
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if self.name.is_empty() {
            return;
        }
        let admin = self.admin.clone();
        let name = std::mem::take(&mut self.name);
        in_drop(async move {
            let mut conn = admin.connect().await.ok()?;
            let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&mut conn).await.ok()?;
            conn.close().await.ok()
        });
    }
}

/// Runs a clean-up's async `work` to its end from a `Drop`, which is synchronous and may
/// run inside a runtime: on a thread with a runtime of its own, waited for.
pub fn in_drop<Work>(work: Work)
where
    Work: std::future::Future + Send + 'static,
    Work::Output: Send,
{
    let done = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        Some(runtime.block_on(work))
    });
    let _ = done.join();
}

/// A running server with a database of its own.
pub struct TestApp {
    pub addr: SocketAddr,
    pub pool: PgPool,
    shutdown: CancellationToken,
    stopper: spelbord::app::Stopper,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    // Dropped after the server is told to stop: the database outlives its users.
    _database: TestDb,
}

impl TestApp {
    pub fn http(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn ws(&self, table: &str) -> String {
        format!("ws://{}/ws/tables/{table}", self.addr)
    }

    /// Creates a table and returns the JSON answer.
    pub async fn create_table(&self, body: Value) -> Value {
        let response = reqwest::Client::new()
            .post(self.http("/api/tables"))
            .json(&body)
            .send()
            .await
            .expect("POST /api/tables");
        assert_eq!(response.status(), 201, "creating {body}");
        response.json().await.expect("JSON answer")
    }

    /// Posts a table that must be refused with `400`, and returns the error body.
    pub async fn refused_table(&self, body: Value) -> Value {
        let response = reqwest::Client::new()
            .post(self.http("/api/tables"))
            .json(&body)
            .send()
            .await
            .expect("POST /api/tables");
        assert_eq!(response.status(), 400, "creating {body}");
        response.json().await.expect("JSON answer")
    }

    /// The table's public snapshot (`GET /api/tables/{id}`).
    pub async fn snapshot(&self, table: &str) -> Value {
        let response = reqwest::get(self.http(&format!("/api/tables/{table}")))
            .await
            .expect("GET /api/tables/{id}");
        assert_eq!(response.status(), 200, "the table {table} is found");
        response.json().await.expect("JSON answer")
    }

    /// Creates a Gomoku table with `settings` and returns its id.
    pub async fn gomoku_table(&self, settings: Value) -> String {
        let created = self.create_table(json!({"game": "gomoku", "settings": settings})).await;
        created["id"].as_str().expect("an id").to_owned()
    }

    /// Opens a WebSocket to a table and reads its snapshot.
    pub async fn client(&self, table: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(self.ws(table))
            .await
            .expect("WebSocket connects");
        let mut client = Client::from_stream(ws);
        let snapshot = client.recv().await;
        assert_eq!(
            snapshot["type"], "snapshot",
            "first message is the snapshot: {snapshot}"
        );
        client
    }

    /// Two players on a new connection each, who take seats 0 and 1 of `table` (a table
    /// with `"seating": "chosen"`) and have both seen the game start; with their tokens.
    pub async fn two_seated(&self, table: &str) -> ((Client, String), (Client, String)) {
        let mut first = self.client(table).await;
        let mut second = self.client(table).await;
        let first_token = first.hello().await;
        let second_token = second.hello().await;
        first.sit(0, "X").await;
        second.until("seated").await;
        second.sit(1, "O").await;
        first.until("game_started").await;
        second.until("game_started").await;
        ((first, first_token), (second, second_token))
    }

    /// Tells the server to shut down at once (as SIGTERM does when no other node is
    /// alive), without waiting for it to stop.
    pub fn shut_down(&self) {
        self.shutdown.cancel();
    }

    /// Stops the server as SIGTERM does: draining first when other nodes are alive. The
    /// task ends when the server has been told to shut down.
    pub fn stop(&self) -> tokio::task::JoinHandle<()> {
        let stopper = self.stopper.clone();
        tokio::spawn(async move { stopper.stop().await })
    }

    /// A Bughouse table (seating chosen, the default clock) with all four seats taken in
    /// order (named after their roles) and a spectator, after the spectator has seen the
    /// match start: the table's id, the players by seat, the spectator.
    pub async fn bughouse_match(&self) -> (String, Vec<Client>, Client) {
        let created = self
            .create_table(json!({"game": "bughouse", "settings": {"seating": "chosen"}}))
            .await;
        let table = created["id"].as_str().expect("id").to_owned();
        let mut spectator = self.client(&table).await;
        let players = self.seat_bughouse(&table).await;
        spectator.until("game_started").await;
        (table, players, spectator)
    }

    /// Four players who said hello and took the seats of Bughouse `table` in order, each
    /// named after its role; the players by seat.
    pub async fn seat_bughouse(&self, table: &str) -> Vec<Client> {
        let mut players = Vec::new();
        for (seat, role) in ["A-white", "A-black", "B-white", "B-black"].iter().enumerate() {
            let mut player = self.client(table).await;
            player.hello().await;
            player.send(json!({"type": "sit", "seat": seat, "name": role})).await;
            player.until("seated").await;
            players.push(player);
        }
        players
    }

    /// Starts another server (another node of the same cluster) on this one's database;
    /// the database stays this server's, dropped with it.
    pub async fn another_node(&self, configure: impl FnOnce(&mut Settings)) -> TestApp {
        let mut shared = TestDb::placeholder();
        shared.options = self._database.options.clone();
        start_app(shared, configure).await
    }

    /// Stops the server (its actors and sockets) and starts a new one on the same
    /// database, as a restart of the process would.
    pub async fn restart(self) -> TestApp {
        self.restart_with(|_| {}).await
    }

    /// [`Self::restart`] with settings changed as `configure` says (a restart starts from
    /// the defaults, as a process reads its configuration again).
    pub async fn restart_with(mut self, configure: impl FnOnce(&mut Settings)) -> TestApp {
        self.shutdown.cancel();
        if let Some(served) = self.served.take() {
            served
                .await
                .expect("the server task")
                .expect("the server stops cleanly");
        }
        let database = std::mem::replace(&mut self._database, TestDb::placeholder());
        start_app(database, configure).await
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Starts the server on 127.0.0.1 on a free port, with a fresh, migrated database.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Like [`spawn_app`], with a chance to change the settings first.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    start_app(TestDb::create().await, configure).await
}

/// Starts the server on an existing database the test looks after itself (a restored
/// copy, say): it is not dropped with the server (and its migrations, restored with it,
/// are found done).
pub async fn spawn_app_on(options: PgConnectOptions) -> TestApp {
    let mut database = TestDb::placeholder();
    database.options = options;
    start_app(database, |_| {}).await
}

async fn start_app(database: TestDb, configure: impl FnOnce(&mut Settings)) -> TestApp {
    let store = Store::connect(database.options.clone(), PoolSizes { writes: 5, reads: 2 })
        .await
        .expect("connect and migrate the test database");
    let mut settings = Settings::defaults().expect("default settings");
    settings.server.host = "127.0.0.1".into();
    settings.server.port = 0;
    configure(&mut settings);
    let pool = store.pool().clone();
    let app = App::bind(settings, store).await.expect("bind a port");
    let addr = app.local_addr().expect("bound address");
    let shutdown = app.shutdown_token();
    let stopper = app.stopper();
    let served = Some(tokio::spawn(app.run()));
    TestApp {
        addr,
        pool,
        shutdown,
        stopper,
        served,
        _database: database,
    }
}

/// Longest a test waits for the server to close a connection (a guard against hangs).
pub const CLOSE_WITHIN: Duration = Duration::from_secs(30);

/// Reads (and discards) until the server closes, and returns the close code it sent;
/// `None` if the connection ended without a close frame.
pub async fn close_code(ws: &mut WebSocketStream<MaybeTlsStream<TcpStream>>) -> Option<u16> {
    let read = async {
        while let Some(frame) = ws.next().await {
            match frame {
                Ok(Message::Close(frame)) => return frame.map(|frame| u16::from(frame.code)),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
        None
    };
    tokio::time::timeout(CLOSE_WITHIN, read)
        .await
        .expect("the server closes the connection in time")
}

/// A WebSocket client of one table.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// How long [`Client::recv`] waits for a message.
    recv_timeout: Duration,
}

impl Client {
    /// Wraps an already-open WebSocket (its snapshot not yet read).
    pub fn from_stream(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client {
            ws,
            recv_timeout: RECV_TIMEOUT,
        }
    }

    /// Waits up to `timeout` for each message from now on (rather than 10 s): for a test
    /// that waits on something allowed to take longer, such as an engine process starting.
    pub fn set_recv_timeout(&mut self, timeout: Duration) {
        self.recv_timeout = timeout;
    }

    pub async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.expect("send a frame");
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.ws.send(Message::binary(bytes)).await.expect("send a frame");
    }

    /// Sends any frame (a WebSocket ping or pong, say).
    pub async fn send_frame(&mut self, frame: Message) {
        self.ws.send(frame).await.expect("send a frame");
    }

    /// The WebSocket itself, to read what the helpers here do not (a close frame).
    pub fn into_stream(self) -> WebSocketStream<MaybeTlsStream<TcpStream>> {
        self.ws
    }

    /// The next JSON message from the server.
    pub async fn recv(&mut self) -> Value {
        // One deadline for the whole wait: the server's pings must not extend it.
        let deadline = tokio::time::Instant::now() + self.recv_timeout;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .expect("a message within the timeout")
                .expect("the connection is open")
                .expect("a frame");
            match frame {
                Message::Text(text) => return serde_json::from_str(text.as_str()).expect("the server sends JSON"),
                Message::Close(frame) => panic!("the server closed the connection: {frame:?}"),
                _ => continue,
            }
        }
    }

    /// The next message of type `kind`, skipping presence and spectator-count events.
    /// Any other message before it fails the test.
    pub async fn expect(&mut self, kind: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == kind {
                return message;
            }
            if message["type"] == "presence" || message["type"] == "spectators" {
                continue;
            }
            panic!("expected a {kind} message, got {message}");
        }
    }

    /// Reads until a message of type `kind` arrives, skipping everything before it.
    pub async fn until(&mut self, kind: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == kind {
                return message;
            }
        }
    }

    /// The next error, which must carry `code`.
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let error = self.expect("error").await;
        assert_eq!(error["code"], code, "{error}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
        error
    }

    /// Presents a fresh token (asks the server for one) and returns it.
    pub async fn hello(&mut self) -> String {
        self.send(json!({"type": "hello"})).await;
        let welcome = self.expect("welcome").await;
        welcome["token"].as_str().expect("a token").to_owned()
    }

    /// Plays the Gomoku move `at` and waits until `watcher` has seen it.
    pub async fn play_seen(&mut self, watcher: &mut Client, at: &str) {
        self.send(json!({"type": "move", "move": {"at": at}})).await;
        while watcher.until("moved").await["move"]["at"] != at {}
    }

    /// Sits in `seat` as `name` (after a hello) and waits for the `seated` event.
    pub async fn sit(&mut self, seat: u8, name: &str) -> Value {
        self.send(json!({"type": "sit", "seat": seat, "name": name})).await;
        self.expect("seated").await
    }

    /// Sends `{"type":"ping"}` and waits for the pong: everything the server sent before
    /// it has then been read, which proves a negative ("no event was broadcast").
    pub async fn sync(&mut self) -> Vec<Value> {
        self.send(json!({"type": "ping", "ref": "sync"})).await;
        let mut before = Vec::new();
        loop {
            let message = self.recv().await;
            if message["type"] == "pong" && message["ref"] == "sync" {
                return before;
            }
            before.push(message);
        }
    }

    /// Plays `seats` for a person (random legal moves, chosen on `mirror` with `seed`)
    /// against the bots in every other seat, until the game is over or the others have
    /// moved `their_moves` times.
    pub async fn play_randomly(
        &mut self,
        mirror: &mut spelbord::games::AnyGame,
        seats: &[u8],
        seed: u64,
        their_moves: usize,
    ) -> PlayedOut {
        self.play_randomly_when(mirror, seats, seed, their_moves, |_, _| true)
            .await
    }

    /// [`Client::play_randomly`], moving in a seat only while `may_move(mirror, seat)`:
    /// each time, the first of `seats` (in their order) that is to move, may move and has a
    /// legal move plays one.
    pub async fn play_randomly_when(
        &mut self,
        mirror: &mut spelbord::games::AnyGame,
        seats: &[u8],
        seed: u64,
        their_moves: usize,
        may_move: impl Fn(&spelbord::games::AnyGame, u8) -> bool,
    ) -> PlayedOut {
        use rand::SeedableRng;
        use rand::seq::IndexedRandom;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut played = PlayedOut::default();
        // Whether the person's move was sent and has not yet come back.
        let mut sent = false;
        loop {
            if played.theirs >= their_moves {
                return played;
            }
            if !sent {
                let active = mirror.active_seats();
                let choice = seats
                    .iter()
                    .filter(|&&seat| active.contains(seat) && may_move(mirror, seat))
                    .find_map(|&seat| Some((seat, mirror.legal_moves_json(seat).choose(&mut rng)?.clone())));
                if let Some((seat, payload)) = choice {
                    self.send(json!({"type": "move", "seat": seat, "move": payload})).await;
                    sent = true;
                }
            }
            let message = self.recv().await;
            match message["type"].as_str() {
                Some("moved") => {
                    let seat = u8::try_from(message["seat"].as_u64().expect("a seat")).expect("small");
                    mirror
                        .play_json(seat, &message["move"])
                        .unwrap_or_else(|err| panic!("the server's move {message} is legal: {err}"));
                    played.moves += 1;
                    *played.by_seat.entry(seat).or_default() += 1;
                    if seats.contains(&seat) {
                        sent = false;
                    } else {
                        played.theirs += 1;
                    }
                }
                Some("game_over") => {
                    played.over = Some(message);
                    return played;
                }
                Some("error") => panic!("the person's move was refused: {message}"),
                _ => {}
            }
        }
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// What [`Client::play_randomly`] came to.
#[derive(Debug, Default)]
pub struct PlayedOut {
    /// The `game_over` event, if the game ended.
    pub over: Option<Value>,
    /// Every move of the game seen.
    pub moves: usize,
    /// The moves of the other seats (the bots') seen.
    pub theirs: usize,
    /// The moves seen, by seat.
    pub by_seat: std::collections::BTreeMap<u8, usize>,
}

/// For a game stored straight through the store: game 1 of a new, unrated single-game
/// series, the table's `number`th, its sides named `P0` and `P1`.
pub fn single_game_series(number: u32) -> SeriesLink<'static> {
    SeriesLink {
        id: Uuid::new_v4(),
        game: 1,
        rated: false,
        new: Some(NewSeries {
            number,
            format: spelbord::series::SeriesFormat::Single,
            sides: ["P0", "P1"],
        }),
    }
}

/// The fake Gomocup engine of `tests/support/gomocup_fake.rs` (docs/bots.md, "Engines"),
/// compiled with `rustc` once per test process into Cargo's temporary folder: it is no
/// binary of the server, so `CARGO_BIN_EXE_*` cannot name it.
pub fn gomocup_fake() -> &'static std::path::Path {
    static BUILT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/gomocup_fake.rs");
        // One per test process: two test binaries may build it at once.
        let out =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gomocup_fake-{}", std::process::id()));
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
        let status = std::process::Command::new(rustc)
            .args(["--edition", "2021", "-o"])
            .arg(&out)
            .arg(&source)
            .status()
            .expect("rustc runs");
        assert!(status.success(), "the fake engine compiles");
        out
    })
}

/// Asks `probe` every `every` until it answers `Some`, and returns that; fails the test
/// with `what` once `within` has passed (for what settles a moment after the test acts:
/// a lock released, a background round, a row deleted by another node).
pub async fn eventually<T, Probe, Answer>(within: Duration, every: Duration, what: &str, mut probe: Probe) -> T
where
    Probe: FnMut() -> Answer,
    Answer: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(answer) = probe().await {
            return answer;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}: not within {within:?}");
        tokio::time::sleep(every).await;
    }
}

/// `Some` once the lobby holds exactly one seek (the dead node's is gone, the living
/// seeker's stays): for [`eventually`].
pub async fn seeks_left_one(pool: &PgPool) -> Option<()> {
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM lobby_seeks")
        .fetch_one(pool)
        .await
        .expect("count");
    (left == 1).then_some(())
}
