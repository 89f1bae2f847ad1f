//! Queries on games, their moves and their results.

use time::OffsetDateTime;
use uuid::Uuid;

use super::{Store, StoreError};
use crate::games::Outcome;
use crate::ratings::{RatedGame, RatingChange};
use crate::table::series::{SeriesFormat, SeriesResult, Standing};

/// One player of a game, as recorded when the game starts.
#[derive(Debug, Clone)]
pub struct PlayerRecord {
    pub seat: u8,
    pub role: String,
    /// A person's key; `None` for a bot.
    pub player_key: Option<Vec<u8>>,
    pub name: String,
    /// A bot's strength (`"hard"`); `None` for a person.
    pub bot: Option<&'static str>,
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
        // One statement, so one round trip and atomic by itself (the foreign keys between
        // its parts are checked at its end; a failing lease check fails all of it): the
        // series and its sides when the game starts one, the table's seats as the game
        // starts with them, the game and its players.
        let (series_number, series_format, side_numbers, side_names) = match &series.new {
            Some(new) => (
                Some(count(new.number)),
                Some(new.format.id()),
                vec![0i16, 1],
                new.sides.iter().map(|side| (*side).to_owned()).collect(),
            ),
            None => (None, None, Vec::new(), Vec::new()),
        };
        let seats: Vec<i16> = players.iter().map(|p| i16::from(p.seat)).collect();
        let roles: Vec<&str> = players.iter().map(|p| p.role.as_str()).collect();
        let keys: Vec<Option<&[u8]>> = players.iter().map(|p| p.player_key.as_deref()).collect();
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        let bots: Vec<Option<&str>> = players.iter().map(|p| p.bot).collect();
        let sides: Vec<i16> = players.iter().map(|p| i16::from(p.side)).collect();
        let (lease_table, lease_node, lease_epoch) = self.lease_args();
        sqlx::query(
            "WITH new_series AS (
                 INSERT INTO series (id, table_id, number, format)
                 SELECT $1, $2, $3, $4 WHERE $4::text IS NOT NULL
             ), new_sides AS (
                 INSERT INTO series_sides (series_id, side, players)
                 SELECT $1, side, players FROM UNNEST($5::smallint[], $6::text[]) AS s(side, players)
             ), freed AS (
                 DELETE FROM seats WHERE table_id = $2 AND NOT (seat = ANY($7::smallint[]))
             ), seated AS (
                 INSERT INTO seats (table_id, seat, player_key, name, bot)
                 SELECT $2, seat, player_key, name, bot
                   FROM UNNEST($7::smallint[], $9::bytea[], $10::text[], $11::text[]) AS p(seat, player_key, name, bot)
                 ON CONFLICT (table_id, seat) DO UPDATE
                    SET player_key = EXCLUDED.player_key, name = EXCLUDED.name, bot = EXCLUDED.bot, sat_at = now()
             ), game AS (
                 INSERT INTO games (id, table_id, number, deadline, series_id, series_game, rated)
                 SELECT $13, $2, $14, $15, $1, $16, $17 WHERE spelbord_hold_lease($18, $19, $20)
             )
             INSERT INTO game_players (game_id, seat, role, player_key, name, bot, side)
             SELECT $13, seat, role, player_key, name, bot, side
               FROM UNNEST($7::smallint[], $8::text[], $9::bytea[], $10::text[], $11::text[], $12::smallint[])
                 AS p(seat, role, player_key, name, bot, side)",
        )
        .bind(series.id)
        .bind(table_id)
        .bind(series_number)
        .bind(series_format)
        .bind(&side_numbers)
        .bind(&side_names)
        .bind(&seats)
        .bind(&roles)
        .bind(&keys)
        .bind(&names)
        .bind(&bots)
        .bind(&sides)
        .bind(game_id)
        .bind(count(number))
        .bind(deadline)
        .bind(count(series.game))
        .bind(series.rated)
        .bind(lease_table)
        .bind(lease_node)
        .bind(lease_epoch)
        .execute(self.pool())
        .await
        .map_err(|err| self.write_error(err))?;
        Ok(())
    }

    /// Stores a move and, if it ended the game, the result (and the players' new ratings
    /// at a rated table, which it returns), in one transaction.
    pub async fn append_move(
        &self,
        game_id: Uuid,
        mv: MoveRecord<'_>,
        result: Option<ResultRecord<'_>>,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let Some(result) = result else {
            // Most moves: stored together with other tables' moves (group commit).
            let queued = super::writer::QueuedMove {
                game_id,
                ply: count(mv.ply),
                seat: i16::from(mv.seat),
                payload: mv.payload.get().to_owned(),
                clocks_ms: mv.clocks_ms.map(super::writer::clocks_literal),
                deadline: mv.deadline,
                lease: self.lease.clone(),
            };
            self.writer.write(self.pool(), queued).await?;
            return Ok(Vec::new());
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
                  WHERE spelbord_hold_lease($6, $7, $8)
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
    /// with the players' new ratings at a rated table (returned).
    pub async fn finish_game(&self, game_id: Uuid, result: ResultRecord<'_>) -> Result<Vec<RatingChange>, StoreError> {
        let _timer = crate::metrics::DbWrite::start("finish_game");
        self.end_game(game_id, None, &result).await
    }

    /// Stores a game's end ([`Self::store_end`]), and at a rated table the players' new
    /// ratings in the same transaction (returned).
    async fn end_game(
        &self,
        game_id: Uuid,
        last_move: Option<&MoveRecord<'_>>,
        result: &ResultRecord<'_>,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut conn = self.pool().acquire().await?;
        let Some(game) = result.rating else {
            self.store_end(&mut conn, game_id, last_move, result).await?;
            return Ok(Vec::new());
        };
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        self.store_end(&mut tx, game_id, last_move, result).await?;
        let changes = super::ratings::rate_game(&mut tx, game_id, game, result.outcome).await?;
        tx.commit().await?;
        Ok(changes)
    }

    /// A game's end in one statement (one round trip, and one commit when it runs alone;
    /// it was up to six round trips in a transaction): the lease check, the last move
    /// when a move ended the game, the game marked finished, its result, and its series'
    /// standings with the series' result once decided.
    async fn store_end(
        &self,
        conn: &mut sqlx::PgConnection,
        game_id: Uuid,
        last_move: Option<&MoveRecord<'_>>,
        result: &ResultRecord<'_>,
    ) -> Result<(), StoreError> {
        let (lease_table, lease_node, lease_epoch) = self.lease_args();
        let clocks: Option<Vec<i64>> = last_move
            .and_then(|mv| mv.clocks_ms)
            .map(|clocks| clocks.iter().map(|ms| i64::try_from(*ms).unwrap_or(i64::MAX)).collect());
        let winners: Vec<i16> = result.outcome.winners().iter().map(|seat| i16::from(*seat)).collect();
        let detail = (!result.outcome.detail.is_null()).then_some(&result.outcome.detail);
        let series = result.series.as_ref();
        let sides: Vec<i16> = if series.is_some() { vec![0, 1] } else { Vec::new() };
        let standing = |of: fn(&Standing) -> u32| -> Vec<i32> {
            series.map_or_else(Vec::new, |series| {
                series.standings.iter().map(|s| count(of(s))).collect()
            })
        };
        let (series_result, series_winner) = match series.and_then(|series| series.result) {
            Some(SeriesResult::Won { side }) => (Some("win"), Some(i16::from(side))),
            Some(SeriesResult::Tie) => (Some("tie"), None),
            None => (None, None),
        };
        // `checked` is read by the move and the result, so it runs first; the lease check
        // raises (and the whole statement does nothing) when another node holds the table.
        sqlx::query(
            "WITH checked AS (
                 SELECT spelbord_hold_lease($1, $2, $3) AS held
             ), moved AS (
                 INSERT INTO moves (game_id, ply, seat, payload, clocks_ms)
                 SELECT $4, $5, $6, $7, $8 FROM checked WHERE checked.held AND $5::integer IS NOT NULL
             ), ended AS (
                 UPDATE games SET status = 'finished', ended_at = now(), deadline = NULL WHERE id = $4
             ), standings AS (
                 UPDATE series_sides ss SET wins = s.wins, draws = s.draws, losses = s.losses, points = s.points
                   FROM UNNEST($15::smallint[], $16::integer[], $17::integer[], $18::integer[], $19::integer[])
                        AS s(side, wins, draws, losses, points)
                  WHERE ss.series_id = $14 AND ss.side = s.side
             ), decided AS (
                 UPDATE series SET status = 'decided', result = $20, winner = $21, ended_at = now()
                  WHERE id = $14 AND $20::text IS NOT NULL
             )
             INSERT INTO results (game_id, outcome, winners, reason, detail, move_count, players, started_at, ended_at)
             SELECT g.id, $9, $10, $11, $12, $13,
                    (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('seat', p.seat, 'role', p.role, 'name', p.name, 'bot', p.bot)) ORDER BY p.seat), '[]'::jsonb)
                       FROM game_players p WHERE p.game_id = g.id),
                    g.started_at, now()
               FROM games g, checked WHERE g.id = $4 AND checked.held",
        )
        .bind(lease_table)
        .bind(lease_node)
        .bind(lease_epoch)
        .bind(game_id)
        .bind(last_move.map(|mv| count(mv.ply)))
        .bind(last_move.map(|mv| i16::from(mv.seat)))
        .bind(last_move.map(|mv| sqlx::types::Json(mv.payload)))
        .bind(clocks)
        .bind(result.outcome.kind())
        .bind(&winners)
        .bind(result.outcome.reason.as_str())
        .bind(detail)
        .bind(count(result.move_count))
        .bind(series.map(|series| series.id))
        .bind(&sides)
        .bind(standing(|s| s.wins))
        .bind(standing(|s| s.draws))
        .bind(standing(|s| s.losses))
        .bind(standing(Standing::points))
        .bind(series_result)
        .bind(series_winner)
        .execute(&mut *conn)
        .await
        .map_err(|err| self.write_error(err))?;
        Ok(())
    }
}

/// A move or game count as stored (`integer`); counts never come near `i32::MAX`.
fn count(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
