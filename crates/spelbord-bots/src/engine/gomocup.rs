//! The Gomocup (piskvork) protocol for Gomoku engines ("brains"):
//! <https://plastovicka.github.io/protocl2en.htm>.
//!
//! Each move: `START size` (answered `OK`) when the board size differs from the last game
//! the process saw, `INFO timeout_turn MS`, `INFO timeout_match 0`, `INFO rule R` (0: five
//! or more win; 1: exactly five), then the whole position with `BOARD`, one `x,y,who` line
//! per stone in the order played (`who` 1: the engine's own, 2: its opponent's), `DONE`;
//! the engine answers `x,y`. Lines starting `MESSAGE`, `DEBUG`, `UNKNOWN` or `ERROR` in
//! between are skipped (an `ERROR` after `START` refuses the size).
//!
//! Coordinates are piskvork's: `x` the column from 0 at the **left**, `y` the row from 0 at
//! the **top**. Ours are a column letter and a row number from 1 at the bottom, so on a
//! board of `size`, `x = column` and `y = size - row` (`H8` on 15 is `7,7`; `A1` is `0,14`;
//! `A15` is `0,0`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spelbord_games::Seat;
use spelbord_games::gomoku::{Gomoku, Square, Variant};

use super::process::EngineProcess;
use super::session::{MIN_MOVE_MS, SessionError, millis_until};

/// What the conversation remembers.
#[derive(Debug, Default)]
pub(super) struct Gomocup {
    /// The board size of the last `START`.
    size: Option<u8>,
}

impl Gomocup {
    pub(super) fn ask(
        &mut self,
        process: &mut EngineProcess,
        game: &Gomoku,
        seat: Seat,
        deadline: Instant,
        margin: Duration,
    ) -> Result<Value, SessionError> {
        let size = game.size();
        // The time the engine is given counts from now (a start may have eaten the move's).
        let turn = millis_until(deadline, MIN_MOVE_MS);
        let hard_stop = Instant::now() + Duration::from_millis(turn) + margin;
        if self.size != Some(size) {
            process.send(&format!("START {size}"))?;
            loop {
                let line = process.line(hard_stop)?;
                match line.split_whitespace().next() {
                    Some("OK") => break,
                    Some("ERROR") => return Err(SessionError::Protocol(line)),
                    _ => {}
                }
            }
            self.size = Some(size);
        }
        process.send(&format!("INFO timeout_turn {turn}"))?;
        process.send("INFO timeout_match 0")?;
        let rule = match game.variant() {
            Variant::Free => 0,
            Variant::Exact5 => 1,
        };
        process.send(&format!("INFO rule {rule}"))?;
        process.send("BOARD")?;
        for (index, square) in game.moves().iter().enumerate() {
            let (x, y) = to_xy(*square, size);
            let who = if index % 2 == usize::from(seat) { 1 } else { 2 };
            process.send(&format!("{x},{y},{who}"))?;
        }
        process.send("DONE")?;
        loop {
            let line = process.line(hard_stop)?;
            match line.split_whitespace().next() {
                Some("MESSAGE" | "DEBUG" | "UNKNOWN" | "ERROR") | None => continue,
                Some(_) => {}
            }
            let square = from_xy(&line, size).ok_or_else(|| SessionError::Protocol(cut(&line)))?;
            return Ok(json!({ "at": square.to_string() }));
        }
    }
}

/// Our square in piskvork's coordinates on a board of `size`.
pub(crate) fn to_xy(square: Square, size: u8) -> (u8, u8) {
    (square.col(), size.saturating_sub(1).saturating_sub(square.row()))
}

/// Piskvork's `x,y` as our square, if it is on a board of `size`.
pub(crate) fn from_xy(text: &str, size: u8) -> Option<Square> {
    let (x, y) = text.trim().split_once(',')?;
    let (x, y): (u8, u8) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
    if x >= size || y >= size {
        return None;
    }
    Square::new(x, size - 1 - y)
}

/// A line of the other side's, shortened for a message of ours.
pub(crate) fn cut(line: &str) -> String {
    line.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_follow_piskvork() {
        let sq = |text: &str| text.parse::<Square>().unwrap();
        assert_eq!(to_xy(sq("H8"), 15), (7, 7));
        assert_eq!(to_xy(sq("A1"), 15), (0, 14));
        assert_eq!(to_xy(sq("A15"), 15), (0, 0));
        assert_eq!(to_xy(sq("O1"), 15), (14, 14));
        assert_eq!(to_xy(sq("J10"), 19), (9, 9));
        for (text, size) in [("H8", 15), ("A1", 15), ("C14", 15), ("S19", 19)] {
            let (x, y) = to_xy(sq(text), size);
            assert_eq!(from_xy(&format!("{x},{y}"), size), Some(sq(text)));
        }
        assert_eq!(from_xy("15,0", 15), None);
        assert_eq!(from_xy("0,15", 15), None);
        assert_eq!(from_xy("-1,3", 15), None);
        assert_eq!(from_xy("7 7", 15), None);
        assert_eq!(from_xy(" 7 , 7 ", 15), Some(sq("H8")));
    }
}
