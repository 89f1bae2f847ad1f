//! Resigning hopeless positions, with the care lichess's bots take: a bot gives up only when
//! its own search has judged its position lost on several of its moves in a row, never in
//! the game's first moves, and never on a hunch.
//!
//! Each engine reports, with its move, how its search saw the position it moved from (an
//! [`Outlook`]): [`Outlook::Lost`] when the search's score is below the game's threshold,
//! [`Outlook::Proven`] when the search proved a forced loss (a mate, a VCF the bot cannot
//! stop, a winning reply to every turn), and [`Outlook::Unclear`] otherwise. Only the
//! searching strengths (medium and hard) report anything else than `Unclear`: easy and
//! random never resign. A [`Watch`] per seat counts the outlooks in a row and says when
//! the bot resigns, by the game's [`Rule`]; the table and the arena both keep one.
//!
//! Bughouse is special: a resignation ends the whole match, the partner's board included,
//! and pieces from that board can save a position the search sees as mated. There a bot
//! resigns only on a proven mate whose partner's board gives the team no hope (the engine
//! checks that before reporting [`Outlook::Proven`]), never on evaluation, and never for
//! a team a person plays on (the caller says so: [`Watch::resigns`]'s `person_on_team`).

use spelbord_games::GameKind;

/// How a bot's search saw the position it moved from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outlook {
    /// Playable, or nothing is known (easy and random always; a search out of time).
    #[default]
    Unclear,
    /// The search's score is below the game's threshold: clearly lost, not proven.
    Lost,
    /// The search proved a forced loss against its best defence.
    Proven,
}

/// When a game's bots resign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Own moves judged [`Outlook::Lost`] (or proven) in a row before resigning; `None`:
    /// an evaluation alone never resigns (Gomoku, whose engine only proves, and Bughouse).
    pub lost_in_a_row: Option<u32>,
    /// Own moves judged [`Outlook::Proven`] in a row before resigning.
    pub proven_in_a_row: u32,
    /// Never before the bot has played this many moves in the game.
    pub min_moves: u32,
}

/// The resignation rule of `kind`'s bots.
pub fn rule(kind: GameKind) -> Rule {
    match kind {
        GameKind::Gomoku => Rule {
            lost_in_a_row: None,
            proven_in_a_row: 2,
            min_moves: 5,
        },
        GameKind::LinesOfAction => Rule {
            lost_in_a_row: Some(4),
            proven_in_a_row: 2,
            min_moves: 10,
        },
        GameKind::Krux => Rule {
            lost_in_a_row: Some(4),
            proven_in_a_row: 2,
            min_moves: 6,
        },
        GameKind::Bughouse => Rule {
            lost_in_a_row: None,
            proven_in_a_row: 2,
            min_moves: 10,
        },
    }
}

/// One bot seat's count of losing outlooks in a row, in the game in play.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Watch {
    /// Answers in a row judged lost or proven lost.
    lost: u32,
    /// Answers in a row judged proven lost.
    proven: u32,
}

impl Watch {
    /// Counts the outlook of the bot's answer and says whether it resigns now instead of
    /// playing its move. `moves_played` counts the moves the seat played in this game
    /// before this one; `person_on_team` whether a person plays on the bot's team (only
    /// Bughouse has teams of several seats): then the bot never resigns.
    pub fn resigns(&mut self, kind: GameKind, outlook: Outlook, moves_played: u32, person_on_team: bool) -> bool {
        match outlook {
            Outlook::Unclear => *self = Watch::default(),
            Outlook::Lost => {
                self.lost += 1;
                self.proven = 0;
            }
            Outlook::Proven => {
                self.lost += 1;
                self.proven += 1;
            }
        }
        let rule = rule(kind);
        if person_on_team || moves_played < rule.min_moves {
            return false;
        }
        self.proven >= rule.proven_in_a_row || rule.lost_in_a_row.is_some_and(|n| self.lost >= n)
    }

    /// Forgets the count (a new game, a take-back).
    pub fn reset(&mut self) {
        *self = Watch::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `outlooks` as the seat's moves from `first_move` on; the index of the answer
    /// that resigned, if any.
    fn resigned_at(kind: GameKind, outlooks: &[Outlook], first_move: u32, person_on_team: bool) -> Option<usize> {
        let mut watch = Watch::default();
        outlooks
            .iter()
            .enumerate()
            .position(|(i, &outlook)| watch.resigns(kind, outlook, first_move + i as u32, person_on_team))
    }

    #[test]
    fn lost_evaluations_resign_after_n_in_a_row() {
        let lost = [Outlook::Lost; 6];
        assert_eq!(resigned_at(GameKind::LinesOfAction, &lost, 20, false), Some(3));
        assert_eq!(resigned_at(GameKind::Krux, &lost, 20, false), Some(3));
        // An unclear answer on the way starts the count again.
        let broken = [
            Outlook::Lost,
            Outlook::Lost,
            Outlook::Lost,
            Outlook::Unclear,
            Outlook::Lost,
            Outlook::Lost,
            Outlook::Lost,
        ];
        assert_eq!(resigned_at(GameKind::LinesOfAction, &broken, 20, false), None);
    }

    #[test]
    fn proven_losses_resign_sooner() {
        let proven = [Outlook::Proven; 3];
        for kind in GameKind::ALL {
            assert_eq!(resigned_at(*kind, &proven, 20, false), Some(1), "{kind:?}");
        }
        // A proven loss after lost evaluations counts towards both.
        let mixed = [Outlook::Lost, Outlook::Lost, Outlook::Lost, Outlook::Proven];
        assert_eq!(resigned_at(GameKind::Krux, &mixed, 20, false), Some(3));
    }

    #[test]
    fn evaluations_alone_never_resign_gomoku_or_bughouse() {
        let lost = [Outlook::Lost; 30];
        assert_eq!(resigned_at(GameKind::Gomoku, &lost, 20, false), None);
        assert_eq!(resigned_at(GameKind::Bughouse, &lost, 20, false), None);
    }

    #[test]
    fn never_in_the_first_moves() {
        let proven = [Outlook::Proven; 12];
        // Krux: the count starts at once, the resignation waits for the sixth own move.
        assert_eq!(resigned_at(GameKind::Krux, &proven, 0, false), Some(6));
        assert_eq!(resigned_at(GameKind::LinesOfAction, &proven, 0, false), Some(10));
    }

    #[test]
    fn never_for_a_team_with_a_person() {
        let proven = [Outlook::Proven; 12];
        assert_eq!(resigned_at(GameKind::Bughouse, &proven, 20, true), None);
        assert_eq!(resigned_at(GameKind::Bughouse, &proven, 20, false), Some(1));
    }
}

#[cfg(test)]
mod cases;
