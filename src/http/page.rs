//! The browser pages: the home page (create a table) and a table's page (`/t/{id}`),
//! both static files from `web/` compiled into the binary. Their scripts and styles are
//! served by [`super::assets`] under `/static/`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::error::ApiError;
use crate::app::AppState;

const HOME: &str = include_str!("../../web/index.html");
const TABLE: &str = include_str!("../../web/table.html");

pub async fn home() -> Html<&'static str> {
    Html(HOME)
}

/// `GET /t/{id}`: the table's page; the page itself connects to the table's WebSocket.
pub async fn table_page(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    if state.tables.get(&id).await.is_none() {
        return (StatusCode::NOT_FOUND, Html("<!doctype html><title>No such table</title><p>There is no such table. <a href=\"/\">Create one</a>.</p>")).into_response();
    }
    Html(TABLE).into_response()
}

pub async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: "not_found",
        message: "No such route; see docs/protocol.md.".into(),
        field: None,
    }
}
