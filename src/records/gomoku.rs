//! Gomoku records: a move list in the rule page's coordinates (columns `A`–`O`, rows `1`
//! at the bottom), and Piskvork's `.psq`, which Gomoku programs of the Gomocup family
//! read: a first line `Piskvorky 15x15, 11:11, 0`, then a line `x,y,ms` per stone, `x`
//! the column from 1 at the left, `y` the row from 1 **at the top**, `ms` the time since
//! the previous stone in milliseconds (0 for the first).

use super::GameRecord;
use super::export::{Tags, pgn_result, player_name, wrap};
use super::replay::{ReplayError, replay};
use crate::games::AnySettings;
use crate::games::gomoku::GomokuMove;

/// The move list: a header of tag pairs, then `1. H8 H9 2. …` and the result.
pub fn text(record: &GameRecord, site: &str) -> Result<String, ReplayError> {
    let replay = replay(record)?;
    let mut tags = Tags::common(record, site);
    tags.add("X", player_name(record, 0));
    tags.add("O", player_name(record, 1));
    let result = pgn_result(record, &[0]);
    tags.add("Result", result);
    tags.add("BoardSize", board_size(record).to_string());
    tags.closing(record);
    let mut tokens = Vec::new();
    for mv in &replay.moves {
        if mv.number % 2 == 1 {
            tokens.push(format!("{}.", mv.number.div_ceil(2)));
        }
        tokens.push(mv.text.clone());
    }
    tokens.push(result.to_owned());
    Ok(tags.finish() + &wrap(&tokens))
}

/// The Piskvork record (see the module doc).
pub fn psq(record: &GameRecord) -> Result<String, ReplayError> {
    let replay = replay(record)?;
    let size = board_size(record);
    let mut out = format!("Piskvorky {size}x{size}, 11:11, 0\n");
    let mut previous = None;
    for mv in &replay.moves {
        let Ok(GomokuMove { at }) = serde_json::from_value::<GomokuMove>(mv.record.payload.clone()) else {
            continue;
        };
        let ms = previous.map_or(0, |before: time::OffsetDateTime| {
            (mv.record.played_at - before).whole_milliseconds().max(0)
        });
        previous = Some(mv.record.played_at);
        let x = u16::from(at.col()) + 1;
        let y = u16::from(size) - u16::from(at.row());
        out.push_str(&format!("{x},{y},{ms}\n"));
    }
    Ok(out)
}

fn board_size(record: &GameRecord) -> u8 {
    match &record.settings.game {
        AnySettings::Gomoku(settings) => settings.board_size,
        _ => 15,
    }
}
