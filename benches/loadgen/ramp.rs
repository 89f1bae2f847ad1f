//! What the idle and lobby-idle modes share: the file-descriptor limits, the ramp that opens
//! N WebSockets `--concurrency` at a time until all are open or the ramp limit (then a 2 s
//! settle), the loop that holds a connection open, and the ramp's progress line.

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::cli::Common;
use crate::conn::{self, Failure, Ws};
use crate::procfs;
use crate::stats::{self, Live, drain};

/// Pause between the last connection opened and the memory reading.
const SETTLE: Duration = Duration::from_secs(2);

/// Raises our file-descriptor limit for `connections` and warns when ours or the server's
/// is too low for them (`advice` ends the server's warning); returns both limits.
pub fn nofile_limits(connections: u32, server_pid: Option<u32>, advice: &str) -> (u64, Option<u64>) {
    let own_limit = procfs::raise_nofile(u64::from(connections) + 1024);
    if own_limit < u64::from(connections) + 64 {
        eprintln!(
            "loadgen: warning: our file-descriptor limit is {own_limit}, fewer than {connections} connections need (run as root, or raise `ulimit -Hn`)"
        );
    }
    let server_limit = server_pid.and_then(procfs::nofile_of);
    if let Some(limit) = server_limit
        && limit < u64::from(connections) + 64
    {
        eprintln!(
            "loadgen: warning: the server's file-descriptor limit is {limit}: it refuses connections beyond about that (503){advice}"
        );
    }
    (own_limit, server_limit)
}

/// Where to open connections, how many, how many at once, and for how long at most.
pub struct Plan<'a> {
    common: &'a Common,
    wanted: usize,
    concurrency: u32,
    /// Seconds.
    ramp_limit: u64,
    /// What the progress line calls the connections opened (`opened`, `lobby connections
    /// opened`).
    opened_as: &'static str,
}

impl<'a> Plan<'a> {
    pub fn new(
        common: &'a Common,
        wanted: usize,
        concurrency: u32,
        ramp_limit: u64,
        opened_as: &'static str,
    ) -> Plan<'a> {
        Plan {
            common,
            wanted,
            concurrency,
            ramp_limit,
            opened_as,
        }
    }
}

/// The connections opened, held by their tasks until `stop`.
pub struct Ramp {
    /// From the first connection asked for to the last one open (or failed).
    pub took: Duration,
    /// Connections opened.
    pub opened: u64,
    holders: JoinSet<()>,
    progress: JoinHandle<()>,
}

impl Ramp {
    /// Once `stop` is cancelled: waits for the progress line to end, then up to 10 s for the
    /// holders.
    pub async fn finish(self) {
        let _ = self.progress.await;
        drain(self.holders, Duration::from_secs(10)).await;
    }
}

/// Opens `plan.wanted` connections, `plan.concurrency` at a time, until all are open or
/// the ramp limit; `connect(i, server, source)` opens the i-th (from the i-th source
/// address) and gives back what holds it. A connection
/// counts as open (`live.open`, `live.opened`) once `connect` succeeds, a failure by its
/// kind, and one not started within the ramp limit as `ramp_timeout`. Returns after the
/// last ones being opened and a 2 s settle, with a progress line each second until `stop`.
pub async fn open_all<C, F, H>(
    plan: &Plan<'_>,
    live: &Arc<Live>,
    stop: &CancellationToken,
    mut connect: C,
) -> Result<Ramp, String>
where
    C: FnMut(usize, SocketAddr, Ipv4Addr) -> F,
    F: Future<Output = Result<H, Failure>> + Send + 'static,
    H: Future<Output = ()> + Send + 'static,
{
    let wanted = plan.wanted;
    let opening = Arc::new(Semaphore::new(plan.concurrency as usize));
    let ramp_deadline = Instant::now() + Duration::from_secs(plan.ramp_limit);
    let ramp_started = Instant::now();
    let progress = tokio::spawn(progress(
        live.clone(),
        ramp_started,
        wanted,
        plan.opened_as,
        stop.clone(),
    ));
    let mut holders = JoinSet::new();
    let mut launched = 0;
    for i in 0..wanted {
        let permit = tokio::select! {
            permit = opening.clone().acquire_owned() => permit.map_err(|err| err.to_string())?,
            _ = tokio::time::sleep_until(ramp_deadline) => break,
        };
        let connecting = connect(i, plan.common.url, plan.common.source(i));
        let live = live.clone();
        holders.spawn(async move {
            // Counted before the permit goes back, so that the count is whole once every
            // permit is back.
            match connecting.await {
                Ok(holding) => {
                    live.open.fetch_add(1, Ordering::Relaxed);
                    live.opened.fetch_add(1, Ordering::Relaxed);
                    drop(permit);
                    holding.await;
                }
                Err(failure) => {
                    live.fail(&failure);
                    drop(permit);
                }
            }
        });
        launched += 1;
    }
    // Wait for the last ones being opened (each is bounded by the connect timeout).
    let _ = tokio::time::timeout_at(
        ramp_deadline.max(Instant::now()) + conn::CONNECT_TIMEOUT,
        opening.acquire_many(plan.concurrency),
    )
    .await;
    let took = ramp_started.elapsed();
    for _ in launched..wanted {
        live.fail(&Failure::new("ramp_timeout", "not opened within --ramp-limit"));
    }
    let opened = live.opened.load(Ordering::Relaxed);
    tokio::time::sleep(SETTLE).await;
    Ok(Ramp {
        took,
        opened,
        holders,
        progress,
    })
}

/// Reads a connection until `stop` (answering pings), handing each message to `each`,
/// which breaks to stop reading (having counted why); counts the server's close or an
/// error as a failure `…_while_held`, and the connection as no longer open at the end.
pub async fn hold(
    mut ws: Ws,
    live: &Live,
    stop: &CancellationToken,
    mut each: impl FnMut(&Message) -> ControlFlow<()>,
) {
    loop {
        let message = tokio::select! {
            _ = stop.cancelled() => break,
            message = ws.next() => message,
        };
        match message {
            Some(Ok(message)) => {
                if each(&message).is_break() {
                    break;
                }
            }
            Some(Err(err)) => {
                let failure = Failure::ws("holding", &err);
                live.fail(&Failure::new(format!("{}_while_held", failure.kind), failure.detail));
                break;
            }
            None => {
                live.fail(&Failure::new("closed_while_held", "end of stream"));
                break;
            }
        }
    }
    live.open.fetch_sub(1, Ordering::Relaxed);
}

/// A memory reading for the report (`?` when unknown).
pub fn kib(v: Option<u64>) -> String {
    v.map_or("?".to_owned(), |v| format!("{v} KiB"))
}

/// Opened and open connections once a second until `stop`.
async fn progress(live: Arc<Live>, start: Instant, wanted: usize, opened_as: &'static str, stop: CancellationToken) {
    let mut last = 0;
    stats::each_second(start, stop, |now| {
        let opened = live.opened.load(Ordering::Relaxed);
        eprintln!(
            "[{:>4} s] {opened} of {wanted} {opened_as} (+{}/s), {} open, {} failures",
            now.duration_since(start).as_secs(),
            opened - last,
            live.open.load(Ordering::Relaxed),
            live.failure_count()
        );
        last = opened;
    })
    .await;
}
