//! The lobby's lists as this node sends them, and the task that keeps them current: it
//! listens on the lobby's channel (`NOTIFY` of every node's pairings) and hands pairings
//! to the connections they concern at once, and reads the lists once a second while this
//! node has lobby connections, sending each connection only the lists that changed, in one
//! frame. (The lists are read, not notified: a `NOTIFY` at every seek, cancel and listing
//! would make each of those commits wait for the one lock PostgreSQL's notifying commits
//! share; docs/benchmarks.md, "The lobby".)

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use sqlx::postgres::{PgListener, PgNotification};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Lobby;
use super::messages::SeekView;
use super::pools::POOLS;
use crate::store::StoreError;
use crate::store::lobby::{LOBBY_CHANNEL, Notice};
use crate::table::msg::Frame;

/// At most one `lobby` frame per connection this often.
pub const LOBBY_EVERY: Duration = Duration::from_secs(1);

/// Every this many ticks the seeks and listings of nodes that died are deleted (and the
/// lists read even with no lobby connection here, so a newcomer's first frame is recent).
const SWEEP_TICKS: u32 = 10;

/// The three lists as JSON arrays, as last sent.
#[derive(Debug, Clone)]
pub struct Lists {
    seeks: Arc<str>,
    tables: Arc<str>,
    games: Arc<str>,
}

impl Default for Lists {
    fn default() -> Lists {
        Lists {
            seeks: "[]".into(),
            tables: "[]".into(),
            games: "[]".into(),
        }
    }
}

impl Lists {
    /// A new connection's first frame: the pools and every list.
    pub fn first_frame(&self) -> Frame {
        let pools = serde_json::to_string(&POOLS).unwrap_or_else(|_| "[]".into());
        Frame::from(format!(
            r#"{{"type":"lobby","pools":{pools},"seeks":{},"tables":{},"games":{}}}"#,
            self.seeks, self.tables, self.games
        ))
    }

    /// The frame telling what changed from `self` to `new`, if anything did.
    fn changes(&self, new: &Lists) -> Option<Frame> {
        let mut parts = Vec::new();
        if self.seeks != new.seeks {
            parts.push(format!(r#""seeks":{}"#, new.seeks));
        }
        if self.tables != new.tables {
            parts.push(format!(r#""tables":{}"#, new.tables));
        }
        if self.games != new.games {
            parts.push(format!(r#""games":{}"#, new.games));
        }
        (!parts.is_empty()).then(|| Frame::from(format!(r#"{{"type":"lobby",{}}}"#, parts.join(","))))
    }
}

/// Starts the task that keeps this node's lobby current.
pub fn spawn(lobby: Lobby, shutdown: CancellationToken) -> JoinHandle<()> {
    tokio::spawn(run(lobby, shutdown))
}

async fn run(lobby: Lobby, shutdown: CancellationToken) {
    let mut ticks = tokio::time::interval(LOBBY_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut listener: Option<PgListener> = None;
    let mut count: u32 = 0;
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            notice = next_notice(&mut listener) => match notice {
                Ok(notice) => heard(&lobby, &notice),
                Err(err) => {
                    tracing::warn!(error = %err, "lost the lobby's channel; listening again in a second");
                    listener = None;
                }
            },
            _ = ticks.tick() => {
                if listener.is_none() {
                    listener = listen(&lobby).await;
                }
                let sweep = count.is_multiple_of(SWEEP_TICKS);
                count = count.wrapping_add(1);
                if sweep {
                    lobby.forget_quiet_addresses();
                    if let Err(err) = lobby.store().clear_dead_lobby_rows().await {
                        tracing::warn!(error = %err, "could not clear the lobby rows of dead nodes");
                    }
                }
                if (sweep || lobby.has_connections())
                    && let Err(err) = refresh(&lobby).await
                {
                    tracing::warn!(error = %err, "could not read the lobby's lists");
                }
            }
        }
    }
}

/// A notice on the lobby's channel: a pairing is handed to its people's connections here.
fn heard(lobby: &Lobby, notice: &PgNotification) {
    let Ok(notice) = serde_json::from_str::<Notice>(notice.payload()) else {
        return;
    };
    if let Some(table) = &notice.paired {
        let seeks: Vec<_> = notice.seeks.iter().map(|seek| (seek.id, seek.seat)).collect();
        lobby.paired(table, &seeks);
    }
}

/// Reads the lists; sends what changed to every connection.
async fn refresh(lobby: &Lobby) -> Result<(), StoreError> {
    let seeks: Vec<SeekView> = lobby
        .store()
        .open_seeks()
        .await?
        .into_iter()
        .filter_map(SeekView::of)
        .collect();
    let (tables, games) = lobby.store().listings().await?;
    let new = Lists {
        seeks: serde_json::to_string(&seeks)?.into(),
        tables: serde_json::to_string(&tables)?.into(),
        games: serde_json::to_string(&games)?.into(),
    };
    let frame = {
        let mut current = lobby.inner.view.lock().unwrap_or_else(PoisonError::into_inner);
        let frame = current.changes(&new);
        *current = new;
        frame
    };
    if let Some(frame) = frame {
        lobby.broadcast(&frame);
    }
    Ok(())
}

async fn listen(lobby: &Lobby) -> Option<PgListener> {
    let listening = async {
        let mut listener = PgListener::connect_with(lobby.store().pool()).await?;
        listener.listen(LOBBY_CHANNEL).await?;
        Ok::<_, sqlx::Error>(listener)
    };
    match listening.await {
        Ok(listener) => Some(listener),
        Err(err) => {
            tracing::warn!(error = %err, "cannot listen on the lobby's channel");
            None
        }
    }
}

async fn next_notice(listener: &mut Option<PgListener>) -> Result<PgNotification, sqlx::Error> {
    match listener {
        Some(listener) => listener.recv().await,
        None => std::future::pending().await,
    }
}
