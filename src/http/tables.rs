//! `POST /api/tables` (create a table) and `GET /api/tables/{id}` (its public snapshot).
//!
//! Creating takes a JSON body only (`415` otherwise, `413` over [`MAX_BODY_BYTES`]), is
//! rate-limited per client address, and answers links built from `server.public_url` or a
//! checked `Host`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

use super::client::Client;
use super::error::ApiError;
use super::security::{is_plain_host, request_host};
use super::state::AppState;
use crate::protocol::TableSnapshot;
use crate::table::TableSettings;
use crate::table::registry::NewTable;

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

/// The largest body `POST /api/tables` reads (a table's settings are a few hundred bytes).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A JSON request body, by its `Content-Type`: read whole within
/// `limits.request_read_timeout_ms` (however it is dribbled in) and [`MAX_BODY_BYTES`].
pub struct JsonBody(pub(super) Bytes);

impl FromRequest<AppState> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<JsonBody, ApiError> {
        require_json(request.headers())?;
        let within = Duration::from_millis(state.settings.limits.request_read_timeout_ms);
        match tokio::time::timeout(within, Bytes::from_request(request, state)).await {
            Ok(Ok(bytes)) => Ok(JsonBody(bytes)),
            Ok(Err(rejection)) => Err(unreadable_body(&rejection)),
            Err(_) => Err(ApiError {
                status: StatusCode::REQUEST_TIMEOUT,
                code: "request_timeout",
                message: "The body did not arrive in time.".into(),
                field: None,
            }),
        }
    }
}

pub async fn create(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let base = public_base(&state, &client, &headers, &uri)?;
    if state.creations.check_key(&client.limit_key()).is_err() {
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
        .and_then(|settings| settings.check_new_table().map(|()| settings))
        .map_err(|err| ApiError::bad_request("bad_setting", err.sentence(), Some(err.field)))?;
    for (seat, choice) in &settings.bots {
        state.engines.check(settings.kind(), *choice).map_err(|refused| {
            ApiError::bad_request(
                "bad_setting",
                refused.to_string(),
                Some(format!("settings.bots.{seat}")),
            )
        })?;
    }
    let table = state.tables.create_for_any_node(settings).await.map_err(|err| {
        tracing::error!(error = %err, "could not create a table");
        ApiError::unavailable("The table could not be stored; please try again.")
    })?;
    let (id, snapshot) = match table {
        NewTable::Running(table) => {
            let snapshot = table
                .snapshot()
                .await
                .map_err(|_| ApiError::unavailable("The server is shutting down."))?;
            (table.id().to_owned(), snapshot)
        }
        NewTable::Stored { id, snapshot } => (id, *snapshot),
    };
    let websocket = format!("{}/ws/tables/{id}", base.replacen("http", "ws", 1));
    let created = Created {
        url: format!("{base}/t/{id}"),
        id,
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
        .map_err(|err| ApiError::table_lookup(&id, &err))?;
    let snapshot = table
        .snapshot()
        .await
        .map_err(|_| ApiError::unavailable("The server is shutting down."))?;
    Ok(Json(snapshot))
}

/// A table is created from JSON only: an HTML form of another site cannot send
/// `application/json` without the browser asking this server first (which it refuses).
fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(str::trim);
    match essence {
        Some(kind) if kind.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code: "unsupported_media_type",
            message: "Send the table as JSON, with Content-Type: application/json.".into(),
            field: None,
        }),
    }
}

/// The answer when the body could not be read: too large, or cut off.
fn unreadable_body(rejection: &BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: "payload_too_large",
            message: format!("The body is larger than {MAX_BODY_BYTES} bytes."),
            field: None,
        };
    }
    ApiError::bad_request("bad_request", "The body could not be read.", None)
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

/// The scheme and host of shareable links: `server.public_url` when set; otherwise the
/// request's `Host` (which must be a plain `host[:port]`), with `https` when a trusted proxy
/// says the client used TLS.
pub(super) fn public_base(
    state: &AppState,
    client: &Client,
    headers: &HeaderMap,
    uri: &Uri,
) -> Result<String, ApiError> {
    let configured = state.settings.server.public_url.trim_end_matches('/');
    if !configured.is_empty() {
        return Ok(configured.to_owned());
    }
    let host = request_host(headers, uri)
        .filter(|host| is_plain_host(host))
        .ok_or_else(|| {
            ApiError::bad_request(
                "bad_host",
                "The Host header must be a plain host[:port], such as play.example.org or 127.0.0.1:8080.",
                None,
            )
        })?;
    let scheme = if client.https { "https" } else { "http" };
    Ok(format!("{scheme}://{host}"))
}
