//! The backup and restore drill (issue 34): what docs/operations.md, "Data and backups",
//! says to do, done.
//!
//! A server on a fresh database plays over real WebSockets: a casual game won by five in
//! a row, and at a rated best-of-3 table a first game resigned (so ratings and their
//! history exist, and the series' standings read 1–0), chat lines, and a second game left
//! in play after three moves. While it runs (a backup of a live server),
//! `pg_dump --format=custom` dumps its database; `pg_restore` loads the dump into a
//! database of a **fresh PostgreSQL cluster** (its own data folder, started with the
//! server's own bootstrap, `store::local_pg`, and stopped and deleted at the end).
//!
//! Then: every durable table holds the same rows in the copy as in the original (compared
//! by fingerprint: count and digest of the rows); a new server started on the copy lists
//! the same finished games with the same records (`/api/tables/{id}/games`,
//! `/api/games/{id}`), shows the same series standings, ratings and chat, and resumes the
//! game in play as after a restart (same position and moves); a player's token, whose
//! secret is in the database, still names them; and their next move is accepted and
//! stored.
//!
//! With `DATABASE_URL` set (the tests' databases on another server), there may be no local
//! PostgreSQL to start a cluster with: the copy then goes to a fresh database on that
//! server instead, and the test says so.

mod common;

use common::scratch::{Scratch, libpq_url, pg_program, run};
use common::{TestApp, TestDb, spawn_app_on, spawn_app_with};
use serde_json::{Value, json};
use spelbord::store::local_pg::LocalPostgres;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection};

/// The tables whose rows are the server's durable state (docs/operations.md, "Data and
/// backups"): compared row for row between the original and the copy.
const DURABLE: [&str; 13] = [
    "tables",
    "seats",
    "games",
    "game_players",
    "moves",
    "results",
    "series",
    "series_sides",
    "ratings",
    "rating_history",
    "chat_messages",
    "game_stats",
    "server_secrets",
];

/// A server on which a person may move as fast as the test sends.
async fn spawn_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.limits.messages_per_second = 10_000;
        settings.limits.message_burst = 10_000;
    })
    .await
}

/// The seat the player called `name` holds in a `game_started`.
fn seat_of(started: &Value, name: &str) -> u8 {
    let seats = started["seats"].as_array().expect("seats");
    let seat = seats
        .iter()
        .find(|seat| seat["player"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is seated: {started}"));
    u8::try_from(seat["seat"].as_u64().expect("a seat")).expect("small")
}

async fn get_json(app: &TestApp, path: &str) -> Value {
    let response = reqwest::get(app.http(path)).await.expect("GET");
    assert_eq!(response.status(), 200, "{path}");
    response.json().await.expect("JSON")
}

/// What a table's snapshot says that the database keeps (not who is connected, nor the
/// table's incarnation or version).
fn durable_view(snapshot: &Value) -> Value {
    let mut view = serde_json::Map::new();
    for key in [
        "id",
        "game",
        "settings",
        "status",
        "game_number",
        "state",
        "moves",
        "to_move",
        "result",
        "rated",
        "series",
        "chat",
    ] {
        view.insert(key.to_owned(), snapshot[key].clone());
    }
    let seats: Vec<Value> = snapshot["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|seat| json!([seat["seat"], seat["player"]["name"], seat["player"]["rating"]]))
        .collect();
    view.insert("seats".to_owned(), Value::Array(seats));
    Value::Object(view)
}

/// A table's games as listed, and the full record of each finished one.
async fn records(app: &TestApp, table: &str) -> (Value, Vec<Value>) {
    let listed = get_json(app, &format!("/api/tables/{table}/games")).await;
    let mut finished = Vec::new();
    for game in listed["games"].as_array().expect("games") {
        if game["result"].is_null() {
            continue;
        }
        let id = game["id"].as_str().expect("a game id");
        finished.push(get_json(app, &format!("/api/games/{id}")).await);
    }
    (listed, finished)
}

/// Per durable table: its row count and a digest of its rows.
async fn fingerprints(options: &PgConnectOptions) -> Vec<(String, i64, String)> {
    let mut conn = options.connect().await.expect("connect");
    let mut out = Vec::new();
    for table in DURABLE {
        let sql =
            format!("SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM {table} t");
        let (count, digest): (i64, String) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut conn)
            .await
            .unwrap_or_else(|err| panic!("fingerprint of {table}: {err}"));
        out.push((table.to_owned(), count, digest));
    }
    conn.close().await.ok();
    out
}

/// A fresh cluster in a scratch folder of its own, stopped and deleted when dropped.
struct FreshCluster {
    cluster: LocalPostgres,
    _scratch: Scratch,
}

impl FreshCluster {
    async fn start() -> FreshCluster {
        let mut scratch = Scratch::new("restore");
        let cluster = scratch.cluster("postgres").await;
        cluster.create_database("spelbord").await.expect("its database");
        FreshCluster {
            cluster,
            _scratch: scratch,
        }
    }

    fn options(&self) -> PgConnectOptions {
        self.cluster.connect_options("spelbord")
    }
}

/// Where the copy goes: a fresh cluster's database, or a fresh database on the tests'
/// server when `DATABASE_URL` names one.
enum Target {
    Cluster(FreshCluster),
    Database(Box<TestDb>),
}

impl Target {
    async fn create() -> Target {
        if std::env::var_os("DATABASE_URL").is_some() {
            eprintln!(
                "restore drill: DATABASE_URL is set, so the copy goes to a fresh database on that server, not a fresh cluster"
            );
            Target::Database(Box::new(TestDb::create().await))
        } else {
            Target::Cluster(FreshCluster::start().await)
        }
    }

    fn options(&self) -> PgConnectOptions {
        match self {
            Target::Cluster(cluster) => cluster.options(),
            Target::Database(database) => database.options.clone(),
        }
    }
}

#[tokio::test]
async fn a_dump_restored_into_a_fresh_cluster_brings_every_game_back() {
    let app = spawn_app().await;

    // A casual game X wins with five in a row.
    let casual = app.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, _)) = app.two_seated(&casual).await;
    for (xs, os) in ["H8", "I8", "J8", "K8"].iter().zip(["A1", "A2", "A3", "A4"]) {
        x.play_seen(&mut o, xs).await;
        o.play_seen(&mut x, os).await;
    }
    x.play_seen(&mut o, "L8").await;
    assert_eq!(x.until("game_over").await["result"]["winners"], json!([0]));
    x.send(json!({"type": "chat", "text": "well played"})).await;
    o.until("chat").await;

    // A rated best-of-3: chat, game 1 resigned after two moves each, game 2 left in play.
    let rated = app
        .gomoku_table(json!({"seating": "chosen", "rated": true, "series": "best_of_3", "series_pause_seconds": 0}))
        .await;
    let mut anna = app.client(&rated).await;
    let mut bo = app.client(&rated).await;
    let anna_token = anna.hello().await;
    let bo_token = bo.hello().await;
    anna.sit(0, "Anna").await;
    bo.until("seated").await;
    bo.sit(1, "Bo").await;
    anna.until("game_started").await;
    bo.until("game_started").await;
    anna.send(json!({"type": "chat", "text": "hello"})).await;
    bo.until("chat").await;
    bo.send(json!({"type": "chat", "text": "good luck"})).await;
    anna.until("chat").await;
    anna.play_seen(&mut bo, "H8").await;
    bo.play_seen(&mut anna, "H9").await;
    anna.play_seen(&mut bo, "I8").await;
    bo.play_seen(&mut anna, "I9").await;
    bo.send(json!({"type": "resign"})).await;
    let over = anna.until("game_over").await;
    assert!(
        over["ratings"].as_array().is_some_and(|changes| changes.len() == 2),
        "{over}"
    );
    bo.until("game_over").await;
    let started = anna.until("game_started").await;
    bo.until("game_started").await;
    assert_eq!(started["series"]["game"], 2, "{started}");
    // Three moves of game 2; the fourth is to be played on the copy.
    let anna_first = seat_of(&started, "Anna") == 0;
    let (first, second) = if anna_first {
        (&mut anna, &mut bo)
    } else {
        (&mut bo, &mut anna)
    };
    first.play_seen(second, "H8").await;
    second.play_seen(first, "A1").await;
    first.play_seen(second, "I8").await;
    let (next_token, next_name) = if anna_first {
        (&bo_token, "Bo")
    } else {
        (&anna_token, "Anna")
    };
    // Everything sent was acknowledged, so it is stored: read what the original shows.
    anna.sync().await;
    bo.sync().await;
    let before = [
        durable_view(&app.snapshot(&casual).await),
        durable_view(&app.snapshot(&rated).await),
    ];
    let records_before = [records(&app, &casual).await, records(&app, &rated).await];
    assert_eq!(records_before[0].1.len(), 1, "the casual game is listed as finished");
    assert_eq!(
        records_before[1].1.len(),
        1,
        "game 1 of the series is listed as finished"
    );
    assert_eq!(before[1]["moves"].as_array().map(Vec::len), Some(3), "{}", before[1]);
    let original = app.pool.connect_options().as_ref().clone();
    let fingerprint = fingerprints(&original).await;
    assert!(
        fingerprint.iter().all(|(_, count, _)| *count > 0),
        "every durable table holds rows: {fingerprint:?}"
    );

    // The backup, of the live server, as docs/operations.md says.
    let dump = std::env::temp_dir().join(format!("spelbord-drill-{}.dump", uuid::Uuid::new_v4().simple()));
    let dump_arg = dump.to_str().expect("a UTF-8 path");
    run(
        &pg_program("pg_dump"),
        &["--format=custom", "--file", dump_arg, "--dbname", &libpq_url(&original)],
    );
    for client in [x, o, anna, bo] {
        client.close().await;
    }
    drop(app); // The original server stops, and its database is dropped.

    // Restored into a fresh cluster (or database), as docs/operations.md says.
    let target = Target::create().await;
    let copy = target.options();
    run(
        &pg_program("pg_restore"),
        &["--no-owner", "--exit-on-error", "--dbname", &libpq_url(&copy), dump_arg],
    );
    let _ = std::fs::remove_file(&dump);
    assert_eq!(fingerprints(&copy).await, fingerprint, "the copy holds every row");

    // A server on the copy shows everything, the game in play resumed as after a restart.
    let restored = spawn_app_on(copy.clone()).await;
    for (table, view) in [&casual, &rated].into_iter().zip(&before) {
        assert_eq!(
            &durable_view(&restored.snapshot(table).await),
            view,
            "the table {table}"
        );
    }
    for (table, records_before) in [&casual, &rated].into_iter().zip(&records_before) {
        assert_eq!(
            &records(&restored, table).await,
            records_before,
            "the records of {table}"
        );
    }
    let series = &before[1]["series"];
    assert_eq!(series["game"], 2, "{series}");
    let points: Vec<&Value> = series["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|side| &side["points"])
        .collect();
    assert_eq!(points, [&json!(3), &json!(0)], "Anna's side won game 1: {series}");
    assert!(
        before[1]["chat"].as_array().is_some_and(|chat| chat.len() == 2),
        "{}",
        before[1]
    );
    assert_eq!(before[1]["status"], "playing", "{}", before[1]);
    let ratings: Vec<&Value> = before[1]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|seat| &seat[2]["value"])
        .collect();
    assert!(
        ratings
            .iter()
            .all(|value| value.as_i64().is_some_and(|rating| rating != 1500)),
        "both players' ratings moved from the newcomer's and came back: {}",
        before[1]
    );

    // The player to move comes back with their token and moves: stored on the copy.
    let mut player = restored.client(&rated).await;
    player.send(json!({"type": "hello", "token": next_token})).await;
    let welcome = player.until("welcome").await;
    assert_eq!(welcome["token"], json!(next_token), "{welcome}");
    player.send(json!({"type": "move", "move": {"at": "A2"}})).await;
    let moved = player.until("moved").await;
    assert_eq!(
        moved["move"],
        json!({"at": "A2"}),
        "{next_name}'s move is played: {moved}"
    );
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.table_id = $1 AND g.number = 2",
    )
    .bind(&rated)
    .fetch_one(&restored.pool)
    .await
    .expect("count the moves");
    assert_eq!(stored, 4, "the move is stored on the copy");
    player.close().await;
    restored.shut_down();
    drop(restored);
    drop(target);
}
