//! The games' rules: pure, synchronous code with no I/O and no time.
//!
//! Every game implements [`Rules`]. The table holds an [`AnyGame`] (one variant per
//! game, plain `match` dispatch) and talks to it in JSON at the edges: settings come in
//! from the table's creation request, moves come in from the protocol's `move` message,
//! and the game's public view goes out in snapshots and events.
//!
//! What the trait is shaped for, beyond Gomoku:
//! - more than two seats (Bughouse has four, in two teams): seats are small indices and
//!   [`Rules::team_of`] groups them;
//! - several clocks at once (Bughouse's two boards): [`Rules::active_seats`] returns a set;
//! - multi-part turns (Krux): a `Move` may be one part of a turn, and [`Played::turn_over`]
//!   says whether the turn passed on.
//!
//! This crate is pure: no async runtime, no database, no web framework among its
//! dependencies (the server and the bots build on it). A game of Lines of Action, played
//! through the JSON a table speaks, and a perft of its start:
//!
//! ```
//! use spelbord_games::lines_of_action::{LinesOfAction, LoaSettings, perft};
//! use spelbord_games::{AnySettings, GameKind, Rules, SettingsReader};
//!
//! // The settings a table's creation request would carry (none: the defaults).
//! let mut reader = SettingsReader::new(serde_json::Map::new());
//! let settings = AnySettings::read(GameKind::LinesOfAction, &mut reader).expect("defaults");
//! let mut game = settings.new_game();
//! assert_eq!(game.active_seats().iter().collect::<Vec<_>>(), [0]);
//! // Black (seat 0) plays its first legal move, as a client would send it.
//! let first = game.legal_moves_json(0).remove(0);
//! let (played, _notation) = game.play_json(0, &first).expect("a legal move");
//! assert!(played.turn_over);
//! assert_eq!(game.active_seats().iter().collect::<Vec<_>>(), [1]);
//!
//! // Perft: 36 first moves from the standard start, 1,244 sequences of two.
//! let start = LinesOfAction::new(&LoaSettings::default());
//! assert_eq!(perft(&start, 1), 36);
//! assert_eq!(perft(&start, 2), 1_244);
//! ```

// Module headers link the private modules they describe: they are read with
// `cargo doc --document-private-items`, where those links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod bughouse;
pub mod gomoku;
pub mod krux;
pub mod lines_of_action;
pub mod settings;
pub mod text;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use settings::{SettingError, SettingsReader};

/// A seat at a table, numbered from 0 in the order of [`Rules::seat_roles`].
pub type Seat = u8;

/// Which game a table plays. The wire name is the game id (`"gomoku"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    Gomoku,
    LinesOfAction,
    Krux,
    Bughouse,
}

impl GameKind {
    /// Every game the server knows, for error messages.
    pub const ALL: &'static [GameKind] = &[
        GameKind::Gomoku,
        GameKind::LinesOfAction,
        GameKind::Krux,
        GameKind::Bughouse,
    ];

    /// The game id used on the wire and in the database.
    pub fn id(self) -> &'static str {
        match self {
            GameKind::Gomoku => "gomoku",
            GameKind::LinesOfAction => "lines-of-action",
            GameKind::Krux => "krux",
            GameKind::Bughouse => "bughouse",
        }
    }

    /// Parses a game id; `None` for a game the server does not know.
    pub fn from_id(id: &str) -> Option<GameKind> {
        GameKind::ALL.iter().copied().find(|kind| kind.id() == id)
    }
}

/// A set of seats (at most 8), such as the seats whose clocks run now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeatSet(u8);

impl SeatSet {
    pub const EMPTY: SeatSet = SeatSet(0);

    pub fn only(seat: Seat) -> SeatSet {
        SeatSet(1 << seat)
    }

    pub fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | (1 << seat))
    }

    pub fn contains(self, seat: Seat) -> bool {
        seat < 8 && self.0 & (1 << seat) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..8u8).filter(move |seat| self.contains(*seat))
    }
}

impl Serialize for SeatSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Why a game ended. The wire form is the snake_case name (`"five_in_a_row"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Gomoku: a line of five (or more, where the variant allows it).
    FiveInARow,
    /// Gomoku: the board filled up with no line.
    BoardFull,
    /// Lines of Action: the winner's pieces form a single group.
    Connected,
    /// Lines of Action: one move connected both players' groups (a draw by default).
    BothConnected,
    /// The same position occurred for the third time with the same player to move.
    Repetition,
    /// Krux: an opponent's piece went into the hole.
    Hole,
    /// A game's safety cap on its length (Krux: 300 turns) was reached.
    MoveLimit,
    /// A player resigned.
    Resignation,
    /// The players agreed to a draw.
    DrawAgreed,
    /// A flag fell (set by the table's clock).
    Time,
    /// A player left and did not come back within the grace period.
    Abandoned,
    /// The game was stopped without a result (never a loss).
    Aborted,
    /// Bughouse: a king was mated on one board (no legal move or drop and no drop could block).
    Checkmate,
    /// Bughouse: on both boards the player to move has no legal move or drop.
    NoPlayerCanMove,
}

impl EndReason {
    /// The name stored in the database and sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::FiveInARow => "five_in_a_row",
            EndReason::BoardFull => "board_full",
            EndReason::Connected => "connected",
            EndReason::BothConnected => "both_connected",
            EndReason::Repetition => "repetition",
            EndReason::Hole => "hole",
            EndReason::MoveLimit => "move_limit",
            EndReason::Resignation => "resignation",
            EndReason::DrawAgreed => "draw_agreed",
            EndReason::Time => "time",
            EndReason::Abandoned => "abandoned",
            EndReason::Aborted => "aborted",
            EndReason::Checkmate => "checkmate",
            EndReason::NoPlayerCanMove => "no_player_can_move",
        }
    }
}

/// How a finished game came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameResult {
    /// These seats won (a whole team, for team games).
    Win {
        winners: Vec<Seat>,
    },
    Draw,
    /// No result: the game was stopped.
    Aborted,
}

/// A finished game's result, the rule that ended it, and any detail clients should show
/// (for Gomoku: every completed line). The protocol shows it as `protocol::ResultView`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: EndReason,
    /// Game-specific detail for clients; `Value::Null` when there is none.
    pub detail: Value,
}

impl Outcome {
    pub fn win(winners: Vec<Seat>, reason: EndReason) -> Outcome {
        Outcome {
            result: GameResult::Win { winners },
            reason,
            detail: Value::Null,
        }
    }

    pub fn draw(reason: EndReason) -> Outcome {
        Outcome {
            result: GameResult::Draw,
            reason,
            detail: Value::Null,
        }
    }

    /// The wire and database name of the result kind: `win`, `draw` or `aborted`.
    pub fn kind(&self) -> &'static str {
        match self.result {
            GameResult::Win { .. } => "win",
            GameResult::Draw => "draw",
            GameResult::Aborted => "aborted",
        }
    }

    pub fn winners(&self) -> &[Seat] {
        match &self.result {
            GameResult::Win { winners } => winners,
            _ => &[],
        }
    }

    /// An outcome as stored (the names of [`Outcome::kind`] and [`EndReason::as_str`]);
    /// anything unreadable reads as aborted.
    pub fn from_stored(kind: &str, winners: &[Seat], reason: &str, detail: Value) -> Outcome {
        let reason: EndReason = serde_json::from_value(Value::String(reason.to_owned())).unwrap_or(EndReason::Aborted);
        let result = match kind {
            "win" => GameResult::Win {
                winners: winners.to_vec(),
            },
            "draw" => GameResult::Draw,
            _ => GameResult::Aborted,
        };
        Outcome { result, reason, detail }
    }
}

/// A move refused by the rules: a stable machine-readable `rule` and a human sentence.
/// Nothing changed in the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RuleError {
    /// Which rule the move breaks, e.g. `occupied`, `off_board`, `centre_opening`.
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(rule: &'static str, message: impl Into<String>) -> RuleError {
        RuleError {
            rule,
            message: message.into(),
        }
    }
}

/// What a legal move did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The turn passed to someone else (always true for one-part games; false for the
    /// inner parts of a Krux turn).
    pub turn_over: bool,
}

/// The rules of one game. Pure and synchronous: no I/O, no clocks, no randomness.
pub trait Rules: Sized + Clone {
    /// The game's own settings, read from the table's creation request.
    type Settings: Serialize + Clone;
    /// A whole move, or one part of a multi-part turn.
    type Move: Serialize + DeserializeOwned + Clone;
    /// What everyone at the table may see.
    type View: Serialize;

    /// Reads and validates the game's settings, filling in defaults. Every key the game
    /// knows is taken from `reader`; the caller rejects whatever is left over.
    fn read_settings(reader: &mut SettingsReader) -> Result<Self::Settings, SettingError>;

    /// The name of each seat's role, in seat order (Gomoku: `["X", "O"]`).
    fn seat_roles(settings: &Self::Settings) -> &'static [&'static str];

    /// The team of a seat: seats on one team win and lose together. Each seat is its own
    /// team unless the game says otherwise.
    fn team_of(seat: Seat) -> u8 {
        seat
    }

    /// A new game in its starting position.
    fn new(settings: &Self::Settings) -> Self;

    /// The table's game number `seed` of a game whose start the server draws (Bughouse
    /// 960): the same seed always gives the same start, so a game is rebuilt from its moves
    /// alone. Games with one start ignore it.
    fn new_drawn(settings: &Self::Settings, seed: u64) -> Self
    where
        Self: Sized,
    {
        let _ = seed;
        Self::new(settings)
    }

    /// The seats whose turn it is now (and whose clocks run); empty once the game is over.
    fn active_seats(&self) -> SeatSet;

    /// Plays a move (or one part of a turn) for `seat`. On error nothing changed.
    fn play(&mut self, seat: Seat, mv: &Self::Move) -> Result<Played, RuleError>;

    /// Ends the game from outside the rules (resignation, agreement, time, abandonment).
    fn finish(&mut self, outcome: Outcome);

    /// The result, once the game is over.
    fn outcome(&self) -> Option<&Outcome>;

    /// The public state of the game.
    fn view(&self) -> Self::View;

    /// [`Rules::view`] as JSON text: what every `moved` event carries. A game may write it
    /// without building its view first; the text must be the view's.
    fn view_text(&self) -> Box<serde_json::value::RawValue> {
        json_text(&self.view())
    }

    /// Every legal move for `seat` now (for bots, tests and perft).
    fn legal_moves(&self, seat: Seat) -> Vec<Self::Move>;

    /// The move in the game's notation, for move lists and records, when `seat` plays the
    /// legal move `mv` now (called before [`Rules::play`]): Gomoku `H8`, Lines of Action
    /// `b1-b3` or `b1xb3`, Krux the part (`step c2`) or a whole turn's parts, Bughouse
    /// standard algebraic notation on the seat's board (`Nxf7+`, `P@f6`, `#` for mate).
    fn move_text(&self, seat: Seat, mv: &Self::Move) -> String;

    /// The move as it is stored and broadcast, when `seat` plays `mv` now: the one form
    /// of a move the rules accept in several (Bughouse castling given king-takes-rook,
    /// `e1h1`, is `e1g1`). Called before [`Rules::play`]; a move that will be refused may
    /// come back as it is.
    fn normalised(&self, _seat: Seat, mv: &Self::Move) -> Self::Move {
        mv.clone()
    }

    /// Appends `mv` in as few bytes as the game can write it, for the move list a live
    /// table keeps ([`Rules::unpack`] reads it back). The default writes its JSON.
    fn pack(mv: &Self::Move, out: &mut Vec<u8>) {
        // Writing to a vector cannot fail, and a move is plain data.
        let _ = serde_json::to_writer(out, mv);
    }

    /// The move [`Rules::pack`] wrote as `bytes`; `None` if they are not one.
    fn unpack(bytes: &[u8]) -> Option<Self::Move> {
        serde_json::from_slice(bytes).ok()
    }
}

/// A game of any kind, as the table holds it.
#[derive(Debug, Clone)]
pub enum AnyGame {
    Gomoku(gomoku::Gomoku),
    LinesOfAction(lines_of_action::LinesOfAction),
    Krux(krux::Krux),
    Bughouse(bughouse::Bughouse),
}

/// The validated settings of any game.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum AnySettings {
    Gomoku(gomoku::GomokuSettings),
    LinesOfAction(lines_of_action::LoaSettings),
    Krux(krux::KruxSettings),
    Bughouse(bughouse::BughouseSettings),
}

/// Runs `$body` with `$game` bound to the game inside an [`AnyGame`], whatever its kind.
macro_rules! with_game {
    ($any:expr, $game:ident => $body:expr) => {
        match $any {
            AnyGame::Gomoku($game) => $body,
            AnyGame::LinesOfAction($game) => $body,
            AnyGame::Krux($game) => $body,
            AnyGame::Bughouse($game) => $body,
        }
    };
}

/// Runs `$body` with `$rules` naming the [`Rules`] type and `$settings` bound to the
/// settings inside an [`AnySettings`].
macro_rules! with_settings {
    ($any:expr, $rules:ident, $settings:ident => $body:expr) => {
        match $any {
            AnySettings::Gomoku($settings) => {
                type $rules = gomoku::Gomoku;
                $body
            }
            AnySettings::LinesOfAction($settings) => {
                type $rules = lines_of_action::LinesOfAction;
                $body
            }
            AnySettings::Krux($settings) => {
                type $rules = krux::Krux;
                $body
            }
            AnySettings::Bughouse($settings) => {
                type $rules = bughouse::Bughouse;
                $body
            }
        }
    };
}

/// A move payload that could not be read as a move of the table's game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the move is not a valid {game} move: {detail}")]
pub struct BadMove {
    pub game: &'static str,
    pub detail: String,
}

impl AnySettings {
    /// Reads the settings of `kind` from `reader`, leaving unknown keys for the caller.
    pub fn read(kind: GameKind, reader: &mut SettingsReader) -> Result<AnySettings, SettingError> {
        match kind {
            GameKind::Gomoku => gomoku::Gomoku::read_settings(reader).map(AnySettings::Gomoku),
            GameKind::LinesOfAction => {
                lines_of_action::LinesOfAction::read_settings(reader).map(AnySettings::LinesOfAction)
            }
            GameKind::Krux => krux::Krux::read_settings(reader).map(AnySettings::Krux),
            GameKind::Bughouse => bughouse::Bughouse::read_settings(reader).map(AnySettings::Bughouse),
        }
    }

    pub fn kind(&self) -> GameKind {
        match self {
            AnySettings::Gomoku(_) => GameKind::Gomoku,
            AnySettings::LinesOfAction(_) => GameKind::LinesOfAction,
            AnySettings::Krux(_) => GameKind::Krux,
            AnySettings::Bughouse(_) => GameKind::Bughouse,
        }
    }

    pub fn seat_roles(&self) -> &'static [&'static str] {
        with_settings!(self, G, settings => G::seat_roles(settings))
    }

    pub fn seat_count(&self) -> usize {
        self.seat_roles().len()
    }

    pub fn team_of(&self, seat: Seat) -> u8 {
        with_settings!(self, G, _settings => G::team_of(seat))
    }

    /// A new game with these settings whose drawn start (Bughouse 960) comes from `seed`
    /// ([`game_seed`]).
    pub fn new_game_drawn(&self, seed: u64) -> AnyGame {
        match self {
            AnySettings::Bughouse(settings) => AnyGame::Bughouse(bughouse::Bughouse::new_drawn(settings, seed)),
            _ => self.new_game(),
        }
    }

    /// A new game with these settings (a drawn start as for seed 0).
    pub fn new_game(&self) -> AnyGame {
        match self {
            AnySettings::Gomoku(settings) => AnyGame::Gomoku(gomoku::Gomoku::new(settings)),
            AnySettings::LinesOfAction(settings) => {
                AnyGame::LinesOfAction(lines_of_action::LinesOfAction::new(settings))
            }
            AnySettings::Krux(settings) => AnyGame::Krux(krux::Krux::new(settings)),
            AnySettings::Bughouse(settings) => AnyGame::Bughouse(bughouse::Bughouse::new(settings)),
        }
    }
}

/// The seed of the drawn start of game `number` (from 1) at table `table`: FNV-1a of both,
/// the same in every build, so that a game is rebuilt with the start it was played from.
pub fn game_seed(table: &str, number: u32) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in table.bytes().chain(number.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn encode<T: Serialize>(value: &T) -> Value {
    // Serialising our own plain data types to a `Value` cannot fail (no maps with
    // non-string keys, no fallible `Serialize` impls).
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `value` as JSON text, for what is kept or sent as it is (views, move payloads,
/// settings): our plain data types serialise infallibly; `null` is `encode`'s fallback too.
pub fn json_text<T: Serialize>(value: &T) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(value)
        .or_else(|_| serde_json::value::RawValue::from_string("null".to_owned()))
        .unwrap_or_default()
}

/// A move as a move list keeps it: its notation and its packed form ([`Rules::pack`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WrittenMove {
    /// The move in its game's notation ([`Rules::move_text`]).
    pub text: String,
    /// The move in its game's few bytes; [`GameKind::unpack_move`] gives its JSON back.
    pub packed: Vec<u8>,
}

/// Decodes `payload` as a move of `G` and plays it; returns the move as understood.
fn play_as<G: Rules>(
    game: &mut G,
    id: &'static str,
    seat: Seat,
    payload: &Value,
    write: bool,
) -> Result<(Played, Value, Option<WrittenMove>), MoveError> {
    let mv = G::Move::deserialize(payload).map_err(|err| BadMove {
        game: id,
        detail: err.to_string(),
    })?;
    let normal = game.normalised(seat, &mv);
    // Written from the position before the move (check and mate marks included).
    let written = write.then(|| {
        let mut packed = Vec::new();
        G::pack(&normal, &mut packed);
        WrittenMove {
            text: game.move_text(seat, &normal),
            packed,
        }
    });
    let played = game.play(seat, &mv)?;
    Ok((played, encode(&normal), written))
}

/// Whether `payload` reads as a move of `G` (the game value only picks the type).
fn decodes<G: Rules>(_game: &G, id: &'static str, payload: &Value) -> Result<(), BadMove> {
    G::Move::deserialize(payload).map(drop).map_err(|err| BadMove {
        game: id,
        detail: err.to_string(),
    })
}

/// Why a move payload was not played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    Malformed(#[from] BadMove),
    #[error(transparent)]
    Illegal(#[from] RuleError),
}

/// The JSON of a move packed by [`Rules::pack`].
fn unpack_as<G: Rules>(packed: &[u8]) -> Option<String> {
    G::unpack(packed).and_then(|mv| serde_json::to_string(&mv).ok())
}

impl GameKind {
    /// The JSON of a move of this game packed by its [`Rules::pack`] (as
    /// [`AnyGame::play_json_written`] gives it); `None` if `packed` is not one.
    pub fn unpack_move(self, packed: &[u8]) -> Option<String> {
        match self {
            GameKind::Gomoku => unpack_as::<gomoku::Gomoku>(packed),
            GameKind::LinesOfAction => unpack_as::<lines_of_action::LinesOfAction>(packed),
            GameKind::Krux => unpack_as::<krux::Krux>(packed),
            GameKind::Bughouse => unpack_as::<bughouse::Bughouse>(packed),
        }
    }
}

impl AnyGame {
    pub fn kind(&self) -> GameKind {
        match self {
            AnyGame::Gomoku(_) => GameKind::Gomoku,
            AnyGame::LinesOfAction(_) => GameKind::LinesOfAction,
            AnyGame::Krux(_) => GameKind::Krux,
            AnyGame::Bughouse(_) => GameKind::Bughouse,
        }
    }

    /// Decodes a move payload for this game and plays it for `seat`. On error nothing changed.
    /// Returns the move as the game understood it (normalised, for storage and broadcast).
    pub fn play_json(&mut self, seat: Seat, payload: &Value) -> Result<(Played, Value), MoveError> {
        let id = self.kind().id();
        with_game!(self, game => play_as(game, id, seat, payload, false))
            .map(|(played, normalised, _)| (played, normalised))
    }

    /// [`AnyGame::play_json`], also returning the move in the game's notation
    /// ([`Rules::move_text`], written before it is played) and packed ([`Rules::pack`]),
    /// from the one decoding of the payload: for the table, its restore and the records,
    /// which list moves.
    pub fn play_json_written(
        &mut self,
        seat: Seat,
        payload: &Value,
    ) -> Result<(Played, Value, WrittenMove), MoveError> {
        let id = self.kind().id();
        with_game!(self, game => play_as(game, id, seat, payload, true))
            .map(|(played, normalised, written)| (played, normalised, written.unwrap_or_default()))
    }

    /// Checks that a payload reads as a move of this game (not whether it is legal now).
    pub fn check_payload(&self, payload: &Value) -> Result<(), BadMove> {
        let id = self.kind().id();
        with_game!(self, game => decodes(game, id, payload))
    }

    pub fn active_seats(&self) -> SeatSet {
        with_game!(self, game => game.active_seats())
    }

    pub fn finish(&mut self, outcome: Outcome) {
        with_game!(self, game => game.finish(outcome))
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        with_game!(self, game => game.outcome())
    }

    pub fn view(&self) -> Value {
        with_game!(self, game => encode(&game.view()))
    }

    /// [`Self::view`] as JSON text, serialised straight from the game's view (no `Value`
    /// tree in between): what every `moved` event carries.
    pub fn view_text(&self) -> Box<serde_json::value::RawValue> {
        with_game!(self, game => game.view_text())
    }

    pub fn legal_moves_json(&self, seat: Seat) -> Vec<Value> {
        with_game!(self, game => game.legal_moves(seat).iter().map(encode).collect())
    }
}

/// Splits a settings object into a reader; convenience for callers holding a JSON value.
pub fn settings_map(value: Option<Value>) -> Result<Map<String, Value>, SettingError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(SettingError::new("settings", "must be a JSON object")),
    }
}
