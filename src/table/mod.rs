//! Tables: one actor task per table owning its seats, game and connections.
//!
//! - [`actor`]: the loop that alone mutates a table.
//! - [`handle`]: the cloneable handle connections and routes use to reach it.
//! - [`msg`]: the commands the actor accepts.
//! - [`seats`]: who holds which seat.
//! - [`move_list`]: the current game's line, compactly.
//! - [`chat_log`]: the recent table and team chat newcomers are sent.
//! - [`quota`]: how often a table lets its players start games and chat.
//! - [`clock`]: the game's clocks and lag compensation.
//! - [`time_control`]: the time control a host chooses.
//! - [`settings`]: table-level settings and the game's, validated.
//! - [`registry`]: the running tables by id.
//! - [`rotation`]: who plays next when more people than seats are at a table.

pub mod actor;
pub mod chat_log;
pub mod clock;
pub mod handle;
pub mod history;
pub mod listing;
pub mod move_list;
pub mod msg;
pub mod queue;
pub mod quota;
pub mod registry;
pub mod rotation;
pub mod seats;
pub mod settings;
pub mod time_control;

pub use handle::TableHandle;
pub use registry::Tables;
pub use settings::TableSettings;
