//! **Notation.** One line: the six pieces, each as its number, its square and the letter
//! of its ring if any (`b` blue, `g` green, `p` pink), separated by spaces, then `/` and
//! the number of the piece in turn: `1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4`. Input accepts
//! any order of the pieces, any spacing and any case; output lists pieces 1–6 in order,
//! lower case, single spaces, ` / ` before the piece in turn. A valid position has every
//! piece exactly once, on the board, not on the hole, no two on one square, each ring on
//! one piece at most, rings only on pieces 1, 2 and 3 and in that order (the ringed
//! pieces are 1…k), and, while rings remain (k < 3), piece k + 1 in turn (its first
//! turn). Errors name exactly what is wrong.

use std::fmt;
use std::str::FromStr;

use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::square::name;
use super::{Board, HOLE_INDEX, KruxPosition, Ring, Square};
use crate::text::{ParseSquareError, shorten};

impl KruxPosition {
    /// Checks a board built from the notation; the error is the reason.
    fn validate(squares: [Square; 6], rings: [Option<Ring>; 6], in_turn: u8) -> Result<KruxPosition, String> {
        let mut loc = [0u8; 6];
        for (piece, square) in squares.iter().enumerate() {
            let number = piece + 1;
            loc[piece] = square
                .index()
                .ok_or_else(|| format!("piece {number} is on {square}, off the 7 × 7 board (a-g, 1-7)"))?;
            if loc[piece] == HOLE_INDEX {
                return Err(format!("piece {number} is on the hole d4"));
            }
            if let Some(other) = loc[..piece].iter().position(|&l| l == loc[piece]) {
                return Err(format!("pieces {} and {number} are both on {square}", other + 1));
            }
        }
        for (piece, ring) in rings.iter().enumerate() {
            let Some(ring) = ring else { continue };
            if let Some(other) = rings[..piece].iter().position(|r| r == &Some(*ring)) {
                return Err(format!(
                    "the {} ring is on pieces {} and {}; each ring is on one piece at most",
                    ring.name(),
                    other + 1,
                    piece + 1
                ));
            }
            if piece >= 3 {
                return Err(format!(
                    "piece {} has a ring, but only pieces 1, 2 and 3 ever receive one (in their first turns)",
                    piece + 1
                ));
            }
        }
        let handed_out = rings.iter().filter(|ring| ring.is_some()).count();
        if let Some(gap) = rings[..handed_out].iter().position(Option::is_none) {
            let later = rings.iter().rposition(Option::is_some).unwrap_or(gap) + 1;
            return Err(format!(
                "piece {later} has a ring but piece {} has none; pieces 1, 2 and 3 receive the rings in that \
                 order, in their first turns",
                gap + 1
            ));
        }
        if handed_out < 3 && usize::from(in_turn) != handed_out {
            return Err(format!(
                "with {handed_out} ring(s) handed out, piece {} is in turn (its first turn, in which it chooses a \
                 ring), not piece {}",
                handed_out + 1,
                in_turn + 1
            ));
        }
        Ok(KruxPosition(Board { loc, rings, in_turn }))
    }
}

impl fmt::Display for KruxPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in 0..6 {
            write!(f, "{}{}", piece + 1, name(self.0.loc[piece]))?;
            if let Some(ring) = self.0.rings[piece] {
                write!(f, "{}", ring.letter())?;
            }
            f.write_str(" ")?;
        }
        write!(f, "/ {}", self.0.in_turn + 1)
    }
}

/// How the notation is written, appended to syntax errors.
const NOTATION_HINT: &str = "write six pieces like \"1c1b\" (piece number, square, optional ring b/g/p) separated by \
                             spaces, then \"/\" and the piece in turn, like \"1c1 2e7 3b2 4f6 5a3 6g5 / 1\"";

/// A string that is not a valid position (see the module doc); `reason` says exactly why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid position \"{input}\": {reason}")]
pub struct PositionError {
    /// The offending text (cut short if long).
    pub input: String,
    pub reason: String,
}

impl FromStr for KruxPosition {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<KruxPosition, PositionError> {
        let fail = |reason: String| PositionError {
            input: shorten(text, 80),
            reason,
        };
        let syntax = |reason: String| fail(format!("{reason}; {NOTATION_HINT}"));
        let (pieces, turn) = text
            .split_once('/')
            .ok_or_else(|| syntax("the \"/\" before the piece in turn is missing".into()))?;
        let mut squares: [Option<Square>; 6] = [None; 6];
        let mut rings: [Option<Ring>; 6] = [None; 6];
        for token in pieces.split_whitespace() {
            let (number, square, ring) = parse_token(token).map_err(syntax)?;
            let piece = usize::from(number - 1);
            if squares[piece].is_some() {
                return Err(fail(format!("piece {number} is listed twice")));
            }
            squares[piece] = Some(square);
            rings[piece] = ring;
        }
        let mut found = [Square::HOLE; 6];
        for (piece, square) in squares.iter().enumerate() {
            found[piece] = square.ok_or_else(|| syntax(format!("piece {} is missing", piece + 1)))?;
        }
        let turn = turn.trim();
        let in_turn = match turn.as_bytes() {
            [digit @ b'1'..=b'6'] => digit - b'1',
            _ => {
                return Err(syntax(format!(
                    "the piece in turn after \"/\" must be one number 1-6, not \"{}\"",
                    shorten(turn, 12)
                )));
            }
        };
        KruxPosition::validate(found, rings, in_turn).map_err(fail)
    }
}

/// One piece of the notation: `1c1b` → (1, c1, blue).
fn parse_token(token: &str) -> Result<(u8, Square, Option<Ring>), String> {
    let shown = shorten(token, 12);
    let number = match token.as_bytes().first() {
        Some(digit @ b'1'..=b'6') => digit - b'0',
        _ => return Err(format!("\"{shown}\" does not start with a piece number 1-6")),
    };
    let rest = &token[1..];
    let square_len = 1 + rest.bytes().skip(1).take_while(u8::is_ascii_digit).count();
    if !rest.is_char_boundary(square_len.min(rest.len())) {
        return Err(format!("\"{shown}\" is not a piece like \"1c1b\""));
    }
    let (square_text, ring_text) = rest.split_at(square_len.min(rest.len()));
    let square: Square = square_text.parse().map_err(|err: ParseSquareError| {
        format!("piece {number}: \"{shown}\" has an invalid square: {}", err.reason)
    })?;
    let ring = match ring_text {
        "" => None,
        letter => Some(Ring::from_letter(letter).ok_or_else(|| {
            format!(
                "unknown ring \"{}\" on piece {number} (rings are b = blue, g = green, p = pink)",
                shorten(letter, 12)
            )
        })?),
    };
    Ok((number, square, ring))
}

impl Serialize for KruxPosition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KruxPosition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<KruxPosition, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use crate::krux::test_support::*;
    use crate::krux::*;

    // ---------------------------------------------------------------- notation and settings

    #[test]
    fn position_notation_round_trips_and_normalises() {
        for text in [
            "1c1 2e7 3b2 4f6 5a3 6g5 / 1",
            "1c1g 2e7 3b2 4f6 5a3 6g5 / 2",
            "1c1g 2e7p 3b2 4f6 5a3 6g5 / 3",
            "1a1b 2g7g 3b2p 4f6 5a3 6g5 / 6",
        ] {
            let p: KruxPosition = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
            assert_eq!(Krux::from_position(text).unwrap().position(), text);
        }
        // Any order, any spacing, any case; written back canonically.
        let p: KruxPosition = "  6G5 5a3 4f6   3B2P 2e7g 1c1B /4 ".parse().unwrap();
        assert_eq!(p.to_string(), "1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4");
        assert_eq!(p.square(3), Some(sq("b2")));
        assert_eq!(p.ring(3), Some(Ring::Pink));
        assert_eq!(p.ring(4), None);
        assert_eq!(p.piece_in_turn(), 4);
        assert_eq!(p.square(7), None);
        assert_eq!(KruxPosition::default(), KruxPosition::start());
    }

    #[test]
    fn invalid_positions_say_exactly_what_is_wrong() {
        for (text, says) in [
            (
                "1c1 2e7 3b2 4f6 5a3 6g5 1",
                "the \"/\" before the piece in turn is missing",
            ),
            (
                "1c1 2e7 3b2 4f6 5a3 6g5 / 1 / 2",
                "must be one number 1-6, not \"1 / 2\"",
            ),
            ("1c1 2e7 3b2 4f6 5a3 6g5 / 7", "must be one number 1-6, not \"7\""),
            ("1c1 2e7 3b2 4f6 5a3 6g5 /", "must be one number 1-6, not \"\""),
            ("1c1 2e7 3b2 4f6 5a3 / 1", "piece 6 is missing"),
            ("1c1 2e7 3b2 4f6 5a3 6g5 1d1 / 1", "piece 1 is listed twice"),
            (
                "1c1 2e7 3b2 4f6 5a3 7g5 / 1",
                "\"7g5\" does not start with a piece number 1-6",
            ),
            (
                "1c1 2e7 3b2 4f6 5a3 x / 1",
                "\"x\" does not start with a piece number 1-6",
            ),
            (
                "1c1 2e7 3b2 4f6 5a3 6g / 1",
                "piece 6: \"6g\" has an invalid square: the row number is missing",
            ),
            ("1c1 2e7 3b2 4f6 5a3 6g05 / 1", "leading zeros"),
            (
                "1 2e7 3b2 4f6 5a3 6g5 / 1",
                "piece 1: \"1\" has an invalid square: it is empty",
            ),
            ("1é1 2e7 3b2 4f6 5a3 6g5 / 1", "\"1é1\" is not a piece like \"1c1b\""),
            ("1c1 2e7 3b2 4f6 5a3 6h5 / 1", "piece 6 is on h5, off the 7 × 7 board"),
            ("1c1 2e7 3b2 4f6 5a3 6g8 / 1", "piece 6 is on g8, off the 7 × 7 board"),
            ("1c1 2e7 3b2 4d4 5a3 6g5 / 1", "piece 4 is on the hole d4"),
            ("1c1 2e7 3b2 4f6 5c1 6g5 / 1", "pieces 1 and 5 are both on c1"),
            (
                "1c1x 2e7 3b2 4f6 5a3 6g5 / 2",
                "unknown ring \"x\" on piece 1 (rings are b = blue, g = green, p = pink)",
            ),
            ("1c1bg 2e7 3b2 4f6 5a3 6g5 / 2", "unknown ring \"bg\" on piece 1"),
            ("1c1b 2e7b 3b2 4f6 5a3 6g5 / 3", "the blue ring is on pieces 1 and 2"),
            ("1c1b 2e7g 3b2p 4f6g 5a3 6g5 / 5", "the green ring is on pieces 2 and 4"),
            (
                "1c1b 2e7g 3b2 4f6p 5a3 6g5 / 5",
                "piece 4 has a ring, but only pieces 1, 2 and 3 ever receive one",
            ),
            (
                "1c1 2e7b 3b2 4f6 5a3 6g5 / 3",
                "piece 2 has a ring but piece 1 has none",
            ),
            (
                "1c1g 2e7 3b2p 4f6 5a3 6g5 / 4",
                "piece 3 has a ring but piece 2 has none",
            ),
            (
                "1c1 2e7 3b2 4f6 5a3 6g5 / 2",
                "with 0 ring(s) handed out, piece 1 is in turn",
            ),
            (
                "1c1g 2e7 3b2 4f6 5a3 6g5 / 1",
                "with 1 ring(s) handed out, piece 2 is in turn",
            ),
            (
                "1c1g 2e7b 3b2 4f6 5a3 6g5 / 5",
                "with 2 ring(s) handed out, piece 3 is in turn",
            ),
            ("", "the \"/\" before the piece in turn is missing"),
        ] {
            let err = text.parse::<KruxPosition>().unwrap_err();
            assert!(err.to_string().contains(says), "{text:?}: {err}");
            assert!(err.to_string().starts_with("invalid position"), "{err}");
            assert!(Krux::from_position(text).is_err());
        }
        // Syntax errors show how to write the notation.
        let err = "1c1".parse::<KruxPosition>().unwrap_err();
        assert!(err.reason.contains("like \"1c1 2e7 3b2 4f6 5a3 6g5 / 1\""), "{err}");
    }
}
