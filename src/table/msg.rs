//! What connections and routes send to a table actor.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use tokio::sync::oneshot;

use super::queue::OutboxSender;
use crate::games::Seat;
use crate::identity::PlayerKey;
use crate::protocol::{Envelope, TableSnapshot};

/// Identifies one WebSocket connection for the lifetime of the process.
pub type ConnId = u64;

/// One serialised server message, shared by every recipient of a broadcast. A pointer (8
/// bytes, where the message's own handle is 32), as sockets' queues and the table's history
/// hold many of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame(Arc<Utf8Bytes>);

impl Frame {
    /// What a frame costs beyond its text: the shared block (its two counts and the text's
    /// handle).
    pub const OVERHEAD: usize = 2 * std::mem::size_of::<usize>() + std::mem::size_of::<Utf8Bytes>();

    /// The message, for the WebSocket (no copy).
    pub fn text(&self) -> Utf8Bytes {
        Utf8Bytes::clone(&self.0)
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Frame {
    fn from(text: String) -> Frame {
        Frame(Arc::new(Utf8Bytes::from(text)))
    }
}

impl From<&str> for Frame {
    fn from(text: &str) -> Frame {
        Frame(Arc::new(Utf8Bytes::from(text)))
    }
}

/// A command to a table actor.
#[derive(Debug)]
pub enum TableCmd {
    /// A connection opened: the actor sends it the snapshot (or, when it says the last
    /// version it saw, the events it missed) and then every event through `outbox`.
    /// Dropping the outbox's sender tells the connection to close.
    Join {
        conn: ConnId,
        outbox: OutboxSender,
        /// The last version the client saw, and the table epoch it belongs to.
        since: Option<(u64, u32)>,
        /// The client's address (its /64 for IPv6), the key its bots' searches are shared
        /// out by ([`crate::bots::pool`]).
        address: std::net::IpAddr,
    },
    /// A connection closed.
    Leave { conn: ConnId },
    /// A well-formed client message from `conn` (boxed: a table's queue allocates room for
    /// 32 commands at once, so the command's size is paid 32 times over by every table).
    Client { conn: ConnId, envelope: Box<Envelope> },
    /// The public snapshot (for `GET /api/tables/{id}`).
    Snapshot { reply: oneshot::Sender<TableSnapshot> },
    /// An operator's action, or a mute to tell the table's people of (boxed, as `Client`).
    Moderate(Box<ModerationCmd>),
}

/// An operator's action on one table, or news of a mute (`table::actor::moderation`).
#[derive(Debug, Clone)]
pub enum Moderation {
    /// Aborts the game in play, marks the table closed, tells everyone (`table_closed`),
    /// closes every socket (4000) and stops the table.
    Close,
    /// Frees `seat`: a game in play is aborted and an undecided series ends; the person is
    /// told (`removed`).
    RemoveSeat { seat: Seat, bar: bool },
    /// Lets a person an operator barred take a seat here again.
    Unbar { key: PlayerKey },
    /// Tells the player's connections here that their chat lines are refused (`muted`), or
    /// accepted again.
    Muted {
        key: PlayerKey,
        muted: bool,
        reason: String,
        /// RFC 3339; `None`: until lifted.
        until: Option<String>,
    },
}

/// A [`Moderation`] with where to answer (`None`: nobody waits, as for mutes).
#[derive(Debug)]
pub struct ModerationCmd {
    pub action: Moderation,
    pub reply: Option<oneshot::Sender<Result<Moderated, ModerationError>>>,
}

/// What an operator's action did.
#[derive(Debug, Clone, Default)]
pub struct Moderated {
    /// A game in play was aborted.
    pub game_aborted: bool,
    /// The series in play ended early.
    pub series_ended: bool,
    /// Who was removed from the seat: their name and, for a person, their key.
    pub removed: Option<(String, Option<PlayerKey>)>,
    /// The removed person is barred from the table's seats (never a bot).
    pub barred: bool,
    /// `Unbar` lifted a bar (false: the person was not barred).
    pub unbarred: bool,
}

/// Why an operator's action was refused; nothing changed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ModerationError {
    #[error("this table has no seat {seat}; its seats are 0 to {last}")]
    NoSuchSeat { seat: Seat, last: usize },
    #[error("seat {0} is free")]
    SeatFree(Seat),
    #[error("the change could not be stored; nothing changed")]
    Storage,
}
