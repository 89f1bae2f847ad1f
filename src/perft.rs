//! `spelbord perft GAME --depth N [--position P]`: move-generation counts for checking the
//! rules against known figures and for measuring them.
//!
//! - Lines of Action: the number of move sequences of length N (a pass is a move; see
//!   `docs/rules/lines-of-action.md`).
//! - Krux: the number of distinct positions reachable in N complete turns, each counted
//!   once however many part orders reach it (see `docs/rules/krux.md`).
//! - Bughouse: one board's count of move sequences, in which captured pieces leave the
//!   board (pockets change only by drops; see `docs/rules/bughouse.md`). The position is
//!   a FEN with a `[pocket]`.

use crate::games::bughouse;
use crate::games::krux::{self, Krux};
use crate::games::lines_of_action::{self, LinesOfAction};
use crate::games::{GameKind, Rules};

/// The chess start with empty pockets.
const BUGHOUSE_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";

/// A perft request that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum PerftError {
    #[error("invalid position: {0}")]
    Position(String),
    #[error("perft is not defined for {0}")]
    Unsupported(&'static str),
}

/// Counts for `game` from `position` (or the standard start) to `depth`.
pub fn perft(game: GameKind, depth: u32, position: Option<&str>) -> Result<u64, PerftError> {
    match game {
        GameKind::LinesOfAction => {
            let start = match position {
                Some(text) => {
                    LinesOfAction::from_position(text).map_err(|err| PerftError::Position(err.to_string()))?
                }
                None => LinesOfAction::new(&Default::default()),
            };
            Ok(lines_of_action::perft(&start, depth))
        }
        GameKind::Krux => {
            let start = match position {
                Some(text) => Krux::from_position(text).map_err(|err| PerftError::Position(err.to_string()))?,
                None => Krux::new(&Default::default()),
            };
            Ok(krux::perft(&start, depth))
        }
        GameKind::Bughouse => {
            let fen = position.unwrap_or(BUGHOUSE_START);
            bughouse::perft(fen, depth).map_err(|err| PerftError::Position(err.to_string()))
        }
        GameKind::Gomoku => Err(PerftError::Unsupported("gomoku")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts_from_the_start() {
        assert_eq!(perft(GameKind::LinesOfAction, 1, None).unwrap(), 36);
        assert_eq!(perft(GameKind::Krux, 1, None).unwrap(), 2132);
        assert_eq!(perft(GameKind::LinesOfAction, 0, None).unwrap(), 1);
        assert_eq!(perft(GameKind::Bughouse, 3, None).unwrap(), 8902);
    }

    #[test]
    fn a_bad_position_is_an_error_naming_the_problem() {
        let err = perft(GameKind::LinesOfAction, 1, Some("bbbb")).unwrap_err();
        assert!(matches!(err, PerftError::Position(_)), "{err}");
        assert!(perft(GameKind::Krux, 1, Some("1z9 / 1")).is_err());
        assert!(perft(GameKind::Gomoku, 1, None).is_err());
    }
}
