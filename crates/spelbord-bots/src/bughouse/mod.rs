//! The bughouse bot: plays one seat's board, seeing the whole game.
//!
//! Each strength searches its own board only ([`node`]: shakmaty's chess position plus
//! the pockets, captured pieces leaving the board as they do in bughouse):
//! - **Easy**: every move scored by a 2-ply search with material-only evaluation, plus
//!   noise; a mate in one (drops included) is always taken and a mate in one against it
//!   always seen ([`tactics`]).
//! - **Medium**: iterative deepening to 3 plies with captures in quiescence, evaluation of
//!   material and a simple king-safety count; no partner or clock awareness.
//! - **Hard**: iterative deepening to the deadline ([`search`]: PVS, transposition table,
//!   null move, late-move reductions, check extension, quiescence on captures and checks,
//!   killers and history), the full evaluation ([`eval`]: pieces in hand valued apart,
//!   king safety against drops), the partner board ([`partner`]: pieces that would mate
//!   there at once are not given away) and the clocks ([`clock`]: behind on time it plays
//!   faster and simpler).
//!
//! Resigning ([`crate::resign`]) is rare here, on purpose: a resignation ends the match on
//! both boards, and the partner can still save a position this board's search sees as
//! lost (a piece passed over blocks a mate; a mate there ends the match first). Medium and
//! Hard report a proven loss only when their search found a forced mate against every
//! move (with the pockets as they are) *and* the partner's board gives no hope
//! ([`partner::hopeless`]); an evaluation alone never counts, and the table never lets a
//! bot resign for a team a person plays on.
//!
//! Every strength answers with the quick sound move of [`tactics`] when its deadline has
//! already passed, and waits ([`Decision::Wait`]) when its seat has no legal move or drop.

mod clock;
mod eval;
mod node;
mod partner;
mod search;
mod tactics;

/// The shared transposition table with moves packed in 16 bits ([`search::encode`], 0 for
/// none): 2^20 entries of 16 bytes, 16 MB per search thread, kept between searches. Keys
/// are the nodes' Zobrist hashes (pockets included), so an entry stays valid when the
/// partner board changes a pocket: the changed position has another key.
mod tt {
    pub use crate::tt::{Bound, Earlier, Table, from_table, to_table};
    crate::tt::per_thread! {
        /// Runs `search` with this thread's table (allocated on first use), new age.
        pub fn with_table -> Table<u16> = Table::new(20, 0, Earlier::Used);
    }
}

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use rand::Rng;
use shakmaty::{Move, Position};

use super::{Answer, Bot, Context, Decision, Outlook, Strength, random_move};
use eval::{Eval, Knowledge};
use node::Node;
use search::{Config, MATE_BOUND};
use spelbord_games::Seat;
use spelbord_games::bughouse::{Bughouse, BughouseMove, board_of, colour_of};

/// Easy's noise: up to this many centipawns either way on every root move.
const EASY_NOISE: i32 = 60;

/// Kept back from the deadline for answering (and 2 % of the budget besides).
const ANSWER_MARGIN: Duration = Duration::from_millis(5);

impl Bot for Bughouse {
    fn decide(&self, seat: Seat, strength: Strength, ctx: &Context) -> Decision<Self::Move> {
        self.answer(seat, strength, ctx).decision
    }

    fn answer(&self, seat: Seat, strength: Strength, ctx: &Context) -> Answer<Self::Move> {
        if strength == Strength::Random {
            return random_move(self, seat, ctx).into();
        }
        let Some(root) = root_node(self, seat) else {
            // Not this seat's turn (the table never asks then), or a position the search
            // cannot represent: any legal move, or wait when there is none.
            return random_move(self, seat, ctx).into();
        };
        // Bughouse 960 writes castling as king takes rook.
        let mode = self.position(board_of(seat)).castles().mode();
        let (chosen, outlook) = choose(self, seat, &root, strength, ctx);
        match chosen {
            Some(m) => Answer {
                decision: Decision::Play(BughouseMove { uci: m.to_uci(mode) }),
                outlook,
            },
            None => Decision::Wait.into(),
        }
    }

    /// Never: the table asks only the humans at a Bughouse table to agree to a draw, so
    /// this answer is not used, and a bot neither offers nor blocks draws there.
    fn accepts_draw(&self, _seat: Seat, _strength: Strength) -> bool {
        false
    }
}

/// The search node of `seat`'s board, when it is that seat's turn.
fn root_node(game: &Bughouse, seat: Seat) -> Option<Node> {
    if seat > 3 {
        return None;
    }
    let pos = game.position(board_of(seat));
    if pos.turn() != colour_of(seat) {
        return None;
    }
    Node::from_position(pos).map(|node| node.with_rules(*game.house_rules()))
}

/// The search configuration of a strength.
fn config(game: &Bughouse, seat: Seat, strength: Strength, plan: clock::Plan) -> Config {
    match strength {
        Strength::Random | Strength::Easy => Config {
            eval: Eval {
                knowledge: Knowledge::Material,
                safety_pct: 100,
            },
            max_depth: 2,
            quiet_checks: false,
            killers: false,
            reductions: false,
            check_extension: false,
            travel: partner::flat(0),
        },
        Strength::Medium => Config {
            eval: Eval {
                knowledge: Knowledge::Simple,
                safety_pct: 100,
            },
            max_depth: 3,
            quiet_checks: false,
            killers: true,
            reductions: false,
            check_extension: false,
            travel: partner::flat(0),
        },
        Strength::Hard => Config {
            eval: Eval {
                knowledge: Knowledge::Full,
                safety_pct: plan.safety_pct,
            },
            max_depth: plan.depth_cap,
            quiet_checks: true,
            killers: true,
            reductions: true,
            check_extension: true,
            travel: partner::travel(game, seat, 40),
        },
    }
}

/// The move `seat` plays at `strength`, `None` when it has none (it waits), and the
/// search's outlook for the team (see the module doc).
fn choose(game: &Bughouse, seat: Seat, root: &Node, strength: Strength, ctx: &Context) -> (Option<Move>, Outlook) {
    let moves = root.legal_moves();
    match moves.len() {
        0 => return (None, Outlook::Unclear),
        1 => return (moves.first().copied(), Outlook::Unclear),
        _ => {}
    }
    let plan = if strength == Strength::Hard {
        clock::plan(ctx.clocks.as_deref(), seat)
    } else {
        clock::Plan::FULL
    };
    let cfg = config(game, seat, strength, plan);
    let Some(quick) = tactics::quick_move(root, &cfg.eval, &cfg.travel) else {
        return (None, Outlook::Unclear);
    };
    let start = Instant::now();
    if start >= ctx.deadline || root.play(quick, &cfg.travel).is_bughouse_mate() {
        return (Some(quick), Outlook::Unclear);
    }
    let granted = ctx.deadline.saturating_duration_since(start);
    let budget = (granted * plan.budget_pct / 100).saturating_sub(ANSWER_MARGIN + granted / 50);
    let deadline = start + budget;
    let soft = start + budget / 2;
    match strength {
        Strength::Easy => {
            let Some(scores) = search::score_all(root, &cfg, cfg.max_depth, deadline) else {
                return (Some(quick), Outlook::Unclear);
            };
            let mut rng = ctx.rng();
            let chosen = scores
                .into_iter()
                .map(|(m, score)| {
                    let noise = if score.abs() > MATE_BOUND {
                        0
                    } else {
                        rng.random_range(-EASY_NOISE..=EASY_NOISE)
                    };
                    (m, score + noise)
                })
                .max_by_key(|&(_, score)| score)
                .map(|(m, _)| m);
            (chosen, Outlook::Unclear)
        }
        _ => {
            let found = search::think(root, &cfg, soft, deadline, quick);
            let mated = found.depth >= 1 && found.score < -MATE_BOUND;
            let outlook = if mated && partner::hopeless(game, seat) {
                Outlook::Proven
            } else {
                Outlook::Unclear
            };
            (Some(found.best), outlook)
        }
    }
}
