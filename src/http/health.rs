//! `GET /healthz`: is the server up and its database answering? (Also which node this is,
//! for operators and proxies.)

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::state::AppState;

pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let database = state.store.ping().await;
    let status = if database {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = json!({
        "status": if database { "ok" } else { "degraded" },
        "database": if database { "ok" } else { "unreachable" },
        "tables": state.tables.count(),
        "node": &*state.node_name,
    });
    (status, Json(body))
}
