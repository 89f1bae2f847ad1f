//! VCT, victory by continuous threats: the threat-space search of Allis, van den Herik and
//! Huntjens ("Go-Moku solved by new search techniques", 1993). The attacker plays only
//! threats: fours (one square completes a five) and threes (a square would then make an
//! open four or a double four). The defender's answers are limited to what can stop the
//! threat: the one square that blocks a four; against a three the squares that leave the
//! attacker no open four ([`threats::stops`]) and every four of the defender's own (a
//! counter-four, which the attacker must block before going on). A threat no single stone
//! stops (a double three, a four-three) wins unless the defender's fours save it.
//!
//! Depth counts the attacker's threats; its forced blocks of counter-fours are free (the
//! defender's fours run out). The search
//! has its own table, one per thread kept between moves: positions (attacker to move)
//! shown won within some depth, or shown not to be won within some depth, by hash. It stops at its node budget or deadline and
//! then knows nothing: a search cut short never claims a win, and never stores a failure.

use std::cell::RefCell;
use std::time::Instant;

use super::board::{Board, Cell};
use super::pattern::Threat;
use super::threats;

/// Table slots (direct-mapped by hash).
const TABLE_SLOTS: usize = 1 << 16;

/// What one VCT search may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most attacker moves in a line.
    pub depth: u32,
    /// The most positions it may visit.
    pub nodes: u64,
}

/// A win found: the first threat and how many plies (both sides') until the five along
/// the longest line the defender can choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Win {
    pub first: Cell,
    pub plies: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    /// Won within `depth` attacker moves, or not won within `depth`.
    depth: u8,
    won: bool,
    plies: u8,
}

/// The VCT search's own table, one per search thread, kept between moves: the defence
/// tries many positions that share sub-positions, and the next move's searches meet
/// many of this move's positions again.
pub struct Table {
    slots: Vec<Entry>,
}

impl Default for Table {
    fn default() -> Self {
        Table::new()
    }
}

impl Table {
    pub fn new() -> Table {
        Table {
            slots: vec![Entry::default(); TABLE_SLOTS],
        }
    }

    fn slot(hash: u64) -> usize {
        hash as usize & (TABLE_SLOTS - 1)
    }

    /// What is known of the attacker-to-move position `hash` at `depth`: `Some(Some(plies))`
    /// won, `Some(None)` not won, `None` unknown.
    fn probe(&self, hash: u64, depth: u32) -> Option<Option<u32>> {
        let entry = self.slots[Table::slot(hash)];
        if entry.key != hash {
            return None;
        }
        let stored = u32::from(entry.depth);
        match entry.won {
            true if stored <= depth => Some(Some(u32::from(entry.plies))),
            false if stored >= depth => Some(None),
            _ => None,
        }
    }

    fn store(&mut self, hash: u64, depth: u32, won: Option<u32>) {
        let depth = u8::try_from(depth).unwrap_or(u8::MAX);
        self.slots[Table::slot(hash)] = Entry {
            key: hash,
            depth,
            won: won.is_some(),
            plies: won.map_or(0, |p| u8::try_from(p).unwrap_or(u8::MAX)),
        };
    }
}

/// Runs `search` with this thread's table (made on first use, kept between moves: what
/// it knows is true of a position whatever the game, since a search cut short stores
/// nothing).
pub fn with_table<R>(search: impl FnOnce(&mut Table) -> R) -> R {
    thread_local! {
        static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
    }
    TABLE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => search(slot.get_or_insert_with(Table::new)),
        // Only a search inside a search could get here: it gets a table of its own.
        Err(_) => search(&mut Table::new()),
    })
}

/// The table key of a position: its hash, told apart by board size (the cells' keys
/// are shared between sizes).
fn key(board: &Board) -> u64 {
    board.hash() ^ (board.cells() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Looks for a VCT of the side to move on `board` (which comes back unchanged).
pub fn find(board: &mut Board, table: &mut Table, limits: Limits, deadline: Instant) -> Option<Win> {
    find_counted(board, table, limits, deadline).0
}

/// [`find`], and how many positions it visited.
pub fn find_counted(board: &mut Board, table: &mut Table, limits: Limits, deadline: Instant) -> (Option<Win>, u64) {
    let mut search = Vct {
        board,
        table,
        nodes: 0,
        limits,
        deadline,
        stopped: false,
    };
    let win = search.root(limits.depth);
    (win, search.nodes)
}

/// Whether the side *not* to move on `board` would have a VCT if it were its turn.
pub fn threatened(board: &mut Board, table: &mut Table, limits: Limits, deadline: Instant) -> bool {
    if board.five_cell(board.to_move()).is_some() {
        return false;
    }
    board.pass();
    let found = find(board, table, limits, deadline).is_some();
    board.pass();
    found
}

/// The attacker's threat moves on `board` (attacker to move), most promising first: the
/// block of the defender's five when there is one (it must be played), else every four
/// and every three. A move here is a real threat only if it leaves a five or an open-four
/// square: the search checks after playing it.
pub fn threat_moves(board: &Board) -> Vec<Cell> {
    let us = board.to_move();
    let them = 1 - us;
    if let Some(block) = board.five_cell(them) {
        return vec![block];
    }
    let mut moves: Vec<(Threat, i32, Cell)> = board
        .cells_from(us, Threat::Flex3)
        .map(|c| (board.threat(c, us), board.value(c, us) + board.value(c, them), c))
        .collect();
    moves.sort_unstable_by(|a, b| b.cmp(a));
    moves.into_iter().map(|(_, _, c)| c).collect()
}

/// The defender's answers (defender to move) to the attacker's threat: every four of the
/// defender's own, and the squares that stop the attacker's open four. Only called when
/// the attacker has no five to complete.
pub fn replies(board: &mut Board) -> Vec<Cell> {
    let defender = board.to_move();
    let attacker = 1 - defender;
    let mut moves = threats::stops(board, attacker);
    let fours: Vec<Cell> = board
        .cells_from(defender, Threat::Block4)
        .filter(|c| !moves.contains(c))
        .collect();
    moves.extend(fours);
    moves
}

/// What the attacker's last move left: a five to complete (a four), a square making an
/// open four (a three), or no threat at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    Four,
    Three,
    Nothing,
}

/// What the attacker (the side *not* to move) threatens on `board`.
pub fn made(board: &Board) -> Made {
    let attacker = 1 - board.to_move();
    if board.count(attacker, Threat::Five) > 0 {
        Made::Four
    } else if board.count(attacker, Threat::Flex4) > 0 {
        Made::Three
    } else {
        Made::Nothing
    }
}

struct Vct<'a> {
    board: &'a mut Board,
    table: &'a mut Table,
    /// Positions visited so far.
    nodes: u64,
    limits: Limits,
    deadline: Instant,
    /// The budget or the clock ran out: nothing found since is true.
    stopped: bool,
}

impl Vct<'_> {
    /// The root: like [`Vct::attack`], keeping the first move.
    fn root(&mut self, depth: u32) -> Option<Win> {
        let us = self.board.to_move();
        if let Some(first) = self.board.five_cell(us) {
            return Some(Win { first, plies: 1 });
        }
        if self.board.count(1 - us, Threat::Five) == 0
            && let Some(first) = self.board.cells_from(us, Threat::Flex4).next()
        {
            return Some(Win { first, plies: 3 });
        }
        let their_fives = self.board.count(1 - us, Threat::Five);
        if depth == 0 && their_fives == 0 {
            return None;
        }
        let next = if their_fives == 1 {
            depth
        } else {
            depth.saturating_sub(1)
        };
        for cell in threat_moves(self.board) {
            if let Some(plies) = self.after_attacker(cell, next) {
                return Some(Win { first: cell, plies });
            }
            if self.stopped {
                return None;
            }
        }
        None
    }

    /// Attacker to move with `depth` moves left: the plies to its five, if it wins.
    fn attack(&mut self, depth: u32) -> Option<u32> {
        let us = self.board.to_move();
        let them = 1 - us;
        if self.board.count(us, Threat::Five) > 0 {
            return Some(1);
        }
        let their_fives = self.board.count(them, Threat::Five);
        if their_fives == 0 && self.board.count(us, Threat::Flex4) > 0 {
            return Some(3);
        }
        if (depth == 0 && their_fives == 0) || their_fives >= 2 || self.out_of_budget() {
            return None;
        }
        let hash = key(self.board);
        if let Some(known) = self.table.probe(hash, depth) {
            return known;
        }
        // The block of a counter-four is forced: it does not count as a threat.
        let next = if their_fives == 1 { depth } else { depth - 1 };
        for cell in threat_moves(self.board) {
            if let Some(plies) = self.after_attacker(cell, next) {
                self.table.store(hash, depth, Some(plies));
                return Some(plies);
            }
            if self.stopped {
                return None;
            }
        }
        self.table.store(hash, depth, None);
        None
    }

    /// Plays the attacker's `cell`, lets the defender answer, and undoes it.
    fn after_attacker(&mut self, cell: Cell, depth: u32) -> Option<u32> {
        self.board.play(cell);
        let result = match made(self.board) {
            Made::Nothing => None,
            Made::Four | Made::Three => self.defend(depth),
        };
        self.board.undo();
        result.map(|plies| plies + 1)
    }

    /// Defender to move against a threat: the plies to the attacker's five if every
    /// answer loses.
    fn defend(&mut self, depth: u32) -> Option<u32> {
        let defender = self.board.to_move();
        let attacker = 1 - defender;
        if self.board.count(defender, Threat::Five) > 0 || self.out_of_budget() {
            return None;
        }
        let fives = self.board.count(attacker, Threat::Five);
        let moves = match fives {
            0 => replies(self.board),
            1 => self.board.five_cell(attacker).into_iter().collect(),
            _ => return Some(2),
        };
        if moves.is_empty() {
            // Nothing stops it and the defender has no four: the open four comes next.
            return Some(4);
        }
        let mut longest = 0;
        for cell in moves {
            self.board.play(cell);
            let result = self.attack(depth);
            self.board.undo();
            longest = longest.max(result? + 1);
        }
        Some(longest)
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

    use proptest::prelude::*;

    use super::*;
    use crate::gomoku::board::Side;
    use spelbord_games::gomoku::Variant;

    /// Generous node budgets: the positions here are small.
    fn limits(depth: u32) -> Limits {
        Limits {
            depth,
            nodes: 2_000_000,
        }
    }

    /// No test here should come near it: the node budgets bound the searches.
    fn later() -> Instant {
        Instant::now() + Duration::from_secs(600)
    }

    fn name(board: &Board, cell: Cell) -> String {
        board.square(cell).to_string()
    }

    fn vct(board: &mut Board, depth: u32) -> Option<Win> {
        find(board, &mut Table::new(), limits(depth), later())
    }

    #[test]
    fn a_double_three_is_a_vct_of_one_move() {
        // X: F8 G8 and H6 H7; H8 makes two open threes.
        let mut b = Board::with_stones(Variant::Free, &["F8", "G8", "H6", "H7"], &["A1", "H1", "O1", "A15"]);
        let win = vct(&mut b, 1).expect("a VCT");
        assert_eq!(name(&b, win.first), "H8");
        assert_eq!(vcf_free(&mut b), None, "no fours: not a VCF");
    }

    /// X: C3 D3 E3 closed by O on B3; H4 I4 on row 4; H5. F3 (a four, O must take G3)
    /// then G4 makes two open threes (F3 G4 H5 and G4 H4 I4). No single move wins.
    fn four_then_double_three() -> Board {
        Board::with_stones(
            Variant::Free,
            &["C3", "D3", "E3", "H4", "I4", "H5"],
            &["B3", "A15", "H15", "O15", "A8", "O1"],
        )
    }

    #[test]
    fn a_vct_of_a_four_and_a_double_three() {
        let mut b = four_then_double_three();
        assert_eq!(vct(&mut b, 1), None);
        let win = vct(&mut b, 2).expect("a VCT in two threats");
        assert!(win.plies >= 5, "{win:?}");
        assert_eq!(vcf_free(&mut b), None, "not a VCF");
    }

    #[test]
    fn no_vct_where_the_defence_holds() {
        // Two stones: a three, blocked, and nothing more within two threats.
        let mut b = Board::with_stones(Variant::Free, &["G8", "H8"], &["A1", "A15"]);
        assert_eq!(vct(&mut b, 2), None);
        // The row is closed on both sides and O sits on the diagonals: no three to make.
        let mut b = Board::with_stones(Variant::Free, &["G8", "H8"], &["F8", "I8", "G9", "H9"]);
        assert_eq!(vct(&mut b, 8), None);
        assert!(threat_moves(&b).is_empty());
    }

    /// X's double three on H8 (F8 G8 H8, H6 H7 H8) against O's closed three on row 13
    /// (C13 D13 E13, X on B13) and, with `double_four`, a second one through F13.
    fn against_counter_fours(double_four: bool) -> Board {
        let mut x = vec!["F8", "G8", "H6", "H7", "B13"];
        let mut o = vec!["C13", "D13", "E13", "A1", "O1"];
        if double_four {
            // O's anti-diagonal G12 H11 I10, closed by X on J9: F13 makes two fours.
            x.push("J9");
            o.extend(["G12", "H11", "I10"]);
        }
        Board::with_stones(Variant::Free, &x, &o)
    }

    #[test]
    fn counter_fours_that_only_delay_do_not_save_the_defender() {
        // O's one four (F13 or G13) is blocked and H8's threes still win.
        let mut b = against_counter_fours(false);
        let win = vct(&mut b, 4).expect("a VCT through O's counter-four");
        assert_eq!(name(&b, win.first), "H8");
    }

    #[test]
    fn a_winning_counter_four_refutes_the_threes() {
        // F13 makes O two fours at once: X's threes come too late (within three threats;
        // deeper, the search only grows: X has threes everywhere, all refuted alike).
        let mut b = against_counter_fours(true);
        assert_eq!(vct(&mut b, 3), None);
        // With O to move, O wins at once by its double four: a VCT of one move.
        b.pass();
        let win = vct(&mut b, 1).expect("O's double four");
        assert_eq!(name(&b, win.first), "F13");
    }

    #[test]
    fn a_defender_four_must_be_answered_by_the_attacker() {
        // O's four C13..F13 is on the board (B13 is X's): X must block G13 first, which
        // is no threat of X's, so X's double three never comes.
        let mut b = Board::with_stones(
            Variant::Free,
            &["F8", "G8", "H6", "H7", "B13"],
            &["C13", "D13", "E13", "F13", "O1"],
        );
        assert_eq!(threat_moves(&b), vec![b.cell("G13".parse().expect("square"))]);
        assert_eq!(vct(&mut b, 6), None);
    }

    #[test]
    fn the_table_remembers_and_budgets_stop_the_search() {
        let mut b = four_then_double_three();
        let mut table = Table::new();
        let (first, nodes) = find_counted(&mut b, &mut table, limits(4), later());
        let (again, fewer) = find_counted(&mut b, &mut table, limits(4), later());
        assert_eq!(first, again);
        assert!(fewer <= nodes, "{fewer} > {nodes}");
        // One node is not enough to prove anything that needs a defender's answer.
        let tiny = Limits { depth: 4, nodes: 1 };
        assert_eq!(find(&mut b, &mut Table::new(), tiny, later()), None);
        // Nor is a deadline already past.
        assert_eq!(find(&mut b, &mut Table::new(), limits(4), Instant::now()), None);
    }

    fn vcf_free(board: &mut Board) -> Option<super::super::vcf::Win> {
        use super::super::vcf::{self, Cache};
        let limits = vcf::Limits {
            fours: 20,
            nodes: 1_000_000,
        };
        vcf::find(board, &mut Cache::new(), limits, later())
    }

    /// Replays a claimed VCT of the side to move within `depth` attacker moves against
    /// every answer the defender has: every attacker move must be a threat (or the five)
    /// and every line must end in a five.
    fn replay(board: &mut Board, depth: u32) {
        let attacker: Side = board.to_move();
        let defender = 1 - attacker;
        if let Some(five) = board.five_cell(attacker) {
            assert_eq!(board.threat(five, attacker), Threat::Five);
            return;
        }
        let win = vct(board, depth).unwrap_or_else(|| panic!("a VCT within {depth} is lost on replay"));
        let cell = win.first;
        assert!(board.is_empty(cell));
        // As in the search: a forced block of a counter-four is not one of the threats.
        let next = if board.five_cell(defender).is_some() {
            depth
        } else {
            depth.saturating_sub(1)
        };
        assert!(
            board.threat(cell, attacker) >= Threat::Flex3 || board.five_cell(defender) == Some(cell),
            "{} is no threat",
            name(board, cell)
        );
        board.play(cell);
        assert_eq!(board.count(defender, Threat::Five), 0, "the defender could win at once");
        let answers: Vec<Cell> = match board.count(attacker, Threat::Five) {
            0 => {
                assert_ne!(made(board), Made::Nothing);
                replies(board)
            }
            1 => board.five_cell(attacker).into_iter().collect(),
            // Two fives: the defender blocks either, the attacker completes the other.
            _ => board.cells_from(attacker, Threat::Five).collect(),
        };
        if answers.is_empty() {
            // An unstoppable three: the open four comes next, then the five.
            let open = board.cells_from(attacker, Threat::Flex4).next();
            board.pass();
            let open = open.expect("an open four to make");
            board.play(open);
            assert!(board.count(attacker, Threat::Five) >= 2);
            board.undo();
            board.pass();
        }
        for answer in answers {
            board.play(answer);
            replay(board, next);
            board.undo();
        }
        board.undo();
    }

    #[test]
    fn the_hand_made_vcts_replay_to_a_five() {
        let mut b = four_then_double_three();
        replay(&mut b, 2);
        let mut b = against_counter_fours(false);
        replay(&mut b, 4);
    }

    /// A random position: stones of both sides alternately on the 9 × 9 centre, X to move
    /// unless `o_to_move`; no five on the board.
    fn position(cells: &[(u8, u8)], o_to_move: bool) -> Board {
        let mut board = Board::new(15, Variant::Free);
        for &(col, row) in cells {
            let Some(square) = spelbord_games::gomoku::Square::new(col + 3, row + 3) else {
                continue;
            };
            let cell = board.cell(square);
            if !board.is_empty(cell) || board.threat(cell, board.to_move()) == Threat::Five {
                continue;
            }
            board.play(cell);
        }
        if (board.to_move() == 1) != o_to_move {
            board.pass();
        }
        board
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any VCT found replays as one: threat moves only, answered by every reply the
        /// defender is given, each line ending in a five.
        #[test]
        fn every_vct_found_replays_to_a_five(
            cells in proptest::collection::vec((0u8..9, 0u8..9), 8..30),
            o_to_move in any::<bool>(),
        ) {
            let mut board = position(&cells, o_to_move);
            let start = board.hash();
            let depth = 4;
            if vct(&mut board, depth).is_some() {
                replay(&mut board, depth);
            }
            prop_assert_eq!(board.hash(), start, "the board comes back unchanged");
        }
    }
}
