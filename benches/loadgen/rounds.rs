//! One simulated match (play mode) or person (bots mode) going from table to table until
//! the run stops: seated at a new table, it waits once for the measured window's start,
//! plays one game and closes; a failed seating is counted and tried again after a pause.
//! Each mode says how it seats, plays and closes ([`Rounds`]).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::conn::{self, Failure, Frame, Ws};
use crate::stats::Live;
use crate::window::{self, Schedule};

/// The pause before trying a new table after a failed seating.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// What every match of a run shares.
pub struct Run {
    pub live: Arc<Live>,
    pub stop: CancellationToken,
    /// Each match's random moves are seeded from it and the match's number.
    pub seed: u64,
    /// Matches seated at their first table.
    pub seated: AtomicU32,
}

impl Run {
    pub fn new(live: Arc<Live>, seed: u64) -> Run {
        Run {
            live,
            stop: CancellationToken::new(),
            seed,
            seated: AtomicU32::new(0),
        }
    }
}

/// What a mode does at each table.
pub trait Rounds: Send + Sync + 'static {
    /// The seated players' connections at one table.
    type Seated: Send;

    fn run(&self) -> &Run;
    /// Creates a table for match `n` and seats its players; returns once its game started.
    fn seat(&self, n: u32) -> impl Future<Output = Result<Self::Seated, Failure>> + Send;
    /// Plays one game to its end (`Ok(true)`), or until the run stops (`Ok(false)`).
    fn play(
        &self,
        seated: &mut Self::Seated,
        rng: &mut SmallRng,
        schedule: Schedule,
    ) -> impl Future<Output = Result<bool, Failure>> + Send;
    /// Closes the connections in the background.
    fn close(&self, seated: Self::Seated);
}

/// Match `n`: table after table until the run stops.
pub async fn table_after_table<R: Rounds>(n: u32, ctx: Arc<R>, mut start: watch::Receiver<Option<Schedule>>) {
    let run = ctx.run();
    let mut rng = SmallRng::seed_from_u64(run.seed.wrapping_mul(1_000_003).wrapping_add(u64::from(n)));
    let mut schedule: Option<Schedule> = None;
    while !run.stop.is_cancelled() {
        let seated = tokio::select! {
            _ = run.stop.cancelled() => return,
            seated = ctx.seat(n) => seated,
        };
        let mut seated = match seated {
            Ok(seated) => seated,
            Err(failure) => {
                run.live.fail(&failure);
                tokio::select! {
                    _ = run.stop.cancelled() => return,
                    _ = tokio::time::sleep(RETRY_PAUSE) => continue,
                }
            }
        };
        let schedule = match schedule {
            Some(schedule) => schedule,
            None => {
                let Some(got) = window::wait_for_start(&run.seated, &run.stop, &mut start).await else {
                    ctx.close(seated);
                    return;
                };
                *schedule.insert(got)
            }
        };
        match ctx.play(&mut seated, &mut rng, schedule).await {
            Ok(true) => {
                run.live.games.fetch_add(1, Ordering::Relaxed);
            }
            Ok(false) => {}
            Err(failure) => run.live.fail(&failure),
        }
        ctx.close(seated);
    }
}

/// Reads `ws` until its table's game started; an `error` or a close while seating fails.
pub async fn until_game_started(ws: &mut Ws) -> Result<(), Failure> {
    loop {
        let message = ws
            .next()
            .await
            .ok_or_else(|| Failure::new("closed", "the server closed the connection while seating"))?
            .map_err(|err| Failure::ws("reading while seating", &err))?;
        match conn::read_frame(&message)? {
            Frame::Event(event) if event.kind == "game_started" => return Ok(()),
            Frame::Event(event) if event.kind == "error" => {
                return Err(Failure::new(
                    format!("error_{}", event.code.unwrap_or("unknown")),
                    format!("seating: {message}"),
                ));
            }
            Frame::Closed(why) => return Err(Failure::new("closed", format!("while seating: {why}"))),
            _ => {}
        }
    }
}
