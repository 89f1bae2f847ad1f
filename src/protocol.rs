//! The WebSocket protocol: every message a client may send and every message the server
//! sends, as JSON text frames tagged by `type`. `docs/protocol.md` documents each one.
//!
//! The table level is game-agnostic: the game-specific parts are the `move` payload a
//! client sends and the `state` (the game's public view) the server sends back.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bots::BotChoice;
use crate::games::{EndReason, Outcome, Seat};
use crate::series::SeriesFormat;
use crate::table::clock::ClockView;
use crate::table::move_list::MoveList;

/// A message from a client, after [`parse_client_msg`] has checked its shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Presents the player's token, or asks for a new one (no `token`).
    Hello {
        token: Option<String>,
    },
    /// Takes a free seat.
    Sit {
        seat: Seat,
        name: Option<String>,
    },
    /// Leaves a seat before the game starts.
    Stand {
        seat: Option<Seat>,
    },
    /// Gives the player of a seat the connection holds another name: before the game, or
    /// during it until the seat's first move.
    Rename {
        seat: Option<Seat>,
        name: Option<String>,
    },
    /// Plays a move; `move` is the game's own payload.
    Move {
        seat: Option<Seat>,
        #[serde(rename = "move")]
        payload: Value,
        /// The client's own measure of the player's thinking time, for lag compensation.
        think_ms: Option<u64>,
    },
    Resign {
        seat: Option<Seat>,
    },
    OfferDraw {
        seat: Option<Seat>,
    },
    AcceptDraw {
        seat: Option<Seat>,
    },
    DeclineDraw {
        seat: Option<Seat>,
    },
    /// A chat line to everyone at the table.
    Chat {
        text: String,
    },
    /// A line to the sender's partners only (team games).
    TeamChat {
        text: String,
    },
    /// Reports a chat line (by its `id`) to the operators.
    Report {
        line: i64,
        reason: Option<String>,
    },
    /// Queues a move to be played the instant it is this seat's turn.
    Premove {
        seat: Option<Seat>,
        #[serde(rename = "move")]
        payload: Value,
    },
    /// Withdraws a queued premove.
    CancelPremove {
        seat: Option<Seat>,
    },
    /// Puts the computer, at a strength, in a free seat (seated players, before a game).
    AddBot {
        seat: Seat,
        strength: BotChoice,
    },
    /// Takes the computer out of a seat (seated players, before a game).
    RemoveBot {
        seat: Seat,
    },
    /// Cuts the pause before the next game of a series short (it starts when every
    /// person is ready).
    Ready {
        seat: Option<Seat>,
    },
    /// Offers (or agrees to) another series with the same players after one is decided.
    OfferRematch {
        seat: Option<Seat>,
    },
    AcceptRematch {
        seat: Option<Seat>,
    },
    DeclineRematch {
        seat: Option<Seat>,
    },
    /// Asks to abandon the game for a new one, with no result (casual tables).
    OfferNewGame {
        seat: Option<Seat>,
    },
    AcceptNewGame {
        seat: Option<Seat>,
    },
    DeclineNewGame {
        seat: Option<Seat>,
    },
    /// Asks to take back one's last move (tables with undo).
    OfferUndo {
        seat: Option<Seat>,
    },
    AcceptUndo {
        seat: Option<Seat>,
    },
    DeclineUndo {
        seat: Option<Seat>,
    },
    /// Joins the queue of a rotating table (people waiting for a seat, in order of arrival).
    JoinQueue {
        name: Option<String>,
    },
    /// Leaves that queue.
    LeaveQueue,
    /// Asks for a `pong` (an application-level liveness check).
    Ping,
    /// Asks which moves a seat the connection holds may play now (answered to this
    /// connection only, with `legal_moves`); boards without the rules use it to show targets.
    LegalMoves {
        seat: Option<Seat>,
    },
}

/// Every `type` a client may send, for the `unknown_type` error.
pub const CLIENT_TYPES: &[&str] = &[
    "hello",
    "sit",
    "stand",
    "rename",
    "move",
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "chat",
    "team_chat",
    "report",
    "premove",
    "cancel_premove",
    "add_bot",
    "remove_bot",
    "ready",
    "offer_rematch",
    "accept_rematch",
    "decline_rematch",
    "offer_new_game",
    "accept_new_game",
    "decline_new_game",
    "offer_undo",
    "accept_undo",
    "decline_undo",
    "join_queue",
    "leave_queue",
    "ping",
    "legal_moves",
];

/// A client message together with the optional `ref` the client attached, which the
/// server echoes in the reply (an `error` or `pong`) so clients can match them up.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub msg: ClientMsg,
    pub reference: Option<Value>,
}

/// Reads a text frame. On failure returns the error to send, still carrying the `ref`
/// when one could be read.
pub fn parse_client_msg(text: &str) -> Result<Envelope, (ErrorCode, String, Option<Value>)> {
    // Most frames are moves: read straight into the message, without the JSON tree the
    // general path builds, checks and reads again. Any frame this does not read whole
    // (another type, a field of the wrong kind, a key twice, bad JSON) takes the general
    // path, which answers it exactly as before.
    if let Ok(frame) = serde_json::from_str::<MoveFrame>(text) {
        return Ok(frame.into_envelope());
    }
    parse_any_client_msg(text)
}

/// [`parse_client_msg`]'s general path: any frame, through a JSON tree.
fn parse_any_client_msg(text: &str) -> Result<Envelope, (ErrorCode, String, Option<Value>)> {
    parse_typed::<ClientMsg>(text, CLIENT_TYPES).map(|(msg, reference)| Envelope { msg, reference })
}

/// A frame refused: its error code, why in words, and the `ref` it carried.
pub type Refused = (ErrorCode, String, Option<Value>);

/// Reads a frame of a socket whose messages are the variants of `T`, tagged by `type`
/// (one of `known`), each error with its code and wording (section 3.12 of
/// docs/protocol.md): not JSON, not an object with a string `type`, an unknown `type`, or
/// fields that do not fit it. The message comes with its `ref`, removed from it. A table's
/// socket and the lobby's read their frames so.
pub fn parse_typed<T: serde::de::DeserializeOwned>(text: &str, known: &[&str]) -> Result<(T, Option<Value>), Refused> {
    let value: Value = serde_json::from_str(text).map_err(|err| {
        (
            ErrorCode::MalformedJson,
            format!("The message is not valid JSON: {err}."),
            None,
        )
    })?;
    let Value::Object(mut map) = value else {
        return Err((
            ErrorCode::BadMessage,
            "A message must be a JSON object with a \"type\" field.".into(),
            None,
        ));
    };
    let reference = map.remove("ref");
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => {
            return Err((
                ErrorCode::BadMessage,
                "A message must have a string \"type\" field.".into(),
                reference,
            ));
        }
    };
    if !known.contains(&kind.as_str()) {
        return Err((
            ErrorCode::UnknownType,
            format!("Unknown message type \"{kind}\"; known types: {}.", known.join(", ")),
            reference,
        ));
    }
    match serde_json::from_value::<T>(Value::Object(map)) {
        Ok(msg) => Ok((msg, reference)),
        Err(err) => Err((
            ErrorCode::BadMessage,
            format!("The \"{kind}\" message is not well formed: {err}."),
            reference,
        )),
    }
}

/// A `move` frame, as [`parse_client_msg`]'s general path reads it: the same fields of the
/// same kinds, other fields ignored, `ref` kept whatever it holds (`null` too).
#[derive(Deserialize)]
struct MoveFrame {
    #[serde(rename = "type")]
    _kind: MoveType,
    seat: Option<Seat>,
    #[serde(rename = "move")]
    payload: Value,
    think_ms: Option<u64>,
    #[serde(rename = "ref", default, deserialize_with = "present")]
    reference: Option<Value>,
}

/// The only `type` a [`MoveFrame`] reads.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum MoveType {
    Move,
}

impl MoveFrame {
    fn into_envelope(self) -> Envelope {
        Envelope {
            msg: ClientMsg::Move {
                seat: self.seat,
                payload: self.payload,
                think_ms: self.think_ms,
            },
            reference: self.reference,
        }
    }
}

/// A field that is present, whatever its value (`null` included, which `Option` would read
/// as absent).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Machine-readable error codes. The wire form is snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON (or is binary).
    MalformedJson,
    /// JSON, but not a well-formed message.
    BadMessage,
    /// A `type` the server does not know.
    UnknownType,
    /// Too many messages too fast; the message was dropped.
    RateLimited,
    /// The token is not a well-formed player token, or differs from the one presented.
    BadToken,
    /// The seat number does not exist at this table.
    NoSuchSeat,
    /// Someone else holds the seat.
    SeatTaken,
    /// You already hold this seat.
    AlreadySeated,
    /// The action needs a seat this connection's player does not hold.
    NotYourSeat,
    /// The action needs a seat and the player holds none.
    NotSeated,
    /// The player holds several seats; say which one.
    SeatRequired,
    /// Not allowed while a game is in progress (e.g. standing up: resign instead).
    GameInProgress,
    /// The game has not started yet (seats are still free).
    GameNotStarted,
    /// The game is over.
    GameOver,
    /// It is not this seat's turn.
    NotYourTurn,
    /// The move payload is not a move of this game.
    BadMove,
    /// The move breaks a rule; `rule` names it.
    IllegalMove,
    /// You already offered a draw.
    DrawAlreadyOffered,
    /// There is no draw offer to accept or decline.
    NoDrawOffer,
    /// The player name is empty, too long or has control characters.
    BadName,
    /// The chat text is empty or too long.
    BadChat,
    /// The server could not store the change; nothing changed. Try again.
    StorageUnavailable,
    /// Team chat at a table where the sender has no partner.
    NoPartner,
    /// A premove sent when it is already this seat's turn: send it as a move.
    YourTurn,
    /// There is no premove to cancel.
    NoPremove,
    /// `remove_bot` on a seat the computer does not hold.
    NotABot,
    /// `ready` when no pause before a game runs.
    NoPause,
    /// No rematch can be offered, accepted or declined now.
    NoRematch,
    /// Not while a series goes on (changing seats, a rematch).
    SeriesInProgress,
    /// "New game" is only for casual tables (unrated, single games).
    NotCasual,
    /// There is no new-game request to decline.
    NoNewGameOffer,
    /// Take-backs are off at this table (or never allowed: rated, series, Bughouse).
    UndoNotAllowed,
    /// You have no move to take back.
    NothingToUndo,
    /// There is no take-back request to accept or decline.
    NoUndoOffer,
    /// A take-back request stands already.
    UndoPending,
    /// `add_bot` at a rated table: games against the computer are never rated.
    RatedTable,
    /// `add_bot` of `engine:NAME` when no such engine is configured for the table's game.
    UnknownEngine,
    /// The table has started games by agreement too fast; the message says when the next
    /// may start (`limits.game_starts_per_minute`).
    TooManyGames,
    /// The table holds as many games as a table may (`limits.games_per_table`): a new
    /// table is needed for more.
    TableFull,
    /// The game holds as many records as take-backs are allowed up to
    /// (`limits.undo_record_limit`): the game goes on, without more take-backs.
    UndoLimit,
    /// This player's chat lines came too fast (`limits.chat_lines_per_minute`); the line
    /// was not sent.
    ChatTooFast,
    /// The lobby: no such pool.
    UnknownPool,
    /// The lobby: a rating range upside down or out of bounds.
    BadRange,
    /// The lobby: the seek was paired, cancelled, or never existed.
    SeekGone,
    /// The lobby: `accept` of one's own seek.
    OwnSeek,
    /// The lobby: a rating outside the other's range.
    OutOfRange,
    /// The lobby: `cancel` or `play_bots` of another person's seek.
    NotYourSeek,
    /// The lobby: seeks from one address came too fast.
    TooManySeeks,
    /// The lobby: both people come from one address, which the operator refuses.
    SameAddress,
    /// An operator muted this player: their chat lines are refused (docs/operations.md,
    /// "Moderation").
    ChatMuted,
    /// `sit` or `join_queue` of a person a moderator removed from this table's seats and
    /// barred from them (docs/operations.md, "Moderation").
    Barred,
    /// `report` of a line the table does not have for this player (unknown, too old, one's
    /// own, or a team line of another team).
    NoSuchLine,
    /// `report` with a reason too long or with control characters.
    BadReport,
    /// `join_queue` at a table where the same players play on (`rotation: fixed`).
    NoQueue,
    /// `join_queue` while a seat is free to take.
    SeatFree,
    /// `join_queue` by a person already waiting.
    AlreadyQueued,
    /// `leave_queue` by a person who is not waiting.
    NotQueued,
    /// `join_queue` when the queue holds as many people as it may.
    QueueFull,
}

/// A seat as everyone sees it.
#[derive(Debug, Clone, Serialize)]
pub struct SeatView {
    pub seat: Seat,
    pub role: &'static str,
    /// `null` when the seat is free.
    pub player: Option<PlayerView>,
}

/// The public face of a seated player (never their token).
#[derive(Debug, Clone, Serialize)]
pub struct PlayerView {
    pub name: String,
    /// The strength of a bot (`"hard"`, or `"engine:NAME"` for a configured engine);
    /// absent for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotChoice>,
    /// Whether the player has at least one open connection to the table.
    pub connected: bool,
    /// While the player is away during a game: milliseconds left to come back before the
    /// table's absence rule applies (`null` when connected, or when the table waits).
    pub away_ms: Option<u64>,
    /// At a rated table: the player's rating in this game (a bot's is fixed); absent
    /// elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingView>,
}

/// A rating as shown next to a name: rounded to whole points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RatingView {
    pub value: i32,
    /// The rating deviation (RD): how sure the server is of the value.
    pub deviation: i32,
    /// The deviation is still high (above 110): a provisional rating, shown marked.
    pub provisional: bool,
}

impl From<&crate::ratings::Rating> for RatingView {
    fn from(rating: &crate::ratings::Rating) -> RatingView {
        RatingView {
            value: rating.rating.round() as i32,
            deviation: rating.deviation.round() as i32,
            provisional: crate::ratings::is_provisional(rating),
        }
    }
}

/// How a rated game changed one seat's player's rating (in `game_over`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RatingChangeView {
    pub seat: Seat,
    pub before: i32,
    pub after: i32,
    /// `after - before`.
    pub change: i32,
    /// The new rating deviation.
    pub deviation: i32,
    /// Whether the new rating is provisional.
    pub provisional: bool,
}

/// A chat line of the table's recent chat (the snapshot's `chat`, `welcome`'s `team_chat`):
/// what the `chat` and `team_chat` messages said, without their versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatView {
    /// The line's id (what `report` names it by); lines are numbered in the order they
    /// were said, across the server.
    pub id: i64,
    /// The speaker's seat when they said it; `null` for a person waiting in a rotating
    /// table's queue.
    pub seat: Option<Seat>,
    /// The speaker's name as shown then.
    pub name: String,
    pub text: String,
}

/// A finished game's result as the protocol shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ResultView {
    /// `win`, `draw` or `aborted`.
    pub outcome: &'static str,
    pub winners: Vec<Seat>,
    pub reason: EndReason,
    /// Game-specific detail (Gomoku: `{"lines": [[...]]}`); `null` when there is none.
    pub detail: Value,
}

impl From<&Outcome> for ResultView {
    fn from(outcome: &Outcome) -> ResultView {
        ResultView {
            outcome: outcome.kind(),
            winners: outcome.winners().to_vec(),
            reason: outcome.reason,
            detail: outcome.detail.clone(),
        }
    }
}

/// A series as the protocol shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesView {
    pub format: SeriesFormat,
    /// 1 for the table's first series.
    pub number: u32,
    /// The number in the series of the current (or last) game.
    pub game: u32,
    /// Side 0 and side 1.
    pub standings: Vec<SideView>,
    pub decided: bool,
    /// Once decided: `win` or `tie`.
    pub result: Option<&'static str>,
    /// The winning side, once decided with a winner.
    pub winner: Option<u8>,
}

/// One side of a series (a player, or a Bughouse team).
#[derive(Debug, Clone, Serialize)]
pub struct SideView {
    pub side: u8,
    /// The side's names (`Anna`, or `Anna & Bo`).
    pub players: String,
    /// The seats the side holds in the current (or last) game.
    pub seats: Vec<Seat>,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: u32,
}

/// Where a table is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Seats are free; the game starts when all are taken.
    Waiting,
    Playing,
    Finished,
}

impl TableStatus {
    /// The status as the wire and the metrics name it.
    pub fn as_str(self) -> &'static str {
        match self {
            TableStatus::Waiting => "waiting",
            TableStatus::Playing => "playing",
            TableStatus::Finished => "finished",
        }
    }
}

/// Everything a newcomer needs to draw the table. Also the body of `GET /api/tables/{id}`.
#[derive(Debug, Clone, Serialize)]
pub struct TableSnapshot {
    pub id: String,
    /// The incarnation of the table that `version` counts in (it changes when the table is
    /// rebuilt after a restart); resume with `?since=VERSION&epoch=EPOCH`.
    pub epoch: u32,
    pub game: &'static str,
    pub settings: Box<serde_json::value::RawValue>,
    pub status: TableStatus,
    pub version: u64,
    pub seats: Vec<SeatView>,
    pub spectators: usize,
    /// 0 before the first game starts, then 1, 2, ...
    pub game_number: u32,
    /// The game's public view (before the start: the starting position).
    pub state: Value,
    /// The game's line, serialised as `[{"ply", "seat", "move", "text", "clock_ms"?}, …]`.
    pub moves: MoveList,
    /// Seats whose turn it is.
    pub to_move: Vec<Seat>,
    /// The seat that offered the standing draw offer.
    pub draw_offer: Option<Seat>,
    /// Every seat that agrees to the standing offer (the game is drawn when all do).
    pub draw_agreed: Vec<Seat>,
    pub result: Option<ResultView>,
    /// The clocks, `null` for an untimed table or before the first game.
    pub clocks: Option<ClockView>,
    /// Whether the table is rated (decided at creation, stored with every game).
    pub rated: bool,
    /// The series in play (or last played); `null` before the first game.
    pub series: Option<SeriesView>,
    /// During the pause before the next game of a series: milliseconds until it starts.
    pub next_game_in_ms: Option<u64>,
    /// People who pressed ready during that pause.
    pub ready: Vec<Seat>,
    /// Seats that agree to a rematch (the first offered).
    pub rematch_agreed: Vec<Seat>,
    /// Seats that agree to abandon the game for a new one.
    pub new_game_agreed: Vec<Seat>,
    /// The standing take-back request: the requester first, then those who agree.
    pub undo_agreed: Vec<Seat>,
    /// The table's recent chat (its last 100 lines, oldest first); team chat is never here
    /// but in the `welcome` of the team's players.
    pub chat: Vec<ChatView>,
    /// At a rotating table: the queue and each person's standings; absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationView>,
}

/// A rotating table's queue and standings.
#[derive(Debug, Clone, Serialize)]
pub struct RotationView {
    /// `winners_stay` or `rotate`.
    pub mode: &'static str,
    /// `keep` or `draw`.
    pub partners: &'static str,
    /// The people waiting, first first.
    pub queue: Vec<WaitingView>,
    /// Every person who played here, best first.
    pub standings: Vec<PersonStandingView>,
    /// Between games: the seats as the last game ended (its result names these seats,
    /// and people may have stepped out and come in since). Absent during a game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_seats: Option<Vec<SeatView>>,
}

/// A person waiting for a seat (never their token or key).
#[derive(Debug, Clone, Serialize)]
pub struct WaitingView {
    pub name: String,
    pub connected: bool,
}

/// One person's record at a rotating table.
#[derive(Debug, Clone, Serialize)]
pub struct PersonStandingView {
    pub name: String,
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
    pub points: u32,
}

/// A message from the server. Every one carries the table's `version`: events raise it by
/// one; replies to one client (`snapshot`, `welcome`, `error`, `pong`, `legal_moves`) carry the current
/// version without raising it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    Snapshot {
        version: u64,
        table: Box<TableSnapshot>,
    },
    /// To a connection that resumed with `since`: every event it missed has been sent,
    /// and the table is now at `version`.
    Resumed {
        version: u64,
        epoch: u32,
    },
    /// To one connection only: its token and the seats that token holds.
    Welcome {
        version: u64,
        token: String,
        seats: Vec<Seat>,
        /// The recent team chat this player was on the team for (the last 100 lines, oldest
        /// first); `[]` at tables without teams.
        team_chat: Vec<ChatView>,
        /// At a rotating table, while this player waits: their place in the queue (1 first).
        #[serde(skip_serializing_if = "Option::is_none")]
        queue_place: Option<usize>,
    },
    Seated {
        version: u64,
        seat: Seat,
        name: String,
        /// The strength, when the computer took the seat.
        #[serde(skip_serializing_if = "Option::is_none")]
        bot: Option<BotChoice>,
        /// At a rated table: the player's rating in this game.
        #[serde(skip_serializing_if = "Option::is_none")]
        rating: Option<RatingView>,
    },
    Stood {
        version: u64,
        seat: Seat,
    },
    /// A seated player took another name.
    Renamed {
        version: u64,
        seat: Seat,
        name: String,
    },
    /// A seated player's connection state changed.
    Presence {
        version: u64,
        seat: Seat,
        connected: bool,
        /// Milliseconds left of the reconnect grace, when one runs.
        away_ms: Option<u64>,
    },
    Spectators {
        version: u64,
        count: usize,
    },
    GameStarted {
        version: u64,
        game_number: u32,
        seats: Vec<SeatView>,
        state: Value,
        to_move: Vec<Seat>,
        clocks: Option<ClockView>,
        /// The series this game belongs to, as it stands at the start.
        series: Option<SeriesView>,
    },
    Moved {
        version: u64,
        ply: u32,
        seat: Seat,
        #[serde(rename = "move")]
        payload: Box<serde_json::value::RawValue>,
        /// The move in its game's notation, as in the snapshot's `moves`.
        text: String,
        /// The position after the move, as the game's view serialises it.
        state: Box<serde_json::value::RawValue>,
        to_move: Vec<Seat>,
        clocks: Option<ClockView>,
    },
    DrawOffered {
        version: u64,
        seat: Seat,
    },
    DrawDeclined {
        version: u64,
        seat: Seat,
    },
    GameOver {
        version: u64,
        result: ResultView,
        clocks: Option<ClockView>,
        /// The series with this game counted.
        series: Option<SeriesView>,
        /// At a rated table: each person's rating before and after the game, per seat
        /// (absent at an unrated table or when the game changed no rating).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        ratings: Vec<RatingChangeView>,
        /// At a rated table, a game with a result that changed no rating, and why
        /// (`{"reason": "pair_limit", "limit": 10, "hours": 24}`, docs/ratings.md); absent
        /// otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        unrated: Option<crate::ratings::Unrated>,
    },
    /// The queue of a rotating table changed (someone joined or left it, or came or went).
    Queue {
        version: u64,
        queue: Vec<WaitingView>,
    },
    /// A rotating table seated its next game: who stepped out and who came in, every
    /// seat as it is now, the queue and the standings.
    Rotated {
        version: u64,
        seats: Vec<SeatView>,
        stepped_out: Vec<String>,
        came_in: Vec<String>,
        queue: Vec<WaitingView>,
        standings: Vec<PersonStandingView>,
    },
    /// The series is decided (after its last `game_over`).
    SeriesOver {
        version: u64,
        series: SeriesView,
    },
    /// The next game of the series starts in `ms` (sooner if every person is ready).
    NextGameIn {
        version: u64,
        game_number: u32,
        ms: u64,
    },
    /// A person is ready for the next game of the series.
    Ready {
        version: u64,
        seat: Seat,
    },
    RematchOffered {
        version: u64,
        seat: Seat,
        /// Every seat that agrees so far.
        agreed: Vec<Seat>,
    },
    RematchDeclined {
        version: u64,
        seat: Seat,
    },
    NewGameOffered {
        version: u64,
        seat: Seat,
        agreed: Vec<Seat>,
    },
    NewGameDeclined {
        version: u64,
        seat: Seat,
    },
    /// A player asks to take back their last move.
    UndoOffered {
        version: u64,
        seat: Seat,
    },
    UndoDeclined {
        version: u64,
        seat: Seat,
    },
    /// Moves were taken back: the game's line is now its first `plies` moves.
    Undone {
        version: u64,
        /// Who asked.
        seat: Seat,
        plies: u32,
        state: Value,
        to_move: Vec<Seat>,
        clocks: Option<ClockView>,
    },
    Chat {
        version: u64,
        /// The line's id, for `report`.
        id: i64,
        /// `null` for a person waiting in a rotating table's queue.
        seat: Option<Seat>,
        name: String,
        text: String,
    },
    /// To the sender's team only; carries the current version without raising it.
    TeamChat {
        version: u64,
        id: i64,
        seat: Seat,
        name: String,
        text: String,
    },
    /// To the reporter only: their report of chat line `line` is stored (`again`: it had
    /// been before, and nothing more was).
    Reported {
        version: u64,
        line: i64,
        again: bool,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// To the player only: an operator muted them (their chat lines are refused with
    /// `chat_muted`) until `until` (RFC 3339; `null`: until lifted).
    Muted {
        version: u64,
        reason: String,
        until: Option<String>,
    },
    /// To the player only: the mute is lifted.
    Unmuted {
        version: u64,
    },
    /// To the person only: an operator freed their seat.
    Removed {
        version: u64,
        seat: Seat,
        /// The person may not sit down (or queue) at this table again.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        barred: bool,
    },
    /// An operator closed the table: every socket closes next (code 4000) and the table is
    /// not served again.
    TableClosed {
        version: u64,
    },
    /// To the player only: their premove is queued (replacing any earlier one).
    PremoveSet {
        version: u64,
        seat: Seat,
        #[serde(rename = "move")]
        payload: Value,
    },
    /// To the player only: their premove is withdrawn.
    PremoveCancelled {
        version: u64,
        seat: Seat,
    },
    /// To the player only: their premove was not legal when its turn came, so it was
    /// dropped; `rule` says why.
    PremoveDiscarded {
        version: u64,
        seat: Seat,
        code: ErrorCode,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<&'static str>,
    },
    Error {
        version: u64,
        code: ErrorCode,
        message: String,
        /// For `illegal_move`: the rule the move breaks.
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<&'static str>,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    Pong {
        version: u64,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
    /// To one connection: the moves `seat` may play now, each a payload as a `move` would
    /// carry it; `[]` when it is not that seat's turn or no game is being played.
    LegalMoves {
        version: u64,
        seat: Seat,
        moves: Vec<Value>,
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
}

thread_local! {
    /// Where a thread serialises messages: grown once, reused, so that a message's text is
    /// then copied out at its exact size (a table's history keeps its recent frames, and a
    /// text grown by doubling would keep up to half of itself empty).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The scratch buffer is let go after a message larger than this (a rare big snapshot).
const SCRATCH_KEEP: usize = 64 * 1024;

impl ServerMsg {
    /// The JSON text of this message, allocated at its exact length.
    pub fn to_text(&self) -> String {
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.clear();
            // Our message types serialise infallibly (string keys only, no custom impls
            // that fail), and serde_json writes UTF-8.
            let text = serde_json::to_writer(&mut *scratch, self)
                .ok()
                .and_then(|()| String::from_utf8(scratch.to_vec()).ok())
                .unwrap_or_else(|| String::from("{\"type\":\"error\"}"));
            if scratch.capacity() > SCRATCH_KEEP {
                *scratch = Vec::new();
            }
            text
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(text: &str) -> ErrorCode {
        parse_client_msg(text).expect_err("should be refused").0
    }

    /// Frames near a move's shape: each must read the same through the move's own path
    /// as through the general one (the same message, or the same error).
    const MOVE_LIKE: &[&str] = &[
        r#"{"type":"move","move":{"at":"H8"}}"#,
        r#"{"type":"move","move":{"at":"H8"},"seat":1,"think_ms":2350,"ref":7}"#,
        r#"{"ref":"a","think_ms":0,"move":"e2e4","seat":null,"type":"move"}"#,
        r#"{"type":"move","move":null}"#,
        r#"{"type":"move","move":[1,2],"ref":null}"#,
        r#"{"type":"move","move":{"at":"H8"},"extra":{"x":[1]}}"#,
        r#"  {"type" : "mo\u0076e", "move" : 5 }  "#,
        r#"{"type":"move"}"#,
        r#"{"type":"move","move":1,"seat":256}"#,
        r#"{"type":"move","move":1,"seat":-1}"#,
        r#"{"type":"move","move":1,"seat":1.0}"#,
        r#"{"type":"move","move":1,"seat":"1"}"#,
        r#"{"type":"move","move":1,"think_ms":-5}"#,
        r#"{"type":"move","move":1,"think_ms":1e3}"#,
        r#"{"type":"move","move":1,"move":2}"#,
        r#"{"type":"move","type":"chat","text":"hi","move":1}"#,
        r#"{"type":"chat","type":"move","move":1}"#,
        r#"{"type":"move","move":1,"ref":1,"ref":2}"#,
        r#"{"type":"Move","move":1}"#,
        r#"{"type":"moves","move":1}"#,
        r#"{"type":null,"move":1}"#,
        r#"{"move":1}"#,
        r#"{"type":"move","move":1"#,
        r#"{"type":"move","move":1} x"#,
        r#"["move",1]"#,
        r#""move""#,
        r#"{"type":"premove","move":{"at":"H9"}}"#,
        r#"{"type":"resign","move":1}"#,
    ];

    fn same_reading(text: &str) {
        assert_eq!(
            format!("{:?}", parse_client_msg(text)),
            format!("{:?}", parse_any_client_msg(text)),
            "{text}"
        );
    }

    #[test]
    fn a_move_reads_the_same_through_its_own_path_as_through_the_general_one() {
        for text in MOVE_LIKE {
            same_reading(text);
        }
        // The move's own path does read the moves (a frame it refused would take the general
        // path and read the same, unseen by the comparison above).
        for text in &MOVE_LIKE[..7] {
            assert!(serde_json::from_str::<MoveFrame>(text).is_ok(), "{text}");
        }
    }

    proptest::proptest! {
        /// Objects of a move's fields and others, of every kind, in any order, some twice.
        #[test]
        fn any_object_of_a_move_s_fields_reads_the_same_both_ways(
            fields in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["type", "move", "seat", "think_ms", "ref", "text", "x"]),
                    proptest::sample::select(vec![
                        r#""move""#, r#""chat""#, "null", "0", "1", "255", "256", "-1", "2.5", r#""1""#,
                        r#"{"at":"H8"}"#, "[1,2]", "true", r#""hi""#, "18446744073709551615",
                    ]),
                ),
                0..6,
            )
        ) {
            let text = format!(
                "{{{}}}",
                fields.iter().map(|(key, value)| format!("\"{key}\":{value}")).collect::<Vec<_>>().join(",")
            );
            same_reading(&text);
        }
    }

    #[test]
    fn parses_each_client_message() {
        for text in [
            r#"{"type":"hello"}"#,
            r#"{"type":"hello","token":"abcdefghijklmnopqrstuvwxyz"}"#,
            r#"{"type":"sit","seat":0,"name":"Anna"}"#,
            r#"{"type":"stand"}"#,
            r#"{"type":"move","move":{"at":"H8"}}"#,
            r#"{"type":"resign","seat":1}"#,
            r#"{"type":"offer_draw"}"#,
            r#"{"type":"accept_draw"}"#,
            r#"{"type":"decline_draw"}"#,
            r#"{"type":"chat","text":"gg"}"#,
            r#"{"type":"ping","ref":7}"#,
            r#"{"type":"add_bot","seat":1,"strength":"hard"}"#,
            r#"{"type":"remove_bot","seat":1}"#,
            r#"{"type":"legal_moves","seat":2}"#,
            r#"{"type":"legal_moves"}"#,
        ] {
            assert!(parse_client_msg(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn refuses_with_the_right_code() {
        assert_eq!(code("{not json"), ErrorCode::MalformedJson);
        assert_eq!(code("[1,2]"), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"seat":0}"#), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"type":"dance"}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"type":"sit","seat":"north"}"#), ErrorCode::BadMessage);
        assert_eq!(code(r#"{"type":"move"}"#), ErrorCode::BadMessage);
        assert_eq!(
            code(r#"{"type":"add_bot","seat":1,"strength":"grandmaster"}"#),
            ErrorCode::BadMessage
        );
    }

    #[test]
    fn ref_is_kept_even_on_errors() {
        let (_, _, reference) = parse_client_msg(r#"{"type":"dance","ref":"a1"}"#).unwrap_err();
        assert_eq!(reference, Some(json!("a1")));
        let ok = parse_client_msg(r#"{"type":"ping","ref":3}"#).unwrap();
        assert_eq!(ok.reference, Some(json!(3)));
    }

    proptest::proptest! {
        /// Whatever arrives, parsing answers (a message or a coded error) and never panics.
        #[test]
        fn any_text_is_parsed_or_refused(text in ".{0,200}") {
            let _ = parse_client_msg(&text);
        }

        /// Any JSON object with a known type either parses or is refused as a bad message.
        #[test]
        fn known_types_with_random_fields_never_panic(
            kind in proptest::sample::select(CLIENT_TYPES.to_vec()),
            seat in proptest::option::of(0u64..300),
            text in ".{0,40}",
        ) {
            let message = json!({"type": kind, "seat": seat, "text": text, "move": {"at": text}, "token": text});
            match parse_client_msg(&message.to_string()) {
                Ok(_) => {}
                Err((code, _, _)) => proptest::prop_assert_eq!(code, ErrorCode::BadMessage),
            }
        }
    }

    #[test]
    fn server_messages_are_tagged() {
        let text = ServerMsg::Stood { version: 4, seat: 1 }.to_text();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"type":"stood","version":4,"seat":1})
        );
    }
}
