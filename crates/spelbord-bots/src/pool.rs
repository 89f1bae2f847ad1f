//! The threads bots think on: a fixed number of OS threads, never tokio's workers, so a
//! search never holds up a table's actor or a connection.
//!
//! A table hands over a [`Search`] (a copy of the position, the seat, the strength and a
//! deadline) and receives the answer on its own channel as a [`BotAnswer`]; it keeps
//! serving everyone else meanwhile.
//!
//! Searches are shared out fairly by **owner** (the address of the person the bot plays
//! for, [`Search::owner`]): each owner's searches wait in order of arrival, and the threads
//! take the owners in turn ([`Scheduler`]). One address with sixty bot tables therefore
//! waits behind itself, and a person at another address waits for at most one search of
//! each other owner, however many tables they keep busy. A search at an untimed table gets
//! its whole budget from when a thread takes it (waiting cost it nothing but the wait); on
//! a clock its deadline stands (the clock ran meanwhile), and one that starts late answers
//! at once with the engine's quickest sound move. The queue's length is the metric
//! `spelbord_bot_searches_queued` (docs/operations.md has the alert).
//!
//! The threads run at the lowest scheduling priority (nice 19), so that when the machine
//! is busy the kernel runs the server's own threads first: bots think in the time people
//! leave over, and human tables keep their latency.
//!
//! A search that panics is caught and answered as `None`; the table then plays a random
//! legal move for the bot rather than stall.
//!
//! A search for an engine's seat (`engine:NAME`) goes to that engine's own threads
//! ([`crate::engine`]) instead, and comes back on the same channel; an engine no longer
//! configured (the table was stored before the configuration changed) is played by our
//! hard bot here.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;

use super::engine::Engines;
use super::engine::worker::EngineJob;
use super::{BotChoice, Budgets, Context, Decision, Outlook, Strength, answer};
use spelbord_games::{AnyGame, Seat};

/// What a table asks a bot to think about.
#[derive(Debug)]
pub struct Search {
    pub game: AnyGame,
    pub seat: Seat,
    pub strength: BotChoice,
    pub context: Context,
    /// The table's number for this request, returned with the answer so the table can
    /// tell a current answer from a stale one.
    pub ticket: u64,
    /// Whose turn in the queue it takes: the address of the person the bot plays for.
    pub owner: IpAddr,
}

/// A bot's answer, on its way back to the table.
#[derive(Debug)]
pub struct BotAnswer {
    pub seat: Seat,
    pub ticket: u64,
    /// `None` when the search failed (it panicked).
    pub decision: Option<Decision<Value>>,
    /// How the search saw the position, for the seat's [`crate::resign::Watch`].
    pub outlook: Outlook,
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

/// Searches waiting for a thread, per owner, and the owners' turns: the next search is the
/// oldest of the owner whose turn it is, who then goes to the back of the line.
pub struct Scheduler<T> {
    waiting: HashMap<IpAddr, VecDeque<T>>,
    turns: VecDeque<IpAddr>,
}

impl<T> Default for Scheduler<T> {
    fn default() -> Scheduler<T> {
        Scheduler {
            waiting: HashMap::new(),
            turns: VecDeque::new(),
        }
    }
}

impl<T> Scheduler<T> {
    pub fn push(&mut self, owner: IpAddr, item: T) {
        let queue = self.waiting.entry(owner).or_default();
        if queue.is_empty() {
            self.turns.push_back(owner);
        }
        queue.push_back(item);
    }

    pub fn pop(&mut self) -> Option<T> {
        let owner = self.turns.pop_front()?;
        let queue = self.waiting.get_mut(&owner)?;
        let item = queue.pop_front();
        if queue.is_empty() {
            self.waiting.remove(&owner);
        } else {
            self.turns.push_back(owner);
        }
        item
    }

    pub fn len(&self) -> usize {
        self.waiting.values().map(VecDeque::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

/// Work waiting for threads, taken fairly by owner ([`Scheduler`]), until it is closed: the
/// search threads' queue, and each engine's.
pub(crate) struct JobQueue<T> {
    state: Mutex<QueueState<T>>,
    ready: Condvar,
}

struct QueueState<T> {
    jobs: Scheduler<T>,
    /// No more work will come: the threads end once the queue is empty.
    closed: bool,
}

impl<T> Default for JobQueue<T> {
    fn default() -> JobQueue<T> {
        JobQueue {
            state: Mutex::new(QueueState {
                jobs: Scheduler::default(),
                closed: false,
            }),
            ready: Condvar::new(),
        }
    }
}

impl<T> JobQueue<T> {
    pub(crate) fn push(&self, owner: IpAddr, item: T) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .jobs
            .push(owner, item);
        self.ready.notify_one();
    }

    /// Lets the threads end once what is queued is taken.
    pub(crate) fn close(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).closed = true;
        self.ready.notify_all();
    }

    /// The next item, waiting for one; `None` once the queue is closed and empty.
    pub(crate) fn next(&self) -> Option<T> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(item) = state.jobs.pop() {
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

type Shared = JobQueue<Job>;

/// Held by every clone of the pool: when the last one goes, the threads end.
struct Closer(Arc<Shared>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The pool of search threads, and each strength's budget. Cheap to clone.
#[derive(Clone)]
pub struct BotPool {
    shared: Arc<Shared>,
    _closer: Arc<Closer>,
    budgets: Budgets,
    threads: usize,
    /// Bughouse bots move no faster than this (scaled by their clock).
    pace_ms: u64,
    /// Whether bots may resign hopeless games ([`crate::resign`], `bots.resign`).
    resign: bool,
    /// The configured external engines.
    engines: Engines,
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
        let shared = Arc::new(Shared::default());
        for index in 0..threads {
            let shared = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("bot-search-{index}"))
                .spawn(move || run_thread(&shared));
            if let Err(err) = spawned {
                tracing::error!(error = %err, "could not start a bot search thread");
            }
        }
        BotPool {
            _closer: Arc::new(Closer(shared.clone())),
            shared,
            budgets,
            threads,
            pace_ms: DEFAULT_BUGHOUSE_PACE_MS,
            resign: true,
            engines: Engines::default(),
        }
    }

    /// Sends `engine:NAME` seats' searches to these engines.
    pub fn with_engines(self, engines: Engines) -> BotPool {
        BotPool { engines, ..self }
    }

    /// The configured engines.
    pub fn engines(&self) -> &Engines {
        &self.engines
    }

    /// The thinking time of `choice` at an untimed table (an engine's `move_ms`; `hard`'s
    /// for an engine no longer configured, which our hard bot plays).
    pub fn budget(&self, choice: BotChoice) -> Duration {
        match choice {
            BotChoice::Bot(strength) => self.budgets.of(strength),
            BotChoice::Engine(name) => self
                .engines
                .move_time(name)
                .unwrap_or_else(|| self.budgets.of(Strength::Hard)),
        }
    }

    /// Sets whether bots may resign hopeless games (`bots.resign`).
    pub fn with_resign(self, resign: bool) -> BotPool {
        BotPool { resign, ..self }
    }

    /// Whether bots may resign hopeless games.
    pub fn resigns(&self) -> bool {
        self.resign
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
    pub fn submit(&self, mut search: Search, reply: mpsc::UnboundedSender<Box<BotAnswer>>) {
        if let BotChoice::Engine(name) = search.strength {
            let job = EngineJob {
                game: search.game,
                seat: search.seat,
                context: search.context,
                ticket: search.ticket,
                owner: search.owner,
                reply,
                queued_at: Instant::now(),
                span: tracing::Span::current(),
            };
            let Err(job) = self.engines.submit(name, job) else {
                return;
            };
            tracing::warn!(engine = %name, "a seat holds an engine no longer configured: our hard bot plays for it");
            let EngineJob {
                game,
                seat,
                context,
                ticket,
                owner,
                reply,
                ..
            } = *job;
            search = Search {
                game,
                seat,
                strength: BotChoice::Bot(Strength::Hard),
                context,
                ticket,
                owner,
            };
            return self.submit(search, reply);
        }
        let owner = search.owner;
        let job = Job {
            search,
            reply,
            queued_at: Instant::now(),
            span: tracing::Span::current(),
            queued: crate::metrics::queued_search(),
        };
        self.shared.push(owner, job);
    }
}

fn run_thread(shared: &Shared) {
    lower_priority();
    let _counted = crate::metrics::bot_thread();
    loop {
        let Some(job) = shared.next() else { return };
        drop(job.queued);
        let _searching = crate::metrics::bot_searching();
        let _in_table = job.span.enter();
        let started = Instant::now();
        let Search {
            game,
            seat,
            strength,
            mut context,
            ticket,
            owner: _,
        } = job.search;
        // Untimed: the budget counts from now, not from when the search was asked for.
        if context.clocks.is_none() {
            context.deadline += started.saturating_duration_since(job.queued_at);
        }
        let strength = strength.stand_in();
        let answered = catch_unwind(AssertUnwindSafe(|| answer(&game, seat, strength, &context)));
        if answered.is_err() {
            tracing::error!(game = game.kind().id(), seat, "a bot search panicked");
        }
        let (decision, outlook) = match answered {
            Ok(answered) => (Some(answered.decision), answered.outlook),
            Err(_) => (None, Outlook::Unclear),
        };
        let answer = BotAnswer {
            seat,
            ticket,
            decision,
            outlook,
            think: started.elapsed(),
            queued: started.saturating_duration_since(job.queued_at),
        };
        // The table may be gone (it stopped or its game ended): nobody to answer.
        let _ = job.reply.send(Box::new(answer));
    }
}

/// Puts the calling thread at nice 19, the lowest priority (Linux: per thread).
pub(crate) fn lower_priority() {
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
    use spelbord_games::AnySettings;
    use spelbord_games::GameKind;
    use spelbord_games::settings::SettingsReader;

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
                    strength: Strength::Random.into(),
                    context: Context::with_budget(Duration::from_millis(1), ticket),
                    ticket,
                    owner: IpAddr::from([127, 0, 0, 1]),
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

    #[test]
    fn owners_take_turns_and_each_keeps_its_order() {
        let (a, b, c) = (
            IpAddr::from([10, 0, 0, 1]),
            IpAddr::from([10, 0, 0, 2]),
            IpAddr::from([10, 0, 0, 3]),
        );
        let mut scheduler = Scheduler::default();
        for n in 1..=5 {
            scheduler.push(a, format!("a{n}"));
        }
        scheduler.push(b, "b1".to_owned());
        scheduler.push(c, "c1".to_owned());
        scheduler.push(b, "b2".to_owned());
        assert_eq!(scheduler.len(), 8);
        let order: Vec<String> = std::iter::from_fn(|| scheduler.pop()).collect();
        assert_eq!(order, ["a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"]);
        assert!(scheduler.is_empty());
        // An owner whose queue emptied joins the line again at its back.
        scheduler.push(a, "a6".to_owned());
        scheduler.push(b, "b3".to_owned());
        assert_eq!(scheduler.pop().as_deref(), Some("a6"));
        assert_eq!(scheduler.pop().as_deref(), Some("b3"));
        assert_eq!(scheduler.pop(), None);
    }
}
