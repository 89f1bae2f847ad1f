//! A rotating table in the actor (`table::rotation` decides; this stores and announces):
//! the queue (join, leave, who is here), the rotation after each game, the call of the
//! next game (a seated person who is away gets [`CALL_GRACE`] once, then steps out for
//! someone waiting), each person's standings, and games in a row (for `rotate`).
//!
//! The queue is stored (`table_queue`, migration 0020) and a rotation stores the new
//! seats with the queue in one transaction, before anyone is told; the rotation after a
//! game is decided before the game's result is stored, and stored in its transaction (a
//! kill between the two would otherwise seat the same players again after a restart).
//! Standings, games in a row and the seats that played the last game are not stored
//! apart: a restarted table reads them again from its games.

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use super::seating::StartPlan;
use super::{Refusal, TIMER_RETRY, TableActor};
use crate::games::{GameResult, Outcome, Seat};
use crate::identity::PlayerKey;
use crate::protocol::{ErrorCode, PersonStandingView, RotationView, SeatView, ServerMsg, WaitingView};
use crate::store::StoreError;
use crate::store::queue::{QueueRow, RotatedSeat, RotationRecord};
use crate::table::msg::ConnId;
use crate::table::rotation::{self, After, PersonResult, Plan, QUEUE_MAX, Standings, Waiting};

/// How long the next game waits, once, for a seated person who is away when it is called
/// (a page reloading comes back in a second or two) before someone waiting takes the seat.
pub const CALL_GRACE: Duration = Duration::from_secs(10);

/// How long a rotating table's next game waits when games started too fast (one may
/// start every 10 s once the burst is spent: `limits.game_starts_per_minute`).
const PACE_WAIT: Duration = Duration::from_secs(10);

/// A rotating table's own state (boxed in the actor: most tables do not rotate).
#[derive(Debug, Default)]
pub(super) struct RotationState {
    /// The people waiting, first first.
    queue: Vec<Waiting>,
    /// Since when each waiting person has had no connection here.
    away_since: HashMap<PlayerKey, Instant>,
    /// Whether each waiting person was last announced connected (in queue order).
    announced: Vec<bool>,
    standings: Standings,
    /// Games in a row each seated person has played.
    streaks: HashMap<PlayerKey, u32>,
    /// The next game's call already waited for its absent players.
    call_waited: bool,
    /// The seats as they were when the last game ended, until the next game starts: its
    /// result names seats, and a page loaded after people stepped out and came in tells
    /// it with the names of those who played it (after a restart, read from the game).
    result_seats: Option<Vec<SeatView>>,
}

impl RotationState {
    /// The state of a table read back from the store: its queue, and its games (number,
    /// key, name, result) for standings and games in a row.
    pub(super) fn restored(queue: Vec<Waiting>, games: &[(u32, PlayerKey, String, Option<PersonResult>)]) -> Self {
        let mut standings = Standings::default();
        for (_, key, name, result) in games {
            if let Some(result) = result {
                standings.record(*key, name, *result);
            }
        }
        // Games in a row: counted back from the latest game while the person played.
        let latest = games.iter().map(|(number, ..)| *number).max().unwrap_or(0);
        let mut streaks: HashMap<PlayerKey, u32> = HashMap::new();
        for number in (1..=latest).rev() {
            let players: Vec<PlayerKey> = games
                .iter()
                .filter(|(n, ..)| *n == number)
                .map(|(_, key, ..)| *key)
                .collect();
            for key in &players {
                let streak = streaks.entry(*key).or_default();
                if *streak == latest - number {
                    *streak += 1;
                }
            }
        }
        RotationState {
            announced: vec![false; queue.len()],
            queue,
            standings,
            streaks,
            ..RotationState::default()
        }
    }

    /// The seats as the last game ended (a restarted table reads them from the game).
    pub(super) fn set_result_seats(&mut self, seats: Vec<SeatView>) {
        self.result_seats = Some(seats);
    }
}

impl TableActor {
    /// The queue as everyone sees it.
    fn queue_view(&self) -> Vec<WaitingView> {
        let Some(rotation) = self.rotation.as_deref() else {
            return Vec::new();
        };
        rotation
            .queue
            .iter()
            .map(|waiting| WaitingView {
                name: waiting.name.clone(),
                connected: self.is_connected(&waiting.key),
            })
            .collect()
    }

    fn standings_view(&self) -> Vec<PersonStandingView> {
        let Some(rotation) = self.rotation.as_deref() else {
            return Vec::new();
        };
        rotation
            .standings
            .ranked()
            .into_iter()
            .map(|person| PersonStandingView {
                name: person.name.clone(),
                played: person.played,
                won: person.won,
                drawn: person.drawn,
                lost: person.lost,
                points: person.points(),
            })
            .collect()
    }

    /// The queue and standings of a rotating table, for snapshots.
    pub(super) fn rotation_view(&self) -> Option<RotationView> {
        self.rotation.as_ref()?;
        Some(RotationView {
            mode: self.settings.rotation.id(),
            partners: self.settings.partners.id(),
            queue: self.queue_view(),
            standings: self.standings_view(),
            result_seats: self.rotation.as_deref().and_then(|r| r.result_seats.clone()),
        })
    }

    /// A person's place in the queue (1 first), if they wait.
    pub(super) fn queue_place(&self, key: &PlayerKey) -> Option<usize> {
        let rotation = self.rotation.as_deref()?;
        rotation
            .queue
            .iter()
            .position(|waiting| waiting.key == *key)
            .map(|index| index + 1)
    }

    /// The name of a person waiting, if they wait.
    pub(super) fn waiting_name(&self, key: &PlayerKey) -> Option<String> {
        let rotation = self.rotation.as_deref()?;
        rotation.queue.iter().find(|w| w.key == *key).map(|w| w.name.clone())
    }

    /// How many people wait, at a rotating table (`None` at any other).
    pub(super) fn queue_length(&self) -> Option<usize> {
        self.rotation.as_deref().map(|rotation| rotation.queue.len())
    }

    /// The names of the people waiting (names are told apart from the seated ones).
    pub(super) fn queued_names(&self) -> Vec<String> {
        self.rotation.as_deref().map_or_else(Vec::new, |rotation| {
            rotation.queue.iter().map(|w| w.name.clone()).collect()
        })
    }

    pub(super) async fn join_queue(&mut self, conn: ConnId, name: Option<String>) -> Result<(), Refusal> {
        if self.rotation.is_none() {
            return Err(Refusal::new(
                ErrorCode::NoQueue,
                "This table has no queue: the same players play on. Watch, or take a seat when one is free.",
            ));
        }
        self.unless_barred(conn).await?;
        let key = self.player(conn);
        if !self.seats.held_by(&key).is_empty() {
            return Err(Refusal::new(
                ErrorCode::AlreadySeated,
                "You hold a seat here: you play the next game.",
            ));
        }
        if self.queue_place(&key).is_some() {
            return Err(Refusal::new(ErrorCode::AlreadyQueued, "You are in the queue already."));
        }
        if !self.seats.is_full() {
            return Err(Refusal::new(ErrorCode::SeatFree, "A seat is free: take it."));
        }
        let waiting = self.rotation.as_deref().map_or(0, |rotation| rotation.queue.len());
        if waiting >= QUEUE_MAX {
            return Err(Refusal::new(
                ErrorCode::QueueFull,
                format!("The queue holds {QUEUE_MAX} people, as many as it may."),
            ));
        }
        let name = self
            .clean_name(name)?
            .unwrap_or_else(|| format!("Player {}", self.seats.count() + waiting + 1));
        let name = self.distinct_name(name, None);
        self.store
            .join_queue(&self.id, key.as_bytes(), &name)
            .await
            .map_err(Refusal::storage)?;
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.queue.push(Waiting { key, name });
            rotation.announced.push(true);
            rotation.away_since.remove(&key);
        }
        self.announce_queue();
        self.welcome_player(&key);
        // One spectator fewer.
        self.sync_presence();
        // Someone waits: a bot's seat is theirs from the next game; between games at
        // once.
        self.seat_waiting_between_games().await;
        Ok(())
    }

    pub(super) async fn leave_queue(&mut self, conn: ConnId) -> Result<(), Refusal> {
        let key = self.conns.get(&conn).and_then(|c| c.key);
        let Some(key) = key.filter(|key| self.queue_place(key).is_some()) else {
            return Err(Refusal::new(ErrorCode::NotQueued, "You are not in the queue."));
        };
        self.store
            .leave_queue(&self.id, key.as_bytes())
            .await
            .map_err(Refusal::storage)?;
        if let Some(rotation) = self.rotation.as_deref_mut()
            && let Some(index) = rotation.queue.iter().position(|w| w.key == key)
        {
            rotation.queue.remove(index);
            rotation.announced.remove(index);
            rotation.away_since.remove(&key);
        }
        self.announce_queue();
        self.welcome_waiting();
        self.welcome_player(&key);
        self.sync_presence();
        Ok(())
    }

    /// Announces the queue as it is now.
    fn announce_queue(&mut self) {
        let queue = self.queue_view();
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.announced = queue.iter().map(|w| w.connected).collect();
        }
        self.event(|version| ServerMsg::Queue { version, queue });
    }

    /// Keeps track of waiting people coming and going (called with every presence
    /// change): since when each is away, and the queue announced when that changed.
    pub(super) fn sync_queue_presence(&mut self) {
        let Some(rotation) = self.rotation.as_deref() else {
            return;
        };
        let now = Instant::now();
        let here: Vec<bool> = rotation.queue.iter().map(|w| self.is_connected(&w.key)).collect();
        let changed = here != rotation.announced;
        if let Some(rotation) = self.rotation.as_deref_mut() {
            for (waiting, here) in rotation.queue.iter().zip(&here) {
                if *here {
                    rotation.away_since.remove(&waiting.key);
                } else {
                    rotation.away_since.entry(waiting.key).or_insert(now);
                }
            }
        }
        if changed {
            self.announce_queue();
        }
    }

    /// Re-sends `welcome` (with the queue place) to one person's connections.
    fn welcome_player(&mut self, key: &PlayerKey) {
        let conns: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, conn)| conn.key.as_ref() == Some(key) && conn.token.is_some())
            .map(|(id, _)| *id)
            .collect();
        for conn in conns {
            self.send_welcome(conn);
        }
    }

    /// Re-sends `welcome` to every waiting person (their places changed).
    fn welcome_waiting(&mut self) {
        let keys: Vec<PlayerKey> = self
            .rotation
            .as_deref()
            .map_or_else(Vec::new, |rotation| rotation.queue.iter().map(|w| w.key).collect());
        for key in keys {
            self.welcome_player(&key);
        }
    }

    /// The next seating at a rotating table whose game ends with `outcome` (`decides`:
    /// the game ends the table's series, as every single game does): stored with the
    /// game's result and applied by [`Self::rotate_after_game`] once it is announced.
    /// `None` when the table does not rotate or nobody steps out.
    pub(super) fn rotation_at_end(&self, outcome: &Outcome, decides: bool) -> Option<Plan> {
        if self.rotation.is_none() || !decides {
            return None;
        }
        let winners = match &outcome.result {
            GameResult::Win { winners } => Some(winners.as_slice()),
            GameResult::Draw | GameResult::Aborted => None,
        };
        let counted = !matches!(outcome.result, GameResult::Aborted);
        self.plan(winners, counted, false)
    }

    /// A game ended at a rotating table (its result stored with `plan`, the next seating
    /// [`Self::rotation_at_end`] decided): each person's result is counted, and the next
    /// seating is applied and announced; when every seat is held, the next game starts
    /// after the pause.
    pub(super) fn rotate_after_game(&mut self, plan: Option<Box<Plan>>) {
        let outcome = self
            .current
            .as_ref()
            .and_then(|current| current.game.outcome().cloned());
        let Some(outcome) = outcome else { return };
        if !matches!(outcome.result, GameResult::Aborted) {
            let results: Vec<(PlayerKey, String, PersonResult)> = self
                .seats
                .iter()
                .filter_map(|(seat, holder)| {
                    let holder = holder?;
                    let result = match &outcome.result {
                        GameResult::Win { winners } if winners.contains(&seat) => PersonResult::Won,
                        GameResult::Win { .. } => PersonResult::Lost,
                        GameResult::Draw | GameResult::Aborted => PersonResult::Drawn,
                    };
                    Some((holder.key()?, holder.name(), result))
                })
                .collect();
            if let Some(rotation) = self.rotation.as_deref_mut() {
                for (key, name, result) in results {
                    rotation.standings.record(key, &name, result);
                }
            }
        }
        let played = self.seat_views();
        if let Some(plan) = plan {
            self.seat_plan(*plan);
        }
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.result_seats = Some(played);
        }
        if self.seats.is_full() {
            self.start_pause();
        }
    }

    /// The next seating by the table's rule (`by_rule`: after a game with a result;
    /// otherwise only bots step out, and the away when `away_step_out`).
    fn plan(&self, winners: Option<&[Seat]>, by_rule: bool, away_step_out: bool) -> Option<Plan> {
        let rotation = self.rotation.as_deref()?;
        let grace = self.settings.grace;
        let now = Instant::now();
        let streak = |key: &PlayerKey| rotation.streaks.get(key).copied().unwrap_or(0);
        let present = |key: &PlayerKey| self.is_connected(key);
        let gone = |key: &PlayerKey| {
            rotation
                .away_since
                .get(key)
                .is_some_and(|since| now.saturating_duration_since(*since) >= grace)
        };
        let plan = rotation::next_seating(&After {
            rule: self.settings.rotation,
            partners: self.settings.partners,
            seats: &self.seats,
            winners,
            by_rule,
            away_step_out,
            streak: &streak,
            present: &present,
            gone: &gone,
            queue: &rotation.queue,
        });
        (!plan.is_empty()).then_some(plan)
    }

    /// Stores a rotation's seats and queue, then applies and announces them.
    async fn apply_plan(&mut self, plan: Option<Plan>) -> Result<(), StoreError> {
        let Some(plan) = plan else { return Ok(()) };
        self.store.store_rotation(&self.rotation_record(&plan)).await?;
        self.seat_plan(plan);
        Ok(())
    }

    /// A rotation as the store keeps it: the planned seats and queue.
    pub(super) fn rotation_record(&self, plan: &Plan) -> RotationRecord {
        let seats = plan
            .seats
            .iter()
            .filter_map(|(seat, holder)| {
                let holder = holder?;
                Some(RotatedSeat {
                    seat,
                    player_key: holder.key().map(|key| key.as_bytes().to_vec()),
                    name: holder.name(),
                    bot: holder.bot().map(|bot| bot.id().into_owned()),
                })
            })
            .collect();
        let queue = plan
            .queue
            .iter()
            .map(|waiting| QueueRow {
                player_key: waiting.key.as_bytes().to_vec(),
                name: waiting.name.clone(),
            })
            .collect();
        RotationRecord {
            table_id: self.id.clone(),
            seats,
            queue,
        }
    }

    /// Applies a stored rotation's seats and queue, and announces them.
    fn seat_plan(&mut self, plan: Plan) {
        let Plan {
            seats,
            queue,
            stepped_out,
            came_in,
            ..
        } = plan;
        self.seats = seats;
        let present: Vec<bool> = queue.iter().map(|w| self.is_connected(&w.key)).collect();
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.queue = queue;
            rotation.announced = present;
            let seated: Vec<PlayerKey> = self.seats.iter().filter_map(|(_, h)| h?.key()).collect();
            rotation.streaks.retain(|key, _| seated.contains(key));
            rotation.away_since.retain(|key, _| !seated.contains(key));
        }
        // A rematch needs the same players; readiness was for the old seating.
        self.interlude.rematch.clear();
        self.interlude.ready.clear();
        let seat_views = self.seat_views();
        self.announced_presence = seat_views
            .iter()
            .map(|view| view.player.as_ref().is_some_and(|p| p.connected))
            .collect();
        let queue = self.queue_view();
        let standings = self.standings_view();
        self.event(|version| ServerMsg::Rotated {
            version,
            seats: seat_views,
            stepped_out,
            came_in,
            queue,
            standings,
        });
        // Everyone's seats or places may have changed.
        self.welcome_everyone();
        self.sync_presence();
    }

    /// Between games (no game in play), the people waiting take free seats and the
    /// computer's; with every seat then held, the next game starts after the pause.
    pub(super) async fn seat_waiting_between_games(&mut self) {
        if self.rotation.is_none() || self.playing().is_ok() || self.current.is_none() {
            return;
        }
        let plan = self.plan(None, false, false);
        if plan.is_none() {
            return;
        }
        if let Err(err) = self.apply_plan(plan).await {
            tracing::error!(table = %self.id, error = %err, "could not seat the people waiting");
            return;
        }
        if self.seats.is_full() && self.interlude.next_game_at.is_none() {
            self.start_pause();
        }
    }

    /// The pause before a rotating table's next game ended: a seated person who is away
    /// is waited for once ([`CALL_GRACE`]), then steps out for someone waiting; the game
    /// starts if a seated person is here.
    pub(super) async fn rotation_pause_over(&mut self) {
        if !self.seats.is_full() {
            return;
        }
        let someone_away = self
            .seats
            .iter()
            .filter_map(|(_, holder)| holder?.key())
            .any(|key| !self.is_connected(&key));
        let someone_waits = self
            .rotation
            .as_deref()
            .is_some_and(|rotation| rotation.queue.iter().any(|w| self.is_connected(&w.key)));
        let waited = self.rotation.as_deref().is_some_and(|rotation| rotation.call_waited);
        if someone_away && someone_waits && !waited {
            if let Some(rotation) = self.rotation.as_deref_mut() {
                rotation.call_waited = true;
            }
            self.pause_for(CALL_GRACE);
            return;
        }
        self.start_rotated_game().await;
    }

    /// Starts a rotating table's next game with whoever is seated, after the away have
    /// stepped out for people waiting; not when no seated person is here (the table
    /// rests until someone sits down or asks for a rematch).
    pub(super) async fn start_rotated_game(&mut self) {
        let plan = self.plan(None, false, true);
        if let Err(err) = self.apply_plan(plan).await {
            tracing::error!(table = %self.id, error = %err, "could not seat the people waiting");
            self.interlude.next_game_at = Some(Instant::now() + TIMER_RETRY);
            return;
        }
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.call_waited = false;
        }
        self.interlude.next_game_at = None;
        if !self.seats.is_full() || self.no_player_here() {
            return;
        }
        if let Err(refusal) = self.check_game_start() {
            // Games came too fast (someone resigning every game at once): the next one
            // starts when the table's pace allows, announced. A table that holds all its
            // games rests.
            tracing::info!(table = %self.id, reason = %refusal.message, "a rotating table's next game waits");
            if refusal.code == ErrorCode::TooManyGames {
                self.pause_for(PACE_WAIT);
            }
            return;
        }
        match self
            .store_start(self.seats.clone(), StartPlan::NewSeries { shuffle: false })
            .await
        {
            Ok(start) => {
                self.retry_at = None;
                self.begin_game(start);
                self.sync_presence();
            }
            Err(err) => {
                tracing::error!(table = %self.id, error = %err, "could not start a rotating table's next game");
                self.interlude.next_game_at = Some(Instant::now() + TIMER_RETRY);
            }
        }
    }

    /// A game started: every seated person has played one more game in a row.
    pub(super) fn count_games_in_a_row(&mut self) {
        let seated: Vec<PlayerKey> = self.seats.iter().filter_map(|(_, h)| h?.key()).collect();
        if let Some(rotation) = self.rotation.as_deref_mut() {
            rotation.result_seats = None;
            rotation.streaks.retain(|key, _| seated.contains(key));
            for key in seated {
                *rotation.streaks.entry(key).or_default() += 1;
            }
        }
    }
}
