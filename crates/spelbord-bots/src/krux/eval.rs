//! The static evaluation of a Krux position at a turn boundary, in points for white
//! (positive: white is better), turned to a seat's view by [`for_seat`].
//!
//! What it weighs:
//! - **Exposure.** How close each piece stands to the hole, more when it is in the
//!   hole's row or column (one push or pull can drop it in from there). An opponent's
//!   exposed piece is a chance, one's own a worry.
//! - **Who can push whom.** For every piece and every opponent piece in its row or column
//!   with nothing between, how much one push or pull would add to the target's exposure,
//!   weighted by how soon the acting piece moves (the pieces move in order 1…6).
//! - **Rings.** A ring is a power its side keeps for the rest of the game.
//!
//! Immediate wins are not the evaluation's business: the search asks the rules'
//! `can_win` at every node. The simple evaluation (easy's) weighs exposure only.

use spelbord_games::Seat;
use spelbord_games::krux::{KruxPosition, Ring};

/// The hole, d4, as (column, row).
const HOLE: (i8, i8) = (3, 3);

/// How a search evaluates positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evaluation {
    /// Exposure only.
    Simple,
    /// Exposure, pushes and pulls, rings.
    Full,
}

/// The pieces of a position as coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    /// (column, row) of pieces 1–6, 0-based.
    pub at: [(i8, i8); 6],
    pub rings: [Option<Ring>; 6],
    /// The index (0-based) of the piece in turn.
    pub in_turn: usize,
}

impl Placement {
    pub fn of(position: &KruxPosition) -> Placement {
        let mut at = [(0, 0); 6];
        let mut rings = [None; 6];
        for (piece, (square, ring)) in at.iter_mut().zip(rings.iter_mut()).enumerate() {
            let number = piece as u8 + 1;
            if let Some(on) = position.square(number) {
                *square = (on.col() as i8, on.row() as i8);
            }
            *ring = position.ring(number);
        }
        Placement {
            at,
            rings,
            in_turn: usize::from(position.piece_in_turn() - 1),
        }
    }

    fn occupied(&self, square: (i8, i8)) -> bool {
        self.at.contains(&square)
    }
}

/// Whether piece index `piece` is white's (pieces 1, 3, 5).
pub fn is_white(piece: usize) -> bool {
    piece.is_multiple_of(2)
}

/// How exposed a piece on `at` is: a large number next to the hole, nothing far from it.
pub fn exposure(at: (i8, i8)) -> i32 {
    let dc = (at.0 - HOLE.0).abs();
    let dr = (at.1 - HOLE.1).abs();
    let in_line = dc == 0 || dr == 0;
    match (dc + dr, in_line) {
        (0, _) => 400,
        (1, _) => 100,
        (2, true) => 70,
        (2, false) => 30,
        (3, true) => 22,
        (3, false) => 14,
        (4, _) => 5,
        _ => 0,
    }
}

/// Where a piece on `from`, moved up to two squares in direction `dir` (stopped by the
/// edge or a piece; the hole stops nothing), ends; a push or a pull.
fn slide(placement: &Placement, from: (i8, i8), dir: (i8, i8), limit: i8) -> (i8, i8) {
    let mut end = from;
    for _ in 0..limit {
        let next = (end.0 + dir.0, end.1 + dir.1);
        if !(0..7).contains(&next.0) || !(0..7).contains(&next.1) || placement.occupied(next) {
            break;
        }
        end = next;
    }
    end
}

/// The most one push or pull by `actor` can add to `target`'s exposure (a fall counts as
/// the largest gain); zero when they are not in line with a clear path.
fn leverage(placement: &Placement, actor: usize, target: usize) -> i32 {
    let a = placement.at[actor];
    let t = placement.at[target];
    if a.0 != t.0 && a.1 != t.1 {
        return 0;
    }
    let dir = ((t.0 - a.0).signum(), (t.1 - a.1).signum());
    let gap = (t.0 - a.0).abs() + (t.1 - a.1).abs();
    let mut between = (a.0 + dir.0, a.1 + dir.1);
    while between != t {
        if placement.occupied(between) {
            return 0;
        }
        between = (between.0 + dir.0, between.1 + dir.1);
    }
    let before = exposure(t);
    let pushed = slide(placement, t, dir, 2);
    let pull_moves = (gap - 1).min(2);
    let pulled = (t.0 - dir.0 * pull_moves, t.1 - dir.1 * pull_moves);
    let gain = |end: (i8, i8)| if end == HOLE { 300 } else { exposure(end) - before };
    gain(pushed).max(gain(pulled)).max(0)
}

/// What a ring is worth to its side.
fn ring_value(ring: Ring) -> i32 {
    match ring {
        Ring::Green => 30,
        Ring::Pink => 25,
        Ring::Blue => 25,
    }
}

/// The evaluation for white.
pub fn white_score(position: &KruxPosition, evaluation: Evaluation) -> i32 {
    let placement = Placement::of(position);
    let sign = |piece: usize| if is_white(piece) { 1 } else { -1 };
    let mut score = 0;
    for piece in 0..6 {
        // A piece's exposure counts against its side.
        score -= sign(piece) * exposure(placement.at[piece]);
    }
    if evaluation == Evaluation::Simple {
        return score;
    }
    for actor in 0..6 {
        if let Some(ring) = placement.rings[actor] {
            score += sign(actor) * ring_value(ring);
        }
        // The piece in turn moves now (its wins are the search's), the next one after
        // the opponent's reply, and so on: sooner is worth more.
        let wait = (actor + 6 - placement.in_turn) % 6;
        let weight = [4, 6, 5, 3, 2, 1][wait];
        for target in (0..6).filter(|&target| is_white(target) != is_white(actor)) {
            score += sign(actor) * weight * leverage(&placement, actor, target) / 8;
        }
    }
    score
}

/// The evaluation from `seat`'s side.
pub fn for_seat(position: &KruxPosition, seat: Seat, evaluation: Evaluation) -> i32 {
    let white = white_score(position, evaluation);
    if seat == 0 { white } else { -white }
}

/// The seat owning the piece in turn.
pub fn mover_seat(position: &KruxPosition) -> Seat {
    if position.piece_in_turn() % 2 == 1 { 0 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> KruxPosition {
        text.parse().unwrap()
    }

    #[test]
    fn the_start_is_even_and_exposure_counts_against_its_side() {
        let start = KruxPosition::start();
        // Black is white turned about the hole; white moves first, so only the weights
        // of who moves when differ.
        assert_eq!(white_score(&start, Evaluation::Simple), 0);
        // White's piece 1 next to the hole is a worry for white.
        let exposed = position("1d3b 2e7 3b2 4f6 5a3 6g5 / 2");
        assert!(white_score(&exposed, Evaluation::Simple) < -50);
        assert!(white_score(&exposed, Evaluation::Full) < -50);
        assert_eq!(
            for_seat(&exposed, 1, Evaluation::Simple),
            -white_score(&exposed, Evaluation::Simple)
        );
    }

    #[test]
    fn leverage_sees_a_push_towards_the_hole() {
        // Black 4 on a4 can push white 1 on b4 two squares, into the hole.
        let p = Placement::of(&position("1b4b 2e7g 3b2p 4a4 5a1 6g5 / 4"));
        assert_eq!(leverage(&p, 3, 0), 300);
        // From c4 a push carries it over the hole to e4: no gain.
        let p = Placement::of(&position("1c4b 2e7g 3b2p 4a4 5a1 6g5 / 4"));
        assert_eq!(leverage(&p, 3, 0), 0);
        // Nothing in line: no leverage.
        assert_eq!(leverage(&p, 5, 0), 0);
    }
}
