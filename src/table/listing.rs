//! What a listed table shows in the lobby, and the channel its actor sends it on.
//!
//! A table created with `"listed": true` (and every table made by the lobby's pairing)
//! tells the lobby its seats, whether a game is in play, its rating and its spectators
//! whenever one of them changes. The actor only sends; the lobby's publisher (a layer
//! above) coalesces what arrives per table and stores it, so a table never waits for the
//! lobby.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::games::Seat;

/// A listed table as the lobby shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableListing {
    /// A seat is free and no game is in play: shown under "open tables".
    pub open: bool,
    /// A game is in play: shown under "watch".
    pub playing: bool,
    /// The mean of its people's ratings (rated tables).
    pub rating: Option<i32>,
    pub spectators: i32,
    /// The lobby's entry for the table (docs/protocol.md, 7.4).
    pub entry: Value,
}

/// One seat in a listing entry.
#[derive(Debug, Clone, Serialize)]
pub struct ListedSeat {
    pub seat: Seat,
    pub name: Option<String>,
    pub bot: Option<std::borrow::Cow<'static, str>>,
}

/// A table's listing changed: `None` when it is no longer shown (it left this node).
#[derive(Debug)]
pub struct ListingUpdate {
    pub table_id: String,
    pub listing: Option<TableListing>,
}

/// Where actors send their listings; a sink that goes nowhere when there is no lobby (unit
/// tests of the actor). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct ListingSink(Option<mpsc::UnboundedSender<ListingUpdate>>);

impl ListingSink {
    /// A sink and the receiver the lobby's publisher drains.
    pub fn channel() -> (ListingSink, mpsc::UnboundedReceiver<ListingUpdate>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (ListingSink(Some(sender)), receiver)
    }

    /// Sends an update (dropped when no publisher listens).
    pub fn send(&self, table_id: &str, listing: Option<TableListing>) {
        if let Some(sender) = &self.0 {
            let _ = sender.send(ListingUpdate {
                table_id: table_id.to_owned(),
                listing,
            });
        }
    }
}
