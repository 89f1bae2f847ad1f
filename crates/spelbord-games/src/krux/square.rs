//! Squares (`c2`) and the geometry of the 7 × 7 board: square indices, offsets and
//! orthogonal distances.

use std::fmt;
use std::str::FromStr;

use super::SIZE;
use crate::text::{ParseSquareError, letter_and_row, serde_as_string};

// ------------------------------------------------------------------------ squares

/// A square in the notation of the module doc (`c2`): a column letter and a row number.
///
/// Any letter `a`–`z` and row 1–99 can be written; whether the square lies on the 7 × 7
/// board is the rules' business (`off_board`). Serialised as a lower-case string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// 0 for column `a`.
    col: u8,
    /// 0 for row `1` (the bottom row).
    row: u8,
}

impl Square {
    /// The hole, d4.
    pub const HOLE: Square = Square { col: 3, row: 3 };

    /// The square at 0-based `col` (0 = `a`) and `row` (0 = row `1`), if the notation can
    /// name it.
    pub fn new(col: u8, row: u8) -> Option<Square> {
        (col < 26 && row < 99).then_some(Square { col, row })
    }

    /// The 0-based column (0 = `a`).
    pub fn col(self) -> u8 {
        self.col
    }

    /// The 0-based row (0 = row `1`, the bottom).
    pub fn row(self) -> u8 {
        self.row
    }

    /// Whether the square lies on the 7 × 7 board.
    pub fn on_board(self) -> bool {
        self.col < SIZE && self.row < SIZE
    }

    /// The board index `row * 7 + col`, for a square on the board. (Computed only then:
    /// `row * 7` overflows a `u8` for the far squares that decode, up to row 99.)
    pub(super) fn index(self) -> Option<u8> {
        self.on_board().then(|| self.row * SIZE + self.col)
    }

    pub(super) fn of_index(index: u8) -> Square {
        Square {
            col: index % SIZE,
            row: index / SIZE,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.col), u16::from(self.row) + 1)
    }
}

/// What a square of this game looks like, for errors.
const SQUARE_FORM: &str = "a column letter a-g followed by a row number 1-7, like \"c2\"";

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        let (col, row) = letter_and_row(text).map_err(|reason| ParseSquareError::new(text, reason, SQUARE_FORM))?;
        Ok(Square { col, row })
    }
}

serde_as_string!(Square, "a square like \"c2\"");

// ---------------------------------------------------------------- board geometry

pub(super) fn col_of(index: u8) -> i8 {
    (index % SIZE) as i8
}

pub(super) fn row_of(index: u8) -> i8 {
    (index / SIZE) as i8
}

/// The square `(dc, dr)` away from `index`, if it is on the board.
pub(super) fn offset(index: u8, (dc, dr): (i8, i8)) -> Option<u8> {
    let col = col_of(index) + dc;
    let row = row_of(index) + dr;
    let size = SIZE as i8;
    ((0..size).contains(&col) && (0..size).contains(&row)).then(|| (row * size + col) as u8)
}

/// Orthogonal distance |dx| + |dy|.
pub(super) fn distance(a: u8, b: u8) -> u8 {
    col_of(a).abs_diff(col_of(b)) + row_of(a).abs_diff(row_of(b))
}

pub(super) fn name(index: u8) -> Square {
    Square::of_index(index)
}
