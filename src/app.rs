//! The application: building the shared state, binding, and serving the routes (the
//! HTTP layer's and the sockets') until shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::trace::TraceLayer;

use crate::bots::pool::BotPool;
use crate::config::Settings;
use crate::http::client::Clients;
use crate::http::security::OriginPolicy;
use crate::http::serve::{self, Serving};
use crate::identity::TokenIssuer;
use crate::store::Store;
use crate::store::leases::Membership;
use crate::table::Tables;
use crate::table::actor::{TableLimits, TableServices};
use crate::table::listing::ListingSink;
use crate::table::registry::NodeRole;

pub use crate::cluster::Stopper;
pub use crate::http::state::{AppState, CreationLimiter};

/// The server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("cannot listen on {address}: {source}")]
    Listen { address: String, source: std::io::Error },
    #[error("cannot read the server's secrets from the database: {0}")]
    Database(#[from] crate::store::StoreError),
    #[error("{0}")]
    Engines(#[from] crate::bots::engine::ConfigError),
}

/// A server bound to its port, ready to run.
pub struct App {
    listener: TcpListener,
    state: AppState,
    /// The node's task (`crate::cluster`); it hands back the membership at shutdown.
    node: tokio::task::JoinHandle<Membership>,
}

impl App {
    /// Binds the configured address (port 0 picks a free port) and builds the state.
    pub async fn bind(settings: Settings, store: Store) -> Result<App, BindError> {
        let listener = TcpListener::bind((settings.server.host.as_str(), settings.server.port))
            .await
            .map_err(|source| BindError::Listen {
                address: format!("{}:{}", settings.server.host, settings.server.port),
                source,
            })?;
        let shutdown = CancellationToken::new();
        let tracker = TaskTracker::new();
        // Installed before anything runs, so that what happens before the first scrape counts.
        let metrics = settings.metrics.enabled.then(crate::metrics::install);
        let limits = Arc::new(TableLimits {
            name_max_chars: settings.limits.name_max_chars,
            chat_max_chars: settings.limits.chat_max_chars,
            idle_after: std::time::Duration::from_secs(settings.limits.idle_table_seconds),
            quotas: crate::table::quota::QuotaSettings::from(&settings.limits),
        });
        let engines = crate::bots::engine::Engines::start(&settings.bots.engines)?;
        let bots = BotPool::start(settings.bots.thread_count(), settings.bots.budgets())
            .with_bughouse_pace(settings.bots.bughouse_pace_ms)
            .with_resign(settings.bots.resign)
            .with_engines(engines.clone());
        let secret = store.token_secret().await?;
        let tokens = TokenIssuer::new(secret);
        let (listings, listing_updates) = ListingSink::channel();
        let services = TableServices {
            limits,
            bots,
            tokens: Arc::new(tokens),
            listings,
        };
        // This process joins the cluster (of one, unless other nodes share the database).
        let cluster = &settings.cluster;
        let options = store.pool().connect_options().as_ref().clone();
        let membership = Membership::join(options, &cluster.node_name(), cluster.lease()).await?;
        tracing::info!(node = membership.id, name = %membership.name, "joined as a node");
        let node_name: Arc<str> = membership.name.as_str().into();
        let role = NodeRole {
            id: membership.id,
            handoff_wait: std::time::Duration::from_millis(cluster.handoff_wait_ms),
        };
        // The lobby's tasks run before any table does, so that no listing is missed.
        let lobby = crate::lobby::Lobby::new(store.clone(), membership.id, tokens, engines.clone(), &settings);
        crate::lobby::view::spawn(lobby.clone(), shutdown.clone());
        crate::lobby::publisher::spawn(store.clone(), membership.id, listing_updates, shutdown.clone());
        crate::store::retention::spawn(store.clone(), settings.retention.clone(), shutdown.clone());
        let tables = Tables::new(store.clone(), services, shutdown.clone(), tracker.clone(), role);
        match tables.adopt_orphans().await {
            Ok(0) => {}
            Ok(count) => tracing::info!(count, "rebuilt the tables whose games are in play"),
            Err(err) => tracing::error!(error = %err, "could not look for tables to rebuild"),
        }
        let node = crate::cluster::spawn(
            membership,
            cluster.lease(),
            tables.clone(),
            store.clone(),
            shutdown.clone(),
        );
        let per_minute =
            std::num::NonZeroU32::new(settings.limits.tables_per_minute).unwrap_or(std::num::NonZeroU32::MIN);
        let creations = Arc::new(governor::RateLimiter::keyed(governor::Quota::per_minute(per_minute)));
        forget_quiet_creators(Arc::clone(&creations), shutdown.clone());
        let capacity = serve::capacity(settings.database.max_connections);
        tracing::info!(capacity, "connections the open-file limit allows");
        let clients = Clients::new(
            settings.server.trusted_proxies.clone(),
            settings.server.forwarded_header,
            settings.limits.connections_per_address,
            capacity,
        );
        let origins = Arc::new(OriginPolicy::new(
            &settings.server.public_url,
            settings.server.allowed_origins.clone(),
        ));
        let stopper = Stopper::new(
            tables.clone(),
            shutdown.clone(),
            cluster.drain_notice(),
            cluster.drain_limit(),
        );
        let state = AppState {
            stopper,
            settings: Arc::new(settings),
            store,
            tables,
            shutdown,
            tracker,
            creations,
            metrics,
            clients,
            origins,
            node_name,
            lobby,
            engines,
        };
        Ok(App { listener, state, node })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A token that, when cancelled, shuts the server down at once.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.state.shutdown.clone()
    }

    /// What stops the server in order: draining first when other nodes are alive.
    pub fn stopper(&self) -> Stopper {
        self.state.stopper.clone()
    }

    /// Serves until the shutdown token is cancelled, then waits for every connection, actor
    /// and socket.
    pub async fn run(self) -> std::io::Result<()> {
        let App { listener, state, node } = self;
        let serving = Serving {
            clients: Arc::clone(&state.clients),
            read_timeout: std::time::Duration::from_millis(state.settings.limits.request_read_timeout_ms),
            shutdown: state.shutdown.clone(),
            tracker: state.tracker.clone(),
            router: crate::http::router(state, crate::ws::routes()).layer(TraceLayer::new_for_http()),
        };
        let tracker = serving.tracker.clone();
        serve::serve(listener, serving).await;
        tracker.close();
        tracker.wait().await;
        // Every table has stopped: the node leaves, so its games in play are adopted by
        // the other nodes at once (or by this server when it starts again).
        if let Ok(membership) = node.await {
            membership.leave().await;
        }
        Ok(())
    }
}

/// Every minute, forgets the table-creation pace of the addresses that have not created a
/// table lately: the limiter keeps a cell per address it has seen, which would otherwise
/// grow with every address until the process restarts.
fn forget_quiet_creators(creations: Arc<CreationLimiter>, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let mut minutes = tokio::time::interval(std::time::Duration::from_secs(60));
        minutes.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = minutes.tick() => {
                    creations.retain_recent();
                    creations.shrink_to_fit();
                }
            }
        }
    });
}
