//! External engines in any seat: programs the operator names in `[bots.engines.NAME]`
//! (docs/bots.md, "Engines"), seated like a bot strength as `engine:NAME` at tables of the
//! game they are configured for.
//!
//! - [`config`]: what the operator writes, and its checks.
//! - `process`: the child process (no shell, resource limits, killed when dropped).
//! - `session`: one conversation with a process, in its protocol: `uci` (Bughouse) or
//!   `gomocup` (Gomoku).
//! - `worker`: each engine's threads (one per process, never the async workers), its queue,
//!   the rules' check of every answer and the fallback to our hard bot.
//!
//! [`Engines`] is the registry the search pool routes `engine:NAME` searches to; the server
//! asks it which engines a game offers and whether a seat may take one.

pub mod config;
pub(crate) mod gomocup;
mod process;
mod session;
mod uci;
pub(crate) mod worker;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use spelbord_games::GameKind;

pub use config::{ConfigError, EngineConfig, EngineProtocol};
pub use session::SessionError;

use crate::choice::{BotChoice, EngineName};
use worker::{EngineJob, Shared};

/// An engine as players are told of it (`GET /api/bots`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineInfo {
    /// The wire name: `engine:fairy`.
    pub id: String,
    pub game: GameKind,
    /// The name players see: `Fairy-Stockfish`.
    pub name: String,
    /// Its thinking time per move at an untimed table.
    pub move_ms: u64,
}

/// A seat cannot take this engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineRefusal {
    #[error("No engine \"{name}\" is configured for {game}{}", offered_text(offered))]
    Unknown {
        name: String,
        game: &'static str,
        offered: Vec<String>,
    },
}

fn offered_text(names: &[String]) -> String {
    if names.is_empty() {
        ": this server offers none for it.".to_owned()
    } else {
        format!("; offered: {}.", names.join(", "))
    }
}

/// One configured engine: its threads' shared state; they end when the last handle goes.
struct Engine {
    shared: Arc<Shared>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shared.close();
    }
}

/// The configured engines. Cheap to clone.
#[derive(Clone, Default)]
pub struct Engines {
    engines: Arc<BTreeMap<EngineName, Engine>>,
}

impl std::fmt::Debug for Engines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.engines.keys()).finish()
    }
}

impl Engines {
    /// Checks every engine's configuration and starts their threads (each starts its process
    /// at the first move it is asked for).
    pub fn start(configs: &BTreeMap<String, EngineConfig>) -> Result<Engines, ConfigError> {
        let mut engines = BTreeMap::new();
        for (key, config) in configs {
            let name = config.validate(key)?;
            let shared = Arc::new(Shared::new(key, config.clone()));
            worker::start(&shared);
            engines.insert(name, Engine { shared });
        }
        Ok(Engines {
            engines: Arc::new(engines),
        })
    }

    fn config(&self, name: EngineName) -> Option<&EngineConfig> {
        self.engines.get(&name).map(|engine| engine.shared.config())
    }

    /// Whether a seat at a table of `game` may take `choice`: any strength of ours, or an
    /// engine configured for that game.
    pub fn check(&self, game: GameKind, choice: BotChoice) -> Result<(), EngineRefusal> {
        let BotChoice::Engine(name) = choice else {
            return Ok(());
        };
        match self.config(name) {
            Some(config) if config.game == game => Ok(()),
            _ => Err(EngineRefusal::Unknown {
                name: name.to_string(),
                game: game.id(),
                offered: self.list(Some(game)).into_iter().map(|info| info.id).collect(),
            }),
        }
    }

    /// The engines offered, for one game or all.
    pub fn list(&self, game: Option<GameKind>) -> Vec<EngineInfo> {
        self.engines
            .iter()
            .map(|(name, engine)| (name, engine.shared.config()))
            .filter(|(_, config)| game.is_none_or(|game| config.game == game))
            .map(|(name, config)| EngineInfo {
                id: BotChoice::Engine(*name).id().into_owned(),
                game: config.game,
                name: config.display_name(name.as_str()),
                move_ms: config.move_ms,
            })
            .collect()
    }

    /// Moves our hard bot answered for the engine `name` since it started.
    pub fn fallbacks(&self, name: EngineName) -> u64 {
        self.engines.get(&name).map_or(0, |engine| engine.shared.fallbacks())
    }

    /// An engine's thinking time per move at an untimed table.
    pub fn move_time(&self, name: EngineName) -> Option<Duration> {
        self.config(name).map(EngineConfig::move_time)
    }

    /// The engine's decision for `seat`, waiting for it on this thread (the arena's way;
    /// tables get theirs on their channel through the search pool). `None` when no such
    /// engine is configured or its thread is gone.
    pub fn decide_blocking(
        &self,
        name: EngineName,
        game: &spelbord_games::AnyGame,
        seat: spelbord_games::Seat,
        context: &crate::Context,
    ) -> Option<crate::Decision<serde_json::Value>> {
        let (reply, mut answers) = tokio::sync::mpsc::unbounded_channel();
        let job = EngineJob {
            game: game.clone(),
            seat,
            context: context.clone(),
            ticket: 0,
            owner: std::net::IpAddr::from([127, 0, 0, 1]),
            reply,
            queued_at: std::time::Instant::now(),
            span: tracing::Span::current(),
        };
        self.submit(name, job).ok()?;
        answers.blocking_recv()?.decision
    }

    /// Queues a move for the engine; gives the job back when no such engine is configured.
    pub(crate) fn submit(&self, name: EngineName, job: EngineJob) -> Result<(), Box<EngineJob>> {
        match self.engines.get(&name) {
            Some(engine) => {
                engine.shared.push(job);
                Ok(())
            }
            None => Err(Box::new(job)),
        }
    }
}
