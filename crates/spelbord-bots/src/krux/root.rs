//! The turns a bot chooses from: every distinct way the current turn can end (the rules'
//! `turn_outcomes`), each with its parts and what it comes to — a win, a draw at the
//! boundary (repetition or the turn cap), or a position where the game goes on — and the
//! safety test: does the opponent's next piece have a winning turn after it?

use spelbord_games::krux::{Krux, KruxPosition, Part, can_win, turn_outcomes};
use spelbord_games::{EndReason, Rules};

/// What a turn comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// An opponent's piece falls into the hole.
    Won,
    /// The game is drawn at the boundary (repetition or the turn cap).
    Drawn,
    /// The game goes on from this position.
    Continues(KruxPosition),
}

/// One complete turn.
#[derive(Debug, Clone)]
pub struct Turn {
    pub parts: Vec<Part>,
    pub ending: Ending,
}

impl Turn {
    /// The position after the turn, if the game goes on.
    pub fn position(&self) -> Option<KruxPosition> {
        match self.ending {
            Ending::Continues(position) => Some(position),
            Ending::Won | Ending::Drawn => None,
        }
    }

    /// Whether the opponent's next piece could win at once after this turn.
    pub fn lets_opponent_win(&self) -> bool {
        self.position().is_some_and(|position| can_win(&position))
    }
}

/// Every distinct turn the piece in turn can play now (from the middle of a turn, the rest
/// of it), in the rules' fixed order.
pub fn turns(game: &Krux) -> Vec<Turn> {
    turn_outcomes(game)
        .into_iter()
        .map(|(parts, next)| {
            let ending = match next.outcome() {
                Some(outcome) if outcome.reason == EndReason::Hole => Ending::Won,
                Some(_) => Ending::Drawn,
                None => Ending::Continues(next.turn_start()),
            };
            Turn { parts, ending }
        })
        .collect()
}

/// The first winning turn, if any.
pub fn winning(turns: &[Turn]) -> Option<&Turn> {
    turns.iter().find(|turn| turn.ending == Ending::Won)
}
