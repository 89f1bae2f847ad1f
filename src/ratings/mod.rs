//! Player ratings: Glicko-2 per player (known by their token's key) and per game, updated
//! after every finished game at a rated table. `docs/ratings.md` explains the choices.
//!
//! - [`glicko2`]: the rating system itself, pure arithmetic.
//! - [`bots`]: the fixed ratings of the computer players, calibrated from the arena.
//! - [`limits`]: what keeps ratings from being farmed: a game ended outside the rules
//!   before every seat played two turns is aborted, and two player keys play at most ten
//!   rated games against each other a day.
//! - this file: who is rated against whom in a game ([`rate`]): two sides (a player, or a
//!   Bughouse team rated as one from its partners' ratings), each person updated against
//!   the other side.
//!
//! The store (its `ratings` module) reads and locks the players' current ratings,
//! checks the bound per pair, calls [`rate`] and writes the new ones in the transaction
//! that stores the result.

pub mod bots;
pub mod glicko2;
pub mod limits;

use std::collections::HashMap;

use crate::bots::Strength;
use crate::games::{GameKind, GameResult, Outcome, Seat};
use crate::identity::PlayerKey;
pub use glicko2::Rating;
pub use limits::{GameRating, Unrated};

/// The system constant τ: how fast a player's volatility may change. Glickman suggests
/// 0.3 to 1.2; 0.5 is the value of his worked example, a middle course between trusting
/// the rating history (small τ) and following sudden changes of form (large τ).
pub const TAU: f64 = 0.5;

/// A newcomer's rating: 1500 ± 350, volatility 0.06 (the paper's starting values).
pub const NEWCOMER: Rating = Rating {
    rating: 1500.0,
    deviation: MAX_DEVIATION,
    volatility: 0.06,
};

/// No deviation grows beyond a newcomer's.
pub const MAX_DEVIATION: f64 = 350.0;

/// A rating whose deviation is above this is provisional (lichess's threshold): shown
/// marked, as the server is not yet sure of it.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// Whether a rating is still provisional.
pub fn is_provisional(rating: &Rating) -> bool {
    rating.deviation > PROVISIONAL_DEVIATION
}

/// Who holds a seat of a rated game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rated {
    /// A person, rated and updated.
    Person(PlayerKey),
    /// The computer at a strength: a fixed rating, never updated.
    Bot(Strength),
}

/// One seat of a game to rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedSeat {
    pub seat: Seat,
    /// The seat's team (its own seat number in two-player games).
    pub team: u8,
    pub holder: Rated,
}

/// A game at a rated table, as the ratings need it: the game kind (ratings are per game)
/// and who held each seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    pub game: GameKind,
    pub seats: Vec<RatedSeat>,
}

impl RatedGame {
    /// Every person of the game, each once, in a fixed order (the order the store locks
    /// their rows in, so that two games never wait for each other crosswise).
    pub fn people(&self) -> Vec<PlayerKey> {
        let mut keys: Vec<PlayerKey> = self
            .seats
            .iter()
            .filter_map(|seat| match seat.holder {
                Rated::Person(key) => Some(key),
                Rated::Bot(_) => None,
            })
            .collect();
        keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        keys.dedup();
        keys
    }
}

/// One person's rating before and after a game.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingChange {
    pub player: PlayerKey,
    /// The seats the person held in the game.
    pub seats: Vec<Seat>,
    pub before: Rating,
    pub after: Rating,
}

/// The rating changes a finished game brings, from each person's rating before it
/// (`current`; a person missing from it is a newcomer). None for an aborted game, a game
/// of fewer or more than two teams, or a game in which one person played on both sides.
///
/// Each side is rated as one player: a lone player by their rating; a team by the mean
/// of its partners' ratings and the root mean square of their deviations (as bughouse
/// servers rate a team). Each person of a side is updated, with their own rating,
/// deviation and volatility, as if they had played the other side alone.
pub fn rate(game: &RatedGame, outcome: &Outcome, current: &HashMap<PlayerKey, Rating>) -> Vec<RatingChange> {
    let mut teams: Vec<u8> = game.seats.iter().map(|seat| seat.team).collect();
    teams.sort_unstable();
    teams.dedup();
    let [first, second] = teams.as_slice() else {
        return Vec::new();
    };
    let (first, second) = (*first, *second);
    let score_of = |team: u8| -> Option<f64> {
        match &outcome.result {
            GameResult::Aborted => None,
            GameResult::Draw => Some(0.5),
            GameResult::Win { winners } => Some(
                if game
                    .seats
                    .iter()
                    .any(|seat| seat.team == team && winners.contains(&seat.seat))
                {
                    1.0
                } else {
                    0.0
                },
            ),
        }
    };
    let rating_of = |holder: Rated| match holder {
        Rated::Person(key) => current.get(&key).copied().unwrap_or(NEWCOMER),
        Rated::Bot(strength) => bots::rating(game.game, strength),
    };
    // One person on both sides: the game says nothing about their strength.
    let people = game.people();
    let on_both = people.iter().any(|key| {
        [first, second].iter().all(|team| {
            game.seats
                .iter()
                .any(|seat| seat.team == *team && seat.holder == Rated::Person(*key))
        })
    });
    if on_both {
        return Vec::new();
    }
    let side_rating = |team: u8| -> Rating {
        // Each member once (a person holding two seats of a team counts once).
        let mut members: Vec<Rated> = Vec::new();
        for seat in game.seats.iter().filter(|seat| seat.team == team) {
            if !members.contains(&seat.holder) {
                members.push(seat.holder);
            }
        }
        team_rating(&members.into_iter().map(rating_of).collect::<Vec<_>>())
    };
    let mut changes = Vec::new();
    for (team, other) in [(first, second), (second, first)] {
        let Some(score) = score_of(team) else {
            return Vec::new();
        };
        let opponent = side_rating(other);
        for key in &people {
            let seats: Vec<Seat> = game
                .seats
                .iter()
                .filter(|seat| seat.team == team && seat.holder == Rated::Person(*key))
                .map(|seat| seat.seat)
                .collect();
            if seats.is_empty() {
                continue;
            }
            let before = rating_of(Rated::Person(*key));
            let mut after = glicko2::update(before, &[glicko2::Game { opponent, score }], TAU);
            after.deviation = after.deviation.min(MAX_DEVIATION);
            changes.push(RatingChange {
                player: *key,
                seats,
                before,
                after,
            });
        }
    }
    changes
}

/// A team's rating from its members': the mean of their ratings and the root mean square
/// of their deviations (a lone player's own rating).
pub fn team_rating(members: &[Rating]) -> Rating {
    if members.is_empty() {
        return NEWCOMER;
    }
    let n = members.len() as f64;
    Rating {
        rating: members.iter().map(|m| m.rating).sum::<f64>() / n,
        deviation: (members.iter().map(|m| m.deviation * m.deviation).sum::<f64>() / n).sqrt(),
        volatility: members.iter().map(|m| m.volatility).sum::<f64>() / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::EndReason;

    fn key(n: u8) -> PlayerKey {
        PlayerKey::from_bytes(&[n; 32]).unwrap()
    }

    fn duel(a: Rated, b: Rated) -> RatedGame {
        RatedGame {
            game: GameKind::Gomoku,
            seats: vec![
                RatedSeat {
                    seat: 0,
                    team: 0,
                    holder: a,
                },
                RatedSeat {
                    seat: 1,
                    team: 1,
                    holder: b,
                },
            ],
        }
    }

    #[test]
    fn two_newcomers_move_apart_by_the_same_amount() {
        let game = duel(Rated::Person(key(1)), Rated::Person(key(2)));
        let changes = rate(&game, &Outcome::win(vec![0], EndReason::FiveInARow), &HashMap::new());
        assert_eq!(changes.len(), 2);
        let winner = changes.iter().find(|c| c.player == key(1)).unwrap();
        let loser = changes.iter().find(|c| c.player == key(2)).unwrap();
        assert_eq!(winner.seats, vec![0]);
        assert!(winner.after.rating > 1600.0);
        assert!((winner.after.rating - 1500.0 + loser.after.rating - 1500.0).abs() < 1e-6);
        assert!(is_provisional(&winner.after));
    }

    #[test]
    fn bots_are_never_updated_and_aborted_games_change_nothing() {
        let game = duel(Rated::Person(key(1)), Rated::Bot(Strength::Hard));
        let changes = rate(&game, &Outcome::draw(EndReason::DrawAgreed), &HashMap::new());
        assert_eq!(changes.len(), 1);
        // A draw against a stronger bot raises the newcomer.
        assert!(changes[0].after.rating > 1500.0);
        let aborted = Outcome {
            result: GameResult::Aborted,
            reason: EndReason::Aborted,
            detail: serde_json::Value::Null,
        };
        assert!(rate(&game, &aborted, &HashMap::new()).is_empty());
    }

    #[test]
    fn one_person_on_both_sides_is_not_rated() {
        let game = duel(Rated::Person(key(1)), Rated::Person(key(1)));
        assert!(rate(&game, &Outcome::win(vec![1], EndReason::Resignation), &HashMap::new()).is_empty());
    }

    #[test]
    fn a_bughouse_partner_is_rated_against_the_other_team_as_one() {
        // Seats 0 and 3 against 1 and 2.
        let seat = |seat, team, n| RatedSeat {
            seat,
            team,
            holder: Rated::Person(key(n)),
        };
        let game = RatedGame {
            game: GameKind::Bughouse,
            seats: vec![seat(0, 0, 1), seat(1, 1, 2), seat(2, 1, 3), seat(3, 0, 4)],
        };
        let strong = Rating {
            rating: 1900.0,
            deviation: 60.0,
            volatility: 0.06,
        };
        let weak = Rating {
            rating: 1300.0,
            deviation: 80.0,
            volatility: 0.06,
        };
        let current = HashMap::from([(key(2), strong), (key(3), weak)]);
        let changes = rate(&game, &Outcome::win(vec![0, 3], EndReason::Checkmate), &current);
        assert_eq!(changes.len(), 4);
        let change = |n| changes.iter().find(|c| c.player == key(n)).unwrap();
        // The winners, both newcomers, each beat a 1600 team of RMS deviation 70.7.
        let team = team_rating(&[strong, weak]);
        assert_eq!(team.rating, 1600.0);
        assert!((team.deviation - 5000f64.sqrt()).abs() < 1e-9);
        let expected = glicko2::update(
            NEWCOMER,
            &[glicko2::Game {
                opponent: team,
                score: 1.0,
            }],
            TAU,
        );
        assert_eq!(change(1).after, expected);
        assert_eq!(change(4).after, expected);
        // The losers each lose against the newcomers' team (1500, RD 350).
        assert!(change(2).after.rating < 1900.0);
        assert!(change(3).after.rating < 1300.0);
        assert_eq!(change(2).seats, vec![1]);
    }
}
