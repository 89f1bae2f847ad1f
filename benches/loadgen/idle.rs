//! The idle mode: N WebSockets held open, as spectators spread over ceil(N / per-table)
//! Gomoku tables (nobody sits, no game starts), to read the server's memory per connection.
//!
//! The connections come from `--sources` loopback addresses (127.0.0.1 …), so that more
//! than one address's ephemeral ports are available, and are opened `--concurrency` at a
//! time; each counts as open once its snapshot has arrived. Each is then read until the
//! end (the WebSocket layer answers the server's pings), and a failure, while opening or
//! holding, is counted by kind. The server's resident memory is read before the tables,
//! after them, once every connection is open (after a 2 s settle), and at the end of the hold.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::json;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cli::{Common, IdleArgs};
use crate::conn::{self, Failure, Frame};
use crate::procfs;
use crate::ramp::{self, Plan, kib};
use crate::stats::{self, Live, Report, measure};

/// Tables created at once.
const TABLE_CONCURRENCY: usize = 32;

pub async fn run(idle: &IdleArgs, common: &Common, server_pid: Option<u32>) -> Result<Report, String> {
    let wanted = idle.connections as usize;
    let (own_limit, server_limit) =
        ramp::nofile_limits(idle.connections, server_pid, "; start it with `ulimit -n` raised");
    let live = Arc::new(Live::new());
    let rss_start = server_pid.and_then(procfs::rss_kib);

    // The tables, spread over the source addresses' HTTP clients.
    let table_count = wanted.div_ceil(idle.per_table as usize);
    let sources: Vec<_> = (0..usize::from(common.sources)).map(|i| common.source(i)).collect();
    let http = sources
        .iter()
        .map(|&source| conn::http_client(source))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|f| f.to_string())?;
    let started = Instant::now();
    let mut tables = Vec::with_capacity(table_count);
    let mut creating = JoinSet::new();
    for i in 0..table_count {
        if creating.len() >= TABLE_CONCURRENCY
            && let Some(done) = creating.join_next().await
        {
            collect_table(done, &mut tables, &live);
        }
        let client = http[i % http.len()].clone();
        let server = common.url;
        creating.spawn(async move { conn::create_table(&client, server).await });
    }
    while let Some(done) = creating.join_next().await {
        collect_table(done, &mut tables, &live);
    }
    if tables.is_empty() {
        return Err(format!(
            "no table could be created: {:?}",
            live.failures().into_iter().next()
        ));
    }
    let tables_time = started.elapsed();
    let rss_tables = server_pid.and_then(procfs::rss_kib);
    eprintln!(
        "loadgen: {} tables in {:.2} s; opening {wanted} connections, {} at a time, from {} source addresses",
        tables.len(),
        tables_time.as_secs_f64(),
        idle.concurrency,
        sources.len()
    );

    // The connections, `concurrency` at a time, until all are open or the ramp limit.
    let stop = CancellationToken::new();
    let frames = Arc::new(AtomicU64::new(0));
    let plan = Plan::new(common, wanted, idle.concurrency, idle.ramp_limit, "opened");
    let opened_ramp = ramp::open_all(&plan, &live, &stop, |i, server, source| {
        let table = tables[(i / idle.per_table as usize) % tables.len()].clone();
        let (live, stop, frames) = (live.clone(), stop.clone(), frames.clone());
        async move {
            let ws = open(server, source, &table).await?;
            Ok(async move { hold(ws, &live, &stop, &frames).await })
        }
    })
    .await?;
    let (ramp, opened) = (opened_ramp.took, opened_ramp.opened);
    let rss_open = server_pid.and_then(procfs::rss_kib);
    let open_at_start = live.open.load(Ordering::Relaxed);
    eprintln!(
        "loadgen: {opened} connections opened in {:.2} s ({} failed); holding for {} s",
        ramp.as_secs_f64(),
        live.failure_count(),
        idle.hold
    );

    let cpu = measure(server_pid, common, Instant::now() + Duration::from_secs(idle.hold)).await;
    let rss_end = server_pid.and_then(procfs::rss_kib);
    let own_rss = procfs::rss_kib(std::process::id());
    let open_at_end = live.open.load(Ordering::Relaxed);
    stop.cancel();
    opened_ramp.finish().await;

    let (cpu_lines, cpu_json) = stats::cpu_report(&cpu, None);
    let (failure_lines, failure_json) = stats::failure_report(&live.failures());
    let per_connection = |after: Option<u64>| match (rss_tables, after) {
        (Some(before), Some(after)) if opened > 0 => Some(after.saturating_sub(before) as f64 / opened as f64),
        _ => None,
    };
    let per = |v: Option<f64>| v.map_or("?".to_owned(), |v| format!("{v:.2} KiB"));
    let server_us_per_conn_s = cpu
        .server
        .filter(|_| open_at_end > 0)
        .map(|d| d.as_secs_f64() * 1e6 / (open_at_end as f64 * cpu.wall.as_secs_f64().max(f64::EPSILON)));

    let mut lines = vec![
        format!(
            "loadgen idle: {wanted} WebSockets wanted, spectators at {} tables ({} per table), from {} source addresses; server {} (pid {})",
            tables.len(),
            idle.per_table,
            sources.len(),
            common.url,
            stats::pid_text(server_pid)
        ),
        format!(
            "opened {opened} in {:.2} s ({:.0}/s); open after the settle {open_at_start}, at the end of the {} s hold {open_at_end}",
            ramp.as_secs_f64(),
            opened as f64 / ramp.as_secs_f64().max(f64::EPSILON),
            idle.hold
        ),
        format!(
            "server RSS: {} at the start, {} with the tables, {} with the connections open, {} at the end of the hold",
            kib(rss_start),
            kib(rss_tables),
            kib(rss_open),
            kib(rss_end)
        ),
        format!(
            "server memory per connection: {} once open, {} at the end of the hold (RSS growth from the tables' reading / connections opened)",
            per(per_connection(rss_open)),
            per(per_connection(rss_end))
        ),
        format!(
            "frames received while holding: {}; our own RSS {}; file-descriptor limits: ours {own_limit}, the server's {}",
            frames.load(Ordering::Relaxed),
            kib(own_rss),
            server_limit.map_or("?".to_owned(), |l| l.to_string())
        ),
    ];
    lines.extend(cpu_lines);
    if let Some(us) = server_us_per_conn_s {
        lines.push(format!("server CPU while idle: {us:.2} µs per connection per second"));
    }
    lines.extend(failure_lines);
    let json = json!({
        "mode": "idle",
        "label": common.label,
        "connections": wanted,
        "per_table": idle.per_table,
        "tables": tables.len(),
        "sources": sources.len(),
        "opened": opened,
        "open_after_settle": open_at_start,
        "open_at_end": open_at_end,
        "ramp_s": stats::round3(ramp.as_secs_f64()),
        "hold_s": idle.hold,
        "server_pid": server_pid,
        "server_rss_kib": {"start": rss_start, "tables": rss_tables, "open": rss_open, "end": rss_end},
        "kib_per_connection": per_connection(rss_open).map(stats::round3),
        "kib_per_connection_end": per_connection(rss_end).map(stats::round3),
        "server_cpu_us_per_connection_s": server_us_per_conn_s.map(stats::round3),
        "loadgen_rss_kib": own_rss,
        "cpu": cpu_json,
        "failures": failure_json,
    });
    Ok(Report { lines, json })
}

fn collect_table(done: Result<Result<String, Failure>, tokio::task::JoinError>, tables: &mut Vec<String>, live: &Live) {
    match done {
        Ok(Ok(id)) => tables.push(id),
        Ok(Err(failure)) => live.fail(&failure),
        Err(err) => live.fail(&Failure::new("task", err.to_string())),
    }
}

/// Connects and waits for the snapshot.
async fn open(server: std::net::SocketAddr, source: std::net::Ipv4Addr, table: &str) -> Result<conn::Ws, Failure> {
    let mut ws = conn::connect(server, source, table).await?;
    let first = tokio::time::timeout(conn::CONNECT_TIMEOUT, ws.next())
        .await
        .map_err(|_| Failure::timeout("waiting for the snapshot"))?
        .ok_or_else(|| Failure::new("closed", "closed before the snapshot"))?
        .map_err(|err| Failure::ws("reading the snapshot", &err))?;
    match conn::read_frame(&first)? {
        Frame::Event(event) if event.kind == "snapshot" => Ok(ws),
        Frame::Closed(why) => Err(Failure::new("closed", format!("before the snapshot: {why}"))),
        _ => Err(Failure::new("no_snapshot", format!("the first frame: {first}"))),
    }
}

/// Reads a connection until `stop` (answering pings), counting its frames and a close by
/// the server.
async fn hold(ws: conn::Ws, live: &Live, stop: &CancellationToken, frames: &AtomicU64) {
    ramp::hold(ws, live, stop, |message| {
        frames.fetch_add(1, Ordering::Relaxed);
        if let Ok(Frame::Closed(why)) = conn::read_frame(message) {
            live.fail(&Failure::new("closed_while_held", why));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })
    .await;
}
