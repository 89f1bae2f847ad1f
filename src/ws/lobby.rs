//! `GET /ws/lobby`: one lobby connection (docs/protocol.md, section 7). It runs the loop a
//! table's connection runs (`session.rs`: shutdown, the frames queued for it, pings, the
//! client's frames, each rate-limited), talking to this node's [`Lobby`] instead of a table.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Extension;
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use futures_util::StreamExt;
use futures_util::stream::{SplitSink, SplitStream};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::connection::{Ending, NEXT_CONN, close};
use super::session::{self, Gone, Peer, Refusal};
use crate::config::Settings;
use crate::http::client::{Client, ForwardedSlot};
use crate::http::state::AppState;
use crate::lobby::Lobby;
use crate::lobby::messages::{self, LobbyServerMsg, Parsed};
use crate::protocol::ErrorCode;
use crate::table::msg::ConnId;
use crate::table::queue::outbox;

/// `GET /ws/lobby`: upgrades to a lobby connection (the same origin check as a table's).
pub async fn upgrade(
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: Uri,
    forwarded: Option<Extension<ForwardedSlot>>,
    client: Client,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Some(refused) = super::refused_origin(&state, &headers, &uri) {
        return refused;
    }
    let lobby = state.lobby.clone();
    let settings = state.settings.clone();
    let shutdown = state.shutdown.clone();
    let tracker = state.tracker.clone();
    let span = tracing::info_span!("lobby_connection", conn = tracing::field::Empty);
    super::with_limits(upgrade, &settings.limits).on_upgrade(move |socket| {
        let serving = Box::pin(serve(socket.split(), lobby, client.limit_key(), settings, shutdown).instrument(span));
        let tracked = tracker.track_future(serving);
        async move {
            let _forwarded = forwarded;
            tracked.await;
        }
    })
}

/// Serves one lobby connection until either side closes it or the server shuts down.
async fn serve(
    (mut sink, mut stream): (SplitSink<WebSocket, Message>, SplitStream<WebSocket>),
    lobby: Lobby,
    address: IpAddr,
    settings: Arc<Settings>,
    shutdown: CancellationToken,
) {
    let limits = &settings.limits;
    let conn: ConnId = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    tracing::Span::current().record("conn", conn);
    let (outbox, mut frames) = outbox(limits.outgoing_queue);
    lobby.join(conn, outbox);
    let client = LobbyClient { lobby: &lobby, address };
    let ending = session::run(&mut sink, &mut stream, &mut frames, &client, conn, limits, &shutdown).await;
    lobby.leave(conn);
    Box::pin(close(&mut sink, &mut stream, ending)).await;
    crate::metrics::connection_closed(ending.sent_code());
    tracing::debug!(conn, reason = ending.reason(), "lobby connection closed");
}

/// A lobby socket's client, as the loop sees it: its messages go to this node's lobby.
struct LobbyClient<'a> {
    /// The lobby, which takes the client's messages.
    lobby: &'a Lobby,
    /// The client's address: the lobby limits seeks and accepts per address, and can keep
    /// people at one address from being paired together.
    address: IpAddr,
}

impl Peer for LobbyClient<'_> {
    type Msg = Parsed;

    fn parse(text: &str) -> Result<Parsed, Refusal> {
        messages::parse(text)
    }

    async fn hand_on(&self, conn: ConnId, (msg, reference): Parsed) -> Result<(), Gone> {
        self.lobby.client(conn, self.address, msg, reference).await;
        Ok(())
    }

    fn error(&self, code: ErrorCode, message: String, reference: Option<Value>) -> Message {
        Message::Text(
            LobbyServerMsg::Error {
                code,
                message,
                reference,
            }
            .to_text()
            .into(),
        )
    }

    /// The lobby closes a socket's outbox only when the socket could not keep up.
    fn gone(&self) -> Ending {
        Ending::TooSlow
    }
}
