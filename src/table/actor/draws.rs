//! Draws by agreement: a player offers, and the game is drawn when **every** seat agrees
//! (for two players: the opponent accepts; for Bughouse: all four). Anyone who has not
//! agreed may decline, which withdraws the offer; the offer also lapses when a player who
//! has not agreed moves. Offering while an offer stands is agreeing to it.

use super::{Refusal, TableActor};
use crate::games::{EndReason, Outcome, Seat};
use crate::protocol::{ErrorCode, ServerMsg};
use crate::table::msg::ConnId;

impl TableActor {
    /// The seats that agree to the standing offer; refused when there is none that
    /// `seat` could answer (none at all, or only its own).
    fn offer_to_answer(&self, seat: Seat) -> Result<&[Seat], Refusal> {
        let agreed = &self.playing()?.draw_agreed;
        if agreed.iter().any(|other| *other != seat) {
            Ok(agreed)
        } else {
            Err(Refusal::new(ErrorCode::NoDrawOffer, "Nobody else has offered a draw."))
        }
    }

    /// Adds `seat` to those who agree, ending the game in a draw once every seat has.
    async fn agree(&mut self, seat: Seat) -> Result<(), Refusal> {
        let everyone = self.seats.count();
        let agreed = {
            let Some(current) = self.current.as_mut() else {
                return Ok(());
            };
            if !current.draw_agreed.contains(&seat) {
                current.draw_agreed.push(seat);
            }
            current.draw_agreed.len()
        };
        if agreed >= everyone {
            return self.end_game(Outcome::draw(EndReason::DrawAgreed)).await;
        }
        self.event(|version| ServerMsg::DrawOffered { version, seat });
        Ok(())
    }

    pub(super) async fn offer_draw(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        if self.playing()?.draw_agreed.contains(&seat) {
            return Err(Refusal::new(
                ErrorCode::DrawAlreadyOffered,
                "You have already offered a draw.",
            ));
        }
        self.agree(seat).await
    }

    pub(super) async fn accept_draw(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        if self.offer_to_answer(seat)?.contains(&seat) {
            return Err(Refusal::new(
                ErrorCode::DrawAlreadyOffered,
                "You have already agreed to the draw.",
            ));
        }
        self.agree(seat).await
    }

    pub(super) fn decline_draw(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.offer_to_answer(seat)?;
        if let Some(current) = self.current.as_mut() {
            current.draw_agreed.clear();
        }
        self.event(|version| ServerMsg::DrawDeclined { version, seat });
        Ok(())
    }
}
