//! The transposition table: search results by Zobrist hash, in a fixed number of slots
//! (16 MB), one table per thread, kept between searches (entries of older searches are
//! replaced first).

use std::cell::RefCell;

/// How a stored score bounds the true one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at least this (a cut-off).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
    /// The true score.
    Exact,
}

/// One stored search result.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The full hash, to tell positions sharing a slot apart.
    pub key: u64,
    /// The best move found, as a cell index (`u16::MAX` for none).
    pub best: u16,
    /// The score, mate scores relative to this node (see [`to_tt`]).
    pub score: i16,
    /// The depth searched.
    pub depth: i8,
    pub bound: Bound,
    /// The search that wrote it.
    age: u8,
}

const EMPTY: Entry = Entry {
    key: 0,
    best: u16::MAX,
    score: 0,
    depth: -1,
    bound: Bound::Upper,
    age: 0,
};

/// 2^20 slots of 16 bytes.
const SLOTS: usize = 1 << 20;

/// The table.
pub struct Tt {
    slots: Vec<Entry>,
    age: u8,
}

thread_local! {
    static TABLE: RefCell<Option<Tt>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's table (made on first use), starting a new search age.
pub fn with_table<R>(f: impl FnOnce(&mut Tt) -> R) -> R {
    TABLE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let table = slot.get_or_insert_with(|| Tt {
            slots: vec![EMPTY; SLOTS],
            age: 0,
        });
        table.age = table.age.wrapping_add(1);
        f(table)
    })
}

impl Tt {
    fn index(key: u64) -> usize {
        // The slot count is a power of two; the top bits spread best.
        (key >> 44) as usize & (SLOTS - 1)
    }

    /// The entry stored for `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.slots[Tt::index(key)];
        (entry.key == key && entry.depth >= 0).then_some(entry)
    }

    /// Stores a result, replacing an entry of an older search or of no greater depth.
    pub fn store(&mut self, key: u64, best: Option<usize>, score: i32, depth: i32, bound: Bound) {
        let slot = &mut self.slots[Tt::index(key)];
        if slot.key == key || slot.age != self.age || i32::from(slot.depth) <= depth {
            *slot = Entry {
                key,
                best: best.and_then(|b| u16::try_from(b).ok()).unwrap_or(u16::MAX),
                score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
                depth: depth.clamp(0, i32::from(i8::MAX)) as i8,
                bound,
                age: self.age,
            };
        }
    }
}

/// Mate scores are stored relative to the node, not the root.
pub fn to_tt(score: i32, ply: usize, mate_bound: i32) -> i32 {
    let ply = ply as i32;
    if score >= mate_bound {
        score + ply
    } else if score <= -mate_bound {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_tt`].
pub fn from_tt(score: i32, ply: usize, mate_bound: i32) -> i32 {
    let ply = ply as i32;
    if score >= mate_bound {
        score - ply
    } else if score <= -mate_bound {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        with_table(|tt| {
            tt.store(0xABCD_0000_0000_1234, Some(112), -55, 4, Bound::Exact);
            let entry = tt.probe(0xABCD_0000_0000_1234).expect("stored");
            assert_eq!((entry.best, entry.score, entry.depth), (112, -55, 4));
            assert!(tt.probe(0xABCD_0000_0000_1235).is_none());
        });
    }

    #[test]
    fn mate_scores_are_node_relative() {
        let stored = to_tt(29_990, 4, 29_000);
        assert_eq!(from_tt(stored, 6, 29_000), 29_988);
        assert_eq!(from_tt(to_tt(-29_990, 4, 29_000), 4, 29_000), -29_990);
        assert_eq!(to_tt(100, 9, 29_000), 100);
    }
}
