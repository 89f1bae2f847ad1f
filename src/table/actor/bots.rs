//! Bots at play: when a seat the computer holds is to move, the actor hands a copy of the
//! position to the search threads ([`crate::bots::pool`]) and goes on serving everyone;
//! the answer comes back as a [`BotAnswer`] and enters through [`TableActor::apply_move`],
//! like a person's move (rules, clock, storage, events, premoves).
//!
//! An answer is checked against the position it was computed for (the game and the number
//! of records stored). If the position changed meanwhile — in Bughouse the partner's board
//! fills the pockets; elsewhere a take-back or the end of the game — the bot thinks again
//! once; a second stale answer is played if it is still legal (pockets only grow, so it
//! usually is) and thought again otherwise. A search that failed (it panicked) or an
//! answer the rules refuse falls back to a random legal move, so a bot never stalls.
//!
//! Think time comes from [`crate::bots::budget`]: the strength's budget at an untimed
//! table, less when the bot's own clock asks for it, and less the slowest of the table's
//! recent stores (`budget::StoreTimes`): the player sees the bot's move once it is stored,
//! so the store is counted in the budget.
//!
//! Resigning: each answer carries its search's outlook; a watch per seat
//! ([`crate::bots::resign::Watch`]) counts them and, when the game's rule says so (and
//! `bots.resign` allows it), the bot resigns instead of playing its move, through the
//! same path as a person's `resign`. A bot never resigns for a team a person plays on.
//!
//! Each answer is counted when it first comes back (`spelbord_bot_think_seconds`, and
//! `spelbord_bot_searches_total` by whether it kept its deadline): the search threads do
//! not know the server's metrics beyond their own gauges.
//!
//! Pace: in Bughouse a bot never moves sooner than a pace computed like a budget from
//! `bots.bughouse_pace_ms` and its own clock (2 s on a fresh 3-minute clock, less as it
//! runs down). Without it two bots on the other board would play hundreds of moves in the
//! time a person makes one. An answer that is ready early is held until then (its clock
//! runs meanwhile), and is played if it is still legal when released.

use std::time::Duration;

use rand::seq::IndexedRandom;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::TableActor;
use crate::bots::budget::{self, StoreTimes, less_store, think_time};
use crate::bots::pool::{BotAnswer, Search};
use crate::bots::resign::Watch;
use crate::bots::{BotChoice, Context, Decision, Outlook};
use crate::games::{GameKind, Seat};
use crate::protocol::ErrorCode;
use crate::table::time_control::TimeControl;

/// The position a search was asked about: which game, and how many records (moves and
/// take-backs, so it never repeats) into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    game: Uuid,
    records: u32,
}

/// A search under way for one seat.
#[derive(Debug, Clone, Copy)]
pub(super) struct Thinking {
    ticket: u64,
    stamp: Stamp,
    /// The bot already thought again once for this move (or its answer was held for the
    /// pace): a stale answer is now played if it is still legal.
    redone: bool,
    /// Not before this instant may the answer be played (Bughouse's pace).
    not_before: Option<Instant>,
    /// The time the search was given, until its answer is counted in the metrics (an
    /// answer held for the pace comes back once more, and is not counted again).
    budget: Option<Duration>,
    /// On a clock the deadline stands while the search waits for a thread; untimed, the
    /// budget counts from when a thread takes it up (as the search threads reckon it).
    timed: bool,
}

/// The bot seats' state at a table.
#[derive(Debug, Default)]
pub(super) struct BotSeats {
    /// Per seat: the search under way.
    thinking: Vec<Option<Thinking>>,
    /// Per seat: the position at which the bot said it must wait (Bughouse).
    waiting: Vec<Option<Stamp>>,
    /// What a table with a bot keeps besides (made when first needed: boxed, as most
    /// tables have no bot and every table's actor is kept small).
    judgement: Option<Box<Judgement>>,
    next_ticket: u64,
}

/// A bot table's outlooks and store times.
#[derive(Debug)]
struct Judgement {
    /// Per seat: its search's outlooks in a row, for resigning.
    watches: Vec<Watch>,
    /// The table's recent stores of moves: kept back from every think.
    stores: StoreTimes,
}

impl BotSeats {
    pub(super) fn new(seat_count: usize) -> BotSeats {
        BotSeats {
            thinking: vec![None; seat_count],
            waiting: vec![None; seat_count],
            judgement: None,
            next_ticket: 0,
        }
    }

    /// The outlooks and store times, made when first needed.
    fn judgement(&mut self) -> &mut Judgement {
        let seat_count = self.thinking.len();
        self.judgement.get_or_insert_with(|| {
            Box::new(Judgement {
                watches: vec![Watch::default(); seat_count],
                stores: StoreTimes::default(),
            })
        })
    }

    /// The time to keep back for storing a bot's move.
    fn store_reserve(&self) -> std::time::Duration {
        self.judgement
            .as_ref()
            .map_or(budget::STORE_GUESS, |judgement| judgement.stores.reserve())
    }

    /// Forgets every search (their answers will be ignored), every wait and every
    /// outlook counted (a new game, a take-back, an end).
    pub(super) fn reset(&mut self) {
        self.thinking.iter_mut().for_each(|slot| *slot = None);
        self.waiting.iter_mut().for_each(|slot| *slot = None);
        if let Some(judgement) = self.judgement.as_mut() {
            judgement.watches.iter_mut().for_each(Watch::reset);
        }
    }

    /// A move of this table was stored in `took` (counted in bots' budgets; the caller
    /// tells only at a table with a bot).
    pub(super) fn stored(&mut self, took: Duration) {
        self.judgement().stores.record(took);
    }

    pub(super) fn any_thinking(&self) -> bool {
        self.thinking.iter().any(Option::is_some)
    }
}

impl TableActor {
    /// The position bots are asked about now, if a game is in play.
    fn stamp(&self) -> Option<Stamp> {
        let current = self.playing().ok()?;
        Some(Stamp {
            game: current.id,
            records: current.records,
        })
    }

    /// Asks every bot that is to move, has no search under way and is not waiting for
    /// this very position, to think.
    ///
    /// Bots think only while a seated person is connected: a table its people have left
    /// costs no CPU (a bot's clock runs on as the rules say; its absent person's grace, if
    /// any, ends the game). They wake when one comes back.
    pub(super) fn wake_bots(&mut self) {
        if self.search_owner().is_none() {
            return;
        }
        let Some(stamp) = self.stamp() else { return };
        let Some(active) = self.playing().ok().map(|current| current.game.active_seats()) else {
            return;
        };
        for seat in active.iter() {
            let index = usize::from(seat);
            if self.seats.bot(seat).is_none()
                || self.bot_seats.thinking.get(index).copied().flatten().is_some()
                || self.bot_seats.waiting.get(index).copied().flatten() == Some(stamp)
            {
                continue;
            }
            let not_before = self.pace(seat);
            self.think(seat, false, not_before);
        }
    }

    /// When a bot that starts thinking now may move at the earliest (Bughouse only).
    fn pace(&self, seat: Seat) -> Option<Instant> {
        if self.settings.kind() != GameKind::Bughouse {
            return None;
        }
        let pace = Duration::from_millis(self.bots.pace_ms());
        Some(Instant::now() + think_time(pace, self.bot_clock(seat)))
    }

    /// Whom the table's searches are counted to: the address of a seated person's
    /// connection (the first found); `None` when no seated person is connected.
    fn search_owner(&self) -> Option<std::net::IpAddr> {
        self.conns
            .values()
            .find(|conn| conn.key.is_some_and(|key| !self.seats.held_by(&key).is_empty()))
            .map(|conn| conn.address)
    }

    /// Hands the position to the search threads for `seat` (nothing while no seated
    /// person is connected: see [`TableActor::wake_bots`]).
    fn think(&mut self, seat: Seat, redone: bool, not_before: Option<Instant>) {
        let (Some(stamp), Some(strength), Some(owner)) = (self.stamp(), self.seats.bot(seat), self.search_owner())
        else {
            return;
        };
        let Ok(current) = self.playing() else { return };
        let context = self.search_context(seat, strength);
        let budget = context.deadline.saturating_duration_since(std::time::Instant::now());
        let timed = context.clocks.is_some();
        let game = current.game.clone();
        self.bot_seats.next_ticket += 1;
        let ticket = self.bot_seats.next_ticket;
        if let Some(slot) = self.bot_seats.thinking.get_mut(usize::from(seat)) {
            *slot = Some(Thinking {
                ticket,
                stamp,
                redone,
                not_before,
                budget: Some(budget),
                timed,
            });
        }
        let search = Search {
            game,
            seat,
            strength,
            context,
            ticket,
            owner,
        };
        let reply = self.bot_reply();
        self.bots.submit(search, reply);
    }

    /// The deadline and knowledge a search of `seat` gets: the strength's budget, less
    /// when the bot's own clock asks for it.
    fn search_context(&self, seat: Seat, strength: BotChoice) -> Context {
        let base = self.bots.budget(strength);
        let now = Instant::now();
        let clocks = self.current.as_ref().and_then(|current| current.clocks.as_ref());
        let control = self.settings.time_control;
        let clock = self.bot_clock(seat);
        let seat_count = u8::try_from(self.seats.count()).unwrap_or(u8::MAX);
        let think = less_store(think_time(base, clock), self.bot_seats.store_reserve());
        Context {
            deadline: std::time::Instant::now() + think,
            seed: rand::random(),
            clocks: clocks.map(|clocks| (0..seat_count).map(|s| clocks.remaining(s, now)).collect()),
            increment: control.increment(),
        }
    }

    /// The bot's own clock, as the budget reads it.
    fn bot_clock(&self, seat: Seat) -> budget::Clock {
        let now = Instant::now();
        let clocks = self.current.as_ref().and_then(|current| current.clocks.as_ref());
        let control = self.settings.time_control;
        match (clocks, control) {
            (None, _) | (_, TimeControl::None | TimeControl::Correspondence { .. }) => budget::Clock::None,
            (Some(clocks), TimeControl::PerMove { .. }) => budget::Clock::Move {
                remaining: clocks.remaining(seat, now),
            },
            (Some(clocks), _) => budget::Clock::Game {
                remaining: clocks.remaining(seat, now),
                increment: control.increment(),
            },
        }
    }

    /// A bot's answer came back: play it if it is still about the position in play.
    pub(super) async fn bot_answered(&mut self, answer: BotAnswer) {
        let index = usize::from(answer.seat);
        let Some(thinking) = self.bot_seats.thinking.get(index).copied().flatten() else {
            return;
        };
        if thinking.ticket != answer.ticket {
            return; // An answer to a search the table has forgotten.
        }
        if let Some(budget) = thinking.budget {
            let spent = if thinking.timed {
                answer.queued + answer.think
            } else {
                answer.think
            };
            let late = spent > budget + crate::metrics::BOT_DEADLINE_SLACK;
            crate::metrics::bot_answered(self.settings.kind().id(), answer.think, late);
        }
        let fresh = self.stamp() == Some(thinking.stamp);
        if let Some(at) = thinking.not_before.filter(|at| *at > Instant::now())
            && (fresh || thinking.redone)
        {
            // Early: hold the answer until the pace allows it (then play it if legal).
            if let Some(slot) = self.bot_seats.thinking.get_mut(index) {
                *slot = Some(Thinking {
                    redone: true,
                    budget: None,
                    ..thinking
                });
            }
            let reply = self.bot_reply();
            tokio::spawn(async move {
                tokio::time::sleep_until(at).await;
                let _ = reply.send(Box::new(answer));
            });
            return;
        }
        if let Some(slot) = self.bot_seats.thinking.get_mut(index) {
            *slot = None;
        }
        let seat = answer.seat;
        let to_move = self
            .playing()
            .is_ok_and(|current| current.game.active_seats().contains(seat));
        if !to_move || self.seats.bot(seat).is_none() {
            self.wake_bots();
            return;
        }
        if answer.queued > SLOW_QUEUE {
            tracing::warn!(table = %self.id, seat, queued = ?answer.queued, "a bot search waited long for a thread");
        }
        let stale = !fresh;
        if stale && !thinking.redone {
            self.think(seat, true, thinking.not_before);
            return;
        }
        // A move found in a position the bot's watch says to give up is not played.
        let gives_up = matches!(answer.decision, Some(Decision::Play(_))) && self.gives_up(seat, answer.outlook);
        match answer.decision {
            Some(Decision::Play(_)) if gives_up => self.resign_for_bot(seat).await,
            Some(Decision::Resign) => self.resign_for_bot(seat).await,
            Some(Decision::Play(payload)) => self.play_for_bot(seat, &payload, stale).await,
            Some(Decision::Wait) => {
                let stamp = self.stamp();
                if let Some(slot) = self.bot_seats.waiting.get_mut(index) {
                    *slot = stamp;
                }
            }
            None => self.play_random(seat).await,
        }
        self.run_premoves().await;
        self.wake_bots();
    }

    /// Counts a played answer's outlook for `seat`; whether the bot resigns now.
    fn gives_up(&mut self, seat: Seat, outlook: Outlook) -> bool {
        let kind = self.settings.kind();
        let Ok(current) = self.playing() else { return false };
        let moves_played = current.moves.seats().filter(|mover| *mover == seat).count();
        let moves_played = u32::try_from(moves_played).unwrap_or(u32::MAX);
        let team = self.settings.game.team_of(seat);
        let person_on_team = self.seats.iter().any(|(other, holder)| {
            other != seat && self.settings.game.team_of(other) == team && holder.is_some_and(|h| h.bot().is_none())
        });
        let resigns = self.bots.resigns();
        let Some(watch) = self.bot_seats.judgement().watches.get_mut(usize::from(seat)) else {
            return false;
        };
        watch.resigns(kind, outlook, moves_played, person_on_team) && resigns
    }

    /// A bot resigns, as a person does ([`TableActor::resign_seat`]).
    async fn resign_for_bot(&mut self, seat: Seat) {
        if let Err(refusal) = self.resign_seat(seat).await {
            tracing::error!(table = %self.id, seat, message = %refusal.message, "a bot could not resign");
        }
    }

    /// Plays a bot's move; one the rules refuse is thought again (when it was computed
    /// for an older position) or replaced by a random legal move.
    async fn play_for_bot(&mut self, seat: Seat, payload: &Value, stale: bool) {
        match self.apply_move(seat, payload, None).await {
            Ok(()) => {}
            Err(refusal) if refusal.code == ErrorCode::StorageUnavailable => {
                // Nothing changed; think again (the store may be back by then).
                self.think(seat, true, None);
            }
            Err(_) if stale => self.think(seat, true, None),
            Err(refusal) => {
                tracing::error!(table = %self.id, seat, %payload, message = %refusal.message, "a bot chose a move the rules refuse");
                self.play_random(seat).await;
            }
        }
    }

    /// A random legal move for a bot whose search failed.
    async fn play_random(&mut self, seat: Seat) {
        let Ok(current) = self.playing() else { return };
        let moves = current.game.legal_moves_json(seat);
        let Some(payload) = moves.choose(&mut rand::rng()).cloned() else {
            return;
        };
        if let Err(refusal) = self.apply_move(seat, &payload, None).await {
            tracing::error!(table = %self.id, seat, message = %refusal.message, "a bot's fallback move failed");
        }
    }

    /// Whether any search is under way (a table thinking is not idle).
    pub(super) fn bots_thinking(&self) -> bool {
        self.bot_seats.any_thinking()
    }
}

/// A wait for a search thread worth a warning: past it, the pool is overloaded.
const SLOW_QUEUE: Duration = Duration::from_secs(5);
