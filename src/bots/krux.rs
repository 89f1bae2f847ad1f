//! The Krux bot. For now every strength plays a uniformly random complete turn (one of
//! the distinct ways the turn can end); the engine that makes the strengths differ comes
//! next.

use rand::seq::IndexedRandom;

use super::{Bot, Context, Decision, Strength};
use crate::games::Seat;
use crate::games::krux::{Krux, KruxMove, turn_outcomes};

impl Bot for Krux {
    fn decide(&self, _seat: Seat, _strength: Strength, ctx: &Context) -> Decision<KruxMove> {
        let outcomes = turn_outcomes(self);
        match outcomes.choose(&mut ctx.rng()) {
            Some((parts, _)) => Decision::Play(KruxMove::Turn(parts.clone())),
            None => Decision::Wait,
        }
    }

    fn accepts_draw(&self, _seat: Seat, _strength: Strength) -> bool {
        false
    }
}
