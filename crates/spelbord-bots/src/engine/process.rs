//! One engine's child process, spoken to over pipes: started without a shell under
//! resource limits, its output read line by line on a thread of its own (so a wait for an
//! answer has a deadline), and killed — with anything it started — when dropped.
//!
//! Limits, set in the child between `fork` and `exec` (`pre_exec`, async-signal-safe calls
//! only): `RLIMIT_AS` (address space, `memory_mb`) and `RLIMIT_CPU` (CPU seconds over the
//! process's life, `cpu_seconds`: past it the kernel kills the engine and it is started
//! again at its next move), `PR_SET_PDEATHSIG` (it dies with the thread that started it),
//! and its own process group (killing the group kills what a wrapper started). The child
//! inherits the calling thread's priority: engine threads run at nice 19, as searches do.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use super::EngineConfig;
use super::session::SessionError;

/// A longer line than this is cut (an engine's answers are a few dozen bytes).
const MAX_LINE: u64 = 64 * 1024;

/// A running engine.
pub(super) struct EngineProcess {
    child: Child,
    /// Where commands go.
    stdin: ChildStdin,
    /// Its output, a line at a time, from the reader thread; closed at its end of output.
    lines: mpsc::Receiver<String>,
}

impl EngineProcess {
    /// Starts the configured command.
    pub(super) fn spawn(config: &EngineConfig) -> Result<EngineProcess, SessionError> {
        let (program, args) = config.command.split_first().ok_or(SessionError::NoCommand)?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        limit(&mut command, config.memory_mb, config.cpu_seconds);
        let mut child = command.spawn().map_err(SessionError::Spawn)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SessionError::Died);
        };
        let (sender, lines) = mpsc::channel();
        let reader = std::thread::Builder::new()
            .name("engine-output".into())
            .spawn(move || read_lines(stdout, &sender));
        if let Err(err) = reader {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SessionError::Spawn(err));
        }
        Ok(EngineProcess { child, stdin, lines })
    }

    /// Sends one line.
    pub(super) fn send(&mut self, line: &str) -> Result<(), SessionError> {
        tracing::trace!(line, "to engine");
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush());
        written.map_err(|_| SessionError::Died)
    }

    /// The next line of output, waiting until `until` at most.
    pub(super) fn line(&mut self, until: Instant) -> Result<String, SessionError> {
        let wait = until.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                tracing::trace!(line, "from engine");
                Ok(line)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Err(SessionError::Timeout),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(SessionError::Died),
        }
    }

    /// Whether the process still runs.
    pub(super) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The process id (for tests and logs).
    pub(super) fn id(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: `kill` with a negative pid signals the process group the child leads
            // (it was started in a group of its own); no memory is touched.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `stdout` a line at a time until its end (the engine exited or was killed).
fn read_lines(stdout: impl Read, sender: &mpsc::Sender<String>) {
    let mut reader = BufReader::new(stdout);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer)
                    .trim_end_matches(['\r', '\n'])
                    .to_owned();
                if sender.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// The resource limits and the process group, applied in the child before `exec`.
fn limit(command: &mut Command, memory_mb: u64, cpu_seconds: u64) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let memory = memory_mb.saturating_mul(1024 * 1024);
    // SAFETY: the closure runs in the child between fork and exec and calls only
    // async-signal-safe functions (`setrlimit`, `prctl`); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if memory > 0 {
                set_limit(libc::RLIMIT_AS, memory)?;
            }
            if cpu_seconds > 0 {
                set_limit(libc::RLIMIT_CPU, cpu_seconds)?;
            }
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// Sets a resource's soft and hard limit (in the child, before `exec`).
fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: `setrlimit` reads the struct we pass and nothing else.
    if unsafe { libc::setrlimit(resource, &limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
