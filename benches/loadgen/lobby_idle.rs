//! The lobby-idle mode: N lobby connections held open (each reads its first `lobby` frame,
//! then only reads, which answers the server's pings), while one more connection, the
//! driver, cancels its seek and seeks again every `--churn-ms` so that the seeks list
//! changes all the time: the server then sends every connection one `lobby` frame a second
//! at most, and the run measures what that fan-out costs.
//!
//! The connections come from `--sources` loopback addresses, `--concurrency` at a time, as
//! in the idle mode. Readings: the server's RSS before the connections and with them open
//! (after a 2 s settle): **memory per connection**; the server's CPU while `--quiet` s pass
//! with nobody seeking, then, after a 2 s lead-in with the driver on, over `--hold` s; the
//! `lobby` frames and bytes the held connections received over those `--hold` s.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::SinkExt;
use serde_json::json;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::cli::{Common, LobbyIdleArgs};
use crate::conn::{Failure, Ws};
use crate::lobby::{self, LobbyFrame};
use crate::procfs::{self, CpuUse};
use crate::ramp::{self, Plan, kib};
use crate::stats::{self, Live, Report, measure};

/// The driver runs this long before the measured hold, so that the lists change already.
const LEAD_IN: Duration = Duration::from_secs(2);
/// The pool the driver seeks in (nobody else seeks, so it is never paired).
const DRIVER_POOL: &str = "gomoku/untimed";

/// What the held connections received.
#[derive(Default)]
struct Received {
    frames: AtomicU64,
    bytes: AtomicU64,
    first_bytes: AtomicU64,
}

impl Received {
    fn now(&self) -> (u64, u64) {
        (self.frames.load(Ordering::Relaxed), self.bytes.load(Ordering::Relaxed))
    }
}

pub async fn run(args: &LobbyIdleArgs, common: &Common, server_pid: Option<u32>) -> Result<Report, String> {
    let wanted = args.connections as usize;
    let (own_limit, server_limit) = ramp::nofile_limits(args.connections, server_pid, "");
    let live = Arc::new(Live::new());
    let stop = CancellationToken::new();
    let received = Arc::new(Received::default());

    // The driver joins first, so that the memory reading below holds only the N.
    let (driver_ws, _) = lobby::join(common.url, common.source(0))
        .await
        .map_err(|failure| format!("the driver could not join the lobby: {failure}"))?;
    let rss_before = server_pid.and_then(procfs::rss_kib);

    // The connections, `concurrency` at a time, until all are open or the ramp limit.
    let plan = Plan::new(
        common,
        wanted,
        args.concurrency,
        args.ramp_limit,
        "lobby connections opened",
    );
    let opened_ramp = ramp::open_all(&plan, &live, &stop, |_, server, source| {
        let (live, stop, received) = (live.clone(), stop.clone(), received.clone());
        async move {
            let (ws, first) = lobby::open(server, source).await?;
            received.first_bytes.fetch_add(first as u64, Ordering::Relaxed);
            Ok(async move { hold(ws, &live, &stop, &received).await })
        }
    })
    .await?;
    let (ramp, opened) = (opened_ramp.took, opened_ramp.opened);
    let rss_open = server_pid.and_then(procfs::rss_kib);
    eprintln!(
        "loadgen: {opened} lobby connections opened in {:.2} s ({} failed); {} s quiet, then the driver seeks and cancels every {} ms for {} s + {} s",
        ramp.as_secs_f64(),
        live.failure_count(),
        args.quiet,
        args.churn_ms,
        LEAD_IN.as_secs(),
        args.hold
    );

    // Quiet: nobody seeks.
    let quiet_received = received.now();
    let quiet_cpu = measure(server_pid, common, Instant::now() + Duration::from_secs(args.quiet)).await;
    let quiet_frames = received.now().0 - quiet_received.0;

    // The driver on; the hold measured after the lead-in.
    let changes = Arc::new(AtomicU64::new(0));
    let driver = tokio::spawn(drive(
        driver_ws,
        Duration::from_millis(args.churn_ms),
        live.clone(),
        changes.clone(),
        stop.clone(),
    ));
    tokio::time::sleep(LEAD_IN).await;
    let (frames_start, bytes_start) = received.now();
    let changes_start = changes.load(Ordering::Relaxed);
    let open_at_start = live.open.load(Ordering::Relaxed);
    let cpu = measure(server_pid, common, Instant::now() + Duration::from_secs(args.hold)).await;
    let (frames_end, bytes_end) = received.now();
    let changes_made = changes.load(Ordering::Relaxed) - changes_start;
    let rss_end = server_pid.and_then(procfs::rss_kib);
    let own_rss = procfs::rss_kib(std::process::id());
    let open_at_end = live.open.load(Ordering::Relaxed);
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), driver).await;
    opened_ramp.finish().await;

    let held = u64::try_from(open_at_end.max(0)).unwrap_or(0);
    let hold_s = cpu.wall.as_secs_f64().max(f64::EPSILON);
    let per_conn_s = |count: u64| (held > 0).then(|| count as f64 / held as f64 / hold_s);
    let frames_per_conn_s = per_conn_s(frames_end - frames_start);
    let bytes_per_conn_s = per_conn_s(bytes_end - bytes_start);
    let first_bytes = (opened > 0).then(|| received.first_bytes.load(Ordering::Relaxed) as f64 / opened as f64);
    let kib_per_connection = match (rss_before, rss_open) {
        (Some(before), Some(open)) if opened > 0 => Some(open.saturating_sub(before) as f64 / opened as f64),
        _ => None,
    };
    let cores = |cpu: &CpuUse| {
        cpu.server
            .map(|d| d.as_secs_f64() / cpu.wall.as_secs_f64().max(f64::EPSILON))
    };
    let us_per_conn_s = |cpu: &CpuUse| cores(cpu).filter(|_| held > 0).map(|c| c * 1e6 / held as f64);
    let (cpu_lines, cpu_json) = stats::cpu_report(&cpu, None);
    let (failure_lines, failure_json) = stats::failure_report(&live.failures());
    let num = |v: Option<f64>, digits: usize| v.map_or("?".to_owned(), |v| format!("{v:.digits$}"));

    let mut lines = vec![
        format!(
            "loadgen lobby-idle: {wanted} lobby WebSockets wanted, from {} source addresses, and a driver seeking and cancelling every {} ms; server {} (pid {})",
            common.sources,
            args.churn_ms,
            common.url,
            stats::pid_text(server_pid)
        ),
        format!(
            "opened {opened} in {:.2} s ({:.0}/s); open at the start of the hold {open_at_start}, at its end {open_at_end}",
            ramp.as_secs_f64(),
            opened as f64 / ramp.as_secs_f64().max(f64::EPSILON)
        ),
        format!(
            "server RSS: {} before, {} with the connections open, {} at the end of the hold; {} KiB per connection",
            kib(rss_before),
            kib(rss_open),
            kib(rss_end),
            num(kib_per_connection, 2)
        ),
        format!(
            "quiet {:.2} s: server {} cores = {} µs per connection per second; {quiet_frames} lobby frames received",
            quiet_cpu.wall.as_secs_f64(),
            num(cores(&quiet_cpu), 3),
            num(us_per_conn_s(&quiet_cpu), 2)
        ),
        format!(
            "hold {hold_s:.2} s with {changes_made} seek changes: server {} cores = {} µs per connection per second",
            num(cores(&cpu), 3),
            num(us_per_conn_s(&cpu), 2)
        ),
        format!(
            "received per connection: {} lobby frames/s, {} bytes/s ({} frames, {} bytes in all); first frame {} bytes",
            num(frames_per_conn_s, 3),
            num(bytes_per_conn_s, 0),
            frames_end - frames_start,
            bytes_end - bytes_start,
            num(first_bytes, 0)
        ),
        format!(
            "our own RSS {}; file-descriptor limits: ours {own_limit}, the server's {}",
            kib(own_rss),
            server_limit.map_or("?".to_owned(), |l| l.to_string())
        ),
    ];
    lines.extend(cpu_lines);
    lines.extend(failure_lines);
    let json = json!({
        "mode": "lobby-idle",
        "label": common.label,
        "connections": wanted,
        "sources": common.sources,
        "churn_ms": args.churn_ms,
        "opened": opened,
        "open_at_hold_start": open_at_start,
        "open_at_end": open_at_end,
        "ramp_s": stats::round3(ramp.as_secs_f64()),
        "server_pid": server_pid,
        "server_rss_kib": {"before": rss_before, "open": rss_open, "end": rss_end},
        "kib_per_connection": kib_per_connection.map(stats::round3),
        "quiet": {
            "wall_s": stats::round3(quiet_cpu.wall.as_secs_f64()),
            "server_cpu_s": quiet_cpu.server.map(|d| stats::round3(d.as_secs_f64())),
            "server_cores": cores(&quiet_cpu).map(stats::round3),
            "server_us_per_connection_s": us_per_conn_s(&quiet_cpu).map(stats::round3),
            "frames": quiet_frames,
        },
        "hold": {
            "wall_s": stats::round3(hold_s),
            "seek_changes": changes_made,
            "server_cores": cores(&cpu).map(stats::round3),
            "server_us_per_connection_s": us_per_conn_s(&cpu).map(stats::round3),
            "frames": frames_end - frames_start,
            "bytes": bytes_end - bytes_start,
            "frames_per_connection_s": frames_per_conn_s.map(stats::round3),
            "bytes_per_connection_s": bytes_per_conn_s.map(|b| b.round()),
        },
        "first_frame_bytes": first_bytes.map(f64::round),
        "loadgen_rss_kib": own_rss,
        "cpu": cpu_json,
        "failures": failure_json,
    });
    Ok(Report { lines, json })
}

/// Reads a lobby connection until `stop` (answering pings), counting its `lobby` frames.
async fn hold(ws: Ws, live: &Live, stop: &CancellationToken, received: &Received) {
    ramp::hold(ws, live, stop, |message| {
        match lobby::read(message) {
            Ok(LobbyFrame::Lists(bytes)) => {
                received.frames.fetch_add(1, Ordering::Relaxed);
                received.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
            }
            Ok(LobbyFrame::Closed(why)) => {
                live.fail(&Failure::new("closed_while_held", why));
                return ControlFlow::Break(());
            }
            Ok(LobbyFrame::Event(event)) => {
                live.fail(&Failure::new("unexpected_while_held", event.kind));
            }
            Ok(LobbyFrame::Other) => {}
            Err(failure) => live.fail(&failure),
        }
        ControlFlow::Continue(())
    })
    .await;
}

/// The driver: every `every`, cancels its open seek (if any) and seeks again, until `stop`;
/// `changes` counts the seeks made.
async fn drive(mut ws: Ws, every: Duration, live: Arc<Live>, changes: Arc<AtomicU64>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut open: Option<String> = None;
    let mut reference = 0u64;
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tick.tick() => {}
        }
        reference += 1;
        let step = change(&mut ws, &mut open, reference);
        let done = tokio::select! {
            _ = stop.cancelled() => break,
            done = tokio::time::timeout(Duration::from_secs(10), step) => done,
        };
        match done {
            Ok(Ok(())) => {
                changes.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(failure)) => live.fail(&Failure::new(format!("driver_{}", failure.kind), failure.detail)),
            Err(_) => live.fail(&Failure::timeout("driver")),
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
}

/// Cancels the open seek (waiting for `cancelled`) and seeks again (waiting for `seeking`).
async fn change(ws: &mut Ws, open: &mut Option<String>, reference: u64) -> Result<(), Failure> {
    let deadline = Instant::now() + Duration::from_secs(10);
    if let Some(id) = open.take() {
        let cancel = format!(r#"{{"type":"cancel","seek":"{id}","ref":{reference}}}"#);
        send(ws, cancel).await?;
        loop {
            let event = lobby::next_event(ws, deadline, "waiting for cancelled").await?;
            match event.kind.as_str() {
                "cancelled" => break,
                "error" => return Err(event.failure("cancelling")),
                _ => {}
            }
        }
    }
    let seek = format!(r#"{{"type":"seek","pool":"{DRIVER_POOL}","name":"driver","ref":{reference}}}"#);
    send(ws, seek).await?;
    loop {
        let event = lobby::next_event(ws, deadline, "waiting for seeking").await?;
        match event.kind.as_str() {
            "seeking" => {
                *open = event.seek_id().map(str::to_owned);
                return Ok(());
            }
            "error" => return Err(event.failure("seeking")),
            "paired" => return Err(Failure::new("driver_paired", "someone else seeks in the driver's pool")),
            _ => {}
        }
    }
}

async fn send(ws: &mut Ws, text: String) -> Result<(), Failure> {
    ws.send(Message::text(text))
        .await
        .map_err(|err| Failure::ws("the driver sending", &err))
}
