//! The playing modes: M Gomoku matches, each one task holding both players' WebSockets.
//!
//! A match creates a table (`POST /api/tables`, free opening, chosen seats), connects X and
//! O (from two source addresses), sits them, and plays random legal moves, tracking the
//! board from the `moved` events its next mover receives. When a game ends (five in a
//! row or a full board) the match leaves that table and opens a new one.
//!
//! - **closed**: the next move is sent as soon as the mover's opponent (the next mover)
//!   receives the previous `moved`;
//! - **open**: each match offers `rate / M` moves a second: move n + 1 is due one interval
//!   after move n was due. A move due while the previous one is unanswered waits, and its
//!   latency counts from when it was due, so queuing shows (no coordinated omission). A
//!   new game starts a fresh schedule (at a random phase), so table changes are not offered
//!   moves.
//!
//! The latency is **opponent-sees**: from sending (closed) or the due time (open) of
//! `move` to the opponent's socket receiving its `moved`. A move counts in the window
//! when that receipt falls inside it.

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use rand::rngs::SmallRng;
use serde_json::json;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::cli::{Common, PlayArgs};
use crate::conn::{self, Failure, Frame, Ws};
use crate::rounds::{self, Rounds, Run, until_game_started};
use crate::stats::{self, Live, Report, Summary};
use crate::window::{Schedule, Window};

/// A match that hears nothing for this long gives its table up (`timeout`).
const SILENCE: Duration = Duration::from_secs(10);
/// The longest wait for every match to be seated before the warm-up starts anyway.
const SEATING_LIMIT: Duration = Duration::from_secs(20);
/// After the window, a run stops within this long whatever its tasks do.
pub const STOP_GRACE: Duration = Duration::from_secs(30);

/// What every match shares.
struct Ctx {
    server: std::net::SocketAddr,
    common_sources: Vec<std::net::Ipv4Addr>,
    /// One HTTP client per source address.
    http: Vec<reqwest::Client>,
    /// The time between a match's moves in the open mode; `None`: full speed.
    interval: Option<Duration>,
    run: Run,
}

/// Runs the closed (`rate` `None`) or open mode and reports.
pub async fn run(
    play: &PlayArgs,
    rate: Option<f64>,
    common: &Common,
    server_pid: Option<u32>,
) -> Result<Report, String> {
    let matches = play.matches;
    let sources: Vec<_> = (0..usize::from(common.sources)).map(|i| common.source(i)).collect();
    let http = sources
        .iter()
        .map(|&source| conn::http_client(source))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|f| f.to_string())?;
    let live = Arc::new(Live::new());
    let ctx = Arc::new(Ctx {
        server: common.url,
        common_sources: sources,
        http,
        interval: rate.map(|r| Duration::from_secs_f64(f64::from(matches) / r)),
        run: Run::new(live.clone(), play.seed),
    });
    let timing = Window::new(play.warmup, play.window, common, server_pid);

    // Every match seats its first table; the warm-up starts when all are seated.
    let (start_tx, start_rx) = watch::channel(None);
    let mut tasks = JoinSet::new();
    for n in 0..matches {
        tasks.spawn(rounds::table_after_table(n, ctx.clone(), start_rx.clone()));
    }
    let (seated, seating) = timing
        .wait_ready(&ctx.run.seated, matches, SEATING_LIMIT, "matches seated")
        .await;
    let stop = ctx.run.stop.clone();
    let measured = timing
        .run(&start_tx, &ctx.run.stop, tasks, |start, schedule| {
            progress(live.clone(), start, schedule, stop)
        })
        .await;
    let cpu = &measured.cpu;

    let window_moves = live.window_moves.load(Ordering::Relaxed);
    let latency = Summary::of(&live.window_histogram());
    let moves_per_second = window_moves as f64 / cpu.wall.as_secs_f64().max(f64::EPSILON);
    let mode = if rate.is_some() { "open" } else { "closed" };

    let lines = vec![
        format!(
            "loadgen {mode}: {matches} matches (Gomoku 15×15, free opening, random legal moves), {} WebSockets, server {} (pid {})",
            2 * matches,
            common.url,
            stats::pid_text(server_pid)
        ),
        format!(
            "window: {:.2} s after {} s of warm-up; {window_moves} moves = {moves_per_second:.0} moves/s{}",
            cpu.wall.as_secs_f64(),
            play.warmup,
            rate.map_or(String::new(), |r| format!(" (offered {r:.0}/s)"))
        ),
        Summary::titled("opponent-sees latency", latency, "moves", "no moves in the window"),
        format!(
            "tables created {}, games finished {}, matches seated at the start {seated} in {:.2} s",
            live.tables.load(Ordering::Relaxed),
            live.games.load(Ordering::Relaxed),
            seating.as_secs_f64()
        ),
    ];
    let json = json!({
        "mode": mode,
        "label": common.label,
        "matches": matches,
        "offered_rate": rate,
        "warmup_s": play.warmup,
        "window_s": stats::round3(cpu.wall.as_secs_f64()),
        "moves": window_moves,
        "moves_per_s": moves_per_second.round(),
        "latency": latency.map(|s| s.json()),
        "tables": live.tables.load(Ordering::Relaxed),
        "games": live.games.load(Ordering::Relaxed),
        "seated": seated,
        "seating_s": stats::round3(seating.as_secs_f64()),
    });
    Ok(measured.report(lines, window_moves, "move", &live, json))
}

/// A progress line on stderr once a second until `stop`.
async fn progress(live: Arc<Live>, start: Instant, schedule: Schedule, stop: CancellationToken) {
    let mut last_moves = 0;
    stats::each_second(start, stop, |now| {
        let moves = live.moves.load(Ordering::Relaxed);
        let (p99_second, p99_window) = live.take_second();
        let phase = schedule.phase(now);
        let ms = |p: Option<f64>| p.map_or("-".to_owned(), |p| format!("{p:.2} ms"));
        eprintln!(
            "[{:>4} s {phase:<7}] {:>6} moves/s, p99 {} (last s), {} (window), {} sockets open, {} games, {} failures",
            now.duration_since(start).as_secs(),
            moves - last_moves,
            ms(p99_second),
            ms(p99_window),
            live.open.load(Ordering::Relaxed),
            live.games.load(Ordering::Relaxed),
            live.failure_count(),
        );
        last_moves = moves;
    })
    .await;
}

impl Rounds for Ctx {
    type Seated = [Ws; 2];

    fn run(&self) -> &Run {
        &self.run
    }
    async fn seat(&self, n: u32) -> Result<[Ws; 2], Failure> {
        seat_table(self, n).await
    }
    async fn play(&self, players: &mut [Ws; 2], rng: &mut SmallRng, schedule: Schedule) -> Result<bool, Failure> {
        play_game(self, players, rng, schedule).await
    }
    fn close(&self, players: [Ws; 2]) {
        close(players, self.run.live.clone());
    }
}

/// Creates a table and seats X (seat 0) and O (seat 1) on their own connections; returns
/// once both have seen `game_started`.
async fn seat_table(ctx: &Ctx, n: u32) -> Result<[Ws; 2], Failure> {
    let index = usize::try_from(n).unwrap_or(0);
    let sources = &ctx.common_sources;
    let table = conn::create_table(&ctx.http[index % ctx.http.len()], ctx.server).await?;
    ctx.run.live.tables.fetch_add(1, Ordering::Relaxed);
    let (x, o) = tokio::try_join!(
        conn::connect(ctx.server, sources[(2 * index) % sources.len()], &table),
        conn::connect(ctx.server, sources[(2 * index + 1) % sources.len()], &table),
    )?;
    ctx.run.live.open.fetch_add(2, Ordering::Relaxed);
    let mut players = [x, o];
    let seated = async {
        for (seat, ws) in players.iter_mut().enumerate() {
            let sit = format!(r#"{{"type":"sit","seat":{seat},"name":"load-{n}-{seat}"}}"#);
            ws.send(Message::text(sit))
                .await
                .map_err(|err| Failure::ws("sending sit", &err))?;
        }
        for ws in &mut players {
            until_game_started(ws).await?;
        }
        Ok(())
    };
    match tokio::time::timeout(SILENCE, seated).await {
        Ok(Ok(())) => Ok(players),
        Ok(Err(failure)) => {
            close(players, ctx.run.live.clone());
            Err(failure)
        }
        Err(_) => {
            close(players, ctx.run.live.clone());
            Err(Failure::timeout("seating"))
        }
    }
}

/// Closes both players' connections in the background.
fn close(players: [Ws; 2], live: Arc<Live>) {
    tokio::spawn(async move {
        for mut ws in players {
            let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
            live.open.fetch_sub(1, Ordering::Relaxed);
        }
    });
}

/// What a match waits for.
#[derive(Debug, Clone, Copy)]
enum Next {
    /// Seat `mover` plays once `due` has come.
    Ready { due: Instant },
    /// Ply `ply` was sent; its latency counts from `from`.
    Waiting { ply: u32, from: Instant },
}

/// Plays one game to its end (`Ok(true)`), or until `stop` (`Ok(false)`).
async fn play_game(ctx: &Ctx, players: &mut [Ws; 2], rng: &mut SmallRng, schedule: Schedule) -> Result<bool, Failure> {
    let mut free: Vec<u8> = (0..225).collect();
    let mut mover = 0usize;
    let mut ply = 0u32;
    let mut next = Next::Ready {
        due: match ctx.interval {
            Some(interval) => Instant::now() + interval.mul_f64(rng.random::<f64>()),
            None => Instant::now(),
        },
    };
    // One timer for silence, moved on only when it fires (cheaper than one per message).
    let mut last_heard = Instant::now();
    let mut silence = pin!(tokio::time::sleep(SILENCE));
    let [x, o] = players;
    loop {
        if let Next::Ready { due } = next
            && Instant::now() >= due
        {
            let Some(&square) = free.get(rng.random_range(0..free.len().max(1))) else {
                // A full board ends the game by the rules; the server says so first.
                return Err(Failure::new(
                    "board_full_unannounced",
                    "no free square and no end of game",
                ));
            };
            let ws = if mover == 0 { &mut *x } else { &mut *o };
            ws.send(conn::move_frame(square))
                .await
                .map_err(|err| Failure::ws("sending a move", &err))?;
            let from = if ctx.interval.is_some() { due } else { Instant::now() };
            next = Next::Waiting { ply: ply + 1, from };
        }
        let due = match next {
            Next::Ready { due } => Some(due),
            Next::Waiting { .. } => None,
        };
        let (socket, message) = tokio::select! {
            biased;
            _ = ctx.run.stop.cancelled() => return Ok(false),
            message = x.next() => (0, message),
            message = o.next() => (1, message),
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => continue,
            _ = &mut silence => {
                if last_heard.elapsed() >= SILENCE {
                    return Err(Failure::timeout(&format!("waiting for the moved of ply {}", ply + 1)));
                }
                silence.as_mut().reset(last_heard + SILENCE);
                continue;
            }
        };
        let now = Instant::now();
        last_heard = now;
        let message = message
            .ok_or_else(|| Failure::new("closed", "the server closed the connection during a game"))?
            .map_err(|err| Failure::ws("reading during a game", &err))?;
        let event = match conn::read_frame(&message)? {
            Frame::Event(event) => event,
            Frame::Other => continue,
            Frame::Closed(why) => return Err(Failure::new("closed", format!("during a game: {why}"))),
        };
        match event.kind {
            // The opponent of the mover sees the move: record it, track the board, and
            // it is the opponent's turn.
            "moved" if event.seat.map(usize::from) != Some(socket) => {
                let Next::Waiting { ply: sent, from } = next else {
                    return Err(Failure::new(
                        "unexpected_move",
                        format!("a moved nobody sent: {message}"),
                    ));
                };
                if event.ply != sent || event.seat.map(usize::from) != Some(mover) {
                    return Err(Failure::new(
                        "unexpected_move",
                        format!("waiting for ply {sent} by seat {mover}: {message}"),
                    ));
                }
                let square = event.played.as_ref().and_then(|p| conn::square_index(p.at));
                let Some(position) = square.and_then(|s| free.iter().position(|&f| f == s)) else {
                    return Err(Failure::new("unexpected_move", format!("not a free square: {message}")));
                };
                free.swap_remove(position);
                ctx.run
                    .live
                    .record(now.saturating_duration_since(from), schedule.contains(now));
                if event.to_move.as_ref().is_some_and(Vec::is_empty) {
                    return Ok(true);
                }
                ply = sent;
                mover = socket;
                next = Next::Ready {
                    due: match ctx.interval {
                        Some(interval) => from + interval,
                        None => now,
                    },
                };
            }
            "game_over" => return Ok(true),
            "error" => {
                return Err(Failure::new(
                    format!("error_{}", event.code.unwrap_or("unknown")),
                    format!("during a game: {message}"),
                ));
            }
            // The mover's own `moved`, and every other event.
            _ => {}
        }
    }
}
