//! The bots mode: M people each playing Gomoku against a bot (hard by default), game
//! after game, over real WebSockets; measures what a person waits for the computer.
//!
//! Each match creates a table with the bot in seat 1 (`POST /api/tables`, free opening,
//! chosen seats), sits its person in seat 0 (X) and plays random legal moves, each sent as
//! soon as the bot's move has come. A finished game's table is left for a new one.
//!
//! The latency is **bot reply**: from the person's socket receiving its own move's
//! `moved` (the opponent's move seen, from the bot's side) to that socket receiving the
//! bot's `moved`; it includes the search's queue, its think, the store of the bot's move
//! and the broadcast. A reply counts in the window when it arrives inside it.

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

use crate::cli::{BotsArgs, Common};
use crate::conn::{self, Failure, Frame, Ws};
use crate::rounds::{self, Rounds, Run, until_game_started};
use crate::stats::{self, Live, Report, Summary};
use crate::window::{Schedule, Window};

/// A match that hears nothing for this long gives its table up (`timeout`): longer than
/// any bot's budget.
const SILENCE: Duration = Duration::from_secs(15);
/// The longest wait for every match to be seated before the warm-up starts anyway.
const SEATING_LIMIT: Duration = Duration::from_secs(20);

/// What every match shares.
struct Ctx {
    server: std::net::SocketAddr,
    sources: Vec<std::net::Ipv4Addr>,
    /// One HTTP client per source address.
    http: Vec<reqwest::Client>,
    strength: String,
    run: Run,
}

/// Runs the bots mode and reports.
pub async fn run(args: &BotsArgs, common: &Common, server_pid: Option<u32>) -> Result<Report, String> {
    let sources: Vec<_> = (0..usize::from(common.sources)).map(|i| common.source(i)).collect();
    let http = sources
        .iter()
        .map(|&source| conn::http_client(source))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|f| f.to_string())?;
    let live = Arc::new(Live::new());
    let ctx = Arc::new(Ctx {
        server: common.url,
        sources,
        http,
        strength: args.strength.clone(),
        run: Run::new(live.clone(), args.seed),
    });
    let timing = Window::new(args.warmup, args.window, common, server_pid);
    let (start_tx, start_rx) = watch::channel(None);
    let mut tasks = JoinSet::new();
    for n in 0..args.matches {
        tasks.spawn(rounds::table_after_table(n, ctx.clone(), start_rx.clone()));
    }
    let (seated, _) = timing
        .wait_ready(
            &ctx.run.seated,
            args.matches,
            SEATING_LIMIT,
            "people seated against bots",
        )
        .await;
    let stop = ctx.run.stop.clone();
    let progress_live = live.clone();
    let measured = timing
        .run(&start_tx, &ctx.run.stop, tasks, move |start, schedule| {
            progress(progress_live, start, schedule, stop)
        })
        .await;
    let replies = live.window_moves.load(Ordering::Relaxed);
    let latency = Summary::of(&live.window_histogram());
    let lines = vec![
        format!(
            "loadgen bots: {} people against {} bots (Gomoku 15×15, free opening, the person's moves random), server {} (pid {})",
            args.matches,
            args.strength,
            common.url,
            stats::pid_text(server_pid)
        ),
        format!(
            "window: {:.2} s after {} s of warm-up; {replies} bot replies, {seated} people seated",
            measured.cpu.wall.as_secs_f64(),
            args.warmup
        ),
        Summary::titled(
            "bot reply (own move seen → bot's move seen)",
            latency,
            "replies",
            "no reply in the window",
        ),
        format!(
            "tables created {}, games finished {}",
            live.tables.load(Ordering::Relaxed),
            live.games.load(Ordering::Relaxed)
        ),
    ];
    let json = json!({
        "mode": "bots",
        "label": common.label,
        "matches": args.matches,
        "strength": args.strength,
        "warmup_s": args.warmup,
        "window_s": stats::round3(measured.cpu.wall.as_secs_f64()),
        "replies": replies,
        "latency": latency.map(|s| s.json()),
        "tables": live.tables.load(Ordering::Relaxed),
        "games": live.games.load(Ordering::Relaxed),
    });
    Ok(measured.report(lines, replies, "reply", &live, json))
}

/// A progress line on stderr once a second until `stop`.
async fn progress(live: Arc<Live>, start: Instant, schedule: Schedule, stop: CancellationToken) {
    stats::each_second(start, stop, |now| {
        let (p99_second, p99_window) = live.take_second();
        let ms = |p: Option<f64>| p.map_or("-".to_owned(), |p| format!("{p:.1} ms"));
        eprintln!(
            "[{:>4} s {:<7}] bot replies p99 {} (last s), {} (window), {} games, {} failures",
            now.duration_since(start).as_secs(),
            schedule.phase(now),
            ms(p99_second),
            ms(p99_window),
            live.games.load(Ordering::Relaxed),
            live.failure_count(),
        );
    })
    .await;
}

impl Rounds for Ctx {
    type Seated = Ws;

    fn run(&self) -> &Run {
        &self.run
    }
    async fn seat(&self, n: u32) -> Result<Ws, Failure> {
        seat_table(self, n).await
    }
    async fn play(&self, ws: &mut Ws, rng: &mut SmallRng, schedule: Schedule) -> Result<bool, Failure> {
        play_game(self, ws, rng, schedule).await
    }
    fn close(&self, ws: Ws) {
        close(ws, self.run.live.clone());
    }
}

/// Creates a table with the bot in seat 1 and sits the person in seat 0; returns once the
/// game started.
async fn seat_table(ctx: &Ctx, n: u32) -> Result<Ws, Failure> {
    let index = usize::try_from(n).unwrap_or(0);
    let settings = json!({"opening": "free", "seating": "chosen", "bots": {"1": ctx.strength}});
    let table = conn::create_table_with(&ctx.http[index % ctx.http.len()], ctx.server, settings).await?;
    ctx.run.live.tables.fetch_add(1, Ordering::Relaxed);
    let mut ws = conn::connect(ctx.server, ctx.sources[index % ctx.sources.len()], &table).await?;
    ctx.run.live.open.fetch_add(1, Ordering::Relaxed);
    let seated = async {
        let sit = format!(r#"{{"type":"sit","seat":0,"name":"person-{n}"}}"#);
        ws.send(Message::text(sit))
            .await
            .map_err(|err| Failure::ws("sending sit", &err))?;
        until_game_started(&mut ws).await
    };
    match tokio::time::timeout(SILENCE, seated).await {
        Ok(Ok(())) => Ok(ws),
        Ok(Err(failure)) => {
            close(ws, ctx.run.live.clone());
            Err(failure)
        }
        Err(_) => {
            close(ws, ctx.run.live.clone());
            Err(Failure::timeout("seating"))
        }
    }
}

/// Closes a connection in the background.
fn close(mut ws: Ws, live: Arc<Live>) {
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
        live.open.fetch_sub(1, Ordering::Relaxed);
    });
}

/// Plays one game to its end (`Ok(true)`), or until `stop` (`Ok(false)`).
async fn play_game(ctx: &Ctx, ws: &mut Ws, rng: &mut SmallRng, schedule: Schedule) -> Result<bool, Failure> {
    let mut free: Vec<u8> = (0..225).collect();
    // When the person saw its own move: the bot's reply counts from there.
    let mut seen: Option<Instant> = None;
    let mut to_send = true;
    let mut silence = pin!(tokio::time::sleep(SILENCE));
    loop {
        if to_send {
            let Some(&square) = free.get(rng.random_range(0..free.len().max(1))) else {
                return Err(Failure::new("board_full_unannounced", "no free square and no end"));
            };
            ws.send(conn::move_frame(square))
                .await
                .map_err(|err| Failure::ws("sending a move", &err))?;
            to_send = false;
        }
        let message = tokio::select! {
            biased;
            _ = ctx.run.stop.cancelled() => return Ok(false),
            message = ws.next() => message,
            _ = &mut silence => return Err(Failure::timeout("waiting for the bot")),
        };
        let now = Instant::now();
        silence.as_mut().reset(now + SILENCE);
        let message = message
            .ok_or_else(|| Failure::new("closed", "the server closed the connection during a game"))?
            .map_err(|err| Failure::ws("reading during a game", &err))?;
        let event = match conn::read_frame(&message)? {
            Frame::Event(event) => event,
            Frame::Other => continue,
            Frame::Closed(why) => return Err(Failure::new("closed", format!("during a game: {why}"))),
        };
        match event.kind {
            "moved" => {
                let square = event.played.as_ref().and_then(|p| conn::square_index(p.at));
                let Some(position) = square.and_then(|s| free.iter().position(|&f| f == s)) else {
                    return Err(Failure::new("unexpected_move", format!("not a free square: {message}")));
                };
                free.swap_remove(position);
                if event.to_move.as_ref().is_some_and(Vec::is_empty) {
                    return Ok(true);
                }
                match event.seat {
                    Some(0) => seen = Some(now),
                    _ => {
                        if let Some(from) = seen.take() {
                            ctx.run
                                .live
                                .record(now.saturating_duration_since(from), schedule.contains(now));
                        }
                        to_send = true;
                    }
                }
            }
            "game_over" => return Ok(true),
            "error" => {
                return Err(Failure::new(
                    format!("error_{}", event.code.unwrap_or("unknown")),
                    format!("during a game: {message}"),
                ));
            }
            _ => {}
        }
    }
}
