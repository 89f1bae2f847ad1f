//! The positions one turn can reach, fast, for searches. [`next_positions`] lists the
//! distinct positions at the next turn boundary (or reports that the turn can win) and
//! [`can_win`] says whether the piece in turn can put an opponent's piece into the hole
//! this turn. They answer exactly what the enumeration of `enumerate.rs` answers (tests
//! compare them on many positions), through the same [`State::try_apply`], only with less
//! work:
//!
//! - Between two actions only the piece in turn moves, so the squares it can step to are
//!   found by one breadth-first search, each square with the fewest steps that reach it.
//!   Reaching a square with fewer steps is always at least as good (same board, more steps
//!   left), so a state is expanded again only when it is reached with fewer steps.
//! - States are keyed by a packed `u64` in an open-addressing table reused on each thread,
//!   so nothing is allocated per node.
//! - [`can_win`] skips what cannot lead to a win: states with no action left (unless a
//!   piece is carried), swaps and pick-ups of one's own piece as the last action, jumps as
//!   the last action that shove nobody into the hole, and states with one action left
//!   where no opponent piece stands within two squares of the hole in its row or column
//!   (and the carrier cannot reach one).

use std::cell::RefCell;

use super::square::{distance, offset};
use super::turn::{Effect, State};
use super::{Board, CARRIED, DIRECTIONS, HOLE_INDEX, KruxPosition, MAX_ACTIONS, MAX_STEPS, Part, Ring, colour};

/// The position reached, packed: six 6-bit squares (`CARRIED` as 63), six 2-bit rings and
/// the piece in turn.
pub(super) fn pack(board: &Board) -> u64 {
    let mut key = 0u64;
    for &loc in &board.loc {
        let square = if loc == CARRIED { 63 } else { loc & 63 };
        key = key << 6 | u64::from(square);
    }
    for ring in board.rings {
        let code = match ring {
            None => 0,
            Some(Ring::Blue) => 1,
            Some(Ring::Green) => 2,
            Some(Ring::Pink) => 3,
        };
        key = key << 2 | code;
    }
    key << 3 | u64::from(board.in_turn)
}

/// A map from packed keys to a small value, cleared in O(1) by a generation stamp.
struct KeyTable {
    keys: Vec<u64>,
    values: Vec<u8>,
    stamps: Vec<u32>,
    stamp: u32,
    len: usize,
}

impl KeyTable {
    fn new() -> KeyTable {
        KeyTable {
            keys: vec![0; 1 << 12],
            values: vec![0; 1 << 12],
            stamps: vec![0; 1 << 12],
            stamp: 1,
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.iter_mut().for_each(|stamp| *stamp = 0);
            self.stamp = 1;
        }
    }

    fn slot(&self, key: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        while self.stamps[slot] == self.stamp && self.keys[slot] != key {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// Stores `value` for `key` unless a value at most as large is stored; whether it did.
    fn lower(&mut self, key: u64, value: u8) -> bool {
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let slot = self.slot(key);
        if self.stamps[slot] == self.stamp {
            if self.values[slot] <= value {
                return false;
            }
        } else {
            self.stamps[slot] = self.stamp;
            self.keys[slot] = key;
            self.len += 1;
        }
        self.values[slot] = value;
        true
    }

    fn grow(&mut self) {
        let old: Vec<(u64, u8)> = (0..self.keys.len())
            .filter(|&slot| self.stamps[slot] == self.stamp)
            .map(|slot| (self.keys[slot], self.values[slot]))
            .collect();
        let size = self.keys.len() * 2;
        self.keys = vec![0; size];
        self.values = vec![0; size];
        self.stamps = vec![0; size];
        self.stamp = 1;
        self.len = 0;
        for (key, value) in old {
            self.lower(key, value);
        }
    }
}

/// The tables one search over a turn uses, kept per thread.
struct Scratch {
    /// Expanded states (packed board and actions used) with the fewest steps seen.
    seen: KeyTable,
    /// The end positions recorded.
    ends: KeyTable,
    /// Candidate parts, one list per recursion depth.
    parts: Vec<Vec<Part>>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch {
        seen: KeyTable::new(),
        ends: KeyTable::new(),
        parts: Vec::new(),
    });
}

/// One search over the rest of a turn.
struct Reach<'a> {
    scratch: &'a mut Scratch,
    /// Where the end positions go; `None` when only a win is looked for.
    out: Option<&'a mut Vec<KruxPosition>>,
    won: bool,
}

impl Reach<'_> {
    fn win_only(&self) -> bool {
        self.out.is_none()
    }

    fn record(&mut self, board: Board) {
        if let Some(out) = self.out.as_deref_mut()
            && self.scratch.ends.lower(pack(&board), 0)
        {
            out.push(KruxPosition(board));
        }
    }

    /// Expands a state reached by an action (or the start): every square the piece in turn
    /// can step to, and every action or set-down from there.
    fn expand(&mut self, start: State, depth: usize) {
        if self.won {
            return;
        }
        let key = pack(&start.board) << 2 | u64::from(start.actions);
        if !self.scratch.seen.lower(key, start.steps) {
            return;
        }
        if self.win_only() && !can_still_win(&start) {
            return;
        }
        let mut queue = [start; 49];
        let mut len = 1;
        let mut reached = 1u64 << start.mover_square().min(63);
        let mut next = 0;
        while next < len {
            let state = queue[next];
            next += 1;
            if state.can_end() {
                let mut ended = state.board;
                ended.in_turn = (ended.in_turn + 1) % 6;
                self.record(ended);
            }
            if state.steps < MAX_STEPS {
                let from = state.mover_square();
                for dir in DIRECTIONS {
                    let Some(to) = offset(from, dir) else { continue };
                    if reached & (1 << to) != 0 {
                        continue;
                    }
                    let mut stepped = state;
                    match stepped.try_apply(Part::Step { to: super::name(to) }) {
                        Some(Effect::Continue) => {
                            reached |= 1 << to;
                            queue[len] = stepped;
                            len += 1;
                        }
                        Some(Effect::TurnOver) => self.record(stepped.board),
                        Some(Effect::Won) | None => {}
                    }
                }
            }
            self.act(&state, depth);
            if self.won {
                return;
            }
        }
    }

    /// Every action (or set-down) of `state`.
    fn act(&mut self, state: &State, depth: usize) {
        if self.scratch.parts.len() <= depth {
            self.scratch.parts.resize_with(depth + 1, Vec::new);
        }
        let mut parts = std::mem::take(&mut self.scratch.parts[depth]);
        state.candidates(&mut parts);
        let last_action = state.actions + 1 == MAX_ACTIONS;
        for &part in &parts {
            if matches!(part, Part::Step { .. } | Part::End {}) {
                continue;
            }
            if self.win_only() && !may_win(state, part, last_action) {
                continue;
            }
            let mut after = *state;
            match after.try_apply(part) {
                None => {}
                Some(Effect::Won) => self.won = true,
                Some(Effect::TurnOver) => self.record(after.board),
                Some(Effect::Continue) => self.expand(after, depth + 1),
            }
            if self.won {
                break;
            }
        }
        self.scratch.parts[depth] = parts;
    }
}

/// Whether an opponent of the piece in turn stands within two squares of the hole in its
/// row or column (where one push, pull or shove could drop it in).
fn opponent_near_hole(state: &State) -> bool {
    let board = &state.board;
    let hole_col = HOLE_INDEX % 7;
    let hole_row = HOLE_INDEX / 7;
    (0..6u8).any(|piece| {
        let at = board.loc[usize::from(piece)];
        !state.own(piece)
            && at != CARRIED
            && (at % 7 == hole_col || at / 7 == hole_row)
            && distance(at, HOLE_INDEX) <= 2
    })
}

/// A necessary condition for a win from `state` (reached by an action or the start):
/// without it no sequence of the remaining parts can win.
fn can_still_win(state: &State) -> bool {
    let board = &state.board;
    let steps_left = MAX_STEPS - state.steps;
    if let Some(carried) = state.carrying {
        // Only setting an opponent's piece down into the hole can win now (unless an
        // action is left for after the set-down).
        return state.actions < MAX_ACTIONS
            || (!state.own(carried) && distance(state.mover_square(), HOLE_INDEX) <= steps_left + 1);
    }
    if board.ring_due() {
        return true;
    }
    match MAX_ACTIONS - state.actions {
        0 => false,
        1 => {
            if opponent_near_hole(state) {
                return true;
            }
            // A carrier may still pick an opponent up, walk to the hole and drop it in.
            board.rings[usize::from(state.mover())] == Some(Ring::Blue)
                && distance(state.mover_square(), HOLE_INDEX) <= steps_left + 1
                && (0..6u8).any(|piece| {
                    let at = board.loc[usize::from(piece)];
                    !state.own(piece) && at != CARRIED && distance(at, HOLE_INDEX) <= steps_left + 2
                })
        }
        _ => match board.rings[usize::from(state.mover())] {
            // A push or pull moves a piece two squares at most, a shove one: an opponent
            // must be within four of the hole. A swapper or carrier can bring one from far.
            None | Some(Ring::Green) => (0..6u8).any(|piece| {
                let at = board.loc[usize::from(piece)];
                !state.own(piece) && at != CARRIED && distance(at, HOLE_INDEX) <= 4
            }),
            Some(Ring::Blue | Ring::Pink) => true,
        },
    }
}

/// Whether `part` from `state` can be part of a win, when only wins matter.
fn may_win(state: &State, part: Part, last_action: bool) -> bool {
    if let Some(carried) = state.carrying {
        // With no action left after it, only a set-down into the hole can still win.
        return state.actions < MAX_ACTIONS
            || matches!(part, Part::SetDown { to } if to == super::name(HOLE_INDEX) && !state.own(carried));
    }
    if !last_action {
        return true;
    }
    match part {
        Part::Swap { .. } => false,
        Part::PickUp { target } => target
            .index()
            .and_then(|at| state.board.piece_at(at))
            .is_some_and(|piece| colour(piece) != colour(state.mover())),
        // The shove into the hole comes from a landing square two squares from the hole,
        // in its row or column.
        Part::Jump { to } => to
            .index()
            .is_some_and(|at| distance(at, HOLE_INDEX) == 2 && (at % 7 == HOLE_INDEX % 7 || at / 7 == HOLE_INDEX / 7)),
        _ => true,
    }
}

fn with_scratch<T>(run: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            scratch.seen.clear();
            scratch.ends.clear();
            run(&mut scratch)
        }
        // Only a re-entrant call could find it borrowed; give it tables of its own.
        Err(_) => run(&mut Scratch {
            seen: KeyTable::new(),
            ends: KeyTable::new(),
            parts: Vec::new(),
        }),
    })
}

/// The distinct positions at the next turn boundary that one whole turn of the piece in
/// turn can reach from `position`, appended to `out` (cleared first), as
/// [`super::perft1`] counts them; `true`, and `out` incomplete, when the turn can put an
/// opponent's piece into the hole instead. Whether a position would end the game by
/// repetition or the turn cap is the caller's business.
pub fn next_positions(position: &KruxPosition, out: &mut Vec<KruxPosition>) -> bool {
    out.clear();
    with_scratch(|scratch| {
        let mut reach = Reach {
            scratch,
            out: Some(out),
            won: false,
        };
        reach.expand(State::at_boundary(*position), 0);
        reach.won
    })
}

/// Whether the piece in turn can put an opponent's piece into the hole in its turn from
/// `position` (what [`super::winning_turn`] finds, without the parts).
pub fn can_win(position: &KruxPosition) -> bool {
    with_scratch(|scratch| {
        let mut reach = Reach {
            scratch,
            out: None,
            won: false,
        };
        reach.expand(State::at_boundary(*position), 0);
        reach.won
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::krux::enumerate::Explorer;
    use crate::krux::test_support::*;

    /// The enumeration's answer: the end positions that do not win, and whether one wins.
    fn explored(position: KruxPosition) -> (HashSet<KruxPosition>, bool) {
        let explorer = Explorer::run(State::at_boundary(position), false);
        let won = explorer.ends.iter().any(|(_, end)| end.won);
        let ends = explorer
            .ends
            .iter()
            .filter(|(_, end)| !end.won)
            .map(|(_, end)| KruxPosition(end.board))
            .collect();
        (ends, won)
    }

    fn check(position: KruxPosition) -> bool {
        let (expected, won) = explored(position);
        let mut out = Vec::new();
        assert_eq!(next_positions(&position, &mut out), won, "{position}");
        if !won {
            let listed: HashSet<KruxPosition> = out.iter().copied().collect();
            assert_eq!(listed.len(), out.len(), "{position}: a position listed twice");
            assert_eq!(listed, expected, "{position}");
        }
        assert_eq!(can_win(&position), won, "{position}");
        won
    }

    #[test]
    fn agrees_with_the_enumeration_on_known_positions() {
        for (text, _) in POSITIONS {
            check(text.parse().unwrap());
        }
        let winning: KruxPosition = "1d3p 2e5b 3c4g 4e3 5b5 6f4 / 3".parse().unwrap();
        assert!(check(winning));
    }

    #[test]
    fn agrees_with_the_enumeration_on_random_positions() {
        let mut state = 0x1234_5678_9abc_def1;
        let mut wins = 0;
        for _ in 0..60 {
            wins += usize::from(check(random_position(&mut state)));
        }
        // Random placements put pieces near the hole: both answers occur.
        assert!(wins > 5 && wins < 55, "{wins} wins");
    }

    /// Many more positions; slow in a debug build: run with
    /// `cargo test --release -- --ignored reach_agrees_at_length`.
    #[test]
    #[ignore]
    fn reach_agrees_at_length() {
        let mut state = 0x0dd_ba11_cafe_f00d;
        let positions: Vec<KruxPosition> = (0..5_000).map(|_| random_position(&mut state)).collect();
        for position in &positions {
            check(*position);
        }
        let started = std::time::Instant::now();
        let mut out = Vec::new();
        let wins = positions.iter().filter(|p| next_positions(p, &mut out)).count();
        let listing = started.elapsed();
        let started = std::time::Instant::now();
        assert_eq!(positions.iter().filter(|p| can_win(p)).count(), wins);
        let testing = started.elapsed();
        let started = std::time::Instant::now();
        positions.iter().take(500).for_each(|p| drop(explored(*p)));
        let enumerating = started.elapsed() * 10;
        println!(
            "{} positions, {wins} wins: next_positions {listing:?}, can_win {testing:?}, enumeration {enumerating:?}",
            positions.len()
        );
        let quiet: Vec<KruxPosition> = positions.iter().copied().filter(|p| !can_win(p)).collect();
        let started = std::time::Instant::now();
        let ends: usize = quiet
            .iter()
            .map(|p| {
                next_positions(p, &mut out);
                out.len()
            })
            .sum();
        let listing = started.elapsed();
        let started = std::time::Instant::now();
        quiet.iter().for_each(|p| assert!(!can_win(p)));
        println!(
            "{} without a win, {ends} ends: next_positions {listing:?}, can_win {:?}",
            quiet.len(),
            started.elapsed()
        );
    }

    /// Timing on positions from random games, for profiling:
    /// `cargo test --release -- --ignored reach_speed --nocapture`.
    #[test]
    #[ignore]
    fn reach_speed() {
        let mut state = 0x5eed_5eed_5eed_5eed;
        let mut positions = Vec::new();
        let mut out = Vec::new();
        while positions.len() < 400 {
            let mut position = KruxPosition::start();
            for _ in 0..40 {
                if next_positions(&position, &mut out) || out.is_empty() {
                    break;
                }
                positions.push(position);
                position = out[(xorshift(&mut state) % out.len() as u64) as usize];
            }
        }
        let started = std::time::Instant::now();
        let mut ends = 0;
        for _ in 0..5 {
            for position in &positions {
                next_positions(position, &mut out);
                ends += out.len();
            }
        }
        let listing = started.elapsed() / 5;
        let started = std::time::Instant::now();
        let mut wins = 0;
        for _ in 0..5 {
            wins += positions.iter().filter(|p| can_win(p)).count();
        }
        let testing = started.elapsed() / 5;
        println!(
            "{} positions, {} ends, {} wins: next_positions {:?} each, can_win {:?} each",
            positions.len(),
            ends / 5,
            wins / 5,
            listing / positions.len() as u32,
            testing / positions.len() as u32
        );
    }
}
