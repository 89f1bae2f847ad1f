//! Time as material (Hard): how the four clocks change the bot's thinking.
//!
//! In bughouse a player low on time loses however good the position, and the opponent on
//! the same board can simply wait. So when the bot is behind its own opponent on time it
//! thinks less per move and less deep (simpler, faster moves); far behind, much less.
//! When it is well ahead on time it can afford to sit tight: it weighs its king's safety
//! more (it plays safer instead of sharper).

use std::time::Duration;

use spelbord_games::Seat;

/// How the clocks shape one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The share of the granted budget to use, in percent.
    pub budget_pct: u32,
    /// The deepest iteration allowed.
    pub depth_cap: i32,
    /// King-safety weight in percent.
    pub safety_pct: i32,
}

impl Plan {
    /// No clock information: the full budget.
    pub const FULL: Plan = Plan {
        budget_pct: 100,
        depth_cap: 64,
        safety_pct: 100,
    };
}

/// Under this, the bot plays fast whatever the opponent has.
const LOW: Duration = Duration::from_secs(10);

/// Ahead by this much, the bot plays safer.
const COMFORT: Duration = Duration::from_secs(20);

/// The plan for `seat` given every seat's remaining time (seat order).
pub fn plan(clocks: Option<&[Duration]>, seat: Seat) -> Plan {
    let Some(clocks) = clocks else {
        return Plan::FULL;
    };
    let (Some(&mine), Some(&theirs)) = (clocks.get(usize::from(seat)), clocks.get(usize::from(seat ^ 1))) else {
        return Plan::FULL;
    };
    let mut plan = Plan::FULL;
    if mine < LOW {
        plan.budget_pct = 30;
        plan.depth_cap = 4;
    } else if mine * 2 < theirs {
        plan.budget_pct = 40;
        plan.depth_cap = 6;
    } else if mine * 5 < theirs * 4 {
        plan.budget_pct = 70;
    }
    if mine > theirs + COMFORT {
        plan.safety_pct = 130;
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(values: [u64; 4]) -> Vec<Duration> {
        values.into_iter().map(Duration::from_secs).collect()
    }

    #[test]
    fn behind_on_time_plays_faster_and_ahead_plays_safer() {
        assert_eq!(plan(None, 0), Plan::FULL);
        assert_eq!(plan(Some(&secs([100, 100, 100, 100])), 0), Plan::FULL);
        let behind = plan(Some(&secs([40, 100, 100, 100])), 0);
        assert!(behind.budget_pct < 100 && behind.depth_cap < 64);
        let low = plan(Some(&secs([100, 100, 100, 5])), 3);
        assert!(low.budget_pct <= behind.budget_pct);
        // Seat 1's opponent is seat 0.
        assert_eq!(plan(Some(&secs([60, 100, 100, 100])), 1).safety_pct, 130);
    }
}
