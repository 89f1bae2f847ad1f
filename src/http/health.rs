//! `GET /healthz`: is the server up and its database answering?

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::app::AppState;

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
    });
    (status, Json(body))
}
