//! The command line: a mode (`closed`, `open`, `idle`, `pairing`, `lobby-idle`, `bots`) and its
//! options, with clap's derive.
//!
//! Every count and duration has an upper bound, so no typo starts an endless run.

use std::net::{Ipv4Addr, SocketAddr};

use clap::{Args, Parser, Subcommand};

/// Loads a running spelbord server over loopback WebSockets and reads its CPU and memory
/// from /proc.
#[derive(Debug, Parser)]
#[command(name = "loadgen", about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub mode: Option<Mode>,
    /// Added by `cargo bench`; without it (`cargo test --benches`) nothing heavy runs.
    #[arg(long, global = true, hide = true)]
    pub bench: bool,
}

#[derive(Debug, Subcommand)]
pub enum Mode {
    /// M Gomoku matches at full speed: each move sent as soon as the mover has seen the
    /// opponent's previous move.
    Closed {
        #[command(flatten)]
        play: PlayArgs,
        #[command(flatten)]
        common: Common,
    },
    /// M Gomoku matches at a fixed offered rate of moves per second over all of them; a
    /// move due while the previous one is unanswered waits, and its latency counts from
    /// when it was due.
    Open {
        #[command(flatten)]
        play: PlayArgs,
        /// Offered moves per second over all matches.
        #[arg(long, value_parser = parse_rate)]
        rate: f64,
        #[command(flatten)]
        common: Common,
    },
    /// N idle WebSockets, as spectators spread over tables; reports the server's memory.
    Idle {
        #[command(flatten)]
        idle: IdleArgs,
        #[command(flatten)]
        common: Common,
    },
    /// K pairs of lobby players seeking in the quick-pairing pools, over and over: each
    /// pairing's people meet at its table, see `game_started`, resign and seek again.
    Pairing {
        #[command(flatten)]
        pairing: PairingArgs,
        #[command(flatten)]
        common: Common,
    },
    /// N idle lobby connections while one more seeks and cancels every 200 ms; reports the
    /// server's memory per connection and the cost of the lists' fan-out.
    LobbyIdle {
        #[command(flatten)]
        idle: LobbyIdleArgs,
        #[command(flatten)]
        common: Common,
    },
    /// M people each playing Gomoku against a bot, game after game; reports the bot's
    /// reply time as the person sees it (own move seen → the bot's move seen).
    Bots {
        #[command(flatten)]
        bots: BotsArgs,
        #[command(flatten)]
        common: Common,
    },
}

/// Options of the bots mode.
#[derive(Debug, Args)]
pub struct BotsArgs {
    /// People playing at once, each against its own bot.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub matches: u32,
    /// The bots' strength: random, easy, medium or hard.
    #[arg(long, default_value = "hard", value_parser = ["random", "easy", "medium", "hard"])]
    pub strength: String,
    /// Seconds of play before the measured window.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub warmup: u64,
    /// Seconds of the measured window.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub window: u64,
    /// Seed of the people's random moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of both playing modes.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// Matches played at once (two players, two WebSockets each match).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=5000))]
    pub matches: u32,
    /// Seconds of play before the measured window.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub warmup: u64,
    /// Seconds of the measured window.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub window: u64,
    /// Seed of the random moves (each match draws from `seed + its number`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of the idle mode.
#[derive(Debug, Args)]
pub struct IdleArgs {
    /// WebSockets to open and hold.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=200_000))]
    pub connections: u32,
    /// Spectators per table: the connections are spread over ceil(N / this) tables.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub per_table: u32,
    /// Connections being opened at once.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=5000))]
    pub concurrency: u32,
    /// Seconds to hold every connection open once all are opened.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub hold: u64,
    /// Longest time, in seconds, for opening the connections; those not open by then
    /// count as failed (`ramp_timeout`).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ramp_limit: u64,
}

/// Options of the pairing mode.
#[derive(Debug, Args)]
pub struct PairingArgs {
    /// Pairs of players (two lobby WebSockets each); both players of pair i seek in the
    /// same pool.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=5000))]
    pub pairs: u32,
    /// Two-player pools to spread the pairs over (pair i seeks in pool i mod N): 1 is
    /// `gomoku/10+0` alone (every seek takes the one pool's lock), up to all 7.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=7))]
    pub pools: u8,
    /// Seek again as soon as `paired` comes, without going to the table: measures pairing
    /// alone (the tables made are never opened; no game starts).
    #[arg(long)]
    pub no_visit: bool,
    /// Seconds of pairing before the measured window.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub warmup: u64,
    /// Seconds of the measured window.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub window: u64,
}

/// Options of the lobby-idle mode.
#[derive(Debug, Args)]
pub struct LobbyIdleArgs {
    /// Lobby WebSockets to open and hold.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..=200_000))]
    pub connections: u32,
    /// Connections being opened at once.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=5000))]
    pub concurrency: u32,
    /// Seconds held with the lobby quiet (nobody seeks), measured apart: the cost of
    /// holding alone.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub quiet: u64,
    /// Seconds held while the driver connection seeks and cancels (the measured fan-out).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub hold: u64,
    /// Milliseconds between the driver's changes: each cancels its open seek and seeks again.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub churn_ms: u64,
    /// Longest time, in seconds, for opening the connections; those not open by then
    /// count as failed (`ramp_timeout`).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ramp_limit: u64,
}

/// Options of every mode.
#[derive(Debug, Args)]
pub struct Common {
    /// The running server, on a loopback address.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_parser = crate::loopback::loopback_addr)]
    pub url: SocketAddr,
    /// The server's process id; found from the listening socket when absent.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// More server processes whose CPU counts as the server's (the other nodes of a
    /// cluster, comma-separated); memory is still read from `--server-pid` alone.
    #[arg(long, value_delimiter = ',')]
    pub more_server_pids: Vec<u32>,
    /// Also measure PostgreSQL: the CPU of every process named `postgres` (the whole cluster).
    #[arg(long)]
    pub pg: bool,
    /// With `--pg`: count only the cluster in this data folder (its postmaster, from
    /// `postmaster.pid`, and that one's children), not every `postgres` on the machine.
    #[arg(long, requires = "pg")]
    pub pg_data: Option<std::path::PathBuf>,
    /// Loopback source addresses to spread the connections over: 127.0.0.1 .. 127.0.0.N.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=250))]
    pub sources: u8,
    /// Worker threads of the load generator's runtime.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: u16,
    /// Also print the summary as one line of JSON on stdout (the last line).
    #[arg(long)]
    pub json: bool,
    /// A label copied into the JSON summary (e.g. the commit or the run's name).
    #[arg(long, default_value = "")]
    pub label: String,
}

impl Common {
    /// What to count as PostgreSQL (see [`crate::procfs::CpuSample::take`]); looked up
    /// when a window starts, so that the cluster may be started after the load generator.
    pub fn postgres(&self) -> Option<Option<u32>> {
        if !self.pg {
            return None;
        }
        let Some(dir) = &self.pg_data else {
            return Some(None);
        };
        let postmaster = crate::procfs::postmaster_of(dir);
        if postmaster.is_none() {
            eprintln!(
                "loadgen: no postmaster.pid in {}: counting every postgres process",
                dir.display()
            );
        }
        Some(postmaster)
    }

    /// The source address of connection number `index`.
    pub fn source(&self, index: usize) -> Ipv4Addr {
        let host = u8::try_from(index % usize::from(self.sources)).unwrap_or(0) + 1;
        Ipv4Addr::new(127, 0, 0, host)
    }
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if (0.1..=1_000_000.0).contains(&rate) => Ok(rate),
        _ => Err(format!(
            "{text:?} must be a number of moves per second from 0.1 to 1000000"
        )),
    }
}
