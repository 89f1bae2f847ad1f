//! The lobby: people looking for an opponent (quick pairing, open challenges), listed
//! tables with a free seat, and games to watch (docs/protocol.md, section 7).
//!
//! The state every node must agree on lives in PostgreSQL (`store::lobby`): the open seeks,
//! pairing (one function under a lock per pool, which also creates the table), and the
//! listed tables' entries. Each node keeps only what concerns its own lobby connections —
//! who is connected with which token, and which seeks they own — and a copy of the lists,
//! read again once a second while anyone is here ([`view`]) and sent to every connection
//! as one frame when they changed. Pairings reach the nodes of the people paired at once,
//! by `NOTIFY`. See docs/architecture.md, "The
//! lobby", for the choice and its alternatives.
//!
//! - [`pools`]: the time controls offered, and the settings of the tables they make.
//! - [`messages`]: what clients send and what they are answered.
//! - [`view`]: the lists as sent, and the task that keeps them current.
//! - [`publisher`]: listed tables' entries, stored for every node to read.
//! - `requests`: what a lobby connection asks, each answered.

pub mod messages;
pub mod pools;
pub mod publisher;
mod requests;
pub mod view;

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use serde_json::Value;
use uuid::Uuid;

use self::messages::LobbyServerMsg;
use crate::bots::engine::Engines;
use crate::config::Settings;
use crate::games::Seat;
use crate::identity::{PlayerKey, PlayerToken, TokenIssuer};
use crate::store::Store;
use crate::store::lobby::SeekOutcome;
use crate::table::actor::ARRIVAL_WAIT;
use crate::table::msg::{ConnId, Frame};
use crate::table::queue::OutboxSender;

/// The lobby of this node. Cheap to clone.
#[derive(Clone)]
pub struct Lobby {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    node: i32,
    tokens: TokenIssuer,
    grace: Duration,
    refuse_same_address: bool,
    name_max_chars: usize,
    /// The engines `play_bots` may seat (`bots.engines`).
    engines: Engines,
    /// Seeks and accepts per client address.
    limiter: governor::DefaultKeyedRateLimiter<IpAddr>,
    state: Mutex<State>,
    /// The lists as last sent (for a new connection's first frame).
    view: Mutex<view::Lists>,
}

/// Who is in this node's lobby.
#[derive(Default)]
struct State {
    conns: HashMap<ConnId, LobbyConn>,
    /// Open lobby connections per person.
    owners: HashMap<PlayerKey, usize>,
    /// The open seeks this node's people own (registered before they are stored, so that a
    /// pairing announced at once finds its owner).
    seeks: HashMap<Uuid, SeekEntry>,
    /// Pairings announced while none of their person's connections was open (a reload):
    /// told at their next `hello`, if it comes while the table still waits for them.
    undelivered: HashMap<PlayerKey, Vec<(Instant, Frame)>>,
}

/// A seek of this node's people.
struct SeekEntry {
    owner: PlayerKey,
    /// A request about it is in flight (its `seek`, its `play_bots`): a pairing announced
    /// meanwhile waits here for that request's answer, which tells it after its own.
    in_flight: bool,
    early: Option<(String, Seat)>,
}

impl SeekEntry {
    fn new(owner: PlayerKey, in_flight: bool) -> SeekEntry {
        SeekEntry {
            owner,
            in_flight,
            early: None,
        }
    }
}

impl State {
    /// Tells every connection of `owner` that its seek was paired; the connection whose
    /// request paired it (if any) is told with the request's `ref`.
    fn tell_paired(
        &mut self,
        owner: &PlayerKey,
        seek: Uuid,
        table: &str,
        seat: Seat,
        asked: Option<(ConnId, Option<Value>)>,
    ) {
        let paired = |reference| {
            let msg = LobbyServerMsg::Paired {
                seek,
                table: table.to_owned(),
                url: format!("/t/{table}"),
                seat,
                reference,
            };
            Frame::from(msg.to_text())
        };
        let plain = paired(None);
        let mut told = false;
        for (id, conn) in &self.conns {
            if !conn.token.as_ref().is_some_and(|token| token.key() == *owner) {
                continue;
            }
            let frame = match &asked {
                Some((asking, reference)) if asking == id && reference.is_some() => paired(reference.clone()),
                _ => plain.clone(),
            };
            told |= conn.outbox.try_send(frame).is_ok();
        }
        if !told {
            let now = Instant::now();
            self.undelivered.retain(|_, frames| {
                frames.retain(|(at, _)| now.duration_since(*at) < ARRIVAL_WAIT);
                !frames.is_empty()
            });
            self.undelivered.entry(*owner).or_default().push((now, plain));
        }
    }
}

struct LobbyConn {
    outbox: OutboxSender,
    token: Option<PlayerToken>,
}

impl Lobby {
    pub fn new(store: Store, node: i32, tokens: TokenIssuer, engines: Engines, settings: &Settings) -> Lobby {
        let per_minute = NonZeroU32::new(settings.limits.seeks_per_minute).unwrap_or(NonZeroU32::MIN);
        Lobby {
            inner: Arc::new(Inner {
                store,
                node,
                tokens,
                grace: Duration::from_secs(settings.lobby.seek_grace_seconds),
                refuse_same_address: settings.lobby.refuse_same_address,
                name_max_chars: settings.limits.name_max_chars,
                engines,
                limiter: governor::RateLimiter::keyed(governor::Quota::per_minute(per_minute)),
                state: Mutex::default(),
                view: Mutex::default(),
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether anyone is in this node's lobby.
    pub fn has_connections(&self) -> bool {
        !self.state().conns.is_empty()
    }

    /// A new lobby connection: it is sent the whole lobby.
    pub fn join(&self, conn: ConnId, outbox: OutboxSender) {
        // Under the state's lock: lists read again meanwhile are broadcast after the
        // connection is in (at worst it hears of a change twice, never not at all).
        let mut state = self.state();
        let first = self
            .inner
            .view
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .first_frame();
        let _ = outbox.try_send(first);
        state.conns.insert(conn, LobbyConn { outbox, token: None });
        drop(state);
        crate::metrics::lobby_connections(1);
    }

    /// A lobby connection closed: its person's seeks end after the grace unless another
    /// of their connections is open then.
    pub fn leave(&self, conn: ConnId) {
        let key = {
            let mut state = self.state();
            let Some(gone) = state.conns.remove(&conn) else { return };
            let Some(key) = gone.token.map(|token| token.key()) else {
                crate::metrics::lobby_connections(-1);
                return;
            };
            let left = state.owners.get_mut(&key).map(|count| {
                *count = count.saturating_sub(1);
                *count
            });
            if left == Some(0) {
                state.owners.remove(&key);
            }
            (left == Some(0) && state.seeks.values().any(|entry| entry.owner == key)).then_some(key)
        };
        crate::metrics::lobby_connections(-1);
        let Some(key) = key else { return };
        let lobby = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(lobby.inner.grace).await;
            if lobby.state().owners.contains_key(&key) {
                return;
            }
            match lobby
                .inner
                .store
                .end_seeks(key.as_bytes(), lobby.inner.node, None)
                .await
            {
                Ok(ended) => {
                    let mut state = lobby.state();
                    state.seeks.retain(|_, entry| entry.owner != key);
                    if !ended.is_empty() {
                        tracing::debug!(count = ended.len(), "seeks ended: their owner left the lobby");
                    }
                }
                Err(err) => tracing::warn!(error = %err, "could not end the seeks of someone who left the lobby"),
            }
        });
    }

    /// Sends a frame to every lobby connection of this node; a connection that cannot take
    /// it is dropped (its task closes it as too slow).
    pub fn broadcast(&self, frame: &Frame) {
        let mut state = self.state();
        state
            .conns
            .retain(|_, conn| conn.outbox.try_send(frame.clone()).is_ok());
    }

    /// Seeks of this node paired (announced by `NOTIFY`, from this node or another): their
    /// owners' connections are told where to go (or, while a request about the seek is in
    /// flight, its answer will tell them).
    pub fn paired(&self, table: &str, seeks: &[(Uuid, Seat)]) {
        let mut state = self.state();
        for (seek, seat) in seeks {
            match state.seeks.get_mut(seek) {
                Some(entry) if entry.in_flight => entry.early = Some((table.to_owned(), *seat)),
                Some(_) => {
                    if let Some(entry) = state.seeks.remove(seek) {
                        state.tell_paired(&entry.owner, *seek, table, *seat, None);
                    }
                }
                None => {}
            }
        }
    }

    /// The answer to a request about seek `id` came (`outcome`): the pairing it made, or one
    /// announced meanwhile, is told to the person; `reply` is sent first otherwise.
    fn settle(&self, conn: ConnId, id: Uuid, outcome: &SeekOutcome, reference: &Option<Value>) -> bool {
        let mut state = self.state();
        let paired = match outcome {
            SeekOutcome::Paired { table, seat } => Some((table.clone(), *seat)),
            _ => None,
        };
        let Some(entry) = state.seeks.get_mut(&id) else {
            return false;
        };
        entry.in_flight = false;
        let Some((table, seat)) = paired.or_else(|| entry.early.take()) else {
            return false;
        };
        let owner = entry.owner;
        state.seeks.remove(&id);
        let asked = paired_by_request(outcome).then(|| (conn, reference.clone()));
        state.tell_paired(&owner, id, &table, seat, asked);
        true
    }
}

/// Whether the request itself paired the seek (rather than someone else's).
fn paired_by_request(outcome: &SeekOutcome) -> bool {
    matches!(outcome, SeekOutcome::Paired { .. })
}
