//! This process as one node of several (docs/architecture.md, "Several nodes"): a task
//! that renews the node's membership every third of the lease, hands over the tables
//! other nodes ask for (told at once by `NOTIFY`, checked again on every renewal), stops
//! the tables whose lease another node took, and adopts the games in play whose node died
//! or that a draining node offers. On the same `LISTEN` connection it hears of chat mutes
//! (`store::moderation`) and has this node's tables tell the player's connections.
//!
//! A single server is a cluster of one and runs the same task.

use std::time::Duration;

use sqlx::postgres::{PgListener, PgNotification};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::identity::PlayerKey;
use crate::store::Store;
use crate::store::leases::{ADOPT_PREFIX, HANDOFF_CHANNEL, Membership};
use crate::store::moderation::{MODERATION_CHANNEL, MuteNotice};
use crate::table::Tables;
use crate::table::msg::Moderation;

/// Starts the node's task; it returns the membership when the server shuts down, to be
/// given up once every table has stopped ([`Membership::leave`]).
pub fn spawn(
    membership: Membership,
    lease: Duration,
    tables: Tables,
    store: Store,
    shutdown: CancellationToken,
) -> JoinHandle<Membership> {
    tokio::spawn(run(membership, lease, tables, store, shutdown))
}

async fn run(
    mut membership: Membership,
    lease: Duration,
    tables: Tables,
    store: Store,
    shutdown: CancellationToken,
) -> Membership {
    let mut renewals = tokio::time::interval(lease / 3);
    renewals.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut listener: Option<PgListener> = None;
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            notice = next_notice(&mut listener) => match notice {
                Ok(notice) if notice.channel() == MODERATION_CHANNEL => {
                    if let Some(news) = mute_news(&notice) {
                        tables.tell_all(&news);
                    }
                }
                Ok(notice) => match read_notice(&notice, membership.id) {
                    Some(Notice::HandOver(table)) => tables.hand_over(table).await,
                    Some(Notice::Offered(table)) if tables.adopt_offered(table).await => {
                        tracing::info!(table, "took over a game in play from a draining node");
                    }
                    Some(Notice::Offered(_)) | None => {}
                },
                Err(err) => {
                    tracing::warn!(error = %err, "lost the handoff channel; listening again at the next renewal");
                    listener = None;
                }
            },
            _ = renewals.tick() => {
                if listener.is_none() {
                    listener = listen(&store).await;
                }
                renew(&mut membership, &tables, &store).await;
            }
        }
    }
    membership
}

/// One renewal: the node's row, the nodes alive, then its tables against its leases,
/// then orphans.
async fn renew(membership: &mut Membership, tables: &Tables, store: &Store) {
    match membership.renew().await {
        Ok(true) => {}
        Ok(false) => tracing::warn!(node = membership.id, "could not renew this node's membership yet"),
        Err(err) => tracing::warn!(node = membership.id, error = %err, "could not renew this node's membership"),
    }
    match store.live_nodes().await {
        Ok(alive) => tables.set_alone(alive <= 1),
        Err(err) => tracing::warn!(error = %err, "could not count the nodes alive"),
    }
    let read_at = std::time::Instant::now();
    match store.held_leases(membership.id).await {
        Ok(held) => {
            crate::metrics::leases_held(&membership.name, held.len());
            let stopped = tables.reconcile(&held, read_at).await;
            if stopped > 0 {
                tracing::info!(stopped, "tables stopped here to be served by other nodes");
            }
        }
        Err(err) => tracing::warn!(error = %err, "could not read this node's leases"),
    }
    match tables.adopt_orphans().await {
        Ok(0) => {}
        Ok(adopted) => tracing::info!(adopted, "took over games in play whose node died"),
        Err(err) => tracing::warn!(error = %err, "could not look for games in play without a node"),
    }
}

/// Listens for other nodes asking for this node's tables.
async fn listen(store: &Store) -> Option<PgListener> {
    let listening = async {
        let mut listener = PgListener::connect_with(store.pool()).await?;
        listener.listen_all([HANDOFF_CHANNEL, MODERATION_CHANNEL]).await?;
        Ok::<_, sqlx::Error>(listener)
    };
    match listening.await {
        Ok(listener) => Some(listener),
        Err(err) => {
            tracing::warn!(error = %err, "cannot listen for handoff requests; checking at each renewal instead");
            None
        }
    }
}

/// The next handoff request, or never while not listening.
async fn next_notice(listener: &mut Option<PgListener>) -> Result<PgNotification, sqlx::Error> {
    match listener {
        Some(listener) => listener.recv().await,
        None => std::future::pending().await,
    }
}

/// Stops the server (docs/operations.md, "Upgrades"). With other nodes alive it drains
/// first: `/healthz` says so for the notice (the proxy then sends nothing new here), every
/// table moves to the node its clients reconnect to, and games nobody came back for are
/// offered to the other nodes; then, or at the drain's limit, the server shuts down as
/// when alone.
#[derive(Clone)]
pub struct Stopper {
    tables: Tables,
    shutdown: CancellationToken,
    notice: Duration,
    limit: Duration,
}

impl Stopper {
    pub fn new(tables: Tables, shutdown: CancellationToken, notice: Duration, limit: Duration) -> Stopper {
        Stopper {
            tables,
            shutdown,
            notice,
            limit,
        }
    }

    /// Stops the server: drains first when other nodes are alive (at most once: a second
    /// call while draining waits for nothing more and shuts down at once).
    pub async fn stop(&self) {
        if !self.tables.is_alone() && !self.tables.is_draining() {
            let deadline = tokio::time::Instant::now() + self.limit;
            tracing::info!(
                notice_ms = self.notice.as_millis(),
                "draining: the proxy is told, then the tables move"
            );
            self.tables.start_draining();
            tokio::time::sleep_until((tokio::time::Instant::now() + self.notice).min(deadline)).await;
            let drained = self.tables.drain(deadline).await;
            tracing::info!(
                handed_over = drained.handed_over,
                still_held = drained.still_held,
                offered = drained.offered,
                "drained"
            );
        }
        self.stop_now();
    }

    /// Shuts down at once: sockets closed with 1012, tables left to the other nodes or the
    /// next start.
    pub fn stop_now(&self) {
        self.shutdown.cancel();
    }
}

/// A mute or unmute announced on [`MODERATION_CHANNEL`], as the tables are told it.
fn mute_news(notice: &PgNotification) -> Option<Moderation> {
    let notice: MuteNotice = serde_json::from_str(notice.payload()).ok()?;
    Some(Moderation::Muted {
        key: PlayerKey::from_hex(&notice.player_key)?,
        muted: notice.muted,
        reason: notice.reason,
        until: notice.until,
    })
}

/// What a notice on the handoff channel asks of this node.
#[derive(Debug, PartialEq, Eq)]
enum Notice<'a> {
    /// Another node asks this one for the table (payload `"{holder} {table}"`).
    HandOver(&'a str),
    /// A draining node offers a game in play to any node (payload `"adopt {table}"`).
    Offered(&'a str),
}

/// What `payload` asks of node `me`, if anything.
fn read_notice(notice: &PgNotification, me: i32) -> Option<Notice<'_>> {
    read_payload(notice.payload(), me)
}

fn read_payload(payload: &str, me: i32) -> Option<Notice<'_>> {
    if let Some(table) = payload.strip_prefix(ADOPT_PREFIX) {
        return Some(Notice::Offered(table));
    }
    let (holder, table) = payload.split_once(' ')?;
    (holder.parse::<i32>().ok()? == me).then_some(Notice::HandOver(table))
}

#[cfg(test)]
mod tests {
    use super::{Notice, read_payload};

    #[test]
    fn a_node_reads_requests_to_itself_and_offers_to_anyone() {
        assert_eq!(read_payload("7 abcdefgh", 7), Some(Notice::HandOver("abcdefgh")));
        assert_eq!(read_payload("8 abcdefgh", 7), None);
        assert_eq!(read_payload("adopt abcdefgh", 7), Some(Notice::Offered("abcdefgh")));
        assert_eq!(read_payload("nonsense", 7), None);
        assert_eq!(read_payload("x abcdefgh", 7), None);
    }
}
