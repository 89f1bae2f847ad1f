//! Group commit (`store::writer`) against a real PostgreSQL: the moves of many games
//! written at once are all stored, each answered only when committed, with their clocks and
//! deadlines; one game's bad move (a ply stored twice) is refused alone, and the other games'
//! moves of the same batch are stored all the same.

mod common;

use common::{TestApp, spawn_app};
use serde_json::json;
use spelbord::store::Store;
use spelbord::store::games::{MoveRecord, PlayerRecord};
use sqlx::Row;
use time::OffsetDateTime;
use uuid::Uuid;

/// Starts a game at a new Gomoku table; its id.
async fn started_game(app: &TestApp, store: &Store) -> Uuid {
    let created = app.create_table(json!({"game": "gomoku"})).await;
    let table = created["id"].as_str().unwrap().to_owned();
    let players: Vec<PlayerRecord> = ["X", "O"]
        .iter()
        .enumerate()
        .map(|(seat, role)| PlayerRecord {
            seat: seat as u8,
            role: (*role).to_owned(),
            player_key: Some(vec![seat as u8; 32]),
            name: format!("P{seat}"),
            bot: None,
            side: seat as u8,
        })
        .collect();
    let id = Uuid::new_v4();
    store
        .start_game(id, &table, 1, &players, None, &common::single_game_series(1))
        .await
        .unwrap();
    id
}

async fn write(
    store: &Store,
    game: Uuid,
    ply: u32,
    clocks: Option<Vec<u64>>,
    deadline: Option<OffsetDateTime>,
) -> bool {
    let payload = spelbord::games::json_text(&json!({"at": format!("A{ply}")}));
    let record = MoveRecord {
        ply,
        seat: u8::from(ply.is_multiple_of(2)),
        payload: &payload,
        clocks_ms: clocks.as_deref(),
        deadline,
    };
    store.append_move(game, record, None).await.is_ok()
}

#[tokio::test]
async fn the_moves_of_many_games_written_at_once_are_all_stored() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let mut games = Vec::new();
    for _ in 0..40 {
        games.push(started_game(&app, &store).await);
    }
    let deadline = OffsetDateTime::now_utc() + time::Duration::minutes(5);
    // Ten rounds; in each every game writes its next move at the same time, so the writer
    // finds many waiting and stores them together.
    for ply in 1..=10u32 {
        let writes = games.iter().enumerate().map(|(i, game)| {
            let store = store.clone();
            let game = *game;
            // Half the games are timed: their clocks and deadline are stored too.
            let (clocks, deadline) = if i % 2 == 0 {
                (Some(vec![60_000 - u64::from(ply), 59_000]), Some(deadline))
            } else {
                (None, None)
            };
            tokio::spawn(async move { write(&store, game, ply, clocks, deadline).await })
        });
        for written in futures_util::future::join_all(writes).await {
            assert!(written.unwrap(), "every move of round {ply} is stored");
        }
    }
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM moves")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, 400);
    let row = sqlx::query("SELECT payload, clocks_ms FROM moves WHERE game_id = $1 AND ply = 10")
        .bind(games[0])
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(row.get::<serde_json::Value, _>("payload"), json!({"at": "A10"}));
    assert_eq!(row.get::<Option<Vec<i64>>, _>("clocks_ms"), Some(vec![59_990, 59_000]));
    let untimed: Option<Vec<i64>> = sqlx::query_scalar("SELECT clocks_ms FROM moves WHERE game_id = $1 AND ply = 10")
        .bind(games[1])
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(untimed, None);
    let deadlines: Vec<Option<OffsetDateTime>> =
        sqlx::query_scalar("SELECT deadline FROM games WHERE id = ANY($1) ORDER BY id = $2 DESC")
            .bind(&games[..2])
            .bind(games[0])
            .fetch_all(&app.pool)
            .await
            .unwrap();
    let timed = deadlines[0].expect("the timed game's deadline is stored");
    assert!((timed - deadline).abs() < time::Duration::milliseconds(1));
    assert_eq!(deadlines[1], None, "the untimed game keeps no deadline");
}

#[tokio::test]
async fn a_bad_move_is_refused_alone_and_the_rest_of_its_batch_is_stored() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let mut games = Vec::new();
    for _ in 0..20 {
        games.push(started_game(&app, &store).await);
    }
    for game in &games {
        assert!(write(&store, *game, 1, None, None).await);
    }
    // Every game writes ply 2 at once, except that game 7 writes ply 1 again: its row
    // breaks the primary key and takes the whole first attempt down with it.
    let writes = games.iter().enumerate().map(|(i, game)| {
        let store = store.clone();
        let game = *game;
        let ply = if i == 7 { 1 } else { 2 };
        tokio::spawn(async move { write(&store, game, ply, None, None).await })
    });
    let written: Vec<bool> = futures_util::future::join_all(writes)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    for (i, ok) in written.iter().enumerate() {
        assert_eq!(*ok, i != 7, "game {i}: only the repeated ply is refused");
    }
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM moves WHERE ply = 2")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, 19);
}
