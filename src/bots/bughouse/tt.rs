//! The transposition table: a bounded, always-replace-if-deeper hash table of search
//! results, one per thread (searches run on a small pool of OS threads), kept between
//! searches. Keys are the nodes' Zobrist hashes (pockets included), so an entry stays
//! valid when the partner board changes a pocket: the changed position has another key.

use std::cell::RefCell;

use shakmaty::{Move, Role, Square};

/// Entries in a table: 2^20 of 16 bytes, 16 MB per thread.
const ENTRIES: usize = 1 << 20;

/// What a stored score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least this (a beta cut-off).
    Lower,
    /// At most this (no move reached alpha).
    Upper,
}

/// One stored result.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// The best move's [`encode`]d form, 0 for none.
    best: u16,
    score: i16,
    depth: i8,
    /// 0 for an empty slot, else 1 + the [`Bound`] index.
    bound: u8,
    /// The search that wrote it, for replacement.
    age: u8,
}

/// A probe's answer.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub best: u16,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// The table.
pub struct Table {
    entries: Vec<Entry>,
    age: u8,
}

impl Table {
    fn new() -> Table {
        Table {
            entries: vec![Entry::default(); ENTRIES],
            age: 0,
        }
    }

    /// Marks a new search: older entries give way first.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    fn slot(key: u64) -> usize {
        // The low bits index; ENTRIES is a power of two.
        (key as usize) & (ENTRIES - 1)
    }

    pub fn probe(&self, key: u64) -> Option<Hit> {
        let entry = self.entries[Table::slot(key)];
        if entry.bound == 0 || entry.key != key {
            return None;
        }
        let bound = match entry.bound {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Hit {
            best: entry.best,
            score: i32::from(entry.score),
            depth: i32::from(entry.depth),
            bound,
        })
    }

    pub fn store(&mut self, key: u64, best: u16, score: i32, depth: i32, bound: Bound) {
        let age = self.age;
        let entry = &mut self.entries[Table::slot(key)];
        let replace = entry.bound == 0 || entry.age != age || entry.key == key || i32::from(entry.depth) <= depth;
        if !replace {
            return;
        }
        let best = if best == 0 && entry.key == key {
            entry.best
        } else {
            best
        };
        *entry = Entry {
            key,
            best,
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth: depth.clamp(-1, 127) as i8,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            age,
        };
    }
}

thread_local! {
    static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's table (allocated on first use).
pub fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let table = slot.get_or_insert_with(Table::new);
        f(table)
    })
}

/// A move in 16 bits: piece moves as from, to and promotion; drops flagged with the role.
pub fn encode(m: Move) -> u16 {
    let square = |s: Square| u16::from(u8::from(s));
    let role = |r: Role| u16::from(u8::from(r));
    match m {
        Move::Normal {
            from, to, promotion, ..
        } => square(from) | square(to) << 6 | promotion.map_or(0, role) << 12,
        Move::EnPassant { from, to } => square(from) | square(to) << 6,
        Move::Castle { king, rook } => square(king) | square(rook) << 6,
        Move::Put { role: r, to } => 0x8000 | square(to) | role(r) << 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes() {
        let mut table = Table::new();
        table.new_search();
        assert!(table.probe(42).is_none());
        table.store(42, 7, -120, 3, Bound::Lower);
        let hit = table.probe(42).expect("stored");
        assert_eq!((hit.best, hit.score, hit.depth, hit.bound), (7, -120, 3, Bound::Lower));
        // Same slot, other key: a shallower result does not push out a deeper one of this search.
        let other = 42 + ENTRIES as u64;
        table.store(other, 1, 0, 1, Bound::Exact);
        assert!(table.probe(other).is_none());
        assert!(table.probe(42).is_some());
    }

    #[test]
    fn moves_encode_distinctly() {
        let a = Move::Put {
            role: Role::Pawn,
            to: Square::A2,
        };
        let b = Move::Normal {
            role: Role::Pawn,
            from: Square::A2,
            capture: None,
            to: Square::A4,
            promotion: None,
        };
        assert_ne!(encode(a), encode(b));
        assert_ne!(encode(a), 0);
    }
}
