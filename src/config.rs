//! Configuration: layered files and environment variables into one typed [`Settings`].
//!
//! Layers, later wins: `config/default.toml` (compiled into the binary, so it runs from
//! anywhere), `config/$APP_ENVIRONMENT.toml` (`local` by default, `production` for
//! deployment; read from `$APP_CONFIG_DIR` or `./config`, optional), `APP__SECTION__KEY`
//! environment variables, and finally the conventional `PORT` and `DATABASE_URL`.

use std::path::PathBuf;

use serde::Deserialize;

const DEFAULTS: &str = include_str!("../config/default.toml");

/// Everything the server can be configured with. See `config/default.toml` for each key.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub limits: LimitSettings,
    pub bots: BotSettings,
    pub metrics: MetricsSettings,
    pub log: LogSettings,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    pub host: String,
    pub port: u16,
    /// Base of shareable links; empty means "from the request's Host header".
    pub public_url: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseSettings {
    /// An existing database; empty means "start a private cluster in `local_dir`".
    pub url: String,
    pub local_dir: PathBuf,
    /// Where initdb and pg_ctl live; empty means "search for them".
    pub pg_bin_dir: String,
    pub max_connections: u32,
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
        Ok(builder.build()?.try_deserialize()?)
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
        assert!(settings.database.url.is_empty());
        assert!(settings.limits.max_message_bytes >= 1024);
        assert_eq!(settings.bots.budgets(), crate::bots::Budgets::default());
    }
}
