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
//!   table, killers and history, null moves and late-move reductions, a win-in-one check
//!   and threat extensions at the horizon, and the full evaluation ([`eval`]).
//!
//! The `simultaneous` setting is part of every judgement: a move that connects both sides
//! is a draw or a win as the table says. Repetitions inside the search count as draws.
//! A side without a move passes (its only legal move).
//!
//! Medium and Hard report their search's outlook with the move ([`crate::resign`]): lost
//! when the score is at most [`RESIGN_SCORE`] below even, proven when the search found a
//! forced loss against every move it considered.
//!
//! - [`board`]: the search's board, packed moves and the end check;
//! - [`threats`]: groups, connecting moves, the root's sorting of moves;
//! - [`eval`]: the static evaluation;
//! - [`search`]: alpha-beta with iterative deepening;
//! - [`tt`]: this engine's transposition table, the shared [`crate::tt`].

pub mod board;
pub mod eval;
pub mod search;
pub mod threats;

/// The shared transposition table with packed moves ([`Mv`], [`board::NO_MOVE`] for none):
/// 2^20 entries of 16 bytes, 16 MB per search thread, kept between searches.
pub mod tt {
    use super::board::{Mv, NO_MOVE};
    pub use crate::tt::{Bound, Earlier, Table, from_table, to_table};
    crate::tt::per_thread! {
        /// Runs `search` with this thread's table (allocated at its first search).
        pub fn with_table -> Table<Mv> = Table::new(20, NO_MOVE, Earlier::Used);
    }
}

use std::time::Instant;

use rand::Rng;

use self::board::{Board, Mv, to_loa};
use self::eval::{Knowledge, evaluate};
use self::search::{Profile, Task, WIN_BOUND, best_move, margin};
use self::threats::{RootMoves, can_win_now};
use super::{Answer, Bot, Context, Decision, Outlook, Strength, random_move};
use spelbord_games::lines_of_action::{LinesOfAction, LoaMove, Side};
use spelbord_games::{Rules, Seat};

/// Medium: a shallow search with the simple evaluation.
const MEDIUM: Profile = Profile {
    knowledge: Knowledge::SIMPLE,
    max_depth: 3,
    leaf_wins: false,
    threat_extensions: 0,
    killers: false,
    pvs: false,
    null_move: false,
    lmr: false,
    start_share: 40,
    noise: 8,
};

/// Hard: everything the engine has.
const HARD: Profile = Profile {
    knowledge: Knowledge::FULL,
    max_depth: 64,
    leaf_wins: true,
    threat_extensions: 2,
    killers: true,
    pvs: true,
    null_move: true,
    lmr: true,
    start_share: 40,
    noise: 0,
};

/// Easy's noise: a uniform amount in `0..EASY_NOISE` added to each move's score.
const EASY_NOISE: i32 = 120;

/// Below this evaluation (for the seat asked) a draw offer is welcome.
const LOST: i32 = -300;
/// At most this score (for the side to move, after a completed iteration) the search
/// judges its position lost ([`Outlook::Lost`]): twice a draw offer's [`LOST`].
pub const RESIGN_SCORE: i32 = -600;

/// How a search's score reads for resigning: proven lost beyond the win bound, lost at
/// most [`RESIGN_SCORE`], and unclear if no iteration completed.
fn outlook_of(score: i32, depth: i32) -> Outlook {
    match score {
        _ if depth < 1 => Outlook::Unclear,
        s if s <= -WIN_BOUND => Outlook::Proven,
        s if s <= RESIGN_SCORE => Outlook::Lost,
        _ => Outlook::Unclear,
    }
}

/// Within this evaluation of zero, a long game that has started repeating is dead equal.
const EQUAL: i32 = 25;
/// "Long" for [`EQUAL`], in moves played.
const LONG_GAME: usize = 80;

/// Whether a draw is welcome to a side whose evaluation is `mine`: when it is clearly
/// lost, or dead equal in a long game that has started to repeat itself.
fn welcomes_draw(mine: i32, long_and_repeating: bool) -> bool {
    mine <= LOST || (long_and_repeating && mine.abs() <= EQUAL)
}

/// The best of `moves` by a one-ply look with `knowledge`, plus `noise(mv)`.
fn one_ply(board: &Board, moves: &[Mv], knowledge: Knowledge, mut noise: impl FnMut() -> i32) -> Option<Mv> {
    moves
        .iter()
        .map(|&mv| (mv, -evaluate(&board.play(mv), &knowledge) + noise()))
        .max_by_key(|&(_, score)| score)
        .map(|(mv, _)| mv)
}

/// The keys of the positions since the last capture, the current one last.
fn recent_keys(game: &LinesOfAction) -> Vec<u64> {
    let rule = game.simultaneous();
    game.recent_positions()
        .iter()
        .map(|position| Board::new(position, rule).hash)
        .collect()
}

/// How a strength picks among the moves that neither win nor lose at once.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    /// The best by a one-ply look, plus a uniform noise in `0..noise`.
    OnePly { knowledge: Knowledge, noise: i32 },
    /// A search.
    Search(Profile),
}

impl Style {
    /// The style of a strength (Random has none: it plays any legal move).
    pub fn of(strength: Strength) -> Style {
        match strength {
            Strength::Random | Strength::Easy => Style::OnePly {
                knowledge: Knowledge::SIMPLE,
                noise: EASY_NOISE,
            },
            Strength::Medium => Style::Search(MEDIUM),
            Strength::Hard => Style::Search(HARD),
        }
    }
}

/// The move of the side to move in the running `game`, in `style`, by `ctx.deadline`.
pub fn choose(game: &LinesOfAction, style: Style, ctx: &Context) -> LoaMove {
    judge(game, style, ctx).0
}

/// [`choose`], with the search's outlook (unclear for the one-ply styles).
pub fn judge(game: &LinesOfAction, style: Style, ctx: &Context) -> (LoaMove, Outlook) {
    let started = Instant::now();
    let rule = game.simultaneous();
    let board = Board::new(game.board(), rule);
    let roots = RootMoves::classify(&board, rule);
    if let Some(mv) = roots.winning {
        return (to_loa(mv), Outlook::Unclear);
    }
    let candidates = roots.candidates();
    let quick = || one_ply(&board, &candidates, Knowledge::SIMPLE, || 0);
    let mut outlook = Outlook::Unclear;
    let chosen = if candidates.len() <= 1 || ctx.out_of_time() {
        quick()
    } else {
        match style {
            Style::OnePly { knowledge, noise } => {
                let mut rng = ctx.rng();
                one_ply(&board, &candidates, knowledge, || rng.random_range(0..noise.max(1)))
            }
            Style::Search(profile) => {
                let budget = ctx.deadline.saturating_duration_since(started);
                let task = Task {
                    board,
                    candidates: &candidates,
                    history: &recent_keys(game),
                    rule,
                    deadline: ctx.deadline.checked_sub(margin(budget)).unwrap_or(ctx.deadline),
                    seed: ctx.seed,
                };
                let found = tt::with_table(|table| best_move(&task, &profile, table));
                outlook = outlook_of(found.score, found.depth);
                Some(found.mv)
            }
        }
    };
    // `candidates` is never empty (a side without a step has the pass), so neither is
    // the choice; the pass is a safe fallback all the same.
    (chosen.map_or(LoaMove::Pass, to_loa), outlook)
}

impl Bot for LinesOfAction {
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<LoaMove> {
        self.answer(seat, strength, ctx).decision
    }

    fn answer(&self, seat: Seat, strength: Strength, ctx: &Context) -> Answer<LoaMove> {
        if strength == Strength::Random || self.to_move() != Some(seat) {
            return random_move(self, seat, ctx).into();
        }
        let (mv, outlook) = judge(self, Style::of(strength), ctx);
        Answer {
            decision: Decision::Play(mv),
            outlook,
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
        let eval = evaluate(&board, &Knowledge::FULL);
        let mine = if to_move { eval } else { -eval };
        let positions = self.recent_positions();
        let repeating = positions
            .iter()
            .enumerate()
            .any(|(i, position)| positions[i + 1..].contains(position));
        welcomes_draw(mine, repeating && self.moves().len() >= LONG_GAME)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tune;
