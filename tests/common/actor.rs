//! Driving a real table actor through its handle, the way a connection does, for tests
//! under tokio's paused time.
//!
//! With paused time the runtime jumps to the next timer whenever it waits on I/O, so no
//! socket may be waited on while a table's timer runs: the players here talk to the table
//! through its handle (the same commands a WebSocket connection sends). For the same reason
//! the database pool keeps its connections open and idle, so that taking one never waits
//! (see [`paused_store`]), and no HTTP server runs (its pool's housekeeping timers would
//! make paused time jump).

use serde_json::{Value, json};
use spelbord::bots::Budgets;
use spelbord::bots::pool::BotPool;
use spelbord::identity::TokenIssuer;
use spelbord::protocol::parse_client_msg;
use spelbord::store::Store;
use spelbord::store::leases::Membership;
use spelbord::table::actor::{TableLimits, TableServices};
use spelbord::table::queue::{OutboxReceiver, outbox};
use spelbord::table::registry::NodeRole;
use spelbord::table::{TableHandle, TableSettings, Tables};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::TestDb;

/// One player (or spectator) attached to the table like a connection.
pub struct Seat {
    conn: u64,
    table: TableHandle,
    frames: OutboxReceiver,
    /// The token the server issued this player (after [`Seat::hello`]).
    pub token: Option<String>,
}

impl Seat {
    pub async fn join(table: &TableHandle, conn: u64) -> Seat {
        let (sender, frames) = outbox(1024);
        table.join(conn, sender, None).await.expect("table runs");
        let mut seat = Seat {
            conn,
            table: table.clone(),
            frames,
            token: None,
        };
        assert_eq!(seat.recv().await["type"], "snapshot");
        seat
    }

    /// A connection already joined (its frames read by the caller so far).
    pub fn attached(table: &TableHandle, conn: u64, frames: OutboxReceiver) -> Seat {
        Seat {
            conn,
            table: table.clone(),
            frames,
            token: None,
        }
    }

    /// Asks the server for a token (or presents `token`) and keeps the one it returns.
    pub async fn hello(&mut self, token: Option<&str>) -> Value {
        self.send(json!({"type": "hello", "token": token})).await;
        let welcome = self.until("welcome").await;
        self.token = welcome["token"].as_str().map(str::to_owned);
        welcome
    }

    pub async fn send(&self, message: Value) {
        let envelope = parse_client_msg(&message.to_string()).expect("a valid message");
        self.table.client(self.conn, envelope).await.expect("table runs");
    }

    pub async fn recv(&mut self) -> Value {
        let frame = self.frames.recv().await.expect("the table keeps the connection");
        serde_json::from_str(frame.as_str()).expect("JSON")
    }

    /// Reads until a message of type `kind`.
    pub async fn until(&mut self, kind: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["type"] == kind {
                return message;
            }
        }
    }

    /// Plays `at` and returns the `moved` event of that move.
    pub async fn play(&mut self, at: &str) -> Value {
        self.send(json!({"type": "move", "move": {"at": at}})).await;
        self.moved(at).await
    }

    /// Reads until the `moved` event of the move at `at`.
    pub async fn moved(&mut self, at: &str) -> Value {
        loop {
            let moved = self.until("moved").await;
            if moved["move"]["at"] == at {
                return moved;
            }
        }
    }

    /// Reads everything queued so far (the table answers a ping after all of it), and
    /// returns it.
    pub async fn sync(&mut self) -> Vec<Value> {
        self.send(json!({"type": "ping", "ref": "sync"})).await;
        let mut before = Vec::new();
        loop {
            let message = self.recv().await;
            if message["type"] == "pong" && message["ref"] == "sync" {
                return before;
            }
            before.push(message);
        }
    }

    pub async fn leave(self) {
        self.table.leave(self.conn).await.expect("table runs");
    }
}

/// Connections a paused-time store opens up front: more than a table's actor, its
/// writer, its lease and a rebuild ever hold at once, because a query that waits for a
/// connection while time is paused waits on a timer, which paused time jumps to (the pool's
/// acquire timeout: `PoolTimedOut`). Four was once seen too few, at an idle table's close.
const PAUSED_POOL_SIZE: u32 = 8;

/// A migrated store whose connections are opened now and kept, so that no query waits
/// for a connection (and so for a timer) while time is paused. (No server runs here: its
/// pool's housekeeping timers would make paused time jump.)
pub async fn paused_store(database: &TestDb) -> Store {
    let options = database.options.clone();
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(PAUSED_POOL_SIZE)
        .min_connections(0)
        .idle_timeout(None)
        .max_lifetime(None)
        .test_before_acquire(false)
        .connect_with(options)
        .await
        .expect("connect");
    let mut open = Vec::new();
    for _ in 0..PAUSED_POOL_SIZE {
        open.push(pool.acquire().await.expect("a connection"));
    }
    drop(open);
    let store = Store::new(pool);
    store.migrate().await.expect("migrations");
    store
}

/// The table registry of a test, on a paused-time store, as a node of its own (its
/// membership, the connection holding the node's lock, lives as long as the test).
pub async fn tables(store: Store) -> Tables {
    let options = store.pool().connect_options().as_ref().clone();
    let membership = Membership::join(options, "test", std::time::Duration::from_secs(3600))
        .await
        .expect("join as a node");
    let node = NodeRole {
        id: membership.id,
        handoff_wait: std::time::Duration::from_secs(1),
    };
    // No renewal task runs here: the node stays alive for the hour its row was given.
    Box::leak(Box::new(membership));
    let services = TableServices {
        limits: std::sync::Arc::new(TableLimits {
            name_max_chars: 24,
            chat_max_chars: 500,
            idle_after: std::time::Duration::from_secs(600),
            // Chat as fast as a test needs (to fill the history, say); the pace itself is
            // tested in tests/table_quotas.rs and src/table/quota.rs.
            quotas: spelbord::table::quota::QuotaSettings {
                chat_lines_per_minute: 60_000,
                chat_burst: 1_000,
                ..Default::default()
            },
        }),
        bots: BotPool::start(1, Budgets::default()),
        tokens: std::sync::Arc::new(TokenIssuer::random()),
        listings: Default::default(),
    };
    Tables::new(store, services, CancellationToken::new(), TaskTracker::new(), node)
}

/// Creates a table of `game` with `settings` (seating chosen) and seats two players
/// (connections 1 and 2) who have both seen the game start.
pub async fn two_players(tables: &Tables, game: &str, settings: Value) -> (TableHandle, Seat, Seat) {
    let mut settings = settings;
    settings["seating"] = json!("chosen");
    let settings = TableSettings::read(game, Some(settings)).expect("valid settings");
    let table = tables.create(settings).await.expect("table created");
    let mut first = Seat::join(&table, 1).await;
    let mut second = Seat::join(&table, 2).await;
    first.hello(None).await;
    second.hello(None).await;
    first.send(json!({"type": "sit", "seat": 0, "name": "First"})).await;
    first.until("seated").await;
    second.send(json!({"type": "sit", "seat": 1, "name": "Second"})).await;
    second.until("game_started").await;
    first.until("game_started").await;
    (table, first, second)
}

/// The table's public snapshot as JSON.
pub async fn snapshot(table: &TableHandle) -> Value {
    serde_json::to_value(table.snapshot().await.expect("snapshot")).expect("JSON")
}
