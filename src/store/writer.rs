//! Group commit for moves: one writer task stores the moves of every table that arrive
//! while its previous write is in flight, in one statement and one commit, and answers
//! each table when the batch is durable.
//!
//! A table waits for its own move before it announces it, exactly as with a write of its
//! own; what changes is that a hundred tables' moves cost Postgres one round trip, one
//! statement and one WAL flush instead of a hundred. A table has at most one move in
//! flight (its actor waits for it), so a batch holds at most one move per game.
//!
//! Each move carries its table's lease: the statement stores only the moves whose lease is
//! still their table's, and answers the others [`StoreError::LeaseLost`]. It holds its
//! node's write fence (migration 0010) shared until it commits, so no node takes a table
//! of this one over, nor does this one release one, while a batch is in flight; a batch
//! that waited for such a change reads the leases after it.
//!
//! Should a batch fail as a whole (a constraint broken by one of its moves, say), each of
//! its moves is written again on its own, so that one table's bad row cannot refuse
//! another table's move; in a database outage they all fail, and each table tells its
//! player `storage_unavailable` as before.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use sqlx::PgPool;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::StoreError;
use super::leases::{Lease, lease_lost};

/// The most moves one statement stores. Past it the rest wait for the next batch (the
/// statement's arrays stay a few hundred kilobytes at most).
pub const MAX_BATCH: usize = 2_000;

/// How many moves may wait for the writer before tables wait to hand theirs over.
const QUEUE: usize = 16_384;

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

struct Pending {
    mv: QueuedMove,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The handle tables write their moves through; the task starts with the first move.
#[derive(Debug, Clone, Default)]
pub struct MoveWriter {
    queue: Arc<OnceLock<mpsc::Sender<Pending>>>,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("mv", &self.mv).finish_non_exhaustive()
    }
}

impl MoveWriter {
    /// Stores `mv` with whatever other moves are waiting; returns once it is committed.
    pub async fn write(&self, pool: &PgPool, mv: QueuedMove) -> Result<(), StoreError> {
        let queue = self.queue.get_or_init(|| {
            let (queue, inbox) = mpsc::channel(QUEUE);
            tokio::spawn(run(pool.clone(), inbox));
            queue
        });
        let (done, answer) = oneshot::channel();
        queue
            .send(Pending { mv, done })
            .await
            .map_err(|_| StoreError::WriterGone)?;
        answer.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// The writer: waits for a move, takes every other one already waiting, stores them all.
async fn run(pool: PgPool, mut inbox: mpsc::Receiver<Pending>) {
    let mut batch: Vec<Pending> = Vec::with_capacity(64);
    while inbox.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let _timer = crate::metrics::DbWrite::start("move_batch");
        crate::metrics::move_batch(batch.len());
        let moves: Vec<&QueuedMove> = batch.iter().map(|pending| &pending.mv).collect();
        match store_batch(&pool, &moves).await {
            Ok(stored) => {
                for (place, pending) in batch.drain(..).enumerate() {
                    let _ = pending.done.send(answer(&stored, place, &pending.mv));
                }
            }
            Err(err) if batch.len() == 1 => {
                if let Some(pending) = batch.pop() {
                    mark_unsure(&pending.mv);
                    let _ = pending.done.send(Err(err));
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, moves = batch.len(), "a batch of moves failed; writing them one by one");
                for pending in batch.drain(..) {
                    let result = store_batch(&pool, &[&pending.mv])
                        .await
                        .inspect_err(|_| mark_unsure(&pending.mv));
                    let _ = pending
                        .done
                        .send(result.and_then(|stored| answer(&stored, 0, &pending.mv)));
                }
            }
        }
    }
}

/// A move's batch failed: it may still be running in the database (or have committed), so
/// its table's release must wait for this node's batches in flight.
fn mark_unsure(mv: &QueuedMove) {
    if let Some(lease) = &mv.lease {
        lease.mark_unsure();
    }
}

/// The answer to the move at `place` in its batch once the batch is committed: stored, or
/// refused for a lost lease.
fn answer(stored: &HashSet<usize>, place: usize, mv: &QueuedMove) -> Result<(), StoreError> {
    match (stored.contains(&place), &mv.lease) {
        (true, _) => Ok(()),
        (false, Some(lease)) => Err(lease_lost(lease)),
        // Cannot happen: a move without a lease is always inserted or the batch fails.
        (false, None) => Err(StoreError::WriterGone),
    }
}

/// One statement: the moves whose table's lease still holds, and the new deadline of each
/// of their games whose deadline changed. Returns the places in `moves` (from 0) of the
/// moves stored.
async fn store_batch(pool: &PgPool, moves: &[&QueuedMove]) -> Result<HashSet<usize>, StoreError> {
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
    // The statement is migration 0010's function: it holds the node's write fence shared,
    // then checks each move's lease with a fresh snapshot (no row lock per move).
    let stored: Vec<i64> = sqlx::query_scalar(
        "SELECT spelbord_store_moves($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[],
                                     $6::timestamptz[], $7::text[], $8::integer[], $9::bigint[])",
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
    .fetch_all(pool)
    .await?;
    // The function counts places from 1.
    Ok(stored
        .into_iter()
        .filter_map(|place| usize::try_from(place - 1).ok())
        .collect())
}

/// Every seat's clock as a Postgres `bigint[]` literal.
pub fn clocks_literal(clocks_ms: &[u64]) -> String {
    let mut text = String::with_capacity(2 + clocks_ms.len() * 8);
    text.push('{');
    for (i, ms) in clocks_ms.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&ms.min(&(i64::MAX as u64)).to_string());
    }
    text.push('}');
    text
}

#[cfg(test)]
mod tests {
    use super::clocks_literal;

    #[test]
    fn clocks_are_written_as_array_literals() {
        assert_eq!(clocks_literal(&[1000, 250]), "{1000,250}");
        assert_eq!(clocks_literal(&[]), "{}");
        assert_eq!(clocks_literal(&[u64::MAX]), format!("{{{}}}", i64::MAX));
    }
}
