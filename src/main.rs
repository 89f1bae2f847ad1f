//! The `spelbord` binary: load configuration, open the database, serve until Ctrl-C or SIGTERM.

use std::process::ExitCode;

use spelbord::app::App;
use spelbord::config::Settings;
use spelbord::store::Database;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
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
