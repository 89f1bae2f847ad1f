//! Whether the Gomoku bot is lost beyond doubt, for resigning ([`crate::resign`]). Gomoku's
//! search scores are not a measure of how lost a side is, so this engine only ever reports
//! a proof ([`Outlook::Proven`]):
//!
//! - **Medium and Hard**: the opponent has a five the bot cannot stop (two fives to
//!   complete, or an open four, while the bot has no five of its own: [`tactics::clearly_lost`]).
//! - **Hard** besides: the opponent has a VCF that every move of the bot near the stones
//!   leaves standing. A move that makes a four of the bot's own is followed through its
//!   forced answer (a few fours deep); a move the proof cannot follow is hope.
//!
//! The proof runs before the move is chosen, only when the opponent would have a VCF if
//! it were its turn, and takes at most a fifth of the budget: out of time, nothing is
//! concluded.

use std::time::Instant;

use super::board::Board;
use super::pattern::Threat;
use super::tactics;
use super::vcf::{self, Cache, Limits};
use crate::{Outlook, Strength};

/// Each VCF search of the proof: deep enough for real attacks, bounded per move.
const LIMITS: Limits = Limits {
    fours: 20,
    nodes: 30_000,
};

/// How many of the bot's own fours the proof follows (each answered by its forced block).
const OWN_FOURS: u32 = 3;

/// How the side to move on `board` stands, judged by `strength` by `deadline`.
pub fn judge(board: &mut Board, strength: Strength, deadline: Instant) -> Outlook {
    let us = board.to_move();
    if strength < Strength::Medium {
        return Outlook::Unclear;
    }
    if tactics::clearly_lost(board, us) {
        return Outlook::Proven;
    }
    if strength < Strength::Hard || board.five_cell(us).is_some() {
        return Outlook::Unclear;
    }
    let mut cache = Cache::new();
    if !vcf::threatened(board, &mut cache, LIMITS, deadline) {
        return Outlook::Unclear;
    }
    match every_move_loses(board, &mut cache, deadline, OWN_FOURS) {
        Some(true) => Outlook::Proven,
        Some(false) | None => Outlook::Unclear,
    }
}

/// Whether every move of the side to move near the stones loses to a five or a VCF of the
/// opponent; `None` when the deadline came first.
fn every_move_loses(board: &mut Board, cache: &mut Cache, deadline: Instant, own_fours: u32) -> Option<bool> {
    let us = board.to_move();
    let them = 1 - us;
    if board.five_cell(us).is_some() {
        return Some(false);
    }
    // A five of theirs to block leaves one move; otherwise every square near the stones.
    let moves = match board.five_cell(them) {
        Some(block) => vec![block],
        None => board.candidates(),
    };
    for cell in moves {
        if Instant::now() >= deadline {
            return None;
        }
        let four = board.threat(cell, us).is_four();
        board.play(cell);
        let lost = if !four {
            // Their move: a VCF found is a forced win.
            Some(vcf::find(board, cache, LIMITS, deadline).is_some())
        } else if board.five_cell(them).is_some() {
            // They complete a five before answering ours.
            Some(true)
        } else if board.count(us, Threat::Five) >= 2 || own_fours == 0 {
            // An open four of ours, or deeper than the proof follows: not lost.
            Some(false)
        } else {
            match board.five_cell(us) {
                Some(block) => {
                    board.play(block);
                    let after = every_move_loses(board, cache, deadline, own_fours - 1);
                    board.undo();
                    after
                }
                None => Some(false),
            }
        };
        board.undo();
        if lost != Some(true) {
            return lost.map(|_| false);
        }
    }
    Some(true)
}
