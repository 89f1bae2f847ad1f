//! Take-backs (undo), a table setting that is off by default and never allowed at rated
//! tables, in a series, or in Bughouse (settings refuse those combinations).
//!
//! A player asks to take back their last move: the game goes back to just before their
//! most recent move (in Krux: the start of their last turn, or of the turn they are in),
//! so the replies played since are taken back too. Against the computer that happens at
//! once (bots agree); between people every other person must accept, and a decline or any
//! move ends the request.
//!
//! A game stops allowing take-backs once it holds `limits.undo_record_limit` records (1000),
//! so its record stays bounded (alone against a bot, a take-back is instant).
//!
//! A take-back is stored as a record of its own in the move list (`takeback_to`: the
//! number of moves the game keeps), so that replaying the records after a restart
//! rebuilds exactly the line the players saw; the clocks go back to their readings after
//! the last move kept.

use super::{Refusal, TableActor};
use crate::games::Seat;
use crate::protocol::{ErrorCode, ServerMsg};
use crate::table::msg::ConnId;

impl TableActor {
    fn undo_allowed(&self) -> Result<(), Refusal> {
        if self.settings.undo {
            Ok(())
        } else {
            Err(Refusal::new(
                ErrorCode::UndoNotAllowed,
                "Take-backs are off at this table (they are never allowed at rated tables, in a series or in Bughouse).",
            ))
        }
    }

    /// How many moves the game keeps when `seat` takes back its last move: everything
    /// before the seat's last run of moves. `None` when the seat has not moved.
    fn undo_keeps(&self, seat: Seat) -> Option<usize> {
        let moves = &self.current.as_ref()?.moves;
        let last = moves.seats().rposition(|mover| mover == seat)?;
        let first = moves
            .seats()
            .take(last)
            .rposition(|mover| mover != seat)
            .map_or(0, |other| other + 1);
        Some(first)
    }

    pub(super) async fn offer_undo(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.undo_allowed()?;
        let standing = self.playing()?.undo_agreed.clone();
        if standing.first() == Some(&seat) {
            return Err(Refusal::new(
                ErrorCode::UndoPending,
                "You have already asked to take back your move.",
            ));
        }
        if !standing.is_empty() {
            return Err(Refusal::new(
                ErrorCode::UndoPending,
                "Answer the other player's take-back request first.",
            ));
        }
        if self.undo_keeps(seat).is_none() {
            return Err(Refusal::new(ErrorCode::NothingToUndo, "You have no move to take back."));
        }
        let limit = self.limits.quotas.undo_record_limit;
        if self.playing()?.records >= limit {
            return Err(Refusal::new(
                ErrorCode::UndoLimit,
                format!(
                    "This game has {limit} moves and take-backs stored, as many as take-backs are allowed up to: play on."
                ),
            ));
        }
        if self.everyone_agrees(&[seat]) {
            return self.take_back(seat).await;
        }
        if let Some(current) = self.current.as_mut() {
            current.undo_agreed = vec![seat];
        }
        self.event(|version| ServerMsg::UndoOffered { version, seat });
        Ok(())
    }

    pub(super) async fn accept_undo(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let mut agreed = self.playing()?.undo_agreed.clone();
        let Some(requester) = agreed.first().copied().filter(|requester| *requester != seat) else {
            return Err(Refusal::new(
                ErrorCode::NoUndoOffer,
                "Nobody else has asked to take back a move.",
            ));
        };
        if !agreed.contains(&seat) {
            agreed.push(seat);
        }
        if self.everyone_agrees(&agreed) {
            return self.take_back(requester).await;
        }
        if let Some(current) = self.current.as_mut() {
            current.undo_agreed = agreed;
        }
        Ok(())
    }

    pub(super) fn decline_undo(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let current = self.playing()?;
        if current.undo_agreed.first().is_none_or(|requester| *requester == seat) {
            return Err(Refusal::new(
                ErrorCode::NoUndoOffer,
                "Nobody else has asked to take back a move.",
            ));
        }
        if let Some(current) = self.current.as_mut() {
            current.undo_agreed.clear();
        }
        self.event(|version| ServerMsg::UndoDeclined { version, seat });
        Ok(())
    }

    /// Takes back `requester`'s last move (and the replies since): stored first, then
    /// applied and announced.
    async fn take_back(&mut self, requester: Seat) -> Result<(), Refusal> {
        let keep = self
            .undo_keeps(requester)
            .ok_or_else(|| Refusal::new(ErrorCode::NothingToUndo, "You have no move to take back."))?;
        let current = self.playing()?;
        let mut game = self
            .settings
            .game
            .new_game_drawn(crate::games::game_seed(&self.id, current.number));
        for (seat, payload) in (0..keep).filter_map(|index| current.moves.get(index)) {
            // These moves were legal in this order a moment ago; the rules are pure.
            let payload: serde_json::Value = serde_json::from_str(&payload).unwrap_or_default();
            if let Err(err) = game.play_json(seat, &payload) {
                tracing::error!(table = %self.id, error = %err, "a kept move did not replay for a take-back");
                return Err(Refusal::new(
                    ErrorCode::NothingToUndo,
                    "This move cannot be taken back.",
                ));
            }
        }
        let readings = keep.checked_sub(1).and_then(|last| current.moves.clocks_after(last));
        let clocks = self.clocks_after(readings.as_deref(), &game, None);
        let now = tokio::time::Instant::now();
        let deadline = clocks.as_ref().and_then(|clocks| super::wall_deadline(clocks, now));
        let record = current.records + 1;
        let kept = u32::try_from(keep).unwrap_or(u32::MAX);
        self.store
            .append_takeback(current.id, record, requester, kept, deadline)
            .await
            .map_err(Refusal::storage)?;
        let state = game.view();
        let to_move: Vec<Seat> = game.active_seats().iter().collect();
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(now));
        if let Some(current) = self.current.as_mut() {
            current.game = game;
            current.moves.truncate(keep);
            current.records = record;
            current.clocks = clocks;
            current.draw_agreed.clear();
            current.undo_agreed.clear();
            current.new_game_agreed.clear();
        }
        self.premoves.iter_mut().for_each(|slot| *slot = None);
        self.bot_seats.reset();
        self.event(|version| ServerMsg::Undone {
            version,
            seat: requester,
            plies: kept,
            state,
            to_move,
            clocks: clock_view,
        });
        self.wake_bots();
        Ok(())
    }
}
