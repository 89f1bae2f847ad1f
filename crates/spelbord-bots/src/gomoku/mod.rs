//! The gomoku bot.
//!
//! - [`pattern`]: line patterns and threat classes, from lazily filled tables.
//! - [`board`]: the engine's board, its patterns updated incrementally, Zobrist hash.
//! - [`eval`]: square values, the hand-set static evaluation and move ordering.
//! - [`learned`]: the learned static evaluation (Hard's), its features and weights.
//! - [`vcf`]: victory by continuous fours.
//! - [`threats`]: the squares that stop a three.
//! - [`vct`]: victory by continuous threats (threes and fours), threat-space search.
//! - [`search`]: negamax PVS with iterative deepening.
//! - [`tt`]: this engine's transposition table, the shared [`crate::tt`].
//! - [`tactics`]: forced moves and the static judgements (lost, dead drawn).
//! - [`easy`] and [`think`]: how each strength picks its move.
//! - [`outlook`]: whether the bot is lost beyond doubt (for resigning).
//! - `measure` (tests only): the arena against Hard as it was before VCT.
//! - `fit` (tests only): fitting the learned evaluation's weights.
//!
//! Random plays a uniformly random legal move. Easy looks one ply ahead with noise but
//! never misses a five, a block of a five or of an open three. Medium searches a few plies
//! without VCF. Hard searches deeper, with VCF and VCT at the root and in defence, and
//! judges positions with the learned evaluation.
//! See `docs/bots/gomoku.md`.

mod board;
mod easy;
mod eval;
#[cfg(test)]
mod fit;
mod learned;
mod outlook;
mod pattern;
mod search;
mod tactics;
mod think;
mod threats;
mod vcf;
mod vct;

/// The shared transposition table with cells as moves (`u16::MAX` for none): 2^20 entries
/// of 16 bytes, 16 MB per search thread, kept between searches.
mod tt {
    pub use crate::tt::{Bound, Earlier, Table, from_table, to_table};
    crate::tt::per_thread! {
        /// Runs `search` with this thread's table (made on first use), starting a new age.
        pub fn with_table -> Table<u16> = Table::new(20, u16::MAX, Earlier::Used);
    }
}

#[cfg(test)]
mod measure;
#[cfg(test)]
mod tests;

use board::Board;

use super::{Answer, Bot, Context, Decision, Strength, random_move};
use spelbord_games::gomoku::{Gomoku, GomokuMove};
use spelbord_games::{Rules, Seat};

impl Bot for Gomoku {
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<GomokuMove> {
        decide_as(self, seat, strength, &think::HARD, ctx)
    }

    /// [`Bot::decide`], after [`outlook::judge`] has spent at most a fifth of the budget.
    fn answer(&self, seat: Seat, strength: Strength, ctx: &Context) -> Answer<GomokuMove> {
        let mut board = Board::from_game(self);
        if board.to_move() != usize::from(seat) {
            board.pass();
        }
        let now = std::time::Instant::now();
        let judged_by = now + ctx.deadline.saturating_duration_since(now) / 5;
        let outlook = outlook::judge(&mut board, strength, judged_by);
        Answer {
            decision: self.decide(seat, strength, ctx),
            outlook,
        }
    }

    fn accepts_draw(&self, seat: Seat, _strength: Strength) -> bool {
        if self.to_move().is_none() {
            return false;
        }
        let board = Board::from_game(self);
        tactics::clearly_lost(&board, usize::from(seat)) || tactics::dead_drawn(&board)
    }
}

/// [`Bot::decide`], with `hard` as what Hard means (the arena's baseline plays an older
/// Hard).
fn decide_as(
    game: &Gomoku,
    seat: Seat,
    strength: Strength,
    hard: &think::Level,
    ctx: &Context,
) -> Decision<GomokuMove> {
    let legal = game.legal_moves(seat);
    if strength == Strength::Random || legal.len() <= 1 {
        return random_move(game, seat, ctx);
    }
    let mut board = Board::from_game(game);
    if board.to_move() != usize::from(seat) {
        board.pass();
    }
    let cell = match strength {
        Strength::Random | Strength::Easy => easy::choose(&board, &mut ctx.rng()),
        Strength::Medium => think::choose(&mut board, &think::MEDIUM, ctx),
        Strength::Hard => think::choose(&mut board, hard, ctx),
    };
    match cell.map(|c| GomokuMove { at: board.square(c) }) {
        Some(mv) if legal.contains(&mv) => Decision::Play(mv),
        // Never expected: the engine only picks empty squares of this board.
        _ => random_move(game, seat, ctx),
    }
}
