//! `GET /ws/lobby`: one lobby connection (docs/protocol.md, section 7). The same loop as a
//! table's connection — shutdown, the frames queued for it, pings, the client's frames, each
//! rate-limited — talking to this node's [`Lobby`] instead of a table.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Extension;
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{State, WebSocketUpgrade};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use futures_util::StreamExt;
use futures_util::stream::{SplitSink, SplitStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::connection::{Ending, NEXT_CONN, close, rate_limiter, send, send_queued};
use super::liveness::Liveness;
use crate::config::Settings;
use crate::http::client::{Client, ForwardedSlot};
use crate::http::state::AppState;
use crate::lobby::Lobby;
use crate::lobby::messages::{LobbyServerMsg, parse};
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
    let mut liveness = Liveness::new(Instant::now(), Duration::from_millis(limits.silence_timeout_ms));
    let ping_every = Duration::from_millis(limits.ping_interval_ms.max(1));
    let mut pings = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let limiter = rate_limiter(limits);
    let mut limited = false;
    let shutting_down = shutdown.cancelled();
    tokio::pin!(shutting_down);
    let ending = loop {
        tokio::select! {
            biased;
            _ = &mut shutting_down => break Ending::Restart,
            frame = frames.recv() => match frame {
                Some(frame) => {
                    if let Err(ending) = Box::pin(send_queued(&mut sink, frame, &mut frames)).await {
                        break ending;
                    }
                }
                None if shutdown.is_cancelled() => break Ending::Restart,
                None => break Ending::TooSlow,
            },
            _ = pings.tick() => {
                if liveness.is_silent(Instant::now()) {
                    break Ending::Silent;
                }
                if let Err(ending) = Box::pin(send(&mut sink, Message::Ping(Default::default()))).await {
                    break ending;
                }
            }
            incoming = stream.next() => {
                let message = match incoming {
                    Some(Ok(Message::Close(frame))) => break Ending::ByClient(frame.map(|frame| frame.code)),
                    None => break Ending::ByClient(None),
                    Some(Err(err)) => break Ending::of_read_error(err),
                    Some(Ok(message)) => message,
                };
                liveness.heard(Instant::now());
                if limiter.check().is_err() {
                    crate::metrics::rate_limited(crate::metrics::Limit::Messages);
                    if !std::mem::replace(&mut limited, true) {
                        let reply = error(ErrorCode::RateLimited, "Too many messages: this one was dropped, and so are any more until you slow down.".into(), None);
                        if let Err(ending) = Box::pin(send(&mut sink, reply)).await { break ending; }
                    }
                    continue;
                }
                limited = false;
                match message {
                    Message::Text(text) => match parse(text.as_str()) {
                        Ok((msg, reference)) => Box::pin(lobby.client(conn, address, msg, reference)).await,
                        Err((code, message, reference)) => {
                            if let Err(ending) = Box::pin(send(&mut sink, error(code, message, reference))).await { break ending; }
                        }
                    },
                    Message::Binary(_) => {
                        let reply = error(ErrorCode::MalformedJson, "Binary frames are not accepted; send JSON text.".into(), None);
                        if let Err(ending) = Box::pin(send(&mut sink, reply)).await { break ending; }
                    }
                    Message::Ping(_) | Message::Pong(_) | Message::Close(_) => {}
                }
            },
        }
    };
    lobby.leave(conn);
    Box::pin(close(&mut sink, &mut stream, ending)).await;
    crate::metrics::connection_closed(ending.sent_code());
    tracing::debug!(conn, reason = ending.reason(), "lobby connection closed");
}

fn error(code: ErrorCode, message: String, reference: Option<serde_json::Value>) -> Message {
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
