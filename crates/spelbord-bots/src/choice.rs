//! Which computer player holds a seat: one of our own bots at a [`Strength`], or an external
//! engine the operator configured ([`crate::engine`]), named on the wire `engine:NAME`.
//!
//! A [`BotChoice`] is what a seat, a table's `bots` setting and `add_bot` carry. It is `Copy`
//! (an engine's name is kept inline, at most [`EngineName::MAX`] bytes), so seats stay cheap
//! to clone. Whether an engine of that name is configured for the table's game is not this
//! type's business: [`crate::engine::Engines::check`] answers that.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::Strength;

/// The wire prefix of an engine: `engine:fairy`.
pub const ENGINE_PREFIX: &str = "engine:";

/// A configured engine's name: 1 to [`EngineName::MAX`] characters of `a`–`z`, `0`–`9`,
/// `_` and `-` (the key of `[bots.engines.NAME]`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EngineName {
    /// How many of `bytes` are the name.
    len: u8,
    /// The name's ASCII bytes, zero-padded.
    bytes: [u8; EngineName::MAX],
}

impl EngineName {
    /// The longest name.
    pub const MAX: usize = 24;

    /// The name, if `text` is one.
    pub fn new(text: &str) -> Option<EngineName> {
        let valid = (1..=EngineName::MAX).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !valid {
            return None;
        }
        let mut bytes = [0; EngineName::MAX];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Some(EngineName {
            len: u8::try_from(text.len()).ok()?,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored (see `new`).
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl Ord for EngineName {
    /// Alphabetical.
    fn cmp(&self, other: &EngineName) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for EngineName {
    fn partial_cmp(&self, other: &EngineName) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for EngineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A computer player: our bot at a strength, or a configured engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BotChoice {
    Bot(Strength),
    Engine(EngineName),
}

impl From<Strength> for BotChoice {
    fn from(strength: Strength) -> BotChoice {
        BotChoice::Bot(strength)
    }
}

impl BotChoice {
    /// The wire name: `"hard"`, `"engine:fairy"`.
    pub fn id(self) -> Cow<'static, str> {
        match self {
            BotChoice::Bot(strength) => Cow::Borrowed(strength.id()),
            BotChoice::Engine(name) => Cow::Owned(format!("{ENGINE_PREFIX}{name}")),
        }
    }

    /// Reads a wire name; an engine name is only checked for its form here.
    pub fn from_id(id: &str) -> Option<BotChoice> {
        match id.strip_prefix(ENGINE_PREFIX) {
            Some(name) => EngineName::new(name).map(BotChoice::Engine),
            None => Strength::from_id(id).map(BotChoice::Bot),
        }
    }

    /// Our own strength, if the seat holds our bot.
    pub fn strength(self) -> Option<Strength> {
        match self {
            BotChoice::Bot(strength) => Some(strength),
            BotChoice::Engine(_) => None,
        }
    }

    /// The strength our code stands in with for this player: its own, or `hard` for an
    /// engine (its fallback when the engine fails, its draw answers, its fixed rating).
    pub fn stand_in(self) -> Strength {
        self.strength().unwrap_or(Strength::Hard)
    }

    /// The name a bot is shown with at the table: `Computer (hard)`, `Engine (fairy)`
    /// (the browser shows an engine by its configured name, from `GET /api/bots`).
    pub fn player_name(self) -> String {
        match self {
            BotChoice::Bot(strength) => strength.player_name(),
            BotChoice::Engine(name) => format!("Engine ({name})"),
        }
    }
}

impl fmt::Display for BotChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

impl Serialize for BotChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id())
    }
}

impl<'de> Deserialize<'de> for BotChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BotChoice, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        BotChoice::from_id(&text).ok_or_else(|| {
            de::Error::custom(format!(
                "unknown strength \"{}\": one of \"random\", \"easy\", \"medium\", \"hard\" or \"engine:NAME\"",
                text.chars().take(40).collect::<String>()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_read_back() {
        for id in ["random", "easy", "medium", "hard", "engine:fairy", "engine:a-b_9"] {
            let choice = BotChoice::from_id(id).unwrap();
            assert_eq!(choice.id(), id);
            let json = serde_json::to_value(choice).unwrap();
            assert_eq!(serde_json::from_value::<BotChoice>(json).unwrap(), choice);
        }
        assert_eq!(BotChoice::from_id("hard"), Some(BotChoice::Bot(Strength::Hard)));
    }

    #[test]
    fn malformed_engine_names_are_refused() {
        let long = format!("engine:{}", "a".repeat(EngineName::MAX + 1));
        for id in [
            "engine:",
            "engine:Fairy",
            "engine:a b",
            "engine:é",
            long.as_str(),
            "Hard",
            "engine",
        ] {
            assert_eq!(BotChoice::from_id(id), None, "{id}");
        }
        assert!(serde_json::from_value::<BotChoice>(serde_json::json!("engine:")).is_err());
        assert_eq!(
            BotChoice::from_id(&format!("engine:{}", "a".repeat(EngineName::MAX))).map(|c| c.id().len()),
            Some(31)
        );
    }

    #[test]
    fn an_engine_stands_in_as_hard() {
        assert_eq!(BotChoice::from_id("engine:x").unwrap().stand_in(), Strength::Hard);
        assert_eq!(BotChoice::Bot(Strength::Easy).stand_in(), Strength::Easy);
    }
}
