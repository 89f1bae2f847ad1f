//! The pairing mode: K pairs of lobby players seeking over and over (docs/protocol.md,
//! section 7), for the throughput and latency of quick pairing.
//!
//! Each player is one task holding one lobby WebSocket (`hello`, keeping its token), from
//! the pair's source address. Both players of pair i seek in pool i mod `--pools`. A round:
//! `seek` (with a `ref`), read until `paired`; open `/ws/tables/{table}`, read the snapshot,
//! `hello` with the token, read until `game_started`; the player whose own request made the
//! pairing (its `paired` carries the request's `ref`) resigns; both read `game_over`, close
//! the table's socket and seek again. Pairing takes the oldest compatible seek, so people
//! rarely meet their own partner; that does not matter: every `paired` received is one seek
//! paired.
//!
//! The **pairing latency** runs from sending the second seek of a pairing (the one answered
//! `paired` at once) to the later of its two people's `game_started`. The two sides are in
//! different tasks: they meet in a map by table id, and the pairing counts in the window
//! when its last `game_started` does. Seeks paired count in the window when their `paired`
//! arrives in it. With `--no-visit` a player seeks again as soon as it is paired, and
//! nobody goes to the tables: pairing alone. Two parts of it are reported too: the second seek's own round trip (to
//! its `paired`), the time until the waiting side is told (its `paired`, by the server's
//! `NOTIFY`), and each side's way into the table (`paired` to the snapshot).

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::cli::{Common, PairingArgs};
use crate::conn::{self, Failure, Frame, Ws};
use crate::lobby::{self, POOLS};
use crate::stats::{self, Live, Report, Summary};
use crate::window::{self, Schedule, Window};

/// The longest wait for every player to have joined the lobby before the warm-up starts anyway.
const READY_LIMIT: Duration = Duration::from_secs(20);
/// The longest wait for `paired`, and for a table's whole visit.
const WAIT_LIMIT: Duration = Duration::from_secs(10);
/// A player that failed waits this long before it tries again.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// What a pairing's two sides have seen so far.
#[derive(Debug, Default)]
struct Meeting {
    /// When the seek that made the pairing was sent.
    second_sent: Option<Instant>,
    /// When the side whose seek waited was told `paired`.
    first_told: Option<Instant>,
    /// When each side saw `game_started`.
    started: Vec<Instant>,
}

/// What every player shares.
struct Ctx {
    server: SocketAddr,
    live: Arc<Live>,
    stop: CancellationToken,
    /// `--no-visit`: seek again at once after `paired`.
    no_visit: bool,
    /// Players in the lobby, ready to seek.
    ready: AtomicU32,
    /// Table WebSockets open now (the lobby's are `live.open`).
    tables_open: AtomicI64,
    /// `paired` messages received, since the start and inside the window.
    paired: AtomicU64,
    window_paired: AtomicU64,
    /// Pairings whose both sides saw `game_started` (since the start).
    met: AtomicU64,
    /// From sending a seek to its `paired`, for the seeks that made their pairing (window).
    answered: Mutex<Histogram<u64>>,
    /// From sending the second seek to the waiting side's `paired` (window).
    told: Mutex<Histogram<u64>>,
    /// From `paired` to the table's snapshot (connect, handshake, snapshot), every side (window).
    opened: Mutex<Histogram<u64>>,
    meetings: Mutex<HashMap<String, Meeting>>,
}

impl Ctx {
    /// Adds what one side saw of the pairing at `table`; once the second seek's sending
    /// and both `game_started` are known, records its latency.
    fn note(&self, table: &str, schedule: Schedule, update: impl FnOnce(&mut Meeting)) {
        let done = {
            let mut meetings = self.meetings.lock().unwrap_or_else(|e| e.into_inner());
            let meeting = meetings.entry(table.to_owned()).or_default();
            update(meeting);
            if meeting.second_sent.is_some() && meeting.started.len() >= 2 {
                meetings.remove(table)
            } else {
                None
            }
        };
        let Some(Meeting {
            second_sent: Some(sent),
            first_told,
            started,
        }) = done
        else {
            return;
        };
        let Some(&last) = started.iter().max() else { return };
        self.met.fetch_add(1, Ordering::Relaxed);
        if let Some(told) = first_told
            && schedule.contains(last)
        {
            record(&self.told, told.saturating_duration_since(sent));
        }
        self.live
            .record(last.saturating_duration_since(sent), schedule.contains(last));
    }
}

pub async fn run(args: &PairingArgs, common: &Common, server_pid: Option<u32>) -> Result<Report, String> {
    let players = args.pairs * 2;
    let pools = &POOLS[..usize::from(args.pools)];
    let live = Arc::new(Live::new());
    let ctx = Arc::new(Ctx {
        server: common.url,
        live: live.clone(),
        stop: CancellationToken::new(),
        no_visit: args.no_visit,
        ready: AtomicU32::new(0),
        tables_open: AtomicI64::new(0),
        paired: AtomicU64::new(0),
        window_paired: AtomicU64::new(0),
        met: AtomicU64::new(0),
        answered: Mutex::new(stats::histogram()),
        told: Mutex::new(stats::histogram()),
        opened: Mutex::new(stats::histogram()),
        meetings: Mutex::new(HashMap::new()),
    });
    let timing = Window::new(args.warmup, args.window, common, server_pid);

    // Every player joins the lobby; the warm-up starts when all have.
    let (start_tx, start_rx) = watch::channel(None);
    let mut tasks = JoinSet::new();
    for n in 0..players {
        let pair = usize::try_from(n / 2).unwrap_or(0);
        let pool = pools[pair % pools.len()];
        let source = common.source(pair);
        tasks.spawn(player(n, pool, source, ctx.clone(), start_rx.clone()));
    }
    let (ready, joined) = timing
        .wait_ready(&ctx.ready, players, READY_LIMIT, "players in the lobby")
        .await;
    let progress_ctx = ctx.clone();
    let measured = timing
        .run(&start_tx, &ctx.stop, tasks, |start, schedule| {
            progress(progress_ctx, start, schedule)
        })
        .await;

    let window_paired = ctx.window_paired.load(Ordering::Relaxed);
    let pairings = window_paired / 2;
    let wall = measured.cpu.wall.as_secs_f64().max(f64::EPSILON);
    let seeks_per_second = window_paired as f64 / wall;
    let latency = Summary::of(&live.window_histogram());
    let answered = Summary::of(&ctx.answered.lock().unwrap_or_else(|e| e.into_inner()));
    let told = Summary::of(&ctx.told.lock().unwrap_or_else(|e| e.into_inner()));
    let opened = Summary::of(&ctx.opened.lock().unwrap_or_else(|e| e.into_inner()));
    let unfinished = ctx.meetings.lock().unwrap_or_else(|e| e.into_inner()).len();

    let in_window =
        |title: &str, summary: Option<Summary>, what: &str| Summary::titled(title, summary, what, "none in the window");
    let lines = vec![
        format!(
            "loadgen pairing: {} pairs ({players} lobby WebSockets) seeking in {} ({}){}, server {} (pid {})",
            args.pairs,
            if pools.len() == 1 { "one pool" } else { "pools" },
            pools.join(", "),
            if args.no_visit {
                ", never going to the table"
            } else {
                ""
            },
            common.url,
            stats::pid_text(server_pid)
        ),
        format!(
            "window: {wall:.2} s after {} s of warm-up; {window_paired} seeks paired = {seeks_per_second:.0} seeks paired/s ({:.0} pairings/s)",
            args.warmup,
            seeks_per_second / 2.0
        ),
        Summary::titled(
            "pairing latency (second seek sent → both game_started)",
            latency,
            "pairings",
            "no pairing met in the window",
        ),
        in_window("seek answered paired (the second seek's round trip)", answered, "seeks"),
        in_window(
            "the waiting side told (second seek sent → its paired)",
            told,
            "pairings",
        ),
        in_window(
            "table opened (paired → connected → snapshot), each side",
            opened,
            "visits",
        ),
        format!(
            "since the start: {} seeks paired, {} pairings met at their table ({unfinished} half-seen at the end); {ready} of {players} players joined in {:.2} s",
            ctx.paired.load(Ordering::Relaxed),
            ctx.met.load(Ordering::Relaxed),
            joined.as_secs_f64()
        ),
    ];
    let json = json!({
        "mode": "pairing",
        "label": common.label,
        "pairs": args.pairs,
        "pools": pools,
        "no_visit": args.no_visit,
        "warmup_s": args.warmup,
        "window_s": stats::round3(wall),
        "seeks_paired": window_paired,
        "seeks_paired_per_s": seeks_per_second.round(),
        "pairings": pairings,
        "pairings_per_s": (seeks_per_second / 2.0).round(),
        "latency": latency.map(|s| s.json()),
        "seek_answered": answered.map(|s| s.json()),
        "waiting_side_told": told.map(|s| s.json()),
        "table_opened": opened.map(|s| s.json()),
        "met": ctx.met.load(Ordering::Relaxed),
        "ready": ready,
        "joining_s": stats::round3(joined.as_secs_f64()),
    });
    Ok(measured.report(lines, pairings, "pairing", &live, json))
}

/// A progress line on stderr once a second until `stop`.
async fn progress(ctx: Arc<Ctx>, start: Instant, schedule: Schedule) {
    let (mut last_paired, mut last_met) = (0, 0);
    stats::each_second(start, ctx.stop.clone(), |now| {
        let paired = ctx.paired.load(Ordering::Relaxed);
        let met = ctx.met.load(Ordering::Relaxed);
        let (p99_second, p99_window) = ctx.live.take_second();
        let phase = schedule.phase(now);
        let ms = |p: Option<f64>| p.map_or("-".to_owned(), |p| format!("{p:.1} ms"));
        eprintln!(
            "[{:>4} s {phase:<7}] {:>5} seeks paired/s, {:>4} met/s, p99 {} (last s), {} (window), {} lobby and {} table sockets open, {} failures",
            now.duration_since(start).as_secs(),
            paired - last_paired,
            met - last_met,
            ms(p99_second),
            ms(p99_window),
            ctx.live.open.load(Ordering::Relaxed),
            ctx.tables_open.load(Ordering::Relaxed),
            ctx.live.failure_count(),
        );
        (last_paired, last_met) = (paired, met);
    })
    .await;
}

/// One player: in the lobby, seeking round after round until `stop`.
async fn player(
    n: u32,
    pool: &'static str,
    source: Ipv4Addr,
    ctx: Arc<Ctx>,
    mut start: watch::Receiver<Option<Schedule>>,
) {
    let mut lobby: Option<(Ws, String)> = None;
    let mut schedule: Option<Schedule> = None;
    let mut reference = 0u64;
    while !ctx.stop.is_cancelled() {
        let (ws, token) = match &mut lobby {
            Some(joined) => joined,
            None => {
                let joined = tokio::select! {
                    _ = ctx.stop.cancelled() => break,
                    joined = lobby::join(ctx.server, source) => joined,
                };
                match joined {
                    Ok(joined) => {
                        ctx.live.open.fetch_add(1, Ordering::Relaxed);
                        lobby.insert(joined)
                    }
                    Err(failure) => {
                        ctx.live.fail(&failure);
                        pause(&ctx).await;
                        continue;
                    }
                }
            }
        };
        let schedule = match schedule {
            Some(schedule) => schedule,
            None => {
                let Some(got) = window::wait_for_start(&ctx.ready, &ctx.stop, &mut start).await else {
                    break;
                };
                *schedule.insert(got)
            }
        };
        reference += 1;
        let round = tokio::select! {
            _ = ctx.stop.cancelled() => break,
            round = round(&ctx, ws, token, n, pool, reference, source, schedule) => round,
        };
        if let Err((failure, lobby_lost)) = round {
            ctx.live.fail(&failure);
            if lobby_lost {
                lobby = None;
                ctx.live.open.fetch_sub(1, Ordering::Relaxed);
            }
            pause(&ctx).await;
        }
    }
    if lobby.is_some() {
        ctx.live.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Records `latency` in a histogram of microseconds.
fn record(histogram: &Mutex<Histogram<u64>>, latency: Duration) {
    let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
    histogram
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .saturating_record(us.max(1));
}

async fn pause(ctx: &Ctx) {
    tokio::select! {
        _ = ctx.stop.cancelled() => {}
        _ = tokio::time::sleep(RETRY_PAUSE) => {}
    }
}

/// One seek to its table's `game_over`. A failure says whether the lobby connection is
/// lost (then the player joins again as a new person).
#[allow(clippy::too_many_arguments)]
async fn round(
    ctx: &Ctx,
    ws: &mut Ws,
    token: &str,
    n: u32,
    pool: &str,
    reference: u64,
    source: Ipv4Addr,
    schedule: Schedule,
) -> Result<(), (Failure, bool)> {
    let seek = format!(r#"{{"type":"seek","pool":"{pool}","name":"p{n}","ref":{reference}}}"#);
    let sent = Instant::now();
    ws.send(Message::text(seek))
        .await
        .map_err(|err| (Failure::ws("sending a seek", &err), true))?;
    // A seek still open after a timeout is answered `seeking` again, then `paired` later.
    let deadline = sent + WAIT_LIMIT;
    let (table, direct) = loop {
        let event = lobby::next_event(ws, deadline, "waiting for paired")
            .await
            .map_err(|failure| {
                let lost = failure.kind != "timeout";
                (failure, lost)
            })?;
        match event.kind.as_str() {
            "paired" => {
                let direct = event.answers(reference);
                let Some(table) = event.table else {
                    return Err((Failure::new("no_table", "a paired without a table"), false));
                };
                break (table, direct);
            }
            "error" => return Err((event.failure("seeking"), false)),
            _ => {}
        }
    };
    let now = Instant::now();
    ctx.paired.fetch_add(1, Ordering::Relaxed);
    if schedule.contains(now) {
        ctx.window_paired.fetch_add(1, Ordering::Relaxed);
    }
    if direct {
        if schedule.contains(now) {
            record(&ctx.answered, now.saturating_duration_since(sent));
        }
        ctx.note(&table, schedule, |meeting| meeting.second_sent = Some(sent));
    } else {
        ctx.note(&table, schedule, |meeting| meeting.first_told = Some(now));
    }
    if ctx.no_visit {
        return Ok(());
    }
    visit(ctx, &table, token, source, direct, schedule)
        .await
        .map_err(|failure| (failure, false))
}

/// At the table: snapshot, `hello`, `game_started` (noted), a resignation by the side that
/// made the pairing, `game_over`; then the socket is closed in the background.
async fn visit(
    ctx: &Ctx,
    table: &str,
    token: &str,
    source: Ipv4Addr,
    resigns: bool,
    schedule: Schedule,
) -> Result<(), Failure> {
    let asked = Instant::now();
    let deadline = asked + WAIT_LIMIT;
    let mut ws = tokio::time::timeout_at(deadline, conn::connect(ctx.server, source, table))
        .await
        .map_err(|_| Failure::timeout("connecting to the table"))??;
    ctx.tables_open.fetch_add(1, Ordering::Relaxed);
    let at_table = async {
        until(&mut ws, "snapshot").await?;
        let now = Instant::now();
        if schedule.contains(now) {
            record(&ctx.opened, now.saturating_duration_since(asked));
        }
        let hello = format!(r#"{{"type":"hello","token":"{token}"}}"#);
        ws.send(Message::text(hello))
            .await
            .map_err(|err| Failure::ws("sending hello to the table", &err))?;
        until(&mut ws, "game_started").await?;
        let started = Instant::now();
        ctx.note(table, schedule, |meeting| meeting.started.push(started));
        if resigns {
            ws.send(Message::text(r#"{"type":"resign"}"#))
                .await
                .map_err(|err| Failure::ws("sending resign", &err))?;
        }
        until(&mut ws, "game_over").await
    };
    let result = tokio::time::timeout_at(deadline, at_table)
        .await
        .unwrap_or_else(|_| Err(Failure::timeout("at the table")));
    let open = &ctx.tables_open;
    let closing = async move {
        let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
    };
    tokio::spawn(closing);
    open.fetch_sub(1, Ordering::Relaxed);
    result
}

/// Reads the table's socket until an event of type `kind`; an `error` fails.
async fn until(ws: &mut Ws, kind: &str) -> Result<(), Failure> {
    loop {
        let message = ws
            .next()
            .await
            .ok_or_else(|| Failure::new("closed", format!("the table closed the connection before {kind}")))?
            .map_err(|err| Failure::ws(&format!("reading the table before {kind}"), &err))?;
        match conn::read_frame(&message)? {
            Frame::Event(event) if event.kind == kind => return Ok(()),
            Frame::Event(event) if event.kind == "error" => {
                return Err(Failure::new(
                    format!("error_{}", event.code.unwrap_or("unknown")),
                    format!("at the table, before {kind}: {message}"),
                ));
            }
            Frame::Closed(why) => return Err(Failure::new("closed", format!("at the table, before {kind}: {why}"))),
            _ => {}
        }
    }
}
