//! The public view of a game, as every client at the table sees it.

use serde::Serialize;

use super::LoaMove;

/// The public state of a game.
///
/// `board` has one string per row, **row 8 first**: `board[0]` is row 8, `board[7]` row 1.
/// Each string has 8 characters, column `a` first: `b` (black), `w` (white) or `.`.
/// `to_move` is `"black"` or `"white"`, `null` once the game is over. `last_move` is the
/// latest move in its wire form (`null` before the first). `pieces` counts each side's
/// pieces. `position` is the notation of the current position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoaView {
    pub board: Vec<String>,
    pub to_move: Option<&'static str>,
    pub last_move: Option<LoaMove>,
    pub move_count: usize,
    pub pieces: PieceCounts,
    pub position: String,
}

/// How many pieces each side has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PieceCounts {
    pub black: u32,
    pub white: u32,
}
