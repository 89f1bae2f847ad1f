//! The Krux bot. A bot plays a whole turn at once (`KruxMove::Turn`), chosen among the
//! distinct ways the turn can end (the rules' `turn_outcomes`).
//!
//! - **Random**: a uniformly random one of those turns.
//! - **Easy**: takes a winning turn; otherwise keeps to the turns after which the
//!   opponent's next piece cannot win at once (when there are any) and picks among them by
//!   the simple evaluation plus a good deal of noise.
//! - **Medium**: a narrow two-turn search: every turn one turn deep (its safety — can the
//!   opponent then win at once? — and its full static value), then the best six against
//!   every reply of the opponent.
//! - **Hard**: alpha-beta over whole turns with iterative deepening, a transposition
//!   table and move ordering ([`search`]), on the full evaluation ([`eval`]).
//!
//! Medium and Hard report their search's outlook with the turn ([`crate::resign`]): proven
//! lost when every turn lets the opponent win at once (`-WIN`), lost at most
//! [`RESIGN_VALUE`] after a completed iteration.
//!
//! Modules: [`root`] (the turns to choose from), [`eval`], [`search`], [`tt`] (this engine's
//! transposition table, the shared [`crate::tt`]).

mod eval;
mod root;
mod search;

/// The shared transposition table with the key of the best next position as the move (0
/// for none): 2^20 entries of 24 bytes, 24 MB per search thread. A search sees only its
/// own entries ([`Earlier::Ignored`](crate::tt::Earlier::Ignored)), so its answer never depends on an earlier one.
mod tt {
    pub use crate::tt::{Bound, Earlier, Table};
    crate::tt::per_thread! {
        /// Runs `search` with this thread's table (made on first use), started afresh.
        pub fn with_table -> Table<u64> = Table::new(20, 0, Earlier::Ignored);
    }
}

use std::time::Duration;

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};

use super::{Answer, Bot, Context, Decision, Outlook, Strength};
use eval::{Evaluation, for_seat, mover_seat};
use root::{Ending, Turn};
use search::Limits;
use spelbord_games::Seat;
use spelbord_games::krux::{Krux, KruxMove, can_win, turn_outcomes};

/// Kept back from the deadline for the answer's way out.
const MARGIN: Duration = Duration::from_millis(20);

/// How far each strength searches, in turns, and how wide (see [`Limits`]).
const MEDIUM: (u8, usize, usize) = (2, 6, 0);
const HARD: (u8, usize, usize) = (8, usize::MAX, 3);

/// Easy's noise: a uniform amount up to this many points either way on each turn's value.
const EASY_NOISE: i32 = 120;

fn play(turn: &Turn) -> Decision<KruxMove> {
    Decision::Play(KruxMove::Turn(turn.parts.clone()))
}

/// The value of a turn's end for `seat` by a static evaluation (a draw is 0).
fn static_value(turn: &Turn, seat: Seat, evaluation: Evaluation) -> i32 {
    match turn.ending {
        Ending::Won => search::WIN,
        Ending::Drawn => 0,
        Ending::Continues(position) => for_seat(&position, seat, evaluation),
    }
}

/// Easy: a win if there is one (the caller checked), else a noisy choice among the turns
/// that do not let the opponent win at once. The turns are tested in a random order; once
/// time is up the ones found safe so far are the choice (all of them are tested if none
/// is safe yet: avoiding a loss in one comes first).
fn easy(turns: &[Turn], seat: Seat, ctx: &Context) -> Decision<KruxMove> {
    let mut rng = ctx.rng();
    let mut shuffled: Vec<&Turn> = turns.iter().collect();
    shuffled.shuffle(&mut rng);
    let mut safe: Vec<&Turn> = Vec::new();
    for turn in &shuffled {
        if !turn.lets_opponent_win() {
            safe.push(turn);
        }
        if !safe.is_empty() && ctx.out_of_time() {
            break;
        }
    }
    let pool = if safe.is_empty() { shuffled } else { safe };
    let best = pool
        .iter()
        .max_by_key(|turn| static_value(turn, seat, Evaluation::Simple) + rng.random_range(-EASY_NOISE..=EASY_NOISE));
    match best {
        Some(turn) => play(turn),
        None => Decision::Wait,
    }
}

/// At most this value (for the bot, after a completed iteration) the search judges its
/// position lost ([`Outlook::Lost`]): well past a draw offer's [`LOST`].
pub const RESIGN_VALUE: i32 = -600;

/// How a search's value reads for resigning.
fn outlook_of(value: i32, depth: u8) -> Outlook {
    match value {
        _ if depth < 1 => Outlook::Unclear,
        v if v <= -search::WIN => Outlook::Proven,
        v if v <= RESIGN_VALUE => Outlook::Lost,
        _ => Outlook::Unclear,
    }
}

impl Bot for Krux {
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<KruxMove> {
        self.answer(seat, strength, ctx).decision
    }

    fn answer(&self, seat: Seat, strength: Strength, ctx: &Context) -> Answer<KruxMove> {
        if strength == Strength::Random {
            return match turn_outcomes(self).choose(&mut ctx.rng()) {
                Some((parts, _)) => Decision::Play(KruxMove::Turn(parts.clone())),
                None => Decision::Wait,
            }
            .into();
        }
        let turns = root::turns(self);
        if turns.is_empty() {
            return Decision::Wait.into();
        }
        if let Some(win) = root::winning(&turns) {
            return play(win).into();
        }
        let ((max_depth, root_width, inner_width), evaluation) = match strength {
            Strength::Random | Strength::Easy => return easy(&turns, seat, ctx).into(),
            Strength::Medium => (MEDIUM, Evaluation::Full),
            Strength::Hard => (HARD, Evaluation::Full),
        };
        let limits = Limits {
            max_depth,
            root_width,
            inner_width,
            evaluation,
            deadline: ctx.deadline.checked_sub(MARGIN).unwrap_or(ctx.deadline),
        };
        let found = tt::with_table(|table| search::best_turn(self, seat, &turns, table, limits));
        tracing::debug!(
            position = %self.position(),
            turns = turns.len(),
            depth = found.depth,
            value = found.value,
            nodes = found.nodes,
            "krux {strength:?} searched"
        );
        match turns.get(found.best) {
            Some(turn) => Answer {
                decision: play(turn),
                outlook: outlook_of(found.value, found.depth),
            },
            None => Decision::Wait.into(),
        }
    }

    /// Accepts when the position is clearly lost — the opponent's piece in turn can win
    /// now, or the evaluation is far behind — or dead equal: even by the evaluation with no
    /// piece of either side near the hole. A static look only (one `can_win`, ~40 µs).
    fn accepts_draw(&self, seat: Seat, _strength: Strength) -> bool {
        if self.to_move().is_none() || !self.parts().is_empty() {
            return false;
        }
        let position = self.turn_start();
        let mover = mover_seat(&position);
        if can_win(&position) {
            // Whoever is in turn wins now.
            return mover != seat;
        }
        let value = for_seat(&position, seat, Evaluation::Full);
        let quiet = (1..=6).all(|number| {
            position
                .square(number)
                .is_none_or(|square| (i32::from(square.col()) - 3).abs() + (i32::from(square.row()) - 3).abs() > 2)
        });
        value <= -LOST || (quiet && value.abs() <= EVEN)
    }
}

/// An evaluation this far behind is a lost position.
const LOST: i32 = 250;
/// An evaluation this close to zero is even.
const EVEN: i32 = 10;

#[cfg(test)]
mod tests;
