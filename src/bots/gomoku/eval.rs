//! The evaluation: what an empty square is worth to a side (from its line patterns and
//! threat class), a position's static score (the sums of those values), and the order in
//! which a search tries moves (attack plus defence on the square).

use super::board::{Board, Cell, Side};
use super::pattern::{Pattern, Threat};

/// The worth of one line pattern on an empty square, [`Pattern`] order.
const LINE_VALUE: [i32; 10] = [0, 1, 3, 8, 20, 30, 80, 90, 300, 1000];

/// The worth of the threat class on an empty square, [`Threat`] order, on top of the lines.
const THREAT_VALUE: [i32; 13] = [0, 0, 0, 20, 30, 0, 60, 500, 0, 80, 800, 2000, 5000];

/// What a stone of a side on an empty square with these patterns would be worth.
pub fn square_value(patterns: [Pattern; 4], threat: Threat) -> i32 {
    patterns.iter().map(|&p| LINE_VALUE[p as usize]).sum::<i32>() + THREAT_VALUE[threat as usize]
}

/// The static score for the side to move: its potential minus the opponent's, with a
/// little more weight on its own (it moves first).
pub fn evaluate(board: &Board) -> i32 {
    let us = board.to_move();
    let them = 1 - us;
    (board.total(us) * 6 - board.total(them) * 5) / 5
}

/// How promising `cell` looks for `side` to play: its own value plus most of the
/// opponent's (taking the square away from them).
pub fn move_score(board: &Board, cell: Cell, side: Side) -> i32 {
    board.value(cell, side) * 4 + board.value(cell, 1 - side) * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stronger_patterns_are_worth_more() {
        assert!(LINE_VALUE.windows(2).all(|w| w[0] <= w[1]));
        let three = square_value(
            [Pattern::F3, Pattern::Dead, Pattern::Dead, Pattern::Dead],
            Threat::Flex3,
        );
        let four = square_value(
            [Pattern::F4, Pattern::Dead, Pattern::Dead, Pattern::Dead],
            Threat::Flex4,
        );
        assert!(four > three);
    }
}
