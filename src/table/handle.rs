//! The cloneable handle through which connections and routes reach one table actor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::msg::{ConnId, Moderated, Moderation, ModerationCmd, ModerationError, TableCmd};
use super::queue::{OutboxSender, Sender};
use crate::games::GameKind;
use crate::protocol::{Envelope, TableSnapshot};
use crate::store::leases::Lease;

/// The table's actor has stopped (the server is shutting down).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the table is closed")]
pub struct TableClosed;

/// What a table's actor shares with its handles.
#[derive(Debug, Default)]
pub struct Shared {
    /// The table's current version, kept by the actor, so a connection can stamp the
    /// errors it sends by itself (malformed frames, rate limiting) without asking.
    pub(super) version: AtomicU64,
    /// An operator closed the table: its connections close with 4000, not 1012.
    pub(super) closed: AtomicBool,
}

/// A handle to a running table. Cheap to clone.
#[derive(Debug, Clone)]
pub struct TableHandle {
    id: Arc<str>,
    commands: Sender<TableCmd>,
    /// The version and the closed mark, kept by the actor.
    shared: Arc<Shared>,
    /// The lease the table is served under (`None`: a table that serves no lease).
    lease: Option<Arc<Lease>>,
    /// Cancelled to make the table stop here so another node can serve it.
    hand_over: CancellationToken,
    /// The game played at the table (the table page loads that game's board only).
    kind: GameKind,
}

impl TableHandle {
    pub(super) fn new(
        id: &str,
        commands: Sender<TableCmd>,
        shared: Arc<Shared>,
        lease: Option<Arc<Lease>>,
        hand_over: CancellationToken,
        kind: GameKind,
    ) -> TableHandle {
        TableHandle {
            id: id.into(),
            commands,
            shared,
            lease,
            hand_over,
            kind,
        }
    }

    /// The game played at the table.
    pub fn kind(&self) -> GameKind {
        self.kind
    }

    /// The lease the table is served under here.
    pub fn lease(&self) -> Option<&Lease> {
        self.lease.as_deref()
    }

    /// Stops the table here, between two of its commands: it closes its sockets (code
    /// 1012, so their clients reconnect through the proxy) and releases its lease.
    pub fn hand_over(&self) {
        self.hand_over.cancel();
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The actor has stopped (idle, handed over, or the server is shutting down).
    pub fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    pub fn version(&self) -> u64 {
        self.shared.version.load(Ordering::Acquire)
    }

    /// An operator closed the table (its actor stops right after).
    pub fn closed_by_operator(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Has the actor carry out an operator's action, and waits for its answer.
    pub async fn moderate(&self, action: Moderation) -> Result<Result<Moderated, ModerationError>, TableClosed> {
        let (reply, answer) = oneshot::channel();
        self.send(TableCmd::Moderate(Box::new(ModerationCmd {
            action,
            reply: Some(reply),
        })))
        .await?;
        answer.await.map_err(|_| TableClosed)
    }

    /// Queues news for the actor without waiting (false: its queue is full or it stopped).
    pub fn try_moderate(&self, action: Moderation) -> bool {
        self.commands
            .try_send(TableCmd::Moderate(Box::new(ModerationCmd { action, reply: None })))
            .is_ok()
    }

    /// Attaches a connection; with `since` (a version and its epoch), it resumes after the
    /// events up to that version.
    pub async fn join(&self, conn: ConnId, outbox: OutboxSender, since: Option<(u64, u32)>) -> Result<(), TableClosed> {
        self.join_from(conn, outbox, since, std::net::Ipv4Addr::UNSPECIFIED.into())
            .await
    }

    /// Joins as [`TableHandle::join`] does, for a client at `address`.
    pub async fn join_from(
        &self,
        conn: ConnId,
        outbox: OutboxSender,
        since: Option<(u64, u32)>,
        address: std::net::IpAddr,
    ) -> Result<(), TableClosed> {
        self.send(TableCmd::Join {
            conn,
            outbox,
            since,
            address,
        })
        .await
    }

    pub async fn leave(&self, conn: ConnId) -> Result<(), TableClosed> {
        self.send(TableCmd::Leave { conn }).await
    }

    pub async fn client(&self, conn: ConnId, envelope: Envelope) -> Result<(), TableClosed> {
        self.send(TableCmd::Client {
            conn,
            envelope: Box::new(envelope),
        })
        .await
    }

    pub async fn snapshot(&self) -> Result<TableSnapshot, TableClosed> {
        let (reply, answer) = oneshot::channel();
        self.send(TableCmd::Snapshot { reply }).await?;
        answer.await.map_err(|_| TableClosed)
    }

    async fn send(&self, cmd: TableCmd) -> Result<(), TableClosed> {
        self.commands.send(cmd).await.map_err(|_| TableClosed)
    }
}
