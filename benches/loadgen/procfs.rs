//! What the load generator reads from `/proc` (and sets with `setrlimit`): the CPU time of
//! the server, of PostgreSQL and of the whole machine, the server's resident memory, the
//! process listening on a port, and its own file-descriptor limit.
//!
//! CPU times are in clock ticks (`sysconf(_SC_CLK_TCK)`, usually 100 a second), so a
//! figure over a window of a few seconds has a resolution of 10 ms of CPU.

use std::collections::HashSet;
use std::fs;
use std::time::Duration;

/// Clock ticks per second of the CPU times in `/proc`.
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0).unwrap_or(100)
}

/// A CPU time in clock ticks as a duration.
pub fn ticks_to_duration(ticks: u64) -> Duration {
    Duration::from_secs_f64(ticks as f64 / ticks_per_second() as f64)
}

/// User plus system CPU time of process `pid` (all its threads), in clock ticks.
pub fn process_ticks(pid: u32) -> Option<u64> {
    user_and_system_ticks(pid).map(|(user, system)| user + system)
}

/// The user and the system CPU time of process `pid` (all its threads), in clock ticks.
fn user_and_system_ticks(pid: u32) -> Option<(u64, u64)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 (utime) and 15 (stime) of proc(5); `fields[0]` is field 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime, stime))
}

/// Our own CPU time in clock ticks.
pub fn own_ticks() -> u64 {
    process_ticks(std::process::id()).unwrap_or(0)
}

/// The CPU time of every process whose `comm` is `postgres`, in clock ticks, and how many
/// there were: with `postmaster` only that one and its children (one cluster: its backends
/// and background workers), otherwise every cluster on the machine.
pub fn postgres_ticks(postmaster: Option<u32>) -> (u64, usize) {
    let mut ticks = 0;
    let mut count = 0;
    for pid in pids() {
        let Ok(comm) = fs::read_to_string(format!("/proc/{pid}/comm")) else {
            continue;
        };
        if comm.trim_end() != "postgres" {
            continue;
        }
        if let Some(postmaster) = postmaster
            && pid != postmaster
            && parent(pid) != Some(postmaster)
        {
            continue;
        }
        if let Some(t) = process_ticks(pid) {
            ticks += t;
            count += 1;
        }
    }
    (ticks, count)
}

/// The parent of process `pid` (field 4 of its `stat`).
fn parent(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
}

/// The postmaster of the cluster in `data_dir`: the first line of its `postmaster.pid`.
pub fn postmaster_of(data_dir: &std::path::Path) -> Option<u32> {
    let text = fs::read_to_string(data_dir.join("postmaster.pid")).ok()?;
    text.lines().next()?.trim().parse().ok()
}

/// The machine's CPU time from the `cpu` line of `/proc/stat`, in clock ticks over all cores.
#[derive(Debug, Clone, Copy, Default)]
pub struct MachineTicks {
    /// Everything but idle and iowait.
    pub busy: u64,
    pub total: u64,
}

pub fn machine_ticks() -> MachineTicks {
    let Ok(stat) = fs::read_to_string("/proc/stat") else {
        return MachineTicks::default();
    };
    let Some(line) = stat.lines().find(|line| line.starts_with("cpu ")) else {
        return MachineTicks::default();
    };
    // user nice system idle iowait irq softirq steal (guest times are inside user already).
    let values: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|v| v.parse().ok())
        .collect();
    let total: u64 = values.iter().sum();
    let idle = values.get(3).copied().unwrap_or(0) + values.get(4).copied().unwrap_or(0);
    MachineTicks {
        busy: total.saturating_sub(idle),
        total,
    }
}

/// The resident memory of process `pid` (`VmRSS`), in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process listening on TCP `port` (IPv4 or IPv6): the socket's inode from
/// `/proc/net/tcp{,6}`, then the process holding a descriptor to it.
pub fn find_listener(port: u16) -> Option<u32> {
    let mut inodes = HashSet::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address is `HEXADDR:HEXPORT`, st `0A` is LISTEN, inode is field 10.
            let (Some(local), Some(state), Some(inode)) = (fields.get(1), fields.get(3), fields.get(9)) else {
                continue;
            };
            let listening_port = local
                .rsplit(':')
                .next()
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if *state == "0A" && listening_port == Some(port) {
                inodes.insert(format!("socket:[{inode}]"));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    pids().into_iter().find(|pid| {
        fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                fs::read_link(entry.path()).is_ok_and(|target| inodes.contains(target.to_string_lossy().as_ref()))
            })
        })
    })
}

/// Every process id in `/proc`.
fn pids() -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect()
}

/// Raises our own file-descriptor limit to `wanted` (the hard limit too, which root may
/// do), or else the soft limit to the hard one; returns the soft limit now in force.
pub fn raise_nofile(wanted: u64) -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        if limit.rlim_cur >= wanted {
            return limit.rlim_cur;
        }
        let raised = libc::rlimit {
            rlim_cur: wanted,
            rlim_max: limit.rlim_max.max(wanted),
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            return wanted;
        }
        let to_hard = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &to_hard) == 0 {
            return limit.rlim_max;
        }
        limit.rlim_cur
    }
}

/// The soft file-descriptor limit of process `pid`, from `/proc/PID/limits`.
pub fn nofile_of(pid: u32) -> Option<u64> {
    let limits = fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = limits.lines().find(|line| line.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// One reading of every CPU counter, taken at the edges of a measured window.
#[derive(Debug, Clone, Copy)]
pub struct CpuSample {
    pub at: std::time::Instant,
    pub server: Option<u64>,
    /// The server's system (kernel) time alone, of `server_pid` only.
    pub server_system: Option<u64>,
    pub postgres: Option<(u64, usize)>,
    pub own: u64,
    pub machine: MachineTicks,
}

impl CpuSample {
    /// Reads the counters now; PostgreSQL's only when `pg` is `Some` (`Some(None)`: every
    /// cluster's processes; `Some(Some(pid))`: that postmaster's and its children's).
    /// `more_servers`' ticks are added to the server's (several nodes).
    pub fn take(server_pid: Option<u32>, more_servers: &[u32], pg: Option<Option<u32>>) -> CpuSample {
        let server = server_pid.and_then(user_and_system_ticks);
        CpuSample {
            at: std::time::Instant::now(),
            server: server.map(|(user, system)| {
                user + system + more_servers.iter().filter_map(|pid| process_ticks(*pid)).sum::<u64>()
            }),
            server_system: server.filter(|_| more_servers.is_empty()).map(|(_, system)| system),
            postgres: pg.map(postgres_ticks),
            own: own_ticks(),
            machine: machine_ticks(),
        }
    }
}

/// The CPU used between two samples.
#[derive(Debug, Clone, Copy)]
pub struct CpuUse {
    pub wall: Duration,
    pub server: Option<Duration>,
    /// Of `server`, the time in the kernel (one server only).
    pub server_system: Option<Duration>,
    pub postgres: Option<Duration>,
    /// PostgreSQL processes at the end of the window.
    pub postgres_processes: usize,
    /// The load generator's own.
    pub own: Duration,
    /// All cores' busy time.
    pub machine_busy: Duration,
    /// Cores of the machine (`/proc/stat`'s total over the wall time).
    pub cores: f64,
}

impl CpuUse {
    pub fn between(start: &CpuSample, end: &CpuSample) -> CpuUse {
        let wall = end.at.saturating_duration_since(start.at);
        let delta = |a: Option<u64>, b: Option<u64>| Some(ticks_to_duration(b?.saturating_sub(a?)));
        let machine_total = ticks_to_duration(end.machine.total.saturating_sub(start.machine.total));
        CpuUse {
            wall,
            server: delta(start.server, end.server),
            server_system: delta(start.server_system, end.server_system),
            postgres: delta(start.postgres.map(|p| p.0), end.postgres.map(|p| p.0)),
            postgres_processes: end.postgres.map_or(0, |p| p.1),
            own: ticks_to_duration(end.own.saturating_sub(start.own)),
            machine_busy: ticks_to_duration(end.machine.busy.saturating_sub(start.machine.busy)),
            cores: machine_total.as_secs_f64() / wall.as_secs_f64().max(f64::EPSILON),
        }
    }

    /// The machine's busy time less the server's, PostgreSQL's and ours: the other load.
    pub fn other(&self) -> Duration {
        self.machine_busy
            .saturating_sub(self.server.unwrap_or_default())
            .saturating_sub(self.postgres.unwrap_or_default())
            .saturating_sub(self.own)
    }
}
