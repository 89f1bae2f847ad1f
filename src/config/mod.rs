//! Configuration: layered files and environment variables into one typed [`Settings`].
//!
//! Layers, later wins: `config/default.toml` (compiled into the binary, so it runs from
//! anywhere), `config/$APP_ENVIRONMENT.toml` (`local` by default, `production` for
//! deployment; read from `$APP_CONFIG_DIR` or `./config`, optional), `APP__SECTION__KEY`
//! environment variables, and finally the conventional `PORT` and `DATABASE_URL`.

pub mod network;

use std::path::PathBuf;

use serde::Deserialize;

const DEFAULTS: &str = include_str!("../../config/default.toml");

/// Everything the server can be configured with. See `config/default.toml` for each key.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub limits: LimitSettings,
    pub bots: BotSettings,
    pub cluster: ClusterSettings,
    pub lobby: LobbySettings,
    pub retention: RetentionSettings,
    pub metrics: MetricsSettings,
    pub admin: AdminSettings,
    pub log: LogSettings,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    pub host: String,
    pub port: u16,
    /// Base of shareable links; empty means "from the request's Host header".
    pub public_url: String,
    /// Reverse proxies (addresses or networks) whose forwarded client address and scheme
    /// are believed; from anyone else those headers are ignored.
    pub trusted_proxies: network::TrustedProxies,
    /// The header those proxies name the client in: `x-forwarded-for` or `forwarded`.
    pub forwarded_header: network::ForwardedHeader,
    /// Browser origins besides the server's own that may open WebSockets (`*`: any).
    pub allowed_origins: network::AllowedOrigins,
    /// Threads serving connections and tables; 0: one per core (bots think on threads
    /// of their own, `bots.threads`).
    pub worker_threads: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseSettings {
    /// An existing database; empty means "start a private cluster in `local_dir`".
    pub url: String,
    pub local_dir: PathBuf,
    /// Where initdb and pg_ctl live; empty means "search for them".
    pub pg_bin_dir: String,
    pub max_connections: u32,
    /// The records API's and the statistics' own pool, apart from the tables' writes.
    pub read_connections: u32,
    /// How long the group commit may wait for more writes before it stores a batch of
    /// fewer than 16 writes (the group-commit writer's small-batch threshold) while it is busy; 0: never waits
    /// (see docs/operations.md, "The group commit's linger").
    pub batch_linger_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LimitSettings {
    pub messages_per_second: u32,
    pub message_burst: u32,
    pub max_message_bytes: usize,
    pub outgoing_queue: usize,
    pub ping_interval_ms: u64,
    pub silence_timeout_ms: u64,
    pub chat_max_chars: usize,
    pub name_max_chars: usize,
    pub idle_table_seconds: u64,
    pub tables_per_minute: u32,
    /// Seeks and accepts one client address may send the lobby per minute.
    pub seeks_per_minute: u32,
    /// How long a connection may take to send a request's head (from opening, or from the
    /// previous answer) and again its body; then it is closed.
    pub request_read_timeout_ms: u64,
    /// Connections one client address may hold at once; 0: no cap.
    pub connections_per_address: usize,
    /// Games a table may start by agreement a minute (sustained) and at once.
    pub game_starts_per_minute: u32,
    pub game_start_burst: u32,
    /// Games one table may hold.
    pub games_per_table: u32,
    /// Records (moves and take-backs) past which a game allows no more take-backs.
    pub undo_record_limit: u32,
    /// Chat lines one player may send a minute at one table (sustained) and at once.
    pub chat_lines_per_minute: u32,
    pub chat_burst: u32,
}

/// The lobby (docs/protocol.md, section 7).
#[derive(Debug, Clone, Deserialize)]
pub struct LobbySettings {
    /// How long a seek outlives its owner's last lobby connection (a reload).
    pub seek_grace_seconds: u64,
    /// Never pair two people from one client address.
    pub refuse_same_address: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BotSettings {
    /// Search threads; 0 means one less than the CPU cores (at least one).
    pub threads: usize,
    pub easy_ms: u64,
    pub medium_ms: u64,
    pub hard_ms: u64,
    /// Bughouse bots move no faster than this on a fresh clock.
    pub bughouse_pace_ms: u64,
    /// Bots may resign hopeless games (docs/bots.md, "Resigning").
    pub resign: bool,
    /// External engines, by name (`[bots.engines.NAME]`; docs/bots.md, "Engines"): seated
    /// as `engine:NAME` at tables of their game. None by default.
    #[serde(default)]
    pub engines: std::collections::BTreeMap<String, crate::bots::engine::EngineConfig>,
}

/// This node's place among several (see docs/operations.md, "Several nodes").
#[derive(Debug, Clone, Deserialize)]
pub struct ClusterSettings {
    /// Empty: the host name and the process id.
    pub node_name: String,
    /// How long a node that stopped renewing keeps its tables.
    pub lease_seconds: u64,
    /// How long a request waits for another node to hand a table over.
    pub handoff_wait_ms: u64,
    /// Draining (a stop with other nodes alive): how long `/healthz` says so before the
    /// tables move, so that the proxy stops sending new requests here first.
    pub drain_notice_ms: u64,
    /// The longest a drain may take before the node stops all the same.
    pub drain_seconds: u64,
}

impl ClusterSettings {
    /// The configured name, or the host name and process id.
    pub fn node_name(&self) -> String {
        if !self.node_name.is_empty() {
            return self.node_name.clone();
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|name| name.trim().to_owned())
            .unwrap_or_default();
        let host = if host.is_empty() { "node".to_owned() } else { host };
        format!("{host}-{}", std::process::id())
    }

    /// The lease, at least a second.
    pub fn lease(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.lease_seconds.max(1))
    }

    pub fn drain_notice(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.drain_notice_ms)
    }

    pub fn drain_limit(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.drain_seconds)
    }
}

/// What is deleted, and when (see docs/operations.md, "Data retention"). A number of days
/// of 0 keeps that kind of data for good.
#[derive(Debug, Clone, Deserialize)]
pub struct RetentionSettings {
    /// Run the retention job on this node (one node at a time runs a round).
    pub enabled: bool,
    /// Chat lines older than this many days are deleted.
    pub chat_days: u32,
    /// Tables where no game ever started and nobody came for this many days are deleted.
    pub unstarted_table_days: u32,
    /// Tables whose games are all finished and none rated, with no series in play and
    /// nobody there for this many days, are deleted whole (moves, results, chat).
    pub finished_casual_table_days: u32,
    /// Seconds between two rounds of the job.
    pub interval_seconds: u64,
    /// The most rows one statement deletes (chat lines, moves); the sweep reads this many
    /// tables a page and deletes at most a tenth as many tables a transaction.
    pub batch_rows: u32,
}

impl RetentionSettings {
    /// The time between two rounds, at least a second.
    pub fn interval(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.interval_seconds.max(1))
    }
}

/// Who may read `GET /metrics` (see docs/operations.md, "Metrics").
#[derive(Debug, Clone, Deserialize)]
pub struct MetricsSettings {
    /// Collect metrics and serve them; `false` answers `/metrics` with 404.
    pub enabled: bool,
    /// When not empty, any client presenting `Authorization: Bearer TOKEN` may read the
    /// metrics; without it only direct loopback clients may.
    pub token: String,
}

/// Who may use the admin API (`/api/admin/…`, docs/operations.md, "Moderation").
#[derive(Debug, Clone, Deserialize)]
pub struct AdminSettings {
    /// `Authorization: Bearer TOKEN` opens the admin API. Empty: `metrics.token` does, if
    /// that is set; with neither set the admin API is refused to everyone (never opened to
    /// loopback clients alone, since moderation changes state).
    pub token: String,
}

/// How the server logs.
#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `text` (readable, for a terminal) or `json` (one object per line, for a collector).
    pub format: LogFormat,
}

/// The shape of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

impl BotSettings {
    /// Each strength's thinking time at an untimed table.
    pub fn budgets(&self) -> crate::bots::Budgets {
        crate::bots::Budgets {
            easy_ms: self.easy_ms,
            medium_ms: self.medium_ms,
            hard_ms: self.hard_ms,
        }
    }

    /// The number of search threads to start: as configured, or one less than the CPU
    /// cores (at least one), so that a core is always left to the server itself.
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism()
                .map_or(1, usize::from)
                .saturating_sub(1)
                .max(1),
            n => n,
        }
    }
}

/// A configuration that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(#[from] config::ConfigError);

impl Settings {
    /// Reads the layers described in the module doc from the process environment.
    pub fn load() -> Result<Settings, ConfigError> {
        let environment = std::env::var("APP_ENVIRONMENT").unwrap_or_else(|_| "local".into());
        let dir = std::env::var("APP_CONFIG_DIR").unwrap_or_else(|_| "config".into());
        let file = PathBuf::from(dir).join(format!("{environment}.toml"));
        let mut builder = config::Config::builder()
            .add_source(config::File::from_str(DEFAULTS, config::FileFormat::Toml))
            .add_source(config::File::from(file).required(false))
            .add_source(
                config::Environment::with_prefix("APP")
                    .prefix_separator("__")
                    .separator("__"),
            );
        if let Ok(port) = std::env::var("PORT") {
            builder = builder.set_override("server.port", port)?;
        }
        if let Ok(url) = std::env::var("DATABASE_URL") {
            builder = builder.set_override("database.url", url)?;
        }
        builder.build()?.try_deserialize::<Settings>()?.checked()
    }

    /// Checks what the types alone cannot.
    fn checked(self) -> Result<Settings, ConfigError> {
        let url = &self.server.public_url;
        if !url.is_empty() && network::origin_of_url(url).is_none() {
            let message =
                format!("server.public_url: \"{url}\" is not an http(s) URL such as https://play.example.org");
            return Err(config::ConfigError::Message(message).into());
        }
        Ok(self)
    }

    /// The built-in defaults alone (for tests).
    pub fn defaults() -> Result<Settings, ConfigError> {
        Ok(config::Config::builder()
            .add_source(config::File::from_str(DEFAULTS, config::FileFormat::Toml))
            .build()?
            .try_deserialize()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let settings = Settings::defaults().expect("default.toml parses");
        assert_eq!(settings.server.port, 8080);
        assert!(settings.bots.resign, "bots resign hopeless games unless told not to");
        assert!(settings.database.url.is_empty());
        assert!(settings.limits.max_message_bytes >= 1024);
        assert_eq!(settings.bots.budgets(), crate::bots::Budgets::default());
        assert!(settings.retention.enabled);
        assert_eq!(settings.retention.chat_days, 30);
        assert_eq!(settings.retention.unstarted_table_days, 7);
        assert_eq!(settings.retention.finished_casual_table_days, 180);
        assert_eq!(settings.retention.interval(), std::time::Duration::from_secs(600));
        assert_eq!(settings.retention.batch_rows, 500);
    }

    /// The defaults with `toml` layered over them, as a file or environment would be.
    fn with(toml: &str) -> Result<Settings, ConfigError> {
        config::Config::builder()
            .add_source(config::File::from_str(DEFAULTS, config::FileFormat::Toml))
            .add_source(config::File::from_str(toml, config::FileFormat::Toml))
            .build()?
            .try_deserialize::<Settings>()?
            .checked()
    }

    #[test]
    fn lists_may_be_one_comma_separated_string_as_in_the_environment() {
        let settings = with(
            "[server]\ntrusted_proxies = \"10.0.0.1, 192.168.0.0/16\"\nallowed_origins = \"https://a.example, *\"",
        )
        .expect("parses");
        assert!(settings.server.trusted_proxies.contains("192.168.4.2".parse().unwrap()));
        let listed = with("[server]\ntrusted_proxies = [\"::1\"]").expect("parses");
        assert!(listed.server.trusted_proxies.contains("::1".parse().unwrap()));
    }

    #[test]
    fn bad_addresses_origins_and_public_urls_are_named() {
        for (toml, named) in [
            ("[server]\ntrusted_proxies = [\"proxy.local\"]", "proxy.local"),
            ("[server]\nallowed_origins = [\"example.org\"]", "example.org"),
            ("[server]\npublic_url = \"play.example.org\"", "play.example.org"),
            ("[server]\nforwarded_header = \"x-real-ip\"", "x-real-ip"),
        ] {
            let err = with(toml).expect_err(toml).to_string();
            assert!(err.contains(named), "{err}");
        }
    }
}
