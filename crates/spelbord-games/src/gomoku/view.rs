//! Gomoku's public view: the board as rows of text, whose turn it is, the last move and
//! the winning lines.

use serde::Serialize;

use super::{MAX_SIZE, Mark, Square};

/// The public state of a game.
///
/// `board` has one string per row, **top row first**: `board[0]` is row N (the top) and
/// or `.` (empty). `to_move` is the role to move (`"X"`/`"O"`), `null` once the game is
/// over. `last_move` is the square of the latest stone (`null` before the first).
/// `lines` holds every winning line of a game won on the board (empty otherwise), each
/// as the list of its squares from one end to the other, as in the module doc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GomokuView {
    pub size: u8,
    pub board: Vec<String>,
    pub to_move: Option<&'static str>,
    pub last_move: Option<Square>,
    pub move_count: usize,
    pub lines: Vec<Vec<Square>>,
}

/// The board's rows as [`GomokuView::board`] writes them (top row first), serialised
/// from the cells through one row-sized buffer.
pub(super) struct Rows<'a> {
    pub(super) cells: &'a [Option<Mark>],
    pub(super) size: usize,
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let rows = self.cells.chunks(self.size.max(1));
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        let mut text = [b'.'; MAX_SIZE as usize];
        for row in rows.rev() {
            let row = &row[..row.len().min(text.len())];
            for (place, cell) in row.iter().enumerate() {
                text[place] = cell.map_or(b'.', |mark| mark.symbol() as u8);
            }
            seq.serialize_element(std::str::from_utf8(&text[..row.len()]).unwrap_or_default())?;
        }
        seq.end()
    }
}
