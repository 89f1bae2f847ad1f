//! One WebSocket connection to one table.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::{SinkExt, StreamExt};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::liveness::Liveness;

use crate::config::LimitSettings;
use crate::protocol::{ErrorCode, ServerMsg, parse_client_msg};
use crate::table::TableHandle;
use crate::table::msg::ConnId;

/// A client that does not take a frame within this long is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Serves one connection until either side closes it or the server shuts down.
pub async fn serve(
    socket: WebSocket,
    table: TableHandle,
    since: Option<(u64, u32)>,
    limits: LimitSettings,
    shutdown: CancellationToken,
) {
    let conn: ConnId = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let (outbox, mut frames) = mpsc::channel(limits.outgoing_queue.max(1));
    tracing::Span::current().record("conn", conn);
    if table.join(conn, outbox, since).await.is_err() {
        return;
    }
    let _open = crate::metrics::open_connection();
    let mut liveness = Liveness::new(Instant::now(), Duration::from_millis(limits.silence_timeout_ms));
    let mut pings = tokio::time::interval(Duration::from_millis(limits.ping_interval_ms.max(1)));
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tracing::debug!(table = table.id(), conn, "connection opened");
    let (mut sink, mut stream) = socket.split();
    let limiter = rate_limiter(&limits);
    let close = loop {
        tokio::select! {
            // Shutdown first: when the table stops because the server does, its outbox
            // closes too, and the client must hear "restarting", not "too slow".
            biased;
            _ = shutdown.cancelled() => break Some((close_code::RESTART, "the server is restarting")),
            frame = frames.recv() => match frame {
                Some(frame) => {
                    if !send(&mut sink, Message::Text(frame)).await {
                        break None;
                    }
                }
                // The table dropped us: it stopped with the server, or we could not keep up.
                None if shutdown.is_cancelled() => break Some((close_code::RESTART, "the server is restarting")),
                None => break Some((close_code::AGAIN, "too slow to keep up with the table")),
            },
            _ = pings.tick() => {
                if liveness.is_silent(Instant::now()) {
                    break Some((close_code::AWAY, "no answer to pings"));
                }
                if !send(&mut sink, Message::Ping(Default::default())).await {
                    break None;
                }
            }
            incoming = stream.next() => {
                if matches!(incoming, Some(Ok(_))) {
                    liveness.heard(Instant::now());
                }
                match incoming {
                Some(Ok(Message::Text(text))) => {
                    if limiter.check().is_err() {
                        crate::metrics::rate_limited(crate::metrics::Limit::Messages);
                        let reply = error(&table, ErrorCode::RateLimited, "Too many messages; this one was dropped.".into(), None);
                        if !send(&mut sink, reply).await { break None; }
                        continue;
                    }
                    match parse_client_msg(text.as_str()) {
                        Ok(envelope) => {
                            if table.client(conn, envelope).await.is_err() {
                                break Some((close_code::RESTART, "the table closed"));
                            }
                        }
                        Err((code, message, reference)) => {
                            if !send(&mut sink, error(&table, code, message, reference)).await { break None; }
                        }
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let reply = error(&table, ErrorCode::MalformedJson, "Binary frames are not accepted; send JSON text.".into(), None);
                    if !send(&mut sink, reply).await { break None; }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break None,
                // Pings are answered by the WebSocket layer itself.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                }
            },
        }
    };
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = tokio::time::timeout(SEND_TIMEOUT, sink.send(Message::Close(Some(frame)))).await;
    }
    let _ = table.leave(conn).await;
    let code = close.map(|(code, _)| code);
    crate::metrics::connection_closed(code);
    let reason = close.map_or("the client left, or its socket failed", |(_, reason)| reason);
    tracing::info!(code, reason, "connection closed");
}

/// Sends one message; false if the client is gone or too slow to take it.
async fn send(sink: &mut futures_util::stream::SplitSink<WebSocket, Message>, msg: Message) -> bool {
    matches!(tokio::time::timeout(SEND_TIMEOUT, sink.send(msg)).await, Ok(Ok(())))
}

fn error(table: &TableHandle, code: ErrorCode, message: String, reference: Option<Value>) -> Message {
    let msg = ServerMsg::Error {
        version: table.version(),
        code,
        message,
        rule: None,
        reference,
    };
    Message::Text(msg.to_text().into())
}

fn rate_limiter(limits: &LimitSettings) -> DefaultDirectRateLimiter {
    let per_second = NonZeroU32::new(limits.messages_per_second).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limits.message_burst).unwrap_or(per_second);
    RateLimiter::direct(Quota::per_second(per_second).allow_burst(burst))
}
