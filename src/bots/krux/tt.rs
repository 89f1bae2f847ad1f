//! The transposition table: what a search learnt about a turn-boundary position (its
//! value, how deep, which kind of bound, the best next position), keyed by the
//! position's 64-bit key. Bounded (2^20 entries of 24 bytes, 24 MB) and kept per thread,
//! so several searches on a pool of threads never share or reallocate one; each search
//! starts a new generation, so answers never depend on an earlier search.

use std::cell::RefCell;

/// Entries in a table: 2^20.
const SIZE: usize = 1 << 20;

/// How a stored value bounds the true one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true value is at least this (a beta cut-off).
    Lower,
    /// The true value is at most this (nothing beat alpha).
    Upper,
}

/// One stored result.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub key: u64,
    /// The key of the best next position found, 0 when none.
    pub best: u64,
    pub value: i32,
    /// The depth (in turns) the value was searched to.
    pub depth: u8,
    pub bound: Bound,
    /// The search that stored it.
    generation: u8,
}

/// The table of one thread.
pub struct Table {
    entries: Vec<Option<Entry>>,
    generation: u8,
}

impl Table {
    fn new() -> Table {
        Table {
            entries: vec![None; SIZE],
            generation: 0,
        }
    }

    /// Starts a new search: earlier entries no longer count.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44) as usize & (SIZE - 1)
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.entries[Table::slot(key)].filter(|entry| entry.key == key && entry.generation == self.generation)
    }

    /// Stores a result, replacing an older or shallower one.
    pub fn store(&mut self, key: u64, value: i32, depth: u8, bound: Bound, best: u64) {
        let slot = &mut self.entries[Table::slot(key)];
        let keep = slot.is_some_and(|old| old.generation == self.generation && old.key != key && old.depth > depth);
        if !keep {
            *slot = Some(Entry {
                key,
                best,
                value,
                depth,
                bound,
                generation: self.generation,
            });
        }
    }
}

thread_local! {
    static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
}

/// Runs `search` with this thread's table (made on first use), started afresh.
pub fn with_table<T>(search: impl FnOnce(&mut Table) -> T) -> T {
    TABLE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let table = slot.get_or_insert_with(Table::new);
            table.new_search();
            search(table)
        }
        // Only a search inside a search could find it borrowed: give it a table of its own.
        Err(_) => search(&mut Table::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_forgets_with_a_new_search() {
        with_table(|table| {
            table.store(42, 7, 2, Bound::Exact, 9);
            let entry = table.probe(42).unwrap();
            assert_eq!(
                (entry.value, entry.depth, entry.bound, entry.best),
                (7, 2, Bound::Exact, 9)
            );
            assert!(table.probe(43).is_none());
        });
        with_table(|table| assert!(table.probe(42).is_none()));
    }
}
