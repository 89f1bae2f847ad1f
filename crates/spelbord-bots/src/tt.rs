//! The transposition table every engine's search uses: what a search learnt about a
//! position (its score, how deep, which kind of bound, the best move), keyed by the
//! position's 64-bit key, in a fixed number of slots.
//!
//! One table serves one search at a time. Searches run on the bounded pool of OS threads
//! ([`super::pool`]), so each engine keeps one table per thread, made on the thread's first
//! search and kept between searches: [`per_thread!`] declares that table and the function
//! that lends it to a search. (`thread_local!` cannot be generic, so each engine declares
//! its own static of its own `Table<ItsMove>` through the macro.)
//!
//! **Layout and memory.** A table has 2^`bits` slots of one entry each: the full key (to
//! tell positions sharing a slot apart), the score (`i32`, never clamped), the best move
//! `M` (whatever the engine packs a move into), the depth (`i8`, clamped) and a byte for
//! the bound and the search's age. With a 16-bit move an entry is 16 bytes, with a 64-bit
//! one 24; `bits` = 20 makes a table of 16 MB or 24 MB. [`Table::new`] refuses a table
//! over [`MAX_BYTES`] (32 MB), so a search never holds more than that.
//!
//! **Slots.** A key is multiplied by a 64-bit odd constant (Fibonacci hashing) and its top
//! `bits` pick the slot, so keys that are packed positions rather than random Zobrist
//! hashes (Krux) spread as well as random ones.
//!
//! **Replacement.** A store replaces the slot's entry when the slot is empty, holds the
//! same key, holds an entry of an earlier search, or holds one searched no deeper than
//! the new one; otherwise (a deeper result of this search for another position) the new
//! result is dropped. A store without a best move keeps the move already stored for the
//! same position (an all-node knows none, but the earlier move still orders well).
//!
//! **Ages.** [`Table::new_search`] (called by the per-thread function before every
//! search) starts a new age. Ages have 6 bits; when they wrap, the table is cleared, so an
//! entry of the current age was always written by the current search. Whether a probe
//! sees entries of earlier searches is the table's [`Earlier`] setting: an engine that
//! wants every answer to depend on the current search only ignores them.
//!
//! **Mate scores.** An engine whose win scores count plies from the root stores them
//! relative to the node ([`to_table`]) and reads them back relative to the root
//! ([`from_table`]), so that a win in 3 stays a win in 3 wherever the position recurs.

use std::cell::RefCell;
use std::thread::LocalKey;

/// The most memory one table may take (one per search thread and engine): 32 MB.
pub const MAX_BYTES: usize = 32 << 20;

/// What a stored score says about the position's true score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The true score.
    Exact,
    /// At least the score (a beta cut-off).
    Lower,
    /// At most the score (no move reached alpha).
    Upper,
}

impl Bound {
    /// The kind of bound `best` is for a node searched with the window (`alpha`, `beta`)
    /// (`alpha` as it was on entry to the node).
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a stored `score` of this kind settles a node searched with the window
    /// (`alpha`, `beta`): exact, or a bound on the side that cuts.
    pub fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }

    fn code(self) -> u8 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    /// `None` for 0, an empty slot.
    fn from_code(code: u8) -> Option<Bound> {
        match code {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// What a probe does with the entries earlier searches left in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Earlier {
    /// Uses them like this search's own (they are only replaced first).
    Used,
    /// Does not see them, so that a search's answer depends on that search alone.
    Ignored,
}

/// One slot. With `M` = `u16` the fields pack into 16 bytes (8 + 4 + 2 + 1 + 1).
#[derive(Debug, Clone, Copy)]
struct Slot<M> {
    key: u64,
    score: i32,
    best: M,
    depth: i8,
    /// The bound's code in the low 2 bits (0: the slot is empty), the age above them.
    meta: u8,
}

const BOUND_MASK: u8 = 0b11;
/// Ages count 0..64: the 6 bits of [`Slot::meta`] above the bound.
const AGES: u8 = 64;

/// A probe's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit<M> {
    /// The best move stored, the table's `no_move` for none.
    pub best: M,
    /// As stored: node-relative for mate scores (see [`from_table`]).
    pub score: i32,
    /// The depth searched (clamped to `i8` when stored).
    pub depth: i32,
    pub bound: Bound,
}

/// A bounded table of search results with moves of type `M`.
pub struct Table<M> {
    slots: Box<[Slot<M>]>,
    /// 64 − bits: a key's multiplied top bits index the slots.
    shift: u32,
    /// The current search's age, 0..[`AGES`].
    age: u8,
    /// The move stored when there is none.
    no_move: M,
    earlier: Earlier,
}

/// The odd multiplier of Fibonacci hashing, 2^64 / φ.
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

impl<M: Copy + PartialEq> Table<M> {
    /// An empty table of 2^`bits` slots, where `no_move` stands for "no best move".
    ///
    /// # Panics
    /// When `bits` is not in 1..=32 or the table would take more than [`MAX_BYTES`].
    pub fn new(bits: u32, no_move: M, earlier: Earlier) -> Table<M> {
        assert!((1..=32).contains(&bits), "a table of 2^{bits} slots");
        let bytes = Table::<M>::bytes_for(bits);
        assert!(bytes <= MAX_BYTES, "a table of {bytes} bytes is over {MAX_BYTES}");
        let empty = Slot {
            key: 0,
            score: 0,
            best: no_move,
            depth: 0,
            meta: 0,
        };
        Table {
            slots: vec![empty; 1 << bits].into_boxed_slice(),
            shift: 64 - bits,
            age: 0,
            no_move,
            earlier,
        }
    }

    /// The memory a table of 2^`bits` slots takes.
    pub const fn bytes_for(bits: u32) -> usize {
        std::mem::size_of::<Slot<M>>() << bits
    }

    /// The memory this table takes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.slots)
    }

    /// Starts a new search: entries of earlier ones give way first (and are not seen at
    /// all with [`Earlier::Ignored`]). Every [`AGES`] searches the table is cleared, so
    /// that no entry of an earlier search ever carries the current age.
    pub fn new_search(&mut self) {
        self.age = (self.age + 1) % AGES;
        if self.age == 0 {
            for slot in self.slots.iter_mut() {
                slot.meta = 0;
            }
        }
    }

    fn index(&self, key: u64) -> usize {
        (key.wrapping_mul(SPREAD) >> self.shift) as usize
    }

    /// The slot's entry, if it holds one a probe may see.
    fn visible(&self, slot: &Slot<M>) -> Option<Bound> {
        let bound = Bound::from_code(slot.meta & BOUND_MASK)?;
        let current = slot.meta >> 2 == self.age;
        (current || self.earlier == Earlier::Used).then_some(bound)
    }

    /// What is stored for `key`, if anything.
    pub fn probe(&self, key: u64) -> Option<Hit<M>> {
        let slot = &self.slots[self.index(key)];
        let bound = self.visible(slot)?;
        (slot.key == key).then_some(Hit {
            best: slot.best,
            score: slot.score,
            depth: i32::from(slot.depth),
            bound,
        })
    }

    /// Stores a search result for `key` by the replacement policy of the module's
    /// documentation. `depth` is clamped to `i8`; `best` is the table's `no_move` for none.
    pub fn store(&mut self, key: u64, best: M, score: i32, depth: i32, bound: Bound) {
        let index = self.index(key);
        let seen = self.visible(&self.slots[index]).is_some();
        let slot = &mut self.slots[index];
        let empty = slot.meta & BOUND_MASK == 0;
        let same = !empty && slot.key == key;
        let earlier = slot.meta >> 2 != self.age;
        if !(empty || same || earlier || depth >= i32::from(slot.depth)) {
            return;
        }
        let best = if best == self.no_move && same && seen {
            slot.best
        } else {
            best
        };
        *slot = Slot {
            key,
            score,
            best,
            depth: depth.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8,
            meta: bound.code() | self.age << 2,
        };
    }
}

/// A score as stored: wins and losses (beyond `mate_bound` either way, counted in plies
/// from the root) made relative to the node at `ply`.
pub fn to_table(score: i32, ply: usize, mate_bound: i32) -> i32 {
    let ply = ply as i32;
    if score > mate_bound {
        score + ply
    } else if score < -mate_bound {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_table`]: a stored score read at `ply`, relative to the root.
pub fn from_table(score: i32, ply: usize, mate_bound: i32) -> i32 {
    let ply = ply as i32;
    if score > mate_bound {
        score - ply
    } else if score < -mate_bound {
        score + ply
    } else {
        score
    }
}

/// Runs `search` with the table in `cell` (this thread's: see [`per_thread!`]), made by
/// `make` on first use, after starting a new search age. Should the table be in use (a
/// search inside a search on this thread), the inner search gets a fresh table of its own.
pub fn with_thread_table<M: Copy + PartialEq + 'static, R>(
    cell: &'static LocalKey<RefCell<Option<Table<M>>>>,
    make: impl FnOnce() -> Table<M>,
    search: impl FnOnce(&mut Table<M>) -> R,
) -> R {
    cell.with(|cell| match cell.try_borrow_mut() {
        Ok(mut held) => {
            let table = held.get_or_insert_with(make);
            table.new_search();
            search(table)
        }
        Err(_) => {
            let mut table = make();
            table.new_search();
            search(&mut table)
        }
    })
}

/// Declares an engine's per-thread table and the function that lends it to a search:
///
/// ```ignore
/// crate::tt::per_thread! {
///     /// Runs `search` with this thread's table.
///     pub fn with_table -> Table<u16> = Table::new(20, u16::MAX, Earlier::Used);
/// }
/// ```
///
/// declares `pub fn with_table<R>(search: impl FnOnce(&mut Table<u16>) -> R) -> R`, whose
/// table is made by the expression on the thread's first search and kept (see
/// [`with_thread_table`]).
macro_rules! per_thread {
    ($(#[$attr:meta])* $vis:vis fn $name:ident -> Table<$m:ty> = $make:expr;) => {
        $(#[$attr])*
        $vis fn $name<R>(search: impl FnOnce(&mut $crate::tt::Table<$m>) -> R) -> R {
            ::std::thread_local! {
                static TABLE: ::std::cell::RefCell<Option<$crate::tt::Table<$m>>> =
                    const { ::std::cell::RefCell::new(None) };
            }
            $crate::tt::with_thread_table(&TABLE, || $make, search)
        }
    };
}
pub(crate) use per_thread;

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: u16 = u16::MAX;

    fn table(earlier: Earlier) -> Table<u16> {
        let mut table = Table::new(8, NONE, earlier);
        table.new_search();
        table
    }

    /// A key of another position in the same slot as `key`.
    fn neighbour(table: &Table<u16>, key: u64) -> u64 {
        (1..)
            .map(|i| key.wrapping_add(i))
            .find(|&other| table.index(other) == table.index(key))
            .expect("a key in the same slot")
    }

    #[test]
    fn entries_are_16_bytes_with_16_bit_moves_and_tables_stay_bounded() {
        assert_eq!(std::mem::size_of::<Slot<u16>>(), 16);
        assert_eq!(std::mem::size_of::<Slot<u64>>(), 24);
        assert_eq!(Table::<u16>::bytes_for(20), 16 << 20);
        assert_eq!(Table::<u64>::bytes_for(20), 24 << 20);
        assert_eq!(Table::new(10, 0u64, Earlier::Used).bytes(), 24 << 10);
    }

    #[test]
    #[should_panic(expected = "over")]
    fn refuses_a_table_over_the_bound() {
        let _ = Table::new(21, 0u64, Earlier::Used);
    }

    #[test]
    fn probes_what_was_stored() {
        let mut t = table(Earlier::Used);
        assert_eq!(t.probe(42), None);
        t.store(42, 7, -120, 3, Bound::Lower);
        let hit = t.probe(42).expect("stored");
        assert_eq!(
            hit,
            Hit {
                best: 7,
                score: -120,
                depth: 3,
                bound: Bound::Lower
            }
        );
        assert_eq!(t.probe(43), None);
        assert_eq!(t.probe(neighbour(&t, 42)), None, "another key in the slot");
        // Key 0 with nothing stored is empty, not a hit of the zeroed slot.
        assert_eq!(t.probe(0), None);
    }

    #[test]
    fn scores_and_depths_keep_their_range() {
        let mut t = table(Earlier::Used);
        // Scores are i32: a Krux win and the extremes come back as they were.
        for (key, score) in [(1, 1_000_000), (2, i32::MIN), (3, i32::MAX), (4, -31_000)] {
            t.store(key, NONE, score, 1, Bound::Exact);
            assert_eq!(t.probe(key).map(|hit| hit.score), Some(score));
        }
        // Depths are clamped to i8.
        t.store(5, NONE, 0, 255, Bound::Exact);
        assert_eq!(t.probe(5).map(|hit| hit.depth), Some(127));
        t.store(6, NONE, 0, -1_000, Bound::Exact);
        assert_eq!(t.probe(6).map(|hit| hit.depth), Some(-128));
    }

    #[test]
    fn replaces_by_depth_within_a_search() {
        let mut t = table(Earlier::Used);
        let other = neighbour(&t, 42);
        t.store(42, 7, 10, 5, Bound::Exact);
        // Shallower, another position: the deeper entry stays.
        t.store(other, 1, 0, 4, Bound::Exact);
        assert_eq!(t.probe(other), None);
        assert_eq!(t.probe(42).map(|hit| hit.depth), Some(5));
        // As deep: replaced.
        t.store(other, 1, 0, 5, Bound::Upper);
        assert_eq!(t.probe(42), None);
        assert_eq!(t.probe(other).map(|hit| hit.bound), Some(Bound::Upper));
        // The same position: always replaced, even by a shallower result.
        t.store(other, 2, 3, 1, Bound::Lower);
        assert_eq!(
            t.probe(other),
            Some(Hit {
                best: 2,
                score: 3,
                depth: 1,
                bound: Bound::Lower
            })
        );
    }

    #[test]
    fn entries_of_earlier_searches_give_way_and_can_be_ignored() {
        let mut used = table(Earlier::Used);
        let mut ignored = table(Earlier::Ignored);
        for t in [&mut used, &mut ignored] {
            t.store(42, 7, 10, 9, Bound::Exact);
            t.new_search();
        }
        assert_eq!(used.probe(42).map(|hit| hit.best), Some(7));
        assert_eq!(ignored.probe(42), None);
        for t in [&mut used, &mut ignored] {
            let other = neighbour(t, 42);
            t.store(other, 1, 0, 1, Bound::Exact);
            assert_eq!(
                t.probe(other).map(|hit| hit.depth),
                Some(1),
                "an older deep entry gives way"
            );
            assert_eq!(t.probe(42), None);
        }
    }

    #[test]
    fn ages_wrap_by_clearing() {
        let mut t = table(Earlier::Ignored);
        t.store(42, 7, 10, 9, Bound::Exact);
        for _ in 0..AGES {
            t.new_search();
        }
        // The age is the one that stored the entry, but a wrap cleared it.
        assert_eq!(t.age, 1);
        assert_eq!(t.probe(42), None);
    }

    #[test]
    fn a_result_without_a_move_keeps_the_stored_one() {
        let mut t = table(Earlier::Used);
        t.store(42, 7, 10, 3, Bound::Lower);
        t.store(42, NONE, 5, 4, Bound::Upper);
        assert_eq!(t.probe(42).map(|hit| (hit.best, hit.score, hit.depth)), Some((7, 5, 4)));
        // Not another position's move.
        let other = neighbour(&t, 42);
        t.store(other, NONE, 0, 9, Bound::Upper);
        assert_eq!(t.probe(other).map(|hit| hit.best), Some(NONE));
        // Nor, when earlier searches are ignored, an earlier search's move.
        let mut t = table(Earlier::Ignored);
        t.store(42, 7, 10, 3, Bound::Lower);
        t.new_search();
        t.store(42, NONE, 5, 4, Bound::Upper);
        assert_eq!(t.probe(42).map(|hit| hit.best), Some(NONE));
    }

    #[test]
    fn bounds_from_the_window_and_when_they_settle() {
        assert_eq!(Bound::of(50, 0, 50), Bound::Lower);
        assert_eq!(Bound::of(20, 0, 50), Bound::Exact);
        assert_eq!(Bound::of(0, 0, 50), Bound::Upper);
        assert!(Bound::Exact.settles(20, 0, 50));
        assert!(Bound::Lower.settles(50, 0, 50));
        assert!(!Bound::Lower.settles(49, 0, 50));
        assert!(Bound::Upper.settles(0, 0, 50));
        assert!(!Bound::Upper.settles(1, 0, 50));
    }

    #[test]
    fn mate_scores_are_node_relative() {
        let stored = to_table(29_990, 4, 29_000);
        assert_eq!(stored, 29_994);
        assert_eq!(from_table(stored, 6, 29_000), 29_988);
        assert_eq!(from_table(to_table(-29_990, 4, 29_000), 4, 29_000), -29_990);
        assert_eq!(to_table(100, 9, 29_000), 100);
        assert_eq!(from_table(-100, 9, 29_000), -100);
    }

    per_thread! {
        fn with_test_table -> Table<u16> = Table::new(4, NONE, Earlier::Used);
    }

    #[test]
    fn a_thread_keeps_its_table_and_a_nested_search_gets_its_own() {
        let first = with_test_table(|t| {
            t.store(42, 7, 1, 1, Bound::Exact);
            t.age
        });
        let second = with_test_table(|t| {
            assert_eq!(t.probe(42).map(|hit| hit.best), Some(7), "kept between searches");
            with_test_table(|inner| assert_eq!(inner.probe(42), None, "a fresh table"));
            t.age
        });
        assert_eq!(second, (first + 1) % AGES, "a new search");
        let other = std::thread::spawn(|| with_test_table(|t| t.probe(42)));
        assert_eq!(other.join().expect("no panic"), None, "one table per thread");
    }
}
