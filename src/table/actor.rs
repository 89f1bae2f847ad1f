//! The table actor: one task per table that alone owns its seats, its game and its
//! connections, and turns client messages into stored, versioned, broadcast events.
//!
//! Order of work for every change: check it, store it (awaiting Postgres), then apply it
//! in memory and tell everyone. A change the store refuses is answered with
//! `storage_unavailable` and leaves the table as it was.
//!
//! This file holds the actor's state, its loop, identities and delivery; the rest is in
//! [`seating`] (seats and the start), [`game`] (moves, the end, timers), [`draws`],
//! [`premove`], [`chat`], [`moderation`] (operators' actions, mutes, reports), [`presence`]
//! (connections and reconnect graces), [`bots`] (bot seats thinking and moving), [`ratings`]
//! (the ratings shown at rated tables) and [`restore`] (rebuilding from Postgres).

mod bots;
mod chat;
mod draws;
mod game;
mod lobby;
mod moderation;
mod premove;
mod presence;
mod ratings;
mod restore;
mod rotation;
mod seating;
mod series;
mod undo;

pub use lobby::ARRIVAL_WAIT;
pub use restore::{CORRESPONDENCE_RESTART_GRACE, RestoreError};
pub(crate) use seating::is_format_char;

use game::sentence;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use self::bots::BotSeats;
use self::presence::Audience;
use self::series::{Interlude, SeriesState};
use super::chat_log::ChatLog;
use super::clock::Clocks;
use super::handle::TableHandle;
use super::history::{Catchup, History};
use super::listing::ListingSink;
use super::move_list::MoveList;
use super::msg::{ConnId, Frame, TableCmd};
use super::queue::{self, OutboxSender, TrySendError};
use super::seats::{Holder, Seats};
use super::settings::{Seating, TableSettings};
use crate::bots::pool::{BotAnswer, BotPool};
use crate::games::{AnyGame, EndReason, MoveError, Outcome, Seat};
use crate::identity::{PlayerKey, PlayerToken, TokenIssuer};
use crate::protocol::{
    ClientMsg, Envelope, ErrorCode, PlayerView, ResultView, SeatView, ServerMsg, TableSnapshot, TableStatus,
};
use crate::store::games::{MoveRecord, PlayerRecord, ResultRecord};
use crate::store::{Store, StoreError};

/// How many commands may wait for a table before senders wait too.
const COMMAND_QUEUE: usize = 64;

/// After a timer ended a game but its result could not be stored, wait this long before
/// retrying.
const TIMER_RETRY: Duration = Duration::from_secs(1);

/// What every table shares: its limits and the bots' search threads.
#[derive(Debug, Clone)]
pub struct TableServices {
    pub limits: Arc<TableLimits>,
    pub bots: BotPool,
    /// Issues player tokens and recognises the ones the server issued (one for every
    /// table: its secret is 64 bytes).
    pub tokens: Arc<TokenIssuer>,
    /// Where listed tables send what the lobby shows of them.
    pub listings: ListingSink,
}

/// Limits a table enforces.
#[derive(Debug, Clone, Copy)]
pub struct TableLimits {
    /// Longest player name and chat message, in characters.
    pub name_max_chars: usize,
    pub chat_max_chars: usize,
    /// A table with no connection and no timer running stops its actor after this long;
    /// it is rebuilt from Postgres when next asked for.
    pub idle_after: Duration,
    /// How often games may start and each player may chat.
    pub quotas: crate::table::quota::QuotaSettings,
}

/// One open connection to the table.
#[derive(Debug)]
struct Conn {
    outbox: OutboxSender,
    /// The token this connection presented (or was given); kept only in memory, only to
    /// return it to its owner in `welcome`.
    token: Option<PlayerToken>,
    key: Option<PlayerKey>,
    /// The client's address (its /64 for IPv6): its bots' searches are shared out by it.
    address: std::net::IpAddr,
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
        if matches!(err, StoreError::LeaseLost) {
            tracing::info!("another node serves the table now; nothing was stored here");
            return Refusal::new(
                ErrorCode::StorageUnavailable,
                "This table has moved to another server, so nothing changed; you will be reconnected to it.",
            );
        }
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
    /// Each seat's side in the series.
    sides: Vec<u8>,
    game: AnyGame,
    /// The moves of the game's line (take-backs removed), with every clock after each in
    /// a timed game (for take-backs).
    moves: MoveList,
    /// Records stored for the game: moves and take-backs (their numbers in `moves.ply`).
    records: u32,
    /// The people who agree to abandon this game for a new one (casual tables).
    new_game_agreed: Vec<Seat>,
    /// The standing take-back request: the requester first, then those who agree.
    undo_agreed: Vec<Seat>,
    /// The seats that agree to a draw, in the order they did (the first offered); the
    /// game is drawn when every seat agrees.
    draw_agreed: Vec<Seat>,
    /// `None` for an untimed table.
    clocks: Option<Clocks>,
}

/// The state of one table; see the module doc.
pub struct TableActor {
    id: String,
    settings: TableSettings,
    /// The settings as JSON text (for snapshots; a parsed map would cost ten times more).
    settings_json: Box<serde_json::value::RawValue>,
    store: Store,
    /// Shared by every table (they are the server's).
    limits: Arc<TableLimits>,
    /// The table's paces (game starts, chat lines), made when first needed.
    quotas: Option<Box<crate::table::quota::Quotas>>,
    version: u64,
    /// The version and the closed mark its handles read.
    shared: Arc<super::handle::Shared>,
    seats: Seats,
    /// Recent events, for clients that resume after a disconnection.
    history: History,
    /// The recent table and team chat, for newcomers (stored in Postgres too).
    chat: ChatLog,
    /// Random per incarnation of the table: versions start again from 0 when a table is
    /// rebuilt, so a client resumes only within the same epoch.
    epoch: u32,
    /// Whether each seat's holder was last announced as connected.
    announced_presence: Vec<bool>,
    /// For each seat whose player is away during a game: when their reconnect grace ends.
    away: Vec<Option<Instant>>,
    /// The spectator count as announced (at most once a second).
    audience: Audience,
    conns: HashMap<ConnId, Conn>,
    current: Option<CurrentGame>,
    /// Each seat's queued premove (private to its player until played).
    premoves: Vec<Option<Value>>,
    /// The last command the table received (for stopping an idle table).
    last_activity: Instant,
    /// Not before this instant may a fallen flag or an expired grace be handled again
    /// (its result could not be stored on the last attempt).
    retry_at: Option<Instant>,
    /// The search threads bots think on.
    bots: BotPool,
    /// Issues player tokens and recognises the server's own.
    tokens: Arc<TokenIssuer>,
    /// Searches under way and bots waiting, per seat.
    bot_seats: BotSeats,
    /// Where the search threads send their answers; made when a bot first thinks (a
    /// channel costs a table ~0.8 KiB, and most tables have no bot). The receiver waits
    /// here until the loop takes it.
    bot_reply: Option<mpsc::UnboundedSender<Box<BotAnswer>>>,
    bot_answers: Option<mpsc::UnboundedReceiver<Box<BotAnswer>>>,
    /// The series in play (or last played); `None` before the first game.
    series: Option<SeriesState>,
    /// Counts this table in the metrics under its game and status while its actor runs.
    gauge: crate::metrics::TableGauge,
    /// Counts and times its moves.
    move_metrics: crate::metrics::MoveMetrics,
    /// Between games: the series pause, ready players, rematch agreement.
    interlude: Interlude,
    /// A series' pause ended with no seated person here, so no game was started (it could
    /// only be aborted, and the next one after it, for ever): the pause starts again when
    /// one of them comes back within a reconnect grace (`interlude.next_game_at` is its
    /// end meanwhile); otherwise the series ends early and the table, with no timer left,
    /// leaves memory when idle. (Here rather than in [`Interlude`], where it would make the
    /// actor larger.)
    waiting_for_players: bool,
    /// At a rated table: the seated people's ratings in this game, as last read or
    /// updated by this table's games (only shown; the store rates from its own rows).
    ratings: HashMap<PlayerKey, crate::ratings::Rating>,
    /// Where the table's lobby listing goes (listed tables).
    listings: ListingSink,
    /// The lobby listing is out of date (sent after the command or timer at hand).
    listing_dirty: bool,
    /// Every seat was taken before the table opened (the lobby paired its people): the
    /// first game starts when all are here, and at this instant the absent lose their seats.
    arrivals_until: Option<Instant>,
    /// At a rotating table: its queue, standings and games in a row (`rotation.rs`).
    rotation: Option<Box<rotation::RotationState>>,
}

/// The next bot answer, once the table has a bot channel (until then, never).
async fn bot_answer(answers: &mut Option<mpsc::UnboundedReceiver<Box<BotAnswer>>>) -> Option<Box<BotAnswer>> {
    match answers {
        Some(answers) => answers.recv().await,
        None => std::future::pending().await,
    }
}

impl TableActor {
    /// A table with free seats and no game yet.
    fn new(id: &str, settings: TableSettings, store: Store, services: TableServices) -> TableActor {
        let TableServices {
            limits,
            bots,
            tokens,
            listings,
        } = services;
        let seat_count = settings.game.seat_count();
        let settings_listed = settings.listed;
        let settings_rotates = settings.rotation != crate::table::rotation::Rotation::Fixed;
        TableActor {
            gauge: crate::metrics::TableGauge::new(settings.kind().id()),
            move_metrics: crate::metrics::MoveMetrics::new(settings.kind().id()),
            series: None,
            interlude: Interlude::default(),
            waiting_for_players: false,
            bots,
            tokens,
            bot_seats: BotSeats::new(seat_count),
            bot_reply: None,
            bot_answers: None,
            id: id.to_owned(),
            settings_json: crate::games::json_text(&settings.to_json()),
            settings,
            store,
            limits,
            quotas: None,
            version: 0,
            shared: Arc::default(),
            seats: Seats::new(seat_count),
            history: History::default(),
            chat: ChatLog::default(),
            epoch: rand::random(),
            last_activity: Instant::now(),
            premoves: vec![None; seat_count],
            announced_presence: vec![false; seat_count],
            away: vec![None; seat_count],
            audience: Audience::default(),
            conns: HashMap::new(),
            current: None,
            retry_at: None,
            ratings: HashMap::new(),
            listing_dirty: settings_listed,
            listings,
            arrivals_until: None,
            rotation: (settings_rotates).then(Box::default),
        }
    }

    /// Starts the actor of a table that was just stored (with the bots its settings
    /// seat), and returns its handle.
    pub fn spawn(
        id: &str,
        settings: TableSettings,
        store: Store,
        services: TableServices,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> TableHandle {
        TableActor::fresh(id, settings, store, services).start(shutdown, tracker)
    }

    /// The snapshot of a table that was just stored, as its actor would give it, without
    /// starting one (the table is served by whichever node first gets a request for it).
    pub fn fresh_snapshot(id: &str, settings: TableSettings, store: Store, services: TableServices) -> TableSnapshot {
        TableActor::fresh(id, settings, store, services).snapshot()
    }

    /// A table just stored: free seats but for the bots its settings seat.
    fn fresh(id: &str, settings: TableSettings, store: Store, services: TableServices) -> TableActor {
        let bots = settings.bots.clone();
        let mut actor = TableActor::new(id, settings, store, services);
        for (seat, strength) in bots {
            actor.seats.sit(seat, Holder::Bot { strength });
            if let Some(slot) = actor.announced_presence.get_mut(usize::from(seat)) {
                *slot = true;
            }
        }
        actor
    }

    /// Runs the actor as a task of `tracker` and returns its handle.
    fn start(self, shutdown: CancellationToken, tracker: &TaskTracker) -> TableHandle {
        let (commands, inbox) = queue::bounded(COMMAND_QUEUE);
        // A child of the server's shutdown: cancelled by either, so that the table's loop
        // waits on its own token only (the server's is shared by every table and socket,
        // and each wait on it takes its two locks on every turn).
        let hand_over = shutdown.child_token();
        let handle = TableHandle::new(
            &self.id,
            commands,
            self.shared.clone(),
            self.store.lease().cloned(),
            hand_over.clone(),
            self.settings.kind(),
        );
        // Every line the actor logs (and its bots' searches) names the table.
        let span = tracing::info_span!("table", table = %self.id);
        // The table lives on the heap once; its task's future holds only the pointer.
        tracker.spawn(tracing::Instrument::instrument(
            Box::new(self).run(inbox, shutdown, hand_over),
            span,
        ));
        handle
    }

    /// The sender the bots' searches answer on (the channel is made on first use).
    fn bot_reply(&mut self) -> mpsc::UnboundedSender<Box<BotAnswer>> {
        if let Some(reply) = &self.bot_reply {
            return reply.clone();
        }
        let (reply, answers) = mpsc::unbounded_channel();
        self.bot_answers = Some(answers);
        self.bot_reply.insert(reply).clone()
    }

    async fn run(
        mut self: Box<Self>,
        mut inbox: queue::Receiver<TableCmd>,
        shutdown: CancellationToken,
        hand_over: CancellationToken,
    ) {
        let mut bot_answers = None;
        // Registered once, not on every turn of the loop. The token is a child of
        // `shutdown` (see `start`): it fires when the server shuts down, too.
        let handing_over = hand_over.cancelled();
        tokio::pin!(handing_over);
        let stop = loop {
            self.gauge.set(self.status().as_str());
            if self.listing_dirty {
                self.publish_listing();
            }
            let wake_at = self.wake_at();
            let idle_at = self.idle_at(wake_at);
            if bot_answers.is_none() {
                bot_answers = self.bot_answers.take();
            }
            tokio::select! {
                biased;
                // The server shuts down, or another node asked for the table (or this one
                // no longer holds it).
                _ = &mut handing_over => break match shutdown.is_cancelled() {
                    true => Stop::Shutdown,
                    false => Stop::HandOver,
                },
                // The table's own timer: flags fall and graces run out whether or not
                // anyone is connected.
                // The work is boxed: the loop's future, which a table keeps for its whole
                // life, then holds only the table, not the largest of these (kilobytes).
                _ = sleep_until(wake_at) => Box::pin(self.settle_timers()).await,
                // The spectator count, at most once a second.
                _ = sleep_until(self.audience.due) => self.announce_spectators(),
                Some(answer) = bot_answer(&mut bot_answers) => {
                    Box::pin(self.settle_timers()).await;
                    Box::pin(self.bot_answered(*answer)).await;
                }
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => {
                        self.last_activity = Instant::now();
                        Box::pin(self.handle(cmd)).await;
                    }
                    None => break Stop::Shutdown,
                },
                // Nobody here and nothing to wait for: free the memory (the table is
                // rebuilt from Postgres when next asked for).
                _ = sleep_until(idle_at) => break Stop::Idle,
            }
            // A write found the table served by another node: stop serving it here.
            if self.store.lease_lost() {
                break Stop::LeaseLost;
            }
            // An operator closed the table (`moderation.rs`).
            if self.closed() {
                break Stop::Closed;
            }
        };
        self.unlist();
        // An idle table has nobody to tell: it closes at once, so that this node's registry
        // serves the next request afresh while the lease is released.
        if matches!(stop, Stop::Idle) {
            inbox.close();
        }
        // Otherwise released before the connections are told (1012, or 4000 when an
        // operator closed the table), so that the node each client reconnects to can serve
        // the table at once. Commands that come meanwhile are never handled: they are
        // dropped with the inbox, unanswered.
        if matches!(stop, Stop::Idle | Stop::HandOver | Stop::Closed)
            && let Some(lease) = self.store.lease()
            && let Err(err) = Box::pin(self.store.release_stopped_table(lease)).await
        {
            // Released when another node asks for it, or taken over once this node dies.
            tracing::warn!(table = %self.id, error = %err, "could not release the table's lease");
        }
        // The connections see a table that stopped (and close with 1012), and this node's
        // registry serves the next request afresh.
        inbox.close();
        drop(inbox);
        self.conns.clear();
        tracing::debug!(table = %self.id, ?stop, "table actor stopped");
    }

    async fn handle(&mut self, cmd: TableCmd) {
        // A flag that fell (or a grace that ran out) is settled before anything else.
        self.settle_timers().await;
        match cmd {
            TableCmd::Join {
                conn,
                outbox,
                since,
                address,
            } => {
                self.conns.insert(
                    conn,
                    Conn {
                        outbox,
                        token: None,
                        key: None,
                        address,
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
            TableCmd::Moderate(cmd) => Box::pin(self.moderate(*cmd)).await,
            TableCmd::Client { conn, envelope } => {
                // A connection dropped as too slow may still have messages in flight.
                if !self.conns.contains_key(&conn) {
                    return;
                }
                let Envelope { msg, reference } = *envelope;
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
        // A table made by pairing starts when its people are here (a `hello` made one).
        if self.arrivals_until.is_some() {
            self.start_if_arrived().await;
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
            ClientMsg::LegalMoves { seat } => self.legal_moves(conn, seat, reference),
            ClientMsg::JoinQueue { name } => Box::pin(self.join_queue(conn, name)).await,
            ClientMsg::LeaveQueue => Box::pin(self.leave_queue(conn)).await,
            ClientMsg::Sit { seat, name } => self.sit(conn, seat, name).await,
            ClientMsg::Stand { seat } => self.stand(conn, seat).await,
            // Boxed: its store transaction would make every command's work larger.
            ClientMsg::Rename { seat, name } => Box::pin(self.rename(conn, seat, name)).await,
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
            ClientMsg::Chat { text } => self.chat(conn, text).await,
            ClientMsg::TeamChat { text } => self.team_chat(conn, text).await,
            ClientMsg::Report { line, reason } => self.report(conn, line, reason, reference).await,
            ClientMsg::Premove { seat, payload } => self.premove(conn, seat, payload),
            ClientMsg::CancelPremove { seat } => self.cancel_premove(conn, seat),
            ClientMsg::AddBot { seat, strength } => self.add_bot(conn, seat, strength).await,
            ClientMsg::RemoveBot { seat } => self.remove_bot(conn, seat).await,
            ClientMsg::Ready { seat } => self.ready(conn, seat).await,
            ClientMsg::OfferRematch { seat } | ClientMsg::AcceptRematch { seat } => {
                self.offer_rematch(conn, seat).await
            }
            ClientMsg::DeclineRematch { seat } => self.decline_rematch(conn, seat),
            ClientMsg::OfferNewGame { seat } | ClientMsg::AcceptNewGame { seat } => {
                self.offer_new_game(conn, seat).await
            }
            ClientMsg::DeclineNewGame { seat } => self.decline_new_game(conn, seat),
            ClientMsg::OfferUndo { seat } => self.offer_undo(conn, seat).await,
            ClientMsg::AcceptUndo { seat } => self.accept_undo(conn, seat).await,
            ClientMsg::DeclineUndo { seat } => self.decline_undo(conn, seat),
        }
    }

    // ----- identity and seats -----

    fn hello(&mut self, conn: ConnId, token: Option<String>) -> Result<(), Refusal> {
        let Some(current) = self.conns.get(&conn) else {
            return Ok(());
        };
        let token = match (token, &current.token) {
            (None, Some(known)) => known.clone(),
            (None, None) => self.tokens.issue(),
            (Some(given), known) => {
                let given = PlayerToken::parse(&given)
                    .map_err(|err| Refusal::new(ErrorCode::BadToken, sentence(&err.to_string())))?;
                if known.as_ref().is_some_and(|known| *known != given) {
                    return Err(Refusal::new(
                        ErrorCode::BadToken,
                        "This connection already presented another token; open a new connection to switch players.",
                    ));
                }
                // Only tokens this server issued are accepted (and, from before tokens were
                // signed, one that holds a seat here); any other gets a fresh one.
                if self.tokens.issued(&given) || !self.seats.held_by(&given.key()).is_empty() {
                    given
                } else {
                    self.tokens.issue()
                }
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
            team_chat: self.chat.team_lines_for(&token.key()),
            queue_place: self.queue_place(&token.key()),
            token: token.expose().to_owned(),
        };
        self.send_to(conn, &welcome);
    }

    /// Sends `welcome` again to every identified connection (their seats, or places in a
    /// queue, may have changed).
    fn welcome_everyone(&mut self) {
        let identified: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, conn)| conn.token.is_some())
            .map(|(id, _)| *id)
            .collect();
        for conn in identified {
            self.send_welcome(conn);
        }
    }

    /// The connection's player, issuing a new token first if it has none yet.
    fn player(&mut self, conn: ConnId) -> PlayerKey {
        if let Some(key) = self.conns.get(&conn).and_then(|c| c.key) {
            return key;
        }
        let token = self.tokens.issue();
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
            // After a decided series a freed seat makes the table wait for a player.
            Some(current) if current.game.outcome().is_some() => {
                if self.series_decided() && !self.seats.is_full() {
                    TableStatus::Waiting
                } else {
                    TableStatus::Finished
                }
            }
            Some(_) => TableStatus::Playing,
        }
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
                    name: holder.name(),
                    bot: holder.bot(),
                    connected: self.is_present(holder),
                    away_ms: self.away_ms(seat, Instant::now()),
                    rating: self.rating_view(holder),
                }),
            })
            .collect()
    }

    fn snapshot(&self) -> TableSnapshot {
        // Before the first game: the starting position (made when asked for, not kept).
        let starting;
        let game = match &self.current {
            Some(current) => &current.game,
            None => {
                // The first game's start (Bughouse 960 shows the position it will draw).
                starting = self.settings.game.new_game_drawn(crate::games::game_seed(&self.id, 1));
                &starting
            }
        };
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
                .map_or_else(|| MoveList::new(game.kind()), |current| current.moves.clone()),
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
            rated: self.settings.rated,
            series: self.series_view(),
            next_game_in_ms: self
                .interlude
                .next_game_at
                .filter(|_| !self.waiting_for_players)
                .map(|at| u64::try_from(at.saturating_duration_since(Instant::now()).as_millis()).unwrap_or(u64::MAX)),
            ready: self.interlude.ready.clone(),
            rematch_agreed: self.interlude.rematch.clone(),
            new_game_agreed: self
                .current
                .as_ref()
                .map_or_else(Vec::new, |current| current.new_game_agreed.clone()),
            undo_agreed: self
                .current
                .as_ref()
                .map_or_else(Vec::new, |current| current.undo_agreed.clone()),
            chat: self.chat.public(),
            rotation: self.rotation_view(),
        }
    }

    /// Sends a new connection what it needs: the events it missed since `since` and then
    /// `resumed`, or (without `since`, or when the gap is too old or too long to replay)
    /// a snapshot.
    ///
    /// A replay fills at most half the connection's queue, so that it cannot overflow it
    /// (and get the client dropped as too slow) even while new events arrive before the
    /// client has read it; a longer gap costs one snapshot frame instead.
    fn catch_up(&mut self, conn: ConnId, since: Option<(u64, u32)>) {
        let replay_budget = self.conns.get(&conn).map_or(0, |entry| entry.outbox.capacity() / 2);
        let missed = since.map(|(seen, epoch)| match epoch == self.epoch {
            true => self.history.since(seen, self.version),
            // A version of an earlier incarnation of the table (before a restart).
            false => Catchup::Snapshot,
        });
        match missed {
            // The events, and `resumed` after them.
            Some(Catchup::Events(frames)) if frames.len() < replay_budget => {
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
            Some(Catchup::Events(_) | Catchup::Snapshot) | None => {
                let table = self.snapshot();
                self.audience.told(table.spectators);
                let snapshot = ServerMsg::Snapshot {
                    version: self.version,
                    table: Box::new(table),
                };
                self.send_to(conn, &snapshot);
            }
        }
    }

    /// Raises the version and sends the event built for it to every connection.
    fn event(&mut self, build: impl FnOnce(u64) -> ServerMsg) {
        self.version += 1;
        self.shared.version.store(self.version, Ordering::Release);
        let msg = build(self.version);
        self.listing_dirty |= Self::changes_listing(&msg);
        let frame = Frame::from(msg.to_text());
        self.history.push(self.version, frame.clone());
        let failed: Vec<(ConnId, bool)> = self
            .conns
            .iter()
            .filter_map(|(id, conn)| match conn.outbox.try_send(frame.clone()) {
                Ok(()) => None,
                Err(err) => Some((*id, err == TrySendError::Full)),
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
                self.drop_conns(&[(conn, err == TrySendError::Full)]);
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
                // Its connection task logs the close (1013), once.
                tracing::debug!(table = %self.id, conn, "dropped a connection that could not keep up");
            }
        }
        self.sync_presence();
    }
}

/// Why a table's actor stopped.
#[derive(Debug, Clone, Copy)]
enum Stop {
    /// The server is shutting down (the lease is left to lapse with the node).
    Shutdown,
    /// Asked to let another node serve the table: the lease is released.
    HandOver,
    /// Nobody here and nothing to wait for: the lease is released.
    Idle,
    /// Another node took the table over.
    LeaseLost,
    /// An operator closed the table: the lease is released, and the table is not served again.
    Closed,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of the default Gomoku settings, with a pool that connects to nothing.
    fn idle_actor() -> TableActor {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .connect_lazy("postgres://nobody@localhost/nothing")
            .expect("a lazy pool connects to nothing");
        let services = TableServices {
            limits: Arc::new(TableLimits {
                name_max_chars: 24,
                chat_max_chars: 500,
                idle_after: Duration::from_secs(30),
                quotas: Default::default(),
            }),
            bots: crate::bots::pool::BotPool::start(1, Default::default()),
            tokens: Arc::new(TokenIssuer::random()),
            listings: ListingSink::default(),
        };
        let settings = TableSettings::read("gomoku", None).expect("default settings");
        TableActor::new("abcdefghij", settings, Store::new(pool), services)
    }

    /// A table keeps its task's future for its whole life, so that future must hold the
    /// table (on the heap) and its loop, not the largest piece of work the loop awaits:
    /// before the work was boxed it was 7.9 KB here (14 KB in a release build).
    #[tokio::test]
    async fn a_waiting_table_task_is_small() {
        let (_commands, inbox) = queue::bounded(1);
        let task = Box::new(idle_actor()).run(inbox, CancellationToken::new(), CancellationToken::new());
        assert!(
            std::mem::size_of_val(&task) <= 1024,
            "{} bytes",
            std::mem::size_of_val(&task)
        );
        assert!(
            std::mem::size_of::<TableActor>() <= 1536,
            "{} bytes",
            std::mem::size_of::<TableActor>()
        );
    }

    /// Each command's work is a future of its own on the heap, made and copied there for
    /// every move: it must not carry the rated end's transaction, which only a rated
    /// game's last move needs (before that was boxed on its own: 4.4 KB here, 10.5 KB in
    /// a release build; after: 2.2 KB in both).
    #[tokio::test]
    async fn a_command_s_work_is_small() {
        let mut actor = idle_actor();
        let work = actor.handle(TableCmd::Leave { conn: 1 });
        assert!(
            std::mem::size_of_val(&work) <= 3072,
            "{} bytes",
            std::mem::size_of_val(&work)
        );
        drop(work);
        let timers = actor.settle_timers();
        assert!(
            std::mem::size_of_val(&timers) <= 3072,
            "{} bytes",
            std::mem::size_of_val(&timers)
        );
    }
}
