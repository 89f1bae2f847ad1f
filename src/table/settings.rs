//! A table's settings: the table-level ones (how seats are assigned) and the game's own,
//! read from one flat `settings` object so every error names its field.

use serde_json::{Map, Value};

use super::time_control::TimeControl;
use crate::games::{AnySettings, GameKind, SettingError, SettingsReader, settings_map};

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

/// The validated settings of a table, defaults filled in.
#[derive(Debug, Clone)]
pub struct TableSettings {
    pub seating: Seating,
    pub time_control: TimeControl,
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
        let time_control = TimeControl::read(reader.take("time_control")?)?;
        let game = AnySettings::read(kind, &mut reader)?;
        reader.finish()?;
        Ok(TableSettings {
            seating,
            time_control,
            game,
        })
    }

    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// The settings as one flat object, as stored and shown to clients.
    pub fn to_json(&self) -> Value {
        let mut map = match serde_json::to_value(&self.game) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        map.insert("seating".into(), Value::from(self.seating.as_str()));
        map.insert("time_control".into(), self.time_control.to_json());
        Value::Object(map)
    }
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
        assert_eq!(
            field("gomoku", json!({"time_control": {"kind": "per_move", "seconds": -1}})),
            "settings.time_control.seconds"
        );
    }
}
