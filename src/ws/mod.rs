//! WebSocket connections: the upgrade route and one task per connection.
//!
//! A connection task parses frames, rate-limits them, answers malformed ones itself and
//! forwards the rest to its table's actor (or the lobby); it writes out whatever the actor
//! queues for it. Both kinds of socket run the one loop of `session.rs`.

pub mod connection;
pub mod liveness;
pub mod lobby;
mod session;

use axum::Extension;
use axum::extract::{Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::Deserialize;
use tracing::Instrument;

use crate::http::client::{Client, ForwardedSlot};
use crate::http::error::ApiError;
use crate::http::state::AppState;

/// The read buffer per socket: small, because a server holds many idle sockets and a
/// client's messages are short (a larger message is read in several goes). Every read
/// first zero-fills this much of the buffer, so a large one costs CPU on every frame too.
const READ_BUFFER: usize = 256;

/// Frames queued for a socket are written together until they reach this many bytes.
const WRITE_BUFFER: usize = 8 * 1024;

/// A single frame up to this many times the message limit is read in full before it is
/// refused: a message over the limit is then answered with close code 1009 on a socket
/// with nothing left unread (closing one with unread data resets it, and the client would
/// lose the close frame). Larger frames are refused from their header.
const FRAME_SLACK: usize = 4;

/// The WebSocket routes, for the HTTP layer's router: a table's and the lobby's.
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/ws/tables/{id}", axum::routing::any(upgrade))
        .route("/ws/lobby", axum::routing::any(lobby::upgrade))
}

/// The refusal of a browser's upgrade from an origin that may not open sockets here
/// (`403 forbidden_origin`, see [`crate::http::security`]); `None` when it may.
pub(crate) fn refused_origin(state: &AppState, headers: &HeaderMap, uri: &Uri) -> Option<Response> {
    if state.origins.allows(headers, uri) {
        return None;
    }
    let refusal = ApiError {
        status: StatusCode::FORBIDDEN,
        code: "forbidden_origin",
        message: "WebSocket connections from this origin are not allowed.".into(),
        field: None,
    };
    Some(refusal.into_response())
}

/// An upgrade with the message limit and the small buffers every socket here has.
pub(crate) fn with_limits(upgrade: WebSocketUpgrade, limits: &crate::config::LimitSettings) -> WebSocketUpgrade {
    let max_message_bytes = limits.max_message_bytes;
    upgrade
        .max_message_size(max_message_bytes)
        .max_frame_size(max_message_bytes.saturating_mul(FRAME_SLACK))
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
}

/// The query of a WebSocket URL.
#[derive(Debug, Deserialize)]
pub struct Resume {
    /// The last table version the client saw: it is sent the events it missed since.
    since: Option<u64>,
    /// The table incarnation that version belongs to (from the snapshot); versions count
    /// again from 0 when a table is rebuilt, so a resume from another epoch gets a snapshot.
    epoch: Option<u32>,
}

/// `GET /ws/tables/{id}[?since=N]`: upgrades to a WebSocket connected to that table.
///
/// A browser's upgrade (one with `Origin`) must come from an allowed origin (`403`
/// otherwise, see [`crate::http::security`]); an unknown table is a `404`, a table the
/// database cannot be asked about now a `503`.
#[expect(
    clippy::too_many_arguments,
    reason = "an axum handler takes each extractor as an argument"
)]
pub async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(resume): Query<Resume>,
    headers: HeaderMap,
    uri: Uri,
    forwarded: Option<Extension<ForwardedSlot>>,
    client: Client,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Some(refused) = refused_origin(&state, &headers, &uri) {
        return refused;
    }
    let table = match state.tables.get(&id).await {
        Ok(table) => table,
        Err(err) => return ApiError::table_lookup(&id, &err).into_response(),
    };
    let settings = state.settings.clone();
    let shutdown = state.shutdown.clone();
    let tracker = state.tracker.clone();
    // Every line the connection logs names its table and its number.
    let span = tracing::info_span!("connection", table = %id, conn = tracing::field::Empty);
    with_limits(upgrade, &settings.limits).on_upgrade(move |socket| {
        // Served on the upgrade's own task (one task a socket, not two), tracked so
        // that shutdown waits for it. The connection's future is boxed and given the
        // socket already split (which moves it to the heap once): a future keeps its
        // arguments for its whole life, and an idle socket's future lives for hours
        // (the socket alone is ~0.4 KiB; docs/benchmarks.md).
        let serving = Box::pin(
            connection::serve(
                socket.split(),
                table,
                resume.since.zip(resume.epoch),
                client.limit_key(),
                settings,
                shutdown,
            )
            .instrument(span),
        );
        let tracked = tracker.track_future(serving);
        async move {
            // Behind a trusted proxy, the socket holds its client's place until it closes.
            let _forwarded = forwarded;
            tracked.await;
        }
    })
}
