//! Bughouse's public view: both boards as FEN with their pockets, clocks aside.

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::variant::Crazyhouse;
use shakmaty::{Color, EnPassantMode, Piece};

use super::*;

/// A pocket pair as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PocketsView {
    /// White's pieces, upper case, in the order Q R B N P (`"NPP"`).
    pub white: String,
    /// Black's pieces, lower case, in the same order.
    pub black: String,
}

/// One board as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// Crazyhouse FEN: pockets in brackets, promoted pieces marked `~`.
    pub fen: String,
    /// Eight strings, rank 8 first, files a–h, FEN letters and `.` for empty.
    pub board: Vec<String>,
    /// `"white"` or `"black"`: the side to move on this board.
    pub turn: &'static str,
    /// The role of the seat to move (`"A-white"`), `null` once the game is over.
    pub to_move: Option<&'static str>,
    pub pockets: PocketsView,
    /// The last move on this board in UCI, `null` before the first.
    pub last_move: Option<String>,
    /// The side to move is in check.
    pub check: bool,
    /// The game runs and the side to move has no legal move or drop: it waits.
    pub waiting: bool,
    /// Moves (drops included) played on this board.
    pub move_count: u32,
}

/// The public state of a Bughouse game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BughouseView {
    #[serde(rename = "A")]
    pub a: BoardView,
    #[serde(rename = "B")]
    pub b: BoardView,
    /// Moves played on both boards together.
    pub total_moves: u32,
    /// The total at which the game is drawn.
    pub move_limit: u32,
    /// Bughouse 960: the number (0–959) of the position both boards started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chess960: Option<u16>,
}

pub(super) fn fen_of(pos: &Crazyhouse) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

pub(super) fn pocket_letters(pockets: &Pockets, colour: Color) -> String {
    POCKET_ROLES
        .iter()
        .flat_map(|&role| {
            let letter = Piece { color: colour, role }.char();
            std::iter::repeat_n(letter, usize::from(pockets[colour][role]))
        })
        .collect()
}
