//! Queries on games, their moves and their results.

use base64::Engine;
use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use super::leases::LeaseFields;
use super::queue::RotationRecord;
use super::writer::{Parts, QueuedMove, Write};
use super::{Store, StoreError};
use crate::games::Outcome;
use crate::ratings::{GameRating, RatedGame};
use crate::series::{SeriesFormat, SeriesResult, Standing};

/// One player of a game, as recorded when the game starts.
#[derive(Debug, Clone)]
pub struct PlayerRecord {
    pub seat: u8,
    pub role: String,
    /// A person's key; `None` for a bot.
    pub player_key: Option<Vec<u8>>,
    pub name: String,
    /// A bot's strength (`"hard"`); `None` for a person.
    pub bot: Option<std::borrow::Cow<'static, str>>,
    /// The player's side in the series (0 or 1).
    pub side: u8,
}

/// The series a game belongs to, and whether the game starts it.
#[derive(Debug, Clone)]
pub struct SeriesLink<'a> {
    pub id: Uuid,
    /// The game's number in the series, from 1.
    pub game: u32,
    pub rated: bool,
    /// Set when this game starts the series: the row to create.
    pub new: Option<NewSeries<'a>>,
}

/// A series to create with its first game.
#[derive(Debug, Clone)]
pub struct NewSeries<'a> {
    /// 1 for the table's first series.
    pub number: u32,
    pub format: SeriesFormat,
    /// Each side's names, e.g. `Anna` or `Anna & Bo`.
    pub sides: [&'a str; 2],
}

/// A series' standings after a game, stored with the game's result.
#[derive(Debug, Clone, Copy)]
pub struct SeriesRecord {
    pub id: Uuid,
    pub standings: [Standing; 2],
    /// Set once the series is decided.
    pub result: Option<SeriesResult>,
}

/// A move to store: its number in the game (from 1), who played it and what it was.
#[derive(Debug, Clone)]
pub struct MoveRecord<'a> {
    pub ply: u32,
    pub seat: u8,
    /// The move as JSON text.
    pub payload: &'a serde_json::value::RawValue,
    /// Every seat's remaining time after the move, in milliseconds (timed games).
    pub clocks_ms: Option<&'a [u64]>,
    /// When the clock that now runs will run out (timed games in progress).
    pub deadline: Option<OffsetDateTime>,
}

/// A finished game's result, to store with (or without) its last move.
#[derive(Debug, Clone)]
pub struct ResultRecord<'a> {
    pub outcome: &'a Outcome,
    pub move_count: u32,
    /// The series' standings with this game counted.
    pub series: Option<SeriesRecord>,
    /// At a rated table: who held each seat, to rate the game with its result.
    pub rating: Option<&'a RatedGame>,
    /// At a rotating table: the next game's seating and queue, stored with the result
    /// so that no restart finds the one without the other.
    pub rotation: Option<&'a RotationRecord>,
}

impl Store {
    /// Records the start of game `number` at a table with its players, and the seating
    /// the game starts with (the table may have drawn seats by lot); with the series it
    /// belongs to, created here when the game starts it.
    pub async fn start_game(
        &self,
        game_id: Uuid,
        table_id: &str,
        number: u32,
        players: &[PlayerRecord],
        deadline: Option<OffsetDateTime>,
        series: &SeriesLink<'_>,
    ) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("start_game");
        // Stored with the other tables' writes of its batch (group commit, migration 0013):
        // the series and its sides when the game starts one, the table's seats as the game
        // starts with them, the game and its players; a lost lease fails it.
        let start = StartJson {
            game_id,
            table_id,
            number: count(number),
            deadline: deadline.map(timestamp_text).transpose()?,
            series_id: series.id,
            series_game: count(series.game),
            rated: series.rated,
            series_number: series.new.as_ref().map(|new| count(new.number)),
            series_format: series.new.as_ref().map(|new| new.format.id()),
            series_sides: series.new.as_ref().map(|new| {
                new.sides
                    .iter()
                    .zip(0i16..)
                    .map(|(players, side)| SideJson { side, players })
                    .collect()
            }),
            players: players
                .iter()
                .map(|p| PlayerJson {
                    seat: i16::from(p.seat),
                    role: &p.role,
                    key: p.player_key.as_deref().map(key_text),
                    name: &p.name,
                    bot: p.bot.as_deref(),
                    side: i16::from(p.side),
                })
                .collect(),
            lease: self.lease_fields(),
        };
        self.write_batched(Write::Start, &start).await
    }

    /// Stores a move and, if it ended the game, the result (and the players' new ratings
    /// at a rated table, which it returns, or why there are none), in one transaction.
    pub async fn append_move(
        &self,
        game_id: Uuid,
        mv: MoveRecord<'_>,
        result: Option<ResultRecord<'_>>,
    ) -> Result<GameRating, StoreError> {
        let Some(result) = result else {
            // Most moves: stored together with other tables' moves (group commit).
            let queued = QueuedMove {
                game_id,
                ply: count(mv.ply),
                seat: i16::from(mv.seat),
                payload: mv.payload.get().to_owned(),
                clocks_ms: mv.clocks_ms.map(super::writer::int_array_literal),
                deadline: mv.deadline,
                lease: self.lease.clone(),
            };
            self.writer.write(self.pool(), Write::Move(queued)).await?;
            return Ok(GameRating::default());
        };
        // The last move of a game goes with the game's end, in one statement; a rated
        // game's new ratings follow in the same transaction.
        let _timer = crate::metrics::DbWrite::start("append_move");
        self.end_game(game_id, Some(&mv), &result).await
    }

    /// Stores a take-back: record number `ply` of the game says that the line goes back to
    /// its first `keep` moves.
    pub async fn append_takeback(
        &self,
        game_id: Uuid,
        ply: u32,
        seat: u8,
        keep: u32,
        deadline: Option<OffsetDateTime>,
    ) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("append_takeback");
        let (lease_table, lease_node, lease_epoch) = self.lease_args();
        sqlx::query(
            "WITH taken AS (
                 INSERT INTO moves (game_id, ply, seat, payload, takeback_to)
                 SELECT $1, $2, $3, jsonb_build_object('takeback', $4::integer), $4
                  WHERE spelbord_hold_lease($6, $7, $8) AND spelbord_check_games(ARRAY[$1::uuid])
             )
             UPDATE games SET deadline = $5 WHERE id = $1",
        )
        .bind(game_id)
        .bind(count(ply))
        .bind(i16::from(seat))
        .bind(count(keep))
        .bind(deadline)
        .bind(lease_table)
        .bind(lease_node)
        .bind(lease_epoch)
        .execute(self.pool())
        .await
        .map_err(|err| self.write_error(err))?;
        Ok(())
    }

    /// Stores the result of a game that ended without a move (resignation, agreement, ...),
    /// with the players' new ratings at a rated table (returned, or why there are none).
    pub async fn finish_game(&self, game_id: Uuid, result: ResultRecord<'_>) -> Result<GameRating, StoreError> {
        let _timer = crate::metrics::DbWrite::start("finish_game");
        self.end_game(game_id, None, &result).await
    }

    /// Stores a game's end: with the other tables' writes of its batch (group commit), or
    /// at a rated or rotating table in a transaction of its own with the players' new
    /// ratings (returned, or why there are none: `store::ratings::rate_game`) and the
    /// next game's seating.
    async fn end_game(
        &self,
        game_id: Uuid,
        last_move: Option<&MoveRecord<'_>>,
        result: &ResultRecord<'_>,
    ) -> Result<GameRating, StoreError> {
        let end = self.end_record(game_id, last_move, result);
        if result.rating.is_none() && result.rotation.is_none() {
            self.write_batched(Write::End, &end).await?;
            return Ok(GameRating::default());
        }
        // Boxed: its transaction's futures are kilobytes, and every table command that
        // can end a game (a move, a resignation, a flag) would otherwise carry them, and
        // copy them onto the heap, whether or not its table is rated.
        Box::pin(self.end_game_with(game_id, &end, result)).await
    }

    /// A game's end in a transaction of its own, with a rated game's new ratings
    /// (returned; none, and why, beyond the bound per pair of players) and a rotating
    /// table's next seating.
    async fn end_game_with(
        &self,
        game_id: Uuid,
        end: &EndJson<'_>,
        result: &ResultRecord<'_>,
    ) -> Result<GameRating, StoreError> {
        let json = serde_json::to_string(end)?;
        let mut tx = self.pool().begin().await?;
        super::writer::store_batch(&mut *tx, &Parts::end(&json))
            .await
            .map_err(|err| self.write_error(err))?;
        let rating = match result.rating {
            Some(game) => super::ratings::rate_game(&mut tx, game_id, game, result.outcome).await?,
            None => GameRating::default(),
        };
        if let Some(rotation) = result.rotation {
            super::queue::write_rotation(&mut tx, rotation)
                .await
                .map_err(|err| self.write_error(err))?;
        }
        tx.commit().await?;
        Ok(rating)
    }

    /// A game's end as one object of the batch function's `ends` (migration 0013): the
    /// lease to check, the last move when a move ended the game, its result, and its
    /// series' standings with the series' result once decided.
    fn end_record<'a>(
        &'a self,
        game_id: Uuid,
        last_move: Option<&'a MoveRecord<'a>>,
        result: &'a ResultRecord<'a>,
    ) -> EndJson<'a> {
        let winners: Vec<u64> = result.outcome.winners().iter().map(|seat| u64::from(*seat)).collect();
        let series = result.series.as_ref();
        let (series_result, series_winner) = match series.and_then(|series| series.result) {
            Some(SeriesResult::Won { side }) => (Some("win"), Some(i16::from(side))),
            Some(SeriesResult::Tie) => (Some("tie"), None),
            None => (None, None),
        };
        EndJson {
            game_id,
            ply: last_move.map(|mv| count(mv.ply)),
            seat: last_move.map(|mv| i16::from(mv.seat)),
            payload: last_move.map(|mv| mv.payload),
            clocks: last_move
                .and_then(|mv| mv.clocks_ms)
                .map(super::writer::int_array_literal),
            outcome: result.outcome.kind(),
            winners: super::writer::int_array_literal(&winners),
            reason: result.outcome.reason.as_str(),
            detail: (!result.outcome.detail.is_null()).then_some(&result.outcome.detail),
            move_count: count(result.move_count),
            series_id: series.map(|series| series.id),
            standings: series.map(|series| {
                series
                    .standings
                    .iter()
                    .zip(0i16..)
                    .map(|(standing, side)| StandingJson {
                        side,
                        wins: count(standing.wins),
                        draws: count(standing.draws),
                        losses: count(standing.losses),
                        points: count(standing.points()),
                    })
                    .collect()
            }),
            series_result,
            series_winner,
            lease: self.lease_fields(),
        }
    }
}

/// A game's start, as `spelbord_store_batch` reads it (migration 0013).
#[derive(Serialize)]
struct StartJson<'a> {
    game_id: Uuid,
    table_id: &'a str,
    number: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    deadline: Option<String>,
    series_id: Uuid,
    series_game: i32,
    rated: bool,
    /// Set when the game starts its series: the series' number, format and sides.
    #[serde(skip_serializing_if = "Option::is_none")]
    series_number: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    series_format: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    series_sides: Option<Vec<SideJson<'a>>>,
    players: Vec<PlayerJson<'a>>,
    #[serde(flatten)]
    lease: LeaseFields<'a>,
}

#[derive(Serialize)]
struct SideJson<'a> {
    side: i16,
    players: &'a str,
}

#[derive(Serialize)]
struct PlayerJson<'a> {
    seat: i16,
    role: &'a str,
    /// A person's key in base64; absent for a bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bot: Option<&'a str>,
    side: i16,
}

/// A game's end, as `spelbord_store_batch` reads it (migration 0013).
#[derive(Serialize)]
struct EndJson<'a> {
    game_id: Uuid,
    /// The move that ended the game, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seat: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<&'a serde_json::value::RawValue>,
    /// Every seat's clock after that move, as a Postgres array literal.
    #[serde(skip_serializing_if = "Option::is_none")]
    clocks: Option<String>,
    outcome: &'a str,
    /// The winning seats as a Postgres array literal (`{0}`, `{}` for a draw).
    winners: String,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a serde_json::Value>,
    move_count: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    series_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    standings: Option<Vec<StandingJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    series_result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    series_winner: Option<i16>,
    #[serde(flatten)]
    lease: LeaseFields<'a>,
}

#[derive(Serialize)]
struct StandingJson {
    side: i16,
    wins: i32,
    draws: i32,
    losses: i32,
    points: i32,
}

/// A player's key as base64 text (Postgres `decode(…, 'base64')` reads it back).
pub(super) fn key_text(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A time as RFC 3339 text to the microsecond (what Postgres keeps), so that the database
/// reads back exactly the time a bound parameter would have given it.
fn timestamp_text(at: OffsetDateTime) -> Result<String, StoreError> {
    let micros = at.nanosecond() / 1_000 * 1_000;
    let at = at
        .to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(micros)
        .unwrap_or(at);
    Ok(at.format(&time::format_description::well_known::Rfc3339)?)
}

/// A move or game count as stored (`integer`); counts never come near `i32::MAX`.
fn count(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::{key_text, timestamp_text};
    use time::macros::datetime;

    #[test]
    fn keys_are_written_as_padded_standard_base64() {
        assert_eq!(key_text(&[]), "");
        assert_eq!(key_text(&[0x00, 0x0f, 0xa0, 0xff]), "AA+g/w==");
    }

    #[test]
    fn times_are_written_to_the_microsecond_in_utc() {
        let at = datetime!(2026-12-01 13:45:07.123_456_789 +02:00);
        assert_eq!(timestamp_text(at).unwrap(), "2026-12-01T11:45:07.123456Z");
        let whole = datetime!(2026-12-01 13:45:07 UTC);
        assert_eq!(timestamp_text(whole).unwrap(), "2026-12-01T13:45:07Z");
    }
}
