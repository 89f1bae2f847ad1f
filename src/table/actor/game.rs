//! The game in progress: moves (checked, stored, then applied and announced), the end of
//! the game, resignation, and the timers (flags, graces, idleness) the actor sleeps on.
//!
//! At a rated table a game that ends outside its rules (a resignation, an agreed draw, a
//! flag, an absence) before every seat has played two turns is aborted instead
//! ([`crate::ratings::limits`], docs/ratings.md): [`TableActor::close_game`] decides it,
//! for every such end.

use super::*;
use crate::protocol::RatingChangeView;
use crate::ratings::{Unrated, limits};
use crate::series::Series;
use crate::store::games::SeriesRecord;
use crate::table::clock::ClockView;
use crate::table::rotation::Plan;

impl TableActor {
    /// The game in progress, or the refusal that explains why there is none.
    pub(super) fn playing(&self) -> Result<&CurrentGame, Refusal> {
        match &self.current {
            None => Err(Refusal::new(
                ErrorCode::GameNotStarted,
                "The game starts when every seat is taken.",
            )),
            Some(current) if current.game.outcome().is_some() => {
                Err(Refusal::new(ErrorCode::GameOver, "The game is over."))
            }
            Some(current) => Ok(current),
        }
    }

    /// Answers `legal_moves`, to the asking connection only: the moves a seat it holds may
    /// play now (none out of turn, before the game or after it).
    pub(super) fn legal_moves(
        &mut self,
        conn: ConnId,
        seat: Option<Seat>,
        reference: Option<Value>,
    ) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let moves = match self.playing() {
            Ok(current) if current.game.active_seats().contains(seat) => current.game.legal_moves_json(seat),
            _ => Vec::new(),
        };
        let answer = ServerMsg::LegalMoves {
            version: self.version,
            seat,
            moves,
            reference,
        };
        self.send_to(conn, &answer);
        Ok(())
    }

    pub(super) async fn play(
        &mut self,
        conn: ConnId,
        seat: Option<Seat>,
        payload: &Value,
        think: Option<Duration>,
    ) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.apply_move(seat, payload, think).await?;
        self.run_premoves().await;
        Ok(())
    }

    /// Plays a move for `seat`: checked by the rules, stored, then applied and announced.
    pub(super) async fn apply_move(
        &mut self,
        seat: Seat,
        payload: &Value,
        think: Option<Duration>,
    ) -> Result<(), Refusal> {
        let timer = self.move_metrics.start();
        let current = self.playing()?;
        if !current.game.active_seats().contains(seat) {
            return Err(Refusal::new(ErrorCode::NotYourTurn, "It is not your turn."));
        }
        let mut next = current.game.clone();
        let (played, normalised, written) = next.play_json_written(seat, payload).map_err(|err| match err {
            MoveError::Malformed(bad) => Refusal::new(ErrorCode::BadMove, format!("{bad}.")),
            MoveError::Illegal(illegal) => Refusal {
                code: ErrorCode::IllegalMove,
                message: sentence(&illegal.message),
                rule: Some(illegal.rule),
            },
        })?;
        let ply = u32::try_from(current.moves.len() + 1).unwrap_or(u32::MAX);
        let record_number = current.records + 1;
        let now = Instant::now();
        let mut clocks = current.clocks.clone();
        if let Some(clocks) = clocks.as_mut() {
            clocks.moved(seat, played.turn_over, think, next.active_seats(), now);
            if next.outcome().is_some() {
                clocks.stop_all(now);
            }
        }
        let clocks_ms = clocks.as_ref().map(|clocks| clocks.remaining_ms(now));
        // Serialised once: stored, kept in the move list and sent as this text.
        let payload = crate::games::json_text(&normalised);
        let record = MoveRecord {
            ply: record_number,
            seat,
            payload: &payload,
            clocks_ms: clocks_ms.as_deref(),
            deadline: clocks.as_ref().and_then(|clocks| wall_deadline(clocks, now)),
        };
        let series = next.outcome().and_then(|outcome| self.series_after(outcome));
        let rated = self.rated_game();
        // Boxed, as the rotation they describe: every move's work would otherwise carry them.
        let next_seating = next
            .outcome()
            .and_then(|outcome| self.rotation_at_end(outcome, decides(series.as_ref())))
            .map(Box::new);
        let rotation = next_seating.as_ref().map(|plan| Box::new(self.rotation_record(plan)));
        let result = next.outcome().map(|outcome| ResultRecord {
            outcome,
            move_count: ply,
            series: series.as_ref().map(|(record, _)| *record),
            rating: rated.as_ref(),
            rotation: rotation.as_deref(),
        });
        let store_started = Instant::now();
        let rating = self
            .store
            .append_move(current.id, record, result)
            .await
            .map_err(Refusal::storage)?;
        self.move_metrics.stored(&timer);
        let store_took = store_started.elapsed();
        let series = series.map(|(_, series)| series);

        // A draw offer lapses when a player who has not agreed to it moves (a Bughouse bot
        // has no say in draws, so its moves do not end one).
        let has_a_say = self.seats.bot(seat).is_none() || self.bots_answer_draws();
        let offer_lapses = has_a_say && !current.draw_agreed.is_empty() && !current.draw_agreed.contains(&seat);
        let state = next.view_text();
        let to_move: Vec<Seat> = next.active_seats().iter().collect();
        let finished = next.outcome().map(ResultView::from);
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(now));
        if let Some(current) = self.current.as_mut() {
            current.game = next;
            current.clocks = clocks;
            current
                .moves
                .push(seat, &written.packed, &written.text, clocks_ms.as_deref());
            current.records = record_number;
            if offer_lapses {
                current.draw_agreed.clear();
            }
            // A move answers a standing take-back or new-game request by moving on.
            current.undo_agreed.clear();
            current.new_game_agreed.clear();
        }
        if self
            .seats
            .iter()
            .any(|(_, holder)| holder.is_some_and(|h| h.bot().is_some()))
        {
            self.bot_seats.stored(store_took);
        }
        self.wake_bots();
        self.event(|version| ServerMsg::Moved {
            version,
            ply,
            seat,
            payload,
            text: written.text,
            state,
            to_move,
            clocks: clock_view.clone(),
        });
        self.move_metrics.broadcast(timer);
        if let Some(result) = finished {
            let ratings = self.rating_changes(rating.changes);
            self.announce_game_over(result, clock_view, series, ratings, rating.unrated);
            self.after_game_over(next_seating).await;
        }
        Ok(())
    }

    /// Counts the finished game in the series (as stored) and tells everyone, with the
    /// rating changes of a rated game (or why a game with a result changed none).
    fn announce_game_over(
        &mut self,
        result: ResultView,
        clocks: Option<ClockView>,
        series: Option<Series>,
        ratings: Vec<RatingChangeView>,
        unrated: Option<Unrated>,
    ) {
        if let (Some(state), Some(series)) = (self.series.as_mut(), series) {
            state.series = series;
        }
        let series = self.series_view();
        self.event(|version| ServerMsg::GameOver {
            version,
            result,
            clocks,
            series,
            ratings,
            unrated,
        });
    }

    /// Ends the game in progress with `outcome`: clocks stopped, stored first (with a
    /// rotating table's next seating), then announced.
    pub(super) async fn end_game(&mut self, outcome: Outcome) -> Result<(), Refusal> {
        let next_seating = self.store_end(outcome, true).await?;
        self.after_game_over(next_seating).await;
        Ok(())
    }

    /// [`Self::end_game`] without what follows it (the series' end or its pause, a
    /// rotating table's next seating): a game aborted for a new game or by a moderator.
    pub(super) async fn close_game(&mut self, outcome: Outcome) -> Result<(), Refusal> {
        self.store_end(outcome, false).await.map(|_| ())
    }

    /// Stores and announces the end of the game in progress, with a rotating table's next
    /// seating when `rotate` (returned, to be applied once the end is announced). Every
    /// end outside the rules comes here; at a rated table one before every seat has played
    /// two turns is aborted instead ([`Self::unless_unplayed`]).
    async fn store_end(&mut self, outcome: Outcome, rotate: bool) -> Result<Option<Box<Plan>>, Refusal> {
        let outcome = self.unless_unplayed(outcome);
        let current = self.playing()?;
        let now = Instant::now();
        let mut clocks = current.clocks.clone();
        if let Some(clocks) = clocks.as_mut() {
            clocks.stop_all(now);
        }
        let move_count = u32::try_from(current.moves.len()).unwrap_or(u32::MAX);
        let series = self.series_after(&outcome);
        let rated = self.rated_game();
        let next_seating = if rotate {
            self.rotation_at_end(&outcome, decides(series.as_ref())).map(Box::new)
        } else {
            None
        };
        let rotation = next_seating.as_ref().map(|plan| Box::new(self.rotation_record(plan)));
        let record = ResultRecord {
            outcome: &outcome,
            move_count,
            series: series.as_ref().map(|(record, _)| *record),
            rating: rated.as_ref(),
            rotation: rotation.as_deref(),
        };
        let rating = self
            .store
            .finish_game(current.id, record)
            .await
            .map_err(Refusal::storage)?;
        let series = series.map(|(_, series)| series);
        let result = ResultView::from(&outcome);
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(now));
        if let Some(current) = self.current.as_mut() {
            current.game.finish(outcome);
            current.draw_agreed.clear();
            current.undo_agreed.clear();
            current.new_game_agreed.clear();
            current.clocks = clocks;
        }
        self.bot_seats.reset();
        let ratings = self.rating_changes(rating.changes);
        self.announce_game_over(result, clock_view, series, ratings, rating.unrated);
        Ok(next_seating)
    }

    /// An end outside the rules as the table records it: at a rated table, aborted while
    /// some seat has played fewer than two turns in the game's line (what stands after
    /// take-backs; counted per seat, so in Bughouse per board), and `outcome` otherwise.
    /// A casual table keeps every result: nothing is at stake there but the game.
    fn unless_unplayed(&self, outcome: Outcome) -> Outcome {
        let Some(current) = self.current.as_ref().filter(|_| self.settings.rated) else {
            return outcome;
        };
        let turns = limits::turns_by_seat(current.moves.seats(), self.settings.game.seat_count());
        limits::abort_if_unplayed(outcome, &turns)
    }

    /// When an idle table stops: no connection and no timer, for the idle period.
    pub(super) fn idle_at(&self, wake_at: Option<Instant>) -> Option<Instant> {
        (self.conns.is_empty() && wake_at.is_none() && !self.bots_thinking())
            .then(|| self.last_activity + self.limits.idle_after)
    }

    /// When the table's timer should next wake: the next flag or end of a grace in the
    /// game in progress, or the end of the pause before a series' next game.
    pub(super) fn wake_at(&self) -> Option<Instant> {
        if let Some(at) = self.arrivals_until {
            return Some(at);
        }
        if let Some(at) = self.interlude.next_game_at {
            return Some(self.retry_at.map_or(at, |retry| retry.max(at)));
        }
        let current = self.playing().ok()?;
        let flag = current.clocks.as_ref().and_then(Clocks::next_flag);
        let grace = self.away.iter().flatten().min().copied();
        let next = match (flag, grace) {
            (Some(flag), Some(grace)) => flag.min(grace),
            (next, None) | (None, next) => next?,
        };
        Some(self.retry_at.map_or(next, |retry| retry.max(next)))
    }

    /// Ends the game if a clock has run out (the seat's team loses on time) or a player's
    /// reconnect grace has (the table's absence rule applies).
    pub(super) async fn settle_timers(&mut self) {
        let now = Instant::now();
        if self.retry_at.is_some_and(|retry| now < retry) {
            return;
        }
        if self.arrivals_until.is_some_and(|at| at <= now) {
            self.arrivals_over().await;
            return;
        }
        if self.interlude.next_game_at.is_some_and(|at| at <= now) {
            self.interlude.next_game_at = None;
            self.pause_over().await;
            return;
        }
        let flagged = self
            .playing()
            .ok()
            .and_then(|current| current.clocks.as_ref())
            .and_then(|clocks| clocks.flagged(now));
        let outcome = match flagged {
            Some(seat) => Some(Outcome {
                // Which clock fell, by seat and role (a Bughouse role names the board).
                detail: serde_json::json!({"seat": seat, "role": self.role_of(seat)}),
                ..Outcome::win(self.opponents_of(seat), EndReason::Time)
            }),
            None => self.absence_outcome(now),
        };
        let Some(outcome) = outcome else { return };
        match self.end_game(outcome).await {
            Ok(()) => {
                self.retry_at = None;
                self.sync_presence();
            }
            Err(refusal) => {
                tracing::error!(table = %self.id, message = %refusal.message, "a timer ended the game but it could not be stored");
                self.retry_at = Some(now + TIMER_RETRY);
            }
        }
    }

    /// The name of a seat's role (`X`, `black`, `A-white`, ...).
    pub(super) fn role_of(&self, seat: Seat) -> &'static str {
        self.settings
            .game
            .seat_roles()
            .get(usize::from(seat))
            .copied()
            .unwrap_or("")
    }

    /// Every seat not on `seat`'s team.
    pub(super) fn opponents_of(&self, seat: Seat) -> Vec<Seat> {
        let team = self.settings.game.team_of(seat);
        self.seats
            .iter()
            .map(|(other, _)| other)
            .filter(|other| self.settings.game.team_of(*other) != team)
            .collect()
    }

    pub(super) async fn resign(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.resign_seat(seat).await
    }

    /// `seat` resigns (a person's `resign`, or a bot giving up): its team loses, stored
    /// then announced as `game_over` with the reason `resignation`.
    pub(super) async fn resign_seat(&mut self, seat: Seat) -> Result<(), Refusal> {
        self.playing()?;
        let outcome = Outcome::win(self.opponents_of(seat), EndReason::Resignation);
        self.end_game(outcome).await
    }
}

/// A rule's message as a sentence: capitalised, ending with a full stop.
pub(super) fn sentence(message: &str) -> String {
    let message = message.trim();
    // A leading move or square (`d8d6`, `b1-b3`) keeps its case; a word is capitalised.
    let first_word = message.split_whitespace().next().unwrap_or("");
    let capitalise = first_word.chars().all(char::is_alphabetic);
    let mut chars = message.chars();
    let mut text: String = match chars.next() {
        Some(first) if capitalise => first.to_uppercase().chain(chars).collect(),
        Some(_) => message.to_owned(),
        None => return String::new(),
    };
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    text
}

/// Whether a game ends its table's series, given the series with the game counted
/// (`None`: the table keeps no series, and every game stands alone).
fn decides(series: Option<&(SeriesRecord, Series)>) -> bool {
    series.is_none_or(|(_, series)| series.is_decided())
}

#[cfg(test)]
mod tests {
    use super::sentence;

    #[test]
    fn rule_messages_become_sentences() {
        assert_eq!(sentence("the square is taken"), "The square is taken.");
        assert_eq!(sentence("d8d6 is not a legal move"), "d8d6 is not a legal move.");
        assert_eq!(sentence("Done."), "Done.");
        assert_eq!(sentence(""), "");
    }
}
