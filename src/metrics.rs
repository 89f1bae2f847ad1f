//! What the server counts and measures, for `GET /metrics` (Prometheus text format).
//!
//! Every metric's name is a constant here, and every place that records one calls a small
//! helper of this module (one line at the place: a counter, a gauge guard, a timer), so the
//! list below and `docs/operations.md` are the whole story.
//!
//! # One recorder per process
//! The `metrics` macros write to one recorder per process (the `metrics` crate's global
//! one). [`install`] installs a Prometheus recorder there the first time any `App` is
//! bound with metrics enabled, and hands every later caller a clone of the same
//! [`PrometheusHandle`]; the route renders that handle. There is no listener of its own:
//! the route is served on the main port (see the HTTP layer's `metrics` route).
//!
//! So the numbers describe the process, not one `App`: in production a process runs one
//! server; in tests, where one process runs several servers, their counts add up (a test
//! compares a counter before and after what it does, or asks for "at least"). Gauges are
//! kept by increments and decrements from the things they count (a connection's guard, a
//! table actor's guard, a search thread), never set from one server's view, so they stay
//! right when several servers share the recorder. The exceptions are set from one
//! server's view: the pool and connection gauges, from the scraped server at each scrape,
//! and the leases held, labelled with the node's name, at each of its renewals.
//!
//! Without an installed recorder (the `arena` and `perft` commands, unit tests) every
//! helper here costs next to nothing and records nothing.
//!

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Open WebSocket connections (gauge).
pub const WS_CONNECTIONS: &str = "spelbord_ws_connections";
/// Closed WebSocket connections, by `code` (counter).
pub const WS_CLOSES: &str = "spelbord_ws_closes_total";
/// Tables in memory, by `game` and `status` (gauge).
pub const TABLES: &str = "spelbord_tables";
/// Tables rebuilt from the database, by `game` (counter).
pub const TABLE_RESTORES: &str = "spelbord_table_restores_total";
/// Moves played, by `game` (counter; its rate is moves per second).
pub const MOVES: &str = "spelbord_moves_total";
/// A move's way through its table, by `game` and `stage` (histogram, seconds).
pub const MOVE_SECONDS: &str = "spelbord_move_seconds";
/// One database write, by `op` (histogram, seconds).
pub const DB_WRITE_SECONDS: &str = "spelbord_db_write_seconds";
/// Moves stored by one statement of the group-commit writer (histogram).
pub const MOVE_BATCH: &str = "spelbord_move_batch_moves";
/// The database pool's connections, by `state` (`idle`, `in_use`) (gauge).
pub const DB_POOL_CONNECTIONS: &str = "spelbord_db_pool_connections";
/// The most connections the pool may open (gauge).
pub const DB_POOL_MAX: &str = "spelbord_db_pool_max_connections";
/// Bot searches waiting for a thread (gauge).
pub use spelbord_bots::metrics::BOT_SEARCHES_QUEUED;
/// Bot search threads running (gauge).
pub use spelbord_bots::metrics::BOT_THREADS;
/// Bot search threads searching now (gauge).
pub use spelbord_bots::metrics::BOT_THREADS_BUSY;
/// Requests or messages refused by a rate limit or a cap, by `limit` (counter).
pub const RATE_LIMITED: &str = "spelbord_rate_limited_total";
/// Open lobby connections (gauge).
pub const LOBBY_CONNECTIONS: &str = "spelbord_lobby_connections";
/// Lobby seeks and accepts, by outcome: `paired`, `waiting`, `refused` (counter).
pub const LOBBY_SEEKS: &str = "spelbord_lobby_seeks_total";
/// Database errors, by `kind`: `connection`, `pool_timeout`, `statement`, `other` (counter).
pub const DB_ERRORS: &str = "spelbord_db_errors_total";
/// Table leases this node took from a node no longer alive: it died, stopped renewing, or
/// shut down leaving its games in play to be adopted (counter).
pub const LEASE_TAKEOVERS: &str = "spelbord_lease_takeovers_total";
/// Table leases the database says this node holds, by `node`, read at each renewal (gauge).
pub const LEASES_HELD: &str = "spelbord_leases_held";
/// Bot searches answered, by `deadline`: `met` or `missed` (counter).
pub const BOT_SEARCHES: &str = "spelbord_bot_searches_total";
/// How long a bot search ran on its thread, by `game` (histogram, seconds).
pub const BOT_THINK_SECONDS: &str = "spelbord_bot_think_seconds";
/// Open HTTP connections (WebSockets included) counted against the server's cap (gauge).
pub const CONNECTIONS: &str = "spelbord_connections";
/// The most connections the server holds: the file-descriptor limit less a reserve (gauge).
pub const CONNECTIONS_MAX: &str = "spelbord_connections_max";

/// The `kind` labels of [`DB_ERRORS`].
const DB_ERROR_KINDS: [&str; 4] = ["connection", "pool_timeout", "statement", "other"];

/// How far past its deadline a bot's answer may come and still count as in time: the
/// engines check the clock between steps of their search, and the answer travels back.
pub const BOT_DEADLINE_SLACK: Duration = Duration::from_millis(50);
/// Rows deleted by the retention job, by `kind` (counter).
pub const RETENTION_DELETED: &str = "spelbord_retention_deleted_total";
/// Rounds of the retention job, by `outcome`: `done`, `skipped`, `failed` (counter).
pub const RETENTION_RUNS: &str = "spelbord_retention_runs_total";

/// Histogram buckets for every `*_seconds` metric: from half a millisecond (a move on an
/// idle server) to ten seconds (the database's statement timeout).
const SECONDS_BUCKETS: &[f64] = &[
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Histogram buckets for [`MOVE_BATCH`]: from a lone move to the writer's largest batch.
const BATCH_BUCKETS: &[f64] = &[1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0];

/// How often histograms are drained into their buckets when nobody scrapes (without it
/// their samples would pile up between scrapes).
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process's Prometheus recorder (once; later calls return the same handle).
///
/// If another recorder was installed first (an embedding program's), this one is not
/// installed: its handle then renders only the descriptions, and a warning says why.
pub fn install() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .expect("the bucket list is not empty")
                .set_buckets_for_metric(Matcher::Full(MOVE_BATCH.into()), BATCH_BUCKETS)
                .expect("the bucket list is not empty");
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            if let Err(err) = metrics::set_global_recorder(recorder) {
                tracing::warn!(error = %err, "another metrics recorder is installed: /metrics stays empty");
            }
            describe();
            // Gauges without labels show from the first scrape, at zero; so do the counters
            // of rare events, so that an alert's `rate()` has a series before the first one.
            for name in [WS_CONNECTIONS, LOBBY_CONNECTIONS, BOT_THREADS_BUSY, BOT_SEARCHES_QUEUED] {
                gauge!(name).increment(0.0);
            }
            counter!(LEASE_TAKEOVERS).increment(0);
            for kind in DB_ERROR_KINDS {
                counter!(DB_ERRORS, "kind" => kind).increment(0);
            }
            for deadline in ["met", "missed"] {
                counter!(BOT_SEARCHES, "deadline" => deadline).increment(0);
            }
            let upkeep = handle.clone();
            let spawned = std::thread::Builder::new()
                .name("metrics-upkeep".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(UPKEEP_EVERY);
                        upkeep.run_upkeep();
                    }
                });
            if let Err(err) = spawned {
                tracing::warn!(error = %err, "could not start the metrics upkeep thread");
            }
            handle
        })
        .clone()
}

/// The `# HELP` line and unit of every metric.
fn describe() {
    describe_gauge!(WS_CONNECTIONS, "Open WebSocket connections.");
    describe_gauge!(LOBBY_CONNECTIONS, "Open lobby connections.");
    describe_counter!(
        LOBBY_SEEKS,
        "Lobby seeks and accepts, by outcome (paired, waiting, refused)."
    );
    describe_counter!(
        WS_CLOSES,
        "WebSocket connections closed, by the close code the server sent (\"none\": the client left first or the socket failed)."
    );
    describe_gauge!(TABLES, "Tables in memory (with a running actor), by game and status.");
    describe_counter!(TABLE_RESTORES, "Tables rebuilt from the database, by game.");
    describe_counter!(MOVES, "Moves played and stored, by game.");
    describe_histogram!(
        MOVE_SECONDS,
        Unit::Seconds,
        "Time from a table's actor taking up a move to the move being stored (stage=stored) and queued for every connection (stage=broadcast), by game."
    );
    describe_histogram!(
        DB_WRITE_SECONDS,
        Unit::Seconds,
        "Time of one database write (its transaction included, failed writes too), by operation."
    );
    describe_histogram!(
        MOVE_BATCH,
        "Moves stored together by one statement and commit of the group-commit writer."
    );
    describe_gauge!(
        DB_POOL_CONNECTIONS,
        "Database pool connections, idle or in use (at the scrape)."
    );
    describe_gauge!(DB_POOL_MAX, "The most connections the database pool may open.");
    describe_gauge!(BOT_THREADS, "Bot search threads running.");
    describe_gauge!(BOT_THREADS_BUSY, "Bot search threads searching now.");
    describe_gauge!(BOT_SEARCHES_QUEUED, "Bot searches waiting for a free thread.");
    describe_counter!(
        spelbord_bots::metrics::ENGINE_FALLBACKS,
        "Moves an external engine did not answer usably, played by our hard bot, by engine and reason."
    );
    describe_counter!(
        spelbord_bots::metrics::ENGINE_STARTS,
        "External engine processes started, by engine."
    );
    describe_counter!(
        RATE_LIMITED,
        "Requests or messages refused by a rate limit or a cap, by limit."
    );
    describe_counter!(
        DB_ERRORS,
        "Database errors, by kind (connection: the database cannot be reached; pool_timeout: no pool connection free in time; statement: PostgreSQL refused a statement; other)."
    );
    describe_counter!(
        LEASE_TAKEOVERS,
        "Table leases this node took from a node no longer alive (it died, stopped renewing, or shut down leaving its games in play)."
    );
    describe_gauge!(
        LEASES_HELD,
        "Table leases this node holds in the database, by node (read at each renewal)."
    );
    describe_counter!(
        BOT_SEARCHES,
        "Bot searches answered, by whether the answer came by the search's deadline (met, missed)."
    );
    describe_histogram!(
        BOT_THINK_SECONDS,
        Unit::Seconds,
        "Time a bot search ran on its thread (its wait for a thread not included), by game."
    );
    describe_gauge!(
        CONNECTIONS,
        "Open HTTP connections (WebSockets included) counted against the server's cap (at the scrape)."
    );
    describe_gauge!(
        CONNECTIONS_MAX,
        "The most connections the server holds: its file-descriptor limit less a reserve."
    );
    describe_counter!(
        RETENTION_DELETED,
        "Rows deleted by the retention job, by kind (chat, unstarted_table, finished_table, game, move)."
    );
    describe_counter!(
        RETENTION_RUNS,
        "Rounds of the retention job, by outcome (done; skipped: another node was running one; failed)."
    );
}

/// The gauge guard the search threads count themselves with, shared.
pub use spelbord_bots::metrics::Counted;

/// Counts one open WebSocket connection.
pub fn open_connection() -> Counted {
    Counted::new(WS_CONNECTIONS)
}

/// A lobby connection opened (`1`) or closed (`-1`).
pub fn lobby_connections(delta: i8) {
    gauge!(LOBBY_CONNECTIONS).increment(f64::from(delta));
}

/// A seek or an accept reached the pairing with this outcome.
pub fn lobby_seek(outcome: &'static str) {
    counter!(LOBBY_SEEKS, "outcome" => outcome).increment(1);
}

/// A WebSocket connection closed; `code` is the close code the server sent, if it sent one.
pub fn connection_closed(code: Option<u16>) {
    let code = code.map_or_else(|| "none".to_owned(), |code| code.to_string());
    counter!(WS_CLOSES, "code" => code).increment(1);
}

/// Counts one table in memory under its game and current status, while it lives.
#[derive(Debug)]
pub struct TableGauge {
    game: &'static str,
    /// The status it is counted under now; `None` before the first [`TableGauge::set`].
    status: Option<&'static str>,
}

impl TableGauge {
    /// Counts nothing until [`TableGauge::set`] (a table being rebuilt is not in memory yet).
    pub fn new(game: &'static str) -> TableGauge {
        TableGauge { game, status: None }
    }

    /// Counts the table under `status` (cheap when the status did not change).
    pub fn set(&mut self, status: &'static str) {
        if self.status == Some(status) {
            return;
        }
        if let Some(old) = self.status.replace(status) {
            gauge!(TABLES, "game" => self.game, "status" => old).decrement(1.0);
        }
        gauge!(TABLES, "game" => self.game, "status" => status).increment(1.0);
    }
}

impl Drop for TableGauge {
    fn drop(&mut self) {
        if let Some(status) = self.status {
            gauge!(TABLES, "game" => self.game, "status" => status).decrement(1.0);
        }
    }
}

/// A table was rebuilt from the database.
pub fn table_restored(game: &'static str) {
    counter!(TABLE_RESTORES, "game" => game).increment(1);
}

/// A table's move metrics, looked up once when the table starts rather than on every move
/// (a labelled look-up hashes its key and takes the registry's lock).
#[derive(Debug, Clone)]
pub struct MoveMetrics {
    moves: metrics::Counter,
    stored: metrics::Histogram,
    broadcast: metrics::Histogram,
}

impl MoveMetrics {
    pub fn new(game: &'static str) -> MoveMetrics {
        MoveMetrics {
            moves: counter!(MOVES, "game" => game),
            stored: histogram!(MOVE_SECONDS, "game" => game, "stage" => "stored"),
            broadcast: histogram!(MOVE_SECONDS, "game" => game, "stage" => "broadcast"),
        }
    }

    /// Times one move through its table, from when the actor takes it up.
    pub fn start(&self) -> MoveTimer {
        MoveTimer {
            started: Instant::now(),
        }
    }

    /// The move is stored (counted as played from here: a refused write is no move).
    pub fn stored(&self, timer: &MoveTimer) {
        self.moves.increment(1);
        self.stored.record(timer.started.elapsed());
    }

    /// The move's event is queued for every connection of the table.
    pub fn broadcast(&self, timer: MoveTimer) {
        self.broadcast.record(timer.started.elapsed());
    }
}

/// When a move was taken up (see [`MoveMetrics`]).
#[derive(Debug)]
pub struct MoveTimer {
    started: Instant,
}

/// Times one database write until dropped (so a write that fails is timed too).
#[derive(Debug)]
pub struct DbWrite {
    op: &'static str,
    started: Instant,
}

impl DbWrite {
    /// `op` names the write, e.g. `append_move`.
    pub fn start(op: &'static str) -> DbWrite {
        DbWrite {
            op,
            started: Instant::now(),
        }
    }
}

impl Drop for DbWrite {
    fn drop(&mut self) {
        histogram!(DB_WRITE_SECONDS, "op" => self.op).record(self.started.elapsed());
    }
}

/// The group-commit writer stored `moves` moves in one statement.
pub fn move_batch(moves: usize) {
    histogram!(MOVE_BATCH).record(moves as f64);
}

/// Sets the pool gauges from the pool of the server being scraped.
pub fn record_pool(pool: &sqlx::PgPool) {
    let size = f64::from(pool.size());
    let idle = pool.num_idle() as f64;
    gauge!(DB_POOL_CONNECTIONS, "state" => "idle").set(idle);
    gauge!(DB_POOL_CONNECTIONS, "state" => "in_use").set((size - idle).max(0.0));
    gauge!(DB_POOL_MAX).set(f64::from(pool.options().get_max_connections()));
}

/// Sets the connection gauges from the server being scraped: `open` connections of at
/// most `max`.
pub fn record_connections(open: usize, max: usize) {
    gauge!(CONNECTIONS).set(open as f64);
    gauge!(CONNECTIONS_MAX).set(max as f64);
}

/// A database operation failed with `err` (counted by kind; see [`DB_ERRORS`]).
pub fn db_error(err: &sqlx::Error) {
    counter!(DB_ERRORS, "kind" => db_error_kind(err)).increment(1);
}

/// The kind an error counts under: `connection` when the database could not be reached or
/// dropped the session (SQLSTATE classes 08 and 57: shutting down, not accepting
/// connections), `pool_timeout`, `statement` for another refusal, `other`.
fn db_error_kind(err: &sqlx::Error) -> &'static str {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => "connection",
        sqlx::Error::PoolTimedOut => "pool_timeout",
        sqlx::Error::Database(db) => {
            let class = db.code().map(|code| code.chars().take(2).collect::<String>());
            match class.as_deref() {
                Some("08" | "57") => "connection",
                _ => "statement",
            }
        }
        _ => "other",
    }
}

/// This node holds `held` table leases, as the database said at its renewal.
pub fn leases_held(node: &str, held: usize) {
    gauge!(LEASES_HELD, "node" => node.to_owned()).set(held as f64);
}

/// This node took a table's lease from a node no longer alive.
pub fn lease_takeover() {
    counter!(LEASE_TAKEOVERS).increment(1);
}

/// A bot's search came back to its table after running `think` on its thread; `late`
/// when it answered past its deadline (by more than [`BOT_DEADLINE_SLACK`]).
pub fn bot_answered(game: &'static str, think: Duration, late: bool) {
    histogram!(BOT_THINK_SECONDS, "game" => game).record(think);
    let deadline = if late { "missed" } else { "met" };
    counter!(BOT_SEARCHES, "deadline" => deadline).increment(1);
}

/// The retention job deleted `rows` rows of `kind` (`chat`, `unstarted_table`,
/// `finished_table`, `game`, `move`).
pub fn retention_deleted(kind: &'static str, rows: u64) {
    if rows > 0 {
        counter!(RETENTION_DELETED, "kind" => kind).increment(rows);
    }
}

/// A round of the retention job ended with `outcome` (`done`, `skipped`, `failed`).
pub fn retention_run(outcome: &'static str) {
    counter!(RETENTION_RUNS, "outcome" => outcome).increment(1);
}

/// Which limit refused something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A connection's messages per second (`limits.messages_per_second`).
    Messages,
    /// Tables one address may create per minute (`limits.tables_per_minute`).
    TableCreations,
    /// Concurrent connections from one address.
    Connections,
    /// Lobby seeks one address may send per minute (`limits.seeks_per_minute`).
    Seeks,
}

impl Limit {
    fn label(self) -> &'static str {
        match self {
            Limit::Messages => "messages",
            Limit::TableCreations => "table_creations",
            Limit::Connections => "connections",
            Limit::Seeks => "seeks",
        }
    }
}

/// A rate limit or a cap refused a request or a message.
pub fn rate_limited(limit: Limit) {
    counter!(RATE_LIMITED, "limit" => limit.label()).increment(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_recorder_sees_a_table_move_between_statuses_and_leave() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            let mut table = TableGauge::new("gomoku");
            table.set("waiting");
            table.set("waiting");
            table.set("playing");
            let text = handle.render();
            assert!(
                text.contains("spelbord_tables{game=\"gomoku\",status=\"playing\"} 1"),
                "{text}"
            );
            assert!(
                text.contains("spelbord_tables{game=\"gomoku\",status=\"waiting\"} 0"),
                "{text}"
            );
            drop(table);
            let text = handle.render();
            assert!(
                text.contains("spelbord_tables{game=\"gomoku\",status=\"playing\"} 0"),
                "{text}"
            );
        });
    }

    #[test]
    fn a_counted_thing_counts_while_it_is_kept() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            let first = open_connection();
            let second = open_connection();
            assert!(handle.render().contains("spelbord_ws_connections 2"));
            drop(first);
            drop(second);
            assert!(handle.render().contains("spelbord_ws_connections 0"));
        });
    }

    #[test]
    fn database_errors_count_by_kind() {
        assert_eq!(db_error_kind(&sqlx::Error::PoolTimedOut), "pool_timeout");
        assert_eq!(db_error_kind(&sqlx::Error::PoolClosed), "connection");
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(db_error_kind(&sqlx::Error::Io(refused)), "connection");
        assert_eq!(db_error_kind(&sqlx::Error::RowNotFound), "other");
    }

    #[test]
    fn a_close_without_a_code_is_labelled_none() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            connection_closed(Some(1012));
            connection_closed(None);
            let text = handle.render();
            assert!(text.contains("spelbord_ws_closes_total{code=\"1012\"} 1"), "{text}");
            assert!(text.contains("spelbord_ws_closes_total{code=\"none\"} 1"), "{text}");
        });
    }
}
