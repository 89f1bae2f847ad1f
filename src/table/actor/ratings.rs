//! Ratings at a rated table: who is rated in the game in progress, the ratings shown next
//! to the players' names (read when someone sits down or the table is rebuilt, and kept
//! up to date with the table's own games), and the changes `game_over` announces.
//!
//! The ratings themselves are computed and stored by the store, in the transaction that
//! stores the game's result ([`crate::store::ratings`]); this file only shows them.

use super::*;
use crate::protocol::{RatingChangeView, RatingView};
use crate::ratings::{self, Rated, RatedGame, RatedSeat, RatingChange};

impl TableActor {
    /// The seats of the game in progress, for rating it; `None` at an unrated table, and
    /// when the computer holds a seat (never rated; only a table stored before that rule
    /// can still have one: creation and `add_bot` refuse bots at rated tables).
    pub(super) fn rated_game(&self) -> Option<RatedGame> {
        let bot_seated = self.seats.iter().any(|(seat, _)| self.seats.bot(seat).is_some());
        if !self.settings.rated || bot_seated {
            return None;
        }
        let seats = self
            .seats
            .iter()
            .filter_map(|(seat, holder)| {
                let holder = match holder? {
                    Holder::Person { key, .. } => Rated::Person(*key),
                    Holder::Bot { strength } => Rated::Bot(strength.stand_in()),
                };
                Some(RatedSeat {
                    seat,
                    team: self.settings.game.team_of(seat),
                    holder,
                })
            })
            .collect();
        Some(RatedGame {
            game: self.settings.kind(),
            seats,
        })
    }

    /// Reads the seated people's current ratings (rated tables). A failure is logged and
    /// leaves the known ones as they were: the ratings are only shown from here.
    pub(super) async fn refresh_ratings(&mut self) {
        if !self.settings.rated {
            return;
        }
        let people: Vec<PlayerKey> = self.seats.iter().filter_map(|(_, holder)| holder?.key()).collect();
        match self.store.ratings(self.settings.kind(), &people).await {
            Ok(found) => self.ratings.extend(found),
            Err(err) => tracing::warn!(error = %err, "could not read the players' ratings"),
        }
    }

    /// The rating shown for a seat's holder at a rated table (a person never rated shows
    /// a newcomer's, a bot its fixed one); `None` at an unrated table.
    pub(super) fn rating_view(&self, holder: &Holder) -> Option<RatingView> {
        if !self.settings.rated {
            return None;
        }
        let rating = match holder {
            Holder::Person { key, .. } => self.ratings.get(key).copied().unwrap_or(ratings::NEWCOMER),
            Holder::Bot { strength } => ratings::bots::rating(self.settings.kind(), strength.stand_in()),
        };
        Some(RatingView::from(&rating))
    }

    /// Keeps the game's stored rating changes for the names, and says them per seat.
    pub(super) fn rating_changes(&mut self, changes: Vec<RatingChange>) -> Vec<RatingChangeView> {
        let mut views = Vec::new();
        for change in changes {
            let before = RatingView::from(&change.before);
            let after = RatingView::from(&change.after);
            for seat in &change.seats {
                views.push(RatingChangeView {
                    seat: *seat,
                    before: before.value,
                    after: after.value,
                    change: after.value - before.value,
                    deviation: after.deviation,
                    provisional: after.provisional,
                });
            }
            self.ratings.insert(change.player, change.after);
        }
        views.sort_by_key(|view| view.seat);
        views
    }
}
