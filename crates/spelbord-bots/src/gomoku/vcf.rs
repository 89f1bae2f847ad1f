//! VCF, victory by continuous fours: a search in which the attacker plays only fours, so
//! every answer of the defender is forced (the one square that stops the five). It wins
//! when the attacker reaches a five, an open four or a double four that the defender
//! cannot answer with a five of their own; a defender's four on the way must be stopped by
//! a stone that is itself a four, or the line of fours ends. Positions already shown to
//! fail are remembered by hash.

use std::time::Instant;

use super::board::{Board, Cell};
use super::pattern::Threat;

/// Failed positions remembered per search (direct-mapped by hash).
const CACHE_SLOTS: usize = 1 << 16;

/// A win found: the first move and how many plies (both sides') until the five.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Win {
    pub first: Cell,
    pub plies: u32,
}

/// What one VCF search may spend.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most fours the attacker may play.
    pub fours: u32,
    /// The most positions it may visit.
    pub nodes: u64,
}

/// Remembers positions where a VCF failed, and with how many fours left.
pub struct Cache {
    slots: Vec<(u64, u32)>,
}

impl Cache {
    pub fn new() -> Cache {
        Cache {
            slots: vec![(0, 0); CACHE_SLOTS],
        }
    }

    fn failed(&self, hash: u64, fours: u32) -> bool {
        let (key, depth) = self.slots[hash as usize & (CACHE_SLOTS - 1)];
        key == hash && depth >= fours
    }

    fn fail(&mut self, hash: u64, fours: u32) {
        self.slots[hash as usize & (CACHE_SLOTS - 1)] = (hash, fours);
    }
}

/// Looks for a VCF of the side to move on `board` (which comes back unchanged).
pub fn find(board: &mut Board, cache: &mut Cache, limits: Limits, deadline: Instant) -> Option<Win> {
    find_counted(board, cache, limits, deadline).0
}

/// [`find`], and how many positions it visited.
pub fn find_counted(board: &mut Board, cache: &mut Cache, limits: Limits, deadline: Instant) -> (Option<Win>, u64) {
    let mut search = Vcf {
        board,
        cache,
        nodes: 0,
        limits,
        deadline,
        stopped: false,
    };
    let win = search.attack(limits.fours);
    (win, search.nodes)
}

/// Whether the side *not* to move on `board` would have a VCF if it were its turn.
pub fn threatened(board: &mut Board, cache: &mut Cache, limits: Limits, deadline: Instant) -> bool {
    let them = 1 - board.to_move();
    if board.five_cell(board.to_move()).is_some() || board.count_from(them, Threat::Block4) == 0 {
        return false;
    }
    board.pass();
    let found = find(board, cache, limits, deadline).is_some();
    board.pass();
    found
}

struct Vcf<'a> {
    board: &'a mut Board,
    cache: &'a mut Cache,
    nodes: u64,
    limits: Limits,
    deadline: Instant,
    stopped: bool,
}

impl Vcf<'_> {
    fn attack(&mut self, fours: u32) -> Option<Win> {
        let us = self.board.to_move();
        let them = 1 - us;
        if let Some(first) = self.board.five_cell(us) {
            return Some(Win { first, plies: 1 });
        }
        let their_fives = self.board.count(them, Threat::Five);
        if their_fives == 0
            && self.board.count(us, Threat::Flex4) > 0
            && let Some(first) = self.board.cells_from(us, Threat::Flex4).next()
        {
            return Some(Win { first, plies: 3 });
        }
        if fours == 0 || their_fives >= 2 || self.out_of_budget() {
            return None;
        }
        let hash = self.board.hash();
        if self.cache.failed(hash, fours) {
            return None;
        }
        let mut moves: Vec<(Threat, i32, Cell)> = match self.board.five_cell(them) {
            // Their four must be stopped, and the stone stopping it must be a four.
            Some(block) if self.board.threat(block, us).is_four() => {
                vec![(Threat::Block4, 0, block)]
            }
            Some(_) => Vec::new(),
            None => self
                .board
                .cells_from(us, Threat::Block4)
                .map(|c| (self.board.threat(c, us), self.board.value(c, us), c))
                .collect(),
        };
        moves.sort_unstable_by(|a, b| b.cmp(a));
        for (_, _, cell) in moves {
            self.board.play(cell);
            let found = match self.board.count(us, Threat::Five) {
                0 => None,
                1 => self.board.five_cell(us).and_then(|reply| {
                    self.board.play(reply);
                    let deeper = self.attack(fours - 1);
                    self.board.undo();
                    deeper.map(|win| win.plies + 2)
                }),
                _ => Some(3),
            };
            self.board.undo();
            if let Some(plies) = found {
                return Some(Win { first: cell, plies });
            }
            if self.stopped {
                return None;
            }
        }
        self.cache.fail(hash, fours);
        None
    }

    fn out_of_budget(&mut self) -> bool {
        self.nodes += 1;
        // The clock is read at the first node and every 256 after it.
        if self.nodes > self.limits.nodes || (self.nodes & 255 == 1 && Instant::now() >= self.deadline) {
            self.stopped = true;
        }
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use spelbord_games::gomoku::Variant;

    const WIDE: Limits = Limits {
        fours: 20,
        nodes: 1_000_000,
    };

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn finds_a_double_four() {
        // X: C3 D3 E3 closed by O on B3, and F5 F6 F7 closed by O on F8. F3 makes two
        // fours at once (G3 and F4 complete them).
        let x = ["C3", "D3", "E3", "F5", "F6", "F7"];
        let o = ["B3", "F8", "A10", "A12", "A14", "C14"];
        let mut b = Board::with_stones(Variant::Free, &x, &o);
        let win = find(&mut b, &mut Cache::new(), WIDE, later()).expect("a VCF");
        assert_eq!((b.square(win.first).to_string(), win.plies), ("F3".to_owned(), 3));
        // In exact5 the same holds: no overline is involved.
        let mut b = Board::with_stones(Variant::Exact5, &x, &o);
        assert!(find(&mut b, &mut Cache::new(), WIDE, later()).is_some());
    }

    #[test]
    fn no_vcf_without_fours() {
        let mut b = Board::with_stones(Variant::Free, &["H8", "I9"], &["A1", "A3"]);
        assert_eq!(find(&mut b, &mut Cache::new(), WIDE, later()), None);
    }
}
