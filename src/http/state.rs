//! What every route and connection shares ([`AppState`]), made by the application at
//! start and handed to each handler by axum.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::client::Clients;
use super::security::OriginPolicy;
use crate::config::Settings;
use crate::store::Store;
use crate::table::Tables;

/// What every route and connection shares.
#[derive(Clone)]
pub struct AppState {
    /// Stops this node in order (`POST /api/admin/drain`, as SIGTERM does).
    pub stopper: crate::cluster::Stopper,
    pub settings: Arc<Settings>,
    pub store: Store,
    pub tables: Tables,
    /// Cancelled when the server shuts down; actors and sockets watch it.
    pub shutdown: CancellationToken,
    /// Tracks actors and sockets so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Table creations per client address.
    pub creations: Arc<CreationLimiter>,
    /// The process's metrics, rendered by `GET /metrics`; `None` when disabled.
    pub metrics: Option<metrics_exporter_prometheus::PrometheusHandle>,
    /// Who a request's client is (behind trusted proxies) and the connections each holds.
    pub clients: Arc<Clients>,
    /// Which browser origins may open WebSockets.
    pub origins: Arc<OriginPolicy>,
    /// This node's name (`cluster.node_name`), shown by `/healthz`.
    pub node_name: Arc<str>,
    /// This node's lobby (seeks, pairing, the lists).
    pub lobby: crate::lobby::Lobby,
    /// The configured external engines (`bots.engines`): which a table may seat.
    pub engines: crate::bots::engine::Engines,
}

/// Limits how fast one client address (an IPv6 client: its /64; behind a trusted proxy:
/// the forwarded address) may create tables (each is a database row and, while in use, a
/// task).
pub type CreationLimiter = governor::DefaultKeyedRateLimiter<std::net::IpAddr>;
