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
//!   shakmaty's standard UCI (drops with an upper-case letter, castling as `e1g1`).
//! - **Pockets.** Each board has a white and a black pocket; the seat playing that colour on
//!   that board drops from it. A capture on one board puts the captured piece, colour kept,
//!   into the pocket of that colour **on the other board**, i.e. the capturer's partner's;
//!   a captured promoted piece travels as a pawn (shakmaty's `promoted` tracking). En passant
//!   captures a pawn like any capture. Pockets may hold more than crazyhouse material.
//! - **Drops.** Any empty square, pawns never on rank 1 or 8, never leaving the own king in
//!   check (shakmaty's crazyhouse drop generation, given our pockets). A dropped pawn on its
//!   second rank may double-step.
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
//! - **Perft.** [`perft`] counts single-board move paths of `depth` plies where captured
//!   pieces **leave the game**: pockets change only by drops. It is shakmaty's crazyhouse
//!   perft with the capturer's pocket gain removed, and equals chess perft on positions with
//!   empty pockets. No bughouse end is applied inside the tree (a mated or waiting side simply
//!   has no moves).

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
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

// ------------------------------------------------------------------------ moves

/// A move on the seat's board: `{"uci": "e2e4"}`, `{"uci": "e7e8q"}` or `{"uci": "N@f3"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BughouseMove {
    #[serde(serialize_with = "serialize_uci", deserialize_with = "deserialize_uci")]
    pub uci: UciMove,
}

impl BughouseMove {
    /// Parses a UCI string; `None` if it is not one.
    pub fn parse(text: &str) -> Option<BughouseMove> {
        text.parse().ok().map(|uci| BughouseMove { uci })
    }
}

fn serialize_uci<S: Serializer>(uci: &UciMove, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(uci)
}

fn deserialize_uci<'de, D: Deserializer<'de>>(deserializer: D) -> Result<UciMove, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|_| {
        de::Error::custom(format!(
            "invalid UCI move \"{}\": expected like \"e2e4\", \"e7e8q\" or \"N@f3\"",
            text.chars().take(12).collect::<String>()
        ))
    })
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
fn build(setup: shakmaty::Setup, lenient: bool) -> Result<Crazyhouse, String> {
    let built = Crazyhouse::from_setup(setup, CastlingMode::Standard).or_else(PositionError::ignore_too_much_material);
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
    build(fen.into_setup(), false).map_err(BoardError::Position)
}

/// The position with its pockets changed by `change`. Positions reached by legal play are
/// legal, so only the material count (bughouse pockets exceed crazyhouse's) and shakmaty's
/// check heuristics are waived.
fn with_pockets(pos: &Crazyhouse, change: impl FnOnce(&mut Pockets)) -> Result<Crazyhouse, String> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    let mut pockets = setup.pockets.unwrap_or_default();
    change(&mut pockets);
    setup.pockets = Some(pockets);
    build(setup, true)
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
    let checkers = pos.checkers();
    if checkers.is_empty() || !pos.legal_moves().is_empty() {
        return false;
    }
    match (checkers.single_square(), pos.board().king_of(pos.turn())) {
        (Some(checker), Some(king)) => attacks::between(checker, king).is_empty(),
        _ => true,
    }
}

/// Whether the side to move has no legal move or drop (it waits).
fn is_stuck(pos: &Crazyhouse) -> bool {
    pos.legal_moves().is_empty()
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

// ------------------------------------------------------------------------ perft

/// Single-board perft where captured pieces leave the game: pockets change only by drops
/// (not crazyhouse perft, where the capturer pockets the piece). `board_fen` is a crazyhouse
/// FEN with pockets; `depth` counts plies.
pub fn perft(board_fen: &str, depth: u32) -> Result<u64, BoardError> {
    let pos = parse_board(board_fen)?;
    perft_from(&pos, depth).map_err(BoardError::Position)
}

fn perft_from(pos: &Crazyhouse, depth: u32) -> Result<u64, String> {
    if depth == 0 {
        return Ok(1);
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return Ok(moves.len() as u64);
    }
    let mut total = 0;
    for m in moves {
        let (child, _) = play_on(pos, m)?;
        total += perft_from(&child, depth - 1)?;
    }
    Ok(total)
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

/// A Bughouse table's settings: `{}` or
/// `{"start_position": {"A": "<FEN with [pocket]>", "B": "<FEN>"}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BughouseSettings {
    /// Both boards' start; the standard chess start with empty pockets when absent.
    /// Serialised only when set, in canonical FEN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_position: Option<StartPosition>,
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
    if is_stuck(&a) && is_stuck(&b) {
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

// ------------------------------------------------------------------------ view

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
}

fn fen_of(pos: &Crazyhouse) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn pocket_letters(pockets: &Pockets, colour: Color) -> String {
    POCKET_ROLES
        .iter()
        .flat_map(|&role| {
            let letter = Piece { color: colour, role }.char();
            std::iter::repeat_n(letter, usize::from(pockets[colour][role]))
        })
        .collect()
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
}

impl Bughouse {
    /// A game from the given board positions (A, B).
    pub fn from_positions(a: Crazyhouse, b: Crazyhouse) -> Bughouse {
        Bughouse {
            boards: Box::new([BoardState::new(a), BoardState::new(b)]),
            total_moves: 0,
            outcome: None,
        }
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
                uci.to_move(pos).map_err(|_| {
                    RuleError::new(
                        "king_in_check",
                        format!("{uci} on board {name} leaves the {} king in check", colour_name(colour)),
                    )
                })
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
        if is_bughouse_mate(&self.boards[board].pos) {
            let team = Bughouse::team_of(seat);
            let winners = (0..4).filter(|&s| Bughouse::team_of(s) == team).collect();
            let mut outcome = Outcome::win(winners, EndReason::Checkmate);
            outcome.detail = json!({"board": BOARD_NAMES[board], "mated": self.to_move_on(board)});
            return Some(outcome);
        }
        if self.boards.iter().all(|state| is_stuck(&state.pos)) {
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
            waiting: running && is_stuck(pos),
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
        Ok(BughouseSettings { start_position })
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
        match &settings.start_position {
            Some(start) => {
                let [a, b] = (*start.boards).clone();
                Bughouse::from_positions(a, b)
            }
            None => Bughouse::from_positions(Crazyhouse::default(), Crazyhouse::default()),
        }
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
        let unrepresentable = |_| {
            RuleError::new(
                "illegal_move",
                format!("{} on board {} cannot be played", mv.uci, BOARD_NAMES[board]),
            )
        };
        let (pos, captured) = play_on(&self.boards[board].pos, m).map_err(unrepresentable)?;
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
        state.last_move = Some(m.to_uci(CastlingMode::Standard));
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
        if is_bughouse_mate(&after) {
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
                uci: m.to_uci(CastlingMode::Standard),
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
        pos.legal_moves()
            .iter()
            .map(|m| BughouseMove {
                uci: m.to_uci(CastlingMode::Standard),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    // ---------------------------------------------------------------- helpers

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[] w KQkq - 0 1";

    fn board(fen: &str) -> Crazyhouse {
        parse_board(fen).unwrap_or_else(|err| panic!("bad test FEN {fen}: {err}"))
    }

    fn game(a: &str, b: &str) -> Bughouse {
        Bughouse::from_positions(board(a), board(b))
    }

    fn start() -> Bughouse {
        Bughouse::new(&BughouseSettings::default())
    }

    fn mv(text: &str) -> BughouseMove {
        BughouseMove::parse(text).unwrap_or_else(|| panic!("bad test move {text}"))
    }

    fn play(g: &mut Bughouse, seat: Seat, text: &str) {
        if let Err(err) = g.play(seat, &mv(text)) {
            panic!("seat {seat} {text} refused: {} ({})", err.rule, err.message);
        }
    }

    fn play_all(g: &mut Bughouse, moves: &[(Seat, &str)]) {
        for &(seat, text) in moves {
            play(g, seat, text);
        }
    }

    #[test]
    fn moves_are_written_in_algebraic_notation_with_check_and_mate() {
        let mut g = start();
        assert_eq!(g.move_text(0, &mv("e2e4")), "e4");
        assert_eq!(g.move_text(2, &mv("g1f3")), "Nf3");
        play_all(
            &mut g,
            &[
                (0, "e2e4"),
                (1, "e7e5"),
                (0, "f1c4"),
                (1, "b8c6"),
                (0, "d1h5"),
                (1, "g8f6"),
            ],
        );
        // Queen takes f7, protected by the bishop: a contact check no drop can block.
        assert_eq!(g.move_text(0, &mv("h5f7")), "Qxf7#");
        // Board B is untouched; a drop with a pawn names the pawn.
        let mut g = game(START, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1");
        play(&mut g, 2, "e2e4");
        play(&mut g, 3, "e7e5");
        assert_eq!(g.move_text(2, &mv("P@d6")), "P@d6");
        assert_eq!(g.move_text(2, &mv("f1b5")), "Bb5");
        play(&mut g, 2, "d2d4");
        play(&mut g, 3, "d7d6");
        assert_eq!(g.move_text(2, &mv("f1b5")), "Bb5+");
    }

    /// Plays a move that must be refused; checks nothing changed and returns the rule.
    fn refuse(g: &mut Bughouse, seat: Seat, text: &str) -> &'static str {
        let before = g.view();
        let active = g.active_seats();
        let err = g.play(seat, &mv(text)).expect_err(text);
        assert_eq!(g.view(), before, "{text} changed the game");
        assert_eq!(g.active_seats(), active);
        err.rule
    }

    fn ucis(moves: Vec<BughouseMove>) -> BTreeSet<String> {
        moves.iter().map(|m| m.uci.to_string()).collect()
    }

    /// shakmaty's own crazyhouse legal moves for a FEN, parsed independently of this module.
    fn oracle_moves(fen: &str) -> BTreeSet<String> {
        let fen: Fen = fen.parse().expect("view FEN parses");
        let pos: Crazyhouse = fen
            .into_position(CastlingMode::Standard)
            .or_else(PositionError::ignore_too_much_material)
            .expect("view FEN is a position");
        pos.legal_moves()
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect()
    }

    fn seats(set: SeatSet) -> Vec<Seat> {
        set.iter().collect()
    }

    /// A tiny deterministic generator for random playouts.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Per colour and kind, pieces on both boards and in all pockets, a promoted piece
    /// counting as a pawn: [pawn, knight, bishop, rook, queen, king].
    fn material(g: &Bughouse, colour: Color) -> [usize; 6] {
        let mut counts = [0; 6];
        for b in 0..2 {
            let pos = g.position(b);
            let promoted = pos.promoted();
            for (square, piece) in pos.board().iter() {
                if piece.color == colour {
                    let role = if promoted.contains(square) {
                        Role::Pawn
                    } else {
                        piece.role
                    };
                    counts[usize::from(role) - 1] += 1;
                }
            }
            let pockets = pockets_of(pos);
            for role in POCKET_ROLES {
                counts[usize::from(role) - 1] += usize::from(pockets[colour][role]);
            }
        }
        counts
    }

    const FULL_MATERIAL: [usize; 6] = [16, 4, 4, 4, 2, 2];

    /// One random legal move on a random active seat; false when no active seat can move.
    fn random_step(g: &mut Bughouse, choice: usize) -> bool {
        let movers: Vec<(Seat, Vec<BughouseMove>)> = g
            .active_seats()
            .iter()
            .map(|seat| (seat, g.legal_moves(seat)))
            .filter(|(_, moves)| !moves.is_empty())
            .collect();
        if movers.is_empty() {
            return false;
        }
        let (seat, moves) = &movers[choice % movers.len()];
        let m = moves[(choice / 2) % moves.len()];
        g.play(*seat, &m).expect("a listed legal move is accepted");
        true
    }

    // ---------------------------------------------------------------- seats

    #[test]
    fn seats_roles_and_teams() {
        assert_eq!(
            Bughouse::seat_roles(&BughouseSettings::default()),
            &["A-white", "A-black", "B-white", "B-black"]
        );
        assert_eq!([0, 1, 2, 3].map(Bughouse::team_of), [0, 1, 1, 0]);
        let g = start();
        assert_eq!(seats(g.active_seats()), vec![0, 2]);
        assert_eq!(g.legal_moves(0).len(), 20);
        assert_eq!(g.legal_moves(2).len(), 20);
        assert!(g.legal_moves(1).is_empty());
        assert!(g.legal_moves(9).is_empty());
    }

    #[test]
    fn start_view() {
        let view = serde_json::to_value(start().view()).unwrap();
        assert_eq!(view["A"]["fen"], START);
        assert_eq!(view["B"]["board"][0], "rnbqkbnr");
        assert_eq!(view["B"]["board"][4], "........");
        assert_eq!(view["A"]["board"][7], "RNBQKBNR");
        assert_eq!(view["A"]["turn"], "white");
        assert_eq!(view["A"]["to_move"], "A-white");
        assert_eq!(view["B"]["to_move"], "B-white");
        assert_eq!(view["A"]["pockets"], json!({"white": "", "black": ""}));
        assert_eq!(view["A"]["last_move"], Value::Null);
        assert_eq!(view["A"]["check"], false);
        assert_eq!(view["A"]["waiting"], false);
        assert_eq!(view["A"]["move_count"], 0);
        assert_eq!(view["total_moves"], 0);
        assert_eq!(view["move_limit"], 800);
    }

    #[test]
    fn boards_move_independently_and_turns_alternate_per_board() {
        let mut g = start();
        play(&mut g, 0, "e2e4");
        assert_eq!(seats(g.active_seats()), vec![1, 2]);
        play(&mut g, 2, "d2d4");
        assert_eq!(seats(g.active_seats()), vec![1, 3]);
        assert_eq!(refuse(&mut g, 0, "d2d4"), "not_your_turn");
        play(&mut g, 3, "d7d5");
        assert_eq!(seats(g.active_seats()), vec![1, 2]);
        let view = g.view();
        assert_eq!(view.a.last_move.as_deref(), Some("e2e4"));
        assert_eq!(view.b.last_move.as_deref(), Some("d7d5"));
        assert_eq!((view.a.move_count, view.b.move_count, view.total_moves), (1, 2, 3));
    }

    // ---------------------------------------------------------------- captures and drops

    #[test]
    fn capture_goes_to_the_partner_with_its_colour() {
        let mut g = start();
        play_all(&mut g, &[(0, "e2e4"), (1, "d7d5"), (0, "e4d5")]);
        // A-white took a black pawn: B-black (the partner) gets a black pawn; A's pockets stay empty.
        let view = g.view();
        assert_eq!(
            view.a.pockets,
            PocketsView {
                white: "".into(),
                black: "".into()
            }
        );
        assert_eq!(
            view.b.pockets,
            PocketsView {
                white: "".into(),
                black: "p".into()
            }
        );
        assert_eq!(
            view.b.fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[p] w KQkq - 0 1"
        );
        // A-black recaptures with the queen: the white pawn goes to B-white.
        play(&mut g, 1, "d8d5");
        assert_eq!(
            g.view().b.pockets,
            PocketsView {
                white: "P".into(),
                black: "p".into()
            }
        );
        // B-black drops it after B-white's move; B-white has the white pawn.
        play(&mut g, 2, "P@e4");
        assert!(g.legal_moves(3).contains(&mv("P@e5")));
        play(&mut g, 3, "P@e5");
        assert_eq!(
            g.view().b.pockets,
            PocketsView {
                white: "".into(),
                black: "".into()
            }
        );
        assert_eq!(g.view().b.board[3], "....p...");
        assert_eq!(g.view().b.board[4], "....P...");
    }

    #[test]
    fn en_passant_capture_travels_as_a_pawn() {
        let mut g = start();
        play_all(
            &mut g,
            &[(0, "e2e4"), (1, "a7a6"), (0, "e4e5"), (1, "d7d5"), (0, "e5d6")],
        );
        assert_eq!(g.view().b.pockets.black, "p");
        assert_eq!(g.view().a.board[2], "p..P....");
    }

    #[test]
    fn captured_promoted_queen_arrives_as_a_pawn() {
        let mut g = game("r3k3/1P6/8/8/8/8/8/4K3[] w - - 0 1", START);
        play(&mut g, 0, "b7b8q");
        assert_eq!(
            g.view().a.fen,
            "rQ~2k3/8/8/8/8/8/8/4K3[] b - - 0 1",
            "promoted pieces carry ~"
        );
        assert!(g.view().a.check);
        // Black takes the promoted queen: B-white receives a white pawn, not a queen.
        play(&mut g, 1, "a8b8");
        assert_eq!(
            g.view().b.pockets,
            PocketsView {
                white: "P".into(),
                black: "".into()
            }
        );
        assert_eq!(
            g.view().a.pockets,
            PocketsView {
                white: "".into(),
                black: "".into()
            }
        );
    }

    #[test]
    fn drop_rules_and_their_codes() {
        let mut g = game("4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1", START);
        assert_eq!(refuse(&mut g, 0, "P@a8"), "pawn_on_back_rank");
        assert_eq!(refuse(&mut g, 0, "P@h1"), "pawn_on_back_rank");
        assert_eq!(refuse(&mut g, 0, "P@e1"), "pawn_on_back_rank", "rank before occupancy");
        assert_eq!(refuse(&mut g, 0, "N@a3"), "no_piece_in_pocket");
        assert_eq!(refuse(&mut g, 0, "K@a3"), "illegal_move");
        assert_eq!(refuse(&mut g, 0, "P@e8"), "pawn_on_back_rank");
        let legal = ucis(g.legal_moves(0));
        assert!(
            !legal
                .iter()
                .any(|m| m.starts_with("P@") && (m.ends_with('1') || m.ends_with('8')))
        );
        assert_eq!(legal.iter().filter(|m| m.starts_with("P@")).count(), 48);
        play(&mut g, 0, "p@a2");
        assert_eq!(g.view().a.last_move.as_deref(), Some("P@a2"));
        assert_eq!(g.view().a.pockets.white, "");
        play(&mut g, 1, "e8d8");
        // The dropped pawn on its second rank may double-step.
        play(&mut g, 0, "a2a4");
        let mut occupied = game("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", START);
        assert_eq!(refuse(&mut occupied, 0, "N@e1"), "illegal_move");
    }

    #[test]
    fn a_drop_that_mates_ends_the_match_for_the_droppers_team() {
        // Smothered king: a knight dropped on f7 checks h8; nothing can take it or block.
        let mut g = game("6rk/6pp/8/8/8/8/8/4K3[N] w - - 0 1", START);
        play(&mut g, 0, "N@f7");
        let outcome = g.outcome().expect("mate");
        assert_eq!(outcome.reason, EndReason::Checkmate);
        assert_eq!(outcome.winners(), &[0, 3]);
        assert_eq!(outcome.detail, json!({"board": "A", "mated": 1}));
        assert!(g.active_seats().is_empty());
        assert!(g.legal_moves(2).is_empty());
        assert_eq!(refuse(&mut g, 2, "e2e4"), "game_over");
        assert_eq!(g.view().a.to_move, None);
    }

    #[test]
    fn knight_check_with_no_escape_is_mate_even_with_a_full_pocket() {
        // Black holds a queen, but no drop answers a knight check.
        let mut g = game(START, "6rk/6pp/8/6N1/8/8/8/4K3[q] w - - 0 1");
        play(&mut g, 2, "g5f7");
        let outcome = g.outcome().expect("mate");
        assert_eq!(outcome.reason, EndReason::Checkmate);
        assert_eq!(outcome.winners(), &[1, 2]);
        assert_eq!(outcome.detail, json!({"board": "B", "mated": 3}));
    }

    #[test]
    fn contact_check_by_a_protected_queen_drop_is_mate() {
        // Q@g7 backed by the h6 pawn; black's rook pocket cannot help against a contact check.
        let mut g = game("6k1/8/7P/8/8/8/8/4K3[Qr] w - - 0 1", START);
        play(&mut g, 0, "Q@g7");
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
    }

    #[test]
    fn blockable_line_check_with_an_empty_pocket_is_not_mate() {
        // Back-rank rook drop: black has no move or drop, but a piece dropped on f8 would block.
        let mut g = game("6k1/5ppp/8/8/8/8/8/4K3[R] w - - 0 1", START);
        play(&mut g, 0, "R@e8");
        assert!(g.outcome().is_none());
        assert!(g.legal_moves(1).is_empty());
        assert_eq!(
            seats(g.active_seats()),
            vec![1, 2],
            "the checked player still waits with the clock running"
        );
        let view = g.view();
        assert!(view.a.check && view.a.waiting);
        assert!(!is_bughouse_mate(g.position(0)));
        assert!(
            g.position(0).is_checkmate(),
            "shakmaty's crazyhouse would call this mate"
        );
        // The partner (B-white) wins a pawn: still no legal answer (no pawn on rank 8), still no mate.
        play_all(&mut g, &[(2, "e2e4"), (3, "d7d5"), (2, "e4d5")]);
        assert_eq!(g.view().a.pockets.black, "p");
        assert!(g.legal_moves(1).is_empty() && g.outcome().is_none());
        // Then the queen: now black can block on f8.
        play_all(&mut g, &[(3, "d8d5"), (2, "b1c3"), (3, "a7a6"), (2, "c3d5")]);
        assert_eq!(g.view().a.pockets.black, "qp");
        assert_eq!(ucis(g.legal_moves(1)), BTreeSet::from(["Q@f8".to_string()]));
        assert!(!g.view().a.waiting);
        play(&mut g, 1, "Q@f8");
        assert!(g.outcome().is_none());
    }

    #[test]
    fn double_check_is_mate_even_where_a_single_line_check_would_be_blockable() {
        // The e4 knight shields the e1 rook; black's king is boxed in by its own pieces.
        let fen = "3rkr2/3p1p2/8/8/4N3/8/8/4RK2[q] w - - 0 1";
        // Nd6 checks and uncovers the rook: a double check, no king move, mate despite the queen.
        let mut g = game(fen, START);
        play(&mut g, 0, "e4d6");
        assert_eq!(g.position(0).checkers().count(), 2);
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
        // Nc3 only uncovers the rook: a single line check, answered by a queen drop.
        let mut g = game(fen, START);
        play(&mut g, 0, "e4c3");
        assert!(g.outcome().is_none());
        assert!(g.legal_moves(1).iter().all(|m| m.uci.is_put()));
        assert_eq!(g.legal_moves(1).len(), 6, "Q@e7 … Q@e2");
        // The same with an empty pocket: no answer, but not mate: black waits.
        let mut g = game("3rkr2/3p1p2/8/8/4N3/8/8/4RK2[] w - - 0 1", START);
        play(&mut g, 0, "e4c3");
        assert!(g.outcome().is_none());
        assert!(g.view().a.waiting && g.view().a.check);
    }

    #[test]
    fn no_stalemate_the_player_waits() {
        let mut g = game("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", START);
        assert!(g.outcome().is_none());
        assert_eq!(seats(g.active_seats()), vec![1, 2]);
        assert!(g.legal_moves(1).is_empty());
        assert!(g.view().a.waiting && !g.view().a.check);
        // Its partner (B-white) wins a pawn on B: A-black can now drop it.
        play_all(&mut g, &[(2, "e2e4"), (3, "d7d5"), (2, "e4d5")]);
        assert!(!g.view().a.waiting);
        assert!(g.legal_moves(1).contains(&mv("P@a5")));
        play(&mut g, 1, "P@a5");
        assert!(g.outcome().is_none());
    }

    #[test]
    fn both_players_to_move_stuck_is_a_draw() {
        let mut g = game("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", "7k/5Q2/8/6K1/8/8/8/8[] w - - 0 1");
        assert!(g.outcome().is_none());
        play(&mut g, 2, "g5g6");
        let outcome = g.outcome().expect("draw");
        assert_eq!(outcome.result, super::super::GameResult::Draw);
        assert_eq!(outcome.reason, EndReason::NoPlayerCanMove);
        assert_eq!(outcome.detail, json!({"waiting": [1, 3]}));
        assert!(g.active_seats().is_empty());
        assert!(!g.view().a.waiting, "waiting is only shown while the game runs");
    }

    #[test]
    fn eight_hundred_moves_draw() {
        let mut g = start();
        let shuffle = [(0, "g1f3"), (1, "g8f6"), (0, "f3g1"), (1, "f6g8")];
        let shuffle_b = shuffle.map(|(seat, m)| (seat + 2, m));
        for round in 0..100 {
            play_all(&mut g, &shuffle);
            play_all(&mut g, &shuffle_b[..3]);
            if round < 99 {
                play_all(&mut g, &shuffle_b[3..]);
            }
        }
        assert_eq!(g.total_moves(), 799);
        assert!(g.outcome().is_none(), "no repetition draw in bughouse");
        play(&mut g, 3, "f6g8");
        let outcome = g.outcome().expect("move limit");
        assert_eq!(outcome.reason, EndReason::MoveLimit);
        assert_eq!(outcome.result, super::super::GameResult::Draw);
        assert_eq!(outcome.detail, json!({"moves": 800}));
        assert_eq!(refuse(&mut g, 0, "g1f3"), "game_over");
    }

    #[test]
    fn moves_on_the_two_boards_commute() {
        let mut base = start();
        play_all(&mut base, &[(0, "e2e4"), (1, "d7d5"), (2, "e2e4"), (3, "d7d5")]);
        let mut ab = base.clone();
        play_all(&mut ab, &[(0, "e4d5"), (2, "e4d5")]);
        let mut ba = base.clone();
        play_all(&mut ba, &[(2, "e4d5"), (0, "e4d5")]);
        assert_eq!(ab.view(), ba.view());
        assert_eq!(ab.view().a.pockets.black, "p");
        assert_eq!(ab.view().b.pockets.black, "p");
        // With drops depending on the transfers: each black drops the pawn it was sent.
        let mut ab2 = ab.clone();
        play_all(&mut ab2, &[(1, "P@e6"), (3, "P@c6")]);
        let mut ba2 = ab.clone();
        play_all(&mut ba2, &[(3, "P@c6"), (1, "P@e6")]);
        assert_eq!(ab2.view(), ba2.view());
    }

    #[test]
    fn random_commutation_of_one_move_per_board() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..30 {
            let mut g = start();
            for _ in 0..rng.below(40) {
                let choice = rng.below(10_000);
                if !random_step(&mut g, choice) || g.outcome().is_some() {
                    break;
                }
            }
            if g.outcome().is_some() {
                continue;
            }
            let [sa, sb] = [g.to_move_on(0), g.to_move_on(1)];
            let (la, lb) = (g.legal_moves(sa), g.legal_moves(sb));
            if la.is_empty() || lb.is_empty() {
                continue;
            }
            let (a, b) = (la[rng.below(la.len())], lb[rng.below(lb.len())]);
            let mut first = g.clone();
            let mut second = g.clone();
            let r1 = first.play(sa, &a).and_then(|_| first.play(sb, &b));
            let r2 = second.play(sb, &b).and_then(|_| second.play(sa, &a));
            if r1.is_ok() && r2.is_ok() && first.outcome().is_none() && second.outcome().is_none() {
                assert_eq!(first.view(), second.view());
            }
        }
    }

    // ---------------------------------------------------------------- refusals

    #[test]
    fn refusal_codes() {
        let mut g = start();
        assert_eq!(refuse(&mut g, 1, "e7e5"), "not_your_turn");
        assert_eq!(refuse(&mut g, 4, "e2e4"), "not_your_turn");
        assert_eq!(refuse(&mut g, 0, "e2e5"), "illegal_move");
        assert_eq!(refuse(&mut g, 0, "e7e5"), "illegal_move");
        assert_eq!(refuse(&mut g, 0, "0000"), "illegal_move");
        assert_eq!(refuse(&mut g, 0, "e1g1"), "illegal_move");
        let err = g.play(0, &mv("e2e5")).unwrap_err();
        assert!(
            err.message.contains("e2e5") && err.message.contains("board A"),
            "{}",
            err.message
        );
        // A pinned bishop, a king stepping into check, a drop that does not answer a check.
        let mut pinned = game("4k3/4r3/8/8/8/8/4B3/4K3[] w - - 0 1", START);
        assert_eq!(refuse(&mut pinned, 0, "e2d3"), "king_in_check");
        assert_eq!(refuse(&mut pinned, 0, "e2c5"), "illegal_move", "a bishop cannot jump");
        let mut into_check = game("4k3/3r4/8/8/8/8/8/4K3[] w - - 0 1", START);
        assert_eq!(refuse(&mut into_check, 0, "e1d1"), "king_in_check");
        play(&mut into_check, 0, "e1f1");
        let mut checked = game("4k3/4r3/8/8/8/8/8/4K3[N] w - - 0 1", START);
        assert_eq!(refuse(&mut checked, 0, "N@a3"), "king_in_check");
        assert_eq!(refuse(&mut checked, 0, "e1e2"), "king_in_check");
        play(&mut checked, 0, "N@e4");
        // Promotion must name a piece; a wrong promotion is illegal.
        let mut promote = game("4k3/P7/8/8/8/8/8/4K3[] w - - 0 1", START);
        assert_eq!(refuse(&mut promote, 0, "a7a8"), "illegal_move");
        assert_eq!(refuse(&mut promote, 0, "a7a8k"), "illegal_move");
        play(&mut promote, 0, "a7a8n");
        assert_eq!(promote.view().a.fen, "N~3k3/8/8/8/8/8/8/4K3[] b - - 0 1");
    }

    #[test]
    fn castling_is_the_kings_two_square_move() {
        let mut g = game("r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1", START);
        assert!(g.legal_moves(0).contains(&mv("e1g1")));
        assert!(g.legal_moves(0).contains(&mv("e1c1")));
        play(&mut g, 0, "e1g1");
        assert_eq!(g.view().a.board[7], "R....RK.");
        // The f1 rook now covers f8: black may not castle short, but long (given king-takes-rook).
        assert_eq!(refuse(&mut g, 1, "e8g8"), "illegal_move");
        let before = g.clone();
        assert_eq!(
            before.normalised(1, &mv("e8a8")),
            mv("e8c8"),
            "king-takes-rook is stored and broadcast as the king's two-square move"
        );
        play(&mut g, 1, "e8a8");
        assert_eq!(
            g.view().a.last_move.as_deref(),
            Some("e8c8"),
            "king-takes-rook is normalised"
        );
        assert_eq!(g.view().a.board[0], "..kr...r");
    }

    #[test]
    fn a_castle_given_king_takes_rook_is_stored_and_broadcast_as_the_kings_move() {
        let g = game("r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1", START);
        let mut any = crate::games::AnyGame::Bughouse(g);
        let (_, stored) = any.play_json(0, &json!({"uci": "e1h1"})).expect("a castle");
        assert_eq!(stored, json!({"uci": "e1g1"}));
    }

    #[test]
    fn malformed_moves_are_decode_errors() {
        for bad in [
            json!("e2e4"),
            json!({"uci": "e9e4"}),
            json!({"uci": "xx"}),
            json!({"uci": "N@"}),
            json!({"uci": 42}),
            json!({"to": "e4"}),
            json!({"uci": "e2e4", "extra": 1}),
        ] {
            assert!(serde_json::from_value::<BughouseMove>(bad.clone()).is_err(), "{bad}");
        }
        let drop: BughouseMove = serde_json::from_value(json!({"uci": "n@f3"})).unwrap();
        assert_eq!(serde_json::to_value(drop).unwrap(), json!({"uci": "N@f3"}));
        let promo: BughouseMove = serde_json::from_value(json!({"uci": "e7e8q"})).unwrap();
        assert_eq!(serde_json::to_value(promo).unwrap(), json!({"uci": "e7e8q"}));
    }

    #[test]
    fn finish_from_outside() {
        let mut g = start();
        g.finish(Outcome::win(vec![1, 2], EndReason::Time));
        g.finish(Outcome::draw(EndReason::DrawAgreed));
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::Time));
        assert!(g.active_seats().is_empty());
        assert_eq!(refuse(&mut g, 0, "e2e4"), "game_over");
    }

    // ---------------------------------------------------------------- settings

    fn read(value: Value) -> Result<BughouseSettings, SettingError> {
        let mut r = SettingsReader::of(value);
        let settings = Bughouse::read_settings(&mut r)?;
        r.finish()?;
        Ok(settings)
    }

    #[test]
    fn default_settings_serialise_empty() {
        let settings = read(json!({})).unwrap();
        assert_eq!(settings, BughouseSettings::default());
        assert_eq!(serde_json::to_value(&settings).unwrap(), json!({}));
    }

    #[test]
    fn start_position_reads_back_identically() {
        let given = json!({"start_position": {
            "A": "r3k2r/8/8/8/8/8/8/R3K2R[QQNp] b Kq - 3 20",
            "B": "6rk/6pp/8/6N1/8/8/8/4K3/q w - - 0 1",
        }});
        let settings = read(given).unwrap();
        let json = serde_json::to_value(&settings).unwrap();
        assert_eq!(
            json,
            json!({"start_position": {
                "A": "r3k2r/8/8/8/8/8/8/R3K2R[NQQp] b Kq - 3 20",
                "B": "6rk/6pp/8/6N1/8/8/8/4K3[q] w - - 0 1",
            }})
        );
        assert_eq!(read(json.clone()).unwrap(), settings);
        let g = Bughouse::new(&settings);
        assert_eq!(seats(g.active_seats()), vec![1, 2]);
        assert_eq!(
            g.view().a.pockets,
            PocketsView {
                white: "QQN".into(),
                black: "p".into()
            }
        );
    }

    #[test]
    fn start_position_errors_name_their_field() {
        let cases = [
            (json!("fen | fen"), "settings.start_position"),
            (json!({"A": START}), "settings.start_position.B"),
            (json!({"A": START, "B": START, "C": START}), "settings.start_position.C"),
            (json!({"A": 3, "B": START}), "settings.start_position.A"),
            (json!({"A": START, "B": "not a fen"}), "settings.start_position.B"),
            (
                json!({"A": "8/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}),
                "settings.start_position.A",
            ),
            (
                json!({"A": START, "B": "4k3/8/8/8/8/8/8/3KK3[] w - - 0 1"}),
                "settings.start_position.B",
            ),
            (
                json!({"A": "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", "B": START}),
                "settings.start_position.A",
            ),
            (
                json!({"A": "P3k3/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}),
                "settings.start_position.A",
            ),
            (
                json!({"A": "4k3/8/8/8/8/8/8/R3K3[] w K - 0 1", "B": START}),
                "settings.start_position.A",
            ),
            (
                json!({"A": "6rk/5Npp/8/8/8/8/8/4K3[] b - - 0 1", "B": START}),
                "settings.start_position.A",
            ),
            (
                json!({"A": START, "B": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] w KQkq - 0 1"}),
                "settings.start_position",
            ),
            (
                json!({"A": "7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", "B": "7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1"}),
                "settings.start_position",
            ),
        ];
        for (value, field) in cases {
            let err = read(json!({"start_position": value.clone()})).unwrap_err();
            assert_eq!(err.field, field, "{value}: {}", err.message);
        }
        let err = read(json!({"start_position": {"A": "6rk/5Npp/8/8/8/8/8/4K3[] b - - 0 1", "B": START}})).unwrap_err();
        assert!(err.message.contains("checkmated"), "{}", err.message);
        let err = read(json!({"start_position": {"A": "8/8/8/8/8/8/8/4K3[] w - - 0 1", "B": START}})).unwrap_err();
        assert!(err.message.contains("missing king"), "{}", err.message);
        assert_eq!(read(json!({"colour": "red"})).unwrap_err().field, "settings.colour");
    }

    // ---------------------------------------------------------------- perft

    #[test]
    fn perft_equals_chess_perft_without_pockets() {
        assert_eq!(perft(START, 1), Ok(20));
        assert_eq!(perft(START, 2), Ok(400));
        assert_eq!(perft(START, 3), Ok(8902));
        assert_eq!(perft(KIWIPETE, 1), Ok(48));
        assert_eq!(perft(KIWIPETE, 2), Ok(2039));
        assert_eq!(perft(KIWIPETE, 3), Ok(97862));
        assert!(matches!(perft("nonsense", 1), Err(BoardError::Fen(_))));
        assert!(matches!(
            perft("8/8/8/8/8/8/8/8 w - - 0 1", 1),
            Err(BoardError::Position(_))
        ));
    }

    #[test]
    fn perft_differs_from_crazyhouse_perft_once_captures_matter() {
        let cases = [
            // Kiwipete: a capture in ply 1 is a drop for crazyhouse in ply 3.
            (KIWIPETE, 2, 2039, 2039),
            (KIWIPETE, 3, 97862, PERFT_KIWIPETE_ZH_3),
            // A small position with pockets and captures at hand.
            (SMALL, 1, PERFT_SMALL[0], PERFT_SMALL[0]),
            (SMALL, 2, PERFT_SMALL[1], PERFT_SMALL[1]),
            (SMALL, 3, PERFT_SMALL[2], PERFT_SMALL_ZH[2]),
            (SMALL, 4, PERFT_SMALL[3], PERFT_SMALL_ZH[3]),
        ];
        for (fen, depth, ours, crazyhouse) in cases {
            assert_eq!(perft(fen, depth), Ok(ours), "{fen} depth {depth}");
            assert_eq!(shakmaty::perft(&board(fen), depth), crazyhouse, "{fen} depth {depth}");
        }
        assert_ne!(PERFT_SMALL[2], PERFT_SMALL_ZH[2]);
    }

    const SMALL: &str = "4k3/2p5/8/3p4/4P3/2N5/8/4K3[Nb] w - - 0 1";
    const PERFT_KIWIPETE_ZH_3: u64 = 106_456;
    const PERFT_SMALL: [u64; 4] = [72, 4_553, 120_668, 2_550_205];
    const PERFT_SMALL_ZH: [u64; 4] = [72, 4_553, 125_996, 2_727_210];

    // ---------------------------------------------------------------- differential, properties

    const POCKET_FENS: &[&str] = &[
        START,
        KIWIPETE,
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R[NPbp] w KQkq - 4 5",
        "4k3/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R[PPPPpppp] b KQkq - 0 1",
        "4k3/4r3/8/8/8/8/8/4K3[NN] w - - 0 1",
    ];

    #[test]
    fn legal_moves_match_shakmaty_crazyhouse_on_random_playouts() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut checked = 0;
        for a in POCKET_FENS {
            for b in POCKET_FENS.iter().rev() {
                for _ in 0..2 {
                    let mut g = game(a, b);
                    for _ in 0..60 {
                        let view = g.view();
                        for (index, board_view) in [&view.a, &view.b].into_iter().enumerate() {
                            let seat = g.to_move_on(index);
                            assert_eq!(
                                ucis(g.legal_moves(seat)),
                                oracle_moves(&board_view.fen),
                                "{}",
                                board_view.fen
                            );
                            checked += 1;
                        }
                        let choice = rng.below(1 << 20);
                        if !random_step(&mut g, choice) || g.outcome().is_some() {
                            break;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn any_game_plays_bughouse_over_json() {
        use super::super::{AnySettings, GameKind, MoveError};
        assert_eq!(GameKind::from_id("bughouse"), Some(GameKind::Bughouse));
        let mut r = SettingsReader::of(json!({}));
        let settings = AnySettings::read(GameKind::Bughouse, &mut r).unwrap();
        assert_eq!(settings.seat_count(), 4);
        assert_eq!(settings.team_of(3), 0);
        let mut game = settings.new_game();
        assert_eq!(seats(game.active_seats()), vec![0, 2]);
        let (played, echoed) = game.play_json(2, &json!({"uci": "g1f3"})).unwrap();
        assert!(played.turn_over);
        assert_eq!(echoed, json!({"uci": "g1f3"}));
        assert!(matches!(
            game.play_json(0, &json!({"uci": "e2"})),
            Err(MoveError::Malformed(_))
        ));
        assert!(matches!(
            game.play_json(0, &json!({"uci": "e2e5"})),
            Err(MoveError::Illegal(_))
        ));
        assert_eq!(game.view()["B"]["last_move"], "g1f3");
        assert_eq!(game.legal_moves_json(0).len(), 20);
        assert_eq!(EndReason::Checkmate.as_str(), "checkmate");
        assert_eq!(EndReason::NoPlayerCanMove.as_str(), "no_player_can_move");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn random_play_conserves_material_and_refusals_change_nothing(
            start_index in 0..3usize,
            choices in prop::collection::vec(any::<u32>(), 0..160),
            probes in prop::collection::vec((0..5u8, "[a-h][1-8][a-h][1-8]|[PNBRQK]@[a-h][1-8]"), 0..40),
        ) {
            let fens = [START, POCKET_FENS[2], KIWIPETE];
            let mut g = game(fens[start_index], START);
            let full = if start_index == 0 {
                Some(FULL_MATERIAL)
            } else {
                None
            };
            let initial = [material(&g, Color::White), material(&g, Color::Black)];
            let mut probes = probes.into_iter();
            for choice in choices {
                if g.outcome().is_some() {
                    break;
                }
                if let Some((seat, text)) = probes.next() {
                    let m = mv(&text);
                    let listed = g.legal_moves(seat);
                    let legal = listed.contains(&m);
                    let before = g.view();
                    match g.play(seat, &m) {
                        Ok(_) => {
                            // Accepted: the move as normalised (e1h1 castles as e1g1) was listed.
                            let view = g.view();
                            let last = if board_of(seat) == 0 { view.a.last_move } else { view.b.last_move };
                            let played = last.as_deref().and_then(BughouseMove::parse);
                            prop_assert!(played.is_some_and(|p| listed.contains(&p)), "{text} accepted but not listed");
                        }
                        Err(_) => {
                            prop_assert!(!legal, "{text} listed but refused");
                            prop_assert_eq!(g.view(), before);
                        }
                    }
                }
                if !random_step(&mut g, choice as usize) {
                    break;
                }
                let now = [material(&g, Color::White), material(&g, Color::Black)];
                prop_assert_eq!(now, initial);
                if let Some(full) = full {
                    prop_assert_eq!(now, [full, full]);
                }
                let view = g.view();
                let total = view.a.move_count + view.b.move_count;
                prop_assert_eq!(total, view.total_moves);
            }
        }
    }
}
