//! Talking to the lobby (`/ws/lobby`, docs/protocol.md section 7): the quick-pairing pools
//! the load seeks in, joining the lobby (its first frame, then `hello` and the token), and
//! the few fields of a lobby message the load reads.
//!
//! The `lobby` frames (the lists, up to one a second, some tens of KB when the lists are
//! full) are recognised by their first bytes and not parsed.

use std::net::{Ipv4Addr, SocketAddr};

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use crate::conn::{self, Failure, Ws};

/// The two-player pools, the one-pool case first (`--pools N` takes the first N). Bughouse
/// pools pair four people and are left out.
pub const POOLS: [&str; 7] = [
    "gomoku/10+0",
    "gomoku/untimed",
    "gomoku/5+3",
    "lines-of-action/5+3",
    "lines-of-action/10+5",
    "krux/untimed",
    "krux/10+0",
];

/// How every `lobby` frame of the server begins.
const LISTS_PREFIX: &str = r#"{"type":"lobby""#;

/// The fields of a lobby message (other than `lobby`) the load reads.
#[derive(Debug, Deserialize)]
pub struct LobbyEvent {
    #[serde(rename = "type")]
    pub kind: String,
    /// `paired`: the table to go to.
    #[serde(default)]
    pub table: Option<String>,
    /// The `ref` of the request answered.
    #[serde(default, rename = "ref")]
    pub reference: Option<serde_json::Value>,
    /// `welcome`: the person's token.
    #[serde(default)]
    pub token: Option<String>,
    /// `seeking`: the seek (an object); `paired`, `cancelled`: its id.
    #[serde(default)]
    pub seek: Option<SeekField>,
    /// `error`: its code.
    #[serde(default)]
    pub code: Option<String>,
}

impl LobbyEvent {
    /// The seek's id, from `seeking` (`seek.id`) or `paired`/`cancelled` (`seek`).
    pub fn seek_id(&self) -> Option<&str> {
        match self.seek.as_ref()? {
            SeekField::Id(id) => Some(id),
            SeekField::View { id } => Some(id),
        }
    }

    /// Whether this answers the request sent with `reference`.
    pub fn answers(&self, reference: u64) -> bool {
        self.reference.as_ref().and_then(serde_json::Value::as_u64) == Some(reference)
    }

    /// An `error` as a failure of kind `error_{code}`.
    pub fn failure(&self, what: &str) -> Failure {
        Failure::new(
            format!("error_{}", self.code.as_deref().unwrap_or("unknown")),
            format!(
                "{what}: the server answered {}",
                self.code.as_deref().unwrap_or("an error")
            ),
        )
    }
}

/// A seek as an id or as the seek's view.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SeekField {
    Id(String),
    View { id: String },
}

/// What a frame from the lobby is to the load.
pub enum LobbyFrame {
    /// A `lobby` frame (the lists) of this many bytes.
    Lists(usize),
    Event(LobbyEvent),
    /// Ping, pong, binary.
    Other,
    Closed(String),
}

/// Reads one frame: a `lobby` frame by its first bytes, anything else parsed.
pub fn read(message: &Message) -> Result<LobbyFrame, Failure> {
    match message {
        Message::Text(text) if text.as_str().starts_with(LISTS_PREFIX) => Ok(LobbyFrame::Lists(text.len())),
        Message::Text(text) => match serde_json::from_str::<LobbyEvent>(text.as_str()) {
            Ok(event) if event.kind == "lobby" => Ok(LobbyFrame::Lists(text.len())),
            Ok(event) => Ok(LobbyFrame::Event(event)),
            Err(err) => Err(Failure::new(
                "bad_json",
                format!("the lobby sent an unreadable message: {err}"),
            )),
        },
        Message::Close(frame) => Ok(LobbyFrame::Closed(
            frame
                .as_ref()
                .map_or_else(|| "no close frame".to_owned(), |f| format!("{} {}", f.code, f.reason)),
        )),
        _ => Ok(LobbyFrame::Other),
    }
}

/// The next frame by `deadline` (`timeout` after it), as [`read`] sees it.
pub async fn next_frame(ws: &mut Ws, deadline: Instant, what: &str) -> Result<LobbyFrame, Failure> {
    let message = tokio::time::timeout_at(deadline, ws.next())
        .await
        .map_err(|_| Failure::timeout(what))?
        .ok_or_else(|| Failure::new("closed", format!("{what}: the lobby closed the connection")))?
        .map_err(|err| Failure::ws(what, &err))?;
    read(&message)
}

/// The next message other than `lobby` frames by `deadline`.
pub async fn next_event(ws: &mut Ws, deadline: Instant, what: &str) -> Result<LobbyEvent, Failure> {
    loop {
        match next_frame(ws, deadline, what).await? {
            LobbyFrame::Event(event) => return Ok(event),
            LobbyFrame::Closed(why) => return Err(Failure::new("closed", format!("{what}: {why}"))),
            LobbyFrame::Lists(_) | LobbyFrame::Other => {}
        }
    }
}

/// Opens a lobby connection and reads its first frame (the whole lobby); its size in bytes.
pub async fn open(server: SocketAddr, source: Ipv4Addr) -> Result<(Ws, usize), Failure> {
    let mut ws = conn::connect_lobby(server, source).await?;
    let deadline = Instant::now() + conn::CONNECT_TIMEOUT;
    match next_frame(&mut ws, deadline, "waiting for the first lobby frame").await? {
        LobbyFrame::Lists(bytes) => Ok((ws, bytes)),
        LobbyFrame::Closed(why) => Err(Failure::new("closed", format!("before the first lobby frame: {why}"))),
        LobbyFrame::Event(event) => Err(Failure::new(
            "no_lobby_frame",
            format!("the first frame was a {}", event.kind),
        )),
        LobbyFrame::Other => Err(Failure::new("no_lobby_frame", "the first frame was not text")),
    }
}

/// Opens a lobby connection and says `hello` without a token: the connection and the new
/// person's token (from `welcome`).
pub async fn join(server: SocketAddr, source: Ipv4Addr) -> Result<(Ws, String), Failure> {
    let (mut ws, _) = open(server, source).await?;
    ws.send(Message::text(r#"{"type":"hello"}"#))
        .await
        .map_err(|err| Failure::ws("sending hello", &err))?;
    let deadline = Instant::now() + conn::CONNECT_TIMEOUT;
    loop {
        let event = next_event(&mut ws, deadline, "waiting for welcome").await?;
        match event.kind.as_str() {
            "welcome" => {
                let token = event
                    .token
                    .ok_or_else(|| Failure::new("no_token", "a welcome without a token"))?;
                return Ok((ws, token));
            }
            "error" => return Err(event.failure("hello")),
            _ => {}
        }
    }
}
