//! Serving HTTP: the accept loop, and one task per connection.
//!
//! Our own loop on hyper rather than `axum::serve`, for what a public server needs and
//! `axum::serve` does not do:
//! - **Slow or silent clients.** A connection must send a request's head within
//!   `limits.request_read_timeout_ms` of opening (or of the previous answer when it is kept
//!   alive), and its body within as long again; otherwise it is closed. A silent socket
//!   would otherwise hold a file descriptor for ever. (A WebSocket, once upgraded, is the
//!   connection task's to watch: it pings and closes a silent one.)
//! - **Caps.** Each connection takes a place among its client address's
//!   (`limits.connections_per_address`) and among all of the server's, which the
//!   file-descriptor limit bounds after a reserve for the database pool and the server's
//!   own files ([`capacity`]). A connection beyond either is answered at once, `429` or
//!   `503` in the JSON error shape, and closed: it never waits in the kernel's backlog.
//! - **`accept` errors** (`EMFILE` when the descriptors are gone after all) are logged and
//!   the loop backs off, from 10 ms to at most a second, and goes on; the connections
//!   already open are served meanwhile by their own tasks.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use super::client::{Clients, ConnectionSlot};
use super::error::ApiError;

/// File descriptors kept from connections, beyond the database pool's: the listener, the
/// runtime's own, logs, migrations, a reconnecting pool.
const FD_RESERVE: usize = 32;

/// The first pause after a failed `accept`, doubled on each failure in a row.
const FIRST_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause after a failed `accept`.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// How many connections the server may hold: the process's file-descriptor limit less a
/// reserve for `pool_size` database connections and the server's own files.
pub fn capacity(pool_size: u32) -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the limits into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return usize::MAX;
    }
    let open_files = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
    let reserve = FD_RESERVE + usize::try_from(pool_size).unwrap_or(0);
    open_files.saturating_sub(reserve).max(1)
}

/// What every connection task needs.
#[derive(Clone)]
pub struct Serving {
    pub router: Router,
    pub clients: Arc<Clients>,
    /// How long a client has to send a request's head, and then its body.
    pub read_timeout: Duration,
    /// Cancelled to stop accepting and close the connections gracefully.
    pub shutdown: CancellationToken,
    /// Connection tasks run on it, so that shutdown waits for them.
    pub tracker: TaskTracker,
}

/// Accepts connections until shutdown.
pub async fn serve(listener: TcpListener, serving: Serving) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let accepted = tokio::select! {
            biased;
            () = serving.shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => {
                backoff = FIRST_BACKOFF;
                accepted
            }
            // The client gave up before we took its connection: nothing is wrong here.
            Err(err) if is_connection_error(&err) => continue,
            Err(err) => {
                tracing::error!(error = %err, retry_in_ms = backoff.as_millis(), "could not accept a connection");
                tokio::select! {
                    () = serving.shutdown.cancelled() => return,
                    () = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        };
        match serving.clients.accept(peer.ip()) {
            Ok(slot) => {
                serving.tracker.spawn(connection(tcp, slot, peer, serving.clone()));
            }
            Err(refusal) => {
                tracing::debug!(%peer, ?refusal, "refused a connection");
                // Best effort: the answer fits in the socket's empty send buffer.
                let _ = tcp.try_write(&ApiError::refused(refusal).to_http1_bytes());
            }
        }
    }
}

fn is_connection_error(err: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        err.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}

/// Serves one connection: HTTP/1 or HTTP/2, with upgrades to WebSockets.
async fn connection(tcp: TcpStream, slot: ConnectionSlot, peer: SocketAddr, serving: Serving) {
    if let Err(err) = tcp.set_nodelay(true) {
        tracing::warn!(error = %err, "could not set TCP_NODELAY");
    }
    let Serving {
        router,
        read_timeout,
        shutdown,
        ..
    } = serving;
    let io = TokioIo::new(Counted { tcp, _slot: slot });
    let first_request = Arc::new(Notify::new());
    let service = {
        let first_request = Arc::clone(&first_request);
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            first_request.notify_one();
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request.map(Body::new))
        })
    };
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout);
    // The CONNECT protocol carries WebSockets over HTTP/2.
    builder.http2().enable_connect_protocol();
    let conn = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(conn);
    // Until the first request head arrives (hyper's own timer covers HTTP/1 heads, but not
    // a connection that has not even shown which HTTP version it speaks).
    let first_deadline = tokio::time::sleep(read_timeout);
    tokio::pin!(first_deadline);
    let mut requested = false;
    let mut closing = false;
    loop {
        tokio::select! {
            biased;
            served = conn.as_mut() => {
                if let Err(err) = served {
                    tracing::debug!(%peer, error = %err, "connection ended with an error");
                }
                return;
            }
            () = first_request.notified(), if !requested => requested = true,
            () = &mut first_deadline, if !requested => {
                tracing::debug!(%peer, "closed a connection that sent no request in time");
                return;
            }
            () = shutdown.cancelled(), if !closing => {
                closing = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// A TCP stream that holds its place among the open connections until it is dropped,
/// which for a WebSocket is when the socket closes (hyper hands the stream over on
/// upgrade).
struct Counted {
    tcp: TcpStream,
    _slot: ConnectionSlot,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
