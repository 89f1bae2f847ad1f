//! A conversation with one engine process: started lazily, asked for a move in its own
//! protocol ([`super::uci`], [`super::gomocup`]), and dropped (killed) when it failed, so the
//! next move starts a fresh one.

use std::time::{Duration, Instant};

use serde_json::Value;
use spelbord_games::{AnyGame, Seat};

use super::gomocup::Gomocup;
use super::process::EngineProcess;
use super::uci::Uci;
use super::{EngineConfig, EngineProtocol};

/// Why an engine gave no usable answer. Each is a fallback to our own bot for that move,
/// counted by [`SessionError::reason`].
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no command configured")]
    NoCommand,
    #[error("the engine did not start: {0}")]
    Start(Box<SessionError>),
    #[error("could not start the engine: {0}")]
    Spawn(std::io::Error),
    #[error("the engine exited")]
    Died,
    #[error("the engine did not answer in time")]
    Timeout,
    #[error("the engine answered something unreadable: {0}")]
    Protocol(String),
    #[error("the engine has no move")]
    NoMove,
    #[error("the engine's move is illegal: {0}")]
    Illegal(String),
    #[error("this engine does not play this game")]
    WrongGame,
}

impl SessionError {
    /// The `reason` label of `spelbord_engine_fallbacks_total`.
    pub fn reason(&self) -> &'static str {
        match self {
            SessionError::NoCommand | SessionError::Spawn(_) | SessionError::Start(_) => "start",
            SessionError::Died => "died",
            SessionError::Timeout => "timeout",
            SessionError::Protocol(_) | SessionError::WrongGame => "protocol",
            SessionError::NoMove => "no_move",
            SessionError::Illegal(_) => "illegal",
        }
    }

    /// Whether the process must go (it is dead, hung or confused); an illegal move or no
    /// move leaves a working engine in place.
    pub fn fatal(&self) -> bool {
        !matches!(
            self,
            SessionError::Illegal(_) | SessionError::NoMove | SessionError::WrongGame
        )
    }
}

/// A running engine and what its protocol remembers of the conversation.
pub(super) struct Session {
    process: EngineProcess,
    protocol: Protocol,
}

enum Protocol {
    Uci(Uci),
    Gomocup(Gomocup),
}

impl Session {
    /// Starts the engine and its protocol's handshake.
    pub(super) fn start(config: &EngineConfig) -> Result<Session, SessionError> {
        let mut process = EngineProcess::spawn(config)?;
        let until = Instant::now() + config.start_time();
        let protocol = match config.protocol {
            EngineProtocol::Uci => Protocol::Uci(
                Uci::start(&mut process, config, until).map_err(|err| SessionError::Start(Box::new(err)))?,
            ),
            EngineProtocol::Gomocup => Protocol::Gomocup(Gomocup::default()),
        };
        Ok(Session { process, protocol })
    }

    pub(super) fn alive(&mut self) -> bool {
        self.process.alive()
    }

    pub(super) fn pid(&self) -> u32 {
        self.process.id()
    }

    /// The engine's move for `seat`, as the game's JSON payload (not yet checked against
    /// the rules). It is told to answer by `deadline` (at least [`MIN_MOVE_MS`] from now,
    /// should starting it have eaten the time), and given `margin` more before it counts as
    /// hung.
    pub(super) fn ask(
        &mut self,
        game: &AnyGame,
        seat: Seat,
        deadline: Instant,
        margin: Duration,
    ) -> Result<Value, SessionError> {
        match (&mut self.protocol, game) {
            (Protocol::Uci(uci), AnyGame::Bughouse(game)) => uci.ask(&mut self.process, game, seat, deadline, margin),
            (Protocol::Gomocup(gomocup), AnyGame::Gomoku(game)) => {
                gomocup.ask(&mut self.process, game, seat, deadline, margin)
            }
            _ => Err(SessionError::WrongGame),
        }
    }
}

/// The least time an engine is given for a move, however late it was asked.
pub(super) const MIN_MOVE_MS: u64 = 10;

/// Milliseconds from now until `deadline`, at least `floor`.
pub(super) fn millis_until(deadline: Instant, floor: u64) -> u64 {
    let left = deadline.saturating_duration_since(Instant::now()).as_millis();
    u64::try_from(left).unwrap_or(u64::MAX).max(floor)
}
