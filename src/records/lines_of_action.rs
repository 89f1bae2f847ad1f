//! Lines of Action records as PGN-style text: the usual tag pairs (Black and White, the
//! start `Position` in the project's notation), then the moves in the rule page's
//! coordinates, black first: `1. b1-b3 a2xb3 2. …`, `x` for a capture, `pass` for a
//! forced pass. `1-0` means White won, `0-1` Black, as in PGN.

use super::GameRecord;
use super::export::{Tags, pgn_result, player_name, wrap};
use super::replay::{ReplayError, replay};

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
    for mv in &replay.moves {
        // Half-moves from the first, counting a white start as the second half of move 1.
        let half = mv.number - 1 + u32::from(!black_starts);
        let number = half / 2 + 1;
        if half % 2 == 0 {
            tokens.push(format!("{number}."));
        } else if mv.number == 1 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(mv.text.clone());
    }
    tokens.push(result.to_owned());
    Ok(tags.finish() + &wrap(&tokens))
}
