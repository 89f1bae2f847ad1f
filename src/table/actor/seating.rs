//! Seats before the game: sitting down and standing up, and starting a game: when the
//! last seat is taken (drawing seats by lot if the table says so), or the next game of a
//! series, or a rematch.

use super::series::SeriesState;
use super::*;
use crate::bots::BotChoice;
use crate::series::Series;
use crate::store::games::{NewSeries, SeriesLink};

/// A game whose start is stored but not yet applied in memory.
#[derive(Debug)]
pub(super) struct PendingStart {
    id: Uuid,
    number: u32,
    seats: Seats,
    clocks: Option<Clocks>,
    /// The series the game belongs to, with the game counted as started.
    series: SeriesState,
    /// Each seat's side in the series.
    sides: Vec<u8>,
}

/// How a game about to start relates to the series.
#[derive(Debug, Clone, Copy)]
pub(super) enum StartPlan {
    /// The first game of a new series; `shuffle` draws the seats by lot first.
    NewSeries { shuffle: bool },
    /// The next game of the series in play, with its seating already arranged:
    /// `swapped` when the players of each pair of seats changed places.
    Continue { swapped: bool },
}

impl TableActor {
    /// The name as given, without invisible characters and trimmed; `None` when empty.
    pub(super) fn clean_name(&self, name: Option<String>) -> Result<Option<String>, Refusal> {
        // Invisible format characters (bidirectional overrides, zero-width joiners...) would
        // let one name pass for another: they are dropped.
        let name: String = name
            .unwrap_or_default()
            .chars()
            .filter(|c| !is_format_char(*c))
            .collect();
        let name = name.trim();
        if name.is_empty() {
            return Ok(None);
        }
        if name.chars().count() > self.limits.name_max_chars || name.chars().any(char::is_control) {
            return Err(Refusal::new(
                ErrorCode::BadName,
                format!(
                    "A name is at most {} characters, without control characters.",
                    self.limits.name_max_chars
                ),
            ));
        }
        Ok(Some(name.to_owned()))
    }

    /// Seats change only between series (before the first game, or after a series is
    /// decided); `in_progress` explains the refusal during a game.
    pub(super) fn seats_open(&self, in_progress: &str) -> Result<(), Refusal> {
        match self.status() {
            TableStatus::Playing => Err(Refusal::new(ErrorCode::GameInProgress, in_progress)),
            _ if !self.series_decided() => Err(Refusal::new(
                ErrorCode::SeriesInProgress,
                "The series goes on: seats change when it is decided.",
            )),
            TableStatus::Waiting | TableStatus::Finished => Ok(()),
        }
    }

    /// `name`, or `name (2)`, `name (3)`... when a player seated elsewhere than `own`
    /// already shows it (letter case aside), so that two players never look the same.
    pub(super) fn distinct_name(&self, name: String, own: Option<Seat>) -> String {
        let taken: Vec<String> = self
            .seats
            .iter()
            .filter(|(seat, _)| Some(*seat) != own)
            .filter_map(|(_, holder)| holder.map(|h| h.name().to_lowercase()))
            .chain(self.queued_names().iter().map(|name| name.to_lowercase()))
            .collect();
        if !taken.contains(&name.to_lowercase()) {
            return name;
        }
        (2..)
            .map(|n| format!("{name} ({n})"))
            .find(|candidate| !taken.contains(&candidate.to_lowercase()))
            .unwrap_or(name)
    }

    /// Refuses a seat number the table does not have.
    fn check_exists(&self, seat: Seat) -> Result<(), Refusal> {
        if self.seats.exists(seat) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::NoSuchSeat,
            format!("This table has seats 0 to {}.", self.seats.count().saturating_sub(1)),
        ))
    }

    /// Refuses unless `seat` exists, is free, and seats may change now.
    fn check_free(&self, conn: ConnId, seat: Seat) -> Result<(), Refusal> {
        self.check_exists(seat)?;
        self.seats_open("The game has started; every seat is taken.")?;
        if let Some(holder) = self.seats.holder(seat) {
            let mine = holder.key().is_some() && self.conns.get(&conn).and_then(|c| c.key) == holder.key();
            return Err(if mine {
                Refusal::new(ErrorCode::AlreadySeated, format!("You already hold seat {seat}."))
            } else {
                Refusal::new(ErrorCode::SeatTaken, format!("Seat {seat} is taken."))
            });
        }
        Ok(())
    }

    /// Refuses unless the connection's player holds a seat here (only players may
    /// change who else sits at the table).
    fn check_seated(&self, conn: ConnId, action: &str) -> Result<(), Refusal> {
        let seated = self
            .conns
            .get(&conn)
            .and_then(|c| c.key)
            .is_some_and(|key| !self.seats.held_by(&key).is_empty());
        if seated {
            Ok(())
        } else {
            Err(Refusal::new(
                ErrorCode::NotSeated,
                format!("Take a seat first: only players at the table can {action}."),
            ))
        }
    }

    pub(super) async fn sit(&mut self, conn: ConnId, seat: Seat, name: Option<String>) -> Result<(), Refusal> {
        self.check_free(conn, seat)?;
        self.unless_barred(conn).await?;
        // A player who gives no name is called by the seat they take ("Player 1" in seat 0),
        // so that two unnamed players are told apart.
        let name = self
            .clean_name(name)?
            .unwrap_or_else(|| format!("Player {}", u16::from(seat) + 1));
        let name = self.distinct_name(name, None);
        let key = self.player(conn);
        self.fill_seat(seat, Holder::Person { key, name }).await
    }

    /// Gives the player of a seat the connection holds another name (an empty one: "Player
    /// N" again): before the game, or during it until that seat has moved, so that a game's
    /// record names who played it. Stored, then announced with `renamed`.
    pub(super) async fn rename(
        &mut self,
        conn: ConnId,
        seat: Option<Seat>,
        name: Option<String>,
    ) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        let Some(Holder::Person { key, .. }) = self.seats.holder(seat).cloned() else {
            return Err(Refusal::new(
                ErrorCode::NotYourSeat,
                format!("Seat {seat} is not yours."),
            ));
        };
        let game = match (&self.current, self.status()) {
            (Some(current), TableStatus::Playing) => {
                if current.moves.seats().any(|mover| mover == seat) {
                    return Err(Refusal::new(
                        ErrorCode::GameInProgress,
                        "A name can change only until your first move of the game.",
                    ));
                }
                Some(current.id)
            }
            _ => None,
        };
        let name = self
            .clean_name(name)?
            .unwrap_or_else(|| format!("Player {}", u16::from(seat) + 1));
        let name = self.distinct_name(name, Some(seat));
        self.store
            .rename_player(&self.id, game, seat, key.as_bytes(), &name)
            .await
            .map_err(Refusal::storage)?;
        self.seats.sit(
            seat,
            Holder::Person {
                key,
                name: name.clone(),
            },
        );
        self.event(|version| ServerMsg::Renamed { version, seat, name });
        Ok(())
    }

    /// Puts the computer in a free seat.
    pub(super) async fn add_bot(&mut self, conn: ConnId, seat: Seat, strength: BotChoice) -> Result<(), Refusal> {
        self.check_seated(conn, "add the computer")?;
        // Games against the computer are never rated (docs/ratings.md).
        if self.settings.rated {
            return Err(Refusal::new(
                ErrorCode::RatedTable,
                "The computer cannot play at a rated table: games against the computer are never rated.",
            ));
        }
        self.check_free(conn, seat)?;
        self.bots
            .engines()
            .check(self.settings.kind(), strength)
            .map_err(|refused| Refusal::new(ErrorCode::UnknownEngine, refused.to_string()))?;
        self.fill_seat(seat, Holder::Bot { strength }).await
    }

    /// Takes the computer out of a seat before the game starts.
    pub(super) async fn remove_bot(&mut self, conn: ConnId, seat: Seat) -> Result<(), Refusal> {
        self.check_seated(conn, "take the computer out")?;
        self.check_exists(seat)?;
        if self.seats.bot(seat).is_none() {
            return Err(Refusal::new(
                ErrorCode::NotABot,
                format!("Seat {seat} is not held by the computer."),
            ));
        }
        self.seats_open("You cannot take the computer out during a game.")?;
        self.store.free_seat(&self.id, seat).await.map_err(Refusal::storage)?;
        self.seats.stand(seat);
        self.event(|version| ServerMsg::Stood { version, seat });
        self.sync_presence();
        // At a rotating table the first person waiting takes the seat.
        Box::pin(self.seat_waiting_between_games()).await;
        Ok(())
    }

    /// Seats `holder` (stored first) and starts the game if that was the last free seat.
    async fn fill_seat(&mut self, seat: Seat, holder: Holder) -> Result<(), Refusal> {
        let name = holder.name();
        let bot = holder.bot();
        let shown = holder.clone();
        let mut seats = self.seats.clone();
        seats.sit(seat, holder);
        let start = if seats.is_full() {
            // After a first game, filling the seats again is one more game started by
            // agreement, paced as a rematch is.
            if self.current.is_some() {
                self.check_game_start()?;
            }
            // The last seat starts the game, whose one statement stores every seat, this
            // one included: nothing to store before it, nothing to undo when it fails.
            let plan = StartPlan::NewSeries {
                shuffle: self.settings.seating == Seating::Random,
            };
            Some(self.store_start(seats.clone(), plan).await.map_err(Refusal::storage)?)
        } else {
            let stored = match (shown.key(), bot) {
                (Some(key), _) => self.store.take_seat(&self.id, seat, key.as_bytes(), &name).await,
                (None, Some(strength)) => self.store.seat_bot(&self.id, seat, &name, &strength.id()).await,
                (None, None) => Ok(()),
            };
            stored.map_err(Refusal::storage)?;
            None
        };
        self.seats = seats;
        self.refresh_ratings().await;
        let rating = self.rating_view(&shown);
        // `seated` says as much as a presence event: the player sat down over a connection
        // (and a bot is always there).
        if let Some(slot) = self.announced_presence.get_mut(usize::from(seat)) {
            *slot = true;
        }
        self.event(|version| ServerMsg::Seated {
            version,
            seat,
            name,
            bot,
            rating,
        });
        if let Some(start) = start {
            self.begin_game(start);
        }
        self.sync_presence();
        Ok(())
    }

    pub(super) async fn stand(&mut self, conn: ConnId, seat: Option<Seat>) -> Result<(), Refusal> {
        let seat = self.acting_seat(conn, seat)?;
        self.seats_open("You cannot leave a seat during a game; resign instead.")?;
        self.store.free_seat(&self.id, seat).await.map_err(Refusal::storage)?;
        self.seats.stand(seat);
        // A rematch needs the same players: a standing offer ends with a free seat.
        self.interlude.rematch.clear();
        self.event(|version| ServerMsg::Stood { version, seat });
        self.sync_presence();
        // At a rotating table the first person waiting takes the seat.
        Box::pin(self.seat_waiting_between_games()).await;
        Ok(())
    }

    /// Every seat is taken: draws the seats if the table says so and stores the start.
    /// Nothing changes in memory until [`Self::begin_game`].
    pub(super) async fn store_start(&self, mut seats: Seats, plan: StartPlan) -> Result<PendingStart, StoreError> {
        let continuing = match (plan, &self.series) {
            (StartPlan::Continue { swapped }, Some(state)) if !state.series.is_decided() => Some((state, swapped)),
            _ => None,
        };
        let (mut series, sides) = match continuing {
            Some((state, swapped)) => {
                // The sides follow their players: with the seats swapped, so are the sides.
                let previous = self
                    .current
                    .as_ref()
                    .map(|current| current.sides.clone())
                    .unwrap_or_default();
                let sides = (0..seats.count())
                    .map(|seat| {
                        let from = if swapped { seat ^ 1 } else { seat };
                        previous.get(from).copied().unwrap_or(self.side_of_seat(seat))
                    })
                    .collect();
                (state.clone(), sides)
            }
            None => {
                if matches!(plan, StartPlan::NewSeries { shuffle: true }) {
                    seats.shuffle();
                }
                let sides: Vec<u8> = (0..seats.count()).map(|seat| self.side_of_seat(seat)).collect();
                let names = [0u8, 1].map(|side| {
                    seats
                        .iter()
                        .filter(|(seat, _)| sides.get(usize::from(*seat)) == Some(&side))
                        .filter_map(|(_, holder)| holder.map(Holder::name))
                        .collect::<Vec<_>>()
                        .join(" & ")
                });
                let state = SeriesState {
                    id: Uuid::new_v4(),
                    number: self.series.as_ref().map_or(1, |state| state.number + 1),
                    series: Series::new(self.settings.series),
                    names,
                };
                (state, sides)
            }
        };
        series.series.games_started += 1;
        let new_series = (continuing.is_none()).then(|| NewSeries {
            number: series.number,
            format: series.series.format,
            sides: [series.names[0].as_str(), series.names[1].as_str()],
        });
        let link = SeriesLink {
            id: series.id,
            game: series.series.games_started,
            rated: self.settings.rated,
            new: new_series,
        };
        let roles = self.settings.game.seat_roles();
        let players: Vec<PlayerRecord> = seats
            .iter()
            .filter_map(|(seat, holder)| {
                holder.map(|holder| PlayerRecord {
                    seat,
                    role: roles.get(usize::from(seat)).copied().unwrap_or("").to_owned(),
                    player_key: holder.key().map(|key| key.as_bytes().to_vec()),
                    name: holder.name(),
                    bot: holder.bot().map(BotChoice::id),
                    side: sides.get(usize::from(seat)).copied().unwrap_or(0),
                })
            })
            .collect();
        let id = Uuid::new_v4();
        let number = self.current.as_ref().map_or(1, |current| current.number + 1);
        let now = Instant::now();
        let clocks = Clocks::new(self.settings.time_control, seats.count()).map(|mut clocks| {
            clocks.start(self.settings.game.new_game().active_seats(), now);
            clocks
        });
        let deadline = clocks.as_ref().and_then(|clocks| wall_deadline(clocks, now));
        self.store
            .start_game(id, &self.id, number, &players, deadline, &link)
            .await?;
        Ok(PendingStart {
            id,
            number,
            seats,
            clocks,
            series,
            sides,
        })
    }

    /// The side a seat's team plays for in a new series (side 0: seat 0's team).
    fn side_of_seat(&self, seat: usize) -> u8 {
        let team = self.settings.game.team_of(Seat::try_from(seat).unwrap_or(0));
        let first = self.settings.game.team_of(0);
        u8::from(team != first)
    }

    /// Starts the stored game in memory and announces it with its seating.
    pub(super) fn begin_game(&mut self, start: PendingStart) {
        let PendingStart {
            id,
            number,
            seats,
            clocks,
            series,
            sides,
        } = start;
        self.series = Some(series);
        self.interlude = Interlude::default();
        self.seats = seats;
        self.count_games_in_a_row();
        self.premoves = vec![None; self.seats.count()];
        let game = self
            .settings
            .game
            .new_game_drawn(crate::games::game_seed(&self.id, number));
        let state = game.view();
        let to_move: Vec<Seat> = game.active_seats().iter().collect();
        let clock_view = clocks.as_ref().map(|clocks| clocks.view(Instant::now()));
        self.current = Some(CurrentGame {
            id,
            number,
            sides,
            game,
            moves: MoveList::new(self.settings.game.kind()),
            records: 0,
            new_game_agreed: Vec::new(),
            undo_agreed: Vec::new(),
            draw_agreed: Vec::new(),
            clocks,
        });
        // A player away as the game starts has a grace running from now, which
        // `game_started` says (`away_ms`) as a snapshot would.
        self.update_away(Instant::now());
        // Seats may have been redrawn; `game_started` carries each seat's presence.
        let seat_views = self.seat_views();
        self.announced_presence = seat_views
            .iter()
            .map(|view| view.player.as_ref().is_some_and(|p| p.connected))
            .collect();
        let series = self.series_view();
        self.event(|version| ServerMsg::GameStarted {
            version,
            game_number: number,
            seats: seat_views,
            state,
            to_move,
            clocks: clock_view,
            series,
        });
        // Seats may have been drawn by lot: tell each player's connections their seats.
        self.welcome_everyone();
        self.bot_seats.reset();
        self.wake_bots();
    }
}

/// Unicode format characters (general category Cf) that can make two names look alike or
/// reorder what is shown: soft hyphen, Arabic letter mark, Mongolian vowel separator,
/// zero-width and directional marks, bidirectional embeddings, overrides and isolates,
/// invisible operators, the byte-order mark, interlinear annotations and tags.
pub(crate) fn is_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

#[cfg(test)]
mod tests {
    use super::is_format_char;

    #[test]
    fn invisible_format_characters_are_recognised() {
        for c in ['\u{202E}', '\u{200B}', '\u{200D}', '\u{2066}', '\u{FEFF}', '\u{E0041}'] {
            assert!(is_format_char(c), "{c:?}");
        }
        for c in ['a', 'Å', '日', ' ', '-', '\u{1F600}'] {
            assert!(!is_format_char(c), "{c:?}");
        }
    }
}
