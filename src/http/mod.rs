//! The HTTP side: REST routes for tables, the health check, the pages and their static files.

pub mod assets;
pub mod error;
pub mod health;
pub mod metrics;
pub mod page;
pub mod tables;

use axum::Router;
use axum::routing::{any, get, post};

use crate::app::AppState;

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(metrics::metrics))
        .route("/api/tables", post(tables::create))
        .route("/api/tables/{id}", get(tables::show))
        .route("/ws/tables/{id}", any(crate::ws::upgrade))
        .route("/t/{id}", get(page::table_page))
        .route("/static/{*path}", get(assets::asset))
        .route("/", get(page::home))
        .fallback(page::not_found)
        .with_state(state)
}
