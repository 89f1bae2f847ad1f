//! The search's own board: both colours' bitboards, the side to move and a Zobrist key,
//! copied on every move (24 bytes); moves packed in a `u16`; the end check after a move
//! under the table's `simultaneous` rule.

use spelbord_games::lines_of_action::bitboard::{is_one_group, targets};
use spelbord_games::lines_of_action::{LoaMove, Position, Side, Simultaneous, Square};

/// A move packed as `from | to << 6` (square indices, `a1` = 0). `a1-a1` is never legal,
/// so 0 means "no move"; `h8-h8` is the pass.
pub type Mv = u16;

/// No move (an empty slot in a table).
pub const NO_MOVE: Mv = 0;

/// The pass, the only move of a side that has no other.
pub const PASS: Mv = 63 | (63 << 6);

/// The most moves a side can have: 12 pieces, 8 directions.
pub const MAX_MOVES: usize = 96;

/// A packed step.
pub fn step(from: u32, to: u32) -> Mv {
    // Both are square indices below 64, so the packed value fits in 12 bits.
    (from | (to << 6)) as Mv
}

/// The origin square index of a step.
pub fn from_of(mv: Mv) -> u32 {
    u32::from(mv & 63)
}

/// The destination square index of a step.
pub fn to_of(mv: Mv) -> u32 {
    u32::from(mv >> 6)
}

/// The rules' form of a packed move.
pub fn to_loa(mv: Mv) -> LoaMove {
    let square = |index: u32| Square::from_index(index as u8);
    match (mv, square(from_of(mv)), square(to_of(mv))) {
        (PASS, _, _) => LoaMove::Pass,
        (_, Some(from), Some(to)) => LoaMove::step(from, to),
        _ => LoaMove::Pass,
    }
}

/// The packed form of a rules move.
pub fn from_loa(mv: LoaMove) -> Mv {
    match mv {
        LoaMove::Step { from, to } => step(u32::from(from.index()), u32::from(to.index())),
        LoaMove::Pass => PASS,
    }
}

/// A fixed-capacity list of moves (no allocation in the search).
#[derive(Clone)]
pub struct MoveList {
    moves: [Mv; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList {
            moves: [NO_MOVE; MAX_MOVES],
            len: 0,
        }
    }

    fn push(&mut self, mv: Mv) {
        if self.len < MAX_MOVES {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Mv] {
        &self.moves[..self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [Mv] {
        &mut self.moves[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// splitmix64: the Zobrist keys at compile time, and other pseudo-random keys.
pub const fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const fn zobrist_keys() -> [[u64; 64]; 2] {
    let mut keys = [[0; 64]; 2];
    let mut i = 0;
    while i < 128 {
        keys[i / 64][i % 64] = mix(i as u64 + 1);
        i += 1;
    }
    keys
}

/// One key per colour and square.
static PIECE_KEYS: [[u64; 64]; 2] = zobrist_keys();
/// Xored in when white is to move.
const WHITE_TO_MOVE: u64 = mix(1_000);
/// Xored in under `simultaneous: "mover-wins"`, so that one thread's table never mixes
/// scores of the two rules.
const MOVER_WINS: u64 = mix(2_000);

/// The index of a colour in [`Board::pieces`] (black 0, white 1, as the seats).
pub fn side_index(side: Side) -> usize {
    usize::from(side.seat())
}

/// A position as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    /// Black's and white's pieces (`a1` = bit 0).
    pub pieces: [u64; 2],
    /// The side to move: 0 black, 1 white.
    pub stm: usize,
    /// The Zobrist key of the pieces, the side to move and the rule.
    pub hash: u64,
}

/// What a move did, seen from the side that played it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Neither side is connected: the game goes on.
    Running,
    /// The mover won (only it is connected, or both under `mover-wins`).
    Won,
    /// Only the opponent is connected (the mover took its last stray piece).
    Lost,
    /// Both are connected under `simultaneous: "draw"`.
    Drawn,
}

impl Board {
    /// The search board of a rules position under `rule`.
    pub fn new(position: &Position, rule: Simultaneous) -> Board {
        let pieces = [position.pieces(Side::Black), position.pieces(Side::White)];
        let stm = side_index(position.to_move());
        let mut hash = if rule == Simultaneous::MoverWins { MOVER_WINS } else { 0 };
        for (side, bits) in pieces.iter().enumerate() {
            let mut rest = *bits;
            while rest != 0 {
                hash ^= PIECE_KEYS[side][rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
        }
        if stm == 1 {
            hash ^= WHITE_TO_MOVE;
        }
        Board { pieces, stm, hash }
    }

    /// The side to move's pieces.
    pub fn own(&self) -> u64 {
        self.pieces[self.stm]
    }

    /// The other side's pieces.
    pub fn opp(&self) -> u64 {
        self.pieces[1 - self.stm]
    }

    /// Whether a step lands on an opponent's piece.
    pub fn is_capture(&self, mv: Mv) -> bool {
        mv != PASS && self.opp() & (1 << to_of(mv)) != 0
    }

    /// The board after `mv` (which must be legal here).
    pub fn play(&self, mv: Mv) -> Board {
        let mut next = *self;
        next.stm = 1 - self.stm;
        next.hash ^= WHITE_TO_MOVE;
        if mv == PASS {
            return next;
        }
        let (me, them) = (self.stm, 1 - self.stm);
        let (from, to) = (from_of(mv) as usize, to_of(mv) as usize);
        next.pieces[me] ^= (1 << from) | (1 << to);
        next.hash ^= PIECE_KEYS[me][from] ^ PIECE_KEYS[me][to];
        if self.pieces[them] & (1 << to) != 0 {
            next.pieces[them] ^= 1 << to;
            next.hash ^= PIECE_KEYS[them][to];
        }
        next
    }

    /// Every legal move of the side to move, or exactly the pass when it has none.
    pub fn moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let (own, opp) = (self.own(), self.opp());
        let mut rest = own;
        while rest != 0 {
            let from = rest.trailing_zeros();
            rest &= rest - 1;
            let mut to_bits = targets(from, own, opp);
            while to_bits != 0 {
                list.push(step(from, to_bits.trailing_zeros()));
                to_bits &= to_bits - 1;
            }
        }
        if list.len == 0 {
            list.push(PASS);
        }
        list
    }

    /// How the game stands after the side that is *not* to move in `self` played the move
    /// that led here.
    pub fn judge_last_move(&self, rule: Simultaneous) -> After {
        let mover = 1 - self.stm;
        let mover_connected = is_one_group(self.pieces[mover]);
        let other_connected = is_one_group(self.pieces[self.stm]);
        match (mover_connected, other_connected) {
            (false, false) => After::Running,
            (true, false) => After::Won,
            (false, true) => After::Lost,
            (true, true) => match rule {
                Simultaneous::Draw => After::Drawn,
                Simultaneous::MoverWins => After::Won,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::Rules;
    use spelbord_games::lines_of_action::{LinesOfAction, LoaSettings};

    #[test]
    fn moves_match_the_rules_and_keys_update_incrementally() {
        let mut game = LinesOfAction::new(&LoaSettings::default());
        for ply in 0..40 {
            let board = Board::new(game.board(), Simultaneous::Draw);
            let mut ours: Vec<LoaMove> = board.moves().as_slice().iter().map(|&m| to_loa(m)).collect();
            let mut theirs = game.legal_moves(game.to_move().unwrap());
            ours.sort_by_key(|m| from_loa(*m));
            theirs.sort_by_key(|m| from_loa(*m));
            assert_eq!(ours, theirs, "ply {ply}");
            let pick = theirs[(ply * 7) % theirs.len()];
            let next = board.play(from_loa(pick));
            game.play(game.to_move().unwrap(), &pick).unwrap();
            assert_eq!(next, Board::new(game.board(), Simultaneous::Draw), "ply {ply}");
            if game.outcome().is_some() {
                break;
            }
        }
    }
}
