//! The search threads' metrics: their names and the guards that count them. The server's
//! recorder describes and renders them with every other metric (its `src/metrics.rs`).

use metrics::{counter, gauge};

/// Bot search threads running (gauge).
pub const BOT_THREADS: &str = "spelbord_bot_threads";
/// Search threads searching now (gauge).
pub const BOT_THREADS_BUSY: &str = "spelbord_bot_threads_busy";
/// Searches waiting for a free thread (gauge).
pub const BOT_SEARCHES_QUEUED: &str = "spelbord_bot_searches_queued";

/// Moves an external engine did not answer usably, answered by our hard bot instead
/// (counter; labels `engine`, `reason`: `start`, `died`, `timeout`, `protocol`, `no_move`,
/// `illegal`).
pub const ENGINE_FALLBACKS: &str = "spelbord_engine_fallbacks_total";
/// External engine processes started: the first, and each after one died or was killed
/// (counter; label `engine`).
pub const ENGINE_STARTS: &str = "spelbord_engine_starts_total";

/// Counts a move our hard bot answered for an engine.
pub fn engine_fallback(engine: &str, reason: &'static str) {
    counter!(ENGINE_FALLBACKS, "engine" => engine.to_owned(), "reason" => reason).increment(1);
}

/// Counts an engine process started.
pub fn engine_started(engine: &str) {
    counter!(ENGINE_STARTS, "engine" => engine.to_owned()).increment(1);
}

/// Counts one of something in a gauge without labels while it lives (the server counts
/// its connections with it too).
#[derive(Debug)]
#[must_use = "it counts only while it is kept"]
pub struct Counted(&'static str);

impl Counted {
    /// Counts one in `gauge` until dropped.
    pub fn new(gauge: &'static str) -> Counted {
        gauge!(gauge).increment(1.0);
        Counted(gauge)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        gauge!(self.0).decrement(1.0);
    }
}

/// Counts one running bot search thread.
pub fn bot_thread() -> Counted {
    Counted::new(BOT_THREADS)
}

/// Counts one bot search waiting for a thread (until taken up, or dropped unsearched).
pub fn queued_search() -> Counted {
    Counted::new(BOT_SEARCHES_QUEUED)
}

/// Counts one search thread as busy while it searches.
pub fn bot_searching() -> Counted {
    Counted::new(BOT_THREADS_BUSY)
}
