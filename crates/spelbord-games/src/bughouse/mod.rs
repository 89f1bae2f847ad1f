//! Bughouse: two chess boards, four players in two teams, captured pieces passed to the
//! partner, drops, the bughouse mate, waiting instead of stalemate and the two safety draws.
//! The rules are those of `shared/rules/bughouse.md`; this module owns everything that page
//! asks of the rules (the clocks, premoves, team chat and draw offers are the table's), and
//! the decisions below. Move generation on each board is shakmaty's `Crazyhouse`; this module
//! only changes where captures go, what counts as mate and how the match ends.
//!
//! Decisions made here:
//! - **Seats and teams.** Roles in seat order `A-white`, `A-black`, `B-white`, `B-black`
//!   (seats 0–3). Team 0 is seats 0 and 3 (white on A, black on B), team 1 is seats 1 and 2.
//!   The partner of a seat is the other member of its team: 0 ↔ 3, 1 ↔ 2.
//! - **Active seats.** On each board, the seat whose side is to move, so two seats at once;
//!   a seat with no legal move or drop is still to move (it waits, its clock runs). Empty
//!   once the game is over.
//! - **Moves.** `{"uci": "e2e4"}`, `{"uci": "e7e8q"}`, drops `{"uci": "N@f3"}` (the piece
//!   letter may be either case), castling as the king's two-square move (`e1g1`; the
//!   king-takes-rook form `e1h1` is accepted too). No other field is allowed. Anything that
//!   is not syntactically a UCI move is a decode error (serde). The board is the seat's
//!   board. The move as stored in `last_move` and listed by [`Rules::legal_moves`] is
//!   shakmaty's standard UCI (drops with an upper-case letter, castling as `e1g1`). At a
//!   Bughouse 960 table castling is king takes rook (`g1h1`), in moves and listings alike.
//! - **Bughouse 960** (`chess960`, [`chess960`]): each game starts from position
//!   `seed % 960` on both boards, the seed drawn from the table and game number
//!   ([`Rules::new_drawn`]); shown in the view as `chess960`.
//! - **Pockets.** Each board has a white and a black pocket; the seat playing that colour on
//!   that board drops from it. A capture on one board puts the captured piece, colour kept,
//!   into the pocket of that colour **on the other board**, i.e. the capturer's partner's;
//!   a captured promoted piece travels as a pawn (shakmaty's `promoted` tracking). En passant
//!   captures a pawn like any capture. Pockets may hold more than crazyhouse material.
//! - **Drops.** Any empty square, pawns never on rank 1 or 8, never leaving the own king in
//!   check (shakmaty's crazyhouse drop generation, given our pockets). A dropped pawn on its
//!   second rank may double-step. A table's house rules ([`HouseRules`], `house_rules.rs`)
//!   may forbid pawn drops on the seventh rank, checking drops or drop mates, and may pass a
//!   captured promoted piece on as itself.
//! - **Mate** ([`is_bughouse_mate`]), evaluated on the board where the move was made: the
//!   side to move is in check, has no legal move or drop, and the check is not blockable: it
//!   is a double check, or a single check with no square strictly between checker and king
//!   (contact, knight and pawn checks). A single line check with an empty square between is
//!   never mate, even with an empty pocket: the player waits for a piece. Outcome: the
//!   mover's team wins, [`EndReason::Checkmate`], detail `{"board": "A", "mated": 1}`.
//! - **Waiting.** No stalemate: a side to move without any legal move or drop waits, its
//!   clock running.
//! - **Draws**, checked after every move in this order, after mate:
//!   [`EndReason::NoPlayerCanMove`] when on both boards the player to move has no legal move
//!   or drop (detail `{"waiting": [seat, seat]}`, the two stuck seats, board A first); then
//!   [`EndReason::MoveLimit`] when [`MOVE_LIMIT`] moves (drops count) have been played on the
//!   two boards together (detail `{"moves": 800}`). No repetition, fifty-move, insufficient
//!   material or stalemate draws.
//! - **Refused moves.** Rule codes, checked in this order; the first that applies is
//!   reported and nothing changes:
//!
//!   | move | rules, in order |
//!   |---|---|
//!   | any | `game_over`, `not_your_turn` (also for a seat number that is not 0–3) |
//!   | drop `X@sq` | `illegal_move` (a king drop), `pawn_on_back_rank`, `no_piece_in_pocket`, `illegal_move` (square occupied), `king_in_check` (the drop leaves the own king in check: it does not block a check) |
//!   | move `e2e4` | `king_in_check` (a piece move that the piece could make but that leaves or puts the own king in check), otherwise `illegal_move` (anything else illegal, castling through or out of check included) |
//!   | `0000` | `illegal_move` |
//!
//!   Every message names the move and the board.
//! - **Start position.** The setting `start_position`, optional: an object
//!   `{"A": "<FEN>", "B": "<FEN>"}` with one crazyhouse FEN per board (pockets in brackets
//!   after the board, `[Qp]`, or as a ninth rank `/Qp`; none means empty pockets), each
//!   board keeping its own side to move, castling rights and en passant square. Standard
//!   castling only. Refused, naming the field: a key other than `A`/`B` or a missing one, a
//!   value that is not a string, an unparsable FEN, a position shakmaty calls illegal (missing
//!   or extra kings, pawns on the back rank, a king in a pocket, the side not to move in
//!   check, invalid castling rights or en passant square, an impossible check), more than 64
//!   pieces on the two boards and in the four pockets together (two chess sets), a board
//!   whose player to move is already mated, and a start where neither player to move can
//!   move. Pockets above crazyhouse material are accepted. Serialised only when set, in
//!   canonical FEN (shakmaty's, legal en passant squares only), which reads back identically.
//! - **View.** [`BughouseView`]: `A` and `B` ([`BoardView`]: `fen` with pockets and `~` on
//!   promoted pieces, `board` as 8 strings from rank 8 down with FEN letters and `.`, `turn`,
//!   `to_move` (the seat role, `null` once over), `pockets` (`white` upper-case letters,
//!   `black` lower-case, in the order Q R B N P), `last_move`, `check`, `waiting` (the game
//!   runs and the player to move has no legal move or drop), `move_count`), `total_moves` and
//!   `move_limit`.
//! - **Perft.** [`perft()`] counts single-board move paths of `depth` plies where captured
//!   pieces **leave the game**: pockets change only by drops. It is shakmaty's crazyhouse
//!   perft with the capturer's pocket gain removed, and equals chess perft on positions with
//!   empty pockets. No bughouse end is applied inside the tree (a mated or waiting side simply
//!   has no moves).
//!
//! Layout: this file holds the seats, the positions (on shakmaty's crazyhouse), the settings
//! and the game with its rules; `house_rules.rs` the drop rules a table may choose;
//! `notation.rs` the move on the wire (UCI); `view.rs` the
//! public view; `perft.rs` the move counts; the tests are in `tests.rs`.

pub mod chess960;
mod house_rules;
mod notation;
mod perft;
#[cfg(test)]
mod tests;
mod view;

pub use house_rules::{CapturedPromoted, DropChecks, HouseRules, Refusal};
pub use notation::BughouseMove;
pub use perft::{perft, perft_chess960, perft_with_rules};
pub use view::{BoardView, BughouseView, PocketsView};
use view::{fen_of, pocket_letters};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::variant::Crazyhouse;
use shakmaty::{
    ByColor, ByRole, CastlingMode, Color, EnPassantMode, FromSetup, Move, Piece, Position, PositionError, Rank, Role,
    Square, attacks,
};

use super::{EndReason, Outcome, Played, RuleError, Rules, Seat, SeatSet, SettingError, SettingsReader};

/// The match is drawn when this many moves (drops included) have been played on the two
/// boards together.
pub const MOVE_LIMIT: u32 = 800;

/// The seat roles, in seat order.
pub const SEAT_ROLES: &[&str] = &["A-white", "A-black", "B-white", "B-black"];

/// At most this many pieces on both boards and in all pockets together (two chess sets).
pub const MAX_PIECES: usize = 64;

/// The board names, in board order.
const BOARD_NAMES: [&str; 2] = ["A", "B"];

/// The pieces a pocket may hold, in the order the view lists them.
const POCKET_ROLES: [Role; 5] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn];

type Pockets = ByColor<ByRole<u8>>;

// ------------------------------------------------------------------------ seats

/// The board (0 = A, 1 = B) of a seat.
pub fn board_of(seat: Seat) -> usize {
    usize::from(seat / 2)
}

/// The colour a seat plays.
pub fn colour_of(seat: Seat) -> Color {
    if seat.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

/// The seat playing `colour` on `board`.
fn seat_at(board: usize, colour: Color) -> Seat {
    let board = if board == 0 { 0 } else { 2 };
    board + colour.fold_wb(0, 1)
}

fn colour_name(colour: Color) -> &'static str {
    colour.fold_wb("white", "black")
}

// ---------------------------------------------------------------- positions

/// A board's FEN or position that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("invalid FEN: {0}")]
    Fen(String),
    #[error("{0}")]
    Position(String),
}

/// Builds a crazyhouse position from a setup, accepting more material than crazyhouse allows
/// (and, when `lenient`, shakmaty's impossible-check heuristic). The error is shakmaty's
/// description.
fn build(setup: shakmaty::Setup, lenient: bool, mode: CastlingMode) -> Result<Crazyhouse, String> {
    let built = Crazyhouse::from_setup(setup, mode).or_else(PositionError::ignore_too_much_material);
    let built = if lenient {
        built.or_else(PositionError::ignore_impossible_check)
    } else {
        built
    };
    built.map_err(|err| err.to_string())
}

/// Parses one board's crazyhouse FEN, strictly apart from material counts.
pub fn parse_board(fen: &str) -> Result<Crazyhouse, BoardError> {
    let fen: Fen = fen.trim().parse().map_err(|err| BoardError::Fen(format!("{err}")))?;
    build(fen.into_setup(), false, CastlingMode::Standard).map_err(BoardError::Position)
}

/// The position with its pockets changed by `change`. Positions reached by legal play are
/// legal, so only the material count (bughouse pockets exceed crazyhouse's) and shakmaty's
/// check heuristics are waived.
fn with_pockets(pos: &Crazyhouse, change: impl FnOnce(&mut Pockets)) -> Result<Crazyhouse, String> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    let mut pockets = setup.pockets.unwrap_or_default();
    change(&mut pockets);
    setup.pockets = Some(pockets);
    build(setup, true, pos.castles().mode())
}

fn pockets_of(pos: &Crazyhouse) -> Pockets {
    pos.pockets().copied().unwrap_or_default()
}

/// Plays a legal `m` on a copy of `pos` the crazyhouse way, then takes the capture back out
/// of the mover's pocket. Returns the new position and the captured piece's role as it
/// travels (a promoted piece as a pawn), if any.
fn play_on(pos: &Crazyhouse, m: Move) -> Result<(Crazyhouse, Option<Role>), String> {
    let mover = pos.turn();
    let before = pockets_of(pos);
    let mut after = pos.clone();
    after.play_unchecked(m);
    let gained = POCKET_ROLES
        .into_iter()
        .find(|&role| pockets_of(&after)[mover][role] > before[mover][role]);
    match gained {
        None => Ok((after, None)),
        Some(role) => {
            let fixed = with_pockets(&after, |pockets| pockets[mover][role] -= 1)?;
            Ok((fixed, Some(role)))
        }
    }
}

/// The bughouse mate predicate for the side to move: in check, no legal move or drop, and
/// no square strictly between a single checker and the king where a dropped piece could
/// block.
pub fn is_bughouse_mate(pos: &Crazyhouse) -> bool {
    is_bughouse_mate_with(pos, &HouseRules::default())
}

/// [`is_bughouse_mate`] under a table's house rules (a drop they refuse is no way out).
pub fn is_bughouse_mate_with(pos: &Crazyhouse, rules: &HouseRules) -> bool {
    let checkers = pos.checkers();
    if checkers.is_empty() || !rules.legal_moves(pos).is_empty() {
        return false;
    }
    match (checkers.single_square(), pos.board().king_of(pos.turn())) {
        (Some(checker), Some(king)) => attacks::between(checker, king).is_empty(),
        _ => true,
    }
}

/// Whether the side to move has no legal move or drop (it waits).
fn is_stuck(pos: &Crazyhouse, rules: &HouseRules) -> bool {
    rules.legal_moves(pos).is_empty()
}

/// Whether the normal move `from`-`to` is one the piece could make (ignoring its own king's
/// safety and castling) and it leaves or puts the own king in check.
fn exposes_king(pos: &Crazyhouse, from: Square, to: Square, promotion: Option<Role>) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let Some(piece) = board.piece_at(from) else {
        return false;
    };
    if piece.color != us || board.by_color(us).contains(to) {
        return false;
    }
    let occupied = board.occupied();
    let mut ep_victim = None;
    let reaches = if piece.role == Role::Pawn {
        let last_rank = to.rank() == us.fold_wb(Rank::Eighth, Rank::First);
        let promotion_ok = match promotion {
            None => !last_rank,
            Some(role) => last_rank && !matches!(role, Role::Pawn | Role::King),
        };
        let forward = us.fold_wb(8, -8);
        let single = from.offset(forward);
        let capture = attacks::pawn_attacks(us, from).contains(to);
        let reaches = if capture {
            if board.by_color(!us).contains(to) {
                true
            } else if pos.maybe_ep_square() == Some(to) {
                ep_victim = Some(Square::from_coords(to.file(), from.rank()));
                true
            } else {
                false
            }
        } else if single == Some(to) {
            !occupied.contains(to)
        } else {
            from.rank() == us.fold_wb(Rank::Second, Rank::Seventh)
                && from.offset(2 * forward) == Some(to)
                && single.is_some_and(|mid| !occupied.contains(mid))
                && !occupied.contains(to)
        };
        promotion_ok && reaches
    } else {
        promotion.is_none() && attacks::attacks(from, piece, occupied).contains(to)
    };
    if !reaches {
        return false;
    }
    let mut after = board.clone();
    if let Some(victim) = ep_victim {
        after.discard_piece_at(victim);
    }
    after.discard_piece_at(from);
    after.set_piece_at(
        to,
        Piece {
            color: us,
            role: promotion.unwrap_or(piece.role),
        },
    );
    after
        .king_of(us)
        .is_some_and(|king| after.attacks_to(king, !us, after.occupied()).any())
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

// ---------------------------------------------------------------- settings

/// One position per board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartPosition {
    /// Boxed: positions are large and settings travel in an enum.
    pub boards: Box<[Crazyhouse; 2]>,
}

impl StartPosition {
    /// The canonical FEN of each board, A first.
    pub fn fens(&self) -> [String; 2] {
        self.boards.each_ref().map(fen_of)
    }
}

impl Serialize for StartPosition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let [a, b] = self.fens();
        let mut map = Map::new();
        map.insert("A".into(), Value::String(a));
        map.insert("B".into(), Value::String(b));
        map.serialize(serializer)
    }
}

/// A Bughouse table's settings: `{}`, or
/// `{"start_position": {"A": "<FEN with [pocket]>", "B": "<FEN>"}}` and the house rules
/// ([`HouseRules`]: `pawn_drops_on_seventh`, `drop_checks`, `captured_promoted`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BughouseSettings {
    /// Both boards' start; the standard chess start with empty pockets when absent.
    /// Serialised only when set, in canonical FEN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_position: Option<StartPosition>,
    /// The drop rules; each serialised only when it differs from the default.
    #[serde(flatten)]
    pub house: HouseRules,
    /// Bughouse 960: each game starts from one of the 960 positions, drawn by the server
    /// for that game, the same on both boards. Serialised only when set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub chess960: bool,
    /// Bughouse 960 from one chosen position (0–959) in every game, instead of a draw:
    /// practice, or a position the players agreed on. Serialised only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chess960_position: Option<u16>,
}

const START_FIELD: &str = "settings.start_position";

fn read_start_position(value: Value) -> Result<StartPosition, SettingError> {
    let Value::Object(map) = value else {
        return Err(SettingError::new(
            START_FIELD,
            "must be an object {\"A\": \"<FEN>\", \"B\": \"<FEN>\"} with one crazyhouse FEN per board",
        ));
    };
    if let Some(key) = map.keys().find(|key| !BOARD_NAMES.contains(&key.as_str())) {
        return Err(SettingError::new(
            format!("{START_FIELD}.{key}"),
            "is not a board (the boards are \"A\" and \"B\")",
        ));
    }
    let mut boards = Vec::with_capacity(2);
    for name in BOARD_NAMES {
        let field = format!("{START_FIELD}.{name}");
        let fen = match map.get(name) {
            None | Some(Value::Null) => return Err(SettingError::new(field, "is missing: give a FEN for each board")),
            Some(Value::String(fen)) => fen,
            Some(_) => return Err(SettingError::new(field, "must be a FEN string")),
        };
        let pos = parse_board(fen).map_err(|err| SettingError::new(field.clone(), err.to_string()))?;
        if is_bughouse_mate(&pos) {
            return Err(SettingError::new(field, "the player to move is already checkmated"));
        }
        boards.push(pos);
    }
    let [a, b]: [Crazyhouse; 2] = boards
        .try_into()
        .map_err(|_| SettingError::new(START_FIELD, "needs two boards"))?;
    let pieces: usize = [&a, &b]
        .iter()
        .map(|pos| pos.board().occupied().count() + pocket_count(&pockets_of(pos)))
        .sum();
    if pieces > MAX_PIECES {
        return Err(SettingError::new(
            START_FIELD,
            format!("has {pieces} pieces on the boards and in the pockets; at most {MAX_PIECES} (two chess sets)"),
        ));
    }
    if is_stuck(&a, &HouseRules::default()) && is_stuck(&b, &HouseRules::default()) {
        return Err(SettingError::new(
            START_FIELD,
            "neither player to move can move on either board: the game would be drawn at once",
        ));
    }
    Ok(StartPosition {
        boards: Box::new([a, b]),
    })
}

fn pocket_count(pockets: &Pockets) -> usize {
    [Color::White, Color::Black]
        .into_iter()
        .flat_map(|colour| POCKET_ROLES.map(|role| usize::from(pockets[colour][role])))
        .sum()
}

// ------------------------------------------------------------------------ the game

/// One board's state.
#[derive(Debug, Clone)]
struct BoardState {
    pos: Crazyhouse,
    last_move: Option<UciMove>,
    moves: u32,
}

impl BoardState {
    fn new(pos: Crazyhouse) -> BoardState {
        BoardState {
            pos,
            last_move: None,
            moves: 0,
        }
    }
}

/// A game of Bughouse; see the module doc.
#[derive(Debug, Clone)]
pub struct Bughouse {
    /// Boxed: positions are large and games travel in an enum.
    boards: Box<[BoardState; 2]>,
    total_moves: u32,
    outcome: Option<Outcome>,
    /// The table's drop rules.
    rules: HouseRules,
    /// Bughouse 960: the number of the starting position of both boards.
    chess960: Option<u16>,
}

impl Bughouse {
    /// A game from the given board positions (A, B), under the rule page's drop rules.
    pub fn from_positions(a: Crazyhouse, b: Crazyhouse) -> Bughouse {
        Bughouse {
            boards: Box::new([BoardState::new(a), BoardState::new(b)]),
            total_moves: 0,
            outcome: None,
            rules: HouseRules::default(),
            chess960: None,
        }
    }

    /// A game of Bughouse 960 from position `number` (taken modulo 960) on both boards.
    pub fn chess960(number: u16) -> Bughouse {
        let number = number % chess960::POSITIONS;
        let start = chess960::start_position(number);
        let mut game = Bughouse::from_positions(start.clone(), start);
        game.chess960 = Some(number);
        game
    }

    /// The Bughouse 960 position both boards started from, if the game is one.
    pub fn chess960_number(&self) -> Option<u16> {
        self.chess960
    }

    /// How castling is written and played on `board`: standard, or Chess960's king takes rook.
    fn castling(&self, board: usize) -> CastlingMode {
        self.boards[board.min(1)].pos.castles().mode()
    }

    /// The game under a table's house rules.
    pub fn with_rules(mut self, rules: HouseRules) -> Bughouse {
        self.rules = rules;
        self
    }

    /// The table's drop rules.
    pub fn house_rules(&self) -> &HouseRules {
        &self.rules
    }

    /// The position on board `board` (0 = A, 1 = B).
    pub fn position(&self, board: usize) -> &Crazyhouse {
        &self.boards[board.min(1)].pos
    }

    /// Moves played on both boards together.
    pub fn total_moves(&self) -> u32 {
        self.total_moves
    }

    /// The seat to move on `board`, whether or not it can move.
    fn to_move_on(&self, board: usize) -> Seat {
        seat_at(board, self.boards[board].pos.turn())
    }

    /// Validates `uci` for the side to move on `board` and returns shakmaty's move.
    fn check_move(&self, board: usize, uci: UciMove) -> Result<Move, RuleError> {
        let pos = &self.boards[board].pos;
        let name = BOARD_NAMES[board];
        let colour = pos.turn();
        match uci {
            UciMove::Null => Err(RuleError::new(
                "illegal_move",
                format!("0000 (a null move) is not a move on board {name}"),
            )),
            UciMove::Put { role, to } => {
                if role == Role::King {
                    return Err(RuleError::new(
                        "illegal_move",
                        format!("{uci} on board {name}: a king is never dropped"),
                    ));
                }
                if role == Role::Pawn && matches!(to.rank(), Rank::First | Rank::Eighth) {
                    return Err(RuleError::new(
                        "pawn_on_back_rank",
                        format!("{uci} on board {name}: a pawn is never dropped on rank 1 or 8"),
                    ));
                }
                if pockets_of(pos)[colour][role] == 0 {
                    return Err(RuleError::new(
                        "no_piece_in_pocket",
                        format!(
                            "{uci} on board {name}: {} has no {} in the pocket",
                            colour_name(colour),
                            role_name(role)
                        ),
                    ));
                }
                if pos.board().occupied().contains(to) {
                    return Err(RuleError::new(
                        "illegal_move",
                        format!("{uci} on board {name}: {to} is not empty"),
                    ));
                }
                let m = uci.to_move(pos).map_err(|_| {
                    RuleError::new(
                        "king_in_check",
                        format!("{uci} on board {name} leaves the {} king in check", colour_name(colour)),
                    )
                })?;
                match self.rules.refusal(pos, m) {
                    Some(refusal) => Err(RuleError::new(
                        refusal.code,
                        format!("{uci} on board {name}: {}", refusal.reason),
                    )),
                    None => Ok(m),
                }
            }
            UciMove::Normal { from, to, promotion } => uci.to_move(pos).map_err(|_| {
                if exposes_king(pos, from, to, promotion) {
                    RuleError::new(
                        "king_in_check",
                        format!("{uci} on board {name} leaves the {} king in check", colour_name(colour)),
                    )
                } else {
                    RuleError::new("illegal_move", format!("{uci} is not a legal move on board {name}"))
                }
            }),
        }
    }

    /// The outcome after a move on `board` by `seat`, if the match ends.
    fn evaluate(&self, board: usize, seat: Seat) -> Option<Outcome> {
        if is_bughouse_mate_with(&self.boards[board].pos, &self.rules) {
            let team = Bughouse::team_of(seat);
            let winners = (0..4).filter(|&s| Bughouse::team_of(s) == team).collect();
            let mut outcome = Outcome::win(winners, EndReason::Checkmate);
            outcome.detail = json!({"board": BOARD_NAMES[board], "mated": self.to_move_on(board)});
            return Some(outcome);
        }
        if self.boards.iter().all(|state| is_stuck(&state.pos, &self.rules)) {
            let mut outcome = Outcome::draw(EndReason::NoPlayerCanMove);
            outcome.detail = json!({"waiting": [self.to_move_on(0), self.to_move_on(1)]});
            return Some(outcome);
        }
        if self.total_moves >= MOVE_LIMIT {
            let mut outcome = Outcome::draw(EndReason::MoveLimit);
            outcome.detail = json!({"moves": self.total_moves});
            return Some(outcome);
        }
        None
    }

    fn board_view(&self, board: usize) -> BoardView {
        let state = &self.boards[board];
        let pos = &state.pos;
        let pockets = pockets_of(pos);
        let rows = (0..8u32)
            .rev()
            .map(|rank| {
                (0..8u32)
                    .map(|file| {
                        let square = Square::from_coords(shakmaty::File::new(file), Rank::new(rank));
                        pos.board().piece_at(square).map_or('.', Piece::char)
                    })
                    .collect()
            })
            .collect();
        let running = self.outcome.is_none();
        BoardView {
            fen: fen_of(pos),
            board: rows,
            turn: colour_name(pos.turn()),
            to_move: running.then(|| SEAT_ROLES[usize::from(self.to_move_on(board))]),
            pockets: PocketsView {
                white: pocket_letters(&pockets, Color::White),
                black: pocket_letters(&pockets, Color::Black),
            },
            last_move: state.last_move.map(|uci| uci.to_string()),
            check: pos.is_check(),
            waiting: running && is_stuck(pos, &self.rules),
            move_count: state.moves,
        }
    }
}

impl Rules for Bughouse {
    type Settings = BughouseSettings;
    type Move = BughouseMove;
    type View = BughouseView;

    /// The move's UCI text (`e2e4`, `e7e8q`, `N@f3`): four or five bytes.
    fn pack(mv: &BughouseMove, out: &mut Vec<u8>) {
        // Writing to a vector cannot fail.
        let _ = std::io::Write::write_fmt(out, format_args!("{}", mv.uci));
    }

    fn unpack(bytes: &[u8]) -> Option<BughouseMove> {
        std::str::from_utf8(bytes).ok().and_then(BughouseMove::parse)
    }

    fn read_settings(reader: &mut SettingsReader) -> Result<BughouseSettings, SettingError> {
        let start_position = reader
            .take::<Value>("start_position")?
            .map(read_start_position)
            .transpose()?;
        let house = HouseRules::read(reader)?;
        let chess960 = reader.take::<bool>("chess960")?.unwrap_or(false);
        if chess960 && start_position.is_some() {
            return Err(SettingError::new(
                "settings.chess960",
                "a Bughouse 960 table draws its own start: leave out start_position",
            ));
        }
        let chess960_position = reader.take::<u16>("chess960_position")?;
        match chess960_position {
            Some(number) if number >= chess960::POSITIONS => {
                return Err(SettingError::new(
                    "settings.chess960_position",
                    "must be a position number from 0 to 959",
                ));
            }
            Some(_) if !chess960 => {
                return Err(SettingError::new(
                    "settings.chess960_position",
                    "chooses a Bughouse 960 position: set \"chess960\": true as well",
                ));
            }
            _ => {}
        }
        Ok(BughouseSettings {
            start_position,
            house,
            chess960,
            chess960_position,
        })
    }

    fn seat_roles(_settings: &BughouseSettings) -> &'static [&'static str] {
        SEAT_ROLES
    }

    fn team_of(seat: Seat) -> u8 {
        match seat {
            0 | 3 => 0,
            1 | 2 => 1,
            other => other,
        }
    }

    fn new(settings: &BughouseSettings) -> Bughouse {
        if settings.chess960 {
            return Bughouse::new_drawn(settings, 0);
        }
        let game = match &settings.start_position {
            Some(start) => {
                let [a, b] = (*start.boards).clone();
                Bughouse::from_positions(a, b)
            }
            None => Bughouse::from_positions(Crazyhouse::default(), Crazyhouse::default()),
        };
        game.with_rules(settings.house)
    }

    /// Bughouse 960 draws its start from `seed` (position `seed % 960`); other tables start
    /// as [`Rules::new`] says.
    fn new_drawn(settings: &BughouseSettings, seed: u64) -> Bughouse {
        if !settings.chess960 {
            return Bughouse::new(settings);
        }
        let drawn = u16::try_from(seed % u64::from(chess960::POSITIONS)).unwrap_or(chess960::STANDARD);
        let number = settings.chess960_position.unwrap_or(drawn);
        Bughouse::chess960(number).with_rules(settings.house)
    }

    fn active_seats(&self) -> SeatSet {
        if self.outcome.is_some() {
            return SeatSet::EMPTY;
        }
        SeatSet::only(self.to_move_on(0)).with(self.to_move_on(1))
    }

    fn play(&mut self, seat: Seat, mv: &BughouseMove) -> Result<Played, RuleError> {
        if self.outcome.is_some() {
            return Err(RuleError::new("game_over", "the game is over"));
        }
        if seat > 3 {
            return Err(RuleError::new(
                "not_your_turn",
                format!("seat {seat} is not a seat of this game"),
            ));
        }
        let board = board_of(seat);
        let colour = colour_of(seat);
        if self.boards[board].pos.turn() != colour {
            return Err(RuleError::new(
                "not_your_turn",
                format!(
                    "it is not {}'s turn: {} is to move on board {}",
                    SEAT_ROLES[usize::from(seat)],
                    colour_name(!colour),
                    BOARD_NAMES[board]
                ),
            ));
        }
        let m = self.check_move(board, mv.uci)?;
        // What a promoted piece would travel as, read before the capture removes it.
        let travels_as = match m {
            Move::Normal {
                to,
                capture: Some(role),
                ..
            } => {
                let promoted = self.boards[board].pos.promoted().contains(to);
                Some(self.rules.travels_as(role, promoted))
            }
            _ => None,
        };
        let unrepresentable = |_| {
            RuleError::new(
                "illegal_move",
                format!("{} on board {} cannot be played", mv.uci, BOARD_NAMES[board]),
            )
        };
        let (pos, captured) = play_on(&self.boards[board].pos, m).map_err(unrepresentable)?;
        let captured = captured.map(|role| travels_as.unwrap_or(role));
        let other = 1 - board;
        let other_pos = match captured {
            Some(role) => Some(
                with_pockets(&self.boards[other].pos, |pockets| {
                    pockets[!colour][role] = pockets[!colour][role].saturating_add(1);
                })
                .map_err(unrepresentable)?,
            ),
            None => None,
        };
        let state = &mut self.boards[board];
        state.pos = pos;
        state.last_move = Some(m.to_uci(state.pos.castles().mode()));
        state.moves += 1;
        if let Some(other_pos) = other_pos {
            self.boards[other].pos = other_pos;
        }
        self.total_moves += 1;
        self.outcome = self.evaluate(board, seat);
        Ok(Played { turn_over: true })
    }

    fn move_text(&self, seat: Seat, mv: &BughouseMove) -> String {
        if seat > 3 {
            return mv.uci.to_string();
        }
        let pos = self.position(board_of(seat));
        let Ok(m) = mv.uci.to_move(pos) else {
            return mv.uci.to_string();
        };
        let san = shakmaty::san::San::from_move(pos, m).to_string();
        // Pawn drops with their letter (`P@f6`), as bughouse records write them.
        let san = if san.starts_with('@') { format!("P{san}") } else { san };
        let mut after = pos.clone();
        after.play_unchecked(m);
        if is_bughouse_mate_with(&after, &self.rules) {
            format!("{san}#")
        } else if after.is_check() {
            format!("{san}+")
        } else {
            san
        }
    }

    fn normalised(&self, seat: Seat, mv: &BughouseMove) -> BughouseMove {
        if seat > 3 {
            return *mv;
        }
        match self.check_move(board_of(seat), mv.uci) {
            Ok(m) => BughouseMove {
                uci: m.to_uci(self.castling(board_of(seat))),
            },
            Err(_) => *mv,
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

    fn view(&self) -> BughouseView {
        BughouseView {
            a: self.board_view(0),
            b: self.board_view(1),
            total_moves: self.total_moves,
            move_limit: MOVE_LIMIT,
            chess960: self.chess960,
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<BughouseMove> {
        if self.outcome.is_some() || seat > 3 {
            return Vec::new();
        }
        let pos = &self.boards[board_of(seat)].pos;
        if pos.turn() != colour_of(seat) {
            return Vec::new();
        }
        let mode = pos.castles().mode();
        self.rules
            .legal_moves(pos)
            .iter()
            .map(|m| BughouseMove { uci: m.to_uci(mode) })
            .collect()
    }
}
