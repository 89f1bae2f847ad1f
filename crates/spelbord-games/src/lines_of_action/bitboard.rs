//! Bitboards: precomputed line masks, targets and in-between masks per square, direction
//! and distance; the 8-neighbourhood growth of a set of pieces and the single-group test;
//! the targets of one piece. `a1` is bit 0, `h1` bit 7, `a8` bit 56, `h8` bit 63.

use super::Square;

/// The eight directions as `(columns, rows)`. Direction `d` and `d + 4` are opposite and
/// share the line `d % 4`: 0 row, 1 column, 2 rising diagonal (`a1`–`h8`), 3 falling
/// diagonal (`a8`–`h1`).
pub(super) const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

/// The name of each line, for messages.
pub(super) const LINE_NAMES: [&str; 4] = ["row", "column", "diagonal", "diagonal"];

/// "Off the board" in [`Tables::target`].
pub(super) const OFF: u8 = 64;

/// The precomputed tables behind move generation (built at compile time).
pub(super) struct Tables {
    /// Every square of each line through a square, the square itself included.
    pub(super) lines: [[u64; 4]; 64],
    /// The square `n` steps from a square in a direction, [`OFF`] when off the board.
    pub(super) target: [[[u8; 9]; 8]; 64],
    /// The squares strictly between a square and its target `n` steps away.
    pub(super) between: [[[u64; 9]; 8]; 64],
}

const fn build_tables() -> Tables {
    let mut tables = Tables {
        lines: [[0; 4]; 64],
        target: [[[OFF; 9]; 8]; 64],
        between: [[[0; 9]; 8]; 64],
    };
    let mut square = 0;
    while square < 64 {
        let col = (square % 8) as i8;
        let row = (square / 8) as i8;
        let mut line = 0;
        while line < 4 {
            tables.lines[square][line] = 1 << square;
            line += 1;
        }
        let mut dir = 0;
        while dir < 8 {
            let (dc, dr) = DIRECTIONS[dir];
            let mut passed = 0u64;
            let mut n = 1;
            while n <= 8 {
                let c = col + dc * n as i8;
                let r = row + dr * n as i8;
                if c < 0 || c > 7 || r < 0 || r > 7 {
                    break;
                }
                let to = (r * 8 + c) as usize;
                tables.target[square][dir][n] = to as u8;
                tables.between[square][dir][n] = passed;
                passed |= 1 << to;
                tables.lines[square][dir % 4] |= 1 << to;
                n += 1;
            }
            dir += 1;
        }
        square += 1;
    }
    tables
}

pub(super) static TABLES: Tables = build_tables();

/// The squares of column `a`.
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The squares of column `h`.
pub const FILE_H: u64 = 0x8080_8080_8080_8080;

/// `group` grown by one step in all eight directions (never wrapping around an edge).
pub fn spread(group: u64) -> u64 {
    let row = group | ((group << 1) & !FILE_A) | ((group >> 1) & !FILE_H);
    row | (row << 8) | (row >> 8)
}

/// Whether the pieces of `pieces` form a single 8-connected group (one piece does; none
/// does not).
pub fn is_one_group(pieces: u64) -> bool {
    if pieces & pieces.wrapping_sub(1) == 0 {
        return pieces != 0;
    }
    let mut group = pieces & pieces.wrapping_neg();
    loop {
        let grown = spread(group) & pieces;
        if grown == group {
            return group == pieces;
        }
        group = grown;
    }
}

/// The direction index from `from` to `to` and the distance, if they share a line.
pub(super) fn direction(from: Square, to: Square) -> Option<(usize, u8)> {
    let dc = i16::from(to.col()) - i16::from(from.col());
    let dr = i16::from(to.row()) - i16::from(from.row());
    if (dc, dr) == (0, 0) || (dc != 0 && dr != 0 && dc.abs() != dr.abs()) {
        return None;
    }
    let unit = (dc.signum() as i8, dr.signum() as i8);
    let dir = DIRECTIONS.iter().position(|&d| d == unit)?;
    let distance = u8::try_from(dc.abs().max(dr.abs())).ok()?;
    Some((dir, distance))
}

/// The set bits of `bits`, lowest first, as squares.
pub(super) fn squares_of(bits: u64) -> impl Iterator<Item = Square> {
    let mut rest = bits;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let index = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            Square(index)
        })
    })
}

/// Every square the piece on `from` may move to, `own` being its side's pieces and
/// `opponent` the other side's: exactly N squares along each of the eight directions, N
/// being the pieces on that whole line, never over an opponent's piece, never onto an own
/// piece. `from` is a square index below 64 (as a bit index of the bitboards); it need not
/// hold a piece of `own` (a bot may ask about either side).
pub fn targets(from: u32, own: u64, opponent: u64) -> u64 {
    let from = (from & 63) as usize;
    let occupied = own | opponent | (1 << from);
    let targets = &TABLES.target[from];
    let between = &TABLES.between[from];
    let mut out = 0u64;
    for (line, mask) in TABLES.lines[from].iter().enumerate() {
        let n = (occupied & mask).count_ones() as usize;
        for dir in [line, line + 4] {
            let to = targets[dir][n];
            if to != OFF && between[dir][n] & opponent == 0 {
                out |= 1 << to;
            }
        }
    }
    out & !own
}
