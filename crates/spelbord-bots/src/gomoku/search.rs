//! The alpha-beta search of Medium and Hard: negamax with principal-variation search,
//! iterative deepening, a transposition table, killer moves, late-move reductions and,
//! for Hard, null-move and reverse futility pruning and answers to a three that cost no
//! depth.
//!
//! Every node first looks at the threats on the board: a five of the side to move wins, a
//! five of the opponent must be blocked (the only move, searched without using depth), two
//! of them lose, and an open four or double four of the side to move wins when the
//! opponent has no five to answer with. When the opponent threatens an open four (an open
//! three, or crossing closed threes), only the squares that stop it and the side's own
//! fours are tried. Elsewhere the candidates are the empty squares near stones, best
//! first by their attack and defence value, and only the best few are searched; the
//! transposition table's move, when there is one, is searched before the others are
//! even generated. With a leaf VCF configured (the arena's baseline; today's Hard spends
//! those positions on depth) a leaf whose side to move can play a four first looks for a
//! win by continuous fours.

use std::time::Instant;

use super::board::{Board, Cell, Side};
use super::eval;
use super::learned;
use super::pattern::Threat;
use super::threats;
use super::tt::{self, Bound, Table};
use super::vcf::{self, Cache};

/// A win in `n` plies from the root scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const MATE_BOUND: i32 = 29_000;
const INFINITY: i32 = 31_000;
/// Nodes deeper than this are evaluated statically (forced sequences extend the search).
const MAX_PLY: usize = 64;

/// What a search knows and may do: the strengths differ here.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The deepest iteration.
    pub max_depth: i32,
    /// How many of the best-ordered moves a node searches (the root searches all).
    pub width: usize,
    /// VCF at the leaves (fours per search, nodes per search), or none.
    pub leaf_vcf: Option<vcf::Limits>,
    /// Against a three, try only the squares that really stop it and the side's own fours
    /// ([`threat_candidates`]), rather than every square near the threat.
    pub threat_moves: bool,
    /// The hand-set evaluation also weighs each side's double-threat squares
    /// ([`eval::evaluate_with`]); without effect under `learned_eval`, whose features
    /// count them already.
    pub double_threats: bool,
    /// Null-move pruning: the reduction `R` (0: none). A stone never harms its owner in
    /// free-style Gomoku (in `exact5` it rarely can, making its own five six), so a side
    /// that is already above `beta` after passing is above it after its best move too
    /// ([`Search::null_cut`]).
    pub null_reduction: i32,
    /// A node answering a three (the opponent has an open four to make) with at most this
    /// many moves searches them without using depth (0: never).
    pub three_extension: usize,
    /// Evaluate with the learned weights ([`learned::evaluate`]) rather than the
    /// hand-set values ([`eval::evaluate_with`]).
    pub learned_eval: bool,
    /// Reverse futility pruning: a null-window node with at most 3 plies left, nothing to
    /// answer and an evaluation at least this much per ply above `beta` returns the
    /// evaluation (0: never).
    pub futility_margin: i32,
}

/// The outcome of a search.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub best: Cell,
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: i32,
    /// Positions visited, VCF positions included.
    pub nodes: u64,
}

/// One search over a board.
pub struct Search<'a> {
    board: &'a mut Board,
    tt: &'a mut Table<u16>,
    cache: &'a mut Cache,
    config: Config,
    deadline: Instant,
    stopped: bool,
    nodes: u64,
    /// Two quiet moves per ply that caused cut-offs.
    killers: Vec<[Option<Cell>; 2]>,
}

impl<'a> Search<'a> {
    pub fn new(
        board: &'a mut Board,
        tt: &'a mut Table<u16>,
        cache: &'a mut Cache,
        config: Config,
        deadline: Instant,
    ) -> Self {
        Search {
            board,
            tt,
            cache,
            config,
            deadline,
            stopped: false,
            nodes: 0,
            killers: vec![[None; 2]; MAX_PLY + 2],
        }
    }

    /// Iterative deepening over `roots` (tried in this order at first) until `max_depth`,
    /// the deadline, or `soft_stop` before a new iteration. `None` when `roots` is empty.
    pub fn run(&mut self, roots: &[Cell], soft_stop: Instant) -> Option<Found> {
        let mut order: Vec<Cell> = roots.to_vec();
        let mut found = Found {
            best: *order.first()?,
            score: 0,
            depth: 0,
            nodes: 0,
        };
        for depth in 1..=self.config.max_depth.max(1) {
            let (best, score) = self.root(&order, depth);
            if self.stopped {
                // A move that beat the last iteration's choice (searched first) with a full
                // window in this partial iteration is better at this depth.
                if let Some(best) = best {
                    found.best = best;
                    found.score = score;
                }
                found.nodes = self.nodes;
                break;
            }
            let Some(best) = best else { break };
            found = Found {
                best,
                score,
                depth,
                nodes: self.nodes,
            };
            order.retain(|&c| c != best);
            order.insert(0, best);
            if score.abs() >= MATE_BOUND || Instant::now() >= soft_stop {
                break;
            }
        }
        Some(found)
    }

    fn root(&mut self, order: &[Cell], depth: i32) -> (Option<Cell>, i32) {
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut best = None;
        for (i, &cell) in order.iter().enumerate() {
            self.board.play(cell);
            let score = if i == 0 {
                -self.node(depth - 1, -beta, -alpha, 1)
            } else {
                let s = -self.node(depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stopped {
                    -self.node(depth - 1, -beta, -alpha, 1)
                } else {
                    s
                }
            };
            self.board.undo();
            if self.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                best = Some(cell);
            }
        }
        (best, alpha)
    }

    fn node(&mut self, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        self.node_after(depth, alpha, beta, ply, false)
    }

    /// [`Self::node`]; `after_null`: the move into this node was a pass, so this one may
    /// not pass again.
    fn node_after(&mut self, depth: i32, mut alpha: i32, mut beta: i32, ply: usize, after_null: bool) -> i32 {
        if self.tick(1) {
            return 0;
        }
        let us = self.board.to_move();
        let them = 1 - us;
        let ply_score = ply as i32;
        if let Some(plies) = decided_in(self.board) {
            return if plies > 0 {
                MATE - ply_score - plies
            } else {
                -(MATE - ply_score + plies)
            };
        }
        let their_fives = self.board.count(them, Threat::Five);
        if self.board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // Mate-distance pruning: nothing here beats a quicker mate already found.
        alpha = alpha.max(-(MATE - ply_score));
        beta = beta.min(MATE - ply_score - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = self.board.hash();
        let mut tt_move = None;
        if let Some(entry) = self.tt.probe(key) {
            tt_move = Some(usize::from(entry.best)).filter(|&c| c < self.board.cells() && self.board.is_empty(c));
            if entry.depth >= depth {
                let score = tt::from_table(entry.score, ply, MATE_BOUND);
                if entry.bound.settles(score, alpha, beta) {
                    return score;
                }
            }
        }

        let forced = self.board.five_cell(them).filter(|_| their_fives == 1);
        if forced.is_none()
            && beta - alpha == 1
            && let Some(score) = self.futile(depth, beta)
        {
            return score;
        }
        if forced.is_none() && !after_null && beta - alpha == 1 && self.null_cut(depth, beta, ply) {
            return beta;
        }
        // The table's move is searched before the others are generated: it often cuts
        // them off. (Not against an open four to stop, where the replies decide the depth.)
        let early = tt_move.filter(|_| forced.is_none() && depth > 0 && self.board.count(them, Threat::Flex4) == 0);
        let (mut moves, next_depth) = match forced {
            Some(block) => (vec![block], depth),
            None if depth <= 0 => return self.leaf(ply),
            None if early.is_some() => (early.into_iter().collect(), depth - 1),
            None => {
                let moves = self.moves(tt_move, ply);
                // Answering a three with few replies costs no depth (when configured).
                let answering = self.config.three_extension > 0
                    && moves.len() <= self.config.three_extension
                    && self.board.count(them, Threat::Flex4) > 0;
                let next = if answering { depth } else { depth - 1 };
                (moves, next)
            }
        };

        let alpha_start = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut generated = early.is_none();
        let mut i = 0;
        while i < moves.len() {
            let cell = moves[i];
            let quiet = self.board.threat(cell, us) < Threat::Flex3 && self.board.threat(cell, them) < Threat::Flex3;
            self.board.play(cell);
            let score = if i == 0 {
                -self.node(next_depth, -beta, -alpha, ply + 1)
            } else {
                let reduction = i32::from(quiet && depth >= 3 && i >= 3);
                let mut s = -self.node(next_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduction > 0 && !self.stopped {
                    s = -self.node(next_depth, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta && !self.stopped {
                    s = -self.node(next_depth, -beta, -alpha, ply + 1);
                }
                s
            };
            self.board.undo();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(cell);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if quiet {
                            self.remember_killer(ply, cell);
                        }
                        break;
                    }
                }
            }
            if !generated {
                generated = true;
                let rest = self.moves(tt_move, ply);
                moves.extend(rest.into_iter().filter(|&c| Some(c) != tt_move));
            }
            i += 1;
        }
        let bound = Bound::of(best_score, alpha_start, beta);
        let best_move = best_move.and_then(|cell| u16::try_from(cell).ok()).unwrap_or(u16::MAX);
        self.tt
            .store(key, best_move, tt::to_table(best_score, ply, MATE_BOUND), depth, bound);
        best_score
    }

    /// Whether passing already keeps the side to move at or above `beta` (a null-window
    /// node with depth to spare, no five to block, and an opponent without a win in two
    /// moves to play after the pass: no open four, four-three or double three to make).
    /// Not where the evaluation is below `beta` already, nor trusted when the pass finds a
    /// mate.
    fn null_cut(&mut self, depth: i32, beta: i32, ply: usize) -> bool {
        let reduction = self.config.null_reduction;
        if reduction == 0 || depth < 3 || beta.abs() >= MATE_BOUND {
            return false;
        }
        let them = 1 - self.board.to_move();
        if threatens_a_win_in_two(self.board, them) {
            return false;
        }
        if self.evaluate() < beta {
            return false;
        }
        self.board.pass();
        let score = -self.node_after(depth - 1 - reduction, -beta, -beta + 1, ply + 1, true);
        self.board.pass();
        !self.stopped && score >= beta && score < MATE_BOUND
    }

    /// The evaluation, when it is so far above `beta` with so few plies left that the
    /// side to move keeps it (reverse futility pruning): not when the opponent threatens
    /// an open four or has a four-three or double three to make.
    fn futile(&self, depth: i32, beta: i32) -> Option<i32> {
        let margin = self.config.futility_margin;
        if margin == 0 || !(1..=3).contains(&depth) || beta.abs() >= MATE_BOUND {
            return None;
        }
        let them = 1 - self.board.to_move();
        if threatens_a_win_in_two(self.board, them) {
            return None;
        }
        let eval = self.evaluate();
        (eval - margin * depth >= beta).then_some(eval)
    }

    /// Counts `nodes` more visited; whether the search must stop (the clock is read once
    /// every 256 nodes).
    fn tick(&mut self, nodes: u64) -> bool {
        let before = self.nodes;
        self.nodes += nodes;
        if before >> 8 != self.nodes >> 8 && Instant::now() >= self.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    /// The static score of the position for the side to move.
    fn evaluate(&self) -> i32 {
        if self.config.learned_eval {
            learned::evaluate(self.board)
        } else {
            eval::evaluate_with(self.board, self.config.double_threats)
        }
    }

    /// A leaf: a VCF of the side to move if allowed and possible, else the evaluation.
    fn leaf(&mut self, ply: usize) -> i32 {
        let us = self.board.to_move();
        if let Some(limits) = self.config.leaf_vcf
            && self.board.count_from(us, Threat::Block4) > 0
        {
            let (win, nodes) = vcf::find_counted(self.board, self.cache, limits, self.deadline);
            self.tick(nodes);
            if let Some(win) = win {
                return MATE - ply as i32 - win.plies as i32;
            }
        }
        self.evaluate()
    }

    /// The moves a node tries, best first, at most `width` of them.
    fn moves(&mut self, tt_move: Option<Cell>, ply: usize) -> Vec<Cell> {
        let mut scored = if self.config.threat_moves {
            threat_candidates(self.board)
        } else {
            candidates(self.board)
        };
        let killers = self.killers[ply];
        for (cell, score) in &mut scored {
            if Some(*cell) == tt_move {
                *score = i32::MAX;
            } else if killers.contains(&Some(*cell)) {
                *score += 200;
            }
        }
        // Only the best `width` need an order.
        let width = self.config.width;
        if width > 0 && scored.len() > width {
            scored.select_nth_unstable_by(width - 1, best_first);
        }
        scored.truncate(width);
        scored.sort_unstable_by(best_first);
        scored.into_iter().map(|(cell, _)| cell).collect()
    }

    fn remember_killer(&mut self, ply: usize, cell: Cell) {
        let slot = &mut self.killers[ply];
        if slot[0] != Some(cell) {
            slot[1] = slot[0];
            slot[0] = Some(cell);
        }
    }
}

/// Whether the threats alone decide the position, and in how many plies: `Some(n)` with
/// `n > 0` when the side to move wins with its `n`th stone from here (1: a five to make;
/// 3: an open four or double four to make, the opponent having no five), `Some(-n)` when
/// it loses on the opponent's move `n` plies from here (2: two fives to stop). `None`
/// otherwise; with one opponent five to stop the block is searched, else the position is
/// searched or evaluated.
pub fn decided_in(board: &Board) -> Option<i32> {
    let us = board.to_move();
    let them = 1 - us;
    if board.count(us, Threat::Five) > 0 {
        return Some(1);
    }
    let their_fives = board.count(them, Threat::Five);
    if their_fives >= 2 {
        return Some(-2);
    }
    (their_fives == 0 && board.count(us, Threat::Flex4) > 0).then_some(3)
}

/// Whether `side`, were it to move, has a square making a five, an open four, a four-three
/// or a double three: a win in two moves unless the other side answers with fours. A
/// shortcut that trusts the other side's standing (a pass, the evaluation) is unsafe then.
fn threatens_a_win_in_two(board: &Board, side: Side) -> bool {
    board.count_from(side, Threat::Block4Flex3) > 0 || board.count(side, Threat::Flex3x2) > 0
}

/// The order of scored moves: the highest score first, ties by square (so that an order
/// never depends on how a sort breaks ties).
pub fn best_first(a: &(Cell, i32), b: &(Cell, i32)) -> std::cmp::Ordering {
    b.1.cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The moves worth trying for the side to move, with their ordering scores (unsorted):
/// when the opponent threatens an open four, only the squares that stop it and the side's
/// own fours; otherwise every empty square near a stone.
pub fn candidates(board: &Board) -> Vec<(Cell, i32)> {
    let us = board.to_move();
    let them = 1 - us;
    let cells: Vec<Cell> = if board.count(them, Threat::Flex4) > 0 {
        (0..board.cells())
            .filter(|&c| board.is_empty(c) && (board.threat(c, us).is_four() || board.threat(c, them).is_four()))
            .collect()
    } else {
        board.candidates()
    };
    cells.into_iter().map(|c| (c, eval::move_score(board, c, us))).collect()
}

/// [`candidates`], but against a three (the opponent has a square making an open four)
/// only the squares that stop it ([`threats::stops`]) and the side's own fours: a three of
/// the side's own that does not stop the opponent's comes too late. When no single stone
/// stops the three, the fours and the squares where the opponent would make a four are
/// left, as in [`candidates`].
pub fn threat_candidates(board: &mut Board) -> Vec<(Cell, i32)> {
    let us = board.to_move();
    let them = 1 - us;
    if board.count(them, Threat::Flex4) == 0 {
        return candidates(board);
    }
    let mut cells = threats::stops(board, them);
    if cells.is_empty() {
        return candidates(board);
    }
    cells.extend(
        board
            .cells_from(us, Threat::Block4)
            .filter(|c| !cells.contains(c))
            .collect::<Vec<_>>(),
    );
    cells.into_iter().map(|c| (c, eval::move_score(board, c, us))).collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use spelbord_games::gomoku::Variant;

    #[test]
    fn defends_only_against_an_open_three() {
        // O threatens an open four with G7 H7 I7; X has nothing.
        let mut b = Board::with_stones(Variant::Free, &["A15", "C15"], &["G7", "H7", "I7"]);
        let moves: Vec<Cell> = candidates(&b).into_iter().map(|(c, _)| c).collect();
        for stop in ["F7", "J7"] {
            assert!(moves.contains(&b.cell(stop.parse().expect("square"))), "{stop}");
        }
        assert!(moves.len() <= 6, "{moves:?}");
        let config = Config {
            max_depth: 3,
            width: 10,
            leaf_vcf: None,
            threat_moves: false,
            double_threats: false,
            null_reduction: 0,
            three_extension: 0,
            learned_eval: false,
            futility_margin: 0,
        };
        let found = search(&mut b, config);
        assert!(moves.contains(&found.best));
    }

    /// A search of `config` from X's move in `board`, its roots every candidate.
    fn search(board: &mut Board, config: Config) -> Found {
        let mut cache = Cache::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let roots: Vec<Cell> = candidates(board).into_iter().map(|(c, _)| c).collect();
        let mut table = Table::new(16, u16::MAX, crate::tt::Earlier::Used);
        Search::new(board, &mut table, &mut cache, config, deadline)
            .run(&roots, deadline)
            .expect("a move")
    }

    fn config(max_depth: i32, three_extension: usize, null_reduction: i32) -> Config {
        Config {
            max_depth,
            width: 10,
            leaf_vcf: None,
            threat_moves: true,
            double_threats: true,
            null_reduction,
            three_extension,
            learned_eval: false,
            futility_margin: 0,
        }
    }

    #[test]
    fn answering_a_three_costs_no_depth() {
        // Found by scanning random positions: X wins in seven plies, which three plies
        // see only when O's few answers to each three cost no depth, and which a plain
        // search sees from five plies.
        let x = ["D4", "E5", "D6", "H6", "E7", "F9"];
        let o = ["H4", "I6", "J6", "G7", "J9", "I11"];
        let mut b = Board::with_stones(Variant::Free, &x, &o);
        let start = b.hash();
        let extended = search(&mut b, config(3, 4, 0));
        assert!(extended.score >= MATE_BOUND, "{extended:?}");
        let plain = search(&mut b, config(3, 0, 0));
        assert!(plain.score < MATE_BOUND, "{plain:?}");
        let deeper = search(&mut b, config(5, 0, 0));
        assert_eq!(deeper.score, extended.score, "{deeper:?}");
        assert_eq!(b.hash(), start, "the board comes back unchanged");
    }

    #[test]
    fn a_pass_is_tried_only_where_the_opponent_cannot_win_in_two() {
        let x = ["A1", "C1", "A3", "C3"];
        let far = Instant::now() + Duration::from_secs(60);
        let mut cache = Cache::new();
        let mut table = Table::new(16, u16::MAX, crate::tt::Earlier::Used);
        // O's H8 makes two open threes (F8 G8 H8, H6 H7 H8): passing would lose.
        let mut doubled = Board::with_stones(Variant::Free, &x, &["F8", "G8", "H6", "H7"]);
        let mut search = Search::new(&mut doubled, &mut table, &mut cache, config(8, 0, 3), far);
        assert!(!search.null_cut(6, -20_000, 1));
        // O's stones apart: X, whatever it plays, stays above a hopeless bound.
        let mut apart = Board::with_stones(Variant::Free, &x, &["F8", "G6", "L12", "B13"]);
        let start = apart.hash();
        let mut search = Search::new(&mut apart, &mut table, &mut cache, config(8, 0, 3), far);
        assert!(search.null_cut(6, -20_000, 1));
        assert!(!search.null_cut(2, -20_000, 1), "too shallow to pass");
        let mut search = Search::new(&mut apart, &mut table, &mut cache, config(8, 0, 0), far);
        assert!(!search.null_cut(6, -20_000, 1), "no passes unless configured");
        assert_eq!(apart.hash(), start, "the board comes back unchanged");
    }

    #[test]
    fn a_node_far_above_beta_near_the_leaves_keeps_its_evaluation_unless_threatened() {
        let x = ["A1", "C1", "A3", "C3"];
        let far = Instant::now() + Duration::from_secs(60);
        let futile = |board: &mut Board, margin: i32, depth: i32, beta: i32| {
            let config = Config {
                futility_margin: margin,
                ..config(8, 0, 0)
            };
            let mut cache = Cache::new();
            let mut table = Table::new(16, u16::MAX, crate::tt::Earlier::Used);
            Search::new(board, &mut table, &mut cache, config, far).futile(depth, beta)
        };
        // O's stones apart: X keeps its evaluation when it is a full margin a ply above.
        let mut apart = Board::with_stones(Variant::Free, &x, &["F8", "G6", "L12", "B13"]);
        let eval = futile(&mut apart, 1, 1, -20_000).expect("far above a hopeless bound");
        assert_eq!(futile(&mut apart, 150, 2, eval - 300), Some(eval));
        assert_eq!(
            futile(&mut apart, 150, 2, eval - 299),
            None,
            "not a full margin a ply above"
        );
        assert_eq!(futile(&mut apart, 150, 4, -20_000), None, "too many plies left");
        assert_eq!(futile(&mut apart, 0, 2, -20_000), None, "not unless configured");
        // O's H8 makes two open threes (F8 G8 H8, H6 H7 H8): no shortcut, however low beta.
        let mut doubled = Board::with_stones(Variant::Free, &x, &["F8", "G8", "H6", "H7"]);
        assert_eq!(futile(&mut doubled, 150, 1, -20_000), None);
    }
}
