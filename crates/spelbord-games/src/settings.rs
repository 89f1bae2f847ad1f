//! Reading a table's `settings` object key by key, so every error names its field.
//!
//! The table and the game each take the keys they know; whatever is left over is an
//! unknown setting. Values are checked one by one, so `{"board_size": 17}` is refused as
//! `settings.board_size` with the allowed values, not as an opaque parse error.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A setting that is unknown, of the wrong type or out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SettingError {
    /// The offending field, as a path from the request body (`settings.board_size`).
    pub field: String,
    pub message: String,
}

impl SettingError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SettingError {
        SettingError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The error as a sentence for people, in the style of every other refusal: a message
    /// that says something of the setting ("must be one of 15, 19") gets the setting as its
    /// subject ("Board size must be one of 15, 19."); an unknown key is quoted as sent
    /// ("\"colour\" is not a setting of this game."); any other message is capitalised. The
    /// field's path stays in [`SettingError::field`].
    pub fn sentence(&self) -> String {
        const PREDICATES: [&str; 5] = ["must ", "is ", "has ", "needs ", "are "];
        let message = self.message.trim().trim_end_matches('.');
        let text = if PREDICATES.iter().any(|verb| message.starts_with(verb)) {
            format!("{} {message}", self.subject(message))
        } else {
            capitalised(message)
        };
        format!("{text}.")
    }

    /// What a predicate message speaks of: the key as sent when the message refuses the key
    /// itself ("is not a setting", "is not a seat"), the seat a number names, or else the
    /// last part of the field's path in words.
    fn subject(&self, message: &str) -> String {
        let last = self.field.rsplit('.').next().unwrap_or(&self.field);
        if message.starts_with("is not a ") {
            format!("\"{last}\"")
        } else if !last.is_empty() && last.chars().all(|c| c.is_ascii_digit()) {
            format!("Seat {last}")
        } else {
            capitalised(&last.replace('_', " "))
        }
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Takes known keys out of a settings object; see the module doc.
#[derive(Debug)]
pub struct SettingsReader {
    remaining: Map<String, Value>,
}

impl SettingsReader {
    pub fn new(settings: Map<String, Value>) -> SettingsReader {
        SettingsReader { remaining: settings }
    }

    /// Takes `key`, decoding it as `T`; `None` when absent (or null).
    pub fn take<T: DeserializeOwned>(&mut self, key: &str) -> Result<Option<T>, SettingError> {
        match self.remaining.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => T::deserialize(value)
                .map(Some)
                .map_err(|err| SettingError::new(field(key), err.to_string())),
        }
    }

    /// Takes a string-valued `key` that must be one of `allowed` (first is the default).
    pub fn take_choice(&mut self, key: &str, allowed: &[&'static str]) -> Result<&'static str, SettingError> {
        let Some(value) = self.take::<String>(key)? else {
            return Ok(allowed[0]);
        };
        allowed
            .iter()
            .copied()
            .find(|choice| *choice == value)
            .ok_or_else(|| SettingError::new(field(key), format!("must be one of {}", quoted(allowed))))
    }

    /// Takes an integer `key` that must be one of `allowed` (first is the default).
    pub fn take_int_choice(&mut self, key: &str, allowed: &[u32]) -> Result<u32, SettingError> {
        let out_of_range = || {
            let list: Vec<String> = allowed.iter().map(u32::to_string).collect();
            SettingError::new(field(key), format!("must be one of {}", list.join(", ")))
        };
        let Some(value) = self.take::<Value>(key)? else {
            return Ok(allowed[0]);
        };
        let number = value.as_u64().ok_or_else(out_of_range)?;
        allowed
            .iter()
            .copied()
            .find(|choice| u64::from(*choice) == number)
            .ok_or_else(out_of_range)
    }

    /// Fails on the first key nobody took.
    pub fn finish(self) -> Result<(), SettingError> {
        match self.remaining.keys().next() {
            None => Ok(()),
            Some(key) => Err(SettingError::new(field(key), "is not a setting of this game")),
        }
    }
}

#[cfg(test)]
impl SettingsReader {
    /// A reader over a JSON object written with `json!` (tests only).
    pub(crate) fn of(value: Value) -> SettingsReader {
        match value {
            Value::Object(map) => SettingsReader::new(map),
            other => panic!("settings in tests are objects, not {other}"),
        }
    }
}

fn field(key: &str) -> String {
    format!("settings.{key}")
}

fn quoted(choices: &[&str]) -> String {
    choices
        .iter()
        .map(|choice| format!("\"{choice}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn choice_defaults_to_first_and_refuses_others() {
        let mut r = SettingsReader::of(json!({"opening": "diagonal"}));
        assert_eq!(r.take_choice("variant", &["free", "exact5"]), Ok("free"));
        let err = r.take_choice("opening", &["center", "free"]).unwrap_err();
        assert_eq!(err.field, "settings.opening");
        assert!(err.message.contains("\"center\""), "{}", err.message);
    }

    #[test]
    fn int_choice_refuses_out_of_range_and_wrong_type() {
        let mut r = SettingsReader::of(json!({"a": 17, "b": "15", "c": 19}));
        assert_eq!(r.take_int_choice("a", &[15, 19]).unwrap_err().field, "settings.a");
        assert_eq!(r.take_int_choice("b", &[15, 19]).unwrap_err().field, "settings.b");
        assert_eq!(r.take_int_choice("c", &[15, 19]), Ok(19));
        assert_eq!(r.take_int_choice("d", &[15, 19]), Ok(15));
    }

    #[test]
    fn leftover_key_is_named() {
        let mut r = SettingsReader::of(json!({"variant": "free", "colour": "red"}));
        r.take_choice("variant", &["free"]).unwrap();
        assert_eq!(r.finish().unwrap_err().field, "settings.colour");
    }

    #[test]
    fn errors_read_as_sentences() {
        let cases = [
            (
                "settings.board_size",
                "must be one of 15, 19",
                "Board size must be one of 15, 19.",
            ),
            (
                "settings.colour",
                "is not a setting of this game",
                "\"colour\" is not a setting of this game.",
            ),
            (
                "settings.bots.7",
                "is not a seat: this game has seats 0 to 1",
                "\"7\" is not a seat: this game has seats 0 to 1.",
            ),
            (
                "settings.bots.1",
                "must be one of \"easy\"",
                "Seat 1 must be one of \"easy\".",
            ),
            (
                "game",
                "unknown game \"chess960\"; known games: gomoku",
                "Unknown game \"chess960\"; known games: gomoku.",
            ),
            (
                "settings.time_control.base_seconds",
                "is required (a whole number from 1 to 10800)",
                "Base seconds is required (a whole number from 1 to 10800).",
            ),
            (
                "settings.start_position",
                "the player to move is already checkmated.",
                "The player to move is already checkmated.",
            ),
        ];
        for (field, message, sentence) in cases {
            assert_eq!(SettingError::new(field, message).sentence(), sentence);
        }
    }
}
