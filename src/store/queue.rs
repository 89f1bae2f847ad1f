//! Rotating tables (`table::rotation`): the queue of people waiting for a seat, a
//! rotation's new seating stored with the queue in one transaction (on its own, or in the
//! transaction of the result of the game it follows: `store::games`), and what a restarted
//! table reads back (the queue, each person's games at the table for standings and games
//! in a row, and who played the last game). Every write is fenced with the table's lease.

use super::leases::Fenced;
use super::{Store, StoreError};

/// A person waiting, as stored.
#[derive(Debug, Clone)]
pub struct QueueRow {
    pub player_key: Vec<u8>,
    pub name: String,
}

/// A seat holder to store with a rotation: a person (`player_key`) or a bot (`bot`).
#[derive(Debug, Clone)]
pub struct RotatedSeat {
    pub seat: u8,
    pub player_key: Option<Vec<u8>>,
    pub name: String,
    pub bot: Option<String>,
}

/// A rotation to store: the table's seats become `seats` (every seat not listed is free)
/// and its queue `queue`, in this order. Stored on its own ([`Store::store_rotation`]) or
/// with the result of the game it follows (`store::games::ResultRecord`).
#[derive(Debug, Clone)]
pub struct RotationRecord {
    pub table_id: String,
    pub seats: Vec<RotatedSeat>,
    pub queue: Vec<QueueRow>,
}

/// One seat of a game as it was played: its player's name, and the bot's strength when a
/// bot held it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GamePlayerRow {
    pub seat: i16,
    pub name: String,
    pub bot: Option<String>,
}

/// One person's part in one game at a table.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PersonGameRow {
    /// The game's number at the table.
    pub number: i32,
    pub player_key: Vec<u8>,
    pub name: String,
    /// `won`, `lost`, `drawn`; `None` for a game aborted or still in play.
    pub result: Option<String>,
}

impl Store {
    /// Puts a person at the end of the table's queue.
    pub async fn join_queue(&self, table_id: &str, player_key: &[u8], name: &str) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("join_queue");
        sqlx::query(
            "INSERT INTO table_queue (table_id, player_key, name, place)
             SELECT $1, $2, $3, coalesce(max(place) + 1, 0) FROM table_queue
              WHERE table_id = $1
             HAVING spelbord_hold_lease($4, $5, $6)",
        )
        .bind(table_id)
        .bind(player_key)
        .bind(name)
        .write_fenced(self)
        .await?;
        Ok(())
    }

    /// Takes a person out of the table's queue.
    pub async fn leave_queue(&self, table_id: &str, player_key: &[u8]) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("leave_queue");
        sqlx::query(
            "DELETE FROM table_queue WHERE table_id = $1 AND player_key = $2 AND spelbord_hold_lease($3, $4, $5)",
        )
        .bind(table_id)
        .bind(player_key)
        .write_fenced(self)
        .await?;
        Ok(())
    }

    /// Stores a rotation, in one transaction.
    pub async fn store_rotation(&self, rotation: &RotationRecord) -> Result<(), StoreError> {
        let _timer = crate::metrics::DbWrite::start("store_rotation");
        let mut tx = self.pool().begin().await.map_err(|err| self.write_error(err))?;
        sqlx::query("SELECT spelbord_hold_lease($1, $2, $3)")
            .fenced_by(self)
            .execute(&mut *tx)
            .await
            .map_err(|err| self.write_error(err))?;
        write_rotation(&mut tx, rotation)
            .await
            .map_err(|err| self.write_error(err))?;
        tx.commit().await.map_err(|err| self.write_error(err))?;
        Ok(())
    }

    /// The table's queue, first waiting first.
    pub async fn load_queue(&self, table_id: &str) -> Result<Vec<QueueRow>, StoreError> {
        let rows: Vec<(Vec<u8>, String)> =
            sqlx::query_as("SELECT player_key, name FROM table_queue WHERE table_id = $1 ORDER BY place, joined_at")
                .bind(table_id)
                .fetch_all(self.pool())
                .await?;
        Ok(rows
            .into_iter()
            .map(|(player_key, name)| QueueRow { player_key, name })
            .collect())
    }

    /// The seats of the game `game_id` as it was played, by seat.
    pub async fn game_players(&self, game_id: uuid::Uuid) -> Result<Vec<GamePlayerRow>, StoreError> {
        let rows = sqlx::query_as("SELECT seat, name, bot FROM game_players WHERE game_id = $1 ORDER BY seat")
            .bind(game_id)
            .fetch_all(self.pool())
            .await?;
        Ok(rows)
    }

    /// Every person's part in every game at the table, oldest game first (a table holds
    /// a bounded number of games: `quotas.games_per_table`).
    pub async fn person_games(&self, table_id: &str) -> Result<Vec<PersonGameRow>, StoreError> {
        let rows = sqlx::query_as(
            "SELECT g.number, gp.player_key, gp.name,
                    CASE WHEN r.outcome = 'win' AND gp.seat = ANY (r.winners) THEN 'won'
                         WHEN r.outcome = 'win' THEN 'lost'
                         WHEN r.outcome = 'draw' THEN 'drawn' END AS result
               FROM games g
               JOIN game_players gp ON gp.game_id = g.id
               LEFT JOIN results r ON r.game_id = g.id
              WHERE g.table_id = $1 AND gp.player_key IS NOT NULL
              ORDER BY g.number, gp.seat",
        )
        .bind(table_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows)
    }
}

/// A rotation's writes, inside the caller's transaction (which holds the table's lease).
pub(super) async fn write_rotation(tx: &mut sqlx::PgConnection, rotation: &RotationRecord) -> Result<(), sqlx::Error> {
    let table_id = rotation.table_id.as_str();
    sqlx::query("DELETE FROM seats WHERE table_id = $1")
        .bind(table_id)
        .execute(&mut *tx)
        .await?;
    for seat in &rotation.seats {
        sqlx::query("INSERT INTO seats (table_id, seat, player_key, name, bot) VALUES ($1, $2, $3, $4, $5)")
            .bind(table_id)
            .bind(i16::from(seat.seat))
            .bind(seat.player_key.as_deref())
            .bind(&seat.name)
            .bind(seat.bot.as_deref())
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query("DELETE FROM table_queue WHERE table_id = $1")
        .bind(table_id)
        .execute(&mut *tx)
        .await?;
    for (place, waiting) in (0i32..).zip(&rotation.queue) {
        sqlx::query("INSERT INTO table_queue (table_id, player_key, name, place) VALUES ($1, $2, $3, $4)")
            .bind(table_id)
            .bind(&waiting.player_key)
            .bind(&waiting.name)
            .bind(place)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}
