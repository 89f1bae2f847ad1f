//! The static evaluation, from the side to move's point of view, in centi-units where a
//! won game is far beyond reach ([`super::search::WIN`]).
//!
//! Two levels of knowledge. [`Knowledge::SIMPLE`] (Easy, Medium) knows concentration and
//! centralisation. [`Knowledge::FULL`] (Hard) adds what the Lines of Action literature
//! (Winands' MIA) found to matter:
//! - **concentration**: the sum of the pieces' distances (king moves) to their centre of
//!   mass, less the least such sum that many pieces can have, per piece;
//! - **centralisation**: a square table favouring the middle, averaged, and the centre of
//!   mass's own distance from the middle;
//! - **quads**: the Euler number of the pieces from counts of 2 × 2 windows (Gray's
//!   formula for 8-connectivity, `E = (Q1 - Q3 - 2 Qd) / 4`): it is 1 for one solid
//!   group, one more per further group, so it estimates how far a side is from connecting;
//! - **connectedness**: the number of groups and of touching pairs;
//! - **mobility**: the number of moves, captures counting double;
//! - **walls and blocking**: pieces that cannot move at all (walled in at an edge or
//!   boxed by enemy pieces) count against their side;
//! - a small bonus for having the move.

use super::board::Board;
use super::threats::groups;
use spelbord_games::lines_of_action::bitboard::{FILE_A, FILE_H, targets};

/// How much the evaluation knows: a weight per feature (zero: not known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knowledge {
    /// Per unit of distance surplus per piece (×100; subtracted).
    pub concentration: i32,
    /// Per unit of the centralisation table per piece.
    pub centre: i32,
    /// Per unit (half squares) of the centre of mass away from the middle (subtracted).
    pub mass: i32,
    /// Per quarter of Euler number above one (subtracted).
    pub quads: i32,
    /// Per group beyond the first (subtracted).
    pub groups: i32,
    /// Per touching pair per piece (×100).
    pub pairs: i32,
    /// Per move (captures count twice).
    pub mobility: i32,
    /// Per piece that cannot move (subtracted).
    pub immobile: i32,
    /// For having the move.
    pub tempo: i32,
}

impl Knowledge {
    /// Concentration and centralisation only (Easy, Medium).
    pub const SIMPLE: Knowledge = Knowledge {
        concentration: 120,
        centre: 3,
        mass: 0,
        quads: 0,
        groups: 0,
        pairs: 0,
        mobility: 0,
        immobile: 0,
        tempo: 0,
    };

    /// Every feature (Hard).
    ///
    /// The weights come from self-play at 50 ms a move (the `tune` bench): pairs,
    /// mobility and the tempo each won against the simple evaluation, while the group
    /// counts (quads, groups) and the centre of mass lost when weighed like concentration,
    /// so they only nudge.
    pub const FULL: Knowledge = Knowledge {
        concentration: 120,
        centre: 3,
        mass: 1,
        quads: 1,
        groups: 1,
        pairs: 24,
        mobility: 2,
        immobile: 2,
        tempo: 12,
    };

    /// Whether anything beyond concentration and centralisation is weighed.
    fn beyond_simple(&self) -> bool {
        self.mass != 0
            || self.quads != 0
            || self.groups != 0
            || self.pairs != 0
            || self.mobility != 0
            || self.immobile != 0
    }
}

/// The least sum of distances to the centre of mass `n` pieces can have: up to 8
/// neighbours at distance 1, the rest at distance 2.
const MIN_DISTANCE_SUM: [i32; 13] = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14];

/// Centralisation per square (`a1` first): the edges poor, the corners worst, the middle
/// best.
const CENTRE: [i32; 64] = {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        let (col, row) = ((square % 8) as i32, (square / 8) as i32);
        let ring_col = if col < 4 { col } else { 7 - col };
        let ring_row = if row < 4 { row } else { 7 - row };
        let ring = if ring_col < ring_row { ring_col } else { ring_row };
        let corner = ring_col == 0 && ring_row == 0;
        table[square] = match ring {
            0 if corner => -16,
            0 => -8,
            1 => 2,
            2 => 8,
            _ => 12,
        };
        square += 1;
    }
    table
};

/// What the evaluation measures of one side.
#[derive(Debug, Clone, Copy, Default)]
struct Features {
    pieces: i32,
    /// The distance sum over its least possible value.
    surplus: i32,
    /// The sum of the centralisation table over the pieces.
    centre: i32,
    /// The centre of mass's distance (king moves, ×2) from the middle of the board.
    mass_offcentre: i32,
    /// Four times the Euler number.
    euler4: i32,
    groups: i32,
    /// Touching pairs (8-neighbourhood).
    pairs: i32,
    /// Moves, captures counted twice.
    mobility: i32,
    /// Pieces without a single move.
    immobile: i32,
}

/// The board in a 10 × 10 frame (an empty border), bit `10 * (row + 1) + col + 1`, so that
/// 2 × 2 windows overlapping the edge can be counted with shifts.
fn framed(pieces: u64) -> u128 {
    let mut out = 0u128;
    for row in 0..8 {
        let bits = u128::from((pieces >> (8 * row)) & 0xFF);
        out |= bits << (10 * (row + 1) + 1);
    }
    out
}

/// `4 × E` by Gray's quads: windows anchored at bit `i` cover `i`, `i + 1`, `i + 10`,
/// `i + 11` of the frame.
fn euler4(pieces: u64) -> i32 {
    let p = framed(pieces);
    let (a, b, c, d) = (p, p >> 1, p >> 10, p >> 11);
    // A bit-sliced count of the four corners of every window.
    let (s1, c1) = (a ^ b, a & b);
    let (s2, c2) = (c ^ d, c & d);
    let bit0 = s1 ^ s2;
    let carry = s1 & s2;
    let bit1 = c1 ^ c2 ^ carry;
    let bit2 = (c1 & c2) | (carry & (c1 ^ c2));
    let q1 = bit0 & !bit1 & !bit2;
    let q3 = bit0 & bit1;
    let qd = (a & d & !b & !c) | (b & c & !a & !d);
    q1.count_ones() as i32 - q3.count_ones() as i32 - 2 * qd.count_ones() as i32
}

/// The number of touching pairs among `pieces`.
fn pairs(p: u64) -> i32 {
    let east = p & ((p >> 1) & !FILE_H);
    let north = p & (p >> 8);
    let north_east = p & ((p >> 9) & !FILE_H);
    let north_west = p & ((p >> 7) & !FILE_A);
    (east.count_ones() + north.count_ones() + north_east.count_ones() + north_west.count_ones()) as i32
}

fn features(own: u64, opp: u64, full: bool) -> Features {
    let mut f = Features {
        pieces: own.count_ones() as i32,
        ..Features::default()
    };
    let n = f.pieces.max(1);
    let (mut sum_row, mut sum_col) = (0, 0);
    let mut rest = own;
    while rest != 0 {
        let square = rest.trailing_zeros() as i32;
        rest &= rest - 1;
        sum_row += square / 8;
        sum_col += square % 8;
        f.centre += CENTRE[square as usize];
    }
    // The centre of mass, rounded to the nearest square.
    let (mass_row, mass_col) = ((2 * sum_row + n) / (2 * n), (2 * sum_col + n) / (2 * n));
    let mut distance = 0;
    let mut rest = own;
    while rest != 0 {
        let square = rest.trailing_zeros() as i32;
        rest &= rest - 1;
        distance += (square / 8 - mass_row).abs().max((square % 8 - mass_col).abs());
    }
    f.surplus = distance - MIN_DISTANCE_SUM[(n as usize).min(12)];
    if !full {
        return f;
    }
    f.mass_offcentre = (2 * sum_row - 7 * n).abs().max((2 * sum_col - 7 * n).abs()) / n;
    f.euler4 = euler4(own);
    f.groups = groups(own).count() as i32;
    f.pairs = pairs(own);
    let mut rest = own;
    while rest != 0 {
        let from = rest.trailing_zeros();
        rest &= rest - 1;
        let to = targets(from, own, opp);
        if to == 0 {
            f.immobile += 1;
        }
        f.mobility += (to.count_ones() + (to & opp).count_ones()) as i32;
    }
    f
}

/// One side's score.
fn score(f: &Features, k: &Knowledge) -> i32 {
    let n = f.pieces.max(1);
    -(f.surplus * k.concentration) / n + (f.centre * k.centre) / n
        - f.mass_offcentre * k.mass
        - (f.euler4 - 4).max(0) * k.quads
        - (f.groups - 1).max(0) * k.groups
        + (f.pairs * k.pairs) / n
        + f.mobility * k.mobility
        - f.immobile * k.immobile
}

/// The evaluation of `board` for the side to move.
pub fn evaluate(board: &Board, knowledge: &Knowledge) -> i32 {
    let full = knowledge.beyond_simple();
    let mine = features(board.own(), board.opp(), full);
    let theirs = features(board.opp(), board.own(), full);
    score(&mine, knowledge) - score(&theirs, knowledge) + knowledge.tempo
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::lines_of_action::{Position, Simultaneous};

    fn bits(squares: &[&str]) -> u64 {
        squares.iter().fold(0, |acc, s| {
            let b = s.as_bytes();
            acc | 1u64 << ((b[1] - b'1') * 8 + (b[0] - b'a'))
        })
    }

    #[test]
    fn euler_number_counts_groups_and_holes() {
        assert_eq!(euler4(bits(&["a1"])), 4, "one piece");
        assert_eq!(euler4(bits(&["a1", "h8"])), 8, "two groups");
        assert_eq!(euler4(bits(&["c3", "d4"])), 4, "diagonal neighbours are one group");
        assert_eq!(euler4(bits(&["c3", "d4", "e5", "a8"])), 8);
        let ring = bits(&["c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5"]);
        assert_eq!(euler4(ring), 0, "one group with a hole");
        assert_eq!(euler4(bits(&["b1", "c1", "d1", "e1", "f1", "g1"])), 4);
    }

    #[test]
    fn pairs_and_the_start_is_symmetric() {
        assert_eq!(pairs(bits(&["c3", "d4", "d3"])), 3);
        assert_eq!(pairs(bits(&["h1", "a2"])), 0, "no wrapping around the edge");
        assert_eq!(pairs(bits(&["a1", "h2"])), 0);
        let start = Board::new(&Position::START, Simultaneous::Draw);
        assert_eq!(evaluate(&start, &Knowledge::SIMPLE), 0);
        assert_eq!(evaluate(&start, &Knowledge::FULL), Knowledge::FULL.tempo);
    }

    #[test]
    fn a_compact_side_scores_better_than_a_scattered_one() {
        let compact = features(bits(&["d4", "e4", "d5", "e5", "c4", "f5"]), 0, true);
        let scattered = features(bits(&["a1", "h8", "a8", "h1", "d4", "e5"]), 0, true);
        for knowledge in [Knowledge::SIMPLE, Knowledge::FULL] {
            assert!(score(&compact, &knowledge) > score(&scattered, &knowledge) + 100);
        }
    }
}
