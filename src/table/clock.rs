//! The table's clocks: one per seat, any number running at once (Bughouse runs two), all
//! read against `tokio::time::Instant` so tests drive them with paused time.
//!
//! The clock is the server's alone: a seat's flag falls when its remaining time reaches
//! zero, at `running_since + remaining`, and the table's timer wakes at exactly that
//! instant. Pure bookkeeping here; the table actor owns the timer.
//!
//! # Lag compensation
//! A client may report how long the player actually thought (`think_ms` on `move`). The
//! server measured `measured` (from the moment the clock started to the moment the move
//! arrived, network delays included). The difference is the lag the client claims:
//!
//! ```text
//! claimed = max(0, measured − reported)
//! credit  = min(claimed, quota)             // given back to the mover
//! quota   = min(quota − credit + LAG_REFILL, LAG_CAP)
//! charged = measured − credit
//! ```
//!
//! Each seat starts a game with [`LAG_QUOTA_START`] of quota. So a laggy connection gets
//! its real lag back (up to the quota), and a lying client gains at most the quota it has
//! — never more than [`LAG_CAP`] on one move and [`LAG_REFILL`] per move in the long run.
//! Correspondence games have no lag compensation.

use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use super::time_control::TimeControl;
use crate::games::{Seat, SeatSet};

/// Lag quota each seat starts a game with.
pub const LAG_QUOTA_START: Duration = Duration::from_millis(500);
/// Lag quota added after each of a seat's moves.
pub const LAG_REFILL: Duration = Duration::from_millis(100);
/// Most lag quota a seat can hold (and so the most one move can be credited).
pub const LAG_CAP: Duration = Duration::from_millis(1_000);

/// One seat's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SeatClock {
    /// Time left when the clock last stopped (or started).
    remaining: Duration,
    /// When the clock started running, if it runs.
    running_since: Option<Instant>,
    lag_quota: Duration,
}

/// What the clocks did with one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveTiming {
    /// Time the server measured from the clock's start to the move.
    pub measured: Duration,
    /// Time given back for lag.
    pub lag_credit: Duration,
}

/// The clocks of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    seats: Vec<SeatClock>,
}

/// The clocks as clients see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// The time control's kind (`fischer`, ...).
    pub kind: &'static str,
    /// Each seat's remaining time in milliseconds, as of the message.
    pub remaining_ms: Vec<u64>,
    /// The seats whose clocks run (count down from `remaining_ms`).
    pub running: Vec<Seat>,
}

impl Clocks {
    /// Clocks for `seat_count` seats, all stopped at the control's initial time; `None`
    /// for an untimed table.
    pub fn new(control: TimeControl, seat_count: usize) -> Option<Clocks> {
        control.is_timed().then(|| Clocks {
            control,
            seats: vec![
                SeatClock {
                    remaining: control.initial(),
                    running_since: None,
                    lag_quota: LAG_QUOTA_START,
                };
                seat_count
            ],
        })
    }

    /// Clocks restored from stored remaining times (e.g. after a restart), all stopped.
    pub fn restored(control: TimeControl, remaining: &[Duration]) -> Option<Clocks> {
        let mut clocks = Clocks::new(control, remaining.len())?;
        for (clock, left) in clocks.seats.iter_mut().zip(remaining) {
            clock.remaining = *left;
        }
        Some(clocks)
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Starts the clocks of `seats` that are not running yet (a per-move control gives
    /// each a fresh allowance).
    pub fn start(&mut self, seats: SeatSet, now: Instant) {
        for seat in seats.iter() {
            let reset = self.control.resets_each_turn();
            let initial = self.control.initial();
            if let Some(clock) = self.seats.get_mut(usize::from(seat))
                && clock.running_since.is_none()
            {
                if reset {
                    clock.remaining = initial;
                }
                clock.running_since = Some(now);
            }
        }
    }

    /// Starts a seat's clock with a given remaining time (restoring a running clock).
    pub fn resume(&mut self, seat: Seat, remaining: Duration, now: Instant) {
        if let Some(clock) = self.seats.get_mut(usize::from(seat)) {
            clock.remaining = remaining;
            clock.running_since = Some(now);
        }
    }

    /// Time left on a seat's clock at `now` (zero once flagged).
    pub fn remaining(&self, seat: Seat, now: Instant) -> Duration {
        self.seats
            .get(usize::from(seat))
            .map_or(Duration::ZERO, |clock| remaining_at(clock, now))
    }

    pub fn is_running(&self, seat: Seat) -> bool {
        self.seats
            .get(usize::from(seat))
            .is_some_and(|clock| clock.running_since.is_some())
    }

    /// The earliest instant a running clock reaches zero.
    pub fn next_flag(&self) -> Option<Instant> {
        self.seats
            .iter()
            .filter_map(|clock| clock.running_since.map(|since| since + clock.remaining))
            .min()
    }

    /// A running seat whose time is up at `now` (the first, if several).
    pub fn flagged(&self, now: Instant) -> Option<Seat> {
        self.seats
            .iter()
            .enumerate()
            .find(|(_, clock)| clock.running_since.is_some() && remaining_at(clock, now).is_zero())
            .and_then(|(index, _)| Seat::try_from(index).ok())
    }

    /// Accounts for a move by `seat`. When its turn is over, its clock stops (charged the
    /// measured time less any lag credit, plus the increment) and the clocks of `active`
    /// start; within a multi-part turn the clock just keeps running.
    pub fn moved(
        &mut self,
        seat: Seat,
        turn_over: bool,
        reported: Option<Duration>,
        active: SeatSet,
        now: Instant,
    ) -> MoveTiming {
        let control = self.control;
        let mut timing = MoveTiming {
            measured: Duration::ZERO,
            lag_credit: Duration::ZERO,
        };
        if turn_over {
            if let Some(clock) = self.seats.get_mut(usize::from(seat))
                && let Some(since) = clock.running_since.take()
            {
                let measured = now.saturating_duration_since(since);
                let claimed = match reported {
                    Some(reported) if !control.is_correspondence() => measured.saturating_sub(reported),
                    _ => Duration::ZERO,
                };
                let credit = claimed.min(clock.lag_quota);
                clock.lag_quota = (clock.lag_quota - credit + LAG_REFILL).min(LAG_CAP);
                clock.remaining = clock.remaining.saturating_sub(measured - credit) + control.increment();
                timing = MoveTiming {
                    measured,
                    lag_credit: credit,
                };
            }
            // Any other seat no longer to move stops too (never the case in turn-based games).
            for (index, clock) in self.seats.iter_mut().enumerate() {
                let still_active = Seat::try_from(index).is_ok_and(|s| active.contains(s));
                if !still_active && let Some(since) = clock.running_since.take() {
                    clock.remaining = clock.remaining.saturating_sub(now.saturating_duration_since(since));
                }
            }
            self.start(active, now);
        }
        timing
    }

    /// Stops every clock (the game is over), keeping what is left.
    pub fn stop_all(&mut self, now: Instant) {
        for clock in &mut self.seats {
            if let Some(since) = clock.running_since.take() {
                clock.remaining = clock.remaining.saturating_sub(now.saturating_duration_since(since));
            }
        }
    }

    /// Every seat's remaining time at `now`, in milliseconds (stored with each move).
    pub fn remaining_ms(&self, now: Instant) -> Vec<u64> {
        self.seats
            .iter()
            .map(|clock| u64::try_from(remaining_at(clock, now).as_millis()).unwrap_or(u64::MAX))
            .collect()
    }

    pub fn view(&self, now: Instant) -> ClockView {
        ClockView {
            kind: self.control.kind(),
            remaining_ms: self.remaining_ms(now),
            running: self
                .seats
                .iter()
                .enumerate()
                .filter(|(_, clock)| clock.running_since.is_some())
                .filter_map(|(index, _)| Seat::try_from(index).ok())
                .collect(),
        }
    }
}

fn remaining_at(clock: &SeatClock, now: Instant) -> Duration {
    match clock.running_since {
        Some(since) => clock.remaining.saturating_sub(now.saturating_duration_since(since)),
        None => clock.remaining,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::time_control::CorrespondenceUnit;
    use tokio::time::advance;

    const MS: Duration = Duration::from_millis(1);

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    fn sudden(base: u64) -> Clocks {
        Clocks::new(TimeControl::SuddenDeath { base: secs(base) }, 2).expect("timed")
    }

    #[test]
    fn untimed_tables_have_no_clocks() {
        assert!(Clocks::new(TimeControl::None, 2).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn flag_falls_exactly_at_zero_and_not_a_millisecond_before() {
        let mut clocks = sudden(60);
        let start = Instant::now();
        clocks.start(SeatSet::only(0), start);
        assert_eq!(clocks.next_flag(), Some(start + secs(60)));
        advance(secs(60) - MS).await;
        assert_eq!(clocks.flagged(Instant::now()), None);
        assert_eq!(clocks.remaining(0, Instant::now()), MS);
        advance(MS).await;
        assert_eq!(clocks.flagged(Instant::now()), Some(0));
        assert_eq!(clocks.remaining(0, Instant::now()), Duration::ZERO);
        assert_eq!(
            clocks.remaining(1, Instant::now()),
            secs(60),
            "the other clock did not run"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_move_stops_the_movers_clock_and_starts_the_next() {
        let mut clocks = sudden(60);
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(10)).await;
        let timing = clocks.moved(0, true, None, SeatSet::only(1), Instant::now());
        assert_eq!(timing.measured, secs(10));
        advance(secs(7)).await;
        let now = Instant::now();
        assert_eq!(clocks.remaining(0, now), secs(50));
        assert_eq!(clocks.remaining(1, now), secs(53));
        assert_eq!(clocks.view(now).running, vec![1]);
    }

    #[tokio::test(start_paused = true)]
    async fn fischer_adds_the_increment_after_each_move() {
        let control = TimeControl::Fischer {
            base: secs(60),
            increment: secs(2),
        };
        let mut clocks = Clocks::new(control, 2).expect("timed");
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(5)).await;
        clocks.moved(0, true, None, SeatSet::only(1), Instant::now());
        assert_eq!(clocks.remaining(0, Instant::now()), secs(57));
        advance(secs(1)).await;
        clocks.moved(1, true, None, SeatSet::only(0), Instant::now());
        assert_eq!(
            clocks.remaining(1, Instant::now()),
            secs(61),
            "an increment can exceed the base"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn per_move_clock_resets_each_turn() {
        let mut clocks = Clocks::new(TimeControl::PerMove { per_move: secs(30) }, 2).expect("timed");
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(25)).await;
        clocks.moved(0, true, None, SeatSet::only(1), Instant::now());
        advance(secs(29)).await;
        clocks.moved(1, true, None, SeatSet::only(0), Instant::now());
        assert_eq!(clocks.remaining(0, Instant::now()), secs(30), "a fresh allowance for X");
        advance(secs(30) - MS).await;
        assert_eq!(clocks.flagged(Instant::now()), None);
        advance(MS).await;
        assert_eq!(clocks.flagged(Instant::now()), Some(0));
    }

    #[tokio::test(start_paused = true)]
    async fn within_a_multi_part_turn_the_clock_keeps_running() {
        let mut clocks = sudden(60);
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(3)).await;
        clocks.moved(0, false, None, SeatSet::only(0), Instant::now());
        advance(secs(4)).await;
        assert!(clocks.is_running(0));
        assert_eq!(clocks.remaining(0, Instant::now()), secs(53));
        clocks.moved(0, true, None, SeatSet::only(1), Instant::now());
        assert_eq!(clocks.remaining(0, Instant::now()), secs(53));
        assert!(!clocks.is_running(0) && clocks.is_running(1));
    }

    #[tokio::test(start_paused = true)]
    async fn two_clocks_run_at_once() {
        let mut clocks = Clocks::new(TimeControl::SuddenDeath { base: secs(180) }, 4).expect("timed");
        clocks.start(SeatSet::only(0).with(2), Instant::now());
        advance(secs(10)).await;
        // A move on the first board hands that board's clock over; the second board runs on.
        clocks.moved(0, true, None, SeatSet::only(1).with(2), Instant::now());
        advance(secs(5)).await;
        let now = Instant::now();
        assert_eq!(clocks.remaining_ms(now), vec![170_000, 175_000, 165_000, 180_000]);
        assert_eq!(clocks.view(now).running, vec![1, 2]);
        assert_eq!(clocks.next_flag(), Some(now + secs(165)));
    }

    #[tokio::test(start_paused = true)]
    async fn lag_credit_is_bounded_by_the_quota() {
        let mut clocks = sudden(60);
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(5)).await;
        // The client claims it thought for 1 s of the 5 s measured: 4 s of claimed lag.
        let timing = clocks.moved(0, true, Some(secs(1)), SeatSet::only(1), Instant::now());
        assert_eq!(timing.lag_credit, LAG_QUOTA_START);
        assert_eq!(clocks.remaining(0, Instant::now()), secs(55) + LAG_QUOTA_START);
        // The quota is spent: the next claim gets only the refill.
        clocks.moved(1, true, None, SeatSet::only(0), Instant::now());
        advance(secs(5)).await;
        let timing = clocks.moved(0, true, Some(Duration::ZERO), SeatSet::only(1), Instant::now());
        assert_eq!(timing.lag_credit, LAG_REFILL);
    }

    #[tokio::test(start_paused = true)]
    async fn honest_small_lag_is_credited_in_full_and_the_quota_refills_to_its_cap() {
        let mut clocks = sudden(600);
        clocks.start(SeatSet::only(0), Instant::now());
        for _ in 0..20 {
            advance(Duration::from_millis(2_050)).await;
            let timing = clocks.moved(0, true, Some(secs(2)), SeatSet::only(1), Instant::now());
            assert_eq!(
                timing.lag_credit,
                Duration::from_millis(50),
                "real 50 ms lag is given back"
            );
            clocks.moved(1, true, None, SeatSet::only(0), Instant::now());
        }
        // The quota grew by 50 ms net per move, to the cap and no further.
        advance(secs(10)).await;
        let timing = clocks.moved(0, true, Some(Duration::ZERO), SeatSet::only(1), Instant::now());
        assert_eq!(timing.lag_credit, LAG_CAP);
    }

    #[tokio::test(start_paused = true)]
    async fn a_report_longer_than_measured_earns_nothing() {
        let mut clocks = sudden(60);
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(2)).await;
        let timing = clocks.moved(0, true, Some(secs(9)), SeatSet::only(1), Instant::now());
        assert_eq!(timing.lag_credit, Duration::ZERO);
        assert_eq!(clocks.remaining(0, Instant::now()), secs(58));
    }

    #[tokio::test(start_paused = true)]
    async fn correspondence_has_no_lag_credit() {
        let control = TimeControl::Correspondence {
            per_move: secs(86_400),
            unit: CorrespondenceUnit::Days,
        };
        let mut clocks = Clocks::new(control, 2).expect("timed");
        clocks.start(SeatSet::only(0), Instant::now());
        advance(secs(100)).await;
        let timing = clocks.moved(0, true, Some(Duration::ZERO), SeatSet::only(1), Instant::now());
        assert_eq!(timing.lag_credit, Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn restored_clocks_resume_from_stored_times() {
        let mut clocks =
            Clocks::restored(TimeControl::SuddenDeath { base: secs(60) }, &[secs(12), secs(40)]).expect("timed");
        clocks.resume(1, secs(40), Instant::now());
        advance(secs(40)).await;
        assert_eq!(clocks.flagged(Instant::now()), Some(1));
        assert_eq!(clocks.remaining(0, Instant::now()), secs(12));
    }
}
