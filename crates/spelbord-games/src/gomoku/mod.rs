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

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::text::{ParseSquareError, letter_and_row, serde_as_string};
use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};

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

/// A square in the notation of the module doc (`H8`): a column `A`–`Z` and a row 1–99.
///
/// Any value of this type can be written; whether it lies on the board is the game's
/// business. Serialised as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// 0 for column `A`.
    col: u8,
    /// 0 for row `1` (the bottom row).
    row: u8,
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

/// The public state of a game.
///
/// `board` has one string per row, **top row first**: `board[0]` is row N (the top) and
/// `board[N - 1]` is row 1. Each string has N characters, column `A` first, each `X`, `O`
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
struct Rows<'a> {
    cells: &'a [Option<Mark>],
    size: usize,
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    // ---------------------------------------------------------------- helpers

    fn sq(text: &str) -> Square {
        text.parse()
            .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
    }

    fn mv(text: &str) -> GomokuMove {
        GomokuMove { at: sq(text) }
    }

    fn game(variant: Variant, board_size: u8, opening: Opening) -> Gomoku {
        Gomoku::new(&GomokuSettings {
            variant,
            board_size,
            opening,
        })
    }

    fn free15() -> Gomoku {
        game(Variant::Free, 15, Opening::Free)
    }

    fn exact15() -> Gomoku {
        game(Variant::Exact5, 15, Opening::Free)
    }

    fn rule(result: Result<Played, RuleError>) -> &'static str {
        match result {
            Ok(played) => panic!("expected a refusal, got {played:?}"),
            Err(err) => err.rule,
        }
    }

    /// Plays X's and O's stones alternately (X first), asserting that the game is still
    /// running afterwards.
    fn setup(game: &mut Gomoku, xs: &[&str], os: &[&str]) {
        assert!(xs.len() == os.len() || xs.len() == os.len() + 1, "X moves first");
        for (i, x) in xs.iter().enumerate() {
            game.play(0, &mv(x)).unwrap_or_else(|err| panic!("X {x}: {err}"));
            if let Some(o) = os.get(i) {
                game.play(1, &mv(o)).unwrap_or_else(|err| panic!("O {o}: {err}"));
            }
        }
        assert_eq!(game.outcome(), None, "the setup must not end the game");
    }

    fn win(seat: Seat, lines: &[&[&str]]) -> Outcome {
        let mut outcome = Outcome::win(vec![seat], EndReason::FiveInARow);
        outcome.detail = json!({ "lines": lines });
        outcome
    }

    fn view_json(game: &Gomoku) -> Value {
        serde_json::to_value(game.view()).expect("views serialise")
    }

    /// Filler stones for the side not under test: the odd columns of row 1 and row 3, far
    /// from everything and never five in a row.
    const FILLER: [&str; 16] = [
        "A1", "C1", "E1", "G1", "I1", "K1", "M1", "O1", "A3", "C3", "E3", "G3", "I3", "K3", "M3", "O3",
    ];

    // ------------------------------------------- independent brute-force line finder

    /// A board as rows of characters, `grid[row][col]`, row 0 at the bottom.
    type Grid = Vec<Vec<char>>;

    fn grid_of(game: &Gomoku) -> Grid {
        // Built from the view, top row first, so the finder shares no code with the rules.
        game.view()
            .board
            .iter()
            .rev()
            .map(|row| row.chars().collect())
            .collect()
    }

    /// Every straight line of the board as lists of (col, row): rows, columns, rising and
    /// falling diagonals, each by increasing column (columns by increasing row).
    fn all_board_lines(n: usize) -> Vec<Vec<(usize, usize)>> {
        let mut lines = Vec::new();
        for r in 0..n {
            lines.push((0..n).map(|c| (c, r)).collect());
        }
        for c in 0..n {
            lines.push((0..n).map(|r| (c, r)).collect());
        }
        let n = n as isize;
        for d in -(n - 1)..n {
            // rising: row = col - d
            lines.push(
                (0..n)
                    .filter(|c| (0..n).contains(&(c - d)))
                    .map(|c| (c as usize, (c - d) as usize))
                    .collect(),
            );
        }
        for s in 0..(2 * n - 1) {
            // falling: row = s - col
            lines.push(
                (0..n)
                    .filter(|c| (0..n).contains(&(s - c)))
                    .map(|c| (c as usize, (s - c) as usize))
                    .collect(),
            );
        }
        lines
    }

    /// Every maximal run of one symbol whose length satisfies `wins`, as square names.
    fn brute_force_runs(grid: &Grid, wins: impl Fn(usize) -> bool) -> Vec<(char, Vec<String>)> {
        let name = |(c, r): (usize, usize)| format!("{}{}", (b'A' + c as u8) as char, r + 1);
        let mut found = Vec::new();
        for line in all_board_lines(grid.len()) {
            let mut i = 0;
            while i < line.len() {
                let (c, r) = line[i];
                let symbol = grid[r][c];
                let mut j = i;
                while j < line.len() && grid[line[j].1][line[j].0] == symbol {
                    j += 1;
                }
                if symbol != '.' && wins(j - i) {
                    found.push((symbol, line[i..j].iter().copied().map(name).collect()));
                }
                i = j;
            }
        }
        found
    }

    fn five_or_more(len: usize) -> bool {
        len >= 5
    }

    fn criterion(variant: Variant) -> fn(usize) -> bool {
        match variant {
            Variant::Free => five_or_more,
            Variant::Exact5 => |len| len == 5,
        }
    }

    /// A full 15 × 15 board without any run of three: `X` where `(col + 2 row) mod 4 < 2`.
    /// Along a row the pattern is XXOO…, along a column XOXO…, and along both diagonals
    /// XXOO… again, so no run is longer than two.
    fn no_line_fill(n: usize) -> Grid {
        (0..n)
            .map(|r| (0..n).map(|c| if (c + 2 * r) % 4 < 2 { 'X' } else { 'O' }).collect())
            .collect()
    }

    fn squares_of(grid: &Grid, symbol: char) -> Vec<String> {
        let mut out = Vec::new();
        for (r, row) in grid.iter().enumerate() {
            for (c, &cell) in row.iter().enumerate() {
                if cell == symbol {
                    out.push(format!("{}{}", (b'A' + c as u8) as char, r + 1));
                }
            }
        }
        out
    }

    fn count(grid: &Grid, symbol: char) -> usize {
        grid.iter().flatten().filter(|&&cell| cell == symbol).count()
    }

    /// Plays a whole board: X's squares and O's squares alternately, `last` (an X square)
    /// as the very last move. Asserts that no move before the last ends the game.
    fn play_out(game: &mut Gomoku, grid: &Grid, first: &str, last: &str) {
        let mut xs: Vec<String> = squares_of(grid, 'X');
        let os = squares_of(grid, 'O');
        assert_eq!(xs.len(), os.len() + 1, "X must have one stone more than O");
        assert!(xs.iter().any(|s| s == first) && xs.iter().any(|s| s == last));
        xs.retain(|s| s != first && s != last);
        xs.insert(0, first.to_owned());
        xs.push(last.to_owned());
        for (i, x) in xs.iter().enumerate() {
            assert_eq!(game.outcome(), None, "the game ended before move {}", 2 * i + 1);
            game.play(0, &mv(x)).unwrap_or_else(|err| panic!("X {x}: {err}"));
            if let Some(o) = os.get(i) {
                assert_eq!(game.outcome(), None, "the game ended before move {}", 2 * i + 2);
                game.play(1, &mv(o)).unwrap_or_else(|err| panic!("O {o}: {err}"));
            }
        }
    }

    #[test]
    fn brute_force_finder_finds_what_it_should() {
        let mut grid = vec![vec!['.'; 15]; 15];
        grid[7][3..8].fill('X'); // D8..H8
        for i in 0..6 {
            grid[14 - i][i] = 'O'; // A15..F10, falling, six long
        }
        let runs = brute_force_runs(&grid, five_or_more);
        assert_eq!(
            runs,
            vec![
                ('X', ["D8", "E8", "F8", "G8", "H8"].map(String::from).to_vec()),
                (
                    'O',
                    ["A15", "B14", "C13", "D12", "E11", "F10"].map(String::from).to_vec()
                ),
            ]
        );
        assert_eq!(brute_force_runs(&grid, |len| len == 5).len(), 1);
        // Lines of the 15 board: 15 rows, 15 columns, 29 + 29 diagonals.
        assert_eq!(all_board_lines(15).len(), 88);
    }

    // ---------------------------------------------------------------- settings

    #[test]
    fn settings_default_and_wire_form() {
        let settings = GomokuSettings::default();
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"variant": "free", "board_size": 15, "opening": "center"})
        );
        let mut empty = SettingsReader::of(json!({}));
        assert_eq!(Gomoku::read_settings(&mut empty), Ok(settings));
        assert_eq!(Gomoku::seat_roles(&GomokuSettings::default()), &["X", "O"]);
        assert_eq!(Gomoku::team_of(1), 1);
    }

    #[test]
    fn settings_read_every_choice_and_refuse_others() {
        let mut r = SettingsReader::of(json!({"variant": "exact5", "board_size": 19, "opening": "free", "x": 1}));
        let settings = Gomoku::read_settings(&mut r).unwrap();
        assert_eq!(
            settings,
            GomokuSettings {
                variant: Variant::Exact5,
                board_size: 19,
                opening: Opening::Free
            }
        );
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"variant": "exact5", "board_size": 19, "opening": "free"})
        );
        assert_eq!(r.finish().unwrap_err().field, "settings.x");

        for (bad, field) in [
            (json!({"variant": "renju"}), "settings.variant"),
            (json!({"board_size": 17}), "settings.board_size"),
            (json!({"opening": "centre"}), "settings.opening"),
        ] {
            let err = Gomoku::read_settings(&mut SettingsReader::of(bad)).unwrap_err();
            assert_eq!(err.field, field);
        }
    }

    // ---------------------------------------------------------------- notation

    #[test]
    fn squares_parse_and_print() {
        assert_eq!(sq("A1"), Square::new(0, 0).unwrap());
        assert_eq!(sq("H8"), Square::new(7, 7).unwrap());
        assert_eq!(sq("o15"), Square::new(14, 14).unwrap());
        assert_eq!(sq("Z99"), Square::new(25, 98).unwrap());
        assert_eq!(sq("s19").to_string(), "S19");
        assert_eq!(Square::new(26, 0), None);
        assert_eq!(Square::new(0, 99), None);
        assert_eq!(Square::centre(15).to_string(), "H8");
        assert_eq!(Square::centre(19).to_string(), "J10");
    }

    #[test]
    fn moves_decode_and_encode() {
        let decoded: GomokuMove = serde_json::from_value(json!({"at": "h8"})).unwrap();
        assert_eq!(decoded, mv("H8"));
        assert_eq!(serde_json::to_value(decoded).unwrap(), json!({"at": "H8"}));
        let far: GomokuMove = serde_json::from_value(json!({"at": "Z99"})).unwrap();
        assert_eq!(far.at.to_string(), "Z99");
    }

    #[test]
    fn malformed_coordinate_refused_at_decode() {
        for bad in [
            "", "H0", "8H", "HH8", "H08", "H", "H100", "H-1", "H+8", " H8", "H8 ", "H 8", "Ä8", "H8.0", "8", "@1",
        ] {
            let err = serde_json::from_value::<GomokuMove>(json!({ "at": bad }))
                .expect_err(&format!("{bad:?} must be refused"));
            let message = err.to_string();
            assert!(message.contains("invalid square"), "{bad:?}: {message}");
            assert!(message.contains("like \"H8\""), "{bad:?}: {message}");
        }
        for bad in [
            json!({"at": 8}),
            json!({"at": null}),
            json!({"at": ["H", 8]}),
            json!({}),
            json!({"at": "H8", "mark": "X"}),
            json!("H8"),
        ] {
            assert!(serde_json::from_value::<GomokuMove>(bad.clone()).is_err(), "{bad}");
        }
        let long = "H".repeat(1000);
        let message = long.parse::<Square>().unwrap_err().to_string();
        assert!(message.len() < 200, "long input is not echoed whole: {message}");
    }

    // ---------------------------------------------------------------- refusals

    #[test]
    fn centre_opening_enforced() {
        let mut g = Gomoku::new(&GomokuSettings::default());
        assert_eq!(g.legal_moves(0), vec![mv("H8")]);
        let before = g.clone();
        assert_eq!(rule(g.play(0, &mv("A1"))), "centre_opening");
        assert_eq!(rule(g.play(0, &mv("H9"))), "centre_opening");
        assert_eq!(g, before);
        g.play(0, &mv("H8")).unwrap();
        // Only the first move is constrained.
        g.play(1, &mv("A1")).unwrap();
        g.play(0, &mv("O15")).unwrap();

        let mut big = game(Variant::Free, 19, Opening::Center);
        assert_eq!(big.legal_moves(0), vec![mv("J10")]);
        assert_eq!(rule(big.play(0, &mv("K10"))), "centre_opening");
        big.play(0, &mv("J10")).unwrap();
    }

    #[test]
    fn free_opening_allows_any_square() {
        for first in ["A1", "O15", "H8", "C12"] {
            let mut g = free15();
            g.play(0, &mv(first)).unwrap();
            assert_eq!(g.moves(), &[sq(first)]);
        }
        assert_eq!(free15().legal_moves(0).len(), 225);
    }

    #[test]
    fn occupied_refused_without_consuming_turn() {
        let mut g = free15();
        g.play(0, &mv("H8")).unwrap();
        let before = g.clone();
        let err = g.play(1, &mv("H8")).unwrap_err();
        assert_eq!(err.rule, "occupied");
        assert!(err.message.contains("H8"), "{}", err.message);
        assert_eq!(g, before);
        assert_eq!(g.active_seats(), SeatSet::only(1));
        // O still has the turn and may play elsewhere.
        g.play(1, &mv("H9")).unwrap();
        assert_eq!(rule(g.play(0, &mv("h9"))), "occupied");
    }

    #[test]
    fn off_board_refused() {
        let mut g = free15();
        let before = g.clone();
        for off in ["P8", "H16", "Z1", "A99", "P16"] {
            assert_eq!(rule(g.play(0, &mv(off))), "off_board", "{off}");
        }
        assert_eq!(g, before);
        g.play(0, &mv("O15")).unwrap();

        let mut big = game(Variant::Free, 19, Opening::Free);
        assert_eq!(rule(big.play(0, &mv("T1"))), "off_board");
        assert_eq!(rule(big.play(0, &mv("A20"))), "off_board");
        big.play(0, &mv("S19")).unwrap();
        // The centre opening does not hide an off-board square.
        let mut centre = Gomoku::new(&GomokuSettings::default());
        assert_eq!(rule(centre.play(0, &mv("P8"))), "off_board");
    }

    #[test]
    fn not_your_turn() {
        let mut g = free15();
        let before = g.clone();
        assert_eq!(rule(g.play(1, &mv("H8"))), "not_your_turn");
        assert_eq!(rule(g.play(2, &mv("H8"))), "not_your_turn");
        assert_eq!(rule(g.play(255, &mv("H8"))), "not_your_turn");
        assert_eq!(g, before);
        g.play(0, &mv("H8")).unwrap();
        assert_eq!(rule(g.play(0, &mv("H9"))), "not_your_turn");
        assert!(g.legal_moves(0).is_empty());
        assert_eq!(g.legal_moves(1).len(), 224);
    }

    #[test]
    fn game_over_refused() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8"], &["D1", "E1", "F1", "G1"]);
        g.play(0, &mv("H8")).unwrap();
        let before = g.clone();
        assert_eq!(rule(g.play(1, &mv("H1"))), "game_over");
        assert_eq!(rule(g.play(0, &mv("H1"))), "game_over");
        assert_eq!(g, before);
        assert!(g.active_seats().is_empty());
        assert!(g.legal_moves(0).is_empty() && g.legal_moves(1).is_empty());
        assert_eq!(g.view().to_move, None);
    }

    #[test]
    fn refusals_are_checked_in_order() {
        // not_your_turn before off_board and centre_opening.
        let mut g = Gomoku::new(&GomokuSettings::default());
        assert_eq!(rule(g.play(1, &mv("Z99"))), "not_your_turn");
        // off_board before centre_opening.
        assert_eq!(rule(g.play(0, &mv("Z99"))), "off_board");
        g.play(0, &mv("H8")).unwrap();
        // not_your_turn before occupied.
        assert_eq!(rule(g.play(0, &mv("H8"))), "not_your_turn");
        // game_over before everything.
        g.finish(Outcome::win(vec![0], EndReason::Resignation));
        assert_eq!(rule(g.play(0, &mv("Z99"))), "game_over");
        assert_eq!(rule(g.play(1, &mv("H8"))), "game_over");
    }

    // ---------------------------------------------------------------- wins

    #[test]
    fn horizontal_win() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "G8", "H8"], &FILLER[..4]);
        let played = g.play(0, &mv("F8")).unwrap();
        assert!(played.turn_over);
        assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8"]])));
        assert_eq!(g.outcome().unwrap().reason.as_str(), "five_in_a_row");
    }

    #[test]
    fn vertical_win() {
        let mut g = free15();
        setup(&mut g, &["C2", "A2", "C4", "E2", "C6"], &["B11", "B12", "B13", "B14"]);
        g.play(1, &mv("B15")).unwrap();
        assert_eq!(g.outcome(), Some(&win(1, &[&["B11", "B12", "B13", "B14", "B15"]])));
    }

    #[test]
    fn rising_diagonal_win() {
        let mut g = free15();
        setup(&mut g, &["K11", "L12", "N14", "O15"], &FILLER[..4]);
        g.play(0, &mv("M13")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["K11", "L12", "M13", "N14", "O15"]])));
    }

    #[test]
    fn falling_diagonal_win() {
        let mut g = free15();
        setup(&mut g, &["A1", "C1", "E1", "G1", "I1"], &["K15", "L14", "N12", "O11"]);
        g.play(1, &mv("M13")).unwrap();
        assert_eq!(g.outcome(), Some(&win(1, &[&["K15", "L14", "M13", "N12", "O11"]])));
    }

    #[test]
    fn overline_wins_in_free() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "H8", "I8"], &FILLER[..5]);
        g.play(0, &mv("G8")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8", "I8"]])));
        assert_eq!(
            g.view().lines,
            vec![["D8", "E8", "F8", "G8", "H8", "I8"].map(sq).to_vec()]
        );
    }

    #[test]
    fn exact5_overline_is_no_win_and_the_game_continues() {
        let mut g = exact15();
        setup(&mut g, &["D8", "E8", "F8", "H8", "I8"], &FILLER[..5]);
        g.play(0, &mv("G8")).unwrap();
        assert_eq!(g.outcome(), None);
        assert_eq!(g.active_seats(), SeatSet::only(1));
        assert!(g.view().lines.is_empty());
        g.play(1, &mv("A15")).unwrap();
        g.play(0, &mv("A14")).unwrap();
        // A seven is no win either.
        let mut g = exact15();
        setup(&mut g, &["A5", "B5", "C5", "E5", "F5", "G5"], &FILLER[..6]);
        g.play(0, &mv("D5")).unwrap();
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn exact5_plain_five_wins() {
        let mut g = exact15();
        setup(&mut g, &["K4", "K5", "K7", "K8"], &["A8", "B8", "C8", "D8"]);
        g.play(0, &mv("K6")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["K4", "K5", "K6", "K7", "K8"]])));
    }

    #[test]
    fn exact5_six_on_one_axis_and_exact_five_on_another_wins() {
        let mut g = exact15();
        // Horizontal: D8 E8 F8 _ H8 I8 makes six with G8; vertical G4 G5 G6 G7 _ makes five.
        setup(
            &mut g,
            &["D8", "E8", "F8", "H8", "I8", "G4", "G5", "G6", "G7"],
            &FILLER[..9],
        );
        g.play(0, &mv("G8")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["G4", "G5", "G6", "G7", "G8"]])));
        assert_eq!(g.view().lines, vec![["G4", "G5", "G6", "G7", "G8"].map(sq).to_vec()]);
    }

    #[test]
    fn several_lines_at_once_all_reported() {
        // Two lines: a horizontal and a vertical meeting at H8.
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8", "H4", "H5", "H6", "H7"], &FILLER[..8]);
        g.play(0, &mv("H8")).unwrap();
        assert_eq!(
            g.outcome(),
            Some(&win(
                0,
                &[&["D8", "E8", "F8", "G8", "H8"], &["H4", "H5", "H6", "H7", "H8"]]
            ))
        );

        // All four axes through H8 at once.
        let xs = [
            "F8", "G8", "I8", "J8", "H6", "H7", "H9", "H10", "F6", "G7", "I9", "J10", "F10", "G9", "I7", "J6",
        ];
        for variant in [Variant::Free, Variant::Exact5] {
            let mut g = game(variant, 15, Opening::Free);
            setup(&mut g, &xs, &FILLER);
            g.play(0, &mv("H8")).unwrap();
            let expected = win(
                0,
                &[
                    &["F8", "G8", "H8", "I8", "J8"],
                    &["H6", "H7", "H8", "H9", "H10"],
                    &["F6", "G7", "H8", "I9", "J10"],
                    &["F10", "G9", "H8", "I7", "J6"],
                ],
            );
            assert_eq!(g.outcome(), Some(&expected), "{variant:?}");
            assert_eq!(g.view().lines.len(), 4);
        }
    }

    #[test]
    fn gap_breaks_a_line() {
        let mut g = free15();
        // Five X stones on row 8 with a hole at H8: no line.
        setup(&mut g, &["D8", "E8", "F8", "G8", "I8"], &FILLER[..5]);
        assert_eq!(g.outcome(), None);
        // Filling the hole joins them into six.
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8", "I8"], &FILLER[..5]);
        g.play(0, &mv("H8")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["D8", "E8", "F8", "G8", "H8", "I8"]])));
        // A diagonal with a hole is no line either.
        let mut g = free15();
        setup(&mut g, &["J10", "K11", "L12", "N14", "O15"], &FILLER[..5]);
        g.play(0, &mv("A15")).unwrap();
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn opponent_stone_breaks_a_line() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8"], &["H8", "A1", "A3", "A5"]);
        setup(&mut g, &["I8", "J8", "K8"], &["A7", "A9", "A11"]);
        g.play(0, &mv("L8")).unwrap();
        assert_eq!(g.outcome(), None);
        assert_eq!(g.active_seats(), SeatSet::only(1));
    }

    #[test]
    fn no_wrap_at_the_edge_15() {
        // L8..O8 and A9 are consecutive in row-major order but not a line.
        for last in ["O8", "A9"] {
            let mut g = free15();
            let xs: Vec<&str> = ["L8", "M8", "N8", "O8", "A9"]
                .into_iter()
                .filter(|&s| s != last)
                .collect();
            setup(&mut g, &xs, &FILLER[..4]);
            g.play(0, &mv(last)).unwrap();
            assert_eq!(g.outcome(), None, "last {last}");
        }
        // Rising diagonal off the right edge: one step up-right of O13 is A15 in row-major
        // order (index + 16), but L10 M11 N12 O13 A15 is no line.
        let mut g = free15();
        setup(&mut g, &["L10", "M11", "N12", "O13"], &FILLER[..4]);
        g.play(0, &mv("A15")).unwrap();
        assert_eq!(g.outcome(), None);
        // Falling diagonal off the right edge: one step down-right of O9 is A9 in
        // row-major order (index - 14), but L12 M11 N10 O9 A9 is no line.
        for last in ["O9", "A9"] {
            let mut g = free15();
            let xs: Vec<&str> = ["L12", "M11", "N10", "O9", "A9"]
                .into_iter()
                .filter(|&s| s != last)
                .collect();
            setup(&mut g, &xs, &FILLER[..4]);
            g.play(0, &mv(last)).unwrap();
            assert_eq!(g.outcome(), None, "last {last}");
        }
        // The edges themselves still hold lines: A11..A15 and K15..O15.
        let mut g = free15();
        setup(
            &mut g,
            &["A11", "A12", "A13", "A14", "K15", "L15", "N15", "O15"],
            &FILLER[..8],
        );
        g.play(0, &mv("M15")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["K15", "L15", "M15", "N15", "O15"]])));
    }

    #[test]
    fn no_wrap_at_the_edge_19() {
        for last in ["S10", "A11"] {
            let mut g = game(Variant::Free, 19, Opening::Free);
            let xs: Vec<&str> = ["P10", "Q10", "R10", "S10", "A11"]
                .into_iter()
                .filter(|&s| s != last)
                .collect();
            setup(&mut g, &xs, &FILLER[..4]);
            g.play(0, &mv(last)).unwrap();
            assert_eq!(g.outcome(), None, "last {last}");
        }
        // Rising: one step up-right of S15 is A17 in row-major order (index + 20).
        let mut g = game(Variant::Free, 19, Opening::Free);
        setup(&mut g, &["P12", "Q13", "R14", "S15"], &FILLER[..4]);
        g.play(0, &mv("A17")).unwrap();
        assert_eq!(g.outcome(), None);
        // Falling: one step down-right of S10 is A10 in row-major order (index - 18).
        let mut g = game(Variant::Free, 19, Opening::Free);
        setup(&mut g, &["P13", "Q12", "R11", "S10"], &FILLER[..4]);
        g.play(0, &mv("A10")).unwrap();
        assert_eq!(g.outcome(), None);
        // …while a real line along the far edge does win.
        let mut g = game(Variant::Free, 19, Opening::Free);
        setup(&mut g, &["S15", "S16", "S17", "S18"], &FILLER[..4]);
        g.play(0, &mv("S19")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &[&["S15", "S16", "S17", "S18", "S19"]])));
    }

    // ---------------------------------------------------------------- full board

    #[test]
    fn the_no_line_fill_is_verified_by_brute_force() {
        let grid = no_line_fill(15);
        assert_eq!(count(&grid, 'X'), 113);
        assert_eq!(count(&grid, 'O'), 112);
        assert!(brute_force_runs(&grid, |len| len >= 3).is_empty());
        assert_eq!(grid[7][7], 'X', "H8 is X's, so the centre opening can be used");
    }

    #[test]
    fn full_board_with_no_line_is_a_draw() {
        let grid = no_line_fill(15);
        assert!(brute_force_runs(&grid, five_or_more).is_empty());
        for variant in [Variant::Free, Variant::Exact5] {
            let mut g = game(variant, 15, Opening::Center);
            play_out(&mut g, &grid, "H8", "O14");
            assert_eq!(g.outcome(), Some(&Outcome::draw(EndReason::BoardFull)), "{variant:?}");
            assert!(g.active_seats().is_empty());
            assert!(g.view().lines.is_empty());
            assert_eq!(g.view().move_count, 225);
            assert_eq!(grid_of(&g), grid);
        }
    }

    #[test]
    fn last_square_win_beats_the_draw() {
        // Start from the no-line fill and make C8..G8 an X five with E8 played last.
        let mut grid = no_line_fill(15);
        // Row 8 is OOXXOOXXOOXXOOX: set C8..G8 to X and H8 (X) to O so it is exactly five.
        grid[7][2..7].fill('X');
        grid[7][7] = 'O';
        // That gave X one stone too many: hand A1 to O.
        assert_eq!(grid[0][0], 'X');
        grid[0][0] = 'O';
        assert_eq!((count(&grid, 'X'), count(&grid, 'O')), (113, 112));
        let line: Vec<String> = ["C8", "D8", "E8", "F8", "G8"].map(String::from).to_vec();
        assert_eq!(brute_force_runs(&grid, five_or_more), vec![('X', line)]);
        let mut before = grid.clone();
        before[7][4] = '.';
        assert!(brute_force_runs(&before, |len| len >= 5).is_empty());

        for variant in [Variant::Free, Variant::Exact5] {
            let mut g = game(variant, 15, Opening::Free);
            play_out(&mut g, &grid, "B1", "E8");
            assert_eq!(g.view().move_count, 225);
            assert_eq!(
                g.outcome(),
                Some(&win(0, &[&["C8", "D8", "E8", "F8", "G8"]])),
                "{variant:?}"
            );
        }
    }

    // ---------------------------------------------------------------- finish and view

    #[test]
    fn finish_after_the_end_is_ignored() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8"], &FILLER[..4]);
        g.play(0, &mv("H8")).unwrap();
        let won = g.outcome().cloned();
        g.finish(Outcome::win(vec![0], EndReason::Resignation));
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome().cloned(), won);
    }

    #[test]
    fn finish_before_the_end_ends_the_game() {
        let mut g = Gomoku::new(&GomokuSettings::default());
        g.play(0, &mv("H8")).unwrap();
        let resigned = Outcome::win(vec![0], EndReason::Resignation);
        g.finish(resigned.clone());
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome(), Some(&resigned));
        assert!(g.active_seats().is_empty());
        assert!(g.legal_moves(1).is_empty());
        assert_eq!(rule(g.play(1, &mv("A1"))), "game_over");
        let view = g.view();
        assert_eq!(view.to_move, None);
        assert!(view.lines.is_empty());
    }

    #[test]
    fn view_orientation_top_row_first() {
        let mut g = Gomoku::new(&GomokuSettings::default());
        assert_eq!(
            view_json(&g),
            json!({
                "size": 15,
                "board": vec![".".repeat(15); 15],
                "to_move": "X",
                "last_move": null,
                "move_count": 0,
                "lines": [],
            })
        );
        g.play(0, &mv("H8")).unwrap();
        g.play(1, &mv("A1")).unwrap();
        g.play(0, &mv("O15")).unwrap();
        g.play(1, &mv("B15")).unwrap();
        let view = g.view();
        assert_eq!(view.board[0], ".O............X", "board[0] is row 15, the top");
        assert_eq!(view.board[7], ".......X.......", "row 8 holds H8");
        assert_eq!(view.board[14], "O..............", "board[14] is row 1, the bottom");
        assert_eq!(view.board.len(), 15);
        assert!(view.board.iter().all(|row| row.len() == 15));
        let json = view_json(&g);
        assert_eq!(json["to_move"], "X");
        assert_eq!(json["last_move"], "B15");
        assert_eq!(json["move_count"], 4);
        assert_eq!(g.moves(), ["H8", "A1", "O15", "B15"].map(sq).as_slice());
        assert_eq!(g.active_seats(), SeatSet::only(0));
    }

    #[test]
    fn view_of_a_won_game_lists_the_lines() {
        let mut g = free15();
        setup(&mut g, &["D8", "E8", "F8", "G8"], &FILLER[..4]);
        g.play(0, &mv("H8")).unwrap();
        let json = view_json(&g);
        assert_eq!(json["lines"], json!([["D8", "E8", "F8", "G8", "H8"]]));
        assert_eq!(json["to_move"], Value::Null);
        assert_eq!(json["last_move"], "H8");
        assert_eq!(json["board"][7], "...XXXXX.......");
        assert_eq!(g.outcome().unwrap().detail, json!({"lines": json["lines"]}));
    }

    #[test]
    fn odd_sizes_are_clamped() {
        let tiny = game(Variant::Free, 0, Opening::Center);
        assert_eq!(tiny.size(), 1);
        let huge = game(Variant::Free, 200, Opening::Free);
        assert_eq!(huge.size(), 26);
        assert_eq!(huge.legal_moves(0).len(), 26 * 26);
        let mut one = tiny;
        one.play(0, &mv("A1")).unwrap();
        assert_eq!(one.outcome(), Some(&Outcome::draw(EndReason::BoardFull)));
    }

    #[test]
    fn through_any_game_json_edges() {
        use crate::games::{AnySettings, GameKind, MoveError};
        let mut r = SettingsReader::of(json!({"board_size": 19}));
        let settings = AnySettings::read(GameKind::Gomoku, &mut r).unwrap();
        assert_eq!(settings.seat_count(), 2);
        let mut table = settings.new_game();
        let (played, normalised) = table.play_json(0, &json!({"at": "j10"})).unwrap();
        assert!(played.turn_over);
        assert_eq!(normalised, json!({"at": "J10"}));
        match table.play_json(1, &json!({"at": "J010"})) {
            Err(MoveError::Malformed(bad)) => assert!(bad.detail.contains("invalid square")),
            other => panic!("expected a malformed move, got {other:?}"),
        }
        match table.play_json(1, &json!({"at": "J10"})) {
            Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "occupied"),
            other => panic!("expected an illegal move, got {other:?}"),
        }
        assert_eq!(table.view()["size"], 19);
        assert_eq!(table.view()["board"][9], ".........X.........");
        assert_eq!(table.legal_moves_json(1).len(), 360);
    }

    // ---------------------------------------------------------------- properties

    fn any_settings() -> impl Strategy<Value = GomokuSettings> {
        (
            prop_oneof![Just(Variant::Free), Just(Variant::Exact5)],
            prop_oneof![Just(15u8), Just(19u8)],
            prop_oneof![Just(Opening::Center), Just(Opening::Free)],
        )
            .prop_map(|(variant, board_size, opening)| GomokuSettings {
                variant,
                board_size,
                opening,
            })
    }

    /// One step of a random game: a legal move (`near` keeps it within three squares of
    /// the centre when possible, so lines actually happen), or an attempt by any seat on
    /// any square, legal or not.
    #[derive(Debug, Clone)]
    enum Step {
        Legal { pick: usize, near: bool },
        Attempt { seat: Seat, col: u8, row: u8 },
    }

    fn any_step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, near)| Step::Legal { pick, near }),
            1 => (0u8..3, 0u8..22, 0u8..22).prop_map(|(seat, col, row)| Step::Attempt { seat, col, row }),
        ]
    }

    fn pick_legal(g: &Gomoku, pick: usize, near: bool) -> Option<(Seat, GomokuMove)> {
        let seat = g.to_move()?;
        let all = g.legal_moves(seat);
        let centre = g.centre();
        let close: Vec<GomokuMove> = all
            .iter()
            .copied()
            .filter(|m| m.at.col().abs_diff(centre.col()) <= 3 && m.at.row().abs_diff(centre.row()) <= 3)
            .collect();
        let from = if near && !close.is_empty() { close } else { all };
        (!from.is_empty()).then(|| (seat, from[pick % from.len()]))
    }

    /// Checks the state after a legal move against the brute-force finder.
    fn check_after_move(g: &Gomoku, variant: Variant) -> Result<(), TestCaseError> {
        let grid = grid_of(g);
        let runs = brute_force_runs(&grid, criterion(variant));
        let won = matches!(g.outcome(), Some(o) if o.reason == EndReason::FiveInARow);
        prop_assert_eq!(won, !runs.is_empty(), "won {} but brute force found {:?}", won, runs);

        let last = g.moves().last().copied().map(|s| s.to_string());
        let mut through_last: Vec<Vec<String>> = runs
            .iter()
            .filter(|(_, squares)| last.as_ref().is_some_and(|l| squares.contains(l)))
            .map(|(_, squares)| squares.clone())
            .collect();
        // Since the game stops at the first win, every qualifying run goes through the
        // last stone.
        prop_assert_eq!(through_last.len(), runs.len());
        let mut reported: Vec<Vec<String>> = g
            .lines()
            .iter()
            .map(|line| line.iter().map(Square::to_string).collect())
            .collect();
        through_last.sort();
        reported.sort();
        prop_assert_eq!(&reported, &through_last);

        if let Some(outcome) = g.outcome() {
            match outcome.reason {
                EndReason::FiveInARow => {
                    let mover = u8::try_from((g.moves().len() + 1) % 2).unwrap();
                    prop_assert_eq!(outcome.winners(), &[mover]);
                    let detail = json!({ "lines": serde_json::to_value(g.lines()).unwrap() });
                    prop_assert_eq!(&outcome.detail, &detail);
                }
                EndReason::BoardFull => {
                    prop_assert_eq!(g.moves().len(), usize::from(g.size()).pow(2));
                    prop_assert_eq!(outcome.kind(), "draw");
                }
                other => prop_assert!(false, "unexpected end {:?}", other),
            }
        } else {
            prop_assert!(g.moves().len() < usize::from(g.size()).pow(2));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random play never panics, a move is accepted exactly when `legal_moves` lists it,
        /// and a refused move changes nothing (the view's JSON included).
        #[test]
        fn refused_moves_change_nothing(
            settings in any_settings(),
            steps in prop::collection::vec(any_step(), 0..400),
        ) {
            let mut g = Gomoku::new(&settings);
            for step in steps {
                let (seat, attempt) = match step {
                    Step::Legal { pick, near } => match pick_legal(&g, pick, near) {
                        Some(found) => found,
                        None => (0, GomokuMove { at: g.centre() }),
                    },
                    Step::Attempt { seat, col, row } => {
                        let Some(at) = Square::new(col, row) else { continue };
                        (seat, GomokuMove { at })
                    }
                };
                let listed = g.legal_moves(seat).contains(&attempt);
                let before = g.clone();
                let view_before = view_json(&g);
                match g.play(seat, &attempt) {
                    Ok(played) => {
                        prop_assert!(listed, "{:?} by {} was accepted but not listed", attempt, seat);
                        prop_assert!(played.turn_over);
                        prop_assert_eq!(g.moves().last(), Some(&attempt.at));
                    }
                    Err(err) => {
                        prop_assert!(!listed, "{:?} by {} was listed but refused: {}", attempt, seat, err);
                        prop_assert_eq!(&g, &before);
                        prop_assert_eq!(view_json(&g), view_before);
                    }
                }
            }
        }

        /// After every move: the game is won by a line exactly when a brute-force scan of
        /// the whole board finds a qualifying run, and the reported lines are exactly the
        /// qualifying runs through the last stone. And the view's text, written from the
        /// cells, is the view's JSON.
        #[test]
        fn wins_match_brute_force(
            settings in any_settings(),
            picks in prop::collection::vec((any::<usize>(), any::<bool>()), 1..361),
        ) {
            let mut g = Gomoku::new(&settings);
            prop_assert_eq!(g.view_text().to_string(), crate::games::json_text(&g.view()).to_string());
            for (pick, near) in picks {
                let Some((seat, next)) = pick_legal(&g, pick, near) else { break };
                g.play(seat, &next).map_err(|err| TestCaseError::fail(err.to_string()))?;
                check_after_move(&g, settings.variant)?;
                prop_assert_eq!(g.view_text().to_string(), crate::games::json_text(&g.view()).to_string());
            }
        }

        /// Whole games to the end on a crowded 15 × 15 board: every game ends, by a line or
        /// by a full board, in agreement with the brute-force scan.
        #[test]
        fn games_played_to_the_end_agree_with_brute_force(
            variant in prop_oneof![Just(Variant::Free), Just(Variant::Exact5)],
            seed in any::<u64>(),
        ) {
            let mut g = game(variant, 15, Opening::Center);
            let mut state = seed | 1;
            while let Some(seat) = g.to_move() {
                // xorshift: cheap deterministic picks from the proptest seed.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pick = usize::try_from(state % 1_000_003).unwrap();
                let Some((_, next)) = pick_legal(&g, pick, state & 2 == 0) else { break };
                g.play(seat, &next).map_err(|err| TestCaseError::fail(err.to_string()))?;
                check_after_move(&g, variant)?;
            }
            prop_assert!(g.outcome().is_some());
        }

        /// Any string either parses to a square that prints back the same (upper-cased),
        /// or is refused with the notation's message.
        #[test]
        fn square_notation_round_trips(text in "[A-Za-z0-9@ ]{0,4}") {
            match text.parse::<Square>() {
                Ok(square) => prop_assert_eq!(square.to_string(), text.to_ascii_uppercase()),
                Err(err) => prop_assert!(err.to_string().contains("like \"H8\"")),
            }
        }
    }
}
