//! Presence at a real table actor with a real database, under tokio's paused time: the
//! reconnect grace, the absence rule when it runs out, and resuming with missed events.
//! (The players talk to the table through its handle: see `common::actor` for why.)

mod common;

use std::time::Duration;

use common::actor::{Seat, paused_store, snapshot, tables, two_players};
use serde_json::{Value, json};
use spelbord::table::TableHandle;
use spelbord::table::queue::outbox;
use tokio::time::advance;

const SECOND: Duration = Duration::from_secs(1);

/// A started Gomoku game with `settings` (free opening), time paused from the start.
async fn game(settings: Value) -> (common::TestDb, sqlx::PgPool, TableHandle, Seat, Seat) {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    let pool = store.pool().clone();
    tokio::time::pause();
    let tables = tables(store).await;
    let mut settings = settings;
    settings["opening"] = json!("free");
    let (table, first, second) = two_players(&tables, "gomoku", settings).await;
    (database, pool, table, first, second)
}

/// Both players move once (so an absence is a loss, not an abort).
async fn both_move(first: &mut Seat, second: &mut Seat) {
    first.play("H8").await;
    second.play("A1").await;
    first.moved("A1").await;
}

/// The player in seat 0 (whose token is `token`) comes back on a new connection.
async fn come_back(table: &TableHandle, conn: u64, token: &Option<String>) -> Seat {
    let mut back = Seat::join(table, conn).await;
    let welcome = back.hello(token.as_deref()).await;
    assert_eq!(welcome["seats"], json!([0]));
    assert_eq!(back.token, *token, "the same player");
    back
}

#[tokio::test]
async fn a_player_back_at_59_seconds_keeps_the_seat_and_plays_on() {
    let (_db, _pool, table, mut first, mut second) = game(json!({})).await;
    let first_token = first.token.clone();
    both_move(&mut first, &mut second).await;
    first.leave().await;
    let away = second.until("presence").await;
    assert_eq!(away["connected"], false);
    assert_eq!(away["away_ms"], 60_000, "everyone sees the deadline");
    assert_eq!(snapshot(&table).await["seats"][0]["player"]["away_ms"], 60_000);

    advance(59 * SECOND).await;
    let mut back = come_back(&table, 3, &first_token).await;
    let present = second.until("presence").await;
    assert_eq!(
        (present["connected"].clone(), present["away_ms"].clone()),
        (json!(true), Value::Null)
    );
    // Long after the grace would have ended, the game goes on.
    advance(120 * SECOND).await;
    assert_eq!(snapshot(&table).await["status"], "playing");
    back.play("H9").await;
}

#[tokio::test]
async fn at_61_seconds_the_absent_player_loses() {
    let (_db, pool, table, mut first, mut second) = game(json!({})).await;
    let first_token = first.token.clone();
    both_move(&mut first, &mut second).await;
    first.leave().await;
    advance(60 * SECOND - Duration::from_millis(1)).await;
    assert_eq!(snapshot(&table).await["status"], "playing");
    advance(SECOND).await;
    let over = second.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "win");
    assert_eq!(over["result"]["winners"], json!([1]));
    assert_eq!(over["result"]["reason"], "abandoned");
    assert_eq!(
        over["result"]["detail"],
        json!({"seat": 0, "role": "X", "rule": "loss_by_absence"})
    );
    let (outcome, reason, detail): (String, String, Value) =
        sqlx::query_as("SELECT outcome, reason, detail FROM results")
            .fetch_one(&pool)
            .await
            .expect("stored");
    assert_eq!((outcome.as_str(), reason.as_str()), ("win", "abandoned"));
    assert_eq!(detail["rule"], "loss_by_absence");
    // Coming back too late finds the game over.
    let mut late = come_back(&table, 3, &first_token).await;
    late.send(json!({"type": "move", "move": {"at": "B2"}})).await;
    assert_eq!(late.until("error").await["code"], "game_over");
}

#[tokio::test]
async fn when_both_players_are_away_the_first_grace_to_run_out_aborts_the_game() {
    let (_db, pool, table, mut first, mut second) = game(json!({})).await;
    both_move(&mut first, &mut second).await;
    let watcher_conn = 7;
    let mut watcher = Seat::join(&table, watcher_conn).await;
    first.leave().await;
    advance(10 * SECOND).await;
    second.leave().await;
    // X's grace runs out first, while O is away too: nobody wins by being away less long.
    advance(50 * SECOND).await;
    let over = watcher.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "aborted");
    assert_eq!(over["result"]["reason"], "abandoned");
    assert_eq!(
        over["result"]["detail"],
        json!({"seat": 0, "role": "X", "rule": "everyone_away"})
    );
    let outcome: String = sqlx::query_scalar("SELECT outcome FROM results")
        .fetch_one(&pool)
        .await
        .expect("stored");
    assert_eq!(outcome, "aborted");
}

#[tokio::test]
async fn a_game_whose_player_vanishes_before_both_moved_is_aborted() {
    let (_db, pool, _table, mut first, second) = game(json!({"grace_seconds": 30})).await;
    first.play("H8").await;
    second.leave().await;
    advance(30 * SECOND).await;
    let over = first.until("game_over").await;
    assert_eq!(over["result"]["outcome"], "aborted");
    assert_eq!(over["result"]["winners"], json!([]));
    assert_eq!(
        over["result"]["detail"],
        json!({"seat": 1, "role": "O", "rule": "aborted_before_everyone_moved"})
    );
    let outcome: String = sqlx::query_scalar("SELECT outcome FROM results")
        .fetch_one(&pool)
        .await
        .expect("stored");
    assert_eq!(outcome, "aborted");
}

#[tokio::test]
async fn a_correspondence_table_waits_for_an_absent_player() {
    let (_db, _pool, table, mut first, mut second) =
        game(json!({"time_control": {"kind": "correspondence", "days": 3}})).await;
    both_move(&mut first, &mut second).await;
    first.leave().await;
    let away = second.until("presence").await;
    assert_eq!(
        (away["connected"].clone(), away["away_ms"].clone()),
        (json!(false), Value::Null)
    );
    advance(Duration::from_secs(24 * 3_600)).await;
    assert_eq!(snapshot(&table).await["status"], "playing");
}

#[tokio::test]
async fn a_resuming_client_gets_exactly_the_missed_events_in_order() {
    let (_db, _pool, table, mut first, mut second) = game(json!({})).await;
    let before = snapshot(&table).await;
    let seen = before["version"].as_u64().expect("version");
    let epoch = u32::try_from(before["epoch"].as_u64().expect("epoch")).expect("u32");
    first.play("H8").await;
    second.send(json!({"type": "chat", "text": "nice"})).await;
    second.play("A1").await;
    first.moved("A1").await;
    let now = snapshot(&table).await["version"].as_u64().expect("version");

    let (sender, mut frames) = outbox(64);
    table.join(9, sender, Some((seen, epoch))).await.expect("join");
    let mut versions = Vec::new();
    let mut kinds = Vec::new();
    loop {
        let message: Value = serde_json::from_str(frames.recv().await.expect("frame").as_str()).expect("JSON");
        if message["type"] == "resumed" {
            assert_eq!(message["version"].as_u64(), Some(now));
            assert_eq!(message["epoch"].as_u64(), Some(u64::from(epoch)));
            break;
        }
        versions.push(message["version"].as_u64().expect("version"));
        kinds.push(message["type"].as_str().expect("type").to_owned());
    }
    assert_eq!(
        versions,
        ((seen + 1)..=now).collect::<Vec<_>>(),
        "every missed event, once, in order"
    );
    assert_eq!(kinds.iter().filter(|k| *k == "moved").count(), 2);
    assert!(kinds.contains(&"chat".to_owned()));
}

#[tokio::test]
async fn a_resume_from_too_long_ago_gets_a_snapshot() {
    let (_db, _pool, table, _first, second) = game(json!({})).await;
    // More events than the history keeps.
    for n in 0..300 {
        second.send(json!({"type": "chat", "text": format!("line {n}")})).await;
    }
    let epoch = u32::try_from(snapshot(&table).await["epoch"].as_u64().expect("epoch")).expect("u32");
    let (sender, mut frames) = outbox(64);
    table.join(9, sender, Some((1, epoch))).await.expect("join");
    let first: Value = serde_json::from_str(frames.recv().await.expect("frame").as_str()).expect("JSON");
    assert_eq!(first["type"], "snapshot");
    // A version the table never had also gets a snapshot, and so does any version of
    // another epoch (from before a restart), however plausible.
    let (sender, mut frames) = outbox(64);
    table.join(10, sender, Some((1_000_000, epoch))).await.expect("join");
    let first: Value = serde_json::from_str(frames.recv().await.expect("frame").as_str()).expect("JSON");
    assert_eq!(first["type"], "snapshot");
    let (sender, mut frames) = outbox(64);
    table
        .join(11, sender, Some((300, epoch.wrapping_add(1))))
        .await
        .expect("join");
    let first: Value = serde_json::from_str(frames.recv().await.expect("frame").as_str()).expect("JSON");
    assert_eq!(first["type"], "snapshot");
}

#[tokio::test]
async fn several_tabs_of_one_player_share_the_seat_and_leaving_one_is_not_absence() {
    let (_db, _pool, table, first, mut second) = game(json!({})).await;
    let first_token = first.token.clone();
    let mut tab = come_back(&table, 3, &first_token).await;
    first.leave().await;
    // The other tab still holds the seat: no presence change, no grace.
    second.sync().await;
    advance(120 * SECOND).await;
    let state = snapshot(&table).await;
    assert_eq!(state["status"], "playing");
    assert_eq!(state["seats"][0]["player"]["connected"], true);
    tab.play("H8").await;
    second.moved("H8").await;
}

#[tokio::test]
async fn an_idle_table_leaves_memory_and_comes_back_from_the_database() {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store).await;
    let settings = spelbord::table::TableSettings::read("gomoku", None).expect("valid");
    let table = tables.create(settings).await.expect("created");
    let id = table.id().to_owned();
    let anna = Seat::join(&table, 1).await;
    anna.send(json!({"type": "sit", "seat": 1, "name": "Anna"})).await;
    anna.leave().await;
    // A command the table answers: from now on it is idle.
    snapshot(&table).await;
    advance(Duration::from_secs(599)).await;
    assert!(!table.is_closed(), "not idle long enough yet");
    advance(SECOND).await;
    // Let the runtime run its timers and the actor finish (a millisecond at a time).
    for _ in 0..10 {
        if table.is_closed() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert!(table.is_closed(), "an idle table stops its actor");
    let back = tables.get(&id).await.expect("rebuilt on demand");
    assert!(!back.is_closed());
    assert_eq!(snapshot(&back).await["seats"][1]["player"]["name"], "Anna");
}

/// A new Gomoku table (seats chosen) waiting for players, time paused from the start; with
/// its database, which must live as long as the test.
async fn waiting_gomoku() -> (common::TestDb, TableHandle) {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store).await;
    let settings = spelbord::table::TableSettings::read("gomoku", Some(json!({"seating": "chosen"}))).expect("valid");
    (database, tables.create(settings).await.expect("created"))
}

/// Anna, on connection 1, seated in seat 0.
async fn anna_seated(table: &TableHandle) -> Seat {
    let mut anna = Seat::join(table, 1).await;
    anna.hello(None).await;
    anna.send(json!({"type": "sit", "seat": 0, "name": "Anna"})).await;
    anna.until("seated").await;
    anna
}

/// The spectator count a page ends with: its snapshot's, then each `spectators` event's.
fn last_count(snapshot_count: u64, messages: &[Value]) -> u64 {
    messages
        .iter()
        .rev()
        .filter(|m| m["type"] == "spectators")
        .find_map(|m| m["count"].as_u64())
        .unwrap_or(snapshot_count)
}

#[tokio::test(flavor = "current_thread")]
async fn someone_who_opens_the_link_and_sits_within_a_second_ends_with_the_true_count() {
    let (_database, table) = waiting_gomoku().await;
    let mut anna = anna_seated(&table).await;
    advance(2 * SECOND).await;
    anna.sync().await;
    // A spectator arrives (announced: 1), and within the next second Bo opens the link (his
    // snapshot counts himself: 2) and sits down (the count is back to the announced 1).
    let mut watcher = Seat::join(&table, 3).await;
    advance(SECOND + SECOND / 2).await;
    assert_eq!(watcher.until("spectators").await["count"], 1);
    let (sender, mut frames) = outbox(1024);
    table.join(2, sender, None).await.expect("table runs");
    let first: Value = serde_json::from_str(frames.recv().await.expect("a frame").as_str()).expect("JSON");
    assert_eq!(first["type"], "snapshot");
    let told = first["table"]["spectators"].as_u64().expect("a count");
    assert_eq!(told, 2, "{first}");
    let mut bo = Seat::attached(&table, 2, frames);
    bo.send(json!({"type": "hello"})).await;
    bo.send(json!({"type": "sit", "seat": 1, "name": "Bo"})).await;
    advance(2 * SECOND).await;
    // Everything Bo's page received after its snapshot.
    let after = bo.sync().await;
    assert!(after.iter().any(|m| m["type"] == "game_started"), "{after:?}");
    let truth = snapshot(&table).await["spectators"].as_u64().expect("a count");
    assert_eq!(truth, 1);
    assert_eq!(
        last_count(told, &after),
        truth,
        "Bo's page ends with the true count: {after:?}"
    );
    drop(watcher);
}

#[tokio::test(flavor = "current_thread")]
async fn a_player_away_when_the_game_starts_is_shown_with_the_grace_running() {
    let (_database, table) = waiting_gomoku().await;
    // Anna sits down and closes her tab before anyone else comes.
    let anna = anna_seated(&table).await;
    anna.leave().await;
    let mut bo = Seat::join(&table, 2).await;
    bo.hello(None).await;
    bo.send(json!({"type": "sit", "seat": 1, "name": "Bo"})).await;
    let started = bo.until("game_started").await;
    let anna_seat = &started["seats"][0]["player"];
    assert_eq!(anna_seat["connected"], false, "{started}");
    assert_eq!(
        anna_seat["away_ms"], 60_000,
        "her grace runs from the start and is said: {started}"
    );
    assert_eq!(snapshot(&table).await["seats"][0]["player"]["away_ms"], 60_000);
}

/// A best-of-three whose first game Bo won (Anna resigned) and whose players then both
/// left during the pause: the table, Anna's token, the tables and their store.
struct LeftSeries {
    _database: common::TestDb,
    store: spelbord::store::Store,
    tables: spelbord::table::registry::Tables,
    table: TableHandle,
    token: Option<String>,
}

async fn series_left_after_game_one() -> LeftSeries {
    let database = common::TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store.clone()).await;
    let settings = json!({"series": "best_of_3", "series_pause_seconds": 10, "opening": "free"});
    let (table, first, mut second) = two_players(&tables, "gomoku", settings).await;
    first.send(json!({"type": "resign"})).await;
    assert_eq!(second.until("next_game_in").await["game_number"], 2);
    let token = first.token.clone();
    first.leave().await;
    second.leave().await;
    // (A command the table answers: both leavings are handled before time moves on.)
    let gone = snapshot(&table).await;
    assert!(
        gone["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["player"]["connected"] == false),
        "{gone}"
    );
    LeftSeries {
        _database: database,
        store,
        tables,
        table,
        token,
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_series_whose_players_are_gone_starts_no_game_until_one_comes_back() {
    // (Every part is kept: the tables and their database live as long as the test.)
    let LeftSeries {
        _database,
        store: _store,
        tables: _tables,
        table,
        token,
    } = series_left_after_game_one().await;
    // The pause runs out with nobody here: no game starts (it could only be aborted), and
    // no next game is announced while the series waits a grace for its players.
    advance(11 * SECOND).await;
    let after = snapshot(&table).await;
    assert_eq!(
        (
            after["game_number"].clone(),
            after["status"].clone(),
            after["next_game_in_ms"].clone()
        ),
        (json!(1), json!("finished"), Value::Null),
        "{after}"
    );
    advance(50 * SECOND).await;
    assert_eq!(snapshot(&table).await["game_number"], 1, "still no game");
    // A player comes back within the grace: the pause starts again, and then the game.
    let mut back = Seat::join(&table, 3).await;
    back.hello(token.as_deref()).await;
    let pause = back.until("next_game_in").await;
    assert_eq!(
        (pause["game_number"].clone(), pause["ms"].clone()),
        (json!(2), json!(10_000)),
        "{pause}"
    );
    advance(11 * SECOND).await;
    assert_eq!(back.until("game_started").await["game_number"], 2);
}

#[tokio::test(flavor = "current_thread")]
async fn a_series_nobody_comes_back_to_ends_as_it_stands_and_leaves_memory() {
    let LeftSeries {
        _database,
        store,
        tables,
        table,
        token,
    } = series_left_after_game_one().await;
    // The pause (10 s), then a reconnect grace (60 s) with nobody back.
    advance(11 * SECOND).await;
    snapshot(&table).await;
    advance(61 * SECOND).await;
    let ended = snapshot(&table).await;
    let series = &ended["series"];
    assert_eq!(
        (
            series["decided"].clone(),
            series["result"].clone(),
            series["winner"].clone()
        ),
        (json!(true), json!("win"), json!(1)),
        "Bo's side led 1-0: {ended}"
    );
    assert_eq!(ended["game_number"], 1, "no game was started: {ended}");
    // Stored as decided: a rebuilt table knows it too.
    let stored: (String, Option<String>, Option<i16>) = sqlx::query_as("SELECT status, result, winner FROM series")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(stored, ("decided".into(), Some("win".into()), Some(1)));
    // With no timer left the table leaves memory when idle (600 s here), and a player
    // who comes back later finds the series over, with no game started.
    let id = table.id().to_owned();
    drop(table);
    advance(601 * SECOND).await;
    tokio::task::yield_now().await;
    assert_eq!(tables.count(), 0, "the table left memory");
    let table = tables.get(&id).await.unwrap();
    let mut back = Seat::join(&table, 3).await;
    back.hello(token.as_deref()).await;
    let later = snapshot(&table).await;
    assert_eq!(
        (
            later["series"]["decided"].clone(),
            later["series"]["winner"].clone(),
            later["next_game_in_ms"].clone()
        ),
        (json!(true), json!(1), Value::Null),
        "{later}"
    );
}
