//! Gomoku (free-style "luffarschack"): settings, moves, the board, the win check and the
//! public view. The rules are those of `shared/rules/gomoku.md`; this module owns
//! everything that page asks of the server for the `free` and `exact5` variants.
//! Renju (forbidden shapes for X) is not implemented.
//!
//! Decisions made here:
//! - **Seats.** Seat 0 plays X and always moves first; seat 1 plays O.
//! - **Coordinates.** A square is written as one column letter and a row number, like
//!   `H8`. Columns are contiguous letters from `A` at the left (`A`–`O` on 15 × 15,
//!   `A`–`S` on 19 × 19; `I` is *not* skipped, unlike Go). Rows count from `1` at the
//!   bottom to N at the top. Lower-case letters are accepted on input; upper case is always
//!   emitted. The row has no leading zeros and lies in 1–99; anything else (`""`, `"H0"`,
//!   `"H08"`, `"8H"`, `"HH8"`) is refused when the move is decoded, before the rules see
//!   it. A well-formed square beyond the board (`"P8"` on 15 × 15) decodes and is refused
//!   by [`Gomoku::play`] as `off_board`.
//! - **Centre.** The square in the middle column and the middle row: `H8` on 15 × 15 and
//!   `J10` on 19 × 19 (the tenth of the contiguous letters `A`–`S` is `J`).
//! - **Refused moves.** Rule codes, checked in this order: `game_over`, `not_your_turn`,
//!   `off_board`, `occupied`, `centre_opening`. A refused move changes nothing and does not
//!   consume the turn.
//! - **Lines.** After every legal move the four axes through the new stone are scanned in
//!   both directions, never wrapping around an edge; an empty square or an opponent stone
//!   ends a run. Variant `free`: a run of five or more wins. Variant `exact5`: only a run
//!   of exactly five wins; a longer run on one axis is ignored, so the same stone still
//!   wins through an exact five on another axis. Every qualifying run through the new
//!   stone is reported, whole (an overline lists all its squares), in the axis order
//!   horizontal, vertical, rising diagonal, falling diagonal. Each line is ordered by
//!   increasing column (a vertical line by increasing row).
//! - **Draw.** When the last empty square is filled without a winning line, the game is a
//!   draw by [`EndReason::BoardFull`]; if that last stone completes a line, it is a win.
//!
//! Layout: this file holds the settings, the marks and the game with its rules;
//! `notation.rs` the squares and the move on the wire; `view.rs` the public view; the
//! tests are in `tests.rs`.

mod notation;
#[cfg(test)]
mod tests;
mod view;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};
use view::Rows;

pub use notation::{GomokuMove, Square};
pub use view::GomokuView;

/// The largest board a [`Square`] can name (one letter per column).
const MAX_SIZE: u8 = 26;
/// The largest row number the notation accepts.
const MAX_ROW: u8 = 99;

/// What counts as a winning line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Five or more in a row win.
    #[default]
    Free,
    /// Exactly five in a row win; six or more do not.
    Exact5,
}

impl Variant {
    /// The wire names, default first.
    pub const NAMES: &'static [&'static str] = &["free", "exact5"];

    /// Whether a run of `len` stones wins under this variant.
    pub fn wins_with(self, len: usize) -> bool {
        match self {
            Variant::Free => len >= 5,
            Variant::Exact5 => len == 5,
        }
    }
}

/// Where X's first stone may go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Opening {
    /// X's first move must be the centre square.
    #[default]
    Center,
    /// Any square (practice).
    Free,
}

impl Opening {
    /// The wire names, default first.
    pub const NAMES: &'static [&'static str] = &["center", "free"];
}

/// A Gomoku table's settings: `{"variant":"free","board_size":15,"opening":"center"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GomokuSettings {
    pub variant: Variant,
    /// 15 or 19 when read from a request. [`Gomoku::new`] clamps other values to 1–26.
    pub board_size: u8,
    pub opening: Opening,
}

impl Default for GomokuSettings {
    fn default() -> GomokuSettings {
        GomokuSettings {
            variant: Variant::Free,
            board_size: 15,
            opening: Opening::Center,
        }
    }
}

/// A player's symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    X,
    O,
}

impl Mark {
    /// The mark of a seat: seat 0 is X, seat 1 is O.
    pub fn of_seat(seat: Seat) -> Option<Mark> {
        match seat {
            0 => Some(Mark::X),
            1 => Some(Mark::O),
            _ => None,
        }
    }

    /// The seat playing this mark.
    pub fn seat(self) -> Seat {
        match self {
            Mark::X => 0,
            Mark::O => 1,
        }
    }

    /// The role name and board character: `X` or `O`.
    pub fn symbol(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }

    fn role(self) -> &'static str {
        match self {
            Mark::X => "X",
            Mark::O => "O",
        }
    }
}

/// A game of Gomoku in progress or finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gomoku {
    variant: Variant,
    opening: Opening,
    size: u8,
    /// Row-major from `A1`: index `row * size + col`.
    cells: Vec<Option<Mark>>,
    moves: Vec<Square>,
    /// The winning lines, once a move made any.
    lines: Vec<Vec<Square>>,
    outcome: Option<Outcome>,
}

/// The four axes through a stone, as the forward step `(columns, rows)`.
const AXES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

impl Gomoku {
    /// The side length of the board.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The variant being played.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The centre square of this board.
    pub fn centre(&self) -> Square {
        Square::centre(self.size)
    }

    /// The squares played so far, in order (X's moves at even indices).
    pub fn moves(&self) -> &[Square] {
        &self.moves
    }

    /// The winning lines, if a move ended the game (empty otherwise).
    pub fn lines(&self) -> &[Vec<Square>] {
        &self.lines
    }

    /// The seat to move, `None` once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None if self.moves.len().is_multiple_of(2) => Some(0),
            None => Some(1),
        }
    }

    /// The stone on `square`, `None` if empty or off the board.
    pub fn mark_at(&self, square: Square) -> Option<Mark> {
        self.index(square).and_then(|index| self.cells[index])
    }

    fn on_board(&self, square: Square) -> bool {
        square.col < self.size && square.row < self.size
    }

    fn index(&self, square: Square) -> Option<usize> {
        self.on_board(square)
            .then(|| usize::from(square.row) * usize::from(self.size) + usize::from(square.col))
    }

    /// The neighbour of `square` one step along `(dc, dr)`, if it is on the board.
    fn step(&self, square: Square, dc: i8, dr: i8) -> Option<Square> {
        let col = square.col.checked_add_signed(dc)?;
        let row = square.row.checked_add_signed(dr)?;
        let next = Square { col, row };
        self.on_board(next).then_some(next)
    }

    /// The whole run of `mark` through `from` along the axis `(dc, dr)`, from its back end
    /// to its front end.
    fn run_through(&self, from: Square, mark: Mark, (dc, dr): (i8, i8)) -> Vec<Square> {
        let mut start = from;
        while let Some(prev) = self.step(start, -dc, -dr)
            && self.mark_at(prev) == Some(mark)
        {
            start = prev;
        }
        let mut run = vec![start];
        let mut end = start;
        while let Some(next) = self.step(end, dc, dr)
            && self.mark_at(next) == Some(mark)
        {
            run.push(next);
            end = next;
        }
        run
    }

    /// Every winning run through the stone on `at`, in axis order.
    fn winning_lines(&self, at: Square) -> Vec<Vec<Square>> {
        let Some(mark) = self.mark_at(at) else {
            return Vec::new();
        };
        AXES.iter()
            .map(|&axis| self.run_through(at, mark, axis))
            .filter(|run| self.variant.wins_with(run.len()))
            .collect()
    }

    fn check(&self, seat: Seat, at: Square) -> Result<(Mark, usize), RuleError> {
        if self.outcome.is_some() {
            return Err(RuleError::new("game_over", "the game is already over"));
        }
        let Some(mark) = Mark::of_seat(seat).filter(|_| self.to_move() == Some(seat)) else {
            return Err(RuleError::new("not_your_turn", "it is not your turn"));
        };
        let Some(index) = self.index(at) else {
            return Err(RuleError::new(
                "off_board",
                format!("{at} is not on the {size} × {size} board", size = self.size),
            ));
        };
        if self.cells[index].is_some() {
            return Err(RuleError::new("occupied", format!("{at} is already taken")));
        }
        if self.moves.is_empty() && self.opening == Opening::Center && at != self.centre() {
            return Err(RuleError::new(
                "centre_opening",
                format!("the first move must be on the centre square {}", self.centre()),
            ));
        }
        Ok((mark, index))
    }
}

fn lines_detail(lines: &[Vec<Square>]) -> Value {
    let lines = lines
        .iter()
        .map(|line| Value::Array(line.iter().map(|square| Value::String(square.to_string())).collect()))
        .collect();
    let mut detail = Map::new();
    detail.insert("lines".to_owned(), Value::Array(lines));
    Value::Object(detail)
}

impl Rules for Gomoku {
    type Settings = GomokuSettings;
    type Move = GomokuMove;
    type View = GomokuView;

    /// Two bytes: the column and the row.
    fn pack(mv: &GomokuMove, out: &mut Vec<u8>) {
        out.extend_from_slice(&[mv.at.col(), mv.at.row()]);
    }

    fn unpack(bytes: &[u8]) -> Option<GomokuMove> {
        match *bytes {
            [col, row] => Square::new(col, row).map(|at| GomokuMove { at }),
            _ => None,
        }
    }

    fn read_settings(reader: &mut SettingsReader) -> Result<GomokuSettings, SettingError> {
        let variant = match reader.take_choice("variant", Variant::NAMES)? {
            "exact5" => Variant::Exact5,
            _ => Variant::Free,
        };
        let board_size = reader.take_int_choice("board_size", &[15, 19])?;
        let board_size =
            u8::try_from(board_size).map_err(|_| SettingError::new("settings.board_size", "must be one of 15, 19"))?;
        let opening = match reader.take_choice("opening", Opening::NAMES)? {
            "free" => Opening::Free,
            _ => Opening::Center,
        };
        Ok(GomokuSettings {
            variant,
            board_size,
            opening,
        })
    }

    fn seat_roles(_settings: &GomokuSettings) -> &'static [&'static str] {
        &["X", "O"]
    }

    fn new(settings: &GomokuSettings) -> Gomoku {
        let size = settings.board_size.clamp(1, MAX_SIZE);
        Gomoku {
            variant: settings.variant,
            opening: settings.opening,
            size,
            cells: vec![None; usize::from(size) * usize::from(size)],
            moves: Vec::new(),
            lines: Vec::new(),
            outcome: None,
        }
    }

    fn active_seats(&self) -> SeatSet {
        self.to_move().map_or(SeatSet::EMPTY, SeatSet::only)
    }

    fn play(&mut self, seat: Seat, mv: &GomokuMove) -> Result<Played, RuleError> {
        let (mark, index) = self.check(seat, mv.at)?;
        self.cells[index] = Some(mark);
        // A table plays each move on a clone (whose list is exactly full) and keeps it:
        // grown by one, not doubled, the kept game holds no room for moves to come.
        self.moves.reserve_exact(1);
        self.moves.push(mv.at);
        let lines = self.winning_lines(mv.at);
        if !lines.is_empty() {
            let mut outcome = Outcome::win(vec![mark.seat()], EndReason::FiveInARow);
            outcome.detail = lines_detail(&lines);
            self.outcome = Some(outcome);
            self.lines = lines;
        } else if self.moves.len() == self.cells.len() {
            self.outcome = Some(Outcome::draw(EndReason::BoardFull));
        }
        Ok(Played { turn_over: true })
    }

    fn finish(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self) -> GomokuView {
        let size = usize::from(self.size);
        let board = self
            .cells
            .chunks(size.max(1))
            .rev()
            .map(|row| row.iter().map(|cell| cell.map_or('.', Mark::symbol)).collect())
            .collect();
        GomokuView {
            size: self.size,
            board,
            to_move: self.to_move().and_then(Mark::of_seat).map(Mark::role),
            last_move: self.moves.last().copied(),
            move_count: self.moves.len(),
            lines: self.lines.clone(),
        }
    }

    /// Written from the cells, without the view's row strings (a `moved` event's largest
    /// part); the same text as the view's JSON (tested).
    fn view_text(&self) -> Box<serde_json::value::RawValue> {
        #[derive(Serialize)]
        struct ViewText<'a> {
            size: u8,
            board: Rows<'a>,
            to_move: Option<&'static str>,
            last_move: Option<Square>,
            move_count: usize,
            lines: &'a [Vec<Square>],
        }
        super::json_text(&ViewText {
            size: self.size,
            board: Rows {
                cells: &self.cells,
                size: usize::from(self.size),
            },
            to_move: self.to_move().and_then(Mark::of_seat).map(Mark::role),
            last_move: self.moves.last().copied(),
            move_count: self.moves.len(),
            lines: &self.lines,
        })
    }

    fn move_text(&self, _seat: Seat, mv: &GomokuMove) -> String {
        mv.at.to_string()
    }

    fn legal_moves(&self, seat: Seat) -> Vec<GomokuMove> {
        if self.to_move() != Some(seat) {
            return Vec::new();
        }
        if self.moves.is_empty() && self.opening == Opening::Center {
            return vec![GomokuMove { at: self.centre() }];
        }
        (0..self.size)
            .flat_map(|row| (0..self.size).map(move |col| Square { col, row }))
            .filter(|&at| self.mark_at(at).is_none())
            .map(|at| GomokuMove { at })
            .collect()
    }
}
