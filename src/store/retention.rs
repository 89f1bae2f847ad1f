//! Data retention (docs/operations.md, "Data retention"): what is deleted, and the job that
//! deletes it.
//!
//! Three kinds of data go (each after `retention.*_days`; 0 keeps it for good):
//! - **chat lines** older than `chat_days`, at every table;
//! - **unstarted tables**: no game ever started there, and nobody sat, chatted or opened
//!   the table (a node took its lease) for `unstarted_table_days`;
//! - **finished casual tables**: every game finished and none rated, no series in play,
//!   and nobody played, sat, chatted or opened the table for `finished_casual_table_days`;
//!   deleted whole: games, moves, results, players, series, seats, chat.
//!
//! Kept for good: every table with a rated game (its games, results and the rating history
//! the players' ratings were computed from), the ratings, tables with a game or a series in
//! play, and the won-game statistics (`game_stats`, counts without names).
//!
//! # One node at a time, in small batches
//! A round runs on a connection of its own (never one of the tables' pool), holding the
//! session-level advisory lock `(SPLR, 0)` for the whole round: a node that finds it taken
//! skips its round. A transaction-level lock would not do, as a round commits every batch.
//! Each statement deletes at most `batch_rows` rows (chat lines, moves), commits without
//! waiting for the disk (`synchronous_commit = off`: a deletion lost in a crash is done
//! again next round), and waits at most [`LOCK_TIMEOUT`] for a lock. Deleting games takes
//! the `moves` table in SHARE ROW EXCLUSIVE mode (its trigger, migration 0013), which every
//! batch of moves of every table waits behind, and so does every batch asking while the
//! deletion waits for it: that lock is waited for at most [`MOVES_LOCK_TIMEOUT`], and not
//! asked for while a vacuum or an index build holds `moves` (for minutes, maybe); the rest
//! of the sweep then waits for the next round.
//!
//! Tables are found by a sweep in the order they were made (`tables_created_at`, migration
//! 0018), a page of `batch_rows` tables at a time, from where the last round stopped
//! (`retention_sweeps`): tables kept for good are read once a sweep, not at every round.
//! A table is deleted only under its lease row's lock (`FOR UPDATE SKIP LOCKED`), held by no
//! live node and taken before the cutoff, and only after everything is checked again under
//! that lock: every write a table makes needs its lease held by a live node, so no node can
//! start serving (or writing to) a table while it is being deleted. Its moves are deleted
//! first, `batch_rows` at a time, then its chat, seats and listing, then its games (the
//! `moves` lock, with no move left to delete), then the table: the lock every batch of moves
//! waits behind is held only for the last two statements and the commit (some 5–25 ms for
//! 50 tables with 80 moves each, measured: docs/operations.md).

use std::time::Duration;

use sqlx::{Connection, PgConnection};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{Store, StoreError};
use crate::config::RetentionSettings;

/// The first key of the retention job's advisory lock (`SPLR`); the second is 0.
pub const LOCK_SPACE: i32 = 0x5350_4C52;

/// The longest a deletion waits for a lock (PostgreSQL's `lock_timeout`) before it gives
/// up until the next round.
pub const LOCK_TIMEOUT: Duration = Duration::from_millis(200);

/// The longest a deletion of tables waits for the `moves` table's SHARE ROW EXCLUSIVE lock
/// (batches of moves in flight hold it for a millisecond or so; every batch after the
/// request waits behind it): then the rest of the round's sweep waits for the next round.
pub const MOVES_LOCK_TIMEOUT: Duration = Duration::from_millis(20);

/// The first round runs this long after the node starts (or after one interval, when
/// that is shorter): not in the busy moments of a start, and not never on a node that is
/// restarted more often than the interval.
const FIRST_ROUND_AFTER: Duration = Duration::from_secs(60);

/// SQLSTATE `lock_not_available`: a lock not granted within the lock timeout.
const LOCK_NOT_AVAILABLE: &str = "55P03";

/// How much one round may do; the next round goes on from there.
#[derive(Debug, Clone, Copy)]
pub struct RoundLimits {
    /// Statements deleting chat lines (each at most `batch_rows`).
    pub chat_batches: u32,
    /// Pages of the sweep over tables (each `batch_rows` tables read).
    pub pages: u32,
    /// The pause after each batch, so that the job never holds the database for long.
    pub pause: Duration,
    /// A round stops starting new batches after this long.
    pub time: Duration,
}

impl Default for RoundLimits {
    fn default() -> RoundLimits {
        RoundLimits {
            chat_batches: 100,
            pages: 20,
            pause: Duration::from_millis(20),
            time: Duration::from_secs(60),
        }
    }
}

/// What one round deleted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Deleted {
    pub chat: u64,
    pub unstarted_tables: u64,
    pub finished_tables: u64,
    /// Games of the deleted tables.
    pub games: u64,
    /// Moves of those games.
    pub moves: u64,
}

/// What a round did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub deleted: Deleted,
    /// Tables the sweep read.
    pub swept: u64,
    /// The sweep reached the newest table it may delete, and starts again next round.
    pub sweep_done: bool,
    /// Tables found deletable but left for the next round (and the rest of the round's
    /// sweep with them): the `moves` lock was not granted in time, or a vacuum held it.
    pub deferred: u64,
    /// The longest the round held `moves` in SHARE ROW EXCLUSIVE mode (every batch of
    /// moves waits behind it), at most: from the deletion of one transaction's games to
    /// its commit.
    pub longest_moves_lock: Duration,
}

/// How a round went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Round {
    /// This node ran it.
    Ran(Report),
    /// Another node is running a round.
    Skipped,
}

/// `days` as the SQL parameter: `None` (keep for good) for 0.
fn days(days: u32) -> Option<i32> {
    (days > 0).then(|| i32::try_from(days).unwrap_or(i32::MAX))
}

/// Runs one round with the default limits (see [`run_round_with`]).
pub async fn run_round(store: &Store, settings: &RetentionSettings) -> Result<Round, StoreError> {
    run_round_with(store, settings, RoundLimits::default()).await
}

/// Runs one round: deletes what `settings` says is old enough, within `limits`, unless
/// another node is running one ([`Round::Skipped`]). Counted in
/// `spelbord_retention_runs_total` and `spelbord_retention_deleted_total`.
pub async fn run_round_with(
    store: &Store,
    settings: &RetentionSettings,
    limits: RoundLimits,
) -> Result<Round, StoreError> {
    let round = run(store, settings, limits).await;
    crate::metrics::retention_run(match &round {
        Ok(Round::Ran(_)) => "done",
        Ok(Round::Skipped) => "skipped",
        Err(_) => "failed",
    });
    round
}

async fn run(store: &Store, settings: &RetentionSettings, limits: RoundLimits) -> Result<Round, StoreError> {
    let options = store.pool().connect_options();
    let mut conn = PgConnection::connect_with(&options).await?;
    let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1, 0)")
        .bind(LOCK_SPACE)
        .fetch_one(&mut conn)
        .await?;
    if !locked {
        let _ = conn.close().await;
        return Ok(Round::Skipped);
    }
    let mut job = Job {
        conn,
        batch: i64::from(settings.batch_rows.max(1)),
        tables_per_transaction: (settings.batch_rows / 10).max(1) as usize,
        limits,
        until: Instant::now() + limits.time,
        report: Report::default(),
    };
    let ran = job.round(settings).await;
    // Closing the session releases the lock (as the session's end would, should this fail).
    let Job { conn, report, .. } = job;
    let _ = conn.close().await;
    ran?;
    Ok(Round::Ran(report))
}

/// One round in progress, on its own connection.
struct Job {
    conn: PgConnection,
    /// `batch_rows`.
    batch: i64,
    tables_per_transaction: usize,
    limits: RoundLimits,
    until: Instant,
    report: Report,
}

/// A table found deletable, and why.
#[derive(Debug, Clone, sqlx::FromRow)]
struct Doomed {
    id: String,
    unstarted: bool,
}

/// Which of the tables `$1` may be deleted now (`unstarted`: no game ever started), with
/// `$2` and `$3` the days of unstarted and of finished casual tables (NULL: kept). Every
/// lookup is by a table's key, in an index on it.
const DELETABLE: &str = "
    WITH alive AS MATERIALIZED (SELECT id FROM nodes WHERE spelbord_node_alive(id))
    SELECT t.id, NOT EXISTS (SELECT 1 FROM games g WHERE g.table_id = t.id) AS unstarted
      FROM tables t JOIN table_leases l ON l.table_id = t.id
     WHERE t.id = ANY ($1)
       AND (l.node IS NULL OR l.node NOT IN (SELECT id FROM alive))
       AND CASE WHEN NOT EXISTS (SELECT 1 FROM games g WHERE g.table_id = t.id)
                THEN greatest(t.created_at, l.acquired_at,
                              (SELECT max(s.sat_at) FROM seats s WHERE s.table_id = t.id),
                              (SELECT max(c.sent_at) FROM chat_messages c WHERE c.table_id = t.id))
                     < now() - make_interval(days => $2::integer)
                ELSE NOT EXISTS (SELECT 1 FROM games g
                                  WHERE g.table_id = t.id AND (g.rated OR g.status = 'playing'))
                 AND NOT EXISTS (SELECT 1 FROM series s WHERE s.table_id = t.id AND s.status = 'playing')
                 AND greatest(t.created_at, l.acquired_at,
                              (SELECT max(greatest(g.started_at, g.ended_at)) FROM games g WHERE g.table_id = t.id),
                              (SELECT max(s.sat_at) FROM seats s WHERE s.table_id = t.id),
                              (SELECT max(c.sent_at) FROM chat_messages c WHERE c.table_id = t.id))
                     < now() - make_interval(days => $3::integer)
           END
     ORDER BY t.id";

impl Job {
    async fn round(&mut self, settings: &RetentionSettings) -> Result<(), StoreError> {
        // Every statement planned for its values: a generic plan knows neither the `LIMIT`
        // nor the number of ids, and hashed the whole of `chat_messages` (or `moves`) where
        // an index finds the few rows.
        sqlx::query(
            "SELECT set_config('synchronous_commit', 'off', false), set_config('lock_timeout', $1, false),
                    set_config('plan_cache_mode', 'force_custom_plan', false)",
        )
        .bind(format!("{}ms", LOCK_TIMEOUT.as_millis()))
        .execute(&mut self.conn)
        .await?;
        if let Some(chat_days) = days(settings.chat_days) {
            self.chat(chat_days).await?;
        }
        let unstarted = days(settings.unstarted_table_days);
        let finished = days(settings.finished_casual_table_days);
        if let Some(sweep_days) = unstarted.into_iter().chain(finished).min() {
            self.tables(sweep_days, unstarted, finished).await?;
        }
        Ok(())
    }

    fn out_of_time(&self) -> bool {
        Instant::now() >= self.until
    }

    async fn pause(&self) {
        tokio::time::sleep(self.limits.pause).await;
    }

    /// Chat lines older than `chat_days`, oldest first, `batch_rows` a statement.
    async fn chat(&mut self, chat_days: i32) -> Result<(), StoreError> {
        for _ in 0..self.limits.chat_batches {
            if self.out_of_time() {
                break;
            }
            let gone = {
                let _timer = crate::metrics::DbWrite::start("retention_chat");
                sqlx::query(
                    "DELETE FROM chat_messages WHERE id IN (
                         SELECT id FROM chat_messages
                          WHERE sent_at < now() - make_interval(days => $1)
                          ORDER BY sent_at LIMIT $2
                          FOR UPDATE SKIP LOCKED)",
                )
                .bind(chat_days)
                .bind(self.batch)
                .execute(&mut self.conn)
                .await?
                .rows_affected()
            };
            self.report.deleted.chat += gone;
            crate::metrics::retention_deleted("chat", gone);
            if gone < self.batch as u64 {
                break;
            }
            self.pause().await;
        }
        Ok(())
    }

    /// The sweep over tables made before `sweep_days` ago: page after page from where it
    /// stopped, deleting those found deletable. The sweep's place moves past a page once
    /// every deletable table of it is deleted; a page left unfinished (the `moves` lock
    /// busy) is read again next round.
    async fn tables(
        &mut self,
        sweep_days: i32,
        unstarted: Option<i32>,
        finished: Option<i32>,
    ) -> Result<(), StoreError> {
        for _ in 0..self.limits.pages {
            if self.out_of_time() {
                break;
            }
            // The page's times as text: the sweep's place starts at '-infinity'.
            let page: Vec<(String, String)> = sqlx::query_as(
                "SELECT t.id, t.created_at::text FROM tables t
                  WHERE t.created_at < now() - make_interval(days => $1)
                    AND (t.created_at, t.id) >
                        (coalesce((SELECT after_created FROM retention_sweeps WHERE name = 'tables'), '-infinity'),
                         coalesce((SELECT after_id FROM retention_sweeps WHERE name = 'tables'), ''))
                  ORDER BY t.created_at, t.id
                  LIMIT $2",
            )
            .bind(sweep_days)
            .bind(self.batch)
            .fetch_all(&mut self.conn)
            .await?;
            self.report.swept += page.len() as u64;
            let ids: Vec<String> = page.iter().map(|(id, _)| id.clone()).collect();
            if !ids.is_empty() && !self.delete_page(&ids, unstarted, finished).await? {
                break;
            }
            // Past this page, or back to the start after the last one.
            let last_page = (page.len() as i64) < self.batch;
            let (after_created, after_id) = match page.last() {
                Some((id, created)) if !last_page => (created.as_str(), id.as_str()),
                _ => ("-infinity", ""),
            };
            sqlx::query(
                "INSERT INTO retention_sweeps AS s (name, after_created, after_id, updated_at)
                 VALUES ('tables', $1::timestamptz, $2, now())
                 ON CONFLICT (name) DO UPDATE
                    SET after_created = EXCLUDED.after_created, after_id = EXCLUDED.after_id,
                        updated_at = EXCLUDED.updated_at",
            )
            .bind(after_created)
            .bind(after_id)
            .execute(&mut self.conn)
            .await?;
            if last_page {
                self.report.sweep_done = true;
                break;
            }
            self.pause().await;
        }
        Ok(())
    }

    /// Deletes the deletable tables of a page, a few a transaction; false when the `moves`
    /// lock was busy and the rest waits for the next round.
    async fn delete_page(
        &mut self,
        page: &[String],
        unstarted: Option<i32>,
        finished: Option<i32>,
    ) -> Result<bool, StoreError> {
        let doomed: Vec<Doomed> = sqlx::query_as(DELETABLE)
            .bind(page)
            .bind(unstarted)
            .bind(finished)
            .fetch_all(&mut self.conn)
            .await?;
        let doomed: Vec<String> = doomed.into_iter().map(|table| table.id).collect();
        let mut chunks = doomed.chunks(self.tables_per_transaction);
        while let Some(ids) = chunks.next() {
            if self.out_of_time() {
                return Ok(false);
            }
            let busy = !self.moves_lock_free().await?
                || match self.delete_tables(ids, unstarted, finished).await {
                    Ok(()) => false,
                    Err(err) if lock_not_granted(&err) => true,
                    Err(err) => return Err(err),
                };
            if busy {
                let left = ids.len() + chunks.map(<[String]>::len).sum::<usize>();
                tracing::info!(
                    tables = left,
                    "retention: the moves table is busy; those tables wait for the next round"
                );
                self.report.deferred += left as u64;
                return Ok(false);
            }
            self.pause().await;
        }
        Ok(true)
    }

    /// No one holds `moves` in a mode that conflicts with the deletion's: a vacuum (which
    /// may hold it for minutes) or an index being built. Waiting behind it would make
    /// every batch of moves wait behind the deletion's request.
    async fn moves_lock_free(&mut self) -> Result<bool, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT NOT EXISTS (
                 SELECT 1 FROM pg_locks
                  WHERE locktype = 'relation' AND relation = 'moves'::regclass AND granted
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND mode IN ('ShareUpdateExclusiveLock', 'ShareLock', 'ShareRowExclusiveLock',
                                 'ExclusiveLock', 'AccessExclusiveLock'))",
        )
        .fetch_one(&mut self.conn)
        .await?)
    }

    /// Deletes the tables `ids` (found deletable) that still are under their lease's lock,
    /// in one transaction.
    async fn delete_tables(
        &mut self,
        ids: &[String],
        unstarted: Option<i32>,
        finished: Option<i32>,
    ) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("retention_tables");
        let mut tx = self.conn.begin().await?;
        // No node may take the lease of a table being deleted: those that no live node
        // holds are locked (a lease being taken is skipped), then everything is checked
        // again with what committed before the locks.
        let locked: Vec<String> = sqlx::query_scalar(
            "WITH alive AS MATERIALIZED (SELECT id FROM nodes WHERE spelbord_node_alive(id))
             SELECT l.table_id FROM table_leases l
              WHERE l.table_id = ANY ($1) AND (l.node IS NULL OR l.node NOT IN (SELECT id FROM alive))
              ORDER BY l.table_id
              FOR UPDATE OF l SKIP LOCKED",
        )
        .bind(ids)
        .fetch_all(&mut *tx)
        .await?;
        if locked.is_empty() {
            return Ok(());
        }
        let sure: Vec<Doomed> = sqlx::query_as(DELETABLE)
            .bind(&locked)
            .bind(unstarted)
            .bind(finished)
            .fetch_all(&mut *tx)
            .await?;
        if sure.is_empty() {
            return Ok(());
        }
        let sure_ids: Vec<&str> = sure.iter().map(|table| table.id.as_str()).collect();
        // Their moves first, a batch a statement: only these games' rows are locked.
        let mut moves = 0;
        loop {
            let gone = sqlx::query(
                "DELETE FROM moves m USING (
                     SELECT d.game_id, d.ply FROM games g JOIN moves d ON d.game_id = g.id
                      WHERE g.table_id = ANY ($1) LIMIT $2) d
                  WHERE m.game_id = d.game_id AND m.ply = d.ply",
            )
            .bind(&sure_ids)
            .bind(self.batch)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            moves += gone;
            if gone < self.batch as u64 {
                break;
            }
        }
        // What would cascade from the table, before its games take the `moves` lock.
        for statement in [
            "DELETE FROM chat_messages WHERE table_id = ANY ($1)",
            "DELETE FROM seats WHERE table_id = ANY ($1)",
            "DELETE FROM lobby_listings WHERE table_id = ANY ($1)",
        ] {
            sqlx::query(statement).bind(&sure_ids).execute(&mut *tx).await?;
        }
        // The games (their players and results), then the tables (their series and lease).
        // The games' trigger takes `moves` in SHARE ROW EXCLUSIVE mode once their rows are
        // gone (it finds no move left to delete), waiting for it only briefly: while it
        // waits, every batch of moves waits behind it. Held from there to the commit.
        sqlx::query("SELECT set_config('lock_timeout', $1, true)")
            .bind(format!("{}ms", MOVES_LOCK_TIMEOUT.as_millis()))
            .execute(&mut *tx)
            .await?;
        let locked_at = std::time::Instant::now();
        let games = sqlx::query("DELETE FROM games WHERE table_id = ANY ($1)")
            .bind(&sure_ids)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM tables WHERE id = ANY ($1)")
            .bind(&sure_ids)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let held = locked_at.elapsed();
        self.report.longest_moves_lock = self.report.longest_moves_lock.max(held);
        let unstarted_tables = sure.iter().filter(|table| table.unstarted).count() as u64;
        let finished_tables = sure.len() as u64 - unstarted_tables;
        let deleted = &mut self.report.deleted;
        deleted.unstarted_tables += unstarted_tables;
        deleted.finished_tables += finished_tables;
        deleted.games += games;
        deleted.moves += moves;
        crate::metrics::retention_deleted("unstarted_table", unstarted_tables);
        crate::metrics::retention_deleted("finished_table", finished_tables);
        crate::metrics::retention_deleted("game", games);
        crate::metrics::retention_deleted("move", moves);
        Ok(())
    }
}

/// The statement gave up waiting for a lock (`lock_timeout`).
fn lock_not_granted(err: &StoreError) -> bool {
    match err {
        StoreError::Database(err) => err
            .as_database_error()
            .and_then(|db| db.code())
            .is_some_and(|code| code == LOCK_NOT_AVAILABLE),
        _ => false,
    }
}

/// Starts the node's retention job (unless `retention.enabled` is off): a round a minute
/// after start (or one interval, when shorter), then every `retention.interval_seconds`,
/// until `shutdown`. A round another node is running is skipped; a round cut short by the
/// shutdown is rolled back where it was (its connection closes).
pub fn spawn(store: Store, settings: RetentionSettings, shutdown: CancellationToken) {
    if !settings.enabled {
        tracing::info!("data retention is off on this node");
        return;
    }
    tokio::spawn(async move {
        let first = settings.interval().min(FIRST_ROUND_AFTER);
        let mut rounds = tokio::time::interval_at(Instant::now() + first, settings.interval());
        rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                _ = rounds.tick() => {}
            }
            let round = tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                round = run_round(&store, &settings) => round,
            };
            log(&round);
        }
    });
}

fn log(round: &Result<Round, StoreError>) {
    match round {
        Ok(Round::Ran(report)) => {
            let Report {
                deleted,
                swept,
                sweep_done,
                deferred,
                longest_moves_lock,
            } = report;
            if *deleted == Deleted::default() && *deferred == 0 {
                tracing::debug!(swept, sweep_done, "retention: nothing to delete");
            } else {
                tracing::info!(
                    chat = deleted.chat,
                    unstarted_tables = deleted.unstarted_tables,
                    finished_tables = deleted.finished_tables,
                    games = deleted.games,
                    moves = deleted.moves,
                    deferred,
                    swept,
                    sweep_done,
                    longest_moves_lock_ms = longest_moves_lock.as_secs_f64() * 1000.0,
                    "retention: deleted old data"
                );
            }
        }
        Ok(Round::Skipped) => tracing::debug!("retention: another node is running a round"),
        Err(err) => tracing::warn!(error = %err, "retention: the round failed; trying again at the next"),
    }
}
