//! A table's settings: the table-level ones (seating, time control, what happens when a
//! player stays away) and the game's own, read from one flat `settings` object so every
//! error names its field.

use std::time::Duration;

use serde_json::{Map, Value};

use std::collections::BTreeMap;

use super::rotation::{Partners, Rotation};
use super::time_control::TimeControl;
use crate::bots::BotChoice;
use crate::games::{AnySettings, GameKind, Seat, SettingError, SettingsReader, settings_map};
use crate::series::{NextFirst, SeriesFormat};

/// How players end up in the seats (and so who moves first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seating {
    /// When every seat is taken the table draws the seats by lot (the default).
    Random,
    /// Each player plays the seat they took: the host picks by sitting down first.
    Chosen,
}

impl Seating {
    fn as_str(self) -> &'static str {
        match self {
            Seating::Random => "random",
            Seating::Chosen => "chosen",
        }
    }
}

/// What happens when a player's reconnect grace runs out during a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnAbsence {
    /// The absent player (their team) loses; before everyone has moved, the game is
    /// aborted instead. The default for live games.
    Loss,
    /// The game stays open and waits for the player. The default for correspondence.
    Wait,
}

impl OnAbsence {
    fn as_str(self) -> &'static str {
        match self {
            OnAbsence::Loss => "loss",
            OnAbsence::Wait => "wait",
        }
    }
}

/// Bughouse's clock when the host chooses none: 3 minutes per player.
pub const BUGHOUSE_DEFAULT_CLOCK: TimeControl = TimeControl::SuddenDeath {
    base: Duration::from_secs(180),
};

/// The reconnect grace when the host sets none: 60 seconds.
pub const DEFAULT_GRACE_SECONDS: u64 = 60;
/// Shortest and longest reconnect grace a host may set.
pub const GRACE_SECONDS: std::ops::RangeInclusive<u64> = 10..=3_600;

/// The pause between the games of a series when the host sets none: 10 seconds.
pub const DEFAULT_SERIES_PAUSE_SECONDS: u64 = 10;
/// Longest pause between the games of a series a host may set.
pub const MAX_SERIES_PAUSE_SECONDS: u64 = 300;

/// The validated settings of a table, defaults filled in.
#[derive(Debug, Clone)]
pub struct TableSettings {
    /// How many games the players play and how the winner is decided.
    pub series: SeriesFormat,
    /// Who starts the next game of a series or a rematch.
    pub next_first: NextFirst,
    /// The pause before the next game of a series starts (the players may cut it short).
    pub series_pause: Duration,
    /// Decided at creation and stored with every game; forbids undo and start positions.
    pub rated: bool,
    /// Whether players may take moves back (casual tables only).
    pub undo: bool,
    /// Shown in the lobby (open seats, the game to watch); private (by link only) otherwise.
    pub listed: bool,
    /// Seats the computer takes when the table is created, with their strength.
    pub bots: BTreeMap<Seat, BotChoice>,
    pub seating: Seating,
    pub time_control: TimeControl,
    /// How long a seated player may be away before `on_absence` applies.
    pub grace: Duration,
    pub on_absence: OnAbsence,
    /// Who plays the next game when more people than seats are at the table.
    pub rotation: Rotation,
    /// Whether partners stay together as people rotate.
    pub partners: Partners,
    pub game: AnySettings,
}

impl TableSettings {
    /// Reads the `game` id and the `settings` object of a table creation request.
    pub fn read(game: &str, settings: Option<Value>) -> Result<TableSettings, SettingError> {
        let kind = GameKind::from_id(game).ok_or_else(|| {
            let known: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.id()).collect();
            SettingError::new(
                "game",
                format!("unknown game \"{game}\"; known games: {}", known.join(", ")),
            )
        })?;
        let mut reader = SettingsReader::new(settings_map(settings)?);
        let seating = match reader.take_choice("seating", &["random", "chosen"])? {
            "chosen" => Seating::Chosen,
            _ => Seating::Random,
        };
        let time_control = match (kind, reader.take::<Value>("time_control")?) {
            // Bughouse is always timed: 3 minutes each unless the host chooses otherwise.
            (GameKind::Bughouse, None) => BUGHOUSE_DEFAULT_CLOCK,
            (GameKind::Bughouse, Some(value)) => match TimeControl::read(Some(value))? {
                TimeControl::None => {
                    return Err(SettingError::new(
                        "settings.time_control",
                        "Bughouse is always timed; choose a clock or leave it out for 3 minutes each",
                    ));
                }
                control => control,
            },
            (_, value) => TimeControl::read(value)?,
        };
        let grace_seconds = match reader.take::<Value>("grace_seconds")? {
            None => DEFAULT_GRACE_SECONDS,
            Some(value) => value.as_u64().filter(|n| GRACE_SECONDS.contains(n)).ok_or_else(|| {
                SettingError::new(
                    "settings.grace_seconds",
                    format!(
                        "must be a whole number of seconds from {} to {}",
                        GRACE_SECONDS.start(),
                        GRACE_SECONDS.end()
                    ),
                )
            })?,
        };
        let default_absence = if time_control.is_correspondence() {
            "wait"
        } else {
            "loss"
        };
        let on_absence = match reader
            .take::<String>("on_absence")?
            .as_deref()
            .unwrap_or(default_absence)
        {
            "loss" => OnAbsence::Loss,
            "wait" => OnAbsence::Wait,
            _ => {
                return Err(SettingError::new(
                    "settings.on_absence",
                    "must be one of \"loss\", \"wait\"",
                ));
            }
        };
        let game = AnySettings::read(kind, &mut reader)?;
        let bots = read_bots(reader.take::<Value>("bots")?, game.seat_count())?;
        let series =
            SeriesFormat::from_id(reader.take_choice("series", SeriesFormat::NAMES)?).unwrap_or(SeriesFormat::Single);
        let next_first = match reader.take_choice("next_first", NextFirst::NAMES)? {
            "loser" => NextFirst::Loser,
            "lot" => NextFirst::Lot,
            _ => NextFirst::Alternate,
        };
        let series_pause = match reader.take::<Value>("series_pause_seconds")? {
            None => DEFAULT_SERIES_PAUSE_SECONDS,
            Some(value) => value
                .as_u64()
                .filter(|n| *n <= MAX_SERIES_PAUSE_SECONDS)
                .ok_or_else(|| {
                    SettingError::new(
                        "settings.series_pause_seconds",
                        format!("must be a whole number of seconds from 0 to {MAX_SERIES_PAUSE_SECONDS}"),
                    )
                })?,
        };
        let rated = read_flag(&mut reader, "rated")?;
        let undo = read_flag(&mut reader, "undo")?;
        let listed = read_flag(&mut reader, "listed")?;
        if rated && serde_json::to_value(&game).is_ok_and(|g| !g["start_position"].is_null()) {
            return Err(SettingError::new(
                "settings.start_position",
                "a rated table starts from the standard position",
            ));
        }
        if undo {
            let refusal = if rated {
                Some("is not allowed at a rated table")
            } else if series != SeriesFormat::Single {
                Some("is not allowed in a series")
            } else if kind == GameKind::Bughouse {
                Some("is never allowed in Bughouse (the other board has moved on)")
            } else {
                None
            };
            if let Some(refusal) = refusal {
                return Err(SettingError::new("settings.undo", refusal));
            }
        }
        let (rotation, partners) = read_rotation(&mut reader, kind, rated, series)?;
        reader.finish()?;
        Ok(TableSettings {
            rotation,
            partners,
            series,
            next_first,
            series_pause: Duration::from_secs(series_pause),
            rated,
            undo,
            listed,
            bots,
            seating,
            time_control,
            grace: Duration::from_secs(grace_seconds),
            on_absence,
            game,
        })
    }

    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// The rules only a new table must follow: a stored table was valid when it was made and
    /// stays readable (its games' records too), so these are checked at creation, not in
    /// [`TableSettings::read`]. As on lichess, a game with the computer in a seat is never
    /// rated (docs/ratings.md).
    pub fn check_new_table(&self) -> Result<(), SettingError> {
        if self.rated && !self.bots.is_empty() {
            return Err(SettingError::new(
                "settings.rated",
                "games against the computer are never rated; leave out \"rated\" or \"bots\"",
            ));
        }
        Ok(())
    }

    /// The settings as one flat object, as stored and shown to clients.
    pub fn to_json(&self) -> Value {
        let mut map = match serde_json::to_value(&self.game) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        map.insert("seating".into(), Value::from(self.seating.as_str()));
        map.insert("time_control".into(), self.time_control.to_json());
        map.insert("grace_seconds".into(), Value::from(self.grace.as_secs()));
        map.insert("on_absence".into(), Value::from(self.on_absence.as_str()));
        let bots: Map<String, Value> = self
            .bots
            .iter()
            .map(|(seat, strength)| (seat.to_string(), Value::from(strength.id())))
            .collect();
        map.insert("bots".into(), Value::Object(bots));
        map.insert("series".into(), Value::from(self.series.id()));
        map.insert("next_first".into(), Value::from(self.next_first.id()));
        map.insert("series_pause_seconds".into(), Value::from(self.series_pause.as_secs()));
        map.insert("rated".into(), Value::from(self.rated));
        map.insert("undo".into(), Value::from(self.undo));
        map.insert("listed".into(), Value::from(self.listed));
        // Only at a rotating table: every other table's settings read as before.
        if self.rotation != Rotation::Fixed {
            map.insert("rotation".into(), Value::from(self.rotation.id()));
            map.insert("partners".into(), Value::from(self.partners.id()));
        }
        Value::Object(map)
    }
}

/// Reads `rotation` and `partners`: a Bughouse table may let more people than seats take
/// turns (casual, single games: each person's standings are the table's record).
fn read_rotation(
    reader: &mut SettingsReader,
    kind: GameKind,
    rated: bool,
    series: SeriesFormat,
) -> Result<(Rotation, Partners), SettingError> {
    let rotation = Rotation::from_id(reader.take_choice("rotation", Rotation::NAMES)?).unwrap_or(Rotation::Fixed);
    let partners = reader.take::<Value>("partners")?;
    if rotation == Rotation::Fixed {
        if partners.is_some() {
            return Err(SettingError::new(
                "settings.partners",
                "applies only where people take turns: set \"rotation\" too",
            ));
        }
        return Ok((rotation, Partners::Keep));
    }
    let refusal = if kind != GameKind::Bughouse {
        Some("is offered for Bughouse only")
    } else if rated {
        Some("is not allowed at a rated table (its games are casual: standings are per person)")
    } else if series != SeriesFormat::Single {
        Some("plays single games (each person's standings are the table's record): leave out \"series\"")
    } else {
        None
    };
    if let Some(refusal) = refusal {
        return Err(SettingError::new("settings.rotation", refusal));
    }
    let partners = match partners {
        None => Partners::Keep,
        Some(value) => value
            .as_str()
            .and_then(Partners::from_id)
            .ok_or_else(|| SettingError::new("settings.partners", "must be one of \"keep\", \"draw\""))?,
    };
    Ok((rotation, partners))
}

/// Reads a true/false setting, false when absent.
fn read_flag(reader: &mut SettingsReader, key: &str) -> Result<bool, SettingError> {
    match reader.take::<Value>(key)? {
        None => Ok(false),
        Some(Value::Bool(flag)) => Ok(flag),
        Some(_) => Err(SettingError::new(format!("settings.{key}"), "must be true or false")),
    }
}

/// Reads the `bots` setting: `{"1": "hard"}` puts the computer at strength `hard` in
/// seat 1 (`"engine:NAME"` an external engine, whose configuration the caller checks). At
/// least one seat is left for a person.
fn read_bots(value: Option<Value>, seat_count: usize) -> Result<BTreeMap<Seat, BotChoice>, SettingError> {
    const FIELD: &str = "settings.bots";
    let map = match value {
        None | Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(SettingError::new(
                FIELD,
                "must be an object from seat numbers to strengths, such as {\"1\": \"hard\"}",
            ));
        }
    };
    let mut bots = BTreeMap::new();
    for (key, value) in map {
        let field = format!("{FIELD}.{key}");
        let seat = key
            .parse::<Seat>()
            .ok()
            .filter(|seat| usize::from(*seat) < seat_count)
            .ok_or_else(|| {
                SettingError::new(
                    field.clone(),
                    format!(
                        "is not a seat: this game has seats 0 to {}",
                        seat_count.saturating_sub(1)
                    ),
                )
            })?;
        let strength = value.as_str().and_then(BotChoice::from_id).ok_or_else(|| {
            SettingError::new(
                field,
                "must be one of \"random\", \"easy\", \"medium\", \"hard\" or \"engine:NAME\" (GET /api/bots)",
            )
        })?;
        bots.insert(seat, strength);
    }
    if bots.len() >= seat_count {
        return Err(SettingError::new(
            FIELD,
            "leave at least one seat for a person (add bots at the table to fill the rest)",
        ));
    }
    Ok(bots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_filled_in() {
        let settings = TableSettings::read("gomoku", None).unwrap();
        assert_eq!(
            settings.to_json(),
            json!({
                "seating": "random", "time_control": {"kind": "none"},
                "grace_seconds": 60, "on_absence": "loss", "bots": {},
                "series": "single", "next_first": "alternate", "series_pause_seconds": 10,
                "rated": false, "undo": false, "listed": false,
                "variant": "free", "board_size": 15, "opening": "center"
            })
        );
    }

    #[test]
    fn stored_settings_read_back_the_same() {
        let settings = TableSettings::read(
            "gomoku",
            Some(json!({"board_size": 19, "seating": "chosen", "time_control": {"kind": "fischer", "base_seconds": 300, "increment_seconds": 3}})),
        )
        .unwrap();
        let again = TableSettings::read("gomoku", Some(settings.to_json())).unwrap();
        assert_eq!(again.to_json(), settings.to_json());
    }

    #[test]
    fn errors_name_the_field() {
        let field = |game: &str, settings: Value| TableSettings::read(game, Some(settings)).unwrap_err().field;
        assert_eq!(field("chess960", json!({})), "game");
        assert_eq!(field("gomoku", json!({"board_size": 17})), "settings.board_size");
        assert_eq!(field("gomoku", json!({"seating": "host"})), "settings.seating");
        assert_eq!(field("gomoku", json!({"speed": 3})), "settings.speed");
        assert_eq!(field("gomoku", json!([1])), "settings");
        assert_eq!(field("gomoku", json!({"grace_seconds": 5})), "settings.grace_seconds");
        assert_eq!(field("gomoku", json!({"on_absence": "forfeit"})), "settings.on_absence");
        assert_eq!(field("gomoku", json!({"bots": {"2": "hard"}})), "settings.bots.2");
        assert_eq!(field("gomoku", json!({"series": "best_of_7"})), "settings.series");
        assert_eq!(field("gomoku", json!({"next_first": "winner"})), "settings.next_first");
        assert_eq!(
            field("gomoku", json!({"series_pause_seconds": 301})),
            "settings.series_pause_seconds"
        );
        assert_eq!(field("gomoku", json!({"rated": "yes"})), "settings.rated");
        assert_eq!(field("gomoku", json!({"undo": true, "rated": true})), "settings.undo");
        let with_bots = TableSettings::read("gomoku", Some(json!({"rated": true, "bots": {"1": "easy"}})));
        assert_eq!(
            with_bots.unwrap().check_new_table().unwrap_err().field,
            "settings.rated"
        );
        assert_eq!(
            field("gomoku", json!({"undo": true, "series": "best_of_3"})),
            "settings.undo"
        );
        assert_eq!(field("bughouse", json!({"undo": true})), "settings.undo");
        assert_eq!(
            field(
                "krux",
                json!({"rated": true, "start_position": "1c1 2e7 3b2 4f6 5a3 6g5 / 1"})
            ),
            "settings.start_position"
        );
        assert_eq!(field("gomoku", json!({"bots": {"one": "hard"}})), "settings.bots.one");
        assert_eq!(field("gomoku", json!({"bots": {"1": "genius"}})), "settings.bots.1");
        assert_eq!(field("gomoku", json!({"bots": ["hard"]})), "settings.bots");
        assert_eq!(
            field("gomoku", json!({"bots": {"0": "easy", "1": "hard"}})),
            "settings.bots"
        );
        assert_eq!(
            field("gomoku", json!({"time_control": {"kind": "per_move", "seconds": -1}})),
            "settings.time_control.seconds"
        );
    }
}

#[cfg(test)]
mod bot_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bots_take_the_seats_they_are_given_and_read_back() {
        let settings = TableSettings::read("bughouse", Some(json!({"bots": {"1": "hard", "3": "random"}}))).unwrap();
        assert_eq!(
            settings.bots.clone().into_iter().collect::<Vec<_>>(),
            vec![
                (1, crate::bots::Strength::Hard.into()),
                (3, crate::bots::Strength::Random.into())
            ]
        );
        let again = TableSettings::read("bughouse", Some(settings.to_json())).unwrap();
        assert_eq!(again.to_json()["bots"], json!({"1": "hard", "3": "random"}));
    }
}

#[cfg(test)]
mod absence_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn correspondence_tables_wait_for_an_absent_player_by_default() {
        let live = TableSettings::read("gomoku", None).unwrap();
        assert_eq!(
            (live.on_absence, live.grace),
            (OnAbsence::Loss, Duration::from_secs(60))
        );
        let slow = TableSettings::read(
            "gomoku",
            Some(json!({"time_control": {"kind": "correspondence", "days": 2}, "grace_seconds": 120})),
        )
        .unwrap();
        assert_eq!(
            (slow.on_absence, slow.grace),
            (OnAbsence::Wait, Duration::from_secs(120))
        );
        let strict = TableSettings::read(
            "gomoku",
            Some(json!({"time_control": {"kind": "correspondence", "days": 2}, "on_absence": "loss"})),
        )
        .unwrap();
        assert_eq!(strict.on_absence, OnAbsence::Loss);
    }
}

#[cfg(test)]
mod bughouse_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bughouse_is_always_timed_three_minutes_by_default() {
        let settings = TableSettings::read("bughouse", None).unwrap();
        assert_eq!(settings.time_control, BUGHOUSE_DEFAULT_CLOCK);
        assert_eq!(
            settings.to_json()["time_control"],
            json!({"kind": "sudden_death", "base_seconds": 180})
        );
        let err = TableSettings::read("bughouse", Some(json!({"time_control": {"kind": "none"}}))).unwrap_err();
        assert_eq!(err.field, "settings.time_control");
        let fischer = TableSettings::read(
            "bughouse",
            Some(json!({"time_control": {"kind": "fischer", "base_seconds": 120, "increment_seconds": 2}})),
        )
        .unwrap();
        assert_eq!(fischer.time_control.increment(), Duration::from_secs(2));
        assert_eq!(fischer.game.seat_roles(), ["A-white", "A-black", "B-white", "B-black"]);
    }
}

#[cfg(test)]
mod rotation_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bughouse_table_may_rotate_and_reads_back_the_same() {
        let settings =
            TableSettings::read("bughouse", Some(json!({"rotation": "rotate", "partners": "draw"}))).unwrap();
        assert_eq!(settings.rotation, Rotation::Rotate);
        assert_eq!(settings.partners, Partners::Draw);
        let stored = settings.to_json();
        assert_eq!(stored["rotation"], "rotate");
        assert_eq!(stored["partners"], "draw");
        let again = TableSettings::read("bughouse", Some(stored)).unwrap();
        assert_eq!((again.rotation, again.partners), (Rotation::Rotate, Partners::Draw));
        // Partners are kept unless said otherwise.
        let kept = TableSettings::read("bughouse", Some(json!({"rotation": "winners_stay"}))).unwrap();
        assert_eq!(kept.partners, Partners::Keep);
    }

    #[test]
    fn a_fixed_table_stores_no_rotation_keys() {
        let settings = TableSettings::read("bughouse", None).unwrap();
        assert_eq!(settings.rotation, Rotation::Fixed);
        assert!(settings.to_json().get("rotation").is_none());
        assert!(settings.to_json().get("partners").is_none());
    }

    #[test]
    fn rotation_is_refused_where_it_has_no_meaning() {
        let cases = [
            ("gomoku", json!({"rotation": "rotate"}), "settings.rotation"),
            (
                "bughouse",
                json!({"rotation": "rotate", "rated": true}),
                "settings.rotation",
            ),
            (
                "bughouse",
                json!({"rotation": "rotate", "series": "best_of_3"}),
                "settings.rotation",
            ),
            ("bughouse", json!({"rotation": "sometimes"}), "settings.rotation"),
            ("bughouse", json!({"partners": "draw"}), "settings.partners"),
            (
                "bughouse",
                json!({"rotation": "rotate", "partners": "swap"}),
                "settings.partners",
            ),
        ];
        for (game, settings, field) in cases {
            let err = TableSettings::read(game, Some(settings.clone())).unwrap_err();
            assert_eq!(err.field, field, "{game} {settings}: {}", err.message);
        }
    }
}
