//! Draws by agreement: a player offers, and the game is drawn when **every** seat agrees
//! (for two players: the opponent accepts; for Bughouse: all four). Anyone who has not
//! agreed may decline, which withdraws the offer; the offer also lapses when a player who
//! has not agreed moves. Offering while an offer stands is agreeing to it.
//!
//! Bots: in Bughouse they neither offer nor block (every *human* must agree, as the rule
//! page says). In the other games a bot answers an offer at once: it agrees when its
//! position is clearly lost or dead equal ([`crate::bots::accepts_draw`]), and declines
//! otherwise.
//!
//! At a rated table a draw agreed before every seat has played two turns aborts the game
//! instead (no result, no rating change: `TableActor::close_game`, docs/ratings.md).

use super::{Refusal, TableActor};
use crate::bots;
use crate::games::{EndReason, GameKind, Outcome, Seat};
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

    /// Whether bots answer draw offers here (everywhere but Bughouse).
    pub(super) fn bots_answer_draws(&self) -> bool {
        self.settings.kind() != GameKind::Bughouse
    }

    /// How many agreements draw the game: every seat, or in Bughouse every person's.
    fn agreements_needed(&self) -> usize {
        if self.bots_answer_draws() {
            self.seats.count()
        } else {
            self.seats.people()
        }
    }

    /// Adds `seat` to those who agree, ending the game in a draw once everyone has; then
    /// lets the bots answer.
    async fn agree(&mut self, seat: Seat) -> Result<(), Refusal> {
        let needed = self.agreements_needed();
        let agreed = {
            let Some(current) = self.current.as_mut() else {
                return Ok(());
            };
            if !current.draw_agreed.contains(&seat) {
                current.draw_agreed.push(seat);
            }
            current.draw_agreed.len()
        };
        if agreed >= needed {
            return self.end_game(Outcome::draw(EndReason::DrawAgreed)).await;
        }
        self.event(|version| ServerMsg::DrawOffered { version, seat });
        if self.seats.bot(seat).is_none() && self.bots_answer_draws() {
            return Box::pin(self.bots_answer_draw()).await;
        }
        Ok(())
    }

    /// Every bot that has not agreed to the standing offer agrees or declines it.
    async fn bots_answer_draw(&mut self) -> Result<(), Refusal> {
        let Ok(current) = self.playing() else { return Ok(()) };
        let answers: Vec<(Seat, bool)> = self
            .seats
            .iter()
            .filter_map(|(seat, holder)| Some((seat, holder?.bot()?)))
            .filter(|(seat, _)| !current.draw_agreed.contains(seat))
            .map(|(seat, strength)| (seat, bots::accepts_draw(&current.game, seat, strength.stand_in())))
            .collect();
        for (seat, accepts) in answers {
            if !accepts {
                if let Some(current) = self.current.as_mut() {
                    current.draw_agreed.clear();
                }
                self.event(|version| ServerMsg::DrawDeclined { version, seat });
                return Ok(());
            }
            self.agree(seat).await?;
            if self.playing().is_err() {
                break;
            }
        }
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
