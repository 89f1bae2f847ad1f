//! What connections and routes send to a table actor.

use axum::extract::ws::Utf8Bytes;
use tokio::sync::{mpsc, oneshot};

use crate::protocol::{Envelope, TableSnapshot};

/// Identifies one WebSocket connection for the lifetime of the process.
pub type ConnId = u64;

/// One serialised server message, shared by every recipient of a broadcast.
pub type Frame = Utf8Bytes;

/// A command to a table actor.
#[derive(Debug)]
pub enum TableCmd {
    /// A connection opened: the actor sends it the snapshot (or, when it says the last
    /// version it saw, the events it missed) and then every event through `outbox`.
    /// Dropping the outbox's sender tells the connection to close.
    Join {
        conn: ConnId,
        outbox: mpsc::Sender<Frame>,
        /// The last version the client saw, and the table epoch it belongs to.
        since: Option<(u64, u32)>,
    },
    /// A connection closed.
    Leave { conn: ConnId },
    /// A well-formed client message from `conn` (boxed: a table's queue allocates room for
    /// 32 commands at once, so the command's size is paid 32 times over by every table).
    Client { conn: ConnId, envelope: Box<Envelope> },
    /// The public snapshot (for `GET /api/tables/{id}`).
    Snapshot { reply: oneshot::Sender<TableSnapshot> },
}
