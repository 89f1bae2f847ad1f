//! Queries on tables and their seats.

use serde_json::Value;

use super::{Store, StoreError};

/// A table as stored: its game and validated settings.
#[derive(Debug, Clone)]
pub struct TableRow {
    pub id: String,
    pub game: String,
    pub settings: Value,
}

impl Store {
    /// Stores a new table. Returns `false` (and stores nothing) when the id is taken.
    pub async fn insert_table(&self, id: &str, game: &str, settings: &Value) -> Result<bool, StoreError> {
        let inserted =
            sqlx::query("INSERT INTO tables (id, game, settings) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING")
                .bind(id)
                .bind(game)
                .bind(settings)
                .execute(self.pool())
                .await?
                .rows_affected();
        Ok(inserted == 1)
    }

    /// Reads one table, `None` if there is no such id.
    pub async fn table(&self, id: &str) -> Result<Option<TableRow>, StoreError> {
        let row: Option<(String, String, Value)> =
            sqlx::query_as("SELECT id, game, settings FROM tables WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(row.map(|(id, game, settings)| TableRow { id, game, settings }))
    }

    /// Records that the player with `player_key` holds `seat`.
    pub async fn take_seat(&self, table_id: &str, seat: u8, player_key: &[u8], name: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO seats (table_id, seat, player_key, name) VALUES ($1, $2, $3, $4)
             ON CONFLICT (table_id, seat) DO UPDATE
             SET player_key = EXCLUDED.player_key, name = EXCLUDED.name, sat_at = now()",
        )
        .bind(table_id)
        .bind(i16::from(seat))
        .bind(player_key)
        .bind(name)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Records that `seat` is free.
    pub async fn free_seat(&self, table_id: &str, seat: u8) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM seats WHERE table_id = $1 AND seat = $2")
            .bind(table_id)
            .bind(i16::from(seat))
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

/// A seat holder as stored.
#[derive(Debug, Clone)]
pub struct SeatRow {
    pub seat: u8,
    pub player_key: Vec<u8>,
    pub name: String,
}

/// A stored move, for replaying a game.
#[derive(Debug, Clone)]
pub struct MoveRow {
    pub ply: u32,
    pub seat: u8,
    pub payload: Value,
    pub clocks_ms: Option<Vec<i64>>,
}

/// A stored result.
#[derive(Debug, Clone)]
pub struct ResultRow {
    pub outcome: String,
    pub winners: Vec<i16>,
    pub reason: String,
    pub detail: Option<Value>,
}

/// The latest game of a table as stored.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: uuid::Uuid,
    pub number: u32,
    pub deadline: Option<time::OffsetDateTime>,
    pub moves: Vec<MoveRow>,
    pub result: Option<ResultRow>,
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
        let seats: Vec<(i16, Vec<u8>, String)> =
            sqlx::query_as("SELECT seat, player_key, name FROM seats WHERE table_id = $1 ORDER BY seat")
                .bind(id)
                .fetch_all(self.pool())
                .await?;
        let seats = seats
            .into_iter()
            .filter_map(|(seat, player_key, name)| {
                Some(SeatRow {
                    seat: u8::try_from(seat).ok()?,
                    player_key,
                    name,
                })
            })
            .collect();
        let game: Option<(uuid::Uuid, i32, Option<time::OffsetDateTime>)> =
            sqlx::query_as("SELECT id, number, deadline FROM games WHERE table_id = $1 ORDER BY number DESC LIMIT 1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        let game = match game {
            None => None,
            Some((game_id, number, deadline)) => Some(self.load_game(game_id, number, deadline).await?),
        };
        Ok(Some(StoredTable { table, seats, game }))
    }

    async fn load_game(
        &self,
        id: uuid::Uuid,
        number: i32,
        deadline: Option<time::OffsetDateTime>,
    ) -> Result<GameRow, StoreError> {
        let moves: Vec<(i32, i16, Value, Option<Vec<i64>>)> =
            sqlx::query_as("SELECT ply, seat, payload, clocks_ms FROM moves WHERE game_id = $1 ORDER BY ply")
                .bind(id)
                .fetch_all(self.pool())
                .await?;
        let moves = moves
            .into_iter()
            .filter_map(|(ply, seat, payload, clocks_ms)| {
                Some(MoveRow {
                    ply: u32::try_from(ply).ok()?,
                    seat: u8::try_from(seat).ok()?,
                    payload,
                    clocks_ms,
                })
            })
            .collect();
        let result: Option<(String, Vec<i16>, String, Option<Value>)> =
            sqlx::query_as("SELECT outcome, winners, reason, detail FROM results WHERE game_id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        Ok(GameRow {
            id,
            number: u32::try_from(number).unwrap_or(0),
            deadline,
            moves,
            result: result.map(|(outcome, winners, reason, detail)| ResultRow {
                outcome,
                winners,
                reason,
                detail,
            }),
        })
    }

    /// The ids of tables whose latest game is still being played (their clocks must run
    /// again after a restart).
    pub async fn tables_in_play(&self) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT DISTINCT table_id FROM games WHERE status = 'playing'")
                .fetch_all(self.pool())
                .await?,
        )
    }
}
