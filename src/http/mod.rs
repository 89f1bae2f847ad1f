//! The HTTP side: REST routes for tables, the computer players offered ([`bots`]), the admin API ([`admin`]), the health check, the pages and their static files;
//! serving connections ([`serve`]), who the client is ([`client`]), and the headers and
//! checks that protect browsers ([`security`]).

pub mod admin;
pub mod assets;
pub mod bots;
pub mod catalogue;
pub mod client;
pub mod diagram;
pub mod error;
pub mod health;
pub mod lang;
pub mod metrics;
pub mod page;
pub mod records;
pub mod rules;
pub mod security;
pub mod serve;
pub mod state;
pub mod stats;
pub mod tables;
pub mod web_files;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use tower_http::compression::CompressionLayer;

use state::AppState;

/// Every route of the server (`sockets`: the WebSocket routes, from the layer above), with the security headers on every answer and the per-client
/// cap for requests a trusted proxy forwards. Pages and their modules and styles are sent
/// gzip-compressed to browsers that accept it (about a third of their size).
pub fn router(state: AppState, sockets: Router<AppState>) -> Router {
    Router::new()
        .merge(sockets)
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(metrics::metrics))
        .route(
            "/api/tables",
            post(tables::create).layer(DefaultBodyLimit::max(tables::MAX_BODY_BYTES)),
        )
        .route("/api/tables/{id}", get(tables::show))
        .route("/api/bots", get(bots::offered))
        .route("/api/tables/{id}/games", get(records::table_games))
        .route("/api/games/{id}", get(records::game))
        .route("/api/stats/{game}", get(stats::game_stats))
        .route("/api/admin/tables", get(admin::tables))
        .route("/api/admin/tables/{id}/chat", get(admin::chat))
        .route("/api/admin/tables/{id}/close", post(admin::close))
        .route("/api/admin/tables/{id}/seats/{seat}/remove", post(admin::remove_seat))
        .route("/api/admin/tables/{id}/bars/{key}", delete(admin::unbar))
        .route(
            "/api/admin/mutes",
            post(admin::mute).layer(DefaultBodyLimit::max(tables::MAX_BODY_BYTES)),
        )
        .route("/api/admin/mutes/{key}", delete(admin::unmute))
        .route("/api/admin/reports", get(admin::reports))
        .route("/api/admin/drain", post(admin::drain))
        .route("/stats", get(page::stats_page).layer(CompressionLayer::new()))
        .route("/rules/{game}", get(rules::rules_page).layer(CompressionLayer::new()))
        .route("/t/{id}", get(page::table_page).layer(CompressionLayer::new()))
        .route("/new", get(page::new_table_page).layer(CompressionLayer::new()))
        .route(
            "/static/i18n/{file}",
            get(catalogue::client_catalogue).layer(CompressionLayer::new()),
        )
        .route("/static/{*path}", get(assets::asset).layer(CompressionLayer::new()))
        .route("/", get(page::home).layer(CompressionLayer::new()))
        .fallback(page::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            client::admit_forwarded,
        ))
        .layer(axum::middleware::map_response(security::add_headers))
        .with_state(state)
}
