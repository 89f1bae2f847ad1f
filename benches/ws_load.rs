//! A load generator for the real server, end to end over loopback WebSockets.
//!
//! It creates `TABLES` Gomoku tables (`POST /api/tables`, opening `free`, seating
//! `chosen`), seats two players and a spectator at each over three WebSockets, and then
//! lets every table play `MOVES` moves at once, each player sending its move as soon as it
//! has seen the opponent's `moved`. The moves follow a fixed fill of the board with no
//! three in a row (X where `(col + 2 * row) % 4 < 2`), so no game ends early. For every
//! move it measures the time from sending `move` until the mover receives its own `moved`
//! (the server stores the move in PostgreSQL before it broadcasts it, so this includes
//! the commit) and until the spectator receives it. It prints the table creation rate,
//! the total moves, the wall time, moves per second and the latency percentiles.
//!
//! With `BOT_TABLES=N` it first opens N more Gomoku tables where one client plays a bot
//! (`BOT_STRENGTH`, default `hard`), answering after about `BOT_PERSON_MS` (default 3000,
//! a person's think; each think drawn from half to one and a half times it) with a random
//! legal move and asking for a rematch after every game, so
//! that N bots are searching all the time while the measured (human) tables play: the bots
//! must not move their latencies.
//!
//! Run with `cargo bench --bench ws_load`; figures and their reading are in
//! `docs/benchmarks.md`. Environment:
//! - `TABLES` (default 50, at most 1000), `MOVES` per table (default 60, at most 225).
//! - `BOT_TABLES` (default 0, at most 1000), `BOT_STRENGTH` (`random`, `easy`, `medium`,
//!   `hard`; default `hard`) and `BOT_PERSON_MS` (0–60000, default 3000).
//! - `SPELBORD_URL`, e.g. `http://127.0.0.1:8080`: load that running server instead. It
//!   must be a loopback address, and the server must allow more than its default message
//!   rate (`APP__LIMITS__MESSAGES_PER_SECOND=10000 APP__LIMITS__MESSAGE_BURST=10000`).
//! - Without `SPELBORD_URL` the server runs in this process, on its own runtime, on
//!   127.0.0.1 with a free port, with the rate limits raised, and on a fresh database
//!   (dropped at the end) created as the tests do: on `DATABASE_URL`'s server when that is
//!   set, otherwise on a private PostgreSQL cluster in `$TMPDIR/spelbord-bench-postgres`
//!   (or `SPELBORD_BENCH_PGDATA`), which is stopped again at the end if this run started it.
//!   Its other settings are read as the server reads them (`config/`, then `APP__…`
//!   variables), so `APP__DATABASE__MAX_CONNECTIONS=20` gives it a pool of 20.
//!
//! Everything is bounded: at most 1000 tables and 225 moves each, every read times out
//! after 30 s, and the whole load stops after 120 s (or at Ctrl-C), after which the
//! server is stopped and its database dropped all the same. Command-line arguments are
//! ignored, except that without `--bench` (that is, when run by `cargo test --benches`
//! rather than `cargo bench`) the defaults shrink to a smoke run of 2 tables × 10 moves.

#[path = "shared/loopback.rs"]
mod loopback;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use serde_json::{Value, json};
use spelbord::app::App;
use spelbord::config::Settings;
use spelbord::games::AnyGame;
use spelbord::store::local_pg::LocalPostgres;
use spelbord::store::{PoolSizes, Store};
use spelbord::table::TableSettings;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

/// Bounds and defaults of the parameters.
const DEFAULT_TABLES: usize = 50;
const DEFAULT_MOVES: usize = 60;
const SMOKE_TABLES: usize = 2;
const SMOKE_MOVES: usize = 10;
const MAX_TABLES: usize = 1000;
/// A 15 × 15 board holds 225 stones.
const MAX_MOVES: usize = 225;
/// The whole load (creating, seating and playing) stops after this long.
const HARD_STOP: Duration = Duration::from_secs(120);
/// Longest wait for any one message (a guard against hangs, not a measure of speed).
const RECV_TIMEOUT: Duration = Duration::from_secs(30);
/// The in-process server's per-connection message rate and burst: far above what a
/// player sends, so the limiter never drops a move.
const BENCH_RATE: u32 = 10_000;
/// Server and client runtimes each get this many worker threads (the machine the
/// figures in `docs/benchmarks.md` come from has two cores).
const WORKER_THREADS: usize = 2;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Fallible<T> = Result<T, String>;

fn main() -> ExitCode {
    // The in-process server's warnings and errors go to stderr; `RUST_LOG` overrides
    // (`RUST_LOG=spelbord=info` also shows connections the tables drop).
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        .init();
    let bench_mode = std::env::args().any(|arg| arg == "--bench");
    let (default_tables, default_moves) = if bench_mode {
        (DEFAULT_TABLES, DEFAULT_MOVES)
    } else {
        println!("ws_load: not run by `cargo bench` (no --bench argument): smoke-test defaults");
        (SMOKE_TABLES, SMOKE_MOVES)
    };
    let params = match (
        env_count("TABLES", default_tables, MAX_TABLES),
        env_count("MOVES", default_moves, MAX_MOVES),
    ) {
        (Ok(tables), Ok(moves)) => Params {
            tables,
            moves,
            bot_tables: 0,
            bot_strength: "hard",
            bot_person: Duration::ZERO,
        },
        (Err(err), _) | (_, Err(err)) => return fail(&err),
    };
    let params = match bot_params() {
        Ok((bot_tables, bot_strength, bot_person)) => Params {
            bot_tables,
            bot_strength,
            bot_person,
            ..params
        },
        Err(err) => return fail(&err),
    };

    let (addr, mut server) = match std::env::var("SPELBORD_URL") {
        Ok(url) => match loopback::loopback_addr(&url).map_err(|err| format!("SPELBORD_URL: {err}")) {
            Ok(addr) => {
                println!("target: the running server at {url} ({addr})");
                (addr, None)
            }
            Err(err) => return fail(&err),
        },
        Err(_) => match InProcessServer::start() {
            Ok(server) => {
                println!(
                    "target: in-process server on {} (database {} on {}, pool of {} connections, rate limit {BENCH_RATE}/s)",
                    server.addr(),
                    server.database,
                    server.database_host,
                    server.pool_size,
                );
                (server.addr(), Some(server))
            }
            Err(err) => return fail(&format!("could not start the server: {err}")),
        },
    };
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!(
        "load: {} tables × {} moves (Gomoku 15 × 15, opening free), {} WebSockets, {cores} CPU cores",
        params.tables,
        params.moves,
        params.tables * 3,
    );

    let clients = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKER_THREADS)
        .thread_name("ws-load-client")
        .enable_all()
        .build()
        .expect("the client runtime builds");
    let progress = Arc::new(AtomicUsize::new(0));
    let outcome = clients.block_on(async {
        let played = || {
            format!(
                "{} of {} moves played",
                progress.load(Ordering::Relaxed),
                params.tables * params.moves
            )
        };
        // Ctrl-C ends the load but still lets the server and its database be cleaned up.
        tokio::select! {
            result = tokio::time::timeout(HARD_STOP, run(addr, params, progress.clone())) => match result {
                Ok(result) => result,
                Err(_) => Err(format!("hard stop after {} s, with {}", HARD_STOP.as_secs(), played())),
            },
            _ = tokio::signal::ctrl_c() => Err(format!("interrupted, with {}", played())),
        }
    });
    // Closes whatever sockets are left before the server goes away.
    drop(clients);

    let mut ok = match &outcome {
        Ok(report) => {
            report.print();
            true
        }
        Err(err) => {
            eprintln!("ws_load: {err}");
            false
        }
    };
    if let Some(server) = server.as_mut() {
        if outcome.is_ok() {
            let expected = params.tables * params.moves;
            match server.stored_moves() {
                Ok(stored) if stored == expected => println!("stored: {stored} moves in PostgreSQL, as acknowledged"),
                Ok(stored) => {
                    eprintln!("ws_load: {stored} moves stored but {expected} acknowledged");
                    ok = false;
                }
                Err(err) => {
                    eprintln!("ws_load: could not count the stored moves: {err}");
                    ok = false;
                }
            }
        }
        server.stop();
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("ws_load: {message}");
    ExitCode::FAILURE
}

#[derive(Debug, Clone, Copy)]
struct Params {
    tables: usize,
    moves: usize,
    /// Tables where a bot searches all the time beside the measured ones.
    bot_tables: usize,
    bot_strength: &'static str,
    /// How long the person at a bot table thinks before each move.
    bot_person: Duration,
}

/// `BOT_TABLES` (0 to [`MAX_TABLES`], default 0), `BOT_STRENGTH` (default `hard`) and
/// `BOT_PERSON_MS` (default 3000).
fn bot_params() -> Fallible<(usize, &'static str, Duration)> {
    let tables = match std::env::var("BOT_TABLES") {
        Err(_) => 0,
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(n) if n <= MAX_TABLES => n,
            _ => return Err(format!("BOT_TABLES={text:?} must be a number from 0 to {MAX_TABLES}")),
        },
    };
    let strength = match std::env::var("BOT_STRENGTH").as_deref() {
        Err(_) | Ok("hard") => "hard",
        Ok("medium") => "medium",
        Ok("easy") => "easy",
        Ok("random") => "random",
        Ok(other) => return Err(format!("BOT_STRENGTH={other:?} must be random, easy, medium or hard")),
    };
    let person = match std::env::var("BOT_PERSON_MS") {
        Err(_) => 3_000,
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(ms) if ms <= 60_000 => ms,
            _ => return Err(format!("BOT_PERSON_MS={text:?} must be a number from 0 to 60000")),
        },
    };
    Ok((tables, strength, Duration::from_millis(person)))
}

/// A count from the environment variable `name`, 1 to `max`, or `default` if unset.
fn env_count(name: &str, default: usize, max: usize) -> Fallible<usize> {
    let Ok(text) = std::env::var(name) else {
        return Ok(default);
    };
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{name}={text:?} must be a number from 1 to {max}")),
    }
}

// ---------------------------------------------------------------- the in-process server

/// The real server on its own runtime, with a fresh database that [`Self::stop`] drops.
struct InProcessServer {
    runtime: tokio::runtime::Runtime,
    /// The maintenance database's connection options, to drop ours at the end.
    admin: PgConnectOptions,
    database: String,
    /// Where the database lives, for the report.
    database_host: String,
    pool_size: u32,
    /// The private cluster, when one is used; stopped at the end if this run started it.
    cluster: Option<LocalPostgres>,
    /// The serving server; `None` once stopped (or if it never started).
    running: Option<Running>,
    stopped: bool,
}

struct Running {
    addr: SocketAddr,
    store: Store,
    shutdown: CancellationToken,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl InProcessServer {
    fn start() -> Fallible<InProcessServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name("spelbord-server")
            .enable_all()
            .build()
            .expect("the server runtime builds");
        // The configuration is read as the server reads it (files, then `APP__…`
        // variables), so e.g. `APP__DATABASE__MAX_CONNECTIONS` sizes the pool; the address,
        // the rate limits and the database are this run's own.
        let mut settings = Settings::load().map_err(|err| err.to_string())?;
        settings.server.host = "127.0.0.1".into();
        settings.server.port = 0;
        settings.limits.messages_per_second = BENCH_RATE;
        settings.limits.message_burst = BENCH_RATE;
        settings.limits.tables_per_minute = BENCH_RATE;
        // Every simulated player connects from 127.0.0.1.
        settings.limits.connections_per_address = 0;
        let (admin, cluster, database_host) = runtime.block_on(admin_options())?;
        let mut server = InProcessServer {
            runtime,
            admin,
            database: format!("spelbord_bench_{}", uuid::Uuid::new_v4().simple()),
            database_host,
            pool_size: settings.database.max_connections,
            cluster,
            running: None,
            stopped: false,
        };
        match server
            .runtime
            .block_on(serve(&server.admin, &server.database, settings))
        {
            Ok(running) => {
                server.running = Some(running);
                Ok(server)
            }
            Err(err) => {
                // Drops the database if it was created, and stops a cluster we started.
                server.stop();
                Err(err)
            }
        }
    }

    fn addr(&self) -> SocketAddr {
        self.running
            .as_ref()
            .map_or(SocketAddr::from(([127, 0, 0, 1], 0)), |running| running.addr)
    }

    /// How many moves the server stored at the measured tables (those without a bot).
    fn stored_moves(&self) -> Fallible<usize> {
        let running = self.running.as_ref().ok_or("the server is not running")?;
        let query = "SELECT count(*) FROM moves m
                      WHERE NOT EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = m.game_id AND p.bot IS NOT NULL)";
        let count: i64 = self
            .runtime
            .block_on(sqlx::query_scalar(query).fetch_one(running.store.pool()))
            .map_err(|err| err.to_string())?;
        usize::try_from(count).map_err(|err| err.to_string())
    }

    /// Stops the server, drops the database and stops the private cluster if this run
    /// started it. Problems are reported, not fatal. Safe to call twice.
    fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let running = self.running.take();
        let admin = self.admin.clone();
        let database = self.database.clone();
        let cluster = self.cluster.clone();
        self.runtime.block_on(async move {
            if let Some(Running {
                store,
                shutdown,
                served,
                ..
            }) = running
            {
                shutdown.cancel();
                if tokio::time::timeout(Duration::from_secs(15), served).await.is_err() {
                    eprintln!("ws_load: the server took over 15 s to shut down");
                }
                store.pool().close().await;
            }
            let dropped = async {
                let mut conn = admin.connect().await?;
                let sql = format!("DROP DATABASE IF EXISTS \"{database}\" WITH (FORCE)");
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&mut conn).await?;
                conn.close().await
            };
            if let Err(err) = dropped.await {
                eprintln!("ws_load: could not drop the database {database}: {err}");
            }
            if let Some(cluster) = cluster.filter(LocalPostgres::started_by_us)
                && let Err(err) = cluster.stop().await
            {
                eprintln!("ws_load: could not stop the private PostgreSQL cluster: {err}");
            }
        });
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Creates `database`, migrates it and starts the server on it, as the tests do.
async fn serve(admin: &PgConnectOptions, database: &str, settings: Settings) -> Fallible<Running> {
    let mut conn = admin
        .connect()
        .await
        .map_err(|err| format!("connect to the database server: {err}"))?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{database}\"")))
        .execute(&mut conn)
        .await
        .map_err(|err| format!("create database {database}: {err}"))?;
    conn.close().await.ok();
    let sizes = PoolSizes {
        writes: settings.database.max_connections,
        reads: settings.database.read_connections,
    };
    let store = Store::connect(admin.clone().database(database), sizes)
        .await
        .map_err(|err| format!("connect to and migrate {database}: {err}"))?;
    let app = App::bind(settings, store.clone())
        .await
        .map_err(|err| format!("bind 127.0.0.1: {err}"))?;
    let addr = app.local_addr().map_err(|err| err.to_string())?;
    let shutdown = app.shutdown_token();
    let served = tokio::spawn(app.run());
    Ok(Running {
        addr,
        store,
        shutdown,
        served,
    })
}

/// The maintenance database to create and drop the run's database on, as the tests find
/// it: `DATABASE_URL`, or the private cluster (started if needed).
async fn admin_options() -> Fallible<(PgConnectOptions, Option<LocalPostgres>, String)> {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        let options: PgConnectOptions = url.parse().map_err(|err| format!("DATABASE_URL: {err}"))?;
        return Ok((options, None, "DATABASE_URL's server".to_owned()));
    }
    let bin_dir = LocalPostgres::find_binaries(None).map_err(|err| err.to_string())?;
    let data_dir = std::env::var_os("SPELBORD_BENCH_PGDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("spelbord-bench-postgres"));
    let cluster = LocalPostgres::ensure_running(&data_dir, &bin_dir)
        .await
        .map_err(|err| err.to_string())?;
    let host = format!("the private cluster in {}", cluster.data_dir().display());
    Ok((cluster.connect_options("postgres"), Some(cluster), host))
}

// ---------------------------------------------------------------- WebSocket clients

/// One WebSocket connection to a table.
struct Client {
    ws: Ws,
}

impl Client {
    /// Connects (Nagle off, like the server's side) and reads the snapshot.
    async fn connect(addr: SocketAddr, table: &str) -> Fallible<Client> {
        let url = format!("ws://{addr}/ws/tables/{table}");
        let (ws, _) = tokio::time::timeout(
            RECV_TIMEOUT,
            tokio_tungstenite::connect_async_with_config(url.as_str(), None, true),
        )
        .await
        .map_err(|_| format!("connecting to {url} timed out"))?
        .map_err(|err| format!("connecting to {url}: {err}"))?;
        let mut client = Client { ws };
        let snapshot = client.recv().await?;
        if snapshot["type"] != "snapshot" {
            return Err(format!("the first message is not a snapshot: {snapshot}"));
        }
        Ok(client)
    }

    async fn send(&mut self, text: String) -> Fallible<()> {
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|err| format!("sending a frame: {err}"))
    }

    /// The next JSON message.
    async fn recv(&mut self) -> Fallible<Value> {
        loop {
            let frame = tokio::time::timeout(RECV_TIMEOUT, self.ws.next())
                .await
                .map_err(|_| format!("no message within {} s", RECV_TIMEOUT.as_secs()))?
                .ok_or("the server closed the connection")?
                .map_err(|err| format!("reading a frame: {err}"))?;
            match frame {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str())
                        .map_err(|err| format!("the server sent bad JSON: {err}"));
                }
                Message::Close(frame) => return Err(format!("the server closed the connection: {frame:?}")),
                _ => continue,
            }
        }
    }

    /// Reads until a message for which `wanted` holds; an `error` or `game_over` on the
    /// way fails.
    async fn until(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Fallible<Value> {
        loop {
            let message = self.recv().await?;
            if wanted(&message) {
                return Ok(message);
            }
            match message["type"].as_str() {
                Some("error") if message["code"] == "rate_limited" => {
                    return Err(format!(
                        "the server's rate limiter dropped a message while waiting for {what}: raise its limits \
                         (APP__LIMITS__MESSAGES_PER_SECOND=10000 APP__LIMITS__MESSAGE_BURST=10000)"
                    ));
                }
                Some("error" | "game_over") => return Err(format!("waiting for {what}, got {message}")),
                _ => {}
            }
        }
    }

    async fn until_type(&mut self, kind: &str) -> Fallible<Value> {
        self.until(kind, |message| message["type"] == kind).await
    }

    /// Reads until the `moved` event of `ply`, and returns when it arrived.
    async fn until_moved(&mut self, ply: usize) -> Fallible<Instant> {
        let what = format!("moved of ply {ply}");
        self.until(&what, |m| m["type"] == "moved" && m["ply"].as_u64() == Some(ply as u64))
            .await?;
        Ok(Instant::now())
    }

    async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.ws.close(None)).await;
    }
}

/// The moves of the line-free fill in play order (X, O, X, …): X where
/// `(col + 2 * row) % 4 < 2` with 0-based column and row (row 0 is row 1, the bottom).
fn fill_moves() -> Vec<String> {
    let (mut xs, mut os) = (Vec::new(), Vec::new());
    for row in 0..15u8 {
        for col in 0..15u8 {
            let square = format!("{}{}", char::from(b'A' + col), row + 1);
            if (usize::from(col) + 2 * usize::from(row)) % 4 < 2 {
                xs.push(square);
            } else {
                os.push(square);
            }
        }
    }
    (0..MAX_MOVES)
        .map(|ply| {
            if ply % 2 == 0 {
                xs[ply / 2].clone()
            } else {
                os[ply / 2].clone()
            }
        })
        .collect()
}

// ---------------------------------------------------------------- the load

/// A table whose game has started, with its three connections.
struct SeatedTable {
    x: Client,
    o: Client,
    spectator: Client,
}

/// One move's latencies.
#[derive(Debug, Clone, Copy)]
struct Sample {
    /// From sending `move` to the mover's own `moved`.
    mover: Duration,
    /// From sending `move` to the spectator's `moved`.
    spectator: Duration,
}

struct Report {
    params: Params,
    /// Moves the bots played during the play phase.
    bot_moves: usize,
    creation: Duration,
    creation_latencies: Vec<Duration>,
    setup: Duration,
    play: Duration,
    samples: Vec<Sample>,
}

async fn run(addr: SocketAddr, params: Params, progress: Arc<AtomicUsize>) -> Fallible<Report> {
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|err| format!("HTTP client: {err}"))?;
    let base = format!("http://{addr}");

    // 0. The bot tables, searching all the time until the measured tables are done.
    let bot_moves = Arc::new(AtomicUsize::new(0));
    let stop_bots = CancellationToken::new();
    let mut bots = JoinSet::new();
    for _ in 0..params.bot_tables {
        let (id, _) = create_table_with(&http, &base, bot_table_settings(params.bot_strength)).await?;
        let client = seat_bot_table(addr, &id).await?;
        bots.spawn(keep_bot_busy(
            client,
            params.bot_person,
            stop_bots.clone(),
            bot_moves.clone(),
        ));
    }

    // 1. Create every table at once.
    let started = Instant::now();
    let mut creating = JoinSet::new();
    for _ in 0..params.tables {
        creating.spawn(create_table(http.clone(), base.clone()));
    }
    let mut tables = Vec::with_capacity(params.tables);
    let mut creation_latencies = Vec::with_capacity(params.tables);
    while let Some(created) = creating.join_next().await {
        let (id, latency) = created.map_err(|err| err.to_string())??;
        tables.push(id);
        creation_latencies.push(latency);
    }
    let creation = started.elapsed();

    // 2. Seat two players and a spectator at every table, all at once.
    let started = Instant::now();
    let mut seating = JoinSet::new();
    for id in tables {
        seating.spawn(seat_table(addr, id));
    }
    let mut seated = Vec::with_capacity(params.tables);
    while let Some(table) = seating.join_next().await {
        seated.push(table.map_err(|err| err.to_string())??);
    }
    let setup = started.elapsed();

    // 3. Play every table at once.
    let moves = Arc::new(fill_moves());
    let started = Instant::now();
    let mut playing = JoinSet::new();
    for table in seated {
        playing.spawn(play_table(table, params.moves, moves.clone(), progress.clone()));
    }
    let mut samples = Vec::with_capacity(params.tables * params.moves);
    while let Some(played) = playing.join_next().await {
        samples.extend(played.map_err(|err| err.to_string())??);
    }
    let play = started.elapsed();
    let bot_moves = bot_moves.load(Ordering::Relaxed);
    stop_bots.cancel();
    while let Some(done) = bots.join_next().await {
        done.map_err(|err| err.to_string())??;
    }

    Ok(Report {
        params,
        bot_moves,
        creation,
        creation_latencies,
        setup,
        play,
        samples,
    })
}

async fn create_table(http: reqwest::Client, base: String) -> Fallible<(String, Duration)> {
    let body = json!({"game": "gomoku", "settings": {"opening": "free", "seating": "chosen"}});
    create_table_with(&http, &base, body).await
}

async fn create_table_with(http: &reqwest::Client, base: &str, body: Value) -> Fallible<(String, Duration)> {
    let started = Instant::now();
    let response = http
        .post(format!("{base}/api/tables"))
        .json(&body)
        .timeout(RECV_TIMEOUT)
        .send()
        .await
        .map_err(|err| format!("POST /api/tables: {err}"))?;
    let status = response.status();
    let answer: Value = response
        .json()
        .await
        .map_err(|err| format!("POST /api/tables answered {status} without JSON: {err}"))?;
    let latency = started.elapsed();
    if status != reqwest::StatusCode::CREATED {
        return Err(format!("POST /api/tables answered {status}: {answer}"));
    }
    let id = answer["id"]
        .as_str()
        .ok_or_else(|| format!("POST /api/tables answered without an id: {answer}"))?;
    Ok((id.to_owned(), latency))
}

/// Connects a spectator and two players; X sits in seat 0, then O in seat 1, which
/// starts the game; returns once all three have seen `game_started`.
async fn seat_table(addr: SocketAddr, table: String) -> Fallible<SeatedTable> {
    let mut spectator = Client::connect(addr, &table).await?;
    let mut x = Client::connect(addr, &table).await?;
    let mut o = Client::connect(addr, &table).await?;
    for player in [&mut x, &mut o] {
        player.send(json!({"type": "hello"}).to_string()).await?;
        player.until_type("welcome").await?;
    }
    for (seat, player, name) in [(0, &mut x, "X-bench"), (1, &mut o, "O-bench")] {
        player
            .send(json!({"type": "sit", "seat": seat, "name": name}).to_string())
            .await?;
        player
            .until("seated", |m| m["type"] == "seated" && m["seat"] == seat)
            .await?;
    }
    for client in [&mut x, &mut o, &mut spectator] {
        client.until_type("game_started").await?;
    }
    Ok(SeatedTable { x, o, spectator })
}

/// A Gomoku table where the computer (`strength`) holds seat 1.
fn bot_table_settings(strength: &str) -> Value {
    json!({"game": "gomoku", "settings": {"opening": "free", "seating": "chosen", "bots": {"1": strength}}})
}

/// Connects the person of a bot table and seats them (which starts the game).
async fn seat_bot_table(addr: SocketAddr, table: &str) -> Fallible<Client> {
    let mut person = Client::connect(addr, table).await?;
    person.send(json!({"type": "hello"}).to_string()).await?;
    person.until_type("welcome").await?;
    person
        .send(json!({"type": "sit", "seat": 0, "name": "bot-bench"}).to_string())
        .await?;
    person.until_type("game_started").await?;
    Ok(person)
}

/// Plays the person's side of a bot table (a random legal move after `think`, a rematch
/// after every game) until `stop`, counting the bot's moves.
async fn keep_bot_busy(
    mut person: Client,
    think: Duration,
    stop: CancellationToken,
    bot_moves: Arc<AtomicUsize>,
) -> Fallible<()> {
    let fresh = || -> Fallible<AnyGame> {
        let settings = TableSettings::read("gomoku", Some(bot_table_settings("hard")["settings"].clone()))
            .map_err(|err| err.to_string())?;
        Ok(settings.game.new_game())
    };
    let mut game = fresh()?;
    // The person sat in seat 0; rematches swap the seats.
    let mut mine: u8 = 0;
    loop {
        if game.active_seats().contains(mine) {
            tokio::select! {
                _ = stop.cancelled() => {
                    person.close().await;
                    return Ok(());
                }
                // People do not all think alike: half to one and a half times `think`.
                _ = tokio::time::sleep(think.mul_f64(rand::random_range(0.5..1.5))) => {}
            }
            let moves = game.legal_moves_json(mine);
            let chosen = moves.choose(&mut rand::rng()).cloned();
            if let Some(payload) = chosen {
                person
                    .send(json!({"type": "move", "move": payload}).to_string())
                    .await?;
            }
        }
        let message = loop {
            tokio::select! {
                _ = stop.cancelled() => {
                    person.close().await;
                    return Ok(());
                }
                message = person.recv() => {
                    let message = message?;
                    match message["type"].as_str() {
                        Some("moved" | "game_started" | "game_over") => break message,
                        Some("error") => return Err(format!("a bot table refused a move: {message}")),
                        _ => {}
                    }
                }
            }
        };
        match message["type"].as_str() {
            Some("moved") => {
                let seat = u8::try_from(message["seat"].as_u64().unwrap_or(0)).unwrap_or(0);
                game.play_json(seat, &message["move"])
                    .map_err(|err| format!("the server's move {message} does not replay: {err}"))?;
                if seat != mine {
                    bot_moves.fetch_add(1, Ordering::Relaxed);
                }
            }
            Some("game_over") => {
                person.send(json!({"type": "offer_rematch"}).to_string()).await?;
            }
            _ => {
                game = fresh()?;
                mine = if message["seats"][0]["player"]["bot"].is_string() {
                    1
                } else {
                    0
                };
            }
        }
    }
}

/// One move by one player: when it was sent and how long its own `moved` took.
struct Sent {
    ply: usize,
    at: Instant,
    latency: Duration,
}

/// Plays `count` moves at a table: the two players and the spectator run concurrently.
async fn play_table(
    table: SeatedTable,
    count: usize,
    moves: Arc<Vec<String>>,
    progress: Arc<AtomicUsize>,
) -> Fallible<Vec<Sample>> {
    let SeatedTable { x, o, spectator } = table;
    // The first failure ends the table (the others would only wait for a message).
    let ((x, x_sent), (o, o_sent), (spectator, seen)) = tokio::try_join!(
        play_seat(x, 0, count, &moves, &progress),
        play_seat(o, 1, count, &moves, &progress),
        watch(spectator, count),
    )?;
    for client in [x, o, spectator] {
        client.close().await;
    }
    let mut samples = Vec::with_capacity(count);
    for sent in x_sent.into_iter().chain(o_sent) {
        let seen_at = seen[sent.ply - 1];
        samples.push(Sample {
            mover: sent.latency,
            spectator: seen_at.saturating_duration_since(sent.at),
        });
    }
    Ok(samples)
}

/// Plays `seat`'s moves of the first `count` plies, each as soon as the previous ply's
/// `moved` has arrived.
async fn play_seat(
    mut player: Client,
    seat: usize,
    count: usize,
    moves: &[String],
    progress: &AtomicUsize,
) -> Fallible<(Client, Vec<Sent>)> {
    let mut sent = Vec::with_capacity(count / 2 + 1);
    for ply in 1..=count {
        if (ply - 1) % 2 == seat {
            let frame = json!({"type": "move", "move": {"at": moves[ply - 1]}}).to_string();
            let at = Instant::now();
            player.send(frame).await?;
            let arrived = player.until_moved(ply).await?;
            sent.push(Sent {
                ply,
                at,
                latency: arrived - at,
            });
            progress.fetch_add(1, Ordering::Relaxed);
        } else {
            player.until_moved(ply).await?;
        }
    }
    Ok((player, sent))
}

/// Reads the spectator's events until the `moved` of ply `count`; returns when each
/// ply's `moved` arrived.
async fn watch(mut spectator: Client, count: usize) -> Fallible<(Client, Vec<Instant>)> {
    let mut seen = Vec::with_capacity(count);
    for ply in 1..=count {
        seen.push(spectator.until_moved(ply).await?);
    }
    Ok((spectator, seen))
}

// ---------------------------------------------------------------- the report

impl Report {
    fn print(&self) {
        let Params { tables, moves, .. } = self.params;
        println!(
            "table creation: {tables} tables (concurrent POST /api/tables) in {:.3} s = {:.0} tables/s; {}",
            self.creation.as_secs_f64(),
            per_second(tables, self.creation),
            summary(&self.creation_latencies),
        );
        println!(
            "seating: {} connections, hello, 2 sits and game_started at every table in {:.3} s",
            tables * 3,
            self.setup.as_secs_f64(),
        );
        if self.params.bot_tables > 0 {
            println!(
                "bots: {} tables with a bot ({}) against a person who thinks {} ms; the bots played {} moves ({:.0}/s) meanwhile",
                self.params.bot_tables,
                self.params.bot_strength,
                self.params.bot_person.as_millis(),
                self.bot_moves,
                per_second(self.bot_moves, self.play),
            );
        }
        let total = self.samples.len();
        println!(
            "moves: {total} ({tables} tables × {moves}) in {:.3} s wall = {:.0} moves/s",
            self.play.as_secs_f64(),
            per_second(total, self.play),
        );
        let mover: Vec<Duration> = self.samples.iter().map(|s| s.mover).collect();
        let spectator: Vec<Duration> = self.samples.iter().map(|s| s.spectator).collect();
        println!("latency, move → mover's own moved:  {}", summary(&mover));
        println!("latency, move → spectator's moved:  {}", summary(&spectator));
    }
}

fn per_second(count: usize, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64().max(f64::EPSILON)
}

/// `p50 … p90 … p99 … max … mean …` in milliseconds (nearest-rank percentiles).
fn summary(latencies: &[Duration]) -> String {
    if latencies.is_empty() {
        return "no samples".into();
    }
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    let rank = |p: f64| {
        let index = (p / 100.0 * sorted.len() as f64).ceil() as usize;
        sorted[index.clamp(1, sorted.len()) - 1]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = sorted.iter().sum::<Duration>() / u32::try_from(sorted.len()).unwrap_or(u32::MAX);
    format!(
        "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms, mean {:.2} ms",
        ms(rank(50.0)),
        ms(rank(90.0)),
        ms(rank(99.0)),
        ms(sorted[sorted.len() - 1]),
        ms(mean),
    )
}
