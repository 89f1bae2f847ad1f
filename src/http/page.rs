//! The browser pages: the home page (create a table), a table's page (`/t/{id}`, or a page
//! to create one when there is no such table) and the statistics page (`/stats`), all
//! static files from `web/` compiled into the binary.
//! Their scripts and styles are served by [`super::assets`] under `/static/`.

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::error::ApiError;
use crate::app::AppState;
use crate::table::registry::GetError;

const HOME: &str = include_str!("../../web/index.html");
const TABLE: &str = include_str!("../../web/table.html");
const STATS: &str = include_str!("../../web/stats.html");
/// The page for a table id that does not exist: the site's style and a way to create one.
const MISSING: &str = include_str!("../../web/missing.html");

pub async fn home() -> Html<&'static str> {
    Html(HOME)
}

/// `GET /stats`: the statistics of won games per game (the page asks `GET /api/stats/{game}`).
pub async fn stats_page() -> Html<&'static str> {
    Html(STATS)
}

/// How long the "try again" page waits before it reloads itself.
const RETRY_SECONDS: u32 = 10;

/// `GET /t/{id}`: the table's page; the page itself connects to the table's WebSocket.
/// `404` only when the database says there is no such table; while it cannot be asked, a
/// `503` page that says to try again (and does so by itself).
pub async fn table_page(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    match state.tables.get(&id).await {
        Ok(_) => Html(TABLE).into_response(),
        Err(GetError::NotFound) => (
            StatusCode::NOT_FOUND,
            Html(MISSING),
        )
            .into_response(),
        Err(GetError::Unavailable(_)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, RETRY_SECONDS.to_string())],
            Html(format!(
                "<!doctype html><meta http-equiv=\"refresh\" content=\"{RETRY_SECONDS}\"><title>Try again shortly</title>\
                 <p>The table cannot be loaded right now: the server cannot reach its database. \
                 This page tries again by itself in {RETRY_SECONDS} seconds.</p>"
            )),
        )
            .into_response(),
        // Another node is handing the table over: a moment, not ten seconds.
        Err(GetError::Moving) => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "1".to_owned())],
            Html(
                "<!doctype html><meta http-equiv=\"refresh\" content=\"1\"><title>One moment</title>\
                 <p>The table is moving between servers; this page tries again by itself in a second.</p>"
                    .to_owned(),
            ),
        )
            .into_response(),
        Err(GetError::Unreadable(_)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Html("<!doctype html><title>Table unreadable</title><p>This table is stored but cannot be opened. <a href=\"/\">Create another</a>.</p>"),
        )
            .into_response(),
    }
}

pub async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: "not_found",
        message: "No such route; see docs/protocol.md.".into(),
        field: None,
    }
}
