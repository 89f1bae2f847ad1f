//! The tables this node serves, by id: created here, or rebuilt from Postgres when first
//! asked for (after a restart, or from another node), and at start-up and on every
//! renewal for every game in play whose node died, so that its clocks run without anyone
//! connecting.
//!
//! A table is served only under its lease (`store::leases`): taken when the table is
//! created or rebuilt here; a table another live node serves is asked for and waited on
//! (that node hands it over), never served twice.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::actor::{RestoreError, TableActor, TableServices};
use super::handle::TableHandle;
use super::settings::TableSettings;
use crate::identity::{is_table_id, new_table_id};
use crate::protocol::TableSnapshot;
use crate::store::leases::{Acquired, HeldLease, Lease};
use crate::store::tables::NewBotSeat;
use crate::store::{Store, StoreError};

/// How many times to draw a fresh id when one is already taken (at 62^8 ids, one retry
/// is already astronomically rare).
const ID_ATTEMPTS: usize = 5;

/// Creating a table failed.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("could not draw an unused table id")]
    NoFreeId,
}

/// Finding a table failed.
#[derive(Debug, thiserror::Error)]
pub enum GetError {
    /// The database says there is no such table (or the id cannot be one).
    #[error("there is no such table")]
    NotFound,
    /// The table is not in memory and the database cannot be asked now: it may exist.
    #[error("the stored table cannot be loaded now: {0}")]
    Unavailable(#[source] StoreError),
    /// The table is stored but cannot be rebuilt (its settings no longer read).
    #[error("the stored table cannot be rebuilt: {0}")]
    Unreadable(#[source] RestoreError),
    /// Another node serves the table and has not handed it over yet: ask again shortly.
    #[error("another node serves the table; it is being handed over")]
    Moving,
    /// An operator closed the table (docs/operations.md, "Moderation").
    #[error("the table was closed by an operator")]
    Closed,
}

/// How often a request waiting for another node to hand a table over asks again.
const HANDOFF_POLL: Duration = Duration::from_millis(50);

/// How often a draining node looks whether it still holds leases.
const DRAIN_POLL: Duration = Duration::from_millis(20);

/// A game in play that no client came back for this long after its table was handed over
/// in a drain is offered to the other nodes (its clock and bots must go on).
pub const UNATTENDED_AFTER: Duration = Duration::from_secs(1);

/// What a drain did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// Tables whose actors were stopped to be served elsewhere.
    pub handed_over: usize,
    /// Tables still served here when the deadline came.
    pub still_held: usize,
    /// Games in play nobody came back for, offered to the other nodes.
    pub offered: usize,
}

/// This node, as the registry needs it.
#[derive(Debug, Clone, Copy)]
pub struct NodeRole {
    /// This node's id in the `nodes` table.
    pub id: i32,
    /// How long a request waits for another node to hand a table over.
    pub handoff_wait: Duration,
}

/// A table just created for `POST /api/tables`.
#[derive(Debug)]
pub enum NewTable {
    /// Served here (this node is the only one alive).
    Running(TableHandle),
    /// Stored and leased to nobody: the first node asked for it serves it.
    Stored { id: String, snapshot: Box<TableSnapshot> },
}

/// Creates tables and finds them. Cheap to clone.
#[derive(Clone)]
pub struct Tables {
    running: Arc<Mutex<HashMap<String, TableHandle>>>,
    /// Held per table while it is rebuilt from storage (or handed over), so that it is
    /// rebuilt once, while other tables load beside it.
    loading: Arc<Loading>,
    store: Store,
    services: TableServices,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    node: NodeRole,
    /// No other node was alive at the last renewal (new tables are then served here).
    alone: Arc<AtomicBool>,
    /// The node is draining ([`Tables::drain`]): it loads no table and adopts none.
    draining: Arc<AtomicBool>,
}

impl Tables {
    pub fn new(
        store: Store,
        services: TableServices,
        shutdown: CancellationToken,
        tracker: TaskTracker,
        node: NodeRole,
    ) -> Tables {
        Tables {
            running: Arc::default(),
            loading: Arc::default(),
            store,
            services,
            shutdown,
            tracker,
            node,
            alone: Arc::new(AtomicBool::new(true)),
            draining: Arc::default(),
        }
    }

    /// Whether other nodes were alive at the last renewal.
    pub fn is_alone(&self) -> bool {
        self.alone.load(Ordering::Relaxed)
    }

    /// From now on the node loads and adopts no table ([`Tables::drain`] says more); its
    /// health check says so.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Whether the node is draining ([`Tables::drain`]).
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Records whether other nodes are alive (each renewal counts them).
    pub fn set_alone(&self, alone: bool) {
        self.alone.store(alone, Ordering::Relaxed);
    }

    /// Stores a table for `POST /api/tables`. A node alone serves it at once (as
    /// [`Tables::create`]). With other nodes alive it only stores it, leased to nobody,
    /// and returns the snapshot its actor would: the proxy may send the table's requests to
    /// another node, which then takes it without a handoff.
    pub async fn create_for_any_node(&self, settings: TableSettings) -> Result<NewTable, CreateError> {
        if self.is_alone() && !self.is_draining() {
            return self.create(settings).await.map(NewTable::Running);
        }
        let id = self.store_new(&settings, None).await?;
        let snapshot = TableActor::fresh_snapshot(&id, settings, self.store.clone(), self.services.clone());
        Ok(NewTable::Stored {
            id,
            snapshot: Box::new(snapshot),
        })
    }

    /// Stores a new table (and the bots its settings seat) with a fresh id and starts
    /// its actor.
    pub async fn create(&self, settings: TableSettings) -> Result<TableHandle, CreateError> {
        let id = self.store_new(&settings, Some(self.node.id)).await?;
        let lease = Lease::new(&id, self.node.id, 1);
        let handle = TableActor::spawn(
            &id,
            settings,
            self.store.for_table(lease),
            self.services.clone(),
            self.shutdown.child_token(),
            &self.tracker,
        );
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, handle.clone());
        Ok(handle)
    }

    /// Stores a new table with a fresh id, leased to `node` (or to nobody); its id.
    async fn store_new(&self, settings: &TableSettings, node: Option<i32>) -> Result<String, CreateError> {
        let settings_json = settings.to_json();
        let bots: Vec<NewBotSeat> = settings
            .bots
            .iter()
            .map(|(seat, strength)| NewBotSeat {
                seat: *seat,
                name: strength.player_name(),
                strength: strength.id(),
            })
            .collect();
        for _ in 0..ID_ATTEMPTS {
            let id = new_table_id();
            if self
                .store
                .insert_table(&id, settings.kind().id(), &settings_json, &bots, node)
                .await?
            {
                return Ok(id);
            }
        }
        Err(CreateError::NoFreeId)
    }

    /// The table with this id: running, or rebuilt from storage under a new lease. A
    /// table another live node serves is asked for and waited on (up to the handoff wait,
    /// then [`GetError::Moving`]). A table that is not in memory is [`GetError::NotFound`]
    /// only when the database says so; when it cannot be asked the answer is
    /// [`GetError::Unavailable`] (logged), never "no such table".
    pub async fn get(&self, id: &str) -> Result<TableHandle, GetError> {
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        if !is_table_id(id) {
            return Err(GetError::NotFound);
        }
        let give_up_at = tokio::time::Instant::now() + self.node.handoff_wait;
        let mut asked = false;
        loop {
            match self.take(id, false).await? {
                Some(handle) => return Ok(handle),
                None if tokio::time::Instant::now() >= give_up_at => return Err(GetError::Moving),
                None => {
                    if !asked {
                        asked = true;
                        if let Err(err) = self.store.ask_handoff(id, self.node.id).await {
                            return Err(self.unavailable(id, err));
                        }
                    }
                    tokio::time::sleep(HANDOFF_POLL).await;
                }
            }
        }
    }

    /// Serves a table whose game is in play and whose node died (or that never had one):
    /// true when this node took it.
    pub async fn adopt(&self, id: &str) -> bool {
        if self.running(id).is_some() {
            return false;
        }
        matches!(self.take(id, true).await, Ok(Some(_)))
    }

    /// Serves a table a draining node offered (its game is in play, nobody came for it):
    /// true when this node took it (another may have been quicker).
    pub async fn adopt_offered(&self, id: &str) -> bool {
        if self.running(id).is_some() || !is_table_id(id) {
            return false;
        }
        matches!(self.take(id, false).await, Ok(Some(_)))
    }

    /// Drains this node (docs/operations.md, "Upgrades"): from now on it loads and adopts
    /// no table (a request for one it does not serve is told [`GetError::Moving`]), and it
    /// hands over every table it serves: each actor stops between two commands, releases
    /// its lease, and only then closes its sockets with 1012, so that the node each client
    /// reconnects to serves the table at once. Waits until this node holds no lease (or
    /// `deadline`), then offers the games in play that nobody came for within
    /// [`UNATTENDED_AFTER`] to the other nodes, so that their clocks and bots go on.
    pub async fn drain(&self, deadline: tokio::time::Instant) -> Drained {
        self.start_draining();
        let handles: Vec<TableHandle> = {
            let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            running.values().cloned().collect()
        };
        let ids: Vec<String> = handles.iter().map(|handle| handle.id().to_owned()).collect();
        for handle in &handles {
            handle.hand_over();
        }
        let mut drained = Drained {
            handed_over: handles.len(),
            ..Drained::default()
        };
        // Every actor has released its lease when the node holds none. A lease held with no
        // actor (one whose release failed, or taken just before the drain) is released here.
        loop {
            match self.store.held_leases(self.node.id).await {
                Ok(held) if held.is_empty() => break,
                Ok(held) if self.count() == 0 => {
                    for lease in held {
                        let _ = self.store.release_lease(&lease.table_id, self.node.id, None).await;
                    }
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "could not read this node's leases while draining"),
            }
            if tokio::time::Instant::now() >= deadline {
                drained.still_held = self.count();
                return drained;
            }
            tokio::time::sleep(DRAIN_POLL).await;
        }
        tokio::time::sleep_until((tokio::time::Instant::now() + UNATTENDED_AFTER).min(deadline)).await;
        match self.store.offer_unclaimed_games(&ids).await {
            Ok(offered) => drained.offered = offered,
            Err(err) => tracing::warn!(error = %err, "could not offer the unattended games to the other nodes"),
        }
        drained
    }

    /// Takes the table's lease and rebuilds it here; `None` while another node holds it
    /// (or, adopting, when it is not an orphan).
    async fn take(&self, id: &str, orphans_only: bool) -> Result<Option<TableHandle>, GetError> {
        let _loading = self.loading.turn(id).await;
        if let Some(handle) = self.running(id) {
            return Ok(Some(handle));
        }
        if self.is_draining() {
            // Another node will serve it: the proxy sends its requests elsewhere now.
            return Err(GetError::Moving);
        }
        let lease = match self.store.acquire_lease(id, self.node.id, orphans_only).await {
            Ok(Acquired::Held(lease)) => lease,
            Ok(Acquired::NoTable) => return Err(GetError::NotFound),
            Ok(Acquired::Elsewhere { .. } | Acquired::NotTaken) => return Ok(None),
            Err(err) => return Err(self.unavailable(id, err)),
        };
        let result = match self.load(id, Arc::clone(&lease)).await {
            Ok(Some(handle)) => return Ok(Some(handle)),
            Ok(None) => GetError::NotFound,
            Err(RestoreError::Closed) => GetError::Closed,
            Err(RestoreError::Store(err)) if !is_unreadable_row(&err) => GetError::Unavailable(err),
            Err(err) => GetError::Unreadable(err),
        };
        if !matches!(result, GetError::NotFound | GetError::Closed) {
            tracing::error!(table = %id, error = %result, "could not rebuild a stored table");
        }
        // Not served here after all: let another node (or a later request) try.
        let _ = self.store.release_lease(id, lease.node, Some(lease.epoch)).await;
        Err(result)
    }

    fn unavailable(&self, id: &str, err: StoreError) -> GetError {
        let err = GetError::Unavailable(err);
        tracing::error!(table = %id, error = %err, "could not rebuild a stored table");
        err
    }

    /// Another node asked for table `id`: stop serving it here (its actor closes its
    /// sockets and releases the lease), or release a lease held without an actor.
    pub async fn hand_over(&self, id: &str) {
        let _loading = self.loading.turn(id).await;
        match self.running(id) {
            Some(handle) => handle.hand_over(),
            None => {
                if let Err(err) = self.store.release_lease(id, self.node.id, None).await {
                    tracing::warn!(table = %id, error = %err, "could not release a lease");
                }
            }
        }
    }

    /// Brings the tables served here in line with the leases this node holds (`held`, as
    /// read by a query sent at `read_at`): a table whose lease another node took stops
    /// (its sockets closed with 1012), a table another node asked for is handed over, and
    /// a settled lease held with no table running is released. Tables whose lease is newer
    /// than the read are left alone. Returns how many tables stopped.
    pub async fn reconcile(&self, held: &[HeldLease], read_at: std::time::Instant) -> usize {
        let running: Vec<TableHandle> = {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            running.retain(|_, handle| !handle.is_closed());
            running.values().cloned().collect()
        };
        let held_here: HashMap<&str, &HeldLease> = held.iter().map(|lease| (lease.table_id.as_str(), lease)).collect();
        let mut stopped = 0;
        for handle in &running {
            let Some(lease) = handle.lease() else { continue };
            if lease.taken_at >= read_at {
                continue;
            }
            let ours = held_here.get(handle.id()).filter(|held| held.epoch == lease.epoch);
            if ours.is_none_or(|held| held.wanted) {
                if ours.is_none() {
                    tracing::info!(table = %handle.id(), "another node has taken the table over");
                }
                handle.hand_over();
                stopped += 1;
            }
        }
        let running_here: std::collections::HashSet<&str> = running.iter().map(TableHandle::id).collect();
        for lease in held {
            if lease.settled
                && !running_here.contains(lease.table_id.as_str())
                && let Err(err) = self
                    .store
                    .release_lease(&lease.table_id, self.node.id, Some(lease.epoch))
                    .await
            {
                tracing::warn!(table = %lease.table_id, error = %err, "could not release a lease");
            }
        }
        stopped
    }

    /// The handle of a table whose actor still runs (an idle table's actor stops; its
    /// entry is forgotten here and the table is rebuilt on demand).
    fn running(&self, id: &str) -> Option<TableHandle> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.get(id) {
            Some(handle) if handle.is_closed() => {
                running.remove(id);
                None
            }
            handle => handle.cloned(),
        }
    }

    async fn load(&self, id: &str, lease: Arc<Lease>) -> Result<Option<TableHandle>, RestoreError> {
        let Some(stored) = self.store.load_table(id).await? else {
            return Ok(None);
        };
        if stored.table.closed {
            return Err(RestoreError::Closed);
        }
        let handle = TableActor::restore(
            stored,
            self.store.for_table(lease),
            self.services.clone(),
            self.shutdown.child_token(),
            &self.tracker,
        )
        .await?;
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned(), handle.clone());
        Ok(Some(handle))
    }

    /// Serves every table whose game is in play and whose node died (or that never had
    /// one), so that its clocks run. Returns how many this node took.
    pub async fn adopt_orphans(&self) -> Result<usize, StoreError> {
        let ids = self.store.orphaned_tables().await?;
        let mut adopted = 0;
        for id in ids {
            if self.adopt(&id).await {
                adopted += 1;
            }
        }
        Ok(adopted)
    }

    /// The table, if its actor runs on this node now (never loading it): what the
    /// operator's list shows of connections comes only from here.
    pub fn serving(&self, id: &str) -> Option<TableHandle> {
        self.running(id)
    }

    /// Sends `notice` to every table running on this node (a mute or unmute: each tells
    /// the player's connections there). Tables whose queue is full are skipped, logged.
    pub fn tell_all(&self, notice: &super::msg::Moderation) {
        let running: Vec<TableHandle> = {
            let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            running.values().cloned().collect()
        };
        for handle in running {
            if !handle.try_moderate(notice.clone()) {
                tracing::debug!(table = %handle.id(), "could not tell a table of a mute");
            }
        }
    }

    /// How many tables are in memory now (idle ones that stopped are dropped first).
    pub fn count(&self) -> usize {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|_, handle| !handle.is_closed());
        running.len()
    }
}

/// A lock per table id, made when first asked for and dropped when nobody holds or waits
/// for it.
#[derive(Default)]
struct Loading {
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Loading {
    /// Waits for table `id`'s turn; the turn lasts until the returned guard is dropped.
    async fn turn(&self, id: &str) -> LoadingTurn<'_> {
        let lock = Arc::clone(
            self.locks
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(id.to_owned())
                .or_default(),
        );
        LoadingTurn {
            loading: self,
            id: id.to_owned(),
            guard: Some(lock.lock_owned().await),
        }
    }
}

/// One table's turn to load or be handed over.
struct LoadingTurn<'a> {
    loading: &'a Loading,
    id: String,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for LoadingTurn<'_> {
    fn drop(&mut self) {
        let mut locks = self.loading.locks.lock().unwrap_or_else(PoisonError::into_inner);
        // The map's reference and this turn's: nobody else waits, the lock goes.
        if locks.get(&self.id).is_some_and(|lock| Arc::strong_count(lock) <= 2) {
            locks.remove(&self.id);
        }
        self.guard = None;
    }
}

/// Whether a storage error says a row cannot be read (which waiting will not mend), rather
/// than that the database cannot be reached.
fn is_unreadable_row(err: &StoreError) -> bool {
    matches!(
        err,
        StoreError::Database(
            sqlx::Error::ColumnDecode { .. }
                | sqlx::Error::ColumnNotFound(_)
                | sqlx::Error::Decode(_)
                | sqlx::Error::TypeNotFound { .. }
        )
    )
}

#[cfg(test)]
mod tests {
    use super::Loading;

    #[tokio::test]
    async fn tables_load_beside_each_other_but_one_table_once_at_a_time() {
        let loading = Loading::default();
        let first = loading.turn("aaaaaaaa").await;
        // Another table's turn does not wait for the first's.
        let other = tokio::time::timeout(std::time::Duration::from_secs(1), loading.turn("bbbbbbbb")).await;
        assert!(other.is_ok(), "another table waited");
        drop(other);
        // The same table's does, until the first turn ends.
        let same = tokio::time::timeout(std::time::Duration::from_millis(50), loading.turn("aaaaaaaa")).await;
        assert!(same.is_err(), "one table loaded twice at once");
        drop(first);
        let again = loading.turn("aaaaaaaa").await;
        drop(again);
        assert!(
            loading.locks.lock().expect("the map").is_empty(),
            "locks are dropped when unused"
        );
    }
}
