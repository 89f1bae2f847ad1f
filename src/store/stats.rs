//! Won-game statistics: finished games of one kind, per variant (the settings that change
//! the game) and result reason, read from the counts `game_stats` keeps (migration 0016:
//! a trigger adds each result to them in its own transaction), so a request costs the
//! same ~0.3 ms at 10 games or 10^6 (benches/stats-query/README.md).
//!
//! Counted: every finished game with a win or a draw. Not counted: aborted games (no
//! result), and games from a set-up `start_position` (problems and practice positions,
//! where the side to move first may differ). The first player is seat 0 (Gomoku X, Lines
//! of Action black, Krux white), and in Bughouse seat 0's team (A-white and B-black): a
//! game's winners always include seat 0 when that side won.

use serde_json::Value;
use sqlx::Row;

use super::{Store, StoreError};
use crate::games::GameKind;

/// The settings that make a game's variants, as stored in `tables.settings`: statistics
/// are given per combination of their values. Migration 0016's `spelbord_stats_variant`
/// lists the same keys (a test checks they agree); adding one needs a migration.
pub fn variant_settings(game: GameKind) -> &'static [&'static str] {
    match game {
        GameKind::Gomoku => &["variant", "board_size"],
        GameKind::LinesOfAction => &["simultaneous"],
        GameKind::Krux | GameKind::Bughouse => &[],
    }
}

/// The counts of one variant's games that ended for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct StatsRow {
    /// The variant: the values of [`variant_settings`], e.g. `{"variant": "free", "board_size": 15}`.
    pub variant: Value,
    /// The result reason, e.g. `five_in_a_row`.
    pub reason: String,
    pub games: u64,
    /// Won by the first player (or team).
    pub first_wins: u64,
    /// Won by the second player (or team).
    pub second_wins: u64,
    pub draws: u64,
}

impl Store {
    /// The counts of `game`'s finished games per variant and reason, in that order;
    /// `humans_only` keeps the games in which no seat was held by the computer.
    pub async fn game_stats(&self, game: GameKind, humans_only: bool) -> Result<Vec<StatsRow>, StoreError> {
        // The counts kept by migration 0016's trigger, re-projected on the variant keys
        // asked for (a key no longer among them folds its variants together).
        let rows = sqlx::query(
            "SELECT v.variant, s.reason,
                    sum(s.games)::bigint AS games,
                    sum(s.first_wins)::bigint AS first_wins,
                    sum(s.second_wins)::bigint AS second_wins,
                    sum(s.draws)::bigint AS draws
               FROM game_stats s
              CROSS JOIN LATERAL (
                    SELECT coalesce(jsonb_object_agg(k, s.variant -> k), '{}'::jsonb) AS variant
                      FROM unnest($2::text[]) AS k
                   ) v
              WHERE s.game = $1 AND (s.humans OR NOT $3)
              GROUP BY v.variant, s.reason
              ORDER BY v.variant, s.reason",
        )
        .bind(game.id())
        .bind(variant_settings(game))
        .bind(humans_only)
        .fetch_all(self.reads())
        .await?;
        rows.iter()
            .map(|row| {
                let count = |name: &str| -> Result<u64, sqlx::Error> {
                    row.try_get::<i64, _>(name).map(|n| u64::try_from(n).unwrap_or(0))
                };
                Ok(StatsRow {
                    variant: row.try_get("variant")?,
                    reason: row.try_get("reason")?,
                    games: count("games")?,
                    first_wins: count("first_wins")?,
                    second_wins: count("second_wins")?,
                    draws: count("draws")?,
                })
            })
            .collect()
    }
}
