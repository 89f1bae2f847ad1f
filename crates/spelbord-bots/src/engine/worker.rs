//! An engine's threads: one per process (`processes`), each owning its process, taking the
//! engine's queued moves fairly by owner (the pool's [`Scheduler`](crate::pool::Scheduler)), and answering every one:
//! the engine's move when the rules accept it, otherwise our hard bot's
//! (`spelbord_engine_fallbacks_total{engine,reason}`).
//!
//! A process is started at the first move it is needed for, and again at the next move after
//! it died, hung (killed at the move's deadline plus the engine's margin) or spoke nonsense
//! (`spelbord_engine_starts_total{engine}`). Threads run at nice 19 like the search threads,
//! and their engines inherit it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;
use spelbord_games::{AnyGame, Seat};
use tokio::sync::mpsc;

use super::EngineConfig;
use super::session::{Session, SessionError};
use crate::pool::{BotAnswer, JobQueue};
use crate::{Context, Decision, Strength, budget, decide};

/// One move an engine is asked for.
pub(crate) struct EngineJob {
    pub(crate) game: AnyGame,
    pub(crate) seat: Seat,
    pub(crate) context: Context,
    pub(crate) ticket: u64,
    pub(crate) owner: std::net::IpAddr,
    pub(crate) reply: mpsc::UnboundedSender<Box<BotAnswer>>,
    pub(crate) queued_at: Instant,
    /// The asking table's span, entered while the engine thinks.
    pub(crate) span: tracing::Span,
}

/// What the engine's threads share: its configuration and its queue.
pub(super) struct Shared {
    /// The section's key (the metrics' `engine` label).
    key: String,
    config: EngineConfig,
    queue: JobQueue<EngineJob>,
    /// Moves our hard bot answered for this engine (the metric counts them too; the arena
    /// reads this).
    fallbacks: AtomicU64,
}

impl Shared {
    pub(super) fn new(key: &str, config: EngineConfig) -> Shared {
        Shared {
            key: key.to_owned(),
            config,
            queue: JobQueue::default(),
            fallbacks: AtomicU64::new(0),
        }
    }

    pub(super) fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub(super) fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    pub(super) fn push(&self, job: EngineJob) {
        self.queue.push(job.owner, job);
    }

    /// Ends the threads (each kills its process) once the queued moves are answered.
    pub(super) fn close(&self) {
        self.queue.close();
    }
}

/// Starts the engine's threads.
pub(super) fn start(shared: &Arc<Shared>) {
    for index in 0..shared.config.processes {
        let thread = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name(format!("engine-{}-{index}", shared.key))
            .spawn(move || run(&thread));
        if let Err(err) = spawned {
            tracing::error!(engine = %shared.key, error = %err, "could not start an engine thread");
        }
    }
}

fn run(shared: &Shared) {
    crate::pool::lower_priority();
    let mut session: Option<Session> = None;
    while let Some(job) = shared.queue.next() {
        let _in_table = job.span.enter();
        let started = Instant::now();
        let mut context = job.context;
        // Untimed: the budget counts from now, as for the search threads.
        if context.clocks.is_none() {
            context.deadline += started.saturating_duration_since(job.queued_at);
        }
        let decision = answer(shared, &mut session, &job.game, job.seat, &context);
        let answer = BotAnswer {
            seat: job.seat,
            ticket: job.ticket,
            decision,
            // An engine's judgement is not ours to read: it never resigns for it.
            outlook: crate::Outlook::Unclear,
            think: started.elapsed(),
            queued: started.saturating_duration_since(job.queued_at),
        };
        let _ = job.reply.send(Box::new(answer));
    }
}

/// The move for `seat`: the engine's if the rules take it, else our hard bot's.
fn answer(
    shared: &Shared,
    session: &mut Option<Session>,
    game: &AnyGame,
    seat: Seat,
    context: &Context,
) -> Option<Decision<Value>> {
    let legal = game.legal_moves_json(seat);
    match legal.as_slice() {
        [] => return Some(Decision::Wait),
        [only] => return Some(Decision::Play(only.clone())),
        _ => {}
    }
    match ask(shared, session, game, seat, context) {
        Ok(payload) => return Some(Decision::Play(payload)),
        Err(err) => {
            tracing::warn!(engine = %shared.key, error = %err, "the engine gave no usable move: our hard bot plays this one");
            crate::metrics::engine_fallback(&shared.key, err.reason());
            shared.fallbacks.fetch_add(1, Ordering::Relaxed);
            if err.fatal() {
                *session = None; // Killed; started again at the next move.
            }
        }
    }
    let fallback = Context {
        deadline: context.deadline.max(Instant::now() + budget::FLOOR),
        ..context.clone()
    };
    catch_unwind(AssertUnwindSafe(|| decide(game, seat, Strength::Hard, &fallback))).ok()
}

/// Asks the engine (starting it if needed) and checks its move against the rules.
fn ask(
    shared: &Shared,
    session: &mut Option<Session>,
    game: &AnyGame,
    seat: Seat,
    context: &Context,
) -> Result<Value, SessionError> {
    if session.as_mut().is_some_and(|running| !running.alive()) {
        *session = None;
    }
    let running = match session {
        Some(running) => running,
        None => {
            let started = Session::start(&shared.config)?;
            crate::metrics::engine_started(&shared.key);
            tracing::info!(engine = %shared.key, pid = started.pid(), "started an engine");
            session.insert(started)
        }
    };
    let payload = running.ask(game, seat, context.deadline, shared.config.margin())?;
    let mut copy = game.clone();
    match copy.play_json(seat, &payload) {
        Ok(_) => Ok(payload),
        Err(err) => Err(SessionError::Illegal(format!("{payload}: {err:?}"))),
    }
}
