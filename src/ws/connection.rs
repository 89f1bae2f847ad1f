//! One WebSocket connection to one table.
//!
//! The connection joins the table, runs the loop of `session.rs` (one `select!` arm per
//! concern: the server shutting down, the table's messages out, pings, the client's frames
//! in) with the table as its [`Peer`], then closes and leaves. Every way out is an
//! [`Ending`], which names the close code the client is sent and the reason logged (once,
//! at info level, with the table id). The endings, the writes and the close are shared
//! with the lobby's socket.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use governor::clock::DefaultClock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::session::{self, Gone, Peer, Refusal};

use crate::config::{LimitSettings, Settings};
use crate::protocol::{Envelope, ErrorCode, ServerMsg, parse_client_msg};
use crate::table::TableHandle;
use crate::table::msg::{ConnId, Frame};
use crate::table::queue::{OutboxReceiver, outbox};

/// A client that does not take a frame within this long is dropped as too slow.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server waits for the client's close frame after sending its own, reading
/// (and dropping) whatever the client sent meanwhile. Closing the socket with a client's
/// frame unread, or one arriving after, resets the connection, and the client's WebSocket
/// may then fail with the reset instead of reading the close frame and its code (1012 says
/// "connect again": a move sent while a table moves to another node must not turn it into
/// a broken connection).
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// The most queued frames written with one flush (one `send` system call when they fit the
/// write buffer); the rest wait for the next turn of the loop, so pings and the client's
/// frames are not starved.
const FRAMES_PER_FLUSH: usize = 32;

pub(super) static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// The close code of a table an operator closed (an application's own code, 4000–4999):
/// unlike 1012, it says "do not reconnect".
pub const TABLE_CLOSED: u16 = 4000;

/// Why a connection ended: each way out of the loop, with the close code the server sends
/// for it and the reason it logs (once, at info level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// The server is shutting down (its tables stop with it).
    Restart,
    /// The table stopped here because another node serves it now (or will: it was asked
    /// for); the client reconnects through the proxy, as after a restart.
    Moved,
    /// An operator closed the table (docs/operations.md, "Moderation"): it is not served
    /// again, so the client must not reconnect.
    Closed,
    /// The client did not take its messages fast enough: its queue at the table filled,
    /// or one frame waited longer than [`SEND_TIMEOUT`] to be written.
    TooSlow,
    /// Nothing arrived from the client (not even a pong) for the silence timeout.
    Silent,
    /// A message over the size limit (`limits.max_message_bytes`).
    TooBig,
    /// A text frame that is not UTF-8.
    NotUtf8,
    /// A frame that breaks the WebSocket protocol.
    Protocol,
    /// The client closed the connection: with the code of its close frame, if it sent one.
    ByClient(Option<u16>),
    /// The connection broke (a failed write, a reset): there is no one to tell.
    Broken,
}

impl Ending {
    /// The close code the server sends, if it sends one.
    pub(super) fn sent_code(self) -> Option<u16> {
        match self {
            Ending::Restart | Ending::Moved => Some(close_code::RESTART),
            Ending::Closed => Some(TABLE_CLOSED),
            Ending::TooSlow => Some(close_code::AGAIN),
            Ending::Silent => Some(close_code::AWAY),
            Ending::TooBig => Some(close_code::SIZE),
            Ending::NotUtf8 => Some(close_code::INVALID),
            Ending::Protocol => Some(close_code::PROTOCOL),
            Ending::ByClient(_) | Ending::Broken => None,
        }
    }

    /// The reason, as sent in the close frame and logged.
    pub(super) fn reason(self) -> &'static str {
        match self {
            Ending::Restart => "the server is restarting",
            Ending::Moved => "the table moved to another server",
            Ending::Closed => "the table was closed by a moderator",
            Ending::TooSlow => "too slow to keep up with the table",
            Ending::Silent => "no answer to pings",
            Ending::TooBig => "message over the size limit",
            Ending::NotUtf8 => "text that is not UTF-8",
            Ending::Protocol => "WebSocket protocol error",
            Ending::ByClient(_) => "closed by the client",
            Ending::Broken => "the connection broke",
        }
    }

    /// What a failed read means: the WebSocket layer's own limits and checks, or a socket
    /// that is gone.
    pub(super) fn of_read_error(err: axum::Error) -> Ending {
        use tungstenite::error::{Error, ProtocolError};
        let Ok(err) = err.into_inner().downcast::<Error>() else {
            return Ending::Broken;
        };
        match *err {
            Error::Capacity(_) => Ending::TooBig,
            Error::Utf8(_) => Ending::NotUtf8,
            Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Ending::ByClient(None),
            Error::Protocol(_) => Ending::Protocol,
            _ => Ending::Broken,
        }
    }
}

/// Serves one connection until either side closes it or the server shuts down.
pub async fn serve(
    (mut sink, mut stream): (SplitSink<WebSocket, Message>, SplitStream<WebSocket>),
    table: TableHandle,
    since: Option<(u64, u32)>,
    address: std::net::IpAddr,
    settings: Arc<Settings>,
    shutdown: CancellationToken,
) {
    let limits = &settings.limits;
    let conn: ConnId = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let (outbox, mut frames) = outbox(limits.outgoing_queue);
    tracing::Span::current().record("conn", conn);
    // Every piece of work this task awaits is boxed, here, in the loop and below: the
    // task's future, which an idle socket keeps for hours, then holds pointers rather than
    // the largest of them (0.6 KiB a socket, `docs/benchmarks.md`).
    if Box::pin(table.join_from(conn, outbox, since, address)).await.is_err() {
        return;
    }
    let _open = crate::metrics::open_connection();
    tracing::debug!(table = table.id(), conn, "connection opened");
    let ending = session::run(&mut sink, &mut stream, &mut frames, &table, conn, limits, &shutdown).await;
    Box::pin(close(&mut sink, &mut stream, ending)).await;
    let _ = Box::pin(table.leave(conn)).await;
    crate::metrics::connection_closed(ending.sent_code());
    let code = match ending {
        Ending::ByClient(code) => code,
        _ => ending.sent_code(),
    };
    tracing::info!(
        table = table.id(),
        conn,
        code,
        reason = ending.reason(),
        "connection closed"
    );
}

/// Ends the connection as `ending` says: its close code sent (then the client's close frame
/// awaited a moment), or the client's closing handshake completed.
pub(super) async fn close(
    sink: &mut SplitSink<WebSocket, Message>,
    stream: &mut SplitStream<WebSocket>,
    ending: Ending,
) {
    match ending.sent_code() {
        Some(code) => {
            let frame = CloseFrame {
                code,
                reason: ending.reason().into(),
            };
            let sent = Box::pin(tokio::time::timeout(
                SEND_TIMEOUT,
                sink.send(Message::Close(Some(frame))),
            ))
            .await;
            if matches!(sent, Ok(Ok(()))) {
                let _ = Box::pin(tokio::time::timeout(CLOSE_WAIT, client_close(stream))).await;
            }
        }
        // Completes the client's closing handshake (the WebSocket layer queued the reply).
        None => {
            let _ = Box::pin(tokio::time::timeout(SEND_TIMEOUT, sink.close())).await;
        }
    }
}

/// Reads until the client's close frame (or the end of the stream), dropping what comes
/// before it: the server has closed, the client's last frames are answered by nothing.
async fn client_close(stream: &mut SplitStream<WebSocket>) {
    while let Some(Ok(message)) = stream.next().await {
        if matches!(message, Message::Close(_)) {
            break;
        }
    }
}

/// Writes `first` and whatever else the table has queued (up to [`FRAMES_PER_FLUSH`]),
/// then flushes once: frames that arrive together leave in one system call.
pub(super) async fn send_queued(
    sink: &mut SplitSink<WebSocket, Message>,
    first: Frame,
    frames: &mut OutboxReceiver,
) -> Result<(), Ending> {
    let write = async {
        sink.feed(Message::Text(first.text())).await?;
        for _ in 1..FRAMES_PER_FLUSH {
            let Some(frame) = frames.try_recv() else { break };
            sink.feed(Message::Text(frame.text())).await?;
        }
        sink.flush().await
    };
    within_send_timeout(write).await
}

/// Sends one message; the connection's ending if the client is gone or too slow to take it.
pub(super) async fn send(sink: &mut SplitSink<WebSocket, Message>, msg: Message) -> Result<(), Ending> {
    within_send_timeout(sink.send(msg)).await
}

/// A write that must finish within [`SEND_TIMEOUT`]: a failed one means the socket broke,
/// a late one a client too slow to read.
async fn within_send_timeout<E>(write: impl std::future::Future<Output = Result<(), E>>) -> Result<(), Ending> {
    match tokio::time::timeout(SEND_TIMEOUT, write).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(Ending::Broken),
        Err(_) => Err(Ending::TooSlow),
    }
}

/// A table's socket: its messages go to the table's actor, its errors carry the table's
/// version.
impl Peer for TableHandle {
    type Msg = Envelope;

    fn parse(text: &str) -> Result<Envelope, Refusal> {
        parse_client_msg(text)
    }

    async fn hand_on(&self, conn: ConnId, envelope: Envelope) -> Result<(), Gone> {
        self.client(conn, envelope).await.map_err(|_| Gone)
    }

    fn error(&self, code: ErrorCode, message: String, reference: Option<Value>) -> Message {
        let msg = ServerMsg::Error {
            version: self.version(),
            code,
            message,
            rule: None,
            reference,
        };
        Message::Text(msg.to_text().into())
    }

    /// The table dropped us: it was closed by an operator, or it stopped to move to
    /// another node (a table that refused a message has stopped), or we could not keep up.
    fn gone(&self) -> Ending {
        if self.closed_by_operator() {
            Ending::Closed
        } else if self.is_closed() {
            Ending::Moved
        } else {
            Ending::TooSlow
        }
    }
}

pub(super) fn rate_limiter(limits: &LimitSettings) -> DefaultDirectRateLimiter {
    let per_second = NonZeroU32::new(limits.messages_per_second).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limits.message_burst).unwrap_or(per_second);
    RateLimiter::direct_with_clock(Quota::per_second(per_second).allow_burst(burst), shared_clock())
}

/// One clock for every connection's rate limiter, copied: making a clock calibrates it
/// against the CPU's counter (CPUID, a trap to the hypervisor in a virtual machine), and
/// with a socket per table every new game made two.
fn shared_clock() -> DefaultClock {
    static CLOCK: OnceLock<DefaultClock> = OnceLock::new();
    CLOCK.get_or_init(DefaultClock::default).clone()
}
