//! The hand-set evaluation: what an empty square is worth to a side (from its line
//! patterns), a position's static score (the sums of those values, and who holds the
//! initiative; Medium's, while Hard's is [`super::learned`]), the table of what the board
//! keeps per square, and the order in which a search tries moves (attack plus defence on
//! the square, threats first).

use std::sync::OnceLock;

use super::board::{Board, Cell, Side};
use super::learned;
use super::pattern::{Pattern, Threat};

/// The worth of one line pattern on an empty square, [`Pattern`] order.
const LINE_VALUE: [i32; 10] = [0, 1, 3, 8, 20, 24, 60, 60, 200, 600];

/// The worth of the threat class on an empty square, [`Threat`] order, on top of the lines:
/// a small share, since most threats are answered the next move.
const THREAT_VALUE: [i32; 13] = [0, 0, 0, 10, 10, 0, 20, 60, 0, 20, 100, 200, 400];

/// The side to move's best threat, [`Threat`] order: it plays it next. A four-three or a
/// double three wins unless the opponent has fours or an open three of its own
/// ([`evaluate`] halves those).
const INITIATIVE: [i32; 13] = [0, 10, 10, 40, 60, 120, 200, 1500, 60, 150, 2500, 0, 0];

/// The opponent's best threat, [`Threat`] order: the side to move has one move to deal
/// with it (an open three of theirs, `Flex4` here, costs a tempo at least).
const PRESSURE: [i32; 13] = [0, 0, 0, 20, 30, 40, 80, 400, 30, 100, 600, 500, 0];

/// What a stone of a side on an empty square with these patterns would be worth.
pub fn square_value(patterns: [Pattern; 4], threat: Threat) -> i32 {
    patterns.iter().map(|&p| LINE_VALUE[p as usize]).sum::<i32>() + THREAT_VALUE[threat as usize]
}

/// The four patterns of a square (one per axis) as one number below 10,000, the index of
/// [`square_classes`].
pub fn square_code(patterns: [Pattern; 4]) -> usize {
    patterns.iter().fold(0, |code, &p| code * 10 + p as usize)
}

/// What the board keeps of an empty square for a side, by its [`square_code`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SquareClass {
    /// The threat class its patterns make.
    pub threat: Threat,
    /// Its value ([`square_value`]).
    pub value: i32,
    /// Its shape's learned weights, for the side to move and for the waiting side
    /// ([`learned::shape_weights`]).
    pub learned: [i16; 2],
}

/// For every [`square_code`], the square's [`SquareClass`]: made once, read by the board
/// on every change of a square.
pub fn square_classes() -> &'static [SquareClass] {
    static CLASSES: OnceLock<Vec<SquareClass>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let none = SquareClass {
            threat: Threat::None,
            value: 0,
            learned: [0; 2],
        };
        let mut classes = vec![none; 10_000];
        for a in Pattern::ALL {
            for b in Pattern::ALL {
                for c in Pattern::ALL {
                    for d in Pattern::ALL {
                        let patterns = [a, b, c, d];
                        let threat = Threat::of(patterns);
                        classes[square_code(patterns)] = SquareClass {
                            threat,
                            value: square_value(patterns, threat),
                            learned: learned::shape_weights(learned::shape(patterns)),
                        };
                    }
                }
            }
        }
        classes
    })
}

/// The strongest threat class `side` holds on some empty square.
pub fn best_threat(board: &Board, side: Side) -> Threat {
    Threat::ALL
        .into_iter()
        .rev()
        .find(|&t| board.count(side, t) > 0)
        .unwrap_or(Threat::None)
}

/// The extra pressure of the opponent's double-threat squares (a double three or a
/// four-three), by how many there are (0, 1, 2, 3 or more): one is in [`PRESSURE`]
/// already through the best threat, but a single stone rarely takes two away, and the
/// side to move has one stone.
const DOUBLE_PRESSURE: [i32; 4] = [0, 0, 250, 450];
/// The extra initiative of the side to move's own double-threat squares.
const DOUBLE_INITIATIVE: [i32; 4] = [0, 0, 80, 150];

/// How many empty squares would give `side` a double threat: a double three or a
/// four-three. (Double fours count as [`Threat::Flex4`], with open fours.)
pub fn double_threats(board: &Board, side: Side) -> u32 {
    board.count(side, Threat::Flex3x2) + board.count(side, Threat::Block4Flex3)
}

/// [`evaluate`], and with `doubles` also each side's double-threat squares: the
/// opponent's as pressure, the side to move's as initiative.
pub fn evaluate_with(board: &Board, doubles: bool) -> i32 {
    let base = evaluate(board);
    if !doubles {
        return base;
    }
    let us = board.to_move();
    let ours = double_threats(board, us).min(3) as usize;
    let theirs = double_threats(board, 1 - us).min(3) as usize;
    base + DOUBLE_INITIATIVE[ours] - DOUBLE_PRESSURE[theirs]
}

/// The static score for the side to move: the potential of its squares minus the
/// opponent's, plus its initiative (its best threat, weaker when the opponent has fours
/// or an open three to answer with), minus the pressure of the opponent's best threat.
pub fn evaluate(board: &Board) -> i32 {
    let us = board.to_move();
    let them = 1 - us;
    let ours = best_threat(board, us);
    let theirs = best_threat(board, them);
    let mut initiative = INITIATIVE[ours as usize];
    if theirs >= Threat::Block4 || board.count(them, Threat::Flex4) > 0 {
        initiative /= 2;
    }
    board.total(us) - board.total(them) + initiative - PRESSURE[theirs as usize]
}

/// The ordering bonus of a square for the side that plays it, by its own threat class.
const ATTACK_ORDER: [i32; 13] = [0, 0, 0, 20, 30, 120, 160, 700, 60, 200, 1200, 3000, 10_000];
/// The ordering bonus of a square by the opponent's threat class there (taking it away).
const DEFENCE_ORDER: [i32; 13] = [0, 0, 0, 15, 20, 60, 100, 500, 40, 120, 900, 2000, 8_000];

/// How promising `cell` looks for `side` to play: its own value plus most of the
/// opponent's (taking the square away from them), and its threats either way.
pub fn move_score(board: &Board, cell: Cell, side: Side) -> i32 {
    let them = 1 - side;
    board.value(cell, side) * 4
        + board.value(cell, them) * 3
        + ATTACK_ORDER[board.threat(cell, side) as usize]
        + DEFENCE_ORDER[board.threat(cell, them) as usize]
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

    #[test]
    fn the_square_table_agrees_with_the_patterns() {
        use Pattern::*;
        for patterns in [[F3, Dead, B4, F2], [Dead; 4], [F5, F5, F5, F5], [B1, F2, B3, F3]] {
            let threat = Threat::of(patterns);
            let class = square_classes()[square_code(patterns)];
            assert_eq!(
                (class.threat, class.value),
                (threat, square_value(patterns, threat)),
                "{patterns:?}"
            );
        }
    }
}
