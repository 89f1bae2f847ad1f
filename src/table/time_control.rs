//! Time controls: what the host chooses when creating a table, validated field by field.
//!
//! Wire form (the `time_control` setting; every duration in whole seconds, days or hours):
//! - `{"kind": "none"}` (the default for untimed games)
//! - `{"kind": "sudden_death", "base_seconds": 600}`
//! - `{"kind": "fischer", "base_seconds": 300, "increment_seconds": 5}`
//! - `{"kind": "per_move", "seconds": 30}`
//! - `{"kind": "correspondence", "days": 3}` or `{"kind": "correspondence", "hours": 12}`

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::games::SettingError;

/// Longest base time of a live game: 10 hours.
pub const MAX_BASE_SECONDS: u64 = 36_000;
/// Longest Fischer increment: 10 minutes.
pub const MAX_INCREMENT_SECONDS: u64 = 600;
/// Longest fixed time per move of a live game: 1 hour.
pub const MAX_PER_MOVE_SECONDS: u64 = 3_600;
/// Longest correspondence time per move: 30 days (720 hours).
pub const MAX_CORRESPONDENCE_DAYS: u64 = 30;
pub const MAX_CORRESPONDENCE_HOURS: u64 = 720;

const FIELD: &str = "settings.time_control";

/// A table's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeControl {
    /// No clock.
    #[default]
    None,
    /// A total time per player for the whole game.
    SuddenDeath { base: Duration },
    /// A base time plus an increment added after each of the player's moves.
    Fischer { base: Duration, increment: Duration },
    /// A fixed time for each move; the clock resets at every turn.
    PerMove { per_move: Duration },
    /// Days (or hours) per move for games that last days; the deadline is stored in
    /// Postgres so it survives restarts.
    Correspondence {
        per_move: Duration,
        unit: CorrespondenceUnit,
    },
}

/// How a correspondence time control was given, to show it back the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorrespondenceUnit {
    Days,
    Hours,
}

impl TimeControl {
    /// Reads the `time_control` setting (already taken out of the settings object).
    pub fn read(value: Option<Value>) -> Result<TimeControl, SettingError> {
        let Some(value) = value else {
            return Ok(TimeControl::None);
        };
        let Value::Object(mut map) = value else {
            return Err(SettingError::new(
                FIELD,
                "must be an object such as {\"kind\": \"fischer\", \"base_seconds\": 300, \"increment_seconds\": 2}",
            ));
        };
        let kind = match map.remove("kind") {
            Some(Value::String(kind)) => kind,
            _ => {
                return Err(SettingError::new(
                    format!("{FIELD}.kind"),
                    "is required: one of \"none\", \"sudden_death\", \"fischer\", \"per_move\", \"correspondence\"",
                ));
            }
        };
        let control = match kind.as_str() {
            "none" => TimeControl::None,
            "sudden_death" => TimeControl::SuddenDeath {
                base: seconds(&mut map, "base_seconds", 1, MAX_BASE_SECONDS)?,
            },
            "fischer" => TimeControl::Fischer {
                base: seconds(&mut map, "base_seconds", 1, MAX_BASE_SECONDS)?,
                increment: seconds(&mut map, "increment_seconds", 0, MAX_INCREMENT_SECONDS)?,
            },
            "per_move" => TimeControl::PerMove {
                per_move: seconds(&mut map, "seconds", 1, MAX_PER_MOVE_SECONDS)?,
            },
            "correspondence" => read_correspondence(&mut map)?,
            other => {
                return Err(SettingError::new(
                    format!("{FIELD}.kind"),
                    format!(
                        "unknown time control \"{other}\"; one of \"none\", \"sudden_death\", \"fischer\", \"per_move\", \"correspondence\""
                    ),
                ));
            }
        };
        match map.keys().next() {
            Some(key) => Err(SettingError::new(
                format!("{FIELD}.{key}"),
                format!("is not a field of the \"{kind}\" time control"),
            )),
            None => Ok(control),
        }
    }

    /// The setting as stored and shown, `{"kind": "none"}` for no clock.
    pub fn to_json(self) -> Value {
        match self {
            TimeControl::None => json!({"kind": "none"}),
            TimeControl::SuddenDeath { base } => json!({"kind": "sudden_death", "base_seconds": base.as_secs()}),
            TimeControl::Fischer { base, increment } => json!({
                "kind": "fischer", "base_seconds": base.as_secs(), "increment_seconds": increment.as_secs()
            }),
            TimeControl::PerMove { per_move } => json!({"kind": "per_move", "seconds": per_move.as_secs()}),
            TimeControl::Correspondence {
                per_move,
                unit: CorrespondenceUnit::Days,
            } => json!({"kind": "correspondence", "days": per_move.as_secs() / 86_400}),
            TimeControl::Correspondence {
                per_move,
                unit: CorrespondenceUnit::Hours,
            } => json!({"kind": "correspondence", "hours": per_move.as_secs() / 3_600}),
        }
    }

    /// The wire name of the kind.
    /// A short label for lists (the lobby): `untimed`, `{minutes}+{increment seconds}`
    /// (`5+3`, sudden death `3+0`), `{seconds}s/move`, or `{n}d`/`{n}h` per move.
    pub fn label(self) -> String {
        let minutes = |base: Duration| {
            let seconds = base.as_secs();
            if seconds.is_multiple_of(60) {
                (seconds / 60).to_string()
            } else {
                format!("{:.1}", seconds as f64 / 60.0)
            }
        };
        match self {
            TimeControl::None => "untimed".into(),
            TimeControl::SuddenDeath { base } => format!("{}+0", minutes(base)),
            TimeControl::Fischer { base, increment } => format!("{}+{}", minutes(base), increment.as_secs()),
            TimeControl::PerMove { per_move } => format!("{}s/move", per_move.as_secs()),
            TimeControl::Correspondence {
                per_move,
                unit: CorrespondenceUnit::Days,
            } => format!("{}d", per_move.as_secs() / 86_400),
            TimeControl::Correspondence {
                per_move,
                unit: CorrespondenceUnit::Hours,
            } => format!("{}h", per_move.as_secs() / 3_600),
        }
    }

    pub fn kind(self) -> &'static str {
        match self {
            TimeControl::None => "none",
            TimeControl::SuddenDeath { .. } => "sudden_death",
            TimeControl::Fischer { .. } => "fischer",
            TimeControl::PerMove { .. } => "per_move",
            TimeControl::Correspondence { .. } => "correspondence",
        }
    }

    pub fn is_timed(self) -> bool {
        self != TimeControl::None
    }

    /// The time on each clock when a game starts.
    pub fn initial(self) -> Duration {
        match self {
            TimeControl::None => Duration::ZERO,
            TimeControl::SuddenDeath { base } | TimeControl::Fischer { base, .. } => base,
            TimeControl::PerMove { per_move } | TimeControl::Correspondence { per_move, .. } => per_move,
        }
    }

    /// Added to a player's clock after each of their turns.
    pub fn increment(self) -> Duration {
        match self {
            TimeControl::Fischer { increment, .. } => increment,
            _ => Duration::ZERO,
        }
    }

    /// Whether each turn starts with a fresh allowance (per-move and correspondence).
    pub fn resets_each_turn(self) -> bool {
        matches!(self, TimeControl::PerMove { .. } | TimeControl::Correspondence { .. })
    }

    pub fn is_correspondence(self) -> bool {
        matches!(self, TimeControl::Correspondence { .. })
    }
}

fn read_correspondence(map: &mut Map<String, Value>) -> Result<TimeControl, SettingError> {
    match (map.contains_key("days"), map.contains_key("hours")) {
        (true, false) => {
            let days = whole(map, "days", 1, MAX_CORRESPONDENCE_DAYS)?;
            Ok(TimeControl::Correspondence {
                per_move: Duration::from_secs(days * 86_400),
                unit: CorrespondenceUnit::Days,
            })
        }
        (false, true) => {
            let hours = whole(map, "hours", 1, MAX_CORRESPONDENCE_HOURS)?;
            Ok(TimeControl::Correspondence {
                per_move: Duration::from_secs(hours * 3_600),
                unit: CorrespondenceUnit::Hours,
            })
        }
        _ => Err(SettingError::new(
            format!("{FIELD}.days"),
            "a correspondence time control has either \"days\" or \"hours\" per move",
        )),
    }
}

fn seconds(map: &mut Map<String, Value>, key: &str, min: u64, max: u64) -> Result<Duration, SettingError> {
    whole(map, key, min, max).map(Duration::from_secs)
}

/// Takes a required whole number in `min..=max`.
fn whole(map: &mut Map<String, Value>, key: &str, min: u64, max: u64) -> Result<u64, SettingError> {
    let field = format!("{FIELD}.{key}");
    let value = map
        .remove(key)
        .ok_or_else(|| SettingError::new(&field, format!("is required (a whole number from {min} to {max})")))?;
    value
        .as_u64()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| SettingError::new(&field, format!("must be a whole number from {min} to {max}")))
}

#[cfg(test)]
mod tests {

    #[test]
    fn labels_are_short() {
        let read = |value| TimeControl::read(Some(value)).expect("a time control");
        assert_eq!(TimeControl::None.label(), "untimed");
        assert_eq!(
            read(json!({"kind": "fischer", "base_seconds": 300, "increment_seconds": 3})).label(),
            "5+3"
        );
        assert_eq!(
            read(json!({"kind": "sudden_death", "base_seconds": 180})).label(),
            "3+0"
        );
        assert_eq!(
            read(json!({"kind": "sudden_death", "base_seconds": 90})).label(),
            "1.5+0"
        );
    }
    use super::*;

    fn read(value: Value) -> Result<TimeControl, SettingError> {
        TimeControl::read(Some(value))
    }

    #[test]
    fn absent_means_none() {
        assert_eq!(TimeControl::read(None), Ok(TimeControl::None));
        assert_eq!(read(json!({"kind": "none"})), Ok(TimeControl::None));
    }

    #[test]
    fn every_kind_reads_and_writes_back_the_same() {
        for value in [
            json!({"kind": "none"}),
            json!({"kind": "sudden_death", "base_seconds": 600}),
            json!({"kind": "fischer", "base_seconds": 300, "increment_seconds": 5}),
            json!({"kind": "fischer", "base_seconds": 60, "increment_seconds": 0}),
            json!({"kind": "per_move", "seconds": 30}),
            json!({"kind": "correspondence", "days": 3}),
            json!({"kind": "correspondence", "hours": 12}),
        ] {
            let control = read(value.clone()).expect("valid");
            assert_eq!(control.to_json(), value);
        }
    }

    #[test]
    fn durations_are_what_was_asked() {
        let fischer = read(json!({"kind": "fischer", "base_seconds": 300, "increment_seconds": 5})).unwrap();
        assert_eq!(fischer.initial(), Duration::from_secs(300));
        assert_eq!(fischer.increment(), Duration::from_secs(5));
        let days = read(json!({"kind": "correspondence", "days": 2})).unwrap();
        assert_eq!(days.initial(), Duration::from_secs(2 * 86_400));
        assert!(days.resets_each_turn() && days.is_correspondence());
    }

    #[test]
    fn nonsense_is_refused_naming_the_field() {
        let field = |value: Value| read(value).unwrap_err().field;
        assert_eq!(field(json!("fast")), "settings.time_control");
        assert_eq!(field(json!({})), "settings.time_control.kind");
        assert_eq!(field(json!({"kind": "hourglass"})), "settings.time_control.kind");
        assert_eq!(
            field(json!({"kind": "sudden_death"})),
            "settings.time_control.base_seconds"
        );
        assert_eq!(
            field(json!({"kind": "sudden_death", "base_seconds": -5})),
            "settings.time_control.base_seconds"
        );
        assert_eq!(
            field(json!({"kind": "sudden_death", "base_seconds": 0})),
            "settings.time_control.base_seconds"
        );
        assert_eq!(
            field(json!({"kind": "sudden_death", "base_seconds": 36_001})),
            "settings.time_control.base_seconds"
        );
        assert_eq!(
            field(json!({"kind": "sudden_death", "base_seconds": 1.5})),
            "settings.time_control.base_seconds"
        );
        assert_eq!(
            field(json!({"kind": "fischer", "base_seconds": 60, "increment_seconds": 601})),
            "settings.time_control.increment_seconds"
        );
        assert_eq!(
            field(json!({"kind": "per_move", "seconds": 0})),
            "settings.time_control.seconds"
        );
        assert_eq!(field(json!({"kind": "correspondence"})), "settings.time_control.days");
        assert_eq!(
            field(json!({"kind": "correspondence", "days": 1, "hours": 5})),
            "settings.time_control.days"
        );
        assert_eq!(
            field(json!({"kind": "correspondence", "days": 31})),
            "settings.time_control.days"
        );
        assert_eq!(
            field(json!({"kind": "per_move", "seconds": 30, "base_seconds": 5})),
            "settings.time_control.base_seconds"
        );
    }
}
