//! Group commit (`store::writer`) against a real PostgreSQL: the moves of many games
//! written at once are all stored, each answered only when committed, with their clocks and
//! deadlines; one game's bad move (a ply stored twice) is refused alone, and the other games'
//! moves of the same batch are stored all the same. Seats taken and games' starts and
//! ends go through the same batches: many at once, mixed with moves, are all stored as their
//! own statements stored them, and a bad one is refused alone. A move or an end of a game
//! that is not stored is refused alone, and with a linger a small batch waits for more
//! writes after a busy batch, never on a quiet writer. A batch whose connection dies under it
//! is stored again, write by write, on a connection that works.

mod common;

use common::{TestApp, spawn_app};
use serde_json::json;
use spelbord::games::Outcome;
use spelbord::series::{SeriesFormat, SeriesResult, Standing};
use spelbord::store::Store;
use spelbord::store::games::{MoveRecord, NewSeries, PlayerRecord, ResultRecord, SeriesLink, SeriesRecord};
use spelbord::store::tables::NewBotSeat;
use sqlx::Row;
use std::time::Duration;
use time::OffsetDateTime;
use uuid::Uuid;

/// A seat's row: seat, player key, name, bot.
type StoredSeat = (i16, Option<Vec<u8>>, String, Option<String>);

/// What every task answered, in order (a task that panicked fails the test).
async fn all_of<T>(tasks: impl IntoIterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    futures_util::future::join_all(tasks)
        .await
        .into_iter()
        .map(|answer| answer.expect("the task finished"))
        .collect()
}

/// A count from the test's database.
async fn count(app: &TestApp, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.unwrap()
}

/// A count from the test's database; `sql` binds `bind` as `$1`.
async fn count_of<'a, T>(app: &TestApp, sql: &'static str, bind: T) -> i64
where
    T: 'a + sqlx::Encode<'a, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send,
{
    sqlx::query_scalar(sql).bind(bind).fetch_one(&app.pool).await.unwrap()
}

/// A new Gomoku table's id.
async fn new_table(app: &TestApp) -> String {
    let created = app.create_table(json!({"game": "gomoku"})).await;
    created["id"].as_str().unwrap().to_owned()
}

/// `n` new Gomoku tables' ids.
async fn new_tables(app: &TestApp, n: usize) -> Vec<String> {
    let mut tables = Vec::with_capacity(n);
    for _ in 0..n {
        tables.push(new_table(app).await);
    }
    tables
}

/// Two people, seats 0 and 1 (X and O), on sides 0 and 1.
fn two_players() -> Vec<PlayerRecord> {
    ["X", "O"]
        .iter()
        .enumerate()
        .map(|(seat, role)| PlayerRecord {
            seat: seat as u8,
            role: (*role).to_owned(),
            player_key: Some(vec![seat as u8 + 0xa0; 32]),
            name: format!("P{seat}"),
            bot: None,
            side: seat as u8,
        })
        .collect()
}

/// Starts a game at a new Gomoku table; its id.
async fn started_game(app: &TestApp, store: &Store) -> Uuid {
    let table = new_table(app).await;
    let players = two_players();
    let id = Uuid::new_v4();
    store
        .start_game(id, &table, 1, &players, None, &common::single_game_series(1))
        .await
        .unwrap();
    id
}

/// `n` games started, each at a new Gomoku table; their ids.
async fn started_games(app: &TestApp, store: &Store, n: usize) -> Vec<Uuid> {
    let mut games = Vec::with_capacity(n);
    for _ in 0..n {
        games.push(started_game(app, store).await);
    }
    games
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
    let games = started_games(&app, &store, 40).await;
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
        for written in all_of(writes).await {
            assert!(written, "every move of round {ply} is stored");
        }
    }
    let stored = count(&app, "SELECT count(*) FROM moves").await;
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
    let games = started_games(&app, &store, 20).await;
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
    let written = all_of(writes).await;
    for (i, ok) in written.iter().enumerate() {
        assert_eq!(*ok, i != 7, "game {i}: only the repeated ply is refused");
    }
    let stored = count(&app, "SELECT count(*) FROM moves WHERE ply = 2").await;
    assert_eq!(stored, 19);
}

#[tokio::test]
async fn starts_moves_and_ends_of_many_games_written_at_once_are_all_stored() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    // Ten games in play (each with a move), ten to end, and ten tables to start a game at.
    let mut playing = Vec::new();
    let mut ending = Vec::new();
    for i in 0..20 {
        let game = started_game(&app, &store).await;
        assert!(write(&store, game, 1, None, None).await);
        if i % 2 == 0 {
            playing.push(game)
        } else {
            ending.push(game)
        }
    }
    let tables = new_tables(&app, 10).await;
    let outcome = Outcome::from_stored("win", &[1], "five_in_a_row", json!({"lines": [["A1", "A5"]]}));
    let series_of_ending: Vec<Uuid> = {
        let mut ids = Vec::new();
        for game in &ending {
            ids.push(
                sqlx::query_scalar("SELECT series_id FROM games WHERE id = $1")
                    .bind(game)
                    .fetch_one(&app.pool)
                    .await
                    .unwrap(),
            );
        }
        ids
    };
    let started: Vec<Uuid> = (0..10).map(|_| Uuid::new_v4()).collect();
    let mut tasks = Vec::new();
    for (table, game) in tables.iter().zip(&started) {
        let (store, table, game) = (store.clone(), table.clone(), *game);
        tasks.push(tokio::spawn(async move {
            let link = SeriesLink {
                id: Uuid::new_v4(),
                game: 1,
                rated: false,
                new: Some(NewSeries {
                    number: 1,
                    format: SeriesFormat::BestOf3,
                    sides: ["Ann", "Bo"],
                }),
            };
            store
                .start_game(game, &table, 1, &two_players(), None, &link)
                .await
                .is_ok()
        }));
    }
    for game in &playing {
        let (store, game) = (store.clone(), *game);
        tasks.push(tokio::spawn(async move { write(&store, game, 2, None, None).await }));
    }
    for (game, series) in ending.iter().zip(&series_of_ending) {
        let (store, game, series, outcome) = (store.clone(), *game, *series, outcome.clone());
        tasks.push(tokio::spawn(async move {
            let payload = spelbord::games::json_text(&json!({"at": "A5"}));
            let last = MoveRecord {
                ply: 2,
                seat: 1,
                payload: &payload,
                clocks_ms: Some(&[1_000, 2_000]),
                deadline: None,
            };
            let result = ResultRecord {
                outcome: &outcome,
                move_count: 2,
                series: Some(SeriesRecord {
                    id: series,
                    standings: [
                        Standing {
                            wins: 0,
                            draws: 0,
                            losses: 1,
                        },
                        Standing {
                            wins: 1,
                            draws: 0,
                            losses: 0,
                        },
                    ],
                    result: Some(SeriesResult::Won { side: 1 }),
                }),
                rating: None,
                rotation: None,
            };
            store.append_move(game, last, Some(result)).await.is_ok()
        }));
    }
    for task in all_of(tasks).await {
        assert!(task, "every start, move and end is stored");
    }

    // The starts: each game, its players, the table's seats and its new series with sides.
    let players: Vec<(String, Vec<u8>, i16)> =
        sqlx::query_as("SELECT p.role, p.player_key, p.side FROM game_players p WHERE p.game_id = $1 ORDER BY p.seat")
            .bind(started[3])
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        players,
        vec![("X".to_owned(), vec![0xa0; 32], 0), ("O".to_owned(), vec![0xa1; 32], 1)]
    );
    let seats: Vec<(i16, Vec<u8>, String)> =
        sqlx::query_as("SELECT seat, player_key, name FROM seats WHERE table_id = $1 ORDER BY seat")
            .bind(&tables[3])
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        seats,
        vec![
            (0, vec![0xa0; 32], "P0".to_owned()),
            (1, vec![0xa1; 32], "P1".to_owned())
        ]
    );
    let series: (String, i32, String, i64) = sqlx::query_as(
        "SELECT s.format, g.number, string_agg(ss.players, ',' ORDER BY ss.side), count(ss.side)
           FROM games g JOIN series s ON s.id = g.series_id JOIN series_sides ss ON ss.series_id = s.id
          WHERE g.id = $1 GROUP BY s.format, g.number",
    )
    .bind(started[3])
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(series, ("best_of_3".to_owned(), 1, "Ann,Bo".to_owned(), 2));

    // The moves.
    let second_moves = count_of(
        &app,
        "SELECT count(*) FROM moves WHERE game_id = ANY($1) AND ply = 2",
        &playing,
    )
    .await;
    assert_eq!(second_moves, 10);

    // The ends: the last move with its clocks, the game finished, its result with the
    // players, the series' standings and result.
    let end = sqlx::query(
        "SELECT m.payload, m.clocks_ms, g.status, g.ended_at IS NOT NULL AS ended, r.outcome, r.winners,
                r.reason, r.detail, r.move_count, r.players
           FROM games g JOIN results r ON r.game_id = g.id JOIN moves m ON m.game_id = g.id AND m.ply = 2
          WHERE g.id = $1",
    )
    .bind(ending[4])
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(end.get::<serde_json::Value, _>("payload"), json!({"at": "A5"}));
    assert_eq!(end.get::<Option<Vec<i64>>, _>("clocks_ms"), Some(vec![1_000, 2_000]));
    assert_eq!(end.get::<String, _>("status"), "finished");
    assert!(end.get::<bool, _>("ended"));
    assert_eq!(end.get::<String, _>("outcome"), "win");
    assert_eq!(end.get::<Vec<i16>, _>("winners"), vec![1]);
    assert_eq!(end.get::<String, _>("reason"), "five_in_a_row");
    assert_eq!(
        end.get::<serde_json::Value, _>("detail"),
        json!({"lines": [["A1", "A5"]]})
    );
    assert_eq!(end.get::<i32, _>("move_count"), 2);
    assert_eq!(
        end.get::<serde_json::Value, _>("players"),
        json!([{"seat": 0, "role": "X", "name": "P0"}, {"seat": 1, "role": "O", "name": "P1"}])
    );
    let decided: (String, Option<String>, Option<i16>, Vec<i32>) = sqlx::query_as(
        "SELECT s.status, s.result, s.winner, array_agg(ss.points ORDER BY ss.side)
           FROM series s JOIN series_sides ss ON ss.series_id = s.id WHERE s.id = $1
          GROUP BY s.status, s.result, s.winner",
    )
    .bind(series_of_ending[4])
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        decided,
        ("decided".to_owned(), Some("win".to_owned()), Some(1), vec![0, 3])
    );
    let results = count(&app, "SELECT count(*) FROM results").await;
    assert_eq!(results, 10);
}

#[tokio::test]
async fn a_bad_start_is_refused_alone_and_the_rest_of_its_batch_is_stored() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let existing = started_game(&app, &store).await;
    let tables = new_tables(&app, 12).await;
    // Twelve starts at once; the sixth reuses a stored game's id, breaking its primary key.
    let starts = tables.iter().enumerate().map(|(i, table)| {
        let (store, table) = (store.clone(), table.clone());
        let game = if i == 5 { existing } else { Uuid::new_v4() };
        tokio::spawn(async move {
            store
                .start_game(game, &table, 1, &two_players(), None, &common::single_game_series(1))
                .await
                .is_ok()
        })
    });
    let started = all_of(starts).await;
    for (i, ok) in started.iter().enumerate() {
        assert_eq!(*ok, i != 5, "start {i}: only the repeated game id is refused");
    }
    let games = count_of(&app, "SELECT count(*) FROM games WHERE table_id = ANY($1)", &tables).await;
    assert_eq!(games, 11);
    let refused = count_of(&app, "SELECT count(*) FROM seats WHERE table_id = $1", &tables[5]).await;
    assert_eq!(refused, 0, "the refused start changed nothing at its table");
}

#[tokio::test]
async fn a_started_games_deadline_is_stored_to_the_microsecond() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let table = new_table(&app).await;
    let deadline = OffsetDateTime::now_utc().replace_nanosecond(123_456_789).unwrap() + time::Duration::minutes(3);
    let game = Uuid::new_v4();
    store
        .start_game(
            game,
            &table,
            1,
            &two_players(),
            Some(deadline),
            &common::single_game_series(1),
        )
        .await
        .unwrap();
    let stored: OffsetDateTime = sqlx::query_scalar("SELECT deadline FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, deadline.replace_nanosecond(123_456_000).unwrap());
}

#[tokio::test]
async fn seats_taken_at_many_tables_at_once_are_all_stored() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let tables = new_tables(&app, 12).await;
    // At each table a person takes seat 0 and, at every other table, a bot seat 1, all at
    // once; then the person at table 0 sits again under another name.
    let mut takes = Vec::new();
    for (i, table) in tables.iter().enumerate() {
        let (person, table) = (store.clone(), table.clone());
        takes.push(tokio::spawn(async move {
            person
                .take_seat(&table, 0, &[i as u8; 32], &format!("Ann{i}"))
                .await
                .is_ok()
        }));
        if i % 2 == 0 {
            let (bot, table) = (store.clone(), tables[i].clone());
            takes.push(tokio::spawn(async move {
                bot.seat_bot(&table, 1, "Bot", "hard").await.is_ok()
            }));
        }
    }
    for take in all_of(takes).await {
        assert!(take, "every seat is stored");
    }
    store.take_seat(&tables[0], 0, &[7; 32], "Anna").await.unwrap();
    let seats: Vec<StoredSeat> =
        sqlx::query_as("SELECT seat, player_key, name, bot FROM seats WHERE table_id = $1 ORDER BY seat")
            .bind(&tables[4])
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        seats,
        vec![
            (0, Some(vec![4; 32]), "Ann4".to_owned(), None),
            (1, None, "Bot".to_owned(), Some("hard".to_owned()))
        ]
    );
    let again: (Vec<u8>, String) =
        sqlx::query_as("SELECT player_key, name FROM seats WHERE table_id = $1 AND seat = 0")
            .bind(&tables[0])
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(again, (vec![7; 32], "Anna".to_owned()));
    let count = count_of(&app, "SELECT count(*) FROM seats WHERE table_id = ANY($1)", &tables).await;
    assert_eq!(count, 18);
}

/// Writes ply `ply` of each of `games` at once, each in a task of its own.
fn spawn_writes(store: &Store, games: &[Uuid], ply: u32) -> Vec<tokio::task::JoinHandle<bool>> {
    games
        .iter()
        .map(|&game| {
            let store = store.clone();
            tokio::spawn(async move { write(&store, game, ply, None, None).await })
        })
        .collect()
}

#[tokio::test]
async fn a_move_of_a_game_not_stored_is_refused_alone_and_changes_nothing() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let games = started_games(&app, &store, 10).await;
    // Every game's first move at once, and one move of a game that was never started.
    let unknown = Uuid::new_v4();
    let writes = spawn_writes(&store, &[games, vec![unknown]].concat(), 1);
    let written = all_of(writes).await;
    assert_eq!(written, [vec![true; 10], vec![false]].concat());
    // A take-back of an unknown game is refused too.
    assert!(store.append_takeback(unknown, 2, 0, 0, None).await.is_err());
    let orphans = count_of(&app, "SELECT count(*) FROM moves WHERE game_id = $1", unknown).await;
    assert_eq!(orphans, 0);
}

/// A game's end, its last move with it when `last_ply` is given (`append_move`), or alone
/// (`finish_game`, as after a resignation); whether it was stored.
async fn end(store: &Store, game: Uuid, last_ply: Option<u32>) -> bool {
    let outcome = Outcome::win(vec![0], spelbord::games::EndReason::FiveInARow);
    let result = ResultRecord {
        outcome: &outcome,
        move_count: last_ply.unwrap_or(1),
        series: None,
        rating: None,
        rotation: None,
    };
    let Some(ply) = last_ply else {
        return store.finish_game(game, result).await.is_ok();
    };
    let payload = spelbord::games::json_text(&json!({"at": format!("A{ply}")}));
    let last = MoveRecord {
        ply,
        seat: 0,
        payload: &payload,
        clocks_ms: None,
        deadline: None,
    };
    store.append_move(game, last, Some(result)).await.is_ok()
}

#[tokio::test]
async fn an_end_of_a_game_not_stored_is_refused_alone_and_changes_nothing() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let games = started_games(&app, &store, 8).await;
    let unknown = Uuid::new_v4();
    // Half the known games end with a move, half without; the unknown game both ways.
    let ends = games
        .iter()
        .copied()
        .zip([Some(1), None].into_iter().cycle())
        .chain([(unknown, Some(1)), (unknown, None)])
        .map(|(game, last_ply)| {
            let store = store.clone();
            tokio::spawn(async move { end(&store, game, last_ply).await })
        });
    let stored = all_of(ends).await;
    assert_eq!(stored, [vec![true; 8], vec![false; 2]].concat());
    let finished = count(&app, "SELECT count(*) FROM games WHERE status = 'finished'").await;
    let results = count(&app, "SELECT count(*) FROM results").await;
    let last_moves = count(&app, "SELECT count(*) FROM moves").await;
    assert_eq!((finished, results, last_moves), (8, 8, 4));
    let orphans = count_of(&app, "SELECT count(*) FROM moves WHERE game_id = $1", unknown).await;
    assert_eq!(orphans, 0);
}

/// A transaction holding `moves` in SHARE mode: every batch that stores a move or an end
/// waits for it (the batch function takes ROW EXCLUSIVE) until it commits.
async fn lock_moves(app: &TestApp) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut lock = app.pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE moves IN SHARE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    lock
}

#[tokio::test]
async fn after_a_busy_batch_a_small_one_waits_for_the_linger() {
    let app = spawn_app().await;
    let games = started_games(&app, &Store::new(app.pool.clone()), 7).await;
    let lingering = Store::new(app.pool.clone()).with_batch_linger(Duration::from_millis(300));
    // Traffic: a write held up by a lock on `moves` while five more queue behind it; they
    // are stored together as the lock goes.
    let lock = lock_moves(&app).await;
    let held = spawn_writes(&lingering, &games[..1], 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let queued = spawn_writes(&lingering, &games[1..6], 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    lock.commit().await.unwrap();
    assert_eq!(all_of(held.into_iter().chain(queued)).await, vec![true; 6]);
    // The batch before held five writes: a lone write now waits for more.
    let first = spawn_writes(&lingering, &games[..1], 2);
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert!(!first[0].is_finished(), "a lone write waits for the linger");
    let second = write(&lingering, games[6], 1, None, None).await;
    assert!(all_of(first).await[0] && second);
    // One batch: both rows were written by the same transaction.
    let sql = "SELECT count(DISTINCT xmin::text) FROM moves WHERE ply = 2 OR game_id = $1";
    assert_eq!(count_of(&app, sql, games[6]).await, 1);
}

#[tokio::test]
async fn a_quiet_writer_stores_a_lone_write_at_once_even_with_a_linger() {
    let app = spawn_app().await;
    let games = started_games(&app, &Store::new(app.pool.clone()), 2).await;
    let lingering = Store::new(app.pool.clone()).with_batch_linger(Duration::from_millis(300));
    let first = spawn_writes(&lingering, &games[..1], 1);
    tokio::time::sleep(Duration::from_millis(30)).await;
    let second = write(&lingering, games[1], 1, None, None).await;
    assert!(all_of(first).await[0] && second);
    // Had the first write lingered, the second (30 ms later) would have shared its
    // transaction.
    let transactions = count(&app, "SELECT count(DISTINCT xmin::text) FROM moves").await;
    assert_eq!(transactions, 2);
}

#[tokio::test]
async fn a_batch_whose_connection_is_killed_is_stored_again_on_a_new_one() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let games = started_games(&app, &store, 3).await;
    // Two writes in one batch, held up by a lock on `moves` (the test's runtime runs both
    // tasks before the writer takes its batch).
    let lock = lock_moves(&app).await;
    let held = spawn_writes(&store, &games[..2], 1);
    let waiting = "SELECT pid FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock'
                      AND query LIKE '%spelbord_store_batch%'";
    let mut writer = None;
    for _ in 0..100 {
        writer = sqlx::query_scalar::<_, i32>(waiting)
            .fetch_optional(&app.pool)
            .await
            .unwrap();
        if writer.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let writer = writer.expect("the batch waits for the lock");
    // The writer's connection ends under it (as in a failover or an administrator's
    // `pg_terminate_backend`): its batch fails, and each write is stored again on its own,
    // on a connection that works, not on the dead one the writer held.
    let killed: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(writer)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(killed);
    lock.commit().await.unwrap();
    assert_eq!(all_of(held).await, vec![true; 2]);
    // And the writer goes on: the next batch is stored too.
    assert!(write(&store, games[2], 1, None, None).await);
    assert_eq!(count(&app, "SELECT count(*) FROM moves").await, 3);
}

#[tokio::test]
async fn a_deleted_table_takes_its_games_moves_and_a_batch_waits_for_the_deletion() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let kept = started_game(&app, &store).await;
    let deleted = started_game(&app, &store).await;
    for game in [kept, deleted] {
        assert!(write(&store, game, 1, None, None).await);
    }
    let table: String = sqlx::query_scalar("SELECT table_id FROM games WHERE id = $1")
        .bind(deleted)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    // An operator deletes the table (its games go by the cascade), and has not committed
    // when the game's next move arrives: the move waits for the deletion, then is refused.
    let mut deletion = app.pool.begin().await.unwrap();
    sqlx::query("DELETE FROM tables WHERE id = $1")
        .bind(&table)
        .execute(&mut *deletion)
        .await
        .unwrap();
    let late = {
        let store = store.clone();
        tokio::spawn(async move { write(&store, deleted, 2, None, None).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!late.is_finished(), "the move waits for the deletion in progress");
    deletion.commit().await.unwrap();
    assert!(!late.await.unwrap(), "the deleted game's move is refused");
    let moves: Vec<(Uuid, i32)> = sqlx::query_as("SELECT game_id, ply FROM moves ORDER BY game_id, ply")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        moves,
        vec![(kept, 1)],
        "the deleted game's moves are gone, the other's kept"
    );
    // The other game plays on.
    assert!(write(&store, kept, 2, None, None).await);
}

#[tokio::test]
async fn new_tables_created_at_once_are_all_stored_and_a_taken_id_is_refused_alone() {
    let app = spawn_app().await;
    let store = Store::new(app.pool.clone());
    let taken = new_table(&app).await;
    let settings = spelbord::table::TableSettings::read("gomoku", None).unwrap().to_json();
    // Ten new tables at once, each with a bot in seat 1, and one more under a taken id.
    let ids: Vec<String> = (0..10)
        .map(|i| format!("newtab{i:02}"))
        .chain([taken.clone()])
        .collect();
    let inserts = ids.iter().map(|id| {
        let (store, id, settings) = (store.clone(), id.clone(), settings.clone());
        tokio::spawn(async move {
            let bots = [NewBotSeat {
                seat: 1,
                name: "Bot".to_owned(),
                strength: "easy".into(),
            }];
            store.insert_table(&id, "gomoku", &settings, &bots, None).await.unwrap()
        })
    });
    let inserted = all_of(inserts).await;
    assert_eq!(inserted, [vec![true; 10], vec![false]].concat());
    let stored: Vec<(String, i64, Option<String>)> = sqlx::query_as(
        "SELECT t.game, l.epoch, s.bot FROM tables t JOIN table_leases l ON l.table_id = t.id
           JOIN seats s ON s.table_id = t.id AND s.seat = 1 WHERE t.id = 'newtab04'",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(stored, vec![("gomoku".to_owned(), 0, Some("easy".to_owned()))]);
    let bots_at_taken = count_of(&app, "SELECT count(*) FROM seats WHERE table_id = $1", &taken).await;
    assert_eq!(
        bots_at_taken, 0,
        "the refused table changed nothing at the table with its id"
    );
}
