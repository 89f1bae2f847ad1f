//! The `spelbord` binary: with no arguments (or `serve`), load configuration, open the
//! database and serve until Ctrl-C or SIGTERM; `spelbord perft GAME --depth N` counts moves.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use spelbord::app::App;
use spelbord::config::Settings;
use spelbord::games::GameKind;
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
    }
}

#[tokio::main]
async fn serve() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("spelbord: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let settings = Settings::load().map_err(|err| err.to_string())?;
    let database = Database::open(&settings.database)
        .await
        .map_err(|err| err.to_string())?;
    let app = match App::bind(settings.clone(), database.store.clone()).await {
        Ok(app) => app,
        Err(err) => {
            database.close().await;
            return Err(format!(
                "cannot listen on {}:{}: {err}",
                settings.server.host, settings.server.port
            ));
        }
    };
    let addr = app.local_addr().map_err(|err| err.to_string())?;
    tracing::info!("listening on http://{addr}");
    let shutdown = app.shutdown_token();
    tokio::spawn(async move {
        wait_for_signal().await;
        tracing::info!("shutting down");
        shutdown.cancel();
    });
    let served = app.run().await;
    database.close().await;
    served.map_err(|err| err.to_string())
}

async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
