//! Who is at the table: seated players' connections, reconnect graces, spectators.
//!
//! When the last connection of a seated player closes during a game, the seat is marked
//! away and, if the table's absence rule is `loss`, a grace timer starts (60 s by default).
//! Coming back in time (the same token on any connection) cancels it. When it runs out:
//! if every opponent is away too, or before every seat has moved, the game is aborted;
//! otherwise the absent player's team loses; all with reason `abandoned`, the detail
//! naming the seat and the rule. With the rule `wait` (correspondence) the game just
//! waits.
//!
//! A seated player's presence is announced at once. The spectator count is not: it is
//! announced at most once every [`SPECTATORS_EVERY`] ([`Audience`]), so that a crowd
//! coming and going costs each connection one frame a second rather than one per arrival
//! (a crowd counter, as large game sites keep one).

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::TableActor;
use crate::games::{EndReason, GameResult, Outcome, Seat};
use crate::identity::PlayerKey;
use crate::protocol::ServerMsg;
use crate::table::seats::Holder;
use crate::table::settings::OnAbsence;

/// At most one `spectators` event per table this often.
pub(super) const SPECTATORS_EVERY: Duration = Duration::from_secs(1);

/// The spectator count as announced, and when the next announcement may go out.
#[derive(Debug, Default)]
pub(super) struct Audience {
    /// The count last announced.
    announced: usize,
    /// When it was announced; `None` before the first announcement.
    announced_at: Option<Instant>,
    /// The count changed within [`SPECTATORS_EVERY`] of the last announcement: when the
    /// actor's loop is to announce it (see [`TableActor::announce_spectators`]).
    pub(super) due: Option<Instant>,
}

/// In [`Audience::announced`]: no count is known to everyone, so the next one is news even if
/// it equals the last announced.
const UNKNOWN: usize = usize::MAX;

impl Audience {
    /// A snapshot telling `count` was sent. If that is not the announced count, the
    /// newcomer believes another one than everyone else: the next announcement goes out even
    /// if the count is back to the announced one by then (someone who opened the link and
    /// sat down within the second would otherwise keep the snapshot's count).
    pub(super) fn told(&mut self, count: usize) {
        if count != self.announced {
            self.announced = UNKNOWN;
        }
    }

    /// Whether a count of `count` is news to someone.
    fn news(&self, count: usize) -> bool {
        count != self.announced
    }
}

impl TableActor {
    pub(super) fn is_connected(&self, key: &PlayerKey) -> bool {
        self.conns.values().any(|conn| conn.key.as_ref() == Some(key))
    }

    /// Whether a seat's holder is here: a person with an open connection, or a bot
    /// (always here).
    pub(super) fn is_present(&self, holder: &Holder) -> bool {
        match holder.key() {
            Some(key) => self.is_connected(&key),
            None => true,
        }
    }

    pub(super) fn spectator_count(&self) -> usize {
        self.conns
            .values()
            // People waiting in a rotating table's queue are players-to-be, not spectators.
            .filter(|conn| {
                conn.key
                    .is_none_or(|key| self.seats.held_by(&key).is_empty() && self.queue_place(&key).is_none())
            })
            .count()
    }

    /// Time left of a seat's reconnect grace, if its player is away with a grace running.
    pub(super) fn away_ms(&self, seat: Seat, now: Instant) -> Option<u64> {
        let deadline = self.away.get(usize::from(seat)).copied().flatten()?;
        Some(u64::try_from(deadline.saturating_duration_since(now).as_millis()).unwrap_or(u64::MAX))
    }

    /// Starts a grace for every seated player who is away during a game (if the table's
    /// rule is `loss`), and clears it for those who are back or when no game runs.
    pub(super) fn update_away(&mut self, now: Instant) {
        let playing = self.playing().is_ok();
        let grace = self.settings.grace;
        let timed_absence = playing && self.settings.on_absence == OnAbsence::Loss;
        let states: Vec<(usize, bool)> = self
            .seats
            .iter()
            .map(|(seat, holder)| {
                let away = holder.is_some_and(|holder| !self.is_present(holder));
                (usize::from(seat), away)
            })
            .collect();
        for (index, away) in states {
            if let Some(slot) = self.away.get_mut(index) {
                *slot = match (away && timed_absence, *slot) {
                    (true, Some(deadline)) => Some(deadline),
                    (true, None) => Some(now + grace),
                    (false, _) => None,
                };
            }
        }
    }

    /// Brings graces up to date and announces presence and spectator changes since the
    /// last announcement.
    pub(super) fn sync_presence(&mut self) {
        let now = Instant::now();
        self.update_away(now);
        self.players_back();
        let mut someone_back = false;
        loop {
            let changed = self.seats.iter().find_map(|(seat, holder)| {
                let connected = self.is_present(holder?);
                let announced = self.announced_presence.get(usize::from(seat)).copied();
                (announced != Some(connected)).then_some((seat, connected))
            });
            let Some((seat, connected)) = changed else { break };
            if let Some(slot) = self.announced_presence.get_mut(usize::from(seat)) {
                *slot = connected;
            }
            someone_back |= connected;
            let away_ms = self.away_ms(seat, now);
            self.event(|version| ServerMsg::Presence {
                version,
                seat,
                connected,
                away_ms,
            });
        }
        self.sync_queue_presence();
        // A person back at a table whose bots waited for one: they think again.
        if someone_back {
            self.wake_bots();
        }
        if self.audience.due.is_none() && self.audience.news(self.spectator_count()) {
            // The first change after a quiet second goes out at once; later ones wait
            // for the second to end and go out together.
            let next = self.audience.announced_at.map_or(now, |at| at + SPECTATORS_EVERY);
            if next <= now {
                self.announce_spectators();
            } else {
                self.audience.due = Some(next);
            }
        }
    }

    /// Announces the spectator count if it changed since the last announcement (the
    /// actor's loop calls this when [`Audience::due`] comes).
    pub(super) fn announce_spectators(&mut self) {
        self.audience.due = None;
        let count = self.spectator_count();
        if self.audience.news(count) {
            self.audience.announced = count;
            self.audience.announced_at = Some(Instant::now());
            self.event(|version| ServerMsg::Spectators { version, count });
        }
    }

    /// The outcome a run-out grace decides, if one has run out at `now`.
    pub(super) fn absence_outcome(&self, now: Instant) -> Option<Outcome> {
        let current = self.playing().ok()?;
        let index = self
            .away
            .iter()
            .position(|deadline| deadline.is_some_and(|at| at <= now))?;
        let seat = Seat::try_from(index).ok()?;
        let everyone_moved = self
            .seats
            .iter()
            .all(|(seat, _)| current.moves.seats().any(|mover| mover == seat));
        // Nobody wins by being away less long: when every opponent is away too, the game
        // is aborted.
        let opponents_away = self
            .opponents_of(seat)
            .iter()
            .all(|other| self.away.get(usize::from(*other)).copied().flatten().is_some());
        Some(if opponents_away {
            Outcome {
                result: GameResult::Aborted,
                reason: EndReason::Abandoned,
                detail: json!({"seat": seat, "role": self.role_of(seat), "rule": "everyone_away"}),
            }
        } else if everyone_moved {
            Outcome {
                detail: json!({"seat": seat, "role": self.role_of(seat), "rule": "loss_by_absence"}),
                ..Outcome::win(self.opponents_of(seat), EndReason::Abandoned)
            }
        } else {
            Outcome {
                result: GameResult::Aborted,
                reason: EndReason::Abandoned,
                detail: json!({"seat": seat, "role": self.role_of(seat), "rule": "aborted_before_everyone_moved"}),
            }
        })
    }
}
