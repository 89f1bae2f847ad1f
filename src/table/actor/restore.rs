//! Rebuilding a table from Postgres after a restart: settings, seats, and the latest game
//! replayed move by move through the rules, with its clocks.
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

use super::{CurrentGame, TableActor, TableServices};
use crate::bots::Strength;
use crate::games::{EndReason, GameResult, Outcome, Seat};
use crate::protocol::MoveView;
use crate::store::games::ResultRecord;
use crate::store::tables::{GameRow, ResultRow, StoredTable};
use crate::store::{Store, StoreError};
use crate::table::TableHandle;
use crate::table::clock::Clocks;
use crate::table::identity::PlayerKey;
use crate::table::seats::Holder;
use crate::table::settings::TableSettings;

/// Time a correspondence player gets after a restart if their deadline fell during it.
pub const CORRESPONDENCE_RESTART_GRACE: Duration = Duration::from_secs(3_600);

/// A stored table that could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("stored settings no longer read: {0}")]
    Settings(#[from] crate::games::SettingError),
    #[error(transparent)]
    Store(#[from] StoreError),
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
        let mut actor = TableActor::new(&table.id, settings, store, services.limits, services.bots);
        for row in seats {
            let holder = match (
                row.player_key.as_deref().and_then(PlayerKey::from_bytes),
                row.bot.as_deref(),
            ) {
                (Some(key), _) => Holder::Person { key, name: row.name },
                (None, Some(bot)) => match Strength::from_id(bot) {
                    Some(strength) => Holder::Bot { strength },
                    None => continue,
                },
                (None, None) => continue,
            };
            if actor.seats.exists(row.seat) {
                actor.seats.sit(row.seat, holder);
            }
        }
        if let Some(game) = game {
            actor.current = Some(actor.replay(game).await?);
        }
        // Nobody is connected yet: every seated player of a game in play gets a grace.
        actor.sync_presence();
        actor.wake_bots();
        Ok(actor.start(shutdown, tracker))
    }

    /// Replays a stored game through the rules and restores its clocks.
    async fn replay(&self, row: GameRow) -> Result<CurrentGame, StoreError> {
        let mut game = self.settings.game.new_game();
        let mut moves = Vec::with_capacity(row.moves.len());
        let mut replayed = true;
        for mv in &row.moves {
            match game.play_json(mv.seat, &mv.payload) {
                Ok(_) => moves.push(MoveView {
                    ply: mv.ply,
                    seat: mv.seat,
                    payload: mv.payload.clone(),
                }),
                Err(err) => {
                    tracing::error!(table = %self.id, ply = mv.ply, error = %err, "a stored move no longer replays");
                    replayed = false;
                    break;
                }
            }
        }
        match row.result.as_ref().map(outcome_of) {
            Some(outcome) => game.finish(outcome),
            None if !replayed => {
                let aborted = Outcome {
                    result: GameResult::Aborted,
                    reason: EndReason::Aborted,
                    detail: Value::Null,
                };
                let record = ResultRecord {
                    outcome: &aborted,
                    move_count: u32::try_from(moves.len()).unwrap_or(u32::MAX),
                };
                self.store.finish_game(row.id, record).await?;
                game.finish(aborted);
            }
            None => {}
        }
        let clocks = self.restore_clocks(&row, &game);
        Ok(CurrentGame {
            id: row.id,
            number: row.number,
            game,
            moves,
            draw_agreed: Vec::new(),
            clocks,
        })
    }

    fn restore_clocks(&self, row: &GameRow, game: &crate::games::AnyGame) -> Option<Clocks> {
        let control = self.settings.time_control;
        let seat_count = self.seats.count();
        let stored: Vec<Duration> = match row.moves.last().and_then(|mv| mv.clocks_ms.as_ref()) {
            Some(ms) => ms
                .iter()
                .map(|ms| Duration::from_millis(u64::try_from(*ms).unwrap_or(0)))
                .collect(),
            None => vec![control.initial(); seat_count],
        };
        let mut clocks = Clocks::restored(control, &stored)?;
        if game.outcome().is_some() {
            return Some(clocks);
        }
        let now = Instant::now();
        for seat in game.active_seats().iter() {
            let left = match (control.is_correspondence(), row.deadline) {
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
    let reason: EndReason = serde_json::from_value(Value::String(row.reason.clone())).unwrap_or(EndReason::Aborted);
    let winners: Vec<Seat> = row
        .winners
        .iter()
        .filter_map(|seat| Seat::try_from(*seat).ok())
        .collect();
    let result = match row.outcome.as_str() {
        "win" => GameResult::Win { winners },
        "draw" => GameResult::Draw,
        _ => GameResult::Aborted,
    };
    Outcome {
        result,
        reason,
        detail: row.detail.clone().unwrap_or(Value::Null),
    }
}
