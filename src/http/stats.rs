//! `GET /api/stats/{game}`: how often the first player, the second (the teams in
//! Bughouse) and nobody (draws) win a game, per variant and result reason, with counts and
//! percentages; `?humans=true` keeps only games between people. Counted in SQL by
//! [`crate::store::stats`], which says which games count.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use super::error::ApiError;
use super::state::AppState;
use crate::games::{GameKind, Seat};
use crate::store::stats::{StatsRow, variant_settings};
use crate::table::TableSettings;

/// The answer of `GET /api/stats/{game}`.
#[derive(Debug, Serialize)]
pub struct GameStats {
    pub game: &'static str,
    pub humans_only: bool,
    /// Who is "first" and "second": their seats and roles.
    pub sides: Sides,
    /// The settings whose values make the variants (empty for a game without variants).
    pub variant_settings: &'static [&'static str],
    /// Every counted game, all variants together.
    pub total: Counts,
    /// Per variant, most played first.
    pub variants: Vec<VariantStats>,
}

/// The two sides of a game.
#[derive(Debug, Serialize)]
pub struct Sides {
    pub first: Side,
    pub second: Side,
}

/// One side: a player's seat, or a Bughouse team's two.
#[derive(Debug, Serialize)]
pub struct Side {
    pub seats: Vec<Seat>,
    pub roles: Vec<&'static str>,
}

/// One variant's statistics.
#[derive(Debug, Serialize)]
pub struct VariantStats {
    /// The variant's settings, e.g. `{"variant": "free", "board_size": 15}`.
    pub settings: Value,
    #[serde(flatten)]
    pub counts: Counts,
}

/// The games of a group and how they ended.
#[derive(Debug, Default, Serialize)]
pub struct Counts {
    pub games: u64,
    pub first_wins: Share,
    pub second_wins: Share,
    pub draws: Share,
    /// Per result reason, most frequent first.
    pub by_reason: Vec<ReasonCounts>,
}

/// A count and its share of the group's games, in percent with one decimal (0 when the
/// group has no games).
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    pub count: u64,
    pub percent: f64,
}

/// The games of a group that ended for one reason.
#[derive(Debug, Serialize)]
pub struct ReasonCounts {
    pub reason: String,
    pub games: u64,
    /// Of the group's games.
    pub percent: f64,
    pub first_wins: u64,
    pub second_wins: u64,
    pub draws: u64,
}

/// `count` of `total` in percent, rounded to one decimal.
fn percent(count: u64, total: u64) -> f64 {
    if total == 0 {
        return 0.0;
    }
    (count as f64 * 1000.0 / total as f64).round() / 10.0
}

impl Counts {
    /// Adds up rows (of one group) and works out the shares.
    fn of<'a>(rows: impl Iterator<Item = &'a StatsRow>) -> Counts {
        let mut reasons: Vec<ReasonCounts> = Vec::new();
        for row in rows {
            match reasons.iter_mut().find(|r| r.reason == row.reason) {
                Some(reason) => {
                    reason.games += row.games;
                    reason.first_wins += row.first_wins;
                    reason.second_wins += row.second_wins;
                    reason.draws += row.draws;
                }
                None => reasons.push(ReasonCounts {
                    reason: row.reason.clone(),
                    games: row.games,
                    percent: 0.0,
                    first_wins: row.first_wins,
                    second_wins: row.second_wins,
                    draws: row.draws,
                }),
            }
        }
        let games = reasons.iter().map(|r| r.games).sum();
        let share = |pick: fn(&ReasonCounts) -> u64| {
            let count = reasons.iter().map(pick).sum();
            Share {
                count,
                percent: percent(count, games),
            }
        };
        let (first_wins, second_wins, draws) = (share(|r| r.first_wins), share(|r| r.second_wins), share(|r| r.draws));
        for reason in &mut reasons {
            reason.percent = percent(reason.games, games);
        }
        reasons.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.reason.cmp(&b.reason)));
        Counts {
            games,
            first_wins,
            second_wins,
            draws,
            by_reason: reasons,
        }
    }
}

/// `GET /api/stats/{game}?humans=true|false`.
pub async fn game_stats(
    State(state): State<AppState>,
    Path(game): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<GameStats>, ApiError> {
    let kind = GameKind::from_id(&game).ok_or_else(|| {
        let known: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.id()).collect();
        ApiError {
            status: StatusCode::NOT_FOUND,
            code: "unknown_game",
            message: format!("There is no game \"{game}\"; known games: {}.", known.join(", ")),
            field: None,
        }
    })?;
    let humans_only = read_humans(&query)?;
    let rows = state.store.game_stats(kind, humans_only).await.map_err(|err| {
        tracing::error!(error = %err, "could not count the statistics");
        ApiError::unavailable("The statistics cannot be counted right now; please try again shortly.")
    })?;
    let mut variants: Vec<VariantStats> = Vec::new();
    for row in &rows {
        if !variants.iter().any(|v| v.settings == row.variant) {
            variants.push(VariantStats {
                settings: row.variant.clone(),
                counts: Counts::default(),
            });
        }
    }
    for variant in &mut variants {
        variant.counts = Counts::of(rows.iter().filter(|row| row.variant == variant.settings));
    }
    variants.sort_by(|a, b| {
        b.counts
            .games
            .cmp(&a.counts.games)
            .then_with(|| a.settings.to_string().cmp(&b.settings.to_string()))
    });
    Ok(Json(GameStats {
        game: kind.id(),
        humans_only,
        sides: sides(kind),
        variant_settings: variant_settings(kind),
        total: Counts::of(rows.iter()),
        variants,
    }))
}

/// The `humans` parameter (`true` or `false`, absent: false); any other parameter or value
/// is refused.
fn read_humans(query: &HashMap<String, String>) -> Result<bool, ApiError> {
    if let Some(unknown) = query.keys().find(|key| key.as_str() != "humans") {
        return Err(ApiError::bad_request(
            "bad_query",
            format!("Unknown parameter \"{unknown}\"; the only one is \"humans\"."),
            Some(unknown.clone()),
        ));
    }
    match query.get("humans").map(String::as_str) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(ApiError::bad_request(
            "bad_query",
            "The parameter \"humans\" is true or false.",
            Some("humans".into()),
        )),
    }
}

/// The first side (seat 0's team) and the second, from the game's default settings.
fn sides(kind: GameKind) -> Sides {
    let (seats, roles, first_team) = match TableSettings::read(kind.id(), None) {
        Ok(settings) => (
            (0..settings.game.seat_count())
                .filter_map(|seat| Seat::try_from(seat).ok())
                .map(|seat| (seat, settings.game.team_of(seat)))
                .collect::<Vec<_>>(),
            settings.game.seat_roles(),
            settings.game.team_of(0),
        ),
        Err(_) => (Vec::new(), &[][..], 0),
    };
    let side = |first: bool| {
        let seats: Vec<Seat> = seats
            .iter()
            .filter(|(_, team)| (*team == first_team) == first)
            .map(|(seat, _)| *seat)
            .collect();
        Side {
            roles: seats
                .iter()
                .filter_map(|seat| roles.get(usize::from(*seat)).copied())
                .collect(),
            seats,
        }
    };
    Sides {
        first: side(true),
        second: side(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_have_one_decimal() {
        assert_eq!(percent(2, 3), 66.7);
        assert_eq!(percent(1, 3), 33.3);
        assert_eq!(percent(0, 0), 0.0);
        assert_eq!(percent(5, 5), 100.0);
    }

    #[test]
    fn bughouse_sides_are_the_teams() {
        let sides = sides(GameKind::Bughouse);
        assert_eq!(sides.first.roles, ["A-white", "B-black"]);
        assert_eq!(sides.second.seats, [1, 2]);
        assert_eq!(super::sides(GameKind::Gomoku).first.roles, ["X"]);
    }
}
