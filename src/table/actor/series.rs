//! Game after game at one table: the series in play and its standings, the pause before
//! the next game of a series (cut short when every person is ready), rematches after a
//! series is decided, and "new game" at a casual table.
//!
//! Who plays which seat next ([`NextFirst`]): the sides swap seats (`alternate`: in
//! Bughouse each player keeps their board and partner and plays the other colour), the
//! loser takes seat 0 (`loser`; after a draw the sides swap), or a coin decides (`lot`).
//! Seat 0 moves first in every game, so the person who starts changes, never the rules.
//!
//! Agreements (rematch, new game) need every *person* seated at the table; bots always
//! agree.

use rand::Rng;
use serde_json::json;
use tokio::time::Instant;
use uuid::Uuid;

use super::seating::StartPlan;
use super::{Refusal, TIMER_RETRY, TableActor};
use crate::games::{EndReason, GameResult, Outcome, Seat};
use crate::protocol::{ErrorCode, SeriesView, ServerMsg, SideView};
use crate::series::{GameScore, NextFirst, Series, SeriesFormat, SeriesResult};
use crate::store::games::SeriesRecord;
use crate::table::msg::ConnId;
use crate::table::quota;
use crate::table::rotation::Plan;
use crate::table::seats::Seats;

/// The series in play (or last played) at the table.
#[derive(Debug, Clone)]
pub(super) struct SeriesState {
    pub(super) id: Uuid,
    /// 1 for the table's first series.
    pub(super) number: u32,
    pub(super) series: Series,
    /// Each side's names, as stored (`Anna`, `Anna & Bo`).
    pub(super) names: [String; 2],
}

/// Between two games: the pause of a series, who is ready, who wants a rematch.
#[derive(Debug, Default)]
pub(super) struct Interlude {
    /// When the next game of the series starts.
    pub(super) next_game_at: Option<Instant>,
    /// People who pressed ready during the pause.
    pub(super) ready: Vec<Seat>,
    /// Seats that agree to a rematch, the first one offered.
    pub(super) rematch: Vec<Seat>,
}

impl TableActor {
    /// The series as clients see it.
    pub(super) fn series_view(&self) -> Option<SeriesView> {
        let state = self.series.as_ref()?;
        let sides = self
            .current
            .as_ref()
            .map(|current| current.sides.as_slice())
            .unwrap_or(&[]);
        let result = state.series.result();
        let standings = (0..2u8)
            .map(|side| {
                let standing = state.series.standings[usize::from(side)];
                SideView {
                    side,
                    players: state.names[usize::from(side)].clone(),
                    seats: sides
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| **s == side)
                        .filter_map(|(seat, _)| Seat::try_from(seat).ok())
                        .collect(),
                    wins: standing.wins,
                    draws: standing.draws,
                    losses: standing.losses,
                    points: standing.points(),
                }
            })
            .collect();
        Some(SeriesView {
            format: state.series.format,
            number: state.number,
            game: state.series.games_started,
            standings,
            decided: result.is_some(),
            result: result.map(|result| match result {
                SeriesResult::Won { .. } => "win",
                SeriesResult::Tie => "tie",
            }),
            winner: match result {
                Some(SeriesResult::Won { side }) => Some(side),
                _ => None,
            },
        })
    }

    /// Whether the series in play is over (or there is none): seats may change, and the
    /// next game needs a rematch.
    pub(super) fn series_decided(&self) -> bool {
        self.series.as_ref().is_none_or(|state| state.series.is_decided())
    }

    /// The standings to store with a game that ends with `outcome`, and the series with
    /// the game counted.
    pub(super) fn series_after(&self, outcome: &Outcome) -> Option<(SeriesRecord, Series)> {
        let state = self.series.as_ref()?;
        let current = self.current.as_ref()?;
        let score = match &outcome.result {
            GameResult::Win { winners } => match winners.first().and_then(|seat| current.sides.get(usize::from(*seat)))
            {
                Some(side) => GameScore::Won { side: *side },
                None => GameScore::Aborted,
            },
            GameResult::Draw => GameScore::Drawn,
            GameResult::Aborted => GameScore::Aborted,
        };
        let mut series = state.series.clone();
        series.record(score);
        let record = SeriesRecord {
            id: state.id,
            standings: series.standings,
            result: series.result(),
        };
        Some((record, series))
    }

    /// After a game ended (stored, counted and announced): the series is over (a rotating
    /// table applies `next_seating`, stored with the result), or its next game is
    /// announced after the pause.
    pub(super) async fn after_game_over(&mut self, next_seating: Option<Box<Plan>>) {
        // The finished game's line stays for snapshots; the room kept for more moves goes.
        if let Some(current) = self.current.as_mut() {
            current.moves.shrink_to_fit();
        }
        self.interlude = Interlude::default();
        if self.series_decided() {
            if let Some(series) = self.series_view() {
                self.event(|version| ServerMsg::SeriesOver { version, series });
            }
            // A rotating table seats its next game and plays on by itself.
            if self.rotation.is_some() {
                self.rotate_after_game(next_seating);
            }
            return;
        }
        self.start_pause();
    }

    /// Starts the pause before the series' (or a rotating table's) next game, and
    /// announces it.
    pub(super) fn start_pause(&mut self) {
        self.pause_for(self.settings.series_pause);
    }

    /// The next game starts in `pause` (a series' pause, or a rotating table's wait for
    /// an away player or for the table's pace), announced.
    pub(super) fn pause_for(&mut self, pause: std::time::Duration) {
        self.interlude.next_game_at = Some(Instant::now() + pause);
        let game_number = self.current.as_ref().map_or(1, |current| current.number + 1);
        let ms = u64::try_from(pause.as_millis()).unwrap_or(u64::MAX);
        self.event(|version| ServerMsg::NextGameIn {
            version,
            game_number,
            ms,
        });
    }

    /// The seating of the next game with the same players, by the table's rule, and
    /// whether the players of each pair of seats swapped.
    fn next_seating(&self) -> (Seats, bool) {
        let mut seats = self.seats.clone();
        let swap = match self.settings.next_first {
            NextFirst::Alternate => true,
            NextFirst::Lot => rand::rng().random_bool(0.5),
            NextFirst::Loser => {
                let current = self.current.as_ref();
                let winners = current
                    .and_then(|current| current.game.outcome())
                    .map(|outcome| outcome.winners().to_vec())
                    .unwrap_or_default();
                // The loser starts: swap when seat 0 won; after a draw, alternate.
                winners.is_empty() || winners.contains(&0)
            }
        };
        if swap {
            seats.swap_pairs();
        }
        (seats, swap)
    }

    /// Whether no seated person is here (the computer's seats do not count).
    pub(super) fn no_player_here(&self) -> bool {
        self.seats
            .iter()
            .filter_map(|(_, holder)| holder)
            .filter(|holder| holder.key().is_some())
            .all(|holder| !self.is_present(holder))
    }

    /// The pause ran out: the next game starts, unless no seated person is here. Then the
    /// series waits one reconnect grace for one of them (`TableActor::waiting_for_players`),
    /// and when that too runs out with nobody back, it ends early, scored as it stands.
    pub(super) async fn pause_over(&mut self) {
        if self.rotation.is_some() {
            return Box::pin(self.rotation_pause_over()).await;
        }
        if !self.no_player_here() {
            self.waiting_for_players = false;
            self.start_next_game().await;
            return;
        }
        if !self.waiting_for_players {
            self.waiting_for_players = true;
            self.interlude.next_game_at = Some(Instant::now() + self.settings.grace);
            return;
        }
        self.end_series_early().await;
    }

    /// Ends the series in play early (its players are gone), stored first, and announces
    /// it as any decided series.
    pub(super) async fn end_series_early(&mut self) {
        let Some(state) = self.series.as_ref() else { return };
        let mut series = state.series.clone();
        let winner = match series.end_early() {
            SeriesResult::Won { side } => Some(side),
            SeriesResult::Tie => None,
        };
        if let Err(err) = self.store.end_series_early(state.id, winner).await {
            tracing::error!(table = %self.id, error = %err, "could not end a series its players left");
            self.interlude.next_game_at = Some(Instant::now() + TIMER_RETRY);
            return;
        }
        self.waiting_for_players = false;
        if let Some(state) = self.series.as_mut() {
            state.series = series;
        }
        if let Some(series) = self.series_view() {
            self.event(|version| ServerMsg::SeriesOver { version, series });
        }
    }

    /// A seated person came back to a series waiting for its players: the pause starts
    /// again, announced as after a game.
    pub(super) fn players_back(&mut self) {
        if !self.waiting_for_players || self.no_player_here() {
            return;
        }
        self.waiting_for_players = false;
        self.start_pause();
    }

    /// Starts the next game of the series in play (the pause ended or everyone is ready).
    pub(super) async fn start_next_game(&mut self) {
        if self.rotation.is_some() {
            return Box::pin(self.start_rotated_game()).await;
        }
        let (seats, swapped) = self.next_seating();
        match self.store_start(seats, StartPlan::Continue { swapped }).await {
            Ok(start) => {
                self.retry_at = None;
                self.begin_game(start);
                self.sync_presence();
            }
            Err(err) => {
                tracing::error!(table = %self.id, error = %err, "could not start the next game of a series");
                self.interlude.next_game_at = Some(Instant::now() + TIMER_RETRY);
            }
        }
    }

    /// Refuses a game started by agreement (a rematch, a new game, the seats filled again)
    /// when the table holds as many games as a table may, or has started its games too
    /// fast; otherwise counts the start against the table's pace.
    pub(super) fn check_game_start(&mut self) -> Result<(), Refusal> {
        let settings = self.limits.quotas;
        let held = self.current.as_ref().map_or(0, |current| current.number);
        if held >= settings.games_per_table {
            return Err(Refusal::new(
                ErrorCode::TableFull,
                format!(
                    "This table has held its {} games, as many as a table may: open a new table to play on.",
                    settings.games_per_table
                ),
            ));
        }
        quota::quotas(&mut self.quotas, &settings)
            .start_game()
            .map_err(|spent| {
                Refusal::new(
                    ErrorCode::TooManyGames,
                    format!(
                        "Games have started here too fast: the next may start in {} s.",
                        spent.seconds()
                    ),
                )
            })
    }

    /// Starts a new series with the same players (a rematch).
    async fn start_rematch(&mut self) -> Result<(), Refusal> {
        let (seats, _) = self.next_seating();
        let start = self
            .store_start(seats, StartPlan::NewSeries { shuffle: false })
            .await
            .map_err(Refusal::storage)?;
        self.begin_game(start);
        self.sync_presence();
        Ok(())
    }

    /// The seats people hold.
    fn people_seats(&self) -> Vec<Seat> {
        self.seats
            .iter()
            .filter(|(_, holder)| holder.is_some_and(|h| h.key().is_some()))
            .map(|(seat, _)| seat)
            .collect()
    }

    /// Whether every person's seat is among `agreed`.
    pub(super) fn everyone_agrees(&self, agreed: &[Seat]) -> bool {
        self.people_seats().iter().all(|seat| agreed.contains(seat))
    }

    pub(super) async fn ready(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        if self.interlude.next_game_at.is_none() {
            return Err(Refusal::new(
                ErrorCode::NoPause,
                "There is no pause before a game to cut short now.",
            ));
        }
        if !self.interlude.ready.contains(&seat) {
            self.interlude.ready.push(seat);
            self.event(|version| ServerMsg::Ready { version, seat });
        }
        if self.everyone_agrees(&self.interlude.ready.clone()) {
            self.interlude.next_game_at = None;
            self.start_next_game().await;
        }
        Ok(())
    }

    /// Refuses unless a rematch can be agreed now: the last game is over, its series
    /// decided, every seat taken.
    fn rematch_open(&self) -> Result<(), Refusal> {
        let finished = self
            .current
            .as_ref()
            .is_some_and(|current| current.game.outcome().is_some());
        if !finished {
            return Err(Refusal::new(ErrorCode::NoRematch, "A rematch is offered after a game."));
        }
        if !self.series_decided() {
            return Err(Refusal::new(
                ErrorCode::SeriesInProgress,
                "The series goes on: its next game starts by itself.",
            ));
        }
        if !self.seats.is_full() {
            return Err(Refusal::new(
                ErrorCode::NoRematch,
                "A seat is free: the next game starts when it is taken.",
            ));
        }
        Ok(())
    }

    pub(super) async fn offer_rematch(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.rematch_open()?;
        if !self.interlude.rematch.contains(&seat) {
            self.interlude.rematch.push(seat);
        }
        if self.everyone_agrees(&self.interlude.rematch.clone()) {
            self.check_game_start()?;
            self.interlude.rematch.clear();
            return self.start_rematch().await;
        }
        let agreed = self.interlude.rematch.clone();
        self.event(|version| ServerMsg::RematchOffered { version, seat, agreed });
        Ok(())
    }

    pub(super) fn decline_rematch(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        if self.interlude.rematch.iter().all(|other| *other == seat) {
            return Err(Refusal::new(ErrorCode::NoRematch, "Nobody else has offered a rematch."));
        }
        self.interlude.rematch.clear();
        self.event(|version| ServerMsg::RematchDeclined { version, seat });
        Ok(())
    }

    /// Whether "new game" may be agreed here: a casual table (unrated, single games).
    fn casual(&self) -> bool {
        !self.settings.rated && self.settings.series == SeriesFormat::Single
    }

    pub(super) async fn offer_new_game(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        if !self.casual() {
            return Err(Refusal::new(
                ErrorCode::NotCasual,
                "A new game can be agreed only at a casual table (unrated, single games); resign instead.",
            ));
        }
        let agreed = {
            let current = self.playing()?;
            let mut agreed = current.new_game_agreed.clone();
            if !agreed.contains(&seat) {
                agreed.push(seat);
            }
            agreed
        };
        if self.everyone_agrees(&agreed) {
            self.check_game_start()?;
            let aborted = Outcome {
                result: GameResult::Aborted,
                reason: EndReason::Aborted,
                detail: json!({"rule": "new_game"}),
            };
            // The aborted game counts for nothing: the (single-game) series goes on with
            // its next game, at once.
            self.close_game(aborted).await?;
            self.interlude = Interlude::default();
            self.start_next_game().await;
            return Ok(());
        }
        if let Some(current) = self.current.as_mut() {
            current.new_game_agreed = agreed.clone();
        }
        self.event(|version| ServerMsg::NewGameOffered { version, seat, agreed });
        Ok(())
    }

    pub(super) fn decline_new_game(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let current = self.playing()?;
        if current.new_game_agreed.iter().all(|other| *other == seat) {
            return Err(Refusal::new(
                ErrorCode::NoNewGameOffer,
                "Nobody else has asked for a new game.",
            ));
        }
        if let Some(current) = self.current.as_mut() {
            current.new_game_agreed.clear();
        }
        self.event(|version| ServerMsg::NewGameDeclined { version, seat });
        Ok(())
    }
}
