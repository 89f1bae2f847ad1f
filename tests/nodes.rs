//! Several nodes on one database, in one test process (tests/cluster.rs runs real
//! processes behind HAProxy): a table is served by the node holding its lease; another node
//! asks for it and the holder hands it over (its sockets closed with 1012); a node whose
//! database session dies loses its tables at once, stores nothing more for them, and moves
//! its clients; the leases' fencing refuses a stale node's moves, seats and chat, alone in a
//! group-committed batch too, and a node's write fence orders its batches of moves with any
//! change of its leases; a node shutting down leaves and its games are adopted; an idle
//! table releases its lease; with other nodes alive a new table waits, leased to nobody, for
//! the node its first request reaches; a node stopped beside another drains (its health
//! check says so, it loads nothing, each table's lease is released before its sockets
//! close, games nobody came back for are offered and taken), and a node alone stops at once.

mod common;

use std::time::Duration;

use common::{Client, TestApp, spawn_app_with};
use serde_json::json;
use spelbord::identity::new_table_id;
use spelbord::store::Store;
use spelbord::store::StoreError;
use spelbord::store::chat::ChatRecord;
use spelbord::store::games::{MoveRecord, ResultRecord};
use spelbord::store::leases::{Acquired, Lease, Membership, WRITE_FENCE_SPACE};

/// A guard against hangs (not a speed measure).
const WITHIN: Duration = Duration::from_secs(20);

/// Node `name`'s settings: a short lease (renewed every second).
fn node(name: &'static str) -> impl FnOnce(&mut spelbord::config::Settings) {
    move |settings| {
        settings.cluster.node_name = name.into();
        settings.cluster.lease_seconds = 3;
        settings.cluster.handoff_wait_ms = 5_000;
    }
}

async fn two_nodes() -> (TestApp, TestApp) {
    let a = spawn_app_with(node("a")).await;
    let b = a.another_node(node("b")).await;
    (a, b)
}

/// The lease row of a table: its node's name and the epoch.
async fn holder(app: &TestApp, table: &str) -> (Option<String>, i64) {
    sqlx::query_as(
        "SELECT n.name, l.epoch FROM table_leases l LEFT JOIN nodes n ON n.id = l.node WHERE l.table_id = $1",
    )
    .bind(table)
    .fetch_one(&app.pool)
    .await
    .expect("a lease row")
}

async fn node_name(app: &TestApp) -> String {
    let health: serde_json::Value = reqwest::get(app.http("/healthz"))
        .await
        .expect("healthz")
        .json()
        .await
        .expect("JSON");
    health["node"].as_str().expect("a node name").to_owned()
}

/// Reads until the server closes the client's socket; the close code.
async fn closed_with(client: Client) -> Option<u16> {
    common::close_code(&mut client.into_stream()).await
}

async fn play(client: &mut Client, at: &str) -> serde_json::Value {
    client.send(json!({"type": "move", "move": {"at": at}})).await;
    client.until("moved").await
}

async fn stored_moves(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.table_id = $1")
        .bind(table)
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

#[tokio::test]
async fn a_table_asked_for_on_another_node_is_handed_over_and_its_players_follow() {
    let (a, b) = two_nodes().await;
    let table = a.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, x_token), (o, o_token)) = a.two_seated(&table).await;
    play(&mut x, "H8").await;
    assert_eq!(holder(&a, &table).await, (Some(node_name(&a).await), 1));

    // A spectator arrives at the other node: it asks, the holder hands over.
    let _spectator = b.client(&table).await;
    let snapshot = b.snapshot(&table).await;
    assert_eq!(snapshot["moves"].as_array().map(Vec::len), Some(1), "{snapshot}");
    assert_eq!(holder(&a, &table).await, (Some(node_name(&b).await), 2));
    assert_eq!(closed_with(x).await, Some(1012));
    assert_eq!(closed_with(o).await, Some(1012));

    // The players come back (through the proxy, here straight to the new holder) and play on.
    let mut x = b.client(&table).await;
    x.send(json!({"type": "hello", "token": x_token})).await;
    x.until("welcome").await;
    let mut o = b.client(&table).await;
    o.send(json!({"type": "hello", "token": o_token})).await;
    o.until("welcome").await;
    let moved = play(&mut o, "J9").await;
    assert_eq!(moved["move"], json!({"at": "J9"}));
    assert_eq!(stored_moves(&a, &table).await, 2);
}

#[tokio::test]
async fn a_node_whose_session_dies_loses_its_tables_stores_nothing_more_and_moves_its_clients() {
    let (a, b) = two_nodes().await;
    let table = a.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (mut o, o_token)) = a.two_seated(&table).await;
    play(&mut x, "H8").await;
    o.until("moved").await;

    // Node a's database session (the one holding its lock) dies, as when its process is
    // killed, but a itself runs on: b adopts the game in play at once.
    sqlx::query(
        // pg_locks shows every database's locks: only this test's database's node.
        "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN nodes n ON l.objid = n.id::oid
          WHERE l.locktype = 'advisory' AND l.classid = 1397771330::oid AND n.name = $1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .bind(node_name(&a).await)
    .execute(&a.pool)
    .await
    .expect("terminate a's session");
    let b_name = node_name(&b).await;
    tokio::time::timeout(WITHIN, async {
        while holder(&a, &table).await.0.as_deref() != Some(b_name.as_str()) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("b adopts the game");

    // O, still on a, moves: a may not store it, tells O so and closes with 1012.
    o.send(json!({"type": "move", "move": {"at": "J9"}})).await;
    let refused = o.until("error").await;
    assert_eq!(refused["code"], "storage_unavailable");
    assert_eq!(closed_with(o).await, Some(1012));
    assert_eq!(closed_with(x).await, Some(1012));
    assert_eq!(stored_moves(&a, &table).await, 1);

    // On b the game goes on from the stored position.
    let mut o = b.client(&table).await;
    o.send(json!({"type": "hello", "token": o_token})).await;
    o.until("welcome").await;
    let moved = play(&mut o, "J9").await;
    assert_eq!(moved["ply"], json!(2));
    assert_eq!(stored_moves(&a, &table).await, 2);
}

/// A count of one game's rows (`sql` binds the game's id as `$1`).
async fn count_of_game(app: &TestApp, sql: &'static str, game: uuid::Uuid) -> i64 {
    sqlx::query_scalar(sql)
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .expect("count")
}

/// A table of its own, outside any server's memory, leased by `node`.
async fn leased_table(store: &Store, node: i32) -> String {
    let id = new_table_id();
    let settings = spelbord::table::TableSettings::read("gomoku", None).expect("settings");
    assert!(
        store
            .insert_table(&id, "gomoku", &settings.to_json(), &[], Some(node))
            .await
            .expect("insert")
    );
    id
}

async fn join(app: &TestApp, name: &str, lease: Duration) -> Membership {
    let options = app.pool.connect_options().as_ref().clone();
    Membership::join(options, name, lease).await.expect("join")
}

/// A test's database with two live members, a table leased by the first, and the first's
/// store for it.
struct Members {
    app: TestApp,
    store: Store,
    first: Membership,
    second: Membership,
    table: String,
    old: Store,
}

async fn two_members_and_a_table() -> Members {
    let app = spawn_app_with(|_| {}).await;
    let store = Store::new(app.pool.clone());
    let first = join(&app, "first", Duration::from_secs(60)).await;
    let second = join(&app, "second", Duration::from_secs(60)).await;
    let table = leased_table(&store, first.id).await;
    let old = store.for_table(Lease::new(&table, first.id, 1));
    Members {
        app,
        store,
        first,
        second,
        table,
        old,
    }
}

#[tokio::test]
async fn leases_go_to_a_live_node_only_when_free_or_dead_and_fence_every_write() {
    let Members {
        app,
        store,
        first,
        second,
        table,
        old,
    } = two_members_and_a_table().await;
    old.take_seat(&table, 0, &[1; 32], "Ann")
        .await
        .expect("the holder writes");

    // Held by a live node: not taken, neither asked nor adopting.
    for orphans_only in [false, true] {
        let acquired = store.acquire_lease(&table, second.id, orphans_only).await.expect("ask");
        assert!(
            matches!(acquired, Acquired::Elsewhere { holder } if holder == first.id),
            "{acquired:?}"
        );
    }
    assert!(!store.orphaned_tables().await.expect("orphans").contains(&table));

    // The holder's session dies: the lease is free at once.
    drop(first);
    let lease = tokio::time::timeout(WITHIN, async {
        loop {
            if let Acquired::Held(lease) = store.acquire_lease(&table, second.id, false).await.expect("ask") {
                return lease;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("taken once the holder's session is gone");
    assert_eq!(lease.epoch, 2);
    let new = store.for_table(lease);

    // The old holder's writes are refused, whatever they are, and change nothing.
    assert!(matches!(
        old.take_seat(&table, 1, &[2; 32], "Bo").await,
        Err(StoreError::LeaseLost)
    ));
    assert!(old.lease_lost());
    assert!(matches!(old.free_seat(&table, 0).await, Err(StoreError::LeaseLost)));
    let seats: Vec<(i16, String)> = sqlx::query_as("SELECT seat, name FROM seats WHERE table_id = $1 ORDER BY seat")
        .bind(&table)
        .fetch_all(&app.pool)
        .await
        .expect("seats");
    assert_eq!(seats, vec![(0, "Ann".to_owned())]);

    // A game started by the new holder; the old one's move is refused and the new one's
    // stored, in the same group-committed batch or not.
    let game = uuid::Uuid::new_v4();
    new.start_game(game, &table, 1, &[], None, &common::single_game_series(1))
        .await
        .expect("start");
    assert!(matches!(
        old.start_game(
            uuid::Uuid::new_v4(),
            &table,
            2,
            &[],
            None,
            &common::single_game_series(2)
        )
        .await,
        Err(StoreError::LeaseLost)
    ));
    let payload = spelbord::games::json_text(&json!({"at": "H8"}));
    let record = |ply| MoveRecord {
        ply,
        seat: 0,
        payload: &payload,
        clocks_ms: None,
        deadline: None,
    };
    let (stale, fresh) = tokio::join!(
        old.append_move(game, record(1), None),
        new.append_move(game, record(1), None)
    );
    assert!(matches!(stale, Err(StoreError::LeaseLost)), "{stale:?}");
    assert!(fresh.is_ok(), "{fresh:?}");
    let moves = count_of_game(&app, "SELECT count(*) FROM moves WHERE game_id = $1", game).await;
    assert_eq!(moves, 1);
    assert!(matches!(
        old.append_takeback(game, 2, 0, 0, None).await,
        Err(StoreError::LeaseLost)
    ));
    new.append_takeback(game, 2, 0, 0, None)
        .await
        .expect("the holder takes back");
    let line = |text| ChatRecord {
        seat: Some(0),
        name: "Ann",
        text,
        team: None,
        audience: &[],
        player_key: None,
    };
    assert!(matches!(
        old.append_chat(&table, &line("stale")).await,
        Err(StoreError::LeaseLost)
    ));
    new.append_chat(&table, &line("fresh")).await.expect("the holder chats");
    let said: Vec<String> = sqlx::query_scalar("SELECT text FROM chat_messages WHERE table_id = $1")
        .bind(&table)
        .fetch_all(&app.pool)
        .await
        .expect("chat");
    assert_eq!(said, vec!["fresh".to_owned()]);
    let records = count_of_game(&app, "SELECT count(*) FROM moves WHERE game_id = $1", game).await;
    assert_eq!(records, 2, "the move and the holder's take-back");

    // A game's end: a stale node can store neither a last move with the result nor a
    // result alone; the holder can.
    let outcome = spelbord::games::Outcome::from_stored("win", &[0], "resignation", serde_json::Value::Null);
    let result = || ResultRecord {
        outcome: &outcome,
        move_count: 1,
        series: None,
        rating: None,
        rotation: None,
    };
    assert!(matches!(
        old.append_move(game, record(3), Some(result())).await,
        Err(StoreError::LeaseLost)
    ));
    assert!(matches!(
        old.finish_game(game, result()).await,
        Err(StoreError::LeaseLost)
    ));
    let results = count_of_game(&app, "SELECT count(*) FROM results WHERE game_id = $1", game).await;
    assert_eq!(results, 0);
    new.append_move(game, record(3), Some(result()))
        .await
        .expect("the holder ends the game");

    // A released table is free for a request but not for adoption.
    store.release_lease(&table, second.id, None).await.expect("release");
    let third = join(&app, "third", Duration::from_secs(60)).await;
    assert!(matches!(
        store.acquire_lease(&table, third.id, true).await.expect("adopt"),
        Acquired::NotTaken
    ));
    assert!(matches!(
        store.acquire_lease(&table, third.id, false).await.expect("ask"),
        Acquired::Held(lease) if lease.epoch == 3
    ));
    assert!(matches!(
        store.acquire_lease("nosuchtab1", third.id, false).await.expect("ask"),
        Acquired::NoTable
    ));
    drop(second);
}

/// Waits until a transaction waits for node `node`'s write fence (migration 0010).
async fn until_waiting_on_fence(app: &TestApp, node: i32) {
    tokio::time::timeout(WITHIN, async {
        loop {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_locks
                  WHERE locktype = 'advisory' AND NOT granted
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND classid = $1::integer::oid AND objid = $2::integer::oid AND objsubid = 2",
            )
            .bind(WRITE_FENCE_SPACE)
            .bind(node)
            .fetch_one(&app.pool)
            .await
            .expect("locks");
            if waiting > 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("somebody waits for the node's write fence");
}

/// Takes node `node`'s write fence in a transaction of its own, shared (as a batch of
/// moves in flight) or exclusively (as a change of one of its leases).
async fn hold_fence(app: &TestApp, node: i32, shared: bool) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut tx = app.pool.begin().await.expect("begin");
    let lock = if shared {
        "SELECT pg_advisory_xact_lock_shared($1, $2)"
    } else {
        "SELECT pg_advisory_xact_lock($1, $2)"
    };
    sqlx::query(lock)
        .bind(WRITE_FENCE_SPACE)
        .bind(node)
        .execute(&mut *tx)
        .await
        .expect("fence");
    tx
}

#[tokio::test]
async fn a_batch_of_moves_arriving_while_a_lease_changes_hands_waits_and_reads_the_new_holder() {
    let Members {
        app,
        store: _,
        first,
        second,
        table,
        old,
    } = two_members_and_a_table().await;
    let game = uuid::Uuid::new_v4();
    old.start_game(game, &table, 1, &[], None, &common::single_game_series(1))
        .await
        .expect("start");
    let payload = spelbord::games::json_text(&json!({"at": "H8"}));
    let record = MoveRecord {
        ply: 1,
        seat: 0,
        payload: &payload,
        clocks_ms: None,
        deadline: None,
    };

    // A takeover holds the first node's fence; the first node's move comes meanwhile and
    // must wait; the takeover commits; the move finds the new holder and is refused.
    let mut takeover = hold_fence(&app, first.id, false).await;
    let (written, ()) = tokio::join!(old.append_move(game, record, None), async {
        until_waiting_on_fence(&app, first.id).await;
        sqlx::query("UPDATE table_leases SET node = $2, epoch = epoch + 1 WHERE table_id = $1")
            .bind(&table)
            .bind(second.id)
            .execute(&mut *takeover)
            .await
            .expect("take over");
        takeover.commit().await.expect("commit");
    });
    assert!(matches!(written, Err(StoreError::LeaseLost)), "{written:?}");
    assert_eq!(stored_moves(&app, &table).await, 0);
    drop((first, second));
}

#[tokio::test]
async fn taking_a_dead_nodes_table_and_releasing_a_table_wait_for_the_batches_in_flight() {
    let app = spawn_app_with(|_| {}).await;
    let store = Store::new(app.pool.clone());
    let alive = join(&app, "alive", Duration::from_secs(60)).await;
    // Leased by a node that is not alive (it never was).
    let dead = 1_000_000;
    let table = leased_table(&store, dead).await;

    // A batch of the dead node's is still in flight: the takeover waits for its commit.
    let batch = hold_fence(&app, dead, true).await;
    let (acquired, ()) = tokio::join!(store.acquire_lease(&table, alive.id, false), async {
        until_waiting_on_fence(&app, dead).await;
        batch.commit().await.expect("commit");
    });
    assert!(
        matches!(acquired, Ok(Acquired::Held(ref lease)) if lease.node == alive.id),
        "{acquired:?}"
    );

    // So does a release by the holder itself.
    let batch = hold_fence(&app, alive.id, true).await;
    let (released, ()) = tokio::join!(store.release_lease(&table, alive.id, None), async {
        until_waiting_on_fence(&app, alive.id).await;
        batch.commit().await.expect("commit");
    });
    released.expect("released");
    assert_eq!(holder(&app, &table).await.0, None);

    // A table whose actor stopped with every write answered has no move in flight: its
    // release does not wait for the node's other batches; one whose batch failed without
    // an answer does.
    let Ok(Acquired::Held(lease)) = store.acquire_lease(&table, alive.id, false).await else {
        panic!("the released table is free");
    };
    let batch = hold_fence(&app, alive.id, true).await;
    tokio::time::timeout(WITHIN, store.release_stopped_table(&lease))
        .await
        .expect("released without waiting")
        .expect("released");
    assert_eq!(holder(&app, &table).await.0, None);
    let Ok(Acquired::Held(lease)) = store.acquire_lease(&table, alive.id, false).await else {
        panic!("the released table is free");
    };
    lease.mark_unsure();
    let (released, ()) = tokio::join!(store.release_stopped_table(&lease), async {
        until_waiting_on_fence(&app, alive.id).await;
        batch.commit().await.expect("commit");
    });
    released.expect("released");
    assert_eq!(holder(&app, &table).await.0, None);
    drop(alive);
}

#[tokio::test]
async fn a_node_that_stops_renewing_loses_its_tables_when_its_row_expires() {
    let app = spawn_app_with(|_| {}).await;
    let store = Store::new(app.pool.clone());
    // Alive (its session holds its lock) but never renewed: paused, as by SIGSTOP.
    let paused = join(&app, "paused", Duration::from_secs(1)).await;
    let other = join(&app, "other", Duration::from_secs(60)).await;
    let table = leased_table(&store, paused.id).await;
    sqlx::query("INSERT INTO games (id, table_id, number) VALUES ($1, $2, 1)")
        .bind(uuid::Uuid::new_v4())
        .bind(&table)
        .execute(&app.pool)
        .await
        .expect("a game in play");
    assert!(matches!(
        store.acquire_lease(&table, other.id, false).await.expect("ask"),
        Acquired::Elsewhere { .. }
    ));
    let adopted = tokio::time::timeout(WITHIN, async {
        loop {
            if store.orphaned_tables().await.expect("orphans").contains(&table)
                && let Acquired::Held(lease) = store.acquire_lease(&table, other.id, true).await.expect("adopt")
            {
                return lease;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("adopted once the row expired");
    assert_eq!(adopted.epoch, 2);
    drop(paused);
}

/// Waits until the table's lease names `node` (or, with `None`, nobody).
async fn until_held_by(app: &TestApp, table: &str, node: Option<&str>) {
    tokio::time::timeout(WITHIN, async {
        while holder(app, table).await.0.as_deref() != node {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the lease of {table} goes to {node:?}"));
}

#[tokio::test]
async fn a_node_shutting_down_leaves_and_its_games_in_play_are_adopted_at_once() {
    let (a, b) = two_nodes().await;
    let table = a.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (_o, _)) = a.two_seated(&table).await;
    play(&mut x, "H8").await;
    a.shut_down();
    assert_eq!(closed_with(x).await, Some(1012));
    // Nobody asks for the table: b adopts it because its game is in play.
    until_held_by(&a, &table, Some("b")).await;
    let snapshot = b.snapshot(&table).await;
    assert_eq!(snapshot["moves"].as_array().map(Vec::len), Some(1), "{snapshot}");
    let nodes: Vec<String> = sqlx::query_scalar("SELECT name FROM nodes ORDER BY name")
        .fetch_all(&b.pool)
        .await
        .expect("nodes");
    assert_eq!(nodes, vec!["b".to_owned()], "a left the nodes table");
}

#[tokio::test]
async fn an_idle_table_releases_its_lease_and_another_node_takes_it_without_asking() {
    let idle_fast = |settings: &mut spelbord::config::Settings| {
        node("a")(settings);
        settings.limits.idle_table_seconds = 1;
    };
    let a = spawn_app_with(idle_fast).await;
    let b = a.another_node(node("b")).await;
    let table = a.gomoku_table(json!({})).await;
    until_held_by(&a, &table, None).await;
    // Released (leased to nobody), so b takes it at once: a is not asked.
    let _spectator = b.client(&table).await;
    assert_eq!(holder(&a, &table).await.0.as_deref(), Some("b"));
}

#[tokio::test]
async fn with_other_nodes_alive_a_new_table_is_served_by_the_first_node_asked_without_a_handoff() {
    let (a, b) = two_nodes().await;
    // Once a has counted b among the living (at its next renewal), the tables it creates
    // are stored for whichever node gets their first request.
    let table = tokio::time::timeout(WITHIN, async {
        loop {
            let table = a
                .gomoku_table(json!({"seating": "chosen", "bots": {"1": "easy"}}))
                .await;
            if holder(&a, &table).await == (None, 0) {
                return table;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("a table created while b is alive is leased to nobody");
    let mut player = b.client(&table).await;
    // Taken once (epoch 1): a never held it, so nothing was handed over.
    assert_eq!(holder(&a, &table).await, (Some("b".to_owned()), 1));
    player.hello().await;
    player.sit(0, "X").await;
    player.until("game_started").await;
    // The bot seated by the settings was stored with the table and plays on b.
    play(&mut player, "H8").await;
    let answer = player.until("moved").await;
    assert_eq!(answer["seat"], json!(1), "{answer}");
    assert!(stored_moves(&a, &table).await >= 2);
}

/// Whether `app` has counted another node among the living (it renews every second here):
/// a table it creates then waits, leased to nobody, for the node asked first.
async fn until_not_alone(app: &TestApp) {
    tokio::time::timeout(WITHIN, async {
        loop {
            let table = app.gomoku_table(json!({})).await;
            if holder(app, &table).await == (None, 0) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the node counts the other one among the living");
}

#[tokio::test]
async fn a_node_stopped_beside_another_drains_its_tables_before_it_goes() {
    let drain_soon = |settings: &mut spelbord::config::Settings| {
        node("a")(settings);
        settings.cluster.drain_notice_ms = 2_000;
    };
    let a = spawn_app_with(drain_soon).await;
    // Created while a is alone, so served by a: a game whose players stay, and one whose
    // players went away (its clock runs with nobody connected).
    let clock =
        json!({"seating": "chosen", "time_control": {"kind": "fischer", "base_seconds": 300, "increment_seconds": 0}});
    let watched = a.gomoku_table(clock.clone()).await;
    let ((mut x, x_token), (mut o, _)) = a.two_seated(&watched).await;
    play(&mut x, "H8").await;
    let unattended = a.gomoku_table(clock).await;
    let ((mut ux, _), (uo, _)) = a.two_seated(&unattended).await;
    play(&mut ux, "H8").await;
    drop((ux, uo));
    let b = a.another_node(node("b")).await;
    until_not_alone(&a).await;
    let elsewhere = b.gomoku_table(json!({})).await;

    let stopped = a.stop();
    // At once: the health check turns the proxy away (404 keeps its open sockets), and a
    // loads no table it does not serve.
    let health = reqwest::get(a.http("/healthz")).await.expect("healthz");
    assert_eq!(health.status(), 404);
    let health: serde_json::Value = health.json().await.expect("JSON");
    assert_eq!(health["status"], "draining");
    let asked = reqwest::get(a.http(&format!("/api/tables/{elsewhere}")))
        .await
        .expect("GET");
    assert_eq!(asked.status(), 503, "a draining node loads nothing");
    let asked: serde_json::Value = asked.json().await.expect("JSON");
    assert_eq!(asked["error"]["code"], "table_moving");
    // The open sockets stay through the notice: a move is still played on a.
    o.until("moved").await; // X's H8
    let moved = play(&mut o, "A1").await;
    assert_eq!(moved["ply"], 2, "{moved}");

    // Then each table moves: its lease released before its players are told (1012), so
    // the node they reconnect to serves it at once.
    assert_eq!(closed_with(x).await, Some(1012));
    assert_ne!(
        holder(&a, &watched).await.0.as_deref(),
        Some("a"),
        "released before the 1012"
    );
    let mut x = b.client(&watched).await;
    x.send(json!({"type": "hello", "token": x_token})).await;
    x.until("welcome").await;
    let snapshot = b.snapshot(&watched).await;
    assert_eq!(snapshot["moves"].as_array().map(Vec::len), Some(2), "{snapshot}");
    // The game nobody came back for is offered, and b takes it (its clock goes on).
    until_held_by(&a, &unattended, Some("b")).await;
    tokio::time::timeout(WITHIN, stopped)
        .await
        .expect("the drain ends")
        .expect("the drain task");
    // Its sockets closed and its actors stopped first (a hang guard, loose for a busy machine).
    let nodes: Vec<String> = tokio::time::timeout(3 * WITHIN, async {
        loop {
            let nodes: Vec<String> = sqlx::query_scalar("SELECT name FROM nodes ORDER BY name")
                .fetch_all(&b.pool)
                .await
                .expect("nodes");
            if nodes.len() == 1 {
                return nodes;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a leaves once drained");
    assert_eq!(nodes, vec!["b".to_owned()]);
}

#[tokio::test]
async fn a_node_alone_stops_at_once_without_draining() {
    let a = spawn_app_with(node("a")).await;
    let table = a.gomoku_table(json!({"seating": "chosen"})).await;
    let ((mut x, _), (_o, _)) = a.two_seated(&table).await;
    play(&mut x, "H8").await;
    let stopped = a.stop();
    // No notice: the sockets close with 1012 at once and the lease stays for the next start.
    assert_eq!(closed_with(x).await, Some(1012));
    tokio::time::timeout(WITHIN, stopped)
        .await
        .expect("stopped")
        .expect("the stop task");
    assert_eq!(holder(&a, &table).await.0.as_deref(), Some("a"));
}

#[tokio::test]
async fn an_operator_drains_a_node_with_the_admin_api() {
    let with_token = |settings: &mut spelbord::config::Settings| {
        node("a")(settings);
        settings.admin.token = "let-me-drain".into();
    };
    let a = spawn_app_with(with_token).await;
    let b = a.another_node(node("b")).await;
    until_not_alone(&a).await;
    let http = reqwest::Client::new();
    let refused = http.post(a.http("/api/admin/drain")).send().await.expect("POST");
    assert_eq!(refused.status(), 403, "never without the token");
    assert_eq!(reqwest::get(a.http("/healthz")).await.expect("healthz").status(), 200);
    let drain = || {
        http.post(a.http("/api/admin/drain"))
            .bearer_auth("let-me-drain")
            .header("X-Admin-Name", "Maja")
            .send()
    };
    let answer = drain().await.expect("POST");
    assert_eq!(answer.status(), 202);
    let answer: serde_json::Value = answer.json().await.expect("JSON");
    assert_eq!(answer["draining"], true, "{answer}");
    assert_eq!(answer["already"], false);
    assert_eq!(reqwest::get(a.http("/healthz")).await.expect("healthz").status(), 404);
    let again: serde_json::Value = drain().await.expect("POST").json().await.expect("JSON");
    assert_eq!(again["already"], true, "asking again changes nothing: {again}");
    let recorded: Vec<(String, String)> = sqlx::query_as("SELECT actor, action FROM admin_actions")
        .fetch_all(&b.pool)
        .await
        .expect("admin actions");
    assert_eq!(recorded, vec![("Maja".to_owned(), "drain".to_owned())]);
    // The node goes once drained.
    tokio::time::timeout(3 * WITHIN, async {
        loop {
            let alive: bool = sqlx::query_scalar("SELECT spelbord_node_alive(id) FROM nodes WHERE name = 'a'")
                .fetch_optional(&b.pool)
                .await
                .expect("alive")
                .unwrap_or(false);
            if !alive {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a stops once drained");
}
