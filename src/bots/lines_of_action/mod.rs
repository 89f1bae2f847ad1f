//! The Lines of Action bot.
//!
//! Every strength first sorts the root's moves by what they do at once
//! ([`threats::RootMoves`]): it plays a move that connects its pieces (a win in one) if
//! there is one, and otherwise considers only moves after which the opponent has no
//! connecting reply (when such moves exist). Then:
//! - **Easy** plays the best of those by a one-ply look at concentration and
//!   centralisation, with a good deal of noise;
//! - **Medium** searches them three plies deep with the same simple evaluation;
//! - **Hard** runs the full engine ([`search`]): iterative deepening, PVS, a transposition
//!   table, killers and history, a win-in-one check and threat extensions at the horizon,
//!   and the full evaluation ([`eval`]).
//!
//! The `simultaneous` setting is part of every judgement: a move that connects both sides
//! is a draw or a win as the table says. Repetitions inside the search count as draws.
//! A side without a move passes (its only legal move). The bot never resigns.
//!
//! - [`board`]: the search's board, packed moves and the end check;
//! - [`threats`]: groups, connecting moves, the root's sorting of moves;
//! - [`eval`]: the static evaluation;
//! - [`search`]: alpha-beta with iterative deepening;
//! - [`tt`]: the transposition table.

pub mod board;
pub mod eval;
pub mod search;
pub mod threats;
pub mod tt;

use std::time::Instant;

use rand::Rng;

use self::board::{Board, Mv, to_loa};
use self::eval::{Knowledge, evaluate};
use self::search::{Profile, best_move, margin};
use self::threats::{RootMoves, can_win_now};
use super::{Bot, Context, Decision, Strength, random_move};
use crate::games::lines_of_action::{LinesOfAction, LoaMove, Side};
use crate::games::{Rules, Seat};

/// Medium: a shallow search with the simple evaluation.
const MEDIUM: Profile = Profile {
    knowledge: Knowledge::Simple,
    max_depth: 3,
    leaf_wins: false,
    threat_extensions: 0,
    killers: false,
    pvs: false,
};

/// Hard: everything the engine has.
const HARD: Profile = Profile {
    knowledge: Knowledge::Full,
    max_depth: 64,
    leaf_wins: true,
    threat_extensions: 2,
    killers: true,
    pvs: true,
};

/// Easy's noise: a uniform amount in `0..EASY_NOISE` added to each move's score.
const EASY_NOISE: i32 = 120;

/// Below this evaluation (for the seat asked) a draw offer is welcome.
const LOST: i32 = -300;
/// Within this evaluation of zero, a long game that has started repeating is dead equal.
const EQUAL: i32 = 25;
/// "Long" for [`EQUAL`], in moves played.
const LONG_GAME: usize = 80;

/// The best of `moves` by a one-ply look with `knowledge`, plus `noise(mv)`.
fn one_ply(board: &Board, moves: &[Mv], knowledge: Knowledge, mut noise: impl FnMut() -> i32) -> Option<Mv> {
    moves
        .iter()
        .map(|&mv| (mv, -evaluate(&board.play(mv), knowledge) + noise()))
        .max_by_key(|&(_, score)| score)
        .map(|(mv, _)| mv)
}

impl LinesOfAction {
    /// The keys of the positions since the last capture, the current one last.
    fn recent_keys(&self) -> Vec<u64> {
        let rule = self.simultaneous();
        self.recent_positions()
            .iter()
            .map(|position| Board::new(position, rule).hash)
            .collect()
    }
}

impl Bot for LinesOfAction {
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<LoaMove> {
        if strength == Strength::Random || self.to_move() != Some(seat) {
            return random_move(self, seat, ctx);
        }
        let started = Instant::now();
        let rule = self.simultaneous();
        let board = Board::new(self.board(), rule);
        let roots = RootMoves::classify(&board, rule);
        if let Some(mv) = roots.winning {
            return Decision::Play(to_loa(mv));
        }
        let candidates = roots.candidates();
        let quick = |knowledge| one_ply(&board, &candidates, knowledge, || 0);
        let chosen = if candidates.len() <= 1 || ctx.out_of_time() {
            quick(Knowledge::Simple)
        } else {
            match strength {
                Strength::Random | Strength::Easy => {
                    let mut rng = ctx.rng();
                    one_ply(&board, &candidates, Knowledge::Simple, || {
                        rng.random_range(0..EASY_NOISE)
                    })
                }
                Strength::Medium | Strength::Hard => {
                    let profile = if strength == Strength::Hard { HARD } else { MEDIUM };
                    let budget = ctx.deadline.saturating_duration_since(started);
                    let deadline = ctx.deadline - margin(budget);
                    let keys = self.recent_keys();
                    let found =
                        tt::with_table(|table| best_move(&board, &candidates, &keys, rule, profile, table, deadline));
                    Some(found.mv)
                }
            }
        };
        match chosen {
            Some(mv) => Decision::Play(to_loa(mv)),
            None => random_move(self, seat, ctx),
        }
    }

    fn accepts_draw(&self, seat: Seat, _strength: Strength) -> bool {
        let Some(side) = Side::of_seat(seat) else {
            return false;
        };
        if self.outcome().is_some() {
            return false;
        }
        let board = Board::new(self.board(), self.simultaneous());
        let to_move = self.board().to_move() == side;
        if can_win_now(&board, self.simultaneous()) {
            // The side to move wins on the spot: it declines, the other accepts.
            return !to_move;
        }
        let eval = evaluate(&board, Knowledge::Full);
        let mine = if to_move { eval } else { -eval };
        let positions = self.recent_positions();
        let repeating = positions
            .iter()
            .enumerate()
            .any(|(i, position)| positions[i + 1..].contains(position));
        mine <= LOST || (mine.abs() <= EQUAL && repeating && self.moves().len() >= LONG_GAME)
    }
}

#[cfg(test)]
mod tests;
