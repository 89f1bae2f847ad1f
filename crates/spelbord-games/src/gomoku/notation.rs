//! Gomoku's notation: a square as a column letter and a row number (`H8`), and a move
//! on the wire (`{"at": "H8"}`); see the module doc of [`super`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{MAX_ROW, MAX_SIZE};
use crate::text::{ParseSquareError, letter_and_row, serde_as_string};

/// A square in the notation of the module doc (`H8`): a column `A`–`Z` and a row 1–99.
///
/// Any value of this type can be written; whether it lies on the board is the game's
/// business. Serialised as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// 0 for column `A`.
    pub(super) col: u8,
    /// 0 for row `1` (the bottom row).
    pub(super) row: u8,
}

impl Square {
    /// The square at 0-based `col` (0 = `A`) and `row` (0 = row `1`, the bottom), if the
    /// notation can name it.
    pub fn new(col: u8, row: u8) -> Option<Square> {
        (col < MAX_SIZE && row < MAX_ROW).then_some(Square { col, row })
    }

    /// The 0-based column (0 = `A`).
    pub fn col(self) -> u8 {
        self.col
    }

    /// The 0-based row (0 = row `1`, the bottom).
    pub fn row(self) -> u8 {
        self.row
    }

    /// The centre of a board of `size` squares: `H8` on 15, `J10` on 19.
    pub fn centre(size: u8) -> Square {
        let mid = size.min(MAX_SIZE) / 2;
        Square { col: mid, row: mid }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'A' + self.col), u16::from(self.row) + 1)
    }
}

/// What a square of this game looks like, for errors.
const SQUARE_FORM: &str = "a column letter A-Z followed by a row number 1-99 without leading zeros, like \"H8\"";

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        let (col, row) = letter_and_row(text).map_err(|reason| ParseSquareError::new(text, reason, SQUARE_FORM))?;
        Ok(Square { col, row })
    }
}

serde_as_string!(Square, "a square like \"H8\"");

/// One move: a stone on `at`. Wire form `{"at":"H8"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GomokuMove {
    pub at: Square,
}
