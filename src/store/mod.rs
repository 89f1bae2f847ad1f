//! Storage: the Postgres pool, migrations, and every query the server makes.
//!
//! - [`local_pg`]: a private PostgreSQL cluster for development and tests.
//! - [`tables`]: tables and who holds their seats.
//! - [`games`]: games, their moves and their results.
//! - [`writer`]: group commit: the moves, seats taken, starts and ends of every table stored together, one
//!   commit a batch.
//! - [`chat`]: chat lines, and a table's recent ones.
//! - [`records`]: games read back for the records API.
//! - [`ratings`]: players' ratings, updated with each rated game's result.
//! - [`series`]: a series ended early, its players gone.
//! - [`stats`]: won-game statistics per game, counted in SQL.
//! - [`lobby`]: the lobby's seeks, pairing (with the table it makes) and listed tables.
//! - [`leases`]: nodes, and which node serves each table (with the fence every write checks).
//! - [`retention`]: what is deleted after how long, and the job that deletes it in small
//!   batches, one node at a time.
//!
//! Every write the table actor depends on is awaited before the actor tells anyone about
//! the change it records, so an acknowledged move is a stored move.

pub mod chat;
pub mod games;
pub mod leases;
pub mod lobby;
pub mod local_pg;
pub mod moderation;
pub mod queue;
pub mod ratings;
pub mod records;
pub mod retention;
pub mod series;
pub mod stats;
pub mod tables;
pub mod writer;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgConnection, PgPool};

use crate::config::DatabaseSettings;
use local_pg::{ClusterUse, LocalPgError, LocalPostgres};

/// The name of the database the server uses on its private cluster.
pub const LOCAL_DATABASE: &str = "spelbord";

/// How long a records or statistics request waits for one of the readers' connections
/// before it is answered `503 unavailable`.
pub const READ_WAIT: Duration = Duration::from_secs(2);

/// The sizes of the store's two pools.
#[derive(Debug, Clone, Copy)]
pub struct PoolSizes {
    /// The tables' pool: moves, results, seats, chat, leases (`database.max_connections`).
    pub writes: u32,
    /// The records API's and the statistics' pool (`database.read_connections`).
    pub reads: u32,
}

/// A storage failure. The message is for logs, not for players.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Counted in the metrics when made from a `sqlx::Error` (`From`, below).
    #[error("database: {0}")]
    Database(#[source] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    LocalPostgres(#[from] LocalPgError),
    #[error("the stored player-token secret has the wrong length")]
    BadSecret,
    #[error("the group-commit writer has stopped")]
    WriterGone,
    #[error("encoding a write: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("a time the database cannot store: {0}")]
    Time(#[from] time::error::Format),
    /// Another node serves the table now: this node may store nothing more for it.
    #[error("another node has taken the table over")]
    LeaseLost,
}

impl From<sqlx::Error> for StoreError {
    /// Every database error the store hands on is counted here, by kind.
    fn from(err: sqlx::Error) -> StoreError {
        crate::metrics::db_error(&err);
        StoreError::Database(err)
    }
}

/// The database handle shared by every table and route. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    pool: PgPool,
    /// The records' and statistics' own small pool: however many read them at once, the
    /// tables' writes never wait for a connection behind a reader.
    reads: PgPool,
    /// Group commit for moves (its task starts with the first move).
    writer: writer::BatchWriter,
    /// A table actor's store: the lease every write of the table is fenced with.
    lease: Option<Arc<leases::Lease>>,
}

/// The store plus, when the server runs on its private cluster, the handle to it and this
/// server's registration as one of its users.
#[derive(Debug)]
pub struct Database {
    pub store: Store,
    pub local: Option<LocalPostgres>,
    local_use: Option<ClusterUse>,
}

/// The migrations compiled into this binary. A database may also hold migrations this
/// binary does not know: a newer binary applied them in a rolling upgrade, and this one
/// runs on beside it (or restarts) on the expanded schema, so they are passed over rather
/// than refused (docs/operations.md, "Mixed versions"). A known migration whose file
/// changed is still refused.
fn migrator() -> sqlx::migrate::Migrator {
    let mut migrator = sqlx::migrate!("./migrations");
    migrator.set_ignore_missing(true);
    migrator
}

impl Store {
    /// A store on one pool for everything (tests, tools); the server gives readers a pool
    /// of their own ([`Store::connect`]).
    pub fn new(pool: PgPool) -> Store {
        Store {
            reads: pool.clone(),
            pool,
            writer: writer::BatchWriter::default(),
            lease: None,
        }
    }

    /// The same store, its group commit waiting up to `linger` for more writes before it
    /// stores a small batch while it is busy (`database.batch_linger_ms`; zero: never). Set
    /// before the first write.
    pub fn with_batch_linger(self, linger: Duration) -> Store {
        Store {
            writer: writer::BatchWriter::with_linger(linger),
            ..self
        }
    }

    /// The same store for one table's actor: every write it makes for the table checks
    /// `lease` first and fails with [`StoreError::LeaseLost`] once another node holds it.
    pub fn for_table(&self, lease: Arc<leases::Lease>) -> Store {
        Store {
            pool: self.pool.clone(),
            reads: self.reads.clone(),
            writer: self.writer.clone(),
            lease: Some(lease),
        }
    }

    /// Hands a write other than a move (one JSON object of the batch function's, made
    /// into a [`writer::Write`] by `kind`) to the group commit; returns once it is
    /// committed.
    async fn write_batched(
        &self,
        kind: fn(writer::QueuedJson) -> writer::Write,
        object: &impl serde::Serialize,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(object)?;
        let lease = self.lease.clone();
        self.writer
            .write(self.pool(), kind(writer::QueuedJson { json, lease }))
            .await
    }

    /// The lease this store's writes are fenced with (a table actor's store).
    pub fn lease(&self) -> Option<&Arc<leases::Lease>> {
        self.lease.as_ref()
    }

    /// A write found the table taken over by another node.
    pub fn lease_lost(&self) -> bool {
        self.lease.as_ref().is_some_and(|lease| lease.is_lost())
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The pool of the records API and the statistics (the same as [`Store::pool`] unless
    /// the store was connected with [`PoolSizes::reads`]).
    pub fn reads(&self) -> &PgPool {
        &self.reads
    }

    /// Brings the schema up to date, then connects the tables' pool and the readers' pool
    /// with `options`.
    pub async fn connect(options: PgConnectOptions, sizes: PoolSizes) -> Result<Store, StoreError> {
        // Migrations first, on a connection of their own with no statement timeout (a
        // future migration may take a while on a large database).
        let mut migrating = PgConnection::connect_with(&options).await?;
        migrator().run(&mut migrating).await?;
        migrating.close().await?;
        // A table waits for its writes: a stuck statement must fail (and the player be told
        // `storage_unavailable`) rather than hold the table forever.
        let options = options.options([("statement_timeout", "10s")]);
        let pool = PgPoolOptions::new()
            .max_connections(sizes.writes)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        // A reader waits briefly for a connection and is then told to come back (503):
        // a crowd of readers queues here, not in front of the tables' writes.
        let reads = PgPoolOptions::new()
            .max_connections(sizes.reads.max(1))
            .min_connections(0)
            .acquire_timeout(READ_WAIT)
            .connect_lazy_with(options.options([("statement_timeout", "5s")]));
        Ok(Store {
            reads,
            ..Store::new(pool)
        })
    }

    /// Applies the numbered files in `migrations/` that have not run yet.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        migrator().run(&self.pool).await?;
        Ok(())
    }

    /// Is the database answering?
    pub async fn ping(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }
}

impl Database {
    /// The store on `options`, as the settings configure it (pool size, group-commit
    /// linger).
    async fn connect_store(options: PgConnectOptions, settings: &DatabaseSettings) -> Result<Store, StoreError> {
        let sizes = PoolSizes {
            writes: settings.max_connections,
            reads: settings.read_connections,
        };
        let store = Store::connect(options, sizes).await?;
        Ok(store.with_batch_linger(Duration::from_millis(settings.batch_linger_ms)))
    }

    /// Opens the configured database: `url` when set, otherwise a private cluster in
    /// `local_dir` started from the installed PostgreSQL binaries.
    pub async fn open(settings: &DatabaseSettings) -> Result<Database, StoreError> {
        if !settings.url.is_empty() {
            let options: PgConnectOptions = settings.url.parse()?;
            let store = Database::connect_store(options, settings).await?;
            return Ok(Database {
                store,
                local: None,
                local_use: None,
            });
        }
        let configured = (!settings.pg_bin_dir.is_empty()).then(|| PathBuf::from(&settings.pg_bin_dir));
        let bin_dir = LocalPostgres::find_binaries(configured.as_deref())?;
        let data_dir = absolute(&settings.local_dir);
        let found = LocalPostgres::ensure_running(&data_dir, &bin_dir).await?;
        // Registered, no other server stopping can take the cluster away; make sure it
        // runs once more (one may have stopped it just before).
        let local_use = found.register_user().await?;
        let local = LocalPostgres::ensure_running(&data_dir, &bin_dir).await?;
        local.create_database(LOCAL_DATABASE).await?;
        let options = local.connect_options(LOCAL_DATABASE);
        match Database::connect_store(options, settings).await {
            Ok(store) => Ok(Database {
                store,
                local: Some(local),
                local_use: Some(local_use),
            }),
            Err(err) => {
                let _ = local.stop_if_last(local_use).await;
                Err(err)
            }
        }
    }

    /// Closes the pool and stops the private cluster if no other server uses it any
    /// more (the last server on a private cluster stops it, whichever started it).
    pub async fn close(self) {
        self.store.pool.close().await;
        if let (Some(local), Some(local_use)) = (self.local, self.local_use)
            && let Err(err) = local.stop_if_last(local_use).await
        {
            tracing::warn!(error = %err, "could not stop the private PostgreSQL cluster");
        }
    }
}

fn absolute(path: &std::path::Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
