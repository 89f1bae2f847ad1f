//! The bughouse bot. For now every strength plays a uniformly random legal move; the
//! engine that makes the strengths differ comes next.

use super::{Bot, Context, Decision, Strength, random_move};
use crate::games::Seat;
use crate::games::bughouse::Bughouse;

impl Bot for Bughouse {
    fn decide(&self, seat: Seat, _strength: Strength, ctx: &Context) -> Decision<Self::Move> {
        random_move(self, seat, ctx)
    }

    fn accepts_draw(&self, _seat: Seat, _strength: Strength) -> bool {
        false
    }
}
