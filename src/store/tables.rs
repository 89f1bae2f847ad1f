//! Queries on tables and their seats.

use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use super::leases::{Fenced, LeaseFields};
use super::writer::Write;
use super::{Store, StoreError};
use crate::identity::SECRET_LEN;
use crate::series::Standing;

/// A table as stored: its game and validated settings.
#[derive(Debug, Clone)]
pub struct TableRow {
    pub id: String,
    pub game: String,
    pub settings: Value,
    /// An operator closed the table (migration 0019): it is not served again.
    pub closed: bool,
}

/// A bot a new table's settings seat.
#[derive(Debug, Clone)]
pub struct NewBotSeat {
    pub seat: u8,
    pub name: String,
    /// The strength's id (`"hard"`).
    pub strength: std::borrow::Cow<'static, str>,
}

impl Store {
    /// The secret player tokens are signed with: created (at random) on first use, the
    /// same for every server on this database afterwards.
    pub async fn token_secret(&self) -> Result<[u8; SECRET_LEN], StoreError> {
        let fresh: [u8; SECRET_LEN] = rand::random();
        sqlx::query(
            "INSERT INTO server_secrets (name, secret) VALUES ('player_tokens', $1) ON CONFLICT (name) DO NOTHING",
        )
        .bind(&fresh[..])
        .execute(self.pool())
        .await?;
        let stored: Vec<u8> = sqlx::query_scalar("SELECT secret FROM server_secrets WHERE name = 'player_tokens'")
            .fetch_one(self.pool())
            .await?;
        stored.try_into().map_err(|_| StoreError::BadSecret)
    }

    /// Stores a new table, the bots its settings seat and its lease, with the other writes
    /// of its group commit's batch: held by `node` (epoch 1), or with `None` by nobody yet
    /// (epoch 0: the first node to serve it takes it). Returns `false` (and stores nothing)
    /// when the id is taken.
    pub async fn insert_table(
        &self,
        id: &str,
        game: &str,
        settings: &Value,
        bots: &[NewBotSeat],
        node: Option<i32>,
    ) -> Result<bool, StoreError> {
        let _timer = crate::metrics::DbWrite::start("insert_table");
        let table = TableJson {
            id,
            game,
            settings,
            node,
            bots: bots
                .iter()
                .map(|bot| BotJson {
                    seat: i16::from(bot.seat),
                    name: &bot.name,
                    bot: &bot.strength,
                })
                .collect(),
        };
        match self.write_batched(Write::Table, &table).await {
            Ok(()) => Ok(true),
            Err(StoreError::Database(sqlx::Error::Database(db))) if db.constraint() == Some("tables_pkey") => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// Reads one table, `None` if there is no such id.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StoreError> {
        let row: Option<(String, String, Value, bool)> =
            sqlx::query_as("SELECT id, game, settings, closed_at IS NOT NULL FROM tables WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.map(|(id, game, settings, closed)| TableRow {
            id,
            game,
            settings,
            closed,
        }))
    }

    /// Records that the player with `player_key` holds `seat`.
    pub async fn take_seat(&self, table_id: &str, seat: u8, player_key: &[u8], name: &str) -> Result<(), StoreError> {
        self.seat_holder(table_id, seat, Some(player_key), name, None).await
    }

    /// Records that a bot of `strength` (`"hard"`) holds `seat`.
    pub async fn seat_bot(&self, table_id: &str, seat: u8, name: &str, strength: &str) -> Result<(), StoreError> {
        self.seat_holder(table_id, seat, None, name, Some(strength)).await
    }

    async fn seat_holder(
        &self,
        table_id: &str,
        seat: u8,
        player_key: Option<&[u8]>,
        name: &str,
        bot: Option<&str>,
    ) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("take_seat");
        // Stored with the other tables' writes of its batch (group commit, migration 0013);
        // a lost lease fails it.
        let take = SeatJson {
            table_id,
            seat: i16::from(seat),
            key: player_key.map(super::games::key_text),
            name,
            bot,
            lease: self.lease_fields(),
        };
        self.write_batched(Write::Seat, &take).await
    }

    /// Records a seated person's new name: the seat's, and the game's player's when `game`
    /// (in play) is given, in one transaction.
    pub async fn rename_player(
        &self,
        table_id: &str,
        game: Option<Uuid>,
        seat: u8,
        player_key: &[u8],
        name: &str,
    ) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("rename_player");
        let mut tx = self.pool().begin().await.map_err(|err| self.write_error(err))?;
        sqlx::query(
            "UPDATE seats SET name = $4 WHERE table_id = $1 AND seat = $2 AND player_key = $3 \
             AND spelbord_hold_lease($5, $6, $7)",
        )
        .bind(table_id)
        .bind(i16::from(seat))
        .bind(player_key)
        .bind(name)
        .fenced_by(self)
        .execute(&mut *tx)
        .await
        .map_err(|err| self.write_error(err))?;
        if let Some(game) = game {
            sqlx::query("UPDATE game_players SET name = $3 WHERE game_id = $1 AND seat = $2")
                .bind(game)
                .bind(i16::from(seat))
                .bind(name)
                .execute(&mut *tx)
                .await
                .map_err(|err| self.write_error(err))?;
        }
        tx.commit().await.map_err(|err| self.write_error(err))?;
        Ok(())
    }

    /// Records that `seat` is free.
    pub async fn free_seat(&self, table_id: &str, seat: u8) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("free_seat");
        // The check is evaluated for the seat's row, before it is deleted (a seat already
        // free is no write at all).
        sqlx::query("DELETE FROM seats WHERE table_id = $1 AND seat = $2 AND spelbord_hold_lease($3, $4, $5)")
            .bind(table_id)
            .bind(i16::from(seat))
            .write_fenced(self)
            .await?;
        Ok(())
    }
}

/// A new table, as `spelbord_store_batch` reads it (migration 0013).
#[derive(Serialize)]
struct TableJson<'a> {
    id: &'a str,
    game: &'a str,
    settings: &'a Value,
    /// The node that serves it from the start; absent: nobody yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<i32>,
    bots: Vec<BotJson<'a>>,
}

#[derive(Serialize)]
struct BotJson<'a> {
    seat: i16,
    name: &'a str,
    bot: &'a str,
}

/// A seat taken, as `spelbord_store_batch` reads it (migration 0013).
#[derive(Serialize)]
struct SeatJson<'a> {
    table_id: &'a str,
    seat: i16,
    /// A person's key in base64; absent for a bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bot: Option<&'a str>,
    #[serde(flatten)]
    lease: LeaseFields<'a>,
}

/// A seat holder as stored.
#[derive(Debug, Clone)]
pub struct SeatRow {
    pub seat: u8,
    /// A person's key; `None` for a bot.
    pub player_key: Option<Vec<u8>>,
    pub name: String,
    /// A bot's strength; `None` for a person.
    pub bot: Option<String>,
}

/// A `seats` row as selected.
#[derive(sqlx::FromRow)]
struct StoredSeat {
    seat: i16,
    player_key: Option<Vec<u8>>,
    name: String,
    bot: Option<String>,
}

/// A `games` row as selected.
#[derive(sqlx::FromRow)]
struct StoredGame {
    id: uuid::Uuid,
    number: i32,
    deadline: Option<time::OffsetDateTime>,
    series_id: Option<uuid::Uuid>,
    series_game: Option<i32>,
    rated: bool,
}

/// A `moves` row as selected.
#[derive(sqlx::FromRow)]
struct StoredMove {
    ply: i32,
    seat: i16,
    payload: Value,
    clocks_ms: Option<Vec<i64>>,
    takeback_to: Option<i32>,
}

/// A stored move, for replaying a game.
#[derive(Debug, Clone)]
pub struct MoveRow {
    /// The record's number in the game (take-backs included), from 1.
    pub ply: u32,
    pub seat: u8,
    pub payload: Value,
    pub clocks_ms: Option<Vec<i64>>,
    /// For a take-back record: how many moves the game keeps.
    pub takeback_to: Option<u32>,
}

/// A stored result.
#[derive(Debug, Clone)]
pub struct ResultRow {
    pub outcome: String,
    pub winners: Vec<i16>,
    pub reason: String,
    pub detail: Option<Value>,
    /// When the game ended (the database's clock): a series' pause runs from it.
    pub ended_at: time::OffsetDateTime,
}

/// A `results` row as read.
#[derive(sqlx::FromRow)]
struct StoredResult {
    outcome: String,
    winners: Vec<i16>,
    reason: String,
    detail: Option<Value>,
    ended_at: time::OffsetDateTime,
}

/// The latest game of a table as stored.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: uuid::Uuid,
    pub number: u32,
    pub deadline: Option<time::OffsetDateTime>,
    pub moves: Vec<MoveRow>,
    pub result: Option<ResultRow>,
    /// The game's number in its series (1 for games stored before series existed).
    pub series_game: u32,
    pub rated: bool,
    /// Each seat's side in the series, in seat order.
    pub sides: Vec<u8>,
    pub series: Option<SeriesRow>,
}

/// A stored series with its standings.
#[derive(Debug, Clone)]
pub struct SeriesRow {
    pub id: uuid::Uuid,
    pub number: u32,
    pub format: String,
    pub standings: [Standing; 2],
    /// Each side's names.
    pub names: [String; 2],
    /// Stored as decided (by its games, or ended early).
    pub decided: bool,
}

/// Everything needed to rebuild a table after a restart.
#[derive(Debug, Clone)]
pub struct StoredTable {
    pub table: TableRow,
    pub seats: Vec<SeatRow>,
    pub game: Option<GameRow>,
}

impl Store {
    /// Loads a table, its seats and its latest game with every move, `None` if unknown.
    pub async fn load_table(&self, id: &str) -> Result<Option<StoredTable>, StoreError> {
        let Some(table) = self.table(id).await? else {
            return Ok(None);
        };
        let seats: Vec<StoredSeat> =
            sqlx::query_as("SELECT seat, player_key, name, bot FROM seats WHERE table_id = $1 ORDER BY seat")
                .bind(id)
                .fetch_all(self.pool())
                .await?;
        let seats = seats
            .into_iter()
            .filter_map(|row| {
                Some(SeatRow {
                    seat: u8::try_from(row.seat).ok()?,
                    player_key: row.player_key,
                    name: row.name,
                    bot: row.bot,
                })
            })
            .collect();
        let game: Option<StoredGame> = sqlx::query_as(
            "SELECT id, number, deadline, series_id, series_game, rated FROM games
              WHERE table_id = $1 ORDER BY number DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        let game = match game {
            None => None,
            Some(game) => Some(self.load_game(game).await?),
        };
        Ok(Some(StoredTable { table, seats, game }))
    }

    async fn load_game(&self, game: StoredGame) -> Result<GameRow, StoreError> {
        let StoredGame {
            id,
            number,
            deadline,
            series_id,
            series_game,
            rated,
        } = game;
        let moves: Vec<StoredMove> = sqlx::query_as(
            "SELECT ply, seat, payload, clocks_ms, takeback_to FROM moves WHERE game_id = $1 ORDER BY ply",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        let moves = moves
            .into_iter()
            .filter_map(|row| {
                Some(MoveRow {
                    ply: u32::try_from(row.ply).ok()?,
                    seat: u8::try_from(row.seat).ok()?,
                    payload: row.payload,
                    clocks_ms: row.clocks_ms,
                    takeback_to: row.takeback_to.and_then(|n| u32::try_from(n).ok()),
                })
            })
            .collect();
        let sides: Vec<(i16, Option<i16>)> =
            sqlx::query_as("SELECT seat, side FROM game_players WHERE game_id = $1 ORDER BY seat")
                .bind(id)
                .fetch_all(self.pool())
                .await?;
        let sides = sides
            .into_iter()
            .map(|(seat, side)| {
                side.and_then(|side| u8::try_from(side).ok())
                    .unwrap_or(seat.rem_euclid(2) as u8)
            })
            .collect();
        let series = match series_id {
            Some(series_id) => self.load_series(series_id).await?,
            None => None,
        };
        let result: Option<StoredResult> =
            sqlx::query_as("SELECT outcome, winners, reason, detail, ended_at FROM results WHERE game_id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(GameRow {
            id,
            number: u32::try_from(number).unwrap_or(0),
            deadline,
            moves,
            series_game: series_game.and_then(|n| u32::try_from(n).ok()).unwrap_or(1),
            rated,
            sides,
            series,
            result: result.map(|row| ResultRow {
                outcome: row.outcome,
                winners: row.winners,
                reason: row.reason,
                detail: row.detail,
                ended_at: row.ended_at,
            }),
        })
    }

    async fn load_series(&self, id: uuid::Uuid) -> Result<Option<SeriesRow>, StoreError> {
        let series: Option<(i32, String, String)> =
            sqlx::query_as("SELECT number, format, status FROM series WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        let Some((number, format, status)) = series else {
            return Ok(None);
        };
        let sides: Vec<(i16, String, i32, i32, i32)> = sqlx::query_as(
            "SELECT side, players, wins, draws, losses FROM series_sides WHERE series_id = $1 ORDER BY side",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        let mut standings = [Standing::default(); 2];
        let mut names = [String::new(), String::new()];
        for (side, players, wins, draws, losses) in sides {
            let Ok(side) = usize::try_from(side) else { continue };
            if let (Some(standing), Some(name)) = (standings.get_mut(side), names.get_mut(side)) {
                let n = |value: i32| u32::try_from(value).unwrap_or(0);
                *standing = Standing {
                    wins: n(wins),
                    draws: n(draws),
                    losses: n(losses),
                };
                *name = players;
            }
        }
        Ok(Some(SeriesRow {
            id,
            number: u32::try_from(number).unwrap_or(1),
            format,
            standings,
            names,
            decided: status == "decided",
        }))
    }
}
