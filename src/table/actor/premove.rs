//! Premoves: while it is not their turn, a player may queue one move (or drop). The
//! instant a move makes it that seat's turn, the table plays the premove through the same
//! path as any move — no round trip, almost no clock time. If it is not legal then, it is
//! dropped and the player is told. Premoves are private to the player until played; a new
//! premove replaces the old one, and a player may cancel it.

use serde_json::Value;

use super::{Refusal, TableActor};
use crate::games::Seat;
use crate::protocol::{ErrorCode, ServerMsg};
use crate::table::msg::ConnId;

impl TableActor {
    pub(super) fn premove(&mut self, conn: ConnId, seat: Option<Seat>, payload: Value) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let current = self.playing()?;
        if current.game.active_seats().contains(seat) {
            return Err(Refusal::new(ErrorCode::YourTurn, "It is your turn: send it as a move."));
        }
        current
            .game
            .check_payload(&payload)
            .map_err(|bad| Refusal::new(ErrorCode::BadMove, format!("{bad}.")))?;
        if let Some(slot) = self.premoves.get_mut(usize::from(seat)) {
            *slot = Some(payload.clone());
        }
        let set = ServerMsg::PremoveSet {
            version: self.version,
            seat,
            payload,
        };
        self.send_to_seat(seat, &set);
        Ok(())
    }

    pub(super) fn cancel_premove(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let taken = self.premoves.get_mut(usize::from(seat)).and_then(Option::take);
        if taken.is_none() {
            return Err(Refusal::new(ErrorCode::NoPremove, "You have no premove to cancel."));
        }
        let cancelled = ServerMsg::PremoveCancelled {
            version: self.version,
            seat,
        };
        self.send_to_seat(seat, &cancelled);
        Ok(())
    }

    /// Plays every queued premove whose seat is now to move, until none is (a premove
    /// played may make another seat's turn).
    pub(super) async fn run_premoves(&mut self) {
        loop {
            let Ok(current) = self.playing() else {
                self.premoves.iter_mut().for_each(|slot| *slot = None);
                return;
            };
            let active = current.game.active_seats();
            let due = self.premoves.iter().enumerate().find_map(|(index, slot)| {
                let seat = Seat::try_from(index).ok()?;
                (slot.is_some() && active.contains(seat)).then_some(seat)
            });
            let Some(seat) = due else { return };
            let Some(payload) = self.premoves.get_mut(usize::from(seat)).and_then(Option::take) else {
                return;
            };
            if let Err(refusal) = self.apply_move(seat, &payload, None).await {
                let discarded = ServerMsg::PremoveDiscarded {
                    version: self.version,
                    seat,
                    code: refusal.code,
                    message: refusal.message,
                    rule: refusal.rule,
                };
                self.send_to_seat(seat, &discarded);
            }
        }
    }
}
