//! The engine's board: the stones, and for every empty square each side's line patterns,
//! threat class and value, all updated incrementally when a stone is placed (only the
//! squares within five of it on its four lines change; their states before are saved, so
//! taking the stone back puts them back without reading a pattern). It also keeps the
//! Zobrist hash, how many empty squares hold each threat class for each side, each side's
//! sum of square values (the evaluation's raw material), and how many stones lie near
//! each square (the candidate moves).

use super::eval;
use super::pattern::{self, LineKey, OPP, OWN, Pattern, REACH, Threat, WALL};
use spelbord_games::gomoku::{Gomoku, Mark, Square, Variant};

/// A square as an index, `row * size + col`.
pub type Cell = usize;

/// A side: 0 for X (first to move), 1 for O.
pub type Side = usize;

/// The four axes as steps `(columns, rows)`.
const AXES: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// Squares within this distance (in both coordinates) of a stone are candidate moves.
const NEAR: i32 = 2;

/// The largest board the engine handles (the rules clamp sizes to 26).
const MAX_CELLS: usize = 26 * 26;

/// Zobrist keys: one per side and square, one for the side to move, one per variant.
struct Zobrist {
    stones: [[u64; MAX_CELLS]; 2],
    side: u64,
    exact5: u64,
}

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn zobrist() -> Zobrist {
    let mut keys = Zobrist {
        stones: [[0; MAX_CELLS]; 2],
        side: 0,
        exact5: 0,
    };
    let mut state = 0x5EED_0F60_u64;
    let mut side = 0;
    while side < 2 {
        let mut cell = 0;
        while cell < MAX_CELLS {
            let (next, value) = splitmix(state);
            state = next;
            keys.stones[side][cell] = value;
            cell += 1;
        }
        side += 1;
    }
    let (next, value) = splitmix(state);
    keys.side = value;
    let (_, value) = splitmix(next);
    keys.exact5 = value;
    keys
}

static ZOBRIST: Zobrist = zobrist();

/// One neighbour a stone changes: the neighbour's square, the axis, and the bit shift of
/// the stone's slot in the neighbour's key.
#[derive(Debug, Clone, Copy)]
struct Link {
    cell: u16,
    axis: u8,
    shift: u8,
}

/// The state of one empty square for one side.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SideInfo {
    patterns: [Pattern; 4],
    /// The four patterns as one number ([`eval::square_code`]), kept with them.
    code: u16,
    threat: Threat,
    value: i32,
    /// The learned weights of the square's shape, as the side to move's and as the
    /// waiting side's ([`eval::SquareClass::learned`]).
    learned: [i16; 2],
}

const NO_INFO: SideInfo = SideInfo {
    patterns: [Pattern::Dead; 4],
    code: 0,
    threat: Threat::None,
    value: 0,
    learned: [0; 2],
};

/// What [`Board::undo`] puts back, saved by [`Board::play`]: the counts and sums, the
/// played square's own state while it was empty, and where its neighbours' saved states
/// start in [`Board::saved`].
#[derive(Clone)]
struct Undo {
    threat_count: [[u16; Threat::COUNT]; 2],
    totals: [i32; 2],
    learned: [[i32; 2]; 2],
    info: [SideInfo; 2],
    saved_from: usize,
}

/// What a pattern on each axis adds to [`SideInfo::code`].
const AXIS_WEIGHT: [i32; 4] = [1000, 100, 10, 1];

/// The board a search works on.
#[derive(Clone)]
pub struct Board {
    size: usize,
    /// The variant's pattern table.
    table: &'static pattern::Table,
    /// Each square code's threat class and value ([`eval::square_classes`]).
    classes: &'static [eval::SquareClass],
    /// 0 empty, `side + 1` for a stone.
    stones: Vec<u8>,
    /// Each square's neighbourhood on each axis, read for X (X's stones are [`OWN`]).
    keys: Vec<[LineKey; 4]>,
    /// Each square's patterns for X and O (meaningful while the square is empty).
    info: Vec<[SideInfo; 2]>,
    /// How many empty squares hold each threat class, per side.
    threat_count: [[u16; Threat::COUNT]; 2],
    /// Per side, the sum of the values of the empty squares.
    totals: [i32; 2],
    /// Per side, the sums of the learned weights of the empty squares' shapes, as the
    /// side to move's and as the waiting side's.
    learned: [[i32; 2]; 2],
    /// How many stones lie within [`NEAR`] of each square.
    near: Vec<u8>,
    /// For each square, the neighbours whose keys it is part of.
    links: Vec<Vec<Link>>,
    hash: u64,
    /// How many stones are on the board.
    stone_count: usize,
    /// The stones placed so far (in this board's life), in order.
    played: Vec<Cell>,
    /// Per stone in `played`, what taking it back restores.
    undo_stack: Vec<Undo>,
    /// The states of the empty squares the stones in `played` changed, before they did.
    saved: Vec<(Cell, [SideInfo; 2])>,
    to_move: Side,
}

impl Board {
    /// An empty board of `size` × `size` (X to move).
    pub fn new(size: u8, variant: Variant) -> Board {
        let size = usize::from(size);
        let cells = size * size;
        let on = |c: i32, r: i32| (0..size as i32).contains(&c) && (0..size as i32).contains(&r);
        let mut keys = vec![[0; 4]; cells];
        let mut links = vec![Vec::new(); cells];
        for (cell, key) in keys.iter_mut().enumerate() {
            let (col, row) = ((cell % size) as i32, (cell / size) as i32);
            for (axis, (dc, dr)) in AXES.iter().enumerate() {
                for offset in (-REACH..=REACH).filter(|&o| o != 0) {
                    let shift = 2 * pattern::slot(offset);
                    let (c, r) = (col + dc * offset, row + dr * offset);
                    // In `free` a stone five squares away changes no pattern: no link.
                    let linked = offset.abs() < REACH || variant == Variant::Exact5;
                    if on(c, r) && !linked {
                        continue;
                    } else if on(c, r) {
                        // A stone on `other` fills the slot at `offset` in `cell`'s key.
                        let other = (r as usize) * size + c as usize;
                        links[other].push(Link {
                            cell: cell as u16,
                            axis: axis as u8,
                            shift: shift as u8,
                        });
                    } else {
                        key[axis] |= WALL << shift;
                    }
                }
            }
        }
        let mut board = Board {
            size,
            table: pattern::table(variant),
            classes: eval::square_classes(),
            stones: vec![0; cells],
            keys,
            info: vec![[NO_INFO; 2]; cells],
            threat_count: [[0; Threat::COUNT]; 2],
            totals: [0; 2],
            learned: [[0; 2]; 2],
            near: vec![0; cells],
            links,
            hash: if variant == Variant::Exact5 { ZOBRIST.exact5 } else { 0 },
            stone_count: 0,
            played: Vec::new(),
            undo_stack: Vec::new(),
            saved: Vec::new(),
            to_move: 0,
        };
        for cell in 0..board.stones.len() {
            board.refresh(cell);
            board.count_in(cell);
        }
        board
    }

    /// The engine's board for a game's position (the side to move follows the stones).
    pub fn from_game(game: &Gomoku) -> Board {
        let mut board = Board::new(game.size(), game.variant());
        for square in game.moves() {
            let cell = board.cell(*square);
            let side = match game.mark_at(*square) {
                Some(Mark::O) => 1,
                _ => 0,
            };
            if board.to_move != side {
                board.pass();
            }
            board.play(cell);
        }
        board.forget_history();
        board
    }

    /// Forgets the stones played so far as moves (they stay on the board; `undo` stops
    /// before them).
    fn forget_history(&mut self) {
        self.played.clear();
        self.undo_stack.clear();
        self.saved.clear();
    }

    pub fn cells(&self) -> usize {
        self.stones.len()
    }

    /// The cell of a square (on this board).
    pub fn cell(&self, square: Square) -> Cell {
        usize::from(square.row()) * self.size + usize::from(square.col())
    }

    /// The square of a cell.
    pub fn square(&self, cell: Cell) -> Square {
        // Cells index boards of at most 26 × 26, so both coordinates fit a u8 and name a
        // square; the centre is an unreachable fallback.
        let (col, row) = ((cell % self.size) as u8, (cell / self.size) as u8);
        Square::new(col, row).unwrap_or(Square::centre(self.size as u8))
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn is_empty(&self, cell: Cell) -> bool {
        self.stones[cell] == 0
    }

    /// The side whose stone is on `cell`.
    #[cfg(test)]
    pub fn stone(&self, cell: Cell) -> Option<Side> {
        match self.stones[cell] {
            0 => None,
            s => Some(usize::from(s) - 1),
        }
    }

    pub fn stone_count(&self) -> usize {
        self.stone_count
    }

    pub fn is_full(&self) -> bool {
        self.stone_count == self.stones.len()
    }

    /// What a stone of `side` on the empty `cell` makes.
    pub fn threat(&self, cell: Cell, side: Side) -> Threat {
        self.info[cell][side].threat
    }

    /// The value of the empty `cell` for `side`.
    pub fn value(&self, cell: Cell, side: Side) -> i32 {
        self.info[cell][side].value
    }

    /// The line patterns a stone of `side` on the empty `cell` makes, one per axis.
    pub fn patterns(&self, cell: Cell, side: Side) -> [Pattern; 4] {
        self.info[cell][side].patterns
    }

    /// The squares on the board along `axis` (an index into the four axes) within
    /// `reach` of `cell`, `cell` itself excluded.
    pub fn line(&self, cell: Cell, axis: usize, reach: i32) -> impl Iterator<Item = Cell> + '_ {
        let size = self.size as i32;
        let (col, row) = ((cell % self.size) as i32, (cell / self.size) as i32);
        let (dc, dr) = AXES[axis % 4];
        (-reach..=reach).filter(|&o| o != 0).filter_map(move |o| {
            let (c, r) = (col + dc * o, row + dr * o);
            ((0..size).contains(&c) && (0..size).contains(&r)).then(|| (r * size + c) as usize)
        })
    }

    /// The sum of the values of the empty squares for `side`.
    pub fn total(&self, side: Side) -> i32 {
        self.totals[side]
    }

    /// The sum of the learned weights of `side`'s empty squares' shapes, weighed as the
    /// side to move's (`role` 0) or as the waiting side's (1).
    pub fn learned_total(&self, side: Side, role: usize) -> i32 {
        self.learned[side][role]
    }

    /// How many empty squares give `side` the threat `threat`.
    pub fn count(&self, side: Side, threat: Threat) -> u32 {
        u32::from(self.threat_count[side][threat as usize])
    }

    /// How many empty squares give `side` at least `threat`.
    pub fn count_from(&self, side: Side, threat: Threat) -> u32 {
        self.threat_count[side][threat as usize..]
            .iter()
            .map(|&n| u32::from(n))
            .sum()
    }

    /// The empty squares where `side` has at least `threat`.
    pub fn cells_from(&self, side: Side, threat: Threat) -> impl Iterator<Item = Cell> + '_ {
        (0..self.stones.len()).filter(move |&c| self.stones[c] == 0 && self.info[c][side].threat >= threat)
    }

    /// The first empty square where `side` completes a five.
    pub fn five_cell(&self, side: Side) -> Option<Cell> {
        if self.count(side, Threat::Five) == 0 {
            return None;
        }
        self.cells_from(side, Threat::Five).next()
    }

    /// The empty squares near a stone (every square on an empty board's centre).
    pub fn candidates(&self) -> Vec<Cell> {
        let near: Vec<Cell> = (0..self.stones.len())
            .filter(|&c| self.stones[c] == 0 && self.near[c] > 0)
            .collect();
        if near.is_empty() {
            let centre = self.cell(Square::centre(self.size as u8));
            if centre < self.stones.len() && self.stones[centre] == 0 {
                return vec![centre];
            }
            return (0..self.stones.len()).filter(|&c| self.stones[c] == 0).collect();
        }
        near
    }

    /// Whether a stone lies on a square next to `cell` (diagonals included).
    pub fn touches_stone(&self, cell: Cell) -> bool {
        let size = self.size as i32;
        let (col, row) = ((cell % self.size) as i32, (cell / self.size) as i32);
        (-1..=1).any(|dr| {
            (-1..=1).any(|dc| {
                let (c, r) = (col + dc, row + dr);
                (0..size).contains(&c) && (0..size).contains(&r) && self.stones[(r * size + c) as usize] != 0
            })
        })
    }

    /// Places a stone of the side to move on the empty `cell`.
    pub fn play(&mut self, cell: Cell) {
        let side = self.to_move;
        self.undo_stack.push(Undo {
            threat_count: self.threat_count,
            totals: self.totals,
            learned: self.learned,
            info: self.info[cell],
            saved_from: self.saved.len(),
        });
        self.count_out(cell);
        self.stones[cell] = side as u8 + 1;
        self.hash ^= ZOBRIST.stones[side][cell];
        for i in 0..self.links[cell].len() {
            let link = self.links[cell][i];
            let other = usize::from(link.cell);
            self.keys[other][usize::from(link.axis)] |= (side as u32 + 1) << link.shift;
            if self.stones[other] == 0 {
                self.saved.push((other, self.info[other]));
                self.count_out(other);
                self.refresh_axis(other, usize::from(link.axis));
                self.count_in(other);
            }
        }
        self.mark_near(cell, 1);
        self.stone_count += 1;
        self.played.push(cell);
        self.to_move = 1 - side;
        self.hash ^= ZOBRIST.side;
    }

    /// Takes back the last stone placed by [`Board::play`]: the neighbours' keys are
    /// cleared again, and the states and counts [`Board::play`] saved are put back.
    pub fn undo(&mut self) {
        let (Some(cell), Some(undo)) = (self.played.pop(), self.undo_stack.pop()) else {
            return;
        };
        self.to_move = 1 - self.to_move;
        self.hash ^= ZOBRIST.side;
        self.mark_near(cell, -1);
        self.stone_count -= 1;
        for link in &self.links[cell] {
            self.keys[usize::from(link.cell)][usize::from(link.axis)] &= !(3 << link.shift);
        }
        for (other, info) in self.saved.drain(undo.saved_from..).rev() {
            self.info[other] = info;
        }
        self.hash ^= ZOBRIST.stones[self.to_move][cell];
        self.stones[cell] = 0;
        self.info[cell] = undo.info;
        self.threat_count = undo.threat_count;
        self.totals = undo.totals;
        self.learned = undo.learned;
    }

    /// A 15 × 15 board with X's stones `x` and O's stones `o` (like `"H8"`), X to move.
    #[cfg(test)]
    pub fn with_stones(variant: Variant, x: &[&str], o: &[&str]) -> Board {
        let mut board = Board::new(15, variant);
        for (side, stones) in [(0, x), (1, o)] {
            for at in stones {
                if board.to_move != side {
                    board.pass();
                }
                board.play(board.cell(at.parse().expect("a test square")));
            }
        }
        if board.to_move != 0 {
            board.pass();
        }
        board.forget_history();
        board
    }

    /// Hands the move to the other side without a stone (a null move; its own inverse).
    pub fn pass(&mut self) {
        self.to_move = 1 - self.to_move;
        self.hash ^= ZOBRIST.side;
    }

    fn mark_near(&mut self, cell: Cell, delta: i8) {
        let size = self.size as i32;
        let (col, row) = ((cell % self.size) as i32, (cell / self.size) as i32);
        for r in (row - NEAR).max(0)..=(row + NEAR).min(size - 1) {
            for c in (col - NEAR).max(0)..=(col + NEAR).min(size - 1) {
                let other = (r * size + c) as usize;
                self.near[other] = self.near[other].wrapping_add_signed(delta);
            }
        }
    }

    /// Recomputes every axis of the empty `cell`.
    fn refresh(&mut self, cell: Cell) {
        for axis in 0..4 {
            self.refresh_axis(cell, axis);
        }
    }

    fn refresh_axis(&mut self, cell: Cell, axis: usize) {
        let key = self.keys[cell][axis];
        for (side, side_key) in [(0, key), (1, pattern::swap_sides(key))] {
            let info = &mut self.info[cell][side];
            let pattern = self.table.get(side_key);
            let change = (pattern as i32 - info.patterns[axis] as i32) * AXIS_WEIGHT[axis];
            info.patterns[axis] = pattern;
            info.code = (i32::from(info.code) + change) as u16;
            let class = self.classes[usize::from(info.code)];
            (info.threat, info.value, info.learned) = (class.threat, class.value, class.learned);
        }
    }

    /// Adds the empty `cell` to the counts and totals.
    fn count_in(&mut self, cell: Cell) {
        for side in 0..2 {
            let info = self.info[cell][side];
            self.threat_count[side][info.threat as usize] += 1;
            self.totals[side] += info.value;
            self.learned[side][0] += i32::from(info.learned[0]);
            self.learned[side][1] += i32::from(info.learned[1]);
        }
    }

    /// Takes the `cell` out of the counts and totals (before it changes or fills).
    fn count_out(&mut self, cell: Cell) {
        for side in 0..2 {
            let info = self.info[cell][side];
            self.threat_count[side][info.threat as usize] -= 1;
            self.totals[side] -= info.value;
            self.learned[side][0] -= i32::from(info.learned[0]);
            self.learned[side][1] -= i32::from(info.learned[1]);
        }
    }
}

// The X-side constants name the stone encoding the keys use.
const _: () = assert!(OWN == 1 && OPP == 2);

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        text.parse().expect("test square")
    }

    /// What the incremental updates maintain, to compare with a recomputation.
    fn state(board: &Board) -> impl PartialEq + std::fmt::Debug + use<> {
        (
            board.keys.clone(),
            board.threat_count,
            board.totals,
            board.learned,
            board.near.clone(),
            board.hash,
            (0..board.cells())
                .filter(|&c| board.is_empty(c))
                .map(|c| board.info[c])
                .collect::<Vec<_>>(),
        )
    }

    /// Recomputes everything from scratch and compares with the incremental state.
    fn assert_consistent(board: &Board) {
        let mut fresh = Board::new(board.size as u8, Variant::Free);
        for cell in 0..board.cells() {
            if let Some(side) = board.stone(cell) {
                if fresh.to_move != side {
                    fresh.pass();
                }
                fresh.play(cell);
            }
        }
        if fresh.to_move != board.to_move {
            fresh.pass();
        }
        assert_eq!(state(&fresh), state(board));
    }

    #[test]
    fn play_and_undo_are_inverse_and_incremental() {
        let mut board = Board::new(15, Variant::Free);
        let start = state(&board);
        let moves = ["H8", "H9", "I8", "A1", "J8", "O15", "G9", "A15"];
        for m in moves {
            board.play(board.cell(sq(m)));
            assert_consistent(&board);
        }
        for _ in moves {
            board.undo();
            assert_consistent(&board);
        }
        assert_eq!(state(&board), start);
    }

    #[test]
    fn threats_appear_where_expected() {
        let mut board = Board::new(15, Variant::Free);
        // X: H8 I8 J8 (open three); O: far away.
        for m in ["H8", "A1", "I8", "A3", "J8", "A5"] {
            board.play(board.cell(sq(m)));
        }
        assert_eq!(board.threat(board.cell(sq("G8")), 0), Threat::Flex4);
        assert_eq!(board.threat(board.cell(sq("K8")), 0), Threat::Flex4);
        assert_eq!(board.count(0, Threat::Flex4), 2);
        board.play(board.cell(sq("K8")));
        assert_eq!(board.count(0, Threat::Five), 2, "an open four");
        assert_eq!(board.five_cell(0), Some(board.cell(sq("G8"))));
    }
}
