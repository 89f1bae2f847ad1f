//! A tiny Gomocup (piskvork protocol) engine for the tests of `tests/engines.rs`, with std
//! only: the test compiles it with `rustc` into its temporary folder and configures it as an
//! engine. Not part of the server.
//!
//! `gomocup_fake MODE [--pids FILE]`, MODE one of:
//! - `random`: a random empty square, every time;
//! - `illegal`: always `7,7` (the centre, taken from the first move on);
//! - `die-at N`: answers like `random`, but exits without answering the Nth `BOARD`;
//! - `hang`: never answers a `BOARD`.
//!
//! `--pids FILE` appends the process id to FILE at start (the test checks a hung engine was
//! killed); `--limits FILE` copies `/proc/self/limits` to FILE at start (the test checks the
//! resource limits the server set).

use std::collections::HashSet;
use std::io::{BufRead, Write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().cloned().unwrap_or_else(|| "random".to_owned());
    let die_at: usize = if mode == "die-at" {
        args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1)
    } else {
        0
    };
    if let Some(index) = args.iter().position(|arg| arg == "--pids") {
        if let Some(path) = args.get(index + 1) {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("the pid file");
            writeln!(file, "{}", std::process::id()).expect("the pid written");
        }
    }
    if let Some(index) = args.iter().position(|arg| arg == "--limits") {
        if let Some(path) = args.get(index + 1) {
            let limits = std::fs::read_to_string("/proc/self/limits").expect("the process's limits");
            std::fs::write(path, limits).expect("the limits written");
        }
    }
    let mut seed = u64::from(std::process::id()) ^ 0x9E37_79B9_7F4A_7C15;
    let mut size = 15u32;
    let mut stones: HashSet<(u32, u32)> = HashSet::new();
    let mut in_board = false;
    let mut boards = 0;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let line = line.trim().to_owned();
        let upper = line.to_ascii_uppercase();
        if in_board {
            if upper == "DONE" {
                in_board = false;
                boards += 1;
                if mode == "hang" {
                    continue;
                }
                if mode == "die-at" && boards == die_at {
                    std::process::exit(3);
                }
                let reply = if mode == "illegal" {
                    "7,7".to_owned()
                } else {
                    random_empty(&mut seed, size, &stones)
                };
                writeln!(out, "MESSAGE thinking done")
                    .and_then(|()| writeln!(out, "{reply}"))
                    .expect("stdout");
                out.flush().expect("stdout");
            } else if let Some((x, y)) = parse_xy(&line) {
                stones.insert((x, y));
            }
            continue;
        }
        if let Some(rest) = upper.strip_prefix("START ") {
            size = rest.trim().parse().unwrap_or(15);
            stones.clear();
            writeln!(out, "OK").expect("stdout");
        } else if upper == "BOARD" {
            stones.clear();
            in_board = true;
        } else if upper == "END" {
            return;
        } else if upper.starts_with("INFO") {
            // No answer to INFO.
        } else {
            writeln!(out, "UNKNOWN {line}").expect("stdout");
        }
        out.flush().expect("stdout");
    }
}

fn parse_xy(line: &str) -> Option<(u32, u32)> {
    let mut parts = line.split(',');
    Some((parts.next()?.trim().parse().ok()?, parts.next()?.trim().parse().ok()?))
}

fn random_empty(seed: &mut u64, size: u32, stones: &HashSet<(u32, u32)>) -> String {
    loop {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let square = u32::try_from(*seed % u64::from(size * size)).unwrap_or(0);
        let (x, y) = (square % size, square / size);
        if !stones.contains(&(x, y)) {
            return format!("{x},{y}");
        }
    }
}
