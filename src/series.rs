//! Match series: the formats, the standings, and when a series is decided. Pure code, no
//! I/O; the table actor owns one [`Series`] beside its game (see `actor/series.rs`).
//!
//! A series is played between two **sides**: the two players of a two-player game, or the
//! two teams of Bughouse. Side 0 is the side that held seat 0 (the first team) in the
//! series' first game; the sides keep their numbers when they swap seats between games.
//!
//! Formats (the table setting `series`):
//! - `single`: one game (the default); a rematch starts a new series.
//! - `best_of_3`, `best_of_5`: at most 3 (5) counted games; decided as soon as the leader
//!   in wins cannot be caught by the games left (2–0 in a best of three), otherwise after
//!   the last game by wins (a tie when equal: draws make that possible).
//! - `first_to_3`: the first side to win three games; draws do not count.
//! - `ten_games`: ten games compared on points (win 3, draw 1, loss 0), decided as soon as
//!   the leader cannot be caught; a tie on points after ten games is a tie.
//!
//! Games with no result (aborted: nobody moved before a player left, or a "new game" agreed
//! at a casual table) count for nothing and are not among the games of a format.
//!
//! A series its players have left (nobody seated came back for a reconnect grace after a
//! pause) **ends early, scored as it stands**: the side ahead on the format's measure (wins;
//! points in `ten_games`) wins it, equal standings are a tie ([`Series::end_early`]).

use serde::Serialize;

/// Points for a win, a draw and a loss.
pub const WIN_POINTS: u32 = 3;
pub const DRAW_POINTS: u32 = 1;

/// How a series is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesFormat {
    Single,
    #[serde(rename = "best_of_3")]
    BestOf3,
    #[serde(rename = "best_of_5")]
    BestOf5,
    #[serde(rename = "first_to_3")]
    FirstTo3,
    TenGames,
}

impl SeriesFormat {
    pub const NAMES: &'static [&'static str] = &["single", "best_of_3", "best_of_5", "first_to_3", "ten_games"];

    pub fn id(self) -> &'static str {
        match self {
            SeriesFormat::Single => "single",
            SeriesFormat::BestOf3 => "best_of_3",
            SeriesFormat::BestOf5 => "best_of_5",
            SeriesFormat::FirstTo3 => "first_to_3",
            SeriesFormat::TenGames => "ten_games",
        }
    }

    pub fn from_id(id: &str) -> Option<SeriesFormat> {
        [
            SeriesFormat::Single,
            SeriesFormat::BestOf3,
            SeriesFormat::BestOf5,
            SeriesFormat::FirstTo3,
            SeriesFormat::TenGames,
        ]
        .into_iter()
        .find(|format| format.id() == id)
    }

    /// The most counted games the format plays, if it has a limit.
    fn game_limit(self) -> Option<u32> {
        match self {
            SeriesFormat::Single => Some(1),
            SeriesFormat::BestOf3 => Some(3),
            SeriesFormat::BestOf5 => Some(5),
            SeriesFormat::FirstTo3 => None,
            SeriesFormat::TenGames => Some(10),
        }
    }
}

/// Who starts the next game of a series or a rematch (plays seat 0, which moves first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextFirst {
    /// The sides swap seats every game (the default).
    Alternate,
    /// The side that lost the last game starts; after a draw the sides swap.
    Loser,
    /// Drawn by lot every game.
    Lot,
}

impl NextFirst {
    pub const NAMES: &'static [&'static str] = &["alternate", "loser", "lot"];

    pub fn id(self) -> &'static str {
        match self {
            NextFirst::Alternate => "alternate",
            NextFirst::Loser => "loser",
            NextFirst::Lot => "lot",
        }
    }
}

/// One side's record in a series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Standing {
    pub fn points(&self) -> u32 {
        self.wins * WIN_POINTS + self.draws * DRAW_POINTS
    }

    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
}

/// How one game came out, by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameScore {
    Won {
        side: u8,
    },
    Drawn,
    /// No result: counts for nothing.
    Aborted,
}

/// How a decided series came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesResult {
    Won { side: u8 },
    Tie,
}

/// A series in progress or decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    pub format: SeriesFormat,
    /// Sides 0 and 1.
    pub standings: [Standing; 2],
    /// Games started in the series (aborted ones included).
    pub games_started: u32,
    /// Ended before it was decided (its players left): scored as it stands.
    pub ended_early: bool,
}

impl Series {
    pub fn new(format: SeriesFormat) -> Series {
        Series {
            format,
            standings: [Standing::default(); 2],
            games_started: 0,
            ended_early: false,
        }
    }

    /// Ends the series before it is decided, scored as it stands; its result.
    pub fn end_early(&mut self) -> SeriesResult {
        self.ended_early = true;
        self.result().unwrap_or(SeriesResult::Tie)
    }

    /// Counts a finished game.
    pub fn record(&mut self, score: GameScore) {
        match score {
            GameScore::Won { side } => {
                let loser = 1 - side.min(1);
                self.standings[usize::from(side.min(1))].wins += 1;
                self.standings[usize::from(loser)].losses += 1;
            }
            GameScore::Drawn => {
                self.standings[0].draws += 1;
                self.standings[1].draws += 1;
            }
            GameScore::Aborted => {}
        }
    }

    /// Counted games (those with a result).
    pub fn counted(&self) -> u32 {
        self.standings[0].games()
    }

    /// The result, once the series is decided.
    pub fn result(&self) -> Option<SeriesResult> {
        let [a, b] = self.standings;
        let leader = |a: u32, b: u32| match a.cmp(&b) {
            std::cmp::Ordering::Greater => SeriesResult::Won { side: 0 },
            std::cmp::Ordering::Less => SeriesResult::Won { side: 1 },
            std::cmp::Ordering::Equal => SeriesResult::Tie,
        };
        if self.ended_early {
            return Some(match self.format {
                SeriesFormat::TenGames => leader(a.points(), b.points()),
                _ => leader(a.wins, b.wins),
            });
        }
        match self.format {
            SeriesFormat::FirstTo3 => (a.wins >= 3 || b.wins >= 3).then(|| leader(a.wins, b.wins)),
            SeriesFormat::TenGames => {
                let left = self.games_left().unwrap_or(0) * WIN_POINTS;
                let (pa, pb) = (a.points(), b.points());
                (pa > pb + left || pb > pa + left || left == 0).then(|| leader(pa, pb))
            }
            SeriesFormat::Single | SeriesFormat::BestOf3 | SeriesFormat::BestOf5 => {
                let left = self.games_left().unwrap_or(0);
                (a.wins > b.wins + left || b.wins > a.wins + left || left == 0).then(|| leader(a.wins, b.wins))
            }
        }
    }

    pub fn is_decided(&self) -> bool {
        self.result().is_some()
    }

    /// Counted games still to play at most (formats with a limit).
    fn games_left(&self) -> Option<u32> {
        self.format
            .game_limit()
            .map(|limit| limit.saturating_sub(self.counted()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: GameScore = GameScore::Won { side: 0 };
    const B: GameScore = GameScore::Won { side: 1 };
    const D: GameScore = GameScore::Drawn;
    const X: GameScore = GameScore::Aborted;

    #[test]
    fn a_series_ended_early_is_scored_as_it_stands() {
        let cases = [
            (SeriesFormat::BestOf3, vec![A], SeriesResult::Won { side: 0 }),
            (SeriesFormat::BestOf5, vec![A, B, B], SeriesResult::Won { side: 1 }),
            (SeriesFormat::FirstTo3, vec![A, B], SeriesResult::Tie),
            (SeriesFormat::BestOf3, vec![], SeriesResult::Tie),
            (SeriesFormat::Single, vec![X, X], SeriesResult::Tie),
            // Ten games by points: a win and two draws (5) against two draws (2).
            (SeriesFormat::TenGames, vec![D, D, B], SeriesResult::Won { side: 1 }),
            (SeriesFormat::TenGames, vec![D], SeriesResult::Tie),
        ];
        for (format, games, expected) in cases {
            let mut series = play(format, &games);
            assert!(!series.is_decided(), "{format:?} {games:?}");
            assert_eq!(series.end_early(), expected, "{format:?} {games:?}");
            assert!(series.is_decided());
            assert_eq!(series.result(), Some(expected));
        }
    }

    fn play(format: SeriesFormat, games: &[GameScore]) -> Series {
        let mut series = Series::new(format);
        for (index, game) in games.iter().enumerate() {
            assert!(!series.is_decided(), "game {index} after the series was decided");
            series.games_started += 1;
            series.record(*game);
        }
        series
    }

    fn won(side: u8) -> Option<SeriesResult> {
        Some(SeriesResult::Won { side })
    }

    #[test]
    fn wire_names_are_the_setting_names() {
        for name in SeriesFormat::NAMES {
            let format = SeriesFormat::from_id(name).unwrap();
            assert_eq!(serde_json::to_value(format).unwrap(), *name);
        }
    }

    #[test]
    fn single_game() {
        assert_eq!(play(SeriesFormat::Single, &[A]).result(), won(0));
        assert_eq!(play(SeriesFormat::Single, &[D]).result(), Some(SeriesResult::Tie));
        assert_eq!(
            play(SeriesFormat::Single, &[X]).result(),
            None,
            "an aborted game counts for nothing"
        );
        assert_eq!(play(SeriesFormat::Single, &[X, B]).result(), won(1));
    }

    #[test]
    fn best_of_three_ends_early_at_two_nil() {
        assert_eq!(play(SeriesFormat::BestOf3, &[A, A]).result(), won(0));
        assert_eq!(play(SeriesFormat::BestOf3, &[A]).result(), None);
        assert_eq!(play(SeriesFormat::BestOf3, &[A, B]).result(), None);
        assert_eq!(play(SeriesFormat::BestOf3, &[A, B, B]).result(), won(1));
        // A draw leaves a game to play; after three counted games wins decide, or tie.
        assert_eq!(play(SeriesFormat::BestOf3, &[A, D]).result(), None);
        assert_eq!(play(SeriesFormat::BestOf3, &[A, D, D]).result(), won(0));
        assert_eq!(
            play(SeriesFormat::BestOf3, &[A, D, B]).result(),
            Some(SeriesResult::Tie)
        );
        assert_eq!(
            play(SeriesFormat::BestOf3, &[D, D, D]).result(),
            Some(SeriesResult::Tie)
        );
    }

    #[test]
    fn best_of_five() {
        assert_eq!(play(SeriesFormat::BestOf5, &[A, A, A]).result(), won(0));
        assert_eq!(play(SeriesFormat::BestOf5, &[A, A, B, B]).result(), None);
        assert_eq!(play(SeriesFormat::BestOf5, &[A, A, B, B, B]).result(), won(1));
        assert_eq!(play(SeriesFormat::BestOf5, &[A, D, D, D]).result(), None);
        assert_eq!(
            play(SeriesFormat::BestOf5, &[A, A, D, D]).result(),
            won(0),
            "2-0 with one game left"
        );
    }

    #[test]
    fn first_to_three_ignores_draws() {
        assert_eq!(play(SeriesFormat::FirstTo3, &[A, D, D, D, D, A, B]).result(), None);
        let series = play(SeriesFormat::FirstTo3, &[A, D, B, A, B, D, B]);
        assert_eq!(series.result(), won(1));
        assert_eq!(
            series.standings[1],
            Standing {
                wins: 3,
                draws: 2,
                losses: 2
            }
        );
    }

    #[test]
    fn ten_games_on_points_ends_when_the_leader_cannot_be_caught() {
        // 6 wins: 18 points against 0 with 4 games (12 points) left.
        assert_eq!(play(SeriesFormat::TenGames, &[A; 6]).result(), won(0));
        assert_eq!(play(SeriesFormat::TenGames, &[A; 5]).result(), None);
        let series = play(SeriesFormat::TenGames, &[A, B, D, D, A, B, D, D, A, B]);
        assert_eq!(series.standings[0].points(), series.standings[1].points());
        assert_eq!(series.result(), Some(SeriesResult::Tie));
        assert_eq!(
            play(SeriesFormat::TenGames, &[A, B, D, D, A, B, D, D, A, D]).result(),
            won(0)
        );
    }

    #[test]
    fn points_are_three_one_nil() {
        let series = play(SeriesFormat::TenGames, &[A, D, B, A]);
        assert_eq!(series.standings[0].points(), 7);
        assert_eq!(series.standings[1].points(), 4);
        assert_eq!(series.counted(), 4);
    }

    proptest::proptest! {
        /// Whatever the games, a series is decided no later than its format allows, and a
        /// decided winner leads.
        #[test]
        fn decided_in_time_and_the_winner_leads(games in proptest::collection::vec(0u8..4, 0..40)) {
            for format in [SeriesFormat::Single, SeriesFormat::BestOf3, SeriesFormat::BestOf5, SeriesFormat::TenGames] {
                let mut series = Series::new(format);
                for game in &games {
                    if series.is_decided() { break; }
                    series.record(match game { 0 => A, 1 => B, 2 => D, _ => X });
                }
                let limit = format.game_limit().unwrap_or(u32::MAX);
                proptest::prop_assert!(series.counted() <= limit);
                if series.counted() == limit {
                    proptest::prop_assert!(series.is_decided());
                }
                if let Some(SeriesResult::Won { side }) = series.result() {
                    let (me, other) = (series.standings[usize::from(side)], series.standings[usize::from(1 - side)]);
                    if format == SeriesFormat::TenGames {
                        proptest::prop_assert!(me.points() > other.points());
                    } else {
                        proptest::prop_assert!(me.wins > other.wins);
                    }
                }
            }
        }
    }
}
