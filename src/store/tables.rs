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
