//! UCI for Bughouse: the engine sees its seat's own board as a crazyhouse FEN with both
//! pockets in brackets (`…/RNBQKBNR[Nq] b KQkq - 0 1`, as Fairy-Stockfish reads it under
//! `UCI_Variant bughouse` or `crazyhouse`), and answers `bestmove e2e4`, `bestmove N@f3`.
//! It knows nothing of the other board (pieces arrive in its pockets as the game goes on).
//!
//! Handshake: `uci` … `uciok`, the variant and the configured `setoption`s, `isready` …
//! `readyok`. Each move: `UCI_Chess960` when the board's castling calls for it changed,
//! `position fen FEN`, `go movetime MS`, and the lines up to `bestmove`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;
use spelbord_games::Seat;
use spelbord_games::bughouse::{Bughouse, board_of};

use super::EngineConfig;
use super::process::EngineProcess;
use super::session::{MIN_MOVE_MS, SessionError, millis_until};

/// Kept back from the move's time for the pipes and the engine's own overhead.
const OVERHEAD_MS: u64 = 30;

/// What the conversation remembers.
#[derive(Debug, Default)]
pub(super) struct Uci {
    /// Whether `UCI_Chess960` is on.
    chess960: bool,
}

impl Uci {
    /// The handshake, answered by `until`.
    pub(super) fn start(
        process: &mut EngineProcess,
        config: &EngineConfig,
        until: Instant,
    ) -> Result<Uci, SessionError> {
        process.send("uci")?;
        wait_for(process, "uciok", until)?;
        process.send(&format!("setoption name UCI_Variant value {}", config.variant))?;
        for (name, value) in &config.options {
            process.send(&format!("setoption name {name} value {value}"))?;
        }
        process.send("isready")?;
        wait_for(process, "readyok", until)?;
        Ok(Uci::default())
    }

    pub(super) fn ask(
        &mut self,
        process: &mut EngineProcess,
        game: &Bughouse,
        seat: Seat,
        deadline: Instant,
        margin: Duration,
    ) -> Result<Value, SessionError> {
        let chess960 = game.chess960_number().is_some();
        if chess960 != self.chess960 {
            process.send(&format!("setoption name UCI_Chess960 value {chess960}"))?;
            self.chess960 = chess960;
        }
        let fen = Fen::from_position(game.position(board_of(seat)), EnPassantMode::Legal);
        process.send(&format!("position fen {fen}"))?;
        let movetime = millis_until(deadline, OVERHEAD_MS + MIN_MOVE_MS) - OVERHEAD_MS;
        process.send(&format!("go movetime {movetime}"))?;
        let hard_stop = Instant::now() + Duration::from_millis(movetime + OVERHEAD_MS) + margin;
        loop {
            let line = process.line(hard_stop)?;
            if let Some(answer) = best_move(&line) {
                return answer;
            }
        }
    }
}

/// Reads lines until one is `expected` (others, such as `id` and `option`, are skipped).
fn wait_for(process: &mut EngineProcess, expected: &str, until: Instant) -> Result<(), SessionError> {
    while process.line(until)?.trim() != expected {}
    Ok(())
}

/// The move of a `bestmove` line, as our payload; `None` for any other line.
pub(super) fn best_move(line: &str) -> Option<Result<Value, SessionError>> {
    let mut words = line.split_whitespace();
    if words.next() != Some("bestmove") {
        return None;
    }
    Some(match words.next() {
        None | Some("(none)" | "0000") => Err(SessionError::NoMove),
        Some(mv) if mv.len() <= 6 && mv.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'@') => {
            Ok(json!({ "uci": mv }))
        }
        Some(mv) => Err(SessionError::Protocol(format!(
            "bestmove {}",
            mv.chars().take(16).collect::<String>()
        ))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_lines_become_payloads() {
        assert_eq!(best_move("info depth 3").map(|r| r.ok()), None);
        assert_eq!(
            best_move("bestmove e2e4 ponder e7e5").unwrap().unwrap(),
            json!({"uci": "e2e4"})
        );
        assert_eq!(best_move("bestmove N@f3").unwrap().unwrap(), json!({"uci": "N@f3"}));
        assert!(matches!(best_move("bestmove (none)"), Some(Err(SessionError::NoMove))));
        assert!(matches!(best_move("bestmove"), Some(Err(SessionError::NoMove))));
        assert!(matches!(
            best_move("bestmove e2e4;rm"),
            Some(Err(SessionError::Protocol(_)))
        ));
    }
}
