//! Queries on ratings: reading players' current ratings, and rating a finished game in
//! the transaction that stores its result.

use std::collections::HashMap;

use sqlx::Row;
use uuid::Uuid;

use super::{Store, StoreError};
use crate::games::{GameKind, Outcome};
use crate::ratings::{self, RatedGame, Rating, RatingChange};
use crate::table::identity::PlayerKey;

impl Store {
    /// The current ratings of `players` in `game`; a player never rated is missing.
    pub async fn ratings(
        &self,
        game: GameKind,
        players: &[PlayerKey],
    ) -> Result<HashMap<PlayerKey, Rating>, StoreError> {
        if players.is_empty() {
            return Ok(HashMap::new());
        }
        let keys: Vec<&[u8]> = players.iter().map(PlayerKey::as_bytes).collect();
        let rows = sqlx::query(
            "SELECT player_key, rating, deviation, volatility FROM ratings
              WHERE game = $1 AND player_key = ANY($2)",
        )
        .bind(game.id())
        .bind(&keys)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().filter_map(read_rating).collect())
    }
}

fn read_rating(row: &sqlx::postgres::PgRow) -> Option<(PlayerKey, Rating)> {
    let key: Vec<u8> = row.try_get("player_key").ok()?;
    let rating = Rating {
        rating: row.try_get("rating").ok()?,
        deviation: row.try_get("deviation").ok()?,
        volatility: row.try_get("volatility").ok()?,
    };
    Some((PlayerKey::from_bytes(&key)?, rating))
}

/// Rates a finished game inside the transaction `tx` that stores its result: locks the
/// people's rating rows (creating newcomers' first, in key order so that two games never
/// wait for each other crosswise), computes the changes and writes them with their history.
pub(super) async fn rate_game(
    tx: &mut sqlx::PgConnection,
    game_id: Uuid,
    game: &RatedGame,
    outcome: &Outcome,
) -> Result<Vec<RatingChange>, StoreError> {
    let people = game.people();
    if people.is_empty() {
        return Ok(Vec::new());
    }
    let kind = game.game.id();
    let keys: Vec<&[u8]> = people.iter().map(PlayerKey::as_bytes).collect();
    let newcomer = ratings::NEWCOMER;
    sqlx::query(
        "INSERT INTO ratings (player_key, game, rating, deviation, volatility)
         SELECT key, $2, $3, $4, $5 FROM unnest($1::bytea[]) AS key ORDER BY key
         ON CONFLICT (player_key, game) DO NOTHING",
    )
    .bind(&keys)
    .bind(kind)
    .bind(newcomer.rating)
    .bind(newcomer.deviation)
    .bind(newcomer.volatility)
    .execute(&mut *tx)
    .await?;
    let rows = sqlx::query(
        "SELECT player_key, rating, deviation, volatility FROM ratings
          WHERE game = $1 AND player_key = ANY($2) ORDER BY player_key FOR UPDATE",
    )
    .bind(kind)
    .bind(&keys)
    .fetch_all(&mut *tx)
    .await?;
    let current: HashMap<PlayerKey, Rating> = rows.iter().filter_map(read_rating).collect();
    let changes = ratings::rate(game, outcome, &current);
    for change in &changes {
        let seats: Vec<i16> = change.seats.iter().map(|seat| i16::from(*seat)).collect();
        sqlx::query(
            "WITH history AS (
                 INSERT INTO rating_history (game_id, player_key, game, seats,
                     rating_before, deviation_before, volatility_before,
                     rating_after, deviation_after, volatility_after)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             )
             UPDATE ratings SET rating = $8, deviation = $9, volatility = $10,
                    games = games + 1, updated_at = now()
              WHERE player_key = $2 AND game = $3",
        )
        .bind(game_id)
        .bind(change.player.as_bytes())
        .bind(kind)
        .bind(&seats)
        .bind(change.before.rating)
        .bind(change.before.deviation)
        .bind(change.before.volatility)
        .bind(change.after.rating)
        .bind(change.after.deviation)
        .bind(change.after.volatility)
        .execute(&mut *tx)
        .await?;
    }
    Ok(changes)
}
