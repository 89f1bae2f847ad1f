//! Server clocks at a real table actor with a real database, under tokio's paused time:
//! flags fall exactly when time runs out, by the table's own timer, with nobody needing to
//! send anything.
//! The players talk to the table through its handle: see `common::actor` for why.

mod common;

use std::time::Duration;

use common::actor::{Seat, paused_store, snapshot, tables, two_players};
use serde_json::{Value, json};
use spelbord::table::TableHandle;
use tokio::time::advance;

const MS: Duration = Duration::from_millis(1);

struct Timed {
    pool: sqlx::PgPool,
    table: TableHandle,
    x: Seat,
    o: Seat,
    _database: common::TestDb,
}

/// A Gomoku table with `time_control` whose game has just started, X to move, with time
/// paused from before the start.
async fn timed_table(time_control: Value) -> Timed {
    timed_table_with(json!({"opening": "free", "time_control": time_control})).await
}

/// [`timed_table`] with these table settings.
async fn timed_table_with(settings: Value) -> Timed {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    let pool = store.pool().clone();
    tokio::time::pause();
    let tables = tables(store).await;
    let (table, x, mut o) = two_players(&tables, "gomoku", settings).await;
    let started = snapshot(&table).await;
    assert_eq!(started["clocks"]["running"], json!([0]));
    o.sync().await;
    Timed {
        pool,
        table,
        x,
        o,
        _database: database,
    }
}

async fn status(table: &TableHandle) -> (String, Value) {
    let json = snapshot(table).await;
    (
        json["status"].as_str().unwrap_or_default().to_owned(),
        json["clocks"].clone(),
    )
}

#[tokio::test]
async fn the_flag_falls_exactly_at_zero_and_not_a_millisecond_before() {
    let mut t = timed_table(json!({"kind": "sudden_death", "base_seconds": 60})).await;
    advance(Duration::from_secs(60) - MS).await;
    let (state, clocks) = status(&t.table).await;
    assert_eq!(state, "playing");
    assert_eq!(clocks["remaining_ms"], json!([1, 60_000]));
    advance(MS).await;
    let over = t.o.until("game_over").await;
    assert_eq!(over["result"]["reason"], "time");
    assert_eq!(over["result"]["winners"], json!([1]));
    assert_eq!(over["result"]["detail"], json!({"seat": 0, "role": "X"}));
    assert_eq!(over["clocks"]["remaining_ms"], json!([0, 60_000]));
    assert_eq!(over["clocks"]["running"], json!([]));
    assert_eq!(t.x.until("game_over").await, over);
    let (reason, winners): (String, Vec<i16>) = sqlx::query_as("SELECT reason, winners FROM results")
        .fetch_one(&t.pool)
        .await
        .expect("the result is stored");
    assert_eq!((reason.as_str(), winners), ("time", vec![1]));
}

#[tokio::test]
async fn the_flag_falls_at_a_table_nobody_is_connected_to() {
    let t = timed_table(json!({"kind": "per_move", "seconds": 30})).await;
    t.x.leave().await;
    t.o.leave().await;
    advance(Duration::from_secs(30)).await;
    // Give the actor its turn to store the result, then look.
    let (state, _) = status(&t.table).await;
    assert_eq!(state, "finished");
    let (reason, winners): (String, Vec<i16>) = sqlx::query_as("SELECT reason, winners FROM results")
        .fetch_one(&t.pool)
        .await
        .expect("the result is stored");
    assert_eq!((reason.as_str(), winners), ("time", vec![1]));
}

#[tokio::test]
async fn a_move_at_the_instant_of_the_flag_is_too_late() {
    let mut t = timed_table(json!({"kind": "sudden_death", "base_seconds": 10})).await;
    // Advance without letting the table's timer run first: the move arrives at zero.
    tokio::time::advance(Duration::from_secs(10)).await;
    t.x.send(json!({"type": "move", "move": {"at": "H8"}, "ref": 1})).await;
    let over = t.x.until("game_over").await;
    assert_eq!(over["result"]["reason"], "time");
    let error = t.x.until("error").await;
    assert_eq!(
        (error["code"].clone(), error["ref"].clone()),
        (json!("game_over"), json!(1))
    );
}

#[tokio::test]
async fn fischer_increment_is_added_and_clocks_travel_with_moves_into_postgres() {
    let mut t = timed_table(json!({"kind": "fischer", "base_seconds": 60, "increment_seconds": 2})).await;
    advance(Duration::from_secs(5)).await;
    let moved = t.x.play("H8").await;
    assert_eq!(moved["clocks"]["remaining_ms"], json!([57_000, 60_000]));
    assert_eq!(moved["clocks"]["running"], json!([1]));
    advance(Duration::from_secs(3)).await;
    t.o.play("A1").await;
    let moved = t.x.moved("A1").await;
    assert_eq!(moved["clocks"]["remaining_ms"], json!([57_000, 59_000]));
    let stored: Vec<Vec<i64>> = sqlx::query_scalar("SELECT clocks_ms FROM moves ORDER BY ply")
        .fetch_all(&t.pool)
        .await
        .expect("moves");
    assert_eq!(stored, vec![vec![57_000, 60_000], vec![57_000, 59_000]]);
}

#[tokio::test]
async fn per_move_clock_resets_every_turn() {
    let mut t = timed_table(json!({"kind": "per_move", "seconds": 20})).await;
    advance(Duration::from_secs(19)).await;
    t.x.play("H8").await;
    advance(Duration::from_secs(19)).await;
    t.o.play("A1").await;
    // X has a fresh 20 s, not the 1 s left from the first turn.
    advance(Duration::from_secs(20) - MS).await;
    assert_eq!(status(&t.table).await.0, "playing");
    advance(MS).await;
    let over = t.x.until("game_over").await;
    assert_eq!(
        (over["result"]["reason"].clone(), over["result"]["winners"].clone()),
        (json!("time"), json!([1]))
    );
}

#[tokio::test]
async fn reported_think_time_earns_lag_credit_up_to_the_quota() {
    let mut t = timed_table(json!({"kind": "sudden_death", "base_seconds": 60})).await;
    advance(Duration::from_secs(3)).await;
    // The client says the player thought 2.9 s of the 3 s measured: 100 ms of lag, credited.
    t.x.send(json!({"type": "move", "move": {"at": "H8"}, "think_ms": 2_900}))
        .await;
    let moved = t.x.moved("H8").await;
    assert_eq!(moved["clocks"]["remaining_ms"], json!([57_100, 60_000]));
    advance(Duration::from_secs(1)).await;
    // O claims 5 s of lag: only the quota (500 ms) is given back.
    t.o.send(json!({"type": "move", "move": {"at": "A1"}, "think_ms": 0}))
        .await;
    let moved = t.o.moved("A1").await;
    assert_eq!(moved["clocks"]["remaining_ms"], json!([57_100, 59_500]));
}

/// A started Bughouse match (3 minutes each by default), time paused from before the start.
async fn bughouse_match(time_control: Option<Value>) -> (common::TestDb, TableHandle, Vec<Seat>) {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store).await;
    let mut settings = json!({"seating": "chosen"});
    if let Some(control) = time_control {
        settings["time_control"] = control;
    }
    let settings = spelbord::table::TableSettings::read("bughouse", Some(settings)).expect("valid");
    let table = tables.create(settings).await.expect("created");
    let mut players = Vec::new();
    for seat in 0..4u8 {
        let mut player = Seat::join(&table, u64::from(seat) + 1).await;
        player.send(json!({"type": "sit", "seat": seat})).await;
        player.until("seated").await;
        players.push(player);
    }
    for player in &mut players {
        player.until("game_started").await;
    }
    (database, table, players)
}

#[tokio::test]
async fn bughouse_runs_two_clocks_at_once_and_a_flag_on_one_board_ends_the_match() {
    let (_db, table, mut players) = bughouse_match(None).await;
    advance(Duration::from_secs(10)).await;
    players[0].send(json!({"type": "move", "move": {"uci": "e2e4"}})).await;
    let moved = players[0].until("moved").await;
    // A-white stopped at 170 s; A-black's clock started; B-white's has run all along.
    assert_eq!(
        moved["clocks"]["remaining_ms"],
        json!([170_000, 180_000, 170_000, 180_000])
    );
    assert_eq!(moved["clocks"]["running"], json!([1, 2]));
    // B-white never moves: its flag falls at 180 s exactly, with no message from anyone.
    advance(Duration::from_secs(170) - MS).await;
    assert_eq!(status(&table).await.0, "playing");
    advance(MS).await;
    let over = players[3].until("game_over").await;
    assert_eq!(over["result"]["reason"], "time");
    assert_eq!(
        over["result"]["winners"],
        json!([0, 3]),
        "B-white's team loses on both boards"
    );
    assert_eq!(over["result"]["detail"], json!({"seat": 2, "role": "B-white"}));
}

#[tokio::test]
async fn bughouse_increment_is_applied_per_board() {
    let (_db, _table, mut players) = bughouse_match(Some(
        json!({"kind": "fischer", "base_seconds": 120, "increment_seconds": 2}),
    ))
    .await;
    advance(Duration::from_secs(5)).await;
    players[2].send(json!({"type": "move", "move": {"uci": "d2d4"}})).await;
    let moved = players[2].until("moved").await;
    assert_eq!(
        moved["clocks"]["remaining_ms"],
        json!([115_000, 120_000, 117_000, 120_000])
    );
    assert_eq!(moved["clocks"]["running"], json!([0, 3]));
}

#[tokio::test]
async fn a_take_back_restores_the_clocks_after_the_kept_move_and_the_move_list_shows_each_movers_clock() {
    let mut t = timed_table_with(json!({
        "opening": "free",
        "undo": true,
        "time_control": {"kind": "fischer", "base_seconds": 60, "increment_seconds": 2}
    }))
    .await;
    advance(Duration::from_secs(5)).await;
    t.x.play("H8").await;
    advance(Duration::from_secs(3)).await;
    t.o.play("A1").await;
    t.x.moved("A1").await;
    advance(Duration::from_secs(4)).await;
    t.x.play("J9").await;
    t.o.moved("J9").await;
    // The live move list carries each mover's clock after the move (the clock log's).
    let moves = snapshot(&t.table).await["moves"].clone();
    assert_eq!(
        moves,
        json!([
            {"ply": 1, "seat": 0, "move": {"at": "H8"}, "text": "H8", "clock_ms": 57_000},
            {"ply": 2, "seat": 1, "move": {"at": "A1"}, "text": "A1", "clock_ms": 59_000},
            {"ply": 3, "seat": 0, "move": {"at": "J9"}, "text": "J9", "clock_ms": 55_000}
        ])
    );
    // X takes J9 back (O agrees): the clocks are as they were after A1, X's running.
    t.x.send(json!({"type": "offer_undo"})).await;
    t.o.until("undo_offered").await;
    advance(Duration::from_secs(1)).await;
    t.o.send(json!({"type": "accept_undo"})).await;
    let undone = t.x.until("undone").await;
    assert_eq!(undone["plies"], 2);
    assert_eq!(undone["clocks"]["remaining_ms"], json!([57_000, 59_000]));
    assert_eq!(undone["clocks"]["running"], json!([0]));
    let after = snapshot(&t.table).await;
    assert_eq!(after["moves"], json!([moves[0].clone(), moves[1].clone()]));
}
