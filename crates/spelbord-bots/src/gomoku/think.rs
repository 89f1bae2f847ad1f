//! Medium and Hard at the root: the forced tactics first, then (Hard) a VCF of its own and
//! a defence against the opponent's VCF, a little variety in the opening, and the
//! iterative-deepening search within the time budget.

use std::time::{Duration, Instant};

use rand::Rng;

use super::board::{Board, Cell};
use super::pattern::Threat;
use super::search::{self, Config, Search};
use super::vcf::{self, Cache};
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
    /// How many of the best-ordered root moves are searched.
    pub root_width: usize,
}

/// Medium: a shallow search, no VCF.
pub const MEDIUM: Level = Level {
    search: Config {
        max_depth: 3,
        width: 10,
        leaf_vcf: None,
    },
    root_vcf: None,
    vcf_defence: false,
    root_width: 16,
};

/// Hard: deep search with VCF at the root, at the leaves, and in defence.
pub const HARD: Level = Level {
    search: Config {
        max_depth: 30,
        width: 10,
        leaf_vcf: Some(vcf::Limits { fours: 8, nodes: 400 }),
    },
    root_vcf: Some(vcf::Limits {
        fours: 30,
        nodes: 300_000,
    }),
    vcf_defence: true,
    root_width: 16,
};

/// The share of the budget after which no new iteration starts.
const SOFT_SHARE: f64 = 0.45;
/// The share of the budget the root VCF searches may use.
const VCF_SHARE: f64 = 0.2;

/// The opening moves (stones on the board before them) that are picked at random among
/// the nearly best squares next to a stone, so that games differ.
const VARIED_OPENING: usize = 3;

/// The move of a searching strength on `board` (`None` only on a full board).
pub fn choose(board: &mut Board, level: &Level, ctx: &Context) -> Option<Cell> {
    let start = Instant::now();
    if let Some(cell) = tactics::forced(board) {
        return Some(cell);
    }
    if ctx.deadline <= start {
        return tactics::quick(board);
    }
    let budget = ctx.deadline - start;
    let deadline = ctx.deadline - (budget / 10).min(Duration::from_millis(20));
    let soft_stop = start + budget.mul_f64(SOFT_SHARE);
    let vcf_deadline = start + budget.mul_f64(VCF_SHARE);
    let us = board.to_move();
    let mut cache = Cache::new();

    if let Some(limits) = level.root_vcf
        && board.count_from(us, Threat::Block4) > 0
        && let Some(win) = vcf::find(board, &mut cache, limits, vcf_deadline)
    {
        return Some(win.first);
    }

    let mut roots = search::candidates(board);
    roots.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if board.stone_count() < VARIED_OPENING
        && let Some(&(_, top)) = roots.first()
    {
        let close: Vec<Cell> = roots
            .iter()
            .filter(|&&(cell, score)| score * 10 >= top * 9 && board.touches_stone(cell))
            .map(|&(cell, _)| cell)
            .collect();
        return close.get(ctx.rng().random_range(0..close.len().max(1))).copied();
    }
    let mut roots: Vec<Cell> = roots.into_iter().map(|(cell, _)| cell).collect();

    if level.vcf_defence
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
    let found =
        tt::with_table(|table| Search::new(board, table, &mut cache, level.search, deadline).run(&roots, soft_stop));
    if let Some(f) = found {
        tracing::debug!(depth = f.depth, score = f.score, nodes = f.nodes, "gomoku search");
    }
    found.map(|f| f.best).or_else(|| tactics::quick(board))
}
