//! Data retention against a real database: old chat lines, unstarted tables and finished
//! casual tables go; recent ones, rated games (with their results and the rating history),
//! games and series in play, and tables a live node serves stay; no move outlives its game;
//! one node runs a round at a time; the sweep goes on where the last round stopped; and the
//! server runs rounds by itself on its interval.

mod common;

use std::time::Duration;

use common::{TestDb, spawn_app_with};
use spelbord::config::{RetentionSettings, Settings};
use spelbord::store::leases::Membership;
use spelbord::store::retention::{self, Deleted, LOCK_SPACE, Round, RoundLimits};
use spelbord::store::{PoolSizes, Store};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

async fn store() -> (TestDb, Store) {
    let db = TestDb::create().await;
    let store = Store::connect(db.options.clone(), PoolSizes { writes: 4, reads: 1 })
        .await
        .expect("connect and migrate");
    (db, store)
}

fn defaults() -> RetentionSettings {
    Settings::defaults().expect("default settings").retention
}

/// A table made `made` days ago, its lease held by `node` (None: nobody) since `opened`
/// days ago.
async fn table(pool: &PgPool, id: &str, made: i32, node: Option<i32>, opened: i32) {
    sqlx::query(
        "INSERT INTO tables (id, game, settings, created_at)
         VALUES ($1, 'gomoku', '{}', now() - make_interval(days => $2))",
    )
    .bind(id)
    .bind(made)
    .execute(pool)
    .await
    .expect("a table");
    sqlx::query(
        "INSERT INTO table_leases (table_id, node, epoch, acquired_at)
         VALUES ($1, $2, 1, now() - make_interval(days => $3))",
    )
    .bind(id)
    .bind(node)
    .bind(opened)
    .execute(pool)
    .await
    .expect("its lease");
}

/// Game `number` of `table` with `moves` moves, ended `ended` days ago (None: in play).
async fn game(pool: &PgPool, table: &str, number: i32, rated: bool, ended: Option<i32>, moves: i32) -> Uuid {
    game_in(pool, table, number, rated, ended, moves, None).await
}

async fn game_in(
    pool: &PgPool,
    table: &str,
    number: i32,
    rated: bool,
    ended: Option<i32>,
    moves: i32,
    series: Option<Uuid>,
) -> Uuid {
    let id = Uuid::new_v4();
    let started = ended.unwrap_or(300);
    sqlx::query(
        "INSERT INTO games (id, table_id, number, status, started_at, ended_at, rated, series_id, series_game)
         VALUES ($1, $2, $3, CASE WHEN $4::integer IS NULL THEN 'playing' ELSE 'finished' END,
                 now() - make_interval(days => $5) - interval '1 hour',
                 now() - make_interval(days => $4), $6, $7, CASE WHEN $7::uuid IS NULL THEN NULL ELSE 1 END)",
    )
    .bind(id)
    .bind(table)
    .bind(number)
    .bind(ended)
    .bind(started)
    .bind(rated)
    .bind(series)
    .execute(pool)
    .await
    .expect("a game");
    sqlx::query(
        "INSERT INTO game_players (game_id, seat, role, player_key, name)
         VALUES ($1, 0, 'X', '\\x01', 'Anna'), ($1, 1, 'O', '\\x02', 'Bo')",
    )
    .bind(id)
    .execute(pool)
    .await
    .expect("its players");
    sqlx::query(
        "INSERT INTO moves (game_id, ply, seat, payload)
         SELECT $1, n, n % 2, '{}'::jsonb FROM generate_series(1, $2) n",
    )
    .bind(id)
    .bind(moves)
    .execute(pool)
    .await
    .expect("its moves");
    if let Some(ended) = ended {
        sqlx::query(
            "INSERT INTO results (game_id, outcome, winners, reason, move_count, players, started_at, ended_at)
             VALUES ($1, 'win', '{0}', 'resignation', $2, '[]',
                     now() - make_interval(days => $3) - interval '1 hour', now() - make_interval(days => $3))",
        )
        .bind(id)
        .bind(moves)
        .bind(ended)
        .execute(pool)
        .await
        .expect("its result");
    }
    if rated {
        for key in [&b"\x01"[..], &b"\x02"[..]] {
            sqlx::query(
                "INSERT INTO rating_history (game_id, player_key, game, seats, rating_before, deviation_before,
                                             volatility_before, rating_after, deviation_after, volatility_after)
                 VALUES ($1, $2, 'gomoku', '{0}', 1500, 350, 0.06, 1520, 300, 0.06)",
            )
            .bind(id)
            .bind(key)
            .execute(pool)
            .await
            .expect("its rating history");
            sqlx::query(
                "INSERT INTO ratings (player_key, game, rating, deviation, volatility, games)
                 VALUES ($1, 'gomoku', 1520, 300, 0.06, 1) ON CONFLICT DO NOTHING",
            )
            .bind(key)
            .execute(pool)
            .await
            .expect("a rating");
        }
    }
    id
}

async fn series(pool: &PgPool, table: &str, playing: bool) -> Uuid {
    let id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO series (id, table_id, number, format, status, started_at)
         VALUES ($1, $2, 1, 'best_of_3', CASE WHEN $3 THEN 'playing' ELSE 'decided' END, now() - interval '300 days')",
    )
    .bind(id)
    .bind(table)
    .bind(playing)
    .execute(pool)
    .await
    .expect("a series");
    sqlx::query("INSERT INTO series_sides (series_id, side, players) VALUES ($1, 0, 'Anna'), ($1, 1, 'Bo')")
        .bind(id)
        .execute(pool)
        .await
        .expect("its sides");
    id
}

async fn chat(pool: &PgPool, table: &str, days: i32, text: &str) {
    sqlx::query(
        "INSERT INTO chat_messages (table_id, seat, name, text, sent_at)
         VALUES ($1, 0, 'Anna', $2, now() - make_interval(days => $3))",
    )
    .bind(table)
    .bind(text)
    .bind(days)
    .execute(pool)
    .await
    .expect("a chat line");
}

async fn seat(pool: &PgPool, table: &str, days: i32) {
    sqlx::query(
        "INSERT INTO seats (table_id, seat, player_key, name, sat_at)
         VALUES ($1, 0, '\\x01', 'Anna', now() - make_interval(days => $2))",
    )
    .bind(table)
    .bind(days)
    .execute(pool)
    .await
    .expect("a seat");
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.expect(sql)
}

async fn tables(pool: &PgPool) -> Vec<String> {
    let mut ids: Vec<String> = sqlx::query_scalar("SELECT id FROM tables")
        .fetch_all(pool)
        .await
        .expect("the tables");
    ids.sort();
    ids
}

async fn chat_texts(pool: &PgPool) -> Vec<String> {
    let mut texts: Vec<String> = sqlx::query_scalar("SELECT text FROM chat_messages")
        .fetch_all(pool)
        .await
        .expect("the chat");
    texts.sort();
    texts
}

fn ran(round: Round) -> (Deleted, u64, bool) {
    match round {
        Round::Ran(report) => {
            assert_eq!(report.deferred, 0, "no lock was busy");
            (report.deleted, report.swept, report.sweep_done)
        }
        Round::Skipped => panic!("the round was skipped"),
    }
}

/// Moves whose game is gone: the trigger and the job must leave none.
async fn orphan_moves(pool: &PgPool) -> i64 {
    count(
        pool,
        "SELECT count(*) FROM moves m WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = m.game_id)",
    )
    .await
}

#[tokio::test]
async fn old_rows_go_and_recent_ones_and_rated_games_stay() {
    let (_db, store) = store().await;
    let pool = store.pool();

    // Kept for good: a rated game's table, whose chat still ages out.
    table(pool, "chatty01", 400, None, 300).await;
    game(pool, "chatty01", 1, true, Some(300), 20).await;
    chat(pool, "chatty01", 40, "old line").await;
    chat(pool, "chatty01", 1, "new line").await;

    // Unstarted tables.
    table(pool, "unstart1", 10, None, 10).await; // deleted, with its seat and chat
    seat(pool, "unstart1", 10).await;
    chat(pool, "unstart1", 10, "said at an unstarted table").await;
    table(pool, "unstart2", 3, None, 3).await; // too recent
    table(pool, "unstart3", 10, None, 10).await; // somebody sat two days ago
    seat(pool, "unstart3", 2).await;
    table(pool, "unstart4", 10, None, 1).await; // somebody opened it yesterday

    // Finished tables.
    table(pool, "casual01", 400, None, 200).await; // deleted whole
    let decided = series(pool, "casual01", false).await;
    game_in(pool, "casual01", 1, false, Some(200), 30, Some(decided)).await;
    game(pool, "casual01", 2, false, Some(190), 30).await;
    chat(pool, "casual01", 190, "gg").await;
    seat(pool, "casual01", 200).await;
    table(pool, "casual02", 400, None, 100).await; // finished too recently
    game(pool, "casual02", 1, false, Some(100), 10).await;
    table(pool, "rated001", 400, None, 250).await; // a rated game among casual ones
    game(pool, "rated001", 1, false, Some(300), 10).await;
    game(pool, "rated001", 2, true, Some(250), 10).await;
    table(pool, "inplay01", 400, None, 300).await; // a game in play
    game(pool, "inplay01", 1, false, None, 10).await;
    table(pool, "series01", 400, None, 300).await; // a series in play
    let open = series(pool, "series01", true).await;
    game_in(pool, "series01", 1, false, Some(300), 10, Some(open)).await;

    let stats = count(pool, "SELECT coalesce(sum(games), 0)::bigint FROM game_stats").await;
    let history = count(pool, "SELECT count(*) FROM rating_history").await;

    let round = retention::run_round(&store, &defaults()).await.expect("a round");
    let (deleted, swept, sweep_done) = ran(round);
    assert_eq!(
        deleted,
        Deleted {
            chat: 2,
            unstarted_tables: 1,
            finished_tables: 1,
            games: 2,
            moves: 60,
        }
    );
    assert_eq!(swept, 9, "every table made more than a week ago was read");
    assert!(sweep_done);

    assert_eq!(
        tables(pool).await,
        [
            "casual02", "chatty01", "inplay01", "rated001", "series01", "unstart2", "unstart3", "unstart4"
        ]
    );
    assert_eq!(chat_texts(pool).await, ["new line"]);
    // Nothing of the deleted tables is left, and no move outlives its game.
    for sql in [
        "SELECT count(*) FROM games WHERE table_id IN ('casual01', 'unstart1')",
        "SELECT count(*) FROM seats WHERE table_id IN ('casual01', 'unstart1')",
        "SELECT count(*) FROM series WHERE table_id IN ('casual01', 'unstart1')",
        "SELECT count(*) FROM table_leases WHERE table_id IN ('casual01', 'unstart1')",
        "SELECT count(*) FROM results r WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = r.game_id)",
    ] {
        assert_eq!(count(pool, sql).await, 0, "{sql}");
    }
    assert_eq!(orphan_moves(pool).await, 0);
    // Rated games keep their results, moves and rating history; the ratings stay.
    assert_eq!(count(pool, "SELECT count(*) FROM rating_history").await, history);
    assert_eq!(count(pool, "SELECT count(*) FROM ratings").await, 2);
    assert_eq!(
        count(
            pool,
            "SELECT count(*) FROM results r JOIN games g ON g.id = r.game_id WHERE g.rated"
        )
        .await,
        2
    );
    assert_eq!(
        count(pool, "SELECT count(*) FROM moves").await,
        20 + 10 + 20 + 10 + 10,
        "the kept tables' moves"
    );
    // The won-game statistics are counts without names: they keep the deleted games.
    assert_eq!(
        count(pool, "SELECT coalesce(sum(games), 0)::bigint FROM game_stats").await,
        stats
    );

    // Nothing more to do.
    let (deleted, _, _) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!(deleted, Deleted::default());
}

#[tokio::test]
async fn zero_days_keeps_that_kind_for_good() {
    let (_db, store) = store().await;
    let pool = store.pool();
    table(pool, "unstart1", 400, None, 400).await;
    table(pool, "casual01", 400, None, 400).await;
    game(pool, "casual01", 1, false, Some(400), 5).await;
    chat(pool, "casual01", 400, "old").await;
    let settings = RetentionSettings {
        chat_days: 0,
        unstarted_table_days: 0,
        finished_casual_table_days: 0,
        ..defaults()
    };
    let (deleted, swept, _) = ran(retention::run_round(&store, &settings).await.expect("a round"));
    assert_eq!(deleted, Deleted::default());
    assert_eq!(swept, 0, "no sweep at all");
    let settings = RetentionSettings {
        finished_casual_table_days: 0,
        ..defaults()
    };
    let (deleted, _, _) = ran(retention::run_round(&store, &settings).await.expect("a round"));
    assert_eq!(deleted.unstarted_tables, 1);
    assert_eq!(deleted.finished_tables, 0);
    assert_eq!(deleted.chat, 1);
    assert_eq!(tables(pool).await, ["casual01"]);
}

#[tokio::test]
async fn a_table_a_live_node_holds_is_kept() {
    let (db, store) = store().await;
    let pool = store.pool();
    let node = Membership::join(db.options.clone(), "other", Duration::from_secs(30))
        .await
        .expect("a live node");
    table(pool, "held0001", 10, Some(node.id), 10).await;
    table(pool, "dead0001", 10, Some(node.id + 1000), 10).await; // a node long gone
    table(pool, "casual01", 400, Some(node.id), 300).await;
    game(pool, "casual01", 1, false, Some(300), 5).await;

    let (deleted, _, _) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!(deleted.unstarted_tables, 1);
    assert_eq!(tables(pool).await, ["casual01", "held0001"]);

    // Once the node has left, its tables are nobody's.
    node.leave().await;
    let (deleted, _, _) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!((deleted.unstarted_tables, deleted.finished_tables), (1, 1));
    assert!(tables(pool).await.is_empty());
    assert_eq!(orphan_moves(pool).await, 0);
}

#[tokio::test]
async fn a_lease_being_taken_is_never_deleted_under_it() {
    let (db, store) = store().await;
    let pool = store.pool();
    table(pool, "unstart1", 10, None, 10).await;

    // A node is taking the table's lease (as `acquire_lease` does): its row is locked, so
    // the round leaves the table alone, and once taken, the table was opened just now.
    let mut node = PgConnection::connect_with(&db.options).await.expect("connect");
    let mut taking = node.begin().await.expect("a transaction");
    sqlx::query("UPDATE table_leases SET epoch = epoch + 1, acquired_at = now() WHERE table_id = 'unstart1'")
        .execute(&mut *taking)
        .await
        .expect("the lease taken");
    let (deleted, _, _) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!(deleted, Deleted::default());
    taking.commit().await.expect("committed");
    let (deleted, _, _) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!(deleted, Deleted::default());
    assert_eq!(tables(pool).await, ["unstart1"]);
}

#[tokio::test]
async fn a_busy_moves_table_defers_the_deletion_of_tables() {
    let (db, store) = store().await;
    let pool = store.pool();
    table(pool, "casual01", 400, None, 300).await;
    game(pool, "casual01", 1, false, Some(300), 5).await;
    let mut other = PgConnection::connect_with(&db.options).await.expect("connect");

    for (mode, why) in [
        ("SHARE UPDATE EXCLUSIVE", "a vacuum holds it: not even asked for"),
        (
            "ROW EXCLUSIVE",
            "a long batch of moves holds it: asked for, 20 ms at most",
        ),
    ] {
        let mut holding = other.begin().await.expect("a transaction");
        sqlx::query(sqlx::AssertSqlSafe(format!("LOCK TABLE moves IN {mode} MODE")))
            .execute(&mut *holding)
            .await
            .expect("the lock");
        let Round::Ran(report) = retention::run_round(&store, &defaults()).await.expect("a round") else {
            panic!("skipped");
        };
        assert_eq!(report.deferred, 1, "{why}");
        assert_eq!(report.deleted, Deleted::default(), "{why}");
        assert!(!report.sweep_done, "the page is read again next round ({why})");
        assert_eq!(tables(pool).await, ["casual01"], "{why}");
        assert_eq!(count(pool, "SELECT count(*) FROM moves").await, 5, "{why}");
        holding.rollback().await.expect("released");
    }

    let (deleted, _, done) = ran(retention::run_round(&store, &defaults()).await.expect("a round"));
    assert_eq!((deleted.finished_tables, deleted.moves, done), (1, 5, true));
}

#[tokio::test]
async fn one_node_runs_a_round_at_a_time() {
    let (db, store) = store().await;
    let pool = store.pool();
    table(pool, "chatty01", 400, None, 1).await;
    game(pool, "chatty01", 1, true, Some(300), 1).await;
    for n in 0..50 {
        chat(pool, "chatty01", 40, &format!("old {n:02}")).await;
    }

    // Another node's round holds the lock: this one is skipped and deletes nothing.
    let mut other = PgConnection::connect_with(&db.options).await.expect("connect");
    sqlx::query("SELECT pg_advisory_lock($1, 0)")
        .bind(LOCK_SPACE)
        .execute(&mut other)
        .await
        .expect("the lock");
    let round = retention::run_round(&store, &defaults()).await.expect("a round");
    assert_eq!(round, Round::Skipped);
    assert_eq!(chat_texts(pool).await.len(), 50);
    sqlx::query("SELECT pg_advisory_unlock($1, 0)")
        .bind(LOCK_SPACE)
        .execute(&mut other)
        .await
        .expect("unlocked");

    // Two rounds at once: whichever runs, every line is deleted once.
    let settings = RetentionSettings {
        batch_rows: 5,
        ..defaults()
    };
    let limits = RoundLimits {
        pause: Duration::from_millis(5),
        ..RoundLimits::default()
    };
    let (first, second) = tokio::join!(
        retention::run_round_with(&store, &settings, limits),
        retention::run_round_with(&store, &settings, limits),
    );
    let chat: u64 = [first.expect("a round"), second.expect("a round")]
        .into_iter()
        .map(|round| match round {
            Round::Ran(report) => report.deleted.chat,
            Round::Skipped => 0,
        })
        .sum();
    assert_eq!(chat, 50);
    assert!(chat_texts(pool).await.is_empty());
}

#[tokio::test]
async fn small_batches_and_the_sweep_goes_on_where_it_stopped() {
    let (_db, store) = store().await;
    let pool = store.pool();
    // 25 tables kept for good, then (in the order they were made) one casual table with
    // 25 moves and four unstarted ones.
    for n in 0..25 {
        let id = format!("rated{n:03}");
        table(pool, &id, 400 - n, None, 300).await;
        game(pool, &id, 1, true, Some(300), 1).await;
    }
    table(pool, "casual01", 300, None, 300).await;
    game(pool, "casual01", 1, false, Some(300), 25).await;
    for n in 0..4 {
        table(pool, &format!("unstart{n}"), 8, None, 8).await;
    }
    for n in 0..35 {
        chat(pool, "rated000", 40, &format!("old {n:02}")).await;
    }
    let settings = RetentionSettings {
        batch_rows: 10,
        ..defaults()
    };
    let limits = RoundLimits {
        chat_batches: 2,
        pages: 1,
        pause: Duration::ZERO,
        time: Duration::from_secs(60),
    };
    let round = || async {
        ran(retention::run_round_with(&store, &settings, limits)
            .await
            .expect("a round"))
    };

    let (deleted, swept, done) = round().await;
    assert_eq!(
        (deleted.chat, deleted.unstarted_tables + deleted.finished_tables),
        (20, 0)
    );
    assert_eq!((swept, done), (10, false));
    let (deleted, swept, done) = round().await;
    assert_eq!((deleted.chat, swept, done), (15, 10, false));
    let (deleted, swept, done) = round().await;
    assert_eq!(
        deleted,
        Deleted {
            chat: 0,
            unstarted_tables: 4,
            finished_tables: 1,
            games: 1,
            moves: 25,
        }
    );
    assert_eq!((swept, done), (10, false));
    let (_, swept, done) = round().await;
    assert_eq!((swept, done), (0, true), "the end of the sweep");
    let (_, swept, done) = round().await;
    assert_eq!((swept, done), (10, false), "a new sweep from the oldest table");
    assert_eq!(count(pool, "SELECT count(*) FROM tables").await, 25);
    assert_eq!(orphan_moves(pool).await, 0);
}

#[tokio::test]
async fn the_server_runs_rounds_on_its_interval() {
    let app = spawn_app_with(|settings| settings.retention.interval_seconds = 1).await;
    let table = app.gomoku_table(serde_json::json!({})).await;
    chat(&app.pool, &table, 40, "old").await;
    chat(&app.pool, &table, 0, "new").await;
    common::eventually(
        Duration::from_secs(15),
        Duration::from_millis(100),
        "a round deletes the old line",
        || async { (chat_texts(&app.pool).await == ["new"]).then_some(()) },
    )
    .await;
    let metrics = reqwest::get(app.http("/metrics"))
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("the metrics");
    assert!(
        metrics.contains("spelbord_retention_runs_total{outcome=\"done\"}"),
        "{metrics}"
    );
    assert!(
        metrics.contains("spelbord_retention_deleted_total{kind=\"chat\"}"),
        "{metrics}"
    );
}
