//! The loop every socket here runs, a table's (`connection.rs`) and the lobby's (`lobby.rs`):
//! one `select!` arm per concern — the server shutting down, the frames queued for the
//! socket, pings, the client's frames in — until one of them ends the connection.
//!
//! The loop owns what the two sockets share: liveness, the rate limit (every incoming frame,
//! whatever its kind, counts against it) and the answers to binary and malformed frames. What
//! the socket talks to, a [`Peer`], reads its text frames, takes its messages, stamps its error
//! frames and says why it dropped the socket. Opening and closing (joining, the close frame,
//! leaving, the log line) stay with each socket.

use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use futures_util::StreamExt;
use futures_util::stream::{SplitSink, SplitStream};
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::connection::{Ending, rate_limiter, send, send_queued};
use super::liveness::Liveness;
use crate::config::LimitSettings;
use crate::protocol::ErrorCode;
use crate::table::msg::ConnId;
use crate::table::queue::OutboxReceiver;

/// A frame refused as it was read: the error's code, what it says, and the frame's `ref`.
pub(super) type Refusal = (ErrorCode, String, Option<Value>);

/// The peer stopped and takes no more messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct Gone;

/// What a socket talks to (a table, or this node's lobby): what the loop does differently
/// for each. How a text frame is read and handed on, how an error frame is written, and
/// what it means when the peer drops the socket.
pub(super) trait Peer {
    /// A text frame, read and checked.
    type Msg;

    /// Reads a text frame. A refused frame is answered with an error, and the socket stays
    /// open.
    fn parse(text: &str) -> Result<Self::Msg, Refusal>;

    /// Hands a message on ([`Gone`] when the peer has stopped: a table, with the server, or
    /// to move to another node, or closed by an operator; the lobby always takes it).
    async fn hand_on(&self, conn: ConnId, msg: Self::Msg) -> Result<(), Gone>;

    /// An error frame for this socket's client.
    fn error(&self, code: ErrorCode, message: String, reference: Option<Value>) -> Message;

    /// Why the peer dropped the socket (it closed the socket's outbox, or is [`Gone`]) when
    /// the server is not shutting down.
    fn gone(&self) -> Ending;
}

/// Runs one socket's loop until its connection ends, and says why. The frames `peer` queues
/// for the socket come in on `frames`.
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn's future keeps each argument twice for its whole life (as given, and \
              as moved into its body: 48 bytes more here), and this one lives inside the \
              connection's future for as long as the connection"
)]
pub(super) fn run<'a, P: Peer>(
    sink: &'a mut SplitSink<WebSocket, Message>,
    stream: &'a mut SplitStream<WebSocket>,
    frames: &'a mut OutboxReceiver,
    peer: &'a P,
    conn: ConnId,
    limits: &'a LimitSettings,
    shutdown: &'a CancellationToken,
) -> impl Future<Output = Ending> + 'a {
    async move {
        let mut liveness = Liveness::new(Instant::now(), Duration::from_millis(limits.silence_timeout_ms));
        // The first ping one interval after opening: a new connection has just been heard from.
        let ping_every = Duration::from_millis(limits.ping_interval_ms.max(1));
        let mut pings = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let limiter = rate_limiter(limits);
        // The last frame was refused by the rate limiter: a run of refusals is answered once.
        let mut limited = false;
        // Registered once, not on every turn of the loop.
        let shutting_down = shutdown.cancelled();
        tokio::pin!(shutting_down);
        // Every piece of work the loop awaits is boxed: the connection's future, which an idle
        // socket keeps for hours, then holds pointers rather than the largest of them.
        loop {
            tokio::select! {
                // Shutdown first: when a table stops because the server does, its outbox closes
                // too, and the client must hear "restarting", not "too slow".
                biased;
                _ = &mut shutting_down => break Ending::Restart,
                frame = frames.recv() => match frame {
                    Some(frame) => {
                        if let Err(ending) = Box::pin(send_queued(sink, frame, frames)).await {
                            break ending;
                        }
                    }
                    // The peer dropped us: it stopped with the server, or (a table) moved to
                    // another node or was closed, or we could not keep up.
                    None if shutdown.is_cancelled() => break Ending::Restart,
                    None => break peer.gone(),
                },
                _ = pings.tick() => {
                    if liveness.is_silent(Instant::now()) {
                        break Ending::Silent;
                    }
                    if let Err(ending) = Box::pin(send(sink, Message::Ping(Default::default()))).await {
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
                    // Every frame counts, whatever its kind (pings are still answered by the
                    // WebSocket layer itself).
                    if limiter.check().is_err() {
                        crate::metrics::rate_limited(crate::metrics::Limit::Messages);
                        if !std::mem::replace(&mut limited, true) {
                            let reply = peer.error(ErrorCode::RateLimited, "Too many messages: this one was dropped, and so are any more until you slow down.".into(), None);
                            if let Err(ending) = Box::pin(send(sink, reply)).await { break ending; }
                        }
                        continue;
                    }
                    limited = false;
                    match message {
                        Message::Text(text) => match P::parse(text.as_str()) {
                            Ok(msg) => {
                                if Box::pin(peer.hand_on(conn, msg)).await.is_err() {
                                    // The peer stopped: with the server, or (a table) to move
                                    // to another node or closed by an operator.
                                    break if shutdown.is_cancelled() { Ending::Restart } else { peer.gone() };
                                }
                            }
                            Err((code, message, reference)) => {
                                if let Err(ending) = Box::pin(send(sink, peer.error(code, message, reference))).await { break ending; }
                            }
                        },
                        Message::Binary(_) => {
                            let reply = peer.error(ErrorCode::MalformedJson, "Binary frames are not accepted; send JSON text.".into(), None);
                            if let Err(ending) = Box::pin(send(sink, reply)).await { break ending; }
                        }
                        Message::Ping(_) | Message::Pong(_) | Message::Close(_) => {}
                    }
                },
            }
        }
    }
}
