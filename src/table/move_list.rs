//! The line of a table's current game, kept compactly: who played each move, the move as
//! JSON, its notation, and in a timed game every clock after it (what snapshots show and
//! take-backs restore).
//!
//! A long game's move list is most of a live table's memory, so it is stored in three flat
//! vectors rather than a struct with two strings per move: about 12 bytes a move plus its
//! text (`{"at":"H8"}H8`) where a struct of owned strings took some 130.

use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::value::RawValue;

use crate::games::Seat;

/// Marks a clock reading the log does not have (a move played before the game had clocks).
const NO_READING: u64 = u64::MAX;

/// One move's place in [`MoveList::text`] and its mover (8 bytes).
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where the move's notation ends (and the next move's JSON starts).
    text_end: u32,
    /// How long the notation is (it follows the move's JSON).
    text_len: u16,
    seat: Seat,
}

impl Entry {
    /// Where the move's JSON ends (and its notation starts).
    fn payload_end(self) -> usize {
        self.text_end as usize - usize::from(self.text_len)
    }
}

/// The moves of a game's line, take-backs removed.
#[derive(Debug, Clone, Default)]
pub struct MoveList {
    entries: Vec<Entry>,
    /// Every move's JSON, then its notation, back to back.
    text: String,
    /// Once some move had clocks: `width` readings a move (every seat's remaining time, in
    /// milliseconds, after it), [`NO_READING`] where a move had none. Empty in an untimed
    /// game.
    clocks: Vec<u64>,
    /// How many clocks a reading has (0 until the first one).
    width: usize,
}

/// One move as the protocol shows it (`moves` in a snapshot).
#[derive(Debug, serde::Serialize)]
pub struct MoveView<'a> {
    pub ply: u32,
    pub seat: Seat,
    /// The move as its JSON (normalised, as stored).
    #[serde(rename = "move")]
    pub payload: &'a RawValue,
    /// The move in its game's notation (`H8`, `b1xb3`, `step c2`, `Qxf7#`).
    pub text: &'a str,
    /// In timed games: the mover's remaining time after the move, in milliseconds (move
    /// lists show it, as chess sites do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the next move: `payload` is its JSON text, `text` its notation, `clocks_ms`
    /// every seat's clock after it (`None` when the game is untimed).
    pub fn push(&mut self, seat: Seat, payload: &str, text: &str, clocks_ms: Option<&[u64]>) {
        // A notation is a few characters (a whole Krux turn a few dozen): cut at 64 KiB.
        let text = &text[..text.floor_char_boundary(usize::from(u16::MAX))];
        if let Some(more) = room_to_add(self.text.len(), self.text.capacity(), payload.len() + text.len(), 256) {
            self.text.reserve_exact(more);
        }
        if let Some(more) = room_to_add(self.entries.len(), self.entries.capacity(), 1, 16) {
            self.entries.reserve_exact(more);
        }
        self.text.push_str(payload);
        self.text.push_str(text);
        self.entries.push(Entry {
            text_end: offset(self.text.len()),
            text_len: u16::try_from(text.len()).unwrap_or(u16::MAX),
            seat,
        });
        self.log_clocks(clocks_ms);
    }

    /// Keeps the first `keep` moves (a take-back).
    pub fn truncate(&mut self, keep: usize) {
        if keep >= self.entries.len() {
            return;
        }
        let end = keep
            .checked_sub(1)
            .map_or(0, |last| self.entries[last].text_end as usize);
        self.entries.truncate(keep);
        self.text.truncate(end);
        self.clocks.truncate(keep * self.width);
    }

    /// Gives back the room kept for moves to come (the game is over).
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        self.text.shrink_to_fit();
        self.clocks.shrink_to_fit();
    }

    /// Who played each move, in order.
    pub fn seats(&self) -> impl DoubleEndedIterator<Item = Seat> + ExactSizeIterator + '_ {
        self.entries.iter().map(|entry| entry.seat)
    }

    /// The `index`th move (from 0): its mover and its JSON text.
    pub fn get(&self, index: usize) -> Option<(Seat, &str)> {
        let entry = self.entries.get(index)?;
        Some((entry.seat, &self.text[self.start(index)..entry.payload_end()]))
    }

    /// Every seat's clock after the `index`th move (from 0), when the log has them.
    pub fn clocks_after(&self, index: usize) -> Option<&[u64]> {
        if index >= self.entries.len() || self.width == 0 {
            return None;
        }
        let reading = self.clocks.get(index * self.width..(index + 1) * self.width)?;
        (!reading.contains(&NO_READING)).then_some(reading)
    }

    /// The clocks after the last move, when the log has them.
    pub fn last_clocks(&self) -> Option<&[u64]> {
        self.entries
            .len()
            .checked_sub(1)
            .and_then(|last| self.clocks_after(last))
    }

    /// The moves as the protocol shows them.
    pub fn views(&self) -> impl Iterator<Item = MoveView<'_>> + '_ {
        (0..self.entries.len()).map(|index| self.view(index))
    }

    fn view(&self, index: usize) -> MoveView<'_> {
        let entry = self.entries[index];
        let payload = &self.text[self.start(index)..entry.payload_end()];
        MoveView {
            ply: u32::try_from(index + 1).unwrap_or(u32::MAX),
            seat: entry.seat,
            // Written by serde_json when the move was played, so it parses; `null` if not.
            payload: serde_json::from_str(payload).unwrap_or_else(|_| null()),
            text: &self.text[entry.payload_end()..entry.text_end as usize],
            clock_ms: self
                .clocks_after(index)
                .and_then(|reading| reading.get(usize::from(entry.seat)).copied()),
        }
    }

    /// Where the `index`th move's JSON starts in `text`.
    fn start(&self, index: usize) -> usize {
        index
            .checked_sub(1)
            .map_or(0, |previous| self.entries[previous].text_end as usize)
    }

    /// Logs the clocks after the move just pushed: nothing in an untimed game (until some
    /// move has clocks, when the moves before it are logged as having none).
    fn log_clocks(&mut self, clocks_ms: Option<&[u64]>) {
        let reading = clocks_ms.filter(|reading| !reading.is_empty());
        if self.width == 0 {
            let Some(reading) = reading else { return };
            self.width = reading.len();
            self.clocks.resize((self.entries.len() - 1) * self.width, NO_READING);
        }
        match reading {
            Some(reading) if reading.len() == self.width => self.clocks.extend_from_slice(reading),
            _ => self.clocks.extend(std::iter::repeat_n(NO_READING, self.width)),
        }
    }
}

/// How much to reserve so that `additional` more fit, if they do not: a quarter more
/// than needed (at least `first`), not double, so a long game's list keeps at most a
/// fifth of itself empty (the copies stay amortised: each growth adds a quarter).
fn room_to_add(len: usize, capacity: usize, additional: usize, first: usize) -> Option<usize> {
    (capacity - len < additional).then(|| additional.max(len / 4).max(first.saturating_sub(len)))
}

/// A position in the text (a game's line is far shorter than 4 GiB; a table's moves are
/// bounded by its game's rules and its clocks).
fn offset(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

fn null() -> &'static RawValue {
    serde_json::from_str("null").unwrap_or_else(|_| unreachable!("`null` is JSON"))
}

/// As a JSON array of [`MoveView`]s.
impl Serialize for MoveList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for view in self.views() {
            seq.serialize_element(&view)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gomoku(moves: &[(Seat, &str)]) -> MoveList {
        let mut list = MoveList::new();
        for (seat, at) in moves {
            list.push(*seat, &format!(r#"{{"at":"{at}"}}"#), at, None);
        }
        list
    }

    #[test]
    fn serialises_as_the_protocol_move_list() {
        let list = gomoku(&[(0, "H8"), (1, "J9")]);
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            r#"[{"ply":1,"seat":0,"move":{"at":"H8"},"text":"H8"},{"ply":2,"seat":1,"move":{"at":"J9"},"text":"J9"}]"#
        );
        assert_eq!(serde_json::to_string(&MoveList::new()).unwrap(), "[]");
    }

    #[test]
    fn gives_each_move_back() {
        let list = gomoku(&[(0, "H8"), (1, "J9"), (0, "A1")]);
        assert_eq!(list.len(), 3);
        assert_eq!(list.get(0), Some((0, r#"{"at":"H8"}"#)));
        assert_eq!(list.get(2), Some((0, r#"{"at":"A1"}"#)));
        assert_eq!(list.get(3), None);
        assert_eq!(list.seats().collect::<Vec<_>>(), vec![0, 1, 0]);
        assert_eq!(list.seats().rposition(|seat| seat == 1), Some(1));
    }

    #[test]
    fn truncates_to_a_take_back() {
        let mut list = gomoku(&[(0, "H8"), (1, "J9"), (0, "A1")]);
        list.truncate(1);
        assert_eq!(list.len(), 1);
        list.push(1, r#"{"at":"O15"}"#, "O15", None);
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            r#"[{"ply":1,"seat":0,"move":{"at":"H8"},"text":"H8"},{"ply":2,"seat":1,"move":{"at":"O15"},"text":"O15"}]"#
        );
        list.truncate(0);
        assert!(list.is_empty());
        assert_eq!(serde_json::to_string(&list).unwrap(), "[]");
        list.truncate(5);
        assert!(list.is_empty());
    }

    #[test]
    fn an_untimed_game_logs_no_clocks() {
        let list = gomoku(&[(0, "H8"), (1, "J9")]);
        assert_eq!(list.clocks_after(0), None);
        assert_eq!(list.last_clocks(), None);
        assert!(list.clocks.is_empty());
    }

    #[test]
    fn a_timed_game_logs_every_clock_after_each_move() {
        let mut list = MoveList::new();
        list.push(0, r#"{"at":"H8"}"#, "H8", Some(&[59_000, 60_000]));
        list.push(1, r#"{"at":"J9"}"#, "J9", Some(&[59_000, 58_500]));
        assert_eq!(list.clocks_after(0), Some(&[59_000, 60_000][..]));
        assert_eq!(list.last_clocks(), Some(&[59_000, 58_500][..]));
        let views: Vec<Option<u64>> = list.views().map(|view| view.clock_ms).collect();
        assert_eq!(views, vec![Some(59_000), Some(58_500)]);
        list.truncate(1);
        assert_eq!(list.last_clocks(), Some(&[59_000, 60_000][..]));
        assert_eq!(list.clocks.len(), 2);
    }

    #[test]
    fn moves_before_the_first_clocks_have_none() {
        let mut list = MoveList::new();
        list.push(0, r#"{"at":"H8"}"#, "H8", None);
        list.push(1, r#"{"at":"J9"}"#, "J9", Some(&[1, 2]));
        list.push(0, r#"{"at":"A1"}"#, "A1", None);
        assert_eq!(list.clocks_after(0), None);
        assert_eq!(list.clocks_after(1), Some(&[1, 2][..]));
        assert_eq!(list.clocks_after(2), None);
        assert_eq!(list.clocks_after(3), None);
        // A reading of another width than the first is not mixed into the log.
        list.push(1, r#"{"at":"B2"}"#, "B2", Some(&[1, 2, 3]));
        assert_eq!(list.clocks_after(3), None);
        assert_eq!(list.clocks.len(), 8);
    }

    #[test]
    fn cuts_an_overlong_notation_at_a_character() {
        let mut list = MoveList::new();
        let long = "é".repeat(40_000);
        list.push(0, "null", &long, None);
        list.push(1, r#"{"at":"H8"}"#, "H8", None);
        let views: Vec<MoveView> = list.views().collect();
        assert_eq!(views[0].text.len(), 65_534);
        assert_eq!(views[0].payload.get(), "null");
        assert_eq!(views[1].payload.get(), r#"{"at":"H8"}"#);
        assert_eq!(views[1].text, "H8");
    }

    #[test]
    fn costs_a_few_bytes_a_move() {
        assert_eq!(std::mem::size_of::<Entry>(), 8);
        let mut list = gomoku(&[]);
        for index in 0..225 {
            let at = format!("{}{}", char::from(b'A' + (index % 15) as u8), index / 15 + 1);
            list.push((index % 2) as Seat, &format!(r#"{{"at":"{at}"}}"#), &at, None);
        }
        let heap = |list: &MoveList| list.entries.capacity() * std::mem::size_of::<Entry>() + list.text.capacity();
        let used = list.entries.len() * std::mem::size_of::<Entry>() + list.text.len();
        // While the game goes on: at most a quarter more than it uses.
        assert!(heap(&list) <= used + used / 4, "{} bytes for {used}", heap(&list));
        list.shrink_to_fit();
        assert_eq!(heap(&list), used);
        assert!(used < 225 * 24, "{used} bytes for 225 moves");
    }
}
