//! The table actor: one task per table that alone owns its seats, its game and its
//! connections, and turns client messages into stored, versioned, broadcast events.
//!
//! Order of work for every change: check it, store it (awaiting Postgres), then apply it
//! in memory and tell everyone. A change the store refuses is answered with
//! `storage_unavailable` and leaves the table as it was.

mod chat;
mod draws;
mod premove;
mod presence;
mod restore;

pub use restore::{CORRESPONDENCE_RESTART_GRACE, RestoreError};

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use super::clock::Clocks;
use super::handle::TableHandle;
use super::history::{Catchup, History};
use super::identity::{PlayerKey, PlayerToken};
use super::msg::{ConnId, Frame, TableCmd};
use super::seats::{Holder, Seats};
use super::settings::{Seating, TableSettings};
use crate::games::{AnyGame, EndReason, MoveError, Outcome, Seat};
use crate::protocol::{
    ClientMsg, Envelope, ErrorCode, MoveView, PlayerView, ResultView, SeatView, ServerMsg, TableSnapshot, TableStatus,
};
use crate::store::games::{MoveRecord, PlayerRecord, ResultRecord};
use crate::store::{Store, StoreError};

/// How many commands may wait for a table before senders wait too.
const COMMAND_QUEUE: usize = 64;

/// After a timer ended a game but its result could not be stored, wait this long before
/// retrying.
const TIMER_RETRY: Duration = Duration::from_secs(1);

/// Limits a table enforces.
#[derive(Debug, Clone, Copy)]
pub struct TableLimits {
    /// Longest player name and chat message, in characters.
    pub name_max_chars: usize,
    pub chat_max_chars: usize,
    /// A table with no connection and no timer running stops its actor after this long;
    /// it is rebuilt from Postgres when next asked for.
    pub idle_after: Duration,
}

/// One open connection to the table.
#[derive(Debug)]
struct Conn {
    outbox: mpsc::Sender<Frame>,
    /// The token this connection presented (or was given); kept only in memory, only to
    /// return it to its owner in `welcome`.
    token: Option<PlayerToken>,
    key: Option<PlayerKey>,
}

/// A refusal to send back to the client that caused it.
#[derive(Debug)]
struct Refusal {
    code: ErrorCode,
    message: String,
    rule: Option<&'static str>,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            rule: None,
        }
    }

    fn storage(err: StoreError) -> Refusal {
        tracing::error!(error = %err, "table could not store a change");
        Refusal::new(
            ErrorCode::StorageUnavailable,
            "The server could not store this change, so nothing changed; please try again.",
        )
    }
}

/// The game in progress (or last finished) at the table.
#[derive(Debug)]
struct CurrentGame {
    id: Uuid,
    number: u32,
    game: AnyGame,
    moves: Vec<MoveView>,
    /// The seats that agree to a draw, in the order they did (the first offered); the
    /// game is drawn when every seat agrees.
    draw_agreed: Vec<Seat>,
    /// `None` for an untimed table.
    clocks: Option<Clocks>,
}

/// A game whose start is stored but not yet applied in memory.
#[derive(Debug)]
struct PendingStart {
    id: Uuid,
    number: u32,
    seats: Seats,
    clocks: Option<Clocks>,
}

/// The state of one table; see the module doc.
pub struct TableActor {
    id: String,
    settings: TableSettings,
    settings_json: Value,
    store: Store,
    limits: TableLimits,
    version: u64,
    shared_version: Arc<AtomicU64>,
    seats: Seats,
    /// Recent events, for clients that resume after a disconnection.
    history: History,
    /// Random per incarnation of the table: versions start again from 0 when a table is
    /// rebuilt, so a client resumes only within the same epoch.
    epoch: u32,
    /// Whether each seat's holder was last announced as connected.
    announced_presence: Vec<bool>,
    /// For each seat whose player is away during a game: when their reconnect grace ends.
    away: Vec<Option<Instant>>,
    announced_spectators: usize,
    conns: HashMap<ConnId, Conn>,
    current: Option<CurrentGame>,
    /// The starting position shown before the first game starts.
    preview: AnyGame,
    /// Each seat's queued premove (private to its player until played).
    premoves: Vec<Option<Value>>,
    /// The last command the table received (for stopping an idle table).
    last_activity: Instant,
    /// Not before this instant may a fallen flag or an expired grace be handled again
    /// (its result could not be stored on the last attempt).
    retry_at: Option<Instant>,
}

impl TableActor {
    /// A table with free seats and no game yet.
    fn new(id: &str, settings: TableSettings, store: Store, limits: TableLimits) -> TableActor {
        let seat_count = settings.game.seat_count();
        TableActor {
            id: id.to_owned(),
            settings_json: settings.to_json(),
            preview: settings.game.new_game(),
            settings,
            store,
            limits,
            version: 0,
            shared_version: Arc::new(AtomicU64::new(0)),
            seats: Seats::new(seat_count),
            history: History::default(),
            epoch: rand::random(),
            last_activity: Instant::now(),
            premoves: vec![None; seat_count],
            announced_presence: vec![false; seat_count],
            away: vec![None; seat_count],
            announced_spectators: 0,
            conns: HashMap::new(),
            current: None,
            retry_at: None,
        }
    }

    /// Starts the actor of a table that was just stored, and returns its handle.
    pub fn spawn(
        id: &str,
        settings: TableSettings,
        store: Store,
        limits: TableLimits,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> TableHandle {
        TableActor::new(id, settings, store, limits).start(shutdown, tracker)
    }

    /// Runs the actor as a task of `tracker` and returns its handle.
    fn start(self, shutdown: CancellationToken, tracker: &TaskTracker) -> TableHandle {
        let (commands, inbox) = mpsc::channel(COMMAND_QUEUE);
        let handle = TableHandle::new(&self.id, commands, self.shared_version.clone());
        tracker.spawn(self.run(inbox, shutdown));
        handle
    }

    async fn run(mut self, mut inbox: mpsc::Receiver<TableCmd>, shutdown: CancellationToken) {
        loop {
            let wake_at = self.wake_at();
            let idle_at = self.idle_at(wake_at);
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                // The table's own timer: flags fall and graces run out whether or not
                // anyone is connected.
                _ = sleep_until(wake_at) => self.settle_timers().await,
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => {
                        self.last_activity = Instant::now();
                        self.handle(cmd).await;
                    }
                    None => break,
                },
                // Nobody here and nothing to wait for: free the memory (the table is
                // rebuilt from Postgres when next asked for).
                _ = sleep_until(idle_at) => break,
            }
        }
        tracing::debug!(table = %self.id, "table actor stopped");
    }

    async fn handle(&mut self, cmd: TableCmd) {
        // A flag that fell (or a grace that ran out) is settled before anything else.
        self.settle_timers().await;
        match cmd {
            TableCmd::Join { conn, outbox, since } => {
                self.conns.insert(
                    conn,
                    Conn {
                        outbox,
                        token: None,
                        key: None,
                    },
                );
                self.catch_up(conn, since);
                self.sync_presence();
            }
            TableCmd::Leave { conn } => {
                self.conns.remove(&conn);
                self.sync_presence();
            }
            TableCmd::Snapshot { reply } => {
                let _ = reply.send(self.snapshot());
            }
            TableCmd::Client { conn, envelope } => {
                // A connection dropped as too slow may still have messages in flight.
                if !self.conns.contains_key(&conn) {
                    return;
                }
                let Envelope { msg, reference } = envelope;
                let outcome = self.client(conn, msg, reference.clone()).await;
                if let Err(refusal) = outcome {
                    let error = ServerMsg::Error {
                        version: self.version,
                        code: refusal.code,
                        message: refusal.message,
                        rule: refusal.rule,
                        reference,
                    };
                    self.send_to(conn, &error);
                }
            }
        }
    }

    async fn client(&mut self, conn: ConnId, msg: ClientMsg, reference: Option<Value>) -> Result<(), Refusal> {
        match msg {
            ClientMsg::Hello { token } => self.hello(conn, token),
            ClientMsg::Ping => {
                let pong = ServerMsg::Pong {
                    version: self.version,
                    reference,
                };
                self.send_to(conn, &pong);
                Ok(())
            }
            ClientMsg::Sit { seat, name } => self.sit(conn, seat, name).await,
            ClientMsg::Stand { seat } => self.stand(conn, seat).await,
            ClientMsg::Move {
                seat,
                payload,
                think_ms,
            } => {
                self.play(conn, seat, &payload, think_ms.map(Duration::from_millis))
                    .await
            }
            ClientMsg::Resign { seat } => self.resign(conn, seat).await,
            ClientMsg::OfferDraw { seat } => self.offer_draw(conn, seat).await,
            ClientMsg::AcceptDraw { seat } => self.accept_draw(conn, seat).await,
            ClientMsg::DeclineDraw { seat } => self.decline_draw(conn, seat),
            ClientMsg::Chat { text } => self.chat(conn, text),
            ClientMsg::TeamChat { text } => self.team_chat(conn, text),
            ClientMsg::Premove { seat, payload } => self.premove(conn, seat, payload),
            ClientMsg::CancelPremove { seat } => self.cancel_premove(conn, seat),
        }
    }

    // ----- identity and seats -----

    fn hello(&mut self, conn: ConnId, token: Option<String>) -> Result<(), Refusal> {
        let Some(current) = self.conns.get(&conn) else {
            return Ok(());
        };
        let token = match (token, &current.token) {
            (None, Some(known)) => known.clone(),
            (None, None) => PlayerToken::generate(),
            (Some(given), known) => {
                let given = PlayerToken::parse(&given)
                    .map_err(|err| Refusal::new(ErrorCode::BadToken, sentence(&err.to_string())))?;
                if known.as_ref().is_some_and(|known| *known != given) {
                    return Err(Refusal::new(
                        ErrorCode::BadToken,
                        "This connection already presented another token; open a new connection to switch players.",
                    ));
                }
                given
            }
        };
        self.identify(conn, token);
        Ok(())
    }

    /// Binds `token` to the connection and sends it `welcome`.
    fn identify(&mut self, conn: ConnId, token: PlayerToken) {
        if let Some(entry) = self.conns.get_mut(&conn) {
            entry.key = Some(token.key());
            entry.token = Some(token);
        }
        self.send_welcome(conn);
        self.sync_presence();
    }

    /// Tells one identified connection its token and the seats that token holds.
    fn send_welcome(&mut self, conn: ConnId) {
        let Some(token) = self.conns.get(&conn).and_then(|c| c.token.clone()) else {
            return;
        };
        let welcome = ServerMsg::Welcome {
            version: self.version,
            seats: self.seats.held_by(&token.key()),
            token: token.expose().to_owned(),
        };
        self.send_to(conn, &welcome);
    }

    /// The connection's player, issuing a new token first if it has none yet.
    fn player(&mut self, conn: ConnId) -> PlayerKey {
        if let Some(key) = self.conns.get(&conn).and_then(|c| c.key) {
            return key;
        }
        let token = PlayerToken::generate();
        let key = token.key();
        self.identify(conn, token);
        key
    }

    /// The seat `conn` acts for: the named one (which it must hold) or its only seat.
    fn acting_seat(&self, conn: ConnId, seat: Option<Seat>) -> Result<Seat, Refusal> {
        let held = match self.conns.get(&conn).and_then(|c| c.key) {
            Some(key) => self.seats.held_by(&key),
            None => Vec::new(),
        };
        match seat {
            Some(seat) if held.contains(&seat) => Ok(seat),
            Some(seat) => Err(Refusal::new(
                ErrorCode::NotYourSeat,
                format!("Seat {seat} is not yours."),
            )),
            None => match held.as_slice() {
                [] => Err(Refusal::new(
                    ErrorCode::NotSeated,
                    "Take a seat first: spectators cannot play.",
                )),
                [only] => Ok(*only),
                _ => Err(Refusal::new(
                    ErrorCode::SeatRequired,
                    "You hold several seats: say which one with \"seat\".",
                )),
            },
        }
    }

    fn status(&self) -> TableStatus {
        match &self.current {
            None => TableStatus::Waiting,
            Some(current) if current.game.outcome().is_some() => TableStatus::Finished,
            Some(_) => TableStatus::Playing,
        }
    }

    fn clean_name(&self, name: Option<String>) -> Result<String, Refusal> {
        let name = name.as_deref().map(str::trim).unwrap_or("");
        if name.is_empty() {
            return Ok("Anonymous".into());
        }
        if name.chars().count() > self.limits.name_max_chars || name.chars().any(char::is_control) {
            return Err(Refusal::new(
                ErrorCode::BadName,
                format!(
                    "A name is at most {} characters, without control characters.",
                    self.limits.name_max_chars
                ),
            ));
        }
        Ok(name.to_owned())
    }

    /// Seats change only before the game starts; `in_progress` explains the refusal
    /// during a game.
    fn seats_open(&self, in_progress: &str) -> Result<(), Refusal> {
        match self.status() {
            TableStatus::Waiting => Ok(()),
            TableStatus::Playing => Err(Refusal::new(ErrorCode::GameInProgress, in_progress)),
            TableStatus::Finished => Err(Refusal::new(ErrorCode::GameOver, "The game at this table is over.")),
        }
    }

    async fn sit(&mut self, conn: ConnId, seat: Seat, name: Option<String>) -> Result<(), Refusal> {
        if !self.seats.exists(seat) {
            return Err(Refusal::new(
                ErrorCode::NoSuchSeat,
                format!("This table has seats 0 to {}.", self.seats.count().saturating_sub(1)),
            ));
        }
        self.seats_open("The game has started; every seat is taken.")?;
        let name = self.clean_name(name)?;
        if let Some(holder) = self.seats.holder(seat) {
            let mine = self.conns.get(&conn).and_then(|c| c.key) == Some(holder.key);
            return Err(if mine {
                Refusal::new(ErrorCode::AlreadySeated, format!("You already hold seat {seat}."))
            } else {
                Refusal::new(ErrorCode::SeatTaken, format!("Seat {seat} is taken."))
            });
        }
        let key = self.player(conn);
        self.store
            .take_seat(&self.id, seat, key.as_bytes(), &name)
            .await
            .map_err(Refusal::storage)?;
        let mut seats = self.seats.clone();
        seats.sit(
            seat,
            Holder {
                key,
                name: name.clone(),
            },
        );
        let start = if seats.is_full() {
            match self.store_start(seats.clone()).await {
                Ok(start) => Some(start),
                Err(err) => {
                    if let Err(undo) = self.store.free_seat(&self.id, seat).await {
                        tracing::error!(error = %undo, "could not undo a seat after a failed start");
                    }
                    return Err(Refusal::storage(err));
                }
            }
        } else {
            None
        };
        self.seats = seats;
        // `seated` says as much as a presence event: the player sat down over a connection.
        if let Some(slot) = self.announced_presence.get_mut(usize::from(seat)) {
            *slot = true;
        }
        self.event(|version| ServerMsg::Seated { version, seat, name });
        if let Some(start) = start {
            self.begin_game(start);
        }
        self.sync_presence();
        Ok(())
    }

    async fn stand(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.seats_open("You cannot leave a seat during a game; resign instead.")?;
        self.store.free_seat(&self.id, seat).await.map_err(Refusal::storage)?;
        self.seats.stand(seat);
        self.event(|version| ServerMsg::Stood { version, seat });
        self.sync_presence();
        Ok(())
    }

    /// Every seat is taken: draws the seats if the table says so and stores the start.
    /// Nothing changes in memory until [`Self::begin_game`].
    async fn store_start(&self, mut seats: Seats) -> Result<PendingStart, StoreError> {
        if self.settings.seating == Seating::Random {
            seats.shuffle();
        }
        let roles = self.settings.game.seat_roles();
        let players: Vec<PlayerRecord> = seats
            .iter()
            .filter_map(|(seat, holder)| {
                holder.map(|holder| PlayerRecord {
                    seat,
                    role: roles.get(usize::from(seat)).copied().unwrap_or("").to_owned(),
                    player_key: holder.key.as_bytes().to_vec(),
                    name: holder.name.clone(),
                })
            })
            .collect();
        let id = Uuid::new_v4();
        let number = self.current.as_ref().map_or(1, |current| current.number + 1);
        let now = Instant::now();
        let clocks = Clocks::new(self.settings.time_control, seats.count()).map(|mut clocks| {
            clocks.start(self.preview.active_seats(), now);
            clocks
        });
        let deadline = clocks.as_ref().and_then(|clocks| wall_deadline(clocks, now));
        self.store.start_game(id, &self.id, number, &players, deadline).await?;
        Ok(PendingStart {
            id,
            number,
            seats,
            clocks,
        })
    }

    /// Starts the stored game in memory and announces it with its seating.
    fn begin_game(&mut self, start: PendingStart) {
        let PendingStart {
            id,
            number,
            seats,
            clocks,
        } = start;
        self.seats = seats;
        self.premoves = vec![None; self.seats.count()];
        let game = self.settings.game.new_game();
        let state = game.view();
        let to_move: Vec<Seat> = game.active_seats().iter().collect();
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(Instant::now()));
        self.current = Some(CurrentGame {
            id,
            number,
            game,
            moves: Vec::new(),
            draw_agreed: Vec::new(),
            clocks,
        });
        // Seats may have been redrawn; `game_started` carries each seat's presence.
        let seat_views = self.seat_views();
        self.announced_presence = seat_views
            .iter()
            .map(|view| view.player.as_ref().is_some_and(|p| p.connected))
            .collect();
        self.event(|version| ServerMsg::GameStarted {
            version,
            game_number: number,
            seats: seat_views,
            state,
            to_move,
            clocks: clock_view,
        });
        // Seats may have been drawn by lot: tell each player's connections their seats.
        let players: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, conn)| conn.token.is_some())
            .map(|(id, _)| *id)
            .collect();
        for conn in players {
            self.send_welcome(conn);
        }
    }

    // ----- the game -----

    /// The game in progress, or the refusal that explains why there is none.
    fn playing(&self) -> Result<&CurrentGame, Refusal> {
        match &self.current {
            None => Err(Refusal::new(
                ErrorCode::GameNotStarted,
                "The game starts when every seat is taken.",
            )),
            Some(current) if current.game.outcome().is_some() => {
                Err(Refusal::new(ErrorCode::GameOver, "The game is over."))
            }
            Some(current) => Ok(current),
        }
    }

    async fn play(
        &mut self,
        conn: ConnId,
        seat: Option<Seat>,
        payload: &Value,
        think: Option<Duration>,
    ) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.apply_move(seat, payload, think).await?;
        self.run_premoves().await;
        Ok(())
    }

    /// Plays a move for `seat`: checked by the rules, stored, then applied and announced.
    async fn apply_move(&mut self, seat: Seat, payload: &Value, think: Option<Duration>) -> Result<(), Refusal> {
        let current = self.playing()?;
        if !current.game.active_seats().contains(seat) {
            return Err(Refusal::new(ErrorCode::NotYourTurn, "It is not your turn."));
        }
        let mut next = current.game.clone();
        let (played, normalised) = next.play_json(seat, payload).map_err(|err| match err {
            MoveError::Malformed(bad) => Refusal::new(ErrorCode::BadMove, format!("{bad}.")),
            MoveError::Illegal(illegal) => Refusal {
                code: ErrorCode::IllegalMove,
                message: sentence(&illegal.message),
                rule: Some(illegal.rule),
            },
        })?;
        let ply = u32::try_from(current.moves.len() + 1).unwrap_or(u32::MAX);
        let now = Instant::now();
        let mut clocks = current.clocks.clone();
        if let Some(clocks) = clocks.as_mut() {
            clocks.moved(seat, played.turn_over, think, next.active_seats(), now);
            if next.outcome().is_some() {
                clocks.stop_all(now);
            }
        }
        let clocks_ms = clocks.as_ref().map(|clocks| clocks.remaining_ms(now));
        let record = MoveRecord {
            ply,
            seat,
            payload: &normalised,
            clocks_ms: clocks_ms.as_deref(),
            deadline: clocks.as_ref().and_then(|clocks| wall_deadline(clocks, now)),
        };
        let result = next.outcome().map(|outcome| ResultRecord {
            outcome,
            move_count: ply,
        });
        self.store
            .append_move(current.id, record, result)
            .await
            .map_err(Refusal::storage)?;

        // A draw offer lapses when a player who has not agreed to it moves.
        let offer_lapses = !current.draw_agreed.is_empty() && !current.draw_agreed.contains(&seat);
        let state = next.view();
        let to_move: Vec<Seat> = next.active_seats().iter().collect();
        let finished = next.outcome().map(ResultView::from);
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(now));
        if let Some(current) = self.current.as_mut() {
            current.game = next;
            current.clocks = clocks;
            current.moves.push(MoveView {
                ply,
                seat,
                payload: normalised.clone(),
            });
            if offer_lapses {
                current.draw_agreed.clear();
            }
        }
        self.event(|version| ServerMsg::Moved {
            version,
            ply,
            seat,
            payload: normalised,
            state,
            to_move,
            clocks: clock_view.clone(),
        });
        if let Some(result) = finished {
            self.event(|version| ServerMsg::GameOver {
                version,
                result,
                clocks: clock_view,
            });
        }
        Ok(())
    }

    /// Ends the game in progress with `outcome`: clocks stopped, stored first, then announced.
    async fn end_game(&mut self, outcome: Outcome) -> Result<(), Refusal> {
        let current = self.playing()?;
        let now = Instant::now();
        let mut clocks = current.clocks.clone();
        if let Some(clocks) = clocks.as_mut() {
            clocks.stop_all(now);
        }
        let move_count = u32::try_from(current.moves.len()).unwrap_or(u32::MAX);
        let record = ResultRecord {
            outcome: &outcome,
            move_count,
        };
        self.store
            .finish_game(current.id, record)
            .await
            .map_err(Refusal::storage)?;
        let result = ResultView::from(&outcome);
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(now));
        if let Some(current) = self.current.as_mut() {
            current.game.finish(outcome);
            current.draw_agreed.clear();
            current.clocks = clocks;
        }
        self.event(|version| ServerMsg::GameOver {
            version,
            result,
            clocks: clock_view,
        });
        Ok(())
    }

    /// When an idle table stops: no connection and no timer, for the idle period.
    fn idle_at(&self, wake_at: Option<Instant>) -> Option<Instant> {
        (self.conns.is_empty() && wake_at.is_none()).then(|| self.last_activity + self.limits.idle_after)
    }

    /// When the table's timer should next wake: the next flag or end of a grace in the
    /// game in progress.
    fn wake_at(&self) -> Option<Instant> {
        let current = self.playing().ok()?;
        let flag = current.clocks.as_ref().and_then(Clocks::next_flag);
        let grace = self.away.iter().flatten().min().copied();
        let next = match (flag, grace) {
            (Some(flag), Some(grace)) => flag.min(grace),
            (next, None) | (None, next) => next?,
        };
        Some(self.retry_at.map_or(next, |retry| retry.max(next)))
    }

    /// Ends the game if a clock has run out (the seat's team loses on time) or a player's
    /// reconnect grace has (the table's absence rule applies).
    async fn settle_timers(&mut self) {
        let now = Instant::now();
        if self.retry_at.is_some_and(|retry| now < retry) {
            return;
        }
        let flagged = self
            .playing()
            .ok()
            .and_then(|current| current.clocks.as_ref())
            .and_then(|clocks| clocks.flagged(now));
        let outcome = match flagged {
            Some(seat) => Some(Outcome {
                // Which clock fell, by seat and role (a Bughouse role names the board).
                detail: serde_json::json!({"seat": seat, "role": self.role_of(seat)}),
                ..Outcome::win(self.opponents_of(seat), EndReason::Time)
            }),
            None => self.absence_outcome(now),
        };
        let Some(outcome) = outcome else { return };
        match self.end_game(outcome).await {
            Ok(()) => {
                self.retry_at = None;
                self.sync_presence();
            }
            Err(refusal) => {
                tracing::error!(table = %self.id, message = %refusal.message, "a timer ended the game but it could not be stored");
                self.retry_at = Some(now + TIMER_RETRY);
            }
        }
    }

    /// The name of a seat's role (`X`, `black`, `A-white`, ...).
    fn role_of(&self, seat: Seat) -> &'static str {
        self.settings
            .game
            .seat_roles()
            .get(usize::from(seat))
            .copied()
            .unwrap_or("")
    }

    /// Every seat not on `seat`'s team.
    fn opponents_of(&self, seat: Seat) -> Vec<Seat> {
        let team = self.settings.game.team_of(seat);
        self.seats
            .iter()
            .map(|(other, _)| other)
            .filter(|other| self.settings.game.team_of(*other) != team)
            .collect()
    }

    async fn resign(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.playing()?;
        let outcome = Outcome::win(self.opponents_of(seat), EndReason::Resignation);
        self.end_game(outcome).await
    }

    // ----- views and delivery -----

    fn seat_views(&self) -> Vec<SeatView> {
        let roles = self.settings.game.seat_roles();
        self.seats
            .iter()
            .map(|(seat, holder)| SeatView {
                seat,
                role: roles.get(usize::from(seat)).copied().unwrap_or(""),
                player: holder.map(|holder| PlayerView {
                    name: holder.name.clone(),
                    connected: self.is_connected(&holder.key),
                    away_ms: self.away_ms(seat, Instant::now()),
                }),
            })
            .collect()
    }

    fn snapshot(&self) -> TableSnapshot {
        let game = self.current.as_ref().map_or(&self.preview, |current| &current.game);
        TableSnapshot {
            id: self.id.clone(),
            epoch: self.epoch,
            game: self.settings.kind().id(),
            settings: self.settings_json.clone(),
            status: self.status(),
            version: self.version,
            seats: self.seat_views(),
            spectators: self.spectator_count(),
            game_number: self.current.as_ref().map_or(0, |current| current.number),
            state: game.view(),
            moves: self
                .current
                .as_ref()
                .map_or_else(Vec::new, |current| current.moves.clone()),
            to_move: if self.current.is_some() {
                game.active_seats().iter().collect()
            } else {
                Vec::new()
            },
            draw_offer: self
                .current
                .as_ref()
                .and_then(|current| current.draw_agreed.first().copied()),
            draw_agreed: self
                .current
                .as_ref()
                .map_or_else(Vec::new, |current| current.draw_agreed.clone()),
            result: game.outcome().map(ResultView::from),
            clocks: self
                .current
                .as_ref()
                .and_then(|current| current.clocks.as_ref())
                .map(|clocks| clocks.view(Instant::now())),
        }
    }

    /// Sends a new connection what it needs: the events it missed since `since` and then
    /// `resumed`, or (without `since`, or when the gap is too old) a snapshot.
    fn catch_up(&mut self, conn: ConnId, since: Option<(u64, u32)>) {
        let missed = since.map(|(seen, epoch)| match epoch == self.epoch {
            true => self.history.since(seen, self.version),
            // A version of an earlier incarnation of the table (before a restart).
            false => Catchup::Snapshot,
        });
        match missed {
            Some(Catchup::Events(frames)) => {
                for frame in frames {
                    if !self.send_frame(conn, frame) {
                        return;
                    }
                }
                let resumed = ServerMsg::Resumed {
                    version: self.version,
                    epoch: self.epoch,
                };
                self.send_to(conn, &resumed);
            }
            Some(Catchup::Snapshot) | None => {
                let snapshot = ServerMsg::Snapshot {
                    version: self.version,
                    table: Box::new(self.snapshot()),
                };
                self.send_to(conn, &snapshot);
            }
        }
    }

    /// Raises the version and sends the event built for it to every connection.
    fn event(&mut self, build: impl FnOnce(u64) -> ServerMsg) {
        self.version += 1;
        self.shared_version.store(self.version, Ordering::Release);
        let frame = Frame::from(build(self.version).to_text());
        self.history.push(self.version, frame.clone());
        let failed: Vec<(ConnId, bool)> = self
            .conns
            .iter()
            .filter_map(|(id, conn)| match conn.outbox.try_send(frame.clone()) {
                Ok(()) => None,
                Err(err) => Some((*id, matches!(err, mpsc::error::TrySendError::Full(_)))),
            })
            .collect();
        self.drop_conns(&failed);
    }

    fn send_to(&mut self, conn: ConnId, msg: &ServerMsg) {
        self.send_frame(conn, Frame::from(msg.to_text()));
    }

    /// Queues a frame for one connection; false (and the connection is dropped) if it
    /// cannot keep up.
    fn send_frame(&mut self, conn: ConnId, frame: Frame) -> bool {
        let Some(entry) = self.conns.get(&conn) else {
            return false;
        };
        match entry.outbox.try_send(frame) {
            Ok(()) => true,
            Err(err) => {
                self.drop_conns(&[(conn, matches!(err, mpsc::error::TrySendError::Full(_)))]);
                false
            }
        }
    }

    /// Forgets connections that are gone or too slow to keep up; dropping their outbox
    /// tells their tasks to close them. Each comes with whether its queue was full (a
    /// client too slow to read) rather than closed (its task already ended).
    fn drop_conns(&mut self, conns: &[(ConnId, bool)]) {
        if conns.is_empty() {
            return;
        }
        for (conn, full) in conns {
            if self.conns.remove(conn).is_some() && *full {
                tracing::info!(table = %self.id, conn, "dropped a connection that could not keep up");
            }
        }
        self.sync_presence();
    }
}

/// Sleeps until `at`, or forever when there is nothing to wait for.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The wall-clock instant the next flag falls, for the database (correspondence
/// deadlines must survive restarts).
fn wall_deadline(clocks: &Clocks, now: Instant) -> Option<OffsetDateTime> {
    clocks
        .next_flag()
        .map(|at| OffsetDateTime::now_utc() + at.saturating_duration_since(now))
}

/// A rule's message as a sentence: capitalised, ending with a full stop.
fn sentence(message: &str) -> String {
    let message = message.trim();
    // A leading move or square (`d8d6`, `b1-b3`) keeps its case; a word is capitalised.
    let first_word = message.split_whitespace().next().unwrap_or("");
    let capitalise = first_word.chars().all(char::is_alphabetic);
    let mut chars = message.chars();
    let mut text: String = match chars.next() {
        Some(first) if capitalise => first.to_uppercase().chain(chars).collect(),
        Some(_) => message.to_owned(),
        None => return String::new(),
    };
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::sentence;

    #[test]
    fn rule_messages_become_sentences() {
        assert_eq!(sentence("the square is taken"), "The square is taken.");
        assert_eq!(sentence("d8d6 is not a legal move"), "d8d6 is not a legal move.");
        assert_eq!(sentence("Done."), "Done.");
        assert_eq!(sentence(""), "");
    }
}
