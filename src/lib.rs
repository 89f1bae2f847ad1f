//! spelbord (Swedish: game table) is a real-time multiplayer board-game server. Players
//! open a shared table link, take seats and play over WebSockets; the server is the
//! authority on every rule, and keeps tables, moves and results in PostgreSQL.
//!
//! # Layout
//! - [`config`]: layered configuration (files, then environment).
//! - [`app`]: shared state, router, serving until shutdown.
//! - [`http`]: serving connections (timeouts, per-address caps, trusted proxies), REST
//!   routes (create and read tables), health check, browser pages and their modules and
//!   styles (`/static/`), security headers.
//! - [`ws`]: one task per WebSocket connection: parse, rate-limit, forward.
//! - [`protocol`]: every client and server message (documented in `docs/protocol.md`).
//! - [`table`]: one actor per table: seats, the game, versioned events.
//! - [`identity`]: table ids and player tokens (keys: the SHA-256 of a token), below the
//!   table and the store, which both name players by them.
//! - [`series`]: match series, pure: formats, standings, when a series is decided.
//! - [`games`]: the rules of each game, pure code behind one trait (the crate
//!   `spelbord-games`, under `crates/`).
//! - [`bots`]: computer players for every game, and the arena that measures them (the
//!   crate `spelbord-bots`, which needs only the rules).
//! - [`lobby`]: meeting an opponent: seeks, pairing, listed tables and games to watch.
//! - [`records`]: stored games read back, replayed and exported in each game's notation.
//! - [`ratings`]: Glicko-2 ratings per player and game; the bots' fixed ratings.
//! - [`store`]: Postgres (and the private development cluster).
//! - [`perft`]: the `perft` subcommand's counts.
//! - [`metrics`]: every metric's name and the one-line helpers that record them; the
//!   process's Prometheus recorder (rendered by `GET /metrics`).

// Module headers link the private modules they describe: they are read with
// `cargo doc --document-private-items`, where those links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod app;
pub mod cluster;
pub mod config;
pub mod http;
pub mod identity;
pub mod lobby;
pub mod metrics;
pub mod perft;
pub mod protocol;
pub mod ratings;
pub mod records;
pub mod series;
pub mod store;
pub mod table;
pub mod ws;

/// The bots, a crate of their own (`crates/spelbord-bots`).
pub use spelbord_bots as bots;
/// The games' rules, a crate of their own (`crates/spelbord-games`).
pub use spelbord_games as games;
