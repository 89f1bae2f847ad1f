//! The transposition table: one per search thread (`thread_local!`), 2^20 entries of 16
//! bytes (16 MB), always-replace within a search, depth-preferred against older searches'
//! entries. Keys are [`super::board::Board::hash`]; scores near a win are stored relative
//! to the node (so that a win in 3 stays a win in 3 wherever it is found again).

use std::cell::RefCell;

use super::board::{Mv, NO_MOVE};

/// log2 of the number of entries.
const BITS: u32 = 20;

/// What a stored score says about the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// At least the score (a cut-off).
    Lower,
    /// At most the score (no move reached alpha).
    Upper,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    mv: Mv,
    score: i16,
    depth: i8,
    /// 0 empty, 1 exact, 2 lower, 3 upper.
    bound: u8,
    /// The search that wrote it.
    age: u8,
}

const EMPTY: Slot = Slot {
    key: 0,
    mv: NO_MOVE,
    score: 0,
    depth: 0,
    bound: 0,
    age: 0,
};

/// One entry as read back.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub mv: Mv,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// A bounded table of search results.
pub struct Table {
    slots: Vec<Slot>,
    age: u8,
}

impl Table {
    fn new() -> Table {
        Table {
            slots: vec![EMPTY; 1 << BITS],
            age: 0,
        }
    }

    /// Marks the start of a new search: older entries give way first.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    fn index(key: u64) -> usize {
        (key >> (64 - BITS)) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slots.get(Table::index(key))?;
        if slot.key != key || slot.bound == 0 {
            return None;
        }
        let bound = match slot.bound {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Entry {
            mv: slot.mv,
            score: i32::from(slot.score),
            depth: i32::from(slot.depth),
            bound,
        })
    }

    pub fn store(&mut self, key: u64, mv: Mv, score: i32, depth: i32, bound: Bound) {
        let age = self.age;
        let Some(slot) = self.slots.get_mut(Table::index(key)) else {
            return;
        };
        if slot.key == key || slot.age != age || depth >= i32::from(slot.depth) {
            // Keep the old move when the new result has none (an all-node).
            let mv = if mv == NO_MOVE && slot.key == key { slot.mv } else { mv };
            *slot = Slot {
                key,
                mv,
                score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
                depth: depth.clamp(0, 127) as i8,
                bound: match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
                age,
            };
        }
    }
}

thread_local! {
    /// This thread's table, allocated at its first search.
    static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's table (a fresh one when the table is already in use, as a
/// search never nests).
pub fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let table = slot.get_or_insert_with(Table::new);
            table.new_search();
            f(table)
        }
        Err(_) => f(&mut Table::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes() {
        with_table(|table| {
            let key = 0xDEAD_BEEF_0000_1234;
            assert!(table.probe(key).is_none() || table.probe(key).is_some());
            table.store(key, 77, -123, 5, Bound::Lower);
            let entry = table.probe(key).expect("just stored");
            assert_eq!(
                (entry.mv, entry.score, entry.depth, entry.bound),
                (77, -123, 5, Bound::Lower)
            );
            assert!(table.probe(key ^ 1).is_none());
            assert_eq!(std::mem::size_of::<Slot>(), 16);
            assert!(table.slots.len() * std::mem::size_of::<Slot>() <= 32 << 20, "bounded");
        });
    }
}
