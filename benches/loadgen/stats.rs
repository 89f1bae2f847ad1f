//! What a run counts while it goes (shared by every task) and how it is reported: latency
//! histograms in microseconds (`hdrhistogram`), failures by kind, the progress line, the
//! human table and the one-line JSON summary.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde_json::{Value, json};

use crate::conn::Failure;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::cli::Common;
use crate::procfs::{CpuSample, CpuUse};

/// Longest latency a histogram holds (longer ones are clamped to it).
const MAX_LATENCY_US: u64 = 120_000_000;

/// A latency histogram in microseconds, 3 significant figures.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).expect("valid histogram bounds")
}

/// Counters every task of a run adds to.
pub struct Live {
    /// Moves whose `moved` reached the opponent, since the start.
    pub moves: AtomicU64,
    /// Of those, inside the measured window.
    pub window_moves: AtomicU64,
    /// WebSockets open now.
    pub open: AtomicI64,
    /// Tables created.
    pub tables: AtomicU64,
    /// Connections opened (the idle mode).
    pub opened: AtomicU64,
    /// Games played to their end.
    pub games: AtomicU64,
    failures: Mutex<BTreeMap<String, (u64, String)>>,
    latencies: Mutex<Latencies>,
}

/// The latency histograms: the last second's (for the progress line) and the window's.
struct Latencies {
    second: Histogram<u64>,
    window: Histogram<u64>,
}

impl Live {
    pub fn new() -> Live {
        Live {
            moves: AtomicU64::new(0),
            window_moves: AtomicU64::new(0),
            open: AtomicI64::new(0),
            tables: AtomicU64::new(0),
            opened: AtomicU64::new(0),
            games: AtomicU64::new(0),
            failures: Mutex::new(BTreeMap::new()),
            latencies: Mutex::new(Latencies {
                second: histogram(),
                window: histogram(),
            }),
        }
    }

    /// Counts a failure by its kind, keeping the first detail of each kind.
    pub fn fail(&self, failure: &Failure) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let entry = failures
            .entry(failure.kind.clone())
            .or_insert_with(|| (0, failure.detail.clone()));
        entry.0 += 1;
    }

    pub fn failures(&self) -> BTreeMap<String, (u64, String)> {
        self.failures.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn failure_count(&self) -> u64 {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|v| v.0)
            .sum()
    }

    /// One move seen by the opponent after `latency`; `in_window` if that was inside the
    /// measured window.
    pub fn record(&self, latency: Duration, in_window: bool) {
        let us = u64::try_from(latency.as_micros())
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_LATENCY_US);
        self.moves.fetch_add(1, Ordering::Relaxed);
        let mut latencies = self.latencies.lock().unwrap_or_else(|e| e.into_inner());
        latencies.second.saturating_record(us);
        if in_window {
            self.window_moves.fetch_add(1, Ordering::Relaxed);
            latencies.window.saturating_record(us);
        }
    }

    /// The last second's p99 and the window's so far (ms), and resets the last second's.
    pub fn take_second(&self) -> (Option<f64>, Option<f64>) {
        let mut latencies = self.latencies.lock().unwrap_or_else(|e| e.into_inner());
        let p99 = |h: &Histogram<u64>| (!h.is_empty()).then(|| h.value_at_quantile(0.99) as f64 / 1000.0);
        let result = (p99(&latencies.second), p99(&latencies.window));
        latencies.second.reset();
        result
    }

    pub fn window_histogram(&self) -> Histogram<u64> {
        self.latencies.lock().unwrap_or_else(|e| e.into_inner()).window.clone()
    }
}

/// The CPU used from now until `end` by the server, PostgreSQL (with `--pg`), the load
/// generator and the machine.
pub async fn measure(server_pid: Option<u32>, common: &Common, end: Instant) -> CpuUse {
    let postgres = common.postgres();
    let more = &common.more_server_pids;
    let start = CpuSample::take(server_pid, more, postgres);
    tokio::time::sleep_until(end).await;
    CpuUse::between(&start, &CpuSample::take(server_pid, more, postgres))
}

/// Calls `line` once a second from one second after `start` until `stop` (the progress
/// lines on stderr).
pub async fn each_second(start: Instant, stop: tokio_util::sync::CancellationToken, mut line: impl FnMut(Instant)) {
    let mut tick = tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => line(Instant::now()),
        }
    }
}

/// Waits up to `limit` for `tasks` to end, then aborts the rest.
pub async fn drain(mut tasks: JoinSet<()>, limit: Duration) {
    let _ = tokio::time::timeout(limit, async { while tasks.join_next().await.is_some() {} }).await;
    tasks.abort_all();
}

/// A whole run's outcome: the human table, and its figures as one JSON object.
pub struct Report {
    pub lines: Vec<String>,
    pub json: Value,
}

impl Report {
    /// The table on stdout, and the JSON as its last line when `as_json`.
    pub fn print(&self, as_json: bool) {
        for line in &self.lines {
            println!("{line}");
        }
        if as_json {
            println!("{}", self.json);
        }
    }
}

/// Percentiles of a latency histogram, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub count: u64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
}

impl Summary {
    pub fn of(h: &Histogram<u64>) -> Option<Summary> {
        if h.is_empty() {
            return None;
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Some(Summary {
            count: h.len(),
            p50: ms(h.value_at_quantile(0.50)),
            p90: ms(h.value_at_quantile(0.90)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
            mean: h.mean() / 1000.0,
        })
    }

    /// The percentiles, counting `what` (`moves`, `pairings`, …).
    pub fn line_of(&self, what: &str) -> String {
        format!(
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms, max {:.2} ms, mean {:.2} ms ({} {what})",
            self.p50, self.p90, self.p99, self.p999, self.max, self.mean, self.count
        )
    }

    /// A report's line `title: percentiles`, or `title: none` when `summary` is empty.
    pub fn titled(title: &str, summary: Option<Summary>, what: &str, none: &str) -> String {
        format!("{title}: {}", summary.map_or(none.to_owned(), |s| s.line_of(what)))
    }

    pub fn json(&self) -> Value {
        json!({
            "count": self.count, "p50_ms": round3(self.p50), "p90_ms": round3(self.p90),
            "p99_ms": round3(self.p99), "p999_ms": round3(self.p999), "max_ms": round3(self.max),
            "mean_ms": round3(self.mean),
        })
    }
}

/// The server's process id for a report's first line (`unknown` when not found).
pub fn pid_text(server_pid: Option<u32>) -> String {
    server_pid.map_or("unknown".to_owned(), |p| p.to_string())
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The CPU lines of a report, per move when `moves` is given, and their JSON.
pub fn cpu_report(cpu: &CpuUse, moves: Option<u64>) -> (Vec<String>, Value) {
    cpu_report_per(cpu, moves, "move")
}

/// The CPU lines of a report, per `unit` (`move`, `pairing`) when `count` is given, and
/// their JSON (`server_us_per_{unit}`, …).
pub fn cpu_report_per(cpu: &CpuUse, count: Option<u64>, unit: &str) -> (Vec<String>, Value) {
    let wall = cpu.wall.as_secs_f64().max(f64::EPSILON);
    let cores = |d: Duration| d.as_secs_f64() / wall;
    let per_unit = |d: Duration| count.filter(|&m| m > 0).map(|m| d.as_secs_f64() * 1e6 / m as f64);
    let mut lines = Vec::new();
    let mut row = |name: &str, d: Option<Duration>| {
        let Some(d) = d else {
            lines.push(format!("{name:<22} not measured"));
            return;
        };
        let per = per_unit(d).map_or(String::new(), |us| format!(", {us:.1} µs per {unit}"));
        lines.push(format!(
            "{name:<22} {:.3} s CPU = {:.2} cores{per}",
            d.as_secs_f64(),
            cores(d)
        ));
    };
    row("server", cpu.server);
    row("  of which kernel", cpu.server_system);
    row(&format!("postgres ({} procs)", cpu.postgres_processes), cpu.postgres);
    row("load generator", Some(cpu.own));
    row("other load", Some(cpu.other()));
    row("machine busy", Some(cpu.machine_busy));
    lines.push(format!(
        "machine: {:.1} cores, {:.0} % busy over the window of {:.2} s",
        cpu.cores,
        100.0 * cores(cpu.machine_busy) / cpu.cores.max(f64::EPSILON),
        wall
    ));
    let opt = |d: Option<Duration>| d.map(|d| round3(d.as_secs_f64()));
    let opt_per = |d: Option<Duration>| d.and_then(per_unit).map(|x| (x * 10.0).round() / 10.0);
    let mut value = json!({
        "wall_s": round3(wall),
        "server_cpu_s": opt(cpu.server),
        "postgres_cpu_s": opt(cpu.postgres),
        "postgres_processes": cpu.postgres_processes,
        "loadgen_cpu_s": round3(cpu.own.as_secs_f64()),
        "other_cpu_s": round3(cpu.other().as_secs_f64()),
        "machine_busy_cpu_s": round3(cpu.machine_busy.as_secs_f64()),
        "machine_cores": (cpu.cores * 10.0).round() / 10.0,
        "server_system_cpu_s": opt(cpu.server_system),
    });
    if let Value::Object(map) = &mut value {
        for (name, d) in [
            ("server", cpu.server),
            ("server_system", cpu.server_system),
            ("postgres", cpu.postgres),
            ("loadgen", Some(cpu.own)),
        ] {
            map.insert(format!("{name}_us_per_{unit}"), json!(opt_per(d)));
        }
    }
    (lines, value)
}

/// Failures by kind as lines and JSON (`{kind: count}`).
pub fn failure_report(failures: &BTreeMap<String, (u64, String)>) -> (Vec<String>, Value) {
    let lines = failures
        .iter()
        .map(|(kind, (count, first))| format!("failure {kind}: {count} (first: {first})"))
        .collect();
    let value = Value::Object(failures.iter().map(|(k, (n, _))| (k.clone(), json!(n))).collect());
    (lines, value)
}
