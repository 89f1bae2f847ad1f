//! Krux records, turn by turn: the tag pairs (White and Black, the start `Position` in the
//! position notation), then one line per turn, `7. white 1: ring blue, step c2, push e7,
//! end`: the turn's number, the side, the piece in turn, and its parts in the order
//! played, each as its kind and its square (or ring). A turn sent whole and a turn sent
//! part by part read the same. A game that ended inside a turn (a piece in the hole)
//! shows that turn up to the part that ended it. Then the result, `1-0` a white win.

use serde_json::Value;

use super::GameRecord;
use super::export::{Tags, pgn_result, player_name};
use super::replay::{ReplayError, replay};

/// The record as turn-by-turn text.
pub fn text(record: &GameRecord, site: &str) -> Result<String, ReplayError> {
    let replay = replay(record)?;
    let mut tags = Tags::common(record, site);
    tags.add("White", player_name(record, 0));
    tags.add("Black", player_name(record, 1));
    let result = pgn_result(record, &[0]);
    tags.add("Result", result);
    if let Some(position) = replay.start["position"].as_str() {
        tags.add("Position", position);
    }
    tags.closing(record);

    let mut out = tags.finish();
    let mut turn_start = &replay.start;
    let mut parts: Vec<String> = Vec::new();
    for mv in &replay.moves {
        parts.push(mv.text.clone());
        let turn_ended = mv.view["turn_number"] != turn_start["turn_number"] || mv.view["to_move"].is_null();
        if turn_ended {
            out.push_str(&turn_line(turn_start, &parts));
            parts.clear();
            turn_start = &mv.view;
        }
    }
    if !parts.is_empty() {
        out.push_str(&turn_line(turn_start, &parts));
    }
    out.push_str(result);
    out.push('\n');
    Ok(out)
}

/// `7. white 1: step c2, end` for the turn that began at `start`.
fn turn_line(start: &Value, parts: &[String]) -> String {
    let number = start["turn_number"].as_u64().unwrap_or(0);
    let side = start["to_move"].as_str().unwrap_or("?");
    let piece = start["piece_in_turn"].as_u64().unwrap_or(0);
    format!("{number}. {side} {piece}: {}\n", parts.join(", "))
}
