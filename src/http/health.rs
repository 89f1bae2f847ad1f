//! `GET /healthz`: is the server up and its database answering, or draining? (Also which
//! node this is, for operators and proxies.)

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::state::AppState;

pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let database = state.store.ping().await;
    let draining = state.tables.is_draining();
    // 404 while draining: HAProxy's `http-check disable-on-404` then sends no new request
    // here but keeps the open connections (a 5xx would cut them).
    let (status, word) = match (draining, database) {
        (true, _) => (StatusCode::NOT_FOUND, "draining"),
        (false, true) => (StatusCode::OK, "ok"),
        (false, false) => (StatusCode::SERVICE_UNAVAILABLE, "degraded"),
    };
    let body = json!({
        "status": word,
        "database": if database { "ok" } else { "unreachable" },
        "tables": state.tables.count(),
        "node": &*state.node_name,
    });
    (status, Json(body))
}
