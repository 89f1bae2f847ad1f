//! The `spelbord` binary: with no arguments (or `serve`), load configuration, open the
//! database and serve until Ctrl-C or SIGTERM; `spelbord perft GAME --depth N` counts moves;
//! `spelbord arena --game G --a LEVEL --b LEVEL --games N` plays bots against each other;
//! `spelbord gomocup --strength S` is our Gomoku bot as a Gomocup engine on stdin and stdout.

/// mimalloc instead of the system allocator: a move allocates and frees many small buffers
/// (frames, views, JSON), and glibc's malloc spent a sixth of the server's CPU on them
/// (`docs/benchmarks.md`, "Allocator"). The `system-allocator` feature keeps the system's,
/// for heap profilers that watch malloc (`benches/massif-live-tables.sh`).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use spelbord::app::App;
use spelbord::bots::arena::{self, MatchSpec};
use spelbord::bots::brain;
use spelbord::bots::engine::Engines;
use spelbord::bots::{BotChoice, Strength};
use spelbord::config::{LogFormat, Settings};
use spelbord::games::{AnySettings, GameKind, SettingsReader};
use spelbord::store::Database;
use tracing_subscriber::EnvFilter;

/// A real-time multiplayer board-game server.
#[derive(Parser)]
#[command(name = "spelbord", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (the default).
    Serve,
    /// Count move sequences (Lines of Action, one Bughouse board) or distinct turn results
    /// (Krux) to a depth.
    Perft {
        game: PerftGame,
        #[arg(long, default_value_t = 1)]
        depth: u32,
        /// A position in the game's notation (see docs/rules/); the standard start if absent.
        #[arg(long)]
        position: Option<String>,
    },
    /// Play bots against each other with alternating sides and print the score of `a`
    /// and the think times (see docs/bots.md).
    Arena {
        #[arg(long)]
        game: ArenaGame,
        /// The strength of side `a`: random, easy, medium or hard, or `engine:NAME` for an
        /// engine configured in `bots.engines`.
        #[arg(long, value_parser = parse_strength)]
        a: BotChoice,
        #[arg(long, value_parser = parse_strength)]
        b: BotChoice,
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// Every bot's budget per move, overriding the configured ones.
        #[arg(long)]
        ms_per_move: Option<u64>,
        /// Each seat's clock in seconds (sudden death); Bughouse defaults to 180, the
        /// other games are untimed unless given.
        #[arg(long)]
        clock_seconds: Option<u64>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print every game's moves after its result (to replay or diagnose a game).
        #[arg(long)]
        moves: bool,
    },
    /// Play Gomoku as a Gomocup (piskvork) engine on standard input and output, for
    /// piskvork, a tournament manager or `engine:NAME` (see docs/bots.md, "Our bot as a
    /// Gomocup engine").
    Gomocup {
        /// random, easy, medium or hard.
        #[arg(long, default_value = "hard", value_parser = parse_own_strength)]
        strength: Strength,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ArenaGame {
    Gomoku,
    LinesOfAction,
    Krux,
    Bughouse,
}

fn parse_strength(text: &str) -> Result<BotChoice, String> {
    BotChoice::from_id(text)
        .ok_or_else(|| format!("unknown strength \"{text}\"; one of random, easy, medium, hard, engine:NAME"))
}

fn parse_own_strength(text: &str) -> Result<Strength, String> {
    Strength::from_id(text).ok_or_else(|| format!("unknown strength \"{text}\"; one of random, easy, medium, hard"))
}

#[derive(Clone, Copy, ValueEnum)]
enum PerftGame {
    LinesOfAction,
    Krux,
    Bughouse,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(),
        Command::Gomocup { strength } => gomocup(strength),
        Command::Perft { game, depth, position } => {
            let game = match game {
                PerftGame::LinesOfAction => GameKind::LinesOfAction,
                PerftGame::Krux => GameKind::Krux,
                PerftGame::Bughouse => GameKind::Bughouse,
            };
            match spelbord::perft::perft(game, depth, position.as_deref()) {
                Ok(count) => {
                    println!("{count}");
                    ExitCode::SUCCESS
                }
                Err(err) => {
                    eprintln!("spelbord perft: {err}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Arena {
            game,
            a,
            b,
            games,
            ms_per_move,
            clock_seconds,
            seed,
            moves,
        } => {
            let kind = match game {
                ArenaGame::Gomoku => GameKind::Gomoku,
                ArenaGame::LinesOfAction => GameKind::LinesOfAction,
                ArenaGame::Krux => GameKind::Krux,
                ArenaGame::Bughouse => GameKind::Bughouse,
            };
            let (budgets, resign, engines) = match Settings::load() {
                Ok(settings) => (
                    settings.bots.budgets(),
                    settings.bots.resign,
                    Engines::start(&settings.bots.engines),
                ),
                Err(err) => {
                    eprintln!("spelbord arena: {err}");
                    return ExitCode::FAILURE;
                }
            };
            let engines = match engines {
                Ok(engines) => engines,
                Err(err) => {
                    eprintln!("spelbord arena: {err}");
                    return ExitCode::FAILURE;
                }
            };
            for side in [a, b] {
                if let Err(refused) = engines.check(kind, side) {
                    eprintln!("spelbord arena: {refused}");
                    return ExitCode::FAILURE;
                }
            }
            let settings = match AnySettings::read(kind, &mut SettingsReader::new(Default::default())) {
                Ok(settings) => settings,
                Err(err) => {
                    eprintln!("spelbord arena: {err}");
                    return ExitCode::FAILURE;
                }
            };
            let clock = clock_seconds
                .or((kind == GameKind::Bughouse).then_some(180))
                .map(std::time::Duration::from_secs);
            let spec = MatchSpec {
                settings,
                a,
                b,
                engines,
                games,
                ms_per_move,
                budgets,
                clock,
                seed,
                resign,
            };
            run_arena(kind, &spec, moves);
            ExitCode::SUCCESS
        }
    }
}

/// Answers a Gomocup manager on stdin and stdout until `END` or the end of input.
fn gomocup(strength: Strength) -> ExitCode {
    match brain::run(strength, std::io::stdin().lock(), std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn run_arena(kind: GameKind, spec: &MatchSpec, print_moves: bool) {
    let roles = spec.settings.seat_roles();
    let report = arena::play_match(spec, |number, record| {
        let sides: Vec<&str> = record
            .a_seats
            .iter()
            .map(|seat| roles.get(usize::from(*seat)).copied().unwrap_or("?"))
            .collect();
        let result = match record.a_score() {
            1.0 => "a wins",
            0.0 => "b wins",
            _ => "draw",
        };
        println!(
            "game {number}/{}: a as {}: {result} ({}, {} moves)",
            spec.games,
            sides.join("+"),
            record.outcome.reason.as_str(),
            record.plies
        );
        if print_moves {
            let moves: Vec<String> = record.moves.iter().map(|(_, mv)| move_text(mv)).collect();
            println!("  moves: {}", moves.join(" "));
        }
    });
    let (mean_a, p99_a) = arena::mean_and_p99(&report.think_a);
    let (mean_b, p99_b) = arena::mean_and_p99(&report.think_b);
    println!(
        "{} {} (a) vs {} (b), {} games: a won {}, drew {}, lost {}: {:.1} % of the points for a",
        kind.id(),
        spec.a.id(),
        spec.b.id(),
        report.games.len(),
        report.wins(),
        report.draws(),
        report.losses(),
        100.0 * report.a_share()
    );
    println!(
        "think per move: a mean {:.1} ms, p99 {:.1} ms; b mean {:.1} ms, p99 {:.1} ms; games lost on time: {}; illegal answers: {}",
        ms(mean_a),
        ms(p99_a),
        ms(mean_b),
        ms(p99_b),
        report.time_losses(),
        report.illegal
    );
    // What a person playing the bot waits: the opponent's move seen → the bot's move seen.
    println!(
        "reply per move (opponent's move → own move): a p50 {:.1} ms, p99 {:.1} ms; b p50 {:.1} ms, p99 {:.1} ms; games resigned: {}",
        ms(arena::percentile(&report.reply_a, 50)),
        ms(arena::percentile(&report.reply_a, 99)),
        ms(arena::percentile(&report.reply_b, 50)),
        ms(arena::percentile(&report.reply_b, 99)),
        report.resignations()
    );
    for side in [spec.a, spec.b] {
        if let BotChoice::Engine(name) = side {
            println!(
                "{}: moves our hard bot answered for it: {}",
                side.id(),
                spec.engines.fallbacks(name)
            );
        }
    }
}

/// A move as the arena prints it: the one text of a move with one text field (a Gomoku
/// move's square), its JSON otherwise.
fn move_text(mv: &serde_json::Value) -> String {
    match mv.as_object() {
        Some(fields) if fields.len() == 1 => match fields.values().next() {
            Some(serde_json::Value::String(text)) => text.clone(),
            _ => mv.to_string(),
        },
        _ => mv.to_string(),
    }
}

fn ms(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

fn serve() -> ExitCode {
    let settings = match Settings::load() {
        Ok(settings) => settings,
        Err(err) => {
            eprintln!("spelbord: {err}");
            return ExitCode::FAILURE;
        }
    };
    init_logging(settings.log.format);
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if settings.server.worker_threads > 0 {
        runtime.worker_threads(settings.server.worker_threads);
    }
    let served = match runtime.enable_all().build() {
        Ok(runtime) => runtime.block_on(run(settings)),
        Err(err) => Err(format!("cannot start the runtime: {err}")),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("spelbord: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to standard output at `RUST_LOG` (default `info`): readable lines, or one JSON
/// object per line with the current span's fields (a table's id, a connection's) in it.
fn init_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
}

async fn run(settings: Settings) -> Result<(), String> {
    // Registered first: a SIGTERM while the server starts (its private cluster may take
    // seconds) or just after it says where it listens still shuts it down in order.
    let signals = shutdown_signal();
    let database = Database::open(&settings.database)
        .await
        .map_err(|err| err.to_string())?;
    let app = match App::bind(settings.clone(), database.store.clone()).await {
        Ok(app) => app,
        Err(err) => {
            database.close().await;
            return Err(err.to_string());
        }
    };
    let addr = app.local_addr().map_err(|err| err.to_string())?;
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    tracing::info!("serving on {workers} worker threads");
    tracing::info!("listening on http://{addr}");
    let stopper = app.stopper();
    tokio::spawn(async move {
        signals.await;
        tracing::info!("shutting down");
        // A second signal does not wait for the drain.
        let again = shutdown_signal();
        tokio::select! {
            _ = stopper.stop() => {}
            _ = again => tracing::info!("asked again: stopping at once"),
        }
        stopper.stop_now();
    });
    let served = app.run().await;
    database.close().await;
    served.map_err(|err| err.to_string())
}

/// Registers for Ctrl-C (SIGINT) and SIGTERM at once; the future resolves at the first
/// that comes, even if it came before the future was first awaited.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            (Ok(mut only), Err(_)) | (Err(_), Ok(mut only)) => {
                only.recv().await;
            }
            (Err(_), Err(_)) => std::future::pending().await,
        }
    }
}
