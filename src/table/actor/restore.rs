//! Rebuilding a table from Postgres after a restart: settings, seats, the recent chat, and
//! the latest game replayed move by move through the rules, with its clocks.
//!
//! Clocks after a restart: a live clock that was running resumes from the remaining time
//! stored with the last move (the time between that move and the outage is not charged,
//! so nobody loses time to the server). A correspondence clock keeps its stored wall-clock
//! deadline; if that deadline passed while the server was down, the player gets
//! [`CORRESPONDENCE_RESTART_GRACE`] from the restart instead of losing to the outage.
//! A game whose stored moves no longer replay is recorded as aborted, never as a loss.

use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::series::SeriesState;
use super::{CurrentGame, TableActor, TableServices};
use crate::bots::BotChoice;
use crate::games::{EndReason, GameResult, Outcome, Seat};
use crate::identity::PlayerKey;
use crate::protocol::{PlayerView, SeatView};
use crate::series::{Series, SeriesFormat};
use crate::store::games::ResultRecord;
use crate::store::tables::{GameRow, MoveRow, ResultRow, StoredTable};
use crate::store::{Store, StoreError};
use crate::table::TableHandle;
use crate::table::clock::Clocks;
use crate::table::move_list::MoveList;
use crate::table::seats::Holder;
use crate::table::settings::TableSettings;
use uuid::Uuid;

/// Time a correspondence player gets after a restart if their deadline fell during it.
pub const CORRESPONDENCE_RESTART_GRACE: Duration = Duration::from_secs(3_600);

/// A stored table that could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("stored settings no longer read: {0}")]
    Settings(#[from] crate::games::SettingError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An operator closed the table: it is not served again.
    #[error("the table was closed by an operator")]
    Closed,
}

/// What is left of a series' `pause` that began when its game ended at `ended_at` (no
/// more than the pause, should the clocks of the database and this node disagree).
fn pause_left(pause: Duration, ended_at: OffsetDateTime) -> Duration {
    let elapsed = OffsetDateTime::now_utc() - ended_at;
    let elapsed = Duration::try_from(elapsed).unwrap_or(Duration::ZERO);
    pause.saturating_sub(elapsed)
}

impl TableActor {
    /// Rebuilds a stored table and starts its actor.
    pub async fn restore(
        stored: StoredTable,
        store: Store,
        services: TableServices,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> Result<TableHandle, RestoreError> {
        let StoredTable { table, seats, game } = stored;
        let settings = TableSettings::read(&table.game, Some(table.settings))?;
        let mut actor = TableActor::new(&table.id, settings, store, services);
        for row in seats {
            let holder = match (
                row.player_key.as_deref().and_then(PlayerKey::from_bytes),
                row.bot.as_deref(),
            ) {
                (Some(key), _) => Holder::Person { key, name: row.name },
                (None, Some(bot)) => match BotChoice::from_id(bot) {
                    Some(strength) => Holder::Bot { strength },
                    None => continue,
                },
                (None, None) => continue,
            };
            if actor.seats.exists(row.seat) {
                actor.seats.sit(row.seat, holder);
            }
        }
        actor.refresh_ratings().await;
        actor.chat = actor.load_chat().await?;
        if actor.rotation.is_some() {
            actor.rotation = Some(Box::new(actor.load_rotation().await?));
        }
        if let Some(game) = game {
            let ended_at = game.result.as_ref().map(|result| result.ended_at);
            let game_id = game.id;
            let (current, series) = actor.replay(game).await?;
            actor.current = Some(current);
            actor.series = Some(series);
            let finished = actor.current.as_ref().is_some_and(|c| c.game.outcome().is_some());
            // Between games a rotating table shows who played the last one.
            if finished && actor.rotation.is_some() {
                let played = actor.played_seats(game_id).await?;
                if let Some(rotation) = actor.rotation.as_deref_mut() {
                    rotation.set_result_seats(played);
                }
            }
            // A series between two games: its pause runs from the game's stored end, as
            // clocks run from their stored deadline (a restart does not lengthen it).
            // A rotating table plays on by itself once its seats are held.
            let rotating_on = actor.rotation.is_some() && actor.seats.is_full();
            if finished && (!actor.series_decided() || rotating_on) {
                let pause = actor.settings.series_pause;
                let left = ended_at.map_or(pause, |ended_at| pause_left(pause, ended_at));
                actor.interlude.next_game_at = Some(Instant::now() + left);
            }
        }
        // A table the lobby made: its people are awaited before its first game.
        actor.expect_arrivals();
        // Nobody is connected yet: every seated player of a game in play gets a grace.
        actor.sync_presence();
        actor.wake_bots();
        crate::metrics::table_restored(actor.settings.kind().id());
        Ok(actor.start(shutdown, tracker))
    }

    /// The seats of the stored game `game_id` as it was played (a rotating table's
    /// `result_seats` between games): names and bots; nobody is connected yet, and no
    /// rating is shown.
    async fn played_seats(&self, game_id: Uuid) -> Result<Vec<SeatView>, StoreError> {
        let roles = self.settings.game.seat_roles();
        let rows = self.store.game_players(game_id).await?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let seat = Seat::try_from(row.seat).ok()?;
                Some(SeatView {
                    seat,
                    role: roles.get(usize::from(seat)).copied().unwrap_or(""),
                    player: Some(PlayerView {
                        name: row.name,
                        bot: row.bot.as_deref().and_then(BotChoice::from_id),
                        connected: false,
                        away_ms: None,
                        rating: None,
                    }),
                })
            })
            .collect())
    }

    /// A rotating table's queue, standings and games in a row, read back.
    async fn load_rotation(&self) -> Result<super::rotation::RotationState, StoreError> {
        let queue = self
            .store
            .load_queue(&self.id)
            .await?
            .into_iter()
            .filter_map(|row| {
                Some(crate::table::rotation::Waiting {
                    key: PlayerKey::from_bytes(&row.player_key)?,
                    name: row.name,
                })
            })
            .collect();
        let games: Vec<_> = self
            .store
            .person_games(&self.id)
            .await?
            .into_iter()
            .filter_map(|row| {
                use crate::table::rotation::PersonResult;
                let result = match row.result.as_deref() {
                    Some("won") => Some(PersonResult::Won),
                    Some("lost") => Some(PersonResult::Lost),
                    Some("drawn") => Some(PersonResult::Drawn),
                    _ => None,
                };
                Some((
                    u32::try_from(row.number).ok()?,
                    PlayerKey::from_bytes(&row.player_key)?,
                    row.name,
                    result,
                ))
            })
            .collect();
        Ok(super::rotation::RotationState::restored(queue, &games))
    }

    /// Replays a stored game (its records, take-backs included) through the rules and
    /// restores its clocks and its series.
    async fn replay(&self, row: GameRow) -> Result<(CurrentGame, SeriesState), StoreError> {
        // The line the players saw: every move, less those taken back.
        let line: Vec<&MoveRow> = crate::store::records::line_of(&row.moves, |record| record.takeback_to);
        let mut game = self
            .settings
            .game
            .new_game_drawn(crate::games::game_seed(&self.id, row.number));
        let mut moves = MoveList::new(game.kind());
        let mut replayed = true;
        for mv in &line {
            match game.play_json_written(mv.seat, &mv.payload) {
                Ok((_, _, written)) => {
                    let clocks_ms: Option<Vec<u64>> = mv
                        .clocks_ms
                        .as_ref()
                        .map(|ms| ms.iter().map(|ms| u64::try_from(*ms).unwrap_or(0)).collect());
                    moves.push(mv.seat, &written.packed, &written.text, clocks_ms.as_deref());
                }
                Err(err) => {
                    tracing::error!(table = %self.id, ply = mv.ply, error = %err, "a stored move no longer replays");
                    replayed = false;
                    break;
                }
            }
        }
        let series = self.restored_series(&row);
        match row.result.as_ref().map(outcome_of) {
            Some(outcome) => game.finish(outcome),
            None if !replayed => {
                let aborted = Outcome {
                    result: GameResult::Aborted,
                    reason: EndReason::Aborted,
                    detail: Value::Null,
                };
                // Aborted counts for nothing in a series: the standings stay as stored.
                let record = ResultRecord {
                    outcome: &aborted,
                    move_count: u32::try_from(moves.len()).unwrap_or(u32::MAX),
                    series: None,
                    rating: None,
                    rotation: None,
                };
                self.store.finish_game(row.id, record).await?;
                game.finish(aborted);
            }
            None => {}
        }
        if game.outcome().is_some() {
            moves.shrink_to_fit();
        }
        let clocks = self.clocks_after(moves.last_clocks().as_deref(), &game, row.deadline);
        let current = CurrentGame {
            id: row.id,
            number: row.number,
            sides: row.sides.clone(),
            game,
            moves,
            records: row.moves.last().map_or(0, |record| record.ply),
            new_game_agreed: Vec::new(),
            undo_agreed: Vec::new(),
            draw_agreed: Vec::new(),
            clocks,
        };
        Ok((current, series))
    }

    /// The series of a stored game (one stored before series existed becomes a single
    /// game of its own).
    fn restored_series(&self, row: &GameRow) -> SeriesState {
        match &row.series {
            Some(stored) => {
                let mut series = Series {
                    format: SeriesFormat::from_id(&stored.format).unwrap_or(SeriesFormat::Single),
                    standings: stored.standings,
                    games_started: row.series_game,
                    ended_early: false,
                };
                // Stored as decided though its games do not decide it: it ended early.
                series.ended_early = stored.decided && !series.is_decided();
                SeriesState {
                    id: stored.id,
                    number: stored.number,
                    series,
                    names: stored.names.clone(),
                }
            }
            None => SeriesState {
                id: Uuid::new_v4(),
                number: 0,
                series: Series {
                    games_started: 1,
                    ..Series::new(SeriesFormat::Single)
                },
                names: [0u8, 1].map(|side| {
                    self.seats
                        .iter()
                        .filter(|(seat, _)| row.sides.get(usize::from(*seat)) == Some(&side))
                        .filter_map(|(_, holder)| holder.map(Holder::name))
                        .collect::<Vec<_>>()
                        .join(" & ")
                }),
            },
        }
    }

    /// The clocks of `game` as they were after a move that left them at `after` (every
    /// seat's time; `None`: nobody has moved), running for the seats to move now. A
    /// correspondence clock keeps its stored wall-clock `deadline`.
    pub(super) fn clocks_after(
        &self,
        after: Option<&[u64]>,
        game: &crate::games::AnyGame,
        deadline: Option<OffsetDateTime>,
    ) -> Option<Clocks> {
        let control = self.settings.time_control;
        let seat_count = self.seats.count();
        let stored: Vec<Duration> = match after {
            Some(ms) => ms.iter().map(|ms| Duration::from_millis(*ms)).collect(),
            None => vec![control.initial(); seat_count],
        };
        let mut clocks = Clocks::restored(control, &stored)?;
        if game.outcome().is_some() {
            return Some(clocks);
        }
        let now = Instant::now();
        for seat in game.active_seats().iter() {
            let left = match (control.is_correspondence(), deadline) {
                (true, Some(deadline)) => match until(deadline) {
                    // The deadline fell while the server was down: nobody loses to an outage.
                    left if left.is_zero() => CORRESPONDENCE_RESTART_GRACE.min(control.initial()),
                    left => left,
                },
                _ => stored
                    .get(usize::from(seat))
                    .copied()
                    .unwrap_or_else(|| control.initial()),
            };
            clocks.resume(seat, left, now);
        }
        Some(clocks)
    }
}

/// Time from now until a wall-clock instant (zero if it has passed).
fn until(deadline: OffsetDateTime) -> Duration {
    let left = deadline - OffsetDateTime::now_utc();
    Duration::try_from(left).unwrap_or(Duration::ZERO)
}

/// A stored result as the rules know it.
fn outcome_of(row: &ResultRow) -> Outcome {
    let winners: Vec<Seat> = row
        .winners
        .iter()
        .filter_map(|seat| Seat::try_from(*seat).ok())
        .collect();
    Outcome::from_stored(
        &row.outcome,
        &winners,
        &row.reason,
        row.detail.clone().unwrap_or(Value::Null),
    )
}
