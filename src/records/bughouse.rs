//! Bughouse records.
//!
//! - **BPGN**, the format bughouse databases use: tag pairs `WhiteA`, `BlackA`, `WhiteB`,
//!   `BlackB` (board A's white and board B's black are one team), `TimeControl`, `Result`
//!   (`1-0`: the team of WhiteA and BlackB won), then both boards' moves interleaved in the
//!   order they were played, each numbered per board and colour and tagged with its board
//!   letter, upper case for white, lower case for black (`1A. e4 1a. e5 1B. d4 2A. Nf3`),
//!   in standard algebraic notation with drops as `N@f3`, followed by the mover's
//!   remaining clock in seconds in braces (`{179.820}`) in timed games.
//! - **A crazyhouse PGN per board** (`Variant "Crazyhouse"`, with `FEN`/`SetUp` when the
//!   board did not start from the standard position): that board's moves alone, with
//!   `{[%clk 0:02:59.8]}` clock comments, which chess tools read. A drop of a piece the
//!   partner passed over is written like any drop; a strict crazyhouse program that
//!   tracks pockets itself may refuse it, since in crazyhouse only own captures fill a
//!   pocket (BPGN is the faithful record of the whole game).
//!
//! `+` marks a check; `#` the move that ended the game by a bughouse mate.

use std::fmt::Write as _;

use shakmaty::Color;

use super::GameRecord;
use super::export::{Tags, pgn_result, player_name, wrap};
use super::replay::{ReplayError, replay};
use crate::games::bughouse::{board_of, colour_of};

/// The board letters, board A first.
const BOARDS: [char; 2] = ['A', 'B'];

/// The standard start, which needs no `FEN` tag.
const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";

/// One move of the line in algebraic notation, with the board and the mover's clock.
#[derive(Debug, Clone)]
struct Written {
    board: usize,
    colour: Color,
    /// The move's number on its board for its colour, from 1.
    number: u32,
    san: String,
    /// The mover's remaining time after the move, in milliseconds.
    clock_ms: Option<u64>,
}

/// A move's BPGN token without its clock.
fn token(mv: &Written) -> String {
    let letter = match mv.colour {
        Color::White => BOARDS[mv.board],
        Color::Black => BOARDS[mv.board].to_ascii_lowercase(),
    };
    format!("{}{letter}. {}", mv.number, mv.san)
}

/// The whole game in BPGN.
pub fn bpgn(record: &GameRecord, site: &str) -> Result<String, ReplayError> {
    let (written, start) = write_moves(record)?;
    let mut tags = Tags::common(record, site);
    tags.add("WhiteA", player_name(record, 0));
    tags.add("BlackA", player_name(record, 1));
    tags.add("WhiteB", player_name(record, 2));
    tags.add("BlackB", player_name(record, 3));
    let result = pgn_result(record, &[0, 3]);
    tags.add("Result", result);
    for (board, fen) in BOARDS.iter().zip(&start) {
        if fen != STANDARD_FEN {
            tags.add(&format!("FEN{board}"), fen);
        }
    }
    tags.closing(record);
    let mut tokens = Vec::with_capacity(written.len() + 1);
    for mv in &written {
        let mut token = token(mv);
        if let Some(ms) = mv.clock_ms {
            let _ = write!(token, "{{{}.{:03}}}", ms / 1000, ms % 1000);
        }
        tokens.push(token);
    }
    tokens.push(result.to_owned());
    Ok(tags.finish() + &wrap(&tokens))
}

/// One board's moves as a crazyhouse PGN (`board`: 0 for A, 1 for B).
pub fn board_pgn(record: &GameRecord, site: &str, board: usize) -> Result<String, ReplayError> {
    let (written, start) = write_moves(record)?;
    let white = u8::try_from(board * 2).unwrap_or(0);
    let mut tags = Tags::common(record, site);
    tags.add("White", player_name(record, white));
    tags.add("Black", player_name(record, white + 1));
    let result = pgn_result(record, &[white]);
    tags.add("Result", result);
    tags.add("Variant", "Crazyhouse");
    tags.add("Board", BOARDS[board].to_string());
    let partner_board = BOARDS[1 - board];
    tags.add(
        "Partners",
        format!(
            "{} (white) with {} (black on {partner_board}); {} (black) with {} (white on {partner_board})",
            player_name(record, white),
            player_name(record, 3 - white),
            player_name(record, white + 1),
            player_name(record, 2 - white),
        ),
    );
    let fen = &start[board];
    if fen != STANDARD_FEN {
        tags.add("SetUp", "1");
        tags.add("FEN", fen);
    }
    tags.closing(record);
    let mut tokens = Vec::new();
    let mine: Vec<&Written> = written.iter().filter(|mv| mv.board == board).collect();
    for (index, mv) in mine.iter().enumerate() {
        match mv.colour {
            Color::White => tokens.push(format!("{}.", mv.number)),
            Color::Black if index == 0 => tokens.push(format!("{}...", mv.number)),
            Color::Black => {}
        }
        tokens.push(mv.san.clone());
        if let Some(ms) = mv.clock_ms {
            tokens.push(format!("{{[%clk {}]}}", clock_text(ms)));
        }
    }
    tokens.push(result.to_owned());
    Ok(tags.finish() + &wrap(&tokens))
}

/// `h:mm:ss.t`, as `%clk` comments write a clock.
fn clock_text(ms: u64) -> String {
    let tenths = ms / 100;
    format!(
        "{}:{:02}:{:02}.{}",
        tenths / 36_000,
        tenths / 600 % 60,
        tenths / 10 % 60,
        tenths % 10
    )
}

/// Every move of the line in algebraic notation (the rules' `move_text`), in the order
/// played, and each board's start position (FEN with pockets).
fn write_moves(record: &GameRecord) -> Result<(Vec<Written>, [String; 2]), ReplayError> {
    let replay = replay(record)?;
    let mut counts = [[0u32; 2]; 2];
    let written = replay
        .moves
        .iter()
        .map(|mv| {
            let board = board_of(mv.record.seat);
            let colour = colour_of(mv.record.seat);
            let count = &mut counts[board][usize::from(colour == Color::Black)];
            *count += 1;
            Written {
                board,
                colour,
                number: *count,
                san: mv.text.clone(),
                clock_ms: mv
                    .record
                    .clocks_ms
                    .as_ref()
                    .and_then(|clocks| clocks.get(usize::from(mv.record.seat)).copied()),
            }
        })
        .collect();
    let start = BOARDS.map(|board| {
        replay.start[board.to_string()]["fen"]
            .as_str()
            .unwrap_or(STANDARD_FEN)
            .to_owned()
    });
    Ok((written, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_hours_minutes_seconds_tenths() {
        assert_eq!(clock_text(179_820), "0:02:59.8");
        assert_eq!(clock_text(3_600_000 + 61_000), "1:01:01.0");
        assert_eq!(clock_text(0), "0:00:00.0");
    }
}
