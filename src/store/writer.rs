//! Group commit: one writer task stores the moves, the new tables, the seats taken and the
//! games' starts and ends of every table that arrive while its previous write is in flight,
//! in one statement and one commit, and answers each table when the batch is durable.
//!
//! A table waits for its own write before it announces it, exactly as with a write of its
//! own; what changes is that a hundred tables' moves cost Postgres one round trip, one
//! statement and one WAL flush instead of a hundred. A table has at most one write in
//! flight (its actor waits for it), so a batch holds at most one write per game, and a
//! game's start is committed before its first move is queued.
//!
//! Each write carries its table's lease. The statement (migrations 0013 and 0014's
//! `spelbord_store_batch`) stores only the moves whose lease is still their table's, and
//! answers the others [`StoreError::LeaseLost`]; a seat, a start or an end whose lease is
//! lost fails the statement, as its own statement did before, and so does a new table
//! whose id is taken. It holds its node's write fence (migration 0010) shared until it
//! commits, so no node takes a table of this one over, nor does this one release one,
//! while a batch is in flight; a batch that waited for such a change reads the leases
//! after it.
//!
//! Should a batch fail as a whole (a lost lease of a seat, start or end, or a constraint
//! broken by one of its writes), each of its writes is stored again on its own, so that one
//! table's bad write cannot refuse another table's; in a database outage they all fail,
//! and each table tells its player `storage_unavailable` as before.
//!
//! The writer keeps one pool connection from batch to batch while writes keep coming, and
//! gives it back when it has nothing to store or a statement failed ([`HeldConnection`]).
//!
//! With a linger set (`database.batch_linger_ms`, 1 ms by default), a batch of fewer than
//! [`LINGER_BELOW`] writes waits up to that long for more before it is stored, when the
//! batch before it held at least [`LINGER_AFTER`]: fewer, larger batches under a steady
//! load, each write later by at most the linger; a quiet server never waits
//! (docs/operations.md).

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::{PgExecutor, PgPool, Postgres};
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::StoreError;
use super::leases::{Lease, lease_error, lease_lost};

/// The most writes one statement stores. Past it the rest wait for the next batch (the
/// statement's arrays stay a few hundred kilobytes at most).
pub const MAX_BATCH: usize = 2_000;

/// How many writes may wait for the writer before tables wait to hand theirs over.
const QUEUE: usize = 16_384;

/// A batch of fewer writes than this waits for the linger, when one is set
/// (`database.batch_linger_ms`) and the writes come often enough, until it holds this many
/// or the linger is over; a larger one is stored at once.
pub const LINGER_BELOW: usize = 16;

/// The writes the batch before must have held for a small batch to linger: at a rate
/// where a batch's store gathers no more than a few, waiting would only make each write
/// later.
pub const LINGER_AFTER: usize = 4;

/// Whether a batch of `waiting` writes waits for more before it is stored, the batch
/// before it having held `previous`.
fn lingers(linger: Duration, previous: usize, waiting: usize) -> bool {
    !linger.is_zero() && previous >= LINGER_AFTER && waiting < LINGER_BELOW
}

/// One move, ready for the database.
#[derive(Debug)]
pub struct QueuedMove {
    pub game_id: Uuid,
    pub ply: i32,
    pub seat: i16,
    /// The move as JSON text.
    pub payload: String,
    /// Every seat's clock after the move, as a Postgres array literal (`{1000,2000}`).
    pub clocks_ms: Option<String>,
    /// The game's new deadline (timed games in progress).
    pub deadline: Option<OffsetDateTime>,
    /// The table's lease, which must still be its when the move is stored (`None`: a
    /// store that serves no lease, in tools and tests).
    pub lease: Option<Arc<Lease>>,
}

/// A new table, a seat taken, or a game's start or end, ready for the database: one JSON
/// object of the batch function's `new_tables`, `seat_takes`, `starts` or `ends` (written
/// by `store::tables` and `store::games`).
#[derive(Debug)]
pub struct QueuedJson {
    pub json: String,
    /// The table's lease, checked by the statement (`None`: no lease, in tools and tests).
    pub lease: Option<Arc<Lease>>,
}

/// One write for the group commit.
#[derive(Debug)]
pub enum Write {
    Move(QueuedMove),
    Table(QueuedJson),
    Seat(QueuedJson),
    Start(QueuedJson),
    End(QueuedJson),
}

impl Write {
    fn lease(&self) -> Option<&Arc<Lease>> {
        match self {
            Write::Move(mv) => mv.lease.as_ref(),
            Write::Table(queued) | Write::Seat(queued) | Write::Start(queued) | Write::End(queued) => {
                queued.lease.as_ref()
            }
        }
    }
}

struct Pending {
    write: Write,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The handle tables write through; the task starts with the first write.
#[derive(Debug, Clone, Default)]
pub struct BatchWriter {
    queue: Arc<OnceLock<mpsc::Sender<Pending>>>,
    /// How long a batch of fewer than [`LINGER_BELOW`] writes waits for more (zero: not
    /// at all).
    linger: Duration,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("write", &self.write)
            .finish_non_exhaustive()
    }
}

impl BatchWriter {
    /// A writer whose small batches wait `linger` for more writes before they are stored.
    pub fn with_linger(linger: Duration) -> BatchWriter {
        BatchWriter {
            queue: Arc::default(),
            linger,
        }
    }

    /// Stores `write` with whatever other writes are waiting; returns once it is committed.
    pub async fn write(&self, pool: &PgPool, write: Write) -> Result<(), StoreError> {
        let queue = self.queue.get_or_init(|| {
            let (queue, inbox) = mpsc::channel(QUEUE);
            tokio::spawn(run(pool.clone(), inbox, self.linger));
            queue
        });
        let (done, answer) = oneshot::channel();
        queue
            .send(Pending { write, done })
            .await
            .map_err(|_| StoreError::WriterGone)?;
        answer.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// The writer: waits for a write, takes every other one already waiting, stores them all.
async fn run(pool: PgPool, mut inbox: mpsc::Receiver<Pending>, linger: Duration) {
    let mut batch: Vec<Pending> = Vec::with_capacity(64);
    // How many writes the batch before held: the evidence of traffic the linger waits on.
    let mut previous = 0;
    let mut connection = HeldConnection::from(pool);
    loop {
        if inbox.is_empty() {
            // Idle: the connection goes back to the pool (which closes only once every
            // connection is back) until the next write comes.
            connection.release();
        }
        if inbox.recv_many(&mut batch, MAX_BATCH).await == 0 {
            break;
        }
        if lingers(linger, previous, batch.len()) {
            // Fewer round trips and commits for the same writes, each write later by at
            // most `linger`.
            let until = tokio::time::Instant::now() + linger;
            while batch.len() < LINGER_BELOW {
                let room = MAX_BATCH - batch.len();
                let more = inbox.recv_many(&mut batch, room);
                match tokio::time::timeout_at(until, more).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
        previous = batch.len();
        let _timer = crate::metrics::DbWrite::start("move_batch");
        let writes: Vec<&Write> = batch.iter().map(|pending| &pending.write).collect();
        let parts = Parts::of(&writes);
        crate::metrics::move_batch(parts.moves.len());
        match connection.store_batch(&parts).await {
            Ok(stored) => {
                let mut move_place = 0;
                for pending in batch.drain(..) {
                    let answer = match &pending.write {
                        Write::Move(mv) => {
                            move_place += 1;
                            answer(&stored, move_place - 1, mv)
                        }
                        Write::Table(_) | Write::Seat(_) | Write::Start(_) | Write::End(_) => Ok(()),
                    };
                    let _ = pending.done.send(answer);
                }
            }
            Err(err) if batch.len() == 1 => {
                if let Some(pending) = batch.pop() {
                    mark_unsure(&pending.write);
                    let _ = pending
                        .done
                        .send(Err(lease_error(err, pending.write.lease().map(Arc::as_ref))));
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, writes = batch.len(), "a batch of writes failed; storing them one by one");
                for pending in batch.drain(..) {
                    let result = store_alone(&mut connection, &pending.write).await;
                    let _ = pending.done.send(result);
                }
            }
        }
    }
}

/// The writer's connection, kept from batch to batch while writes keep coming: taking one
/// from the pool for each batch would cost a round trip more (the pool pings a connection
/// before it hands it out), a wake-up of PostgreSQL and of the writer, on every batch.
struct HeldConnection {
    pool: PgPool,
    held: Option<PoolConnection<Postgres>>,
}

impl From<PgPool> for HeldConnection {
    /// None held yet: the first batch takes one from `pool`.
    fn from(pool: PgPool) -> HeldConnection {
        HeldConnection { pool, held: None }
    }
}

impl HeldConnection {
    /// Gives the connection back to the pool.
    fn release(&mut self) {
        self.held = None;
    }

    /// Stores `parts` on the held connection (taken from the pool first when there is none).
    /// After a failed statement the connection goes back to the pool, which tests it before
    /// it hands it out again: the failure may have been its end (a backend terminated
    /// answers with an error before it closes the socket), and the next statement takes
    /// one that works.
    async fn store_batch(&mut self, parts: &Parts<'_>) -> Result<HashSet<usize>, sqlx::Error> {
        let connection = match &mut self.held {
            Some(connection) => connection,
            None => self.held.insert(self.pool.acquire().await?),
        };
        let result = store_batch(&mut **connection, parts).await;
        if result.is_err() {
            self.release();
        }
        result
    }
}

/// Stores one write in a batch of its own.
async fn store_alone(connection: &mut HeldConnection, write: &Write) -> Result<(), StoreError> {
    let parts = Parts::of(&[write]);
    match connection.store_batch(&parts).await {
        Ok(stored) => match write {
            Write::Move(mv) => answer(&stored, 0, mv),
            Write::Table(_) | Write::Seat(_) | Write::Start(_) | Write::End(_) => Ok(()),
        },
        Err(err) => {
            mark_unsure(write);
            Err(lease_error(err, write.lease().map(Arc::as_ref)))
        }
    }
}

/// A write's batch failed: it may still be running in the database (or have committed),
/// so its table's release must wait for this node's batches in flight.
fn mark_unsure(write: &Write) {
    if let Some(lease) = write.lease() {
        lease.mark_unsure();
    }
}

/// The answer to the move at `place` among its batch's moves once the batch is committed:
/// stored, or refused for a lost lease.
fn answer(stored: &HashSet<usize>, place: usize, mv: &QueuedMove) -> Result<(), StoreError> {
    match (stored.contains(&place), &mv.lease) {
        (true, _) => Ok(()),
        (false, Some(lease)) => Err(lease_lost(lease)),
        // Cannot happen: a move without a lease is always inserted or the batch fails.
        (false, None) => Err(StoreError::WriterGone),
    }
}

/// A batch's writes sorted by kind, in the order they came.
#[derive(Debug, Default)]
pub(super) struct Parts<'a> {
    moves: Vec<&'a QueuedMove>,
    tables: Vec<&'a str>,
    seats: Vec<&'a str>,
    starts: Vec<&'a str>,
    ends: Vec<&'a str>,
}

impl<'a> Parts<'a> {
    fn of(writes: &[&'a Write]) -> Parts<'a> {
        let mut parts = Parts::default();
        for write in writes {
            match write {
                Write::Move(mv) => parts.moves.push(mv),
                Write::Table(queued) => parts.tables.push(&queued.json),
                Write::Seat(queued) => parts.seats.push(&queued.json),
                Write::Start(queued) => parts.starts.push(&queued.json),
                Write::End(queued) => parts.ends.push(&queued.json),
            }
        }
        parts
    }

    /// A batch of one game's end (a rated game's, in its rating transaction).
    pub(super) fn end(json: &'a str) -> Parts<'a> {
        Parts {
            ends: vec![json],
            ..Parts::default()
        }
    }
}

/// JSON objects as one JSON array.
fn json_array(objects: &[&str]) -> String {
    let mut text = String::with_capacity(2 + objects.iter().map(|object| object.len() + 1).sum::<usize>());
    text.push('[');
    for (i, object) in objects.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(object);
    }
    text.push(']');
    text
}

/// One statement: the new tables, the seats, the starts, the moves whose table's lease
/// still holds (with the new deadline of each of their games whose deadline changed), and
/// the ends. Returns the places among `parts.moves` (from 0) of the moves stored.
pub(super) async fn store_batch<'c>(
    executor: impl PgExecutor<'c>,
    parts: &Parts<'_>,
) -> Result<HashSet<usize>, sqlx::Error> {
    let moves = &parts.moves;
    let mut game_ids = Vec::with_capacity(moves.len());
    let mut plies = Vec::with_capacity(moves.len());
    let mut seats = Vec::with_capacity(moves.len());
    let mut payloads = Vec::with_capacity(moves.len());
    let mut clocks = Vec::with_capacity(moves.len());
    let mut deadlines = Vec::with_capacity(moves.len());
    let mut tables = Vec::with_capacity(moves.len());
    let mut nodes = Vec::with_capacity(moves.len());
    let mut epochs = Vec::with_capacity(moves.len());
    for mv in moves {
        game_ids.push(mv.game_id);
        plies.push(mv.ply);
        seats.push(mv.seat);
        payloads.push(mv.payload.as_str());
        clocks.push(mv.clocks_ms.as_deref());
        deadlines.push(mv.deadline);
        tables.push(mv.lease.as_ref().map(|lease| lease.table_id.as_str()));
        nodes.push(mv.lease.as_ref().map(|lease| lease.node));
        epochs.push(mv.lease.as_ref().map(|lease| lease.epoch));
    }
    // Migration 0013's function: it holds the node's write fence shared, stores the new
    // tables, the seats and the starts, then the moves whose lease holds (each looked up
    // with a fresh snapshot, no row lock per move) once their games are checked, then the
    // ends.
    let stored: Vec<i64> = sqlx::query_scalar(
        "SELECT spelbord_store_batch($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[],
                                     $6::timestamptz[], $7::text[], $8::integer[], $9::bigint[],
                                     $10::jsonb, $11::jsonb, $12::jsonb, $13::jsonb)",
    )
    .bind(&game_ids)
    .bind(&plies)
    .bind(&seats)
    .bind(&payloads)
    .bind(&clocks)
    .bind(&deadlines)
    .bind(&tables)
    .bind(&nodes)
    .bind(&epochs)
    .bind(json_array(&parts.tables))
    .bind(json_array(&parts.seats))
    .bind(json_array(&parts.starts))
    .bind(json_array(&parts.ends))
    .fetch_all(executor)
    .await?;
    // The function counts places from 1.
    Ok(stored
        .into_iter()
        .filter_map(|place| usize::try_from(place - 1).ok())
        .collect())
}

/// Integers (every seat's clock, a game's winners) as a Postgres `bigint[]` literal
/// (`{1000,250}`); values past `i64::MAX` are written as `i64::MAX`.
pub fn int_array_literal(values: &[u64]) -> String {
    let mut text = String::with_capacity(2 + values.len() * 8);
    text.push('{');
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&value.min(&(i64::MAX as u64)).to_string());
    }
    text.push('}');
    text
}

#[cfg(test)]
mod tests {
    use super::{LINGER_AFTER, LINGER_BELOW, int_array_literal, json_array, lingers};
    use std::time::Duration;

    #[test]
    fn a_small_batch_lingers_only_with_a_linger_set_and_after_a_busy_batch() {
        let ms = Duration::from_millis(1);
        assert!(lingers(ms, LINGER_AFTER, 1));
        assert!(lingers(ms, 500, LINGER_BELOW - 1));
        // A batch large enough already goes at once.
        assert!(!lingers(ms, 500, LINGER_BELOW));
        // A quiet writer (the batch before held fewer than LINGER_AFTER) never waits.
        assert!(!lingers(ms, 0, 1));
        assert!(!lingers(ms, LINGER_AFTER - 1, 1));
        // No linger set: never.
        assert!(!lingers(Duration::ZERO, 500, 1));
    }

    #[test]
    fn json_objects_are_joined_into_an_array() {
        assert_eq!(json_array(&[]), "[]");
        assert_eq!(json_array(&[r#"{"a":1}"#]), r#"[{"a":1}]"#);
        assert_eq!(json_array(&[r#"{"a":1}"#, r#"{"b":[2]}"#]), r#"[{"a":1},{"b":[2]}]"#);
    }

    #[test]
    fn integers_are_written_as_array_literals() {
        assert_eq!(int_array_literal(&[1000, 250]), "{1000,250}");
        assert_eq!(int_array_literal(&[]), "{}");
        assert_eq!(int_array_literal(&[u64::MAX]), format!("{{{}}}", i64::MAX));
    }
}
