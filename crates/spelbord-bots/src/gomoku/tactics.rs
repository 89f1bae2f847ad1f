//! The tactics every strength obeys before thinking, and the static judgements of a
//! position: the move that wins or must be made at once, the quickest sensible move when
//! there is no time, and whether a side is clearly lost or the game dead drawn.

use super::board::{Board, Cell, Side};
use super::pattern::Threat;
use super::search;

/// The move the side to move must make, if one is forced: a five; otherwise the block of
/// the opponent's five; otherwise an open four or double four when the opponent has no
/// five to answer with (a win in three).
pub fn forced(board: &Board) -> Option<Cell> {
    let us = board.to_move();
    let them = 1 - us;
    board
        .five_cell(us)
        .or_else(|| board.five_cell(them))
        .or_else(|| board.cells_from(us, Threat::Flex4).next())
}

/// The best-looking candidate by its static attack and defence value (no search): the
/// answer when there is no time to think.
pub fn quick(board: &Board) -> Option<Cell> {
    forced(board).or_else(|| {
        search::candidates(board)
            .into_iter()
            .max_by_key(|&(cell, score)| (score, std::cmp::Reverse(cell)))
            .map(|(cell, _)| cell)
    })
}

/// Whether `side` is clearly lost: the opponent has a five it cannot stop (two fives to
/// complete while `side` has none to play first), or the opponent is to move with a five
/// to complete, or with an open four to make while `side` has no five to complete.
pub fn clearly_lost(board: &Board, side: Side) -> bool {
    let them = 1 - side;
    let our_fives = board.count(side, Threat::Five);
    if board.to_move() == side {
        our_fives == 0 && board.count(them, Threat::Five) >= 2
    } else {
        board.count(them, Threat::Five) > 0 || (our_fives == 0 && board.count(them, Threat::Flex4) > 0)
    }
}

/// Whether the game is dead drawn: at most a tenth of the board is left empty and
/// neither side can make even a four anywhere.
pub fn dead_drawn(board: &Board) -> bool {
    let empty = board.cells() - board.stone_count();
    empty * 10 <= board.cells() && (0..2).all(|side| board.count_from(side, Threat::Block4) == 0)
}
