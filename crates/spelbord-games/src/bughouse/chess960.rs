//! Bughouse 960: the 960 starting positions of Chess960, numbered as Scharnagl numbered them
//! (0 is `BBQNNRKR`, 518 the standard `RNBQKBNR`, 959 `RKRNNQBB`), built with Chess960
//! castling (the king and a rook go to the standard castled squares; the move is written
//! king-takes-rook in UCI, `e1h1`-style, as shakmaty's `CastlingMode::Chess960` writes it).

use shakmaty::fen::Fen;
use shakmaty::variant::Crazyhouse;
use shakmaty::{CastlingMode, FromSetup};

/// How many starting positions there are.
pub const POSITIONS: u16 = 960;

/// The number of the standard chess start.
pub const STANDARD: u16 = 518;

/// Where the knights go among the five squares left after the bishops and the queen.
const KNIGHTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// White's back rank of position `number` (taken modulo 960), as FEN letters from a to h.
pub fn back_rank(number: u16) -> [char; 8] {
    let mut n = usize::from(number % POSITIONS);
    let mut rank = [' '; 8];
    // A light-squared bishop on b, d, f or h; a dark-squared one on a, c, e or g.
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    let empty = |rank: &[char; 8]| -> Vec<usize> { (0..8).filter(|&i| rank[i] == ' ').collect() };
    rank[empty(&rank)[n % 6]] = 'Q';
    n /= 6;
    let (first, second) = KNIGHTS[n];
    let free = empty(&rank);
    rank[free[first]] = 'N';
    rank[free[second]] = 'N';
    // The king between the rooks.
    for (square, piece) in empty(&rank).into_iter().zip(['R', 'K', 'R']) {
        rank[square] = piece;
    }
    rank
}

/// Position `number` (taken modulo 960) with empty pockets, white to move, both sides free
/// to castle either way, in Chess960 castling.
pub fn start_position(number: u16) -> Crazyhouse {
    let white: String = back_rank(number).iter().collect();
    let black = white.to_lowercase();
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white}[] w KQkq - 0 1");
    // Every one of the 960 is a legal position (checked for all of them in the tests).
    fen.parse::<Fen>()
        .ok()
        .and_then(|fen| Crazyhouse::from_setup(fen.into_setup(), CastlingMode::Chess960).ok())
        .unwrap_or_default()
}
