//! The search: iterative deepening over a negamax alpha-beta with principal-variation
//! (null-window) re-searches, the transposition table ([`super::tt`]), move ordering (the
//! table's move, captures, two killer moves per ply, the history heuristic), repetitions
//! scored as draws, and at the horizon a win-in-one check with an extension when the
//! opponent threatens to connect. What a strength may use is its [`Profile`].

use std::time::{Duration, Instant};

use super::board::{After, Board, Mv, NO_MOVE, PASS, from_of, mix, to_of};
use super::eval::{Knowledge, evaluate};
use super::threats::{best_connection, opponent_threatens};
use super::tt::{self, Bound, Table};
use spelbord_games::lines_of_action::Simultaneous;

/// The score of a win on the move (less one per ply until it happens).
pub const WIN: i32 = 30_000;
/// Scores beyond this (either sign) are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Beyond every score.
const INFINITY: i32 = WIN + 1;
/// The deepest ply the search goes (a guard; iterative deepening stops long before).
const MAX_PLY: usize = 100;
/// How much shallower a null move is searched (beyond its own ply).
const NULL_REDUCTION: i32 = 2;
/// Late-move reductions start with this move (0-based) of a node.
const LMR_AFTER: usize = 3;
/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 256;

/// What a strength's search may use.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub knowledge: Knowledge,
    /// The deepest iteration.
    pub max_depth: i32,
    /// Whether the horizon checks for a win in one.
    pub leaf_wins: bool,
    /// How many times one line may be extended at the horizon because the opponent
    /// threatens to connect.
    pub threat_extensions: i32,
    /// Killer moves and the history heuristic in move ordering.
    pub killers: bool,
    /// Null-window searches after the first move (principal variation search).
    pub pvs: bool,
    /// Null-move pruning (a pass searched with a reduced depth and a null window).
    pub null_move: bool,
    /// Late-move reductions: quiet moves late in the order are searched a ply shallower
    /// first.
    pub lmr: bool,
    /// No new iteration starts once this share (in %) of the time is gone.
    pub start_share: u32,
    /// A pseudo-random amount in `-noise..=noise` added to every evaluation (fixed per
    /// position and seed), to vary the games of a weaker strength.
    pub noise: i32,
}

impl Profile {
    /// A key that differs between profiles (and, for a noisy one, between seeds): mixed
    /// into the transposition table's keys, so that one thread's table never hands one
    /// strength's results to another.
    fn salt(&self, seed: u64) -> u64 {
        let k = &self.knowledge;
        let numbers = [
            k.concentration,
            k.centre,
            k.mass,
            k.quads,
            k.groups,
            k.pairs,
            k.mobility,
            k.immobile,
            k.tempo,
            self.max_depth,
            i32::from(self.leaf_wins),
            self.threat_extensions,
            i32::from(self.killers),
            i32::from(self.pvs),
            i32::from(self.null_move),
            i32::from(self.lmr),
            self.noise,
        ];
        let mut salt = if self.noise == 0 { 0 } else { mix(seed) };
        for n in numbers {
            salt = mix(salt ^ (n as u32 as u64));
        }
        salt
    }
}

/// What to search.
pub struct Task<'a> {
    /// The root, a running position.
    pub board: Board,
    /// The root moves to consider (non-empty, all legal).
    pub candidates: &'a [Mv],
    /// The keys of the game's positions since the last capture, the root's last.
    pub history: &'a [u64],
    pub rule: Simultaneous,
    /// Answer by then.
    pub deadline: Instant,
    /// Seeds the evaluation noise.
    pub seed: u64,
}

/// The result of a search.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub mv: Mv,
    /// The score for the side to move at the root.
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: i32,
    pub nodes: u64,
}

/// Where a node stands in the tree.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Plies left to the horizon.
    depth: i32,
    /// Plies from the root.
    ply: usize,
    /// The index in [`Search::keys`] of the first position since the last capture.
    floor: usize,
    /// Threat extensions left on this line.
    ext: i32,
    /// Whether a null move may be tried here (not right after another).
    null_ok: bool,
}

struct Search<'a> {
    profile: Profile,
    seed: u64,
    /// Mixed into every key the table sees ([`Profile::salt`]).
    salt: u64,
    rule: Simultaneous,
    table: &'a mut Table<Mv>,
    deadline: Instant,
    nodes: u64,
    stopped: bool,
    killers: [[Mv; 2]; MAX_PLY],
    /// Cut-off counts per `from`, `to` (indexed `from * 64 + to`).
    history: Vec<u32>,
    /// The keys of the positions since the last capture: the game's, then the path's.
    keys: Vec<u64>,
}

/// The score of the move at `ply` that ended the game as `after`.
fn ended(after: After, ply: usize) -> Option<i32> {
    let win = WIN - ply as i32 - 1;
    match after {
        After::Running => None,
        After::Won => Some(win),
        After::Lost => Some(-win),
        After::Drawn => Some(0),
    }
}

/// Centralisation of a destination, for ordering quiet moves.
fn centrality(square: u32) -> i32 {
    let (col, row) = ((square % 8) as i32, (square / 8) as i32);
    let ring = col.min(7 - col).min(row).min(7 - row);
    ring * 10
}

impl Search<'_> {
    /// The evaluation plus the profile's noise.
    fn evaluate(&self, board: &Board) -> i32 {
        let score = evaluate(board, &self.profile.knowledge);
        if self.profile.noise == 0 {
            return score;
        }
        let span = (2 * self.profile.noise + 1) as u64;
        score + (mix(board.hash ^ self.seed) % span) as i32 - self.profile.noise
    }

    fn out_of_time(&mut self) -> bool {
        if !self.stopped && self.nodes.is_multiple_of(CLOCK_EVERY) && Instant::now() >= self.deadline {
            self.stopped = true;
        }
        self.stopped
    }

    /// Whether the newest key occurred before since the last capture (`floor`).
    fn repeats(&self, floor: usize) -> bool {
        let Some((&last, earlier)) = self.keys.split_last() else {
            return false;
        };
        earlier.get(floor..).is_some_and(|keys| keys.contains(&last))
    }

    /// Orders `moves` best first.
    fn order(&self, board: &Board, moves: &mut [Mv], tt_move: Mv, ply: usize) {
        let killers = self.killers.get(ply).copied().unwrap_or([NO_MOVE; 2]);
        let mut scored: [(i32, Mv); super::board::MAX_MOVES] = [(0, NO_MOVE); super::board::MAX_MOVES];
        for (slot, &mv) in scored.iter_mut().zip(moves.iter()) {
            let key = if mv == tt_move {
                1_000_000
            } else if board.is_capture(mv) {
                200_000 + centrality(to_of(mv))
            } else if self.profile.killers && mv == killers[0] {
                150_000
            } else if self.profile.killers && mv == killers[1] {
                140_000
            } else if self.profile.killers {
                let history = self.history[(from_of(mv) * 64 + to_of(mv)) as usize];
                history.min(100_000) as i32 + centrality(to_of(mv)) - centrality(from_of(mv))
            } else {
                centrality(to_of(mv)) - centrality(from_of(mv))
            };
            *slot = (key, mv);
        }
        let scored = &mut scored[..moves.len()];
        scored.sort_unstable_by_key(|entry| std::cmp::Reverse(entry.0));
        for (mv, (_, sorted)) in moves.iter_mut().zip(scored.iter()) {
            *mv = *sorted;
        }
    }

    /// The score of `mv` from `board` (at `at`) for the side that plays it.
    fn score_move(&mut self, board: &Board, mv: Mv, at: Frame, window: (i32, i32)) -> i32 {
        let next = board.play(mv);
        if let Some(score) = ended(next.judge_last_move(self.rule), at.ply) {
            return score;
        }
        let floor = if board.is_capture(mv) {
            self.keys.len()
        } else {
            at.floor
        };
        self.keys.push(next.hash);
        let score = if self.repeats(floor) {
            0
        } else {
            let child = Frame {
                depth: at.depth - 1,
                ply: at.ply + 1,
                floor,
                ext: at.ext,
                null_ok: true,
            };
            -self.negamax(&next, child, -window.1, -window.0)
        };
        self.keys.pop();
        score
    }

    /// The value of a running position for its side to move.
    fn negamax(&mut self, board: &Board, at: Frame, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let Frame {
            mut depth,
            ply,
            mut ext,
            ..
        } = at;
        if depth <= 0 || ply >= MAX_PLY - 1 {
            if !self.profile.leaf_wins || ply >= MAX_PLY - 1 {
                return self.evaluate(board);
            }
            let stand = match best_connection(board, self.rule) {
                Some((_, After::Won)) => return WIN - ply as i32 - 1,
                Some(_) => self.evaluate(board).max(0),
                None => self.evaluate(board),
            };
            if ext > 0 && opponent_threatens(board, self.rule) {
                depth = 1;
                ext -= 1;
            } else {
                return stand;
            }
        }

        let mut tt_move = NO_MOVE;
        if let Some(entry) = self.table.probe(board.hash ^ self.salt) {
            tt_move = entry.best;
            if entry.depth >= depth {
                let score = tt::from_table(entry.score, ply, WIN_BOUND);
                if entry.bound.settles(score, alpha, beta) {
                    return score;
                }
            }
        }

        if self.profile.null_move && at.null_ok && depth >= 3 && beta.abs() < WIN_BOUND {
            // A pass that still fails high: the position is good enough to cut. A
            // connection threat is no exception: the opponent's reply finds it.
            let next = board.play(PASS);
            self.keys.push(next.hash);
            let child = Frame {
                depth: depth - 1 - NULL_REDUCTION,
                ply: ply + 1,
                floor: self.keys.len() - 1,
                ext,
                null_ok: false,
            };
            let score = -self.negamax(&next, child, -beta, -beta + 1);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return beta;
            }
        }

        let mut list = board.moves();
        let moves = list.as_mut_slice();
        self.order(board, moves, tt_move, ply);
        let killers = self.killers.get(ply).copied().unwrap_or([NO_MOVE; 2]);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        let here = Frame { depth, ext, ..at };
        let reduced = Frame {
            depth: depth - 1,
            ..here
        };
        for (i, &mv) in moves.iter().enumerate() {
            let score = if i == 0 || !self.profile.pvs {
                self.score_move(board, mv, here, (alpha, beta))
            } else {
                let quiet = !board.is_capture(mv) && mv != tt_move && !killers.contains(&mv);
                let reduce = self.profile.lmr && i >= LMR_AFTER && depth >= 3 && quiet;
                let mut probe = alpha + 1;
                if reduce {
                    probe = self.score_move(board, mv, reduced, (alpha, alpha + 1));
                }
                if probe > alpha && !self.stopped {
                    probe = self.score_move(board, mv, here, (alpha, alpha + 1));
                }
                if probe > alpha && probe < beta && !self.stopped {
                    self.score_move(board, mv, here, (alpha, beta))
                } else {
                    probe
                }
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = mv;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                if self.profile.killers && !board.is_capture(mv) && mv != PASS {
                    if let Some(slot) = self.killers.get_mut(ply)
                        && slot[0] != mv
                    {
                        slot[1] = slot[0];
                        slot[0] = mv;
                    }
                    let index = (from_of(mv) * 64 + to_of(mv)) as usize;
                    if let Some(count) = self.history.get_mut(index) {
                        *count = count.saturating_add((depth * depth) as u32);
                    }
                }
                break;
            }
        }
        let bound = Bound::of(best, original_alpha, beta);
        let stored_move = if bound == Bound::Upper { NO_MOVE } else { best_move };
        self.table.store(
            board.hash ^ self.salt,
            stored_move,
            tt::to_table(best, ply, WIN_BOUND),
            depth,
            bound,
        );
        best
    }
}

/// Searches `task` with `profile` until its deadline, starting no new iteration once
/// the profile's share of the time is gone.
pub fn best_move(task: &Task, profile: &Profile, table: &mut Table<Mv>) -> Found {
    let Task {
        board,
        candidates,
        history,
        rule,
        deadline,
        seed,
    } = *task;
    let profile = *profile;
    let board = &board;
    let started = Instant::now();
    let soft_deadline = started + deadline.saturating_duration_since(started) * profile.start_share.min(100) / 100;
    let mut search = Search {
        profile,
        seed,
        salt: profile.salt(seed),
        rule,
        table,
        deadline,
        nodes: 0,
        stopped: false,
        killers: [[NO_MOVE; 2]; MAX_PLY],
        history: vec![0; 64 * 64],
        keys: history.to_vec(),
    };
    // Depth 0: a static ordering, and an answer even with no time at all.
    let mut order: Vec<(Mv, i32)> = candidates
        .iter()
        .map(|&mv| {
            let next = board.play(mv);
            let score = ended(next.judge_last_move(rule), 0).unwrap_or_else(|| -search.evaluate(&next));
            (mv, score)
        })
        .collect();
    order.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    let mut found = Found {
        mv: order.first().map_or(PASS, |first| first.0),
        score: order.first().map_or(0, |first| first.1),
        depth: 0,
        nodes: 0,
    };
    if Instant::now() >= deadline || order.len() == 1 {
        return found;
    }
    for depth in 1..=profile.max_depth {
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut iteration_best: Option<(Mv, i32)> = None;
        let root = Frame {
            depth,
            ply: 0,
            floor: 0,
            ext: profile.threat_extensions,
            null_ok: true,
        };
        for (i, entry) in order.iter_mut().enumerate() {
            let mv = entry.0;
            let score = if i == 0 || !profile.pvs {
                search.score_move(board, mv, root, (alpha, beta))
            } else {
                let probe = search.score_move(board, mv, root, (alpha, alpha + 1));
                if probe > alpha && !search.stopped {
                    search.score_move(board, mv, root, (alpha, beta))
                } else {
                    probe
                }
            };
            if search.stopped {
                break;
            }
            entry.1 = score;
            if score > alpha {
                alpha = score;
                iteration_best = Some((mv, score));
            }
        }
        if let Some((mv, score)) = iteration_best {
            // A stopped iteration still counts for the moves it finished: each of them
            // was searched in full (the previous best first).
            found = Found {
                mv,
                score,
                depth: if search.stopped { found.depth } else { depth },
                nodes: search.nodes,
            };
        }
        if search.stopped {
            break;
        }
        // The best first, then the rest by their (bounded) scores.
        order.sort_by(|a, b| (b.0 == found.mv).cmp(&(a.0 == found.mv)).then(b.1.cmp(&a.1)));
        if found.score.abs() > WIN_BOUND || Instant::now() >= soft_deadline {
            break;
        }
    }
    found.nodes = search.nodes;
    found
}

/// How long before the deadline a search stops, to answer in time on a busy machine (a
/// thread may wait a few tens of milliseconds for a core there).
pub fn margin(budget: Duration) -> Duration {
    (budget / 8).min(Duration::from_millis(40))
}
