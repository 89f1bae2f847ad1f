//! Sides and squares: the two colours (seat 0 black, seat 1 white) and the 64 squares,
//! written `a1`..`h8` (an upper-case column letter is accepted on input).

use std::fmt;
use std::str::FromStr;

use crate::Seat;
use crate::text::{ParseSquareError, serde_as_string};

/// A player's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Black,
    White,
}

impl Side {
    /// The colour of a seat: seat 0 is black, seat 1 white.
    pub fn of_seat(seat: Seat) -> Option<Side> {
        match seat {
            0 => Some(Side::Black),
            1 => Some(Side::White),
            _ => None,
        }
    }

    /// The seat playing this colour.
    pub fn seat(self) -> Seat {
        match self {
            Side::Black => 0,
            Side::White => 1,
        }
    }

    pub fn opponent(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    /// The role name: `black` or `white`.
    pub fn role(self) -> &'static str {
        match self {
            Side::Black => "black",
            Side::White => "white",
        }
    }

    /// The notation letter: `b` or `w`.
    pub fn letter(self) -> char {
        match self {
            Side::Black => 'b',
            Side::White => 'w',
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            Side::Black => 0,
            Side::White => 1,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.role())
    }
}

/// A square of the 8 × 8 board, written like `b1` (see the module doc). Serialised as a
/// string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub(super) u8);

impl Square {
    /// The square at 0-based `col` (0 = `a`) and `row` (0 = row `1`, the bottom).
    pub fn new(col: u8, row: u8) -> Option<Square> {
        (col < 8 && row < 8).then_some(Square(row * 8 + col))
    }

    /// The square with bitboard index `index` (`a1` = 0, `h8` = 63).
    pub fn from_index(index: u8) -> Option<Square> {
        (index < 64).then_some(Square(index))
    }

    /// The bitboard index (`a1` = 0, `h1` = 7, `h8` = 63).
    pub fn index(self) -> u8 {
        self.0
    }

    /// The 0-based column (0 = `a`).
    pub fn col(self) -> u8 {
        self.0 % 8
    }

    /// The 0-based row (0 = row `1`, the bottom).
    pub fn row(self) -> u8 {
        self.0 / 8
    }

    pub(super) fn bit(self) -> u64 {
        1 << self.0
    }

    pub(super) fn usize(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.col()), self.row() + 1)
    }
}

/// What a square of this game looks like, for errors.
const SQUARE_FORM: &str = "a column letter a-h followed by a row 1-8, like \"b1\"";

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        let fail = |reason: &'static str| ParseSquareError::new(text, reason, SQUARE_FORM);
        let bytes = text.as_bytes();
        let (&letter, rest) = bytes.split_first().ok_or_else(|| fail("it is empty"))?;
        let col = letter.to_ascii_lowercase().wrapping_sub(b'a');
        if col >= 8 {
            return Err(fail("the column must be a letter a-h"));
        }
        let (&digit, extra) = rest.split_first().ok_or_else(|| fail("the row is missing"))?;
        let row = digit.wrapping_sub(b'1');
        if row >= 8 || (!extra.is_empty() && extra.iter().all(u8::is_ascii_digit)) {
            return Err(fail("the row must be a digit 1-8"));
        }
        if !extra.is_empty() {
            return Err(fail("there are characters after the row"));
        }
        Ok(Square(row * 8 + col))
    }
}

serde_as_string!(Square, "a square like \"b1\"");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines_of_action::testkit::*;

    // ---------------------------------------------------------------- squares and moves

    #[test]
    fn squares_parse_strictly() {
        assert_eq!(sq("a1").index(), 0);
        assert_eq!(sq("h1").index(), 7);
        assert_eq!(sq("a8").index(), 56);
        assert_eq!(sq("H8").index(), 63);
        assert_eq!(sq("E4").to_string(), "e4");
        assert_eq!(Square::new(1, 0), Some(sq("b1")));
        assert_eq!(Square::new(8, 0), None);
        assert_eq!(Square::from_index(64), None);
        for bad in ["", "b", "i1", "b0", "b9", "b10", "1b", "b1 ", "bb1", "é1"] {
            let err = bad.parse::<Square>().unwrap_err();
            assert!(err.to_string().contains("like \"b1\""), "{bad}: {err}");
        }
        assert_eq!(
            "b10".parse::<Square>().unwrap_err().reason,
            "the row must be a digit 1-8"
        );
        assert_eq!(
            "b1x".parse::<Square>().unwrap_err().reason,
            "there are characters after the row"
        );
    }
}
