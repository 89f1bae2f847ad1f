//! `GET /api/bots`: the computer players a table may seat — our strengths, and the external
//! engines the operator configured (`bots.engines`), each with its game, the name players
//! see and its time per move. The browser lists them beside the strengths.

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::state::AppState;
use crate::bots::Strength;
use crate::bots::engine::EngineInfo;

/// The answer of `GET /api/bots`.
#[derive(Debug, Serialize)]
pub struct BotsOffered {
    /// Our strengths, weakest first: `random`, `easy`, `medium`, `hard`.
    pub strengths: Vec<&'static str>,
    /// The configured engines (`[]` when none), each seated as its `id` (`engine:NAME`) at
    /// tables of its `game`.
    pub engines: Vec<EngineInfo>,
}

pub async fn offered(State(state): State<AppState>) -> Json<BotsOffered> {
    Json(BotsOffered {
        strengths: Strength::ALL.iter().map(|strength| strength.id()).collect(),
        engines: state.engines.list(None),
    })
}
