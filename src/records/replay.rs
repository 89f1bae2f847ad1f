//! Replaying a record through the rules: the line of play (take-backs applied), the
//! position before the first move and after each move, and the end as stored. A record
//! that no longer replays is an error naming the move, never a guess.

use serde::Serialize;
use serde_json::Value;

use super::{GameRecord, Record, line_of};
use crate::games::{AnyGame, MoveError, Outcome, Seat};

/// A game replayed: where it started, each move of its line with the position after it,
/// and the game as it ended.
#[derive(Debug, Clone)]
pub struct Replay<'a> {
    /// The view of the start position.
    pub start: Value,
    pub moves: Vec<ReplayedMove<'a>>,
    /// The game after its last move, with the stored result applied (a resignation or a
    /// flag ends a game the board did not end).
    pub end: AnyGame,
}

/// One move of the line and the position it left.
#[derive(Debug, Clone)]
pub struct ReplayedMove<'a> {
    /// The move's number in the line, from 1.
    pub number: u32,
    pub record: &'a Record,
    /// The move in its game's notation (`Rules::move_text`: `H8`, `b1xb3`, `step c2`,
    /// `Qxf7#`).
    pub text: String,
    /// The view after the move.
    pub view: Value,
}

/// A move of the line, as the records API lists it.
#[derive(Debug, Clone, Serialize)]
pub struct LineMove<'a> {
    /// The move's number in the line, from 1.
    pub number: u32,
    /// The record it comes from.
    pub ply: u32,
    pub seat: Seat,
    #[serde(rename = "move")]
    pub payload: &'a Value,
    pub clocks_ms: &'a Option<Vec<u64>>,
    /// The move in its game's notation (`H8`, `b1xb3`, `step c2`, `Qxf7#`).
    pub text: &'a str,
    /// The position after the move (the game's view, as in `moved` events).
    pub state: &'a Value,
}

/// A stored move the rules refuse on replay.
#[derive(Debug, thiserror::Error)]
#[error("record {ply} (seat {seat}) no longer replays: {error}")]
pub struct ReplayError {
    pub ply: u32,
    pub seat: Seat,
    pub error: MoveError,
}

/// Replays `record` from its table's settings (the start position among them), writing
/// each move in its game's notation.
pub fn replay(record: &GameRecord) -> Result<Replay<'_>, ReplayError> {
    let seed = crate::games::game_seed(&record.summary.table, record.summary.number);
    let mut game = record.settings.game.new_game_drawn(seed);
    let start = game.view();
    let line = line_of(&record.records, |r| r.takeback_to);
    let mut moves = Vec::with_capacity(line.len());
    for (index, mv) in line.into_iter().enumerate() {
        let (_, _, written) = game
            .play_json_written(mv.seat, &mv.payload)
            .map_err(|error| ReplayError {
                ply: mv.ply,
                seat: mv.seat,
                error,
            })?;
        moves.push(ReplayedMove {
            number: u32::try_from(index + 1).unwrap_or(u32::MAX),
            record: mv,
            text: written.text,
            view: game.view(),
        });
    }
    if game.outcome().is_none()
        && let Some(result) = &record.summary.result
    {
        game.finish(Outcome::from_stored(
            &result.outcome,
            &result.winners,
            &result.reason,
            result.detail.clone(),
        ));
    }
    Ok(Replay {
        start,
        moves,
        end: game,
    })
}

impl Replay<'_> {
    /// The line as the records API lists it.
    pub fn line(&self) -> Vec<LineMove<'_>> {
        self.moves
            .iter()
            .map(|mv| LineMove {
                text: &mv.text,
                number: mv.number,
                ply: mv.record.ply,
                seat: mv.record.seat,
                payload: &mv.record.payload,
                clocks_ms: &mv.record.clocks_ms,
                state: &mv.view,
            })
            .collect()
    }

    /// The final position's view.
    pub fn final_view(&self) -> Value {
        self.end.view()
    }
}
