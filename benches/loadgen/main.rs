//! A load generator for an already running spelbord server (issue 12): full-speed and
//! fixed-rate Gomoku play, and idle WebSockets, with the server's and PostgreSQL's CPU and
//! the server's memory read from `/proc` apart from the load's own.
//!
//! ```text
//! cargo bench --bench loadgen -- closed --matches 100 --warmup 5 --window 30 --pg --json
//! cargo bench --bench loadgen -- open --matches 100 --rate 5000 --pg
//! cargo bench --bench loadgen -- idle --connections 50000 --sources 8 --hold 10
//! cargo bench --bench loadgen -- pairing --pairs 100 --warmup 5 --window 20 --pg
//! cargo bench --bench loadgen -- lobby-idle --connections 5000 --hold 20
//! cargo bench --bench loadgen -- bots --matches 4 --warmup 5 --window 60
//! ```
//!
//! The server is given by `--url http://127.0.0.1:PORT` (loopback only) and its process by
//! `--server-pid` or found from the listening socket. It must run with its limits raised
//! (message rate, tables per minute, connections per address, file descriptors):
//! `benches/run-load.sh` starts one so and runs this against it. Modes and their
//! measurements are described in `docs/benchmarks.md` ("Load generator").
//!
//! Layout: `cli` (the options), `conn` (HTTP and WebSocket, event fields), `play` (closed
//! and open modes), `bots` (people against bots: the bots' reply time), `idle`, `lobby` (the lobby's pools and messages), `pairing`,
//! `lobby_idle`, `ramp` (the idle modes' ramp and hold), `window` (the playing and pairing
//! modes' schedule, window and report), `stats` (counters, histograms, report), `procfs`
//! (/proc).
//!
//! Everything is bounded: each read times out (10 s), a playing or pairing run stops at
//! most 20 s (seating, joining) + warm-up + window + 30 s after it starts, an idle run after
//! its ramp limit, hold and 40 s, a lobby-idle run after its ramp limit, quiet, hold and 50 s. Without `--bench` in the arguments (`cargo test --benches`) it prints a
//! line and exits.

mod bots;
mod cli;
mod conn;
mod idle;
mod lobby;
mod lobby_idle;
#[path = "../shared/loopback.rs"]
mod loopback;
mod pairing;
mod play;
mod procfs;
mod ramp;
mod rounds;
mod stats;
mod window;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use cli::{Cli, Common, Mode};

fn main() -> ExitCode {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("loadgen: not run by `cargo bench` (no --bench argument): nothing to do");
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    let Some(mode) = cli.mode else {
        println!(
            "loadgen: no mode given (closed, open, idle, pairing, lobby-idle or bots); see `cargo bench --bench loadgen -- --help`"
        );
        return ExitCode::SUCCESS;
    };
    let common = match &mode {
        Mode::Closed { common, .. }
        | Mode::Open { common, .. }
        | Mode::Idle { common, .. }
        | Mode::Pairing { common, .. }
        | Mode::LobbyIdle { common, .. }
        | Mode::Bots { common, .. } => common,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(usize::from(common.threads))
        .thread_name("loadgen")
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(&format!("cannot start the runtime: {err}")),
    };
    let server_pid = server_pid(common);
    let hard_stop = match &mode {
        Mode::Closed { play, .. } | Mode::Open { play, .. } => {
            Duration::from_secs(20 + play.warmup + play.window) + play::STOP_GRACE
        }
        Mode::Idle { idle, .. } => Duration::from_secs(idle.ramp_limit + idle.hold + 40 + 10),
        Mode::Pairing { pairing, .. } => Duration::from_secs(20 + pairing.warmup + pairing.window) + play::STOP_GRACE,
        Mode::LobbyIdle { idle, .. } => Duration::from_secs(idle.ramp_limit + idle.quiet + idle.hold + 50),
        Mode::Bots { bots, .. } => Duration::from_secs(20 + bots.warmup + bots.window) + play::STOP_GRACE,
    };
    let outcome = runtime.block_on(async {
        let run = async {
            match &mode {
                Mode::Closed { play, common } => play::run(play, None, common, server_pid)
                    .await
                    .map(|r| r.print(common.json)),
                Mode::Open { play, rate, common } => play::run(play, Some(*rate), common, server_pid)
                    .await
                    .map(|r| r.print(common.json)),
                Mode::Idle { idle, common } => idle::run(idle, common, server_pid).await.map(|r| r.print(common.json)),
                Mode::Pairing { pairing, common } => pairing::run(pairing, common, server_pid)
                    .await
                    .map(|r| r.print(common.json)),
                Mode::LobbyIdle { idle, common } => lobby_idle::run(idle, common, server_pid)
                    .await
                    .map(|r| r.print(common.json)),
                Mode::Bots { bots, common } => bots::run(bots, common, server_pid).await.map(|r| r.print(common.json)),
            }
        };
        tokio::select! {
            result = tokio::time::timeout(hard_stop, run) => result
                .unwrap_or_else(|_| Err(format!("hard stop after {} s", hard_stop.as_secs()))),
            _ = tokio::signal::ctrl_c() => Err("interrupted".to_owned()),
        }
    });
    // Sockets still open are dropped with the runtime, without waiting for their tasks.
    runtime.shutdown_timeout(Duration::from_secs(2));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&err),
    }
}

/// `--server-pid`, or the process listening on the URL's port.
fn server_pid(common: &Common) -> Option<u32> {
    if let Some(pid) = common.server_pid {
        return Some(pid);
    }
    let found = procfs::find_listener(common.url.port());
    match found {
        Some(pid) => eprintln!(
            "loadgen: the server is process {pid} (listening on port {})",
            common.url.port()
        ),
        None => eprintln!(
            "loadgen: no process found listening on port {}: the server's CPU and memory are not measured (give --server-pid)",
            common.url.port()
        ),
    }
    found
}

fn fail(message: &str) -> ExitCode {
    eprintln!("loadgen: {message}");
    ExitCode::FAILURE
}
