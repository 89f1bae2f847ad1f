//! Krux: the board, the rings, turns built from parts, the win by the hole and the draws.
//! The rules are those of `shared/rules/krux.md` (house rules where the source is silent);
//! this module and its children own everything that page asks of the server, and the
//! decisions below.
//!
//! Layout, one concept per file:
//! - `mod.rs` (here): the pieces, rings and positions, the game [`Krux`] and its [`Rules`].
//! - `square.rs`: squares and the board geometry.
//! - `part.rs`: the parts of a turn and the moves on the wire.
//! - `turn.rs`: the turn in progress: validating and applying one part.
//! - `notation.rs`: the one-line position notation.
//! - `view.rs`: the public view.
//! - `enumerate.rs`: turn enumeration, perft, and what bots ask of a turn.
//! - `reach.rs`: the same enumeration, fast and without the parts, for searches.
//!
//! Decisions made here:
//! - **Board.** 7 × 7, columns `a`–`g`, rows `1`–`7` (row 1 at the bottom), the hole on
//!   `d4`. A square is one column letter and a row number, like `c2`; upper case is
//!   accepted on input, lower case is always emitted. The row is 1–99 without leading
//!   zeros; anything else is refused when the move is decoded. A well-formed square off
//!   the board (`h1`, `c8`) decodes and is refused by the rules as `off_board`.
//!   "Adjacent" is orthogonal; distances are |dx| + |dy|.
//! - **Seats and pieces.** Seat 0 is white (pieces 1, 3, 5), seat 1 is black (2, 4, 6);
//!   roles `["white", "black"]`. Pieces move in the order 1, 2, …, 6, 1, … and the seat to
//!   move ([`Rules::active_seats`]) is the owner of the piece in turn, for the whole turn
//!   (its clock runs until the turn ends); empty once the game is over.
//! - **Start.** The house-rule position `1c1 2e7 3b2 4f6 5a3 6g5 / 1`, or the table
//!   setting `start_position`. The rule page asks that neither player can put an opponent's
//!   piece into the hole in their first turn. The engine proves that white's first turn
//!   cannot win from it, but black's can after 1636 of white's 2132 possible first turns
//!   (white walking piece 1 towards the hole, for instance), and an exhaustive search
//!   shows that this holds for **every** symmetric start (black = white turned 180° about
//!   the hole): no symmetric position meets the requirement as written. What does hold for
//!   the house start: white cannot win in turn 1, and black cannot win in turn 1 if white
//!   passes (with any ring). See the tests.
//! - **Parts.** A turn is built from parts, each one [`Part`] on the wire, tagged by
//!   `"part"`, with no other fields than its own:
//!   `{"part":"ring","ring":"blue"|"green"|"pink"}`, `{"part":"step","to":"c2"}`,
//!   `{"part":"push","target":"e7"}`, `{"part":"pull","target":"e7"}`,
//!   `{"part":"pick_up","target":"c3"}`, `{"part":"set_down","to":"c4"}` (`to` may be the
//!   hole), `{"part":"jump","to":"c5"}`, `{"part":"swap","target":"f6"}`,
//!   `{"part":"end"}`. **Targets are squares**: every piece on the board stands on its own
//!   square, so a square names a piece; the only piece without a square (the carried one)
//!   is never a target. Piece numbers are not accepted.
//! - **Moves.** A [`KruxMove`] is either one part (validated and applied at once; the
//!   table broadcasts it) or a whole turn `{"turn":[part, …]}` applied **atomically** on a
//!   clone: all parts or none. The list must end the turn exactly with its last part (by
//!   `end`, by using the last of three steps and two actions, or by a win); a list that
//!   stops short, goes on after the turn ended, is empty or is longer than
//!   [`MAX_TURN_PARTS`] is refused as `bad_turn`. A refused part in a list is refused with
//!   that part's own rule, its message prefixed by `part N of the turn (kind): `. A list
//!   may also finish a turn begun part by part. [`Played::turn_over`] is true when the
//!   turn passed to the next piece or the game ended.
//! - **Rings.** When a piece without a ring is in turn and a ring is free (with the turn
//!   order and the valid positions, exactly a piece's first turn while rings remain: pieces
//!   1, 2, 3), the **first part must be `ring`**, choosing one of the free rings; anything
//!   else, `end` included, is refused as `choose_ring`. The choice is mandatory (the rule
//!   page says the piece receives a ring), even when one ring is left. The power is
//!   usable in the same turn; the ring stays for the rest of the game.
//! - **Steps.** At most [`MAX_STEPS`]; one square orthogonally to an empty square, never
//!   into the hole. Pinning is checked at every step, mid-turn included: a piece next to an
//!   opponent's piece may not step (an own piece does not pin; a carried piece is off the
//!   board and pins nobody).
//! - **Actions.** At most [`MAX_ACTIONS`], on own and opponent pieces alike. Push and pull
//!   need another piece in the same row or column with no piece between (the hole is not
//!   a piece). A push moves the target up to two squares away, stopped by the edge or a
//!   piece; a pull moves it up to two squares towards the piece in turn, stopping next to
//!   it. Either may pass over the hole; the piece falls in only if it ends exactly on the
//!   hole. An action that would move nothing is refused (`no_effect`) and costs nothing.
//! - **Blue, carrier.** `pick_up` an adjacent piece (it uses the action at once and the
//!   piece leaves the board: the view shows its square as `"carried"`); steps go on, with
//!   pinning applied to the carrier; no other action and no `end` until `set_down` on an
//!   adjacent empty square or the hole. Setting the piece down where it was picked up is
//!   allowed (the pick-up moved it). A set-down is always possible: the square the piece
//!   was picked up from, or the one the carrier last stepped from, is adjacent and empty.
//! - **Green, jumper.** `jump` to an empty square within [`JUMP_RANGE`] (over anything,
//!   never into the hole; its own square allowed). Every orthogonal neighbour of the
//!   landing square is shoved one square directly away if that square is on the board and
//!   empty (the square the jumper left counts as empty) or the hole; all shoves are
//!   simultaneous (they land two squares from the jumper, so they never collide). Landing
//!   on its own square with nothing shoved is `no_effect`.
//! - **Pink, swapper.** `swap` with any piece within [`SWAP_RANGE`], own or opponent's,
//!   whatever lies between. The hole never holds a piece, so a swap never involves it.
//! - **The hole.** Any part that would put one's own piece into the hole is refused
//!   (`into_hole` for the piece in turn stepping or jumping in, `own_piece_into_hole` for
//!   a push, pull, shove or set-down). An opponent's piece entering the hole ends the game
//!   at that instant: [`Outcome::win`] for the mover's seat, [`EndReason::Hole`], detail
//!   `{"fallen": n}`; the rest of the turn is not played. One action can never put two
//!   pieces into the hole (push, pull, set-down and swap move one piece; only one
//!   neighbour of a landing square can be shoved onto `d4`); if it could, the own-piece
//!   rule would refuse it.
//! - **Turn end.** By `end` (refused while a ring must be chosen, `choose_ring`, or while
//!   carrying, `must_set_down`), or automatically after the part that uses the third step
//!   and the second action when nothing is carried. `[{"part":"end"}]` alone is a pass
//!   (after the ring choice, in a first turn).
//! - **Draws.** A *turn* is one piece's turn, from its first part to its end (a pass
//!   counts). At each turn boundary the position (piece squares, rings, piece in turn) is
//!   counted, the starting position counting once at the start; its third occurrence is a
//!   draw by [`EndReason::Repetition`]. Otherwise, when the 300th turn ([`TURN_LIMIT`])
//!   ends without a winner, the game is a draw by [`EndReason::MoveLimit`]. Positions in
//!   the middle of a turn are never counted.
//! - **Refused parts.** Rule codes, checked in this order; the first that applies is
//!   reported, and a refused part changes nothing:
//!
//!   | part | rules, in order |
//!   |---|---|
//!   | any part | `game_over`, `not_your_turn`, then `choose_ring` when a ring is due and the part is not `ring` |
//!   | `turn` list | `bad_turn` (empty, or longer than 8), then each part's rules, then `bad_turn` (ended early, or not at all) |
//!   | `ring` | `no_ring_due`, `ring_taken` |
//!   | `step` | `no_steps_left`, `pinned`, `off_board`, `not_adjacent`, `into_hole`, `occupied` |
//!   | `push`, `pull` | `carrying`, `no_actions_left`, `off_board`, `no_piece`, `self_target`, `not_in_line`, `blocked`, `no_effect`, `own_piece_into_hole` |
//!   | `pick_up` | `carrying`, `wrong_ring`, `no_actions_left`, `off_board`, `no_piece`, `self_target`, `not_adjacent` |
//!   | `set_down` | `not_carrying`, `off_board`, `not_adjacent`, `occupied`, `own_piece_into_hole` |
//!   | `jump` | `carrying`, `wrong_ring`, `no_actions_left`, `off_board`, `too_far`, `into_hole`, `occupied`, `no_effect`, `own_piece_into_hole` |
//!   | `swap` | `carrying`, `wrong_ring`, `no_actions_left`, `off_board`, `no_piece`, `self_target`, `too_far` |
//!   | `end` | `must_set_down` |
//!
//! - **Notation**, **view** and **perft**: see `notation.rs`, `view.rs` and `enumerate.rs`.

mod enumerate;
mod notation;
mod part;
mod reach;
mod square;
#[cfg(test)]
mod test_support;
mod turn;
mod view;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};
pub use enumerate::{perft, perft1, turn_outcomes, winning_turn};
pub use notation::PositionError;
pub use part::{KruxMove, Part};
pub use reach::{can_win, next_positions};
pub use square::Square;
use square::name;
use turn::{Effect, State, refuse};
pub use view::{KruxView, PieceView, TurnView};

/// Columns and rows of the board.
pub const SIZE: u8 = 7;
/// Steps a piece may take in one turn.
pub const MAX_STEPS: u8 = 3;
/// Actions a piece may perform in one turn.
pub const MAX_ACTIONS: u8 = 2;
/// A jump lands within this many orthogonal steps.
pub const JUMP_RANGE: u8 = 3;
/// A swap reaches a piece within this many orthogonal steps.
pub const SWAP_RANGE: u8 = 5;
/// The game is drawn when this many turns have been played without a winner.
pub const TURN_LIMIT: u32 = 300;
/// The most parts a turn can have: a ring, three steps, two pick-up + set-down pairs
/// (the last step or set-down ends the turn by itself), or a ring, two steps, two pairs and
/// `end`. A longer `turn` list is refused before any part is tried.
pub const MAX_TURN_PARTS: usize = 8;

/// The number of squares.
const CELLS: u8 = SIZE * SIZE;
/// The hole, d4, as a square index (`row * 7 + col`).
const HOLE_INDEX: u8 = 3 * SIZE + 3;
/// Where a carried piece is: off the board, in the carrier's hands.
const CARRIED: u8 = 0xFE;
/// The four step directions (column, row): north, east, south, west.
const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

// ------------------------------------------------------------------ rings, colours

/// One of the three rings and its power.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ring {
    /// Carrier: `pick_up` and `set_down`.
    Blue,
    /// Jumper: `jump`.
    Green,
    /// Swapper: `swap`.
    Pink,
}

impl Ring {
    /// Every ring, in the order the view lists free rings.
    pub const ALL: [Ring; 3] = [Ring::Blue, Ring::Green, Ring::Pink];

    /// The wire name: `blue`, `green` or `pink`.
    pub fn name(self) -> &'static str {
        match self {
            Ring::Blue => "blue",
            Ring::Green => "green",
            Ring::Pink => "pink",
        }
    }

    /// The letter in the position notation: `b`, `g` or `p`.
    pub fn letter(self) -> char {
        match self {
            Ring::Blue => 'b',
            Ring::Green => 'g',
            Ring::Pink => 'p',
        }
    }

    fn from_letter(letter: &str) -> Option<Ring> {
        match letter.to_ascii_lowercase().as_str() {
            "b" => Some(Ring::Blue),
            "g" => Some(Ring::Green),
            "p" => Some(Ring::Pink),
            _ => None,
        }
    }

    /// What the ring lets its piece do.
    pub fn power(self) -> &'static str {
        match self {
            Ring::Blue => "carrier",
            Ring::Green => "jumper",
            Ring::Pink => "swapper",
        }
    }
}

/// A player's colour: white owns pieces 1, 3 and 5 and sits in seat 0; black owns 2, 4 and 6
/// and sits in seat 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    /// The colour of piece `number` (1–6): odd numbers are white.
    pub fn of_piece(number: u8) -> Colour {
        if number % 2 == 1 { Colour::White } else { Colour::Black }
    }

    /// The seat playing this colour.
    pub fn seat(self) -> Seat {
        match self {
            Colour::White => 0,
            Colour::Black => 1,
        }
    }

    /// The role name: `white` or `black`.
    pub fn role(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }
}

/// The colour of the piece at index `piece` (0-based: index 0 is piece 1).
fn colour(piece: u8) -> Colour {
    Colour::of_piece(piece + 1)
}

// --------------------------------------------------------------------- positions

/// The pieces, rings and piece in turn. Inside a turn a piece may be [`CARRIED`], and once
/// the game is won one piece lies in the hole ([`HOLE_INDEX`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Board {
    /// Where each piece is, by index (0 is piece 1): a square index, `CARRIED` or the hole.
    loc: [u8; 6],
    rings: [Option<Ring>; 6],
    /// Index of the piece in turn (0 is piece 1).
    in_turn: u8,
}

impl Board {
    fn piece_at(&self, square: u8) -> Option<u8> {
        (0..6u8).find(|&piece| self.loc[usize::from(piece)] == square)
    }

    fn free_rings(&self) -> impl Iterator<Item = Ring> + '_ {
        Ring::ALL.into_iter().filter(|ring| !self.rings.contains(&Some(*ring)))
    }

    /// Whether the piece in turn must choose a ring before anything else: it has none and
    /// a ring is free. (In every valid position that is exactly a piece's first turn while
    /// rings remain; see the module doc.)
    fn ring_due(&self) -> bool {
        self.rings[usize::from(self.in_turn)].is_none() && self.free_rings().next().is_some()
    }
}

/// A position at a turn boundary: the square of each piece, the ring on each piece and the
/// piece in turn. Written in the one-line notation of the module doc
/// (`1c1 2e7 3b2 4f6 5a3 6g5 / 1`); [`FromStr`](std::str::FromStr) accepts exactly the valid positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KruxPosition(Board);

impl KruxPosition {
    /// The house-rule starting position `1c1 2e7 3b2 4f6 5a3 6g5 / 1`.
    pub fn start() -> KruxPosition {
        let at = |text: &str| text.parse::<Square>().ok().and_then(Square::index).unwrap_or(0);
        KruxPosition(Board {
            loc: [at("c1"), at("e7"), at("b2"), at("f6"), at("a3"), at("g5")],
            rings: [None; 6],
            in_turn: 0,
        })
    }

    /// The square of piece `number` (1–6).
    pub fn square(&self, number: u8) -> Option<Square> {
        let loc = *self.0.loc.get(usize::from(number.checked_sub(1)?))?;
        Some(name(loc))
    }

    /// The ring on piece `number` (1–6).
    pub fn ring(&self, number: u8) -> Option<Ring> {
        *self.0.rings.get(usize::from(number.checked_sub(1)?))?
    }

    /// The number (1–6) of the piece in turn.
    pub fn piece_in_turn(&self) -> u8 {
        self.0.in_turn + 1
    }

    /// A 64-bit key, different for every position (for a search's transposition table).
    pub fn key(&self) -> u64 {
        reach::pack(&self.0)
    }
}

impl Default for KruxPosition {
    fn default() -> KruxPosition {
        KruxPosition::start()
    }
}

// ------------------------------------------------------------------------ the game

/// A Krux table's settings: `{}` or `{"start_position": "1c1 2e7 3b2 4f6 5a3 6g5 / 1"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KruxSettings {
    /// The position the game starts from; the house-rule start when absent. Serialised only
    /// when set, in canonical notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_position: Option<KruxPosition>,
}

/// A game of Krux in progress or finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Krux {
    state: State,
    /// The position at the last turn boundary.
    turn_start: KruxPosition,
    /// The parts of the current turn.
    parts: Vec<Part>,
    last_turn: Vec<Part>,
    turns_completed: u32,
    /// How often each position occurred at a turn boundary (the start included).
    seen: HashMap<KruxPosition, u8>,
    outcome: Option<Outcome>,
    /// The game ended at a turn boundary (repetition or the turn cap).
    ended_at_boundary: bool,
}

impl Krux {
    /// A game starting from `position`, with turn 1 to play.
    pub fn with_position(position: KruxPosition) -> Krux {
        Krux {
            state: State::at_boundary(position),
            turn_start: position,
            parts: Vec::new(),
            last_turn: Vec::new(),
            turns_completed: 0,
            seen: HashMap::from([(position, 1)]),
            outcome: None,
            ended_at_boundary: false,
        }
    }

    /// A game starting from a position in notation.
    pub fn from_position(text: &str) -> Result<Krux, PositionError> {
        text.parse().map(Krux::with_position)
    }

    /// The position at the last turn boundary, in notation.
    pub fn position(&self) -> String {
        self.turn_start.to_string()
    }

    /// The position at the last turn boundary.
    pub fn turn_start(&self) -> KruxPosition {
        self.turn_start
    }

    /// The number (1–6) of the piece in turn.
    pub fn piece_in_turn(&self) -> u8 {
        self.state.mover_number()
    }

    /// The seat to move, `None` once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        self.outcome.is_none().then(|| colour(self.state.mover()).seat())
    }

    /// Where piece `number` (1–6) is now: `None` while carried or in the hole.
    pub fn square_of(&self, number: u8) -> Option<Square> {
        let loc = *self.state.board.loc.get(usize::from(number.checked_sub(1)?))?;
        (loc < CELLS && loc != HOLE_INDEX).then(|| name(loc))
    }

    /// The ring on piece `number` (1–6).
    pub fn ring_of(&self, number: u8) -> Option<Ring> {
        *self.state.board.rings.get(usize::from(number.checked_sub(1)?))?
    }

    pub fn steps_left(&self) -> u8 {
        MAX_STEPS - self.state.steps
    }

    pub fn actions_left(&self) -> u8 {
        MAX_ACTIONS - self.state.actions
    }

    /// The number of the carried piece.
    pub fn carrying(&self) -> Option<u8> {
        self.state.carrying.map(|piece| piece + 1)
    }

    /// The parts played so far in the current turn.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Turns played to their end.
    pub fn turns_completed(&self) -> u32 {
        self.turns_completed
    }

    /// How often `position` has occurred at a turn boundary so far (the start included);
    /// its third occurrence draws.
    pub fn occurrences(&self, position: &KruxPosition) -> u8 {
        self.seen.get(position).copied().unwrap_or(0)
    }

    /// The number of the current turn (see the module doc).
    pub fn turn_number(&self) -> u32 {
        if self.ended_at_boundary {
            self.turns_completed
        } else {
            self.turns_completed + 1
        }
    }

    fn check_seat(&self, seat: Seat) -> Result<(), RuleError> {
        if self.outcome.is_some() {
            return refuse("game_over", "the game is over".to_owned());
        }
        let mover = colour(self.state.mover());
        if seat != mover.seat() {
            return refuse(
                "not_your_turn",
                format!("it is the turn of piece {} ({})", self.piece_in_turn(), mover.role()),
            );
        }
        Ok(())
    }

    fn play_part(&mut self, seat: Seat, part: Part) -> Result<Played, RuleError> {
        self.check_seat(seat)?;
        let mover = self.state.mover();
        let effect = self.state.apply(part)?;
        self.parts.push(part);
        match effect {
            Effect::Continue => return Ok(Played { turn_over: false }),
            Effect::Won => {
                let fallen = (0..6u8).find(|&p| self.state.board.loc[usize::from(p)] == HOLE_INDEX);
                let mut outcome = Outcome::win(vec![colour(mover).seat()], EndReason::Hole);
                outcome.detail = json!({ "fallen": fallen.map(|p| p + 1) });
                self.outcome = Some(outcome);
            }
            Effect::TurnOver => {
                self.turns_completed += 1;
                self.last_turn = std::mem::take(&mut self.parts);
                self.turn_start = KruxPosition(self.state.board);
                let count = self.seen.entry(self.turn_start).or_insert(0);
                *count += 1;
                if *count >= 3 {
                    self.outcome = Some(Outcome::draw(EndReason::Repetition));
                    self.ended_at_boundary = true;
                } else if self.turns_completed >= TURN_LIMIT {
                    self.outcome = Some(Outcome::draw(EndReason::MoveLimit));
                    self.ended_at_boundary = true;
                }
            }
        }
        Ok(Played { turn_over: true })
    }

    fn play_turn(&mut self, seat: Seat, parts: &[Part]) -> Result<Played, RuleError> {
        self.check_seat(seat)?;
        if parts.is_empty() {
            return refuse(
                "bad_turn",
                "an empty list does not end the turn; a pass is [{\"part\":\"end\"}]".to_owned(),
            );
        }
        if parts.len() > MAX_TURN_PARTS {
            return refuse(
                "bad_turn",
                format!("a turn has at most {MAX_TURN_PARTS} parts, not {}", parts.len()),
            );
        }
        let mut next = self.clone();
        for (i, part) in parts.iter().enumerate() {
            let played = next.play_part(seat, *part).map_err(|err| {
                RuleError::new(
                    err.rule,
                    format!("part {} of the turn ({}): {}", i + 1, part.kind(), err.message),
                )
            })?;
            let last = i + 1 == parts.len();
            if played.turn_over && !last {
                return refuse(
                    "bad_turn",
                    format!(
                        "the turn ended with part {}, but the list has {} parts",
                        i + 1,
                        parts.len()
                    ),
                );
            }
            if !played.turn_over && last {
                return refuse(
                    "bad_turn",
                    "the list does not end the turn: finish it with {\"part\":\"end\"}".to_owned(),
                );
            }
        }
        *self = next;
        Ok(Played { turn_over: true })
    }
}

impl Rules for Krux {
    type Settings = KruxSettings;
    type Move = KruxMove;
    type View = KruxView;

    /// Three bytes a part ([`KruxMove::pack`]).
    fn pack(mv: &KruxMove, out: &mut Vec<u8>) {
        mv.pack(out);
    }

    fn unpack(bytes: &[u8]) -> Option<KruxMove> {
        KruxMove::unpack(bytes)
    }

    fn read_settings(reader: &mut SettingsReader) -> Result<KruxSettings, SettingError> {
        let start_position = reader
            .take::<String>("start_position")?
            .map(|text| {
                text.parse::<KruxPosition>()
                    .map_err(|err| SettingError::new("settings.start_position", err.to_string()))
            })
            .transpose()?;
        Ok(KruxSettings { start_position })
    }

    fn seat_roles(_settings: &KruxSettings) -> &'static [&'static str] {
        &["white", "black"]
    }

    fn new(settings: &KruxSettings) -> Krux {
        Krux::with_position(settings.start_position.unwrap_or_default())
    }

    fn active_seats(&self) -> SeatSet {
        self.to_move().map_or(SeatSet::EMPTY, SeatSet::only)
    }

    fn play(&mut self, seat: Seat, mv: &KruxMove) -> Result<Played, RuleError> {
        match mv {
            KruxMove::Part(part) => self.play_part(seat, *part),
            KruxMove::Turn(parts) => self.play_turn(seat, parts),
        }
    }

    fn finish(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn view(&self) -> KruxView {
        self.build_view()
    }

    fn move_text(&self, _seat: Seat, mv: &KruxMove) -> String {
        match mv {
            KruxMove::Part(part) => part.to_string(),
            KruxMove::Turn(parts) => parts.iter().map(Part::to_string).collect::<Vec<_>>().join(", "),
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<KruxMove> {
        if self.check_seat(seat).is_err() {
            return Vec::new();
        }
        self.state.legal_parts().into_iter().map(KruxMove::Part).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::krux::test_support::*;
    use crate::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::collections::HashSet;

    #[test]
    fn through_any_game_json_edges() {
        use crate::{AnySettings, GameKind, MoveError};
        assert_eq!(GameKind::from_id("krux"), Some(GameKind::Krux));
        assert_eq!(GameKind::Krux.id(), "krux");
        let mut r = SettingsReader::new(
            json!({"start_position": "1C1B 2e7G 3b2P 4f6 5a3 6g5 / 4"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let settings = AnySettings::read(GameKind::Krux, &mut r).unwrap();
        r.finish().unwrap();
        assert_eq!(settings.kind(), GameKind::Krux);
        assert_eq!(settings.seat_roles(), ["white", "black"]);
        assert_eq!(
            serde_json::to_value(&settings).unwrap(),
            json!({"start_position": "1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4"})
        );
        let mut table = settings.new_game();
        assert_eq!(table.kind(), GameKind::Krux);
        assert_eq!(table.active_seats(), SeatSet::only(1));
        let (played, normalised) = table.play_json(1, &json!({"part":"step","to":"F5"})).unwrap();
        assert!(!played.turn_over);
        assert_eq!(normalised, json!({"part":"step","to":"f5"}));
        match table.play_json(1, &json!({"part":"step","to":"f9"})) {
            Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "off_board"),
            other => panic!("expected off_board, got {other:?}"),
        }
        match table.play_json(1, &json!({"part":"stomp"})) {
            Err(MoveError::Malformed(bad)) => assert_eq!(bad.game, "krux"),
            other => panic!("expected a malformed move, got {other:?}"),
        }
        match table.play_json(0, &json!({"part":"end"})) {
            Err(MoveError::Illegal(err)) => assert_eq!(err.rule, "not_your_turn"),
            other => panic!("expected not_your_turn, got {other:?}"),
        }
        let (played, normalised) = table
            .play_json(1, &json!({"turn":[{"part":"step","to":"f4"},{"part":"end"}]}))
            .unwrap();
        assert!(played.turn_over);
        assert_eq!(normalised, json!({"turn":[{"part":"step","to":"f4"},{"part":"end"}]}));
        assert_eq!(table.active_seats(), SeatSet::only(0));
        assert_eq!(table.view()["position"], "1c1b 2e7g 3b2p 4f4 5a3 6g5 / 5");
        assert_eq!(table.view()["turn"]["parts"], json!([]));
        let legal = table.legal_moves_json(0);
        assert!(legal.contains(&json!({"part":"end"})));
        assert!(legal.contains(&json!({"part":"step","to":"a4"})));
        assert!(table.legal_moves_json(1).is_empty());
    }

    #[test]
    fn settings_default_and_start_position_read_back_identically() {
        let mut r = SettingsReader::of(json!({}));
        let default = Krux::read_settings(&mut r).unwrap();
        assert_eq!(default, KruxSettings::default());
        assert_eq!(serde_json::to_value(&default).unwrap(), json!({}));
        assert_eq!(Krux::new(&default).position(), "1c1 2e7 3b2 4f6 5a3 6g5 / 1");
        assert_eq!(Krux::seat_roles(&default), ["white", "black"]);

        let mut r = SettingsReader::of(json!({"start_position": "2e7 1C1 3b2 4f6 5a3 6g5/1", "other": 1}));
        let set = Krux::read_settings(&mut r).unwrap();
        assert_eq!(r.finish().unwrap_err().field, "settings.other");
        let wire = serde_json::to_value(&set).unwrap();
        assert_eq!(wire, json!({"start_position": "1c1 2e7 3b2 4f6 5a3 6g5 / 1"}));
        let again = Krux::read_settings(&mut SettingsReader::of(wire.clone())).unwrap();
        assert_eq!(again, set);
        assert_eq!(serde_json::to_value(&again).unwrap(), wire);
        assert_eq!(Krux::new(&again).position(), "1c1 2e7 3b2 4f6 5a3 6g5 / 1");

        let err = Krux::read_settings(&mut SettingsReader::of(
            json!({"start_position": "1c1 2e7 3b2 4f6 5c1 6g5 / 1"}),
        ))
        .unwrap_err();
        assert_eq!(err.field, "settings.start_position");
        assert!(err.message.contains("pieces 1 and 5 are both on c1"), "{}", err.message);
        let err = Krux::read_settings(&mut SettingsReader::of(json!({"start_position": 17}))).unwrap_err();
        assert_eq!(err.field, "settings.start_position");
        let null = Krux::read_settings(&mut SettingsReader::of(json!({"start_position": null}))).unwrap();
        assert_eq!(null, KruxSettings::default());
    }

    /// Found by fuzzing (fuzz/ `notation` and `start_position`): a square far off the board
    /// (rows up to 99 decode) overflowed `row * 7` in debug builds, so a position or a move
    /// naming one panicked instead of being refused.
    #[test]
    fn squares_far_off_the_board_are_refused_not_overflowed() {
        let err = "1C1B 2e7g 3b2p 4f6 5a3 6g51 / 4".parse::<KruxPosition>().unwrap_err();
        assert!(
            err.reason.contains("piece 6 is on g51, off the 7 × 7 board"),
            "{}",
            err.reason
        );
        let err = Krux::read_settings(&mut SettingsReader::of(
            json!({"start_position": "1a3b 2b1g 3c82 4a1 5e5 6a2 / 4"}),
        ))
        .unwrap_err();
        assert_eq!(err.field, "settings.start_position");

        let mut game = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4").unwrap();
        for far in ["f50", "a99", "z37"] {
            let part = json!({"part": "step", "to": far});
            let err = game.play(1, &serde_json::from_value(part).unwrap()).unwrap_err();
            assert_eq!(err.rule, "off_board", "{far}: {}", err.message);
        }
    }

    #[test]
    fn repetition_draws_on_the_third_occurrence() {
        // The house start with rings 1 blue, 2 green, 3 pink, piece 1 in turn:
        //      a b c d e f g
        //   7  . . . . 2 . .
        //   6  . . . . . 4 .
        //   5  . . . . . . 6
        //   4  . . . o . . .
        //   3  5 . . . . . .
        //   2  . 3 . . . . .
        //   1  . . 1 . . . .
        let start = "1c1b 2e7g 3b2p 4f6 5a3 6g5 / 1";
        let mut g = Krux::from_position(start).unwrap();
        // Piece 1 wanders off and back within its turn: at the boundary it is a pass.
        for p in [
            json!({"part":"step","to":"c2"}),
            json!({"part":"step","to":"c1"}),
            json!({"part":"end"}),
        ] {
            ok(&mut g, p);
        }
        for turn in 2..=12 {
            assert_eq!(g.outcome(), None, "turn {turn}");
            ok(&mut g, json!({"part":"end"}));
        }
        // The start (1), after turn 6 (2), after turn 12 (3).
        assert_eq!(g.outcome(), Some(&Outcome::draw(EndReason::Repetition)));
        assert_eq!(g.position(), start);
        assert_eq!(g.turn_number(), 12);
        assert_eq!(g.view().to_move, None);
        assert_eq!(refused_after_end(&mut g), "game_over");
    }

    #[test]
    fn turn_cap_draws_when_turn_300_ends() {
        // The house start with rings 1 blue, 2 green, 3 pink, piece 1 in turn:
        //      a b c d e f g
        //   7  . . . . 2 . .
        //   6  . . . . . 4 .
        //   5  . . . . . . 6
        //   4  . . . o . . .
        //   3  5 . . . . . .
        //   2  . 3 . . . . .
        //   1  . . 1 . . . .
        let mut g = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 1").unwrap();
        // Stand in for 298 turns played without a repetition.
        g.turns_completed = 298;
        ok(&mut g, json!({"part":"end"}));
        assert_eq!(g.outcome(), None);
        assert_eq!(g.turn_number(), 300);
        ok(&mut g, json!({"part":"end"}));
        assert_eq!(g.outcome(), Some(&Outcome::draw(EndReason::MoveLimit)));
        assert_eq!(g.turn_number(), 300);
    }

    #[test]
    fn a_real_game_of_300_quiet_turns_is_drawn_by_the_cap() {
        // Every turn is a pass or a single step, never an action, so nobody can win; each
        // turn takes the option whose position has occurred least often.
        let mut g = Krux::new(&KruxSettings::default());
        while g.outcome().is_none() {
            let seat = mover(&g);
            let mut options: Vec<Vec<Part>> = Vec::new();
            for mv in g.legal_moves(seat) {
                if let KruxMove::Part(p @ (Part::Step { .. } | Part::Ring { .. })) = mv {
                    options.push(vec![p, Part::End {}]);
                }
            }
            options.push(vec![Part::End {}]);
            // The least repeated next position; ties rotate with the turn number.
            let rotate = g.turns_completed() as usize;
            let next = (0..options.len())
                .map(|i| &options[(i + rotate) % options.len()])
                .filter_map(|parts| {
                    let mut next = g.clone();
                    next.play(seat, &KruxMove::Turn(parts.clone())).ok()?;
                    Some((next.seen[&next.turn_start], next))
                })
                .min_by_key(|(count, _)| *count)
                .map(|(_, next)| next);
            g = next.expect("a pass is always legal");
            assert_ne!(g.outcome().map(|o| o.reason), Some(EndReason::Repetition));
        }
        assert_eq!(g.outcome(), Some(&Outcome::draw(EndReason::MoveLimit)));
        assert_eq!(g.turns_completed(), 300);
        assert_eq!(g.turn_number(), 300);
    }

    #[test]
    fn finish_from_outside_stands_and_stops_play() {
        let mut g = Krux::new(&KruxSettings::default());
        ok(&mut g, json!({"part":"ring","ring":"blue"}));
        let resigned = Outcome::win(vec![1], EndReason::Resignation);
        g.finish(resigned.clone());
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome(), Some(&resigned));
        assert_eq!(g.turn_number(), 1);
        assert_eq!(refused_after_end(&mut g), "game_over");
    }

    // ---------------------------------------------------------------- whole turns

    fn turn(parts: &[Value]) -> KruxMove {
        KruxMove::Turn(parts.iter().cloned().map(part).collect())
    }

    /// Sends a whole turn for the seat in turn, expecting a refusal that changes nothing.
    fn turn_refused(g: &mut Krux, parts: &[Value]) -> RuleError {
        let before = g.clone();
        let view = view_json(g);
        let seat = mover(g);
        let err = g.play(seat, &turn(parts)).unwrap_err();
        assert_eq!(g, &before);
        assert_eq!(view_json(g), view);
        err
    }

    #[test]
    fn a_whole_turn_is_applied_all_or_nothing() {
        let mut g = Krux::new(&KruxSettings::default());
        let err = turn_refused(
            &mut g,
            &[
                json!({"part":"ring","ring":"pink"}),
                json!({"part":"step","to":"c2"}),
                json!({"part":"step","to":"b2"}),
                json!({"part":"end"}),
            ],
        );
        assert_eq!(err.rule, "occupied");
        assert!(
            err.message.starts_with("part 3 of the turn (step): b2 holds piece 3"),
            "{}",
            err.message
        );
        let err = turn_refused(
            &mut g,
            &[json!({"part":"ring","ring":"pink"}), json!({"part":"step","to":"c2"})],
        );
        assert_eq!(err.rule, "bad_turn");
        let err = turn_refused(
            &mut g,
            &[
                json!({"part":"ring","ring":"pink"}),
                json!({"part":"end"}),
                json!({"part":"end"}),
            ],
        );
        assert_eq!(err.rule, "bad_turn");
        assert!(err.message.contains("ended with part 2"), "{}", err.message);
        assert_eq!(turn_refused(&mut g, &[]).rule, "bad_turn");
        assert_eq!(turn_refused(&mut g, &vec![json!({"part":"end"}); 9]).rule, "bad_turn");
        assert_eq!(turn_refused(&mut g, &[json!({"part":"end"})]).rule, "choose_ring");
        let wrong_seat = g.play(1, &turn(&[json!({"part":"ring","ring":"pink"}), json!({"part":"end"})]));
        assert_eq!(wrong_seat.unwrap_err().rule, "not_your_turn");

        let played = g
            .play(
                0,
                &turn(&[
                    json!({"part":"ring","ring":"pink"}),
                    json!({"part":"step","to":"c2"}),
                    json!({"part":"step","to":"c3"}),
                    json!({"part":"step","to":"c4"}),
                    json!({"part":"swap","target":"e7"}),
                    json!({"part":"end"}),
                ]),
            )
            .unwrap();
        assert!(played.turn_over);
        assert_eq!(g.position(), "1e7p 2c4 3b2 4f6 5a3 6g5 / 2");
        assert_eq!(g.view().last_turn.len(), 6);

        // A list may finish a turn begun part by part.
        ok(&mut g, json!({"part":"ring","ring":"blue"}));
        let err = turn_refused(&mut g, &[json!({"part":"ring","ring":"green"}), json!({"part":"end"})]);
        assert_eq!(err.rule, "no_ring_due");
        g.play(1, &turn(&[json!({"part":"step","to":"c3"}), json!({"part":"end"})]))
            .unwrap();
        assert_eq!(g.position(), "1e7p 2c3b 3b2 4f6 5a3 6g5 / 3");
        assert_eq!(
            g.view().last_turn,
            [
                Part::Ring { ring: Ring::Blue },
                Part::Step { to: sq("c3") },
                Part::End {}
            ]
        );
    }

    #[test]
    fn a_whole_turn_may_end_by_itself_or_by_a_win() {
        let diagram = r"
            1 . . . . . 2
            . . . . . . .
            . . . . . . .
            . . . o . . .
            . . . . . . .
            . . . 5 . . .
            3 . . 4 . . 6
            ";
        // The push wins at once; nothing may follow it.
        let mut g = game(diagram, "1b 2g 3p", 4);
        let err = turn_refused(&mut g, &[json!({"part":"push","target":"d2"}), json!({"part":"end"})]);
        assert_eq!(err.rule, "bad_turn");
        g.play(1, &turn(&[json!({"part":"push","target":"d2"})])).unwrap();
        won_by(&g, 1, 5);
        // Three steps and two actions end the turn: no `end` after them.
        let mut g = Krux::from_position("1c1b 2e7g 3b2p 4f6 5a3 6g5 / 4").unwrap();
        let full = [
            json!({"part":"step","to":"f5"}),
            json!({"part":"step","to":"f4"}),
            json!({"part":"step","to":"f3"}),
            json!({"part":"pull","target":"a3"}),
            json!({"part":"pull","target":"c3"}),
        ];
        let mut too_long = full.to_vec();
        too_long.push(json!({"part":"end"}));
        assert_eq!(turn_refused(&mut g, &too_long).rule, "bad_turn");
        assert!(g.play(1, &turn(&full)).unwrap().turn_over);
        assert_eq!(g.position(), "1c1b 2e7g 3b2p 4f3 5e3 6g5 / 5");
    }

    /// Checks what must hold in every state of every game.
    fn check_invariants(g: &Krux) -> Result<(), TestCaseError> {
        let view = g.view();
        let fallen = matches!(g.outcome(), Some(o) if o.reason == EndReason::Hole);
        let mut on_board = HashSet::new();
        let (mut carried, mut in_hole) = (0, 0);
        for piece in &view.pieces {
            match piece.square.as_str() {
                "carried" => carried += 1,
                "hole" => in_hole += 1,
                square => {
                    prop_assert!(square != "d4", "a piece stands on the hole");
                    prop_assert!(on_board.insert(square.to_owned()), "two pieces on {}", square);
                }
            }
        }
        prop_assert!(carried <= 1);
        prop_assert_eq!(carried == 1, g.carrying().is_some());
        prop_assert_eq!(in_hole, usize::from(fallen));
        prop_assert_eq!(on_board.len() + carried + in_hole, 6);
        let digits = view
            .board
            .iter()
            .flat_map(|row| row.chars())
            .filter(char::is_ascii_digit)
            .count();
        prop_assert_eq!(digits, on_board.len());
        let rings: Vec<Ring> = view.pieces.iter().filter_map(|piece| piece.ring).collect();
        prop_assert!(rings.len() <= 3);
        prop_assert!(
            rings.iter().collect::<HashSet<_>>().len() == rings.len(),
            "a ring is on two pieces"
        );
        prop_assert!(view.pieces[3..].iter().all(|piece| piece.ring.is_none()));
        prop_assert!(g.steps_left() <= MAX_STEPS && g.actions_left() <= MAX_ACTIONS);
        prop_assert!(g.turns_completed() <= TURN_LIMIT);
        prop_assert_eq!(
            g.position().parse::<KruxPosition>().map(|p| p.to_string()),
            Ok(g.position())
        );
        prop_assert_eq!(g.active_seats().is_empty(), g.outcome().is_some());
        Ok(())
    }

    #[derive(Debug, Clone)]
    enum Action {
        /// A legal single part.
        Legal(u64),
        /// Any part by any seat, legal or not.
        Attempt { seat: Seat, part: usize },
        /// A whole random turn, possibly spoiled.
        Turn { seed: u64, spoil: u8, part: usize },
    }

    fn any_action() -> impl Strategy<Value = Action> {
        prop_oneof![
            6 => any::<u64>().prop_map(Action::Legal),
            3 => (0u8..3, any::<usize>()).prop_map(|(seat, part)| Action::Attempt { seat, part }),
            2 => (any::<u64>(), 0u8..5, any::<usize>()).prop_map(|(seed, spoil, part)| Action::Turn { seed, spoil, part }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Random play never panics and keeps the invariants; a single part is accepted
        /// exactly when `legal_moves` lists it; a refused part or turn changes nothing (the
        /// view included); a whole turn does exactly what its parts do one by one, or nothing.
        #[test]
        fn random_games_keep_the_rules_invariants(
            start in any_start(),
            actions in prop::collection::vec(any_action(), 1..160),
        ) {
            let all = every_part();
            let mut g = Krux::with_position(start);
            check_invariants(&g)?;
            for action in actions {
                let before = g.clone();
                let view_before = view_json(&g);
                match action {
                    Action::Legal(seed) => {
                        let mut state = seed | 1;
                        let Some(p) = random_part(&g, &mut state) else { continue };
                        let seat = mover(&g);
                        g.play(seat, &KruxMove::Part(p)).map_err(|err| TestCaseError::fail(err.to_string()))?;
                        prop_assert_eq!(g.parts().last().copied().or(g.view().last_turn.last().copied()), Some(p));
                    }
                    Action::Attempt { seat, part } => {
                        let p = all[part % all.len()];
                        let listed = g.legal_moves(seat).contains(&KruxMove::Part(p));
                        match g.play(seat, &KruxMove::Part(p)) {
                            Ok(_) => prop_assert!(listed, "{:?} by {} accepted but not listed", p, seat),
                            Err(err) => {
                                prop_assert!(!listed, "{:?} by {} listed but refused: {}", p, seat, err);
                                prop_assert_eq!(&g, &before);
                                prop_assert_eq!(view_json(&g), view_before);
                            }
                        }
                    }
                    Action::Turn { seed, spoil, part } => {
                        let Some(seat) = g.to_move() else { continue };
                        let mut state = seed | 1;
                        let mut parts = random_turn(&g, &mut state);
                        match spoil {
                            1 => { parts.pop(); }
                            2 => parts.push(Part::End {}),
                            3 if !parts.is_empty() => {
                                let at = part % parts.len();
                                parts[at] = all[part % all.len()];
                            }
                            4 if parts.len() > 1 => {
                                let len = parts.len();
                                parts.swap(0, part % len);
                            }
                            _ => {}
                        }
                        // What the parts do one by one.
                        let mut one_by_one = g.clone();
                        let mut whole = true;
                        for (i, &p) in parts.iter().enumerate() {
                            match one_by_one.play(seat, &KruxMove::Part(p)) {
                                Ok(played) if played.turn_over == (i + 1 == parts.len()) => {}
                                _ => { whole = false; break; }
                            }
                        }
                        whole &= !parts.is_empty();
                        match g.play(seat, &KruxMove::Turn(parts.clone())) {
                            Ok(played) => {
                                prop_assert!(whole, "{:?} accepted as a turn", parts);
                                prop_assert!(played.turn_over);
                                prop_assert_eq!(&g, &one_by_one);
                            }
                            Err(err) => {
                                prop_assert!(!whole, "{:?} refused as a turn: {}", parts, err);
                                prop_assert_eq!(&g, &before);
                                prop_assert_eq!(view_json(&g), view_before);
                            }
                        }
                    }
                }
                check_invariants(&g)?;
            }
        }
    }
}
