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
}
