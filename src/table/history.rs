//! The table's recent events, kept so a reconnecting client can be sent exactly what it
//! missed (lila-ws's `History`): every broadcast event, by version, in a ring bounded by
//! the memory it takes (a table's memory must stay small while it plays, and a `moved`
//! frame carries the whole position).

use std::collections::VecDeque;

use super::msg::Frame;

/// How many bytes of recent events a table keeps, at most, each event counted with its
/// bookkeeping ([`EVENT_OVERHEAD`]; the newest event is kept whatever its size): about
/// eight Gomoku moves or some thirty short events (presence, chat), enough for a client
/// that lost its connection for a moment; one that missed more is sent a snapshot instead.
pub const HISTORY_BYTES: usize = 4 * 1024;

/// What an event costs the history beyond its text: its slot and its frame's shared block.
pub const EVENT_OVERHEAD: usize = std::mem::size_of::<(u64, Frame)>() + Frame::OVERHEAD;

/// What a client that saw up to some version must be sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Catchup {
    /// These events, in order (empty if it missed nothing).
    Events(Vec<Frame>),
    /// The gap is older than the history (or the version is unknown): send a snapshot.
    Snapshot,
}

/// The last events of a table: at most [`HISTORY_BYTES`] of them.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// `(version, frame)`, oldest first, versions consecutive.
    events: VecDeque<(u64, Frame)>,
    /// The events' total cost (their lengths and [`EVENT_OVERHEAD`] each).
    bytes: usize,
}

impl History {
    /// Records the event of `version` (versions rise by one per event), forgetting the
    /// oldest ones beyond the bounds.
    pub fn push(&mut self, version: u64, frame: Frame) {
        self.bytes += frame.len() + EVENT_OVERHEAD;
        self.events.push_back((version, frame));
        while self.bytes > HISTORY_BYTES && self.events.len() > 1 {
            if let Some((_, old)) = self.events.pop_front() {
                self.bytes -= old.len() + EVENT_OVERHEAD;
            }
        }
    }

    /// What a client that has seen every event up to `seen` needs, the table now being at
    /// `current`.
    pub fn since(&self, seen: u64, current: u64) -> Catchup {
        if seen == current {
            return Catchup::Events(Vec::new());
        }
        if seen > current {
            // A version from before a restart (versions start again from 0).
            return Catchup::Snapshot;
        }
        match self.events.front() {
            Some((oldest, _)) if *oldest <= seen + 1 => Catchup::Events(
                self.events
                    .iter()
                    .filter(|(version, _)| *version > seen)
                    .map(|(_, frame)| frame.clone())
                    .collect(),
            ),
            _ => Catchup::Snapshot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(versions: std::ops::RangeInclusive<u64>) -> History {
        let mut history = History::default();
        for version in versions {
            history.push(version, Frame::from(version.to_string()));
        }
        history
    }

    fn texts(catchup: Catchup) -> Vec<String> {
        match catchup {
            Catchup::Events(frames) => frames.iter().map(|f| f.as_str().to_owned()).collect(),
            Catchup::Snapshot => vec!["snapshot".into()],
        }
    }

    #[test]
    fn sends_exactly_the_missed_events_in_order() {
        let history = history(1..=10);
        assert_eq!(texts(history.since(7, 10)), vec!["8", "9", "10"]);
        assert_eq!(texts(history.since(0, 10)).len(), 10);
        assert!(texts(history.since(10, 10)).is_empty());
    }

    #[test]
    fn too_old_or_unknown_versions_get_a_snapshot() {
        let history = history(1..=200);
        // Small events cost their bookkeeping: the budget holds this many of them.
        let kept = (HISTORY_BYTES / (3 + EVENT_OVERHEAD)) as u64;
        assert_eq!(history.since(200 - kept - 1, 200), Catchup::Snapshot);
        assert_eq!(texts(history.since(200 - kept, 200)).len() as u64, kept);
        assert_eq!(history.since(205, 200), Catchup::Snapshot);
    }

    #[test]
    fn the_history_is_bounded_by_bytes_too() {
        let mut history = History::default();
        let frame = Frame::from("x".repeat(900));
        for version in 1..=20 {
            history.push(version, frame.clone());
        }
        // Four kilobytes hold four of these frames with their bookkeeping (not five).
        assert_eq!(history.since(16, 20), Catchup::Events(vec![frame.clone(); 4]));
        assert_eq!(history.since(15, 20), Catchup::Snapshot);
        // A frame larger than the whole budget is still kept, alone.
        let big = Frame::from("y".repeat(HISTORY_BYTES + 1));
        history.push(21, big.clone());
        assert_eq!(history.since(20, 21), Catchup::Events(vec![big]));
        assert_eq!(history.since(19, 21), Catchup::Snapshot);
    }

    #[test]
    fn an_empty_history_can_only_say_nothing_was_missed() {
        let history = History::default();
        assert_eq!(history.since(0, 0), Catchup::Events(Vec::new()));
        assert_eq!(history.since(0, 3), Catchup::Snapshot);
    }
}
