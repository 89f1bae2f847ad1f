//! The alpha-beta search on the bot's own board.
//!
//! Negamax with principal-variation search and iterative deepening, a transposition table
//! ([`super::tt`]), quiescence on captures (and, for Hard, on checks at its first ply),
//! move ordering (the table's move, MVV-LVA captures, checks, killers, drops near the enemy
//! king, history), and for Hard null-move pruning, late-move reductions and check
//! extensions. Terminal nodes follow the bughouse rules: a side with no legal move or drop
//! is mated only when the check could not be blocked by any drop ([`Node::stuck_is_mate`]);
//! otherwise it waits, which the search scores as a static evaluation with a penalty.
//! Pockets change only by drops inside the search (captures go to the other board, whose
//! value [`Node::sent`] carries).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use shakmaty::{Move, MoveList, Role, Square};

use super::eval::{Eval, board_value, evaluate};
use super::node::{Node, Travel};
use super::tt::{self, Bound, Table, with_table};

/// A mate score: mate at ply p scores `MATE - p`.
pub const MATE: i32 = 30_000;

/// Scores beyond this (either sign) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;

const INF: i32 = 31_000;

/// The deepest a line goes, quiescence included.
const MAX_PLY: usize = 64;

/// The deepest quiescence goes.
const MAX_QPLY: u32 = 8;

/// The cost of waiting in a check that a dropped piece could block, with nothing to drop:
/// the clock runs until the partner sends a piece (not a loss: the rules wait).
const STUCK_IN_CHECK: i32 = 150;

/// The cost of waiting without being in check (no move, no drop).
const STUCK: i32 = 60;

/// How one search plays.
#[derive(Debug, Clone)]
pub struct Config {
    pub eval: Eval,
    /// The deepest iteration.
    pub max_depth: i32,
    /// Checks (moves and drops) in quiescence's first ply.
    pub quiet_checks: bool,
    /// Killer moves and history in the move ordering.
    pub killers: bool,
    /// Null-move pruning and late-move reductions.
    pub reductions: bool,
    /// A node in check searches one ply deeper.
    pub check_extension: bool,
    /// What captured pieces are worth to the capturer's team ([`Node::sent`]).
    pub travel: Travel,
}

/// A search's answer.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub best: Move,
    /// From the root's side to move.
    pub score: i32,
    /// The last iteration that finished (or was partly trusted).
    pub depth: i32,
    pub nodes: u64,
}

struct Searcher<'a> {
    cfg: &'a Config,
    /// Mixed into every table key: see [`salt`].
    salt: u64,
    deadline: Instant,
    nodes: u64,
    stopped: bool,
    table: &'a mut Table<u16>,
    /// Two quiet moves per ply that caused cut-offs.
    killers: [[u16; 2]; MAX_PLY],
    /// Cut-off counts of quiet moves, by piece (drops apart) and target square.
    history: Vec<[i32; 64]>,
}

/// Iterative deepening from `root` until `cfg.max_depth`, a found mate, the soft
/// deadline (no new iteration after it) or the hard one (the search stops). `fallback`
/// is answered when not even the first iteration's first move finished.
pub fn think(root: &Node, cfg: &Config, soft: Instant, deadline: Instant, fallback: Move) -> Found {
    with_table(|table| {
        let mut searcher = Searcher::new(root, cfg, deadline, table);
        let moves = root.legal_moves();
        let mut order: Vec<(Move, i32)> = searcher.order(root, &moves, 0, 0);
        if let Some(position) = order.iter().position(|&(m, _)| m == fallback) {
            let first = order.remove(position);
            order.insert(0, first);
        }
        let mut found = Found {
            best: fallback,
            score: 0,
            depth: 0,
            nodes: 0,
        };
        for depth in 1..=cfg.max_depth.max(1) {
            let (best, complete) = searcher.root(root, &mut order, depth);
            if let Some((m, score)) = best {
                found.best = m;
                found.score = score;
                found.depth = depth;
            }
            if !complete || found.score.abs() > MATE_BOUND || Instant::now() >= soft {
                break;
            }
        }
        found.nodes = searcher.nodes;
        found
    })
}

/// Every root move's exact score at `depth` (Easy adds noise to them); `None` if the
/// deadline passed first.
pub fn score_all(root: &Node, cfg: &Config, depth: i32, deadline: Instant) -> Option<Vec<(Move, i32)>> {
    with_table(|table| {
        let mut searcher = Searcher::new(root, cfg, deadline, table);
        let mut scores = Vec::new();
        for m in root.legal_moves() {
            let child = root.play(m, &cfg.travel);
            let score = -searcher.search(&child, depth - 1, -INF, INF, 1, true);
            if searcher.stopped {
                return None;
            }
            scores.push((m, score));
        }
        Some(scores)
    })
}

/// What makes scores of the same position differ between searches: the evaluation's
/// settings and the captured pieces' travel values, and the material at the root (a
/// node's [`Node::sent`] counts captures since the root). Entries of searches that
/// differ in any of these are not seen.
fn salt(root: &Node, cfg: &Config) -> u64 {
    let mut hasher = DefaultHasher::new();
    cfg.eval.hash(&mut hasher);
    cfg.travel.hash(&mut hasher);
    root.board().material().hash(&mut hasher);
    root.pockets().hash(&mut hasher);
    hasher.finish()
}

/// A move in 16 bits for the table and the killers: piece moves as from, to and
/// promotion; drops flagged with the role. Never 0, the table's "no move".
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

/// The history row of a move: the piece's role, drops in rows of their own.
fn history_row(m: Move) -> usize {
    let role = usize::from(u8::from(m.role())) - 1;
    if m.is_put() { role + 6 } else { role }
}

/// Whether the node's side to move has pieces besides pawns and king (null-move safety).
fn has_pieces(node: &Node) -> bool {
    let board = node.board();
    let ours = board.by_color(node.turn());
    (ours & !board.pawns() & !board.kings()).any()
}

impl<'a> Searcher<'a> {
    fn new(root: &Node, cfg: &'a Config, deadline: Instant, table: &'a mut Table<u16>) -> Searcher<'a> {
        Searcher {
            cfg,
            salt: salt(root, cfg),
            deadline,
            nodes: 0,
            stopped: false,
            table,
            killers: [[0; 2]; MAX_PLY],
            history: vec![[0; 64]; 12],
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256) && Instant::now() >= self.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    fn evaluate(&self, node: &Node) -> i32 {
        evaluate(node, &self.cfg.eval)
    }

    /// The score of a side with no legal move or drop.
    fn stuck_score(&self, node: &Node, ply: usize) -> i32 {
        if node.stuck_is_mate() {
            -MATE + ply as i32
        } else if node.is_check() {
            self.evaluate(node) - STUCK_IN_CHECK
        } else {
            self.evaluate(node) - STUCK
        }
    }

    /// One root iteration. Returns the best move and score found, and whether the
    /// iteration finished; an unfinished one still answers when its first move (the
    /// previous best) was searched, since any move that beat it is better at this depth.
    fn root(&mut self, root: &Node, order: &mut [(Move, i32)], depth: i32) -> (Option<(Move, i32)>, bool) {
        let mut alpha = -INF;
        let beta = INF;
        let mut best: Option<(Move, i32)> = None;
        for (index, entry) in order.iter_mut().enumerate() {
            let m = entry.0;
            let child = root.play(m, &self.cfg.travel);
            let score = if index == 0 {
                -self.search(&child, depth - 1, -beta, -alpha, 1, true)
            } else {
                let probe = -self.search(&child, depth - 1, -alpha - 1, -alpha, 1, true);
                if probe > alpha && !self.stopped {
                    -self.search(&child, depth - 1, -beta, -alpha, 1, true)
                } else {
                    probe
                }
            };
            if self.stopped {
                return (best, false);
            }
            entry.1 = score;
            if score > alpha {
                alpha = score;
                best = Some((m, score));
            }
        }
        // Best first, then the others by their (bound) scores.
        order.sort_by_key(|&(m, score)| {
            if best.is_some_and(|(b, _)| b == m) {
                i32::MIN
            } else {
                -score
            }
        });
        if let Some((m, score)) = best {
            self.table
                .store(root.hash() ^ self.salt, encode(m), score, depth, Bound::Exact);
        }
        (best, true)
    }

    fn search(&mut self, node: &Node, depth: i32, mut alpha: i32, mut beta: i32, ply: usize, null_ok: bool) -> i32 {
        if self.tick() {
            return 0;
        }
        let in_check = node.is_check();
        let depth = if in_check && self.cfg.check_extension && ply < MAX_PLY / 2 {
            depth + 1
        } else {
            depth
        };
        if depth <= 0 {
            return self.quiesce(node, alpha, beta, ply, 0);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(node);
        }
        // Mate-distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let key = node.hash() ^ self.salt;
        let mut table_move = 0;
        if let Some(hit) = self.table.probe(key) {
            table_move = hit.best;
            if hit.depth >= depth {
                let score = tt::from_table(hit.score, ply, MATE_BOUND);
                if hit.bound.settles(score, alpha, beta) {
                    return score;
                }
            }
        }
        let moves = node.legal_moves();
        if moves.is_empty() {
            return self.stuck_score(node, ply);
        }
        if self.cfg.reductions && null_ok && !in_check && depth >= 3 && beta.abs() < MATE_BOUND && has_pieces(node) {
            let stand = self.evaluate(node);
            if stand >= beta
                && let Some(passed) = node.pass()
            {
                let reduction = 2 + depth / 4;
                let score = -self.search(&passed, depth - 1 - reduction, -beta, -beta + 1, ply + 1, false);
                if self.stopped {
                    return 0;
                }
                if score >= beta && score < MATE_BOUND {
                    return score;
                }
            }
        }
        let ordered = self.order(node, &moves, table_move, ply);
        let alpha_before = alpha;
        let mut best = -INF;
        let mut best_move = 0;
        for (index, &(m, _)) in ordered.iter().enumerate() {
            let child = node.play(m, &self.cfg.travel);
            let quiet = !m.is_capture() && m.promotion().is_none();
            let code = encode(m);
            let score = if index == 0 {
                -self.search(&child, depth - 1, -beta, -alpha, ply + 1, true)
            } else {
                let killer = self.killers[ply].contains(&code);
                let reduction = if self.cfg.reductions
                    && depth >= 3
                    && index >= 3
                    && quiet
                    && !in_check
                    && !killer
                    && !child.is_check()
                {
                    1 + i32::from(index >= 10 && depth >= 5) + i32::from(index >= 30 && depth >= 4)
                } else {
                    0
                };
                let mut score = -self.search(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, true);
                if score > alpha && reduction > 0 && !self.stopped {
                    score = -self.search(&child, depth - 1, -alpha - 1, -alpha, ply + 1, true);
                }
                if score > alpha && score < beta && !self.stopped {
                    score = -self.search(&child, depth - 1, -beta, -alpha, ply + 1, true);
                }
                score
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = code;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if quiet && self.cfg.killers {
                            let slot = &mut self.killers[ply];
                            if slot[0] != code {
                                slot[1] = slot[0];
                                slot[0] = code;
                            }
                            let cell = &mut self.history[history_row(m)][usize::from(m.to())];
                            *cell = (*cell + depth * depth).min(100_000);
                        }
                        break;
                    }
                }
            }
        }
        let bound = Bound::of(best, alpha_before, beta);
        self.table
            .store(key, best_move, tt::to_table(best, ply, MATE_BOUND), depth, bound);
        best
    }

    fn quiesce(&mut self, node: &Node, mut alpha: i32, beta: i32, ply: usize, qply: u32) -> i32 {
        if self.tick() {
            return 0;
        }
        if ply >= MAX_PLY - 1 || qply >= MAX_QPLY {
            return self.evaluate(node);
        }
        let in_check = node.is_check();
        let moves = node.legal_moves();
        if moves.is_empty() {
            return self.stuck_score(node, ply);
        }
        let mut best = -INF;
        let stand = if in_check { -INF } else { self.evaluate(node) };
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        let checks = self.cfg.quiet_checks && qply == 0;
        let board = node.board();
        let them = !node.turn();
        let mut candidates: Vec<(Move, i32)> = Vec::with_capacity(16);
        for &m in moves.iter() {
            if in_check {
                candidates.push((m, self.capture_order(m)));
                continue;
            }
            if let Some(victim) = m.capture() {
                // Delta pruning, and captures by a heavier piece of a defended one.
                if stand + board_value(victim) + 200 < alpha && m.promotion().is_none() {
                    continue;
                }
                let attacker = m.role();
                if attacker != Role::King && board_value(attacker) > board_value(victim) + 50 {
                    let to = m.to();
                    let occupied = board.occupied() & !m.from().map_or(shakmaty::Bitboard::EMPTY, Into::into);
                    if board.attacks_to(to, them, occupied).any() {
                        continue;
                    }
                }
                candidates.push((m, self.capture_order(m)));
            } else if m.promotion() == Some(Role::Queen) {
                candidates.push((m, 900_000));
            } else if checks && node.gives_direct_check(m) {
                candidates.push((m, 500_000));
            }
        }
        candidates.sort_by_key(|&(_, score)| -score);
        for (m, _) in candidates {
            let child = node.play(m, &self.cfg.travel);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, qply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// MVV-LVA for captures, 0 for the rest.
    fn capture_order(&self, m: Move) -> i32 {
        match m.capture() {
            Some(victim) => 1_000_000 + 10 * board_value(victim) - board_value(m.role()) / 10,
            None => 0,
        }
    }

    /// The moves with their ordering scores, best first.
    fn order(&self, node: &Node, moves: &MoveList, table_move: u16, ply: usize) -> Vec<(Move, i32)> {
        let their_king = node.their_king();
        let killers = if ply < MAX_PLY { self.killers[ply] } else { [0; 2] };
        let mut scored: Vec<(Move, i32)> = moves
            .iter()
            .map(|&m| {
                let code = encode(m);
                let score = if code == table_move && code != 0 {
                    10_000_000
                } else if m.is_capture() {
                    self.capture_order(m)
                } else if m.promotion() == Some(Role::Queen) {
                    900_000
                } else if node.gives_direct_check(m) {
                    500_000 + if m.is_put() { 1_000 } else { 0 }
                } else if self.cfg.killers && code == killers[0] {
                    400_000
                } else if self.cfg.killers && code == killers[1] {
                    399_000
                } else {
                    let history = if self.cfg.killers {
                        self.history[history_row(m)][usize::from(m.to())]
                    } else {
                        0
                    };
                    let near = if m.is_put() {
                        let distance = m.to().distance(their_king) as i32;
                        if distance <= 2 { 200_000 - 1_000 * distance } else { 0 }
                    } else {
                        0
                    };
                    near + history
                };
                (m, score)
            })
            .collect();
        scored.sort_by_key(|&(_, score)| -score);
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
