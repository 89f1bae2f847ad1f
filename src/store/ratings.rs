//! Queries on ratings: reading players' current ratings, and rating a finished game in
//! the transaction that stores its result.

use std::collections::HashMap;

use sqlx::Row;
use uuid::Uuid;

use super::{Store, StoreError};
use crate::games::{GameKind, GameResult, Outcome};
use crate::identity::PlayerKey;
use crate::ratings::{self, GameRating, RatedGame, Rating, Unrated, limits};

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
///
/// A game beyond the bound per pair ([`limits::PAIR_LIMIT`] rated games between two keys
/// on opposite sides in [`limits::PAIR_WINDOW_HOURS`]) changes nothing and says so. The
/// pairs' games are counted after the rows are locked, so two games of one pair ending at
/// once at two tables are counted one after the other, never both as the last one allowed.
pub(super) async fn rate_game(
    tx: &mut sqlx::PgConnection,
    game_id: Uuid,
    game: &RatedGame,
    outcome: &Outcome,
) -> Result<GameRating, StoreError> {
    let people = game.people();
    if people.is_empty() || outcome.result == GameResult::Aborted {
        return Ok(GameRating::default());
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
    if changes.is_empty() {
        return Ok(GameRating::default());
    }
    if limits::pair_limit_reached(most_games_of_a_pair(tx, game).await?) {
        tracing::info!(game = %game_id, "a game beyond the bound of rated games per pair of players is not rated");
        return Ok(GameRating {
            changes: Vec::new(),
            unrated: Some(Unrated::PAIR_LIMIT),
        });
    }
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
    Ok(GameRating { changes, unrated: None })
}

/// The most rated games any two people on opposite sides of `game` played against each
/// other (on opposite sides too) in the last [`limits::PAIR_WINDOW_HOURS`] hours. Each
/// pair's games are the first one's history rows of the window (index
/// `rating_history_player`) that the second one has a row in as well (the primary key),
/// told apart from games as partners by their seats' teams.
async fn most_games_of_a_pair(tx: &mut sqlx::PgConnection, game: &RatedGame) -> Result<i64, StoreError> {
    let pairs = limits::opposing_pairs(game);
    if pairs.is_empty() {
        return Ok(0);
    }
    let (firsts, seconds): (Vec<&[u8]>, Vec<&[u8]>) = pairs.iter().map(|(a, b)| (a.as_bytes(), b.as_bytes())).unzip();
    let most: Option<i64> = sqlx::query_scalar(
        "SELECT max(games) FROM (
             SELECT count(*) AS games
               FROM unnest($1::bytea[], $2::bytea[]) AS pair (first, second)
               JOIN rating_history a
                 ON a.player_key = pair.first AND a.game = $3
                AND a.rated_at > now() - make_interval(hours => $4)
               JOIN rating_history b
                 ON b.game_id = a.game_id AND b.player_key = pair.second
              WHERE ($5::smallint[])[a.seats[1] + 1] IS DISTINCT FROM ($5::smallint[])[b.seats[1] + 1]
              GROUP BY pair.first, pair.second
         ) AS pairs",
    )
    .bind(&firsts)
    .bind(&seconds)
    .bind(game.game.id())
    .bind(i32::try_from(limits::PAIR_WINDOW_HOURS).unwrap_or(i32::MAX))
    .bind(limits::teams_by_seat(game))
    .fetch_one(&mut *tx)
    .await?;
    Ok(most.unwrap_or(0))
}
