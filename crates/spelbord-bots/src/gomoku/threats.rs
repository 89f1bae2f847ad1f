//! The answers to a three: the squares where the defender's stone leaves the attacker no
//! open four (nor double four) to make. The VCT search gives the defender only these
//! (and its own fours), and the main search tries only these (and the side's own fours)
//! when the opponent has a three.
//!
//! A defender's stone changes the attacker's patterns only on the lines through it, so a
//! square can stop the threat on an attacker's square `f` only if it is `f` itself or lies
//! within reach of `f` on one of the lines that make `f` a four. The intersection of those
//! sets over every such `f` is tried stone by stone.

use super::board::{Board, Cell, Side};
use super::pattern::{Pattern, REACH, Threat};

/// The empty squares where a stone of the side to move leaves `attacker` (the other side)
/// with no square making an open four or a double four (`board` comes back unchanged).
/// Empty when no single stone does, or when there is nothing to stop.
pub fn stops(board: &mut Board, attacker: Side) -> Vec<Cell> {
    debug_assert_ne!(board.to_move(), attacker);
    let threats: Vec<Cell> = board.cells_from(attacker, Threat::Flex4).collect();
    let mut shared: Option<Vec<Cell>> = None;
    for &f in &threats {
        let patterns = board.patterns(f, attacker);
        let mut near = vec![f];
        for (axis, &pattern) in patterns.iter().enumerate() {
            if pattern >= Pattern::B4 {
                near.extend(board.line(f, axis, REACH).filter(|&c| board.is_empty(c)));
            }
        }
        shared = Some(match shared {
            None => near,
            Some(before) => before.into_iter().filter(|c| near.contains(c)).collect(),
        });
    }
    let mut cells = shared.unwrap_or_default();
    cells.sort_unstable();
    cells.dedup();
    cells.retain(|&cell| {
        board.play(cell);
        let stopped = board.count_from(attacker, Threat::Flex4) == 0;
        board.undo();
        stopped
    });
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::gomoku::Variant;

    /// The squares [`stops`] gives against `attacker`, by name, sorted.
    fn stop_names(board: &mut Board, attacker: Side) -> Vec<String> {
        let cells = stops(board, attacker);
        let mut names: Vec<String> = cells.iter().map(|&c| board.square(c).to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn an_open_three_is_stopped_at_its_ends() {
        // O (not to move) has G7 H7 I7 open: X stops it on F7 or J7 only (E7 or K7 leave
        // an open four on the other side).
        let mut b = Board::with_stones(Variant::Free, &["A15", "C15"], &["G7", "H7", "I7"]);
        assert_eq!(stop_names(&mut b, 1), ["F7", "J7"]);
    }

    #[test]
    fn a_broken_three_is_stopped_in_its_gap_too() {
        // O: G7 . I7 J7, open: F7, H7 and K7 stop it.
        let mut b = Board::with_stones(Variant::Free, &["A15", "C15"], &["G7", "I7", "J7"]);
        assert_eq!(stop_names(&mut b, 1), ["F7", "H7", "K7"]);
    }

    #[test]
    fn a_double_three_cannot_be_stopped_by_one_stone() {
        // O: open threes G7 H7 I7 and K9 K10 K11 far apart: no one square stops both.
        let mut b = Board::with_stones(
            Variant::Free,
            &["A15", "C15", "A1", "C1", "E1", "G1"],
            &["G7", "H7", "I7", "K9", "K10", "K11"],
        );
        assert!(stops(&mut b, 1).is_empty());
    }

    #[test]
    fn nothing_to_stop_gives_nothing() {
        let mut b = Board::with_stones(Variant::Free, &["A15", "C15"], &["G7", "H7"]);
        assert!(stops(&mut b, 1).is_empty());
    }
}
