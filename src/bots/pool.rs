//! The threads bots think on: a fixed number of OS threads, never tokio's workers, so a
//! search never holds up a table's actor or a connection.
//!
//! A table hands over a [`Search`] (a copy of the position, the seat, the strength and a
//! deadline) and receives the answer on its own channel as a [`BotAnswer`]; it keeps
//! serving everyone else meanwhile. Searches wait in one queue in the order they came; one
//! that starts late still answers by its deadline (the engines answer at once with their
//! quickest sound move when the deadline has passed).
//!
//! The threads run at the lowest scheduling priority (nice 19), so that when the machine
//! is busy the kernel runs the server's own threads first: bots think in the time people
//! leave over, and human tables keep their latency.
//!
//! A search that panics is caught and answered as `None`; the table then plays a random
//! legal move for the bot rather than stall.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;

use super::{Budgets, Context, Decision, Strength, decide};
use crate::games::{AnyGame, Seat};

/// What a table asks a bot to think about.
#[derive(Debug)]
pub struct Search {
    pub game: AnyGame,
    pub seat: Seat,
    pub strength: Strength,
    pub context: Context,
    /// The table's number for this request, returned with the answer so the table can
    /// tell a current answer from a stale one.
    pub ticket: u64,
}

/// A bot's answer, on its way back to the table.
#[derive(Debug)]
pub struct BotAnswer {
    pub seat: Seat,
    pub ticket: u64,
    /// `None` when the search failed (it panicked).
    pub decision: Option<Decision<Value>>,
    /// How long the search ran, from when a thread took it.
    pub think: Duration,
    /// How long it waited for a thread.
    pub queued: Duration,
}

/// Bughouse bots' pace when the configuration sets none.
pub const DEFAULT_BUGHOUSE_PACE_MS: u64 = 2_000;

struct Job {
    search: Search,
    /// Boxed: every table holds the channel, and its first block holds 32 answers.
    reply: mpsc::UnboundedSender<Box<BotAnswer>>,
    queued_at: Instant,
    /// The asking table's span, entered while searching, so the search's log lines name
    /// the table.
    span: tracing::Span,
    /// Counts the job as queued until a thread takes it (or it is dropped unsearched).
    queued: crate::metrics::Counted,
}

/// The pool of search threads, and each strength's budget. Cheap to clone.
#[derive(Clone)]
pub struct BotPool {
    jobs: std_mpsc::Sender<Job>,
    budgets: Budgets,
    threads: usize,
    /// Bughouse bots move no faster than this (scaled by their clock).
    pace_ms: u64,
}

impl std::fmt::Debug for BotPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotPool").field("threads", &self.threads).finish()
    }
}

impl BotPool {
    /// Starts `threads` search threads (at least one). They end when the last clone of
    /// the pool is dropped.
    pub fn start(threads: usize, budgets: Budgets) -> BotPool {
        let threads = threads.max(1);
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for index in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("bot-search-{index}"))
                .spawn(move || run_thread(&queue));
            if let Err(err) = spawned {
                tracing::error!(error = %err, "could not start a bot search thread");
            }
        }
        BotPool {
            jobs,
            budgets,
            threads,
            pace_ms: DEFAULT_BUGHOUSE_PACE_MS,
        }
    }

    /// Sets how fast Bughouse bots may move at most (`bots.bughouse_pace_ms`).
    pub fn with_bughouse_pace(self, pace_ms: u64) -> BotPool {
        BotPool { pace_ms, ..self }
    }

    /// The Bughouse pace, in milliseconds.
    pub fn pace_ms(&self) -> u64 {
        self.pace_ms
    }

    pub fn budgets(&self) -> Budgets {
        self.budgets
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues a search; its answer comes back on `reply`.
    pub fn submit(&self, search: Search, reply: mpsc::UnboundedSender<Box<BotAnswer>>) {
        let job = Job {
            search,
            reply,
            queued_at: Instant::now(),
            span: tracing::Span::current(),
            queued: crate::metrics::queued_search(),
        };
        if self.jobs.send(job).is_err() {
            tracing::error!("the bot search threads have stopped");
        }
    }
}

fn run_thread(queue: &Mutex<std_mpsc::Receiver<Job>>) {
    lower_priority();
    let _counted = crate::metrics::bot_thread();
    loop {
        let job = {
            let queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
            match queue.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        drop(job.queued);
        let _searching = crate::metrics::bot_searching();
        let _in_table = job.span.enter();
        let started = Instant::now();
        let Search {
            game,
            seat,
            strength,
            context,
            ticket,
        } = job.search;
        let decision = catch_unwind(AssertUnwindSafe(|| decide(&game, seat, strength, &context)));
        if decision.is_err() {
            tracing::error!(game = game.kind().id(), seat, "a bot search panicked");
        }
        let answer = BotAnswer {
            seat,
            ticket,
            decision: decision.ok(),
            think: started.elapsed(),
            queued: started.saturating_duration_since(job.queued_at),
        };
        // The table may be gone (it stopped or its game ended): nobody to answer.
        let _ = job.reply.send(Box::new(answer));
    }
}

/// Puts the calling thread at nice 19, the lowest priority (Linux: per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` has no preconditions; `setpriority` on our own thread id only
        // changes this thread's nice value, and its failure is harmless (we log it).
        let result = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, u32::try_from(tid).unwrap_or(0), 19)
        };
        if result != 0 {
            tracing::warn!("could not lower the priority of a bot search thread");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::AnySettings;
    use crate::games::GameKind;
    use crate::games::settings::SettingsReader;

    #[tokio::test]
    async fn answers_come_back_with_their_ticket() {
        let pool = BotPool::start(2, Budgets::default());
        let settings = AnySettings::read(GameKind::Gomoku, &mut SettingsReader::new(Default::default())).unwrap();
        let (reply, mut answers) = mpsc::unbounded_channel();
        for ticket in 0..4 {
            pool.submit(
                Search {
                    game: settings.new_game(),
                    seat: 0,
                    strength: Strength::Random,
                    context: Context::with_budget(Duration::from_millis(1), ticket),
                    ticket,
                },
                reply.clone(),
            );
        }
        let mut tickets = Vec::new();
        for _ in 0..4 {
            let answer = answers.recv().await.unwrap();
            assert_eq!(answer.seat, 0);
            // The centre opening: the only legal first move is H8.
            assert_eq!(answer.decision, Some(Decision::Play(serde_json::json!({"at": "H8"}))));
            tickets.push(answer.ticket);
        }
        tickets.sort();
        assert_eq!(tickets, vec![0, 1, 2, 3]);
    }
}
