//! Lines of Action (game id `lines-of-action`): settings, moves, a bitboard move generator,
//! the connection and repetition checks, the public view, a one-line position notation and
//! `perft`, one concept per file (see "Layout" below). The rules are those of `shared/rules/lines-of-action.md`; this module owns
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
//! - **Perft.** [`perft()`] counts the move sequences of length `depth` from a game's current
//!   state under these rules (a pass is a move; repetition counts the game's history): at
//!   depth 0 the count is 1, and a finished game has no moves, so it contributes 0 at any
//!   depth of 1 or more. At depth 1 every legal move counts 1, including one that ends the
//!   game.
//!
//! # Layout
//! - `square.rs`: [`Side`] and [`Square`];
//! - `moves.rs`: [`LoaMove`] and its wire form;
//! - [`bitboard`]: the precomputed line tables and bitboard helpers (growing a group, the
//!   single-group test, one piece's targets);
//! - `position.rs`: [`Position`]: move generation, making a move, the legality check;
//! - `notation.rs`: the position notation and [`PositionError`];
//! - `view.rs`: [`LoaView`]; `perft.rs`: [`perft()`] and [`perft_divide`];
//! - this file: the settings, the end rules and the game ([`LinesOfAction`]).

pub mod bitboard;
mod moves;
mod notation;
mod perft;
mod position;
mod square;
#[cfg(test)]
mod testkit;
mod view;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};

pub use moves::LoaMove;
pub use notation::PositionError;
pub use perft::{perft, perft_divide};
pub use position::Position;
pub use square::{Side, Square};
pub use view::{LoaView, PieceCounts};

/// The most pieces a side can have (the start).
pub const MAX_PIECES: u32 = 12;

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

    /// The positions since the last capture (or the start), the current one last: the
    /// only ones the repetition rule can still meet again (for bots).
    pub fn recent_positions(&self) -> &[Position] {
        &self.history
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

/// A pass in a packed move list (a square's index is below 64).
const PASS_BYTE: u8 = 0xFF;

impl Rules for LinesOfAction {
    type Settings = LoaSettings;
    type Move = LoaMove;
    type View = LoaView;

    /// Two bytes, the squares' indexes, for a step; one byte, [`PASS_BYTE`], for a pass.
    fn pack(mv: &LoaMove, out: &mut Vec<u8>) {
        match *mv {
            LoaMove::Step { from, to } => out.extend_from_slice(&[from.index(), to.index()]),
            LoaMove::Pass => out.push(PASS_BYTE),
        }
    }

    fn unpack(bytes: &[u8]) -> Option<LoaMove> {
        let square = |index: u8| Square::new(index % 8, index / 8);
        match *bytes {
            [from, to] => Some(LoaMove::step(square(from)?, square(to)?)),
            [PASS_BYTE] => Some(LoaMove::Pass),
            _ => None,
        }
    }

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

    fn move_text(&self, _seat: Seat, mv: &LoaMove) -> String {
        match *mv {
            LoaMove::Step { from, to } if self.position.piece_at(to).is_some() => format!("{from}x{to}"),
            _ => mv.to_string(),
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

#[cfg(test)]
mod tests {
    use super::bitboard::is_one_group;
    use super::testkit::*;
    use proptest::prelude::*;
    use serde_json::json;

    // ---------------------------------------------------------------- the end of a game

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
    fn a_capture_is_written_with_x_and_a_step_with_a_dash() {
        let g = game(BRIDGE, 'b');
        assert_eq!(g.move_text(0, &mv("e1-e5")), "e1xe5");
        assert_eq!(g.move_text(0, &mv("e1-e2")), "e1-e2");
    }

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
        use crate::{AnySettings, GameKind, MoveError};
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
