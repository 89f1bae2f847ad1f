//! Medium and Hard at the root: the forced tactics first, then (Hard) a VCF and a VCT of
//! its own, a defence that refuses the moves leaving the opponent a VCF or a VCT (unless
//! every move does), a little variety in the opening, and the iterative-deepening search
//! within the time budget.

use std::time::{Duration, Instant};

use rand::Rng;

use super::board::{Board, Cell};
use super::pattern::Threat;
use super::search::{self, Config, Search};
use super::vcf::{self, Cache};
use super::vct;
use super::{tactics, tt};
use crate::Context;

/// What a strength does beyond the search itself.
#[derive(Debug, Clone, Copy)]
pub struct Level {
    pub search: Config,
    /// Look for its own VCF at the root first.
    pub root_vcf: Option<vcf::Limits>,
    /// When the opponent has a VCF, only try moves that stop it (or are fours).
    pub vcf_defence: bool,
    /// Look for its own VCT at the root after the VCF, and refuse root moves that leave the
    /// opponent a VCF or a VCT (each tried with these limits) unless every move does.
    pub vct: Option<vct::Limits>,
    /// How many of the best-ordered root moves are searched.
    pub root_width: usize,
    /// The share of the search's time after which no new iteration starts.
    pub soft_share: f64,
}

/// Medium: a shallow search, no VCF.
pub const MEDIUM: Level = Level {
    search: Config {
        max_depth: 3,
        width: 10,
        leaf_vcf: None,
        threat_moves: false,
        double_threats: false,
        null_reduction: 0,
        three_extension: 0,
        learned_eval: false,
        futility_margin: 0,
    },
    root_vcf: None,
    vcf_defence: false,
    vct: None,
    root_width: 16,
    soft_share: SOFT_SHARE,
};

/// Hard: deep search (null moves, free answers to threes, no VCF at the leaves) with the
/// learned evaluation, VCF at the root and in defence, and VCT at the root and in defence.
pub const HARD: Level = Level {
    search: Config {
        max_depth: 30,
        width: 10,
        leaf_vcf: None,
        threat_moves: true,
        double_threats: true,
        null_reduction: 5,
        three_extension: 6,
        learned_eval: true,
        futility_margin: 80,
    },
    root_vcf: Some(vcf::Limits {
        fours: 30,
        nodes: 300_000,
    }),
    vcf_defence: true,
    vct: Some(vct::Limits { depth: 8, nodes: 3_000 }),
    root_width: 16,
    soft_share: SOFT_SHARE,
};

/// Hard as it was at commit `ce8d8fe`, before VCT: the opponent the arena measures the
/// new Hard against (`measure.rs`). Nothing else plays it.
#[cfg(test)]
pub const BASELINE: Level = Level {
    search: Config {
        leaf_vcf: Some(vcf::Limits { fours: 8, nodes: 400 }),
        threat_moves: false,
        double_threats: false,
        null_reduction: 0,
        three_extension: 0,
        learned_eval: false,
        ..HARD.search
    },
    vct: None,
    soft_share: SOFT_SHARE,
    ..HARD
};

/// The share of the budget after which no new iteration starts.
const SOFT_SHARE: f64 = 0.45;
/// The share of the budget the root VCF searches may use.
const VCF_SHARE: f64 = 0.2;

/// With VCT: the share of the budget by which the own VCF must end, by which the own VCT
/// must end, and by which the defence must end. The search then has the rest, and starts
/// no new iteration after [`SOFT_SHARE`] of what is left.
const VCT_VCF_SHARE: f64 = 0.1;
const VCT_SHARE: f64 = 0.15;
const DEFENCE_SHARE: f64 = 0.3;

/// The opening moves (stones on the board before them) that are picked at random among
/// the nearly best squares next to a stone, so that games differ.
const VARIED_OPENING: usize = 3;

/// The move of a searching strength on `board` (`None` only on a full board).
pub fn choose(board: &mut Board, level: &Level, ctx: &Context) -> Option<Cell> {
    vct::with_table(|vct_table| choose_with(board, level, ctx, vct_table))
}

/// [`choose`] with this thread's VCT table.
fn choose_with(board: &mut Board, level: &Level, ctx: &Context, vct_table: &mut vct::Table) -> Option<Cell> {
    let start = Instant::now();
    if let Some(cell) = tactics::forced(board) {
        return Some(cell);
    }
    if ctx.deadline <= start {
        return tactics::quick(board);
    }
    let budget = ctx.deadline - start;
    let deadline = ctx.deadline - (budget / 10).min(Duration::from_millis(20));
    let share = |part: f64| start + budget.mul_f64(part);
    let vcf_deadline = share(if level.vct.is_some() { VCT_VCF_SHARE } else { VCF_SHARE });
    let us = board.to_move();
    let mut cache = Cache::new();

    if let Some(limits) = level.root_vcf
        && board.count_from(us, Threat::Block4) > 0
        && let Some(win) = vcf::find(board, &mut cache, limits, vcf_deadline)
    {
        return Some(win.first);
    }
    if let Some(limits) = level.vct
        && board.count_from(us, Threat::Flex3) > 0
        && let Some(win) = vct::find(board, vct_table, limits, share(VCT_SHARE))
    {
        return Some(win.first);
    }

    let mut roots = if level.search.threat_moves {
        search::threat_candidates(board)
    } else {
        search::candidates(board)
    };
    roots.sort_unstable_by(search::best_first);
    if board.stone_count() < VARIED_OPENING
        && let Some(&(top_cell, top)) = roots.first()
    {
        let close: Vec<Cell> = roots
            .iter()
            .filter(|&&(cell, score)| score * 10 >= top * 9 && board.touches_stone(cell))
            .map(|&(cell, _)| cell)
            .collect();
        // On an empty board no square touches a stone: the best one (the centre) then.
        let picked = close.get(ctx.rng().random_range(0..close.len().max(1))).copied();
        return picked.or(Some(top_cell));
    }
    let mut roots: Vec<Cell> = roots.into_iter().map(|(cell, _)| cell).collect();

    if let (Some(vct_limits), Some(vcf_limits)) = (level.vct, level.root_vcf) {
        let mut defence = Defence {
            cache: &mut cache,
            table: vct_table,
            vcf: vcf_limits,
            vct: vct_limits,
            deadline: share(DEFENCE_SHARE),
        };
        roots = defence.refuse_losing(board, roots);
    } else if level.vcf_defence
        && let Some(limits) = level.root_vcf
        && vcf::threatened(board, &mut cache, limits, vcf_deadline)
    {
        let stopping: Vec<Cell> = roots
            .iter()
            .copied()
            .filter(|&cell| {
                if board.threat(cell, us).is_four() {
                    return true;
                }
                board.play(cell);
                let still = vcf::find(board, &mut cache, limits, vcf_deadline).is_some();
                board.undo();
                !still
            })
            .collect();
        if !stopping.is_empty() {
            roots = stopping;
        }
    }

    roots.truncate(level.root_width);
    let soft_stop = if level.vct.is_some() {
        let now = Instant::now();
        now + deadline.saturating_duration_since(now).mul_f64(level.soft_share)
    } else {
        share(level.soft_share)
    };
    let found =
        tt::with_table(|table| Search::new(board, table, &mut cache, level.search, deadline).run(&roots, soft_stop));
    if let Some(f) = found {
        tracing::debug!(depth = f.depth, score = f.score, nodes = f.nodes, "gomoku search");
        #[cfg(test)]
        stats::record(f.depth, f.nodes);
    }
    found.map(|f| f.best).or_else(|| tactics::quick(board))
}

/// What the searches of a thread reached (tests only: the arena's measurements print it
/// per side, `measure.rs`).
#[cfg(test)]
pub mod stats {
    use std::cell::Cell;

    thread_local! {
        /// Searches, the sum of their depths, the sum of their positions.
        static SEARCHES: Cell<(u64, u64, u64)> = const { Cell::new((0, 0, 0)) };
    }

    /// Counts one search of this thread.
    pub fn record(depth: i32, nodes: u64) {
        SEARCHES.with(|s| {
            let (n, d, v) = s.get();
            s.set((n + 1, d + u64::try_from(depth).unwrap_or(0), v + nodes));
        });
    }

    /// This thread's searches so far: how many, their mean depth, their mean positions.
    pub fn summary() -> (u64, f64, f64) {
        let (n, d, v) = SEARCHES.with(Cell::get);
        let m = n.max(1) as f64;
        (n, d as f64 / m, v as f64 / m)
    }
}

/// The defence at the root against the opponent's VCF and VCT.
pub struct Defence<'a> {
    /// The VCF's failed positions, shared by every move tried.
    pub cache: &'a mut Cache,
    /// The VCT's table, shared by every move tried.
    pub table: &'a mut vct::Table,
    /// The opponent's VCF is looked for with these limits.
    pub vcf: vcf::Limits,
    /// The opponent's VCT is looked for with these limits before any move; after each
    /// candidate with a quarter of the nodes.
    pub vct: vct::Limits,
    /// No search of the defence goes past it; moves not tried by then stay.
    pub deadline: Instant,
}

impl Defence<'_> {
    /// `roots` (in their order) without the moves that leave the opponent a VCF or a VCT;
    /// all of `roots` when the opponent has neither now, or when every move leaves one.
    /// The moves are checked best first until the deadline: those not checked by then
    /// stay (only a move shown to lose is refused).
    pub fn refuse_losing(&mut self, board: &mut Board, roots: Vec<Cell>) -> Vec<Cell> {
        let threatened = vcf::threatened(board, self.cache, self.vcf, self.deadline)
            || vct::threatened(board, self.table, self.vct, self.deadline);
        if !threatened {
            return roots;
        }
        let mut kept = Vec::with_capacity(roots.len());
        for &cell in &roots {
            if Instant::now() >= self.deadline || !self.leaves_win(board, cell) {
                kept.push(cell);
            }
        }
        if kept.is_empty() { roots } else { kept }
    }

    /// Whether the opponent has a VCF or a VCT after the side to move plays `cell`. After
    /// a four of ours and their forced block, it counts as if they were to move: a four
    /// that only delays their attack does not stop it.
    pub fn leaves_win(&mut self, board: &mut Board, cell: Cell) -> bool {
        let us = board.to_move();
        board.play(cell);
        let wins = match board.count(us, Threat::Five) {
            0 => self.opponent_wins(board),
            1 => match board.five_cell(us) {
                Some(block) => {
                    board.play(block);
                    board.pass();
                    let wins = self.opponent_wins(board);
                    board.pass();
                    board.undo();
                    wins
                }
                None => false,
            },
            _ => false,
        };
        board.undo();
        wins
    }

    /// Whether the side to move has a VCF or a VCT.
    fn opponent_wins(&mut self, board: &mut Board) -> bool {
        let limits = vct::Limits {
            nodes: self.vct.nodes / 4,
            ..self.vct
        };
        vcf::find(board, self.cache, self.vcf, self.deadline).is_some()
            || vct::find(board, self.table, limits, self.deadline).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spelbord_games::gomoku::Variant;

    /// A defence with node budgets only: the deadline is far.
    fn defence<'a>(cache: &'a mut Cache, table: &'a mut vct::Table) -> Defence<'a> {
        Defence {
            cache,
            table,
            vcf: vcf::Limits {
                fours: 30,
                nodes: 300_000,
            },
            vct: vct::Limits {
                depth: 10,
                nodes: 100_000,
            },
            deadline: Instant::now() + Duration::from_secs(600),
        }
    }

    fn cell(board: &Board, name: &str) -> Cell {
        board.cell(name.parse().expect("a square"))
    }

    /// O threatens a four-three on F5: C5 D5 E5 (X on B5) and F6 F7. X's E6, D4 and G7
    /// close O's diagonals, so that F5 holds.
    const FOUR_THREE_X: [&str; 6] = ["B5", "E6", "D4", "G7", "H12", "A15"];
    const FOUR_THREE_O: [&str; 5] = ["C5", "D5", "E5", "F6", "F7"];

    #[test]
    fn a_move_that_allows_a_four_three_is_refused() {
        let mut b = Board::with_stones(Variant::Free, &FOUR_THREE_X, &FOUR_THREE_O);
        let (mut cache, mut table) = (Cache::new(), vct::Table::new());
        let mut d = defence(&mut cache, &mut table);
        let (f5, far) = (cell(&b, "F5"), cell(&b, "K12"));
        assert!(d.leaves_win(&mut b, far), "K12 ignores the four-three");
        assert!(!d.leaves_win(&mut b, f5), "F5 takes it");
        let roots: Vec<Cell> = search::candidates(&b).into_iter().map(|(c, _)| c).collect();
        assert!(roots.contains(&f5));
        let kept = d.refuse_losing(&mut b, roots.clone());
        assert!(kept.contains(&f5));
        assert!(kept.len() < roots.len(), "{kept:?}");
        // Every move kept leaves O no VCF or VCT (checked again with fresh tables).
        let (mut cache, mut table) = (Cache::new(), vct::Table::new());
        let mut fresh = defence(&mut cache, &mut table);
        for &c in &kept {
            assert!(!fresh.leaves_win(&mut b, c), "{}", b.square(c));
        }
    }

    #[test]
    fn a_four_that_only_delays_is_refused_too() {
        // X's closed three on row 10 (O on B10) gives X fours on F10 and G10; they do not
        // touch O's four-three on F5.
        let mut x = FOUR_THREE_X.to_vec();
        x.extend(["C10", "D10", "E10"]);
        let mut o = FOUR_THREE_O.to_vec();
        o.push("B10");
        let mut b = Board::with_stones(Variant::Free, &x, &o);
        let (mut cache, mut table) = (Cache::new(), vct::Table::new());
        let mut d = defence(&mut cache, &mut table);
        let (f10, f5) = (cell(&b, "F10"), cell(&b, "F5"));
        assert!(b.threat(f10, 0).is_four());
        assert!(d.leaves_win(&mut b, f10));
        assert!(!d.leaves_win(&mut b, f5));
    }

    #[test]
    fn when_every_move_loses_none_is_refused() {
        // Two four-threes of O's far apart: F5 as above, and M12 (J12 K12 L12 closed by X
        // on I12, M10 M11). One stone stops one of them.
        let mut x = FOUR_THREE_X.to_vec();
        x.push("I12");
        let mut o = FOUR_THREE_O.to_vec();
        o.extend(["J12", "K12", "L12", "M10", "M11"]);
        let mut b = Board::with_stones(Variant::Free, &x, &o);
        let (mut cache, mut table) = (Cache::new(), vct::Table::new());
        let mut d = defence(&mut cache, &mut table);
        for stop in ["F5", "M12"] {
            let at = cell(&b, stop);
            assert!(d.leaves_win(&mut b, at), "{stop}");
        }
        let roots: Vec<Cell> = search::candidates(&b).into_iter().map(|(c, _)| c).collect();
        assert_eq!(d.refuse_losing(&mut b, roots.clone()), roots);
    }

    #[test]
    fn no_threat_refuses_nothing() {
        let mut b = Board::with_stones(Variant::Free, &["H8", "I9"], &["H9", "G7"]);
        let (mut cache, mut table) = (Cache::new(), vct::Table::new());
        let mut d = defence(&mut cache, &mut table);
        let roots: Vec<Cell> = search::candidates(&b).into_iter().map(|(c, _)| c).collect();
        assert_eq!(d.refuse_losing(&mut b, roots.clone()), roots);
    }
}
