//! The running tables of this server process, by id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::actor::{TableActor, TextLimits};
use super::handle::TableHandle;
use super::identity::new_table_id;
use super::settings::TableSettings;
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

/// Creates tables and finds them. Cheap to clone.
#[derive(Clone)]
pub struct Tables {
    running: Arc<Mutex<HashMap<String, TableHandle>>>,
    store: Store,
    limits: TextLimits,
    shutdown: CancellationToken,
    tracker: TaskTracker,
}

impl Tables {
    pub fn new(store: Store, limits: TextLimits, shutdown: CancellationToken, tracker: TaskTracker) -> Tables {
        Tables {
            running: Arc::default(),
            store,
            limits,
            shutdown,
            tracker,
        }
    }

    /// Stores a new table with a fresh id and starts its actor.
    pub async fn create(&self, settings: TableSettings) -> Result<TableHandle, CreateError> {
        let settings_json = settings.to_json();
        for _ in 0..ID_ATTEMPTS {
            let id = new_table_id();
            if !self
                .store
                .insert_table(&id, settings.kind().id(), &settings_json)
                .await?
            {
                continue;
            }
            let handle = TableActor::spawn(
                &id,
                settings,
                self.store.clone(),
                self.limits,
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

    /// The running table with this id.
    pub fn get(&self, id: &str) -> Option<TableHandle> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    pub fn count(&self) -> usize {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}
