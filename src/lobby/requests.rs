//! What a lobby connection asks (docs/protocol.md, 7.3): `hello`, `seek`, `accept`,
//! `cancel`, `play_bots` and `ping`, each checked, paced, stored through the pairing
//! function, and answered on the connection's outbox.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde_json::Value;
use uuid::Uuid;

use super::messages::{LobbyClientMsg, LobbyServerMsg, RATING_BOUNDS, Range, SeekView};
use super::pools::{self, Pool};
use super::{Lobby, SeekEntry};
use crate::bots::{BotChoice, Strength};
use crate::games::{GameKind, Seat};
use crate::identity::{PlayerKey, PlayerToken, new_table_id};
use crate::protocol::ErrorCode;
use crate::store::StoreError;
use crate::store::lobby::{BotSeatJson, BotsRequest, SeekOutcome, SeekRequest};
use crate::table::actor::ARRIVAL_WAIT;
use crate::table::msg::{ConnId, Frame};

/// How many times pairing draws a fresh table id when one is taken.
const ID_ATTEMPTS: usize = 3;

/// `Ok(None)`: nothing to send (the pairing's announcement told the person already).
type Reply = Result<Option<LobbyServerMsg>, (ErrorCode, String)>;

impl Lobby {
    /// Handles one message of a connection; the answer goes to its outbox.
    pub async fn client(&self, conn: ConnId, address: IpAddr, msg: LobbyClientMsg, reference: Option<Value>) {
        let reply = match msg {
            LobbyClientMsg::Ping => Ok(Some(LobbyServerMsg::Pong {
                reference: reference.clone(),
            })),
            LobbyClientMsg::Hello { token } => self.hello(conn, token).await,
            LobbyClientMsg::Seek {
                pool,
                rated,
                name,
                range,
                bots_ok,
            } => {
                let request = Seeking {
                    pool,
                    rated,
                    name,
                    range,
                    bots_ok,
                    target: None,
                };
                self.seek(conn, address, request, reference.clone()).await
            }
            LobbyClientMsg::Accept { seek, name } => self.accept(conn, address, seek, name, reference.clone()).await,
            LobbyClientMsg::Cancel { seek } => self.cancel(conn, seek, reference.clone()).await,
            LobbyClientMsg::PlayBots { seek, strength } => {
                self.play_bots(conn, seek, strength, reference.clone()).await
            }
        };
        let msg = match reply {
            Ok(Some(msg)) => msg,
            Ok(None) => return,
            Err((code, message)) => LobbyServerMsg::Error {
                code,
                message,
                reference,
            },
        };
        self.send(conn, &msg);
    }

    fn send(&self, conn: ConnId, msg: &LobbyServerMsg) {
        if let Some(entry) = self.state().conns.get(&conn) {
            let _ = entry.outbox.try_send(Frame::from(msg.to_text()));
        }
    }

    /// `hello`: binds the token (or a new one) to the connection; `welcome` with the ratings.
    async fn hello(&self, conn: ConnId, token: Option<String>) -> Reply {
        let known = self.state().conns.get(&conn).and_then(|c| c.token.clone());
        let token = match (token, known) {
            (None, Some(known)) => known,
            (None, None) => self.inner.tokens.issue(),
            (Some(given), known) => {
                let given = PlayerToken::parse(&given).map_err(|err| (ErrorCode::BadToken, format!("{err}.")))?;
                if known.as_ref().is_some_and(|known| *known != given) {
                    return Err((
                        ErrorCode::BadToken,
                        "This connection already presented another token; open a new connection to switch players."
                            .into(),
                    ));
                }
                if self.inner.tokens.issued(&given) {
                    given
                } else {
                    self.inner.tokens.issue()
                }
            }
        };
        self.identify(conn, &token);
        self.welcome(&token).await.map(Some)
    }

    /// Binds a token to a connection (once).
    fn identify(&self, conn: ConnId, token: &PlayerToken) {
        let mut state = self.state();
        let Some(entry) = state.conns.get_mut(&conn) else {
            return;
        };
        if entry.token.is_some() {
            return;
        }
        entry.token = Some(token.clone());
        let outbox = entry.outbox.clone();
        *state.owners.entry(token.key()).or_default() += 1;
        // Paired while away: the table still waits for them.
        if let Some(frames) = state.undelivered.remove(&token.key()) {
            for (at, frame) in frames {
                if at.elapsed() < ARRIVAL_WAIT {
                    let _ = outbox.try_send(frame);
                }
            }
        }
    }

    async fn welcome(&self, token: &PlayerToken) -> Result<LobbyServerMsg, (ErrorCode, String)> {
        let key = token.key();
        let mut ratings = serde_json::Map::new();
        for kind in GameKind::ALL {
            let rating = match self.inner.store.ratings(*kind, &[key]).await {
                Ok(found) => found.get(&key).copied().unwrap_or(crate::ratings::NEWCOMER),
                Err(err) => return Err(storage(&err)),
            };
            ratings.insert(kind.id().into(), Value::from(rating.rating.round() as i64));
        }
        let mut seeks: Vec<Uuid> = self
            .state()
            .seeks
            .iter()
            .filter(|(_, entry)| entry.owner == key)
            .map(|(id, _)| *id)
            .collect();
        seeks.sort_unstable();
        Ok(LobbyServerMsg::Welcome {
            token: token.expose().to_owned(),
            ratings,
            seeks,
        })
    }

    /// The connection's token, issuing one (and sending `welcome`) if it has none.
    async fn token(&self, conn: ConnId) -> Option<PlayerToken> {
        let known = self.state().conns.get(&conn).map(|c| c.token.clone())?;
        if let Some(token) = known {
            return Some(token);
        }
        let token = self.inner.tokens.issue();
        self.identify(conn, &token);
        if let Ok(welcome) = self.welcome(&token).await {
            self.send(conn, &welcome);
        }
        Some(token)
    }

    /// Forgets the pace of addresses that have not sought lately (the limiter keeps a cell
    /// per address otherwise).
    pub fn forget_quiet_addresses(&self) {
        self.inner.limiter.retain_recent();
        self.inner.limiter.shrink_to_fit();
    }

    fn check_pace(&self, address: IpAddr) -> Result<(), (ErrorCode, String)> {
        if self.inner.limiter.check_key(&address).is_err() {
            crate::metrics::rate_limited(crate::metrics::Limit::Seeks);
            return Err((
                ErrorCode::TooManySeeks,
                "Too many seeks from your address; wait a moment and try again.".into(),
            ));
        }
        Ok(())
    }

    /// A name as the table takes it: trimmed, without invisible characters, at most the
    /// configured length, no control characters; "Player" when none is given.
    fn clean_name(&self, name: Option<String>) -> Result<String, (ErrorCode, String)> {
        let name: String = name
            .unwrap_or_default()
            .chars()
            .filter(|c| !crate::table::actor::is_format_char(*c))
            .collect();
        let name = name.trim();
        if name.chars().count() > self.inner.name_max_chars || name.chars().any(char::is_control) {
            return Err((
                ErrorCode::BadName,
                format!(
                    "A name is at most {} characters, without control characters.",
                    self.inner.name_max_chars
                ),
            ));
        }
        Ok(if name.is_empty() { "Player".into() } else { name.into() })
    }

    async fn seek(&self, conn: ConnId, address: IpAddr, request: Seeking, reference: Option<Value>) -> Reply {
        self.check_pace(address)?;
        let pool = Pool::find(&request.pool).ok_or_else(|| {
            let known: Vec<&str> = pools::POOLS.iter().map(|pool| pool.id).collect();
            (
                ErrorCode::UnknownPool,
                format!(
                    "There is no pool \"{}\"; the pools are {}.",
                    request.pool,
                    known.join(", ")
                ),
            )
        })?;
        if let Some(range) = request.range
            && (range.min > range.max || !RATING_BOUNDS.contains(&range.min) || !RATING_BOUNDS.contains(&range.max))
        {
            return Err((
                ErrorCode::BadRange,
                format!(
                    "A rating range runs from min to max, both from {} to {}.",
                    RATING_BOUNDS.start(),
                    RATING_BOUNDS.end()
                ),
            ));
        }
        let name = self.clean_name(request.name)?;
        let Some(token) = self.token(conn).await else {
            return Err((ErrorCode::BadMessage, "The connection is closing.".into()));
        };
        let key = token.key();
        let settings = pool
            .table_settings(request.rated, &BTreeMap::new())
            .map_err(|err| (ErrorCode::BadMessage, err.sentence()))?
            .to_json();
        let id = Uuid::new_v4();
        self.state().seeks.insert(id, SeekEntry::new(key, true));
        let address_text = address.to_string();
        let mut outcome = Err(StoreError::WriterGone);
        for _ in 0..ID_ATTEMPTS {
            let table_id = new_table_id();
            let seek = SeekRequest {
                id,
                pool: pool.id,
                game: pool.game.id(),
                rated: request.rated,
                key: key.as_bytes(),
                name: &name,
                range: request.range.map(|range| (range.min, range.max)),
                bots_ok: request.bots_ok,
                address: &address_text,
                node: self.inner.node,
                players: i32::from(pool.players),
                target: request.target,
                table_id: &table_id,
                settings: &settings,
                refuse_same_address: self.inner.refuse_same_address,
            };
            outcome = self.inner.store.seek(&seek).await;
            if !is_taken_id(&outcome) {
                break;
            }
        }
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(err) => {
                self.state().seeks.remove(&id);
                return Err(storage(&err));
            }
        };
        crate::metrics::lobby_seek(seek_outcome_label(&outcome));
        match outcome {
            SeekOutcome::Seeking(row) if row.id != id => {
                // The person already had a seek in the pool: that one stands.
                let mut state = self.state();
                state.seeks.remove(&id);
                state.seeks.entry(row.id).or_insert_with(|| SeekEntry::new(key, false));
                drop(state);
                let seek = SeekView::of(row).ok_or_else(|| (ErrorCode::UnknownPool, "Unknown pool.".into()))?;
                Ok(Some(LobbyServerMsg::Seeking { seek, reference }))
            }
            SeekOutcome::Seeking(row) => {
                let seek = SeekView::of(row).ok_or_else(|| (ErrorCode::UnknownPool, "Unknown pool.".into()))?;
                self.send(
                    conn,
                    &LobbyServerMsg::Seeking {
                        seek,
                        reference: reference.clone(),
                    },
                );
                // Paired by someone else before this answer came: told now, after it.
                self.settle(conn, id, &SeekOutcome::Gone, &reference);
                Ok(None)
            }
            SeekOutcome::Paired { .. } => {
                self.settle(conn, id, &outcome, &reference);
                Ok(None)
            }
            other => {
                self.state().seeks.remove(&id);
                Err(refusal(&other))
            }
        }
    }

    async fn accept(
        &self,
        conn: ConnId,
        address: IpAddr,
        seek: Uuid,
        name: Option<String>,
        reference: Option<Value>,
    ) -> Reply {
        let found = self
            .inner
            .store
            .seek_pool(seek)
            .await
            .map_err(|err| storage(&err))?
            .ok_or_else(|| refusal(&SeekOutcome::Gone))?;
        let (pool, rated) = found;
        let request = Seeking {
            pool,
            rated,
            name,
            range: None,
            bots_ok: false,
            target: Some(seek),
        };
        self.seek(conn, address, request, reference).await
    }

    async fn cancel(&self, conn: ConnId, seek: Uuid, reference: Option<Value>) -> Reply {
        let Some(token) = self.state().conns.get(&conn).and_then(|c| c.token.clone()) else {
            return Err(refusal(&SeekOutcome::NotYours));
        };
        let key = token.key();
        match self.state().seeks.get(&seek) {
            Some(entry) if entry.owner != key => return Err(refusal(&SeekOutcome::NotYours)),
            Some(_) => {}
            None => return Err(refusal(&SeekOutcome::Gone)),
        }
        let ended = self
            .inner
            .store
            .end_seeks(key.as_bytes(), self.inner.node, Some(&[seek]))
            .await
            .map_err(|err| storage(&err))?;
        self.state().seeks.remove(&seek);
        if ended.contains(&seek) {
            Ok(Some(LobbyServerMsg::Cancelled {
                seek,
                reason: "cancelled",
                reference,
            }))
        } else {
            // Paired meanwhile: `paired` went out.
            Err(refusal(&SeekOutcome::Gone))
        }
    }

    async fn play_bots(&self, conn: ConnId, seek: Uuid, strength: Option<String>, reference: Option<Value>) -> Reply {
        let strength = match strength.as_deref() {
            None => BotChoice::Bot(Strength::Medium),
            Some(id) => BotChoice::from_id(id)
                .filter(|choice| *choice != BotChoice::Bot(Strength::Random))
                .ok_or_else(|| {
                    (
                        ErrorCode::BadMessage,
                        "\"strength\" is one of easy, medium, hard, or an engine the server offers (engine:NAME)."
                            .into(),
                    )
                })?,
        };
        let Some(token) = self.state().conns.get(&conn).and_then(|c| c.token.clone()) else {
            return Err(refusal(&SeekOutcome::NotYours));
        };
        let key = token.key();
        match self.state().seeks.get_mut(&seek) {
            Some(entry) if entry.owner != key => return Err(refusal(&SeekOutcome::NotYours)),
            Some(entry) => entry.in_flight = true,
            None => return Err(refusal(&SeekOutcome::Gone)),
        }
        let answer = Box::pin(self.fill_with_bots(seek, key, strength)).await;
        let outcome = match answer {
            Ok(outcome) => outcome,
            Err(refused) => {
                self.settle(conn, seek, &SeekOutcome::Gone, &reference);
                return Err(refused);
            }
        };
        if self.settle(conn, seek, &outcome, &reference) {
            return Ok(None);
        }
        Err(refusal(&outcome))
    }

    /// Makes the table of `play_bots`.
    async fn fill_with_bots(
        &self,
        seek: Uuid,
        key: PlayerKey,
        strength: BotChoice,
    ) -> Result<SeekOutcome, (ErrorCode, String)> {
        let (pool_id, _) = self
            .inner
            .store
            .seek_pool(seek)
            .await
            .map_err(|err| storage(&err))?
            .ok_or_else(|| refusal(&SeekOutcome::Gone))?;
        let pool = Pool::find(&pool_id).ok_or_else(|| refusal(&SeekOutcome::Gone))?;
        self.inner
            .engines
            .check(pool.game, strength)
            .map_err(|refused| (ErrorCode::BadMessage, refused.to_string()))?;
        let players = pool.players;
        // The table's settings for 1, 2, ... people, the computer in the seats after them.
        let mut settings_by_people = Vec::new();
        for people in 1..players {
            let bots: BTreeMap<Seat, BotChoice> = (people..players).map(|seat| (seat, strength)).collect();
            let settings = pool
                .table_settings(false, &bots)
                .map_err(|err| (ErrorCode::BadMessage, err.sentence()))?;
            settings_by_people.push(settings.to_json());
        }
        let bots: Vec<BotSeatJson> = (1..players)
            .rev()
            .map(|seat| BotSeatJson {
                seat: i16::from(seat),
                name: strength.player_name(),
                bot: strength.id().into_owned(),
            })
            .collect();
        let mut outcome = Err(StoreError::WriterGone);
        for _ in 0..ID_ATTEMPTS {
            let table_id = new_table_id();
            let request = BotsRequest {
                seek,
                key: key.as_bytes(),
                node: self.inner.node,
                players: i32::from(players),
                table_id: &table_id,
                game: pool.game.id(),
                settings_by_people: &settings_by_people,
                bots: &bots,
            };
            outcome = self.inner.store.play_bots(&request).await;
            if !is_taken_id(&outcome) {
                break;
            }
        }
        outcome.map_err(|err| storage(&err))
    }
}

/// A `seek` or an `accept`, as the lobby handles both.
struct Seeking {
    pool: String,
    rated: bool,
    name: Option<String>,
    range: Option<Range>,
    bots_ok: bool,
    target: Option<Uuid>,
}

fn refusal(outcome: &SeekOutcome) -> (ErrorCode, String) {
    match outcome {
        SeekOutcome::Gone | SeekOutcome::Paired { .. } | SeekOutcome::Seeking(_) => (
            ErrorCode::SeekGone,
            "That seek is no longer open: it was paired or cancelled.".into(),
        ),
        SeekOutcome::Own => (ErrorCode::OwnSeek, "That is your own seek; cancel it instead.".into()),
        SeekOutcome::OutOfRange => (
            ErrorCode::OutOfRange,
            "Your rating is outside the range that seek accepts (or its owner's outside yours).".into(),
        ),
        SeekOutcome::SameAddress => (
            ErrorCode::SameAddress,
            "This server does not pair two people from the same address.".into(),
        ),
        SeekOutcome::NotYours => (ErrorCode::NotYourSeek, "That seek is not yours.".into()),
    }
}

fn seek_outcome_label(outcome: &SeekOutcome) -> &'static str {
    match outcome {
        SeekOutcome::Paired { .. } => "paired",
        SeekOutcome::Seeking(_) => "waiting",
        _ => "refused",
    }
}

fn storage(err: &StoreError) -> (ErrorCode, String) {
    tracing::error!(error = %err, "the lobby could not store a change");
    (
        ErrorCode::StorageUnavailable,
        "The server could not store this change, so nothing changed; please try again.".into(),
    )
}

/// Whether a table id drawn for a pairing was taken already (draw another).
fn is_taken_id(outcome: &Result<SeekOutcome, StoreError>) -> bool {
    matches!(outcome, Err(StoreError::Database(sqlx::Error::Database(db))) if db.constraint() == Some("tables_pkey"))
}
