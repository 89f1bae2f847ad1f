//! What the playing and pairing modes share: the warm-up and the measured window (their
//! schedule, the wait for every task to be ready, the tasks' wait for the start, the run
//! through the window) and the end of the report (CPU, the server's memory, failures).

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::cli::Common;
use crate::procfs::{self, CpuUse};
use crate::stats::{self, Live, Report, drain, measure};

/// Where the measured window lies.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub window_start: Instant,
    pub window_end: Instant,
}

impl Schedule {
    pub fn contains(&self, at: Instant) -> bool {
        at >= self.window_start && at < self.window_end
    }

    /// The phase at `now` for the progress line.
    pub fn phase(&self, now: Instant) -> &'static str {
        if now < self.window_start { "warm-up" } else { "window" }
    }
}

/// A task's wait for the start: counts it in `ready`, then waits for the schedule (`None`
/// when `stop` comes first).
pub async fn wait_for_start(
    ready: &AtomicU32,
    stop: &CancellationToken,
    start: &mut watch::Receiver<Option<Schedule>>,
) -> Option<Schedule> {
    ready.fetch_add(1, Ordering::Relaxed);
    tokio::select! {
        _ = stop.cancelled() => None,
        got = start.wait_for(Option::is_some) => got.ok().and_then(|s| *s),
    }
}

/// A run's warm-up and window (seconds), and what the report says of the server.
pub struct Window<'a> {
    pub warmup: u64,
    pub window: u64,
    common: &'a Common,
    server_pid: Option<u32>,
    /// The server's resident memory before the load.
    rss_before: Option<u64>,
}

/// What a run through the window measured.
pub struct Measured {
    pub cpu: CpuUse,
    server_pid: Option<u32>,
    rss_before: Option<u64>,
    rss_after: Option<u64>,
}

impl<'a> Window<'a> {
    /// Reads the server's memory before the load.
    pub fn new(warmup: u64, window: u64, common: &'a Common, server_pid: Option<u32>) -> Window<'a> {
        Window {
            warmup,
            window,
            common,
            server_pid,
            rss_before: server_pid.and_then(procfs::rss_kib),
        }
    }

    /// Waits until `ready` reaches `wanted` or `limit` passes and says so (`what`: `matches
    /// seated`, `players in the lobby`); returns how many were ready, after how long.
    pub async fn wait_ready(&self, ready: &AtomicU32, wanted: u32, limit: Duration, what: &str) -> (u32, Duration) {
        let waiting = Instant::now();
        while ready.load(Ordering::Relaxed) < wanted && waiting.elapsed() < limit {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let count = ready.load(Ordering::Relaxed);
        let waited = waiting.elapsed();
        eprintln!(
            "loadgen: {count} of {wanted} {what} in {:.2} s; warm-up {} s, window {} s",
            waited.as_secs_f64(),
            self.warmup,
            self.window
        );
        (count, waited)
    }

    /// Starts the warm-up now and sends the tasks its schedule; runs `progress(start,
    /// schedule)` (it ends on `stop`), measures the CPU over the window, then the server's
    /// memory; then cancels `stop`, waits for the progress line, and up to 5 s for the tasks
    /// (those still running are dropped with their sockets).
    pub async fn run<P, F>(
        &self,
        start_tx: &watch::Sender<Option<Schedule>>,
        stop: &CancellationToken,
        tasks: JoinSet<()>,
        progress: P,
    ) -> Measured
    where
        P: FnOnce(Instant, Schedule) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let start = Instant::now();
        let warmup = Duration::from_secs(self.warmup);
        let schedule = Schedule {
            window_start: start + warmup,
            window_end: start + warmup + Duration::from_secs(self.window),
        };
        let _ = start_tx.send(Some(schedule));

        let progress = tokio::spawn(progress(start, schedule));
        tokio::time::sleep_until(schedule.window_start).await;
        let cpu = measure(self.server_pid, self.common, schedule.window_end).await;
        let rss_after = self.server_pid.and_then(procfs::rss_kib);
        stop.cancel();
        let _ = progress.await;
        drain(tasks, Duration::from_secs(5)).await;
        Measured {
            cpu,
            server_pid: self.server_pid,
            rss_before: self.rss_before,
            rss_after,
        }
    }
}

impl Measured {
    /// The report: `lines`, then the CPU (per `unit`, `count` of them in the window), the
    /// server's memory and the failures; `json` with the same added.
    pub fn report(&self, mut lines: Vec<String>, count: u64, unit: &str, live: &Live, mut json: Value) -> Report {
        let (cpu_lines, cpu_json) = stats::cpu_report_per(&self.cpu, Some(count), unit);
        let (failure_lines, failure_json) = stats::failure_report(&live.failures());
        lines.extend(cpu_lines);
        if let (Some(before), Some(after)) = (self.rss_before, self.rss_after) {
            lines.push(format!(
                "server RSS: {before} KiB before the load, {after} KiB at the end of the window"
            ));
        }
        lines.extend(failure_lines);
        if let Value::Object(map) = &mut json {
            for (key, value) in [
                ("cpu", cpu_json),
                ("server_pid", json!(self.server_pid)),
                ("server_rss_kib_before", json!(self.rss_before)),
                ("server_rss_kib_after", json!(self.rss_after)),
                ("failures", failure_json),
            ] {
                map.insert(key.to_owned(), value);
            }
        }
        Report { lines, json }
    }
}
