//! Perft: counting move sequences under the full rules (passes, the end checks and the
//! repetition rule with the game's own history), for testing the move generator.

use super::{LinesOfAction, LoaMove, Position, judge};
use crate::Rules;

/// The number of move sequences of length `depth` from the game's current state (see the
/// module doc for the convention: 1 at depth 0; a finished game contributes 0 at depth 1
/// or more; a pass is a move; the repetition rule sees the game's history).
pub fn perft(game: &LinesOfAction, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.outcome.is_some() {
        return 0;
    }
    let mut history = game.history.clone();
    let mut buffers: Vec<Vec<LoaMove>> = (1..depth).map(|_| Vec::with_capacity(96)).collect();
    perft_from(&game.position, depth, &mut history, 0, &mut buffers)
}

/// [`perft`] split by the first move, in move-generation order (empty once the game is
/// over or at depth 0).
pub fn perft_divide(game: &LinesOfAction, depth: u32) -> Vec<(LoaMove, u64)> {
    let mut first = Vec::new();
    if depth == 0 {
        return Vec::new();
    }
    game.moves_into(&mut first);
    first
        .into_iter()
        .map(|mv| {
            let mut next = game.clone();
            let count = match next.play(next.position.to_move.seat(), &mv) {
                Ok(_) => perft(&next, depth - 1),
                Err(_) => 0,
            };
            (mv, count)
        })
        .collect()
}

/// Perft from a running position at the end of `history`; `history[base..]` are the
/// positions since the last capture. `buffers` holds one move list per remaining ply
/// above the last.
fn perft_from(
    position: &Position,
    depth: u32,
    history: &mut Vec<Position>,
    base: usize,
    buffers: &mut [Vec<LoaMove>],
) -> u64 {
    if depth <= 1 {
        // Bulk counting: every legal move is one sequence, whether it ends the game or not.
        return position.legal_move_count();
    }
    let Some((moves, deeper)) = buffers.split_first_mut() else {
        return 0;
    };
    position.moves_into(moves);
    let mover = position.to_move;
    let opponent_count = position.count(mover.opponent());
    let mut total = 0;
    for &mv in moves.iter() {
        let next = position.after(mv);
        let base = if next.count(mover.opponent()) < opponent_count {
            history.len()
        } else {
            base
        };
        if judge(mover, &next, &history[base..]).is_some() {
            continue;
        }
        history.push(next);
        total += perft_from(&next, depth - 1, history, base, deeper);
        history.pop();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines_of_action::testkit::*;

    #[test]
    fn reference_agrees_with_the_rule_page_at_the_start() {
        let (grid, side) = grid_of(START);
        assert_eq!(reference_moves(&grid, side).len(), 36);
        assert_eq!(text_of(&grid, side), START);
        assert!(!reference_connected(&grid, 'b') && !reference_connected(&grid, 'w'));
    }

    #[test]
    fn black_has_36_moves_at_the_start() {
        let g = start();
        assert_eq!(g.legal_moves(0).len(), 36);
        assert_eq!(perft(&g, 1), 36);
        assert!(g.legal_moves(1).is_empty(), "white is not to move");
    }

    #[test]
    fn b1_moves_exactly_to_b3_d3_and_h1_at_the_start() {
        let b1: Vec<String> = listed(&start()).into_iter().filter(|m| m.starts_with("b1-")).collect();
        assert_eq!(b1, ["b1-b3", "b1-d3", "b1-h1"]);
    }

    #[test]
    fn perft_from_the_start() {
        let g = start();
        assert_eq!(perft(&g, 0), 1);
        assert_eq!(perft(&g, 1), 36);
        assert_eq!(perft(&g, 2), 1_244);
        assert_eq!(perft(&g, 3), 44_952);
        let divide = perft_divide(&g, 2);
        assert_eq!(divide.len(), 36);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 1_244);
    }

    #[test]
    fn perft_from_the_start_matches_the_reference_to_depth_3() {
        let (grid, side) = grid_of(START);
        for depth in 1..=3 {
            assert_eq!(
                perft(&start(), depth),
                reference_perft(&grid, side, depth),
                "depth {depth}"
            );
        }
    }

    /// Slow in a debug build: `cargo test --release -- --ignored`.
    #[test]
    #[ignore]
    fn perft_depth_4_matches_the_reference() {
        let (grid, side) = grid_of(START);
        assert_eq!(perft(&start(), 4), 1_563_208);
        assert_eq!(reference_perft(&grid, side, 4), 1_563_208);
    }

    #[test]
    fn perft_of_a_finished_game_is_zero_beyond_depth_0() {
        let mut g = start();
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(perft(&g, 0), 1);
        assert_eq!(perft(&g, 1), 0);
        assert_eq!(perft(&g, 3), 0);
        assert!(perft_divide(&g, 2).is_empty());
    }

    #[test]
    fn perft_counts_game_ending_moves_at_depth_1_only() {
        // Black's h8-e5 connects black (see `diagonal_only_connection_counts`): it counts
        // once at depth 1 and has no continuation at depth 2.
        let g = game(DIAGONAL, 'b');
        let divide = perft_divide(&g, 2);
        let winning = divide.iter().find(|(m, _)| *m == mv("h8-e5")).expect("h8-e5 is legal");
        assert_eq!(winning.1, 0);
        assert_eq!(perft(&g, 1), g.legal_moves(0).len() as u64);
        let (grid, side) = grid_of(&g.position());
        assert_eq!(perft(&g, 2), reference_perft(&grid, side, 2));
        assert_eq!(perft(&g, 3), reference_perft(&grid, side, 3));
    }
}
