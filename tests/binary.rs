//! The real `spelbord` binary, as the README runs it: with no `DATABASE_URL` it starts its
//! own PostgreSQL cluster, serves, and on SIGTERM shuts down and stops the cluster; with
//! neither a URL nor PostgreSQL binaries it exits with one clear sentence; it serves on as
//! many worker threads as `server.worker_threads` says, and a SIGTERM as soon as it
//! listens stops it cleanly; and the previous release's binary serves beside it on the
//! schema it migrated (mixed versions, as in a rolling upgrade).

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const BINARY: &str = env!("CARGO_BIN_EXE_spelbord");
/// A guard against hangs while the server initialises a cluster (not a speed measure).
const STARTUP_LIMIT: Duration = Duration::from_secs(120);

/// A fresh folder the `postgres` user can reach (the cluster runs as that user when the
/// tests run as root). Removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("spelbord-binary-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("create a scratch folder");
        let mut permissions = std::fs::metadata(&dir).expect("metadata").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&dir, permissions).expect("chmod");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn server(scratch: &Scratch) -> Command {
    server_of(BINARY.as_ref(), scratch)
}

/// The server `binary` (this one, or another build of it) started in `scratch`.
fn server_of(binary: &std::ffi::OsStr, scratch: &Scratch) -> Command {
    let mut command = Command::new(binary);
    command
        .current_dir(scratch.path())
        .env_remove("DATABASE_URL")
        .env("PORT", "0")
        .env("APP__DATABASE__LOCAL_DIR", scratch.path().join("postgres"))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Reads the server's log until `pick` takes something from a line, then keeps draining
/// the log so the server never blocks on a full pipe.
async fn read_log<T: Send + 'static>(child: &mut Child, mut pick: impl FnMut(&str) -> Option<T> + Send) -> T {
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.expect("read the log") {
            if let Some(picked) = pick(&line) {
                return picked;
            }
        }
        panic!("the server exited before listening");
    };
    let picked = tokio::time::timeout(STARTUP_LIMIT, find)
        .await
        .expect("the server starts");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    picked
}

/// Reads the server's log until it says where it listens.
async fn listening_address(child: &mut Child) -> String {
    read_log(child, |line| {
        line.split_once("listening on ").map(|(_, addr)| addr.trim().to_owned())
    })
    .await
}

/// Starts the real server on `database`.
fn start_on(scratch: &Scratch, database: &common::TestDb) -> Child {
    start_binary_on(BINARY.as_ref(), scratch, database)
}

/// Starts the server `binary` on `database`.
fn start_binary_on(binary: &std::ffi::OsStr, scratch: &Scratch, database: &common::TestDb) -> Child {
    let mut command = server_of(binary, scratch);
    command.env("DATABASE_URL", database.url());
    command.spawn().expect("start the server")
}

/// Creates a table on the real server at `base` and returns its id.
async fn create_table(base: &str, body: Value) -> String {
    let created: Value = reqwest::Client::new()
        .post(format!("{base}/api/tables"))
        .json(&body)
        .send()
        .await
        .expect("POST")
        .json()
        .await
        .expect("JSON");
    created["id"].as_str().expect("id").to_owned()
}

/// A client of `table` on the real server at `base`, its snapshot read.
async fn connect(base: &str, table: &str) -> common::Client {
    let url = format!("{}/ws/tables/{table}", base.replacen("http", "ws", 1));
    let (stream, _) = tokio_tungstenite::connect_async(url).await.expect("connect");
    let mut client = common::Client::from_stream(stream);
    assert_eq!(client.recv().await["type"], "snapshot");
    client
}

/// Kills the server with `signal` and waits for it to stop.
async fn kill(child: &mut Child, signal: &str) -> std::process::ExitStatus {
    let pid = child.id().expect("pid").to_string();
    let killed = Command::new("kill").args([signal, &pid]).status().await.expect("kill");
    assert!(killed.success());
    tokio::time::timeout(STARTUP_LIMIT, child.wait())
        .await
        .expect("it stops")
        .expect("status")
}

#[tokio::test]
async fn without_database_url_the_server_runs_its_own_postgres_and_stops_it_on_sigterm() {
    let scratch = Scratch::new();
    let mut child = server(&scratch).spawn().expect("start the server");
    let base = listening_address(&mut child).await;

    let health: Value = reqwest::get(format!("{base}/healthz"))
        .await
        .expect("GET /healthz")
        .json()
        .await
        .expect("JSON");
    assert_eq!(health["database"], "ok");
    let created = reqwest::Client::new()
        .post(format!("{base}/api/tables"))
        .json(&json!({"game": "gomoku"}))
        .send()
        .await
        .expect("POST /api/tables");
    assert_eq!(created.status().as_u16(), 201);
    let pid_file = scratch.path().join("postgres").join("postmaster.pid");
    assert!(pid_file.exists(), "the private cluster runs in the configured folder");

    let pid = child.id().expect("the server's pid").to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().await.expect("kill");
    assert!(killed.success());
    let status = tokio::time::timeout(STARTUP_LIMIT, child.wait())
        .await
        .expect("the server stops after SIGTERM")
        .expect("exit status");
    assert!(status.success(), "clean exit: {status:?}");
    assert!(!pid_file.exists(), "the private cluster was stopped on shutdown");
}

/// Two servers on one private cluster: the first one to stop leaves the cluster to the
/// second, which goes on storing; the last one stops it.
#[tokio::test]
async fn two_servers_share_a_private_cluster_and_the_last_one_stops_it() {
    let scratch = Scratch::new();
    let mut first = server(&scratch).spawn().expect("start the first server");
    let first_base = listening_address(&mut first).await;
    let mut second = server(&scratch).spawn().expect("start the second server");
    let second_base = listening_address(&mut second).await;
    let pid_file = scratch.path().join("postgres").join("postmaster.pid");
    assert!(pid_file.exists());
    create_table(&first_base, json!({"game": "gomoku"})).await;
    assert!(kill(&mut first, "-TERM").await.success());
    assert!(pid_file.exists(), "the second server still uses the cluster");
    let table = create_table(&second_base, json!({"game": "gomoku"})).await;
    let mut client = connect(&second_base, &table).await;
    client.hello().await;
    client.sit(0, "Still here").await;
    assert!(kill(&mut second, "-TERM").await.success());
    assert!(!pid_file.exists(), "the last server stopped the cluster");
}

#[tokio::test]
async fn without_url_or_binaries_it_exits_with_one_clear_sentence() {
    let scratch = Scratch::new();
    let empty_bin = scratch.path().join("no-postgres-here");
    std::fs::create_dir_all(&empty_bin).expect("create an empty folder");
    let output = server(&scratch)
        .env("APP__DATABASE__PG_BIN_DIR", &empty_bin)
        .output()
        .await
        .expect("run the server");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let message = stderr.lines().last().unwrap_or_default();
    assert!(message.contains("install PostgreSQL"), "{stderr}");
    assert!(message.contains("DATABASE_URL"), "{stderr}");
}

/// The real binary against a test database: started, used, killed with `signal`, started
/// again; both players reconnect with their tokens and finish the game, and every move
/// acknowledged before the kill is there.
async fn survives(signal: &str) {
    let database = common::TestDb::create().await;
    let scratch = Scratch::new();
    let start = || start_on(&scratch, &database);
    let mut child = start();
    let base = listening_address(&mut child).await;
    let table = create_table(
        &base,
        json!({"game": "gomoku", "settings": {
            "seating": "chosen", "time_control": {"kind": "correspondence", "days": 2}
        }}),
    )
    .await;
    let mut x = connect(&base, &table).await;
    let mut o = connect(&base, &table).await;
    let x_token = x.hello().await;
    let o_token = o.hello().await;
    x.sit(0, "X").await;
    o.until("seated").await;
    o.sit(1, "O").await;
    x.until("game_started").await;
    let x_moves = ["H8", "I8", "J8", "K8", "L8"];
    let o_moves = ["A1", "A2", "A3", "A4"];
    for ply in 0..4 {
        let (mover, at) = if ply % 2 == 0 {
            (&mut x, x_moves[ply / 2])
        } else {
            (&mut o, o_moves[ply / 2])
        };
        mover.send(json!({"type": "move", "move": {"at": at}})).await;
        acknowledged(mover, at).await;
    }

    let status = kill(&mut child, signal).await;
    if signal == "-TERM" {
        assert!(status.success(), "a clean exit on SIGTERM: {status:?}");
    }
    drop((x, o));

    let mut child = start();
    let base = listening_address(&mut child).await;
    // The correspondence deadline stored before the kill is the one the new process keeps.
    let pool = sqlx::PgPool::connect_with(database.options.clone())
        .await
        .expect("connect");
    let deadline: time::OffsetDateTime = sqlx::query_scalar("SELECT deadline FROM games")
        .fetch_one(&pool)
        .await
        .expect("a deadline");
    let snapshot: Value = reqwest::get(format!("{base}/api/tables/{table}"))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    let remaining = snapshot["clocks"]["remaining_ms"][0].as_i64().expect("X's clock");
    let until = (deadline - time::OffsetDateTime::now_utc()).whole_milliseconds() as i64;
    assert!(
        (until - remaining).abs() < 60_000,
        "{remaining} ms left vs {until} ms to the stored deadline"
    );
    let mut x = connect(&base, &table).await;
    let mut o = connect(&base, &table).await;
    x.send(json!({"type": "hello", "token": x_token})).await;
    assert_eq!(x.until("welcome").await["seats"], json!([0]));
    o.send(json!({"type": "hello", "token": o_token})).await;
    assert_eq!(o.until("welcome").await["seats"], json!([1]));
    for ply in 4..9 {
        let (mover, at) = if ply % 2 == 0 {
            (&mut x, x_moves[ply / 2])
        } else {
            (&mut o, o_moves[ply / 2])
        };
        mover.send(json!({"type": "move", "move": {"at": at}})).await;
        acknowledged(mover, at).await;
    }
    let over = o.until("game_over").await;
    assert_eq!(
        (over["result"]["reason"].clone(), over["result"]["winners"].clone()),
        (json!("five_in_a_row"), json!([0]))
    );

    let stored: Vec<(i32, Value)> = sqlx::query_as("SELECT ply, payload FROM moves ORDER BY ply")
        .fetch_all(&pool)
        .await
        .expect("moves");
    let expected: Vec<(i32, Value)> = (0..9)
        .map(|ply| {
            let at = if ply % 2 == 0 {
                x_moves[ply / 2]
            } else {
                o_moves[ply / 2]
            };
            (i32::try_from(ply + 1).expect("small"), json!({"at": at}))
        })
        .collect();
    assert_eq!(stored, expected, "every acknowledged move, once, in order");
    pool.close().await;
    let pid = child.id().expect("pid").to_string();
    Command::new("kill").args(["-TERM", &pid]).status().await.expect("kill");
    let _ = tokio::time::timeout(STARTUP_LIMIT, child.wait()).await;
}

/// Reads until the mover's own move comes back as `moved`.
async fn acknowledged(client: &mut common::Client, at: &str) {
    while client.until("moved").await["move"]["at"] != at {}
}

#[tokio::test]
async fn a_game_survives_sigkill() {
    survives("-KILL").await;
}

#[tokio::test]
async fn a_game_survives_sigterm() {
    survives("-TERM").await;
}

/// The real binary killed (SIGKILL) in the second game of a best of three: after the
/// restart the series' standings and the game in progress are intact, and the series
/// finishes as it should.
#[tokio::test]
async fn a_series_survives_sigkill() {
    let database = common::TestDb::create().await;
    let scratch = Scratch::new();
    let start = || start_on(&scratch, &database);
    let mut child = start();
    let base = listening_address(&mut child).await;
    let table = create_table(
        &base,
        json!({"game": "gomoku", "settings": {
            "seating": "chosen", "series": "best_of_3", "series_pause_seconds": 0
        }}),
    )
    .await;
    let mut anna = connect(&base, &table).await;
    let mut bo = connect(&base, &table).await;
    let anna_token = anna.hello().await;
    let bo_token = bo.hello().await;
    anna.sit(0, "Anna").await;
    bo.until("seated").await;
    bo.sit(1, "Bo").await;
    anna.until("game_started").await;
    bo.until("game_started").await;
    // Game 1: Bo resigns. Game 2 starts with the sides swapped: Bo is X and opens.
    bo.send(json!({"type": "resign"})).await;
    anna.until("game_over").await;
    let started = bo.until("game_started").await;
    assert_eq!(started["seats"][0]["player"]["name"], "Bo");
    bo.send(json!({"type": "move", "move": {"at": "H8"}})).await;
    acknowledged(&mut bo, "H8").await;

    kill(&mut child, "-KILL").await;
    drop((anna, bo));

    let mut child = start();
    let base = listening_address(&mut child).await;
    let snapshot: Value = reqwest::get(format!("{base}/api/tables/{table}"))
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(snapshot["status"], "playing");
    assert_eq!(snapshot["game_number"], 2);
    assert_eq!(
        snapshot["moves"],
        json!([{"ply": 1, "seat": 0, "move": {"at": "H8"}, "text": "H8"}])
    );
    let series = &snapshot["series"];
    assert_eq!(
        (series["format"].clone(), series["game"].clone()),
        (json!("best_of_3"), json!(2))
    );
    assert_eq!(series["standings"][0]["players"], "Anna");
    assert_eq!(series["standings"][0]["wins"], 1);
    assert_eq!(series["standings"][0]["seats"], json!([1]));
    assert_eq!(series["standings"][1]["losses"], 1);
    let mut anna = connect(&base, &table).await;
    let mut bo = connect(&base, &table).await;
    anna.send(json!({"type": "hello", "token": anna_token})).await;
    assert_eq!(anna.until("welcome").await["seats"], json!([1]));
    bo.send(json!({"type": "hello", "token": bo_token})).await;
    assert_eq!(bo.until("welcome").await["seats"], json!([0]));
    bo.send(json!({"type": "resign"})).await;
    let over = anna.until("series_over").await;
    assert_eq!(over["series"]["winner"], 0);
    assert_eq!(over["series"]["standings"][0]["wins"], 2);
    let pid = child.id().expect("pid").to_string();
    Command::new("kill").args(["-TERM", &pid]).status().await.expect("kill");
    let _ = tokio::time::timeout(STARTUP_LIMIT, child.wait()).await;
}

/// The number of worker threads the server's log says it serves on, read up to the line
/// that says where it listens.
async fn logged_workers(child: &mut Child) -> usize {
    let mut workers = None;
    read_log(child, move |line| {
        if let Some((_, rest)) = line.split_once("serving on ") {
            let count = rest.split_whitespace().next().expect("a count");
            workers = Some(count.parse().expect("a number"));
        }
        line.contains("listening on ")
            .then(|| workers.expect("the workers are logged before the address"))
    })
    .await
}

#[tokio::test]
async fn it_serves_on_as_many_worker_threads_as_configured() {
    let scratch = Scratch::new();
    let database = common::TestDb::create().await;
    let mut counts = Vec::new();
    for threads in ["1", "3"] {
        let mut command = server(&scratch);
        command
            .env("DATABASE_URL", database.url())
            .env("APP__SERVER__WORKER_THREADS", threads);
        let mut child = command.spawn().expect("start the server");
        counts.push(logged_workers(&mut child).await);
        // At once: the signal is caught from before the server says it listens.
        assert!(kill(&mut child, "-TERM").await.success(), "a clean stop");
    }
    assert_eq!(counts, [1, 3], "Tokio's worker threads, as configured");
}

/// A Gomoku game X wins with five in a row at a table the server at `base` creates; the
/// table's id once both players saw the result.
async fn game_won_at(base: &str) -> String {
    let table = create_table(base, json!({"game": "gomoku", "settings": {"seating": "chosen"}})).await;
    let mut x = connect(base, &table).await;
    let mut o = connect(base, &table).await;
    x.hello().await;
    o.hello().await;
    x.sit(0, "X").await;
    o.until("seated").await;
    o.sit(1, "O").await;
    x.until("game_started").await;
    for (xs, os) in ["H8", "I8", "J8", "K8"].iter().zip(["A1", "A2", "A3", "A4"]) {
        x.play_seen(&mut o, xs).await;
        o.play_seen(&mut x, os).await;
    }
    x.send(json!({"type": "move", "move": {"at": "L8"}})).await;
    for player in [&mut x, &mut o] {
        assert_eq!(player.until("game_over").await["result"]["winners"], json!([0]));
    }
    table
}

/// The record of `table`'s only game, as the server at `base` reads it.
async fn only_game(base: &str, table: &str) -> Value {
    let record: Value = reqwest::get(format!("{base}/api/tables/{table}/games"))
        .await
        .expect("GET the table's games")
        .json()
        .await
        .expect("JSON");
    let games = record["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{record}");
    games[0].clone()
}

/// Mixed versions, as during a rolling upgrade (docs/operations.md, "Mixed versions"): this
/// binary migrates a fresh database, and the previous release's binary serves beside it on
/// the new schema. Each plays a game to its end at a table it created, and each reads the
/// record of the other's game. The previous binary is the commit before the newest
/// migration, which `.ci/run` builds and names in `SPELBORD_PREVIOUS_BINARY`; without it
/// the test says so and passes.
#[tokio::test]
async fn the_previous_release_serves_beside_this_one_on_the_migrated_schema() {
    let Some(previous) = std::env::var_os("SPELBORD_PREVIOUS_BINARY") else {
        eprintln!("mixed versions: SPELBORD_PREVIOUS_BINARY is not set (.ci/run builds it): skipped");
        return;
    };
    let database = common::TestDb::create().await;
    let scratch = Scratch::new();
    let mut current = start_on(&scratch, &database);
    let current_base = listening_address(&mut current).await;
    let mut old = start_binary_on(&previous, &scratch, &database);
    let old_base = listening_address(&mut old).await;
    let on_old = game_won_at(&old_base).await;
    let on_current = game_won_at(&current_base).await;
    for (base, table) in [(&current_base, &on_old), (&old_base, &on_current)] {
        let game = only_game(base, table).await;
        assert_eq!(game["status"], "finished", "{game}");
        assert_eq!(game["result"]["winners"], json!([0]), "{game}");
        assert_eq!(game["move_count"], 9, "{game}");
    }
    for child in [&mut old, &mut current] {
        assert!(kill(child, "-TERM").await.success(), "a clean exit on SIGTERM");
    }
}
