//! Lines of Action records as PGN-style text: the usual tag pairs (Black and White, the
//! start `Position` in the project's notation), then the moves in the rule page's
//! coordinates, black first: `1. b1-b3 a2xb3 2. …`, `x` for a capture, `pass` for a
//! forced pass. `1-0` means White won, `0-1` Black, as in PGN.

use serde_json::Value;

use super::GameRecord;
use super::export::{Tags, pgn_result, player_name, wrap};
use super::replay::{ReplayError, replay};
use crate::games::lines_of_action::LoaMove;

/// The record as PGN-style text.
pub fn pgn(record: &GameRecord, site: &str) -> Result<String, ReplayError> {
    let replay = replay(record)?;
    let mut tags = Tags::common(record, site);
    tags.add("Black", player_name(record, 0));
    tags.add("White", player_name(record, 1));
    // Seat 1 plays white: "1-0" is a white win.
    let result = pgn_result(record, &[1]);
    tags.add("Result", result);
    tags.add("Variant", "Lines of Action");
    if let Some(position) = replay.start["position"].as_str() {
        tags.add("Position", position);
    }
    tags.closing(record);

    let black_starts = replay.start["to_move"].as_str() != Some("white");
    let mut tokens = Vec::new();
    let mut before = &replay.start;
    for mv in &replay.moves {
        // Half-moves from the first, counting a white start as the second half of move 1.
        let half = mv.number - 1 + u32::from(!black_starts);
        let number = half / 2 + 1;
        if half % 2 == 0 {
            tokens.push(format!("{number}."));
        } else if mv.number == 1 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(written(&mv.record.payload, before));
        before = &mv.view;
    }
    tokens.push(result.to_owned());
    Ok(tags.finish() + &wrap(&tokens))
}

/// A move as written: `b1-b3`, `b1xb3` onto a piece, `pass`.
pub(super) fn written(payload: &Value, before: &Value) -> String {
    match serde_json::from_value::<LoaMove>(payload.clone()) {
        Ok(LoaMove::Step { from, to }) => {
            let occupied = before["board"]
                .get(usize::from(7 - to.row()))
                .and_then(Value::as_str)
                .and_then(|row| row.as_bytes().get(usize::from(to.col())))
                .is_some_and(|cell| *cell != b'.');
            format!("{from}{}{to}", if occupied { 'x' } else { '-' })
        }
        Ok(LoaMove::Pass) => "pass".into(),
        Err(_) => payload.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_move_onto_a_piece_is_written_as_a_capture() {
        // Row 8 first: a white piece on b3, nothing on c3.
        let before = json!({"board": ["........", "........", "........", "........", "........", ".w......", "........", ".b......"]});
        assert_eq!(written(&json!({"from": "b1", "to": "b3"}), &before), "b1xb3");
        assert_eq!(written(&json!({"from": "b1", "to": "c3"}), &before), "b1-c3");
        assert_eq!(written(&json!({"pass": true}), &before), "pass");
    }
}
