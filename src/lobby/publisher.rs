//! Listed tables' lobby entries, stored for every node to read: actors send their
//! listing whenever it changes ([`crate::table::listing`]); this task keeps the latest per
//! table and writes what arrived at most every [`PUBLISH_EVERY`], in one statement.

use std::collections::HashMap;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::store::Store;
use crate::store::lobby::Listing;
use crate::table::listing::{ListingUpdate, TableListing};

/// Listings are written at most this often (a spectator count changes once a second).
pub const PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// Starts the publisher of this node's listed tables.
pub fn spawn(
    store: Store,
    node: i32,
    updates: UnboundedReceiver<ListingUpdate>,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(run(store, node, updates, shutdown))
}

async fn run(store: Store, node: i32, mut updates: UnboundedReceiver<ListingUpdate>, shutdown: CancellationToken) {
    loop {
        let first = tokio::select! {
            biased;
            _ = shutdown.cancelled() => None,
            update = updates.recv() => update,
        };
        let Some(first) = first else { break };
        let mut pending: HashMap<String, Option<TableListing>> = HashMap::new();
        pending.insert(first.table_id, first.listing);
        while let Ok(update) = updates.try_recv() {
            pending.insert(update.table_id, update.listing);
        }
        write(&store, node, pending).await;
        tokio::time::sleep(PUBLISH_EVERY).await;
    }
    // Tables stopping with the server say they are gone: written once more if possible
    // (otherwise the rows go with the node).
    let mut pending = HashMap::new();
    while let Ok(update) = updates.try_recv() {
        pending.insert(update.table_id, update.listing);
    }
    if !pending.is_empty() {
        write(&store, node, pending).await;
    }
}

async fn write(store: &Store, node: i32, pending: HashMap<String, Option<TableListing>>) {
    let mut upserts = Vec::new();
    let mut removals = Vec::new();
    for (table_id, listing) in pending {
        match listing {
            Some(listing) => upserts.push(Listing {
                table_id,
                open: listing.open,
                playing: listing.playing,
                rating: listing.rating,
                spectators: listing.spectators,
                entry: listing.entry,
            }),
            None => removals.push(table_id),
        }
    }
    if let Err(err) = store.write_listings(node, &upserts, &removals).await {
        tracing::warn!(error = %err, "could not store the lobby listings of tables");
    }
}
