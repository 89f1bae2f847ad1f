//! The tables of this server process, by id: created here, or rebuilt from Postgres when
//! first asked for after a restart (and at start-up for every game still in play, so
//! that its clocks run without anyone connecting).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::actor::{RestoreError, TableActor, TableServices};
use super::handle::TableHandle;
use super::identity::{is_table_id, new_table_id};
use super::settings::TableSettings;
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
}

/// Creates tables and finds them. Cheap to clone.
#[derive(Clone)]
pub struct Tables {
    running: Arc<Mutex<HashMap<String, TableHandle>>>,
    /// Held while a table is rebuilt from storage, so it is rebuilt once.
    loading: Arc<tokio::sync::Mutex<()>>,
    store: Store,
    services: TableServices,
    shutdown: CancellationToken,
    tracker: TaskTracker,
}

impl Tables {
    pub fn new(store: Store, services: TableServices, shutdown: CancellationToken, tracker: TaskTracker) -> Tables {
        Tables {
            running: Arc::default(),
            loading: Arc::default(),
            store,
            services,
            shutdown,
            tracker,
        }
    }

    /// Stores a new table (and the bots its settings seat) with a fresh id and starts
    /// its actor.
    pub async fn create(&self, settings: TableSettings) -> Result<TableHandle, CreateError> {
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
            if !self
                .store
                .insert_table(&id, settings.kind().id(), &settings_json, &bots)
                .await?
            {
                continue;
            }
            let handle = TableActor::spawn(
                &id,
                settings,
                self.store.clone(),
                self.services.clone(),
                self.shutdown.child_token(),
                &self.tracker,
            );
            self.running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id, handle.clone());
            return Ok(handle);
        }
        Err(CreateError::NoFreeId)
    }

    /// The table with this id: running, or rebuilt from storage. A table that is not in
    /// memory is [`GetError::NotFound`] only when the database says so; when it cannot be
    /// asked the answer is [`GetError::Unavailable`] (logged), never "no such table".
    pub async fn get(&self, id: &str) -> Result<TableHandle, GetError> {
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        if !is_table_id(id) {
            return Err(GetError::NotFound);
        }
        let _loading = self.loading.lock().await;
        if let Some(handle) = self.running(id) {
            return Ok(handle);
        }
        let result = match self.load(id).await {
            Ok(Some(handle)) => Ok(handle),
            Ok(None) => Err(GetError::NotFound),
            Err(RestoreError::Store(err)) if !is_unreadable_row(&err) => Err(GetError::Unavailable(err)),
            Err(err) => Err(GetError::Unreadable(err)),
        };
        if let Err(err @ (GetError::Unavailable(_) | GetError::Unreadable(_))) = &result {
            tracing::error!(table = %id, error = %err, "could not rebuild a stored table");
        }
        result
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

    async fn load(&self, id: &str) -> Result<Option<TableHandle>, RestoreError> {
        let Some(stored) = self.store.load_table(id).await? else {
            return Ok(None);
        };
        let handle = TableActor::restore(
            stored,
            self.store.clone(),
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

    /// Rebuilds every table whose game is still in play, so their clocks run again.
    /// Returns how many were rebuilt.
    pub async fn restore_in_play(&self) -> Result<usize, StoreError> {
        let ids = self.store.tables_in_play().await?;
        let mut restored = 0;
        for id in ids {
            if self.get(&id).await.is_ok() {
                restored += 1;
            }
        }
        Ok(restored)
    }

    /// How many tables are in memory now (idle ones that stopped are dropped first).
    pub fn count(&self) -> usize {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|_, handle| !handle.is_closed());
        running.len()
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
