//! Talking to the server: creating a Gomoku table over HTTP, opening a WebSocket (a table's
//! or the lobby's) from a chosen loopback source address, and reading the few fields of an
//! event the load needs.
//!
//! Failures are [`Failure`]s with a short kind (`connect_refused`, `http_429`, `timeout`,
//! …), so that a run counts them by kind instead of stopping at the first.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::time::Duration;

use serde::Deserialize;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

/// A WebSocket to the server.
pub type Ws = WebSocketStream<TcpStream>;

/// Longest wait for a connection, a handshake or an HTTP answer.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A failure, by kind (a short stable word for counting) with its detail.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: String,
    pub detail: String,
}

impl Failure {
    pub fn new(kind: impl Into<String>, detail: impl Into<String>) -> Failure {
        Failure {
            kind: kind.into(),
            detail: detail.into(),
        }
    }

    /// The kind of an I/O error: `emfile`, `addr_not_available`, `connect_refused`, …
    pub fn io(what: &str, err: &std::io::Error) -> Failure {
        use std::io::ErrorKind;
        let kind = match (err.raw_os_error(), err.kind()) {
            (Some(libc::EMFILE | libc::ENFILE), _) => "emfile",
            (_, ErrorKind::AddrNotAvailable) => "addr_not_available",
            (_, ErrorKind::AddrInUse) => "addr_in_use",
            (_, ErrorKind::ConnectionRefused) => "connect_refused",
            (_, ErrorKind::ConnectionReset) => "connection_reset",
            (_, ErrorKind::TimedOut) => "timeout",
            _ => "io_other",
        };
        Failure::new(kind, format!("{what}: {err}"))
    }

    /// The kind of a WebSocket error: the HTTP status of a refused handshake, or the I/O kind.
    pub fn ws(what: &str, err: &tungstenite::Error) -> Failure {
        match err {
            tungstenite::Error::Http(response) => {
                Failure::new(format!("http_{}", response.status().as_u16()), format!("{what}: {err}"))
            }
            tungstenite::Error::Io(io) => Failure::io(what, io),
            tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
                Failure::new("closed", format!("{what}: {err}"))
            }
            _ => Failure::new("ws_other", format!("{what}: {err}")),
        }
    }

    pub fn timeout(what: &str) -> Failure {
        Failure::new("timeout", format!("{what}: timed out"))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.kind, self.detail)
    }
}

/// The HTTP client for `POST /api/tables` (keep-alive, no proxy, from `source`).
pub fn http_client(source: Ipv4Addr) -> Result<reqwest::Client, Failure> {
    reqwest::Client::builder()
        .no_proxy()
        .local_address(IpAddr::V4(source))
        .timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|err| Failure::new("http_client", err.to_string()))
}

/// Creates a Gomoku table (15 × 15, free opening, chosen seats) and returns its id.
pub async fn create_table(http: &reqwest::Client, server: SocketAddr) -> Result<String, Failure> {
    let settings = serde_json::json!({"opening": "free", "seating": "chosen"});
    create_table_with(http, server, settings).await
}

/// Creates a Gomoku table with `settings` and returns its id.
pub async fn create_table_with(
    http: &reqwest::Client,
    server: SocketAddr,
    settings: serde_json::Value,
) -> Result<String, Failure> {
    let body = serde_json::json!({"game": "gomoku", "settings": settings});
    let response = http
        .post(format!("http://{server}/api/tables"))
        .json(&body)
        .send()
        .await
        .map_err(|err| {
            let kind = if err.is_timeout() {
                "timeout"
            } else if err.is_connect() {
                "http_connect"
            } else {
                "http_other"
            };
            Failure::new(kind, format!("POST /api/tables: {err}"))
        })?;
    let status = response.status();
    if status != reqwest::StatusCode::CREATED {
        let text = response.text().await.unwrap_or_default();
        return Err(Failure::new(
            format!("create_{}", status.as_u16()),
            format!("POST /api/tables answered {status}: {text}"),
        ));
    }
    #[derive(Deserialize)]
    struct Created {
        id: String,
    }
    let created: Created = response
        .json()
        .await
        .map_err(|err| Failure::new("create_bad_answer", format!("POST /api/tables: {err}")))?;
    Ok(created.id)
}

/// The client side's WebSocket buffers: small, so that 50,000 of them fit (tungstenite's
/// default read buffer is 128 KiB, allocated at once); every message written at once.
fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20))
}

/// Opens a WebSocket to table `table` from `source` (ignored for an IPv6 server), with
/// Nagle off. The snapshot is not read here.
pub async fn connect(server: SocketAddr, source: Ipv4Addr, table: &str) -> Result<Ws, Failure> {
    connect_path(server, source, &format!("/ws/tables/{table}")).await
}

/// Opens a WebSocket to the lobby (`/ws/lobby`) from `source`. Its first frame is not read here.
pub async fn connect_lobby(server: SocketAddr, source: Ipv4Addr) -> Result<Ws, Failure> {
    connect_path(server, source, "/ws/lobby").await
}

/// Opens a WebSocket to `path` on the server from `source`, with Nagle off.
async fn connect_path(server: SocketAddr, source: Ipv4Addr, path: &str) -> Result<Ws, Failure> {
    let attempt = async {
        let socket = match server {
            SocketAddr::V4(_) => {
                let socket = TcpSocket::new_v4().map_err(|err| Failure::io("socket", &err))?;
                // Picks the port at connect, by the whole 4-tuple, rather than at bind:
                // each source address then has the whole ephemeral range towards the server.
                let on: libc::c_int = 1;
                // SAFETY: a valid socket descriptor and a c_int option of the right size.
                unsafe {
                    libc::setsockopt(
                        socket.as_raw_fd(),
                        libc::IPPROTO_IP,
                        libc::IP_BIND_ADDRESS_NO_PORT,
                        std::ptr::from_ref(&on).cast(),
                        std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                    );
                }
                socket
                    .bind(SocketAddr::from((source, 0)))
                    .map_err(|err| Failure::io("bind", &err))?;
                socket
            }
            SocketAddr::V6(_) => TcpSocket::new_v6().map_err(|err| Failure::io("socket", &err))?,
        };
        socket.set_nodelay(true).map_err(|err| Failure::io("nodelay", &err))?;
        let stream = socket
            .connect(server)
            .await
            .map_err(|err| Failure::io("connect", &err))?;
        let url = format!("ws://{server}{path}");
        let (ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(ws_config()))
            .await
            .map_err(|err| Failure::ws("handshake", &err))?;
        Ok(ws)
    };
    tokio::time::timeout(CONNECT_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| Err(Failure::timeout("connect")))
}

/// The fields of a server event the load reads; the rest of the frame is skipped unparsed.
#[derive(Debug, Deserialize)]
pub struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: &'a str,
    #[serde(default)]
    pub ply: u32,
    #[serde(default, rename = "move", borrow)]
    pub played: Option<Played<'a>>,
    /// `moved`: the seats to move next (empty when the move ended the game).
    #[serde(default)]
    pub to_move: Option<Vec<u8>>,
    /// `moved`: the seat that moved.
    #[serde(default)]
    pub seat: Option<u8>,
    /// `error`: its code.
    #[serde(default, borrow)]
    pub code: Option<&'a str>,
}

/// A Gomoku move, `{"at": "H8"}`.
#[derive(Debug, Deserialize)]
pub struct Played<'a> {
    #[serde(borrow)]
    pub at: &'a str,
}

/// What a frame from the server is to the load.
pub enum Frame<'a> {
    Event(Event<'a>),
    /// Ping, pong or any frame without an event in it.
    Other,
    Closed(String),
}

/// Reads a text frame's event; other frames are [`Frame::Other`] or [`Frame::Closed`].
pub fn read_frame(message: &Message) -> Result<Frame<'_>, Failure> {
    match message {
        Message::Text(text) => serde_json::from_str(text.as_str())
            .map(Frame::Event)
            .map_err(|err| Failure::new("bad_json", format!("the server sent an unreadable event: {err}"))),
        Message::Close(frame) => Ok(Frame::Closed(
            frame
                .as_ref()
                .map_or_else(|| "no close frame".to_owned(), |f| format!("{} {}", f.code, f.reason)),
        )),
        _ => Ok(Frame::Other),
    }
}

/// A `{"type":"move"}` frame for square `index` (row-major from A1) of the 15 × 15 board.
pub fn move_frame(index: u8) -> Message {
    let col = char::from(b'A' + index % 15);
    let row = index / 15 + 1;
    Message::text(format!(r#"{{"type":"move","move":{{"at":"{col}{row}"}}}}"#))
}

/// The board index of a square name such as `H8` (column `A`–`O`, row 1–15).
pub fn square_index(name: &str) -> Option<u8> {
    let mut chars = name.chars();
    let col = chars.next()?.to_ascii_uppercase();
    let row: u8 = chars.as_str().parse().ok()?;
    if !('A'..='O').contains(&col) || !(1..=15).contains(&row) {
        return None;
    }
    Some((row - 1) * 15 + (col as u8 - b'A'))
}
