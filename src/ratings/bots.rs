//! The fixed ratings of the computer players, per game and strength. Bots are never
//! updated: a person's game against a bot moves only the person's rating.
//!
//! Calibrated from the arena measurements in `docs/bots/*.md` (`spelbord arena`): Random
//! is pinned at [`RANDOM`]; each stronger level sits above the one below it by the Elo
//! gap of their measured score, `400 · log10(p / (1 − p))`, with the score smoothed as
//! `(wins + draws / 2 + 1/2) / (games + 1)` (a clean sweep of 20 games is not an infinite
//! gap) and each gap capped at [`MAX_GAP`] (what twenty-odd games can tell). Glicko
//! ratings share the Elo scale (a gap of 400 expects a 10 : 1 score), so the gaps carry over. Every run of
//! a pairing in the tables is pooled; the sums are in [`ARENA`] and a test recomputes the
//! ratings from them. `docs/ratings.md` lists the numbers.

use super::Rating;
use crate::bots::Strength;
use crate::games::GameKind;

/// Random's rating in every game: an anchor (it plays no better than chance), chosen so
/// that a newcomer (1500) starts between Medium and Hard.
pub const RANDOM: f64 = 600.0;

/// The largest gap one pairing's arena score may set.
pub const MAX_GAP: f64 = 400.0;

/// A bot's deviation: the ratings are estimates from a few dozen games each, so a
/// person's game against a bot counts a little less than one against a well-known person.
pub const DEVIATION: f64 = 80.0;

/// An arena score of the stronger side: wins, draws, losses.
pub type Score = (u32, u32, u32);

/// Pooled arena results of the stronger side, per game, for easy vs random, medium vs easy
/// and hard vs medium.
pub const ARENA: [(GameKind, [Score; 3]); 4] = [
    // docs/bots/gomoku.md: 20/0/0; 16/1/3 + 31/3/6; 17/0/3 + 6/0/0 + 15/2/3.
    (GameKind::Gomoku, [(20, 0, 0), (47, 4, 9), (38, 2, 6)]),
    // docs/bots/lines-of-action.md: 20/0/0; 19/0/1 + 19/0/1; 20/0/0 + 20/0/0 + 6/0/0.
    (GameKind::LinesOfAction, [(20, 0, 0), (38, 0, 2), (46, 0, 0)]),
    // docs/bots/krux.md: 20/0/0; 16/0/4 + 35/0/5 + 16/0/4; 20/0/0 + 19/0/1 + 8/0/0.
    (GameKind::Krux, [(20, 0, 0), (67, 0, 13), (47, 0, 1)]),
    // docs/bots/bughouse.md: 20/0/0; 18/1/1; 20/0/0 + 20/0/0 + 4/0/0.
    (GameKind::Bughouse, [(20, 0, 0), (18, 1, 1), (44, 0, 0)]),
];

/// The fixed ratings (random, easy, medium, hard) per game, rounded to 10 points.
const RATINGS: [(GameKind, [f64; 4]); 4] = [
    (GameKind::Gomoku, [600.0, 1000.0, 1250.0, 1540.0]),
    (GameKind::LinesOfAction, [600.0, 1000.0, 1400.0, 1800.0]),
    (GameKind::Krux, [600.0, 1000.0, 1280.0, 1680.0]),
    (GameKind::Bughouse, [600.0, 1000.0, 1390.0, 1790.0]),
];

/// A bot's fixed rating in a game.
pub fn rating(game: GameKind, strength: Strength) -> Rating {
    let ladder = RATINGS
        .iter()
        .find(|(kind, _)| *kind == game)
        .map_or([RANDOM; 4], |(_, ladder)| *ladder);
    let index = match strength {
        Strength::Random => 0,
        Strength::Easy => 1,
        Strength::Medium => 2,
        Strength::Hard => 3,
    };
    Rating {
        rating: ladder[index],
        deviation: DEVIATION,
        volatility: super::NEWCOMER.volatility,
    }
}

/// The Elo gap the arena score `(wins, draws, losses)` of the stronger side implies,
/// smoothed and capped as the module doc says.
pub fn elo_gap(wins: u32, draws: u32, losses: u32) -> f64 {
    let games = f64::from(wins + draws + losses);
    let score = (f64::from(wins) + f64::from(draws) / 2.0 + 0.5) / (games + 1.0);
    (400.0 * (score / (1.0 - score)).log10()).min(MAX_GAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratings_follow_from_the_arena_results() {
        for (game, pairings) in ARENA {
            let mut ladder = [RANDOM; 4];
            for (step, (w, d, l)) in pairings.into_iter().enumerate() {
                ladder[step + 1] = ladder[step] + elo_gap(w, d, l);
            }
            let rounded = ladder.map(|r| (r / 10.0).round() * 10.0);
            let strengths = [Strength::Random, Strength::Easy, Strength::Medium, Strength::Hard];
            let fixed = strengths.map(|s| rating(game, s).rating);
            assert_eq!(fixed, rounded, "{game:?}: {ladder:?}");
        }
    }

    #[test]
    fn the_gap_of_an_even_score_is_zero_and_a_sweep_is_capped() {
        assert!(elo_gap(10, 0, 10).abs() < 1e-9);
        assert_eq!(elo_gap(20, 0, 0), MAX_GAP);
        assert!(elo_gap(3, 0, 1) > 0.0);
    }
}
