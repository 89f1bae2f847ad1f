//! Lines of Action (game id `lines-of-action`): settings, moves, a bitboard move generator,
//! the connection and repetition checks, the public view, a one-line position notation and
//! `perft`. The rules are those of `shared/rules/lines-of-action.md`; this module owns
//! everything that page leaves to the server.
//!
//! Decisions made here:
//! - **Seats.** Seat 0 plays black and moves first; seat 1 plays white. Roles
//!   `["black", "white"]`.
//! - **Board.** Two bitboards (`u64`), one per colour. Bit `8 * row + col` with row 0 = row
//!   `1` (the bottom) and col 0 = column `a`: `a1` is bit 0, `h1` bit 7, `a8` bit 56, `h8`
//!   bit 63. Per square and line (row, column, both diagonals) a precomputed mask gives the
//!   piece count of the line with one `popcount`; per square, direction and distance a
//!   precomputed target square and in-between mask make a move check a few table reads.
//! - **Squares.** A column letter `a`–`h` and a row digit `1`–`8`: `b1`. Upper-case letters
//!   are accepted on input; lower case is always emitted. Anything else (`""`, `i1`, `b9`,
//!   `b10`, `1b`) is refused when the move is decoded, before the rules see it.
//! - **Moves on the wire.** `{"from": "b1", "to": "b3"}` for a move (a capture is written the
//!   same way: landing on an opponent's piece captures it) and `{"pass": true}` for a pass.
//!   No other fields; `pass` may only be `true` and never comes with `from`/`to`; a move
//!   needs both `from` and `to`.
//! - **Pass.** A pass is legal only when the player has no other legal move, and must then
//!   be played explicitly: [`Rules::legal_moves`] returns exactly `[pass]` in that case. A
//!   pass is a recorded move: it counts in `move_count`, is the `last_move`, and takes part
//!   in repetition counting.
//! - **Refused moves.** Rule codes, checked in this order; the first that applies is
//!   reported: `game_over`, `not_your_turn` (including unknown seats), then for a pass
//!   `pass_not_allowed` (the player has a legal move), and for a move `no_piece` (no own
//!   piece on `from`), `not_a_line` (`to` is not on one of the eight directions from `from`,
//!   or is `from` itself), `wrong_distance` (the distance is not the number of pieces on the
//!   whole line), `blocked` (the move would jump an opponent's piece), `own_piece` (it would
//!   land on an own piece). A refused move changes nothing and does not consume the turn.
//! - **End of the game.** After every move (a pass included) both players' connectivity is
//!   checked (8-neighbourhood; a single piece is connected): only the mover connected → the
//!   mover wins ([`EndReason::Connected`]); only the opponent → the opponent wins
//!   ([`EndReason::Connected`]); both → a draw ([`EndReason::BothConnected`]) with setting
//!   `simultaneous: "draw"` (the default), or a mover's win ([`EndReason::Connected`]) with
//!   `simultaneous: "mover-wins"`. Outcome detail: `{"connected": [...]}` listing the
//!   connected roles in seat order (`["black"]`, `["white"]` or `["black", "white"]`).
//! - **Repetition.** Checked after the connection check: a position (both bitboards and the
//!   side to move) occurring for the third time since the start of the game (the start
//!   position counts as the first occurrence) is a draw, [`EndReason::Repetition`], detail
//!   `{"position": "<notation>"}`. Since a capture can never be undone, only the positions
//!   since the last capture are kept and compared; this gives the same counts.
//! - **Position notation.** One line: 64 characters for the rows `8` down to `1`, each row
//!   `a` to `h`, each `b` (black), `w` (white) or `.` (empty); then one space and the side to
//!   move, `b` or `w`. The start is
//!   `.bbbbbb.w......ww......ww......ww......ww......ww......w.bbbbbb. b`. On input the
//!   rows may also be separated by `/` (exactly eight rows of eight), and whitespace around
//!   the whole string and around the side letter is ignored; output is always the canonical
//!   66-character form. A position is refused (with [`PositionError`]) when it is malformed,
//!   when a side has no pieces or more than 12, or when a side's pieces already form one
//!   group (the game would be over; every position of a running game has neither side
//!   connected).
//! - **View.** See [`LoaView`]: `board` (8 strings, row 8 first, `b`/`w`/`.`), `to_move`
//!   (`"black"`/`"white"`, `null` once over), `last_move` (a move in its wire form, `null`
//!   before the first), `move_count`, `pieces` (`{"black": n, "white": n}`), `position` (the
//!   notation; its side letter names the side that would move next even once the game is
//!   over).
//! - **Perft.** [`perft`] counts the move sequences of length `depth` from a game's current
//!   state under these rules (a pass is a move; repetition counts the game's history): at
//!   depth 0 the count is 1, and a finished game has no moves, so it contributes 0 at any
//!   depth of 1 or more. At depth 1 every legal move counts 1, including one that ends the
//!   game.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::text::{ParseSquareError, serde_as_string, shorten};
use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};

/// The most pieces a side can have (the start).
pub const MAX_PIECES: u32 = 12;

// ---------------------------------------------------------------- sides and squares

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

    fn index(self) -> usize {
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
pub struct Square(u8);

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

    fn bit(self) -> u64 {
        1 << self.0
    }

    fn usize(self) -> usize {
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

/// `1 piece`, `2 pieces`.
fn plural(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

serde_as_string!(Square, "a square like \"b1\"");

// ---------------------------------------------------------------- moves

/// One move: a piece from `from` to `to` (capturing whatever opponent's piece is there), or
/// a pass. Wire form `{"from":"b1","to":"b3"}` or `{"pass":true}` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "MoveWire", into = "MoveWire")]
pub enum LoaMove {
    Step { from: Square, to: Square },
    Pass,
}

impl LoaMove {
    /// A move from `from` to `to` (not checked).
    pub fn step(from: Square, to: Square) -> LoaMove {
        LoaMove::Step { from, to }
    }
}

impl fmt::Display for LoaMove {
    /// `b1-b3`, or `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoaMove::Step { from, to } => write!(f, "{from}-{to}"),
            LoaMove::Pass => f.write_str("pass"),
        }
    }
}

/// The wire shape of a [`LoaMove`], checked by `TryFrom`.
#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a move like {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"
)]
struct MoveWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<Square>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<Square>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pass: Option<bool>,
}

impl TryFrom<MoveWire> for LoaMove {
    type Error = &'static str;

    fn try_from(wire: MoveWire) -> Result<LoaMove, &'static str> {
        match (wire.from, wire.to, wire.pass) {
            (Some(from), Some(to), None) => Ok(LoaMove::Step { from, to }),
            (None, None, Some(true)) => Ok(LoaMove::Pass),
            (_, _, Some(false)) => Err("`pass` may only be true; a move is {\"from\": \"b1\", \"to\": \"b3\"}"),
            (Some(_), _, Some(true)) | (_, Some(_), Some(true)) => Err("a pass has no `from` or `to`"),
            (Some(_), None, None) => Err("the move has no `to`"),
            (None, Some(_), None) => Err("the move has no `from`"),
            (None, None, None) => Err("expected {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"),
        }
    }
}

impl From<LoaMove> for MoveWire {
    fn from(mv: LoaMove) -> MoveWire {
        match mv {
            LoaMove::Step { from, to } => MoveWire {
                from: Some(from),
                to: Some(to),
                pass: None,
            },
            LoaMove::Pass => MoveWire {
                from: None,
                to: None,
                pass: Some(true),
            },
        }
    }
}

// ---------------------------------------------------------------- precomputed tables

/// The eight directions as `(columns, rows)`. Direction `d` and `d + 4` are opposite and
/// share the line `d % 4`: 0 row, 1 column, 2 rising diagonal (`a1`–`h8`), 3 falling
/// diagonal (`a8`–`h1`).
const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

/// The name of each line, for messages.
const LINE_NAMES: [&str; 4] = ["row", "column", "diagonal", "diagonal"];

/// "Off the board" in [`Tables::target`].
const OFF: u8 = 64;

struct Tables {
    /// Every square of each line through a square, the square itself included.
    lines: [[u64; 4]; 64],
    /// The square `n` steps from a square in a direction, [`OFF`] when off the board.
    target: [[[u8; 9]; 8]; 64],
    /// The squares strictly between a square and its target `n` steps away.
    between: [[[u64; 9]; 8]; 64],
}

const fn build_tables() -> Tables {
    let mut tables = Tables {
        lines: [[0; 4]; 64],
        target: [[[OFF; 9]; 8]; 64],
        between: [[[0; 9]; 8]; 64],
    };
    let mut square = 0;
    while square < 64 {
        let col = (square % 8) as i8;
        let row = (square / 8) as i8;
        let mut line = 0;
        while line < 4 {
            tables.lines[square][line] = 1 << square;
            line += 1;
        }
        let mut dir = 0;
        while dir < 8 {
            let (dc, dr) = DIRECTIONS[dir];
            let mut passed = 0u64;
            let mut n = 1;
            while n <= 8 {
                let c = col + dc * n as i8;
                let r = row + dr * n as i8;
                if c < 0 || c > 7 || r < 0 || r > 7 {
                    break;
                }
                let to = (r * 8 + c) as usize;
                tables.target[square][dir][n] = to as u8;
                tables.between[square][dir][n] = passed;
                passed |= 1 << to;
                tables.lines[square][dir % 4] |= 1 << to;
                n += 1;
            }
            dir += 1;
        }
        square += 1;
    }
    tables
}

static TABLES: Tables = build_tables();

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;

/// `group` grown by one step in all eight directions (never wrapping around an edge).
fn spread(group: u64) -> u64 {
    let row = group | ((group << 1) & !FILE_A) | ((group >> 1) & !FILE_H);
    row | (row << 8) | (row >> 8)
}

/// Whether the pieces of `pieces` form a single 8-connected group (one piece does; none
/// does not).
fn is_one_group(pieces: u64) -> bool {
    if pieces & pieces.wrapping_sub(1) == 0 {
        return pieces != 0;
    }
    let mut group = pieces & pieces.wrapping_neg();
    loop {
        let grown = spread(group) & pieces;
        if grown == group {
            return group == pieces;
        }
        group = grown;
    }
}

/// The direction index from `from` to `to` and the distance, if they share a line.
fn direction(from: Square, to: Square) -> Option<(usize, u8)> {
    let dc = i16::from(to.col()) - i16::from(from.col());
    let dr = i16::from(to.row()) - i16::from(from.row());
    if (dc, dr) == (0, 0) || (dc != 0 && dr != 0 && dc.abs() != dr.abs()) {
        return None;
    }
    let unit = (dc.signum() as i8, dr.signum() as i8);
    let dir = DIRECTIONS.iter().position(|&d| d == unit)?;
    let distance = u8::try_from(dc.abs().max(dr.abs())).ok()?;
    Some((dir, distance))
}

/// The set bits of `bits`, lowest first, as squares.
fn squares_of(bits: u64) -> impl Iterator<Item = Square> {
    let mut rest = bits;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let index = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            Square(index)
        })
    })
}

// ---------------------------------------------------------------- positions

/// A board with the side to move: what the notation writes and what repetition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Bitboards indexed by [`Side::index`].
    pieces: [u64; 2],
    to_move: Side,
}

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

impl Position {
    /// The standard start, black to move.
    pub const START: Position = Position {
        pieces: [0x7E00_0000_0000_007E, 0x0081_8181_8181_8100],
        to_move: Side::Black,
    };

    /// The pieces of `side` as a bitboard (`a1` = bit 0, `h8` = bit 63).
    pub fn pieces(&self, side: Side) -> u64 {
        self.pieces[side.index()]
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// The colour of the piece on `square`, if any.
    pub fn piece_at(&self, square: Square) -> Option<Side> {
        [Side::Black, Side::White]
            .into_iter()
            .find(|side| self.pieces(*side) & square.bit() != 0)
    }

    /// How many pieces `side` has.
    pub fn count(&self, side: Side) -> u32 {
        self.pieces(side).count_ones()
    }

    /// Whether `side`'s pieces form a single group (8-neighbourhood).
    pub fn is_connected(&self, side: Side) -> bool {
        is_one_group(self.pieces(side))
    }

    fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// Every square the piece on `from` may move to, `own` being its side's pieces.
    fn targets(from: usize, own: u64, opponent: u64) -> u64 {
        let occupied = own | opponent;
        let targets = &TABLES.target[from];
        let between = &TABLES.between[from];
        let mut out = 0u64;
        for (line, mask) in TABLES.lines[from].iter().enumerate() {
            let n = (occupied & mask).count_ones() as usize;
            for dir in [line, line + 4] {
                let to = targets[dir][n];
                if to != OFF && between[dir][n] & opponent == 0 {
                    out |= 1 << to;
                }
            }
        }
        out & !own
    }

    fn own_and_opponent(&self) -> (u64, u64) {
        let me = self.to_move.index();
        (self.pieces[me], self.pieces[1 - me])
    }

    /// Clears `out` and fills it with every legal move of the side to move: its moves in
    /// increasing order of `from` then `to` (bit order), or exactly `[Pass]` when it has
    /// none. Whether the game is over is not this type's business (see
    /// [`LinesOfAction::moves_into`]).
    pub fn moves_into(&self, out: &mut Vec<LoaMove>) {
        out.clear();
        let (own, opponent) = self.own_and_opponent();
        for from in squares_of(own) {
            for to in squares_of(Position::targets(from.usize(), own, opponent)) {
                out.push(LoaMove::Step { from, to });
            }
        }
        if out.is_empty() {
            out.push(LoaMove::Pass);
        }
    }

    /// The number of legal moves of the side to move (1 when it must pass).
    pub fn legal_move_count(&self) -> u64 {
        let (own, opponent) = self.own_and_opponent();
        let steps: u64 = squares_of(own)
            .map(|from| u64::from(Position::targets(from.usize(), own, opponent).count_ones()))
            .sum();
        steps.max(1)
    }

    /// Whether the side to move has any move other than a pass.
    pub fn can_move(&self) -> bool {
        let (own, opponent) = self.own_and_opponent();
        squares_of(own).any(|from| Position::targets(from.usize(), own, opponent) != 0)
    }

    /// The position after `mv`, **unchecked**: `mv` must be legal here (see
    /// [`Position::moves_into`]). For an illegal move the result is not a position of the
    /// game (but nothing panics).
    pub fn after(&self, mv: LoaMove) -> Position {
        let mut next = *self;
        if let LoaMove::Step { from, to } = mv {
            let me = self.to_move.index();
            next.pieces[me] = (next.pieces[me] & !from.bit()) | to.bit();
            next.pieces[1 - me] &= !to.bit();
        }
        next.to_move = self.to_move.opponent();
        next
    }

    /// Checks a move of the side to move, in the order of the module doc (from
    /// `no_piece` on).
    fn check(&self, mv: LoaMove) -> Result<(), RuleError> {
        let side = self.to_move;
        let (from, to) = match mv {
            LoaMove::Pass if self.can_move() => {
                return Err(RuleError::new(
                    "pass_not_allowed",
                    format!("{side} has a legal move, and a pass is allowed only when there is none"),
                ));
            }
            LoaMove::Pass => return Ok(()),
            LoaMove::Step { from, to } => (from, to),
        };
        let (own, opponent) = self.own_and_opponent();
        if own & from.bit() == 0 {
            return Err(RuleError::new(
                "no_piece",
                format!("there is no {side} piece on {from}"),
            ));
        }
        let Some((dir, distance)) = direction(from, to) else {
            let message = if from == to {
                format!("a piece must move: {from}-{to} goes nowhere")
            } else {
                format!("{from} and {to} are not on one row, column or diagonal")
            };
            return Err(RuleError::new("not_a_line", message));
        };
        let line = dir % 4;
        let n = (self.occupied() & TABLES.lines[from.usize()][line]).count_ones();
        if u32::from(distance) != n {
            return Err(RuleError::new(
                "wrong_distance",
                format!(
                    "{from}-{to} moves {}, but the {name} through {from} holds {}, so the piece must move exactly {n}",
                    plural(u32::from(distance), "square"),
                    plural(n, "piece"),
                    name = LINE_NAMES[line],
                ),
            ));
        }
        let jumped = TABLES.between[from.usize()][dir][usize::from(distance)] & opponent;
        if jumped != 0 {
            let squares: Vec<String> = squares_of(jumped).map(|square| square.to_string()).collect();
            return Err(RuleError::new(
                "blocked",
                format!(
                    "{from}-{to} would jump over the {} {} on {}",
                    side.opponent(),
                    if squares.len() == 1 { "piece" } else { "pieces" },
                    squares.join(", ")
                ),
            ));
        }
        if own & to.bit() != 0 {
            return Err(RuleError::new(
                "own_piece",
                format!("{to} holds a {side} piece of your own"),
            ));
        }
        Ok(())
    }

    /// Refuses a position a game cannot start from (see [`PositionError`]).
    fn validate(self) -> Result<Position, PositionError> {
        for side in [Side::Black, Side::White] {
            match self.count(side) {
                0 => return Err(PositionError::NoPieces(side)),
                count if count > MAX_PIECES => return Err(PositionError::TooManyPieces { side, count }),
                _ => {}
            }
        }
        for side in [Side::Black, Side::White] {
            if self.is_connected(side) {
                return Err(PositionError::AlreadyConnected(side));
            }
        }
        Ok(self)
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::START
    }
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

// ---------------------------------------------------------------- the end rules

/// Why a move ended the game, before the settings turn it into an [`Outcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// At least one side is connected.
    Connected {
        mover: bool,
        opponent: bool,
    },
    Repetition,
}

/// The end check after `mover` played and reached `next`. `earlier` holds the positions
/// since the last capture *before* `next` (empty if the move captured).
fn judge(mover: Side, next: &Position, earlier: &[Position]) -> Option<Ending> {
    let mover_connected = next.is_connected(mover);
    let opponent_connected = next.is_connected(mover.opponent());
    if mover_connected || opponent_connected {
        return Some(Ending::Connected {
            mover: mover_connected,
            opponent: opponent_connected,
        });
    }
    // The third occurrence: `next` itself plus two earlier ones.
    let seen = earlier.iter().filter(|earlier| *earlier == next).count();
    (seen >= 2).then_some(Ending::Repetition)
}

// ---------------------------------------------------------------- settings

/// What a move that connects both sides at once does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Simultaneous {
    /// A draw (the rule page's default, Computer Olympiad rule).
    #[default]
    Draw,
    /// The mover wins (Sackson, *A Gamut of Games*, 2nd edition).
    MoverWins,
}

impl Simultaneous {
    /// The wire names, default first.
    pub const NAMES: &'static [&'static str] = &["draw", "mover-wins"];
}

/// A Lines of Action table's settings: `{"simultaneous": "draw"}`, plus
/// `"start_position": "<notation>"` only when a start position is set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LoaSettings {
    pub simultaneous: Simultaneous,
    /// The position the game starts from; the standard start when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_position: Option<Position>,
}

// ---------------------------------------------------------------- the game

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

/// A game of Lines of Action in progress or finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinesOfAction {
    simultaneous: Simultaneous,
    position: Position,
    /// Every move played, in order.
    moves: Vec<LoaMove>,
    /// The positions since the last capture (or the start), the current one last.
    history: Vec<Position>,
    outcome: Option<Outcome>,
}

impl LinesOfAction {
    /// A game from a position string (see the module doc), default settings otherwise.
    pub fn from_position(text: &str) -> Result<LinesOfAction, PositionError> {
        let start = text.parse::<Position>()?;
        Ok(LinesOfAction::new(&LoaSettings {
            start_position: Some(start),
            ..LoaSettings::default()
        }))
    }

    /// The notation of the current position.
    pub fn position(&self) -> String {
        self.position.to_string()
    }

    /// The current position.
    pub fn board(&self) -> &Position {
        &self.position
    }

    /// The rule for a move that connects both sides.
    pub fn simultaneous(&self) -> Simultaneous {
        self.simultaneous
    }

    /// The moves played so far, in order (black's at even indices).
    pub fn moves(&self) -> &[LoaMove] {
        &self.moves
    }

    /// The seat to move, `None` once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None => Some(self.position.to_move.seat()),
        }
    }

    /// Clears `out` and fills it with the legal moves of the side to move (nothing once
    /// the game is over). The allocation-free path for bots.
    pub fn moves_into(&self, out: &mut Vec<LoaMove>) {
        if self.outcome.is_some() {
            out.clear();
        } else {
            self.position.moves_into(out);
        }
    }

    fn outcome_of(&self, ending: Ending, mover: Side, next: &Position) -> Outcome {
        let opponent = mover.opponent();
        let connected = |sides: &[Side]| {
            let roles = sides.iter().map(|side| Value::from(side.role())).collect();
            let mut detail = Map::new();
            detail.insert("connected".to_owned(), Value::Array(roles));
            Value::Object(detail)
        };
        let in_seat_order = |a: Side, b: Side| if a.seat() < b.seat() { [a, b] } else { [b, a] };
        let (mut outcome, detail) = match ending {
            Ending::Connected {
                mover: true,
                opponent: true,
            } => {
                let outcome = match self.simultaneous {
                    Simultaneous::Draw => Outcome::draw(EndReason::BothConnected),
                    Simultaneous::MoverWins => Outcome::win(vec![mover.seat()], EndReason::Connected),
                };
                (outcome, connected(&in_seat_order(mover, opponent)))
            }
            Ending::Connected { mover: true, .. } => (
                Outcome::win(vec![mover.seat()], EndReason::Connected),
                connected(&[mover]),
            ),
            Ending::Connected { .. } => (
                Outcome::win(vec![opponent.seat()], EndReason::Connected),
                connected(&[opponent]),
            ),
            Ending::Repetition => {
                let mut detail = Map::new();
                detail.insert("position".to_owned(), Value::String(next.to_string()));
                (Outcome::draw(EndReason::Repetition), Value::Object(detail))
            }
        };
        outcome.detail = detail;
        outcome
    }
}

impl Rules for LinesOfAction {
    type Settings = LoaSettings;
    type Move = LoaMove;
    type View = LoaView;

    fn read_settings(reader: &mut SettingsReader) -> Result<LoaSettings, SettingError> {
        let simultaneous = match reader.take_choice("simultaneous", Simultaneous::NAMES)? {
            "mover-wins" => Simultaneous::MoverWins,
            _ => Simultaneous::Draw,
        };
        let start_position = match reader.take::<String>("start_position")? {
            None => None,
            Some(text) => Some(
                text.parse::<Position>()
                    .map_err(|err| SettingError::new("settings.start_position", err.to_string()))?,
            ),
        };
        Ok(LoaSettings {
            simultaneous,
            start_position,
        })
    }

    fn seat_roles(_settings: &LoaSettings) -> &'static [&'static str] {
        &["black", "white"]
    }

    fn new(settings: &LoaSettings) -> LinesOfAction {
        let position = settings.start_position.unwrap_or(Position::START);
        LinesOfAction {
            simultaneous: settings.simultaneous,
            position,
            moves: Vec::new(),
            history: vec![position],
            outcome: None,
        }
    }

    fn active_seats(&self) -> SeatSet {
        self.to_move().map_or(SeatSet::EMPTY, SeatSet::only)
    }

    fn play(&mut self, seat: Seat, mv: &LoaMove) -> Result<Played, RuleError> {
        if self.outcome.is_some() {
            return Err(RuleError::new("game_over", "the game is already over"));
        }
        if self.to_move() != Some(seat) {
            return Err(RuleError::new("not_your_turn", "it is not your turn"));
        }
        self.position.check(*mv)?;
        let mover = self.position.to_move;
        let next = self.position.after(*mv);
        if next.count(mover.opponent()) < self.position.count(mover.opponent()) {
            // A capture: no earlier position can come back.
            self.history.clear();
        }
        let ending = judge(mover, &next, &self.history);
        self.history.push(next);
        self.position = next;
        self.moves.push(*mv);
        if let Some(ending) = ending {
            self.outcome = Some(self.outcome_of(ending, mover, &next));
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

    fn view(&self) -> LoaView {
        let notation = self.position();
        let board = (0..8).map(|row| notation[row * 8..row * 8 + 8].to_owned()).collect();
        LoaView {
            board,
            to_move: self.to_move().and_then(Side::of_seat).map(Side::role),
            last_move: self.moves.last().copied(),
            move_count: self.moves.len(),
            pieces: PieceCounts {
                black: self.position.count(Side::Black),
                white: self.position.count(Side::White),
            },
            position: notation,
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<LoaMove> {
        let mut out = Vec::new();
        if self.to_move() == Some(seat) {
            self.moves_into(&mut out);
        }
        out
    }
}

// ---------------------------------------------------------------- perft

/// The number of move sequences of length `depth` from the game's current state (see the
/// module doc for the convention: 1 at depth 0; a finished game contributes 0 at depth 1
/// or more; a pass is a move; the repetition rule sees the game's history).
pub fn perft(game: &LinesOfAction, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if game.outcome.is_some() {
        return 0;
    }
    let mut history = game.history.clone();
    let mut buffers: Vec<Vec<LoaMove>> = (1..depth).map(|_| Vec::with_capacity(96)).collect();
    perft_from(&game.position, depth, &mut history, 0, &mut buffers)
}

/// [`perft`] split by the first move, in move-generation order (empty once the game is
/// over or at depth 0).
pub fn perft_divide(game: &LinesOfAction, depth: u32) -> Vec<(LoaMove, u64)> {
    let mut first = Vec::new();
    if depth == 0 {
        return Vec::new();
    }
    game.moves_into(&mut first);
    first
        .into_iter()
        .map(|mv| {
            let mut next = game.clone();
            let count = match next.play(next.position.to_move.seat(), &mv) {
                Ok(_) => perft(&next, depth - 1),
                Err(_) => 0,
            };
            (mv, count)
        })
        .collect()
}

/// Perft from a running position at the end of `history`; `history[base..]` are the
/// positions since the last capture. `buffers` holds one move list per remaining ply
/// above the last.
fn perft_from(
    position: &Position,
    depth: u32,
    history: &mut Vec<Position>,
    base: usize,
    buffers: &mut [Vec<LoaMove>],
) -> u64 {
    if depth <= 1 {
        // Bulk counting: every legal move is one sequence, whether it ends the game or not.
        return position.legal_move_count();
    }
    let Some((moves, deeper)) = buffers.split_first_mut() else {
        return 0;
    };
    position.moves_into(moves);
    let mover = position.to_move;
    let opponent_count = position.count(mover.opponent());
    let mut total = 0;
    for &mv in moves.iter() {
        let next = position.after(mv);
        let base = if next.count(mover.opponent()) < opponent_count {
            history.len()
        } else {
            base
        };
        if judge(mover, &next, &history[base..]).is_some() {
            continue;
        }
        history.push(next);
        total += perft_from(&next, depth - 1, history, base, deeper);
        history.pop();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    // ---------------------------------------------------------------- helpers

    const START: &str = ".bbbbbb.w......ww......ww......ww......ww......ww......w.bbbbbb. b";

    fn sq(text: &str) -> Square {
        text.parse()
            .unwrap_or_else(|err| panic!("bad test square {text}: {err}"))
    }

    /// A move written `b1-b3`, or `pass`.
    fn mv(text: &str) -> LoaMove {
        if text == "pass" {
            return LoaMove::Pass;
        }
        let (from, to) = text.split_once('-').expect("a test move is from-to");
        LoaMove::step(sq(from), sq(to))
    }

    /// A drawn board (row 8 first) and the side to move, as a position string.
    fn notation(rows: [&str; 8], side: char) -> String {
        assert!(rows.iter().all(|row| row.len() == 8), "every drawn row has 8 squares");
        format!("{} {side}", rows.concat())
    }

    fn game(rows: [&str; 8], side: char) -> LinesOfAction {
        let text = notation(rows, side);
        LinesOfAction::from_position(&text).unwrap_or_else(|err| panic!("bad test position {text}: {err}"))
    }

    fn game_with(rows: [&str; 8], side: char, simultaneous: Simultaneous) -> LinesOfAction {
        let start = notation(rows, side).parse().expect("a valid test position");
        LinesOfAction::new(&LoaSettings {
            simultaneous,
            start_position: Some(start),
        })
    }

    fn start() -> LinesOfAction {
        LinesOfAction::new(&LoaSettings::default())
    }

    fn rule(result: Result<Played, RuleError>) -> &'static str {
        match result {
            Ok(played) => panic!("expected a refusal, got {played:?}"),
            Err(err) => err.rule,
        }
    }

    /// Plays `moves` alternately from the side to move, asserting each is legal.
    fn play_all(game: &mut LinesOfAction, moves: &[&str]) {
        for text in moves {
            let seat = game.to_move().unwrap_or_else(|| panic!("the game ended before {text}"));
            game.play(seat, &mv(text)).unwrap_or_else(|err| panic!("{text}: {err}"));
        }
    }

    fn view_json(game: &LinesOfAction) -> Value {
        serde_json::to_value(game.view()).expect("views serialise")
    }

    fn connected(roles: &[&str]) -> Value {
        json!({ "connected": roles })
    }

    fn win(seat: Seat, roles: &[&str]) -> Outcome {
        let mut outcome = Outcome::win(vec![seat], EndReason::Connected);
        outcome.detail = connected(roles);
        outcome
    }

    fn listed(game: &LinesOfAction) -> Vec<String> {
        let mut moves: Vec<String> = game
            .to_move()
            .map(|seat| game.legal_moves(seat))
            .unwrap_or_default()
            .iter()
            .map(LoaMove::to_string)
            .collect();
        moves.sort();
        moves
    }

    // ------------------------------- slow, obviously-correct reference (no bitboards)

    /// `grid[row][col]`, row 0 = row `1`: `b`, `w` or `.`.
    type Grid = [[char; 8]; 8];

    /// Reads the notation independently of the module's parser.
    fn grid_of(text: &str) -> (Grid, char) {
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars.len(), 66, "{text}");
        let mut grid = [['.'; 8]; 8];
        for (i, &c) in chars[..64].iter().enumerate() {
            grid[7 - i / 8][i % 8] = c;
        }
        (grid, chars[65])
    }

    fn text_of(grid: &Grid, side: char) -> String {
        let mut text: String = grid.iter().rev().flat_map(|row| row.iter()).collect();
        text.push(' ');
        text.push(side);
        text
    }

    fn other(side: char) -> char {
        if side == 'b' { 'w' } else { 'b' }
    }

    fn on_board(col: i32, row: i32) -> bool {
        (0..8).contains(&col) && (0..8).contains(&row)
    }

    fn cell(grid: &Grid, col: i32, row: i32) -> char {
        grid[row as usize][col as usize]
    }

    fn name(col: i32, row: i32) -> String {
        format!("{}{}", (b'a' + col as u8) as char, row + 1)
    }

    /// The pieces of both colours on the whole line through (col, row) along (dc, dr),
    /// walking both ways, the square itself included.
    fn line_count(grid: &Grid, col: i32, row: i32, dc: i32, dr: i32) -> u32 {
        let mut count = u32::from(cell(grid, col, row) != '.');
        for sign in [1, -1] {
            let (mut c, mut r) = (col + sign * dc, row + sign * dr);
            while on_board(c, r) {
                count += u32::from(cell(grid, c, r) != '.');
                c += sign * dc;
                r += sign * dr;
            }
        }
        count
    }

    /// The rule text, in the documented order, for a move of `side` from `from` to `to`.
    fn classify(grid: &Grid, side: char, from: (i32, i32), to: (i32, i32)) -> Result<(), &'static str> {
        if cell(grid, from.0, from.1) != side {
            return Err("no_piece");
        }
        let (dc, dr) = (to.0 - from.0, to.1 - from.1);
        if (dc, dr) == (0, 0) || !(dc == 0 || dr == 0 || dc.abs() == dr.abs()) {
            return Err("not_a_line");
        }
        let (uc, ur) = (dc.signum(), dr.signum());
        let distance = dc.abs().max(dr.abs());
        if distance as u32 != line_count(grid, from.0, from.1, uc, ur) {
            return Err("wrong_distance");
        }
        if (1..distance).any(|k| cell(grid, from.0 + k * uc, from.1 + k * ur) == other(side)) {
            return Err("blocked");
        }
        if cell(grid, to.0, to.1) == side {
            return Err("own_piece");
        }
        Ok(())
    }

    /// Every legal move (by trying every own piece to every square), sorted, or `["pass"]`.
    fn reference_moves(grid: &Grid, side: char) -> Vec<String> {
        let mut moves = Vec::new();
        for (fc, fr) in (0..8).flat_map(|r| (0..8).map(move |c| (c, r))) {
            if cell(grid, fc, fr) != side {
                continue;
            }
            for (tc, tr) in (0..8).flat_map(|r| (0..8).map(move |c| (c, r))) {
                if classify(grid, side, (fc, fr), (tc, tr)).is_ok() {
                    moves.push(format!("{}-{}", name(fc, fr), name(tc, tr)));
                }
            }
        }
        if moves.is_empty() {
            moves.push("pass".to_owned());
        }
        moves.sort();
        moves
    }

    fn reference_play(grid: &Grid, side: char, text: &str) -> Grid {
        let mut next = *grid;
        if let Some((from, to)) = text.split_once('-') {
            let at = |s: &str| {
                let b = s.as_bytes();
                ((b[0] - b'a') as usize, (b[1] - b'1') as usize)
            };
            let (fc, fr) = at(from);
            let (tc, tr) = at(to);
            next[fr][fc] = '.';
            next[tr][tc] = side;
        }
        next
    }

    /// Flood fill over the 8-neighbourhood from one piece.
    fn reference_connected(grid: &Grid, side: char) -> bool {
        let pieces: Vec<(i32, i32)> = (0..8)
            .flat_map(|r| (0..8).map(move |c| (c, r)))
            .filter(|&(c, r)| cell(grid, c, r) == side)
            .collect();
        let Some(&first) = pieces.first() else {
            return false;
        };
        let mut seen = vec![first];
        let mut todo = vec![first];
        while let Some((c, r)) = todo.pop() {
            for (dc, dr) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
                let next = (c + dc, r + dr);
                if on_board(next.0, next.1) && cell(grid, next.0, next.1) == side && !seen.contains(&next) {
                    seen.push(next);
                    todo.push(next);
                }
            }
        }
        seen.len() == pieces.len()
    }

    /// Perft by the rule text, without repetition: exact for a fresh game up to depth 7
    /// (a third occurrence needs at least eight plies).
    fn reference_perft(grid: &Grid, side: char, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for text in reference_moves(grid, side) {
            let next = reference_play(grid, side, &text);
            if depth == 1 {
                total += 1;
            } else if !reference_connected(&next, 'b') && !reference_connected(&next, 'w') {
                total += reference_perft(&next, other(side), depth - 1);
            }
        }
        total
    }

    #[test]
    fn reference_agrees_with_the_rule_page_at_the_start() {
        let (grid, side) = grid_of(START);
        assert_eq!(reference_moves(&grid, side).len(), 36);
        assert_eq!(text_of(&grid, side), START);
        assert!(!reference_connected(&grid, 'b') && !reference_connected(&grid, 'w'));
    }

    // ---------------------------------------------------------------- start and perft

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

    #[test]
    fn black_has_36_moves_at_the_start() {
        let g = start();
        assert_eq!(g.legal_moves(0).len(), 36);
        assert_eq!(perft(&g, 1), 36);
        assert!(g.legal_moves(1).is_empty(), "white is not to move");
    }

    #[test]
    fn b1_moves_exactly_to_b3_d3_and_h1_at_the_start() {
        let b1: Vec<String> = listed(&start()).into_iter().filter(|m| m.starts_with("b1-")).collect();
        assert_eq!(b1, ["b1-b3", "b1-d3", "b1-h1"]);
    }

    #[test]
    fn perft_from_the_start() {
        let g = start();
        assert_eq!(perft(&g, 0), 1);
        assert_eq!(perft(&g, 1), 36);
        assert_eq!(perft(&g, 2), 1_244);
        assert_eq!(perft(&g, 3), 44_952);
        let divide = perft_divide(&g, 2);
        assert_eq!(divide.len(), 36);
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 1_244);
    }

    #[test]
    fn perft_from_the_start_matches_the_reference_to_depth_3() {
        let (grid, side) = grid_of(START);
        for depth in 1..=3 {
            assert_eq!(
                perft(&start(), depth),
                reference_perft(&grid, side, depth),
                "depth {depth}"
            );
        }
    }

    /// Slow in a debug build: `cargo test --release -- --ignored`.
    #[test]
    #[ignore]
    fn perft_depth_4_matches_the_reference() {
        let (grid, side) = grid_of(START);
        assert_eq!(perft(&start(), 4), 1_563_208);
        assert_eq!(reference_perft(&grid, side, 4), 1_563_208);
    }

    #[test]
    fn perft_of_a_finished_game_is_zero_beyond_depth_0() {
        let mut g = start();
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(perft(&g, 0), 1);
        assert_eq!(perft(&g, 1), 0);
        assert_eq!(perft(&g, 3), 0);
        assert!(perft_divide(&g, 2).is_empty());
    }

    #[test]
    fn perft_counts_game_ending_moves_at_depth_1_only() {
        // Black's h8-e5 connects black (see `diagonal_only_connection_counts`): it counts
        // once at depth 1 and has no continuation at depth 2.
        let g = game(DIAGONAL, 'b');
        let divide = perft_divide(&g, 2);
        let winning = divide.iter().find(|(m, _)| *m == mv("h8-e5")).expect("h8-e5 is legal");
        assert_eq!(winning.1, 0);
        assert_eq!(perft(&g, 1), g.legal_moves(0).len() as u64);
        let (grid, side) = grid_of(&g.position());
        assert_eq!(perft(&g, 2), reference_perft(&grid, side, 2));
        assert_eq!(perft(&g, 3), reference_perft(&grid, side, 3));
    }

    // ---------------------------------------------------------------- the end of a game

    /// Black's c3 and d4 touch only diagonally; h8-e5 (three pieces on the diagonal) adds
    /// e5, again only diagonally.
    const DIAGONAL: [&str; 8] = [
        "w......b", // 8
        "........", // 7
        ".w......", // 6
        "........", // 5
        "...b....", // 4
        "..b.....", // 3
        "........", // 2
        ".......w", // 1
    ];

    #[test]
    fn diagonal_only_connection_counts() {
        let mut g = game(DIAGONAL, 'b');
        g.play(0, &mv("h8-e5")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &["black"])));
        assert_eq!(g.view().board[3], "....b...");
        assert!(g.active_seats().is_empty());
        assert!(g.legal_moves(1).is_empty());
        assert_eq!(perft(&g, 1), 0);
    }

    /// White's group e5/d6/f4 hangs together through e5 (plus a stray on a1). Black's e1
    /// moves four (e1, e5, e6, e7 on the column), captures e5 and joins e6/e7.
    const BRIDGE: [&str; 8] = [
        "........", // 8
        "....b...", // 7
        "...wb...", // 6
        "....w...", // 5
        ".....w..", // 4
        "........", // 3
        "........", // 2
        "w...b...", // 1
    ];

    #[test]
    fn capture_that_disconnects_the_opponent() {
        let mut g = game(BRIDGE, 'b');
        g.play(0, &mv("e1-e5")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &["black"])));
        assert_eq!(g.view().pieces, PieceCounts { black: 3, white: 3 });
        assert!(!g.board().is_connected(Side::White), "d6 and f4 no longer touch");
    }

    /// White: the group e4/e5/f4 and a stray on b7. Black's b4 moves three (b1, b4, b7 on
    /// the column) and captures the stray.
    const STRAY: [&str; 8] = [
        "........", // 8
        ".w......", // 7
        "........", // 6
        "....w...", // 5
        ".b..ww..", // 4
        "........", // 3
        "........", // 2
        ".b......", // 1
    ];

    #[test]
    fn capturing_the_opponents_last_stray_piece_makes_the_opponent_win() {
        let mut g = game(STRAY, 'b');
        g.play(0, &mv("b4-b7")).unwrap();
        assert_eq!(g.outcome(), Some(&win(1, &["white"])));
        assert_eq!(g.outcome().unwrap().winners(), &[1]);
    }

    #[test]
    fn a_single_remaining_piece_is_connected() {
        // White has two pieces apart; black's b4 captures b7 and leaves white with g2.
        let mut g = game(
            [
                "........", // 8
                ".w......", // 7
                "........", // 6
                "........", // 5
                ".b......", // 4
                "........", // 3
                "......w.", // 2
                ".b......", // 1
            ],
            'b',
        );
        g.play(0, &mv("b4-b7")).unwrap();
        assert_eq!(g.view().pieces, PieceCounts { black: 2, white: 1 });
        assert_eq!(g.outcome(), Some(&win(1, &["white"])));
        assert!(is_one_group(sq("g2").bit()));
        assert!(!is_one_group(0));
    }

    /// Black's a2 moves three along a2–g8 (a2, c4, d5), captures white's stray d5 and joins
    /// c3/c4; white's g7/h7 is then all of white.
    const BOTH: [&str; 8] = [
        "........", // 8
        "......ww", // 7
        "........", // 6
        "...w....", // 5
        "..b.....", // 4
        "..b.....", // 3
        "b.......", // 2
        "........", // 1
    ];

    #[test]
    fn simultaneous_connection_is_a_draw() {
        let mut g = game(BOTH, 'b');
        g.play(0, &mv("a2-d5")).unwrap();
        let mut expected = Outcome::draw(EndReason::BothConnected);
        expected.detail = connected(&["black", "white"]);
        assert_eq!(g.outcome(), Some(&expected));
        assert_eq!(g.simultaneous(), Simultaneous::Draw);
    }

    #[test]
    fn simultaneous_connection_wins_for_the_mover_in_the_variant() {
        let mut g = game_with(BOTH, 'b', Simultaneous::MoverWins);
        g.play(0, &mv("a2-d5")).unwrap();
        assert_eq!(g.outcome(), Some(&win(0, &["black", "white"])));
        // White as the mover: the same picture mirrored in colour.
        let mirrored = BOTH.map(|row| row.replace('b', "x").replace('w', "b").replace('x', "w"));
        let rows: [&str; 8] = std::array::from_fn(|i| mirrored[i].as_str());
        let mut g = game_with(rows, 'w', Simultaneous::MoverWins);
        g.play(1, &mv("a2-d5")).unwrap();
        assert_eq!(g.outcome(), Some(&win(1, &["black", "white"])));
    }

    // ---------------------------------------------------------------- pass

    /// Black's a1 and h8 are walled in by white: every line through them has a white piece
    /// next to them on the way, or leaves the board. White's d5 is free to shuffle.
    const CAGED: [&str; 8] = [
        "......wb", // 8
        "......ww", // 7
        "........", // 6
        "...w....", // 5
        "........", // 4
        "........", // 3
        "ww......", // 2
        "bw......", // 1
    ];

    #[test]
    fn a_player_without_moves_must_pass() {
        let mut g = game(CAGED, 'b');
        assert_eq!(g.legal_moves(0), vec![LoaMove::Pass]);
        assert_eq!(perft(&g, 1), 1);
        let (grid, side) = grid_of(&g.position());
        assert_eq!(reference_moves(&grid, side), ["pass"]);
        assert_eq!(rule(g.clone().play(0, &mv("a1-c1"))), "blocked");
        g.play(0, &LoaMove::Pass).unwrap();
        assert_eq!(g.outcome(), None);
        assert_eq!(g.to_move(), Some(1));
        let view = view_json(&g);
        assert_eq!(view["last_move"], json!({"pass": true}));
        assert_eq!(view["move_count"], 1);
        assert_eq!(view["to_move"], "white");
        assert_eq!(g.board().pieces(Side::Black), sq("a1").bit() | sq("h8").bit());
        assert_eq!(perft(&g, 2), reference_perft(&grid, 'w', 2));
    }

    #[test]
    fn pass_is_refused_when_a_move_exists() {
        let mut g = start();
        let err = g.play(0, &LoaMove::Pass).unwrap_err();
        assert_eq!(err.rule, "pass_not_allowed");
        assert_eq!(g, start());
        let mut caged = game(CAGED, 'b');
        caged.play(0, &LoaMove::Pass).unwrap();
        assert_eq!(rule(caged.play(1, &LoaMove::Pass)), "pass_not_allowed");
        assert!(!caged.legal_moves(1).contains(&LoaMove::Pass));
    }

    // ---------------------------------------------------------------- repetition

    const SHUFFLE: [&str; 4] = ["b1-b3", "a2-c2", "b3-b1", "c2-a2"];

    #[test]
    fn third_occurrence_is_a_draw_and_the_second_is_not() {
        let mut g = start();
        play_all(&mut g, &SHUFFLE);
        assert_eq!(g.position(), START, "the start position, second time");
        assert_eq!(g.outcome(), None);
        play_all(&mut g, &SHUFFLE[..3]);
        assert_eq!(g.outcome(), None, "the position after b3-b1 occurs for the second time");
        play_all(&mut g, &SHUFFLE[3..]);
        let mut expected = Outcome::draw(EndReason::Repetition);
        expected.detail = json!({ "position": START });
        assert_eq!(g.outcome(), Some(&expected), "the start counts as the first occurrence");
        assert_eq!(g.view().move_count, 8);
        assert_eq!(g.view().to_move, None);
        assert_eq!(rule(g.play(0, &mv("b1-b3"))), "game_over");
    }

    #[test]
    fn passes_count_as_moves_for_repetition() {
        let mut g = game(CAGED, 'b');
        let cycle = ["pass", "d5-e5", "pass", "e5-d5"];
        play_all(&mut g, &cycle);
        play_all(&mut g, &cycle[..3]);
        assert_eq!(g.outcome(), None);
        play_all(&mut g, &cycle[3..]);
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Repetition));
        assert_eq!(g.moves().len(), 8);
        assert_eq!(g.moves().iter().filter(|m| **m == LoaMove::Pass).count(), 4);
    }

    #[test]
    fn repetition_after_a_capture_counts_from_the_capture() {
        // c1xa3 is a capture at the start; afterwards the shuffle needs three rounds again.
        let mut g = start();
        play_all(&mut g, &["c1-a3"]);
        let after_capture = g.position();
        play_all(&mut g, &["h2-f2", "b1-b3", "f2-h2", "b3-b1", "h2-f2", "b1-b3", "f2-h2"]);
        assert_eq!(g.outcome(), None);
        play_all(&mut g, &["b3-b1"]);
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Repetition));
        assert_eq!(g.outcome().unwrap().detail["position"], after_capture.as_str());
    }

    #[test]
    fn perft_sees_the_repetition_rule() {
        // After seven shuffle plies, b3-b1 repeats the start a third time: it still counts
        // at depth 1, but nothing follows it.
        let mut g = start();
        play_all(&mut g, &SHUFFLE);
        play_all(&mut g, &SHUFFLE[..3]);
        let divide = perft_divide(&g, 2);
        assert_eq!(divide.iter().find(|(m, _)| *m == mv("c2-a2")).map(|d| d.1), Some(0));
        let fresh = LinesOfAction::from_position(&g.position()).unwrap();
        assert_eq!(perft(&fresh, 2), perft(&g, 2) + perft(&start(), 1));
    }

    // ---------------------------------------------------------------- refused moves

    /// Black b1 and d1, white c2 and g7.
    const CODES: [&str; 8] = [
        "........", // 8
        "......w.", // 7
        "........", // 6
        "........", // 5
        "........", // 4
        "........", // 3
        "..w.....", // 2
        ".b.b....", // 1
    ];

    #[test]
    fn every_refusal_code() {
        let g = game(CODES, 'b');
        let try_move = |seat: Seat, text: &str| {
            let mut probe = g.clone();
            let before = view_json(&probe);
            let result = probe.play(seat, &mv(text));
            if result.is_err() {
                assert_eq!(probe, g, "{text} changed the game");
                assert_eq!(view_json(&probe), before);
            }
            result
        };
        assert_eq!(rule(try_move(1, "c2-c4")), "not_your_turn");
        assert_eq!(rule(try_move(2, "b1-b2")), "not_your_turn");
        assert_eq!(rule(try_move(7, "b1-b2")), "not_your_turn");
        assert_eq!(rule(try_move(0, "e4-e5")), "no_piece");
        assert_eq!(rule(try_move(0, "c2-c4")), "no_piece");
        assert_eq!(rule(try_move(0, "b1-c3")), "not_a_line");
        assert_eq!(rule(try_move(0, "b1-b1")), "not_a_line");
        assert_eq!(rule(try_move(0, "b1-b3")), "wrong_distance");
        assert_eq!(rule(try_move(0, "b1-d3")), "blocked");
        assert_eq!(rule(try_move(0, "b1-d1")), "own_piece");
        assert_eq!(rule(try_move(0, "pass")), "pass_not_allowed");
        assert!(try_move(0, "b1-b2").is_ok(), "one piece on column b: one step");
        let mut over = g.clone();
        over.finish(Outcome::win(vec![1], EndReason::Resignation));
        assert_eq!(rule(over.play(0, &mv("b1-b2"))), "game_over");
        assert_eq!(rule(over.play(1, &mv("c2-c4"))), "game_over");
    }

    #[test]
    fn refusal_messages_say_what_is_wrong() {
        let mut g = game(CODES, 'b');
        let message = |g: &mut LinesOfAction, text: &str| g.play(0, &mv(text)).unwrap_err().message;
        assert_eq!(message(&mut g, "e4-e5"), "there is no black piece on e4");
        assert_eq!(
            message(&mut g, "b1-c3"),
            "b1 and c3 are not on one row, column or diagonal"
        );
        assert_eq!(
            message(&mut g, "b1-b3"),
            "b1-b3 moves 2 squares, but the column through b1 holds 1 piece, so the piece must move exactly 1"
        );
        assert_eq!(message(&mut g, "b1-d3"), "b1-d3 would jump over the white piece on c2");
        assert_eq!(message(&mut g, "b1-d1"), "d1 holds a black piece of your own");
    }

    #[test]
    fn blocked_is_reported_before_own_piece() {
        // a1-d1: three pieces on row 1, so three squares; it would jump b1 (white) and land on
        // d1 (black).
        let mut g = game(
            [
                "........", // 8
                "......w.", // 7
                "........", // 6
                "........", // 5
                "........", // 4
                "........", // 3
                "........", // 2
                "bw.b....", // 1
            ],
            'b',
        );
        assert_eq!(rule(g.play(0, &mv("a1-d1"))), "blocked");
        let (grid, side) = grid_of(&g.position());
        assert_eq!(classify(&grid, side, (0, 0), (3, 0)), Err("blocked"));
        // Two white pieces in the way are both named.
        let mut g = game(
            [
                "b.......", // 8
                "......w.", // 7
                "........", // 6
                "........", // 5
                "........", // 4
                "........", // 3
                "........", // 2
                "bww.....", // 1
            ],
            'b',
        );
        let err = g.play(0, &mv("a1-d1")).unwrap_err();
        assert_eq!(err.message, "a1-d1 would jump over the white pieces on b1, c1");
    }

    #[test]
    fn jumping_own_pieces_and_capturing_are_allowed() {
        let mut g = start();
        // b1-h1 jumps c1..g1 (own); c1-a3 lands on white's a3 and captures it.
        assert!(g.clone().play(0, &mv("b1-h1")).is_ok());
        g.play(0, &mv("c1-a3")).unwrap();
        assert_eq!(g.view().pieces, PieceCounts { black: 12, white: 11 });
        assert_eq!(g.board().piece_at(sq("a3")), Some(Side::Black));
        assert_eq!(g.view().last_move, Some(mv("c1-a3")));
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

    #[test]
    fn move_wire_format() {
        let decode = |value: Value| serde_json::from_value::<LoaMove>(value);
        assert_eq!(decode(json!({"from": "b1", "to": "B3"})).unwrap(), mv("b1-b3"));
        assert_eq!(decode(json!({"pass": true})).unwrap(), LoaMove::Pass);
        assert_eq!(
            serde_json::to_value(mv("b1-b3")).unwrap(),
            json!({"from": "b1", "to": "b3"})
        );
        assert_eq!(serde_json::to_value(LoaMove::Pass).unwrap(), json!({"pass": true}));
        let refused = |value: Value| decode(value).unwrap_err().to_string();
        assert!(refused(json!({"from": "b1", "to": "b3", "x": 1})).contains("unknown field `x`"));
        assert!(refused(json!({"from": "b1"})).contains("no `to`"));
        assert!(refused(json!({"to": "b1"})).contains("no `from`"));
        assert!(refused(json!({})).contains("{\"pass\": true}"));
        assert!(refused(json!({"pass": false})).contains("may only be true"));
        assert!(refused(json!({"pass": true, "from": "b1"})).contains("a pass has no"));
        assert!(refused(json!({"from": "i1", "to": "b3"})).contains("invalid square \"i1\""));
        assert!(refused(json!({"from": 11, "to": "b3"})).contains("like \"b1\""));
        assert_eq!(
            refused(json!("b1-b3")),
            "invalid type: string \"b1-b3\", expected a move like {\"from\": \"b1\", \"to\": \"b3\"} or {\"pass\": true}"
        );
    }

    // ---------------------------------------------------------------- settings

    fn read(value: Value) -> Result<LoaSettings, SettingError> {
        let mut r = SettingsReader::of(value);
        let settings = LinesOfAction::read_settings(&mut r)?;
        r.finish()?;
        Ok(settings)
    }

    #[test]
    fn settings_default_and_wire_form() {
        let settings = read(json!({})).unwrap();
        assert_eq!(settings, LoaSettings::default());
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"simultaneous": "draw"})
        );
        let again = read(serde_json::to_value(&settings).unwrap()).unwrap();
        assert_eq!(again, settings);
    }

    #[test]
    fn settings_with_a_start_position_read_back_identically() {
        let slashed = "w......b/......../.w....../......../...b..../..b...../......../.......w b";
        let settings = read(json!({"simultaneous": "mover-wins", "start_position": slashed})).unwrap();
        assert_eq!(settings.simultaneous, Simultaneous::MoverWins);
        let stored = serde_json::to_value(&settings).unwrap();
        assert_eq!(
            stored,
            json!({"simultaneous": "mover-wins", "start_position": notation(DIAGONAL, 'b')})
        );
        assert_eq!(read(stored.clone()).unwrap(), settings);
        assert_eq!(
            serde_json::to_value(read(stored).unwrap()).unwrap()["start_position"],
            notation(DIAGONAL, 'b')
        );
        let g = LinesOfAction::new(&settings);
        assert_eq!(g.position(), notation(DIAGONAL, 'b'));
        assert_eq!(read(json!({"start_position": null})).unwrap(), LoaSettings::default());
    }

    #[test]
    fn settings_errors_name_their_field() {
        let err = read(json!({"simultaneous": "sometimes"})).unwrap_err();
        assert_eq!(err.field, "settings.simultaneous");
        assert!(err.message.contains("\"mover-wins\""), "{}", err.message);
        let err = read(json!({"start_position": 42})).unwrap_err();
        assert_eq!(err.field, "settings.start_position");
        let err = read(json!({"start_position": "b w"})).unwrap_err();
        assert_eq!(err.field, "settings.start_position");
        assert_eq!(err.message, PositionError::WrongLength(1).to_string());
        let err = read(json!({"start_position": format!("{} x", &START[..64])})).unwrap_err();
        assert_eq!(err.message, "the side to move must be `b` or `w`, found `x`");
        assert_eq!(read(json!({"board_size": 8})).unwrap_err().field, "settings.board_size");
    }

    // ---------------------------------------------------------------- view and finish

    #[test]
    fn view_at_the_start_and_after_a_move() {
        let mut g = start();
        assert_eq!(
            view_json(&g),
            json!({
                "board": [
                    ".bbbbbb.", "w......w", "w......w", "w......w", "w......w", "w......w", "w......w",
                    ".bbbbbb.",
                ],
                "to_move": "black",
                "last_move": null,
                "move_count": 0,
                "pieces": {"black": 12, "white": 12},
                "position": START,
            })
        );
        g.play(0, &mv("b1-d3")).unwrap();
        let view = view_json(&g);
        assert_eq!(view["board"][5], "w..b...w", "board[5] is row 3");
        assert_eq!(view["board"][7], "..bbbbb.", "board[7] is row 1");
        assert_eq!(view["to_move"], "white");
        assert_eq!(view["last_move"], json!({"from": "b1", "to": "d3"}));
        assert_eq!(view["move_count"], 1);
        assert_eq!(view["position"], g.position());
        assert!(g.position().ends_with(" w"));
    }

    #[test]
    fn finish_after_the_end_is_ignored() {
        let mut g = game(DIAGONAL, 'b');
        g.play(0, &mv("h8-e5")).unwrap();
        let won = g.outcome().cloned();
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome().cloned(), won);
    }

    #[test]
    fn finish_before_the_end_ends_the_game() {
        let mut g = start();
        g.play(0, &mv("b1-b3")).unwrap();
        let resigned = Outcome::win(vec![0], EndReason::Resignation);
        g.finish(resigned.clone());
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome(), Some(&resigned));
        assert!(g.active_seats().is_empty());
        assert!(g.legal_moves(1).is_empty());
        let mut out = vec![LoaMove::Pass];
        g.moves_into(&mut out);
        assert!(out.is_empty());
        assert_eq!(rule(g.play(1, &mv("a2-c2"))), "game_over");
        assert_eq!(view_json(&g)["to_move"], Value::Null);
        assert_eq!(
            view_json(&g)["position"],
            g.position(),
            "the notation keeps the side letter"
        );
    }

    #[test]
    fn through_any_game_json_edges() {
        use crate::games::{AnySettings, GameKind, MoveError};
        assert_eq!(GameKind::from_id("lines-of-action"), Some(GameKind::LinesOfAction));
        assert_eq!(GameKind::LinesOfAction.id(), "lines-of-action");
        assert_eq!(
            serde_json::to_value(GameKind::LinesOfAction).unwrap(),
            json!("lines-of-action")
        );
        let mut r = SettingsReader::of(json!({"simultaneous": "mover-wins"}));
        let settings = AnySettings::read(GameKind::LinesOfAction, &mut r).unwrap();
        r.finish().unwrap();
        assert_eq!(settings.kind(), GameKind::LinesOfAction);
        assert_eq!(settings.seat_roles(), ["black", "white"]);
        assert_eq!(settings.team_of(1), 1);
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"simultaneous": "mover-wins"})
        );
        let mut table = settings.new_game();
        assert_eq!(table.kind(), GameKind::LinesOfAction);
        assert_eq!(table.legal_moves_json(0).len(), 36);
        assert!(table.legal_moves_json(0).contains(&json!({"from": "b1", "to": "b3"})));
        let (played, normalised) = table.play_json(0, &json!({"from": "B1", "to": "b3"})).unwrap();
        assert!(played.turn_over);
        assert_eq!(normalised, json!({"from": "b1", "to": "b3"}));
        let view = table.view();
        for (payload, needle) in [
            (json!({"from": "a2", "to": "i2"}), "invalid square \"i2\""),
            (json!({"from": "a2", "to": "c9"}), "invalid square \"c9\""),
            (json!({"from": "a2"}), "no `to`"),
            (json!({"from": "a2", "to": "c2", "promote": true}), "unknown field"),
            (json!({"pass": false}), "may only be true"),
            (json!("a2-c2"), "expected"),
        ] {
            match table.play_json(1, &payload) {
                Err(MoveError::Malformed(bad)) => {
                    assert_eq!(bad.game, "lines-of-action");
                    assert!(bad.detail.contains(needle), "{payload}: {}", bad.detail);
                }
                other => panic!("{payload}: expected a malformed move, got {other:?}"),
            }
        }
        match table.play_json(1, &json!({"pass": true})) {
            Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "pass_not_allowed"),
            other => panic!("expected an illegal move, got {other:?}"),
        }
        match table.play_json(1, &json!({"from": "a2", "to": "b2"})) {
            Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "wrong_distance"),
            other => panic!("expected an illegal move, got {other:?}"),
        }
        assert_eq!(table.view(), view, "refusals change nothing");
        assert_eq!(table.view()["board"][5], "wb.....w");
        assert_eq!(table.active_seats(), SeatSet::only(1));
        assert!(table.outcome().is_none());
    }

    // ---------------------------------------------------------------- properties

    /// A random position a game may start from: each square black, white or empty with
    /// weights from `density`, kept only when the module accepts it.
    fn any_position() -> impl Strategy<Value = Position> {
        (1u8..=3, prop::collection::vec(0u8..16, 64), any::<bool>()).prop_filter_map(
            "a side with no pieces, too many, or already connected",
            |(density, cells, black_to_move)| {
                let board: String = cells
                    .iter()
                    .map(|&v| match v {
                        v if v < density => 'b',
                        v if v < 2 * density => 'w',
                        _ => '.',
                    })
                    .collect();
                let side = if black_to_move { 'b' } else { 'w' };
                format!("{board} {side}").parse().ok()
            },
        )
    }

    #[derive(Debug, Clone)]
    enum Step {
        Legal(usize),
        Attempt { seat: Seat, from: u8, to: u8 },
        Pass(Seat),
    }

    fn any_step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => any::<usize>().prop_map(Step::Legal),
            3 => (0u8..3, 0u8..64, 0u8..64).prop_map(|(seat, from, to)| Step::Attempt { seat, from, to }),
            1 => (0u8..3).prop_map(Step::Pass),
        ]
    }

    /// The rule code the reference expects for `attempt` by `seat`, `None` if legal.
    fn expected_code(g: &LinesOfAction, seat: Seat, attempt: LoaMove) -> Option<&'static str> {
        if g.outcome().is_some() {
            return Some("game_over");
        }
        if g.to_move() != Some(seat) {
            return Some("not_your_turn");
        }
        let (grid, side) = grid_of(&g.position());
        match attempt {
            LoaMove::Pass => (reference_moves(&grid, side) != ["pass"]).then_some("pass_not_allowed"),
            LoaMove::Step { from, to } => {
                let at = |s: Square| (i32::from(s.col()), i32::from(s.row()));
                classify(&grid, side, at(from), at(to)).err()
            }
        }
    }

    /// The checks after a legal move from `before` to `after`.
    fn check_legal_move(before: &LinesOfAction, after: &LinesOfAction, played: LoaMove) -> Result<(), TestCaseError> {
        let mover = before.board().to_move();
        let them = mover.opponent();
        let captured = match played {
            LoaMove::Step { to, .. } => before.board().piece_at(to) == Some(them),
            LoaMove::Pass => false,
        };
        prop_assert_eq!(after.board().count(mover), before.board().count(mover));
        prop_assert_eq!(
            after.board().count(them) + u32::from(captured),
            before.board().count(them),
            "a capture takes exactly one piece"
        );
        let total = |g: &LinesOfAction| g.board().count(Side::Black) + g.board().count(Side::White);
        prop_assert!(total(after) <= total(before));
        prop_assert_eq!(after.moves().len(), before.moves().len() + 1);
        prop_assert_eq!(after.view().last_move, Some(played));

        // The end, by the reference flood fill.
        let (grid, _) = grid_of(&after.position());
        let black = reference_connected(&grid, 'b');
        let white = reference_connected(&grid, 'w');
        let (mine, theirs) = if mover == Side::Black {
            (black, white)
        } else {
            (white, black)
        };
        match after.outcome() {
            None => prop_assert!(!black && !white),
            Some(outcome) => match outcome.reason {
                EndReason::Connected if mine && !theirs => prop_assert_eq!(outcome.winners(), &[mover.seat()]),
                EndReason::Connected if theirs && !mine => prop_assert_eq!(outcome.winners(), &[them.seat()]),
                EndReason::Connected => {
                    prop_assert!(mine && theirs && after.simultaneous() == Simultaneous::MoverWins);
                    prop_assert_eq!(outcome.winners(), &[mover.seat()]);
                }
                EndReason::BothConnected => {
                    prop_assert!(mine && theirs && after.simultaneous() == Simultaneous::Draw);
                    prop_assert_eq!(outcome.kind(), "draw");
                }
                EndReason::Repetition => {
                    prop_assert!(!black && !white);
                    prop_assert!(!captured);
                }
                other => prop_assert!(false, "unexpected end {:?}", other),
            },
        }
        // A running position round-trips through the notation.
        if after.outcome().is_none() {
            let again = LinesOfAction::from_position(&after.position())
                .map_err(|err| TestCaseError::fail(format!("{}: {err}", after.position())))?;
            prop_assert_eq!(again.board(), after.board());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Random play (from the start or a random position) never panics; a move is
        /// accepted exactly when `legal_moves` lists it; a refused move changes nothing
        /// (the view's JSON included) and carries the code the reference expects; every
        /// legal move keeps the piece counts, the end rules and the notation right.
        #[test]
        fn random_games_keep_every_rule(
            from_start in any::<bool>(),
            position in any_position(),
            mover_wins in any::<bool>(),
            steps in prop::collection::vec(any_step(), 0..300),
        ) {
            let settings = LoaSettings {
                simultaneous: if mover_wins { Simultaneous::MoverWins } else { Simultaneous::Draw },
                start_position: (!from_start).then_some(position),
            };
            let mut g = LinesOfAction::new(&settings);
            for step in steps {
                let (seat, attempt) = match step {
                    Step::Legal(pick) => match g.to_move() {
                        Some(seat) => {
                            let all = g.legal_moves(seat);
                            (seat, all[pick % all.len()])
                        }
                        None => (0, LoaMove::Pass),
                    },
                    Step::Attempt { seat, from, to } => (seat, LoaMove::Step { from: Square(from), to: Square(to) }),
                    Step::Pass(seat) => (seat, LoaMove::Pass),
                };
                let listed = g.legal_moves(seat).contains(&attempt);
                let expected = expected_code(&g, seat, attempt);
                let before = g.clone();
                let view_before = view_json(&g);
                match g.play(seat, &attempt) {
                    Ok(played) => {
                        prop_assert!(listed, "{} by {} was accepted but not listed", attempt, seat);
                        prop_assert_eq!(expected, None);
                        prop_assert!(played.turn_over);
                        check_legal_move(&before, &g, attempt)?;
                    }
                    Err(err) => {
                        prop_assert!(!listed, "{} by {} was listed but refused: {}", attempt, seat, err);
                        prop_assert_eq!(Some(err.rule), expected, "{} by {}: {}", attempt, seat, err);
                        prop_assert_eq!(&g, &before);
                        prop_assert_eq!(view_json(&g), view_before);
                    }
                }
            }
        }

        /// Whole random games from the start: every move agrees with the checks above; the
        /// game ends (or reaches the cap) without a panic.
        #[test]
        fn random_games_to_the_end(seed in any::<u64>()) {
            let mut g = start();
            let mut state = seed | 1;
            while let Some(seat) = g.to_move() {
                if g.moves().len() >= 600 {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let all = g.legal_moves(seat);
                let pick = all[(state % all.len() as u64) as usize];
                let before = g.clone();
                g.play(seat, &pick).map_err(|err| TestCaseError::fail(err.to_string()))?;
                check_legal_move(&before, &g, pick)?;
            }
        }

        /// The bitboard generator lists exactly the reference's moves, and perft agrees to
        /// depth 2, on random positions.
        #[test]
        fn move_generation_matches_the_reference(position in any_position()) {
            let g = LinesOfAction::from_position(&position.to_string()).unwrap();
            let (grid, side) = grid_of(&g.position());
            prop_assert_eq!(listed(&g), reference_moves(&grid, side));
            prop_assert_eq!(g.board().legal_move_count(), g.legal_moves(g.to_move().unwrap()).len() as u64);
            prop_assert_eq!(g.board().can_move(), listed(&g) != ["pass"]);
            for depth in 1..=2 {
                prop_assert_eq!(perft(&g, depth), reference_perft(&grid, side, depth), "depth {}", depth);
            }
        }

        /// Any valid position prints as the canonical notation and reads back the same.
        #[test]
        fn position_round_trips(position in any_position()) {
            let text = position.to_string();
            prop_assert_eq!(text.len(), 66);
            let g = LinesOfAction::from_position(&text).unwrap();
            prop_assert_eq!(g.board(), &position);
            prop_assert_eq!(g.position(), text.clone());
            let (grid, side) = grid_of(&text);
            prop_assert_eq!(text_of(&grid, side), text);
            let json = serde_json::to_value(position).unwrap();
            prop_assert_eq!(serde_json::from_value::<Position>(json).unwrap(), position);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Perft to depth 3 against the reference on random positions (fewer cases: the
        /// reference is slow).
        #[test]
        fn perft_depth_3_matches_the_reference(position in any_position()) {
            let g = LinesOfAction::from_position(&position.to_string()).unwrap();
            let (grid, side) = grid_of(&g.position());
            prop_assert_eq!(perft(&g, 3), reference_perft(&grid, side, 3));
        }
    }
}
