//! Connection tactics: a side's groups, the moves that join all of a side's pieces at once
//! (a win in one, or a draw when a capture connects the opponent too), and the root's
//! sorting of moves into winning, safe and losing ones.
//!
//! A move `from`-`to` connects its side exactly when the destination touches every group
//! of the side's other pieces: those are the other groups as they stand plus whatever
//! pieces of `from`'s own group remain, split into their components. The squares touching
//! every other group come from prefix and suffix intersections of the groups' grown masks,
//! so most pieces are dismissed without a single flood fill.

use spelbord_games::lines_of_action::Simultaneous;
use spelbord_games::lines_of_action::bitboard::{spread, targets};

use super::board::{After, Board, Mv, step};

/// The most groups a side can have (one per piece).
const MAX_GROUPS: usize = 12;

/// The 8-connected groups of a set of pieces.
pub struct Groups {
    bits: [u64; MAX_GROUPS],
    len: usize,
}

impl Groups {
    pub fn as_slice(&self) -> &[u64] {
        &self.bits[..self.len]
    }

    /// How many groups there are.
    pub fn count(&self) -> usize {
        self.len
    }
}

/// The group of `pieces` that holds the lowest piece of `seed`.
fn flood(seed: u64, pieces: u64) -> u64 {
    let mut group = seed & seed.wrapping_neg();
    loop {
        let grown = spread(group) & pieces;
        if grown == group {
            return group;
        }
        group = grown;
    }
}

/// The groups of `pieces`, lowest piece first.
pub fn groups(pieces: u64) -> Groups {
    let mut out = Groups {
        bits: [0; MAX_GROUPS],
        len: 0,
    };
    let mut rest = pieces;
    while rest != 0 && out.len < MAX_GROUPS {
        let group = flood(rest, pieces);
        out.bits[out.len] = group;
        out.len += 1;
        rest &= !group;
    }
    out
}

/// Calls `visit` with every move of `side` (whoever is to move) that leaves all of its
/// pieces in one group; stops early when `visit` returns `false`.
pub fn connecting_moves(pieces: [u64; 2], side: usize, mut visit: impl FnMut(Mv) -> bool) {
    let (own, opp) = (pieces[side], pieces[1 - side]);
    let groups = groups(own);
    let list = groups.as_slice();
    let n = list.len();
    // prefix[i]: the squares touching groups 0..i; suffix[i]: groups i..n.
    let mut prefix = [!0u64; MAX_GROUPS + 1];
    let mut suffix = [!0u64; MAX_GROUPS + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] & spread(list[i]);
    }
    for i in (0..n).rev() {
        suffix[i] = suffix[i + 1] & spread(list[i]);
    }
    for (i, &group) in list.iter().enumerate() {
        let others = prefix[i] & suffix[i + 1];
        if others == 0 {
            continue;
        }
        let mut froms = group;
        while froms != 0 {
            let from = froms.trailing_zeros();
            froms &= froms - 1;
            let remains = group & !(1u64 << from);
            let mut join = others;
            let mut rest = remains;
            while rest != 0 && join != 0 {
                let part = flood(rest, remains);
                join &= spread(part);
                rest &= !part;
            }
            let mut tos = targets(from, own, opp) & join;
            while tos != 0 {
                if !visit(step(from, tos.trailing_zeros())) {
                    return;
                }
                tos &= tos - 1;
            }
        }
    }
}

/// The best a side to move can get from one connecting move: a win, a draw (a capture
/// that connects both under `simultaneous: "draw"`), or nothing. `board` must be a running
/// position.
pub fn best_connection(board: &Board, rule: Simultaneous) -> Option<(Mv, After)> {
    let mut best = None;
    connecting_moves(board.pieces, board.stm, |mv| {
        // Without a capture the opponent's pieces are as they were: not connected.
        let after = if board.is_capture(mv) {
            board.play(mv).judge_last_move(rule)
        } else {
            After::Won
        };
        match after {
            After::Won => {
                best = Some((mv, After::Won));
                false
            }
            After::Drawn => {
                best = best.or(Some((mv, After::Drawn)));
                true
            }
            After::Running | After::Lost => true,
        }
    });
    best
}

/// Whether the side to move has a move that wins at once.
pub fn can_win_now(board: &Board, rule: Simultaneous) -> bool {
    matches!(best_connection(board, rule), Some((_, After::Won)))
}

/// Whether the side *not* to move would have a winning move if it were its turn: the
/// threat the side to move must answer.
pub fn opponent_threatens(board: &Board, rule: Simultaneous) -> bool {
    let mut turned = *board;
    turned.stm = 1 - board.stm;
    can_win_now(&turned, rule)
}

/// The root's moves, sorted by what they do at once.
#[derive(Debug, Default, Clone)]
pub struct RootMoves {
    /// A move that wins at once, if any.
    pub winning: Option<Mv>,
    /// Moves after which the opponent cannot win at once (and that do not lose at once).
    pub safe: Vec<Mv>,
    /// Moves that end the game in a draw at once (both sides connected).
    pub drawing: Vec<Mv>,
    /// Moves that lose at once or allow a winning reply.
    pub losing: Vec<Mv>,
}

impl RootMoves {
    /// Sorts the legal moves of a running position.
    pub fn classify(board: &Board, rule: Simultaneous) -> RootMoves {
        let mut out = RootMoves::default();
        for &mv in board.moves().as_slice() {
            let next = board.play(mv);
            match next.judge_last_move(rule) {
                After::Won => {
                    out.winning.get_or_insert(mv);
                }
                After::Drawn => out.drawing.push(mv),
                After::Lost => out.losing.push(mv),
                After::Running if can_win_now(&next, rule) => out.losing.push(mv),
                After::Running => out.safe.push(mv),
            }
        }
        out
    }

    /// The moves worth searching: the safe ones and the draws, or every move when all of
    /// them lose (the search then picks the longest resistance).
    pub fn candidates(&self) -> Vec<Mv> {
        let mut out: Vec<Mv> = self.safe.iter().chain(&self.drawing).copied().collect();
        if out.is_empty() {
            out.extend(&self.losing);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::lines_of_action::bitboard::is_one_group;
    use spelbord_games::lines_of_action::{LinesOfAction, Position};

    fn board(text: &str) -> Board {
        let game = LinesOfAction::from_position(text).expect("a valid test position");
        Board::new(game.board(), Simultaneous::Draw)
    }

    /// Every connecting move by brute force: play each move and test the mover's group.
    fn brute(board: &Board) -> Vec<Mv> {
        let mut out: Vec<Mv> = board
            .moves()
            .as_slice()
            .iter()
            .copied()
            .filter(|&mv| is_one_group(board.play(mv).pieces[board.stm]))
            .collect();
        out.sort();
        out
    }

    fn fast(board: &Board) -> Vec<Mv> {
        let mut out = Vec::new();
        connecting_moves(board.pieces, board.stm, |mv| {
            out.push(mv);
            true
        });
        out.sort();
        out
    }

    #[test]
    fn connecting_moves_agree_with_brute_force_along_random_games() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut found = 0;
        for _game in 0..40 {
            let mut b = Board::new(&Position::START, Simultaneous::Draw);
            for _ply in 0..120 {
                assert_eq!(fast(&b), brute(&b), "{:?}", b.pieces);
                found += fast(&b).len();
                let moves = b.moves();
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let mv = moves.as_slice()[(state % moves.len() as u64) as usize];
                b = b.play(mv);
                if b.judge_last_move(Simultaneous::Draw) != After::Running {
                    break;
                }
            }
        }
        assert!(found > 0, "the games reached some connecting moves");
    }

    #[test]
    fn a_diagonal_join_is_a_win_in_one() {
        // Black c3, d4 and h8: h8-e5 joins them diagonally.
        let rows = [
            "w......b", "........", ".w......", "........", "...b....", "..b.....", "........", ".......w",
        ];
        let b = board(&format!("{} b", rows.concat()));
        let found = best_connection(&b, Simultaneous::Draw);
        assert_eq!(found.map(|(_, after)| after), Some(After::Won));
        let roots = RootMoves::classify(&b, Simultaneous::Draw);
        assert!(roots.winning.is_some());
    }
}
