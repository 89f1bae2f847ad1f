//! The line of a table's current game, kept compactly: who played each move, the move
//! packed in its game's few bytes, its notation, and in a timed game every clock after it
//! (what snapshots show and take-backs restore).
//!
//! A long game's move list is most of a live table's memory, so it is stored in three flat
//! vectors rather than a struct with two strings per move: 8 bytes a move, its packed form
//! ([`crate::games::Rules::pack`]: two bytes for a Gomoku or Lines of Action move, three
//! for a Krux part, a Bughouse move's four or five UCI characters) and its notation, plus
//! 4 bytes a seat in a timed game, where a struct of owned strings took some 130. The
//! move's JSON is written again from its packed form when a snapshot lists the moves.

use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::value::RawValue;

use crate::games::{GameKind, Seat};

/// Marks a clock reading the log does not have (a move played before the game had clocks).
const NO_READING: u32 = u32::MAX;

/// The longest time a reading holds, in milliseconds (49.7 days: a correspondence clock
/// is at most 30 days, and a ten-hour clock would need some 6,000 moves of its largest
/// increment to pass it); a longer time is kept as this.
const LONGEST_READING: u32 = NO_READING - 1;

/// One move's place in [`MoveList::bytes`] and its mover (8 bytes).
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where the move's notation ends (and the next move starts).
    text_end: u32,
    /// How long the notation is (it follows the packed move).
    text_len: u16,
    seat: Seat,
}

impl Entry {
    /// Where the move's packed form ends (and its notation starts).
    fn move_end(self) -> usize {
        self.text_end as usize - usize::from(self.text_len)
    }
}

/// The moves of a game's line, take-backs removed.
#[derive(Debug, Clone)]
pub struct MoveList {
    /// The game whose moves these are (it packs and unpacks them).
    kind: GameKind,
    entries: Vec<Entry>,
    /// Every move packed, then its notation (UTF-8), back to back.
    bytes: Vec<u8>,
    /// Once some move had clocks: `width` readings a move (every seat's remaining time, in
    /// milliseconds, after it; 4 bytes each, a four-seat game's clocks being the largest
    /// part of its moves), [`NO_READING`] where a move had none. Empty in an untimed game.
    clocks: Vec<u32>,
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
    pub payload: Box<RawValue>,
    /// The move in its game's notation (`H8`, `b1xb3`, `step c2`, `Qxf7#`).
    pub text: &'a str,
    /// In timed games: the mover's remaining time after the move, in milliseconds (move
    /// lists show it, as chess sites do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

impl MoveList {
    /// An empty line of a game of `kind`.
    pub fn new(kind: GameKind) -> MoveList {
        MoveList {
            kind,
            entries: Vec::new(),
            bytes: Vec::new(),
            clocks: Vec::new(),
            width: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the next move: `packed` is the move as its game packed it
    /// ([`crate::games::WrittenMove`]), `text` its notation, `clocks_ms` every seat's clock
    /// after it (`None` when the game is untimed).
    pub fn push(&mut self, seat: Seat, packed: &[u8], text: &str, clocks_ms: Option<&[u64]>) {
        // A notation is a few characters (a whole Krux turn a few dozen): cut at 64 KiB.
        let text = &text[..text.floor_char_boundary(usize::from(u16::MAX))];
        if let Some(more) = room_to_add(self.bytes.len(), self.bytes.capacity(), packed.len() + text.len(), 256) {
            self.bytes.reserve_exact(more);
        }
        if let Some(more) = room_to_add(self.entries.len(), self.entries.capacity(), 1, 16) {
            self.entries.reserve_exact(more);
        }
        self.bytes.extend_from_slice(packed);
        self.bytes.extend_from_slice(text.as_bytes());
        self.entries.push(Entry {
            text_end: offset(self.bytes.len()),
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
        self.bytes.truncate(end);
        self.clocks.truncate(keep * self.width);
    }

    /// Gives back the room kept for moves to come (the game is over).
    pub fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        self.bytes.shrink_to_fit();
        self.clocks.shrink_to_fit();
    }

    /// Who played each move, in order.
    pub fn seats(&self) -> impl DoubleEndedIterator<Item = Seat> + ExactSizeIterator + '_ {
        self.entries.iter().map(|entry| entry.seat)
    }

    /// The `index`th move (from 0): its mover and its JSON text (`null` should its packed
    /// form not unpack, which a move its game packed always does).
    pub fn get(&self, index: usize) -> Option<(Seat, String)> {
        let entry = self.entries.get(index)?;
        Some((entry.seat, self.payload(index, entry)))
    }

    /// Every seat's clock after the `index`th move (from 0), when the log has them.
    pub fn clocks_after(&self, index: usize) -> Option<Vec<u64>> {
        self.reading(index)
            .map(|reading| reading.iter().map(|&ms| u64::from(ms)).collect())
    }

    /// The clocks after the last move, when the log has them.
    pub fn last_clocks(&self) -> Option<Vec<u64>> {
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
        MoveView {
            ply: u32::try_from(index + 1).unwrap_or(u32::MAX),
            seat: entry.seat,
            payload: RawValue::from_string(self.payload(index, &entry)).unwrap_or_else(|_| null()),
            text: std::str::from_utf8(&self.bytes[entry.move_end()..entry.text_end as usize]).unwrap_or_default(),
            clock_ms: self
                .reading(index)
                .and_then(|reading| reading.get(usize::from(entry.seat)))
                .map(|&ms| u64::from(ms)),
        }
    }

    /// The JSON text of the `index`th move, whose entry is `entry`.
    fn payload(&self, index: usize, entry: &Entry) -> String {
        self.kind
            .unpack_move(&self.bytes[self.start(index)..entry.move_end()])
            .unwrap_or_else(|| "null".to_owned())
    }

    /// The clock log's reading after the `index`th move, when it has one.
    fn reading(&self, index: usize) -> Option<&[u32]> {
        if index >= self.entries.len() || self.width == 0 {
            return None;
        }
        let reading = self.clocks.get(index * self.width..(index + 1) * self.width)?;
        (!reading.contains(&NO_READING)).then_some(reading)
    }

    /// Where the `index`th move starts in `bytes`.
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
            Some(reading) if reading.len() == self.width => self.clocks.extend(
                reading
                    .iter()
                    .map(|&ms| u32::try_from(ms).map_or(LONGEST_READING, |ms| ms.min(LONGEST_READING))),
            ),
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

/// A position in the bytes (a game's line is far shorter than 4 GiB; a table's moves are
/// bounded by its game's rules and its clocks).
fn offset(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_else(|_| unreachable!("`null` is JSON"))
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

/// A move of `kind` given as its JSON, packed by its game; `None` if it is not one.
#[cfg(test)]
fn packed(kind: GameKind, json: &str) -> Option<Vec<u8>> {
    use crate::games::{Rules, bughouse::Bughouse, gomoku::Gomoku, krux::Krux, lines_of_action::LinesOfAction};
    fn pack<G: Rules>(json: &str) -> Option<Vec<u8>> {
        let mv: G::Move = serde_json::from_str(json).ok()?;
        let mut out = Vec::new();
        G::pack(&mv, &mut out);
        Some(out)
    }
    match kind {
        GameKind::Gomoku => pack::<Gomoku>(json),
        GameKind::LinesOfAction => pack::<LinesOfAction>(json),
        GameKind::Krux => pack::<Krux>(json),
        GameKind::Bughouse => pack::<Bughouse>(json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Gomoku stone on `at`, packed.
    fn stone(at: &str) -> Vec<u8> {
        packed(GameKind::Gomoku, &format!(r#"{{"at":"{at}"}}"#)).unwrap()
    }

    fn gomoku(moves: &[(Seat, &str)]) -> MoveList {
        let mut list = MoveList::new(GameKind::Gomoku);
        for (seat, at) in moves {
            list.push(*seat, &stone(at), at, None);
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
        assert_eq!(serde_json::to_string(&MoveList::new(GameKind::Gomoku)).unwrap(), "[]");
    }

    #[test]
    fn gives_each_move_back() {
        let list = gomoku(&[(0, "H8"), (1, "J9"), (0, "A1")]);
        assert_eq!(list.len(), 3);
        assert_eq!(list.get(0), Some((0, r#"{"at":"H8"}"#.to_owned())));
        assert_eq!(list.get(2), Some((0, r#"{"at":"A1"}"#.to_owned())));
        assert_eq!(list.get(3), None);
        assert_eq!(list.seats().collect::<Vec<_>>(), vec![0, 1, 0]);
        assert_eq!(list.seats().rposition(|seat| seat == 1), Some(1));
    }

    #[test]
    fn truncates_to_a_take_back() {
        let mut list = gomoku(&[(0, "H8"), (1, "J9"), (0, "A1")]);
        list.truncate(1);
        assert_eq!(list.len(), 1);
        list.push(1, &stone("O15"), "O15", None);
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
        let mut list = MoveList::new(GameKind::Gomoku);
        list.push(0, &stone("H8"), "H8", Some(&[59_000, 60_000]));
        list.push(1, &stone("J9"), "J9", Some(&[59_000, 58_500]));
        assert_eq!(list.clocks_after(0), Some(vec![59_000, 60_000]));
        assert_eq!(list.last_clocks(), Some(vec![59_000, 58_500]));
        let views: Vec<Option<u64>> = list.views().map(|view| view.clock_ms).collect();
        assert_eq!(views, vec![Some(59_000), Some(58_500)]);
        list.truncate(1);
        assert_eq!(list.last_clocks(), Some(vec![59_000, 60_000]));
        assert_eq!(list.clocks.len(), 2);
    }

    #[test]
    fn a_clock_past_the_longest_reading_is_kept_as_the_longest() {
        let mut list = MoveList::new(GameKind::Gomoku);
        let thirty_days = 30 * 24 * 3_600_000;
        list.push(0, &stone("H8"), "H8", Some(&[thirty_days, u64::from(u32::MAX) + 5]));
        let longest = u64::from(LONGEST_READING);
        assert_eq!(list.last_clocks(), Some(vec![thirty_days, longest]));
        list.push(1, &stone("J9"), "J9", Some(&[u64::MAX, 0]));
        assert_eq!(list.last_clocks(), Some(vec![longest, 0]));
        assert_eq!(
            list.views().map(|view| view.clock_ms).collect::<Vec<_>>(),
            vec![Some(thirty_days), Some(0)]
        );
    }

    #[test]
    fn moves_before_the_first_clocks_have_none() {
        let mut list = MoveList::new(GameKind::Gomoku);
        list.push(0, &stone("H8"), "H8", None);
        list.push(1, &stone("J9"), "J9", Some(&[1, 2]));
        list.push(0, &stone("A1"), "A1", None);
        assert_eq!(list.clocks_after(0), None);
        assert_eq!(list.clocks_after(1), Some(vec![1, 2]));
        assert_eq!(list.clocks_after(2), None);
        assert_eq!(list.clocks_after(3), None);
        // A reading of another width than the first is not mixed into the log.
        list.push(1, &stone("B2"), "B2", Some(&[1, 2, 3]));
        assert_eq!(list.clocks_after(3), None);
        assert_eq!(list.clocks.len(), 8);
    }

    #[test]
    fn cuts_an_overlong_notation_at_a_character() {
        let mut list = MoveList::new(GameKind::Gomoku);
        let long = "é".repeat(40_000);
        list.push(0, &[], &long, None);
        list.push(1, &stone("H8"), "H8", None);
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
            list.push((index % 2) as Seat, &stone(&at), &at, None);
        }
        let heap = |list: &MoveList| list.entries.capacity() * std::mem::size_of::<Entry>() + list.bytes.capacity();
        let used = list.entries.len() * std::mem::size_of::<Entry>() + list.bytes.len();
        // While the game goes on: at most a quarter more than it uses.
        assert!(heap(&list) <= used + used / 4, "{} bytes for {used}", heap(&list));
        list.shrink_to_fit();
        assert_eq!(heap(&list), used);
        assert!(used < 225 * 24, "{used} bytes for 225 moves");
    }
}

/// Every game's packed moves read back as the same JSON, over random games.
#[cfg(test)]
mod packing_tests {
    use super::*;
    use crate::games::AnySettings;
    use crate::games::settings::SettingsReader;

    /// Plays `games` random legal games of `kind` (seeded), checking at every position that
    /// each legal move packs into less than half the bytes of its JSON and unpacks
    /// to that JSON, and that the move list gives back the line played.
    fn check_kind(kind: GameKind, games: u64) {
        let settings = AnySettings::read(kind, &mut SettingsReader::new(serde_json::Map::new())).unwrap();
        for seed in 1..=games {
            let mut random = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = |n: usize| {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                (random % n as u64) as usize
            };
            let mut game = settings.new_game();
            let mut list = MoveList::new(kind);
            let mut line = Vec::new();
            while game.outcome().is_none() && line.len() < 160 {
                let active: Vec<Seat> = game.active_seats().iter().collect();
                let seat = active[next(active.len())];
                let legal = game.legal_moves_json(seat);
                for mv in &legal {
                    let json = mv.to_string();
                    let packed = packed(kind, &json).unwrap_or_else(|| panic!("{kind:?} did not pack {json}"));
                    assert!(packed.len() < json.len() / 2, "{kind:?} packed {json} into {packed:?}");
                    assert_eq!(kind.unpack_move(&packed).as_deref(), Some(json.as_str()), "{kind:?}");
                }
                let Some(choice) = legal.get(next(legal.len().max(1))).cloned() else {
                    break;
                };
                let (_, normalised, written) = game.play_json_written(seat, &choice).unwrap();
                let payload = normalised.to_string();
                list.push(seat, &written.packed, &written.text, None);
                line.push((seat, payload, written.text));
            }
            assert_eq!(list.len(), line.len());
            for (view, (seat, payload, text)) in list.views().zip(&line) {
                assert_eq!(
                    (view.seat, view.payload.get(), view.text),
                    (*seat, payload.as_str(), text.as_str())
                );
            }
            for (index, (seat, payload, _)) in line.iter().enumerate() {
                assert_eq!(list.get(index), Some((*seat, payload.clone())));
            }
        }
    }

    #[test]
    fn gomoku_moves_pack_into_two_bytes() {
        check_kind(GameKind::Gomoku, 6);
        assert_eq!(packed(GameKind::Gomoku, r#"{"at":"O15"}"#), Some(vec![14, 14]));
    }

    #[test]
    fn lines_of_action_moves_and_passes_pack() {
        check_kind(GameKind::LinesOfAction, 6);
        for json in [r#"{"from":"b1","to":"b3"}"#, r#"{"pass":true}"#] {
            let packed = packed(GameKind::LinesOfAction, json).unwrap();
            assert_eq!(GameKind::LinesOfAction.unpack_move(&packed).as_deref(), Some(json));
        }
    }

    #[test]
    fn krux_parts_and_whole_turns_pack() {
        check_kind(GameKind::Krux, 6);
        for json in [
            r#"{"part":"ring","ring":"pink"}"#,
            r#"{"part":"end"}"#,
            r#"{"turn":[{"part":"step","to":"c2"},{"part":"push","target":"c4"},{"part":"end"}]}"#,
            r#"{"turn":[{"part":"step","to":"c2"}]}"#,
        ] {
            let packed = packed(GameKind::Krux, json).unwrap();
            assert_eq!(GameKind::Krux.unpack_move(&packed).as_deref(), Some(json));
        }
        for bad in [&[9u8, 0, 0][..], &[0, 3, 0], &[1, 2], &[0xFF, 1, 2], &[]] {
            assert_eq!(GameKind::Krux.unpack_move(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn bughouse_moves_pack_as_uci_text() {
        check_kind(GameKind::Bughouse, 6);
        assert_eq!(packed(GameKind::Bughouse, r#"{"uci":"N@f3"}"#), Some(b"N@f3".to_vec()));
    }

    #[test]
    fn a_move_its_game_cannot_read_is_listed_as_null() {
        let mut list = MoveList::new(GameKind::Bughouse);
        list.push(0, &[0xFF, 0], "H8", None);
        list.push(1, b"e2e4", "e4", None);
        assert_eq!(list.get(0), Some((0, "null".to_owned())));
        assert_eq!(list.get(1), Some((1, r#"{"uci":"e2e4"}"#.to_owned())));
    }
}
