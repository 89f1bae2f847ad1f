//! The Glicko-2 rating system, as Mark Glickman describes it in "Example of the Glicko-2
//! system" (Boston University, 2013): pure arithmetic, no I/O.
//!
//! A rating is a value (1500 for a newcomer), a deviation (how sure we are of the value:
//! 350 for a newcomer) and a volatility (how erratic the player's results are: 0.06). One
//! call of [`update`] is one rating period; the server rates every finished game as a
//! period of its own, as online servers do (lichess too), so a player's rating moves after
//! each game. The steps below are numbered as in the paper.

use std::f64::consts::PI;

/// The factor between the Glicko scale (1500 ± 350) and the Glicko-2 scale (0 ± 2.01).
pub const SCALE: f64 = 173.7178;

/// The centre of the Glicko scale: a rating of 1500 is 0 on the Glicko-2 scale.
pub const CENTRE: f64 = 1500.0;

/// The convergence tolerance of the volatility iteration (step 5), as in the paper.
const EPSILON: f64 = 0.000_001;

/// A player's rating on the Glicko scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The estimate of the player's strength (1500 for a newcomer).
    pub rating: f64,
    /// The rating deviation (RD): one standard deviation of the estimate, in rating points.
    pub deviation: f64,
    /// σ: the degree of expected fluctuation in the player's rating.
    pub volatility: f64,
}

/// One game of a rating period, seen from the player being rated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Game {
    /// The opponent's rating and deviation (their volatility plays no part).
    pub opponent: Rating,
    /// 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
}

/// g(φ): how much a game counts, less the less sure the opponent's rating is (step 3).
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// E(μ, μj, φj): the expected score against an opponent (step 3).
fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The player's rating after a rating period in which they played `games`, with the
/// system constant τ (`tau`, which limits how fast the volatility may change; the paper
/// suggests 0.3 to 1.2). With no games, only the deviation grows (step 6 alone).
pub fn update(player: Rating, games: &[Game], tau: f64) -> Rating {
    // Step 2: to the Glicko-2 scale.
    let mu = (player.rating - CENTRE) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    if games.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Rating {
            deviation: phi_star * SCALE,
            ..player
        };
    }
    let opponents: Vec<(f64, f64, f64)> = games
        .iter()
        .map(|game| {
            let mu_j = (game.opponent.rating - CENTRE) / SCALE;
            let phi_j = game.opponent.deviation / SCALE;
            (mu_j, phi_j, game.score)
        })
        .collect();
    // Steps 3 and 4: the estimated variance of the rating from the games alone, and the
    // estimated improvement (Δ = v · improvement).
    let (v, improvement) = estimates(mu, &opponents);
    let delta = v * improvement;
    // Step 5: the new volatility.
    let sigma = new_volatility(delta, phi, v, sigma, tau);
    // Step 6: the pre-period deviation.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    // Step 7: the new deviation and rating.
    let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu = mu + phi * phi * improvement;
    // Step 8: back to the Glicko scale.
    Rating {
        rating: SCALE * mu + CENTRE,
        deviation: SCALE * phi,
        volatility: sigma,
    }
}

/// Steps 3 and 4: v, the estimated variance of the rating from the games alone, and
/// Σ g(φj)(sj − E), the improvement per unit of v; `opponents` are (μj, φj, sj).
fn estimates(mu: f64, opponents: &[(f64, f64, f64)]) -> (f64, f64) {
    let mut information = 0.0;
    let mut improvement = 0.0;
    for &(mu_j, phi_j, score) in opponents {
        let e = expected(mu, mu_j, phi_j);
        information += g(phi_j) * g(phi_j) * e * (1.0 - e);
        improvement += g(phi_j) * (score - e);
    }
    (1.0 / information, improvement)
}

/// Step 5: σ′, the root of f by the Illinois algorithm (a regula falsi that halves the
/// stale end), as the paper's "procedure 5" gives it.
fn new_volatility(delta: f64, phi: f64, v: f64, sigma: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let denominator = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * denominator * denominator) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        // f is positive far enough below a; the paper's loop, bounded for safety.
        while f(a - k * tau) < 0.0 && k < 1_000.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    let mut steps = 0;
    while (big_b - big_a).abs() > EPSILON && steps < 1_000 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        steps += 1;
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    /// The paper's worked example: a 1500/200/0.06 player beats a 1400/30 player, loses
    /// to a 1550/100 player and to a 1700/300 player, with τ = 0.5. The paper states, on
    /// the Glicko-2 scale to four decimals, μ′ = −0.2069, φ′ = 0.8722 and σ′ = 0.05999, and
    /// from those r′ = 1464.06 and RD′ = 151.52. Exact arithmetic gives r′ = 1464.0507 (the
    /// paper converts the rounded μ′), so the rating is checked to within 0.01; σ′ is exactly
    /// 0.0599960, checked to within the paper's last digit.
    #[test]
    fn glickmans_worked_example() {
        let games = [
            Game {
                opponent: rating(1400.0, 30.0),
                score: 1.0,
            },
            Game {
                opponent: rating(1550.0, 100.0),
                score: 0.0,
            },
            Game {
                opponent: rating(1700.0, 300.0),
                score: 0.0,
            },
        ];
        let after = update(rating(1500.0, 200.0), &games, 0.5);
        let mu = (after.rating - CENTRE) / SCALE;
        let phi = after.deviation / SCALE;
        assert_eq!(format!("{mu:.4}"), "-0.2069", "{after:?}");
        assert_eq!(format!("{phi:.4}"), "0.8722", "{after:?}");
        // Exactly 0.0599960: the paper's 0.05999 to within its last digit.
        assert!((after.volatility - 0.05999).abs() < 0.000_01, "{after:?}");
        assert_eq!(format!("{:.2}", after.deviation), "151.52", "{after:?}");
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
    }

    /// The paper's intermediate values: v = 1.7785, Δ = −0.4834 (on the Glicko-2 scale;
    /// the paper's Δ is summed from E and g rounded to three or four places, exactly it is
    /// −0.48392).
    #[test]
    fn intermediate_quantities_match_the_paper() {
        let mu = 0.0;
        let opponents = [(-0.5756, 0.1727, 1.0), (0.2878, 0.5756, 0.0), (1.1513, 1.7269, 0.0)];
        let (v, improvement) = estimates(mu, &opponents);
        let delta = v * improvement;
        assert!((v - 1.7785).abs() < 0.0005, "v = {v}");
        assert!((delta - -0.4834).abs() < 0.001, "Δ = {delta}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let after = update(rating(1600.0, 50.0), &[], 0.5);
        assert_eq!(after.rating, 1600.0);
        assert!((after.deviation - (50.0f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn winning_raises_and_losing_lowers_symmetrically() {
        let newcomer = Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        };
        let won = update(
            newcomer,
            &[Game {
                opponent: newcomer,
                score: 1.0,
            }],
            0.5,
        );
        let lost = update(
            newcomer,
            &[Game {
                opponent: newcomer,
                score: 0.0,
            }],
            0.5,
        );
        assert!(won.rating > 1600.0);
        assert!((won.rating - 1500.0 + (lost.rating - 1500.0)).abs() < 1e-6);
        assert!(won.deviation < 350.0);
        let drawn = update(
            newcomer,
            &[Game {
                opponent: newcomer,
                score: 0.5,
            }],
            0.5,
        );
        assert!((drawn.rating - 1500.0).abs() < 1e-9);
    }
}
