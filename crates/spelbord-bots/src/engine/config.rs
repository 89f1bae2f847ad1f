//! An engine's configuration (`[bots.engines.NAME]`), as the operator writes it, and its
//! validation: which game it plays, which protocol it speaks, how it is started and limited.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use spelbord_games::GameKind;

use crate::choice::EngineName;

/// The protocol an engine speaks on its standard input and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineProtocol {
    /// UCI with `UCI_Variant` (Bughouse: each seat's own board as a crazyhouse FEN).
    Uci,
    /// The Gomocup (piskvork) protocol for Gomoku.
    Gomocup,
}

impl EngineProtocol {
    /// The one game each protocol is spoken for here.
    pub fn game(self) -> GameKind {
        match self {
            EngineProtocol::Uci => GameKind::Bughouse,
            EngineProtocol::Gomocup => GameKind::Gomoku,
        }
    }
}

/// One engine, as configured.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// The game it plays (`bughouse`, `gomoku`); it is offered at that game's tables only.
    pub game: GameKind,
    pub protocol: EngineProtocol,
    /// The program and its arguments, started without a shell.
    pub command: Vec<String>,
    /// Thinking time per move at an untimed table (on a clock, less when the clock asks
    /// for it, as for our bots).
    pub move_ms: u64,
    /// The name players see (`Fairy-Stockfish`); the key of the section when empty.
    #[serde(default)]
    pub name: String,
    /// Engine processes (each with a thread of its own) shared by every seat it holds.
    #[serde(default = "default_processes")]
    pub processes: usize,
    /// How long after a move's deadline the engine is killed (and our hard bot answers).
    #[serde(default = "default_margin_ms")]
    pub margin_ms: u64,
    /// How long the engine may take to start and answer its handshake.
    #[serde(default = "default_start_ms")]
    pub start_ms: u64,
    /// The child's address-space limit (`RLIMIT_AS`), in MiB; 0: none.
    #[serde(default = "default_memory_mb")]
    pub memory_mb: u64,
    /// The child's CPU-time limit (`RLIMIT_CPU`), in seconds over its whole life: the
    /// kernel kills it past that, and it is started again at its next move; 0: none.
    #[serde(default = "default_cpu_seconds")]
    pub cpu_seconds: u64,
    /// UCI: `UCI_Variant` (`bughouse` by default; `crazyhouse` also works).
    #[serde(default = "default_variant")]
    pub variant: String,
    /// UCI: more `setoption`s sent after the handshake (`Hash = "64"`, `Threads = "1"`).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

fn default_processes() -> usize {
    1
}
fn default_margin_ms() -> u64 {
    500
}
fn default_start_ms() -> u64 {
    5_000
}
fn default_memory_mb() -> u64 {
    1_024
}
fn default_cpu_seconds() -> u64 {
    3_600
}
fn default_variant() -> String {
    "bughouse".to_owned()
}

/// A configuration the server refuses to start with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("bots.engines.{0}: an engine name is 1 to 24 characters of a-z, 0-9, _ and -")]
    Name(String),
    #[error("bots.engines.{name}: protocol {protocol:?} is for {wanted}, not {game}")]
    Protocol {
        name: String,
        protocol: EngineProtocol,
        wanted: &'static str,
        game: &'static str,
    },
    #[error("bots.engines.{0}.command: give the program (and its arguments) as a list")]
    Command(String),
    #[error("bots.engines.{0}.{1}: must be more than 0")]
    Zero(String, &'static str),
    #[error("bots.engines.{0}.{1}: must not contain line breaks")]
    LineBreak(String, &'static str),
}

impl EngineConfig {
    /// Checks the configuration of the engine `key`, and returns its name.
    pub fn validate(&self, key: &str) -> Result<EngineName, ConfigError> {
        let name = EngineName::new(key).ok_or_else(|| ConfigError::Name(key.to_owned()))?;
        if self.protocol.game() != self.game {
            return Err(ConfigError::Protocol {
                name: key.to_owned(),
                protocol: self.protocol,
                wanted: self.protocol.game().id(),
                game: self.game.id(),
            });
        }
        if self.command.first().is_none_or(|program| program.is_empty()) {
            return Err(ConfigError::Command(key.to_owned()));
        }
        for (value, field) in [(self.move_ms, "move_ms"), (self.processes as u64, "processes")] {
            if value == 0 {
                return Err(ConfigError::Zero(key.to_owned(), field));
            }
        }
        let texts = std::iter::once(self.variant.as_str())
            .chain(self.options.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]));
        for text in texts {
            if text.contains(['\n', '\r']) {
                return Err(ConfigError::LineBreak(key.to_owned(), "options"));
            }
        }
        Ok(name)
    }

    /// The name players see.
    pub fn display_name(&self, key: &str) -> String {
        if self.name.is_empty() {
            key.to_owned()
        } else {
            self.name.clone()
        }
    }

    pub fn move_time(&self) -> Duration {
        Duration::from_millis(self.move_ms)
    }

    pub fn margin(&self) -> Duration {
        Duration::from_millis(self.margin_ms)
    }

    pub fn start_time(&self) -> Duration {
        Duration::from_millis(self.start_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fairy() -> EngineConfig {
        toml_like(
            r#"{"game": "bughouse", "protocol": "uci", "command": ["/usr/games/fairy-stockfish"], "move_ms": 500}"#,
        )
    }

    fn toml_like(json: &str) -> EngineConfig {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let config = fairy();
        assert_eq!(config.validate("fairy").map(|n| n.to_string()), Ok("fairy".to_owned()));
        assert_eq!(
            (config.processes, config.margin_ms, config.variant.as_str()),
            (1, 500, "bughouse")
        );
        assert_eq!(config.display_name("fairy"), "fairy");
    }

    #[test]
    fn a_protocol_for_another_game_an_empty_command_or_a_bad_name_is_refused() {
        let mut config = fairy();
        config.game = GameKind::Gomoku;
        assert!(matches!(config.validate("fairy"), Err(ConfigError::Protocol { .. })));
        let mut config = fairy();
        config.command.clear();
        assert_eq!(config.validate("fairy"), Err(ConfigError::Command("fairy".into())));
        assert_eq!(fairy().validate("Fairy"), Err(ConfigError::Name("Fairy".into())));
        let mut config = fairy();
        config.move_ms = 0;
        assert_eq!(
            config.validate("fairy"),
            Err(ConfigError::Zero("fairy".into(), "move_ms"))
        );
        let mut config = fairy();
        config.options.insert("Hash".into(), "1\nquit".into());
        assert!(matches!(config.validate("fairy"), Err(ConfigError::LineBreak(..))));
        assert!(
            serde_json::from_str::<EngineConfig>(
                r#"{"game": "bughouse", "protocol": "uci", "command": ["x"], "move_ms": 1, "shell": true}"#
            )
            .is_err()
        );
    }
}
