//! `POST /api/tables` (create a table) and `GET /api/tables/{id}` (its public snapshot).

use axum::Json;
use axum::body::Bytes;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use crate::app::AppState;
use crate::protocol::TableSnapshot;
use crate::table::TableSettings;

/// The body of `POST /api/tables`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateTable {
    game: String,
    settings: Option<Value>,
}

/// The answer to `POST /api/tables`.
#[derive(Debug, Serialize)]
struct Created {
    id: String,
    /// The shareable link to the table's page.
    url: String,
    /// Where to open the table's WebSocket.
    websocket: String,
    table: TableSnapshot,
}

pub async fn create(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    if state.creations.check_key(&client.ip()).is_err() {
        crate::metrics::rate_limited(crate::metrics::Limit::TableCreations);
        return Err(ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            code: "rate_limited",
            message: "Too many tables created from this address; try again in a minute.".into(),
            field: None,
        });
    }
    let request: CreateTable = parse_body(&body)?;
    let settings = TableSettings::read(&request.game, request.settings)
        .map_err(|err| ApiError::bad_request("bad_setting", err.message, Some(err.field)))?;
    let table = state.tables.create(settings).await.map_err(|err| {
        tracing::error!(error = %err, "could not create a table");
        ApiError::unavailable("The table could not be stored; please try again.")
    })?;
    let snapshot = table
        .snapshot()
        .await
        .map_err(|_| ApiError::unavailable("The server is shutting down."))?;
    let base = public_base(&state, &headers);
    let websocket = format!("{}/ws/tables/{}", base.replacen("http", "ws", 1), table.id());
    let created = Created {
        id: table.id().to_owned(),
        url: format!("{base}/t/{}", table.id()),
        websocket,
        table: snapshot,
    };
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

pub async fn show(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<TableSnapshot>, ApiError> {
    let table = state
        .tables
        .get(&id)
        .await
        .ok_or_else(|| ApiError::table_not_found(&id))?;
    let snapshot = table
        .snapshot()
        .await
        .map_err(|_| ApiError::unavailable("The server is shutting down."))?;
    Ok(Json(snapshot))
}

/// Reads a JSON body, naming the field at fault where serde can tell.
fn parse_body(body: &[u8]) -> Result<CreateTable, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|err| ApiError::bad_request("malformed_json", format!("The body is not valid JSON: {err}."), None))?;
    let Value::Object(map) = &value else {
        return Err(ApiError::bad_request(
            "bad_request",
            "The body must be a JSON object such as {\"game\": \"gomoku\"}.",
            None,
        ));
    };
    if let Some(unknown) = map.keys().find(|key| !matches!(key.as_str(), "game" | "settings")) {
        return Err(ApiError::bad_request(
            "bad_request",
            "Unknown field; a table is created with \"game\" and optional \"settings\".",
            Some(unknown.clone()),
        ));
    }
    match map.get("game") {
        Some(Value::String(_)) => {}
        _ => {
            return Err(ApiError::bad_request(
                "bad_request",
                "\"game\" is required and must be a game id such as \"gomoku\".",
                Some("game".into()),
            ));
        }
    }
    serde_json::from_value(value)
        .map_err(|err| ApiError::bad_request("bad_request", format!("{err}."), Some("settings".into())))
}

/// The scheme and host of shareable links: configured, or from the request's `Host`
/// header (and `X-Forwarded-Proto: https` from a TLS-terminating proxy).
fn public_base(state: &AppState, headers: &HeaderMap) -> String {
    let configured = state.settings.server.public_url.trim_end_matches('/');
    if !configured.is_empty() {
        return configured.to_owned();
    }
    let header_text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .filter(|value| !value.is_empty() && value.bytes().all(|b| b.is_ascii_graphic()))
    };
    let host = header_text(header::HOST.as_str()).unwrap_or("localhost");
    let scheme = match header_text(X_FORWARDED_PROTO) {
        Some(proto) if proto.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}")
}

const X_FORWARDED_PROTO: &str = "x-forwarded-proto";
