//! How long a bot may think for one move.
//!
//! Untimed tables give each strength a fixed budget (configurable). On a timed table the
//! bot plans to spread its remaining time over [`MOVES_TO_GO`] more moves, adds most of
//! its increment, never takes more than a fifth of what is left, and keeps a margin for
//! the time between the answer and the clock's stop; so its clock decays geometrically and
//! it never loses on time through thinking, whatever the game's length.
//!
//! What a person sees is longer than the think: the bot's move is stored (a commit)
//! before it is announced. So the table counts the store in the budget: it keeps back the
//! slowest of its recent stores ([`StoreTimes`]) from every think ([`less_store`]), and a
//! slow commit does not push the move past the budget.

use std::time::Duration;

/// How many more moves a bot plans its remaining time for.
pub const MOVES_TO_GO: u32 = 30;

/// Never spend more than this share (1/n) of the remaining time on one move.
const MAX_SHARE: u32 = 5;

/// Kept back from every budget on a clock: the queue, the answer's way to the table, and
/// the scheduler of a busy machine.
const MARGIN: Duration = Duration::from_millis(30);

/// The shortest budget: enough for the quick tactical checks every bot makes first.
pub const FLOOR: Duration = Duration::from_millis(5);

/// The store's reserve before a table has stored any move: a commit on a quiet server.
pub const STORE_GUESS: Duration = Duration::from_millis(5);

/// How many recent stores [`StoreTimes`] remembers.
const STORES_KEPT: usize = 16;

/// The durations of a table's recent stores of moves (anyone's: they share the writer).
#[derive(Debug, Clone, Default)]
pub struct StoreTimes {
    /// The last [`STORES_KEPT`] stores, oldest overwritten first.
    recent: [Duration; STORES_KEPT],
    /// How many were recorded (the next slot is this modulo [`STORES_KEPT`]).
    recorded: usize,
}

impl StoreTimes {
    /// A move's store took `took`.
    pub fn record(&mut self, took: Duration) {
        self.recent[self.recorded % STORES_KEPT] = took;
        self.recorded += 1;
    }

    /// The time to keep back for the store: the slowest of the recent stores
    /// ([`STORE_GUESS`] before the first).
    pub fn reserve(&self) -> Duration {
        if self.recorded == 0 {
            return STORE_GUESS;
        }
        self.recent
            .iter()
            .take(self.recorded)
            .copied()
            .max()
            .unwrap_or(STORE_GUESS)
    }
}

/// `think` less the store's `reserve`: never less than three quarters of `think` (a
/// store taking seconds is an outage, not a reason to stop thinking) nor below the floor.
pub fn less_store(think: Duration, reserve: Duration) -> Duration {
    think.saturating_sub(reserve.min(think / 4)).max(FLOOR.min(think))
}

/// The bot's own clock when it is asked to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// No clock (or correspondence, where days are not worth thinking for).
    None,
    /// Time left for the rest of the game, and the increment after each move.
    Game { remaining: Duration, increment: Duration },
    /// Time left for this move (the clock resets every turn).
    Move { remaining: Duration },
}

/// The time a bot whose strength's budget is `base` may think now.
pub fn think_time(base: Duration, clock: Clock) -> Duration {
    let limit = match clock {
        Clock::None => return base,
        Clock::Game { remaining, increment } => {
            let planned = remaining / MOVES_TO_GO + increment * 3 / 4;
            planned.min(remaining / MAX_SHARE)
        }
        Clock::Move { remaining } => remaining / 2,
    };
    base.min(limit.saturating_sub(MARGIN)).max(FLOOR.min(base))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HARD: Duration = Duration::from_secs(1);

    #[test]
    fn untimed_tables_use_the_strengths_budget() {
        assert_eq!(think_time(HARD, Clock::None), HARD);
    }

    #[test]
    fn a_long_clock_leaves_the_base_budget() {
        let clock = Clock::Game {
            remaining: Duration::from_secs(600),
            increment: Duration::ZERO,
        };
        assert_eq!(think_time(HARD, clock), HARD);
    }

    #[test]
    fn a_short_clock_shortens_the_budget() {
        let clock = Clock::Game {
            remaining: Duration::from_secs(3),
            increment: Duration::ZERO,
        };
        assert_eq!(think_time(HARD, clock), Duration::from_millis(70));
        let per_move = Clock::Move {
            remaining: Duration::from_millis(500),
        };
        assert_eq!(think_time(HARD, per_move), Duration::from_millis(220));
    }

    #[test]
    fn an_increment_is_mostly_spent() {
        let clock = Clock::Game {
            remaining: Duration::from_secs(3),
            increment: Duration::from_secs(1),
        };
        assert_eq!(think_time(HARD, clock), Duration::from_millis(570));
    }

    #[test]
    fn the_store_is_counted_in_the_budget() {
        let mut stores = StoreTimes::default();
        assert_eq!(stores.reserve(), STORE_GUESS);
        for ms in [3, 40, 2] {
            stores.record(Duration::from_millis(ms));
        }
        // The slowest recent store is kept back.
        assert_eq!(stores.reserve(), Duration::from_millis(40));
        assert_eq!(less_store(HARD, stores.reserve()), Duration::from_millis(960));
        // Once sixteen quicker stores came after it, it is forgotten.
        for _ in 0..16 {
            stores.record(Duration::from_millis(2));
        }
        assert_eq!(stores.reserve(), Duration::from_millis(2));
        // An outage's store takes at most a quarter; the floor stays.
        assert_eq!(less_store(HARD, Duration::from_secs(5)), Duration::from_millis(750));
        assert_eq!(less_store(FLOOR, Duration::from_millis(40)), FLOOR);
    }

    /// Bughouse bullet: 3 minutes, no increment, 150 moves each (more than a long game),
    /// every budget used in full and 10 ms lost to overhead each time: the clock never
    /// reaches zero.
    #[test]
    fn thinking_never_runs_a_clock_out() {
        let overhead = Duration::from_millis(10);
        for base in [Duration::from_millis(200), HARD, Duration::from_secs(10)] {
            let mut remaining = Duration::from_secs(180);
            for _ in 0..150 {
                let spent = think_time(
                    base,
                    Clock::Game {
                        remaining,
                        increment: Duration::ZERO,
                    },
                ) + overhead;
                assert!(spent < remaining, "{spent:?} of {remaining:?}");
                remaining -= spent;
            }
        }
    }
}
