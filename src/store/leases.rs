//! Queries on nodes and table leases (docs/architecture.md, "Several nodes").
//!
//! A node is one running server process: a `nodes` row it renews, and a session-level
//! advisory lock it holds on a connection of its own ([`Membership`]). A table is served by
//! the node holding its lease; every acquisition raises the lease's epoch, and every write
//! a table makes checks its (node, epoch) in the same statement or transaction (the SQL
//! function `spelbord_hold_lease`; the group commit's `spelbord_store_batch`, behind its
//! node's write fence, in `writer`), so a node that lost a table can never store anything
//! for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection};

use super::{Store, StoreError};

/// The first key of every node's advisory lock (`SPLB`); the second is the node's id.
pub const LOCK_SPACE: i32 = 0x5350_4C42;

/// The first key of every node's write fence (`SPLW`, migration 0010): its batches of moves
/// hold it shared, and a change of one of its leases exclusively.
pub const WRITE_FENCE_SPACE: i32 = 0x5350_4C57;

/// The SQLSTATE `spelbord_hold_lease` fails with when another node holds the table.
const LEASE_LOST_STATE: &str = "SPL01";

/// The channel a node asking for a table notifies its holder on (payload `"{holder} {table}"`).
pub const HANDOFF_CHANNEL: &str = "spelbord_handoff";

/// The payload's start on [`HANDOFF_CHANNEL`] that offers a table to any node
/// (`"adopt {table}"`), beside the requests to one node (`"{holder} {table}"`).
pub const ADOPT_PREFIX: &str = "adopt ";

/// A node's right to serve one table, as a fencing token for the table's writes.
#[derive(Debug)]
pub struct Lease {
    pub table_id: String,
    pub node: i32,
    pub epoch: i64,
    /// When this node took it (after the database said so).
    pub taken_at: std::time::Instant,
    /// Set when a write found the lease taken by another node.
    lost: AtomicBool,
    /// Set when a batch with one of the table's moves failed without the database saying
    /// whether it was stored (a broken connection, say): its release must then wait for
    /// the node's batches in flight.
    unsure: AtomicBool,
}

impl Lease {
    pub fn new(table_id: &str, node: i32, epoch: i64) -> Arc<Lease> {
        Arc::new(Lease {
            table_id: table_id.to_owned(),
            node,
            epoch,
            taken_at: std::time::Instant::now(),
            lost: AtomicBool::new(false),
            unsure: AtomicBool::new(false),
        })
    }

    /// A write found that another node holds the table now.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    fn mark_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// A write of the table may still be running in the database.
    pub fn is_unsure(&self) -> bool {
        self.unsure.load(Ordering::Acquire)
    }

    pub fn mark_unsure(&self) {
        self.unsure.store(true, Ordering::Release);
    }
}

/// The answer to asking for a table's lease.
#[derive(Debug)]
pub enum Acquired {
    /// This node holds it now, with a new epoch.
    Held(Arc<Lease>),
    /// Another live node holds it.
    Elsewhere { holder: i32 },
    /// No table has this id.
    NoTable,
    /// Nobody else holds it but this node may not take it (adopting only orphans, or this
    /// node is not alive in the database just now).
    NotTaken,
}

/// One of this node's leases as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldLease {
    pub table_id: String,
    pub epoch: i64,
    /// Another node asked for the table.
    pub wanted: bool,
    /// Taken more than a few seconds ago (a newer lease may belong to a table still being
    /// rebuilt here).
    pub settled: bool,
}

impl Store {
    /// Takes the lease of table `id` for `node` (a new epoch): when it is free, this node's
    /// already, or its holder is dead; with `orphans_only`, only when its holder is dead or
    /// it has none (adopting a game in play whose node died).
    pub async fn acquire_lease(&self, id: &str, node: i32, orphans_only: bool) -> Result<Acquired, StoreError> {
        let _timer = crate::metrics::DbWrite::start("acquire_lease");
        // `before` is the lease as this statement's snapshot saw it: a holder other than
        // this node that it replaced was dead, so the table was taken over.
        let acquired: Option<(i64, Option<i32>)> = sqlx::query_as(
            "WITH before AS (SELECT node FROM table_leases WHERE table_id = $1)
             INSERT INTO table_leases AS l (table_id, node, epoch)
             SELECT t.id, $2, 1 FROM tables t WHERE t.id = $1 AND spelbord_node_alive($2)
             ON CONFLICT (table_id) DO UPDATE
                SET node = EXCLUDED.node, epoch = l.epoch + 1, acquired_at = now(), wanted_by = NULL
              WHERE CASE WHEN ((l.node IS NULL OR l.node = EXCLUDED.node) AND NOT $3)
                               OR (l.node IS NOT NULL AND NOT spelbord_node_alive(l.node))
                         -- Waits for the old holder's batches in flight (migration 0010).
                         THEN l.node IS NULL OR spelbord_fence_node(l.node)
                         ELSE false END
             RETURNING l.epoch, (SELECT node FROM before)",
        )
        .bind(id)
        .bind(node)
        .bind(orphans_only)
        .fetch_optional(self.pool())
        .await?;
        if let Some((epoch, before)) = acquired {
            if before.is_some_and(|holder| holder != node) {
                crate::metrics::lease_takeover();
            }
            return Ok(Acquired::Held(Lease::new(id, node, epoch)));
        }
        let (exists, holder, holder_alive): (bool, Option<i32>, bool) = sqlx::query_as(
            "SELECT EXISTS (SELECT 1 FROM tables WHERE id = $1), l.node, coalesce(spelbord_node_alive(l.node), false)
               FROM (SELECT 1) one LEFT JOIN table_leases l ON l.table_id = $1",
        )
        .bind(id)
        .fetch_one(self.pool())
        .await?;
        Ok(match holder {
            _ if !exists => Acquired::NoTable,
            Some(holder) if holder != node && holder_alive => Acquired::Elsewhere { holder },
            _ => Acquired::NotTaken,
        })
    }

    /// Asks the node holding table `id` to hand it over to `node`: marks the lease and
    /// notifies the holder, which closes the table's sockets and releases it.
    pub async fn ask_handoff(&self, id: &str, node: i32) -> Result<(), StoreError> {
        sqlx::query(
            "WITH asked AS (
                 UPDATE table_leases SET wanted_by = $2
                  WHERE table_id = $1 AND node IS NOT NULL AND node <> $2
                 RETURNING node
             )
             SELECT pg_notify($3, node::text || ' ' || $1) FROM asked",
        )
        .bind(id)
        .bind(node)
        .bind(HANDOFF_CHANNEL)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Offers the games in play of `tables` that nobody serves (their leases released by a
    /// draining node, and no client came back for them) to every node: one of them takes
    /// each (`cluster`, "adopt"). Returns how many were offered.
    pub async fn offer_unclaimed_games(&self, tables: &[String]) -> Result<usize, StoreError> {
        let offered: Vec<String> = sqlx::query_scalar(
            "SELECT l.table_id FROM table_leases l
              WHERE l.table_id = ANY($1) AND l.node IS NULL
                AND (EXISTS (SELECT 1 FROM games g WHERE g.table_id = l.table_id AND g.status = 'playing')
                     OR EXISTS (SELECT 1 FROM series s WHERE s.table_id = l.table_id AND s.status = 'playing'))",
        )
        .bind(tables)
        .fetch_all(self.pool())
        .await?;
        for table in &offered {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(HANDOFF_CHANNEL)
                .bind(format!("{ADOPT_PREFIX}{table}"))
                .execute(self.pool())
                .await?;
        }
        Ok(offered.len())
    }

    /// Gives up a lease this node holds (the table stopped here), unless it has moved on;
    /// after this node's batches of moves in flight are committed (migration 0010).
    pub async fn release_lease(&self, id: &str, node: i32, epoch: Option<i64>) -> Result<(), StoreError> {
        self.release(id, node, epoch, true).await
    }

    /// Gives up `lease` once its table's actor stopped, every one of its writes answered:
    /// without waiting for the node's batches in flight, none of which can hold a move of
    /// the table, unless a batch of the table failed without an answer.
    pub async fn release_stopped_table(&self, lease: &Lease) -> Result<(), StoreError> {
        self.release(&lease.table_id, lease.node, Some(lease.epoch), lease.is_unsure())
            .await
    }

    async fn release(&self, id: &str, node: i32, epoch: Option<i64>, fence: bool) -> Result<(), StoreError> {
        sqlx::query("SELECT spelbord_release_lease($1, $2, $3, $4)")
            .bind(id)
            .bind(node)
            .bind(epoch)
            .bind(fence)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The leases `node` holds now.
    pub async fn held_leases(&self, node: i32) -> Result<Vec<HeldLease>, StoreError> {
        let rows: Vec<(String, i64, bool, bool)> = sqlx::query_as(
            "SELECT table_id, epoch, wanted_by IS NOT NULL, acquired_at < now() - interval '5 seconds'
               FROM table_leases WHERE node = $1",
        )
        .bind(node)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(table_id, epoch, wanted, settled)| HeldLease {
                table_id,
                epoch,
                wanted,
                settled,
            })
            .collect())
    }

    /// How many nodes are alive now (this one included).
    pub async fn live_nodes(&self) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT count(*) FROM nodes WHERE spelbord_node_alive(id)")
                .fetch_one(self.pool())
                .await?,
        )
    }

    /// Tables with a game or a series in play whose node is dead (or that never had one):
    /// their clocks must run somewhere.
    pub async fn orphaned_tables(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            // Which nodes are alive is asked once per node, not once per table (it reads
            // the server's lock table).
            "WITH alive AS (SELECT id FROM nodes WHERE spelbord_node_alive(id))
             SELECT p.table_id
               FROM (SELECT table_id FROM games WHERE status = 'playing'
                     UNION SELECT table_id FROM series WHERE status = 'playing') p
               LEFT JOIN table_leases l ON l.table_id = p.table_id
              WHERE l.table_id IS NULL OR (l.node IS NOT NULL AND l.node NOT IN (SELECT id FROM alive))",
        )
        .fetch_all(self.pool())
        .await?)
    }

    /// The lease arguments of `spelbord_hold_lease($table, $node, $epoch)` for this
    /// store's writes (all `NULL` for a store that serves no lease).
    pub(super) fn lease_args(&self) -> (Option<&str>, Option<i32>, Option<i64>) {
        match &self.lease {
            Some(lease) => (Some(lease.table_id.as_str()), Some(lease.node), Some(lease.epoch)),
            None => (None, None, None),
        }
    }

    /// The lease's fields of a write's JSON object for the group commit's batch function
    /// (none when this store serves no lease).
    pub(super) fn lease_fields(&self) -> LeaseFields<'_> {
        let (lease_table, lease_node, lease_epoch) = self.lease_args();
        LeaseFields {
            lease_table,
            lease_node,
            lease_epoch,
        }
    }

    /// A write's error: [`StoreError::LeaseLost`] (and the lease marked lost) when its
    /// `spelbord_hold_lease` found the table served by another node.
    pub(super) fn write_error(&self, err: sqlx::Error) -> StoreError {
        lease_error(err, self.lease.as_deref())
    }
}

/// A write's error: [`StoreError::LeaseLost`] (and `lease` marked lost) when
/// `spelbord_hold_lease` found the table served by another node.
pub(super) fn lease_error(err: sqlx::Error, lease: Option<&Lease>) -> StoreError {
    let lost = err
        .as_database_error()
        .and_then(|db| db.code())
        .is_some_and(|code| code == LEASE_LOST_STATE);
    match (lease, lost) {
        (Some(lease), true) => lease_lost(lease),
        _ => StoreError::from(err),
    }
}

/// A write's lease in its JSON object for `spelbord_store_batch` (migration 0013), which
/// checks it with `spelbord_hold_lease`; absent when the write serves no lease.
#[derive(Debug, serde::Serialize)]
pub(super) struct LeaseFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    lease_table: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lease_node: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lease_epoch: Option<i64>,
}

/// Records that `lease` is lost and returns the error that says so.
pub(super) fn lease_lost(lease: &Lease) -> StoreError {
    lease.mark_lost();
    StoreError::LeaseLost
}

/// This node's place in the database: its row and the connection holding its lock.
#[derive(Debug)]
pub struct Membership {
    pub id: i32,
    pub name: String,
    lease: Duration,
    options: PgConnectOptions,
    conn: Option<PgConnection>,
}

impl Membership {
    /// Registers a new node named `name` whose row lives `lease` past each renewal.
    pub async fn join(options: PgConnectOptions, name: &str, lease: Duration) -> Result<Membership, StoreError> {
        let mut conn = PgConnection::connect_with(&options).await?;
        let id: i32 = sqlx::query_scalar(
            "INSERT INTO nodes (name, expires_at) VALUES ($1, now() + make_interval(secs => $2)) RETURNING id",
        )
        .bind(name)
        .bind(lease.as_secs_f64())
        .fetch_one(&mut conn)
        .await?;
        sqlx::query("SELECT pg_advisory_lock($1, $2)")
            .bind(LOCK_SPACE)
            .bind(id)
            .execute(&mut conn)
            .await?;
        Ok(Membership {
            id,
            name: name.to_owned(),
            lease,
            options,
            conn: Some(conn),
        })
    }

    /// Renews the node's row (reconnecting and taking its lock again after a lost
    /// connection). False when the node could not show itself alive this time (its lock
    /// is still held by a session the database has not yet seen die).
    pub async fn renew(&mut self) -> Result<bool, StoreError> {
        let conn = match self.conn.as_mut() {
            Some(conn) => conn,
            None => {
                let mut conn = PgConnection::connect_with(&self.options).await?;
                let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
                    .bind(LOCK_SPACE)
                    .bind(self.id)
                    .fetch_one(&mut conn)
                    .await?;
                if !locked {
                    return Ok(false);
                }
                self.conn.insert(conn)
            }
        };
        // Rows of nodes that died without leaving are deleted an hour after they expired
        // (a lease naming a deleted node is a dead node's).
        let renewed = sqlx::query(
            "WITH pruned AS (DELETE FROM nodes WHERE expires_at < now() - interval '1 hour')
             UPDATE nodes SET expires_at = now() + make_interval(secs => $2) WHERE id = $1",
        )
        .bind(self.id)
        .bind(self.lease.as_secs_f64())
        .execute(&mut *conn)
        .await;
        match renewed {
            Ok(done) => Ok(done.rows_affected() == 1),
            Err(err) => {
                // A broken connection is opened anew next time (its lock died with it).
                self.conn = None;
                Err(err.into())
            }
        }
    }

    /// Leaves: the row is deleted and the lock released, so the node's tables are free at
    /// once (games in play are adopted by the other nodes).
    pub async fn leave(mut self) {
        if let Some(mut conn) = self.conn.take() {
            let _ = sqlx::query("DELETE FROM nodes WHERE id = $1")
                .bind(self.id)
                .execute(&mut conn)
                .await;
            let _ = conn.close().await;
        }
    }
}

/// A write fenced by its table's lease: the query's next three parameters are the
/// arguments of the `spelbord_hold_lease($n, $n+1, $n+2)` in its SQL.
pub(super) trait Fenced<'q>: Sized {
    /// Binds `store`'s lease (all `NULL` for a store that serves no lease).
    fn fenced_by(self, store: &'q Store) -> Self;

    /// Binds `store`'s lease and runs the write on its pool: a write the lease refused is
    /// [`StoreError::LeaseLost`] (and the lease marked lost).
    fn write_fenced(
        self,
        store: &'q Store,
    ) -> impl std::future::Future<Output = Result<sqlx::postgres::PgQueryResult, StoreError>> + Send + 'q;
}

impl<'q> Fenced<'q> for sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    fn fenced_by(self, store: &'q Store) -> Self {
        let (table, node, epoch) = store.lease_args();
        self.bind(table).bind(node).bind(epoch)
    }

    fn write_fenced(
        self,
        store: &'q Store,
    ) -> impl std::future::Future<Output = Result<sqlx::postgres::PgQueryResult, StoreError>> + Send + 'q {
        let query = self.fenced_by(store);
        async move { query.execute(store.pool()).await.map_err(|err| store.write_error(err)) }
    }
}
