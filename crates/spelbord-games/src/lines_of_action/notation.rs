//! The one-line position notation: 64 squares (row 8 first, `b`, `w` or `.`), a space and
//! the side to move; the `/`-separated input form; and why a string is refused.

use std::fmt;
use std::str::FromStr;

use super::{Position, Side, Square};
use crate::text::{serde_as_string, shorten};

/// A position string that is not in the notation of the module doc, or not a position a
/// game can start from. Checked in the order of the variants.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("the position is empty; expected 64 squares (row 8 first, `b`, `w` or `.`), a space and `b` or `w`")]
    Empty,
    #[error("the side to move is missing: expected the 64 squares, a space, then `b` or `w`")]
    MissingSideToMove,
    #[error("the board has {0} squares; expected 64 (8 rows of 8, row 8 first)")]
    WrongLength(usize),
    #[error("the board has {0} rows separated by `/`; expected 8")]
    WrongRowCount(usize),
    #[error("row {row} has {found} squares; expected 8")]
    WrongRowLength { row: u8, found: usize },
    #[error("bad character `{found}` on {square}; a square is `b` (black), `w` (white) or `.` (empty)")]
    BadCharacter { found: char, square: Square },
    #[error("the side to move must be `b` or `w`, found `{0}`")]
    BadSideToMove(String),
    #[error("{0} has no pieces")]
    NoPieces(Side),
    #[error("{side} has {count} pieces; a side has at most 12")]
    TooManyPieces { side: Side, count: u32 },
    #[error("{0}'s pieces already form a single group, so the game would be over")]
    AlreadyConnected(Side),
}

impl fmt::Display for Position {
    /// The canonical notation: 64 squares, row 8 first, a space and the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(66);
        for row in (0..8).rev() {
            for col in 0..8 {
                text.push(match self.piece_at(Square(row * 8 + col)) {
                    Some(side) => side.letter(),
                    None => '.',
                });
            }
        }
        text.push(' ');
        text.push(self.to_move.letter());
        f.write_str(&text)
    }
}

impl FromStr for Position {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Position, PositionError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(PositionError::Empty);
        }
        let (board, side) = text
            .split_once(|c: char| c.is_whitespace())
            .ok_or(PositionError::MissingSideToMove)?;
        let side = side.trim();
        if side.is_empty() {
            return Err(PositionError::MissingSideToMove);
        }
        let cells: Vec<char> = if board.contains('/') {
            let rows: Vec<&str> = board.split('/').collect();
            if rows.len() != 8 {
                return Err(PositionError::WrongRowCount(rows.len()));
            }
            for (i, row) in rows.iter().enumerate() {
                let found = row.chars().count();
                if found != 8 {
                    let row = 8 - u8::try_from(i).unwrap_or(0);
                    return Err(PositionError::WrongRowLength { row, found });
                }
            }
            rows.iter().flat_map(|row| row.chars()).collect()
        } else {
            board.chars().collect()
        };
        if cells.len() != 64 {
            return Err(PositionError::WrongLength(cells.len()));
        }
        let mut pieces = [0u64; 2];
        for (i, &cell) in (0u8..).zip(&cells) {
            let square = Square((7 - i / 8) * 8 + i % 8);
            match cell {
                'b' => pieces[Side::Black.index()] |= square.bit(),
                'w' => pieces[Side::White.index()] |= square.bit(),
                '.' => {}
                found => return Err(PositionError::BadCharacter { found, square }),
            }
        }
        let to_move = match side {
            "b" => Side::Black,
            "w" => Side::White,
            other => return Err(PositionError::BadSideToMove(shorten(other, 12))),
        };
        Position { pieces, to_move }.validate()
    }
}

serde_as_string!(Position, "a Lines of Action position string");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines_of_action::testkit::*;

    #[test]
    fn start_position_and_notation() {
        let g = start();
        assert_eq!(g.position(), START);
        assert_eq!(Position::START.to_string(), START);
        assert_eq!(LinesOfAction::from_position(START).unwrap(), g);
        assert_eq!(g.board().count(Side::Black), 12);
        assert_eq!(g.board().count(Side::White), 12);
        assert_eq!(g.board().piece_at(sq("b1")), Some(Side::Black));
        assert_eq!(g.board().piece_at(sq("h7")), Some(Side::White));
        assert_eq!(g.board().piece_at(sq("a1")), None);
        assert_eq!(g.to_move(), Some(0));
        assert_eq!(g.active_seats(), SeatSet::only(0));
        assert_eq!(LinesOfAction::seat_roles(&LoaSettings::default()), ["black", "white"]);
    }

    // ---------------------------------------------------------------- position strings

    #[test]
    fn position_strings_are_checked() {
        let err = |text: &str| LinesOfAction::from_position(text).unwrap_err();
        let board = START.split(' ').next().unwrap();
        assert_eq!(err(""), PositionError::Empty);
        assert_eq!(err("   "), PositionError::Empty);
        assert_eq!(err(board), PositionError::MissingSideToMove);
        assert_eq!(err(&format!("{board} ")), PositionError::MissingSideToMove);
        assert_eq!(err(&format!("{} b", &board[1..])), PositionError::WrongLength(63));
        assert_eq!(err(&format!("{board}. b")), PositionError::WrongLength(65));
        assert_eq!(err(&format!("{board} x")), PositionError::BadSideToMove("x".into()));
        assert_eq!(err(&format!("{board} B")), PositionError::BadSideToMove("B".into()));
        assert_eq!(
            err(&format!("{board} black")),
            PositionError::BadSideToMove("black".into())
        );
        let bad = format!("x{} b", &board[1..]);
        assert_eq!(
            err(&bad),
            PositionError::BadCharacter {
                found: 'x',
                square: sq("a8")
            }
        );
        let bad = format!("{}B b", &board[..63]);
        assert_eq!(
            err(&bad),
            PositionError::BadCharacter {
                found: 'B',
                square: sq("h1")
            }
        );
        assert_eq!(
            err(&format!("{}w b", &board[..63])),
            PositionError::TooManyPieces {
                side: Side::White,
                count: 13
            }
        );
        let no_white = format!("{} b", board.replace('w', "."));
        assert_eq!(err(&no_white), PositionError::NoPieces(Side::White));
        let no_black = format!("{} w", board.replace('b', "."));
        assert_eq!(err(&no_black), PositionError::NoPieces(Side::Black));
        let connected = notation(
            [
                "bb......", "........", "......w.", "........", "........", "........", "........", "w.......",
            ],
            'w',
        );
        assert_eq!(err(&connected), PositionError::AlreadyConnected(Side::Black));
        let lone_white = notation(
            [
                "b......b", "........", "........", "....w...", "........", "........", "........", "........",
            ],
            'b',
        );
        assert_eq!(err(&lone_white), PositionError::AlreadyConnected(Side::White));
    }

    #[test]
    fn position_errors_read_well() {
        let err = |text: &str| LinesOfAction::from_position(text).unwrap_err().to_string();
        let board = START.split(' ').next().unwrap();
        assert_eq!(
            err(""),
            "the position is empty; expected 64 squares (row 8 first, `b`, `w` or `.`), a space and `b` or `w`"
        );
        assert_eq!(
            err(&format!("{} b", &board[2..])),
            "the board has 62 squares; expected 64 (8 rows of 8, row 8 first)"
        );
        assert_eq!(
            err(&format!("{}?{} b", &board[..20], &board[21..])),
            "bad character `?` on e6; a square is `b` (black), `w` (white) or `.` (empty)"
        );
        assert_eq!(
            err(&format!("{board} -")),
            "the side to move must be `b` or `w`, found `-`"
        );
        assert_eq!(
            err(&format!("b{} b", &board[1..])),
            "black has 13 pieces; a side has at most 12"
        );
        assert_eq!(
            err(&notation(
                [
                    "b.......", "........", "........", "........", "........", "........", "......ww", "......ww"
                ],
                'b'
            )),
            "black's pieces already form a single group, so the game would be over"
        );
    }

    #[test]
    fn slash_separated_rows_are_accepted() {
        let slashed = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b";
        let g = LinesOfAction::from_position(slashed).unwrap();
        assert_eq!(g.position(), START);
        let err = |text: &str| LinesOfAction::from_position(text).unwrap_err();
        assert_eq!(err(".bbbbbb./w......w b"), PositionError::WrongRowCount(2));
        assert_eq!(
            err(".bbbbbb./w......w/w......w/w.....w/w......w/w......w/w......w/.bbbbbb. b"),
            PositionError::WrongRowLength { row: 5, found: 7 }
        );
        assert_eq!(
            LinesOfAction::from_position(&format!("  {START}\n"))
                .unwrap()
                .position(),
            START,
            "surrounding whitespace is ignored"
        );
    }
}
