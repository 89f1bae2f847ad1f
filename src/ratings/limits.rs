//! What keeps ratings from being farmed with two tokens (docs/ratings.md, "Games that are
//! not rated"), as lichess does:
//!
//! - **Two turns each.** A game at a rated table that ends outside the rules (a
//!   resignation, an agreed draw, a flag, an absence) before every seat has played two
//!   turns is aborted: no winner, no rating change, nothing in a series
//!   ([`abort_if_unplayed`]). A turn is a run of moves by one seat in the game's line (a
//!   Krux turn is made of parts); the line is what stands after take-backs.
//! - **A bound per pair.** At most [`PAIR_LIMIT`] rated games between the same two player
//!   keys, on opposite sides, in any [`PAIR_WINDOW_HOURS`] hours; a game beyond it is played
//!   and stored with its result, but changes no rating ([`Unrated::PAIR_LIMIT`]). The store
//!   counts the pair's games in the transaction that would rate the game, after locking the
//!   players' ratings (the store's `ratings` module).
//!
//! Pure code: the store and the table actor call it.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Rated, RatedGame, RatingChange};
use crate::games::{GameResult, Outcome, Seat};
use crate::identity::PlayerKey;

/// Turns every seat must have played before a game at a rated table can be rated.
pub const MIN_TURNS: u32 = 2;

/// The rule an aborted game's `detail.rule` names when it ended before every seat had
/// played [`MIN_TURNS`] turns.
pub const TOO_FEW_MOVES: &str = "aborted_before_two_moves_each";

/// The most rated games two player keys may play against each other in
/// [`PAIR_WINDOW_HOURS`]: one whole `ten_games` series, or two best-of-fives.
pub const PAIR_LIMIT: u32 = 10;

/// The window of [`PAIR_LIMIT`], in hours (a rolling window: the count is of the games
/// rated in the last 24 hours, whenever the game ends).
pub const PAIR_WINDOW_HOURS: u32 = 24;

/// How many turns each of `seats` seats has played in a line whose moves were played by
/// `movers`, in order: a run of consecutive moves by one seat is one turn (a Krux turn of
/// several parts; in the other games every move is a turn, and no seat moves twice in a
/// row — in Bughouse each board alternates, so each seat is counted on its own board).
pub fn turns_by_seat(movers: impl IntoIterator<Item = Seat>, seats: usize) -> Vec<u32> {
    let mut turns = vec![0u32; seats];
    let mut last = None;
    for mover in movers {
        if last != Some(mover)
            && let Some(count) = turns.get_mut(usize::from(mover))
        {
            *count += 1;
        }
        last = Some(mover);
    }
    turns
}

/// Whether every seat has played [`MIN_TURNS`] turns (`turns` from [`turns_by_seat`]).
pub fn everyone_played(turns: &[u32]) -> bool {
    turns.iter().all(|count| *count >= MIN_TURNS)
}

/// The outcome of a game at a rated table that ends outside its rules (a resignation, an
/// agreed draw, a flag, an absence) with `turns` played by each seat: `outcome` itself
/// once every seat has played [`MIN_TURNS`] turns (or when it is already aborted);
/// before that, aborted — no winner, the same reason, and a detail naming the rule
/// ([`TOO_FEW_MOVES`]) that keeps the original's seat and role (whose flag fell, who left).
///
/// Ends by the rules on the board are never passed here: they stand however early they
/// come (a Krux piece pushed into the hole in black's first turn, a Bughouse mate on one
/// board while the other has barely begun: results made on the board).
pub fn abort_if_unplayed(outcome: Outcome, turns: &[u32]) -> Outcome {
    if outcome.result == GameResult::Aborted || everyone_played(turns) {
        return outcome;
    }
    let mut detail = match outcome.detail {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    detail.insert("rule".to_owned(), Value::from(TOO_FEW_MOVES));
    Outcome {
        result: GameResult::Aborted,
        reason: outcome.reason,
        detail: Value::Object(detail),
    }
}

/// Why a game with a result changed no rating at a rated table (`unrated` in `game_over`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Unrated {
    /// `pair_limit`: two of its players had played [`PAIR_LIMIT`] rated games against each
    /// other within [`PAIR_WINDOW_HOURS`].
    pub reason: &'static str,
    /// The bound.
    pub limit: u32,
    /// Its window, in hours.
    pub hours: u32,
}

impl Unrated {
    pub const PAIR_LIMIT: Unrated = Unrated {
        reason: "pair_limit",
        limit: PAIR_LIMIT,
        hours: PAIR_WINDOW_HOURS,
    };
}

/// What a finished game did to the ratings: the changes, or none and why not when the
/// reason is the bound (an aborted game, an unrated table and the rest say nothing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameRating {
    pub changes: Vec<RatingChange>,
    pub unrated: Option<Unrated>,
}

/// Every pair of people on opposite sides of `game`, each pair once (the first of a pair
/// is on the lower team): the pairs whose games [`PAIR_LIMIT`] bounds. In Bughouse that is
/// each player with each of the other team's (partners are not bounded: a team may play on
/// together against other teams).
pub fn opposing_pairs(game: &RatedGame) -> Vec<(PlayerKey, PlayerKey)> {
    let mut pairs = Vec::new();
    for first in &game.seats {
        for second in &game.seats {
            let (Rated::Person(a), Rated::Person(b)) = (first.holder, second.holder) else {
                continue;
            };
            if first.team < second.team && a != b && !pairs.contains(&(a, b)) {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// Each seat's team, indexed by seat (for the store's query, which tells opponents from
/// partners in past games by their seats: a game kind's teams are the same in every game).
pub fn teams_by_seat(game: &RatedGame) -> Vec<i16> {
    let size = game
        .seats
        .iter()
        .map(|seat| usize::from(seat.seat) + 1)
        .max()
        .unwrap_or(0);
    let mut teams: Vec<i16> = (0..size).map(|seat| i16::try_from(seat).unwrap_or(i16::MAX)).collect();
    for seat in &game.seats {
        teams[usize::from(seat.seat)] = i16::from(seat.team);
    }
    teams
}

/// Whether a game is beyond the bound, given the most rated games any of its opposing
/// pairs played against each other within the window before it.
pub fn pair_limit_reached(most_games_of_a_pair: i64) -> bool {
    most_games_of_a_pair >= i64::from(PAIR_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{EndReason, GameKind};
    use crate::ratings::RatedSeat;
    use serde_json::json;

    fn key(n: u8) -> PlayerKey {
        PlayerKey::from_bytes(&[n; 32]).unwrap()
    }

    #[test]
    fn a_turn_is_a_run_of_moves_by_one_seat() {
        assert_eq!(turns_by_seat([], 2), vec![0, 0]);
        assert_eq!(turns_by_seat([0, 1, 0], 2), vec![2, 1]);
        // Krux: a turn of three parts, then one of two.
        assert_eq!(turns_by_seat([0, 0, 0, 1, 1], 2), vec![1, 1]);
        // Bughouse: both boards interleaved, each seat counted on its own.
        assert_eq!(turns_by_seat([0, 2, 1, 0, 3, 1, 2], 4), vec![2, 2, 2, 1]);
        // A seat the game does not have is ignored.
        assert_eq!(turns_by_seat([0, 7, 1], 2), vec![1, 1]);
    }

    #[test]
    fn two_turns_each_are_needed() {
        assert!(!everyone_played(&turns_by_seat([0, 1, 0], 2)));
        assert!(everyone_played(&turns_by_seat([0, 1, 0, 1], 2)));
        // A Bughouse board far ahead does not make up for the other board.
        assert!(!everyone_played(&turns_by_seat([0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2], 4)));
        assert!(everyone_played(&turns_by_seat([0, 1, 0, 1, 2, 3, 2, 3], 4)));
    }

    #[test]
    fn an_early_end_outside_the_rules_is_aborted_and_keeps_its_reason_and_seat() {
        let early = [1, 1];
        let resigned = abort_if_unplayed(Outcome::win(vec![1], EndReason::Resignation), &early);
        assert_eq!(resigned.result, GameResult::Aborted);
        assert_eq!(resigned.reason, EndReason::Resignation);
        assert_eq!(resigned.detail, json!({"rule": TOO_FEW_MOVES}));
        let drawn = abort_if_unplayed(Outcome::draw(EndReason::DrawAgreed), &early);
        assert_eq!(
            (drawn.result, drawn.reason),
            (GameResult::Aborted, EndReason::DrawAgreed)
        );
        let flag = Outcome {
            detail: json!({"seat": 0, "role": "X"}),
            ..Outcome::win(vec![1], EndReason::Time)
        };
        let flagged = abort_if_unplayed(flag, &[0, 1]);
        assert_eq!(flagged.detail, json!({"seat": 0, "role": "X", "rule": TOO_FEW_MOVES}));
        let left = Outcome {
            detail: json!({"seat": 1, "role": "O", "rule": "loss_by_absence"}),
            ..Outcome::win(vec![0], EndReason::Abandoned)
        };
        let aborted = abort_if_unplayed(left, &early);
        assert_eq!(aborted.detail, json!({"seat": 1, "role": "O", "rule": TOO_FEW_MOVES}));
        assert!(aborted.winners().is_empty());
    }

    #[test]
    fn a_played_game_or_an_aborted_one_stays_as_it_ended() {
        let resigned = Outcome::win(vec![0], EndReason::Resignation);
        assert_eq!(abort_if_unplayed(resigned.clone(), &[2, 2]), resigned);
        let away = Outcome {
            result: GameResult::Aborted,
            reason: EndReason::Abandoned,
            detail: json!({"seat": 0, "role": "X", "rule": "everyone_away"}),
        };
        assert_eq!(abort_if_unplayed(away.clone(), &[0, 0]), away);
    }

    fn seat(seat: Seat, team: u8, holder: Rated) -> RatedSeat {
        RatedSeat { seat, team, holder }
    }

    #[test]
    fn the_bound_counts_opponents_not_partners() {
        let duel = RatedGame {
            game: GameKind::Gomoku,
            seats: vec![seat(0, 0, Rated::Person(key(2))), seat(1, 1, Rated::Person(key(1)))],
        };
        assert_eq!(opposing_pairs(&duel), vec![(key(2), key(1))]);
        assert_eq!(teams_by_seat(&duel), vec![0, 1]);
        // Bughouse: seats 0 and 3 against 1 and 2; four opposing pairs, not the partners.
        let match_ = RatedGame {
            game: GameKind::Bughouse,
            seats: vec![
                seat(0, 0, Rated::Person(key(1))),
                seat(1, 1, Rated::Person(key(2))),
                seat(2, 1, Rated::Person(key(3))),
                seat(3, 0, Rated::Person(key(4))),
            ],
        };
        let pairs = opposing_pairs(&match_);
        assert_eq!(
            pairs,
            vec![(key(1), key(2)), (key(1), key(3)), (key(4), key(2)), (key(4), key(3))]
        );
        assert_eq!(teams_by_seat(&match_), vec![0, 1, 1, 0]);
        // Two tokens holding both seats of a side each: one pair.
        let two_tokens = RatedGame {
            game: GameKind::Bughouse,
            seats: vec![
                seat(0, 0, Rated::Person(key(1))),
                seat(1, 1, Rated::Person(key(2))),
                seat(2, 1, Rated::Person(key(2))),
                seat(3, 0, Rated::Person(key(1))),
            ],
        };
        assert_eq!(opposing_pairs(&two_tokens), vec![(key(1), key(2))]);
    }

    #[test]
    fn the_bound_allows_ten_games_a_day() {
        assert!(!pair_limit_reached(0));
        assert!(!pair_limit_reached(9));
        assert!(pair_limit_reached(10));
        assert_eq!(
            serde_json::to_value(Unrated::PAIR_LIMIT).unwrap(),
            json!({"reason": "pair_limit", "limit": 10, "hours": 24})
        );
    }

    #[test]
    fn a_pairs_days_worth_of_farmed_wins_stays_provisional() {
        // Two newcomers, one always winning: what the bound lets one pair do in a day
        // (docs/ratings.md quotes these numbers).
        use crate::ratings::{NEWCOMER, TAU, glicko2, is_provisional};
        let (mut winner, mut loser) = (NEWCOMER, NEWCOMER);
        for _ in 0..PAIR_LIMIT {
            let won = glicko2::update(
                winner,
                &[glicko2::Game {
                    opponent: loser,
                    score: 1.0,
                }],
                TAU,
            );
            loser = glicko2::update(
                loser,
                &[glicko2::Game {
                    opponent: winner,
                    score: 0.0,
                }],
                TAU,
            );
            winner = won;
        }
        assert_eq!((winner.rating.round(), winner.deviation.round()), (1842.0, 201.0));
        assert_eq!(loser.rating.round(), 1158.0);
        assert!(is_provisional(&winner));
    }
}
