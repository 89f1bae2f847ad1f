//! One-move tactics without a search: mate in one (by a move or a drop), whether the
//! opponent has a mate in one, and the quick sound move every bot can answer with at once
//! (a deadline already passed, or a search that did not finish its first move).

use shakmaty::{Move, attacks};

use super::eval::{Eval, evaluate};
use super::node::{Node, Travel};
use super::search::MATE;

/// Whether `m` could give check: it attacks the enemy king directly, it leaves a line
/// through the king (a discovered check), or it is a castling or en passant move.
fn may_give_check(node: &Node, m: Move) -> bool {
    if node.gives_direct_check(m) {
        return true;
    }
    match m {
        Move::Normal { from, .. } => {
            attacks::queen_attacks(node.their_king(), shakmaty::Bitboard::EMPTY).contains(from)
        }
        Move::EnPassant { .. } | Move::Castle { .. } => true,
        Move::Put { .. } => false,
    }
}

/// A move of the side to move that mates at once by the bughouse rule, if any.
pub fn mate_in_one(node: &Node, travel: &Travel) -> Option<Move> {
    node.legal_moves()
        .into_iter()
        .filter(|&m| may_give_check(node, m))
        .find(|&m| node.play(m, travel).is_bughouse_mate())
}

/// The quick sound move: a mate in one if there is one; otherwise the move that does
/// not allow a mate in one and leaves the best static evaluation. `None` only when there
/// is no legal move.
pub fn quick_move(node: &Node, eval: &Eval, travel: &Travel) -> Option<Move> {
    if let Some(m) = mate_in_one(node, travel) {
        return Some(m);
    }
    node.legal_moves()
        .into_iter()
        .map(|m| {
            let child = node.play(m, travel);
            let score = if mate_in_one(&child, travel).is_some() {
                -MATE
            } else {
                -evaluate(&child, eval)
            };
            (m, score)
        })
        .max_by_key(|&(_, score)| score)
        .map(|(m, _)| m)
}
