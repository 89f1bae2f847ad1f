//! The learned evaluation: a static score whose weights were fitted to an outside engine's
//! judgement of many positions (`fit.rs` fits them; `benches/outside-gomoku/fit-eval.sh`
//! makes the positions and writes [`weights`]).
//!
//! The score is linear in a few features of the position, each read from what the board
//! keeps anyway:
//! - every empty square's **shape** for each side: the multiset of its four line
//!   patterns ([`shape`], 715 of them), weighed one way for the side to move's squares
//!   and another for the opponent's (the side to move plays next);
//! - the side to move's **best threat** class (separately when the opponent has a four
//!   or an open three to answer it with) and the opponent's;
//! - how many double-threat squares each side has (0, 1, 2, 3 or more);
//! - the pair of both sides' best threat classes (what one threat is worth depends on
//!   the other's).
//!
//! `features` (tests only) lists the features of a position; [`evaluate`] is their
//! weighted sum, from the sums the board updates incrementally.

mod weights;

use super::board::Board;
use super::eval::{best_threat, double_threats};
use super::pattern::{Pattern, Threat};

/// How many shapes there are: multisets of four of the ten patterns.
pub const SHAPES: usize = 715;

/// Who a square's shape is counted for: the side to move or the side that waits.
pub const TO_MOVE: usize = 0;
pub const WAITING: usize = 1;

/// Where each group of features starts in a feature vector (`features`).
pub const OWN_BEST: usize = 2 * SHAPES;
pub const THEIR_BEST: usize = OWN_BEST + 2 * Threat::COUNT;
pub const OWN_DOUBLES: usize = THEIR_BEST + Threat::COUNT;
pub const THEIR_DOUBLES: usize = OWN_DOUBLES + 4;
pub const BEST_PAIR: usize = THEIR_DOUBLES + 4;
/// How many features there are.
#[cfg(test)]
pub const FEATURES: usize = BEST_PAIR + Threat::COUNT * Threat::COUNT;

/// The shape of four line patterns: their multiset's index below [`SHAPES`] (the
/// combinatorial number system over the sorted patterns), whatever the axes' order.
pub fn shape(patterns: [Pattern; 4]) -> usize {
    let mut p = patterns.map(|p| p as usize);
    p.sort_unstable();
    choose(p[0], 1) + choose(p[1] + 1, 2) + choose(p[2] + 2, 3) + choose(p[3] + 3, 4)
}

/// The binomial coefficient `n` over `k`.
const fn choose(n: usize, k: usize) -> usize {
    let mut result = 1;
    let mut i = 0;
    while i < k {
        if n < k {
            return 0;
        }
        result = result * (n - i) / (i + 1);
        i += 1;
    }
    result
}

/// The weight of a shape for the side to move's squares and for the waiting side's.
pub fn shape_weights(shape: usize) -> [i16; 2] {
    [weights::SQUARE[TO_MOVE][shape], weights::SQUARE[WAITING][shape]]
}

/// The non-shape features: (index, 1) each.
fn threat_features(board: &Board) -> [usize; 5] {
    let us = board.to_move();
    let them = 1 - us;
    let (ours, theirs) = (best_threat(board, us), best_threat(board, them));
    let answered = usize::from(theirs >= Threat::Block4 || board.count(them, Threat::Flex4) > 0);
    [
        OWN_BEST + answered * Threat::COUNT + ours as usize,
        BEST_PAIR + ours as usize * Threat::COUNT + theirs as usize,
        THEIR_BEST + theirs as usize,
        OWN_DOUBLES + double_threats(board, us).min(3) as usize,
        THEIR_DOUBLES + double_threats(board, them).min(3) as usize,
    ]
}

/// The weight of a non-shape feature.
fn threat_weight(feature: usize) -> i32 {
    i32::from(match feature {
        f if f < THEIR_BEST => weights::OWN_BEST[f - OWN_BEST],
        f if f < OWN_DOUBLES => weights::THEIR_BEST[f - THEIR_BEST],
        f if f < THEIR_DOUBLES => weights::OWN_DOUBLES[f - OWN_DOUBLES],
        f if f < BEST_PAIR => weights::THEIR_DOUBLES[f - THEIR_DOUBLES],
        f => weights::BEST_PAIR[f - BEST_PAIR],
    })
}

/// The features of the position for the side to move, as (index, count) pairs with
/// distinct indices.
#[cfg(test)]
pub fn features(board: &Board) -> Vec<(usize, f32)> {
    let us = board.to_move();
    let mut counts = std::collections::BTreeMap::<usize, f32>::new();
    for cell in (0..board.cells()).filter(|&c| board.is_empty(c)) {
        for (side, role) in [(us, TO_MOVE), (1 - us, WAITING)] {
            *counts
                .entry(role * SHAPES + shape(board.patterns(cell, side)))
                .or_default() += 1.0;
        }
    }
    for feature in threat_features(board) {
        *counts.entry(feature).or_default() += 1.0;
    }
    counts.into_iter().collect()
}

/// The learned score of the position for the side to move.
pub fn evaluate(board: &Board) -> i32 {
    let us = board.to_move();
    let threats: i32 = threat_features(board).into_iter().map(threat_weight).sum();
    board.learned_total(us, TO_MOVE) + board.learned_total(1 - us, WAITING) + threats
}

/// The weight of every feature, in `features` order (to check [`evaluate`] against).
#[cfg(test)]
pub fn weight(feature: usize) -> i32 {
    if feature < OWN_BEST {
        i32::from(weights::SQUARE[feature / SHAPES][feature % SHAPES])
    } else {
        threat_weight(feature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use spelbord_games::gomoku::Variant;

    #[test]
    fn shapes_are_the_multisets_of_four_patterns() {
        let mut seen = vec![false; SHAPES];
        for a in Pattern::ALL {
            for b in Pattern::ALL {
                for c in Pattern::ALL {
                    for d in Pattern::ALL {
                        let s = shape([a, b, c, d]);
                        assert_eq!(s, shape([d, b, a, c]), "the axes' order does not matter");
                        seen[s] = true;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "every index below SHAPES is a shape");
        assert_eq!(shape([Pattern::F5; 4]), SHAPES - 1);
    }

    /// X's stones `x` and O's `o`, with `o_to_move` O to move rather than X.
    fn position(x: &[&str], o: &[&str], o_to_move: bool) -> Board {
        let mut board = Board::with_stones(Variant::Free, x, o);
        if o_to_move {
            board.pass();
        }
        board
    }

    #[test]
    fn the_weights_judge_plain_positions_as_a_player_would() {
        // X's open three, O's stones scattered: X to move makes an open four and wins; O
        // to move must spend its move on blocking.
        let (x, o) = (["G8", "H8", "I8"], ["C3", "M13", "C13"]);
        let x_to_move = evaluate(&position(&x, &o, false));
        let o_to_move = evaluate(&position(&x, &o, true));
        assert!(x_to_move > 300, "{x_to_move}");
        assert!(o_to_move < 0, "{o_to_move}");
        // Two stones side by side are worth more than two apart.
        let together = evaluate(&position(&["H8", "I9"], &["C3", "M13"], true));
        let apart = evaluate(&position(&["H8", "M3"], &["C3", "M13"], true));
        assert!(
            together < apart,
            "O to move: {together} against X's pair, {apart} against X's stones apart"
        );
        // A four-three to make for the side to move is a win.
        let four_three = evaluate(&position(
            &["F8", "G8", "H8", "J10", "J11"],
            &["E8", "C3", "M13", "C13", "A1"],
            false,
        ));
        assert!(four_three > 600, "{four_three}");
    }

    #[test]
    fn the_incremental_score_is_the_weighted_sum_of_the_features() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..20 {
            let mut board = Board::new(15, Variant::Free);
            for _ in 0..rng.random_range(0..60) {
                let moves = board.candidates();
                board.play(moves[rng.random_range(0..moves.len())]);
                let summed: i64 = features(&board)
                    .into_iter()
                    .map(|(f, n)| i64::from(weight(f)) * n as i64)
                    .sum();
                assert_eq!(i64::from(evaluate(&board)), summed);
            }
            while board.stone_count() > 0 {
                board.undo();
            }
            assert_eq!(evaluate(&board), evaluate(&Board::new(15, Variant::Free)));
        }
    }
}
