//! The table and the lobby: a table made by pairing (every seat taken before it opened)
//! starts its first game once every seated person has arrived, and frees the seats of
//! those who did not come within [`ARRIVAL_WAIT`]; a listed table tells the lobby its
//! seats, its game and its spectators whenever they change.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::TableActor;
use super::seating::StartPlan;
use crate::protocol::{ServerMsg, TableStatus};
use crate::table::listing::{ListedSeat, TableListing};
use crate::table::rotation::QUEUE_MAX;
use crate::table::seats::Holder;
use crate::table::settings::Seating;

/// How long a table made by pairing waits for its people before freeing the seats of
/// those who have not come (docs/protocol.md, 7.4).
pub const ARRIVAL_WAIT: Duration = Duration::from_secs(30);

impl TableActor {
    /// A table whose seats were all taken before it opened, with no game yet (the lobby
    /// paired its people): it waits for them to arrive.
    pub(super) fn expect_arrivals(&mut self) {
        if self.current.is_none() && self.seats.is_full() && self.seats.people() > 0 {
            self.arrivals_until = Some(Instant::now() + ARRIVAL_WAIT);
        }
    }

    /// Starts the first game once every seated person is connected (while arrivals are
    /// awaited). A start the store refuses is tried again at the next command.
    pub(super) async fn start_if_arrived(&mut self) {
        if self.arrivals_until.is_none() {
            return;
        }
        if self.current.is_some() || !self.seats.is_full() {
            self.arrivals_until = None;
            return;
        }
        let everyone_here = self
            .seats
            .iter()
            .all(|(_, holder)| holder.is_some_and(|holder| self.is_present(holder)));
        if !everyone_here {
            return;
        }
        let plan = StartPlan::NewSeries {
            shuffle: self.settings.seating == Seating::Random,
        };
        match self.store_start(self.seats.clone(), plan).await {
            Ok(start) => {
                self.arrivals_until = None;
                self.begin_game(start);
                self.sync_presence();
            }
            Err(err) => tracing::error!(table = %self.id, error = %err, "could not start the paired game"),
        }
    }

    /// The wait for arrivals is over: the seats of people who have not come are freed
    /// (the others may wait for someone else, or leave).
    pub(super) async fn arrivals_over(&mut self) {
        self.arrivals_until = None;
        let absent: Vec<_> = self
            .seats
            .iter()
            .filter(|(_, holder)| holder.is_some_and(|holder| !self.is_present(holder)))
            .map(|(seat, _)| seat)
            .collect();
        for seat in absent {
            if let Err(err) = self.store.free_seat(&self.id, seat).await {
                tracing::error!(table = %self.id, error = %err, "could not free the seat of someone who did not come");
                continue;
            }
            self.seats.stand(seat);
            self.event(|version| ServerMsg::Stood { version, seat });
        }
        self.sync_presence();
    }

    /// Sends the table's lobby listing if it changed since the last one (listed tables).
    pub(super) fn publish_listing(&mut self) {
        self.listing_dirty = false;
        if !self.settings.listed {
            return;
        }
        let listing = self.listing();
        self.listings.send(&self.id, Some(listing));
    }

    /// Tells the lobby the table is no longer shown from here (it left memory).
    pub(super) fn unlist(&self) {
        if self.settings.listed {
            self.listings.send(&self.id, None);
        }
    }

    /// Whether an event changes what the lobby shows of the table.
    pub(super) fn changes_listing(msg: &ServerMsg) -> bool {
        matches!(
            msg,
            ServerMsg::Seated { .. }
                | ServerMsg::Stood { .. }
                | ServerMsg::Renamed { .. }
                | ServerMsg::GameStarted { .. }
                | ServerMsg::GameOver { .. }
                | ServerMsg::Spectators { .. }
                | ServerMsg::Queue { .. }
                | ServerMsg::Rotated { .. }
        )
    }

    fn listing(&self) -> TableListing {
        let playing = self.status() == TableStatus::Playing;
        let seats: Vec<ListedSeat> = self
            .seats
            .iter()
            .map(|(seat, holder)| ListedSeat {
                seat,
                name: holder.map(Holder::name),
                bot: holder.and_then(Holder::bot).map(|strength| strength.id()),
            })
            .collect();
        let free = seats.iter().filter(|seat| seat.name.is_none()).count();
        let players: Vec<String> = self.seats.iter().filter_map(|(_, h)| h.map(Holder::name)).collect();
        let ratings: Vec<i32> = self
            .seats
            .iter()
            .filter_map(|(_, holder)| holder.filter(|h| h.key().is_some()))
            .filter_map(|holder| self.rating_view(holder))
            .map(|view| view.value)
            .collect();
        let rating = (!ratings.is_empty())
            .then(|| ratings.iter().sum::<i32>() / i32::try_from(ratings.len()).unwrap_or(i32::MAX));
        let spectators = i32::try_from(self.spectator_count()).unwrap_or(i32::MAX);
        // A rotating table with every seat taken is still open to the people who would
        // queue for the next games, while its queue has room (in play or not).
        let queue = self.queue_length();
        let queue_open = queue.is_some_and(|waiting| free == 0 && waiting < QUEUE_MAX);
        let mut entry = json!({
            "id": self.id,
            "game": self.settings.kind().id(),
            "time_control": self.settings.time_control.label(),
            "rated": self.settings.rated,
            "seats": seats,
            "free": free,
            "players": players,
            "rating": rating,
            "spectators": spectators,
        });
        if let (Some(waiting), Some(fields)) = (queue, entry.as_object_mut()) {
            fields.insert("queue".to_owned(), json!(waiting));
        }
        TableListing {
            open: (free > 0 && !playing) || queue_open,
            playing,
            rating,
            spectators,
            entry,
        }
    }
}
