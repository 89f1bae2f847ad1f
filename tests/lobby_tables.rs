//! A table made by the lobby's pairing, under tokio's paused time: its first game starts
//! when every seated person has arrived, with full clocks, and the seats of those who do
//! not come within the wait are freed (docs/protocol.md, 7.4).

mod common;

use std::time::Duration;

use common::TestDb;
use common::actor::{Seat, paused_store, snapshot, tables};
use serde_json::json;
use spelbord::identity::{PlayerToken, TokenIssuer};
use spelbord::lobby::pools::Pool;
use spelbord::store::Store;
use spelbord::store::lobby::{SeekOutcome, SeekRequest};
use spelbord::table::actor::ARRIVAL_WAIT;

/// Pairs two new people in `pool` straight through the store, as the lobby does; the
/// table's id and the two tokens (in seat order).
async fn paired(store: &Store, pool: &str) -> (String, [PlayerToken; 2]) {
    let pool = Pool::find(pool).expect("a pool");
    let settings = pool
        .table_settings(false, &Default::default())
        .expect("settings")
        .to_json();
    let issuer = TokenIssuer::random();
    let tokens = [issuer.issue(), issuer.issue()];
    let mut table = None;
    for (index, token) in tokens.iter().enumerate() {
        let table_id = format!("lobby00{index}");
        let key = token.key();
        let request = SeekRequest {
            id: uuid::Uuid::new_v4(),
            pool: pool.id,
            game: pool.game.id(),
            rated: false,
            key: key.as_bytes(),
            name: if index == 0 { "Anna" } else { "Bo" },
            range: None,
            bots_ok: false,
            address: "127.0.0.1",
            node: 1,
            players: 2,
            target: None,
            table_id: &table_id,
            settings: &settings,
            refuse_same_address: false,
        };
        match store.seek(&request).await.expect("the seek is stored") {
            SeekOutcome::Seeking(_) => {}
            SeekOutcome::Paired { table: id, seat } => {
                assert_eq!(seat, 1, "the seeker sits after the one who waited");
                table = Some(id);
            }
            other => panic!("unexpected: {other:?}"),
        }
    }
    (table.expect("the second seek pairs"), tokens)
}

#[tokio::test]
async fn the_game_starts_when_both_have_arrived_with_full_clocks() {
    let database = TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store.clone()).await;
    let (id, tokens) = paired(&store, "gomoku/5+3").await;
    let table = tables.get(&id).await.expect("the paired table loads");
    let mut anna = Seat::join(&table, 1).await;
    anna.hello(Some(tokens[0].expose())).await;
    // Long after: still no game, and no clock has run while Bo was on his way.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let waiting = snapshot(&table).await;
    assert_eq!(waiting["status"], "waiting", "{waiting}");
    let mut bo = Seat::join(&table, 2).await;
    bo.hello(Some(tokens[1].expose())).await;
    let started = anna.until("game_started").await;
    for seat in started["clocks"]["remaining_ms"].as_array().expect("clocks") {
        assert_eq!(seat, 300_000, "{started}");
    }
    bo.until("game_started").await;
    // The wait is over: nobody loses a seat at its end.
    tokio::time::sleep(ARRIVAL_WAIT).await;
    let playing = snapshot(&table).await;
    assert_eq!(playing["status"], "playing", "{playing}");
    drop(tables);
}

#[tokio::test]
async fn someone_who_does_not_come_loses_the_seat_and_no_game_starts() {
    let database = TestDb::create().await;
    let store = paused_store(&database).await;
    tokio::time::pause();
    let tables = tables(store.clone()).await;
    let (id, tokens) = paired(&store, "krux/10+0").await;
    let table = tables.get(&id).await.expect("the paired table loads");
    let mut bo = Seat::join(&table, 1).await;
    let welcome = bo.hello(Some(tokens[1].expose())).await;
    assert_eq!(welcome["seats"], json!([1]), "{welcome}");
    // (No timeout around this wait: with time paused, one would fire while the table waits
    // for the database.)
    let stood = bo.until("stood").await;
    assert_eq!(stood["seat"], 0, "Anna never came: {stood}");
    let after = snapshot(&table).await;
    assert_eq!(after["status"], "waiting");
    assert!(after["seats"][0]["player"].is_null(), "{after}");
    assert_eq!(after["seats"][1]["player"]["name"], "Bo");
    let held: i64 =
        sqlx::query_scalar("SELECT count(*) FROM seats WHERE table_id = $1 AND seat = 0 AND player_key IS NOT NULL")
            .bind(&id)
            .fetch_one(store.pool())
            .await
            .expect("read the seat");
    assert_eq!(held, 0, "the freed seat is stored free");
    // Someone else may sit down and play Bo.
    let mut cia = Seat::join(&table, 2).await;
    cia.hello(None).await;
    cia.send(json!({"type": "sit", "seat": 0, "name": "Cia"})).await;
    cia.until("game_started").await;
    drop(tables);
}
