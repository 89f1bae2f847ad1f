//! Easy: one ply and some noise. It makes a five when it can, blocks the opponent's five,
//! makes an open four when that wins, blocks an open three (the squares where the opponent
//! would make an open four), and otherwise plays the near square with the best static
//! attack-plus-defence value after adding a random amount to each.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::board::{Board, Cell};
use super::pattern::Threat;
use super::{search, tactics};

/// The largest random amount added to a square's value: about an open two's worth, so
/// Easy plays loose shapes but never ignores a real threat of its own.
const NOISE: i32 = 360;

/// Easy's move on `board` (`None` only on a full board).
pub fn choose(board: &Board, rng: &mut impl Rng) -> Option<Cell> {
    if let Some(cell) = tactics::forced(board) {
        return Some(cell);
    }
    let them = 1 - board.to_move();
    if board.count(them, Threat::Flex4) > 0 {
        let stops: Vec<Cell> = board.cells_from(them, Threat::Flex4).collect();
        return stops.choose(rng).copied();
    }
    search::candidates(board)
        .into_iter()
        .map(|(cell, score)| (score + rng.random_range(0..NOISE), cell))
        .max()
        .map(|(_, cell)| cell)
}
