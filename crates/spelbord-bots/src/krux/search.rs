//! The search of the medium and hard bots: negamax alpha-beta over whole turns, with
//! iterative deepening, a transposition table keyed by the turn-boundary position, and
//! move ordering by the table's best move and the static evaluation.
//!
//! A node is a position at a turn boundary; its children are the distinct positions the
//! piece in turn can end its turn in (the rules' `next_positions`, about 1,000–2,000 of
//! them). Every node first asks the rules' `can_win` (about 40 µs): a piece that can put
//! an opponent's piece into the hole this turn wins, so a turn after which the opponent
//! can win is a loss, found one turn deep already. At depth 0 the value is the static
//! evaluation; since `can_win` can only raise a leaf's value above it, a node one turn
//! above the leaves sorts its children by their static value and stops at the first one
//! that cannot beat alpha (all the rest are bounded by it), so it tests `can_win` only on
//! the few replies that matter. Draws are exact: a child whose position occurs for the
//! third time (game history plus the search line) or that completes turn 300 is worth 0.

use std::time::Instant;

use super::eval::{Evaluation, for_seat, mover_seat};
use super::root::{Ending, Turn};
use super::tt::{Bound, Table};
use spelbord_games::Seat;
use spelbord_games::krux::{Krux, KruxPosition, TURN_LIMIT, can_win, next_positions};

/// The value of a position where the side to move can win at once.
pub const WIN: i32 = 1_000_000;
/// Larger than any value.
const INFINITY: i32 = 2 * WIN;

/// What a search may do.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The deepest iteration, in turns.
    pub max_depth: u8,
    /// How many of the root's turns (best first) iterations after the first search.
    pub root_width: usize,
    /// How many children (best first by the table and the static order) a node searches
    /// when they are not leaves; a node above the leaves searches all of them.
    pub inner_width: usize,
    pub evaluation: Evaluation,
    /// Stop searching by then.
    pub deadline: Instant,
}

/// What a search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The index of the chosen turn.
    pub best: usize,
    pub value: i32,
    /// The deepest iteration completed (0 if none).
    pub depth: u8,
    pub nodes: u64,
}

struct Search<'a> {
    game: &'a Krux,
    table: &'a mut Table<u64>,
    limits: Limits,
    nodes: u64,
    stopped: bool,
    /// Keys of the positions on the current line (repetitions).
    line: Vec<u64>,
    /// Children per ply, reused.
    children: Vec<Vec<KruxPosition>>,
}

impl Search<'_> {
    fn out_of_time(&mut self) -> bool {
        if !self.stopped && Instant::now() >= self.limits.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    /// Whether reaching `position` as a turn boundary `ply` turns below the root ends the
    /// game in a draw.
    fn drawn(&self, position: &KruxPosition, ply: usize) -> bool {
        if self.game.turns_completed() as usize + ply >= TURN_LIMIT as usize {
            return true;
        }
        let key = position.key();
        let earlier = usize::from(self.game.occurrences(position)) + self.line.iter().filter(|&&k| k == key).count();
        earlier >= 2
    }

    /// The value of `position` for the side to move, searched `depth` turns deep.
    fn node(&mut self, position: KruxPosition, depth: u8, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let key = position.key();
        let remembered = self.table.probe(key);
        if let Some(entry) = remembered
            && entry.depth >= i32::from(depth)
            && entry.bound.settles(entry.score, alpha, beta)
        {
            return entry.score;
        }
        if can_win(&position) {
            // Valid at any depth: stored as deep as the table goes.
            self.table.store(key, 0, WIN, i32::MAX, Bound::Exact);
            return WIN;
        }
        let mover = mover_seat(&position);
        if depth == 0 {
            let value = for_seat(&position, mover, self.limits.evaluation);
            self.table.store(key, 0, value, 0, Bound::Exact);
            return value;
        }
        if self.children.len() <= ply {
            self.children.resize_with(ply + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.children[ply]);
        if next_positions(&position, &mut children) {
            // `can_win` said no; the enumeration agrees (tests), but a win is a win.
            self.children[ply] = children;
            return WIN;
        }
        let best_known = remembered.map_or(0, |entry| entry.best);
        let mut order: Vec<(i32, usize)> = children
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let score = if child.key() == best_known {
                    INFINITY
                } else {
                    for_seat(child, mover, self.limits.evaluation)
                };
                (score, i)
            })
            .collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_key = 0;
        self.line.push(key);
        let width = if depth >= 2 {
            self.limits.inner_width
        } else {
            usize::MAX
        };
        for (n, &(score, i)) in order.iter().enumerate().take(width) {
            let child = children[i];
            let value = if self.drawn(&child, ply + 1) {
                0
            } else {
                if depth == 1 && score != INFINITY && score <= alpha {
                    // A leaf is worth at least its static value to its mover, so this
                    // child and every later one are worth at most `score` here. Only a
                    // draw among them could still be worth more.
                    best = best.max(score);
                    let draw_later = order[n..].iter().any(|&(_, j)| self.drawn(&children[j], ply + 1));
                    if draw_later && best < 0 {
                        best = 0;
                    }
                    break;
                }
                -self.node(child, depth - 1, -beta, -alpha, ply + 1)
            };
            if self.stopped {
                break;
            }
            if value > best {
                best = value;
                best_key = child.key();
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        self.line.pop();
        self.children[ply] = children;
        if self.stopped {
            return 0;
        }
        let bound = Bound::of(best, original_alpha, beta);
        self.table.store(key, best_key, best, i32::from(depth), bound);
        best
    }
}

/// The value of a root turn from the root's side, searched `depth` turns deep.
fn root_value(search: &mut Search<'_>, turn: &Turn, depth: u8, alpha: i32) -> i32 {
    match turn.ending {
        // Winning now is better than any win found later.
        Ending::Won => WIN + 1,
        Ending::Drawn => 0,
        Ending::Continues(position) => -search.node(position, depth - 1, -INFINITY, -alpha, 1),
    }
}

/// Chooses among `turns` (the root's turns, not empty) for `seat` by iterative deepening
/// until `limits.max_depth` or the deadline. If time runs out before the first iteration
/// (one turn deep: every turn's safety and static value) has seen a safe turn, the first
/// safe turn in the static order is taken.
pub fn best_turn(game: &Krux, seat: Seat, turns: &[Turn], table: &mut Table<u64>, limits: Limits) -> Found {
    let mut search = Search {
        game,
        table,
        limits,
        nodes: 0,
        stopped: false,
        line: Vec::new(),
        children: Vec::new(),
    };
    // The first order: by the static value of where each turn leads.
    let mut order: Vec<(i32, usize)> = turns
        .iter()
        .enumerate()
        .map(|(i, turn)| {
            let score = match turn.ending {
                Ending::Won => INFINITY,
                Ending::Drawn => 0,
                Ending::Continues(position) => for_seat(&position, seat, limits.evaluation),
            };
            (score, i)
        })
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut found = Found {
        best: order.first().map_or(0, |&(_, i)| i),
        value: -INFINITY,
        depth: 0,
        nodes: 0,
    };
    for depth in 1..=limits.max_depth.max(1) {
        search.stopped = false;
        let mut alpha = -INFINITY;
        let mut best = None;
        let mut scores = Vec::with_capacity(order.len());
        let width = if depth == 1 { order.len() } else { limits.root_width };
        for &(_, i) in order.iter().take(width) {
            let value = root_value(&mut search, &turns[i], depth, alpha);
            if search.stopped {
                break;
            }
            scores.push((value, i));
            if value > alpha {
                alpha = value;
                best = Some((i, value));
            }
        }
        if let Some((i, value)) = best {
            // A partial iteration still searched the previous best first: its best is
            // at least as good as what the previous iteration knew.
            found.best = i;
            found.value = value;
        }
        if search.stopped {
            break;
        }
        found.depth = depth;
        // Next iteration: best first, then by this iteration's values (fail-soft bounds),
        // then the turns this one did not search, in their earlier order.
        let searched = scores.len();
        scores.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scores.extend(order.iter().skip(searched).map(|&(_, i)| (-INFINITY, i)));
        order = scores;
        if found.value >= WIN || order.iter().skip(1).all(|&(value, _)| value <= -WIN) {
            // A forced win, or only one turn that does not lose: nothing to learn deeper.
            break;
        }
        if Instant::now() >= limits.deadline {
            break;
        }
    }
    if found.depth == 0 && found.value <= -WIN {
        // Out of time before a safe turn was seen: take the first turn in the static
        // order after which the opponent cannot win at once (each test is quick).
        if let Some(&(_, i)) = order.iter().find(|&&(_, i)| !turns[i].lets_opponent_win()) {
            found.best = i;
            found.value = 0;
        }
    }
    found.nodes = search.nodes;
    found
}
